// SPDX-License-Identifier: GPL-2.0
/*
 * udmem-test-udc.c - a test-only USB device controller that does
 * scatter-gather, for the usb-ffs suite.
 *
 * dummy_udc, the kernel's virtual UDC, moves data with the CPU from each
 * request's buf and does no scatter-gather, so FunctionFS refuses DMA-BUFs
 * on it.  This UDC sets sg_supported and has no host: loading it registers
 * the UDC "udmem-test-udc"; when a gadget binds and connects, it configures
 * the gadget as a host would (SET_CONFIGURATION 1 at high speed), and
 * /dev/udmem-test-udc is the host's side of the bulk IN endpoints: read()
 * takes the bytes of the oldest request queued on an IN endpoint, from its
 * scatterlist (FunctionFS DMA-BUF transfers) or its buf, and completes the
 * request once all its bytes were read.
 */
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/usb/ch9.h>
#include <linux/usb/gadget.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#define TUDC_NAME	"udmem-test-udc"
#define TUDC_EPS	4		/* ep0, then ep1in..ep3in */
#define TUDC_CHUNK	(64 * 1024)	/* the most one read() returns */

struct tudc_ep {
	struct usb_ep ep;
	struct list_head queue;		/* of tudc_req, under tudc.lock */
	bool enabled;
};

struct tudc_req {
	struct usb_request req;
	struct list_head entry;
};

struct tudc {
	struct platform_device *pdev;
	struct usb_gadget gadget;
	struct usb_gadget_driver *driver;
	struct tudc_ep eps[TUDC_EPS];
	spinlock_t lock;		/* eps' queues, connected */
	bool connected;
	struct work_struct config_work;	/* SET_CONFIGURATION, ep0 completions */
	wait_queue_head_t wait;		/* readers: a request queued, a disconnect */
	struct mutex read_lock;		/* one reader at a time */
	u8 *bounce;
};

static struct tudc *tudc;

static struct tudc_ep *to_tudc_ep(struct usb_ep *ep)
{
	return container_of(ep, struct tudc_ep, ep);
}

static struct tudc_req *to_tudc_req(struct usb_request *req)
{
	return container_of(req, struct tudc_req, req);
}

/* Complete req with status, as a UDC's interrupt handler would (irqs off). */
static void tudc_giveback(struct tudc_ep *ep, struct tudc_req *r, int status)
{
	unsigned long flags;

	if (r->req.status == -EINPROGRESS)
		r->req.status = status;
	local_irq_save(flags);
	usb_gadget_giveback_request(&ep->ep, &r->req);
	local_irq_restore(flags);
}

/* Take every request off ep and complete it with status. */
static void tudc_nuke(struct tudc_ep *ep, int status)
{
	struct tudc_req *r;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&tudc->lock, flags);
		r = list_first_entry_or_null(&ep->queue, struct tudc_req, entry);
		if (r)
			list_del_init(&r->entry);
		spin_unlock_irqrestore(&tudc->lock, flags);
		if (!r)
			break;
		tudc_giveback(ep, r, status);
	}
}

static int tudc_ep_enable(struct usb_ep *_ep, const struct usb_endpoint_descriptor *desc)
{
	struct tudc_ep *ep = to_tudc_ep(_ep);
	unsigned long flags;

	if (!desc || _ep == tudc->gadget.ep0 || usb_endpoint_type(desc) != USB_ENDPOINT_XFER_BULK)
		return -EINVAL;
	spin_lock_irqsave(&tudc->lock, flags);
	ep->enabled = true;
	_ep->maxpacket = usb_endpoint_maxp(desc);
	spin_unlock_irqrestore(&tudc->lock, flags);
	return 0;
}

static int tudc_ep_disable(struct usb_ep *_ep)
{
	struct tudc_ep *ep = to_tudc_ep(_ep);
	unsigned long flags;

	spin_lock_irqsave(&tudc->lock, flags);
	ep->enabled = false;
	spin_unlock_irqrestore(&tudc->lock, flags);
	tudc_nuke(ep, -ESHUTDOWN);
	return 0;
}

