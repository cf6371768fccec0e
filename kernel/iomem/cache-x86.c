// SPDX-License-Identifier: GPL-2.0
/*
 * cache-x86.c - x86 has no invalidate without write-back for a range, so
 * every operation flushes (CLFLUSHOPT, or CLFLUSH) through the kernel's
 * clflush_cache_range(), which fences before and after.
 *
 * PAT requires every mapping of a page to have the same memory type, and
 * the kernel alias is write-back, so user mappings are write-back too.
 */
#include <linux/minmax.h>
#include <linux/pgtable.h>
#include <asm/cacheflush.h>
#include <asm/cpufeature.h>
#include <asm/processor.h>

#include "uiomem.h"

static u32 uiomem_x86_probe(void)
{
	if (!boot_cpu_has(X86_FEATURE_CLFLUSH))
		return 0;
	return boot_cpu_data.x86_clflush_size;
}

static unsigned int uiomem_x86_flush(void *vaddr, phys_addr_t paddr,
				     size_t size, u32 line)
{
	unsigned int barriers = 0;

	/* clflush_cache_range() takes an unsigned int size. */
	while (size) {
		unsigned int n = min_t(size_t, size, SZ_1G);

		clflush_cache_range(vaddr, n);
		vaddr += n;
		size -= n;
		barriers += 2;
	}
	return barriers;
}

static pgprot_t uiomem_x86_dmacoherent(pgprot_t prot)
{
	return pgprot_writecombine(prot);
}

const struct uiomem_cache_ops uiomem_cache_ops = {
	.name = "x86 CLFLUSHOPT/CLFLUSH + MFENCE",
	.sync_operation = "X86 CLFLUSH",
	.probe = uiomem_x86_probe,
	.clean = uiomem_x86_flush,
	.inval = uiomem_x86_flush,
	.flush = uiomem_x86_flush,
	.dmacoherent = uiomem_x86_dmacoherent,
	.single_memtype = true,
};
