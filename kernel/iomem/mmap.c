// SPDX-License-Identifier: GPL-2.0
/*
 * mmap.c - user mappings of a region: cached unless O_SYNC, sync-always or
 * an uncached region ask for the sync_mode protection.
 */
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/uiomem.h>

#include "compat.h"
#include "uiomem.h"

/**
 * uiomem_map_type() - the memory type mmap() gives
 * @um: the region
 * @o_sync: the file was opened with O_SYNC
 *
 * Cached regions map cacheable, unless O_SYNC or sync-always ask for the
 * sync_mode type.  Uncached regions (cache-off, option bit 1 clear, or a
 * CPU without cache maintenance) always take the sync_mode type, and
 * sync_mode 0 there means uncached: a cacheable mapping could never be
 * made coherent (the original driver maps it cacheable).  Where all aliases
 * must share one memory type (x86 PAT), mappings follow the kernel alias:
 * write-back for cached regions, write-combine for uncached ones.
 *
 * Return: UIOMEM_MAP_*.
 */
u32 uiomem_map_type(const struct uiomem *um, bool o_sync)
{
	u32 mode = READ_ONCE(um->sync_mode);
	u32 type = UIOMEM_MAP_CACHED;

	if (uiomem_cache_ops.single_memtype)
		return um->cached ? UIOMEM_MAP_CACHED : UIOMEM_MAP_WRITECOMBINE;
	if (o_sync || (mode & UIOMEM_SYNC_ALWAYS) || !um->cached)
		type = mode & UIOMEM_SYNC_MODE_MASK;
	if (type == UIOMEM_MAP_CACHED && !um->cached)
		return UIOMEM_MAP_UNCACHED;
	return type;
}

/*
 * The protection with the PTEs' dirty and young bits already set: CPUs
 * without hardware dirty tracking (Cortex-A53, A9, U54) would otherwise take
 * a fault on the first write to every page.  Nothing tracks dirtiness here;
 * a read-only mapping stays read-only.
 */
static pgprot_t uiomem_prot_dirty(pgprot_t prot)
{
	return __pgprot(pte_val(pte_mkyoung(pte_mkdirty(__pte(pgprot_val(prot))))));
}

/* Pages are all mapped at mmap() time: a fault is an access after removal. */
static vm_fault_t uiomem_vm_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static const struct vm_operations_struct uiomem_vm_ops = {
	.fault = uiomem_vm_fault,
};

int uiomem_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct uiomem *um = file->private_data;
	u64 npages = um->size >> PAGE_SHIFT;
	pgprot_t prot = vma->vm_page_prot;
	int ret;

	/*
	 * A private copy-on-write mapping of device memory makes no sense.
	 * (A shared mapping of a read-only file has VM_MAYSHARE only.)
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= npages || vma_pages(vma) > npages - vma->vm_pgoff)
		return -ENXIO;

	ret = mutex_lock_interruptible(&um->lock);
	if (ret)
		return ret;
	if (um->dead) {
		ret = -ENODEV;
		goto out_unlock;
	}
	switch (uiomem_map_type(um, file->f_flags & O_SYNC)) {
	case UIOMEM_MAP_UNCACHED:
		prot = pgprot_noncached(prot);
		break;
	case UIOMEM_MAP_WRITECOMBINE:
		prot = pgprot_writecombine(prot);
		break;
	case UIOMEM_MAP_DMACOHERENT:
		prot = uiomem_cache_ops.dmacoherent(prot);
		break;
	default:
		break;
	}
	prot = uiomem_prot_dirty(prot);
	vma->vm_page_prot = prot;
	vma->vm_ops = &uiomem_vm_ops;
	vma->vm_private_data = um;
	udmem_vm_flags_set(vma, VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	ret = remap_pfn_range(vma, vma->vm_start,
			      PHYS_PFN(um->phys) + vma->vm_pgoff,
			      vma->vm_end - vma->vm_start, prot);
out_unlock:
	mutex_unlock(&um->lock);
	return ret;
}
