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
 * Mappings are checked when they were made while the checker was on:
 * they get udmabuf_vm_ops_check (mmap.c) and no entries at mmap time.
 * Everything here runs under buf->lock; with the checker off the callers
 * test buf->sync_check and do nothing else.
 */
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "udmabuf.h"

/* A page's state: owner in bits 1:0, who handed it over in bit 2. */
#define UDMABUF_OWN_CPU		0
#define UDMABUF_OWN_DEV_RO	1	/* the device reads it; the CPU may read */
#define UDMABUF_OWN_DEV		2
#define UDMABUF_OWN_MASK	3
#define UDMABUF_OWN_BY_DMABUF	4	/* an export's end_cpu_access */

#define UDMABUF_OWN_RECS	16

/* One sync for the device, for the messages. */
struct udmabuf_own_rec {
	u64 offset;
	u64 size;
	u64 when_ns;
	u32 seq;
	u32 dir;
	pid_t pid;
	enum udmabuf_via via;
	char comm[TASK_COMM_LEN];
};

struct udmabuf_own {
	unsigned long pages;
	u8 *state;
	u32 *seq;			/* the sync that handed each page over */
	u32 next;			/* sequence number of the next sync, from 1 */
	struct udmabuf_own_rec rec[UDMABUF_OWN_RECS];
};

/* An address space that user mappings of the buffer live in. */
struct udmabuf_own_map {
	struct list_head node;
	struct address_space *mapping;
	u64 base;			/* buffer offset of the mapping's offset 0 */
	u64 len;
	unsigned int users;
};

static const char * const udmabuf_check_names[] = {
	[UDMABUF_CHECK_OFF] = "off",
	[UDMABUF_CHECK_REPORT] = "report",
	[UDMABUF_CHECK_STRICT] = "strict",
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
	int ret;
	u32 val;

	ret = sysfs_match_string(udmabuf_check_names, s);
	if (ret >= 0)
		return ret;
	if (kstrtou32(s, 0, &val) || val > UDMABUF_CHECK_MAX)
		return -EINVAL;
	return val;
}

const char *udmabuf_check_name(u32 mode)
{
	return mode <= UDMABUF_CHECK_MAX ? udmabuf_check_names[mode] : "?";
}

int udmabuf_default_sync_check;

static int udmabuf_check_param_set(const char *val, const struct kernel_param *kp)
{
	int mode = udmabuf_check_parse(val);

	if (mode < 0)
		return mode;
	WRITE_ONCE(*(int *)kp->arg, mode);
	return 0;
}

static int udmabuf_check_param_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n",
			 udmabuf_check_name(READ_ONCE(*(int *)kp->arg)));
}

static const struct kernel_param_ops udmabuf_check_param_ops = {
	.set = udmabuf_check_param_set,
	.get = udmabuf_check_param_get,
};

module_param_cb(sync_check, &udmabuf_check_param_ops, &udmabuf_default_sync_check, 0644);
MODULE_PARM_DESC(sync_check,
		 "Sync checker of new buffers: off, report or strict (default off)");

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
	if (buf->own) {
		kvfree(buf->own->state);
		kvfree(buf->own->seq);
		kfree(buf->own);
		buf->own = NULL;
	}
}

static struct udmabuf_own *udmabuf_own_alloc(unsigned long pages)
{
	struct udmabuf_own *own = kzalloc(sizeof(*own), GFP_KERNEL);

