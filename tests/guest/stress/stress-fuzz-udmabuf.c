// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * stress: fuzz_udmabuf: the operations on shared buffers, the thread and
 * the test.
 */
#include "stress.h"

static void udb_shared_mgr(struct th *t)
{
	char name[32], cmd[160];
	int k = rn(t, NSHARED), err;

	snprintf(name, sizeof(name), "stress-sh%d", k);
	if (rn(t, 2)) {
		snprintf(cmd, sizeof(cmd), "create %s %llu %s\n", name,
			 (unsigned long long)(1 + rn(t, 4 * ut_page())), quirk_opt[rn(t, 5)]);
		call(t, "manager \"%.*s\"", (int)strlen(cmd) - 1, cmd);
		/* ENODEV: another thread unbound the new device before create returned. */
		err = allow(t, mgr_cmd(t->mgr, cmd), B(EEXIST) | B(ENOMEM) | B(ENODEV));
		if (!err)
			atomic_fetch_add(&g_us.creates, 1);
	} else {
		snprintf(cmd, sizeof(cmd), "delete %s\n", name);
		call(t, "manager \"%.*s\"", (int)strlen(cmd) - 1, cmd);
		pthread_mutex_lock(&g_us.idlock);
		err = allow(t, mgr_cmd(t->mgr, cmd), B(ENOENT) | B(EBUSY));
		pthread_mutex_unlock(&g_us.idlock);
		if (!err)
			atomic_fetch_add(&g_us.deletes, 1);
	}
}

/* Any call on a shared udmabuf file, with the documented errno sets. */
static void udb_shared_op(struct th *t)
{
	struct stash *s = &t->st[rn(t, NSTASH)];
	long pg = ut_page();
	uint8_t buf[256];
	uint64_t v, size = 0;
	int err, op = rn(t, 9);
	long r;

	if (s->fd < 0)
		return;
	if (ioctl(s->fd, U_DMA_BUF_IOCTL_GET_SIZE, &size))
		size = 4 * pg;
	switch (op) {
	case 0:
		v = pick(t, size);
		call(t, "pread(shared, off %llu)", (unsigned long long)v);
		r = pread(s->fd, buf, sizeof(buf), v);
		if (vfs_rw_errno(v, sizeof(buf)))	/* EBADF first on a write-only file */
			allow(t, err_of(r), B(EINVAL) | B(EBADF));
		else
			allow(t, err_of(r), GONE | B(EBADF));
		break;
	case 1:
		v = pick(t, size);
		fill_rand(t, buf, sizeof(buf));
		call(t, "pwrite(shared, off %llu)", (unsigned long long)v);
		r = pwrite(s->fd, buf, sizeof(buf), v);
		if (vfs_rw_errno(v, sizeof(buf)))	/* EBADF first on a read-only file */
			allow(t, err_of(r), B(EINVAL) | B(EBADF));
		else
			allow(t, err_of(r), GONE | B(ENOSPC) | B(EBADF));
		break;
	case 2:
		call(t, "lseek(shared)");
		r = lseek(s->fd, (off_t)pick(t, size), rn(t, 5));
		allow(t, err_of(r), B(EINVAL));
		break;
	case 3:		/* map, touch */
		if (s->map != MAP_FAILED)
			munmap(s->map, s->maplen);
		s->map = MAP_FAILED;
		s->maplen = (1 + rn(t, 5)) * pg;
		call(t, "mmap(shared, len %zu, %s)", s->maplen, s->ro ? "R" : "RW");
		s->map = mmap(NULL, s->maplen, s->ro ? PROT_READ : PROT_READ | PROT_WRITE,
			      MAP_SHARED, s->fd, 0);
		err = s->map == MAP_FAILED ? errno : 0;
		allow(t, err, GONE | B(EINVAL) | B(EACCES));
		if (!err) {
			size_t i;
			volatile uint8_t *p = s->map;

			for (i = 0; i < s->maplen; i += 64) {
				if (s->ro)
					(void)p[i];
				else
					p[i] = (uint8_t)i;
			}
		}
		break;
	case 4: {	/* sync commands */
		bool dev = rn(t, 2);

		v = gen_sync_value(t, size);
		call(t, "SET_SYNC_FOR_%s(shared, %#llx)", dev ? "DEVICE" : "CPU",
		     (unsigned long long)v);
		r = ioctl(s->fd, dev ? U_DMA_BUF_IOCTL_SET_SYNC_FOR_DEVICE :
			  U_DMA_BUF_IOCTL_SET_SYNC_FOR_CPU, &v);
		allow(t, err_of(r), GONE | B(EINVAL) | B(EBADF));
		break;
	}
	case 5: {
		struct u_dma_buf_ioctl_sync_args sa = {
			.flags = rnd(t) & 0x3ff0f, .size = pick(t, size), .offset = pick(t, size),
		};

		call(t, "SET_SYNC(shared, flags %#llx)", (unsigned long long)sa.flags);
		r = ioctl(s->fd, U_DMA_BUF_IOCTL_SET_SYNC, &sa);
		allow(t, err_of(r), GONE | B(EINVAL) | B(EBADF));
		break;
	}
	case 6: {	/* export, keep it */
		struct u_dma_buf_ioctl_export_args ea = {
			.flags = (rn(t, 3) ? O_RDONLY : O_RDWR) | O_CLOEXEC,
			.size = (1 + rn(t, 2)) * pg,
		};

		if (s->dfd >= 0) {
			/* a read-only export refuses invalidating syncs: EBADF */
			bool ro = (fcntl(s->dfd, F_GETFL) & O_ACCMODE) == O_RDONLY;

			dmabuf_sync(t, s->dfd, GONE | (ro ? B(EBADF) : 0));
			close(s->dfd);
			s->dfd = -1;
		}
		call(t, "EXPORT(shared, flags %#llx size %llu)", (unsigned long long)ea.flags,
		     (unsigned long long)ea.size);
		r = ioctl(s->fd, U_DMA_BUF_IOCTL_EXPORT, &ea);
		err = allow(t, err_of(r), GONE | B(EINVAL) | B(EACCES) | B(ENOMEM));
		if (!err) {
			s->dfd = ea.fd;
			atomic_fetch_add(&g_us.exports, 1);
		}
		break;
	}
	case 7:
		call(t, "GET_SYNC(shared)");
		{
			struct u_dma_buf_ioctl_sync_args sa;

			r = ioctl(s->fd, U_DMA_BUF_IOCTL_GET_SYNC, &sa);
			allow(t, err_of(r), GONE);
		}
		break;
	default:
		stash_drop(s);
		break;
	}
}

