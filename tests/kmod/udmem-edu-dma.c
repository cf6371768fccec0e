// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-edu-dma - a test-only dmaengine provider over QEMU's "edu" PCI
 * device (1234:11e8), so that the dmaengine clients of the tests (the
 * kernel's dmatest, udmem-dmaengine-test, the user-space channel driver)
 * have a channel on every QEMU machine with PCI.
 *
 * The device has one DMA engine that moves up to 4 KiB between RAM and a
 * buffer of its own (device address 0x40000), one transfer at a time, and
 * raises an interrupt when a transfer ends.  The provider registers
 * UED_NR_CHANS identical channels that share it:
 *
 *  - DMA_MEMCPY: each chunk is read into the device's buffer, then written
 *    out to the destination;
 *  - DMA_SLAVE DEV_TO_MEM (slave_sg, cyclic, and from 6.10 the dma_vec
 *    arrays of IIO's DMABUF interface): the channel's emulated
 *    device FIFO produces 32-bit samples, a counter that continues across
 *    transfers (debugfs rx_next is the next one); each chunk is staged in a
 *    coherent bounce buffer, copied by the engine into its buffer, then out
 *    to the destination;
 *  - DMA_SLAVE MEM_TO_DEV: the reverse, into a sink that compares every
 *    sample with its own counter (debugfs tx_next) and counts those that
 *    differ (tx_errors) and the bytes it took (tx_bytes); with tx_wrap not
 *    0, the counter starts again at 0 after that many samples (a cyclic
 *    transfer of one buffer then matches on every pass).
 *
 * The engine runs one chunk at a time, taking the channels in turn, so a
 * cyclic transfer on one channel does not starve the other.  Callbacks run
 * in a tasklet.  Terminated descriptors get no callback (the dmaengine
 * rule); those the device's removal cuts short get DMA_TRANS_ABORTED.
 *
 * A device without a firmware node finds the last channel with
 * dma_request_chan(dev, map_name) and the first with
 * dma_request_chan(dev, map_tx_name) when map_client= names it (IIO's
 * dmaengine buffers ask so for "rx" and "tx").
 *
 * The driver binds only to a device whose driver_override names it (the
 * harness's second edu device), never by ID, so that the edu device of the
 * other suites stays theirs.  Test-only: never installed.
 */
#include <linux/bitops.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/dmaengine.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "../../kernel/compat.h"

#define EDU_REG_ID		0x00
#define EDU_REG_IRQ_STATUS	0x24
#define EDU_REG_IRQ_ACK		0x64
#define EDU_REG_DMA_SRC		0x80
#define EDU_REG_DMA_DST		0x88
#define EDU_REG_DMA_COUNT	0x90
#define EDU_REG_DMA_CMD		0x98

#define EDU_ID_MASK		0xff0000ff
#define EDU_ID			0x010000ed
#define EDU_DMA_START		BIT(0)
#define EDU_DMA_TO_RAM		BIT(1)	/* direction: device buffer -> RAM */
#define EDU_DMA_IRQ		BIT(2)	/* raise EDU_IRQ_DMA at the end */
#define EDU_IRQ_DMA		0x100
#define EDU_BUF_ADDR		0x40000	/* the device buffer, in device space */
/*
 * The device buffer is 4 KiB, but QEMU 7.2 aborts the whole machine on a
 * transfer that reaches its last byte (an off-by-one in its range check):
 * chunks stop 64 bytes short of it.
 */
#define UED_CHUNK		(SZ_4K - 64)
#define UED_SAMPLE		4	/* bytes of one sample of the slave FIFO */
#define UED_NR_CHANS		2
#define UED_MAX_SEGS		1024	/* cyclic periods, slave_sg entries */
#define UED_IDLE_TIMEOUT_MS	10000	/* a chunk takes 100 ms of virtual time */

static unsigned int copy_align = 2;
module_param(copy_align, uint, 0444);
MODULE_PARM_DESC(copy_align, "memcpy alignment of addresses and length, log2 bytes (default 2)");

static bool msi = true;
module_param(msi, bool, 0444);
MODULE_PARM_DESC(msi, "use MSI when the platform has it; 0: INTx (default 1)");

static char *map_client;
module_param(map_client, charp, 0444);
MODULE_PARM_DESC(map_client, "dev_name of a device whose dma_request_chan(dev, map_name) gets the last channel");
static char *map_name = "rx";
module_param(map_name, charp, 0444);
MODULE_PARM_DESC(map_name, "the channel name of map_client (default rx)");
static char *map_tx_name = "tx";
module_param(map_tx_name, charp, 0444);
MODULE_PARM_DESC(map_tx_name, "map_client's name of the first channel (default tx)");

enum ued_kind { UED_COPY, UED_RX, UED_TX };

/* One contiguous piece: RX uses dst only, TX src only. */
struct ued_seg {
	dma_addr_t src;
	dma_addr_t dst;
	u32 len;
};

struct ued_desc {
	struct dma_async_tx_descriptor tx;
	struct list_head node;
	enum ued_kind kind;
	bool cyclic;
	unsigned int nsegs;
	unsigned int seg;	/* the segment in progress */
	u32 off;		/* its bytes done */
	size_t total;
	size_t done;		/* bytes done (this lap, if cyclic) */
	unsigned int periods;	/* cyclic: periods ended, callbacks not made */
	struct dmaengine_result res;
	struct ued_seg segs[];
};

struct ued;

struct ued_chan {
	struct dma_chan chan;
	struct ued *ued;
	/* under ued->lock: */
	struct list_head prepared;	/* prepared, not submitted */
	struct list_head submitted;
	struct list_head issued;	/* the head is the one running */
	struct list_head done;		/* callbacks to make, then freed */
	struct dma_slave_config cfg;
	u32 rx_next;			/* the FIFO's next sample */
	u32 tx_next;			/* the sample the sink expects next */
	u32 tx_errors;			/* samples the sink found wrong */
	u32 tx_wrap;			/* tx_next goes back to 0 at this, if not 0 */
	u64 tx_bytes;			/* bytes the sink took */
	struct tasklet_struct task;
};

struct ued {
	struct dma_device dma;
	struct ued_chan chans[UED_NR_CHANS];
	struct pci_dev *pdev;
	void __iomem *regs;
	void *bounce;
	dma_addr_t bounce_dma;
	int irq;
	struct dentry *dbg;
	struct dma_slave_map map[2];	/* map_client's channels, without device tree */
	spinlock_t lock;	/* everything below and the channels' lists */
	struct ued_desc *cur;	/* the descriptor of the chunk on the engine */
	struct ued_chan *cur_chan;
	bool cur_aborted;	/* cur was terminated: free it when its chunk ends */
	unsigned int phase;	/* 0: into the device buffer, 1: out of it */
	u32 cur_len;
	unsigned int rr;	/* the channel to look at first */
	bool dead;		/* removed: no new chunk */
	wait_queue_head_t idle;	/* woken when a chunk ends */
	struct list_head gone;	/* on ued_gone once removed */
	bool released;		/* dmaengine dropped its last reference */
};

/* Removed devices, freed at module exit: clients may hold their channels. */
static LIST_HEAD(ued_gone);
static DEFINE_MUTEX(ued_gone_lock);
static struct dentry *ued_dbg_root;

static struct ued_chan *to_ued_chan(struct dma_chan *chan)
{
	return container_of(chan, struct ued_chan, chan);
}

static struct ued_desc *to_ued_desc(struct dma_async_tx_descriptor *tx)
{
	return container_of(tx, struct ued_desc, tx);
}

static void ued_dma(struct ued *ued, u32 src, u32 dst, u32 len, u32 cmd)
{
	/* 32-bit writes set the whole register; the DMA mask is 32 bits. */
	writel(src, ued->regs + EDU_REG_DMA_SRC);
	writel(dst, ued->regs + EDU_REG_DMA_DST);
	writel(len, ued->regs + EDU_REG_DMA_COUNT);
	writel(EDU_DMA_START | EDU_DMA_IRQ | cmd, ued->regs + EDU_REG_DMA_CMD);
}

/* Program the current phase of the current chunk; lock held. */
static void ued_program(struct ued *ued)
{
	struct ued_desc *d = ued->cur;
	struct ued_seg *s = &d->segs[d->seg];
	u32 *bounce = ued->bounce;
	unsigned int i;

	if (ued->phase == 0) {
		if (d->kind == UED_RX) {
			for (i = 0; i < ued->cur_len / UED_SAMPLE; i++)
				bounce[i] = ued->cur_chan->rx_next++;
			ued_dma(ued, ued->bounce_dma, EDU_BUF_ADDR, ued->cur_len, 0);
		} else {
			ued_dma(ued, s->src + d->off, EDU_BUF_ADDR, ued->cur_len, 0);
		}
	} else {
		if (d->kind == UED_TX)
			ued_dma(ued, EDU_BUF_ADDR, ued->bounce_dma, ued->cur_len, EDU_DMA_TO_RAM);
		else
			ued_dma(ued, EDU_BUF_ADDR, s->dst + d->off, ued->cur_len, EDU_DMA_TO_RAM);
	}
}

/* Start the next chunk of the channels' queues, in turn; lock held. */
static void ued_kick(struct ued *ued)
{
	unsigned int i;

	if (ued->cur || ued->dead)
		return;
	for (i = 0; i < UED_NR_CHANS; i++) {
		struct ued_chan *c = &ued->chans[(ued->rr + i) % UED_NR_CHANS];
		struct ued_desc *d;

		d = list_first_entry_or_null(&c->issued, struct ued_desc, node);
		if (!d)
			continue;
		ued->rr = (ued->rr + i + 1) % UED_NR_CHANS;
		ued->cur = d;
		ued->cur_chan = c;
		ued->phase = 0;
		ued->cur_len = min_t(u32, d->segs[d->seg].len - d->off, UED_CHUNK);
		ued_program(ued);
		return;
	}
}

/* The sink's check of a chunk that reached the bounce buffer; lock held. */
static void ued_sink(struct ued_chan *c, const u32 *samples, u32 len)
{
	unsigned int i;

	for (i = 0; i < len / UED_SAMPLE; i++) {
		if (c->tx_wrap && c->tx_next >= c->tx_wrap)
			c->tx_next = 0;
		if (samples[i] != c->tx_next++)
			c->tx_errors++;
	}
	c->tx_bytes += len;
}

/* The engine finished a transfer; lock held. */
static void ued_chunk_done(struct ued *ued)
{
	struct ued_desc *d = ued->cur;
	struct ued_chan *c = ued->cur_chan;
	struct ued_seg *s;

	if (ued->cur_aborted) {
		kfree(d);
		goto idle;
	}
	if (ued->phase == 0 && !ued->dead) {
		ued->phase = 1;
		ued_program(ued);
		return;
	}
	if (ued->phase == 0)
		goto idle;	/* removed: the rest is aborted */
	if (d->kind == UED_TX)
		ued_sink(c, ued->bounce, ued->cur_len);
	s = &d->segs[d->seg];
	d->off += ued->cur_len;
	d->done += ued->cur_len;
	if (d->off == s->len) {
		d->off = 0;
		d->seg++;
		if (d->cyclic) {
			d->periods++;
			if (d->seg == d->nsegs) {
				d->seg = 0;
				d->done = 0;
			}
			tasklet_schedule(&c->task);
		} else if (d->seg == d->nsegs) {
			c->chan.completed_cookie = d->tx.cookie;
			d->res.result = DMA_TRANS_NOERROR;
			d->res.residue = 0;
			list_move_tail(&d->node, &c->done);
			tasklet_schedule(&c->task);
		}
	}
idle:
	ued->cur = NULL;
	ued->cur_chan = NULL;
	ued->cur_aborted = false;
	wake_up_all(&ued->idle);
	ued_kick(ued);
}

static irqreturn_t ued_irq(int irq, void *arg)
{
	struct ued *ued = arg;
	u32 status = readl(ued->regs + EDU_REG_IRQ_STATUS);

	if (!(status & EDU_IRQ_DMA))
		return IRQ_NONE;
	writel(EDU_IRQ_DMA, ued->regs + EDU_REG_IRQ_ACK);
	spin_lock(&ued->lock);
	if (ued->cur)
		ued_chunk_done(ued);
	spin_unlock(&ued->lock);
	return IRQ_HANDLED;
}

static void ued_callback(dma_async_tx_callback cb, dma_async_tx_callback_result cbr,
			 void *param, const struct dmaengine_result *res)
{
	if (cbr)
		cbr(param, res);
	else if (cb)
		cb(param);
}

/* Callbacks of finished descriptors and of cyclic periods. */
static void ued_tasklet(struct tasklet_struct *t)
{
	struct ued_chan *c = from_tasklet(c, t, task);
	static const struct dmaengine_result ok = { .result = DMA_TRANS_NOERROR };
	struct ued *ued = c->ued;
	dma_async_tx_callback_result cbr = NULL;
	dma_async_tx_callback cb = NULL;
	unsigned int periods = 0;
	struct ued_desc *d;
	unsigned long flags;
	void *param = NULL;

	for (;;) {
		spin_lock_irqsave(&ued->lock, flags);
		d = list_first_entry_or_null(&c->done, struct ued_desc, node);
		if (d)
			list_del(&d->node);
		spin_unlock_irqrestore(&ued->lock, flags);
		if (!d)
			break;
		ued_callback(d->tx.callback, d->tx.callback_result, d->tx.callback_param,
			     &d->res);
		kfree(d);
	}
	spin_lock_irqsave(&ued->lock, flags);
	d = list_first_entry_or_null(&c->issued, struct ued_desc, node);
	if (d && d->cyclic && d->periods) {
		periods = d->periods;
		d->periods = 0;
		cb = d->tx.callback;
		cbr = d->tx.callback_result;
		param = d->tx.callback_param;
	}
	spin_unlock_irqrestore(&ued->lock, flags);
	while (periods--)
		ued_callback(cb, cbr, param, &ok);
}

static dma_cookie_t ued_tx_submit(struct dma_async_tx_descriptor *tx)
{
	struct ued_chan *c = to_ued_chan(tx->chan);
	struct ued_desc *d = to_ued_desc(tx);
	unsigned long flags;
	dma_cookie_t cookie;

	spin_lock_irqsave(&c->ued->lock, flags);
	cookie = c->chan.cookie + 1;
	if (cookie < DMA_MIN_COOKIE)
		cookie = DMA_MIN_COOKIE;
	c->chan.cookie = cookie;
	tx->cookie = cookie;
	list_move_tail(&d->node, &c->submitted);
	spin_unlock_irqrestore(&c->ued->lock, flags);
	return cookie;
}

/* Is [addr, addr + len) a range the device reaches, aligned to 1 << shift? */
static bool ued_range_ok(struct ued *ued, dma_addr_t addr, size_t len, unsigned int shift)
{
	u64 end;

	if (!len || len > U32_MAX || !IS_ALIGNED(addr | len, 1ULL << shift))
		return false;
	if (check_add_overflow((u64)addr, (u64)len - 1, &end))
		return false;
	return end <= dma_get_mask(&ued->pdev->dev);
}

static struct ued_desc *ued_desc_alloc(struct ued_chan *c, enum ued_kind kind,
				       unsigned int nsegs, unsigned long flags)
{
	struct ued_desc *d;
	unsigned long irqflags;

	d = kzalloc(struct_size(d, segs, nsegs), GFP_NOWAIT);
	if (!d)
		return NULL;
	dma_async_tx_descriptor_init(&d->tx, &c->chan);
	d->tx.tx_submit = ued_tx_submit;
	d->tx.flags = flags;
	d->kind = kind;
	d->nsegs = nsegs;
	spin_lock_irqsave(&c->ued->lock, irqflags);
	if (c->ued->dead) {
		spin_unlock_irqrestore(&c->ued->lock, irqflags);
		kfree(d);
		return NULL;
	}
	list_add_tail(&d->node, &c->prepared);
	spin_unlock_irqrestore(&c->ued->lock, irqflags);
	return d;
}

static struct dma_async_tx_descriptor *
ued_prep_memcpy(struct dma_chan *chan, dma_addr_t dst, dma_addr_t src, size_t len,
		unsigned long flags)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct ued_desc *d;

	if (!ued_range_ok(c->ued, src, len, copy_align) ||
	    !ued_range_ok(c->ued, dst, len, copy_align))
		return NULL;
	d = ued_desc_alloc(c, UED_COPY, 1, flags);
	if (!d)
		return NULL;
	d->segs[0].src = src;
	d->segs[0].dst = dst;
	d->segs[0].len = len;
	d->total = len;
	return &d->tx;
}

/* The slave configuration's width for a direction: the FIFO's is 4 bytes. */
static bool ued_width_ok(struct ued_chan *c, enum dma_transfer_direction dir)
{
	enum dma_slave_buswidth w = dir == DMA_DEV_TO_MEM ? c->cfg.src_addr_width :
							    c->cfg.dst_addr_width;

	return w == DMA_SLAVE_BUSWIDTH_UNDEFINED || w == DMA_SLAVE_BUSWIDTH_4_BYTES;
}

static struct ued_desc *ued_slave_desc(struct ued_chan *c, enum dma_transfer_direction dir,
				       unsigned int nsegs, unsigned long flags)
{
	if (dir != DMA_DEV_TO_MEM && dir != DMA_MEM_TO_DEV)
		return NULL;
	if (!nsegs || nsegs > UED_MAX_SEGS || !ued_width_ok(c, dir))
		return NULL;
	return ued_desc_alloc(c, dir == DMA_DEV_TO_MEM ? UED_RX : UED_TX, nsegs, flags);
}

static void ued_seg_set(struct ued_desc *d, unsigned int i, dma_addr_t addr, u32 len)
{
	if (d->kind == UED_RX)
		d->segs[i].dst = addr;
	else
		d->segs[i].src = addr;
	d->segs[i].len = len;
	d->total += len;
}

/* Forget a prepared descriptor that failed its checks. */
static void ued_desc_drop(struct ued_chan *c, struct ued_desc *d)
{
	unsigned long flags;

	spin_lock_irqsave(&c->ued->lock, flags);
	list_del(&d->node);
	spin_unlock_irqrestore(&c->ued->lock, flags);
	kfree(d);
}

static struct dma_async_tx_descriptor *
ued_prep_slave_sg(struct dma_chan *chan, struct scatterlist *sgl, unsigned int sg_len,
		  enum dma_transfer_direction dir, unsigned long flags, void *context)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct scatterlist *sg;
	struct ued_desc *d;
	unsigned int i;

	d = ued_slave_desc(c, dir, sg_len, flags);
	if (!d)
		return NULL;
	for_each_sg(sgl, sg, sg_len, i) {
		if (!ued_range_ok(c->ued, sg_dma_address(sg), sg_dma_len(sg), 2)) {
			ued_desc_drop(c, d);
			return NULL;
		}
		ued_seg_set(d, i, sg_dma_address(sg), sg_dma_len(sg));
	}
	return &d->tx;
}

/* The scatter-gather of IIO's DMABUF interface (6.10). */
static struct dma_async_tx_descriptor *
ued_prep_dma_vec(struct dma_chan *chan, const struct dma_vec *vecs, size_t nents,
		 enum dma_transfer_direction dir, unsigned long flags)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct ued_desc *d;
	size_t i;

	if (nents > UED_MAX_SEGS)
		return NULL;
	d = ued_slave_desc(c, dir, nents, flags);
	if (!d)
		return NULL;
	for (i = 0; i < nents; i++) {
		if (!ued_range_ok(c->ued, vecs[i].addr, vecs[i].len, 2)) {
			ued_desc_drop(c, d);
			return NULL;
		}
		ued_seg_set(d, i, vecs[i].addr, vecs[i].len);
	}
	return &d->tx;
}

