// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-iio-dma - two test IIO devices whose buffers are the kernel's own
 * DMA buffer code (industrialio-buffer-dmaengine, the path of adi-axi-adc
 * and its DAC twin), fed by the channels of the test dmaengine provider
 * tests/kmod/udmem-edu-dma.ko:
 *
 *  - "udmem-iio-rx": an input buffer on the provider's "rx" channel, one
 *    scan element (in_voltage0, u32), the samples of the channel's emulated
 *    FIFO, a counter (its debugfs rx_next is the next one);
 *  - "udmem-iio-tx": an output buffer on its "tx" channel, one scan element
 *    (out_voltage0, u32), into the channel's sink, which compares every
 *    sample with its own counter (tx_next, tx_errors, tx_bytes).  Only on
 *    kernels whose dmaengine buffer has a direction (6.9 on).
 *
 * Both are children of one platform device, "udmem-iio-dma", which asks for
 * the channels with dma_request_chan(dev, "rx"/"tx"): load the provider
 * with map_client=udmem-iio-dma first.  User space then uses the buffers as
 * it would a converter's: read() through the legacy interface, or the
 * DMABUF interface (IIO_BUFFER_DMABUF_*_IOCTL, 6.11 on) with buffers that
 * another driver exported.  Test-only: never installed.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "udmem-iio-dma.h"

#define UID_NAME	"udmem-iio-dma"

static const struct iio_chan_spec uid_rx_chans[] = {
	{
		.type = IIO_VOLTAGE,
		.indexed = 1,
		.channel = 0,
		.scan_index = 0,
		.scan_type = {
			.sign = 'u',
			.realbits = 32,
			.storagebits = 32,
			.endianness = IIO_CPU,
		},
	},
};

static const struct iio_chan_spec uid_tx_chans[] = {
	{
		.type = IIO_VOLTAGE,
		.indexed = 1,
		.output = 1,
		.channel = 0,
		.scan_index = 0,
		.scan_type = {
			.sign = 'u',
			.realbits = 32,
			.storagebits = 32,
			.endianness = IIO_CPU,
		},
	},
};

static const struct iio_info uid_info = {
};

static bool tx = true;
module_param(tx, bool, 0444);
MODULE_PARM_DESC(tx, "also register the output device on the \"tx\" channel (default 1)");

static struct platform_device *uid_pdev;
static bool uid_probed;		/* the probe of uid_pdev's registration went through */

/* One IIO device with a dmaengine buffer on channel @chan. */
static int uid_add(struct device *dev, const char *name, const char *chan,
		   const struct iio_chan_spec *chans, bool out)
{
	struct iio_dev *indio_dev;
	int ret;

	indio_dev = devm_iio_device_alloc(dev, 0);
	if (!indio_dev)
		return -ENOMEM;
	indio_dev->name = name;
	indio_dev->info = &uid_info;
	indio_dev->channels = chans;
	indio_dev->num_channels = 1;
	ret = uid_dmaengine_setup(dev, indio_dev, chan, out);
	if (ret)
		return dev_err_probe(dev, ret, "%s: dmaengine buffer on \"%s\"\n", name, chan);
	return devm_iio_device_register(dev, indio_dev);
}

static int uid_probe(struct platform_device *pdev)
{
	int ret;

	ret = uid_add(&pdev->dev, "udmem-iio-rx", "rx", uid_rx_chans, false);
	if (ret)
		return ret;
	if (!tx) {
		uid_probed = true;
		return 0;
	}
	ret = uid_add(&pdev->dev, "udmem-iio-tx", "tx", uid_tx_chans, true);
	if (ret == -EOPNOTSUPP)
		dev_info(&pdev->dev, "no output dmaengine buffers in this kernel\n");
	else if (ret)
		return ret;
	uid_probed = true;
	return 0;
}

static struct platform_driver uid_driver = {
	.driver = {
		.name = UID_NAME,
	},
	.probe = uid_probe,
};

static int __init uid_init(void)
{
	int ret;

	ret = platform_driver_register(&uid_driver);
	if (ret)
		return ret;
	uid_pdev = platform_device_register_simple(UID_NAME, PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(uid_pdev)) {
		ret = PTR_ERR(uid_pdev);
		goto err_unregister_driver;
	}
	/* The probe runs in the registration: no channel (no map_client=), no module. */
	if (!uid_probed) {
		ret = -ENODEV;
		goto err_unregister_device;
	}
	return 0;

err_unregister_device:
	platform_device_unregister(uid_pdev);
err_unregister_driver:
	platform_driver_unregister(&uid_driver);
	return ret;
}

static void __exit uid_exit(void)
{
	platform_device_unregister(uid_pdev);
	platform_driver_unregister(&uid_driver);
}

module_init(uid_init);
module_exit(uid_exit);

MODULE_DESCRIPTION("udmem test IIO devices on dmaengine buffers of the edu test provider");
MODULE_LICENSE("GPL");
UID_IMPORT_NS_DMAENGINE();