static void udb_shared_sysfs(struct th *t)
{
	static const char *const attrs[] = {
		"sync_mode", "sync_offset", "sync_size", "sync_direction",
		"sync_for_cpu", "sync_for_device", "debug_vma", "debug_export",
	};
	char name[32], s[80];
	int a = rn(t, 8), perr, err;
	uint64_t v;

	snprintf(name, sizeof(name), "stress-sh%d", (int)rn(t, NSHARED));
	gen_num(t, rn(t, 2) ? rn(t, 8) : gen_sync_value(t, 4096), s, sizeof(s), &perr, &v);
	if (a >= 6 && !perr && v)
		return;		/* no log flood */
	call(t, "write \"%.*s\" to %s/%s", (int)strcspn(s, "\n"), s, name, attrs[a]);
	err = -ut_sysfs_write(UDB_CLASS, name, attrs[a], s);
	/* gone: the open fails (ENOENT) or the write (ENODEV) */
	allow(t, err, B(ENOENT) | B(ENODEV) | B(EINVAL) |
	      (a == 1 || a == 2 || a == 4 || a == 5 ? B(ERANGE) : 0));
}

/* A malformed or hostile manager line, with the errno it must give. */
static void udb_mgr_garbage(struct th *t)
{
	static const char *const bad_args[] = {
		"", "0", "size=0", "size=zz", "0x", "-1", "18446744073709551616",
		"4096 dma-mask=5", "4096 dma-mask=300", "4096 quirk-mmap-bogus",
		"4096 bus=pci", "4096 device=no-such-device", "4096 bus=nosuchbus device=x",
	};
	static const char *const huge[] = {
		"0x10000000000", "0x4000000000000000", "0xfffffffffffff000",
		"size=0xffffffffffffffff",
	};
	static const char *const blank[] = { "\n", ";;", "\t\n", "" };
	char cmd[1200], name[80];
	int kind = rn(t, 12), want;
	size_t i, n;

	snprintf(name, sizeof(name), "stress-g%d", t->id);
	switch (kind) {
	case 0:
		snprintf(cmd, sizeof(cmd), "frob %s 4096\n", name);
		want = EINVAL;
		break;
	case 1:		/* bad names */
		switch (rn(t, 5)) {
		case 0:
			snprintf(cmd, sizeof(cmd), "create a/b 4096\n");
			break;
		case 1:
			snprintf(cmd, sizeof(cmd), "create %s 4096\n", rn(t, 2) ? "." : "..");
			break;
		case 2:
			snprintf(cmd, sizeof(cmd), "create %s\x01x 4096\n", name);
			break;
		case 3:
			snprintf(cmd, sizeof(cmd), "create %s\x7f 4096\n", name);
			break;
		default:
			snprintf(cmd, sizeof(cmd), "create %.*s 4096\n", 64,
				 "stress-long-name-0123456789abcdef0123456789abcdef0123456789abcdef");
			break;
		}
		want = EINVAL;
		break;
	case 2:		/* no size, zero, malformed */
		snprintf(cmd, sizeof(cmd), "create %s %s\n", name,
			 bad_args[rn(t, ARRAY_SIZE(bad_args))]);
		want = EINVAL;
		break;
	case 3:
		snprintf(cmd, sizeof(cmd), "delete %s-none\n", name);
		want = ENOENT;
		break;
	case 4:
		snprintf(cmd, sizeof(cmd), "delete\n");
		want = EINVAL;
		break;
	case 5:		/* a line of 1023 bytes or more: ENOSPC, and the line starts over */
		n = 1024 + rn(t, 100);
		memset(cmd, 'x', n);
		cmd[n] = '\0';
		want = ENOSPC;
		break;
	case 6:		/* two commands in one write, then one across writes */
		snprintf(cmd, sizeof(cmd), "create %s %llu;delete %s\n", name,
			 (unsigned long long)(1 + rn(t, 8192)), name);
		want = 0;
		break;
	case 7:		/* too much memory: ENOMEM, or E2BIG past the kernel's size_t */
		snprintf(cmd, sizeof(cmd), "create %s %s\n", name,
			 huge[rn(t, ARRAY_SIZE(huge))]);
		want = ENOMEM;
		break;
	case 8:		/* too many tokens */
		n = snprintf(cmd, sizeof(cmd), "create %s", name);
		for (i = 0; i < 17; i++)
			n += snprintf(cmd + n, sizeof(cmd) - n, " 4096");
		snprintf(cmd + n, sizeof(cmd) - n, "\n");
		want = EINVAL;
		break;
	case 9:		/* blank lines and separators only */
		snprintf(cmd, sizeof(cmd), "%s", blank[rn(t, ARRAY_SIZE(blank))]);
		want = 0;
		break;
	default:	/* random bytes after a letter no command starts with */
		n = 1 + rn(t, 200);
		cmd[0] = 'z';
		for (i = 1; i < n; i++) {
			cmd[i] = (char)(33 + rn(t, 94));
			if (cmd[i] == ';')
				cmd[i] = ':';
		}
		cmd[n] = '\n';
		cmd[n + 1] = '\0';
		want = EINVAL;
		break;
	}
	call(t, "manager write of %zu bytes \"%.*s\" (case %d)",
	     kind == 9 ? (size_t)1 : strlen(cmd), (int)strcspn(cmd, "\n") < 60 ?
	     (int)strcspn(cmd, "\n") : 60, cmd, kind);
	if (kind == 9 && !cmd[0]) {
		expect(t, write(t->mgr, "", 1) < 0 ? errno : 0, want);
	} else {
		int err = mgr_cmd(t->mgr, cmd);

		/* Which one depends on the kernel's size_t, not this program's. */
		if (kind == 7 && err == E2BIG)
			err = ENOMEM;
		expect(t, err, want);
	}
	if (kind == 6) {
		/* a command split over two writes */
		call(t, "manager command split over two writes");
		if (!expect(t, mgr_cmd(t->mgr, "create stress-g"), 0)) {
			snprintf(cmd, sizeof(cmd), "%d-s 4096\n", t->id);
			if (!expect(t, mgr_cmd(t->mgr, cmd), 0)) {
				snprintf(cmd, sizeof(cmd), "delete stress-g%d-s\n", t->id);
				expect(t, mgr_cmd(t->mgr, cmd), 0);
			}
		}
	}
}

