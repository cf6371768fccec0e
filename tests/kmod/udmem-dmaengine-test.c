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
 *	ioctl(fd, UDMEM_DMAENGINE_XFER, &(struct udmem_dmaengine_xfer){...})
 *
 * UDMEM_DMAENGINE_XFER runs slave transfers (DEV_TO_MEM, MEM_TO_DEV; one
 * entry, scatter-gather or cyclic) on a second channel, a DMA_SLAVE one of
 * the device the module parameter slave= names, and cuts transfers short
 * (terminate once they made progress); its kernel-doc says what it returns.
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
#include <linux/delay.h>
#include <linux/dmaengine.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
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

static char *slave;
module_param(slave, charp, 0444);
MODULE_PARM_DESC(slave, "a DMA_SLAVE channel of this device (dev_name) for UDMEM_DMAENGINE_XFER");
static char *slave_name;
module_param(slave_name, charp, 0444);
MODULE_PARM_DESC(slave_name, "instead of slave=: the channel dma_request_chan() gives the misc device under this name");

/* The one channel the misc device uses; NULL while there is none. */
static DEFINE_MUTEX(dt_lock);
static struct dma_chan *dt_chan;
/* The slave channel of slave=, under dt_lock; NULL without one. */
static struct dma_chan *dt_slave;

#define DT_XFER_FLAGS		(UDMEM_DMAENGINE_CYCLIC | UDMEM_DMAENGINE_TERMINATE | \
				 UDMEM_DMAENGINE_VEC)
#define DT_SG_MAX		256
#define DT_POLL_MS		10

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
	tx->callback_result = NULL;
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

/* A transfer's callbacks: wanted counts them, an error result ends it. */
struct dt_wait {
	struct completion done;
	atomic_t callbacks;
	unsigned int wanted;
	enum dmaengine_tx_result result;
};

static void dt_xfer_done(void *arg, const struct dmaengine_result *res)
{
	struct dt_wait *w = arg;

	if (res->result != DMA_TRANS_NOERROR) {
		if (!READ_ONCE(w->result))
			WRITE_ONCE(w->result, res->result);
		complete(&w->done);
		return;
	}
	if (atomic_inc_return(&w->callbacks) == w->wanted)
		complete(&w->done);
}

static void dt_xfer_done_plain(void *arg)
{
	struct dt_wait *w = arg;

	if (atomic_inc_return(&w->callbacks) == w->wanted)
		complete(&w->done);
}

/*
 * dma-pl330 (6.1) hands a pooled descriptor to its next user with only
 * callback cleared: a callback_result left set here would be called with
 * that user's callback_param (dmatest's, after this module), and only
 * callback is copied to the other descriptors of a cyclic chain.  The
 * driver passes no result anyway.  There, completions come through callback.
 */
static void dt_set_callback(struct dma_async_tx_descriptor *tx, struct dt_wait *w)
{
	if (!strcmp(dev_driver_string(tx->chan->device->dev), "dma-pl330")) {
		tx->callback = dt_xfer_done_plain;
		tx->callback_result = NULL;
	} else {
		tx->callback = NULL;
		tx->callback_result = dt_xfer_done;
	}
	tx->callback_param = w;
}

/* The scatter-gather list of x: entries of seg bytes, stride apart. */
static struct scatterlist *dt_sg(struct udmem_dmaengine_xfer *x, unsigned int *nents)
{
	u32 seg = x->seg ? x->seg : x->len, stride = x->stride ? x->stride : seg;
	struct scatterlist *sgl;
	unsigned int i, n;
	u64 addr;

	if (stride < seg)
		return NULL;
	n = DIV_ROUND_UP_ULL(x->len, seg);
	if (n > DT_SG_MAX)
		return NULL;
	sgl = kcalloc(n, sizeof(*sgl), GFP_KERNEL);
	if (!sgl)
		return NULL;
	sg_init_table(sgl, n);
	for (i = 0; i < n; i++) {
		/* wraps only past 2^64, where the provider refuses it */
		addr = x->addr + (u64)i * stride;
		sg_dma_address(&sgl[i]) = addr;
		sg_dma_len(&sgl[i]) = min_t(u64, seg, x->len - (u64)i * seg);
	}
	*nents = n;
	return sgl;
}

/* The entries of x as a dma_vec array, as dt_sg() makes them. */
static struct dma_async_tx_descriptor *dt_prep_vec(struct dma_chan *chan,
						   struct udmem_dmaengine_xfer *x,
						   enum dma_transfer_direction dir)
{
	struct dma_async_tx_descriptor *tx;
	struct scatterlist *sgl;
	struct dma_vec *vecs;
	unsigned int i, n;

