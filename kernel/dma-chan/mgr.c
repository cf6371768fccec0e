// SPDX-License-Identifier: GPL-2.0
/*
 * u-dma-chan: channels made at run time and by module parameter.
 *
 * /dev/u-dma-chan-mgr (mode 0600) takes one command per write():
 *
 *	create <name> memcpy		any free channel that can memcpy
 *	create <name> <channel>		the channel so named ("dma0chan3")
 *	delete <name>			a channel made so
 *
 * and memcpy=<name> makes <name> at load time, as "create <name> memcpy".
 * A write fails with the command's errno: EINVAL (syntax, bad name), EEXIST
 * (name taken), ENODEV (no such free channel), ENOENT (nothing to delete).
 */
#include <linux/dmaengine.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "udmachan.h"

#define UDC_MGR_NAME		"u-dma-chan-mgr"
#define UDC_MGR_LINE_MAX	160
#define UDC_MGR_TOKENS		3

static char *udc_memcpy_name;
module_param_named(memcpy, udc_memcpy_name, charp, 0444);
MODULE_PARM_DESC(memcpy, "make /dev/<name> over any channel that can memcpy");

static DEFINE_MUTEX(udc_mgr_lock);

static bool udc_filter_name(struct dma_chan *chan, void *param)
{
	return !strcmp(dma_chan_name(chan), param);
}

/* A channel by spec: "memcpy" or a channel's name. */
static struct dma_chan *udc_mgr_request(const char *spec)
{
	dma_cap_mask_t mask;
	struct dma_chan *chan;

	dma_cap_zero(mask);
	if (!strcmp(spec, "memcpy")) {
		dma_cap_set(DMA_MEMCPY, mask);
		chan = dma_request_chan_by_mask(&mask);
		return IS_ERR(chan) ? ERR_PTR(-ENODEV) : chan;
	}
	chan = dma_request_channel(mask, udc_filter_name, (void *)spec);
	return chan ? chan : ERR_PTR(-ENODEV);
}

static int udc_mgr_create(const char *name, const char *spec)
{
	struct dma_chan *chan = udc_mgr_request(spec);
	struct udc_chan *uc;

	if (IS_ERR(chan))
		return PTR_ERR(chan);
	uc = udc_chan_create(name, chan, true, NULL);
	return PTR_ERR_OR_ZERO(uc);
}

static int udc_mgr_run(char *line)
{
	char *tok[UDC_MGR_TOKENS];
	int ntok = 0, ret;
	char *t;

	while ((t = strsep(&line, " \t\n")) != NULL) {
		if (!*t)
			continue;
		if (ntok == UDC_MGR_TOKENS)
			return -EINVAL;
		tok[ntok++] = t;
	}
	mutex_lock(&udc_mgr_lock);
	if (ntok == 3 && !strcmp(tok[0], "create"))
		ret = udc_mgr_create(tok[1], tok[2]);
	else if (ntok == 2 && !strcmp(tok[0], "delete"))
		ret = udc_chan_remove_named(tok[1]);
	else
		ret = -EINVAL;
	mutex_unlock(&udc_mgr_lock);
	return ret;
}

static ssize_t udc_mgr_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char *line;
	int ret;

	if (!count || count >= UDC_MGR_LINE_MAX)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	ret = udc_mgr_run(line);
	kfree(line);
	return ret ? ret : count;
}

static const struct file_operations udc_mgr_fops = {
	.owner = THIS_MODULE,
	.write = udc_mgr_write,
	.llseek = noop_llseek,
};

static struct miscdevice udc_mgr_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = UDC_MGR_NAME,
	.fops = &udc_mgr_fops,
	.mode = 0600,
};

int udc_mgr_register(void)
{
	int ret = misc_register(&udc_mgr_misc);

	if (ret)
		return ret;
	if (udc_memcpy_name && *udc_memcpy_name) {
		ret = udc_mgr_create(udc_memcpy_name, "memcpy");
		if (ret)
			pr_warn(UDC_DRIVER_NAME ": memcpy=%s: error %d\n", udc_memcpy_name, ret);
	}
	return 0;
}

void udc_mgr_unregister(void)
{
	misc_deregister(&udc_mgr_misc);
}
