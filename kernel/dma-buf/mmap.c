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
 * Cache attributes follow the reference driver: the quirk modes map cached
 * unless O_SYNC or sync_mode bit 2 asks for sync_mode's attribute; mode off
 * (and auto on a coherent device) gets dma_mmap_coherent()'s attribute.
 */
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/mm.h>

#include "compat.h"
#include "udmabuf.h"

/* Does this buffer map through our own remap (the "quirk" modes)? */
bool udmabuf_mmap_quirk(const struct udmabuf *buf)
{
	switch (buf->quirk_mmap_mode) {
	case U_DMA_BUF_MMAP_MODE_OFF:
		return false;
	case U_DMA_BUF_MMAP_MODE_AUTO:
		return !udmabuf_dma_coherent(buf);
	default:
		return true;
	}
}

static pgprot_t udmabuf_mmap_prot(const struct udmabuf *buf, pgprot_t prot,
				  bool force_sync)
{
	u32 mode = READ_ONCE(buf->sync_mode);

	if (!force_sync && !(mode & UDMABUF_SYNC_ALWAYS))
		return prot;
	switch (mode & UDMABUF_SYNC_MODE_MASK) {
	case UDMABUF_SYNC_NONCACHED:
		return pgprot_noncached(prot);
	case UDMABUF_SYNC_WRITECOMBINE:
		return pgprot_writecombine(prot);
	case UDMABUF_SYNC_DMACOHERENT:
		return IS_ENABLED(CONFIG_ARM) ? pgprot_dmacoherent(prot) :
		       pgprot_writecombine(prot);
	default:
		return prot;
	}
}

/*
 * The protection with the dirty (and young) bits of a PTE already set, so
 * that the first write to a page mapped at mmap time does not take a fault
 * to mark it dirty (CPUs without hardware dirty tracking, e.g. Cortex-A53).
 * Nothing here tracks dirtiness: the memory is not page cache.
 */
static pgprot_t udmabuf_prot_dirty(pgprot_t prot)
{
	return __pgprot(pte_val(pte_mkyoung(pte_mkdirty(__pte(pgprot_val(prot))))));
}

static vm_fault_t udmabuf_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct udmabuf_view *view = vma->vm_private_data;
	struct udmabuf *buf = view->buf;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	unsigned long idx;

	if (off >= view->len)
		return VM_FAULT_SIGBUS;
	idx = (view->base + off) >> PAGE_SHIFT;
	if (buf->debug_vma & 2)
		dev_info(buf->dma_dev, "%s: fault at page %lu\n", buf->name, idx);
	/* A normal page again, not a special PTE: GUP and O_DIRECT need it. */
	if (buf->pages)
		return vmf_insert_page(vma, vmf->address, buf->pages[idx]);
	return vmf_insert_pfn_prot(vma, vmf->address, buf->pfn + idx, vma->vm_page_prot);
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

/**
 * udmabuf_mmap_range() - map (part of) a view into a VMA
 * @view: the buffer or exported range; vma->vm_pgoff is relative to it
 * @vma: a shared mapping
 * @force_sync: the file was opened with O_SYNC
 *
 * Return: 0, -EINVAL for a private mapping or a range past the end, or the
 * error of the mapping function.
 */
int udmabuf_mmap_range(struct udmabuf_view *view, struct vm_area_struct *vma,
		       bool force_sync)
{
	struct udmabuf *buf = view->buf;
	unsigned long npages = view->len >> PAGE_SHIFT;
	unsigned long pages = vma_pages(vma);
	unsigned long first, num;
	int ret;

	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (vma->vm_pgoff >= npages || pages > npages - vma->vm_pgoff)
		return -EINVAL;
	/* sync_mode may change under us; one read decides this mapping. */
	vma->vm_page_prot = udmabuf_prot_dirty(udmabuf_mmap_prot(buf, vma->vm_page_prot,
								 force_sync));
	if (buf->debug_vma & 1)
		dev_info(buf->dma_dev, "%s: mmap pgoff %lu pages %lu\n", buf->name,
			 vma->vm_pgoff, pages);

	if (!udmabuf_mmap_quirk(buf) || !buf->pfn_ok) {
		/* The DMA setup may be gone with the driver (exports only). */
		if (READ_ONCE(buf->dma_gone))
			return -ENODEV;
		ret = dma_mmap_coherent(buf->dma_dev, vma, buf->virt + view->base,
					buf->dma_addr + view->base, view->len);
		udmem_vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
		return ret;
	}

	vma->vm_ops = &udmabuf_vm_ops;
	vma->vm_private_data = view;
	first = (view->base >> PAGE_SHIFT) + vma->vm_pgoff;
	if (buf->pages) {
		udmem_vm_flags_clear(vma, VM_IO | VM_PFNMAP);
		udmem_vm_flags_set(vma, VM_MIXEDMAP | VM_DONTEXPAND | VM_DONTDUMP);
		num = pages;
		ret = vm_insert_pages(vma, vma->vm_start, buf->pages + first, &num);
		/*
		 * vm_insert_pages() says -EFAULT when it cannot allocate a page
		 * table above the PTE level; the range was checked above, so it
		 * can only mean that, and mmap(2) reports it as ENOMEM.
		 */
		return ret == -EFAULT ? -ENOMEM : ret;
	}
	udmem_vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);
	return remap_pfn_range(vma, vma->vm_start, buf->pfn + first,
			       vma->vm_end - vma->vm_start, vma->vm_page_prot);
}