static struct dma_async_tx_descriptor *
ued_prep_cyclic(struct dma_chan *chan, dma_addr_t buf, size_t buf_len, size_t period_len,
		enum dma_transfer_direction dir, unsigned long flags)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct ued_desc *d;
	unsigned int i;

	if (!period_len || buf_len % period_len ||
	    !ued_range_ok(c->ued, buf, buf_len, 2) || !IS_ALIGNED(period_len, UED_SAMPLE))
		return NULL;
	if (buf_len / period_len > UED_MAX_SEGS)
		return NULL;
	d = ued_slave_desc(c, dir, buf_len / period_len, flags);
	if (!d)
		return NULL;
	d->cyclic = true;
	for (i = 0; i < d->nsegs; i++)
		ued_seg_set(d, i, buf + i * period_len, period_len);
	return &d->tx;
}

static int ued_config(struct dma_chan *chan, struct dma_slave_config *cfg)
{
	struct ued_chan *c = to_ued_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&c->ued->lock, flags);
	c->cfg = *cfg;
	spin_unlock_irqrestore(&c->ued->lock, flags);
	return 0;
}

/* Move a list's descriptors to done, with result; lock held. */
static void ued_abort_list(struct ued_chan *c, struct list_head *list,
			   enum dmaengine_tx_result result)
{
	struct ued_desc *d;

