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
 * The protection of an entry a fault inserts: young, and dirty where the
 * entry is writable.  CPUs without hardware access and dirty tracking
 * (Cortex-A53, A9, U54) would otherwise take a second fault on the first
 * access or write of every page.  Nothing tracks dirtiness here.  A
 * read-only entry gets no Dirty bit: on x86 Write=0,Dirty=1 is a shadow
 * stack entry.  That includes a writable mapping whose protection the
 * kernel keeps read-only to see writes (soft-dirty tracking), hence the
 * test of the protection rather than of VM_WRITE.  vm_page_prot itself
 * never holds the bit, or mprotect() would carry it into the read-only
 * protection it computes from it.
 */
static pgprot_t uiomem_fault_prot(struct vm_area_struct *vma)
{
	pte_t pte = pte_mkyoung(__pte(pgprot_val(vma->vm_page_prot)));

	if (pte_write(pte))
		pte = pte_mkdirty(pte);
	return __pgprot(pte_val(pte));
}

/*
 * Insert the page frames of [@start, @end) of @vma: VM_FAULT_NOPAGE if the
 * one at @addr is in place afterwards, else VM_FAULT_SIGBUS.  The others
 * are best effort: a page left out faults again.
 */
static vm_fault_t uiomem_insert_range(struct vm_area_struct *vma, unsigned long pfn,
				      unsigned long start, unsigned long end,
				      unsigned long addr)
{
	pgprot_t prot = uiomem_fault_prot(vma);
	vm_fault_t ret = VM_FAULT_SIGBUS;
	unsigned long a;

	for (a = start; a < end; a += PAGE_SIZE) {
		if (vmf_insert_pfn_prot(vma, a, pfn + ((a - start) >> PAGE_SHIFT),
					prot) != VM_FAULT_NOPAGE)
			continue;
		if (a == addr)
			ret = VM_FAULT_NOPAGE;
	}
	return ret;
}

/*
 * The sync checker on (ownership.c): one page per fault, after asking who
 * owns it; a page the device reads is mapped write-protected.  Under
 * @um->lock, so that a sync for the device either removes the entry or
 * comes after the fault.
 */
static vm_fault_t uiomem_vm_fault_check(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct uiomem *um = vma->vm_private_data;
	unsigned long addr = vmf->address & PAGE_MASK;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	bool wrprotect;
	vm_fault_t ret;
	pte_t pte;

	ret = uiomem_chk_fault(um, off, vmf->address, vmf->flags & FAULT_FLAG_WRITE,
			       &wrprotect);
	if (ret)
		return ret;
	if (!wrprotect)
		return uiomem_insert_range(vma, PHYS_PFN(um->phys + off), addr,
					   addr + PAGE_SIZE, addr);
	/* Read-only and not dirty (x86: Write=0,Dirty=1 is a shadow stack entry). */
	pte = pte_wrprotect(pte_mkyoung(__pte(pgprot_val(vma->vm_page_prot))));
	return vmf_insert_pfn_prot(vma, addr, PHYS_PFN(um->phys + off),
				   __pgprot(pte_val(pte)));
}

/**
 * uiomem_vm_fault() - map the pages around a faulting address
 * @vmf: the fault
 *
 * Entries are made here, never at mmap() time: mmap() runs before its VMA
 * is linked into the file's address space, where removal looks for
 * mappings to revoke, so entries it made could outlive the region.  A fault
 * only happens on a linked VMA, and it checks under @um->lock that the
 * region is still there: removal marks the region dead under the lock and
 * then zaps every mapping, so no entry survives it and every later access
 * is SIGBUS.
 *
 * One fault maps the naturally aligned 2 MiB block of addresses around it
 * (within the VMA), so that touching a region costs one fault per 2 MiB
 * instead of one per page.
 *
 * Return: VM_FAULT_NOPAGE, or VM_FAULT_SIGBUS after removal or past the
 * region.
 */
static vm_fault_t uiomem_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct uiomem *um = vma->vm_private_data;
	unsigned long addr = vmf->address & PAGE_MASK;
	unsigned long start = max(addr & PMD_MASK, vma->vm_start);
	unsigned long end = min((addr & PMD_MASK) + PMD_SIZE, vma->vm_end);
	u64 npages = um->size >> PAGE_SHIFT;
	unsigned long first = (start - vma->vm_start) >> PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	/* mmap() checked the range and the VMA cannot grow: only a guard. */
	if (vma->vm_pgoff + first + ((end - start) >> PAGE_SHIFT) > npages)
		return VM_FAULT_SIGBUS;
	mutex_lock(&um->lock);
	if (um->dead)
		goto out;
	if (unlikely(um->sync_check)) {
		ret = uiomem_vm_fault_check(vmf);
		goto out;
	}
	ret = uiomem_insert_range(vma, PHYS_PFN(um->phys) + vma->vm_pgoff + first,
				  start, end, addr);
out:
	mutex_unlock(&um->lock);
	return ret;
}

/*
 * A write to a page the checker mapped write-protected (the device reads
 * it since a sync to the device).  Only mappings made while the checker
 * was on have this: with it, the kernel keeps every entry of a writable
 * mapping read-only until the first write (write notification), which
 * would cost mappings without the checker a fault per written page.  The
 * checker off, the write goes on.
 */
static vm_fault_t uiomem_vm_pfn_mkwrite(struct vm_fault *vmf)
{
	struct uiomem *um = vmf->vma->vm_private_data;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	mutex_lock(&um->lock);
	if (!um->dead)
		ret = uiomem_chk_mkwrite(um, (u64)vmf->pgoff << PAGE_SHIFT, vmf->address);
	mutex_unlock(&um->lock);
	return ret;
}

static const struct vm_operations_struct uiomem_vm_ops = {
	.fault = uiomem_vm_fault,
};

/* The mappings made while the sync checker was on. */
static const struct vm_operations_struct uiomem_vm_ops_check = {
	.fault = uiomem_vm_fault,
	.pfn_mkwrite = uiomem_vm_pfn_mkwrite,
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
	/* No entry now: uiomem_vm_fault() makes them. */
	vma->vm_page_prot = prot;
	vma->vm_ops = um->sync_check ? &uiomem_vm_ops_check : &uiomem_vm_ops;
	vma->vm_private_data = um;
	udmem_vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
out_unlock:
	mutex_unlock(&um->lock);
	return ret;
}
