// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * target.c - finding the buffers and regions to measure, and syncing them
 * the three ways a program can: one ioctl, one packed sysfs write, or the
 * four sysfs attributes of the original drivers' examples.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/u-dma-buf-ioctl.h>
#include <linux/uiomem.h>

#include "bench-priv.h"

#define BENCH_SYNC_CMD_FOR_CPU		1ull
#define BENCH_SYNC_CMD_FOR_DEVICE	3ull

static const char *const bench_class_dirs[] = {
	[BENCH_UDMABUF] = "/sys/class/u-dma-buf",
	[BENCH_UIOMEM] = "/sys/class/uiomem",
};

const char *bench_class_name(enum bench_class class)
{
	switch (class) {
	case BENCH_UDMABUF:
		return "u-dma-buf";
	case BENCH_UIOMEM:
		return "uiomem";
	default:
		return "anon";
	}
}

static int bench_sysfs_read(const char *dir, const char *attr, char *buf,
			    size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int bench_sysfs_write(const char *dir, const char *attr,
			     const char *val)
{
	char path[256];
	size_t len = strlen(val);
	ssize_t n;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0)
		err = -errno;
	else if ((size_t)n != len)
		err = -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

int bench_target_read_int(const struct bench_target *t, const char *attr,
			  long long *val)
{
	char buf[64], *end;
	int err;

	err = bench_sysfs_read(t->sys_path, attr, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*val = strtoll(buf, &end, 0);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

int bench_target_read_str(const struct bench_target *t, const char *attr,
			  char *buf, size_t len)
{
	return bench_sysfs_read(t->sys_path, attr, buf, len);
}

int bench_target_write_str(const struct bench_target *t, const char *attr,
			   const char *val)
{
	return bench_sysfs_write(t->sys_path, attr, val);
}

int bench_target_set_sync_mode(const struct bench_target *t, int mode)
{
	char val[16];

	snprintf(val, sizeof(val), "%d", mode);
	return bench_sysfs_write(t->sys_path, "sync_mode", val);
}

void bench_target_restore(const struct bench_target *t)
{
	char val[32];

	if (t->class == BENCH_ANON)
		return;
	if (t->sync_mode >= 0)
		bench_target_set_sync_mode(t, t->sync_mode);
	if (t->saved_sync_offset >= 0) {
		snprintf(val, sizeof(val), "%lld", t->saved_sync_offset);
		bench_sysfs_write(t->sys_path, "sync_offset", val);
	}
	if (t->saved_sync_size >= 0) {
		snprintf(val, sizeof(val), "%lld", t->saved_sync_size);
		bench_sysfs_write(t->sys_path, "sync_size", val);
	}
	if (t->saved_sync_direction >= 0) {
		snprintf(val, sizeof(val), "%lld", t->saved_sync_direction);
		bench_sysfs_write(t->sys_path, "sync_direction", val);
	}
}

int bench_sync_syscalls(enum bench_sync_method method)
{
	switch (method) {
	case BENCH_SYNC_IOCTL:
		return 1;
	case BENCH_SYNC_SYSFS:
		return 3;
	case BENCH_SYNC_IOCTL_PAGES:
		return 1;	/* per page */
	default:
		return 12;
	}
}

const char *bench_sync_method_name(enum bench_sync_method method)
{
	switch (method) {
	case BENCH_SYNC_IOCTL:
		return "ioctl";
	case BENCH_SYNC_SYSFS:
		return "sysfs";
	case BENCH_SYNC_IOCTL_PAGES:
		return "ioctl-pages";
	default:
		return "sysfs-attrs";
	}
}

/* The uiomem flags for a direction: the CPU reads what a device wrote, or the reverse. */
static uint32_t bench_uiomem_flags(bool for_device, enum bench_dir dir)
{
	uint32_t rw = dir == BENCH_DIR_TO_DEVICE ? UIOMEM_SYNC_WRITE :
		      dir == BENCH_DIR_FROM_DEVICE ? UIOMEM_SYNC_READ :
		      UIOMEM_SYNC_RW;

	return rw | (for_device ? UIOMEM_SYNC_END : UIOMEM_SYNC_START);
}

static int bench_sync_ioctl(const struct bench_target *t, int fd,
			    bool for_device, uint64_t offset, uint64_t size,
			    enum bench_dir dir)
{
	struct uiomem_sync s = {
		.flags = bench_uiomem_flags(for_device, dir),
		.offset = offset,
		.length = size,
	};
	struct u_dma_buf_ioctl_sync_args args = {
		.flags = (for_device ? BENCH_SYNC_CMD_FOR_DEVICE :
			  BENCH_SYNC_CMD_FOR_CPU) | ((uint64_t)dir << 2),
		.size = size,
		.offset = offset,
	};

	if (t->class == BENCH_UIOMEM)
		return ioctl(fd, UIOMEM_IOCTL_SYNC, &s) ? -errno : 0;
	return ioctl(fd, U_DMA_BUF_IOCTL_SET_SYNC, &args) ? -errno : 0;
}

/* The uiomem driver's own count of syncs, lines maintained and barriers. */
int bench_target_counters(const struct bench_target *t, int fd,
			  struct bench_counters *c)
{
	struct uiomem_query q = { 0 };

	if (t->class != BENCH_UIOMEM || !t->has_ioctl)
		return -EOPNOTSUPP;
	if (ioctl(fd, UIOMEM_IOCTL_QUERY, &q))
		return -errno;
	c->calls = q.sync_calls;
	c->lines = q.sync_lines;
	c->barriers = q.sync_barriers;
	return 0;
}

/* The packed command of both drivers: offset 63:32, size 31:4, dir 3:2, go. */
static int bench_sync_packed(const struct bench_target *t, bool for_device,
			     uint64_t offset, uint64_t size, enum bench_dir dir)
{
	char cmd[32];

	if (offset > 0xffffffffull || size > 0xffffffffull || size % 16)
		return -ERANGE;
	snprintf(cmd, sizeof(cmd), "0x%08" PRIX64 "%08" PRIX64 "\n", offset,
		 size | ((uint64_t)dir << 2) | 1);
	return bench_sysfs_write(t->sys_path,
				 for_device ? "sync_for_device" : "sync_for_cpu",
				 cmd);
}

static int bench_sync_attrs(const struct bench_target *t, bool for_device,
			    uint64_t offset, uint64_t size, enum bench_dir dir)
{
	char val[32];
	int err;

	snprintf(val, sizeof(val), "%" PRIu64, offset);
	err = bench_sysfs_write(t->sys_path, "sync_offset", val);
	if (err)
		return err;
	snprintf(val, sizeof(val), "%" PRIu64, size);
	err = bench_sysfs_write(t->sys_path, "sync_size", val);
	if (err)
		return err;
	snprintf(val, sizeof(val), "%d", dir);
	err = bench_sysfs_write(t->sys_path, "sync_direction", val);
	if (err)
		return err;
	return bench_sysfs_write(t->sys_path,
				 for_device ? "sync_for_device" : "sync_for_cpu",
				 "1");
}

/*
 * The range one page at a time, one ioctl each: how a driver without range
 * syncs (seed 004's IIO buffers before the fix) keeps a large buffer.
 */
static int bench_sync_pages(const struct bench_target *t, int fd, bool for_device,
			    uint64_t offset, uint64_t size, enum bench_dir dir)
{
	uint64_t done, n;
	int err = 0;

	for (done = 0; done < size && !err; done += n) {
		n = size - done < BENCH_SYNC_PAGE ? size - done : BENCH_SYNC_PAGE;
		err = bench_sync_ioctl(t, fd, for_device, offset + done, n, dir);
	}
	return err;
}

int bench_target_sync(const struct bench_target *t, int fd,
		      enum bench_sync_method method, bool for_device,
		      uint64_t offset, uint64_t size, enum bench_dir dir)
{
	if (t->class == BENCH_ANON)
		return 0;
	switch (method) {
	case BENCH_SYNC_IOCTL:
		return bench_sync_ioctl(t, fd, for_device, offset, size, dir);
	case BENCH_SYNC_SYSFS:
		return bench_sync_packed(t, for_device, offset, size, dir);
	case BENCH_SYNC_IOCTL_PAGES:
		return bench_sync_pages(t, fd, for_device, offset, size, dir);
	default:
		return bench_sync_attrs(t, for_device, offset, size, dir);
	}
}

/*
 * Does the sync ioctl answer?  Read-only queries tell without side
 * effects; uiomem's also gives the cache line its syncs maintain.
 */
static bool bench_probe_ioctl(struct bench_target *t)
{
	struct u_dma_buf_ioctl_sync_args args = { 0 };
	struct uiomem_query q = { 0 };
	bool ok = false;
	int fd;

	fd = open(t->dev_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	if (t->class == BENCH_UDMABUF) {
		ok = ioctl(fd, U_DMA_BUF_IOCTL_GET_SYNC, &args) == 0;
	} else if (ioctl(fd, UIOMEM_IOCTL_QUERY, &q) == 0) {
		ok = true;
		t->cache_line = q.cache_line_size;
		t->no_cached = q.flags & UIOMEM_QUERY_NO_CACHE_OPS;
	}
	close(fd);
	return ok;
}

static int bench_target_init(struct bench_target *t, enum bench_class class,
			     const char *name)
{
	char buf[64];
	long long v;

	memset(t, 0, sizeof(*t));
	if (strlen(name) >= sizeof(t->name))
		return -ENAMETOOLONG;
	snprintf(t->name, sizeof(t->name), "%.63s", name);
	t->class = class;
	snprintf(t->dev_path, sizeof(t->dev_path), "/dev/%.63s", name);
	snprintf(t->sys_path, sizeof(t->sys_path), "%s/%.63s",
		 bench_class_dirs[class], name);
	if (bench_target_read_int(t, "size", &v) || v <= 0)
		return -ENODEV;
	t->size = (uint64_t)v;
	t->phys_addr = bench_target_read_int(t, "phys_addr", &v) ? 0 :
		       (uint64_t)v;
	t->dma_coherent = bench_target_read_int(t, "dma_coherent", &v) ? -1 :
			  (int)v;
	t->sync_mode = bench_target_read_int(t, "sync_mode", &v) ? -1 : (int)v;
	t->saved_sync_offset = bench_target_read_int(t, "sync_offset", &v) ?
			       -1 : v;
	t->saved_sync_size = bench_target_read_int(t, "sync_size", &v) ? -1 : v;
	t->saved_sync_direction =
		bench_target_read_int(t, "sync_direction", &v) ? -1 : v;
	if (!bench_sysfs_read(t->sys_path, "driver_version", buf, sizeof(buf)))
		snprintf(t->driver_version, sizeof(t->driver_version), "%.31s",
			 buf);
	t->has_ioctl = bench_probe_ioctl(t);
	return 0;
}

static int bench_name_cmp(const void *a, const void *b)
{
	return strcmp(((const struct bench_target *)a)->name,
		      ((const struct bench_target *)b)->name);
}

static int bench_add_class(struct bench_target **v, int *n, int *cap,
			   enum bench_class class, const char *only)
{
	DIR *d = opendir(bench_class_dirs[class]);
	struct dirent *e;
	int found = 0, first = *n;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct bench_target t;

		if (e->d_name[0] == '.')
			continue;
		if (only && strcmp(only, e->d_name))
			continue;
		if (bench_target_init(&t, class, e->d_name))
			continue;
		if (*n == *cap) {
			struct bench_target *nv;

			*cap = *cap ? *cap * 2 : 8;
			nv = realloc(*v, *cap * sizeof(**v));
			if (!nv) {
				closedir(d);
				return -ENOMEM;
			}
			*v = nv;
		}
		(*v)[(*n)++] = t;
		found++;
	}
	closedir(d);
	qsort(*v + first, *n - first, sizeof(**v), bench_name_cmp);
	return found;
}

/*
 * Every u-dma-buf buffer and uiomem region, or the ones named; "anon"
 * alone selects none (the anonymous reference always runs).
 */
int bench_target_open_all(struct bench_target **out, int *count,
			  char **names, int nnames)
{
	struct bench_target *v = NULL;
	int n = 0, cap = 0, i, r;

	for (i = 0; i < (nnames ? nnames : 1); i++) {
		const char *only = nnames ? names[i] : NULL;

		if (only && !strcmp(only, "anon"))
			continue;
		r = bench_add_class(&v, &n, &cap, BENCH_UDMABUF, only);
		if (r >= 0) {
			int r2 = bench_add_class(&v, &n, &cap, BENCH_UIOMEM,
						 only);

			r = r2 < 0 ? r2 : r + r2;
		}
		if (r < 0) {
			free(v);
			return r;
		}
		if (only && r == 0) {
			fprintf(stderr,
				"udmem bench: %s: no such u-dma-buf buffer or uiomem region\n",
				only);
			free(v);
			return -ENOENT;
		}
	}
	*out = v;
	*count = n;
	return 0;
}

/* The data cache line: libc (CTR_EL0 on arm64), else sysfs, else 64. */
long bench_cache_line(const char **source)
{
	char buf[32];
	long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);

	if (line > 0) {
		*source = "sysconf";
		return line;
	}
	if (!bench_sysfs_read("/sys/devices/system/cpu/cpu0/cache/index0",
			      "coherency_line_size", buf, sizeof(buf))) {
		line = strtol(buf, NULL, 10);
		if (line > 0) {
			*source = "sysfs";
			return line;
		}
	}
	*source = "assumed";
	return 64;
}