static struct usb_request *tudc_alloc_request(struct usb_ep *ep, gfp_t gfp)
{
	struct tudc_req *r = kzalloc(sizeof(*r), gfp);

	if (!r)
		return NULL;
	INIT_LIST_HEAD(&r->entry);
	return &r->req;
}

static void tudc_free_request(struct usb_ep *ep, struct usb_request *req)
{
	kfree(to_tudc_req(req));
}

static int tudc_queue(struct usb_ep *_ep, struct usb_request *req, gfp_t gfp)
{
	struct tudc_ep *ep = to_tudc_ep(_ep);
	struct tudc_req *r = to_tudc_req(req);
	bool ep0 = _ep == tudc->gadget.ep0;
	unsigned long flags;

	spin_lock_irqsave(&tudc->lock, flags);
	if (!tudc->connected || (!ep0 && !ep->enabled)) {
		spin_unlock_irqrestore(&tudc->lock, flags);
		return -ESHUTDOWN;
	}
	req->status = -EINPROGRESS;
	req->actual = 0;
	list_add_tail(&r->entry, &ep->queue);
	spin_unlock_irqrestore(&tudc->lock, flags);
	/* ep0's data and status stages complete from the work, not in here */
	if (ep0)
		schedule_work(&tudc->config_work);
	else
		wake_up_interruptible(&tudc->wait);
	return 0;
}

static int tudc_dequeue(struct usb_ep *_ep, struct usb_request *req)
{
	struct tudc_ep *ep = to_tudc_ep(_ep);
	struct tudc_req *r = to_tudc_req(req), *it;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&tudc->lock, flags);
	list_for_each_entry(it, &ep->queue, entry) {
		if (it == r) {
			list_del_init(&r->entry);
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&tudc->lock, flags);
	if (!found)
		return -EINVAL;
	tudc_giveback(ep, r, -ECONNRESET);
	return 0;
}

static int tudc_set_halt(struct usb_ep *ep, int value)
{
	return 0;
}

static const struct usb_ep_ops tudc_ep_ops = {
	.enable		= tudc_ep_enable,
	.disable	= tudc_ep_disable,
	.alloc_request	= tudc_alloc_request,
	.free_request	= tudc_free_request,
	.queue		= tudc_queue,
	.dequeue	= tudc_dequeue,
	.set_halt	= tudc_set_halt,
};

/*
 * The host's part of enumeration that matters to a function: the gadget is
 * configured at high speed.  Then the ep0 requests the gadget queued are
 * completed (status stages carry no data here).
 */
static void tudc_config_work(struct work_struct *work)
{
	/* SET_CONFIGURATION 1: standard, to the device, no data stage */
	static const u8 set_config[sizeof(struct usb_ctrlrequest)] = {
		USB_DIR_OUT | USB_TYPE_STANDARD | USB_RECIP_DEVICE,
		USB_REQ_SET_CONFIGURATION, 1, 0, 0, 0, 0, 0,
	};
	struct usb_ctrlrequest ctrl;
	struct tudc_ep *ep0 = &tudc->eps[0];
	struct usb_gadget_driver *driver;
	unsigned long flags;
	bool configure;

	memcpy(&ctrl, set_config, sizeof(ctrl));
	spin_lock_irqsave(&tudc->lock, flags);
	driver = tudc->driver;
	configure = tudc->connected && tudc->gadget.speed == USB_SPEED_UNKNOWN;
	if (configure)
		tudc->gadget.speed = USB_SPEED_HIGH;
	spin_unlock_irqrestore(&tudc->lock, flags);
	if (configure && driver) {
		local_irq_save(flags);
		driver->setup(&tudc->gadget, &ctrl);
		local_irq_restore(flags);
	}
	for (;;) {
		struct tudc_req *r;

		spin_lock_irqsave(&tudc->lock, flags);
		r = list_first_entry_or_null(&ep0->queue, struct tudc_req, entry);
		if (r)
			list_del_init(&r->entry);
		spin_unlock_irqrestore(&tudc->lock, flags);
		if (!r)
			break;
		r->req.actual = r->req.length;
		tudc_giveback(ep0, r, 0);
	}
}