	sgl = dt_sg(x, &n);
	if (!sgl)
		return NULL;
	vecs = kcalloc(n, sizeof(*vecs), GFP_KERNEL);
	if (vecs) {
		for (i = 0; i < n; i++) {
			vecs[i].addr = sg_dma_address(&sgl[i]);
			vecs[i].len = sg_dma_len(&sgl[i]);
		}
		tx = dmaengine_prep_peripheral_dma_vec(chan, vecs, n, dir, DMA_PREP_INTERRUPT);
	} else {
		tx = NULL;
	}
	kfree(vecs);
	kfree(sgl);
	return tx;
}

/* Prepare x on chan: NULL when the channel refuses it. */
static struct dma_async_tx_descriptor *dt_prep(struct dma_chan *chan,
					       struct udmem_dmaengine_xfer *x,
					       struct scatterlist **sgl)
{
	enum dma_transfer_direction dir = x->kind == UDMEM_DMAENGINE_DEV_TO_MEM ?
					  DMA_DEV_TO_MEM : DMA_MEM_TO_DEV;
	struct dma_slave_config cfg = {
		.direction = dir,
		.src_addr_width = DMA_SLAVE_BUSWIDTH_4_BYTES,
		.dst_addr_width = DMA_SLAVE_BUSWIDTH_4_BYTES,
		.src_maxburst = 1,
		.dst_maxburst = 1,
	};
	unsigned int nents;

	if (x->kind == UDMEM_DMAENGINE_MEMCPY)
		return dmaengine_prep_dma_memcpy(chan, x->addr, x->src, x->len,
						 DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
	if (dmaengine_slave_config(chan, &cfg))
		return NULL;
	if (x->flags & UDMEM_DMAENGINE_CYCLIC)
		return dmaengine_prep_dma_cyclic(chan, x->addr, x->len, x->seg, dir,
						 DMA_PREP_INTERRUPT);
	if (x->flags & UDMEM_DMAENGINE_VEC)
		return dt_prep_vec(chan, x, dir);
	*sgl = dt_sg(x, &nents);
	if (!*sgl)
		return NULL;
	return dmaengine_prep_slave_sg(chan, *sgl, nents, dir,
				       DMA_PREP_INTERRUPT | DMA_CTRL_ACK);
}

/* Wait until cookie's residue shows progress (or it ended); its residue. */
static int dt_wait_progress(struct dma_chan *chan, dma_cookie_t cookie, u64 len,
			    u64 *residue)
{
	struct dma_tx_state state = { };
	enum dma_status status;
	unsigned int i;

	for (i = 0; i < DT_TIMEOUT_MS / DT_POLL_MS; i++) {
		status = dmaengine_tx_status(chan, cookie, &state);
		if (status == DMA_COMPLETE || status == DMA_ERROR ||
		    (state.residue && state.residue < len)) {
			*residue = status == DMA_COMPLETE ? 0 : state.residue;
			return 0;
		}
		msleep(DT_POLL_MS);
	}
	return -ETIMEDOUT;
}

/* Wait for w's callbacks while they come, 10 s apart at most. */
static int dt_wait_callbacks(struct dt_wait *w)
{
	int seen;

	do {
		seen = atomic_read(&w->callbacks);
		if (wait_for_completion_timeout(&w->done, msecs_to_jiffies(DT_TIMEOUT_MS)))
			return 0;
	} while (atomic_read(&w->callbacks) != seen);
	return -ETIMEDOUT;
}

/* One UDMEM_DMAENGINE_XFER; called with dt_lock held. */
static int dt_xfer(struct udmem_dmaengine_xfer *x)
{
	bool cyclic = x->flags & UDMEM_DMAENGINE_CYCLIC;
	struct dma_async_tx_descriptor *tx;
	struct dma_tx_state state = { };
	struct scatterlist *sgl = NULL;
	struct dt_wait w = { .wanted = 1 };
	struct dma_chan *chan;
	dma_cookie_t cookie;
	int ret = 0;

	if ((x->flags & ~DT_XFER_FLAGS) || x->reserved || !x->len || x->len > DT_COPY_MAX)
		return -EINVAL;
	if (x->kind == UDMEM_DMAENGINE_MEMCPY) {
		chan = dt_chan;
		if (cyclic)
			return -EINVAL;
	} else if (x->kind == UDMEM_DMAENGINE_DEV_TO_MEM ||
		   x->kind == UDMEM_DMAENGINE_MEM_TO_DEV) {
		chan = dt_slave;
	} else {
		return -EINVAL;
	}
	if (!chan)
		return -ENODEV;
	if ((x->flags & UDMEM_DMAENGINE_VEC) && (cyclic || x->kind == UDMEM_DMAENGINE_MEMCPY))
		return -EINVAL;
	if ((x->flags & UDMEM_DMAENGINE_VEC) && !UDMEM_HAVE_DMA_VEC)
		return -EOPNOTSUPP;
	if (cyclic) {
		if (!x->periods || !x->seg || (x->flags & UDMEM_DMAENGINE_TERMINATE))
			return -EINVAL;
		w.wanted = x->periods;
	}
	init_completion(&w.done);
	tx = dt_prep(chan, x, &sgl);
	if (!tx) {
		ret = -EINVAL;
		goto out;
	}
	dt_set_callback(tx, &w);
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie)) {
		ret = -EIO;
		goto out;
	}
	dma_async_issue_pending(chan);
	if (x->flags & UDMEM_DMAENGINE_TERMINATE) {
		ret = dt_wait_progress(chan, cookie, x->len, &x->residue);
		dmaengine_terminate_sync(chan);
	} else {
		ret = dt_wait_callbacks(&w);
		if (cyclic || ret || READ_ONCE(w.result)) {
			dmaengine_tx_status(chan, cookie, &state);
			x->residue = state.residue;
			/* No callback may run on the stack's dt_wait after this. */
			dmaengine_terminate_sync(chan);
		}
	}
	x->callbacks = atomic_read(&w.callbacks);
	x->result = w.result;
	if (!ret && w.result)
		ret = w.result == DMA_TRANS_ABORTED ? -ECANCELED : -EIO;
