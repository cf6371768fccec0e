// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * syncchk.c - name the buffer and offset of a sync checker SIGBUS.
 *
 * Every mapping the library makes, and every mapping a program hands to
 * udmem_sync_check_watch() (the Python package's), is noted in a fixed
 * table that a signal handler can read without locks: a slot is claimed by a compare-and-swap
 * of its state, filled, then published; the handler reads only published
 * slots.  The handler writes one line with write(2) and hands the signal
 * on to the handler that was there before it (the default one kills).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define UDMEM_MAPS_MAX	256

enum { SLOT_FREE, SLOT_BUSY, SLOT_LIVE };

struct udmem_map_slot {
	atomic_int state;
	uintptr_t start;
	uint64_t len;
	char name[UDMEM_NAME_MAX];
};

static struct udmem_map_slot udmem_maps[UDMEM_MAPS_MAX];
static struct sigaction udmem_old_sigbus;
static atomic_int udmem_sigbus_installed;

static int maps_add(const void *addr, uint64_t len, const char *name)
{
	int i, expect;

	for (i = 0; i < UDMEM_MAPS_MAX; i++) {
		expect = SLOT_FREE;
		if (!atomic_compare_exchange_strong(&udmem_maps[i].state, &expect, SLOT_BUSY))
			continue;
		udmem_maps[i].start = (uintptr_t)addr;
		udmem_maps[i].len = len;
		snprintf(udmem_maps[i].name, sizeof(udmem_maps[i].name), "%s", name);
		atomic_store(&udmem_maps[i].state, SLOT_LIVE);
		return 0;
	}
	return -ENOSPC;
}

static int maps_del(const void *addr)
{
	int i;

	for (i = 0; i < UDMEM_MAPS_MAX; i++) {
		if (atomic_load(&udmem_maps[i].state) == SLOT_LIVE &&
		    udmem_maps[i].start == (uintptr_t)addr) {
			atomic_store(&udmem_maps[i].state, SLOT_FREE);
			return 0;
		}
	}
	return -ENOENT;
}

void udmem_maps_add(const void *addr, uint64_t len, const char *name)
{
	/* A full table only costs the name in the message. */
	maps_add(addr, len, name);
}

void udmem_maps_del(const void *addr)
{
	maps_del(addr);
}

/*
 * Two live mappings cannot overlap: a slot that overlaps a new one is left
 * from a mapping that is gone (unmapped without an unwatch).  Drop it, so
 * that the new mapping's name is the one a fault finds.
 */
static void maps_drop_overlapping(uintptr_t start, uint64_t len)
{
	int i;

	for (i = 0; i < UDMEM_MAPS_MAX; i++) {
		struct udmem_map_slot *s = &udmem_maps[i];
		int expect = SLOT_LIVE;

		if (atomic_load(&s->state) != SLOT_LIVE || s->start >= start + len ||
		    start >= s->start + s->len)
			continue;
		atomic_compare_exchange_strong(&s->state, &expect, SLOT_FREE);
	}
}

UDMEM_API int udmem_sync_check_watch(const char *name, const void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr;

	if (!name || !addr || !len || start + len < start)
		return -EINVAL;
	maps_drop_overlapping(start, len);
	return maps_add(addr, len, name);
}

UDMEM_API int udmem_sync_check_unwatch(const void *addr)
{
	if (!addr)
		return -EINVAL;
	return maps_del(addr);
}

/* Async-signal-safe formatting: append @s, or @v in hex. */
static size_t put_str(char *buf, size_t pos, size_t cap, const char *s)
{
	while (*s && pos + 1 < cap)
		buf[pos++] = *s++;
	return pos;
}

static size_t put_hex(char *buf, size_t pos, size_t cap, uint64_t v)
{
	char tmp[17];
	int n = 0;

	do {
		tmp[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	pos = put_str(buf, pos, cap, "0x");
	while (n && pos + 1 < cap)
		buf[pos++] = tmp[--n];
	return pos;
}

static void udmem_sigbus(int sig, siginfo_t *info, void *ctx)
{
	uintptr_t a = (uintptr_t)info->si_addr;
	int saved = errno, i;
	char line[160];
	size_t n;

	/* Only a fault has an address: kill() and raise() send si_code <= 0. */
	for (i = 0; info->si_code > 0 && i < UDMEM_MAPS_MAX; i++) {
		struct udmem_map_slot *s = &udmem_maps[i];

		if (atomic_load(&s->state) != SLOT_LIVE || a < s->start ||
		    a - s->start >= s->len)
			continue;
		n = put_str(line, 0, sizeof(line), "udmem: ");
		n = put_str(line, n, sizeof(line), s->name);
		n = put_str(line, n, sizeof(line), " offset ");
		n = put_hex(line, n, sizeof(line), a - s->start);
		n = put_str(line, n, sizeof(line),
			    ": CPU access to device-owned memory (sync checker)\n");
		if (write(STDERR_FILENO, line, n) < 0)
			errno = saved;
		break;
	}
	errno = saved;
	/* Hand on: the old handler, or the default action once we return. */
	if (udmem_old_sigbus.sa_flags & SA_SIGINFO) {
		udmem_old_sigbus.sa_sigaction(sig, info, ctx);
	} else if (udmem_old_sigbus.sa_handler != SIG_DFL &&
		   udmem_old_sigbus.sa_handler != SIG_IGN) {
		udmem_old_sigbus.sa_handler(sig);
	} else {
		/* The access faults again on return and the default kills. */
		struct sigaction dfl;

		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigaction(SIGBUS, &dfl, NULL);
	}
}

UDMEM_API int udmem_sync_check_handler_install(void)
{
	struct sigaction sa;
	int expect = 0;

	if (!atomic_compare_exchange_strong(&udmem_sigbus_installed, &expect, 1))
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = udmem_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &udmem_old_sigbus) < 0) {
		int ret = -errno;

		atomic_store(&udmem_sigbus_installed, 0);
		return ret;
	}
	return 0;
}
