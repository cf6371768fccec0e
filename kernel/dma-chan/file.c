// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: the file operations of /dev/<name>.
 *
 * One open file at a time; its close stops what it left running.  read()
 * returns completion records, poll() says when there is one, and the ioctls
 * are those of <linux/u-dma-chan.h>.
 */
#include <linux/build_bug.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/fcntl.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "udmachan.h"

static_assert(sizeof(struct u_dma_chan_xfer) == 64);
static_assert(sizeof(struct u_dma_chan_submit) == 48);
static_assert(sizeof(struct u_dma_chan_wait) == 48);
static_assert(sizeof(struct u_dma_chan_slave_config) == 48);
static_assert(sizeof(struct u_dma_chan_info) == 232);
static_assert(sizeof(struct u_dma_chan_completion) == 16);

#define UDC_READ_CHUNK	16	/* records per copy to user space */

static int udc_open(struct inode *inode, struct file *file)
{
	struct udc_chan *uc = udc_chan_get_minor(iminor(inode));
	struct udc_file *uf;
	int ret;

	if (!uc)
		return -ENODEV;
	uf = kvzalloc(sizeof(*uf), GFP_KERNEL);
	if (!uf) {
		ret = -ENOMEM;
		goto err_put;
	}
	uf->uc = uc;
	spin_lock_init(&uf->lock);
	init_waitqueue_head(&uf->wait);
	INIT_LIST_HEAD(&uf->running);
	INIT_LIST_HEAD(&uf->maps);
	INIT_KFIFO(uf->events);
	uf->fence_context = dma_fence_context_alloc(1);
	uf->slave_dir = DMA_TRANS_NONE;
	memcpy(uf->slave, uc->slave, sizeof(uf->slave));

	mutex_lock(&uc->lock);
	if (!uc->chan)
		ret = -ENODEV;
	else if (uc->owner)
		ret = -EBUSY;
	else
		ret = 0;
	if (!ret)
		uc->owner = uf;
	mutex_unlock(&uc->lock);
	if (ret)
		goto err_free;
	file->private_data = uf;
	return 0;

err_free:
	kvfree(uf);
err_put:
	udc_chan_put(uc);
	return ret;
}

static int udc_release(struct inode *inode, struct file *file)
{
	struct udc_file *uf = file->private_data;
	struct udc_chan *uc = uf->uc;

	mutex_lock(&uc->lock);
	if (uc->owner == uf) {
		if (uc->chan)
			udc_drain(uf, -ECANCELED);
		udc_drop_maps(uf);
		uc->owner = NULL;
	}
	mutex_unlock(&uc->lock);
	kvfree(uf);
	udc_chan_put(uc);
	return 0;
}

static bool udc_has_events(struct udc_file *uf)
{
	bool any;

	spin_lock_irq(&uf->lock);
	any = !kfifo_is_empty(&uf->events);
	spin_unlock_irq(&uf->lock);
	return any;
}

static ssize_t udc_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct udc_file *uf = file->private_data;
	struct u_dma_chan_completion rec[UDC_READ_CHUNK];
	size_t want = min_t(size_t, count / sizeof(rec[0]), UDC_READ_CHUNK);
	unsigned int got;
	int ret;

	if (!want)
		return -EINVAL;
	for (;;) {
		spin_lock_irq(&uf->lock);
		got = kfifo_out(&uf->events, rec, want);
		spin_unlock_irq(&uf->lock);
		if (got)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(uf->wait, udc_has_events(uf));
		if (ret)
			return ret;
	}
	if (copy_to_user(ubuf, rec, got * sizeof(rec[0])))
		return -EFAULT;
	return got * sizeof(rec[0]);
}

static __poll_t udc_poll(struct file *file, poll_table *wait)
{
	struct udc_file *uf = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &uf->wait, wait);
	if (udc_has_events(uf))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!READ_ONCE(uf->uc->chan))
		mask |= EPOLLHUP;
	return mask;
}

