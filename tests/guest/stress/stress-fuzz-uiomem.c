// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: fuzz_uiomem: the same on uiomem regions.
 */
#include "stress.h"

char g_regions[MAX_THREADS + 1][32];
int g_nregions;

int regions_init(void)
{
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", ut_env("STRESS_UIOMEM", ""));
	g_nregions = 0;
	for (tok = strtok_r(buf, " ", &save); tok && g_nregions <= MAX_THREADS;
	     tok = strtok_r(NULL, " ", &save))
		snprintf(g_regions[g_nregions++], sizeof(g_regions[0]), "%s", tok);
	return g_nregions;
}

static int uio_own_init(struct th *t, const char *name)
{
	uint64_t v;
	int err;

	snprintf(t->name, sizeof(t->name), "%s", name);
	call(t, "open /dev/%s", name);
	err = expect(t, own_open(t, name), 0);
	if (err)
		return err;
	if (ut_sysfs_u64(UIO_CLASS, name, "size", 0, &t->size))
		return EIO;
	t->maplen = t->size;
	t->shadow = malloc(t->size);
	if (!t->shadow)
		return ENOMEM;
	/* a known content first */
	fill_rand(t, t->shadow, t->size);
	call(t, "pwrite of the whole region");
	err = expect(t, -ut_pwrite_all(t->fd, t->shadow, t->size, 0), 0);
	ut_sysfs_u64(UIO_CLASS, name, "sync_offset", 0, &t->s_off);
	ut_sysfs_u64(UIO_CLASS, name, "sync_size", 0, &t->s_size);
	ut_sysfs_u64(UIO_CLASS, name, "sync_direction", 0, &v);
	t->s_dir = v;
	ut_sysfs_u64(UIO_CLASS, name, "sync_mode", 0, &v);
	t->s_mode = v;
	t->owner = 1;
	return err;
}

static void uio_own_rw(struct th *t)
{
	uint8_t buf[8192 + 64];
	uint64_t off = rn(t, 4) ? rn(t, t->size + 1) : pick(t, t->size);
	size_t len = rn(t, 4) ? rn(t, sizeof(buf)) : pick(t, sizeof(buf)) % sizeof(buf);
	size_t want;
	bool bad_ptr = !rn(t, 10);
	int fd = rn(t, 2) ? t->fd : t->fd_sync;
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
	want = off < t->size ? (size_t)(t->size - off < len ? t->size - off : len) : 0;
	if (rn(t, 2)) {
		fill_rand(t, buf, len);
		call(t, "pwrite(len %zu, off %llu%s) size %llu", len, (unsigned long long)off,
		     bad_ptr ? ", NULL" : "", (unsigned long long)t->size);
		r = pwrite(fd, bad_ptr ? NULL : buf, len, off);
		if (!len) {
			expect(t, err_of(r), 0);
		} else if (!want) {
			expect(t, err_of(r), ENOSPC);
		} else if (bad_ptr) {
			expect(t, err_of(r), EFAULT);
			if (r < 0 && errno == EFAULT)
				check_unwritten(t, off, 0, len);
		} else if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "wrote %zd bytes, want %zu", r, want);
			else
				memcpy(t->shadow + off, buf, want);
		}
	} else {
		call(t, "pread(len %zu, off %llu%s) size %llu", len, (unsigned long long)off,
		     bad_ptr ? ", NULL" : "", (unsigned long long)t->size);
		r = pread(fd, bad_ptr ? NULL : buf, len, off);
		if (bad_ptr && want) {
			expect(t, err_of(r), EFAULT);
		} else if (!expect(t, err_of(r), 0)) {
			if ((size_t)r != want)
				bad(t, "read %zd bytes, want %zu", r, want);
			else
				same(t, buf, off, want, "read()");
		}
	}
	if (want)
		t->owner = 1;
}

static int uio_query(struct th *t, int fd, struct uiomem_query *q)
{
	memset(q, 0xa5, sizeof(*q));
	return ioctl(fd, UIOMEM_IOCTL_QUERY, q) ? errno : 0;
}