	list_for_each_entry(d, list, node) {
		d->res.result = result;
		d->res.residue = d->total - d->done;
	}
	list_splice_tail_init(list, &c->done);
}

static void ued_issue_pending(struct dma_chan *chan)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct ued *ued = c->ued;
	unsigned long flags;

	spin_lock_irqsave(&ued->lock, flags);
	if (ued->dead) {
		/* The device is gone: fail what comes instead of keeping it. */
		ued_abort_list(c, &c->submitted, DMA_TRANS_ABORTED);
		tasklet_schedule(&c->task);
	} else {
		list_splice_tail_init(&c->submitted, &c->issued);
		ued_kick(ued);
	}
	spin_unlock_irqrestore(&ued->lock, flags);
}

static int ued_terminate_all(struct dma_chan *chan)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct ued *ued = c->ued;
	struct ued_desc *d, *n;
	unsigned long flags;
	LIST_HEAD(head);

	spin_lock_irqsave(&ued->lock, flags);
	list_splice_tail_init(&c->submitted, &head);
	list_splice_tail_init(&c->issued, &head);
	list_splice_tail_init(&c->done, &head);
	if (ued->cur && ued->cur_chan == c && !ued->cur_aborted) {
		/* The engine cannot stop: the chunk's end frees it. */
		list_del(&ued->cur->node);
		ued->cur_aborted = true;
	}
	spin_unlock_irqrestore(&ued->lock, flags);
	list_for_each_entry_safe(d, n, &head, node)
		kfree(d);
	return 0;
}

