// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: batches of transfers.
 *
 * A submit checks every transfer of the batch (its DMA-BUFs, ranges and
 * alignment) before anything is issued, syncs the DMA-BUFs for the device,
 * adds the batch's fence to their reservation objects, and issues the
 * transfers.  The engine's callbacks count them down; the last one (or
 * TERMINATE, close and removal for the ones that never come) queues the
 * completion, which syncs the destinations for the CPU in process context,
 * then signals the fence and records the status.
 *
 * The DMA-BUFs stay attached and mapped for the channel's device while the
 * file is open (UDC_MAPS_KEPT idle ones at most), so a transfer costs no
 * mapping; the cache syncs go through the exporter, which knows the
 * buffer's own coherency.  Our own exports (u-dma-buf's and uiomem's) sync
 * just the bytes the batch reads and writes, through their range functions
 * (udmem_dma.h); any other DMA-BUF through its CPU-access callbacks, which
 * cover all of it.
 */
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/delay.h>
#include <linux/dmaengine.h>
#include <linux/fcntl.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/sched/signal.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "udmachan.h"

/* An engine without a callback for this long is stuck. */
#define UDC_STALL_MS	5000
/* How long a close lets running batches finish before stopping them. */
#define UDC_DRAIN_MS	2000

struct udc_fence {
	struct dma_fence base;	/* first: dma_fence_free() frees it */
	spinlock_t lock;
};

/*
 * A DMA-BUF a batch uses, once per batch: the span of the bytes it reads
 * and of those it writes, of the transfers that want syncs ([lo, hi),
 * empty when lo >= hi).
 */
struct udc_use {
	struct udc_map *map;
	bool write;
	u64 rlo, rhi;
	u64 wlo, whi;
};

/* A transfer checked and resolved, not yet issued. */
struct udc_plan {
	struct udc_map *src;
	struct udc_map *dst;
	u64 src_off;
	u64 dst_off;
	u64 len;
	u64 period;
	u32 op;
	bool sync;
};

struct udc_batch {
	struct list_head node;
	struct udc_file *uf;
	struct dma_chan *chan;
	unsigned int quirks;
	u64 seq;
	struct dma_fence *fence;
	atomic_t pending;
	atomic_t error;
	unsigned long done;
	bool no_event;
	struct work_struct work;
	unsigned int nuses;
	struct udc_use uses[];
};

static const char *udc_fence_driver_name(struct dma_fence *fence)
{
	return UDC_DRIVER_NAME;
}

static const char *udc_fence_timeline_name(struct dma_fence *fence)
{
	return "transfers";
}

