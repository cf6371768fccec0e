// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: channels declared in the device tree.
 *
 *	dma-chan0 {
 *		compatible = "udmem,u-dma-chan";
 *		device-name = "dma-chan0";	(optional: else the node's name)
 *		dmas = <&zdma 0>;
 *		dma-names = "dma";		(the first name is used)
 *		dev-to-mem-address = /bits/ 64 <0x80000000>;	(optional:)
 *		dev-to-mem-width = <4>;
 *		dev-to-mem-maxburst = <16>;
 *		mem-to-dev-...			(the same for MEM_TO_DEV)
 *	};
 *
 * The *-width, *-address and *-maxburst properties are the slave
 * configuration each open file starts with (U_DMA_CHAN_IOCTL_SLAVE_CONFIG
 * changes it for the file): a direction without a width keeps the engine's
 * defaults.  The node is a consumer of the DMA controller, so unbinding the
 * controller removes the channel first.
 */
#include <linux/dmaengine.h>
#include <linux/err.h>
#include <linux/log2.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "compat.h"
#include "udmachan.h"

/* Read the u32 property @prefix-@what into @val when the node has it. */
static int udc_of_u32(struct device *dev, const char *prefix, const char *what, u32 *val)
{
	char prop[32];

	snprintf(prop, sizeof(prop), "%s-%s", prefix, what);
	if (!device_property_present(dev, prop))
		return 0;
	if (device_property_read_u32(dev, prop, val))
		return dev_err_probe(dev, -EINVAL, "%s: not a 32-bit cell\n", prop);
	return 1;
}

/*
 * The slave configuration of one direction from @prefix-width (bytes a
 * device access: 1, 2, 4, ... 64), @prefix-address (64 bits, the device
 * side's bus address) and @prefix-maxburst.  Left zero without a width.
 */
static int udc_of_slave(struct device *dev, const char *prefix,
			enum dma_transfer_direction dir, struct dma_slave_config *s)
{
	u32 width = 0, burst = 0;
	char prop[32];
	u64 addr = 0;
	int ret;

	ret = udc_of_u32(dev, prefix, "width", &width);
	if (ret <= 0)
		return ret;
	if (!width || width > 64 || !is_power_of_2(width))
		return dev_err_probe(dev, -EINVAL, "%s-width: %u is not 1, 2, 4, ... 64\n",
				     prefix, width);
	ret = udc_of_u32(dev, prefix, "maxburst", &burst);
	if (ret < 0)
		return ret;
	snprintf(prop, sizeof(prop), "%s-address", prefix);
	if (device_property_present(dev, prop) && device_property_read_u64(dev, prop, &addr))
		return dev_err_probe(dev, -EINVAL, "%s: not a 64-bit value\n", prop);
	s->direction = dir;
	if (dir == DMA_DEV_TO_MEM)
		s->src_addr = addr;
	else
		s->dst_addr = addr;
	s->src_addr_width = width;
	s->dst_addr_width = width;
	s->src_maxburst = burst;
	s->dst_maxburst = burst;
	return 0;
}

static int udc_platform_probe(struct platform_device *pdev)
{
	struct device_node *np = pdev->dev.of_node;
	const char *name = np->name, *dma_name = NULL;
	struct dma_slave_config slave[2] = { };
	struct dma_chan *chan;
	struct udc_chan *uc;
	int ret;

	ret = udc_of_slave(&pdev->dev, "dev-to-mem", DMA_DEV_TO_MEM, &slave[0]);
	if (!ret)
		ret = udc_of_slave(&pdev->dev, "mem-to-dev", DMA_MEM_TO_DEV, &slave[1]);
	if (ret)
		return ret;
	of_property_read_string(np, "device-name", &name);
	of_property_read_string_index(np, "dma-names", 0, &dma_name);
	chan = dma_request_chan(&pdev->dev, dma_name ? dma_name : "dma");
	if (IS_ERR(chan))
		return dev_err_probe(&pdev->dev, PTR_ERR(chan), "no DMA channel\n");
	uc = udc_chan_create(name, chan, false, slave);
	if (IS_ERR(uc))
		return dev_err_probe(&pdev->dev, PTR_ERR(uc), "cannot create %s\n", name);
	platform_set_drvdata(pdev, uc);
	return 0;
}

static void udc_platform_remove(struct platform_device *pdev)
{
	udc_chan_remove(platform_get_drvdata(pdev));
}

UDMEM_DEFINE_PLATFORM_REMOVE(udc_platform_remove);

static const struct of_device_id udc_of_match[] = {
	{ .compatible = "udmem,u-dma-chan" },
	{ }
};
MODULE_DEVICE_TABLE(of, udc_of_match);

static struct platform_driver udc_platform_driver = {
	.probe = udc_platform_probe,
	.UDMEM_PLATFORM_REMOVE = UDMEM_PLATFORM_REMOVE_FN(udc_platform_remove),
	.driver = {
		.name = UDC_DRIVER_NAME,
		.of_match_table = udc_of_match,
	},
};

int udc_of_register(void)
{
	return platform_driver_register(&udc_platform_driver);
}

void udc_of_unregister(void)
{
	platform_driver_unregister(&udc_platform_driver);
}
