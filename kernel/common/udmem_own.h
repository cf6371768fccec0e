/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udmem_own.h - the sync checker's engine, shared by u-dma-buf
 * (dma-buf/ownership.c) and uiomem (iomem/ownership.c); docs/sync-checker.md.
 *
 * Static inline functions, so that each module builds its own copy from
 * the one source.  Every page of a checked object has an owner: the CPU,
 * or the device since a sync for the device.  The sync ranges are bytes,
 * the owners pages: a page is the device's if any byte of it was handed
 * over, and the CPU's again if any byte of it was handed back.  The
 * callers hold the object's lock around every function here but the mode
 * parsing, and remove handed-over pages from their user mappings.
 */
#ifndef UDMEM_COMMON_OWN_H
#define UDMEM_COMMON_OWN_H

#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "udmem_sync.h"

/* The checker's modes, as sysfs sync_check names them. */
#define UDMEM_CHECK_OFF		0
#define UDMEM_CHECK_REPORT	1	/* a kernel message, then the access goes on */
#define UDMEM_CHECK_STRICT	2	/* SIGBUS, or EBUSY */
#define UDMEM_CHECK_MAX		UDMEM_CHECK_STRICT

/* A page's state: owner in bits 1:0, who handed it over in bit 2. */
#define UDMEM_OWN_CPU		0
#define UDMEM_OWN_DEV_RO	1	/* the device reads it; the CPU may read */
#define UDMEM_OWN_DEV		2
#define UDMEM_OWN_MASK		3
#define UDMEM_OWN_BY_EXPORT	4	/* a DMA-BUF export's end_cpu_access */

#define UDMEM_OWN_RECS		16

/* One sync for the device, for the messages. */
struct udmem_own_rec {
	u64 offset;
	u64 size;
	u64 when_ns;
	u32 seq;
	u32 dir;
	pid_t pid;
	const char *via;
	char comm[TASK_COMM_LEN];
};

/* The owner table of one object and its last syncs for the device. */
struct udmem_own {
	unsigned long pages;
	u8 *state;
	u32 *seq;			/* the sync that handed each page over */
	u32 next;			/* sequence number of the next sync, from 1 */
	struct udmem_own_rec rec[UDMEM_OWN_RECS];
};

/**
 * struct udmem_own_ctx - what the engine needs of a checked object
 * @own: its owner table
 * @mode: UDMEM_CHECK_*
 * @violations: counts violations (sysfs ownership_violations)
 * @redundant: counts syncs for the CPU of CPU-owned pages (redundant_syncs)
 * @rs: limits the violation messages
 * @driver: the driver's name, first in every message
 * @name: the object's name, second
 */
struct udmem_own_ctx {
	struct udmem_own *own;
	u32 mode;
	atomic_long_t *violations;
	atomic_long_t *redundant;
	struct ratelimit_state *rs;
	const char *driver;
	const char *name;
};

static inline const char *udmem_check_name(u32 mode)
{
	static const char * const names[] = {
		[UDMEM_CHECK_OFF] = "off",
		[UDMEM_CHECK_REPORT] = "report",
		[UDMEM_CHECK_STRICT] = "strict",
	};

	return mode <= UDMEM_CHECK_MAX ? names[mode] : "?";
}

/**
 * udmem_check_parse() - a mode from its name or number
 * @s: "off", "report", "strict" or 0..2, with an optional newline
 *
 * Return: the mode, or -EINVAL.
 */
static inline int udmem_check_parse(const char *s)
{
	u32 mode;

	for (mode = 0; mode <= UDMEM_CHECK_MAX; mode++)
		if (sysfs_streq(s, udmem_check_name(mode)))
			return mode;
	if (kstrtou32(s, 0, &mode) || mode > UDMEM_CHECK_MAX)
		return -EINVAL;
	return mode;
}

/*
 * The module parameter sync_check (an int holding a mode), read and
 * written as a mode name: the .set and .get of its kernel_param_ops.
 */
static inline int udmem_check_param_set(const char *val, const struct kernel_param *kp)
{
	int mode = udmem_check_parse(val);

	if (mode < 0)
		return mode;
	WRITE_ONCE(*(int *)kp->arg, mode);
	return 0;
}

static inline int udmem_check_param_get(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%s\n",
			 udmem_check_name(READ_ONCE(*(int *)kp->arg)));
}

static inline void udmem_own_destroy(struct udmem_own *own)
{
	if (!own)
		return;
	kvfree(own->state);
	kvfree(own->seq);
	kfree(own);
}

