// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * dma.c - "udmem dma": the u-dma-chan DMA channels.  List and describe
 * them, copy between buffers and regions with the engine, and run one
 * slave transfer (receive from or send to the channel's device).  Buffers
 * and regions reach the engine as DMA-BUFs exported for the one command.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/u-dma-chan.h>

#include "bench.h"
#include "cli.h"
#include "size.h"

#define CLI_DMA_TIMEOUT_S	10	/* default --timeout */

static const char cli_dma_help[] =
	"Usage: udmem dma list [--json]\n"
	"       udmem dma info CHANNEL [--json]\n"
	"       udmem dma copy CHANNEL DST[:OFFSET] SRC[:OFFSET] [--length N]\n"
	"                      [--timeout SECONDS] [--no-sync]\n"
	"       udmem dma receive CHANNEL DST[:OFFSET] --length N [--timeout SECONDS]\n"
	"                      [--no-sync]\n"
	"       udmem dma send CHANNEL SRC[:OFFSET] --length N [--timeout SECONDS]\n"
	"                      [--no-sync]\n\n"
	"Drive the kernel's DMA engines through u-dma-chan channels (/dev/CHANNEL).\n"
	"  list      every channel: name, kernel channel, engine device, capabilities\n"
	"  info      everything the channel reports\n"
	"  copy      copy with the engine from SRC to DST (buffers or regions)\n"
	"  receive   one DEV_TO_MEM transfer from the channel's device into DST\n"
	"  send      one MEM_TO_DEV transfer from SRC to the channel's device\n"
	"DST and SRC are buffer or region names, with an optional byte offset after\n"
	"a colon (udmabuf1:4K).  A transfer prints what moved, its batch number and\n"
	"its status, and waits at most --timeout seconds (default 10, 0: no limit).\n"
	"  --length N   bytes (copy: default the most both ranges hold)\n"
	"  --no-sync    leave the CPU caches alone (the caller syncs)\n"
	"  --json       one JSON array (list) or object (info)\n";

static const char *const cli_dma_cap_names[] = {
	"memcpy", "dev_to_mem", "mem_to_dev", "cyclic",
};

static int cli_dma_usage(const char *fmt, const char *arg)
{
	cli_usage_error("dma", fmt, arg);
	return CLI_EXIT_USAGE;
}

/* A channel open failure, saying what ENOENT and EBUSY mean here. */
static void cli_dma_open_error(const char *name, int err)
{
	if (err == -ENOENT)
		cli_error(name, "open (no such DMA channel)", err);
	else if (err == -EBUSY)
		cli_error(name, "open (the channel is in use by another program)", err);
	else if (err == -EINVAL)
		cli_error(name, "open (bad channel name)", err);
	else
		cli_error(name, "open", err);
}

/* The channel's capabilities as words separated by @sep. */
static void cli_dma_caps(uint64_t caps, const char *sep, int quoted, FILE *f)
{
	const char *s = "";
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cli_dma_cap_names); i++) {
		if (!(caps & (1ull << i)))
			continue;
		fprintf(f, quoted ? "%s\"%s\"" : "%s%s", s, cli_dma_cap_names[i]);
		s = sep;
	}
	if (!quoted && !*s)
		fputs("-", f);
}

/* One attribute of /sys/class/u-dma-chan/@name, without its newline. */
static int cli_dma_sysfs(const char *name, const char *attr, char *val, size_t len)
{
	char path[160];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/sys/class/u-dma-chan/%s/%s", name, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	ok = !!fgets(val, (int)len, f);
	fclose(f);
	if (!ok)
		return -EIO;
	val[strcspn(val, "\n")] = 0;
	return 0;
}

/*
 * What sysfs tells of a channel another program holds open (the library
 * describes only a channel it can open).
 */