static int tudc_pullup(struct usb_gadget *gadget, int on)
{
	unsigned long flags;

	spin_lock_irqsave(&tudc->lock, flags);
	tudc->connected = on;
	if (!on)
		tudc->gadget.speed = USB_SPEED_UNKNOWN;
	spin_unlock_irqrestore(&tudc->lock, flags);
	/* May be called in atomic context: the work checks connected itself. */
	if (on) {
		schedule_work(&tudc->config_work);
	} else {
		tudc_nuke(&tudc->eps[0], -ESHUTDOWN);
		wake_up_interruptible(&tudc->wait);
	}
	return 0;
}

static int tudc_udc_start(struct usb_gadget *gadget, struct usb_gadget_driver *driver)
{
	unsigned long flags;

	spin_lock_irqsave(&tudc->lock, flags);
	tudc->driver = driver;
	spin_unlock_irqrestore(&tudc->lock, flags);
	return 0;
}

static int tudc_udc_stop(struct usb_gadget *gadget)
{
	unsigned long flags;

	cancel_work_sync(&tudc->config_work);
	spin_lock_irqsave(&tudc->lock, flags);
	tudc->driver = NULL;
	tudc->connected = false;
	tudc->gadget.speed = USB_SPEED_UNKNOWN;
	spin_unlock_irqrestore(&tudc->lock, flags);
	wake_up_interruptible(&tudc->wait);
	return 0;
}

static const struct usb_gadget_ops tudc_gadget_ops = {
	.pullup		= tudc_pullup,
	.udc_start	= tudc_udc_start,
	.udc_stop	= tudc_udc_stop,
};

/* The oldest request queued on an enabled IN endpoint, or NULL. */
static struct tudc_req *tudc_next(struct tudc_ep **out)
{
	int i;

	for (i = 1; i < TUDC_EPS; i++) {
		struct tudc_ep *ep = &tudc->eps[i];

		if (ep->enabled && !list_empty(&ep->queue)) {
			*out = ep;
			return list_first_entry(&ep->queue, struct tudc_req, entry);
		}
	}
	return NULL;
}

static bool tudc_readable(void)
{
	struct tudc_ep *ep;
	unsigned long flags;
	bool ready;

	spin_lock_irqsave(&tudc->lock, flags);
	ready = tudc_next(&ep) || !tudc->connected;
	spin_unlock_irqrestore(&tudc->lock, flags);
	return ready;
}

/*
 * read(): up to TUDC_CHUNK bytes of the oldest queued IN request; a request
 * whose bytes were all read completes.  -ENODEV while no gadget is
 * connected.  The copy out of the request is made under the lock, so a
 * request dequeued meanwhile is never touched after its completion.
 */
static ssize_t tudc_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct tudc_ep *ep = NULL;
	struct tudc_req *r;
	unsigned long flags;
	bool done = false;
	size_t n = 0;
	int ret;

	if (mutex_lock_interruptible(&tudc->read_lock))
		return -ERESTARTSYS;
	ret = wait_event_interruptible(tudc->wait, tudc_readable());
	if (ret)
		goto out_unlock;
	spin_lock_irqsave(&tudc->lock, flags);
	r = tudc_next(&ep);
	if (!r) {
		spin_unlock_irqrestore(&tudc->lock, flags);
		ret = -ENODEV;
		goto out_unlock;
	}
	n = min3(len, (size_t)TUDC_CHUNK, (size_t)(r->req.length - r->req.actual));
	if (r->req.num_sgs)
		n = sg_pcopy_to_buffer(r->req.sg, r->req.num_sgs, tudc->bounce, n,
				       r->req.actual);
	else
		memcpy(tudc->bounce, r->req.buf + r->req.actual, n);
	r->req.actual += n;
	if (r->req.actual == r->req.length) {
		list_del_init(&r->entry);
		done = true;
	}
	spin_unlock_irqrestore(&tudc->lock, flags);
	if (done)
		tudc_giveback(ep, r, 0);
	ret = copy_to_user(buf, tudc->bounce, n) ? -EFAULT : 0;