/* Each fence holds the module: its ops are this module's code. */
static void udc_fence_release(struct dma_fence *fence)
{
	dma_fence_free(fence);
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops udc_fence_ops = {
	.get_driver_name = udc_fence_driver_name,
	.get_timeline_name = udc_fence_timeline_name,
	.release = udc_fence_release,
};

static struct dma_fence *udc_fence_create(u64 context, u64 seqno)
{
	struct udc_fence *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	__module_get(THIS_MODULE);
	spin_lock_init(&f->lock);
	dma_fence_init(&f->base, &udc_fence_ops, &f->lock, context, seqno);
	return &f->base;
}

/*
 * Our exporters' range syncs (udmem_dma.h), tried in turn.  Only through
 * symbol_get(): a direct reference would make this module need both.
 */
static void udc_range_fn_get(struct udc_map *m)
{
	udmem_export_sync_range_t *fn;

	fn = symbol_get(udmabuf_export_sync_range);
	if (fn) {
		if (!fn(m->dmabuf, 0, 0, true, DMA_BIDIRECTIONAL)) {
			m->sync_range = fn;
			return;
		}
		symbol_put(udmabuf_export_sync_range);
	}
	fn = symbol_get(uiomem_export_sync_range);
	if (fn) {
		if (!fn(m->dmabuf, 0, 0, true, DMA_BIDIRECTIONAL)) {
			m->sync_range = fn;
			m->sync_range_uiomem = true;
			return;
		}
		symbol_put(uiomem_export_sync_range);
	}
}

static void udc_range_fn_put(struct udc_map *m)
{
	if (!m->sync_range)
		return;
	if (m->sync_range_uiomem)
		symbol_put(uiomem_export_sync_range);
	else
		symbol_put(udmabuf_export_sync_range);
}

static void udc_map_free(struct udc_map *m)
{
	udc_range_fn_put(m);
	dma_buf_unmap_attachment_unlocked(m->attach, m->sgt, DMA_BIDIRECTIONAL);
	dma_buf_detach(m->dmabuf, m->attach);
	dma_buf_put(m->dmabuf);
	kfree(m);
}

/*
 * The mapping of DMA-BUF @fd for the channel's device, made on first use;
 * under udc_chan.lock.  EBADF for no open file, EINVAL for a file that is
 * not a DMA-BUF, EACCES for a destination not open for writing.
 */
static struct udc_map *udc_map_get(struct udc_file *uf, int fd, bool write)
{
	struct device *dev = uf->uc->chan->device->dev;
	struct dma_buf *dmabuf;
	struct udc_map *m;
	int ret;

	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return ERR_CAST(dmabuf);
	if (write && !(dmabuf->file->f_mode & FMODE_WRITE)) {
		ret = -EACCES;
		goto err_put;
	}
	list_for_each_entry(m, &uf->maps, node) {
		if (m->dmabuf == dmabuf) {
			dma_buf_put(dmabuf);
			list_move(&m->node, &uf->maps);
			return m;
		}
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		ret = -ENOMEM;
		goto err_put;
	}
	m->dmabuf = dmabuf;
	m->fresh = true;
	m->attach = dma_buf_attach(dmabuf, dev);
	if (IS_ERR(m->attach)) {
		ret = PTR_ERR(m->attach);
		goto err_free;
	}
	m->sgt = dma_buf_map_attachment_unlocked(m->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(m->sgt)) {
		ret = PTR_ERR(m->sgt);
		goto err_detach;
	}
	udc_range_fn_get(m);
	list_add(&m->node, &uf->maps);
	uf->nmaps++;
	return m;

err_detach:
	dma_buf_detach(dmabuf, m->attach);
err_free:
	kfree(m);
err_put:
	dma_buf_put(dmabuf);
	return ERR_PTR(ret);
}

/*
 * Let go of the idle mappings whose DMA-BUF only the mapping still holds
 * (every fd of it is closed, so no submit can name it again; holding it
 * would keep its exporter from freeing the memory: u-dma-buf refuses to
 * delete an exported buffer), and of those past UDC_MAPS_KEPT, least
 * recently used first.  Under udc_chan.lock.
 */
void udc_maps_trim(struct udc_file *uf)
{
	struct udc_map *m, *tmp;
	bool idle;

	list_for_each_entry_safe_reverse(m, tmp, &uf->maps, node) {
		if (uf->nmaps <= UDC_MAPS_KEPT && file_count(m->dmabuf->file) > 1)
			continue;
		spin_lock_irq(&uf->lock);
		idle = !m->users;
		spin_unlock_irq(&uf->lock);
		if (!idle)
			continue;
		list_del(&m->node);
		uf->nmaps--;
		udc_map_free(m);
	}
}

/*
 * After a submit: a refused one (@ret not 0) leaves none of the mappings it
 * made, so the caller's DMA-BUFs are free again once it closes them.
 * Under udc_chan.lock.
 */
static void udc_maps_settle(struct udc_file *uf, int ret)
{
	struct udc_map *m, *tmp;

	list_for_each_entry_safe(m, tmp, &uf->maps, node) {
		if (!m->fresh)
			continue;
		m->fresh = false;
		/* A refused submit gave none of them a user. */
		if (!ret)
			continue;
		list_del(&m->node);
		uf->nmaps--;
		udc_map_free(m);
	}
}

/* Every mapping; the file has nothing in flight.  Under udc_chan.lock. */
void udc_drop_maps(struct udc_file *uf)
{
	struct udc_map *m, *tmp;

	list_for_each_entry_safe(m, tmp, &uf->maps, node) {
		list_del(&m->node);
		udc_map_free(m);
	}
	uf->nmaps = 0;
}

/*
 * The DMA address of byte @off of @m and how many bytes follow it at
 * consecutive DMA addresses: entries that continue one another count as
 * one (an exporter cuts even contiguous memory at the importer's segment
 * size).
 */
static dma_addr_t udc_map_addr(const struct udc_map *m, u64 off, u64 *avail)
{
	struct scatterlist *sg;
	dma_addr_t addr = 0;
	bool found = false;
	unsigned int i;

	*avail = 0;
	for_each_sgtable_dma_sg(m->sgt, sg, i) {
		u64 len = sg_dma_len(sg);

		if (found) {
			if (sg_dma_address(sg) != addr + *avail)
				break;
			*avail += len;
		} else if (off < len) {
			found = true;
			addr = sg_dma_address(sg) + off;
			*avail = len - off;
		} else {
			off -= len;
		}
	}
	return addr;
}

static int udc_range_check(const struct udc_map *m, u64 off, u64 len, u64 align)
{
	u64 end;

	if (check_add_overflow(off, len, &end) || end > m->dmabuf->size)
		return -EINVAL;
	if ((off | len) & (align - 1))
		return -EINVAL;
	return 0;
}

static bool udc_ranges_overlap(u64 a, u64 b, u64 len)
{
	return a < b + len && b < a + len;
}

/* Check one transfer and resolve its DMA-BUFs; under udc_chan.lock. */
static int udc_plan_one(struct udc_file *uf, const struct u_dma_chan_xfer *x,
			struct udc_plan *p)
{
	struct dma_chan *chan = uf->uc->chan;
	u64 caps = udc_chan_caps(chan);
	u64 align = 1ull << chan->device->copy_align;
	bool cyclic = x->flags & U_DMA_CHAN_XFER_CYCLIC;
	int ret;

	if (x->reserved[0] || x->reserved[1] || x->flags & ~U_DMA_CHAN_XFER_FLAGS ||
	    !x->length || (!cyclic && x->period))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->op = x->op;
	p->len = x->length;
	p->sync = !(x->flags & U_DMA_CHAN_XFER_NO_SYNC);
	switch (x->op) {
	case U_DMA_CHAN_OP_MEMCPY:
		if (cyclic)
			return -EINVAL;
		if (!(caps & U_DMA_CHAN_CAP_MEMCPY))
			return -EOPNOTSUPP;
		break;
	case U_DMA_CHAN_OP_DEV_TO_MEM:
		if (x->src_fd != -1 || x->src_offset)
			return -EINVAL;
		if (!(caps & U_DMA_CHAN_CAP_DEV_TO_MEM))
			return -EOPNOTSUPP;
		align = 1;
		break;
	case U_DMA_CHAN_OP_MEM_TO_DEV:
		if (x->dst_fd != -1 || x->dst_offset)
			return -EINVAL;
		if (!(caps & U_DMA_CHAN_CAP_MEM_TO_DEV))
			return -EOPNOTSUPP;
		align = 1;
		break;
	default:
		return -EINVAL;
	}
	if (cyclic) {
		u64 rem = 1;

		if (x->period)
			div64_u64_rem(x->length, x->period, &rem);
		if (rem)
			return -EINVAL;
		if (!(caps & U_DMA_CHAN_CAP_CYCLIC))
			return -EOPNOTSUPP;
		p->period = x->period;
	}
	if (x->op != U_DMA_CHAN_OP_DEV_TO_MEM) {
		p->src = udc_map_get(uf, x->src_fd, false);
		if (IS_ERR(p->src))
			return PTR_ERR(p->src);
		p->src_off = x->src_offset;
		ret = udc_range_check(p->src, p->src_off, p->len, align);
		if (ret)
			return ret;
	}
	if (x->op != U_DMA_CHAN_OP_MEM_TO_DEV) {
		p->dst = udc_map_get(uf, x->dst_fd, true);
		if (IS_ERR(p->dst))
			return PTR_ERR(p->dst);
		p->dst_off = x->dst_offset;
		ret = udc_range_check(p->dst, p->dst_off, p->len, align);
		if (ret)
			return ret;
	}
	if (p->src && p->src == p->dst &&
	    udc_ranges_overlap(p->src_off, p->dst_off, p->len))
		return -EINVAL;
	/* A cyclic transfer is one descriptor: its memory must be one DMA range. */
	if (cyclic) {
		struct udc_map *m = p->src ? p->src : p->dst;
		u64 avail;

		udc_map_addr(m, p->src ? p->src_off : p->dst_off, &avail);
		if (avail < p->len)
			return -EINVAL;
	}
	return 0;
}

static void udc_span_add(u64 *lo, u64 *hi, u64 off, u64 len)
{
	if (*lo >= *hi) {
		*lo = off;
		*hi = off + len;
	} else {
		*lo = min(*lo, off);
		*hi = max(*hi, off + len);
	}
}

/* @m's bytes [off, off + len) are read (or written) by the batch. */
static void udc_batch_add_use(struct udc_batch *b, struct udc_map *m, u64 off, u64 len,
			      bool write, bool sync)
{
	struct udc_use *u = NULL;
	unsigned int i;

	for (i = 0; i < b->nuses; i++) {
		if (b->uses[i].map == m) {
			u = &b->uses[i];
			break;
		}
	}
	if (!u) {
		u = &b->uses[b->nuses++];
		*u = (struct udc_use){ .map = m };
	}
	u->write |= write;
	if (!sync)
		return;
	if (write)
		udc_span_add(&u->wlo, &u->whi, off, len);
	else
		udc_span_add(&u->rlo, &u->rhi, off, len);
}

/*
 * Hand @u's bytes to the device before the batch is issued, or back to
 * the CPU after it.  Without a range function (a DMA-BUF of another
 * exporter) the whole DMA-BUF, as its CPU-access callbacks do; the
 * completion calls the callback itself, because
 * dma_buf_begin_cpu_access() would first wait for the fences of the
 * reservation object, this batch's among them.
 */
static int udc_use_sync(const struct udc_use *u, bool for_device)
{
	struct dma_buf *dmabuf = u->map->dmabuf;
	udmem_export_sync_range_t *fn = u->map->sync_range;
	bool reads = u->rlo < u->rhi, writes = u->wlo < u->whi;
	int ret;

	if (fn) {
		if (for_device && reads) {
			ret = fn(dmabuf, u->rlo, u->rhi - u->rlo, true, DMA_TO_DEVICE);
			if (ret)
				return ret;
		}
		if (writes)
			return fn(dmabuf, u->wlo, u->whi - u->wlo, for_device, DMA_FROM_DEVICE);
		return 0;
	}
	if (for_device && (reads || writes))
		return dma_buf_end_cpu_access(dmabuf, writes ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE);
	if (!for_device && writes && dmabuf->ops->begin_cpu_access)
		return dmabuf->ops->begin_cpu_access(dmabuf, DMA_FROM_DEVICE);
	return 0;
}

static void udc_batch_finish(struct udc_batch *b)
{
	if (!test_and_set_bit(0, &b->done))
		queue_work(udc_wq, &b->work);
}

static void udc_xfer_done(void *param, const struct dmaengine_result *res)
{
	struct udc_batch *b = param;
	struct udc_chan *uc = b->uf->uc;
	bool last;

	if (res && res->result != DMA_TRANS_NOERROR)
		atomic_cmpxchg(&b->error, 0,
			       res->result == DMA_TRANS_ABORTED ? -ECANCELED : -EIO);
	atomic_inc(&b->uf->callbacks);
	last = atomic_dec_and_test(&b->pending);
	/*
	 * UDC_QUIRK_REISSUE: the engine went on to the next descriptor it
	 * had been issued, or stopped; what was submitted while it ran
	 * (this batch's rest, or later batches) was never issued.  The
	 * batch being completed still counts in in_flight until its work
	 * runs.
	 */
	if (b->quirks & UDC_QUIRK_REISSUE && (!last || atomic_read(&uc->in_flight) > 1))
		dma_async_issue_pending(b->chan);
	if (last)
		udc_batch_finish(b);
}

/* A period of a cyclic transfer: only an error is news. */
static void udc_cyclic_period(void *param, const struct dmaengine_result *res)
{
	struct udc_batch *b = param;

	if (res && res->result != DMA_TRANS_NOERROR)
		atomic_cmpxchg(&b->error, 0, -EIO);
	atomic_inc(&b->uf->callbacks);
}

/* UDC_QUIRK_PLAIN_CALLBACK: the driver passes no result (no error). */
static void udc_xfer_done_plain(void *param)
{
	udc_xfer_done(param, NULL);
}

static void udc_cyclic_period_plain(void *param)
{
	udc_cyclic_period(param, NULL);
}

static void udc_batch_work(struct work_struct *work)
{
	struct udc_batch *b = container_of(work, struct udc_batch, work);
	struct udc_file *uf = b->uf;
	struct udc_chan *uc = uf->uc;
	struct u_dma_chan_completion rec = { };
	unsigned long flags;
	unsigned int i;
	int err, ret;

	for (i = 0; i < b->nuses; i++) {
		ret = udc_use_sync(&b->uses[i], false);
		if (ret)
			atomic_cmpxchg(&b->error, 0, ret);
	}
	err = atomic_read(&b->error);
	if (err)
		dma_fence_set_error(b->fence, err);
	dma_fence_signal(b->fence);

	rec.seq = b->seq;
	rec.status = err;
	spin_lock_irqsave(&uf->lock, flags);
	for (i = 0; i < b->nuses; i++)
		b->uses[i].map->users--;
	list_del(&b->node);
	uf->status[b->seq % UDC_STATUS_KEPT] = err;
	uf->completed++;
	if (!b->no_event) {
		if (kfifo_is_full(&uf->events)) {
			kfifo_skip(&uf->events);
			uf->lost++;
		}
		kfifo_put(&uf->events, rec);
	}
	atomic_dec(&uc->in_flight);
	atomic64_inc(&uc->completed);
	if (err)
		atomic64_inc(&uc->failed);
	/* Inside the lock: once it is dropped, the file may be gone. */
	wake_up_all(&uf->wait);
	spin_unlock_irqrestore(&uf->lock, flags);

	dma_fence_put(b->fence);
	kfree(b);
}

static int udc_slave_apply(struct udc_file *uf, enum dma_transfer_direction dir)
{
	int ret;

	if (uf->slave_dir == dir)
		return 0;
	ret = dmaengine_slave_config(uf->uc->chan,
				     &uf->slave[dir == DMA_DEV_TO_MEM ? 0 : 1]);
	if (ret)
		return ret;
	uf->slave_dir = dir;
	return 0;
}

static struct dma_async_tx_descriptor *
udc_prep(struct dma_chan *chan, const struct udc_plan *p, dma_addr_t src, dma_addr_t dst, u64 len)
{
	unsigned long fl = DMA_PREP_INTERRUPT | DMA_CTRL_ACK;
	struct dma_async_tx_descriptor *tx;

	switch (p->op) {
	case U_DMA_CHAN_OP_MEMCPY:
		tx = dmaengine_prep_dma_memcpy(chan, dst, src, len, fl);
		break;
	case U_DMA_CHAN_OP_DEV_TO_MEM:
		tx = p->period ?
		     dmaengine_prep_dma_cyclic(chan, dst, len, p->period, DMA_DEV_TO_MEM, fl) :
		     dmaengine_prep_slave_single(chan, dst, len, DMA_DEV_TO_MEM, fl);
		break;
	default:
		tx = p->period ?
		     dmaengine_prep_dma_cyclic(chan, src, len, p->period, DMA_MEM_TO_DEV, fl) :
		     dmaengine_prep_slave_single(chan, src, len, DMA_MEM_TO_DEV, fl);
		break;
	}
	return tx;
}

/*
 * Prepare and submit one descriptor; 0 or -errno (nothing submitted).  An
 * engine out of descriptors frees some as the ones issued complete: wait
 * for that while its callbacks come, and give up (EBUSY) after
 * UDC_STALL_MS without one.
 */
static int udc_issue_one(struct udc_batch *b, const struct udc_plan *p,
			 dma_addr_t src, dma_addr_t dst, u64 len)
{
	struct udc_file *uf = b->uf;
	struct dma_chan *chan = uf->uc->chan;
	unsigned long progress = jiffies;
	int seen = atomic_read(&uf->callbacks);
	struct dma_async_tx_descriptor *tx;
	dma_cookie_t cookie;

	while (!(tx = udc_prep(chan, p, src, dst, len))) {
		dma_async_issue_pending(chan);
		if (signal_pending(current))
			return -EINTR;
		if (atomic_read(&uf->callbacks) != seen) {
			seen = atomic_read(&uf->callbacks);
			progress = jiffies;
		} else if (time_after(jiffies, progress + msecs_to_jiffies(UDC_STALL_MS))) {
			return -EBUSY;
		}
		usleep_range(50, 500);
	}
	if (p->period)
		uf->cyclic = true;
	/*
	 * Both fields are set: a driver may hand out a descriptor with the
	 * last user's value in either, and callback_result wins.
	 */
	if (b->quirks & UDC_QUIRK_PLAIN_CALLBACK) {
		tx->callback = p->period ? udc_cyclic_period_plain : udc_xfer_done_plain;
		tx->callback_result = NULL;
	} else {
		tx->callback = NULL;
		tx->callback_result = p->period ? udc_cyclic_period : udc_xfer_done;
	}
	tx->callback_param = b;
	/* A cyclic transfer's count is dropped by udc_terminate() only. */
	atomic_inc(&b->pending);
	cookie = dmaengine_submit(tx);
	if (dma_submit_error(cookie)) {
		atomic_dec(&b->pending);
		return -EIO;
	}
	return 0;
}

/* Split a transfer at the DMA ranges of its buffers and the segment limit. */
static int udc_issue_plan(struct udc_batch *b, const struct udc_plan *p, u64 max_seg,
			  unsigned int *issued)
{
	struct udc_file *uf = b->uf;
	struct dma_device *dd = uf->uc->chan->device;
	u64 done = 0, n, avail;
	dma_addr_t src = 0, dst = 0;
	int ret;

	if (p->op != U_DMA_CHAN_OP_MEMCPY) {
		ret = udc_slave_apply(uf, p->op == U_DMA_CHAN_OP_DEV_TO_MEM ?
				      DMA_DEV_TO_MEM : DMA_MEM_TO_DEV);
		if (ret)
			return ret;
	}
	while (done < p->len) {
		n = p->period ? p->len : min(p->len - done, max_seg);
		if (p->src) {
			src = udc_map_addr(p->src, p->src_off + done, &avail);
			n = min(n, avail);
		}
		if (p->dst) {
			dst = udc_map_addr(p->dst, p->dst_off + done, &avail);
			n = min(n, avail);
		}
		if (!n)
			return -EINVAL;
		if (p->op == U_DMA_CHAN_OP_MEMCPY && !is_dma_copy_aligned(dd, src, dst, n))
			return -EINVAL;
		ret = udc_issue_one(b, p, src, dst, n);
		if (ret)
			return ret;
		(*issued)++;
		done += n;
	}
	return 0;
}

/* Sync for the device and publish the fence in the reservation objects. */
static int udc_batch_prepare(struct udc_batch *b)
{
	unsigned int i;
	int ret;

	for (i = 0; i < b->nuses; i++) {
		ret = udc_use_sync(&b->uses[i], true);
		if (ret)
			return ret;
	}
	for (i = 0; i < b->nuses; i++) {
		struct dma_resv *resv = b->uses[i].map->dmabuf->resv;

		ret = dma_resv_lock_interruptible(resv, NULL);
		if (ret)
			return ret;
		ret = udmem_dma_resv_add_fence(resv, b->fence, b->uses[i].write);
		dma_resv_unlock(resv);
		if (ret)
			return ret;
	}
	return 0;
}

static int udc_fence_fd(struct dma_fence *fence)
{
	struct sync_file *sf;
	int fd;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	sf = sync_file_create(fence);
	if (!sf) {
		put_unused_fd(fd);
		return -ENOMEM;
	}
	fd_install(fd, sf->file);
	return fd;
}

/* SUBMIT; under udc_chan.lock, with the channel present. */
int udc_submit(struct udc_file *uf, struct u_dma_chan_submit *sub)
{
	struct udc_chan *uc = uf->uc;
	struct u_dma_chan_xfer *x;
	struct udc_plan *plans;
	struct udc_batch *b;
	unsigned int i, issued = 0;
	u64 max_seg;
	int ret;

	if (sub->flags & ~U_DMA_CHAN_SUBMIT_FLAGS || sub->status ||
	    sub->reserved[0] || sub->reserved[1] || !sub->count)
		return -EINVAL;
	if (sub->count > U_DMA_CHAN_MAX_BATCH)
		return -E2BIG;
	if (uc->broken)
		return -EIO;
	x = memdup_user(u64_to_user_ptr(sub->xfers), array_size(sub->count, sizeof(*x)));
	if (IS_ERR(x))
		return PTR_ERR(x);
	plans = kcalloc(sub->count, sizeof(*plans), GFP_KERNEL);
	b = kzalloc(struct_size(b, uses, 2 * sub->count), GFP_KERNEL);
	if (!plans || !b) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < sub->count; i++) {
		ret = udc_plan_one(uf, &x[i], &plans[i]);
		if (ret)
			goto out_free;
		/* A cyclic transfer completes only when stopped: no waiting for it. */
		if (sub->flags & U_DMA_CHAN_SUBMIT_WAIT && plans[i].period) {
			ret = -EINVAL;
			goto out_free;
		}
	}

	b->uf = uf;
	b->chan = uc->chan;
	b->quirks = uc->quirks;
	b->seq = uf->seq + 1;
	b->no_event = sub->flags & U_DMA_CHAN_SUBMIT_NO_EVENT;
	atomic_set(&b->pending, 1);	/* the submit's own, dropped at the end */
	INIT_WORK(&b->work, udc_batch_work);
	b->fence = udc_fence_create(uf->fence_context, b->seq);
	if (!b->fence) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (i = 0; i < sub->count; i++) {
		if (plans[i].src)
			udc_batch_add_use(b, plans[i].src, plans[i].src_off, plans[i].len,
					  false, plans[i].sync);
		if (plans[i].dst)
			udc_batch_add_use(b, plans[i].dst, plans[i].dst_off, plans[i].len,
					  true, plans[i].sync);
	}
	ret = udc_batch_prepare(b);
	if (ret)
		goto out_signal;

	sub->fence_fd = -1;
	if (sub->flags & U_DMA_CHAN_SUBMIT_FENCE_FD) {
		ret = udc_fence_fd(b->fence);
		if (ret < 0)
			goto out_signal;
		sub->fence_fd = ret;
	}

	spin_lock_irq(&uf->lock);
	for (i = 0; i < b->nuses; i++)
		b->uses[i].map->users++;
	list_add_tail(&b->node, &uf->running);
	spin_unlock_irq(&uf->lock);
	uf->seq = b->seq;
	sub->seq = b->seq;
	atomic_inc(&uc->in_flight);
	atomic64_inc(&uc->submitted);

	/*
	 * Past this point the batch exists: a descriptor the engine refuses
	 * (EBUSY: out of descriptors) fails the batch, not the call, as the
	 * ones before it already run.
	 */
	max_seg = dma_get_max_seg_size(uc->chan->device->dev);
	if (uc->quirks & UDC_QUIRK_LONG_MEMCPY)
		max_seg = max_t(u64, max_seg, UDC_LONG_MEMCPY);
	for (i = 0; i < sub->count; i++) {
		ret = udc_issue_plan(b, &plans[i], max_seg, &issued);
		if (ret) {
			atomic_cmpxchg(&b->error, 0, ret);
			break;
		}
	}
	if (issued)
		dma_async_issue_pending(uc->chan);
	if (atomic_dec_and_test(&b->pending))
		udc_batch_finish(b);
	ret = 0;
	goto out_trim;

out_signal:
	dma_fence_set_error(b->fence, ret);
	dma_fence_signal(b->fence);
	dma_fence_put(b->fence);
out_free:
	kfree(b);
out_trim:
	kfree(plans);
	kfree(x);
	udc_maps_settle(uf, ret);
	udc_maps_trim(uf);
	return ret;
}

