// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: the fuzz operations u-dma-buf and uiomem share: on the object a
 * thread owns (seek, mmap, sysfs) and on shared ones (open, bind, rmmod).
 */
#include "stress.h"

int own_open(struct th *t, const char *dev)
{
	char path[128];

	snprintf(path, sizeof(path), "/dev/%s", dev);
	t->fd = open(path, O_RDWR);
	t->fd_ro = open(path, O_RDONLY);
	t->fd_sync = open(path, O_RDWR | O_SYNC);
	if (t->fd < 0 || t->fd_ro < 0 || t->fd_sync < 0)
		return errno;
	t->pos = 0;
	return 0;
}

void own_close(struct th *t)
{
	if (t->fd >= 0)
		close(t->fd);
	if (t->fd_ro >= 0)
		close(t->fd_ro);
	if (t->fd_sync >= 0)
		close(t->fd_sync);
	t->fd = -1;
	t->fd_ro = -1;
	t->fd_sync = -1;
}

/* llseek then read/write at the file position; whence 0..5. */
void own_seek(struct th *t, bool uiomem)
{
	int whence = rn(t, 6);
	int64_t offset = (int64_t)(rn(t, 3) ? rn(t, t->size + 2) - rn(t, t->size + 2) :
				   pick(t, t->size));
	int64_t base = 0, pos;
	int want = 0;
	off_t r;

	switch (whence) {
	case SEEK_SET:
		base = 0;
		break;
	case SEEK_CUR:
		base = t->pos;
		break;
	case SEEK_END:
		base = t->size;
		break;
	case SEEK_DATA:
	case SEEK_HOLE:
		base = 0;
		break;
	default:
		want = EINVAL;
		break;
	}
	pos = 0;
	if (!want && __builtin_add_overflow(base, offset, &pos))
		want = EINVAL;
	/* neither driver has holes: SEEK_DATA and SEEK_HOLE are EINVAL */
	if (whence == SEEK_DATA || whence == SEEK_HOLE)
		want = EINVAL;
	if (!want && (pos < 0 || (uint64_t)pos > t->size))
		want = EINVAL;
	call(t, "lseek(off %lld, whence %d) pos %lld size %llu", (long long)offset, whence,
	     (long long)t->pos, (unsigned long long)t->size);
	r = lseek(t->fd, offset, whence);
	if (expect(t, err_of(r), want) || want) {
		if (r >= 0)
			t->pos = r;
		return;
	}
	if (r != pos)
		bad(t, "lseek returned %lld, want %lld", (long long)r, (long long)pos);
	t->pos = r;
	/* read or write at the file position, which then moves */
	{
		uint8_t buf[512];
		size_t len = rn(t, sizeof(buf));
		size_t n = (uint64_t)t->pos < t->size ?
			   (t->size - t->pos < len ? t->size - t->pos : len) : 0;
		ssize_t k;

		if (rn(t, 2)) {
			call(t, "read(len %zu) at pos %lld size %llu", len, (long long)t->pos,
			     (unsigned long long)t->size);
			k = read(t->fd, buf, len);
			if (!expect(t, err_of(k), 0)) {
				if ((size_t)k != n)
					bad(t, "read %zd, want %zu", k, n);
				else
					same(t, buf, t->pos, n, "read() at the file position");
				t->pos += k;
			}
		} else {
			fill_rand(t, buf, len);
			call(t, "write(len %zu) at pos %lld size %llu", len, (long long)t->pos,
			     (unsigned long long)t->size);
			k = write(t->fd, buf, len);
			if (!expect(t, err_of(k), len && !n ? ENOSPC : 0)) {
				if ((size_t)k != (len ? n : 0))
					bad(t, "wrote %zd, want %zu", k, n);
				else
					memcpy(t->shadow + t->pos, buf, k);
				t->pos += k;
			}
		}
		if (n && (uiomem || (t->s_mode & 4)))
			t->owner = 1;
	}
}

