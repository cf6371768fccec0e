// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: fuzz_udmabuf's operations on the buffer a thread owns, each
 * result predicted from the documented rules.
 */
#include "stress.h"

const char *const quirk_opt[] = {
	"", "quirk-mmap-off", "quirk-mmap-on", "quirk-mmap-auto", "quirk-mmap-page",
};

int udb_own_create(struct th *t)
{
	long pg = ut_page();
	char cmd[160], s[32];
	int q = rn(t, 5), err;

	snprintf(t->name, sizeof(t->name), "stress-t%d", t->id);
	t->size = pg * (1 + rn(t, 8)) + (rn(t, 2) ? rn(t, pg) : 0);
	t->maplen = (t->size + pg - 1) / pg * pg;
	snprintf(cmd, sizeof(cmd), "create %s %llu %s\n", t->name,
		 (unsigned long long)t->size, quirk_opt[q]);
	call(t, "manager \"%.*s\"", (int)strlen(cmd) - 1, cmd);
	err = expect(t, mgr_cmd(t->mgr, cmd), 0);
	if (err) {
		t->name[0] = '\0';
		return err;
	}
	t->shadow = calloc(1, t->maplen);
	if (!t->shadow)
		return ENOMEM;
	call(t, "open /dev/%s", t->name);
	err = expect(t, own_open(t, t->name), 0);
	if (err)
		return err;
	t->quirk = ut_sysfs_read(UDB_CLASS, t->name, "quirk_mmap_mode", s, sizeof(s)) ? -1 :
		   atoi(s);
	t->s_off = 0;
	t->s_size = t->size;
	t->s_dir = 0;
	t->s_mode = 1;
	t->owner = 0;
	return 0;
}

static bool udb_sync_active(struct th *t, int fd)
{
	return fd == t->fd_sync || (t->s_mode & 4);
}

/* What a sync command value does to the own buffer: the errno, and the model. */
int udb_sync_predict(struct th *t, bool for_device, uint64_t v, bool writable)
{
	uint64_t off, size;
	unsigned int dir;

	if (v == 0)
		return 0;
	if (v == 1) {
		off = t->s_off;
		size = t->s_size;
		dir = t->s_dir;
	} else {
		off = v >> 32;
		size = v & 0xFFFFFFF0ULL;
		dir = (v >> 2) & 3;
		if (dir == 3)
			dir = 0;
	}
	if (!writable && (for_device ? dir == 2 : dir != 1))
		return EBADF;
	if (!range_ok(off, size, t->size))
		return EINVAL;
	t->owner = for_device;
	return 0;
}

uint64_t gen_sync_value(struct th *t, uint64_t size)
{
	switch (rn(t, 5)) {
	case 0:
		return rn(t, 2);
	case 1:
		return rnd(t);
	default:
		return u_dma_buf_sync_pack((uint32_t)pick(t, size), (uint32_t)pick(t, size),
					   rn(t, 4));
	}
}

void udb_own_rw(struct th *t)
{
	uint8_t buf[8192 + 64];
	uint64_t off = rn(t, 4) ? rn(t, t->size + 1) : pick(t, t->size);
	size_t len = rn(t, 4) ? rn(t, sizeof(buf)) : pick(t, sizeof(buf)) % sizeof(buf);
	int fd = rn(t, 2) ? t->fd : t->fd_sync;
	size_t want = off < t->size ? (size_t)(t->size - off < len ? t->size - off : len) : 0;
	int vfs = vfs_rw_errno(off, len);
	ssize_t r;

	if (vfs) {
		bool rd = rn(t, 2);

		call(t, "%s(len %zu, off %llu)", rd ? "pread" : "pwrite", len,
		     (unsigned long long)off);
		r = rd ? pread(fd, buf, len, off) : pwrite(fd, buf, len, off);
		expect(t, err_of(r), vfs);
		return;
	}
	if (rn(t, 2)) {
		fill_rand(t, buf, len);
		call(t, "pwrite(%s fd, len %zu, off %llu) size %llu", fd == t->fd ? "rw" : "sync",
		     len, (unsigned long long)off, (unsigned long long)t->size);
		r = pwrite(fd, buf, len, off);
		if (!len) {
			expect(t, err_of(r), 0);
		} else if (!want) {
			expect(t, err_of(r), ENOSPC);
		} else if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "wrote %zd bytes, want %zu", r, want);
			else
				memcpy(t->shadow + off, buf, want);
		}
	} else {
		call(t, "pread(%s fd, len %zu, off %llu) size %llu", fd == t->fd ? "rw" : "sync",
		     len, (unsigned long long)off, (unsigned long long)t->size);
		r = pread(fd, buf, len, off);
		if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "read %zd bytes, want %zu", r, want);
			else
				same(t, buf, off, want, "read()");
		}
	}
	if (want && r > 0 && udb_sync_active(t, fd))
		t->owner = 1;
}