static void *udb_thread(void *arg)
{
	struct th *t = arg;

	stash_init(t);
	t->mgr = open(MGR, O_WRONLY);
	call(t, "open %s", MGR);
	if (expect(t, t->mgr < 0 ? errno : 0, 0))
		return NULL;
	if (udb_own_create(t))
		goto out;
	while (now() < t->until) {
		int op = rn(t, 20);

		t->ops++;
		t->counts[op]++;
		ut_progress();
		switch (op) {
		case 0:
		case 1:
		case 2:
			udb_own_rw(t);
			break;
		case 3:
		case 4:
			own_mmap(t, false);
			break;
		case 5:
			own_mmap_bad(t, false);
			break;
		case 6:
		case 7:
			udb_own_ioctl(t);
			break;
		case 8:
			udb_own_export(t);
			break;
		case 9:
			own_seek(t, false);
			break;
		case 10:
			own_sysfs(t, false);
			break;
		case 11:
			udb_own_badptr(t);
			break;
		case 12:
			udb_shared_mgr(t);
			break;
		case 13: {
			char name[32];

			snprintf(name, sizeof(name), "stress-sh%d", (int)rn(t, NSHARED));
			shared_open(t, false, name);
			break;
		}
		case 14:
		case 15:
			udb_shared_op(t);
			break;
		case 16:
			shared_bind(t, false, NULL);
			break;
		case 17:
			if (!rn(t, 4))
				rmmod_attempt(t, rn(t, 2) ? "u_dma_buf" : "u_dma_buf_mgr");
			break;
		case 18:
			udb_mgr_garbage(t);
			break;
		default:
			udb_shared_sysfs(t);
			break;
		}
	}
	/* the whole buffer reads back as the thread left it */
	{
		uint8_t *p = malloc(t->size);

		call(t, "final pread of all %llu bytes", (unsigned long long)t->size);
		if (p && !expect(t, -ut_pread_all(t->fd, p, t->size, 0), 0))
			same(t, p, 0, t->size, "final read()");
		free(p);
	}
out:
	{
		int i;

		for (i = 0; i < NSTASH; i++)
			stash_drop(&t->st[i]);
	}
	own_close(t);
	if (t->name[0]) {
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "delete %s\n", t->name);
		call(t, "manager \"delete %s\" once closed", t->name);
		expect(t, mgr_cmd(t->mgr, cmd), 0);
	}
	close(t->mgr);
	free(t->shadow);
	return NULL;
}