/* A table of @pages pages, all the CPU's; NULL without memory. */
static inline struct udmem_own *udmem_own_alloc(unsigned long pages)
{
	struct udmem_own *own = kzalloc(sizeof(*own), GFP_KERNEL);

	if (!own)
		return NULL;
	own->pages = pages;
	own->state = kvcalloc(pages, sizeof(*own->state), GFP_KERNEL);
	own->seq = kvcalloc(pages, sizeof(*own->seq), GFP_KERNEL);
	if (!own->state || !own->seq) {
		udmem_own_destroy(own);
		return NULL;
	}
	own->next = 1;
	return own;
}

/* Every page back to the CPU (the checker was switched on again). */
static inline void udmem_own_clear(struct udmem_own *own)
{
	memset(own->state, 0, own->pages);
}

/* Pages [*first, *last] of a nonempty byte range. */
static inline void udmem_own_pages(u64 offset, u64 size, unsigned long *first,
				   unsigned long *last)
{
	*first = offset >> PAGE_SHIFT;
	*last = (offset + size - 1) >> PAGE_SHIFT;
}

static inline const struct udmem_own_rec *
udmem_own_rec_find(const struct udmem_own *own, u32 seq)
{
	const struct udmem_own_rec *rec = &own->rec[seq % UDMEM_OWN_RECS];

	return seq && rec->seq == seq ? rec : NULL;
}

/*
 * Count a violation at offset @offset and say so, rate limited: who did
 * what where, and which sync gave the page to the device.
 */
static inline void udmem_own_report(const struct udmem_own_ctx *c, const char *what,
				    unsigned long addr, u64 offset)
{
	u32 seq = c->own->seq[offset >> PAGE_SHIFT];
	const struct udmem_own_rec *rec;
	u64 ago;

	atomic_long_inc(c->violations);
	if (!__ratelimit(c->rs))
		return;
	rec = udmem_own_rec_find(c->own, seq);
	if (!rec) {
		pr_warn("%s: %s: sync check: %s by pid %d (%s) addr=%#lx offset=%#llx: owned by the device since sync_for_device #%u\n",
			c->driver, c->name, what, task_pid_nr(current),
			current->comm, addr, offset, seq);
		return;
	}
	ago = ktime_get_ns() - rec->when_ns;
	pr_warn("%s: %s: sync check: %s by pid %d (%s) addr=%#lx offset=%#llx: owned by the device since sync_for_device #%u sync_offset=%#llx sync_size=%#llx dir=%u via %s by pid %d (%s) %llu ms ago\n",
		c->driver, c->name, what, task_pid_nr(current), current->comm,
		addr, offset, seq, rec->offset, rec->size, rec->dir,
		rec->via, rec->pid, rec->comm, div_u64(ago, NSEC_PER_MSEC));
}

/**
 * udmem_own_sync() - the owners after a successful sync
 * @c: the object
 * @for_device: handed to the device, or back to the CPU
 * @offset: start of the range, inside the object
 * @size: its length, not 0
 * @dir: 0 bidirectional, 1 to device, 2 from device
 * @via: who asked, for the messages
 * @by_export: a DMA-BUF export's end_cpu_access (its begin_cpu_access may
 *	take the range back)
 *
 * A sync for the CPU of pages the CPU owns already counts as redundant.
 * The caller removes the pages of a sync for the device from its user
 * mappings: [@offset rounded down, @offset + @size rounded up to pages).
 */
static inline void udmem_own_sync(const struct udmem_own_ctx *c, bool for_device,
				  u64 offset, u64 size, u32 dir, const char *via,
				  bool by_export)
{
	struct udmem_own *own = c->own;
	struct udmem_own_rec *rec;
	unsigned long first, last, i;
	bool owned = false;
	u8 state;

	udmem_own_pages(offset, size, &first, &last);
	if (for_device) {
		rec = &own->rec[own->next % UDMEM_OWN_RECS];
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
		state = dir == UDMEM_SYNC_TO_DEVICE ? UDMEM_OWN_DEV_RO : UDMEM_OWN_DEV;
		if (by_export)
			state |= UDMEM_OWN_BY_EXPORT;
		memset(own->state + first, state, last - first + 1);
		for (i = first; i <= last; i++)
			own->seq[i] = rec->seq;
		return;
	}
	for (i = first; i <= last; i++) {
		if (own->state[i] & UDMEM_OWN_MASK)
			owned = true;
		own->state[i] = UDMEM_OWN_CPU;
	}
	if (owned)
		return;
	atomic_long_inc(c->redundant);
	pr_info_ratelimited("%s: %s: sync check: redundant sync_for_cpu offset=%#llx size=%#llx via %s by pid %d (%s): the CPU owns it, no sync_for_device before it\n",
			    c->driver, c->name, offset, size, via,
			    task_pid_nr(current), current->comm);
}