/*
 * After a write() that reported done bytes of len at off: the bytes past
 * done must be as they were.  (copy_from_user() zero-fills what it could
 * not copy, so a driver that copies straight into its memory loses them.)
 * The shadow follows the memory afterwards, so that one such write is
 * reported once.
 */
void check_unwritten(struct th *t, uint64_t off, size_t done, size_t len)
{
	size_t i, changed = 0, first = 0;
	uint8_t *buf;

	if (off + len > t->size)
		len = t->size - off;
	buf = malloc(len + 1);
	if (!buf || done >= len || ut_pread_all(t->fd, buf, len, off)) {
		free(buf);
		return;
	}
	for (i = done; i < len; i++) {
		if (buf[i] != t->shadow[off + i]) {
			if (!changed++)
				first = i;
		}
	}
	if (changed) {
		bad(t, "the write reported %zu bytes but changed %zu of the %zu after them "
		    "(byte %llu: 0x%02x became 0x%02x)", done, changed, len - done,
		    (unsigned long long)(off + first), t->shadow[off + first], buf[first]);
		memcpy(t->shadow + off + done, buf + done, len - done);
	}
	free(buf);
}

/* A bad user pointer: EFAULT when bytes would move, else as without it. */
void udb_own_badptr(struct th *t)
{
	uint64_t off = rn(t, t->size + 2);
	size_t len = 1 + rn(t, 64);
	void *volatile bp = rn(t, 2) ? NULL : (void *)16;
	void *p = bp;
	bool inside = off < t->size;
	int fd = rn(t, 2) ? t->fd : t->fd_sync;
	long r;

	if (rn(t, 2)) {
		call(t, "pread(bad pointer %p, len %zu, off %llu) size %llu", p, len,
		     (unsigned long long)off, (unsigned long long)t->size);
		r = pread(fd, p, len, off);
		expect(t, err_of(r), inside ? EFAULT : 0);
	} else {
		call(t, "pwrite(bad pointer %p, len %zu, off %llu) size %llu", p, len,
		     (unsigned long long)off, (unsigned long long)t->size);
		r = pwrite(fd, p, len, off);
		expect(t, err_of(r), inside ? EFAULT : ENOSPC);
		if (r < 0 && errno == EFAULT)
			check_unwritten(t, off, 0, len);
	}
	if (inside && udb_sync_active(t, fd))
		t->owner = 1;
}