static void uio_own_ioctl(struct th *t)
{
	struct uiomem_query q0, q1;
	struct uiomem_sync s;
	bool sfd = !rn(t, 3);
	int fd = sfd ? t->fd_sync : (rn(t, 2) ? t->fd : t->fd_ro), kind = rn(t, 5), want;
	long r;

	call(t, "QUERY on %s", t->name);
	if (expect(t, uio_query(t, fd, &q0), 0))
		return;
	if (q0.size != t->size || q0.abi_version != UIOMEM_ABI_VERSION || q0.map_type > 3 ||
	    q0.sync_mode != t->s_mode || !(q0.flags & UIOMEM_QUERY_O_SYNC) != !sfd ||
	    q0.reserved[0] || q0.reserved[1] || q0.reserved[2] || q0.reserved[3] || q0.__pad)
		bad(t, "query: size %llu abi %u map_type %u sync_mode %u (want %u) flags %#x",
		    (unsigned long long)q0.size, q0.abi_version, q0.map_type, q0.sync_mode,
		    t->s_mode, q0.flags);
	switch (kind) {
	case 0:
	case 1:
	case 2:
		memset(&s, 0, sizeof(s));
		s.flags = rn(t, 4) ? (rn(t, 2) ? UIOMEM_SYNC_END : 0) | rn(t, 4) : rnd(t);
		if (!rn(t, 8))
			s.__pad = 1;
		if (!rn(t, 8))
			s.reserved[rn(t, 2)] = rnd(t) | 1;
		s.offset = pick(t, t->size);
		s.length = pick(t, t->size);
		/*
		 * The driver's order: malformed flags and fields, then a sync
		 * that may discard lines (START with READ, END|READ) on a file
		 * not open for writing, then the range.
		 */
		if ((s.flags & ~UIOMEM_SYNC_VALID_FLAGS) || !(s.flags & UIOMEM_SYNC_RW) ||
		    s.__pad || s.reserved[0] || s.reserved[1])
			want = EINVAL;
		else if (fd == t->fd_ro && (s.flags & UIOMEM_SYNC_READ) &&
			 (!(s.flags & UIOMEM_SYNC_END) ||
			  (s.flags & UIOMEM_SYNC_RW) == UIOMEM_SYNC_READ))
			want = EBADF;
		else
			want = !range_ok(s.offset, s.length, t->size) ? EINVAL : 0;
		call(t, "SYNC(flags %#x pad %u off %llu len %llu res %#llx %#llx) size %llu",
		     s.flags, s.__pad, (unsigned long long)s.offset, (unsigned long long)s.length,
		     (unsigned long long)s.reserved[0], (unsigned long long)s.reserved[1],
		     (unsigned long long)t->size);
		r = ioctl(fd, UIOMEM_IOCTL_SYNC, &s);
		if (!expect(t, err_of(r), want) && !want)
			t->owner = !!(s.flags & UIOMEM_SYNC_END);
		call(t, "QUERY after a SYNC that gave %s", ename(want));
		if (!expect(t, uio_query(t, fd, &q1), 0) &&
		    q1.sync_calls != q0.sync_calls + (want ? 0 : 1))
			bad(t, "sync_calls went from %llu to %llu",
			    (unsigned long long)q0.sync_calls, (unsigned long long)q1.sync_calls);
		break;
	case 3: {
		unsigned long c = rn(t, 2) ? UIOMEM_IOCTL_QUERY : UIOMEM_IOCTL_SYNC;

		call(t, "ioctl(%#lx, NULL)", c);
		r = ioctl(fd, c, NULL);
		expect(t, err_of(r), EFAULT);
		break;
	}
	default: {
		unsigned int c;

		static const unsigned int known[] = {
			UIOMEM_IOCTL_GET_DRV_INFO, UIOMEM_IOCTL_GET_SIZE,
			UIOMEM_IOCTL_GET_PHYS_ADDR, UIOMEM_IOCTL_GET_SYNC_OWNER,
			UIOMEM_IOCTL_SET_SYNC_FOR_CPU, UIOMEM_IOCTL_SET_SYNC_FOR_DEVICE,
			UIOMEM_IOCTL_GET_DEV_INFO, UIOMEM_IOCTL_GET_SYNC, UIOMEM_IOCTL_SET_SYNC,
			UIOMEM_IOCTL_QUERY, UIOMEM_IOCTL_SYNC, UIOMEM_IOCTL_EXPORT,
		};

		do {
			c = _IOC(rn(t, 4), rn(t, 2) ? 'U' : 'u', rn(t, 256), rn(t, 128));
		} while (ioctl_known(c, known, ARRAY_SIZE(known)));
		call(t, "ioctl(unknown %#x)", c);
		r = ioctl(fd, c, &q1);
		expect(t, err_of(r), ENOTTY);
		break;
	}
	}
}