/* Is batch @seq still on the running list (its record not yet made)? */
bool udc_seq_running(struct udc_file *uf, u64 seq)
{
	struct udc_batch *b;
	bool found = false;

	spin_lock_irq(&uf->lock);
	list_for_each_entry(b, &uf->running, node) {
		if (b->seq == seq) {
			found = true;
			break;
		}
	}
	spin_unlock_irq(&uf->lock);
	return found;
}

/* The fence of running batch @seq (a reference), or NULL; under udc_file.lock. */
struct dma_fence *udc_running_fence(struct udc_file *uf, u64 seq)
{
	struct udc_batch *b;

	list_for_each_entry(b, &uf->running, node)
		if (b->seq == seq)
			return dma_fence_get(b->fence);
	return NULL;
}

static bool udc_idle(struct udc_file *uf)
{
	bool idle;

	spin_lock_irq(&uf->lock);
	idle = list_empty(&uf->running);
	spin_unlock_irq(&uf->lock);
	return idle;
}

/*
 * Have the engine's driver set the channel up anew: free its resources and
 * allocate them again, as dmaengine does between its last client and the
 * next.  After a terminate_all that stopped a started transfer, some
 * drivers keep the channel busy until then: ZynqMP's ZDMA (6.1) masks the
 * interrupt that would tell it the started chain ended, and never starts
 * another.  Only for a channel this file alone holds.
 */
