// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: channels declared in the device tree.
 *
 *	dma-chan0 {
 *		compatible = "udmem,u-dma-chan";
 *		device-name = "dma-chan0";	(optional: else the node's name)
 *		dmas = <&zdma 0>;
 *		dma-names = "dma";		(the first name is used)
 *	};
 *
 * The node is a consumer of the DMA controller, so unbinding the controller
 * removes the channel first.
 */
#include <linux/dmaengine.h>
#include <linux/err.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/of.h>
#include <linux/platform_device.h>

#include "compat.h"
#include "udmachan.h"

static int udc_platform_probe(struct platform_device *pdev)
{
	struct device_node *np = pdev->dev.of_node;
	const char *name = np->name, *dma_name = NULL;
	struct dma_chan *chan;
	struct udc_chan *uc;

	of_property_read_string(np, "device-name", &name);
	of_property_read_string_index(np, "dma-names", 0, &dma_name);
	chan = dma_request_chan(&pdev->dev, dma_name ? dma_name : "dma");
	if (IS_ERR(chan))
		return dev_err_probe(&pdev->dev, PTR_ERR(chan), "no DMA channel\n");
	uc = udc_chan_create(name, chan, false);
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
