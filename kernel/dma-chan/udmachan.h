/* SPDX-License-Identifier: GPL-2.0 */
/*
 * u-dma-chan: the private header.
 *
 * A channel (struct udc_chan) is one dmaengine channel published as
 * /dev/<name> and /sys/class/u-dma-chan/<name>/.  One file at a time has it
 * open (struct udc_file): its batches (struct udc_batch) run on the channel,
 * each with a dma_fence that signals once the engine is done with all its
 * transfers and the destinations are synced for the CPU.
 */
#ifndef UDMEM_UDMACHAN_H
#define UDMEM_UDMACHAN_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dmaengine.h>
#include <linux/kfifo.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include <linux/u-dma-chan.h>

#include "udmem_dma.h"

#define UDC_DRIVER_NAME		"u-dma-chan"
#define UDC_MINORS		256
#define UDC_NAME_MAX		64
#define UDC_EVENTS		4096	/* completion records read() can fetch */
#define UDC_STATUS_KEPT		4096	/* batches WAIT still knows the status of */
#define UDC_MAPS_KEPT		16	/* idle DMA-BUF mappings a file keeps */

/*
 * What u-dma-chan does differently for the engine drivers that need it
 * (udc_chan.quirks, chosen by the driver's name in main.c).
 * UDC_QUIRK_PLAIN_CALLBACK: complete through tx->callback and leave
 * tx->callback_result NULL: the driver does not reset callback_result when
 * it reuses a descriptor, nor copy it along a chain.
 * UDC_QUIRK_REISSUE: issue pending again from every completion while work
 * is left: the driver drops an issue_pending that comes while it is busy.
 * UDC_QUIRK_IDLE_TERMINATE: let the engine finish what was submitted before
 * a terminate: the driver's terminate_all is unsafe on a busy channel.
 * UDC_QUIRK_LONG_MEMCPY: a memcpy of up to UDC_LONG_MEMCPY bytes is one
 * prep call (the driver chains its own descriptors where the engine has a
 * limit), so a copy over DMA-contiguous memory is not split at the
 * device's max_segment.
 */
#define UDC_QUIRK_PLAIN_CALLBACK	BIT(0)
#define UDC_QUIRK_REISSUE		BIT(1)
#define UDC_QUIRK_IDLE_TERMINATE	BIT(2)
#define UDC_QUIRK_LONG_MEMCPY		BIT(3)
#define UDC_LONG_MEMCPY			SZ_1G

struct udc_file;

/**
 * struct udc_chan - a channel device
 * @dev: the class device (/dev/<name>); its reference keeps this alive
 * @name: the device name
 * @minor: the minor number
 * @chan: the dmaengine channel; NULL once removed
 * @lock: serialises submits, the owner and removal
 * @owner: the open file, or NULL
 * @from_mgr: made by the manager or a module parameter (removed by them)
 * @removing: being removed (under the registry lock)
 * @broken: its driver failed to set it up again after a terminate
 * @quirks: UDC_QUIRK_* for the channel's engine driver
 * @node: in udc_list
 * @submitted: batches submitted
 * @completed: batches completed, whatever their status
 * @failed: batches completed with an error
 * @in_flight: batches submitted and not yet complete
 * @slave: the slave configuration an open file starts with, DEV_TO_MEM
 *	then MEM_TO_DEV (the device tree's; zero widths: the engine's defaults)
 */
struct udc_chan {
	struct device dev;
	char name[UDC_NAME_MAX];
	int minor;
	struct dma_chan *chan;
	struct mutex lock;	/* submits, owner, removal */
	struct udc_file *owner;
	bool from_mgr;
	bool removing;
	bool broken;
	unsigned int quirks;
	struct list_head node;
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t failed;
	atomic_t in_flight;
	struct dma_slave_config slave[2];
};

/**
 * struct udc_map - a DMA-BUF attached and mapped for the channel's device
 * @node: in udc_file.maps
 * @dmabuf: the DMA-BUF (a reference)
 * @attach: its attachment to the channel's device
 * @sgt: the mapping (DMA_BIDIRECTIONAL)
 * @sync_range: the exporter's range sync (udmem_dma.h) if it is one of
 *	ours, held with symbol_get(); NULL for other exporters
 * @sync_range_uiomem: @sync_range is uiomem's (for symbol_put())
 * @users: transfers in flight using it (under udc_file.lock)
 * @fresh: made by the submit in progress (under udc_chan.lock)
 */
struct udc_map {
	struct list_head node;
	struct dma_buf *dmabuf;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	udmem_export_sync_range_t *sync_range;
	bool sync_range_uiomem;
	unsigned int users;
	bool fresh;
};

/**
 * struct udc_file - an open channel
 * @uc: the channel (a reference on its device)
 * @lock: guards @running, @events, @status, @completed and map users
 * @wait: woken at every completion
 * @running: batches in flight
 * @events: completion records for read()
 * @status: the status of batch seq at [seq % UDC_STATUS_KEPT]
 * @seq: the last sequence number given out
 * @completed: batches of this file completed
 * @callbacks: engine callbacks so far (the engine makes progress)
 * @cyclic: cyclic transfers were submitted since the last TERMINATE
 * @lost: completion records dropped because @events was full
 * @fence_context: the dma_fence context of this file's batches
 * @maps: DMA-BUF mappings, most recently used first (under udc_chan.lock)
 * @nmaps: entries of @maps
 * @slave: the slave configuration per direction (DEV_TO_MEM, MEM_TO_DEV)
 * @slave_dir: the direction last given to the engine, DMA_TRANS_NONE if none
 */
struct udc_file {
	struct udc_chan *uc;
	spinlock_t lock;	/* running, events, status, map users */
	wait_queue_head_t wait;
	struct list_head running;
	DECLARE_KFIFO(events, struct u_dma_chan_completion, UDC_EVENTS);
	s32 status[UDC_STATUS_KEPT];
	u64 seq;
	u64 completed;
	atomic_t callbacks;
	bool cyclic;
	u64 lost;
	u64 fence_context;
	struct list_head maps;
	unsigned int nmaps;
	struct dma_slave_config slave[2];
	enum dma_transfer_direction slave_dir;
};

/* main.c */
extern struct class *udc_class;
extern struct workqueue_struct *udc_wq;
struct udc_chan *udc_chan_create(const char *name, struct dma_chan *chan,
				 bool from_mgr, const struct dma_slave_config *slave);
void udc_chan_remove(struct udc_chan *uc);
struct udc_chan *udc_chan_get_minor(int minor);
void udc_chan_put(struct udc_chan *uc);
int udc_chan_remove_named(const char *name);
void udc_chan_remove_mgr(void);
u64 udc_chan_caps(struct dma_chan *chan);

/* of.c */
int udc_of_register(void);
void udc_of_unregister(void);

/* mgr.c */
int udc_mgr_register(void);
void udc_mgr_unregister(void);

/* file.c */
extern const struct file_operations udc_fops;

/* sysfs.c */
extern const struct attribute_group *udc_groups[];

/* xfer.c */
int udc_submit(struct udc_file *uf, struct u_dma_chan_submit *sub);
void udc_terminate(struct udc_file *uf, int error);
void udc_drain(struct udc_file *uf, int error);
void udc_drop_maps(struct udc_file *uf);
void udc_maps_trim(struct udc_file *uf);
bool udc_seq_running(struct udc_file *uf, u64 seq);
struct dma_fence *udc_running_fence(struct udc_file *uf, u64 seq);

#endif /* UDMEM_UDMACHAN_H */
