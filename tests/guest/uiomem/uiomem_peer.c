// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uiomem_peer.c - data through a uiomem region both ways with the host peer
 * (tests/qemu/peers/ivshmem-peer.py), the region being the ivshmem BAR.
 *
 * The host writes patterns that must be read after sync_for_cpu, and checks
 * what the guest wrote after sync_for_device.  The mailbox in the first page
 * is itself written and read through the cached mapping with syncs.
 */
#include "harness.h"
#include "uiomem_util.h"

#define MBOX_MAGIC	0x4D4F4955u
#define MBOX_VERSION	0x1F2E3D01u
#define CMD_FILL	1
#define CMD_CHECK	2
#define CMD_BYE		3

struct mbox {
	uint32_t magic;
	uint32_t version;
	uint32_t req_seq;
	uint32_t ack_seq;
	uint32_t cmd;
	uint32_t seed;
	uint64_t offset;
	uint64_t length;
	uint32_t status;
	uint32_t pad;
	uint64_t detail;
	uint64_t pad2;
	char name[48];
};

struct region {
	int fd;
	size_t size;
	uint8_t *map;
};

static void region_open(struct region *r)
{
	r->fd = um_open(O_RDWR);
	if (r->fd < 0)
		SKIP("/dev/%s: %s (no ivshmem region)", um_name(), strerror(errno));
	r->size = um_attr_u64("size");
	ASSERT_GE(r->size, 1 << 20);
	r->map = mmap(NULL, r->size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	ASSERT_TRUE(r->map != MAP_FAILED);
}

/* One request to the host; returns its status, or -1 on timeout. */
static int mbox_call(struct region *r, uint32_t cmd, uint32_t seed,
		     uint64_t off, uint64_t len, const char *name)
{
	volatile struct mbox *m = (volatile struct mbox *)r->map;
	uint32_t seq;
	int i;

	ASSERT_OK(um_sync(r->fd, UIOMEM_SYNC_START | UIOMEM_SYNC_READ, 0, 4096));
	/* Nothing is pending (req == ack) while the request is written. */
	seq = m->ack_seq + 1;
	m->req_seq = seq - 1;
	ASSERT_OK(um_sync(r->fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, 0, 64));
	m->magic = MBOX_MAGIC;
	m->version = MBOX_VERSION;
	m->cmd = cmd;
	m->seed = seed;
	m->offset = off;
	m->length = len;
	for (i = 0; i < (int)sizeof(m->name) - 1 && name[i]; i++)
		m->name[i] = name[i];
	m->name[i] = '\0';
	/* The request must reach memory before its sequence number does. */
	ASSERT_OK(um_sync(r->fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, 0, 4096));
	m->req_seq = seq;
	ASSERT_OK(um_sync(r->fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, 0, 64));
	for (i = 0; i < 20000; i++) {
		ASSERT_OK(um_sync(r->fd, UIOMEM_SYNC_START | UIOMEM_SYNC_READ, 0, 64));
		if (m->ack_seq == seq)
			return (int)m->status;
		usleep(1000);
	}
	ut_msg("host peer did not answer request %u (%s)", seq, name);
	return -1;
}

TEST(host_fill_read_through_mmap)
{
	struct region r;
	long d;

	region_open(&r);
	ASSERT_EQ(mbox_call(&r, CMD_FILL, 1, 0x10000, 0x10000, "mmap"), 0);
	ASSERT_OK(um_sync(r.fd, UIOMEM_SYNC_START | UIOMEM_SYNC_READ, 0x10000, 0x10000));
	d = pattern_diff(r.map + 0x10000, 1, 0x10000, 0x10000);
	EXPECT_EQ(d, -1);
}

TEST(host_fill_read_through_read)
{
	static uint8_t buf[0x8000];
	struct region r;

	region_open(&r);
	ASSERT_EQ(mbox_call(&r, CMD_FILL, 2, 0x20000, sizeof(buf), "read"), 0);
	ASSERT_EQ(pread(r.fd, buf, sizeof(buf), 0x20000), sizeof(buf));
	EXPECT_EQ(pattern_diff(buf, 2, 0x20000, sizeof(buf)), -1);
}

TEST(host_fill_unaligned_edges_sysfs_packed)
{
	struct region r;
	char cmd[64];
	uint64_t off = 0x30000 + 5, len = 1000;

	region_open(&r);
	/* Neighbours of the range, inside its partial edge lines. */
	r.map[off - 1] = 0x5a;
	r.map[off + len] = 0xa5;
	ASSERT_OK(um_sync(r.fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, 0x30000, 0x1000));
	ASSERT_EQ(mbox_call(&r, CMD_FILL, 3, off, len, "unaligned"), 0);
	/* The packed command: offset, size (16-byte units), direction 2. */
	snprintf(cmd, sizeof(cmd), "0x%08X%08X", 0x30000, (0x400 & 0xFFFFFFF0) | (2 << 2) | 1);
	ASSERT_OK(um_attr_write("sync_for_cpu", cmd));
	EXPECT_EQ(pattern_diff(r.map + off, 3, off, len), -1);
	EXPECT_EQ(r.map[off - 1], 0x5a);
	EXPECT_EQ(r.map[off + len], 0xa5);
	EXPECT_EQ(um_attr_u64("sync_owner"), 0);
}

TEST(guest_write_mmap_host_checks)
{
	struct region r;

	region_open(&r);
	pattern_fill(r.map + 0x40000, 4, 0x40000, 0x10000);
	ASSERT_OK(um_sync(r.fd, UIOMEM_SYNC_END | UIOMEM_SYNC_WRITE, 0x40000, 0x10000));
	EXPECT_EQ(mbox_call(&r, CMD_CHECK, 4, 0x40000, 0x10000, "mmap-ioctl-sync"), 0);
}

TEST(guest_write_write_host_checks)
{
	static uint8_t buf[0x8000];
	struct region r;

	region_open(&r);
	pattern_fill(buf, 5, 0x50000, sizeof(buf));
	ASSERT_EQ(pwrite(r.fd, buf, sizeof(buf), 0x50000), sizeof(buf));
	EXPECT_EQ(mbox_call(&r, CMD_CHECK, 5, 0x50000, sizeof(buf), "write"), 0);
}

TEST(guest_write_mmap_sysfs_stored_sync_host_checks)
{
	struct region r;

	region_open(&r);
	pattern_fill(r.map + 0x60000 + 3, 6, 0x60000 + 3, 4001);
	ASSERT_OK(um_attr_write("sync_offset", "0x60000"));
	ASSERT_OK(um_attr_write("sync_size", "8192"));
	ASSERT_OK(um_attr_write("sync_direction", "1"));
	ASSERT_OK(um_attr_write("sync_for_device", "1"));
	EXPECT_EQ(um_attr_u64("sync_owner"), 1);
	EXPECT_EQ(mbox_call(&r, CMD_CHECK, 6, 0x60000 + 3, 4001, "mmap-sysfs-sync"), 0);
	ASSERT_OK(um_attr_write("sync_offset", "0"));
	ASSERT_OK(um_attr_write("sync_direction", "0"));
}

TEST(guest_write_osync_mmap_host_checks)
{
	struct region r;
	volatile uint64_t *w;
	int fd, i;

	region_open(&r);
	fd = um_open(O_RDWR | O_SYNC);
	ASSERT_GE(fd, 0);
	w = mmap(NULL, 0x10000, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0x70000);
	ASSERT_TRUE(w != MAP_FAILED);
	/* Aligned 64-bit stores only: the mapping may be Device memory. */
	for (i = 0; i < 0x10000 / 8; i++) {
		uint64_t v = 0;
		int b;

		for (b = 7; b >= 0; b--)
			v = (v << 8) | pattern_byte(7, 0x70000 + i * 8 + b);
		w[i] = v;
	}
	EXPECT_EQ(mbox_call(&r, CMD_CHECK, 7, 0x70000, 0x10000, "osync-mmap"), 0);
}

/* Run last (suite.sh runs it alone): tell the host we are done. */
TEST(zz_bye_to_peer)
{
	struct region r;

	region_open(&r);
	EXPECT_EQ(mbox_call(&r, CMD_BYE, 0, 0x1000, 0, "bye"), 0);
}

TEST_HARNESS_MAIN
