// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: the sync checker (docs/sync-checker.md).
 *
 * When a buffer's sync_check is report or strict, every page of it has an
 * owner: the CPU, or the device since a sync for the device.  A sync for
 * the device of [offset, offset + size) gives every page that range
 * touches to the device, and removes those pages from every user mapping
 * of the buffer (the /dev files' and the exports' address spaces), so
 * that the next CPU access comes back through the fault handler.  A sync
 * to the device (direction 1) lets the CPU still read: its pages come back
 * write-protected.  A sync for the CPU gives the pages back.  The sync
 * ranges are bytes, the owners pages: a page is the device's if any byte
 * of it was handed over, and the CPU's again if any byte of it was handed
 * back.
 *
 * A CPU access to a device-owned page is a violation: strict mode refuses
 * it (SIGBUS, EBUSY), report mode prints one rate-limited message naming
 * the access and the sync that handed the page to the device, gives the
 * page back and lets the access go on.  Both count in
 * ownership_violations.  A sync for the CPU of pages the CPU owns already
 * counts in redundant_syncs and is no error.
 *
 * The owner table, the records of the last syncs, the checks and the
 * messages are common/udmem_own.h's, shared with uiomem; this file ties
 * them to a buffer: its lock, its counters and its user mappings.
 *
 * Mappings are checked when they were made while the checker was on:
 * they get udmabuf_vm_ops_check (mmap.c) and no entries at mmap time.
 * Everything here runs under buf->lock; with the checker off the callers
 * test buf->sync_check and do nothing else.
 */
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>

#include "common/udmem_own.h"
#include "udmabuf.h"

static_assert(UDMABUF_CHECK_REPORT == UDMEM_CHECK_REPORT);
static_assert(UDMABUF_CHECK_STRICT == UDMEM_CHECK_STRICT);

/* An address space that user mappings of the buffer live in. */
struct udmabuf_own_map {
	struct list_head node;
	struct address_space *mapping;
	u64 base;			/* buffer offset of the mapping's offset 0 */
	u64 len;
	unsigned int users;
};

static const char * const udmabuf_via_names[] = {
	[UDMABUF_VIA_SYSFS] = "sysfs",
	[UDMABUF_VIA_IOCTL] = "ioctl",
	[UDMABUF_VIA_API] = "in-kernel API",
	[UDMABUF_VIA_RW] = "O_SYNC read/write",	/* not tracked */
	[UDMABUF_VIA_DMABUF] = "dma-buf end_cpu_access",
};

/**
 * udmabuf_check_parse() - a mode from its name or number
 * @s: "off", "report", "strict" or 0..2, with an optional newline
 *
 * Return: the mode, or -EINVAL.
 */
int udmabuf_check_parse(const char *s)
{
	return udmem_check_parse(s);
}

const char *udmabuf_check_name(u32 mode)
{
	return udmem_check_name(mode);
}

int udmabuf_default_sync_check;

static const struct kernel_param_ops udmabuf_check_param_ops = {
	.set = udmem_check_param_set,
	.get = udmem_check_param_get,
};

module_param_cb(sync_check, &udmabuf_check_param_ops, &udmabuf_default_sync_check, 0644);
MODULE_PARM_DESC(sync_check,
		 "Sync checker of new buffers: off, report or strict (default off)");

/* The engine's view of @buf; under buf->lock. */
static void udmabuf_own_ctx(struct udmabuf *buf, struct udmem_own_ctx *c)
{
	c->own = buf->own;
	c->mode = buf->sync_check;
	c->violations = &buf->own_violations;
	c->redundant = &buf->own_redundant;
	c->rs = &buf->own_rs;
	c->driver = UDMABUF_DRIVER_NAME;
	c->name = buf->name;
}

/**
 * udmabuf_own_init() - the checker's fields of a new buffer
 * @buf: the buffer, not yet published
 * @param: the creator's wish, 0 for the module parameter, else mode + 1
 *
 * The mode takes effect in udmabuf_own_set_mode(), once the memory type
 * is known; until then it waits in buf->sync_check.
 */