void udb_own_ioctl(struct th *t)
{
	struct u_dma_buf_ioctl_drv_info drv;
	struct u_dma_buf_ioctl_dev_info dev;
	struct u_dma_buf_ioctl_sync_args sa;
	uint64_t v;
	uint32_t o32;
	bool ro = !rn(t, 3);
	int fd = ro ? t->fd_ro : t->fd, err, want, kind = rn(t, 10);
	long r;

	switch (kind) {
	case 0:
		call(t, "GET_DRV_INFO");
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_DRV_INFO, &drv);
		if (!expect(t, err_of(r), 0) && GET_U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION(&drv) != 2)
			bad(t, "ioctl version %d", GET_U_DMA_BUF_IOCTL_FLAGS_IOCTL_VERSION(&drv));
		break;
	case 1:
		call(t, "GET_SIZE");
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_SIZE, &v);
		if (!expect(t, err_of(r), 0) && v != t->size)
			bad(t, "size %llu, want %llu", (unsigned long long)v,
			    (unsigned long long)t->size);
		break;
	case 2:
		call(t, "GET_DEV_INFO");
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_DEV_INFO, &dev);
		if (!expect(t, err_of(r), 0) &&
		    (dev.size != t->size ||
		     (t->quirk > 0 && GET_U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE(&dev) != t->quirk)))
			bad(t, "size %llu mode %d, want %llu %d", (unsigned long long)dev.size,
			    GET_U_DMA_BUF_IOCTL_FLAGS_MMAP_MODE(&dev),
			    (unsigned long long)t->size, t->quirk);
		break;
	case 3:
		call(t, "GET_SYNC (model: off %llu size %llu dir %u mode %u owner %u)",
		     (unsigned long long)t->s_off, (unsigned long long)t->s_size, t->s_dir,
		     t->s_mode, t->owner);
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_SYNC, &sa);
		if (!expect(t, err_of(r), 0) &&
		    (sa.offset != t->s_off || sa.size != t->s_size ||
		     GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&sa) != (int)t->s_dir ||
		     GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&sa) != (int)t->s_mode ||
		     GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER(&sa) != (int)t->owner))
			bad(t, "got off %llu size %llu dir %d mode %d owner %d",
			    (unsigned long long)sa.offset, (unsigned long long)sa.size,
			    GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_DIR(&sa),
			    GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_MODE(&sa),
			    GET_U_DMA_BUF_IOCTL_FLAGS_SYNC_OWNER(&sa));
		break;
	case 4:
		call(t, "GET_SYNC_OWNER (model %u)", t->owner);
		r = ioctl(fd, U_DMA_BUF_IOCTL_GET_SYNC_OWNER, &o32);
		if (!expect(t, err_of(r), 0) && o32 != t->owner)
			bad(t, "owner %u, want %u", o32, t->owner);
		break;
	case 5:
	case 6:
		v = gen_sync_value(t, t->size);
		call(t, "SET_SYNC_FOR_%s(%#llx) on %s fd, size %llu, stored %llu+%llu dir %u",
		     kind == 6 ? "DEVICE" : "CPU", (unsigned long long)v, ro ? "RO" : "RW",
		     (unsigned long long)t->size, (unsigned long long)t->s_off,
		     (unsigned long long)t->s_size, t->s_dir);
		want = udb_sync_predict(t, kind == 6, v, !ro);
		r = ioctl(fd, kind == 6 ? U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE :
			  U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, &v);
		expect(t, err_of(r), want);
		break;
	case 7: {
		unsigned int cmd = rn(t, 4), dir = rn(t, 4);
		unsigned int mode = rn(t, 3) ? rn(t, 8) : rn(t, 256);
		unsigned int edir = dir == 3 ? t->s_dir : dir;

		memset(&sa, 0, sizeof(sa));
		sa.flags = cmd | dir << 2 | (uint64_t)mode << 8 | (rn(t, 4) ? 0 : rnd(t) << 17);
		sa.offset = pick(t, t->size);
		sa.size = rn(t, 4) ? pick(t, t->size) : 0;
		call(t, "SET_SYNC(flags %#llx off %llu size %llu) on %s fd, buffer size %llu",
		     (unsigned long long)sa.flags, (unsigned long long)sa.offset,
		     (unsigned long long)sa.size, ro ? "RO" : "RW", (unsigned long long)t->size);
		want = 0;
		if (mode > 7) {
			want = EINVAL;
		} else if (ro && mode && mode != t->s_mode) {
			want = EBADF;	/* a new sync mode is a write */
		} else if ((cmd == 1 || cmd == 3) && ro &&
			   (cmd == 3 ? edir == 2 : edir != 1)) {
			want = EBADF;
		} else {
			t->s_dir = edir;
			if (mode)
				t->s_mode = mode;
			t->s_off = sa.offset;
			if (sa.size)
				t->s_size = sa.size;
			if (cmd == 1 || cmd == 3)
				want = udb_sync_predict(t, cmd == 3, 1, !ro);
		}
		r = ioctl(fd, U_DMA_BUF_IOCTL_SET_SYNC, &sa);
		expect(t, err_of(r), want);
		break;
	}
	case 8: {	/* a bad pointer */
		static const unsigned long cmds[] = {
			U_DMA_BUF_IOCTL_GET_DRV_INFO, U_DMA_BUF_IOCTL_GET_SIZE,
			U_DMA_BUF_IOCTL_GET_DMA_ADDR, U_DMA_BUF_IOCTL_GET_SYNC_OWNER,
			U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE,
			U_DMA_BUF_IOCTL_GET_DEV_INFO, U_DMA_BUF_IOCTL_GET_SYNC,
			U_DMA_BUF_IOCTL_SET_SYNC, U_DMA_BUF_IOCTL_EXPORT,
		};
		unsigned long c = cmds[rn(t, 10)];

		call(t, "ioctl(%#lx, NULL)", c);
		r = ioctl(fd, c, NULL);
		expect(t, err_of(r), EFAULT);
		break;
	}
	default: {	/* an unknown command on our magic or uiomem's */
		unsigned int c;

		static const unsigned int known[] = {
			U_DMA_BUF_IOCTL_GET_DRV_INFO, U_DMA_BUF_IOCTL_GET_SIZE,
			U_DMA_BUF_IOCTL_GET_DMA_ADDR, U_DMA_BUF_IOCTL_GET_SYNC_OWNER,
			U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE,
			U_DMA_BUF_IOCTL_GET_DEV_INFO, U_DMA_BUF_IOCTL_GET_SYNC,
			U_DMA_BUF_IOCTL_SET_SYNC, U_DMA_BUF_IOCTL_EXPORT,
			U_DMA_BUF_IOCTL_IMPORT, U_DMA_BUF_IOCTL_IMPORT_SYNC,
		};

		do {
			c = _IOC(rn(t, 4), rn(t, 2) ? 'U' : 'u', rn(t, 256), rn(t, 64));
		} while (ioctl_known(c, known, ARRAY_SIZE(known)));
		call(t, "ioctl(unknown %#x)", c);
		r = ioctl(fd, c, &v);
		expect(t, err_of(r), ENOTTY);
		break;
	}
	}
	(void)err;
}

