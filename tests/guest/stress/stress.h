/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * stress.h - what the source files of the stress program share (stress.c
 * lists the tests and what each checks).
 */
#ifndef STRESS_H
#define STRESS_H

#define _FILE_OFFSET_BITS 64

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <linux/dma-buf.h>
#include <linux/u-dma-buf-ioctl.h>
#include <linux/uiomem.h>

#include "harness.h"
#include "ut.h"

#define MGR		"/dev/u-dma-buf-mgr"
#define UDB_CLASS	"u-dma-buf"
#define UIO_CLASS	"uiomem"
#define UDB_DRV		"/sys/bus/platform/drivers/u-dma-buf"
#define UIO_DRV		"/sys/bus/platform/drivers/uiomem"
#define MAX_THREADS	8
#define NSHARED		3	/* shared buffer names */
#define NSTASH		4	/* shared fds/mappings a thread holds */
#define MAX_PDEVS	64
#define MAX_REPORTS	20

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Is @c one of the @n commands of @known (the driver's own, not "unknown")? */
static inline bool ioctl_known(unsigned int c, const unsigned int *known, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (c == known[i])
			return true;
	return false;
}

/* errno sets as bit masks; EOVERFLOW (75 on every target) takes bit 63 */
static inline uint64_t B(int e)
{
	return e == EOVERFLOW ? 1ULL << 63 : 1ULL << (e & 63);
}

struct stash {
	int fd;			/* an open shared buffer/region, or -1 */
	int dfd;		/* a dma-buf exported from it, or -1 */
	void *map;		/* a mapping of fd, or MAP_FAILED */
	size_t maplen;
	bool ro;
};

struct th {
	int id;
	uint64_t rng;
	unsigned long ops;
	char what[256];
	double until;
	pthread_t thread;
	/* the buffer or region this thread owns */
	char name[64];
	int fd, fd_ro, fd_sync;	/* O_RDWR, O_RDONLY, O_RDWR|O_SYNC */
	uint64_t size;		/* bytes read() and write() reach */
	uint64_t maplen;	/* bytes mmap() reaches */
	uint8_t *shadow;
	int64_t pos;		/* file position of fd */
	int quirk;		/* u-dma-buf mmap mode */
	/* the sync state the thread expects (its own object only) */
	uint64_t s_off, s_size;
	unsigned int s_dir, s_mode, owner;
	int mgr;		/* this thread's manager file */
	struct stash st[NSTASH];
	unsigned long counts[32];
};

struct udb_shared {
	pthread_mutex_t lock;
	/*
	 * Held from reading a shared name's device to unbinding it, and over
	 * shared deletes: a delete frees the device's number, which the next
	 * create (perhaps of another thread's own buffer) takes at once.
	 */
	pthread_mutex_t idlock;
	char pdev[MAX_PDEVS][64];	/* platform devices unbound, to bind again */
	int npdev;
	atomic_ulong creates, deletes, binds, unbinds, exports, rmmods;
};

/* Errors any call on a file of a buffer that may be gone can also give. */
#define GONE	(B(ENODEV))

/* The tests, run from stress.c in this order. */
void fuzz_udmabuf(void);
void fuzz_uiomem(void);
void udmabuf_faulting_write_changes_no_other_byte(void);
void uiomem_faulting_write_changes_no_other_byte(void);
void endurance_create_delete(void);
void endurance_bind_unbind_udmabuf(void);
void endurance_bind_unbind_pools(void);
void endurance_bind_unbind_uiomem(void);
void fault_injection(void);

/* stress-common.c */
extern unsigned long long g_seed;
unsigned long env_ul(const char *var, unsigned long dflt);
void seed_init(const char *test);
double now(void);
uint64_t rnd(struct th *t);
uint64_t rn(struct th *t, uint64_t n);
void th_seed(struct th *t, int id, unsigned int salt);
void __attribute__((format(printf, 2, 3))) call(struct th *t, const char *fmt, ...);
void __attribute__((format(printf, 2, 3))) bad(struct th *t, const char *fmt, ...);
const char *ename(int e);
int allow(struct th *t, int err, uint64_t set);
int expect(struct th *t, int err, int want);
int err_of(long r);
void verdict(const char *test);
int write_str(const char *path, const char *s);
int read_str(const char *path, char *buf, size_t len);
int mgr_cmd(int fd, const char *cmd);
int pdev_of(const char *class, const char *name, char *out, size_t len);
void dev_of(const char *class, const char *name, char *out, size_t len);
long slab_kb(void);
int delete_module(const char *name);
uint64_t pick(struct th *t, uint64_t n);
uint64_t kernel_size_max(void);
int vfs_rw_errno(uint64_t off, size_t len);
bool range_ok(uint64_t off, uint64_t len, uint64_t total);
void poke(volatile uint8_t *dst, const uint8_t *src, size_t len);
void fill_rand(struct th *t, uint8_t *p, size_t len);
void same(struct th *t, const volatile uint8_t *p, uint64_t off, size_t len,
	  const char *via);
void gen_num(struct th *t, uint64_t hint, char *s, size_t len, int *perr, uint64_t *val);
unsigned int nthreads(void);
unsigned long seconds(void);
unsigned long run_fuzz_threads(struct th *th, unsigned int n, unsigned int salt,
			       void *(*fn)(void *));

/* stress-fuzz-ops.c */
int own_open(struct th *t, const char *dev);
void own_close(struct th *t);
void own_seek(struct th *t, bool uiomem);
void own_mmap(struct th *t, bool uiomem);
void own_mmap_bad(struct th *t, bool uiomem);
void own_sysfs(struct th *t, bool uiomem);
extern struct udb_shared g_us;
void stash_drop(struct stash *s);
void stash_init(struct th *t);
void shared_open(struct th *t, bool uiomem, const char *name);
void shared_bind(struct th *t, bool uiomem, const char *pdev);
void rmmod_attempt(struct th *t, const char *mod);

/* stress-fuzz-udmabuf-own.c */
extern const char *const quirk_opt[];
int udb_own_create(struct th *t);
int udb_sync_predict(struct th *t, bool for_device, uint64_t v, bool writable);
uint64_t gen_sync_value(struct th *t, uint64_t size);
void udb_own_rw(struct th *t);
void check_unwritten(struct th *t, uint64_t off, size_t done, size_t len);
void udb_own_badptr(struct th *t);
void udb_own_ioctl(struct th *t);
void dmabuf_sync(struct th *t, int dfd, uint64_t set);
void udb_own_export(struct th *t);

/* stress-fuzz-udmabuf.c */
void probe_minor(int mgr, char *out, size_t len);
int count_stress_buffers(char *names, size_t len);

/* stress-fuzz-uiomem.c */
extern char g_regions[MAX_THREADS + 1][32];
extern int g_nregions;
int regions_init(void);

#endif /* STRESS_H */
