// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-edu-test - a DMA peer for the u-dma-buf tests, on QEMU's "edu" PCI
 * device (1234:11e8, run with -device edu,dma_mask=0xffffffff).
 *
 * Writing "copy <src> <dst> <len>" to /dev/udmem-edu-test makes the device
 * read len bytes at DMA address src into its buffer and write them back
 * out at DMA address dst, 2 KiB at a time.  The addresses are the ones
 * u-dma-buf reports (phys_addr), so the copy proves that they reach the
 * buffer memory.  The write returns its length when every transfer has
 * completed, -EINVAL for a malformed command and -ETIMEDOUT if the device
 * never finishes.  Test-only: never installed.
 */
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/io.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define EDU_REG_ID		0x00
#define EDU_REG_LIVENESS	0x04
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_ID_MASK		0xff0000ff
#define EDU_ID			0x010000ed
#define EDU_DMA_START		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)	/* direction: device buffer -> RAM */
#define EDU_BUF_ADDR		0x40000	/* the device buffer, in device space */
/*
 * The device buffer is 4 KiB, but QEMU (7.2) aborts the whole machine on a
 * transfer that reaches its last byte (its end-of-range check is off by
 * one), so transfers use half of it.
 */
#define EDU_XFER_MAX		2048
#define EDU_DMA_TIMEOUT_MS	5000	/* a transfer takes 100 ms of virtual time */
#define EDU_CMD_MAX		128

struct edu_test {
	struct pci_dev *pdev;
	void __iomem *regs;
	struct mutex lock;	/* one copy at a time */
	struct miscdevice misc;
};

/*
 * Start one transfer and wait for the device to clear the start bit.  The
 * registers from 0x80 take 32-bit writes that set the whole register, which
 * is what 32-bit ARM needs (no writeq); the addresses fit in 32 bits.
 */
static int edu_test_transfer(struct edu_test *edu, u32 src, u32 dst, u32 len, u32 dir)
{
	unsigned long timeout = jiffies + msecs_to_jiffies(EDU_DMA_TIMEOUT_MS);

	writel(src, edu->regs + EDU_REG_DMA_SRC);
	writel(dst, edu->regs + EDU_REG_DMA_DST);
	writel(len, edu->regs + EDU_REG_DMA_COUNT);
	writel(EDU_DMA_START | dir, edu->regs + EDU_REG_DMA_CMD);
	while (readl(edu->regs + EDU_REG_DMA_CMD) & EDU_DMA_START) {
		if (time_after(jiffies, timeout)) {
			dev_err(&edu->pdev->dev, "DMA 0x%x -> 0x%x (%u bytes) timed out\n",
				src, dst, len);
			return -ETIMEDOUT;
		}
		usleep_range(2000, 5000);
	}
	return 0;
}

static int edu_test_copy(struct edu_test *edu, u64 src, u64 dst, u64 len)
{
	u64 src_end, dst_end, off;
	int ret = 0;

	/* edu masks DMA addresses to 32 bits (dma_mask=0xffffffff) */
	if (!len || check_add_overflow(src, len, &src_end) ||
	    check_add_overflow(dst, len, &dst_end) ||
	    src_end > BIT_ULL(32) || dst_end > BIT_ULL(32))
		return -EINVAL;
	for (off = 0; off < len && !ret; off += EDU_XFER_MAX) {
		u32 n = min_t(u64, len - off, EDU_XFER_MAX);

		ret = edu_test_transfer(edu, src + off, EDU_BUF_ADDR, n, 0);
		if (!ret)
			ret = edu_test_transfer(edu, EDU_BUF_ADDR, dst + off, n,
						EDU_DMA_TO_RAM);
	}
	return ret;
}

static ssize_t edu_test_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	struct edu_test *edu = container_of(file->private_data, struct edu_test, misc);
	char cmd[EDU_CMD_MAX], *p, *tok[4];
	u64 src, dst, len;
	int i, ret;

	if (!count || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';
	p = strim(cmd);
	for (i = 0; i < ARRAY_SIZE(tok); i++) {
		tok[i] = strsep(&p, " \t");
		if (!tok[i] || !*tok[i])
			return -EINVAL;
	}
	if (p || strcmp(tok[0], "copy"))
		return -EINVAL;
	if (kstrtou64(tok[1], 0, &src) || kstrtou64(tok[2], 0, &dst) ||
	    kstrtou64(tok[3], 0, &len))
		return -EINVAL;

	mutex_lock(&edu->lock);
	ret = edu_test_copy(edu, src, dst, len);
	mutex_unlock(&edu->lock);
	return ret ? ret : count;
}

static const struct file_operations edu_test_fops = {
	.owner = THIS_MODULE,
	.write = edu_test_write,
	.llseek = noop_llseek,
};

static int edu_test_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct edu_test *edu;
	u32 ident;
	int ret;

	edu = devm_kzalloc(&pdev->dev, sizeof(*edu), GFP_KERNEL);
	if (!edu)
		return -ENOMEM;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), "udmem-edu-test");
	if (ret)
		return ret;
	edu->regs = pcim_iomap_table(pdev)[0];
	edu->pdev = pdev;
	ident = readl(edu->regs + EDU_REG_ID);
	if ((ident & EDU_ID_MASK) != EDU_ID) {
		dev_err(&pdev->dev, "not an edu device: id 0x%08x\n", ident);
		return -ENODEV;
	}
	writel(0x5a5aa5a5, edu->regs + EDU_REG_LIVENESS);
	if (readl(edu->regs + EDU_REG_LIVENESS) != ~0x5a5aa5a5u) {
		dev_err(&pdev->dev, "liveness check failed\n");
		return -EIO;
	}
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret)
		return ret;
	pci_set_master(pdev);
	mutex_init(&edu->lock);
	edu->misc.minor = MISC_DYNAMIC_MINOR;
	edu->misc.name = "udmem-edu-test";
	edu->misc.fops = &edu_test_fops;
	edu->misc.parent = &pdev->dev;
	ret = misc_register(&edu->misc);
	if (ret)
		return ret;
	pci_set_drvdata(pdev, edu);
	dev_info(&pdev->dev, "edu 0x%08x ready: /dev/%s\n", ident, edu->misc.name);
	return 0;
}

static void edu_test_remove(struct pci_dev *pdev)
{
	struct edu_test *edu = pci_get_drvdata(pdev);

	misc_deregister(&edu->misc);
	pci_clear_master(pdev);
}

static const struct pci_device_id edu_test_ids[] = {
	{ PCI_DEVICE(0x1234, 0x11e8) },
	{ }
};
MODULE_DEVICE_TABLE(pci, edu_test_ids);

static struct pci_driver edu_test_driver = {
	.name = "udmem-edu-test",
	.id_table = edu_test_ids,
	.probe = edu_test_probe,
	.remove = edu_test_remove,
};
module_pci_driver(edu_test_driver);

MODULE_DESCRIPTION("udmem test peer: DMA through QEMU's edu device");
MODULE_LICENSE("GPL");