/* Map (all or part), compare with the shadow, write through it, madvise. */
void own_mmap(struct th *t, bool uiomem)
{
	long pg = ut_page();
	uint64_t pages = t->maplen / pg;
	uint64_t first = rn(t, 2) ? 0 : rn(t, pages);
	uint64_t n = first ? 1 + rn(t, pages - first) : pages;
	size_t len = n * pg;
	bool ro = !rn(t, 4);
	int fd = ro ? t->fd_ro : (rn(t, 2) ? t->fd : t->fd_sync);
	uint64_t vis, off, wl;
	uint8_t *p;
	static const int advice[] = {
		MADV_DONTNEED, MADV_WILLNEED, MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL,
		MADV_DONTFORK, MADV_DOFORK, MADV_DONTDUMP, MADV_DODUMP,
	};

	call(t, "mmap(len %zu, prot %s, MAP_SHARED, off %llu) size %llu", len, ro ? "R" : "RW",
	     (unsigned long long)(first * pg), (unsigned long long)t->size);
	p = mmap(NULL, len, ro ? PROT_READ : PROT_READ | PROT_WRITE, MAP_SHARED, fd, first * pg);
	if (expect(t, p == MAP_FAILED ? errno : 0, 0))
		return;
	/* bytes of the mapping that read() reaches */
	vis = first * pg < t->size ? t->size - first * pg : 0;
	if (vis > len)
		vis = len;
	same(t, p, first * pg, vis, "mmap");
	if (!ro && vis) {
		off = rn(t, vis);
		wl = 1 + rn(t, vis - off);
		fill_rand(t, t->shadow + first * pg + off, wl);
		poke(p + off, t->shadow + first * pg + off, wl);
	}
	if (rn(t, 2)) {
		int a = advice[rn(t, ARRAY_SIZE(advice))];
		uint64_t ap = rn(t, n), an = 1 + rn(t, n - ap);
		int err;

		call(t, "madvise(page %llu, %llu pages, advice %d) of a mapping of %s",
		     (unsigned long long)ap, (unsigned long long)an, a, t->name);
		err = madvise(p + ap * pg, an * pg, a) ? errno : 0;
		/* the kernel refuses some advice on VM_PFNMAP/VM_IO mappings */
		allow(t, err, B(EINVAL));
		same(t, p, first * pg, vis, "mmap after madvise");
	}
	/* the file reads what the mapping wrote */
	if (vis) {
		uint8_t buf[4096];
		uint64_t o = rn(t, vis);
		size_t l = vis - o < sizeof(buf) ? vis - o : sizeof(buf);
		ssize_t r;

		call(t, "pread(len %zu, off %llu) after a mapping wrote", l,
		     (unsigned long long)(first * pg + o));
		r = pread(t->fd, buf, l, first * pg + o);
		if (!expect(t, err_of(r), 0) && (size_t)r == l)
			same(t, buf, first * pg + o, l, "read() of mapped data");
		if (l && (uiomem || (t->s_mode & 4)))
			t->owner = 1;
	}
	munmap(p, len);
}

/* mmap() calls that must fail, with the errno the rules give. */
void own_mmap_bad(struct th *t, bool uiomem)
{
	long pg = ut_page();
	uint64_t pages = t->maplen / pg;
	int kind = rn(t, 6), want, prot = PROT_READ, flags = MAP_SHARED, fd = t->fd;
	uint64_t off = 0;
	size_t len = t->maplen;
	uint64_t allowed = 0;
	void *p;

	switch (kind) {
	case 0:		/* MAP_PRIVATE is refused */
		flags = MAP_PRIVATE;
		prot |= rn(t, 2) ? PROT_WRITE : 0;
		want = EINVAL;
		break;
	case 1:		/* past the end */
		off = rn(t, pages + 2) * pg;
		len = (pages + 1 - (off / pg < pages ? off / pg : pages)) * pg;
		want = uiomem ? ENXIO : EINVAL;
		break;
	case 2:		/* writable shared mapping of a read-only file */
		fd = t->fd_ro;
		prot |= PROT_WRITE;
		want = EACCES;
		break;
	case 3:		/* unaligned offset */
		off = 1 + rn(t, pg - 1);
		want = EINVAL;
		break;
	case 4:		/* zero length */
		len = 0;
		want = EINVAL;
		break;
	default:	/* wild offset and length: refused, by the kernel or the driver */
		off = pick(t, t->maplen) & ~(uint64_t)(pg - 1);
		if (off < t->maplen)
			off += t->maplen;
		if (off > (uint64_t)INT64_MAX)
			off = (uint64_t)INT64_MAX & ~(uint64_t)(pg - 1);
		len = (size_t)(pick(t, t->maplen) | 1);
		want = -1;
		allowed = B(EINVAL) | B(ENOMEM) | B(EOVERFLOW) | (uiomem ? B(ENXIO) : 0);
		break;
	}
	call(t, "mmap(len %zu, prot %d, flags %#x, off %llu) on %s fd, size %llu (case %d)", len,
	     prot, flags, (unsigned long long)off, fd == t->fd_ro ? "RO" : "RW",
	     (unsigned long long)t->size, kind);
	p = mmap(NULL, len, prot, flags, fd, off);
	if (p != MAP_FAILED) {
		bad(t, "mmap succeeded");
		munmap(p, len);
		return;
	}
	if (want < 0)
		allow(t, errno, allowed);
	else
		expect(t, errno, want);
}

