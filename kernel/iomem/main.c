// SPDX-License-Identifier: GPL-2.0
/*
 * uiomem - user-space mappable device memory with CPU cache maintenance.
 *
 * Each region is a window of physical memory outside the kernel's RAM
 * (FPGA block RAM, on-chip RAM, a no-map carve-out, a PCI BAR) described by
 * a device-tree node (compatible "ikwzm,uiomem") or by the module
 * parameters uiomemN_addr/uiomemN_size.  It appears as /dev/<name> and
 * /sys/class/uiomem/<name>/ with the interface of the original uiomem
 * driver, plus the ioctls of <linux/uiomem.h>.
 *
 * main.c holds the module parameters, the module-parameter devices and
 * module init/exit; probe.c the platform driver.
 */
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/platform_device.h>
#include <linux/property.h>

#include "compat.h"
#include "uiomem.h"

static ulong uiomem_static_addr[UIOMEM_STATIC_DEVICES];
static ulong uiomem_static_size[UIOMEM_STATIC_DEVICES];
static ulong uiomem_static_option[UIOMEM_STATIC_DEVICES] = {
	[0 ... UIOMEM_STATIC_DEVICES - 1] = UIOMEM_OPTION_DEFAULT,
};

/*
 * uiomemN_addr / uiomemN_size: region N, /dev/uiomemN with minor N.
 * They let whoever loads the module map any physical range into user
 * space, so they are hardware parameters: a kernel locked down refuses
 * them (LOCKDOWN_MODULE_PARAMETERS).  The size is one too: with the
 * address left at its default it alone would create a region at 0.
 * uiomemN_option (bit 0 shareable, bit 1 cached, bit 2 coherent; default
 * 2, cached and not coherent) picks no memory, so it is an ordinary one.
 */
