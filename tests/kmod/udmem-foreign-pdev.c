// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-foreign-pdev - a platform device "udmem-foreign" with one memory
 * resource, [addr, addr + size), and no driver: another driver's device,
 * for the uiomem suite to try to bind to uiomem through driver_override
 * (which uiomem must refuse).  Test-only: never installed.
 */
#include <linux/err.h>
#include <linux/ioport.h>
#include <linux/module.h>
#include <linux/platform_device.h>

static ulong udmem_foreign_addr;
module_param_named(addr, udmem_foreign_addr, ulong, 0444);
MODULE_PARM_DESC(addr, "physical start of the memory resource");
static ulong udmem_foreign_size = 0x10000;
module_param_named(size, udmem_foreign_size, ulong, 0444);
MODULE_PARM_DESC(size, "size of the memory resource (default 64 KiB)");

static struct platform_device *udmem_foreign_pdev;

static int __init udmem_foreign_init(void)
{
	struct resource res = DEFINE_RES_MEM(udmem_foreign_addr, udmem_foreign_size);

	if (!udmem_foreign_addr || !udmem_foreign_size)
		return -EINVAL;
	udmem_foreign_pdev = platform_device_register_simple("udmem-foreign",
							     PLATFORM_DEVID_NONE,
							     &res, 1);
	return PTR_ERR_OR_ZERO(udmem_foreign_pdev);
}
module_init(udmem_foreign_init);

static void __exit udmem_foreign_exit(void)
{
	platform_device_unregister(udmem_foreign_pdev);
}
module_exit(udmem_foreign_exit);

MODULE_DESCRIPTION("udmem test helper: a platform device that is not uiomem's");
MODULE_LICENSE("GPL");