	if (!own)
		return NULL;
	own->pages = pages;
	own->state = kvcalloc(pages, sizeof(*own->state), GFP_KERNEL);
	own->seq = kvcalloc(pages, sizeof(*own->seq), GFP_KERNEL);
	if (!own->state || !own->seq) {
		kvfree(own->state);
		kvfree(own->seq);
		kfree(own);
		return NULL;
	}
	own->next = 1;
	return own;
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
		buf->own = udmabuf_own_alloc(buf->alloc_size >> PAGE_SHIFT);
		if (!buf->own) {
			ret = -ENOMEM;
			goto out;
		}
	} else if (mode && buf->sync_check == UDMABUF_CHECK_OFF) {
		memset(buf->own->state, 0, buf->own->pages);
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

static const struct udmabuf_own_rec *
udmabuf_own_rec_find(const struct udmabuf_own *own, u32 seq)
{
	const struct udmabuf_own_rec *rec = &own->rec[seq % UDMABUF_OWN_RECS];

	return seq && rec->seq == seq ? rec : NULL;
}

/*
 * Count a violation at buffer offset @offset and say so, rate limited:
 * who did what where, and which sync gave the page to the device.
 */
static void udmabuf_own_report(struct udmabuf *buf, const char *what, unsigned long addr,
			       u64 offset)
{
	struct udmabuf_own *own = buf->own;
	const struct udmabuf_own_rec *rec;
	u32 seq = own->seq[offset >> PAGE_SHIFT];
	u64 ago;

	atomic_long_inc(&buf->own_violations);
	if (!__ratelimit(&buf->own_rs))
		return;
	rec = udmabuf_own_rec_find(own, seq);
	if (!rec) {
		pr_warn("%s: %s: sync check: %s by pid %d (%s) addr=%#lx offset=%#llx: owned by the device since sync_for_device #%u\n",
			UDMABUF_DRIVER_NAME, buf->name, what, task_pid_nr(current),
			current->comm, addr, offset, seq);
		return;
	}
	ago = ktime_get_ns() - rec->when_ns;
	pr_warn("%s: %s: sync check: %s by pid %d (%s) addr=%#lx offset=%#llx: owned by the device since sync_for_device #%u sync_offset=%#llx sync_size=%#llx dir=%u via %s by pid %d (%s) %llu ms ago\n",
		UDMABUF_DRIVER_NAME, buf->name, what, task_pid_nr(current), current->comm,
		addr, offset, seq, rec->offset, rec->size, rec->dir,
		udmabuf_via_names[rec->via], rec->pid, rec->comm, div_u64(ago, NSEC_PER_MSEC));
}

/* Pages [*first, *last] of a nonempty byte range. */
static void udmabuf_own_pages(u64 offset, u64 size, unsigned long *first,
			      unsigned long *last)
{
	*first = offset >> PAGE_SHIFT;
	*last = (offset + size - 1) >> PAGE_SHIFT;
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
	struct udmabuf_own *own = buf->own;
	struct udmabuf_own_rec *rec;
	unsigned long first, last, i;
	bool owned = false;
	u8 state;

	lockdep_assert_held(&buf->lock);
	if (!own || !size)
		return;
	udmabuf_own_pages(offset, size, &first, &last);
	if (for_device) {
		rec = &own->rec[own->next % UDMABUF_OWN_RECS];
		rec->seq = own->next;
		rec->offset = offset;
		rec->size = size;
		rec->dir = dir;
		rec->via = via;
		rec->when_ns = ktime_get_ns();
		rec->pid = task_pid_nr(current);
		get_task_comm(rec->comm, current);
		if (!++own->next)
			own->next = 1;
		state = dir == UDMEM_SYNC_TO_DEVICE ? UDMABUF_OWN_DEV_RO : UDMABUF_OWN_DEV;
		if (via == UDMABUF_VIA_DMABUF)
			state |= UDMABUF_OWN_BY_DMABUF;
		memset(own->state + first, state, last - first + 1);
		for (i = first; i <= last; i++)
			own->seq[i] = rec->seq;
		udmabuf_own_zap(buf, (u64)first << PAGE_SHIFT, (u64)(last + 1) << PAGE_SHIFT);
		return;
	}
	for (i = first; i <= last; i++) {
		if (own->state[i] & UDMABUF_OWN_MASK)
			owned = true;
		own->state[i] = UDMABUF_OWN_CPU;
	}
	if (owned)
		return;
	atomic_long_inc(&buf->own_redundant);
	pr_info_ratelimited("%s: %s: sync check: redundant sync_for_cpu offset=%#llx size=%#llx via %s by pid %d (%s): the CPU owns it, no sync_for_device before it\n",
			    UDMABUF_DRIVER_NAME, buf->name, offset, size, udmabuf_via_names[via],
			    task_pid_nr(current), current->comm);
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
	struct udmabuf_own *own = buf->own;
	unsigned long first, last, i;
	u8 st;

	lockdep_assert_held(&buf->lock);
	if (!own)
		return 0;
	udmabuf_own_pages(offset, len, &first, &last);
	for (i = first; i <= last; i++) {
		st = own->state[i] & UDMABUF_OWN_MASK;
		if (st == UDMABUF_OWN_DEV || (write && st == UDMABUF_OWN_DEV_RO))
			break;
	}
	if (i > last)
		return 0;
	udmabuf_own_report(buf, write ? "write()" : "read()", 0,
			   max_t(u64, offset, (u64)i << PAGE_SHIFT));
	return buf->sync_check == UDMABUF_CHECK_STRICT ? -EBUSY : 0;
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
	struct udmabuf_own *own = buf->own;
	unsigned long first, last, i;
	u8 st;

	lockdep_assert_held(&buf->lock);
	if (!own || !len)
		return 0;
	udmabuf_own_pages(offset, len, &first, &last);
	for (i = first; i <= last; i++) {
		st = own->state[i];
		if ((st & UDMABUF_OWN_MASK) && !(st & UDMABUF_OWN_BY_DMABUF))
			break;
	}
	if (i > last)
		return 0;
	udmabuf_own_report(buf, "dma-buf begin_cpu_access", 0, (u64)i << PAGE_SHIFT);
	return buf->sync_check == UDMABUF_CHECK_STRICT ? -EBUSY : 0;
}

/*
 * A CPU access to a device-owned page: -1 in strict mode; in report mode
 * the page goes back to the CPU, so that one access is reported once.
 */
static int udmabuf_own_violation(struct udmabuf *buf, const char *what,
				 unsigned long addr, u64 offset)
{
	udmabuf_own_report(buf, what, addr, offset);
	if (buf->sync_check == UDMABUF_CHECK_STRICT)
		return -1;
	buf->own->state[offset >> PAGE_SHIFT] = UDMABUF_OWN_CPU;
	return 0;
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
	u8 st;

	lockdep_assert_held(&buf->lock);
	*wrprotect = false;
	if (!buf->sync_check || !buf->own)
		return 0;
	st = buf->own->state[offset >> PAGE_SHIFT] & UDMABUF_OWN_MASK;
	if (st == UDMABUF_OWN_CPU)
		return 0;
	if (st == UDMABUF_OWN_DEV_RO && !write) {
		*wrprotect = true;
		return 0;
	}
	if (udmabuf_own_violation(buf, write ? "CPU write" : "CPU read", addr, offset))
		return VM_FAULT_SIGBUS;
	return 0;
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
	lockdep_assert_held(&buf->lock);
	if (!buf->sync_check || !buf->own ||
	    !(buf->own->state[offset >> PAGE_SHIFT] & UDMABUF_OWN_MASK))
		return 0;
	if (udmabuf_own_violation(buf, "CPU write", addr, offset))
		return VM_FAULT_SIGBUS;
	return 0;
}