module_param_hw_named(uiomem0_addr, uiomem_static_addr[0], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem0_addr, "uiomem0 physical start address");
module_param_hw_named(uiomem0_size, uiomem_static_size[0], ulong, other, 0444);
MODULE_PARM_DESC(uiomem0_size, "uiomem0 size in bytes (0: none)");
module_param_named(uiomem0_option, uiomem_static_option[0], ulong, 0444);
MODULE_PARM_DESC(uiomem0_option, "uiomem0 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem1_addr, uiomem_static_addr[1], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem1_addr, "uiomem1 physical start address");
module_param_hw_named(uiomem1_size, uiomem_static_size[1], ulong, other, 0444);
MODULE_PARM_DESC(uiomem1_size, "uiomem1 size in bytes (0: none)");
module_param_named(uiomem1_option, uiomem_static_option[1], ulong, 0444);
MODULE_PARM_DESC(uiomem1_option, "uiomem1 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem2_addr, uiomem_static_addr[2], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem2_addr, "uiomem2 physical start address");
module_param_hw_named(uiomem2_size, uiomem_static_size[2], ulong, other, 0444);
MODULE_PARM_DESC(uiomem2_size, "uiomem2 size in bytes (0: none)");
module_param_named(uiomem2_option, uiomem_static_option[2], ulong, 0444);
MODULE_PARM_DESC(uiomem2_option, "uiomem2 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem3_addr, uiomem_static_addr[3], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem3_addr, "uiomem3 physical start address");
module_param_hw_named(uiomem3_size, uiomem_static_size[3], ulong, other, 0444);
MODULE_PARM_DESC(uiomem3_size, "uiomem3 size in bytes (0: none)");
module_param_named(uiomem3_option, uiomem_static_option[3], ulong, 0444);
MODULE_PARM_DESC(uiomem3_option, "uiomem3 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem4_addr, uiomem_static_addr[4], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem4_addr, "uiomem4 physical start address");
module_param_hw_named(uiomem4_size, uiomem_static_size[4], ulong, other, 0444);
MODULE_PARM_DESC(uiomem4_size, "uiomem4 size in bytes (0: none)");
module_param_named(uiomem4_option, uiomem_static_option[4], ulong, 0444);
MODULE_PARM_DESC(uiomem4_option, "uiomem4 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem5_addr, uiomem_static_addr[5], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem5_addr, "uiomem5 physical start address");
module_param_hw_named(uiomem5_size, uiomem_static_size[5], ulong, other, 0444);
MODULE_PARM_DESC(uiomem5_size, "uiomem5 size in bytes (0: none)");
module_param_named(uiomem5_option, uiomem_static_option[5], ulong, 0444);
MODULE_PARM_DESC(uiomem5_option, "uiomem5 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem6_addr, uiomem_static_addr[6], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem6_addr, "uiomem6 physical start address");
module_param_hw_named(uiomem6_size, uiomem_static_size[6], ulong, other, 0444);
MODULE_PARM_DESC(uiomem6_size, "uiomem6 size in bytes (0: none)");
module_param_named(uiomem6_option, uiomem_static_option[6], ulong, 0444);
MODULE_PARM_DESC(uiomem6_option, "uiomem6 bit0 shareable, bit1 cached, bit2 coherent (default 2)");
module_param_hw_named(uiomem7_addr, uiomem_static_addr[7], ulong, iomem, 0444);
MODULE_PARM_DESC(uiomem7_addr, "uiomem7 physical start address");
module_param_hw_named(uiomem7_size, uiomem_static_size[7], ulong, other, 0444);
MODULE_PARM_DESC(uiomem7_size, "uiomem7 size in bytes (0: none)");
module_param_named(uiomem7_option, uiomem_static_option[7], ulong, 0444);
MODULE_PARM_DESC(uiomem7_option, "uiomem7 bit0 shareable, bit1 cached, bit2 coherent (default 2)");

int uiomem_info_enable = 1;
module_param_named(info_enable, uiomem_info_enable, int, 0444);
MODULE_PARM_DESC(info_enable, "print each region when it is created (default 1)");

u32 uiomem_cache_line;

struct class *uiomem_class;
dev_t uiomem_devt;
static struct platform_device *uiomem_static_pdev[UIOMEM_STATIC_DEVICES];

static void uiomem_static_create(int n)
{
	phys_addr_t addr = uiomem_static_addr[n];
	resource_size_t size = uiomem_static_size[n];
	struct uiomem_static_data data = { .minor = n, .option = uiomem_static_option[n] };
	struct platform_device_info info = {
		.name = UIOMEM_DRIVER_NAME,
		.id = n,
	};
	struct resource *res = &data.res;
	struct platform_device *pdev;
	phys_addr_t last;

	/* 0 is the parameter's default, as in the original driver: unset. */
	if (!addr) {
		pr_err("uiomem: uiomem%d_size is set but uiomem%d_addr is 0\n", n, n);
		goto err_unreserve;
	}
	if (addr != uiomem_static_addr[n] ||
	    check_add_overflow(addr, (phys_addr_t)(size - 1), &last)) {
		pr_err("uiomem: uiomem%d_addr=%#lx uiomem%d_size=%#lx is outside the physical address space\n",
		       n, uiomem_static_addr[n], n, uiomem_static_size[n]);
		goto err_unreserve;
	}
	res->start = addr;
	res->end = last;
	res->flags = IORESOURCE_MEM;
	/* Before the platform core claims the range and fails less clearly. */
	if (uiomem_check_resource(NULL, res))
		goto err_unreserve;
	/*
	 * The range goes as platform data, not as a platform resource: the
	 * platform core would insert a resource into the iomem tree, where a
	 * range inside another region's claim becomes a child of that claim
	 * and is left dangling when that region goes (KASAN: use after free
	 * in __release_resource() at rmmod, on overlapping parameters).
	 * The minor and the option go with it (struct uiomem_static_data).
	 */
	info.data = &data;
	info.size_data = sizeof(data);
	/* Probes right away; a probe error leaves the device unbound. */
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev)) {
		pr_err("uiomem: cannot create uiomem%d: %ld\n", n, PTR_ERR(pdev));
		goto err_unreserve;
	}
	uiomem_static_pdev[n] = pdev;
	return;

err_unreserve:
	uiomem_minor_unreserve(n);
}

static void uiomem_static_remove_all(void)
{
	int n;

	for (n = 0; n < UIOMEM_STATIC_DEVICES; n++) {
		if (uiomem_static_pdev[n])
			platform_device_unregister(uiomem_static_pdev[n]);
		uiomem_static_pdev[n] = NULL;
		uiomem_minor_unreserve(n);
	}
}

static int __init uiomem_init(void)
{
	int ret, n;

	uiomem_cache_line = uiomem_cache_ops.probe();
	if (uiomem_cache_line)
		pr_info("uiomem: cache maintenance by %s, %u-byte lines\n",
			uiomem_cache_ops.name, uiomem_cache_line);
	else
		pr_info("uiomem: no cache maintenance (%s): mappings are uncached\n",
			uiomem_cache_ops.name);

	ret = alloc_chrdev_region(&uiomem_devt, 0, UIOMEM_MINORS, UIOMEM_DRIVER_NAME);
	if (ret)
		return ret;
	uiomem_class = udmem_class_create(UIOMEM_DRIVER_NAME);
	if (IS_ERR(uiomem_class)) {
		ret = PTR_ERR(uiomem_class);
		goto err_unregister_chrdev;
	}
	uiomem_class->dev_groups = uiomem_class_groups;

	/* Before the driver registers, so that no DT node takes them. */
	for (n = 0; n < UIOMEM_STATIC_DEVICES; n++) {
		if (uiomem_static_size[n])
			uiomem_minor_reserve(n);
	}

	ret = platform_driver_register(&uiomem_driver);
	if (ret)
		goto err_free_static;
	for (n = 0; n < UIOMEM_STATIC_DEVICES; n++) {
		if (uiomem_minor_reserved(n))
			uiomem_static_create(n);
	}
	return 0;

err_free_static:
	uiomem_static_remove_all();
	class_destroy(uiomem_class);
err_unregister_chrdev:
	unregister_chrdev_region(uiomem_devt, UIOMEM_MINORS);
	return ret;
}
module_init(uiomem_init);

static void __exit uiomem_exit(void)
{
	uiomem_static_remove_all();
	platform_driver_unregister(&uiomem_driver);
	class_destroy(uiomem_class);
	unregister_chrdev_region(uiomem_devt, UIOMEM_MINORS);
}
module_exit(uiomem_exit);

MODULE_DESCRIPTION("uiomem: cached user-space mappings of device memory");
MODULE_AUTHOR("udmem project");
MODULE_LICENSE("GPL");
MODULE_VERSION(UIOMEM_DRIVER_VERSION);