/**
 * udmem_own_rw() - may read() or write() copy this range?
 * @c: the object
 * @offset: start of the copy
 * @len: its length, not 0
 * @write: a write(), which a sync to the device forbids as well
 *
 * Return: 0, or -EBUSY in strict mode when the device owns some of it.
 */
static inline int udmem_own_rw(const struct udmem_own_ctx *c, u64 offset, u64 len,
			       bool write)
{
	unsigned long first, last, i;
	u8 st;

	udmem_own_pages(offset, len, &first, &last);
	for (i = first; i <= last; i++) {
		st = c->own->state[i] & UDMEM_OWN_MASK;
		if (st == UDMEM_OWN_DEV || (write && st == UDMEM_OWN_DEV_RO))
			break;
	}
	if (i > last)
		return 0;
	udmem_own_report(c, write ? "write()" : "read()", 0,
			 max_t(u64, offset, (u64)i << PAGE_SHIFT));
	return c->mode == UDMEM_CHECK_STRICT ? -EBUSY : 0;
}

/**
 * udmem_own_begin_cpu() - may an export's begin_cpu_access take this range?
 * @c: the object
 * @offset: the export's start
 * @len: its length, not 0
 *
 * Not while a sync of the object's own (sysfs, ioctl, in-kernel API) gave
 * some of it to the device: that one hands it back.
 *
 * Return: 0, or -EBUSY in strict mode.
 */
static inline int udmem_own_begin_cpu(const struct udmem_own_ctx *c, u64 offset, u64 len)
{
	unsigned long first, last, i;
	u8 st;

	udmem_own_pages(offset, len, &first, &last);
	for (i = first; i <= last; i++) {
		st = c->own->state[i];
		if ((st & UDMEM_OWN_MASK) && !(st & UDMEM_OWN_BY_EXPORT))
			break;
	}
	if (i > last)
		return 0;
	udmem_own_report(c, "dma-buf begin_cpu_access", 0, (u64)i << PAGE_SHIFT);
	return c->mode == UDMEM_CHECK_STRICT ? -EBUSY : 0;
}

/*
 * A CPU access to a device-owned page: VM_FAULT_SIGBUS in strict mode; in
 * report mode the page goes back to the CPU, so that one access is
 * reported once.
 */
static inline vm_fault_t udmem_own_violation(const struct udmem_own_ctx *c, const char *what,
					     unsigned long addr, u64 offset)
{
	udmem_own_report(c, what, addr, offset);
	if (c->mode == UDMEM_CHECK_STRICT)
		return VM_FAULT_SIGBUS;
	c->own->state[offset >> PAGE_SHIFT] = UDMEM_OWN_CPU;
	return 0;
}

/**
 * udmem_own_fault() - may a fault map this page?
 * @c: the object, its checker on
 * @offset: the page's offset in the object
 * @addr: the user address
 * @write: a write fault
 * @wrprotect: out: map it read-only (the device reads it)
 *
 * Return: 0 to map it, VM_FAULT_SIGBUS in strict mode.
 */
static inline vm_fault_t udmem_own_fault(const struct udmem_own_ctx *c, u64 offset,
					 unsigned long addr, bool write, bool *wrprotect)
{
	u8 st = c->own->state[offset >> PAGE_SHIFT] & UDMEM_OWN_MASK;

	*wrprotect = false;
	if (st == UDMEM_OWN_CPU)
		return 0;
	if (st == UDMEM_OWN_DEV_RO && !write) {
		*wrprotect = true;
		return 0;
	}
	return udmem_own_violation(c, write ? "CPU write" : "CPU read", addr, offset);
}

/**
 * udmem_own_mkwrite() - may a write-protected page become writable?
 * @c: the object, its checker on
 * @offset: the page's offset in the object
 * @addr: the user address
 *
 * Return: 0, or VM_FAULT_SIGBUS in strict mode.
 */
static inline vm_fault_t udmem_own_mkwrite(const struct udmem_own_ctx *c, u64 offset,
					   unsigned long addr)
{
	if (!(c->own->state[offset >> PAGE_SHIFT] & UDMEM_OWN_MASK))
		return 0;
	return udmem_own_violation(c, "CPU write", addr, offset);
}

#endif /* UDMEM_COMMON_OWN_H */