static void uio_check_owner(struct th *t)
{
	uint64_t v;

	call(t, "read sync_owner of %s (model %u)", t->name, t->owner);
	if (!expect(t, -ut_sysfs_u64(UIO_CLASS, t->name, "sync_owner", 0, &v), 0) &&
	    v != t->owner)
		bad(t, "sync_owner %llu", (unsigned long long)v);
}

static char g_uio_pdev[64];

/*
 * The shared region may be unbound by another thread at any time, and the
 * driver then revokes its mappings: a later touch gets SIGBUS (documented).
 * The touches of shared mappings catch it, per thread, and count it; the
 * region must then be gone for the file (QUERY gives ENODEV).  Anywhere
 * else SIGBUS stays fatal: the test dies with it.  The pointer is volatile:
 * nothing but the handler reads it, so the compiler would otherwise drop
 * the store that arms it (gcc 12 -O2 did, and the test died of SIGBUS).
 */
static __thread sigjmp_buf *volatile t_bus_jmp;
static atomic_ulong g_uio_sigbus;
static struct sigaction g_old_sigbus;

static void on_sigbus(int sig)
{
	if (t_bus_jmp)
		siglongjmp(*t_bus_jmp, 1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_sigbus(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigbus;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, &g_old_sigbus);
}

/* Touch every 64th byte of a shared mapping; true if SIGBUS stopped it. */
static bool shared_touch(struct stash *s)
{
	volatile uint8_t *p = s->map;
	sigjmp_buf jmp;
	bool bus = false;
	size_t i;

	if (sigsetjmp(jmp, 1) == 0) {
		t_bus_jmp = &jmp;
		for (i = 0; i < s->maplen; i += 64) {
			if (s->ro)
				(void)p[i];
			else
				p[i] = (uint8_t)i;
		}
	} else {
		bus = true;
	}
	t_bus_jmp = NULL;
	return bus;
}

static void uio_shared_op(struct th *t)
{
	struct stash *s = &t->st[rn(t, NSTASH)];
	long pg = ut_page();
	struct uiomem_sync sy;
	struct uiomem_query q;
	uint8_t buf[256];
	uint64_t v;
	int err;
	long r;

	if (s->fd < 0)
		return;
	switch (rn(t, 6)) {
	case 0:
		v = rn(t, 0x20000);
		call(t, "pread(shared region, off %llu)", (unsigned long long)v);
		r = pread(s->fd, buf, sizeof(buf), v);
		allow(t, err_of(r), GONE | B(EBADF));
		break;
	case 1:
		v = rn(t, 0x20000);
		fill_rand(t, buf, sizeof(buf));
		call(t, "pwrite(shared region, off %llu)", (unsigned long long)v);
		r = pwrite(s->fd, buf, sizeof(buf), v);
		allow(t, err_of(r), GONE | B(ENOSPC) | B(EBADF));
		break;
	case 2:
		/*
		 * Touch a mapping kept from an earlier call (an unbind since
		 * then has revoked it), or map afresh and touch at once.
		 */
		if (s->map != MAP_FAILED && rn(t, 2)) {
			call(t, "touch of a kept mapping of the shared region, len %zu",
			     s->maplen);
		} else {
			if (s->map != MAP_FAILED)
				munmap(s->map, s->maplen);
			s->maplen = (1 + rn(t, 4)) * pg;
			call(t, "mmap(shared region, len %zu)", s->maplen);
			s->map = mmap(NULL, s->maplen,
				      s->ro ? PROT_READ : PROT_READ | PROT_WRITE,
				      MAP_SHARED, s->fd, 0);
			err = s->map == MAP_FAILED ? errno : 0;
			allow(t, err, GONE | B(EACCES) | B(ENXIO));
			if (err)
				break;
		}
		if (shared_touch(s)) {
			atomic_fetch_add(&g_uio_sigbus, 1);
			/* only a removed region's mappings are revoked */
			call(t, "QUERY(shared region) after SIGBUS on its mapping");
			expect(t, uio_query(t, s->fd, &q), ENODEV);
		}
		break;
	case 3:
		memset(&sy, 0, sizeof(sy));
		sy.flags = rn(t, 8);
		sy.offset = rn(t, 0x20000);
		sy.length = rn(t, 0x20000);
		call(t, "SYNC(shared region)");
		r = ioctl(s->fd, UIOMEM_IOCTL_SYNC, &sy);
		/* EBADF: a sync that may discard lines, on a read-only file */
		allow(t, err_of(r), GONE | B(EINVAL) | (s->ro ? B(EBADF) : 0));
		break;
	case 4:
		call(t, "QUERY(shared region)");
		allow(t, uio_query(t, s->fd, &q), GONE);
		break;
	default:
		stash_drop(s);
		break;
	}
}

static void uio_shared_sysfs(struct th *t, const char *name)
{
	static const char *const attrs[] = {
		"sync_mode", "sync_offset", "sync_size", "sync_direction",
		"sync_for_cpu", "sync_for_device",
	};
	int a = rn(t, 6), perr, err;
	uint64_t v;
	char s[80];

	gen_num(t, rn(t, 2) ? rn(t, 8) : gen_sync_value(t, 0x10000), s, sizeof(s), &perr, &v);
	call(t, "write \"%.*s\" to %s/%s", (int)strcspn(s, "\n"), s, name, attrs[a]);
	err = -ut_sysfs_write(UIO_CLASS, name, attrs[a], s);
	allow(t, err, B(ENOENT) | B(ENODEV) | B(EINVAL) |
	      (a == 1 || a == 2 || a >= 4 ? B(ERANGE) : 0));
}

static void *uio_thread(void *arg)
{
	struct th *t = arg;
	const char *shared = g_regions[g_nregions - 1];
	int i;

	stash_init(t);
	if (uio_own_init(t, g_regions[t->id]))
		goto out;
	while (now() < t->until) {
		int op = rn(t, 16);

		t->ops++;
		t->counts[op]++;
		ut_progress();
		switch (op) {
		case 0:
		case 1:
		case 2:
			uio_own_rw(t);
			break;
		case 3:
		case 4:
			own_mmap(t, true);
			break;
		case 5:
			own_mmap_bad(t, true);
			break;
		case 6:
		case 7:
			uio_own_ioctl(t);
			break;
		case 8:
			own_seek(t, true);
			break;
		case 9:
			own_sysfs(t, true);
			uio_check_owner(t);
			break;
		case 10:
			shared_open(t, true, shared);
			break;
		case 11:
		case 12:
			uio_shared_op(t);
			break;
		case 13:
			if (g_uio_pdev[0])
				shared_bind(t, true, g_uio_pdev);
			break;
		case 14:
			if (!rn(t, 4))
				rmmod_attempt(t, "uiomem");
			break;
		default:
			uio_shared_sysfs(t, shared);
			break;
		}
	}
	{
		uint8_t *p = malloc(t->size);

		call(t, "final pread of all %llu bytes of %s", (unsigned long long)t->size,
		     t->name);
		if (p && !expect(t, -ut_pread_all(t->fd, p, t->size, 0), 0))
			same(t, p, 0, t->size, "final read()");
		free(p);
	}
out:
	for (i = 0; i < NSTASH; i++)
		stash_drop(&t->st[i]);
	own_close(t);
	free(t->shadow);
	return NULL;
}

void fuzz_uiomem(void)
{
	static struct th th[MAX_THREADS];
	unsigned int n;
	unsigned long ops;
	const char *shared;
	char dev0[32], dev1[32];

	seed_init("fuzz_uiomem");
	if (regions_init() < 2)
		SKIP("STRESS_UIOMEM names fewer than two regions (no ivshmem BAR?)");
	n = g_nregions - 1;
	if (n > nthreads())
		n = nthreads();
	shared = g_regions[g_nregions - 1];
	ASSERT_EQ(pdev_of(UIO_CLASS, shared, g_uio_pdev, sizeof(g_uio_pdev)), 0);
	dev_of(UIO_CLASS, shared, dev0, sizeof(dev0));
	catch_sigbus();
	ops = run_fuzz_threads(th, n, 2, uio_thread);
	sigaction(SIGBUS, &g_old_sigbus, NULL);
	TH_LOG("%u threads, %lu operations; shared region %s (%s): %lu unbinds, %lu binds, "
	       "%lu rmmod attempts, %lu SIGBUS on revoked mappings", n, ops, shared,
	       g_uio_pdev, atomic_load(&g_us.unbinds), atomic_load(&g_us.binds),
	       atomic_load(&g_us.rmmods), atomic_load(&g_uio_sigbus));
	/* a revoked mapping is only possible after an unbind */
	if (atomic_load(&g_uio_sigbus))
		EXPECT_GT(atomic_load(&g_us.unbinds), 0UL);
	/* bound again: same name, same minor */
	write_str(UIO_DRV "/bind", g_uio_pdev);
	dev_of(UIO_CLASS, shared, dev1, sizeof(dev1));
	EXPECT_STREQ(dev1, dev0);
	EXPECT_GT(ops, 0UL);
	verdict("fuzz_uiomem");
}
