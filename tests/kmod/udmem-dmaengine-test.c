// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-dmaengine-test - a SoC's own DMA engine as the DMA peer of the
 * u-dma-buf and uiomem tests on the board targets (zcu102 ...).
 *
 * The channel is the "copy" entry of the dmas/dma-names of a device-tree
 * node compatible with "udmem,dmaengine-test" when there is one, else a
 * channel with the DMA_MEMCPY capability: of the device named by the
 * module parameter device= (dev_name, e.g. a PCI address) if given, else
 * any.  /dev/udmem-dmaengine-test then
 * copies between DMA addresses given by user space, as the engine's device
 * sees them (u-dma-buf's phys_addr of a buffer bound to that device):
 *
 *	ioctl(fd, UDMEM_DMAENGINE_COPY, &(struct udmem_dmaengine_copy){...})
 *	write "copy <src> <dst> <len>"		(for shell scripts)
 *	read					"<channel> <device> <mask bits>\n"
 *
 * A copy returns when the engine reports it complete: -EINVAL for a bad
 * command, a zero or too long length, an address range that wraps or
 * exceeds the engine's DMA mask, or one the engine cannot align;
 * -ETIMEDOUT if it never completes; -EIO if it fails; -ENODEV once the
 * channel's owner went away.  Test-only: never installed.
 */
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "../../kernel/compat.h"
#include "udmem-dmaengine-test.h"

#define DT_COPY_MAX		SZ_64M
#define DT_TIMEOUT_MS		10000
#define DT_CMD_MAX		128

static char *device;
module_param(device, charp, 0444);
MODULE_PARM_DESC(device, "without a device-tree node: a channel of this device only (dev_name)");

/* The one channel the misc device uses; NULL while there is none. */
static DEFINE_MUTEX(dt_lock);
static struct dma_chan *dt_chan;

static void dt_done(void *arg)
{
	complete(arg);
}

/* One memcpy on the channel; called with dt_lock held. */
static int dt_copy(struct dma_chan *chan, u64 src, u64 dst, u64 len)
{
	struct dma_device *dd = chan->device;
	struct dma_async_tx_descriptor *tx;
	DECLARE_COMPLETION_ONSTACK(done);
	u64 mask = dma_get_mask(dd->dev), src_end, dst_end;
	enum dma_status status;
	dma_cookie_t cookie;

	if (!len || len > DT_COPY_MAX ||
	    check_add_overflow(src, len - 1, &src_end) ||
	    check_add_overflow(dst, len - 1, &dst_end) ||
	    src_end > mask || dst_end > mask)
		return -EINVAL;
	if (!is_dma_copy_aligned(dd, src, dst, len))
		return -EINVAL;
	tx = dmaengine_prep_dma_memcpy(chan, dst, src, len,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (!tx)
		return -EIO;
	tx->callback = dt_done;
	tx->callback_param = &done;
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie))
		return -EIO;
	dma_async_issue_pending(chan);
	if (!wait_for_completion_timeout(&done, msecs_to_jiffies(DT_TIMEOUT_MS))) {
		/* No callback may run on the stack's completion after this. */
		dmaengine_terminate_sync(chan);
		dev_err(dd->dev, "copy 0x%llx -> 0x%llx (%llu bytes) timed out\n",
			src, dst, len);
		return -ETIMEDOUT;
	}
	status = dma_async_is_tx_complete(chan, cookie, NULL, NULL);
	return status == DMA_COMPLETE ? 0 : -EIO;
}

static int dt_copy_locked(u64 src, u64 dst, u64 len)
{
	int ret = -ENODEV;

	mutex_lock(&dt_lock);
	if (dt_chan)
		ret = dt_copy(dt_chan, src, dst, len);
	mutex_unlock(&dt_lock);
	return ret;
}

static long dt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udmem_dmaengine_copy c;

	if (cmd != UDMEM_DMAENGINE_COPY)
		return -ENOTTY;
	if (copy_from_user(&c, (void __user *)arg, sizeof(c)))
		return -EFAULT;
	if (c.flags)
		return -EINVAL;
	return dt_copy_locked(c.src, c.dst, c.len);
}

static ssize_t dt_write(struct file *file, const char __user *ubuf, size_t count,
			loff_t *ppos)
{
	char cmd[DT_CMD_MAX], *p, *tok[4];
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
	ret = dt_copy_locked(src, dst, len);
	return ret ? ret : count;
}

static ssize_t dt_read(struct file *file, char __user *ubuf, size_t count,
		       loff_t *ppos)
{
	char info[96];
	int n = -ENODEV;

	mutex_lock(&dt_lock);
	/* The mask's width: tests need an address beyond it, if there is one. */
	if (dt_chan)
		n = scnprintf(info, sizeof(info), "%s %s %d\n", dma_chan_name(dt_chan),
			      dev_name(dt_chan->device->dev),
			      fls64(dma_get_mask(dt_chan->device->dev)));
	mutex_unlock(&dt_lock);
	if (n < 0)
		return n;
	return simple_read_from_buffer(ubuf, count, ppos, info, n);
}