static int cli_dma_sysfs_info(const char *name, struct udmem_dma_info *in)
{
	char val[128], *word, *save;
	size_t i;
	int ret;

	memset(in, 0, sizeof(*in));
	snprintf(in->name, sizeof(in->name), "%s", name);
	ret = cli_dma_sysfs(name, "channel", in->channel, sizeof(in->channel));
	if (!ret)
		ret = cli_dma_sysfs(name, "device", in->device, sizeof(in->device));
	if (!ret)
		ret = cli_dma_sysfs(name, "caps", val, sizeof(val));
	if (ret)
		return ret;
	for (word = strtok_r(val, " ", &save); word; word = strtok_r(NULL, " ", &save))
		for (i = 0; i < ARRAY_SIZE(cli_dma_cap_names); i++)
			if (!strcmp(word, cli_dma_cap_names[i]))
				in->caps |= 1ull << i;
	if (!cli_dma_sysfs(name, "copy_align", val, sizeof(val)))
		in->copy_align = (uint32_t)strtoul(val, NULL, 0);
	if (!cli_dma_sysfs(name, "max_segment", val, sizeof(val)))
		in->max_segment = strtoull(val, NULL, 0);
	if (!cli_dma_sysfs(name, "dma_mask", val, sizeof(val)))
		in->dma_mask = strtoull(val, NULL, 0);
	in->max_batch = U_DMA_CHAN_MAX_BATCH;
	return 0;
}

static void cli_dma_json(const struct udmem_dma_info *in, int in_use, const char *indent)
{
	char node[6 + UDMEM_CLI_NAME_MAX];

	snprintf(node, sizeof(node), "/dev/%s", in->name);
	printf("%s{\"name\": ", indent);
	bench_json_put_string(stdout, in->name);
	printf(", \"device\": ");
	bench_json_put_string(stdout, node);
	printf(", \"channel\": ");
	bench_json_put_string(stdout, in->channel);
	printf(", \"engine\": ");
	bench_json_put_string(stdout, in->device);
	printf(", \"caps\": [");
	cli_dma_caps(in->caps, ", ", 1, stdout);
	printf("], \"in_use\": %s", in_use ? "true" : "false");
	printf(", \"copy_align\": %u, \"max_segment\": %" PRIu64
	       ", \"dma_mask\": \"0x%" PRIx64 "\", \"max_batch\": %u}",
	       in->copy_align, in->max_segment, in->dma_mask, in->max_batch);
}

/*
 * Open channel @name and describe it; 0 or a CLI exit code after a message.
 * With @in_use, a channel another program holds is described from sysfs,
 * *@dma is NULL and *@in_use 1.
 */
static int cli_dma_get_info(const char *name, struct udmem_dma **dma,
			    struct udmem_dma_info *in, int *in_use)
{
	int ret;

	ret = udmem_dma_open(name, dma);
	if (in_use)
		*in_use = ret == -EBUSY;
	if (ret == -EBUSY && in_use && !cli_dma_sysfs_info(name, in)) {
		*dma = NULL;
		return 0;
	}
	if (ret) {
		cli_dma_open_error(name, ret);
		return CLI_EXIT_FAIL;
	}
	ret = udmem_dma_info(*dma, in);
	if (ret) {
		cli_error(name, "info", ret);
		udmem_dma_close(*dma);
		*dma = NULL;
		return CLI_EXIT_FAIL;
	}
	return 0;
}

