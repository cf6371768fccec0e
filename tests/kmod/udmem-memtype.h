/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ioctl of tests/kmod/udmem-memtype.ko (/dev/udmem-memtype), shared
 * with tests/guest/memtype.  Test-only.
 */
#ifndef UDMEM_MEMTYPE_H
#define UDMEM_MEMTYPE_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* What the page-table entry says of the memory behind an address. */
#define UDMEM_MT_CACHEABLE	1	/* write-back cached */
#define UDMEM_MT_WRITE_THROUGH	2	/* write-through cached */
#define UDMEM_MT_NORMAL_NC	3	/* arm64: Normal non-cacheable */
#define UDMEM_MT_WRITE_COMBINE	4	/* x86: WC */
#define UDMEM_MT_DEVICE		5	/* arm64: Device-*; x86: UC, UC- */
#define UDMEM_MT_OTHER		6	/* decoded, none of the above (see raw) */

/**
 * struct udmem_memtype - the memory type of one address
 * @addr: in: a mapped user address of the calling process, or 0 for the
 *	kernel address of the u-dma-buf buffer @name (made by the manager or
 *	the in-kernel API: u_dma_buf_device_search() finds only those)
 * @name: in: the buffer's name when @addr is 0
 * @type: out: UDMEM_MT_*
 * @level: out: the page-table level of the entry (x86: 1 = 4 KiB, 2 =
 *	2 MiB, 3 = 1 GiB); 0 where the hardware translated (arm64: AT)
 * @raw: out: arm64: PAR_EL1 after AT S1E0R/S1E1R; x86: the entry's flags
 * @kaddr: out: the kernel address looked up, when @addr was 0
 */
struct udmem_memtype {
	__u64 addr;
	char name[64];
	__u32 type;
	__u32 level;
	__u64 raw;
	__u64 kaddr;
};

#define UDMEM_MEMTYPE_QUERY	_IOWR('m', 0xe0, struct udmem_memtype)

#endif /* UDMEM_MEMTYPE_H */
