// SPDX-License-Identifier: GPL-2.0
/*
 * cache-arm.c - ARMv7 cache maintenance by modified virtual address:
 * DCCMVAC (clean), DCIMVAC (invalidate), DCCIMVAC (both: a flush, and the
 * partial lines at the edges of an invalidate), DSB, and the outer cache
 * (PL310) by physical address.
 */
#include <linux/pgtable.h>
#include <asm/barrier.h>
#include <asm/cputype.h>
#include <asm/outercache.h>

#include "cache-walk.h"
#include "uiomem.h"

static u32 uiomem_arm_probe(void)
{
	u32 ctr = read_cpuid_cachetype();

	/* ARMv7 format (bits 31:29 = 0b100): DminLine in 4-byte words. */
	if ((ctr >> 29) == 4)
		return 4U << ((ctr >> 16) & 0xf);
	/* ARMv6 format: 8 << Dsize.LEN bytes. */
	return 8U << ((ctr >> 12) & 3);
}

static __always_inline void uiomem_dccmvac(unsigned long addr)
{
	asm volatile("mcr p15, 0, %0, c7, c10, 1" : : "r" (addr) : "memory");
}

static __always_inline void uiomem_dcimvac(unsigned long addr)
{
	asm volatile("mcr p15, 0, %0, c7, c6, 1" : : "r" (addr) : "memory");
}

static __always_inline void uiomem_dccimvac(unsigned long addr)
{
	asm volatile("mcr p15, 0, %0, c7, c14, 1" : : "r" (addr) : "memory");
}

static unsigned int uiomem_arm_clean(void *vaddr, phys_addr_t paddr,
				     size_t size, u32 line)
{
	/* Inner first, so the outer cache receives the dirty lines. */
	uiomem_walk_lines((unsigned long)vaddr, size, line, uiomem_dccmvac);
	dsb(st);
	outer_clean_range(paddr, paddr + size);
	return 1;
}

static unsigned int uiomem_arm_flush(void *vaddr, phys_addr_t paddr,
				     size_t size, u32 line)
{
	/* Inner first, so the outer cache writes back what the inner held. */
	uiomem_walk_lines((unsigned long)vaddr, size, line, uiomem_dccimvac);
	dsb(st);
	outer_flush_range(paddr, paddr + size);
	return 1;
}

static unsigned int uiomem_arm_inval(void *vaddr, phys_addr_t paddr,
				     size_t size, u32 line)
{
	unsigned long first, last;

	/* Push the partial edge lines out before the outer cache drops them. */
	uiomem_walk_edges((unsigned long)vaddr, size, line, uiomem_dccimvac,
			  &first, &last);
	dsb(st);
	/* The outer cache cleans its own partial edge lines. */
	outer_inv_range(paddr, paddr + size);
	uiomem_walk(first, last, line, uiomem_dcimvac);
	dsb(st);
	return 2;
}

static pgprot_t uiomem_arm_dmacoherent(pgprot_t prot)
{
	return pgprot_dmacoherent(prot);
}

const struct uiomem_cache_ops uiomem_cache_ops = {
	.name = "ARMv7 DCCMVAC/DCIMVAC/DCCIMVAC + DSB + outer cache",
	.sync_operation = "ARMV7 Native",
	.probe = uiomem_arm_probe,
	.clean = uiomem_arm_clean,
	.inval = uiomem_arm_inval,
	.flush = uiomem_arm_flush,
	.dmacoherent = uiomem_arm_dmacoherent,
};
