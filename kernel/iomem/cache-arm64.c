// SPDX-License-Identifier: GPL-2.0
/*
 * cache-arm64.c - cache maintenance by virtual address to the point of
 * coherency: DC CVAC (clean), DC IVAC (invalidate), DC CIVAC (both: a flush,
 * and the partial lines at the edges of an invalidate), then one DSB SY.
 */
#include <linux/pgtable.h>
#include <asm/barrier.h>
#include <asm/cputype.h>

#include "cache-walk.h"
#include "uiomem.h"

/* CTR_EL0.DminLine: log2 of the smallest D-cache line, in 4-byte words. */
#define UIOMEM_CTR_DMINLINE_SHIFT	16
#define UIOMEM_CTR_DMINLINE_MASK	0xf

static u32 uiomem_arm64_probe(void)
{
	u32 ctr = read_cpuid_cachetype();

	return 4U << ((ctr >> UIOMEM_CTR_DMINLINE_SHIFT) & UIOMEM_CTR_DMINLINE_MASK);
}

static __always_inline void uiomem_dc_cvac(unsigned long addr)
{
	asm volatile("dc cvac, %0" : : "r" (addr) : "memory");
}

static __always_inline void uiomem_dc_ivac(unsigned long addr)
{
	asm volatile("dc ivac, %0" : : "r" (addr) : "memory");
}

static __always_inline void uiomem_dc_civac(unsigned long addr)
{
	asm volatile("dc civac, %0" : : "r" (addr) : "memory");
}

static unsigned int uiomem_arm64_clean(void *vaddr, phys_addr_t paddr,
				       size_t size, u32 line)
{
	uiomem_walk_lines((unsigned long)vaddr, size, line, uiomem_dc_cvac);
	dsb(sy);
	return 1;
}

static unsigned int uiomem_arm64_flush(void *vaddr, phys_addr_t paddr,
				       size_t size, u32 line)
{
	uiomem_walk_lines((unsigned long)vaddr, size, line, uiomem_dc_civac);
	dsb(sy);
	return 1;
}

static unsigned int uiomem_arm64_inval(void *vaddr, phys_addr_t paddr,
				       size_t size, u32 line)
{
	unsigned long first, last;

	uiomem_walk_edges((unsigned long)vaddr, size, line, uiomem_dc_civac,
			  &first, &last);
	uiomem_walk(first, last, line, uiomem_dc_ivac);
	dsb(sy);
	return 1;
}

/* arm64 has no "dma-coherent" type of its own: Normal non-cacheable. */
static pgprot_t uiomem_arm64_dmacoherent(pgprot_t prot)
{
	return pgprot_writecombine(prot);
}

const struct uiomem_cache_ops uiomem_cache_ops = {
	.name = "arm64 DC CVAC/IVAC/CIVAC + DSB",
	.sync_operation = "ARM64 Native",
	.probe = uiomem_arm64_probe,
	.clean = uiomem_arm64_clean,
	.inval = uiomem_arm64_inval,
	.flush = uiomem_arm64_flush,
	.dmacoherent = uiomem_arm64_dmacoherent,
};