void own_sysfs(struct th *t, bool uiomem)
{
	static const char *const attrs[] = {
		"sync_mode", "sync_offset", "sync_size", "sync_direction",
		"sync_for_cpu", "sync_for_device",
	};
	const char *class = uiomem ? UIO_CLASS : UDB_CLASS;
	int a = rn(t, 6), perr, err, want = 0;
	uint64_t v, hint;
	char s[80];

	switch (a) {
	case 0:
		hint = rn(t, 10);
		break;
	case 3:
		hint = rn(t, 4);
		break;
	case 4:
	case 5:
		hint = gen_sync_value(t, t->size);
		break;
	default:
		hint = pick(t, t->size);
		break;
	}
	gen_num(t, hint, s, sizeof(s), &perr, &v);
	switch (a) {
	case 0:		/* sync_mode: 0..7, else EINVAL (both ABI files say so) */
		want = perr || v > 7 ? EINVAL : 0;
		if (!want)
			t->s_mode = v;
		break;
	case 1:		/* sync_offset: any u64 */
	case 2:		/* sync_size: any u64 (uiomem: up to SIZE_MAX) */
		want = perr;
		if (!want && a == 2 && uiomem && v > kernel_size_max())
			want = EINVAL;
		if (!want) {
			if (a == 1)
				t->s_off = v;
			else
				t->s_size = v;
		}
		break;
	case 3:		/* sync_direction: 0..2, else EINVAL */
		want = perr || v > 2 ? EINVAL : 0;
		if (!want)
			t->s_dir = v;
		break;
	default:	/* sync_for_cpu / sync_for_device: a sync command */
		want = perr;
		if (!want) {
			if (uiomem) {
				uint64_t o = t->s_off, z = t->s_size;

				if (v > 1) {
					o = v >> 32;
					z = v & 0xFFFFFFF0ULL;
				}
				want = v && !range_ok(o, z, t->size) ? EINVAL : 0;
				if (v && !want)
					t->owner = a == 5;
			} else {
				want = udb_sync_predict(t, a == 5, v, true);
			}
		}
		break;
	}
	call(t, "write \"%.*s\" to %s/%s (size %llu, stored off %llu size %llu)",
	     (int)strcspn(s, "\n"), s, t->name, attrs[a], (unsigned long long)t->size,
	     (unsigned long long)t->s_off, (unsigned long long)t->s_size);
	err = -ut_sysfs_write(class, t->name, attrs[a], s);
	if (perr == ERANGE && (a == 1 || a == 2 || a >= 4)) {
		/* past 64 bits: the ABI files name no errno; kstrto* gives ERANGE */
		allow(t, err, B(ERANGE) | B(EINVAL));
		return;
	}
	expect(t, err, want);
}

struct udb_shared g_us = { .lock = PTHREAD_MUTEX_INITIALIZER,
			   .idlock = PTHREAD_MUTEX_INITIALIZER };

static void note_pdev(const char *pdev)
{
	int i;

	pthread_mutex_lock(&g_us.lock);
	for (i = 0; i < g_us.npdev; i++)
		if (!strcmp(g_us.pdev[i], pdev))
			break;
	if (i == g_us.npdev && g_us.npdev < MAX_PDEVS)
		snprintf(g_us.pdev[g_us.npdev++], sizeof(g_us.pdev[0]), "%s", pdev);
	pthread_mutex_unlock(&g_us.lock);
}

/* Take one unbound device off the list ("" when there is none). */
static void take_pdev(struct th *t, char *out, size_t len)
{
	int i;

	out[0] = '\0';
	pthread_mutex_lock(&g_us.lock);
	if (g_us.npdev) {
		i = rn(t, g_us.npdev);
		snprintf(out, len, "%s", g_us.pdev[i]);
		g_us.npdev--;
		memmove(g_us.pdev[i], g_us.pdev[g_us.npdev], sizeof(g_us.pdev[0]));
	}
	pthread_mutex_unlock(&g_us.lock);
}