void udmabuf_own_init(struct udmabuf *buf, u32 param)
{
	INIT_LIST_HEAD(&buf->own_maps);
	atomic_long_set(&buf->own_violations, 0);
	atomic_long_set(&buf->own_redundant, 0);
	ratelimit_state_init(&buf->own_rs, 5 * HZ, 10);
	buf->sync_check = param ? param - 1 : READ_ONCE(udmabuf_default_sync_check);
}

void udmabuf_own_free(struct udmabuf *buf)
{
	struct udmabuf_own_map *m, *tmp;

	list_for_each_entry_safe(m, tmp, &buf->own_maps, node) {
		list_del(&m->node);
		kfree(m);
	}
	udmem_own_destroy(buf->own);
	buf->own = NULL;
}

/**
 * udmabuf_own_set_mode() - switch the checker
 * @buf: the buffer, its memory allocated
 * @mode: UDMABUF_CHECK_*
 *
 * Switching it on from off gives every page to the CPU.  Memory that user
 * space maps with dma_mmap_coherent() (mmap mode off) has no fault handler
 * of ours and cannot be checked.
 *
 * Return: 0, -EINVAL for a bad mode, -EOPNOTSUPP, -ENOMEM.
 */
int udmabuf_own_set_mode(struct udmabuf *buf, u32 mode)
{
	int ret = 0;

	if (mode > UDMABUF_CHECK_MAX)
		return -EINVAL;
	mutex_lock(&buf->lock);
	if (mode && buf->mt.map == UDMABUF_MAP_DMA) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	if (mode && !buf->own) {
		buf->own = udmem_own_alloc(buf->alloc_size >> PAGE_SHIFT);
		if (!buf->own) {
			ret = -ENOMEM;
			goto out;
		}
	} else if (mode && buf->sync_check == UDMABUF_CHECK_OFF) {
		udmem_own_clear(buf->own);
	}
	WRITE_ONCE(buf->sync_check, mode);
out:
	mutex_unlock(&buf->lock);
	return ret;
}

/**
 * udmabuf_own_map_add() - note an address space that may map the buffer
 * @buf: the buffer
 * @mapping: a /dev file's or an export's f_mapping
 * @base: the buffer offset of the mapping's file offset 0
 * @len: how much of the buffer it maps from there
 *
 * Return: 0 or -ENOMEM.
 */
int udmabuf_own_map_add(struct udmabuf *buf, struct address_space *mapping, u64 base,
			u64 len)
{
	struct udmabuf_own_map *m;
	int ret = 0;

	mutex_lock(&buf->lock);
	list_for_each_entry(m, &buf->own_maps, node) {
		if (m->mapping == mapping && m->base == base) {
			m->users++;
			goto out;
		}
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	m->mapping = mapping;
	m->base = base;
	m->len = len;
	m->users = 1;
	list_add(&m->node, &buf->own_maps);
out:
	mutex_unlock(&buf->lock);
	return ret;
}

void udmabuf_own_map_del(struct udmabuf *buf, struct address_space *mapping, u64 base)
{
	struct udmabuf_own_map *m;

	mutex_lock(&buf->lock);
	list_for_each_entry(m, &buf->own_maps, node) {
		if (m->mapping == mapping && m->base == base) {
			if (!--m->users) {
				list_del(&m->node);
				kfree(m);
			}
			break;
		}
	}
	mutex_unlock(&buf->lock);
}

/* Remove [start, end) of the buffer from every user mapping. */
static void udmabuf_own_zap(struct udmabuf *buf, u64 start, u64 end)
{
	struct udmabuf_own_map *m;

	list_for_each_entry(m, &buf->own_maps, node) {
		u64 from = max(start, m->base), to = min(end, m->base + m->len);

		if (from < to)
			unmap_mapping_range(m->mapping, from - m->base, to - from, 1);
	}
}

/* Remove all of the buffer from every user mapping; under buf->lock. */
void udmabuf_own_zap_all(struct udmabuf *buf)
{
	lockdep_assert_held(&buf->lock);
	udmabuf_own_zap(buf, 0, buf->alloc_size);
}

/**
 * udmabuf_own_sync() - the owners after a successful sync
 * @buf: the buffer; the caller holds buf->lock and saw the checker on
 * @for_device: handed to the device, or back to the CPU
 * @offset: start of the range, inside the buffer
 * @size: its length; 0 changes nothing
 * @dir: 0 bidirectional, 1 to device, 2 from device
 * @via: who asked
 */
void udmabuf_own_sync(struct udmabuf *buf, bool for_device, u64 offset, u64 size,
		      u32 dir, enum udmabuf_via via)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&buf->lock);
	if (!buf->own || !size)
		return;
	udmabuf_own_ctx(buf, &c);
	udmem_own_sync(&c, for_device, offset, size, dir, udmabuf_via_names[via],
		       via == UDMABUF_VIA_DMABUF);
	if (for_device)
		udmabuf_own_zap(buf, round_down(offset, PAGE_SIZE),
				round_up(offset + size, PAGE_SIZE));
}

