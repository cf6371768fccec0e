// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: contiguous DMA buffers shared with user space.
 *
 * main.c: the module parameters, and module init and exit.  The buffers
 * live in registry.c, the platform driver in of.c, the module-parameter
 * buffers and bind= in bind.c, the in-kernel API in api.c.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/platform_device.h>

#include "udmabuf.h"

u64 udmabuf_static_size[UDMABUF_STATIC_MAX];
char *udmabuf_static_bind[UDMABUF_STATIC_MAX];
char *udmabuf_bind;
bool udmabuf_static_dma_coherent[UDMABUF_STATIC_MAX];
bool udmabuf_static_keep_contents[UDMABUF_STATIC_MAX];

module_param_named(udmabuf0, udmabuf_static_size[0], ullong, 0444);
module_param_named(udmabuf1, udmabuf_static_size[1], ullong, 0444);
module_param_named(udmabuf2, udmabuf_static_size[2], ullong, 0444);
module_param_named(udmabuf3, udmabuf_static_size[3], ullong, 0444);
module_param_named(udmabuf4, udmabuf_static_size[4], ullong, 0444);
module_param_named(udmabuf5, udmabuf_static_size[5], ullong, 0444);
module_param_named(udmabuf6, udmabuf_static_size[6], ullong, 0444);
module_param_named(udmabuf7, udmabuf_static_size[7], ullong, 0444);
MODULE_PARM_DESC(udmabuf0, "size in bytes of buffer udmabuf0 (likewise udmabuf1..7)");
module_param_named(udmabuf0_bind, udmabuf_static_bind[0], charp, 0444);
module_param_named(udmabuf1_bind, udmabuf_static_bind[1], charp, 0444);
module_param_named(udmabuf2_bind, udmabuf_static_bind[2], charp, 0444);
module_param_named(udmabuf3_bind, udmabuf_static_bind[3], charp, 0444);
module_param_named(udmabuf4_bind, udmabuf_static_bind[4], charp, 0444);
module_param_named(udmabuf5_bind, udmabuf_static_bind[5], charp, 0444);
module_param_named(udmabuf6_bind, udmabuf_static_bind[6], charp, 0444);
module_param_named(udmabuf7_bind, udmabuf_static_bind[7], charp, 0444);
MODULE_PARM_DESC(udmabuf0_bind, "parent device of udmabuf0: [pci/]<device> (likewise 1..7)");
module_param_named(udmabuf0_dma_coherent, udmabuf_static_dma_coherent[0], bool, 0444);
module_param_named(udmabuf1_dma_coherent, udmabuf_static_dma_coherent[1], bool, 0444);
module_param_named(udmabuf2_dma_coherent, udmabuf_static_dma_coherent[2], bool, 0444);
module_param_named(udmabuf3_dma_coherent, udmabuf_static_dma_coherent[3], bool, 0444);
module_param_named(udmabuf4_dma_coherent, udmabuf_static_dma_coherent[4], bool, 0444);
module_param_named(udmabuf5_dma_coherent, udmabuf_static_dma_coherent[5], bool, 0444);
module_param_named(udmabuf6_dma_coherent, udmabuf_static_dma_coherent[6], bool, 0444);
module_param_named(udmabuf7_dma_coherent, udmabuf_static_dma_coherent[7], bool, 0444);
MODULE_PARM_DESC(udmabuf0_dma_coherent,
		 "treat udmabuf0's device as DMA-coherent (the hardware must snoop the caches; likewise 1..7)");
module_param_named(udmabuf0_keep_contents, udmabuf_static_keep_contents[0], bool, 0444);
module_param_named(udmabuf1_keep_contents, udmabuf_static_keep_contents[1], bool, 0444);
module_param_named(udmabuf2_keep_contents, udmabuf_static_keep_contents[2], bool, 0444);
module_param_named(udmabuf3_keep_contents, udmabuf_static_keep_contents[3], bool, 0444);
module_param_named(udmabuf4_keep_contents, udmabuf_static_keep_contents[4], bool, 0444);
module_param_named(udmabuf5_keep_contents, udmabuf_static_keep_contents[5], bool, 0444);
module_param_named(udmabuf6_keep_contents, udmabuf_static_keep_contents[6], bool, 0444);
module_param_named(udmabuf7_keep_contents, udmabuf_static_keep_contents[7], bool, 0444);
MODULE_PARM_DESC(udmabuf0_keep_contents,
		 "do not zero udmabuf0: it is its bind= device's no-map memory-region (likewise 1..7)");
