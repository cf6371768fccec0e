// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * memtype.c - `udmem bench`: the memory type of each mapping the matrix
 * measures, read from the page tables rather than inferred.
 *
 * The reader is tests/kmod/udmem-memtype.ko (/dev/udmem-memtype): arm64
 * asks the MMU (AT, PAR_EL1), x86_64 walks the page tables.  Without it,
 * or on another architecture, one skip record per target says so.  One
 * record per mapping: the target's cached, uncached (O_SYNC, sync_mode 1)
 * and write-combine (O_SYNC, sync_mode 2) mappings, and for a buffer the
 * manager made, the driver's own kernel mapping.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "bench-priv.h"
#include "../tests/kmod/udmem-memtype.h"

#define BENCH_MEMTYPE_DEV	"/dev/udmem-memtype"
#define BENCH_MT_COUNT(a)	(sizeof(a) / sizeof((a)[0]))

static const char *bench_memtype_name(uint32_t type)
{
	switch (type) {
	case UDMEM_MT_CACHEABLE:
		return "cacheable";
	case UDMEM_MT_WRITE_THROUGH:
		return "write-through";
	case UDMEM_MT_NORMAL_NC:
		return "normal-nc";
	case UDMEM_MT_WRITE_COMBINE:
		return "write-combine";
	case UDMEM_MT_DEVICE:
		return "device";
	default:
		return "other";
	}
}

static void bench_memtype_emit(struct bench_ctx *c, const struct bench_target *t,
			       const char *mapping, const struct udmem_memtype *q)
{
	bench_json_begin(&c->out, "memtype");
	bench_json_kv_s(&c->out, "target", t->name);
	bench_json_kv_s(&c->out, "mapping", mapping);
	bench_json_kv_s(&c->out, "memtype", bench_memtype_name(q->type));
	bench_json_kv_u(&c->out, "raw", q->raw);
	bench_json_end(&c->out);
}

/* Map one page of @dev_path (O_SYNC or not), touch it, read its type. */
static int bench_memtype_user(int qfd, const char *dev_path, bool o_sync,
			      struct udmem_memtype *q)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile uint8_t *map;
	int fd, err = 0;

	fd = open(dev_path, O_RDONLY | O_CLOEXEC | (o_sync ? O_SYNC : 0));
	if (fd < 0)
		return -errno;
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	(void)map[0];
	memset(q, 0, sizeof(*q));
	q->addr = (uintptr_t)map;
	if (ioctl(qfd, UDMEM_MEMTYPE_QUERY, q) < 0)
		err = -errno;
	munmap((void *)map, page);
	return err;
}

/* For `udmem info`: the driver's current sync_mode decides the O_SYNC mapping. */
const char *bench_memtype_of(const char *dev_path, bool o_sync)
{
	struct udmem_memtype q;
	int qfd, err;

	qfd = open(BENCH_MEMTYPE_DEV, O_RDWR | O_CLOEXEC);
	if (qfd < 0)
		return NULL;
	err = bench_memtype_user(qfd, dev_path, o_sync, &q);
	close(qfd);
	if (err) {
		errno = -err;
		return NULL;
	}
	return bench_memtype_name(q.type);
}

void bench_memtype(struct bench_ctx *c, const struct bench_target *t)
{
	static const enum bench_access modes[] = { BENCH_CACHED, BENCH_UNCACHED, BENCH_WC };
	struct udmem_memtype q;
	char why[128];
	unsigned int i;
	int qfd, err;

	if (t->class == BENCH_ANON)
		return;
	qfd = open(BENCH_MEMTYPE_DEV, O_RDWR | O_CLOEXEC);
	if (qfd < 0) {
		bench_emit_skip(c, t->name, "memtype", "no " BENCH_MEMTYPE_DEV
				" (tests/kmod/udmem-memtype.ko reads the page tables)");
		return;
	}
	for (i = 0; i < BENCH_MT_COUNT(modes); i++) {
		bool o_sync = modes[i] != BENCH_CACHED;
		const char *name = bench_access_name(modes[i]);

		if (t->no_cached && !o_sync)
			continue;
		if (o_sync && bench_target_set_sync_mode(t, modes[i] == BENCH_UNCACHED ? 1 : 2)) {
			snprintf(why, sizeof(why), "cannot set sync_mode for the %s mapping: %s",
				 name, strerror(errno));
			bench_emit_skip(c, t->name, "memtype", why);
			continue;
		}
		err = bench_memtype_user(qfd, t->dev_path, o_sync, &q);
		if (o_sync && t->sync_mode >= 0)
			bench_target_set_sync_mode(t, t->sync_mode);
		if (err == -EOPNOTSUPP) {
			bench_emit_skip(c, t->name, "memtype",
					"the page-table reader knows arm64 and x86_64 only");
			break;
		}
		if (err) {
			snprintf(why, sizeof(why), "memtype %s", name);
			bench_emit_error(c, t->name, why, err, strerror(-err));
			continue;
		}
		bench_memtype_emit(c, t, name, &q);
	}
	/* The kernel's mapping: only buffers the manager made are found. */
	memset(&q, 0, sizeof(q));
	snprintf(q.name, sizeof(q.name), "%s", t->name);
	if (t->class == BENCH_UDMABUF && !ioctl(qfd, UDMEM_MEMTYPE_QUERY, &q))
		bench_memtype_emit(c, t, "kernel", &q);
	close(qfd);
}