/* The minor the next manager buffer gets ("" on failure). */
void probe_minor(int mgr, char *out, size_t len)
{
	out[0] = '\0';
	if (mgr_cmd(mgr, "create stress-minor 4096\n"))
		return;
	dev_of(UDB_CLASS, "stress-minor", out, len);
	mgr_cmd(mgr, "delete stress-minor\n");
}

int count_stress_buffers(char *names, size_t len)
{
	DIR *d = opendir("/sys/class/u-dma-buf");
	struct dirent *e;
	int n = 0;

	names[0] = '\0';
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "stress-", 7))
			continue;
		n++;
		if (strlen(names) + strlen(e->d_name) + 2 < len) {
			strcat(names, " ");
			strcat(names, e->d_name);
		}
	}
	closedir(d);
	return n;
}

void fuzz_udmabuf(void)
{
	static struct th th[MAX_THREADS];
	unsigned int n = nthreads();
	char minor0[32], minor1[32], left[256], cmd[96];
	unsigned long ops;
	int mgr, k;

	seed_init("fuzz_udmabuf");
	mgr = open(MGR, O_WRONLY);
	if (mgr < 0)
		SKIP("no %s (u-dma-buf-mgr not loaded)", MGR);
	probe_minor(mgr, minor0, sizeof(minor0));
	ASSERT_TRUE(minor0[0] != '\0');
	ops = run_fuzz_threads(th, n, 1, udb_thread);
	TH_LOG("%u threads, %lu operations; shared: %lu creates, %lu deletes, %lu unbinds, "
	       "%lu binds, %lu exports, %lu rmmod attempts", n, ops,
	       atomic_load(&g_us.creates), atomic_load(&g_us.deletes),
	       atomic_load(&g_us.unbinds), atomic_load(&g_us.binds),
	       atomic_load(&g_us.exports), atomic_load(&g_us.rmmods));
	/* bind what is unbound, delete the shared names */
	for (k = 0; k < g_us.npdev; k++)
		write_str(UDB_DRV "/bind", g_us.pdev[k]);
	for (k = 0; k < NSHARED; k++) {
		int err;

		snprintf(cmd, sizeof(cmd), "delete stress-sh%d\n", k);
		err = mgr_cmd(mgr, cmd);
		EXPECT_TRUE(err == 0 || err == ENOENT);
		if (err && err != ENOENT)
			TH_LOG("%.*s: %s", (int)strlen(cmd) - 1, cmd, strerror(err));
	}
	EXPECT_EQ(count_stress_buffers(left, sizeof(left)), 0);
	if (left[0])
		TH_LOG("left behind:%s", left);
	probe_minor(mgr, minor1, sizeof(minor1));
	EXPECT_STREQ(minor1, minor0);
	close(mgr);
	EXPECT_GT(ops, 0UL);
	verdict("fuzz_udmabuf");
}