/* DMA_BUF_IOCTL_SYNC with valid or bad flags. */
void dmabuf_sync(struct th *t, int dfd, uint64_t set)
{
	struct dma_buf_sync s;
	bool good = rn(t, 3);
	int err;

	s.flags = good ? (rn(t, 2) ? DMA_BUF_SYNC_END : DMA_BUF_SYNC_START) | (1 + rn(t, 3)) :
		  rnd(t);
	if (!good && !(s.flags & ~DMA_BUF_SYNC_VALID_FLAGS_MASK) &&
	    (s.flags & DMA_BUF_SYNC_RW))
		good = true;
	call(t, "DMA_BUF_IOCTL_SYNC(flags %#llx)", (unsigned long long)s.flags);
	err = ioctl(dfd, DMA_BUF_IOCTL_SYNC, &s) ? errno : 0;
	if (set)
		allow(t, err, set | B(EINVAL));
	else
		expect(t, err, good ? 0 : EINVAL);
}

void udb_own_export(struct th *t)
{
	long pg = ut_page();
	struct u_dma_buf_ioctl_export_args ea;
	static const uint64_t junk[] = {
		O_NONBLOCK, O_APPEND, 1ULL << 32, 1ULL << 63, O_CREAT, O_TRUNC,
	};
	bool ro = !rn(t, 3);
	uint64_t acc = rn(t, 8) ? rn(t, 3) : 3;
	int want = 0, err;
	long r;

	memset(&ea, 0, sizeof(ea));
	ea.flags = acc | (rn(t, 2) ? O_CLOEXEC : 0) | (rn(t, 2) ? O_SYNC : 0);
	if (!rn(t, 8))
		ea.flags |= junk[rn(t, 6)];
	ea.offset = rn(t, 3) ? rn(t, t->maplen / pg + 1) * pg : pick(t, t->size);
	ea.size = rn(t, 3) ? (1 + rn(t, t->maplen / pg)) * pg : pick(t, t->size);
	ea.fd = -1;
	if (ea.flags & ~(uint64_t)(O_CLOEXEC | O_SYNC | O_ACCMODE))
		want = EINVAL;
	else if (acc == 3)
		want = EINVAL;
	else if (acc != O_RDONLY && ro)
		want = EACCES;
	else if (!ea.size || ea.offset % pg || ea.size % pg ||
		 !range_ok(ea.offset, ea.size, t->size))
		want = EINVAL;
	call(t, "EXPORT(flags %#llx off %llu size %llu) on %s fd, buffer size %llu",
	     (unsigned long long)ea.flags, (unsigned long long)ea.offset,
	     (unsigned long long)ea.size, ro ? "RO" : "RW", (unsigned long long)t->size);
	r = ioctl(ro ? t->fd_ro : t->fd, U_DMA_BUF_IOCTL_EXPORT, &ea);
	err = err_of(r);
	if (want == 0 && err == ENOMEM)
		return;		/* documented for allocations; nothing to check */
	if (expect(t, err, want) || want)
		return;
	if (ea.fd < 0) {
		bad(t, "export gave fd %d", ea.fd);
		return;
	}
	/* a write-only dma-buf cannot be mapped */
	if (acc == O_WRONLY) {
		uint8_t *p;

		call(t, "mmap of a write-only dma-buf");
		p = mmap(NULL, ea.size, PROT_READ | PROT_WRITE, MAP_SHARED, ea.fd, 0);
		if (p != MAP_FAILED) {
			bad(t, "succeeded");
			munmap(p, ea.size);
		} else {
			expect(t, errno, EACCES);
		}
	} else if (rn(t, 4)) {
		/* map the dma-buf: the range's bytes are the buffer's */
		bool w = acc != O_RDONLY && rn(t, 2);
		uint8_t *p;

		call(t, "mmap of the dma-buf (off %llu size %llu, %s)",
		     (unsigned long long)ea.offset, (unsigned long long)ea.size, w ? "RW" : "R");
		p = mmap(NULL, ea.size, w ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, ea.fd,
			 0);
		if (!expect(t, p == MAP_FAILED ? errno : 0, 0)) {
			same(t, p, ea.offset, ea.size, "dma-buf mmap");
			if (w) {
				uint64_t o = rn(t, ea.size), l = 1 + rn(t, ea.size - o);

				fill_rand(t, t->shadow + ea.offset + o, l);
				poke(p + o, t->shadow + ea.offset + o, l);
			}
			munmap(p, ea.size);
		}
		if (!w && acc == O_RDONLY) {
			call(t, "writable mmap of a read-only dma-buf");
			p = mmap(NULL, ea.size, PROT_READ | PROT_WRITE, MAP_SHARED, ea.fd, 0);
			if (p != MAP_FAILED) {
				bad(t, "succeeded");
				munmap(p, ea.size);
			} else {
				expect(t, errno, EACCES);
			}
		}
		call(t, "MAP_PRIVATE mmap of a dma-buf");
		p = mmap(NULL, ea.size, PROT_READ, MAP_PRIVATE, ea.fd, 0);
		if (p != MAP_FAILED) {
			bad(t, "succeeded");
			munmap(p, ea.size);
		} else {
			expect(t, errno, EINVAL);
		}
		call(t, "mmap of a dma-buf past its end");
		p = mmap(NULL, ea.size + pg, PROT_READ, MAP_SHARED, ea.fd, 0);
		if (p != MAP_FAILED) {
			bad(t, "succeeded");
			munmap(p, ea.size + pg);
		} else {
			expect(t, errno, EINVAL);
		}
	}
	/* an invalidating sync of a read-only export is EBADF */
	dmabuf_sync(t, ea.fd, acc == O_RDONLY ? B(EBADF) : 0);
	close(ea.fd);
}
