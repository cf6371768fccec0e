// SPDX-License-Identifier: GPL-2.0
/*
 * ownership.c - the sync checker of a region (docs/sync-checker.md).
 *
 * The engine is common/udmem_own.h, shared with u-dma-buf.  When a
 * region's sync_check is report or strict, a sync for the device through
 * sysfs, the ioctls or an export's end_cpu_access hands the pages of its
 * range to the device and removes them from every user mapping of the
 * region: all of them live in the address space of the region's map
 * inode, at file offset = region offset (exports have no user mappings).
 * The next CPU access through a mapping comes back through the fault
 * handler (mmap.c), which asks here who owns the page; a sync to the
 * device (direction 1) lets the CPU read, write-protected.  read() and
 * write() (file.c) and an export's begin_cpu_access (export.c) ask too.
 * read() and write()'s own cache maintenance leaves the owners alone.
 * Only mappings made while the checker was on have a pfn_mkwrite that
 * checks a write to a write-protected page (mmap.c says why).
 *
 * Everything here runs under @um->lock; with the checker off the callers
 * test @um->sync_check and do nothing else.
 */
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "common/udmem_own.h"
#include "uiomem.h"

int uiomem_default_sync_check;

static const struct kernel_param_ops uiomem_check_param_ops = {
	.set = udmem_check_param_set,
	.get = udmem_check_param_get,
};

module_param_cb(sync_check, &uiomem_check_param_ops, &uiomem_default_sync_check, 0644);
MODULE_PARM_DESC(sync_check,
		 "Sync checker of new regions: off, report or strict (default off)");

/* The engine's view of @um; under @um->lock. */
static void uiomem_chk_ctx(struct uiomem *um, struct udmem_own_ctx *c)
{
	c->own = um->own;
	c->mode = um->sync_check;
	c->violations = &um->own_violations;
	c->redundant = &um->own_redundant;
	c->rs = &um->own_rs;
	c->driver = UIOMEM_DRIVER_NAME;
	c->name = dev_name(&um->dev);
}

/**
 * uiomem_chk_init() - the checker's fields of a new region
 * @um: the region, not yet published
 * @mode: the device property's mode, or -1 for the module parameter's
 *
 * The mode takes effect in uiomem_chk_set_mode(), once the region's size
 * is known; until then it waits in @um->sync_check.
 */
void uiomem_chk_init(struct uiomem *um, int mode)
{
	atomic_long_set(&um->own_violations, 0);
	atomic_long_set(&um->own_redundant, 0);
	ratelimit_state_init(&um->own_rs, 5 * HZ, 10);
	um->sync_check = mode >= 0 ? mode : READ_ONCE(uiomem_default_sync_check);
}

void uiomem_chk_free(struct uiomem *um)
{
	udmem_own_destroy(um->own);
	um->own = NULL;
}

/**
 * uiomem_chk_set_mode() - switch the checker
 * @um: the region
 * @mode: UDMEM_CHECK_*
 *
 * Switching it on from off gives every page to the CPU and a new budget
 * of messages (ten per five seconds).  Entries the
 * mappings hold then are the CPU's; the next sync for the device removes
 * them.
 *
 * Return: 0, -EINVAL for a bad mode, -ENOMEM.
 */
int uiomem_chk_set_mode(struct uiomem *um, u32 mode)
{
	int ret = 0;

	if (mode > UDMEM_CHECK_MAX)
		return -EINVAL;
	mutex_lock(&um->lock);
	if (mode && !um->own) {
		um->own = udmem_own_alloc(um->size >> PAGE_SHIFT);
		if (!um->own) {
			ret = -ENOMEM;
			goto out;
		}
	} else if (mode && um->sync_check == UDMEM_CHECK_OFF) {
		udmem_own_clear(um->own);
	}
	/* Switched on: a fresh start, its messages too. */
	if (mode && um->sync_check == UDMEM_CHECK_OFF)
		ratelimit_state_init(&um->own_rs, 5 * HZ, 10);
	WRITE_ONCE(um->sync_check, mode);
out:
	mutex_unlock(&um->lock);
	return ret;
}

/**
 * uiomem_chk_sync() - the owners after a successful sync
 * @um: the region, @um->lock held
 * @for_device: handed to the device, or back to the CPU
 * @offset: start of the range, inside the region
 * @size: its length; 0 changes nothing
 * @dir: the sync's direction
 * @via: who asked, for the messages
 * @by_export: an export's end_cpu_access
 */
void uiomem_chk_sync(struct uiomem *um, bool for_device, u64 offset, u64 size,
		     enum udmem_sync_dir dir, const char *via, bool by_export)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&um->lock);
	if (!um->sync_check || !um->own || !size)
		return;
	uiomem_chk_ctx(um, &c);
	udmem_own_sync(&c, for_device, offset, size, dir, via, by_export);
	if (for_device && um->map_inode) {
		u64 start = round_down(offset, PAGE_SIZE);

		unmap_mapping_range(um->map_inode->i_mapping, start,
				    round_up(offset + size, PAGE_SIZE) - start, 1);
	}
}

/**
 * uiomem_chk_rw() - may read() or write() copy this range?
 * @um: the region, @um->lock held
 * @offset: start of the copy
 * @len: its length, not 0
 * @write: a write(), which a sync to the device forbids as well
 *
 * Return: 0, or -EBUSY in strict mode when the device owns some of it.
 */
int uiomem_chk_rw(struct uiomem *um, u64 offset, u64 len, bool write)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&um->lock);
	if (!um->sync_check || !um->own || !len)
		return 0;
	uiomem_chk_ctx(um, &c);
	return udmem_own_rw(&c, offset, len, write);
}

/**
 * uiomem_chk_begin_cpu() - may an export's begin_cpu_access take this range?
 * @um: the region, @um->lock held
 * @offset: the export's start
 * @len: its length
 *
 * Return: 0, or -EBUSY in strict mode while a sync of the region's own
 * (sysfs, ioctl) gave some of it to the device.
 */
int uiomem_chk_begin_cpu(struct uiomem *um, u64 offset, u64 len)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&um->lock);
	if (!um->sync_check || !um->own || !len)
		return 0;
	uiomem_chk_ctx(um, &c);
	return udmem_own_begin_cpu(&c, offset, len);
}

/**
 * uiomem_chk_fault() - may a fault map this page?
 * @um: the region, @um->lock held
 * @offset: the page's region offset
 * @addr: the user address
 * @write: a write fault
 * @wrprotect: out: map it read-only (the device reads it)
 *
 * Return: 0 to map it, VM_FAULT_SIGBUS in strict mode.
 */
vm_fault_t uiomem_chk_fault(struct uiomem *um, u64 offset, unsigned long addr,
			    bool write, bool *wrprotect)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&um->lock);
	*wrprotect = false;
	if (!um->sync_check || !um->own)
		return 0;
	uiomem_chk_ctx(um, &c);
	return udmem_own_fault(&c, offset, addr, write, wrprotect);
}

/**
 * uiomem_chk_mkwrite() - may a write-protected page become writable?
 * @um: the region, @um->lock held
 * @offset: the page's region offset
 * @addr: the user address
 *
 * Return: 0, or VM_FAULT_SIGBUS in strict mode.
 */
vm_fault_t uiomem_chk_mkwrite(struct uiomem *um, u64 offset, unsigned long addr)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&um->lock);
	if (!um->sync_check || !um->own)
		return 0;
	uiomem_chk_ctx(um, &c);
	return udmem_own_mkwrite(&c, offset, addr);
}
