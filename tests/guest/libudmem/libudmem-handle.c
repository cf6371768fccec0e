// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libudmem-handle.c - what udmem_buffer_* and udmem_region_* share, one
 * body for both (fixture variants "buffer" and "region"): open and its
 * errors, sysfs facts, NULL handles, map, sync range checks, list.
 * What only one kind has is in libudmem-buffer.c and libudmem-region.c.
 */
#include <pthread.h>

#include "libudmem-test.h"

/* One kind of handle, through the library's functions of that kind. */
struct ut_kind {
	const char *class;
	const char *(*env_name)(void);
	int (*open)(const char *name, unsigned int flags, void **out);
	void (*close)(void *h);
	int (*list)(char ***names);
	const char *(*name)(const void *h);
	uint64_t (*size)(const void *h);
	uint64_t (*phys_addr)(const void *h);
	uint64_t (*dma_addr)(const void *h);
	int (*is_coherent)(const void *h);
	int (*sync_mode)(void *h);
	int (*sync_owner)(void *h);
	int (*map)(void *h, void **addr);
	int (*unmap)(void *h);
	void *(*addr)(void *h);
	int (*sync_for_cpu)(void *h, uint64_t off, uint64_t size, enum udmem_dir dir);
	int (*sync_for_device)(void *h, uint64_t off, uint64_t size, enum udmem_dir dir);
	int (*fd)(const void *h);
};