module_param_named(bind, udmabuf_bind, charp, 0444);
MODULE_PARM_DESC(bind, "parent device of every udmabufN without its own _bind");

int udmabuf_info_enable = 1;
module_param_named(info_enable, udmabuf_info_enable, int, 0444);
MODULE_PARM_DESC(info_enable, "log: bit 0 buffers, bit 1 DMA details, bit 2 build configuration");

int udmabuf_dma_mask_bit = 32;
module_param_named(dma_mask_bit, udmabuf_dma_mask_bit, int, 0444);
MODULE_PARM_DESC(dma_mask_bit, "DMA mask width for devices without one (12..64)");

int udmabuf_default_quirk_mmap_mode = IS_ENABLED(CONFIG_ARM) || IS_ENABLED(CONFIG_ARM64) ?
				      U_DMA_BUF_MMAP_MODE_ON : U_DMA_BUF_MMAP_MODE_AUTO;
module_param_named(quirk_mmap_mode, udmabuf_default_quirk_mmap_mode, int, 0444);
MODULE_PARM_DESC(quirk_mmap_mode, "default mmap mode: 1 off, 2 on, 3 auto, 4 page");

static int __init udmabuf_module_init(void)
{
	int ret, i;

	/* DMA_BIT_MASK(n) is undefined above 64. */
	if (udmabuf_dma_mask_bit < 12 || udmabuf_dma_mask_bit > 64) {
		pr_err(UDMABUF_DRIVER_NAME ": invalid dma_mask_bit %d (12..64)\n",
		       udmabuf_dma_mask_bit);
		return -EINVAL;
	}
	udmabuf_bus_types_init();

	ret = udmabuf_registry_init();
	if (ret)
		return ret;
	ret = udmabuf_parent_watch_init();
	if (ret)
		goto err_registry_exit;

	/* Module-parameter buffers own their minors before any probe runs. */
	for (i = 0; i < UDMABUF_STATIC_MAX; i++)
		if (udmabuf_static_size[i])
			udmabuf_minor_reserve(i);

	ret = platform_driver_register(&udmabuf_platform_driver);
	if (ret)
		goto err_watch_exit;
	for (i = 0; i < UDMABUF_STATIC_MAX; i++) {
		if (!udmabuf_static_size[i])
			continue;
		ret = udmabuf_static_create(i);
		if (ret == -EINVAL)
			goto err_remove_static;
		if (ret)
			pr_err(UDMABUF_DRIVER_NAME ": udmabuf%d: cannot create: %d\n", i, ret);
	}
	if (udmabuf_info_enable & 4)
		pr_info(UDMABUF_DRIVER_NAME ": config: version %s, quirk_mmap_mode=%d, dma_mask_bit=%d, export=%d\n",
			UDMABUF_DRIVER_VERSION, udmabuf_default_quirk_mmap_mode,
			udmabuf_dma_mask_bit, IS_ENABLED(CONFIG_DMA_SHARED_BUFFER));
	return 0;

err_remove_static:
	udmabuf_static_remove_all();
	platform_driver_unregister(&udmabuf_platform_driver);
err_watch_exit:
	udmabuf_parent_watch_exit();
err_registry_exit:
	udmabuf_registry_exit();
	return ret;
}

static void __exit udmabuf_module_exit(void)
{
	udmabuf_parent_watch_exit();
	udmabuf_static_remove_all();
	udmabuf_api_remove_all();
	/* The device-tree buffers go with the driver. */
	platform_driver_unregister(&udmabuf_platform_driver);
	udmabuf_registry_exit();
}

module_init(udmabuf_module_init);
module_exit(udmabuf_module_exit);

MODULE_DESCRIPTION("u-dma-buf: contiguous DMA buffers shared with user space");
MODULE_AUTHOR("udmem project");
MODULE_LICENSE("GPL");
MODULE_VERSION(UDMABUF_DRIVER_VERSION);
