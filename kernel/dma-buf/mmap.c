// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-buf: mmap of /dev/<name> and of exported dma-bufs.
 *
 * The whole VMA is mapped when mmap() is called, so touching a buffer costs
 * no page faults: remap_pfn_range() for the pfn modes, vm_insert_pages()
 * for page mode (normal refcounted pages in a VM_MIXEDMAP VMA, so that
 * get_user_pages(), O_DIRECT and io_uring work on it), dma_mmap_coherent()
 * for mode "off" and for memory without usable page frames.  The fault
 * handler only refills pages that were zapped afterwards.
 *
 * One exception: on kernels with special PMD entries (compat.h), a cached
 * pfn-mode mapping whose virtual and physical addresses agree modulo 2 MiB
 * maps its 2 MiB-aligned middle with PMD entries, one fault per 2 MiB
 * (->huge_fault), and only its edges with PTEs at mmap time.  The file's
 * get_unmapped_area() picks such an address (not for an exported dma-buf,
 * whose file is the dma-buf core's).  Uncached mappings stay one
 * remap_pfn_range(): x86's PAT gives an entry inserted by a fault the
 * memory type the RAM has, not the one asked for.  Page mode stays PTEs:
 * its pages are not one folio.  buf->map_pmd and map_pte count the entries
 * we install.
 *
 * A busy buffer whose parent's driver is unbound loses its memory
 * (udmabuf_mmap_revoke()): its mappings are zapped, and from then on mmap()
 * fails with ENODEV and a fault on an old mapping gets SIGBUS.  buf->map_lock
 * makes each fault's and each mmap()'s look at buf->revoked and what it maps
 * one step for the revocation.
 *
 * Cache attributes follow the reference driver: the quirk modes map cached
 * unless O_SYNC or sync_mode bit 2 asks for sync_mode's attribute; mode off
 * (and auto on a coherent device) gets dma_mmap_coherent()'s attribute.
 */
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/ioport.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>

#include "compat.h"
#include "udmabuf.h"

/*
 * The protection of a new mapping, and in @cached whether it asked for the
 * cached attribute: what it asked, not what the CPU gives (a RISC-V CPU
 * without Svpbmt makes pgprot_noncached() the cached protection).
 */
static pgprot_t udmabuf_mmap_prot(const struct udmabuf *buf, pgprot_t prot,
				  bool force_sync, bool *cached)
{
	u32 mode = READ_ONCE(buf->sync_mode);

	*cached = false;
	if (!force_sync && !(mode & UDMABUF_SYNC_ALWAYS)) {
		*cached = true;
		return prot;
	}
	switch (mode & UDMABUF_SYNC_MODE_MASK) {
	case UDMABUF_SYNC_NONCACHED:
		return pgprot_noncached(prot);
	case UDMABUF_SYNC_WRITECOMBINE:
		return pgprot_writecombine(prot);
	case UDMABUF_SYNC_DMACOHERENT:
		return IS_ENABLED(CONFIG_ARM) ? pgprot_dmacoherent(prot) :
		       pgprot_writecombine(prot);
	default:
		*cached = true;
		return prot;
	}
}

/*
 * The protection with the dirty (and young) bits of a PTE already set, so
 * that the first write to a page we map does not take a fault to mark it
 * dirty (CPUs without hardware dirty tracking, e.g. Cortex-A53).  Nothing
 * here tracks dirtiness: the memory is not page cache.  Only for a
 * writable VMA: x86 reads Write=0,Dirty=1 as a shadow-stack entry.  And
 * never left in vma->vm_page_prot, which mprotect() keeps the dirty bit
 * of (x86's pgprot_modify()) when it takes the write bit away.
 */
static pgprot_t udmabuf_prot_dirty(const struct vm_area_struct *vma, pgprot_t prot)
{
	if (!(vma->vm_flags & VM_WRITE))
		return prot;
	return __pgprot(pte_val(pte_mkyoung(pte_mkdirty(__pte(pgprot_val(prot))))));
}

static const struct vm_operations_struct udmabuf_vm_ops_pmd;

/*
 * A fault in the middle of a mapping meant for PMD entries that the kernel
 * did not hand to udmabuf_vm_huge_fault() (THP disabled for the system or
 * the process) or that it refused: map the whole 2 MiB block around it
 * with PTEs, so that touching the middle still costs one fault per 2 MiB.
 * The pages other than the faulting one are best effort.
 */
static vm_fault_t udmabuf_vm_fault_block(struct vm_fault *vmf, struct udmabuf_view *view)
{
	struct vm_area_struct *vma = vmf->vma;
	struct udmabuf *buf = view->buf;
	unsigned long block = vmf->address & PMD_MASK;
	unsigned long start = max(block, vma->vm_start);
	unsigned long end = min(block + PMD_SIZE, vma->vm_end);
	unsigned long first = buf->pfn + (view->base >> PAGE_SHIFT) + vma->vm_pgoff;
	unsigned long npages = view->len >> PAGE_SHIFT;
	/* young and dirty as at mmap time, where the VMA is writable now */
	pgprot_t prot = udmabuf_prot_dirty(vma, vma->vm_page_prot);
	unsigned long addr, idx;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	for (addr = start; addr < end; addr += PAGE_SIZE) {
		idx = (addr - vma->vm_start) >> PAGE_SHIFT;
		if (vma->vm_pgoff + idx >= npages)
			break;
		if (vmf_insert_pfn_prot(vma, addr, first + idx, prot) != VM_FAULT_NOPAGE)
			continue;
		atomic_long_inc(&buf->map_pte);
		if (addr == (vmf->address & PAGE_MASK))
			ret = VM_FAULT_NOPAGE;
	}
	return ret;
}

static vm_fault_t udmabuf_vm_fault_locked(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct udmabuf_view *view = vma->vm_private_data;
	struct udmabuf *buf = view->buf;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	unsigned long idx;
	vm_fault_t ret;

	if (off >= view->len || buf->revoked)
		return VM_FAULT_SIGBUS;
	idx = (view->base + off) >> PAGE_SHIFT;
	if (buf->debug_vma & 2)
		dev_info(buf->dma_dev, "%s: fault at page %lu\n", buf->name, idx);
	if (vma->vm_ops == &udmabuf_vm_ops_pmd)
		return udmabuf_vm_fault_block(vmf, view);
	/* A normal page again, not a special PTE: GUP and O_DIRECT need it. */
	if (buf->mt.map == UDMABUF_MAP_PAGES)
		ret = vmf_insert_page(vma, vmf->address, buf->pages[idx]);
	else
		ret = vmf_insert_pfn_prot(vma, vmf->address, buf->pfn + idx,
					  udmabuf_prot_dirty(vma, vma->vm_page_prot));
	if (ret == VM_FAULT_NOPAGE)
		atomic_long_inc(&buf->map_pte);
	return ret;
}

static vm_fault_t udmabuf_vm_fault(struct vm_fault *vmf)
{
	struct udmabuf_view *view = vmf->vma->vm_private_data;
	vm_fault_t ret;

	mutex_lock(&view->buf->map_lock);
	ret = udmabuf_vm_fault_locked(vmf);
	mutex_unlock(&view->buf->map_lock);
	return ret;
}

#define UDMABUF_PMD_PAGES	(PMD_SIZE >> PAGE_SHIFT)

/*
 * A 2 MiB entry for the aligned 2 MiB around the fault, or a fallback to
 * udmabuf_vm_fault() when that range leaves the VMA or the view, or when
 * its page frames do not start on a 2 MiB boundary (a VMA that mremap()
 * moved to an address that no longer agrees with them).
 */
static vm_fault_t __maybe_unused udmabuf_vm_huge_fault(struct vm_fault *vmf,
						       unsigned int order)
{
	struct vm_area_struct *vma = vmf->vma;
	struct udmabuf_view *view = vma->vm_private_data;
	struct udmabuf *buf = view->buf;
	unsigned long addr = vmf->address & PMD_MASK;
	unsigned long npages = view->len >> PAGE_SHIFT;
	unsigned long pgoff, pfn;
	vm_fault_t ret;

	if (order != PMD_SHIFT - PAGE_SHIFT || buf->mt.map == UDMABUF_MAP_PAGES)
		return VM_FAULT_FALLBACK;
	if (addr < vma->vm_start || vma->vm_end - addr < PMD_SIZE)
		return VM_FAULT_FALLBACK;
	pgoff = vma->vm_pgoff + ((addr - vma->vm_start) >> PAGE_SHIFT);
	if (pgoff > npages || npages - pgoff < UDMABUF_PMD_PAGES)
		return VM_FAULT_FALLBACK;
	pfn = buf->pfn + (view->base >> PAGE_SHIFT) + pgoff;
	if (pfn & (UDMABUF_PMD_PAGES - 1))
		return VM_FAULT_FALLBACK;
	if (buf->debug_vma & 2)
		dev_info(buf->dma_dev, "%s: pmd fault at page %lu\n", buf->name,
			 (unsigned long)(view->base >> PAGE_SHIFT) + pgoff);
	/* Young and dirty at once where writable, as the PTEs made at mmap time. */
	mutex_lock(&buf->map_lock);
	if (buf->revoked)
		ret = VM_FAULT_SIGBUS;
	else
		ret = udmem_vmf_insert_pfn_pmd(vmf, pfn, vma->vm_flags & VM_WRITE);
	mutex_unlock(&buf->map_lock);
	if (ret == VM_FAULT_NOPAGE)
		atomic_long_inc(&buf->map_pmd);
	return ret;
}

static void udmabuf_vm_open(struct vm_area_struct *vma)
{
	struct udmabuf_view *view = vma->vm_private_data;

	if (view->buf->debug_vma & 1)
		dev_info(view->buf->dma_dev, "%s: vma open %#lx-%#lx\n", view->buf->name,
			 vma->vm_start, vma->vm_end);
}

static void udmabuf_vm_close(struct vm_area_struct *vma)
{
	struct udmabuf_view *view = vma->vm_private_data;

	if (view->buf->debug_vma & 1)
		dev_info(view->buf->dma_dev, "%s: vma close %#lx-%#lx\n", view->buf->name,
			 vma->vm_start, vma->vm_end);
}

static const struct vm_operations_struct udmabuf_vm_ops = {
	.open = udmabuf_vm_open,
	.close = udmabuf_vm_close,
	.fault = udmabuf_vm_fault,
};

/* The same with 2 MiB entries, for the mappings that may hold them. */
static const struct vm_operations_struct udmabuf_vm_ops_pmd = {
	.open = udmabuf_vm_open,
	.close = udmabuf_vm_close,
	.fault = udmabuf_vm_fault,
	.huge_fault = UDMEM_HUGE_FAULT(udmabuf_vm_huge_fault),
};

/*
 * The sync checker's mappings (ownership.c): nothing is mapped at mmap
 * time, every page comes through this fault, which asks who owns it, and
 * maps a page the device reads write-protected.  Under buf->lock, so that
 * a sync for the device either sees the entry and removes it or is seen.
 * One PTE per fault, also where PMD entries would fit.
 */
static vm_fault_t udmabuf_vm_fault_check(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct udmabuf_view *view = vma->vm_private_data;
	struct udmabuf *buf = view->buf;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	unsigned long idx;
	bool wrprotect;
	pgprot_t prot;
	vm_fault_t ret;

	if (off >= view->len)
		return VM_FAULT_SIGBUS;
	idx = (view->base + off) >> PAGE_SHIFT;
	mutex_lock(&buf->map_lock);
	mutex_lock(&buf->lock);
	ret = VM_FAULT_SIGBUS;
	if (buf->revoked)
		goto out;
	ret = udmabuf_own_fault(buf, view->base + off, vmf->address,
				vmf->flags & FAULT_FLAG_WRITE, &wrprotect);
	if (ret)
		goto out;
	if (buf->mt.map == UDMABUF_MAP_PAGES) {
		ret = vmf_insert_page(vma, vmf->address, buf->pages[idx]);
	} else {
		prot = vma->vm_page_prot;
		if (wrprotect)
			prot = __pgprot(pte_val(pte_wrprotect(__pte(pgprot_val(prot)))));
		ret = vmf_insert_pfn_prot(vma, vmf->address, buf->pfn + idx, prot);
	}
	if (ret == VM_FAULT_NOPAGE)
		atomic_long_inc(&buf->map_pte);
out:
	mutex_unlock(&buf->lock);
	mutex_unlock(&buf->map_lock);
	return ret;
}

/* A write to a write-protected page of a checked pfn-mode mapping. */
static vm_fault_t udmabuf_vm_mkwrite_check(struct vm_fault *vmf)
{
	struct udmabuf_view *view = vmf->vma->vm_private_data;
	struct udmabuf *buf = view->buf;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t ret;

	if (off >= view->len)
		return VM_FAULT_SIGBUS;
	mutex_lock(&buf->map_lock);
	mutex_lock(&buf->lock);
	if (buf->revoked)
		ret = VM_FAULT_SIGBUS;
	else
		ret = udmabuf_own_mkwrite(buf, view->base + off, vmf->address);
	mutex_unlock(&buf->lock);
	mutex_unlock(&buf->map_lock);
	return ret;
}

static const struct vm_operations_struct udmabuf_vm_ops_check = {
	.open = udmabuf_vm_open,
	.close = udmabuf_vm_close,
	.fault = udmabuf_vm_fault_check,
	.pfn_mkwrite = udmabuf_vm_mkwrite_check,
};

/* Do page frames from @pfn on agree with @addr modulo 2 MiB? */
static bool udmabuf_pmd_congruent(unsigned long addr, unsigned long pfn)
{
	return !((addr ^ (pfn << PAGE_SHIFT)) & ~PMD_MASK);
}

/*
 * Drop VM_PAT from a mapping of RAM from page frame @pfn on.  x86 sets it
 * (before 7.x) on a VMA that one remap_pfn_range() maps whole: our remap
 * and dma_mmap_coherent()'s.  Each unmap of such a VMA then looks its
 * first entry up to give back a memory type reservation (untrack_pfn()):
 * munmap(), an exit, and on some kernels each zap of its entries
 * (unmap_mapping_range(): the revocation at an unbind, the sync checker).
 * Once a zap removed that entry, or while a zap races a munmap() or an
 * exit of the same VMA, the lookup finds nothing and warns.
 * RAM has no such reservation: its type is looked up, never reserved
 * (reserve_pfn_range()), so the flag only causes that lookup.  Memory that
 * is not RAM keeps it.  Under the mmap lock, in mmap().
 */
static void udmabuf_pat_untrack_ram(struct vm_area_struct *vma, unsigned long pfn)
{
	if (!(vma->vm_flags & UDMEM_VM_PAT))
		return;
	if (region_intersects(PFN_PHYS(pfn), vma->vm_end - vma->vm_start,
			      IORESOURCE_SYSTEM_RAM, IORES_DESC_NONE) == REGION_INTERSECTS)
		udmem_vm_flags_clear(vma, UDMEM_VM_PAT);
}

/* remap_pfn_range() of [from, to), counted; nothing when it is empty. */
static int udmabuf_remap_part(struct udmabuf *buf, struct vm_area_struct *vma,
			      unsigned long from, unsigned long to, unsigned long pfn)
{
	int ret;

	if (from >= to)
		return 0;
	ret = remap_pfn_range(vma, from, pfn, to - from, vma->vm_page_prot);
	if (!ret)
		atomic_long_add((to - from) >> PAGE_SHIFT, &buf->map_pte);
	return ret;
}

/*
 * Map the VMA from page frame @pfn on.  A cached mapping that can hold PMD
 * entries gets PTEs at its edges now and leaves its 2 MiB-aligned middle
 * to udmabuf_vm_huge_fault(); any other gets one remap of all of it.
 */
static int udmabuf_remap(struct udmabuf *buf, struct vm_area_struct *vma,
			 unsigned long pfn, bool cached)
{
	unsigned long start = vma->vm_start, end = vma->vm_end;
	unsigned long mid = end, mid_end = end;
	int ret;

	if (UDMEM_PMD_PFNMAP && cached && udmabuf_pmd_congruent(start, pfn) &&
	    ALIGN(start, PMD_SIZE) < (end & PMD_MASK)) {
		mid = ALIGN(start, PMD_SIZE);
		mid_end = end & PMD_MASK;
		vma->vm_ops = &udmabuf_vm_ops_pmd;
		/* THP's "madvise" setting asks for this; "never" still wins. */
		udmem_vm_flags_set(vma, VM_HUGEPAGE);
	}
	ret = udmabuf_remap_part(buf, vma, start, mid, pfn);
	if (!ret)
		ret = udmabuf_remap_part(buf, vma, mid_end, end,
					 pfn + ((mid_end - start) >> PAGE_SHIFT));
	return ret;
}

/**
 * udmabuf_get_unmapped_area() - a place for a mapping of /dev/<name>
 * @file: the buffer's file
 * @addr: the hint, or the address of MAP_FIXED
 * @len: the length
 * @pgoff: the page offset into the buffer
 * @flags: the mmap flags
 *
 * THP's choice, which makes (address - pgoff * PAGE_SIZE) a multiple of
 * 2 MiB where the length allows: given the page frame instead of the
 * offset, the address agrees with the memory modulo 2 MiB, as PMD entries
 * need.  The offset is only a hint to the search (cache colouring).
 *
 * Return: the address, or a negative error.
 */
unsigned long udmabuf_get_unmapped_area(struct file *file, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags)
{
	struct udmabuf *buf = file->private_data;

	if (buf->mt.map == UDMABUF_MAP_PFN &&
	    pgoff < (buf->alloc_size >> PAGE_SHIFT))
		pgoff += buf->pfn;
	return udmem_thp_get_unmapped_area(file, addr, len, pgoff, flags);
}

/* Map the VMA with vma->vm_page_prot as udmabuf_mmap_range() set it. */
static int udmabuf_mmap_fill(struct udmabuf_view *view, struct vm_area_struct *vma,
			     bool cached)
{
	struct udmabuf *buf = view->buf;
	unsigned long pages = vma_pages(vma);
	unsigned long first, num;
	int ret;

	first = (view->base >> PAGE_SHIFT) + vma->vm_pgoff;
	if (buf->mt.map == UDMABUF_MAP_DMA) {
		/* The DMA setup may be gone with the driver (exports only). */
		if (READ_ONCE(buf->dma_gone))
			return -ENODEV;
		ret = dma_mmap_coherent(buf->dma_dev, vma, buf->virt + view->base,
					buf->dma_addr + view->base, view->len);
		udmem_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
		if (ret)
			return ret;
		atomic_long_add(pages, &buf->map_pte);
		/* It maps from the page frame of buf->virt + base on. */
		if (buf->pfn_ok)
			udmabuf_pat_untrack_ram(vma, buf->pfn + first);
		return 0;
	}

	vma->vm_ops = &udmabuf_vm_ops;
	vma->vm_private_data = view;
	/*
	 * Checked: every page comes through udmabuf_vm_fault_check().  Not an
	 * uncached mapping (O_SYNC, sync_mode bit 2): it needs no cache syncs.
	 */
	if (unlikely(READ_ONCE(buf->sync_check)) && cached) {
		vma->vm_ops = &udmabuf_vm_ops_check;
		if (buf->mt.map == UDMABUF_MAP_PAGES) {
			udmem_vm_flags_clear(vma, VM_IO | VM_PFNMAP);
			udmem_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
		} else {
			udmem_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
		}
		return 0;
	}
	if (buf->mt.map == UDMABUF_MAP_PAGES) {
		udmem_vm_flags_clear(vma, VM_IO | VM_PFNMAP);
		udmem_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
		num = pages;
		ret = vm_insert_pages(vma, vma->vm_start, buf->pages + first, &num);
		atomic_long_add(pages - num, &buf->map_pte);
		/*
		 * vm_insert_pages() says -EFAULT when it cannot allocate a page
		 * table above the PTE level; the range was checked above, so it
		 * can only mean that, and mmap(2) reports it as ENOMEM.
		 */
		return ret == -EFAULT ? -ENOMEM : ret;
	}
	udmem_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	ret = udmabuf_remap(buf, vma, buf->pfn + first, cached);
	if (!ret)
		udmabuf_pat_untrack_ram(vma, buf->pfn + first);
	return ret;
}

/* An address space that mapped the buffer with mmap(): see udmabuf_mmap_note(). */
struct udmabuf_mmap_mm {
	struct list_head node;
	struct mm_struct *mm;
};

/*
 * Note @mm, whose mmap() is mapping the buffer, for udmabuf_mmap_revoke().
 * One entry per address space: an earlier mmap() of the same one is over,
 * as we hold its mmap lock.  Entries of address spaces that have gone are
 * dropped on the way.  Under buf->map_lock.
 */
static int udmabuf_mmap_note(struct udmabuf *buf, struct mm_struct *mm)
{
	struct udmabuf_mmap_mm *m, *tmp;
	bool found = false;

	list_for_each_entry_safe(m, tmp, &buf->mmap_mms, node) {
		if (m->mm == mm) {
			found = true;
		} else if (!atomic_read(&m->mm->mm_users)) {
			list_del(&m->node);
			mmdrop(m->mm);
			kfree(m);
		}
	}
	if (found)
		return 0;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	mmgrab(mm);
	m->mm = mm;
	list_add(&m->node, &buf->mmap_mms);
	return 0;
}

/**
 * udmabuf_mmap_range() - map (part of) a view into a VMA
 * @view: the buffer or exported range; vma->vm_pgoff is relative to it
 * @vma: a shared mapping
 * @force_sync: the file was opened with O_SYNC
 *
 * Return: 0, -EINVAL for a private mapping or a range past the end, -ENODEV
 * once the memory went at the parent's unbind, or the error of the mapping
 * function.
 */
int udmabuf_mmap_range(struct udmabuf_view *view, struct vm_area_struct *vma,
		       bool force_sync)
{
	struct udmabuf *buf = view->buf;
	unsigned long npages = view->len >> PAGE_SHIFT;
	unsigned long pages = vma_pages(vma);
	bool cached;
	pgprot_t prot;
	int ret;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= npages || pages > npages - vma->vm_pgoff)
		return -EINVAL;
	/* sync_mode may change under us; one read decides this mapping. */
	prot = udmabuf_mmap_prot(buf, vma->vm_page_prot, force_sync, &cached);
	/*
	 * x86 keeps one memory type per page of RAM (PAT): remap_pfn_range()
	 * and vmf_insert_pfn() map RAM with the type of the kernel's own
	 * mapping, write-back, whatever was asked.  vm_insert_pages() does not
	 * look, so page mode asks for write-back itself rather than alias
	 * write-back RAM with an uncached mapping, which x86 does not support.
	 * DMA is cache-coherent there.
	 */
	if (IS_ENABLED(CONFIG_X86) && buf->mt.map == UDMABUF_MAP_PAGES) {
		prot = vma->vm_page_prot;
		cached = true;
	}
	if (buf->debug_vma & 1)
		dev_info(buf->dma_dev, "%s: mmap pgoff %lu pages %lu\n", buf->name,
			 vma->vm_pgoff, pages);

	/* Dirty entries now where writable; faults and mprotect() start clean. */
	vma->vm_page_prot = udmabuf_prot_dirty(vma, prot);
	mutex_lock(&buf->map_lock);
	if (buf->revoked)
		ret = -ENODEV;
	else
		ret = udmabuf_mmap_note(buf, vma->vm_mm);
	if (!ret)
		ret = udmabuf_mmap_fill(view, vma, cached);
	mutex_unlock(&buf->map_lock);
	vma->vm_page_prot = prot;
	return ret;
}