u64 udc_chan_caps(struct dma_chan *chan)
{
	struct dma_device *dd = chan->device;
	u64 caps = 0;

	if (dma_has_cap(DMA_MEMCPY, dd->cap_mask))
		caps |= U_DMA_CHAN_CAP_MEMCPY;
	if (dma_has_cap(DMA_SLAVE, dd->cap_mask)) {
		if (dd->directions & BIT(DMA_DEV_TO_MEM))
			caps |= U_DMA_CHAN_CAP_DEV_TO_MEM;
		if (dd->directions & BIT(DMA_MEM_TO_DEV))
			caps |= U_DMA_CHAN_CAP_MEM_TO_DEV;
		if (dma_has_cap(DMA_CYCLIC, dd->cap_mask))
			caps |= U_DMA_CHAN_CAP_CYCLIC;
	}
	return caps;
}

static int udc_ioctl_info(struct udc_file *uf, void __user *arg)
{
	struct udc_chan *uc = uf->uc;
	struct u_dma_chan_info info;
	struct device *dev;

	memset(&info, 0, sizeof(info));
	info.abi_version = U_DMA_CHAN_ABI_VERSION;
	info.max_batch = U_DMA_CHAN_MAX_BATCH;
	strscpy(info.name, uc->name, sizeof(info.name));
	mutex_lock(&uc->lock);
	if (!uc->chan) {
		mutex_unlock(&uc->lock);
		return -ENODEV;
	}
	dev = uc->chan->device->dev;
	info.copy_align = 1u << uc->chan->device->copy_align;
	info.caps = udc_chan_caps(uc->chan);
	info.max_segment = dma_get_max_seg_size(dev);
	info.dma_mask = dma_get_mask(dev);
	strscpy(info.channel, dma_chan_name(uc->chan), sizeof(info.channel));
	strscpy(info.device, dev_name(dev), sizeof(info.device));
	mutex_unlock(&uc->lock);
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static long udc_timeout_jiffies(s64 ns)
{
	unsigned long j;

	if (ns < 0)
		return MAX_SCHEDULE_TIMEOUT;
	if (!ns)
		return 0;
	j = nsecs_to_jiffies((u64)ns) + 1;
	return j >= MAX_SCHEDULE_TIMEOUT ? MAX_SCHEDULE_TIMEOUT - 1 : j;
}

/*
 * Wait up to @timeout_ns for batch *@seqp (0: the last one, whose number
 * it is given) and give its status; the errors are WAIT's.
 */
static int udc_wait_seq(struct udc_file *uf, u64 *seqp, s64 timeout_ns, s32 *status)
{
	struct udc_chan *uc = uf->uc;
	struct dma_fence *fence = NULL;
	long left;
	int ret = 0;
	u64 seq;

	spin_lock_irq(&uf->lock);
	if (!*seqp)
		*seqp = uf->seq;
	seq = *seqp;
	if (!seq || seq > uf->seq) {
		ret = -EINVAL;
	} else {
		fence = udc_running_fence(uf, seq);
		if (!fence && uf->seq - seq >= UDC_STATUS_KEPT)
			ret = -ENOENT;
		else if (!fence)
			*status = uf->status[seq % UDC_STATUS_KEPT];
	}
	spin_unlock_irq(&uf->lock);
	if (ret)
		return ret;
	if (fence) {
		left = dma_fence_wait_timeout(fence, true, udc_timeout_jiffies(timeout_ns));
		if (left > 0) {
			ret = dma_fence_get_status(fence);
			*status = ret < 0 ? ret : 0;
			ret = 0;
		} else {
			ret = left ? -EINTR : -ETIMEDOUT;
		}
		dma_fence_put(fence);
		if (ret)
			return ret;
		/* The fence signals just before the batch lets go of its mappings. */
		wait_event(uf->wait, !udc_seq_running(uf, seq));
	}
	/*
	 * The mappings of DMA-BUFs whose fds are all closed go now: their
	 * exporter may free the memory once a wait said the transfers ended.
	 * A submit running in another thread trims when it ends.
	 */
	if (mutex_trylock(&uc->lock)) {
		if (uc->owner == uf && uc->chan)
			udc_maps_trim(uf);
		mutex_unlock(&uc->lock);
	}
	return 0;
}

static int udc_ioctl_submit(struct udc_file *uf, void __user *arg)
{
	struct udc_chan *uc = uf->uc;
	struct u_dma_chan_submit sub;
	int ret;

	if (copy_from_user(&sub, arg, sizeof(sub)))
		return -EFAULT;
	mutex_lock(&uc->lock);
	ret = uc->chan ? udc_submit(uf, &sub) : -ENODEV;
	mutex_unlock(&uc->lock);
	if (ret)
		return ret;
	/*
	 * The batch runs: a fault here loses only the numbers, which WAIT
	 * (seq 0: the last batch) and read() still give.
	 */
	if (sub.flags & U_DMA_CHAN_SUBMIT_WAIT) {
		ret = udc_wait_seq(uf, &sub.seq, -1, &sub.status);
		if (ret && ret != -EINTR)
			return ret;
	}
	if (copy_to_user(arg, &sub, sizeof(sub)))
		return -EFAULT;
	return ret;
}

static int udc_ioctl_wait(struct udc_file *uf, void __user *arg)
{
	struct u_dma_chan_wait w;
	int ret;

	if (copy_from_user(&w, arg, sizeof(w)))
		return -EFAULT;
	if (w.reserved0 || w.reserved[0] || w.reserved[1])
		return -EINVAL;
	ret = udc_wait_seq(uf, &w.seq, w.timeout_ns, &w.status);
	if (ret)
		return ret;
	spin_lock_irq(&uf->lock);
	w.completed = uf->completed;
	spin_unlock_irq(&uf->lock);
	return copy_to_user(arg, &w, sizeof(w)) ? -EFAULT : 0;
}

static int udc_ioctl_slave_config(struct udc_file *uf, void __user *arg)
{
	struct udc_chan *uc = uf->uc;
	struct u_dma_chan_slave_config c;
	struct dma_slave_config *s;
	enum dma_slave_buswidth width;

	if (copy_from_user(&c, arg, sizeof(c)))
		return -EFAULT;
	if (c.reserved0 || c.reserved[0] || c.reserved[1] || c.reserved[2])
		return -EINVAL;
	if (c.direction != U_DMA_CHAN_OP_DEV_TO_MEM && c.direction != U_DMA_CHAN_OP_MEM_TO_DEV)
		return -EINVAL;
	if (c.addr_width > 64 || !is_power_of_2(c.addr_width))
		return -EINVAL;
	width = c.addr_width;

	mutex_lock(&uc->lock);
	s = &uf->slave[c.direction == U_DMA_CHAN_OP_DEV_TO_MEM ? 0 : 1];
	memset(s, 0, sizeof(*s));
	if (c.direction == U_DMA_CHAN_OP_DEV_TO_MEM) {
		s->direction = DMA_DEV_TO_MEM;
		s->src_addr = c.dev_addr;
	} else {
		s->direction = DMA_MEM_TO_DEV;
		s->dst_addr = c.dev_addr;
	}
	s->src_addr_width = width;
	s->dst_addr_width = width;
	s->src_maxburst = c.maxburst;
	s->dst_maxburst = c.maxburst;
	uf->slave_dir = DMA_TRANS_NONE;
	mutex_unlock(&uc->lock);
	return 0;
}

static int udc_ioctl_terminate(struct udc_file *uf)
{
	struct udc_chan *uc = uf->uc;
	int ret = 0;

	mutex_lock(&uc->lock);
	if (uc->chan)
		udc_terminate(uf, -ECANCELED);
	else
		ret = -ENODEV;
	mutex_unlock(&uc->lock);
	return ret;
}

static long udc_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct udc_file *uf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case U_DMA_CHAN_IOCTL_INFO:
		return udc_ioctl_info(uf, uarg);
	case U_DMA_CHAN_IOCTL_SUBMIT:
		return udc_ioctl_submit(uf, uarg);
	case U_DMA_CHAN_IOCTL_WAIT:
		return udc_ioctl_wait(uf, uarg);
	case U_DMA_CHAN_IOCTL_SLAVE_CONFIG:
		return udc_ioctl_slave_config(uf, uarg);
	case U_DMA_CHAN_IOCTL_TERMINATE:
		return udc_ioctl_terminate(uf);
	default:
		return -ENOTTY;
	}
}

const struct file_operations udc_fops = {
	.owner = THIS_MODULE,
	.open = udc_open,
	.release = udc_release,
	.read = udc_read,
	.poll = udc_poll,
	.unlocked_ioctl = udc_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};