static bool ued_chan_quiet(struct ued_chan *c)
{
	struct ued *ued = c->ued;
	unsigned long flags;
	bool quiet;

	spin_lock_irqsave(&ued->lock, flags);
	quiet = !(ued->cur && ued->cur_chan == c && ued->cur_aborted);
	spin_unlock_irqrestore(&ued->lock, flags);
	return quiet;
}

/* After terminate_all: the aborted chunk has ended, no callback runs. */
static void ued_synchronize(struct dma_chan *chan)
{
	struct ued_chan *c = to_ued_chan(chan);

	wait_event(c->ued->idle, ued_chan_quiet(c));
	tasklet_kill(&c->task);
}

/* Bytes left of cookie's descriptor; lock held. */
static u32 ued_residue(struct ued_chan *c, dma_cookie_t cookie)
{
	struct ued_desc *d;

	list_for_each_entry(d, &c->issued, node)
		if (d->tx.cookie == cookie)
			return d->total - d->done;
	list_for_each_entry(d, &c->submitted, node)
		if (d->tx.cookie == cookie)
			return d->total;
	return 0;
}

static enum dma_status ued_tx_status(struct dma_chan *chan, dma_cookie_t cookie,
				     struct dma_tx_state *state)
{
	struct ued_chan *c = to_ued_chan(chan);
	enum dma_status status;
	unsigned long flags;
	u32 residue = 0;