/* Typed wrappers so that each kind's functions are called with their own types. */
#define UT_KIND(k, cls, envfn)						\
	static int ut_##k##_open(const char *n, unsigned int f, void **out) \
	{ return udmem_##k##_open(n, f, (struct udmem_##k **)out); }	\
	static void ut_##k##_close(void *h) { udmem_##k##_close(h); }	\
	static const char *ut_##k##_name(const void *h) { return udmem_##k##_name(h); } \
	static uint64_t ut_##k##_size(const void *h) { return udmem_##k##_size(h); } \
	static uint64_t ut_##k##_phys(const void *h) { return udmem_##k##_phys_addr(h); } \
	static uint64_t ut_##k##_dma(const void *h) { return udmem_##k##_dma_addr(h); } \
	static int ut_##k##_coherent(const void *h) { return udmem_##k##_is_coherent(h); } \
	static int ut_##k##_smode(void *h) { return udmem_##k##_sync_mode(h); } \
	static int ut_##k##_sowner(void *h) { return udmem_##k##_sync_owner(h); } \
	static int ut_##k##_map(void *h, void **a) { return udmem_##k##_map(h, a); } \
	static int ut_##k##_unmap(void *h) { return udmem_##k##_unmap(h); } \
	static void *ut_##k##_addr(void *h) { return udmem_##k##_addr(h); } \
	static int ut_##k##_cpu(void *h, uint64_t o, uint64_t s, enum udmem_dir d) \
	{ return udmem_##k##_sync_for_cpu(h, o, s, d); }		\
	static int ut_##k##_dev(void *h, uint64_t o, uint64_t s, enum udmem_dir d) \
	{ return udmem_##k##_sync_for_device(h, o, s, d); }		\
	static int ut_##k##_fd(const void *h) { return udmem_##k##_fd(h); } \
	static const struct ut_kind ut_kind_##k = {			\
		.class = cls, .env_name = envfn,			\
		.open = ut_##k##_open, .close = ut_##k##_close,		\
		.list = udmem_##k##_list, .name = ut_##k##_name,	\
		.size = ut_##k##_size, .phys_addr = ut_##k##_phys,	\
		.dma_addr = ut_##k##_dma, .is_coherent = ut_##k##_coherent, \
		.sync_mode = ut_##k##_smode, .sync_owner = ut_##k##_sowner, \
		.map = ut_##k##_map, .unmap = ut_##k##_unmap,		\
		.addr = ut_##k##_addr, .sync_for_cpu = ut_##k##_cpu,	\
		.sync_for_device = ut_##k##_dev, .fd = ut_##k##_fd,	\
	}

UT_KIND(buffer, UT_BUFFER_CLASS, ut_buffer_env);
UT_KIND(region, UT_REGION_CLASS, ut_region_env);

FIXTURE(handle) {
	const struct ut_kind *k;
	const char *name;	/* the device under test */
	void *h;		/* opened read-write by the setup */
};

FIXTURE_VARIANT(handle) {
	const struct ut_kind *kind;
	const struct ut_kind *other;	/* the other kind, for cross-kind opens */
};

FIXTURE_VARIANT_ADD(handle, buffer) {
	.kind = &ut_kind_buffer, .other = &ut_kind_region,
};

FIXTURE_VARIANT_ADD(handle, region) {
	.kind = &ut_kind_region, .other = &ut_kind_buffer,
};

FIXTURE_SETUP(handle)
{
	self->k = variant->kind;
	self->name = self->k->env_name();
	if (!ut_sysfs_exists(self->k->class, self->name))
		SKIP("no %s device %s (module not loaded?)", self->k->class, self->name);
	ASSERT_EQ(self->k->open(self->name, 0, &self->h), 0);
	ASSERT_TRUE(self->h != NULL);
}

FIXTURE_TEARDOWN(handle)
{
	self->k->close(self->h);
}

TEST_F(handle, open_null_out_einval)
{
	EXPECT_EQ(self->k->open(self->name, 0, NULL), -EINVAL);
	EXPECT_EQ(self->k->open(NULL, 0, NULL), -EINVAL);
}

TEST_F(handle, open_bad_name_einval)
{
	static const char *const bad[] = {
		"", ".", "..", "../udmabuf0", "../uiomem0", "a/b", "x;delete y", "a b",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	void *h = (void *)0x1;
	size_t i;

	EXPECT_EQ(self->k->open(NULL, 0, &h), -EINVAL);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		EXPECT_EQ(self->k->open(bad[i], 0, &h), -EINVAL);
	EXPECT_TRUE(h == (void *)0x1);
}

TEST_F(handle, open_bad_flags_einval)
{
	void *h = NULL;

	EXPECT_EQ(self->k->open(self->name, 0x80, &h), -EINVAL);
	EXPECT_EQ(self->k->open(self->name, 0x100, &h), -EINVAL);
	EXPECT_TRUE(h == NULL);
}

TEST_F(handle, open_missing_name_enoent)
{
	void *h = NULL;

	EXPECT_EQ(self->k->open("udmem-no-such-device", 0, &h), -ENOENT);
	EXPECT_TRUE(h == NULL);
}

TEST_F(handle, open_name_of_other_driver_enodev)
{
	void *h = NULL;

	/* /dev/null and /dev/zero exist but belong to mem. */
	EXPECT_EQ(self->k->open("null", 0, &h), -ENODEV);
	EXPECT_EQ(self->k->open("zero", 0, &h), -ENODEV);
	EXPECT_TRUE(h == NULL);
}

TEST_F(handle, open_name_of_other_kind_enodev)
{
	const char *name = variant->other->env_name();
	void *h = NULL;

	if (!ut_sysfs_exists(variant->other->class, name))
		SKIP("no %s device %s", variant->other->class, name);
	EXPECT_EQ(self->k->open(name, 0, &h), -ENODEV);
	EXPECT_TRUE(h == NULL);
}

TEST_F(handle, open_reports_sysfs_facts)
{
	const char *cls = self->k->class;

	EXPECT_STREQ(self->k->name(self->h), self->name);
	EXPECT_EQ(self->k->size(self->h), ut_sysfs_num(cls, self->name, "size"));
	EXPECT_EQ(self->k->phys_addr(self->h),
		  ut_sysfs_get(cls, self->name, "phys_addr", 0));
	EXPECT_EQ(self->k->sync_mode(self->h), ut_sysfs_num(cls, self->name, "sync_mode"));
	EXPECT_EQ(self->k->sync_owner(self->h), ut_sysfs_num(cls, self->name, "sync_owner"));
	EXPECT_GE(self->k->is_coherent(self->h), 0);
	EXPECT_LE(self->k->is_coherent(self->h), 1);
	EXPECT_GE(self->k->fd(self->h), 0);
}

TEST_F(handle, null_handle_is_safe)
{
	void *addr = NULL;

	self->k->close(NULL);
	EXPECT_TRUE(self->k->name(NULL) == NULL);
	EXPECT_EQ(self->k->size(NULL), 0);
	EXPECT_EQ(self->k->phys_addr(NULL), 0);
	EXPECT_EQ(self->k->dma_addr(NULL), 0);
	EXPECT_EQ(self->k->is_coherent(NULL), -EINVAL);
	EXPECT_EQ(self->k->sync_mode(NULL), -EINVAL);
	EXPECT_EQ(self->k->sync_owner(NULL), -EINVAL);
	EXPECT_EQ(self->k->fd(NULL), -EINVAL);
	EXPECT_EQ(self->k->map(NULL, &addr), -EINVAL);
	EXPECT_EQ(self->k->unmap(NULL), -EINVAL);
	EXPECT_TRUE(self->k->addr(NULL) == NULL);
	EXPECT_EQ(self->k->sync_for_cpu(NULL, 0, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(self->k->sync_for_device(NULL, 0, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
}

TEST_F(handle, map_pattern_reaches_the_device_file)
{
	size_t size = self->k->size(self->h);
	int fd = self->k->fd(self->h);
	uint8_t *back;
	void *addr = NULL;

	ASSERT_EQ(self->k->map(self->h, &addr), 0);
	ASSERT_TRUE(addr != NULL);
	EXPECT_TRUE(self->k->addr(self->h) == addr);
	ut_fill(addr, size, 0, 7);
	ASSERT_EQ(self->k->sync_for_device(self->h, 0, 0, UDMEM_DIR_TO_DEVICE), 0);
	/* read() goes through the driver's kernel mapping, not ours. */
	back = malloc(size);
	ASSERT_TRUE(back != NULL);
	ASSERT_EQ(pread(fd, back, size, 0), (ssize_t)size);
	EXPECT_EQ(ut_check(back, size, 0, 7), -1);
	/* And the other way: the file writes, the mapping reads after a sync. */
	ut_fill(back, size, 0, 99);
	ASSERT_EQ(pwrite(fd, back, size, 0), (ssize_t)size);
	ASSERT_EQ(self->k->sync_for_cpu(self->h, 0, 0, UDMEM_DIR_FROM_DEVICE), 0);
	EXPECT_EQ(ut_check(addr, size, 0, 99), -1);
	free(back);
}

TEST_F(handle, map_twice_returns_same_address)
{
	void *a = NULL, *b = NULL;

	ASSERT_EQ(self->k->map(self->h, &a), 0);
	ASSERT_EQ(self->k->map(self->h, &b), 0);
	EXPECT_TRUE(a == b);
	EXPECT_EQ(self->k->map(self->h, NULL), -EINVAL);
	EXPECT_EQ(self->k->unmap(self->h), 0);
	EXPECT_TRUE(self->k->addr(self->h) == NULL);
	EXPECT_EQ(self->k->unmap(self->h), -EINVAL);
}

TEST_F(handle, map_readonly_handle_write_faults)
{
	void *h = NULL, *addr = NULL;

	ASSERT_EQ(self->k->open(self->name, UDMEM_OPEN_RDONLY, &h), 0);
	ASSERT_EQ(self->k->map(h, &addr), 0);
	EXPECT_EQ(ut_signal_of(ut_write_byte, addr), SIGSEGV);
	self->k->close(h);
}

struct ut_map_arg {
	const struct ut_kind *k;
	void *h;
};

static void *ut_map_thread(void *arg)
{
	struct ut_map_arg *m = arg;
	void *addr = NULL;

	if (m->k->map(m->h, &addr))
		return NULL;
	return addr;
}

TEST_F(handle, map_from_threads_maps_once)
{
	struct ut_map_arg arg = { self->k, self->h };
	pthread_t t[4];
	void *got[4];
	int i;

	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_create(&t[i], NULL, ut_map_thread, &arg), 0);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(pthread_join(t[i], &got[i]), 0);
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(got[i] != NULL);
		EXPECT_TRUE(got[i] == got[0]);
	}
}

TEST_F(handle, sync_outside_einval)
{
	uint64_t size = self->k->size(self->h);
	void *h = self->h;

	EXPECT_EQ(self->k->sync_for_cpu(h, size, 0, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(self->k->sync_for_cpu(h, 0, size + 1, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(self->k->sync_for_device(h, size - 16, 32, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(self->k->sync_for_device(h, UINT64_MAX, 2, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(self->k->sync_for_device(h, 16, UINT64_MAX, UDMEM_DIR_BIDIRECTIONAL), -EINVAL);
	EXPECT_EQ(self->k->sync_for_cpu(h, 0, 16, (enum udmem_dir)3), -EINVAL);
	EXPECT_EQ(self->k->sync_for_device(h, 0, 8, (enum udmem_dir)7), -EINVAL);
}

TEST_F(handle, list_has_the_device_sorted)
{
	char **names = NULL;
	int n, i, found = 0;

	n = self->k->list(&names);
	ASSERT_GE(n, 1);
	ASSERT_TRUE(names != NULL);
	EXPECT_TRUE(names[n] == NULL);
	for (i = 0; i < n; i++) {
		if (!strcmp(names[i], self->name))
			found = 1;
		if (i)
			EXPECT_LT(strcmp(names[i - 1], names[i]), 0);
	}
	EXPECT_TRUE(found);
	udmem_list_free(names);
	EXPECT_EQ(self->k->list(NULL), -EINVAL);
}

TEST_HARNESS_MAIN