static int cli_dma_list(int argc, char **argv)
{
	struct cli_opt opts[] = { { "json", NULL, 1 } };
	int ret, npos, i, json, first = 1, status = CLI_EXIT_OK;
	char **names = NULL, *pos[1];

	ret = cli_parse_args("dma list", argc, argv, opts, 1, pos, 0, &npos);
	if (ret) {
		fputs(cli_dma_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	json = !!opts[0].value;
	ret = udmem_dma_list(&names);
	if (ret < 0) {
		cli_error(NULL, "listing /sys/class/u-dma-chan", ret);
		return CLI_EXIT_FAIL;
	}
	if (json)
		printf("[");
	else
		printf("%-20s %-12s %-28s %-6s %s\n", "NAME", "CHANNEL", "ENGINE", "IN_USE",
		       "CAPS");
	for (i = 0; names[i]; i++) {
		struct udmem_dma_info in;
		struct udmem_dma *dma;
		int in_use;

		if (cli_dma_get_info(names[i], &dma, &in, &in_use)) {
			status = CLI_EXIT_FAIL;
			continue;
		}
		udmem_dma_close(dma);
		if (json) {
			printf("%s\n", first ? "" : ",");
			cli_dma_json(&in, in_use, "  ");
		} else {
			printf("%-20s %-12s %-28s %-6s ", in.name, in.channel, in.device,
			       in_use ? "yes" : "no");
			cli_dma_caps(in.caps, ",", 0, stdout);
			printf("\n");
		}
		first = 0;
	}
	if (json)
		printf("%s]\n", first ? "" : "\n");
	udmem_list_free(names);
	return status;
}

static int cli_dma_info(int argc, char **argv)
{
	struct cli_opt opts[] = { { "json", NULL, 1 } };
	struct udmem_dma_info in;
	struct udmem_dma *dma;
	char *pos[1];
	int ret, npos, in_use;

	ret = cli_parse_args("dma info", argc, argv, opts, 1, pos, 1, &npos);
	if (ret || npos != 1) {
		if (!ret)
			cli_usage_error("dma info", "expected one CHANNEL");
		fputs(cli_dma_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	ret = cli_dma_get_info(pos[0], &dma, &in, &in_use);
	if (ret)
		return ret;
	udmem_dma_close(dma);
	if (opts[0].value) {
		cli_dma_json(&in, in_use, "");
		printf("\n");
		return CLI_EXIT_OK;
	}
	printf("name:        %s\n", in.name);
	printf("device:      /dev/%s\n", in.name);
	printf("channel:     %s\n", in.channel);
	printf("engine:      %s\n", in.device);
	printf("in_use:      %s\n", in_use ? "yes (open in another program)" : "no");
	printf("caps:        ");
	cli_dma_caps(in.caps, " ", 0, stdout);
	printf("\n");
	printf("copy_align:  %u\n", in.copy_align);
	printf("max_segment: %" PRIu64 "\n", in.max_segment);
	printf("dma_mask:    0x%" PRIx64 "\n", in.dma_mask);
	printf("max_batch:   %u\n", in.max_batch);
	return CLI_EXIT_OK;
}

/* One side of a transfer: a buffer or region, an offset, its DMA-BUF. */
struct cli_dma_end {
	char name[UDMEM_CLI_NAME_MAX];
	uint64_t offset;
	uint64_t size;			/* of the buffer or region */
	struct cli_dev dev;
	int fd;				/* the DMA-BUF, or -1 */
};

/*
 * "NAME[:OFFSET]": the text after the last colon is the offset when it is a
 * size; a name with a colon in it is written with its offset ("a:b:0").
 */
static int cli_dma_parse_end(const char *text, struct cli_dma_end *e)
{
	const char *colon = strrchr(text, ':');
	size_t len = strlen(text);

	memset(e, 0, sizeof(*e));
	e->fd = -1;
	if (colon && colon != text && !udmem_parse_size(colon + 1, &e->offset))
		len = (size_t)(colon - text);
	if (!len || len >= sizeof(e->name))
		return -1;
	memcpy(e->name, text, len);
	e->name[len] = 0;
	return 0;
}

/* Open @e and export it whole; 0 or a CLI exit code after a message. */
static int cli_dma_open_end(struct cli_dma_end *e, int writable)
{
	int ret;

	ret = cli_dev_open(e->name, writable ? 0 : UDMEM_OPEN_RDONLY, &e->dev);
	if (ret) {
		cli_open_error(e->name, ret);
		return CLI_EXIT_FAIL;
	}
	e->size = cli_dev_size(&e->dev);
	if (e->dev.buf)
		e->fd = udmem_buffer_export_dmabuf(e->dev.buf, 0, 0,
						   (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC,
						   NULL);
	else
		e->fd = udmem_region_export_dmabuf(e->dev.reg, 0, 0,
						   (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (e->fd < 0) {
		cli_error(e->name, "export as a DMA-BUF", e->fd);
		e->fd = -1;
		return CLI_EXIT_FAIL;
	}
	return 0;
}

static void cli_dma_close_end(struct cli_dma_end *e)
{
	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	cli_dev_close(&e->dev);
}

/* The range [offset, offset + length) must lie inside @e. */
static int cli_dma_check_range(const struct cli_dma_end *e, uint64_t length)
{
	char what[160];

	if (e->offset <= e->size && length <= e->size - e->offset)
		return 0;
	snprintf(what, sizeof(what),
		 "%" PRIu64 " bytes at offset %" PRIu64 " are outside its %" PRIu64 " bytes",
		 length, e->offset, e->size);
	cli_error(e->name, what, -EINVAL);
	return CLI_EXIT_FAIL;
}

static int64_t cli_dma_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "--timeout SECONDS" in ns (< 0: no limit); -2 when it is not a number. */
static int64_t cli_dma_timeout(const char *text)
{
	double s;
	char *end;

	if (!text)
		return (int64_t)CLI_DMA_TIMEOUT_S * 1000000000;
	errno = 0;
	s = strtod(text, &end);
	if (errno || end == text || *end || s < 0 || s > 1e6)
		return -2;
	return s == 0 ? -1 : (int64_t)(s * 1e9);
}

/* Submit @x, wait for it and say what happened; a CLI exit code. */
static int cli_dma_run(const char *chan, struct udmem_dma *dma,
		       const struct udmem_dma_xfer *x, int64_t timeout_ns,
		       const char *what)
{
	char msg[96];
	uint64_t seq;
	int64_t t0;
	int ret, status;

	t0 = cli_dma_now_ns();
	ret = udmem_dma_submit(dma, x, 1, UDMEM_DMA_NO_EVENT, &seq, NULL);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			cli_error(chan, "submit (the channel cannot do this transfer)", ret);
		else
			cli_error(chan, "submit", ret);
		return CLI_EXIT_FAIL;
	}
	ret = udmem_dma_wait(dma, seq, timeout_ns, &status);
	if (ret) {
		if (ret == -ETIMEDOUT)
			snprintf(msg, sizeof(msg), "batch %" PRIu64
				 " did not complete in time (it is stopped)", seq);
		else
			snprintf(msg, sizeof(msg), "wait for batch %" PRIu64, seq);
		cli_error(chan, msg, ret);
		return CLI_EXIT_FAIL;
	}
	printf("%s: %s: %" PRIu64 " bytes, batch %" PRIu64 ", status %d (%s), %.1f us\n",
	       chan, what, x->length, seq, status, status ? udmem_strerror(status) : "done",
	       (double)(cli_dma_now_ns() - t0) / 1000.0);
	if (status) {
		snprintf(msg, sizeof(msg), "batch %" PRIu64 " failed", seq);
		cli_error(chan, msg, status);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

/* Memory offsets and the length must be multiples of the channel's copy_align. */
static int cli_dma_check_align(const char *chan, const struct udmem_dma_info *in,
			       uint64_t a, uint64_t b, uint64_t length)
{
	char what[128];

	if (in->copy_align <= 1 ||
	    (!(a % in->copy_align) && !(b % in->copy_align) && !(length % in->copy_align)))
		return 0;
	snprintf(what, sizeof(what),
		 "offsets and length must be multiples of the channel's copy_align %u",
		 in->copy_align);
	cli_error(chan, what, -EINVAL);
	return CLI_EXIT_FAIL;
}

/*
 * copy (@op UDMEM_DMA_MEMCPY, @npos 3), receive (DEV_TO_MEM) and send
 * (MEM_TO_DEV), with @npos 2.
 */
static int cli_dma_transfer(const char *cmd, enum udmem_dma_op op, int argc, char **argv)
{
	struct cli_opt opts[] = {
		{ "length", NULL, 0 }, { "timeout", NULL, 0 }, { "no-sync", NULL, 1 },
	};
	struct cli_dma_end dst, src, *mem;
	struct udmem_dma_info in;
	struct udmem_dma_xfer x;
	struct udmem_dma *dma = NULL;
	int ret, npos, want = op == UDMEM_DMA_MEMCPY ? 3 : 2, same = 0;
	uint64_t length = 0;
	int64_t timeout_ns;
	char *pos[3], what[192];

	ret = cli_parse_args(cmd, argc, argv, opts, ARRAY_SIZE(opts), pos, want, &npos);
	if (ret || npos != want) {
		if (!ret)
			cli_usage_error(cmd, want == 3 ? "expected CHANNEL DST SRC" :
					op == UDMEM_DMA_DEV_TO_MEM ? "expected CHANNEL DST" :
					"expected CHANNEL SRC");
		fputs(cli_dma_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (opts[0].value && (udmem_parse_size(opts[0].value, &length) || !length))
		return cli_dma_usage("bad --length '%s'", opts[0].value);
	if (op != UDMEM_DMA_MEMCPY && !length)
		return cli_dma_usage("%s needs --length N", op == UDMEM_DMA_DEV_TO_MEM ?
				     "receive" : "send");
	timeout_ns = cli_dma_timeout(opts[1].value);
	if (timeout_ns == -2)
		return cli_dma_usage("bad --timeout '%s' (seconds)", opts[1].value);
	memset(&dst, 0, sizeof(dst));
	memset(&src, 0, sizeof(src));
	dst.fd = -1;
	src.fd = -1;
	if (op != UDMEM_DMA_MEM_TO_DEV && cli_dma_parse_end(pos[1], &dst))
		return cli_dma_usage("bad DST '%s' (NAME[:OFFSET])", pos[1]);
	if (op != UDMEM_DMA_DEV_TO_MEM &&
	    cli_dma_parse_end(pos[op == UDMEM_DMA_MEMCPY ? 2 : 1], &src))
		return cli_dma_usage("bad SRC '%s' (NAME[:OFFSET])",
				     pos[op == UDMEM_DMA_MEMCPY ? 2 : 1]);

	ret = cli_dma_get_info(pos[0], &dma, &in, NULL);
	if (ret)
		return ret;
	/* One buffer on both sides: one DMA-BUF, so the driver sees an overlap. */
	same = op == UDMEM_DMA_MEMCPY && !strcmp(dst.name, src.name);
	if (op != UDMEM_DMA_MEM_TO_DEV) {
		ret = cli_dma_open_end(&dst, 1);
		if (ret)
			goto out;
	}
	if (op != UDMEM_DMA_DEV_TO_MEM && !same) {
		ret = cli_dma_open_end(&src, 0);
		if (ret)
			goto out;
	}
	if (same) {
		src.size = dst.size;
		src.fd = dup(dst.fd);
		if (src.fd < 0) {
			ret = CLI_EXIT_FAIL;
			cli_error(src.name, "dup", -errno);
			goto out;
		}
	}
	if (!length) {		/* copy: the most both ranges hold */
		uint64_t d = dst.offset < dst.size ? dst.size - dst.offset : 0;
		uint64_t s = src.offset < src.size ? src.size - src.offset : 0;

		length = d < s ? d : s;
		if (!length) {
			ret = CLI_EXIT_FAIL;
			cli_error(d ? src.name : dst.name,
				  "nothing to copy: the offset is at or past the end", -EINVAL);
			goto out;
		}
	}
	ret = CLI_EXIT_FAIL;
	if (op != UDMEM_DMA_MEM_TO_DEV && cli_dma_check_range(&dst, length))
		goto out;
	if (op != UDMEM_DMA_DEV_TO_MEM && cli_dma_check_range(&src, length))
		goto out;
	if (same && dst.offset < src.offset + length && src.offset < dst.offset + length) {
		cli_error(dst.name, "the source and destination ranges overlap", -EINVAL);
		goto out;
	}
	if (op == UDMEM_DMA_MEMCPY &&
	    cli_dma_check_align(pos[0], &in, dst.offset, src.offset, length))
		goto out;

	memset(&x, 0, sizeof(x));
	x.op = op;
	x.flags = opts[2].value ? UDMEM_DMA_NO_SYNC : 0;
	x.src_fd = src.fd;
	x.dst_fd = dst.fd;
	x.src_offset = src.offset;
	x.dst_offset = dst.offset;
	x.length = length;
	mem = op == UDMEM_DMA_MEM_TO_DEV ? &src : &dst;
	if (op == UDMEM_DMA_MEMCPY)
		snprintf(what, sizeof(what), "copied %s+0x%" PRIx64 " -> %s+0x%" PRIx64,
			 src.name, src.offset, dst.name, dst.offset);
	else
		snprintf(what, sizeof(what), "%s %s+0x%" PRIx64,
			 op == UDMEM_DMA_DEV_TO_MEM ? "received into" : "sent from",
			 mem->name, mem->offset);
	ret = cli_dma_run(pos[0], dma, &x, timeout_ns, what);
out:
	cli_dma_close_end(&src);
	cli_dma_close_end(&dst);
	udmem_dma_close(dma);
	return ret;
}

int cli_cmd_dma(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub) {
		cli_usage_error("dma", "expected list, info, copy, receive or send");
		fputs(cli_dma_help, stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		fputs(cli_dma_help, stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(sub, "list"))
		return cli_dma_list(argc - 1, argv + 1);
	if (!strcmp(sub, "info"))
		return cli_dma_info(argc - 1, argv + 1);
	if (!strcmp(sub, "copy"))
		return cli_dma_transfer("dma copy", UDMEM_DMA_MEMCPY, argc - 1, argv + 1);
	if (!strcmp(sub, "receive"))
		return cli_dma_transfer("dma receive", UDMEM_DMA_DEV_TO_MEM, argc - 1, argv + 1);
	if (!strcmp(sub, "send"))
		return cli_dma_transfer("dma send", UDMEM_DMA_MEM_TO_DEV, argc - 1, argv + 1);
	return cli_dma_usage("unknown subcommand '%s' (list, info, copy, receive, send)", sub);
}