static void udc_chan_renew(struct udc_chan *uc)
{
	struct dma_chan *chan = uc->chan;
	struct dma_device *dd = chan->device;
	int ret;

	if (chan->client_count != 1 || !dd->device_free_chan_resources ||
	    !dd->device_alloc_chan_resources)
		return;
	dd->device_free_chan_resources(chan);
	ret = dd->device_alloc_chan_resources(chan);
	if (ret < 0) {
		dev_err(&uc->dev, "%s cannot be set up again after a terminate (%d): delete and create the channel\n",
			dma_chan_name(chan), ret);
		uc->broken = true;
	}
}

/*
 * UDC_QUIRK_IDLE_TERMINATE: let the engine run out before it is stopped.
 * Issue what waits (the completions issue the rest) and wait for the
 * file's batches as long as callbacks come; give up after UDC_STALL_MS
 * without one.
 */
static void udc_run_out(struct udc_file *uf)
{
	int seen;

	dma_async_issue_pending(uf->uc->chan);
	do {
		seen = atomic_read(&uf->callbacks);
		if (wait_event_timeout(uf->wait, udc_idle(uf), msecs_to_jiffies(UDC_STALL_MS)))
			return;
	} while (atomic_read(&uf->callbacks) != seen);
}

/*
 * Stop every transfer of the file and complete its batches, with @error
 * for those the engine had not finished; returns once all completed.  If
 * the engine was stopped in the middle of something, its channel is set
 * up anew (udc_chan_renew()).  Under udc_chan.lock, with the channel
 * present.
 */