/**
 * udmabuf_own_rw() - may read() or write() copy this range?
 * @buf: the buffer; the caller holds buf->lock and saw the checker on
 * @offset: start of the copy
 * @len: its length, not 0
 * @write: a write(), which a sync to the device forbids as well
 *
 * Return: 0, or -EBUSY in strict mode when the device owns some of it.
 */
int udmabuf_own_rw(struct udmabuf *buf, u64 offset, u64 len, bool write)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&buf->lock);
	if (!buf->own)
		return 0;
	udmabuf_own_ctx(buf, &c);
	return udmem_own_rw(&c, offset, len, write);
}

/**
 * udmabuf_own_begin_cpu() - may an export's begin_cpu_access take this range?
 * @buf: the buffer; the caller holds buf->lock and saw the checker on
 * @offset: the export's start
 * @len: its length
 *
 * Not while a sync of the buffer's own (sysfs, ioctl, in-kernel API)
 * gave some of it to the device: that one hands it back.
 *
 * Return: 0, or -EBUSY in strict mode.
 */
int udmabuf_own_begin_cpu(struct udmabuf *buf, u64 offset, u64 len)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&buf->lock);
	if (!buf->own || !len)
		return 0;
	udmabuf_own_ctx(buf, &c);
	return udmem_own_begin_cpu(&c, offset, len);
}

/**
 * udmabuf_own_fault() - may a fault map this page?
 * @buf: the buffer; the caller holds buf->lock
 * @offset: the page's buffer offset
 * @addr: the user address
 * @write: a write fault
 * @wrprotect: out: map it read-only (the device reads it)
 *
 * Return: 0 to map it, VM_FAULT_SIGBUS in strict mode.
 */
vm_fault_t udmabuf_own_fault(struct udmabuf *buf, u64 offset, unsigned long addr,
			     bool write, bool *wrprotect)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&buf->lock);
	*wrprotect = false;
	if (!buf->sync_check || !buf->own)
		return 0;
	udmabuf_own_ctx(buf, &c);
	return udmem_own_fault(&c, offset, addr, write, wrprotect);
}

/**
 * udmabuf_own_mkwrite() - may a write-protected page become writable?
 * @buf: the buffer; the caller holds buf->lock
 * @offset: the page's buffer offset
 * @addr: the user address
 *
 * Return: 0, or VM_FAULT_SIGBUS in strict mode.
 */
vm_fault_t udmabuf_own_mkwrite(struct udmabuf *buf, u64 offset, unsigned long addr)
{
	struct udmem_own_ctx c;

	lockdep_assert_held(&buf->lock);
	if (!buf->sync_check || !buf->own)
		return 0;
	udmabuf_own_ctx(buf, &c);
	return udmem_own_mkwrite(&c, offset, addr);
}