out_unlock:
	mutex_unlock(&tudc->read_lock);
	return ret ? ret : n;
}

static const struct file_operations tudc_fops = {
	.owner	= THIS_MODULE,
	.read	= tudc_read,
	.llseek	= noop_llseek,
};

static struct miscdevice tudc_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= TUDC_NAME,
	.fops	= &tudc_fops,
};

static void tudc_init_eps(void)
{
	static const char * const names[TUDC_EPS] = { "ep0", "ep1in", "ep2in", "ep3in" };
	int i;

	INIT_LIST_HEAD(&tudc->gadget.ep_list);
	for (i = 0; i < TUDC_EPS; i++) {
		struct tudc_ep *ep = &tudc->eps[i];

		INIT_LIST_HEAD(&ep->queue);
		ep->ep.name = names[i];
		ep->ep.ops = &tudc_ep_ops;
		if (i == 0) {
			usb_ep_set_maxpacket_limit(&ep->ep, 64);
			ep->ep.caps.type_control = true;
			ep->ep.caps.dir_in = true;
			ep->ep.caps.dir_out = true;
			tudc->gadget.ep0 = &ep->ep;
		} else {
			usb_ep_set_maxpacket_limit(&ep->ep, 512);
			ep->ep.caps.type_bulk = true;
			ep->ep.caps.dir_in = true;
			list_add_tail(&ep->ep.ep_list, &tudc->gadget.ep_list);
		}
	}
}

static void tudc_gadget_release(struct device *dev)
{
}

static int __init tudc_init(void)
{
	int ret;

	tudc = kzalloc(sizeof(*tudc), GFP_KERNEL);
	if (!tudc)
		return -ENOMEM;
	tudc->bounce = kmalloc(TUDC_CHUNK, GFP_KERNEL);
	if (!tudc->bounce) {
		ret = -ENOMEM;
		goto err_free;
	}
	spin_lock_init(&tudc->lock);
	mutex_init(&tudc->read_lock);
	init_waitqueue_head(&tudc->wait);
	INIT_WORK(&tudc->config_work, tudc_config_work);
	tudc->pdev = platform_device_register_simple(TUDC_NAME, -1, NULL, 0);
	if (IS_ERR(tudc->pdev)) {
		ret = PTR_ERR(tudc->pdev);
		goto err_free_bounce;
	}
	ret = dma_coerce_mask_and_coherent(&tudc->pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		goto err_unregister_pdev;
	tudc->gadget.ops = &tudc_gadget_ops;
	tudc->gadget.name = TUDC_NAME;
	tudc->gadget.max_speed = USB_SPEED_HIGH;
	tudc->gadget.speed = USB_SPEED_UNKNOWN;
	tudc->gadget.sg_supported = true;
	tudc_init_eps();
	ret = misc_register(&tudc_misc);
	if (ret)
		goto err_unregister_pdev;
	ret = usb_add_gadget_udc_release(&tudc->pdev->dev, &tudc->gadget, tudc_gadget_release);
	if (ret)
		goto err_deregister_misc;
	return 0;

err_deregister_misc:
	misc_deregister(&tudc_misc);
err_unregister_pdev:
	platform_device_unregister(tudc->pdev);
err_free_bounce:
	kfree(tudc->bounce);
err_free:
	kfree(tudc);
	return ret;
}

static void __exit tudc_exit(void)
{
	usb_del_gadget_udc(&tudc->gadget);
	misc_deregister(&tudc_misc);
	platform_device_unregister(tudc->pdev);
	kfree(tudc->bounce);
	kfree(tudc);
}

module_init(tudc_init);
module_exit(tudc_exit);
MODULE_DESCRIPTION("udmem test: a USB device controller with scatter-gather, read through a char device");
MODULE_LICENSE("GPL");
