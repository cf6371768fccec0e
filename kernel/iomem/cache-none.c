// SPDX-License-Identifier: GPL-2.0
/*
 * cache-none.c - architectures without a uiomem cache implementation:
 * no maintenance, so every mapping is uncached.
 */
#include <linux/pgtable.h>

#include "uiomem.h"

static u32 uiomem_none_probe(void)
{
	return 0;
}

static unsigned int uiomem_none_op(void *vaddr, phys_addr_t paddr,
				   size_t size, u32 line)
{
	return 0;
}

static pgprot_t uiomem_none_dmacoherent(pgprot_t prot)
{
	return pgprot_writecombine(prot);
}

const struct uiomem_cache_ops uiomem_cache_ops = {
	.name = "none",
	.sync_operation = "NONE",
	.probe = uiomem_none_probe,
	.clean = uiomem_none_op,
	.inval = uiomem_none_op,
	.flush = uiomem_none_op,
	.dmacoherent = uiomem_none_dmacoherent,
};