void stash_drop(struct stash *s)
{
	if (s->map != MAP_FAILED && s->map)
		munmap(s->map, s->maplen);
	if (s->dfd >= 0)
		close(s->dfd);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->dfd = -1;
	s->map = MAP_FAILED;
}

void stash_init(struct th *t)
{
	int i;

	for (i = 0; i < NSTASH; i++) {
		t->st[i].fd = -1;
		t->st[i].dfd = -1;
		t->st[i].map = MAP_FAILED;
	}
}

void shared_open(struct th *t, bool uiomem, const char *name)
{
	static const int modes[] = { O_RDWR, O_RDONLY, O_RDWR | O_SYNC, O_WRONLY };
	struct stash *s = &t->st[rn(t, NSTASH)];
	int m = modes[rn(t, 4)];
	char path[128];

	stash_drop(s);
	snprintf(path, sizeof(path), "/dev/%s", name);
	call(t, "open(%s, %#x)", path, m);
	s->fd = open(path, m);
	/* gone: no node (ENOENT), or a node whose buffer/region went away */
	allow(t, s->fd < 0 ? errno : 0, B(ENOENT) | B(ENODEV) | (uiomem ? B(ENXIO) : 0));
	s->ro = (m & O_ACCMODE) == O_RDONLY;
}

/*
 * Unbind or bind pdev.  u-dma-buf: unbind the current device of a shared
 * name (pdev NULL), or bind one unbound before; a device number freed by a
 * delete is reused at once, so a name noted long ago may be somebody else's.
 */
void shared_bind(struct th *t, bool uiomem, const char *pdev)
{
	const char *drv = uiomem ? UIO_DRV : UDB_DRV;
	char path[128], name[32], dev[64];
	int err;

	if (!uiomem) {
		if (rn(t, 2)) {
			snprintf(name, sizeof(name), "stress-sh%d", (int)rn(t, NSHARED));
			pthread_mutex_lock(&g_us.idlock);
			if (pdev_of(UDB_CLASS, name, dev, sizeof(dev)) ||
			    strncmp(dev, "u-dma-buf.", 10)) {
				pthread_mutex_unlock(&g_us.idlock);
				return;
			}
			call(t, "unbind %s (%s)", dev, name);
			err = allow(t, write_str(UDB_DRV "/unbind", dev), B(ENODEV));
			pthread_mutex_unlock(&g_us.idlock);
			if (!err) {
				atomic_fetch_add(&g_us.unbinds, 1);
				note_pdev(dev);
			}
			return;
		}
		take_pdev(t, dev, sizeof(dev));
		if (!dev[0])
			return;
		pdev = dev;
		snprintf(path, sizeof(path), "%s/bind", drv);
		call(t, "bind %s", pdev);
		/* EAGAIN: the driver core's answer when the bind races a removal */
		err = allow(t, write_str(path, pdev),
			    B(ENODEV) | B(EBUSY) | B(ENOMEM) | B(EEXIST) | B(EAGAIN));
		if (!err)
			atomic_fetch_add(&g_us.binds, 1);
		return;
	}
	if (rn(t, 2)) {
		snprintf(path, sizeof(path), "%s/unbind", drv);
		call(t, "unbind %s", pdev);
		err = allow(t, write_str(path, pdev), B(ENODEV));
		if (!err)
			atomic_fetch_add(&g_us.unbinds, 1);
	} else {
		snprintf(path, sizeof(path), "%s/bind", drv);
		call(t, "bind %s", pdev);
		/* already bound or gone: ENODEV; the name taken meanwhile: EEXIST */
		err = allow(t, write_str(path, pdev),
			    B(ENODEV) | B(EBUSY) | B(ENOMEM) | (uiomem ? 0 : B(EEXIST)));
		if (!err)
			atomic_fetch_add(&g_us.binds, 1);
	}
}

void rmmod_attempt(struct th *t, const char *mod)
{
	int err;

	call(t, "delete_module(%s, O_NONBLOCK) while in use", mod);
	err = delete_module(mod);
	atomic_fetch_add(&g_us.rmmods, 1);
	if (!err)
		bad(t, "the module was unloaded while in use");
	else
		allow(t, err, B(EBUSY) | B(EAGAIN));
}