	spin_lock_irqsave(&c->ued->lock, flags);
	status = dma_async_is_complete(cookie, chan->completed_cookie, chan->cookie);
	if (status != DMA_COMPLETE) {
		residue = ued_residue(c, cookie);
		if (c->ued->dead)
			status = DMA_ERROR;
	}
	dma_set_tx_state(state, chan->completed_cookie, chan->cookie, residue);
	spin_unlock_irqrestore(&c->ued->lock, flags);
	return status;
}

static int ued_alloc_chan_resources(struct dma_chan *chan)
{
	struct ued_chan *c = to_ued_chan(chan);
	unsigned long flags;

	spin_lock_irqsave(&c->ued->lock, flags);
	memset(&c->cfg, 0, sizeof(c->cfg));
	spin_unlock_irqrestore(&c->ued->lock, flags);
	return 0;
}

static void ued_free_chan_resources(struct dma_chan *chan)
{
	struct ued_chan *c = to_ued_chan(chan);
	struct ued_desc *d, *n;
	unsigned long flags;
	LIST_HEAD(head);

	ued_terminate_all(chan);
	ued_synchronize(chan);
	spin_lock_irqsave(&c->ued->lock, flags);
	list_splice_tail_init(&c->prepared, &head);
	spin_unlock_irqrestore(&c->ued->lock, flags);
	list_for_each_entry_safe(d, n, &head, node)
		kfree(d);
}