/**
 * udmabuf_mmap_revoke() - take a buffer's memory out of every user mapping
 * @buf: a detached buffer whose memory is about to be freed
 *
 * From here on mmap() of the buffer or of its exports fails with ENODEV and
 * a fault on an old mapping gets SIGBUS; the entries already there are
 * zapped.  A mmap() that mapped the memory before may not have linked its
 * VMA into the file's address space yet, where the zap finds it: the link
 * is done under the mmap lock that mmap() holds, so that lock is waited for
 * in every address space noted, before the zap.
 */
void udmabuf_mmap_revoke(struct udmabuf *buf)
{
	struct udmabuf_mmap_mm *m, *tmp;
	LIST_HEAD(mms);

	mutex_lock(&buf->map_lock);
	buf->revoked = true;
	list_splice_init(&buf->mmap_mms, &mms);
	mutex_unlock(&buf->map_lock);
	list_for_each_entry_safe(m, tmp, &mms, node) {
		mmap_read_lock(m->mm);
		mmap_read_unlock(m->mm);
		list_del(&m->node);
		mmdrop(m->mm);
		kfree(m);
	}
	mutex_lock(&buf->lock);
	udmabuf_own_zap_all(buf);
	mutex_unlock(&buf->lock);
}

/* Drop the address spaces noted by mmap(), when the buffer goes. */
void udmabuf_mmap_mms_free(struct udmabuf *buf)
{
	struct udmabuf_mmap_mm *m, *tmp;

	list_for_each_entry_safe(m, tmp, &buf->mmap_mms, node) {
		list_del(&m->node);
		mmdrop(m->mm);
		kfree(m);
	}
}
