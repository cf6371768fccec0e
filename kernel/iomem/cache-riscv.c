// SPDX-License-Identifier: GPL-2.0
/*
 * cache-riscv.c - Zicbom cache-block maintenance: CBO.CLEAN, CBO.INVAL,
 * CBO.FLUSH (a flush, and the partial blocks at the edges of an invalidate),
 * then a FENCE.  The block size is the kernel's, from "riscv,cbom-block-size".
 *
 * Without Zicbom no cached mapping can be kept coherent, so probe() reports
 * 0 and every mapping is made uncached (see docs/device-memory.md).
 */
#include <linux/log2.h>
#include <linux/of.h>
#include <linux/pgtable.h>
#include <asm/barrier.h>
#include <asm/cpufeature.h>
#include <asm/hwcap.h>

#include "cache-walk.h"
#include "uiomem.h"

static u32 uiomem_riscv_probe(void)
{
	struct device_node *np;
	u32 size = 0;

	if (!riscv_isa_extension_available(NULL, ZICBOM))
		return 0;
	for_each_of_cpu_node(np) {
		if (!of_property_read_u32(np, "riscv,cbom-block-size", &size)) {
			of_node_put(np);
			break;
		}
	}
	return is_power_of_2(size) ? size : 0;
}

/* The instructions by encoding: binutils may not be told about Zicbom. */
static __always_inline void uiomem_cbo_clean(unsigned long addr)
{
	asm volatile(".insn i 0x0f, 2, x0, %0, 1" : : "r" (addr) : "memory");
}

static __always_inline void uiomem_cbo_inval(unsigned long addr)
{
	asm volatile(".insn i 0x0f, 2, x0, %0, 0" : : "r" (addr) : "memory");
}

static __always_inline void uiomem_cbo_flush(unsigned long addr)
{
	asm volatile(".insn i 0x0f, 2, x0, %0, 2" : : "r" (addr) : "memory");
}

static unsigned int uiomem_riscv_clean(void *vaddr, phys_addr_t paddr,
				       size_t size, u32 line)
{
	uiomem_walk_lines((unsigned long)vaddr, size, line, uiomem_cbo_clean);
	/* The CBOs complete before later accesses, and before the device is told. */
	mb();
	return 1;
}

static unsigned int uiomem_riscv_flush(void *vaddr, phys_addr_t paddr,
				       size_t size, u32 line)
{
	uiomem_walk_lines((unsigned long)vaddr, size, line, uiomem_cbo_flush);
	/* The CBOs complete before the CPU reads the range again. */
	mb();
	return 1;
}

static unsigned int uiomem_riscv_inval(void *vaddr, phys_addr_t paddr,
				       size_t size, u32 line)
{
	unsigned long first, last;

	uiomem_walk_edges((unsigned long)vaddr, size, line, uiomem_cbo_flush,
			  &first, &last);
	uiomem_walk(first, last, line, uiomem_cbo_inval);
	/* The CBOs complete before the CPU reads the range again. */
	mb();
	return 1;
}

static pgprot_t uiomem_riscv_dmacoherent(pgprot_t prot)
{
	return pgprot_writecombine(prot);
}

const struct uiomem_cache_ops uiomem_cache_ops = {
	.name = "RISC-V Zicbom CBO.CLEAN/INVAL/FLUSH + FENCE",
	.sync_operation = "RISCV Zicbom",
	.probe = uiomem_riscv_probe,
	.clean = uiomem_riscv_clean,
	.inval = uiomem_riscv_inval,
	.flush = uiomem_riscv_flush,
	.dmacoherent = uiomem_riscv_dmacoherent,
};