static void ued_release(struct dma_device *dma)
{
	struct ued *ued = container_of(dma, struct ued, dma);

	/* Under dmaengine's lock, which still uses dma: freed at module exit. */
	ued->released = true;
}

static void ued_debugfs(struct ued *ued)
{
	char name[16];
	int i;

	ued->dbg = debugfs_create_dir(pci_name(ued->pdev), ued_dbg_root);
	for (i = 0; i < UED_NR_CHANS; i++) {
		struct ued_chan *c = &ued->chans[i];
		struct dentry *dir;

		snprintf(name, sizeof(name), "chan%d", i);
		dir = debugfs_create_dir(name, ued->dbg);
		debugfs_create_x32("rx_next", 0600, dir, &c->rx_next);
		debugfs_create_x32("tx_next", 0600, dir, &c->tx_next);
		debugfs_create_u32("tx_errors", 0600, dir, &c->tx_errors);
		debugfs_create_u32("tx_wrap", 0600, dir, &c->tx_wrap);
		debugfs_create_u64("tx_bytes", 0600, dir, &c->tx_bytes);
	}
}

static bool ued_filter(struct dma_chan *chan, void *param)
{
	return chan == param;
}

static void ued_init_dma(struct ued *ued)
{
	struct dma_device *dd = &ued->dma;
	int i;

	if (map_client && *map_client) {
		/* dma_request_chan(dev, name) of a device with no firmware node */
		ued->map[0].devname = map_client;
		ued->map[0].slave = map_name;
		ued->map[0].param = &ued->chans[UED_NR_CHANS - 1].chan;
		ued->map[1].devname = map_client;
		ued->map[1].slave = map_tx_name;
		ued->map[1].param = &ued->chans[0].chan;
		dd->filter.map = ued->map;
		dd->filter.mapcnt = ARRAY_SIZE(ued->map);
		dd->filter.fn = ued_filter;
	}

	dma_cap_set(DMA_MEMCPY, dd->cap_mask);
	dma_cap_set(DMA_SLAVE, dd->cap_mask);
	dma_cap_set(DMA_CYCLIC, dd->cap_mask);
	/* Test channels: only clients that ask for them, never async_tx. */
	dma_cap_set(DMA_PRIVATE, dd->cap_mask);
	dd->dev = &ued->pdev->dev;
	dd->copy_align = copy_align;
	dd->src_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_4_BYTES);
	dd->dst_addr_widths = BIT(DMA_SLAVE_BUSWIDTH_4_BYTES);
	dd->directions = BIT(DMA_MEM_TO_MEM) | BIT(DMA_DEV_TO_MEM) | BIT(DMA_MEM_TO_DEV);
	dd->residue_granularity = DMA_RESIDUE_GRANULARITY_BURST;
	dd->device_alloc_chan_resources = ued_alloc_chan_resources;
	dd->device_free_chan_resources = ued_free_chan_resources;
	dd->device_prep_dma_memcpy = ued_prep_memcpy;
	dd->device_prep_slave_sg = ued_prep_slave_sg;
	dd->device_prep_dma_cyclic = ued_prep_cyclic;
	UDMEM_SET_PREP_DMA_VEC(dd, ued_prep_dma_vec);
	dd->device_config = ued_config;
	dd->device_terminate_all = ued_terminate_all;
	dd->device_synchronize = ued_synchronize;
	dd->device_tx_status = ued_tx_status;
	dd->device_issue_pending = ued_issue_pending;
	dd->device_release = ued_release;
	INIT_LIST_HEAD(&dd->channels);
	for (i = 0; i < UED_NR_CHANS; i++) {
		struct ued_chan *c = &ued->chans[i];

		c->ued = ued;
		INIT_LIST_HEAD(&c->prepared);
		INIT_LIST_HEAD(&c->submitted);
		INIT_LIST_HEAD(&c->issued);
		INIT_LIST_HEAD(&c->done);
		tasklet_setup(&c->task, ued_tasklet);
		c->chan.device = dd;
		c->chan.cookie = DMA_MIN_COOKIE;
		c->chan.completed_cookie = DMA_MIN_COOKIE;
		list_add_tail(&c->chan.device_node, &dd->channels);
	}
}