void udc_terminate(struct udc_file *uf, int error)
{
	struct udc_batch *b;
	bool stopped = false;
	int ret;

	if (uf->uc->quirks & UDC_QUIRK_IDLE_TERMINATE && !uf->cyclic)
		udc_run_out(uf);
	ret = dmaengine_terminate_sync(uf->uc->chan);
	if (!ret) {
		/* No callback runs any more: a batch not done never will be. */
		spin_lock_irq(&uf->lock);
		list_for_each_entry(b, &uf->running, node) {
			if (test_bit(0, &b->done))
				continue;
			stopped = true;
			atomic_cmpxchg(&b->error, 0, error);
			udc_batch_finish(b);
		}
		spin_unlock_irq(&uf->lock);
	}
	wait_event(uf->wait, udc_idle(uf));
	if (stopped)
		udc_chan_renew(uf->uc);
	uf->slave_dir = DMA_TRANS_NONE;
	uf->cyclic = false;
}

/*
 * Let the file's batches finish for up to UDC_DRAIN_MS, then stop what is
 * left with @error (udc_terminate()); at once with cyclic ones.  Stopping
 * an engine in the middle of its completion work is where engine drivers
 * are least tested (ZDMA's terminate_all races its own completion tasklet):
 * a close gives the engine a moment to finish first.  Under udc_chan.lock,
 * with the channel present.
 */
void udc_drain(struct udc_file *uf, int error)
{
	if (!uf->cyclic)
		wait_event_timeout(uf->wait, udc_idle(uf), msecs_to_jiffies(UDC_DRAIN_MS));
	udc_terminate(uf, error);
}
