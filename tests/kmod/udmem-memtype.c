// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-memtype: the memory type of an address, read from the page tables
 * rather than inferred from what a driver asked for.
 *
 * /dev/udmem-memtype takes UDMEM_MEMTYPE_QUERY (udmem-memtype.h) with a
 * user address of the calling process or the name of a u-dma-buf buffer
 * (its kernel address, from the in-kernel API), and answers with the type:
 *
 * - arm64: the MMU translates the address itself (AT S1E0R for user
 *   addresses, AT S1E1R for kernel ones) and PAR_EL1 gives the memory
 *   attribute of the entry it used, as the MAIR encodes it;
 * - x86: the entry found by walking the page tables (lookup_address() for
 *   kernel addresses, the process's tables for user ones), its PAT, PCD
 *   and PWT bits compared with the kernel's own encoding of each mode;
 * - elsewhere: EOPNOTSUPP.
 *
 * The address must be mapped (touch it first): an address without an
 * entry is ENXIO.  Test-only (tests/guest/memtype).
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "udmem-memtype.h"
#include "udmem-api-test.h"

#if defined(CONFIG_ARM64)
#include <asm/sysreg.h>

#define MT_PAR_F	BIT(0)

static u32 mt_arm64_type(u8 attr)
{
	u8 inner = attr & 0xf;

	if (!(attr & 0xf0))
		return UDMEM_MT_DEVICE;		/* Device-nGnRnE ... Device-GRE */
	if (attr == 0xf0)
		return UDMEM_MT_CACHEABLE;	/* Normal, tagged (MTE) */
	if (inner == 0x4)
		return UDMEM_MT_NORMAL_NC;
	if ((inner & 0xc) == 0xc || ((inner & 0xc) == 0x4 && (inner & 3)))
		return UDMEM_MT_CACHEABLE;	/* write-back (transient or not) */
	if ((inner & 0xc) == 0x8 || ((inner & 0xc) == 0 && (inner & 3)))
		return UDMEM_MT_WRITE_THROUGH;
	return UDMEM_MT_OTHER;
}

static int mt_query(unsigned long addr, bool user, struct udmem_memtype *q)
{
	unsigned long flags;
	u64 par;

	local_irq_save(flags);
	if (user)
		asm volatile("at s1e0r, %0" : : "r" (addr));
	else
		asm volatile("at s1e1r, %0" : : "r" (addr));
	isb();
	par = read_sysreg(par_el1);
	local_irq_restore(flags);

	q->raw = par;
	q->level = 0;
	if (par & MT_PAR_F)
		return -ENXIO;
	q->type = mt_arm64_type(par >> 56);
	return 0;
}

#elif defined(CONFIG_X86_64)
#include <asm/pgtable.h>

/* The kernel's own translation of a cache mode to PAT, PCD and PWT bits. */
static const struct {
	enum page_cache_mode mode;
	u32 type;
} mt_x86_modes[] = {
	{ _PAGE_CACHE_MODE_WB, UDMEM_MT_CACHEABLE },
	{ _PAGE_CACHE_MODE_WT, UDMEM_MT_WRITE_THROUGH },
	{ _PAGE_CACHE_MODE_WC, UDMEM_MT_WRITE_COMBINE },
	{ _PAGE_CACHE_MODE_UC_MINUS, UDMEM_MT_DEVICE },
	{ _PAGE_CACHE_MODE_UC, UDMEM_MT_DEVICE },
};

static u32 mt_x86_type(pteval_t flags, int level)
{
	pgprot_t prot = __pgprot(flags);
	int i;

	if (level > PG_LEVEL_4K)
		prot = pgprot_large_2_4k(prot);
	for (i = 0; i < ARRAY_SIZE(mt_x86_modes); i++)
		if ((pgprot_val(prot) & _PAGE_CACHE_MASK) ==
		    cachemode2protval(mt_x86_modes[i].mode))
			return mt_x86_modes[i].type;
	return UDMEM_MT_OTHER;
}

/* The leaf entry of a user address in the current process's tables. */
static int mt_walk_user(unsigned long addr, pteval_t *flags, int *level)
{
	struct mm_struct *mm = current->mm;
	int ret = -ENXIO;
	pgd_t *pgd;
	p4d_t *p4d;
	pud_t *pud;
	pmd_t *pmd;
	pte_t *pte;

	mmap_read_lock(mm);
	pgd = pgd_offset(mm, addr);
	if (pgd_none(*pgd) || pgd_bad(*pgd))
		goto out;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(*p4d) || p4d_bad(*p4d))
		goto out;
	pud = pud_offset(p4d, addr);
	if (pud_none(*pud))
		goto out;
	if (pud_leaf(*pud)) {
		*flags = pud_flags(*pud);
		*level = PG_LEVEL_1G;
		ret = 0;
		goto out;
	}
	pmd = pmd_offset(pud, addr);
	if (pmd_none(*pmd))
		goto out;
	if (pmd_leaf(*pmd)) {
		*flags = pmd_flags(*pmd);
		*level = PG_LEVEL_2M;
		ret = 0;
		goto out;
	}
	pte = pte_offset_kernel(pmd, addr);
	if (!pte_present(*pte))
		goto out;
	*flags = pte_flags(*pte);
	*level = PG_LEVEL_4K;
	ret = 0;
out:
	mmap_read_unlock(mm);
	return ret;
}

static int mt_query(unsigned long addr, bool user, struct udmem_memtype *q)
{
	pteval_t flags;
	unsigned int klevel;
	int level, ret;
	pte_t *pte;

	if (user) {
		ret = mt_walk_user(addr, &flags, &level);
		if (ret)
			return ret;
	} else {
		pte = lookup_address(addr, &klevel);
		if (!pte || !pte_present(*pte))
			return -ENXIO;
		flags = pte_flags(*pte);
		level = klevel;
	}
	q->raw = flags;
	q->level = level;
	q->type = mt_x86_type(flags, level);
	return 0;
}

#else

static int mt_query(unsigned long addr, bool user, struct udmem_memtype *q)
{
	return -EOPNOTSUPP;
}

#endif

static long mt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udmem_memtype q;
	struct device *dev;
	dma_addr_t phys;
	void *virt;
	size_t size;
	int ret;

	if (cmd != UDMEM_MEMTYPE_QUERY)
		return -ENOTTY;
	if (copy_from_user(&q, (void __user *)arg, sizeof(q)))
		return -EFAULT;
	q.type = 0;
	q.level = 0;
	q.raw = 0;
	q.kaddr = 0;
	if (q.addr) {
		ret = mt_query(q.addr, true, &q);
	} else {
		q.name[sizeof(q.name) - 1] = '\0';
		dev = u_dma_buf_device_search(q.name, -1);
		if (IS_ERR(dev))
			return PTR_ERR(dev);
		ret = u_dma_buf_device_getmap(dev, &size, &virt, &phys);
		if (ret)
			return ret;
		q.kaddr = (unsigned long)virt;
		ret = mt_query((unsigned long)virt, false, &q);
	}
	if (ret)
		return ret;
	if (copy_to_user((void __user *)arg, &q, sizeof(q)))
		return -EFAULT;
	return 0;
}

static const struct file_operations mt_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = mt_ioctl,
};

static struct miscdevice mt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "udmem-memtype",
	.fops = &mt_fops,
};

module_misc_device(mt_misc);

MODULE_DESCRIPTION("udmem test helper: memory types from the page tables");
MODULE_LICENSE("GPL");