static int ued_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct ued *ued;
	u32 ident;
	int ret;

	if (pdev->vendor != 0x1234 || pdev->device != 0x11e8)
		return -ENODEV;
	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), "udmem-edu-dma");
	if (ret)
		return ret;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(32));
	if (ret)
		return ret;
	ued = kzalloc(sizeof(*ued), GFP_KERNEL);
	if (!ued)
		return -ENOMEM;
	ued->pdev = pdev;
	ued->regs = pcim_iomap_table(pdev)[0];
	spin_lock_init(&ued->lock);
	init_waitqueue_head(&ued->idle);
	ident = readl(ued->regs + EDU_REG_ID);
	if ((ident & EDU_ID_MASK) != EDU_ID) {
		dev_err(&pdev->dev, "not an edu device: id 0x%08x\n", ident);
		ret = -ENODEV;
		goto free_ued;
	}
	ued->bounce = dma_alloc_coherent(&pdev->dev, SZ_4K, &ued->bounce_dma, GFP_KERNEL);
	if (!ued->bounce) {
		ret = -ENOMEM;
		goto free_ued;
	}
	pci_set_master(pdev);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, msi ? PCI_IRQ_ALL_TYPES :
				    PCI_IRQ_ALL_TYPES & ~(PCI_IRQ_MSI | PCI_IRQ_MSIX));
	if (ret < 0)
		goto free_bounce;
	ued->irq = pci_irq_vector(pdev, 0);
	writel(~0u, ued->regs + EDU_REG_IRQ_ACK);
	ret = request_irq(ued->irq, ued_irq, IRQF_SHARED, "udmem-edu-dma", ued);
	if (ret)
		goto free_vectors;
	ued_init_dma(ued);
	ret = dma_async_device_register(&ued->dma);
	if (ret)
		goto free_irq;
	pci_dev_get(pdev);
	pci_set_drvdata(pdev, ued);
	ued_debugfs(ued);
	dev_info(&pdev->dev, "%d dmaengine channels (%s, irq %d)\n", UED_NR_CHANS,
		 pdev->msi_enabled ? "MSI" : "INTx", ued->irq);
	return 0;