out:
	kfree(sgl);
	return ret;
}

static int dt_xfer_ioctl(void __user *arg)
{
	struct udmem_dmaengine_xfer x;
	int ret;

	if (copy_from_user(&x, arg, sizeof(x)))
		return -EFAULT;
	x.callbacks = 0;
	x.result = 0;
	x.residue = 0;
	mutex_lock(&dt_lock);
	ret = dt_xfer(&x);
	mutex_unlock(&dt_lock);
	if (ret != -EINVAL && ret != -ENODEV && ret != -EOPNOTSUPP &&
	    copy_to_user(arg, &x, sizeof(x)))
		return -EFAULT;
	return ret;
}

static long dt_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udmem_dmaengine_copy c;

	if (cmd == UDMEM_DMAENGINE_XFER)
		return dt_xfer_ioctl((void __user *)arg);
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

/* Take the channels away from the misc device and release them. */
static void dt_release_chan(void)
{
	struct dma_chan *chan, *sl;

	mutex_lock(&dt_lock);
	chan = dt_chan;
	dt_chan = NULL;
	sl = dt_slave;
	dt_slave = NULL;
	mutex_unlock(&dt_lock);
	if (chan)
		dma_release_channel(chan);
	if (sl)
		dma_release_channel(sl);
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

/* The DMA_SLAVE channel of slave=, if it names a device. */
static int dt_request_slave(void)
{
	struct dma_chan *chan;
	dma_cap_mask_t mask;

	if (!slave || !*slave)
		return 0;
	dma_cap_zero(mask);
	dma_cap_set(DMA_SLAVE, mask);
	chan = dma_request_channel(mask, dt_filter_device, slave);
	if (!chan) {
		pr_err("udmem-dmaengine-test: no DMA_SLAVE channel of %s\n", slave);
		return -ENODEV;
	}
	pr_info("udmem-dmaengine-test: slave channel %s\n", dma_chan_name(chan));
	mutex_lock(&dt_lock);
	dt_slave = chan;
	mutex_unlock(&dt_lock);
	return 0;
}

/* The channel of slave_name=, as a slave device asks for its own by name. */
static int dt_request_slave_by_name(void)
{
	struct dma_chan *chan;

	if (!slave_name || !*slave_name)
		return 0;
	chan = dma_request_chan(dt_misc.this_device, slave_name);
	if (IS_ERR(chan)) {
		pr_err("udmem-dmaengine-test: no channel \"%s\": %ld\n", slave_name, PTR_ERR(chan));
		return PTR_ERR(chan);
	}
	pr_info("udmem-dmaengine-test: channel %s as \"%s\"\n", dma_chan_name(chan), slave_name);
	mutex_lock(&dt_lock);
	dt_slave = chan;
	mutex_unlock(&dt_lock);
	return 0;
}

/* The slave channel goes first: dmaengine links it to the misc device. */
static void dt_release_slave(void)
{
	struct dma_chan *chan;

	mutex_lock(&dt_lock);
	chan = dt_slave;
	dt_slave = NULL;
	mutex_unlock(&dt_lock);
	if (chan)
		dma_release_channel(chan);
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
	ret = dt_request_slave();
	if (ret) {
		platform_driver_unregister(&dt_driver);
		dt_release_chan();
		return ret;
	}
	ret = misc_register(&dt_misc);
	if (ret) {
		platform_driver_unregister(&dt_driver);
		dt_release_chan();
		return ret;
	}
	ret = dt_request_slave_by_name();
	if (ret) {
		misc_deregister(&dt_misc);
		platform_driver_unregister(&dt_driver);
		dt_release_chan();
	}
	return ret;
}

static void __exit dt_exit(void)
{
	dt_release_slave();
	misc_deregister(&dt_misc);
	/* The node's channel goes with its device, a fallback one here. */
	platform_driver_unregister(&dt_driver);
	dt_release_chan();
}

module_init(dt_init);
module_exit(dt_exit);

MODULE_DESCRIPTION("udmem test peer: memcpy through a dmaengine channel");
MODULE_LICENSE("GPL");