static const struct file_operations dt_fops = {
	.owner = THIS_MODULE,
	.read = dt_read,
	.write = dt_write,
	.unlocked_ioctl = dt_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice dt_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "udmem-dmaengine-test",
	.fops = &dt_fops,
};

static void dt_set_chan(struct dma_chan *chan)
{
	mutex_lock(&dt_lock);
	dt_chan = chan;
	mutex_unlock(&dt_lock);
}

static int dt_probe(struct platform_device *pdev)
{
	struct dma_chan *chan;

	/* The engine's driver may load later: dma_request_chan defers then. */
	chan = dma_request_chan(&pdev->dev, "copy");
	if (IS_ERR(chan))
		return dev_err_probe(&pdev->dev, PTR_ERR(chan), "no \"copy\" channel\n");
	if (!dma_has_cap(DMA_MEMCPY, chan->device->cap_mask)) {
		dma_release_channel(chan);
		dev_err(&pdev->dev, "%s cannot memcpy\n", dma_chan_name(chan));
		return -EINVAL;
	}
	mutex_lock(&dt_lock);
	if (dt_chan) {
		mutex_unlock(&dt_lock);
		dma_release_channel(chan);
		return -EBUSY;
	}
	dt_chan = chan;
	mutex_unlock(&dt_lock);
	dev_info(&pdev->dev, "channel %s of %s\n", dma_chan_name(chan),
		 dev_name(chan->device->dev));
	return 0;
}

/* Take the channel away from the misc device and release it. */
static void dt_release_chan(void)
{
	struct dma_chan *chan;

	mutex_lock(&dt_lock);
	chan = dt_chan;
	dt_chan = NULL;
	mutex_unlock(&dt_lock);
	if (chan)
		dma_release_channel(chan);
}

static void dt_remove(struct platform_device *pdev)
{
	dt_release_chan();
}

UDMEM_DEFINE_PLATFORM_REMOVE(dt_remove);

static const struct of_device_id dt_of_ids[] = {
	{ .compatible = "udmem,dmaengine-test" },
	{ }
};
MODULE_DEVICE_TABLE(of, dt_of_ids);

static struct platform_driver dt_driver = {
	.probe = dt_probe,
	.UDMEM_PLATFORM_REMOVE = UDMEM_PLATFORM_REMOVE_FN(dt_remove),
	.driver = {
		.name = "udmem-dmaengine-test",
		.of_match_table = dt_of_ids,
	},
};

static bool dt_filter_device(struct dma_chan *chan, void *param)
{
	return !strcmp(dev_name(chan->device->dev), param);
}

/* A DMA_MEMCPY channel, of the device device= names if it names one. */
static struct dma_chan *dt_request_memcpy(void)
{
	struct dma_chan *chan;
	dma_cap_mask_t mask;

	dma_cap_zero(mask);
	dma_cap_set(DMA_MEMCPY, mask);
	if (!device || !*device)
		return dma_request_chan_by_mask(&mask);
	chan = dma_request_channel(mask, dt_filter_device, device);
	return chan ? chan : ERR_PTR(-ENODEV);
}

static int __init dt_init(void)
{
	struct dma_chan *chan;
	int ret;

	ret = platform_driver_register(&dt_driver);
	if (ret)
		return ret;
	mutex_lock(&dt_lock);
	chan = dt_chan;
	mutex_unlock(&dt_lock);
	if (!chan) {
		/* No device-tree node (or it probed without a channel). */
		chan = dt_request_memcpy();
		if (IS_ERR(chan)) {
			platform_driver_unregister(&dt_driver);
			pr_err("udmem-dmaengine-test: no DMA_MEMCPY channel: %ld\n",
			       PTR_ERR(chan));
			return PTR_ERR(chan);
		}
		pr_info("udmem-dmaengine-test: channel %s of %s\n", dma_chan_name(chan),
			dev_name(chan->device->dev));
		dt_set_chan(chan);
	}
	ret = misc_register(&dt_misc);
	if (ret) {
		platform_driver_unregister(&dt_driver);
		dt_release_chan();
	}
	return ret;
}

static void __exit dt_exit(void)
{
	misc_deregister(&dt_misc);
	/* The node's channel goes with its device, a fallback one here. */
	platform_driver_unregister(&dt_driver);
	dt_release_chan();
}

module_init(dt_init);
module_exit(dt_exit);

MODULE_DESCRIPTION("udmem test peer: memcpy through a dmaengine channel");
MODULE_LICENSE("GPL");