free_irq:
	free_irq(ued->irq, ued);
free_vectors:
	pci_free_irq_vectors(pdev);
free_bounce:
	pci_clear_master(pdev);
	dma_free_coherent(&pdev->dev, SZ_4K, ued->bounce, ued->bounce_dma);
free_ued:
	kfree(ued);
	return ret;
}

static bool ued_engine_idle(struct ued *ued)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&ued->lock, flags);
	idle = !ued->cur;
	spin_unlock_irqrestore(&ued->lock, flags);
	return idle;
}

static void ued_remove(struct pci_dev *pdev)
{
	struct ued *ued = pci_get_drvdata(pdev);
	unsigned long flags;
	int i;

	debugfs_remove_recursive(ued->dbg);
	dma_async_device_unregister(&ued->dma);
	/* No new chunk; the one on the engine ends (its interrupt). */
	spin_lock_irqsave(&ued->lock, flags);
	ued->dead = true;
	spin_unlock_irqrestore(&ued->lock, flags);
	if (!wait_event_timeout(ued->idle, ued_engine_idle(ued),
				msecs_to_jiffies(UED_IDLE_TIMEOUT_MS)))
		dev_err(&pdev->dev, "the engine did not finish its transfer\n");
	free_irq(ued->irq, ued);
	pci_free_irq_vectors(pdev);
	/* What clients still had queued fails, in their callbacks. */
	spin_lock_irqsave(&ued->lock, flags);
	if (ued->cur && ued->cur_aborted)
		kfree(ued->cur);
	ued->cur = NULL;
	for (i = 0; i < UED_NR_CHANS; i++) {
		ued_abort_list(&ued->chans[i], &ued->chans[i].submitted, DMA_TRANS_ABORTED);
		ued_abort_list(&ued->chans[i], &ued->chans[i].issued, DMA_TRANS_ABORTED);
		tasklet_schedule(&ued->chans[i].task);
	}
	spin_unlock_irqrestore(&ued->lock, flags);
	for (i = 0; i < UED_NR_CHANS; i++)
		tasklet_kill(&ued->chans[i].task);
	pci_clear_master(pdev);
	dma_free_coherent(&pdev->dev, SZ_4K, ued->bounce, ued->bounce_dma);
	mutex_lock(&ued_gone_lock);
	list_add_tail(&ued->gone, &ued_gone);
	mutex_unlock(&ued_gone_lock);
}

/* No ID table: only a device whose driver_override names this driver. */
static struct pci_driver ued_driver = {
	.name = "udmem-edu-dma",
	.probe = ued_probe,
	.remove = ued_remove,
};

static int __init ued_init(void)
{
	int ret;

	if (copy_align > PAGE_SHIFT)
		return -EINVAL;
	ued_dbg_root = debugfs_create_dir("udmem-edu-dma", NULL);
	ret = pci_register_driver(&ued_driver);
	if (ret)
		debugfs_remove_recursive(ued_dbg_root);
	return ret;
}

static void __exit ued_exit(void)
{
	struct ued *ued, *n;

	pci_unregister_driver(&ued_driver);
	/* Every client let go of its channels: the module was not in use. */
	list_for_each_entry_safe(ued, n, &ued_gone, gone) {
		WARN_ON(!ued->released);
		pci_dev_put(ued->pdev);
		kfree(ued);
	}
	debugfs_remove_recursive(ued_dbg_root);
}

module_init(ued_init);
module_exit(ued_exit);

MODULE_DESCRIPTION("udmem test dmaengine provider over QEMU's edu device");
MODULE_LICENSE("GPL");
