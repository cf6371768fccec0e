/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cache-flush.h - one clean-and-invalidate pass over a range of the kernel
 * mapping, for read() of a buffer with a cached kernel alias (file.c).
 *
 * The DMA API has no such operation: a sync for the device cleans and one
 * for the CPU invalidates.  Done one after the other, a line the CPU writes
 * between the two (through a cached user mapping of the same memory) is
 * discarded by the second.  Clean-and-invalidate by line cannot lose it:
 * each line is written back and dropped in one instruction.
 *
 * udmabuf_cache_flush() returns false where this file knows no such
 * instruction; the caller then does the two DMA API passes.  A cached
 * alias exists only for a non-coherent device, and every architecture we
 * build for with non-coherent DMA is here: arm64, arm (ARMv6/v7, and the
 * outer cache) and riscv (Zicbom, which non-coherent DMA there requires).
 * @vaddr is in the kernel's linear map (dma_alloc_noncoherent()).
 */
#ifndef UDMEM_UDMABUF_CACHE_FLUSH_H
#define UDMEM_UDMABUF_CACHE_FLUSH_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/page.h>

#if defined(CONFIG_ARM64)
#include <asm/cputype.h>

static inline bool udmabuf_cache_flush(void *vaddr, size_t size)
{
	/* CTR_EL0.DminLine: log2 of the smallest D-cache line in words. */
	unsigned long line = 4UL << ((read_cpuid_cachetype() >> 16) & 0xf);
	unsigned long a = ALIGN_DOWN((unsigned long)vaddr, line);
	unsigned long end = (unsigned long)vaddr + size;

	for (; a < end; a += line)
		asm volatile("dc civac, %0" : : "r" (a) : "memory");
	dsb(sy);
	return true;
}

#elif defined(CONFIG_ARM)
#include <asm/cputype.h>
#include <asm/outercache.h>

static inline bool udmabuf_cache_flush(void *vaddr, size_t size)
{
	u32 ctr = read_cpuid_cachetype();
	/* ARMv7 CTR: DminLine in words; ARMv6: 8 << Dsize.LEN bytes. */
	unsigned long line = (ctr >> 29) == 4 ? 4UL << ((ctr >> 16) & 0xf) :
			     8UL << ((ctr >> 12) & 3);
	unsigned long a = ALIGN_DOWN((unsigned long)vaddr, line);
	unsigned long end = (unsigned long)vaddr + size;

	/* Inner first (DCCIMVAC), so the outer cache gets what it held. */
	for (; a < end; a += line)
		asm volatile("mcr p15, 0, %0, c7, c14, 1" : : "r" (a) : "memory");
	dsb(st);
	outer_flush_range(virt_to_phys(vaddr), virt_to_phys(vaddr) + size);
	return true;
}

#elif defined(CONFIG_RISCV)
#include <linux/log2.h>
#include <linux/of.h>
#include <asm/cpufeature.h>
#include <asm/hwcap.h>

/* The Zicbom block size the device tree gives, 0 without Zicbom. */
static inline unsigned long udmabuf_cbom_block(void)
{
	static u32 block = U32_MAX;
	struct device_node *np;
	u32 size = 0;

	if (READ_ONCE(block) != U32_MAX)
		return READ_ONCE(block);
	if (riscv_isa_extension_available(NULL, ZICBOM)) {
		for_each_of_cpu_node(np) {
			if (!of_property_read_u32(np, "riscv,cbom-block-size", &size)) {
				of_node_put(np);
				break;
			}
		}
	}
	WRITE_ONCE(block, is_power_of_2(size) ? size : 0);
	return READ_ONCE(block);
}

static inline bool udmabuf_cache_flush(void *vaddr, size_t size)
{
	unsigned long line = udmabuf_cbom_block();
	unsigned long a, end = (unsigned long)vaddr + size;

	if (!line)
		return false;
	/* CBO.FLUSH by its encoding: binutils may not know Zicbom. */
	for (a = ALIGN_DOWN((unsigned long)vaddr, line); a < end; a += line)
		asm volatile(".insn i 0x0f, 2, x0, %0, 2" : : "r" (a) : "memory");
	/* The CBOs complete before the copy reads the memory. */
	mb();
	return true;
}

#else
static inline bool udmabuf_cache_flush(void *vaddr, size_t size)
{
	return false;
}
#endif

#endif /* UDMEM_UDMABUF_CACHE_FLUSH_H */
