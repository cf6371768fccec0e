// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * commands.c - the udmem subcommands: list, info, create, delete, sync,
 * dump, load and save.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"
#include "size.h"

#define CLI_DUMP_DEFAULT	256	/* bytes dumped without --length */

static const char *const cli_mmap_mode_names[] = {
	[UDMEM_MMAP_DEFAULT] = "default",
	[UDMEM_MMAP_OFF] = "off",
	[UDMEM_MMAP_ON] = "on",
	[UDMEM_MMAP_AUTO] = "auto",
	[UDMEM_MMAP_PAGE] = "page",
};

static const char *const cli_dir_names[] = {
	[UDMEM_DIR_BIDIRECTIONAL] = "bidirectional",
	[UDMEM_DIR_TO_DEVICE] = "to-device",
	[UDMEM_DIR_FROM_DEVICE] = "from-device",
};

static int cli_lookup(const char *const *names, int n, const char *word)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], word))
			return i;
	return -1;
}

static const char *cli_owner_name(int owner)
{
	if (owner == UDMEM_OWNER_CPU)
		return "cpu";
	if (owner == UDMEM_OWNER_DEVICE)
		return "device";
	return "?";
}

/* The facts that list and info print. */
struct cli_facts {
	const char *name;
	const char *kind;
	uint64_t size;
	uint64_t phys_addr;
	uint64_t dma_addr;
	int coherent;
	int dma_mask_bits;		/* -1: not applicable */
	int mmap_mode;			/* -1: not applicable */
	int sync_mode;			/* < 0: unknown */
	int sync_owner;			/* < 0: unknown */
};

static void cli_facts_get(struct cli_dev *dev, struct cli_facts *f)
{
	if (dev->buf) {
		struct udmem_buffer *b = dev->buf;

		f->name = udmem_buffer_name(b);
		f->size = udmem_buffer_size(b);
		f->phys_addr = udmem_buffer_phys_addr(b);
		f->dma_addr = udmem_buffer_dma_addr(b);
		f->coherent = udmem_buffer_is_coherent(b);
		f->dma_mask_bits = udmem_buffer_dma_mask_bits(b);
		if (f->dma_mask_bits == 0)	/* the driver does not say */
			f->dma_mask_bits = -1;
		f->mmap_mode = udmem_buffer_mmap_mode(b);
		f->sync_mode = udmem_buffer_sync_mode(b);
		f->sync_owner = udmem_buffer_sync_owner(b);
	} else {
		struct udmem_region *r = dev->reg;

		f->name = udmem_region_name(r);
		f->size = udmem_region_size(r);
		f->phys_addr = udmem_region_phys_addr(r);
		f->dma_addr = udmem_region_dma_addr(r);
		f->coherent = udmem_region_is_coherent(r);
		f->dma_mask_bits = -1;
		f->mmap_mode = -1;
		f->sync_mode = udmem_region_sync_mode(r);
		f->sync_owner = udmem_region_sync_owner(r);
	}
	f->kind = dev->kind;
}

/* A JSON key and a string value (escaped), or null for NULL. */
static void cli_json_str(const char *sep, const char *key, const char *val)
{
	printf("%s\"%s\": ", sep, key);
	if (val)
		bench_json_put_string(stdout, val);
	else
		fputs("null", stdout);
}

/* A JSON key and an integer value, or null when it is negative (unknown). */
static void cli_json_int(const char *key, long long val)
{
	if (val >= 0)
		printf(", \"%s\": %lld", key, val);
	else
		printf(", \"%s\": null", key);
}

/*
 * One JSON object with every key always present, null when it does not
 * apply or is unknown, so that scripts can rely on them (docs/cli.md).
 */
static void cli_facts_json(const struct cli_facts *f, const char *indent)
{
	char device[6 + UDMEM_CLI_NAME_MAX];
	int mode_known = f->mmap_mode >= 0 && f->mmap_mode <= UDMEM_MMAP_PAGE;

	snprintf(device, sizeof(device), "/dev/%s", f->name);
	fputs(indent, stdout);
	cli_json_str("{", "name", f->name);
	cli_json_str(", ", "kind", f->kind);
	cli_json_str(", ", "device", device);
	printf(", \"size\": %" PRIu64, f->size);
	printf(", \"phys_addr\": \"0x%" PRIx64 "\"", f->phys_addr);
	printf(", \"dma_addr\": \"0x%" PRIx64 "\"", f->dma_addr);
	printf(", \"coherent\": %s", f->coherent > 0 ? "true" : "false");
	cli_json_int("dma_mask_bits", f->dma_mask_bits);
	cli_json_str(", ", "mmap_mode",
		     mode_known ? cli_mmap_mode_names[f->mmap_mode] : NULL);
	cli_json_int("sync_mode", f->sync_mode);
	cli_json_str(", ", "sync_owner", f->sync_owner >= 0 ?
		     cli_owner_name(f->sync_owner) : NULL);
	printf("}");
}

static const char cli_list_help[] =
	"Usage: udmem list [--json]\n\n"
	"List every u-dma-buf buffer and uiomem region: name, kind, size in\n"
	"bytes, DMA address, coherent, sync mode and sync owner.\n"
	"  --json   one JSON array instead of a table\n";

int cli_cmd_list(int argc, char **argv)
{
	struct cli_opt opts[] = { { "json", NULL, 1 } };
	char **bufs = NULL, **regs = NULL, **names, *pos[1];
	int ret, npos, i, k, json, first = 1, status = CLI_EXIT_OK;

	ret = cli_parse_args("list", argc, argv, opts, 1, pos, 0, &npos);
	if (ret) {
		fputs(cli_list_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	json = !!opts[0].value;
	ret = udmem_buffer_list(&bufs);
	if (ret < 0) {
		cli_error(NULL, "listing /sys/class/u-dma-buf", ret);
		return CLI_EXIT_FAIL;
	}
	ret = udmem_region_list(&regs);
	if (ret < 0) {
		cli_error(NULL, "listing /sys/class/uiomem", ret);
		udmem_list_free(bufs);
		return CLI_EXIT_FAIL;
	}
	if (json)
		printf("[");
	else
		printf("%-20s %-6s %12s %-18s %-8s %-9s %s\n", "NAME", "KIND",
		       "SIZE", "ADDRESS", "COHERENT", "SYNC_MODE", "OWNER");
	for (k = 0; k < 2; k++) {
		names = k ? regs : bufs;
		for (i = 0; names[i]; i++) {
			struct cli_facts f;
			struct cli_dev dev;

			ret = cli_dev_open(names[i], UDMEM_OPEN_RDONLY, &dev);
			if (ret) {
				cli_open_error(names[i], ret);
				status = CLI_EXIT_FAIL;
				continue;
			}
			cli_facts_get(&dev, &f);
			if (json) {
				printf("%s\n", first ? "" : ",");
				cli_facts_json(&f, "  ");
			} else {
				char mode[12] = "?";

				if (f.sync_mode >= 0)
					snprintf(mode, sizeof(mode), "%d", f.sync_mode);
				printf("%-20s %-6s %12" PRIu64 " 0x%016" PRIx64
				       " %-8s %-9s %s\n", f.name, f.kind, f.size,
				       f.dma_addr, f.coherent > 0 ? "yes" : "no",
				       mode, cli_owner_name(f.sync_owner));
			}
			first = 0;
			cli_dev_close(&dev);
		}
	}
	if (json)
		printf("%s]\n", first ? "" : "\n");
	udmem_list_free(bufs);
	udmem_list_free(regs);
	return status;
}

static const char cli_info_help[] =
	"Usage: udmem info NAME [--json]\n\n"
	"Show a buffer or region: device node, size, physical and DMA address,\n"
	"coherence, DMA mask, mmap mode, sync mode and sync owner.\n"
	"  --json   one JSON object\n";

int cli_cmd_info(int argc, char **argv)
{
	struct cli_opt opts[] = { { "json", NULL, 1 } };
	struct cli_facts f;
	struct cli_dev dev;
	char *pos[1];
	int ret, npos;

	ret = cli_parse_args("info", argc, argv, opts, 1, pos, 1, &npos);
	if (ret || npos != 1) {
		if (!ret)
			cli_usage_error("info", "expected one NAME");
		fputs(cli_info_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	ret = cli_dev_open(pos[0], UDMEM_OPEN_RDONLY, &dev);
	if (ret) {
		cli_open_error(pos[0], ret);
		return CLI_EXIT_FAIL;
	}
	cli_facts_get(&dev, &f);
	if (opts[0].value) {
		cli_facts_json(&f, "");
		printf("\n");
	} else {
		printf("name:          %s\n", f.name);
		printf("kind:          %s\n", f.kind);
		printf("device:        /dev/%s\n", f.name);
		printf("size:          %" PRIu64 "\n", f.size);
		printf("phys_addr:     0x%016" PRIx64 "\n", f.phys_addr);
		printf("dma_addr:      0x%016" PRIx64 "\n", f.dma_addr);
		printf("coherent:      %s\n", f.coherent > 0 ? "yes" : "no");
		if (f.dma_mask_bits >= 0)
			printf("dma_mask_bits: %d\n", f.dma_mask_bits);
		if (f.mmap_mode >= 0 && f.mmap_mode <= UDMEM_MMAP_PAGE)
			printf("mmap_mode:     %s\n", cli_mmap_mode_names[f.mmap_mode]);
		if (f.sync_mode >= 0)
			printf("sync_mode:     %d\n", f.sync_mode);
		printf("sync_owner:    %s\n", cli_owner_name(f.sync_owner));
	}
	cli_dev_close(&dev);
	return CLI_EXIT_OK;
}

static const char cli_create_help[] =
	"Usage: udmem create NAME SIZE [--dma-mask BITS] [--mmap-mode MODE]\n\n"
	"Create a buffer through /dev/u-dma-buf-mgr (module u-dma-buf-mgr).\n"
	"SIZE is a byte count, with an optional K, M, G or T suffix (4K, 4M, 1G).\n"
	"  --dma-mask BITS   DMA mask width, 12..64 (default: the driver's)\n"
	"  --mmap-mode MODE  on, off, auto or page (default: the driver's)\n";

int cli_cmd_create(int argc, char **argv)
{
	struct cli_opt opts[] = { { "dma-mask", NULL, 0 }, { "mmap-mode", NULL, 0 } };
	unsigned int mask = 0;
	int ret, npos, mode = UDMEM_MMAP_DEFAULT;
	uint64_t size, bits;
	char *pos[2];

	ret = cli_parse_args("create", argc, argv, opts, 2, pos, 2, &npos);
	if (ret || npos != 2) {
		if (!ret)
			cli_usage_error("create", "expected NAME and SIZE");
		fputs(cli_create_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (udmem_parse_size(pos[1], &size) || size == 0) {
		cli_usage_error("create", "bad SIZE '%s'", pos[1]);
		return CLI_EXIT_USAGE;
	}
	if (opts[0].value) {
		if (udmem_parse_size(opts[0].value, &bits) || bits < 12 || bits > 64) {
			cli_usage_error("create", "bad --dma-mask '%s' (12..64)",
					opts[0].value);
			return CLI_EXIT_USAGE;
		}
		mask = (unsigned int)bits;
	}
	if (opts[1].value) {
		mode = cli_lookup(cli_mmap_mode_names, UDMEM_MMAP_PAGE + 1,
				  opts[1].value);
		if (mode <= 0) {
			cli_usage_error("create", "bad --mmap-mode '%s' (on, off, auto, page)",
					opts[1].value);
			return CLI_EXIT_USAGE;
		}
	}
	ret = udmem_buffer_create(pos[0], size, mask, mode);
	if (ret) {
		cli_error(pos[0], ret == -ENODEV ?
			  "create (is u-dma-buf-mgr loaded?)" : "create", ret);
		return CLI_EXIT_FAIL;
	}
	printf("%s: created, %" PRIu64 " bytes\n", pos[0], size);
	return CLI_EXIT_OK;
}

static const char cli_delete_help[] =
	"Usage: udmem delete NAME\n\n"
	"Delete a buffer made by u-dma-buf-mgr (or by module parameters).\n";

int cli_cmd_delete(int argc, char **argv)
{
	char *pos[1];
	int ret, npos;

	ret = cli_parse_args("delete", argc, argv, NULL, 0, pos, 1, &npos);
	if (ret || npos != 1) {
		if (!ret)
			cli_usage_error("delete", "expected one NAME");
		fputs(cli_delete_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	ret = udmem_buffer_delete(pos[0]);
	if (ret) {
		cli_error(pos[0], ret == -ENODEV ?
			  "delete (is u-dma-buf-mgr loaded?)" : "delete", ret);
		return CLI_EXIT_FAIL;
	}
	printf("%s: deleted\n", pos[0]);
	return CLI_EXIT_OK;
}

/* Parse --offset and --size/--length against a device of DEV_SIZE bytes. */
static int cli_range(const char *cmd, const char *off_text,
		     const char *len_text, uint64_t dev_size, uint64_t dflt,
		     uint64_t *offset, uint64_t *len)
{
	*offset = 0;
	if (off_text && udmem_parse_size(off_text, offset)) {
		cli_usage_error(cmd, "bad --offset '%s'", off_text);
		return -1;
	}
	if (len_text) {
		if (udmem_parse_size(len_text, len)) {
			cli_usage_error(cmd, "bad length '%s'", len_text);
			return -1;
		}
	} else {
		*len = *offset < dev_size ? dev_size - *offset : 0;
		if (dflt && *len > dflt)
			*len = dflt;
	}
	return 0;
}

static const char cli_sync_help[] =
	"Usage: udmem sync NAME --for cpu|device [--offset N] [--size N] [--dir DIR]\n\n"
	"Hand a byte range to the CPU (after the device wrote it) or to the\n"
	"device (after the CPU wrote it): one ioctl, no sysfs text.\n"
	"  --for cpu|device  who owns the range afterwards (required)\n"
	"  --offset N        first byte (default 0)\n"
	"  --size N          bytes (default: to the end)\n"
	"  --dir DIR         bidirectional (default), to-device or from-device\n";

int cli_cmd_sync(int argc, char **argv)
{
	struct cli_opt opts[] = { { "for", NULL, 0 }, { "offset", NULL, 0 },
				  { "size", NULL, 0 }, { "dir", NULL, 0 } };
	int ret, npos, for_device, dir = UDMEM_DIR_BIDIRECTIONAL;
	uint64_t offset, size = 0;
	struct cli_dev dev;
	char *pos[1];

	ret = cli_parse_args("sync", argc, argv, opts, 4, pos, 1, &npos);
	if (ret || npos != 1 || !opts[0].value) {
		if (!ret)
			cli_usage_error("sync", npos != 1 ? "expected one NAME" :
					"--for cpu|device is required");
		fputs(cli_sync_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (!strcmp(opts[0].value, "cpu")) {
		for_device = 0;
	} else if (!strcmp(opts[0].value, "device")) {
		for_device = 1;
	} else {
		cli_usage_error("sync", "bad --for '%s' (cpu or device)", opts[0].value);
		return CLI_EXIT_USAGE;
	}
	if (opts[3].value) {
		dir = cli_lookup(cli_dir_names, 3, opts[3].value);
		if (dir < 0) {
			cli_usage_error("sync", "bad --dir '%s' (%s, %s, %s)", opts[3].value,
					cli_dir_names[0], cli_dir_names[1], cli_dir_names[2]);
			return CLI_EXIT_USAGE;
		}
	}
	offset = 0;
	if ((opts[1].value && udmem_parse_size(opts[1].value, &offset)) ||
	    (opts[2].value && udmem_parse_size(opts[2].value, &size))) {
		cli_usage_error("sync", "bad --offset or --size");
		return CLI_EXIT_USAGE;
	}
	ret = cli_dev_open(pos[0], 0, &dev);
	if (ret) {
		cli_open_error(pos[0], ret);
		return CLI_EXIT_FAIL;
	}
	ret = cli_dev_sync(&dev, for_device, offset, size, dir);
	cli_dev_close(&dev);
	if (ret) {
		cli_error(pos[0], for_device ? "sync for device" : "sync for cpu", ret);
		return CLI_EXIT_FAIL;
	}
	return CLI_EXIT_OK;
}

static int cli_check_range(const char *name, uint64_t offset, uint64_t len,
			   uint64_t size)
{
	if (offset > size || len > size - offset) {
		fprintf(stderr, "udmem: %s: range 0x%" PRIx64 "+0x%" PRIx64
			" is outside the %" PRIu64 " bytes of the device (errno %d, EINVAL)\n",
			name, offset, len, size, EINVAL);
		return -EINVAL;
	}
	return 0;
}

/* Open, map and optionally sync-for-CPU the range [offset, offset+len). */
static int cli_open_mapped(const char *name, unsigned int flags,
			   struct cli_dev *dev, uint8_t **base)
{
	void *addr;
	int ret;

	ret = cli_dev_open(name, flags, dev);
	if (ret) {
		cli_open_error(name, ret);
		return ret;
	}
	ret = cli_dev_map(dev, &addr);
	if (ret) {
		cli_error(name, "mmap", ret);
		cli_dev_close(dev);
		return ret;
	}
	*base = addr;
	return 0;
}

static void cli_hexdump(const uint8_t *p, uint64_t offset, uint64_t len)
{
	uint8_t prev[16];
	uint64_t i, j, n;
	int starred = 0, have_prev = 0;

	for (i = 0; i < len; i += 16) {
		n = len - i < 16 ? len - i : 16;
		if (have_prev && n == 16 && !memcmp(prev, p + i, 16) && i + 16 < len) {
			if (!starred)
				printf("*\n");
			starred = 1;
			continue;
		}
		starred = 0;
		memcpy(prev, p + i, n);
		have_prev = n == 16;
		printf("%08" PRIx64 " ", offset + i);
		for (j = 0; j < 16; j++) {
			if (j == 8)
				printf(" ");
			if (j < n)
				printf(" %02x", prev[j]);
			else
				printf("   ");
		}
		printf("  |");
		for (j = 0; j < n; j++)
			putchar(prev[j] >= 0x20 && prev[j] < 0x7f ? prev[j] : '.');
		printf("|\n");
	}
	printf("%08" PRIx64 "\n", offset + len);
}

static const char cli_dump_help[] =
	"Usage: udmem dump NAME [--offset N] [--length N] [--sync]\n\n"
	"Hexdump part of a buffer or region (as hexdump -C).\n"
	"  --offset N   first byte (default 0)\n"
	"  --length N   bytes (default 256, or up to the end)\n"
	"  --sync       sync the range for the CPU first (from-device)\n";

int cli_cmd_dump(int argc, char **argv)
{
	struct cli_opt opts[] = { { "offset", NULL, 0 }, { "length", NULL, 0 },
				  { "sync", NULL, 1 } };
	uint64_t offset, len, size;
	struct cli_dev dev;
	uint8_t *base;
	char *pos[1];
	int ret, npos;

	ret = cli_parse_args("dump", argc, argv, opts, 3, pos, 1, &npos);
	if (ret || npos != 1) {
		if (!ret)
			cli_usage_error("dump", "expected one NAME");
		fputs(cli_dump_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	/* An invalidating sync needs a writable file (the drivers' rule). */
	if (cli_open_mapped(pos[0], opts[2].value ? 0 : UDMEM_OPEN_RDONLY, &dev, &base))
		return CLI_EXIT_FAIL;
	size = cli_dev_size(&dev);
	ret = CLI_EXIT_USAGE;
	if (cli_range("dump", opts[0].value, opts[1].value, size,
		      CLI_DUMP_DEFAULT, &offset, &len))
		goto out;
	ret = CLI_EXIT_FAIL;
	if (cli_check_range(pos[0], offset, len, size))
		goto out;
	if (opts[2].value && len) {
		int err = cli_dev_sync(&dev, 0, offset, len, UDMEM_DIR_FROM_DEVICE);

		if (err) {
			cli_error(pos[0], "sync for cpu", err);
			goto out;
		}
	}
	cli_hexdump(base + offset, offset, len);
	ret = CLI_EXIT_OK;
out:
	cli_dev_close(&dev);
	return ret;
}

static const char cli_load_help[] =
	"Usage: udmem load NAME FILE [--offset N]\n\n"
	"Copy FILE ('-' for standard input) into a buffer or region at --offset\n"
	"(default 0), then sync the written bytes for the device (to-device).\n"
	"Fails without writing when a regular FILE does not fit.\n";

int cli_cmd_load(int argc, char **argv)
{
	struct cli_opt opts[] = { { "offset", NULL, 0 } };
	uint64_t offset = 0, size, done = 0;
	struct cli_dev dev;
	struct stat st;
	uint8_t *base;
	char *pos[2];
	int ret, npos, fd;
	ssize_t n;

	ret = cli_parse_args("load", argc, argv, opts, 1, pos, 2, &npos);
	if (ret || npos != 2) {
		if (!ret)
			cli_usage_error("load", "expected NAME and FILE");
		fputs(cli_load_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if (opts[0].value && udmem_parse_size(opts[0].value, &offset)) {
		cli_usage_error("load", "bad --offset '%s'", opts[0].value);
		return CLI_EXIT_USAGE;
	}
	fd = strcmp(pos[1], "-") ? open(pos[1], O_RDONLY | O_CLOEXEC) : 0;
	if (fd < 0) {
		cli_error(pos[1], "open", errno);
		return CLI_EXIT_FAIL;
	}
	ret = CLI_EXIT_FAIL;
	if (cli_open_mapped(pos[0], 0, &dev, &base))
		goto out_close_file;
	size = cli_dev_size(&dev);
	if (cli_check_range(pos[0], offset, 0, size))
		goto out_close_dev;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size > size - offset) {
		fprintf(stderr, "udmem: %s: %s has %lld bytes, only %" PRIu64
			" fit after offset %" PRIu64 " (errno %d, EFBIG)\n",
			pos[0], pos[1], (long long)st.st_size, size - offset,
			offset, EFBIG);
		goto out_close_dev;
	}
	for (;;) {
		uint64_t room = size - offset - done;
		uint8_t extra;

		if (room == 0) {
			n = read(fd, &extra, 1);
			if (n > 0) {
				fprintf(stderr, "udmem: %s: %s does not fit after offset %"
					PRIu64 " (errno %d, EFBIG)\n", pos[0], pos[1],
					offset, EFBIG);
				goto out_sync;
			}
			break;
		}
		n = read(fd, base + offset + done, room < (1 << 20) ? room : (1 << 20));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			cli_error(pos[1], "read", errno);
			goto out_sync;
		}
		if (n == 0)
			break;
		done += (uint64_t)n;
	}
	ret = CLI_EXIT_OK;
out_sync:
	if (done) {
		int err = cli_dev_sync(&dev, 1, offset, done, UDMEM_DIR_TO_DEVICE);

		if (err) {
			cli_error(pos[0], "sync for device", err);
			ret = CLI_EXIT_FAIL;
		}
	}
	if (ret == CLI_EXIT_OK)
		printf("%s: loaded %" PRIu64 " bytes at offset %" PRIu64 "\n",
		       pos[0], done, offset);
out_close_dev:
	cli_dev_close(&dev);
out_close_file:
	if (fd > 0)
		close(fd);
	return ret;
}

static const char cli_save_help[] =
	"Usage: udmem save NAME FILE [--offset N] [--length N] [--sync]\n\n"
	"Copy a buffer or region (from --offset, --length bytes, default: to the\n"
	"end) into FILE ('-' for standard output).\n"
	"  --sync   sync the range for the CPU first (from-device)\n";

int cli_cmd_save(int argc, char **argv)
{
	struct cli_opt opts[] = { { "offset", NULL, 0 }, { "length", NULL, 0 },
				  { "sync", NULL, 1 } };
	uint64_t offset, len, size, done = 0;
	struct cli_dev dev;
	uint8_t *base;
	char *pos[2];
	int ret, npos, fd;
	ssize_t n;

	ret = cli_parse_args("save", argc, argv, opts, 3, pos, 2, &npos);
	if (ret || npos != 2) {
		if (!ret)
			cli_usage_error("save", "expected NAME and FILE");
		fputs(cli_save_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	/* An invalidating sync needs a writable file (the drivers' rule). */
	if (cli_open_mapped(pos[0], opts[2].value ? 0 : UDMEM_OPEN_RDONLY, &dev, &base))
		return CLI_EXIT_FAIL;
	size = cli_dev_size(&dev);
	ret = CLI_EXIT_USAGE;
	if (cli_range("save", opts[0].value, opts[1].value, size, 0, &offset, &len))
		goto out_close_dev;
	ret = CLI_EXIT_FAIL;
	if (cli_check_range(pos[0], offset, len, size))
		goto out_close_dev;
	if (opts[2].value && len) {
		int err = cli_dev_sync(&dev, 0, offset, len, UDMEM_DIR_FROM_DEVICE);

		if (err) {
			cli_error(pos[0], "sync for cpu", err);
			goto out_close_dev;
		}
	}
	fd = strcmp(pos[1], "-") ?
		open(pos[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : 1;
	if (fd < 0) {
		cli_error(pos[1], "open", errno);
		goto out_close_dev;
	}
	while (done < len) {
		uint64_t chunk = len - done < (1 << 20) ? len - done : (1 << 20);

		n = write(fd, base + offset + done, chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			cli_error(pos[1], "write", n < 0 ? errno : EIO);
			goto out_close_file;
		}
		done += (uint64_t)n;
	}
	ret = CLI_EXIT_OK;
out_close_file:
	if (fd != 1 && close(fd) < 0 && ret == CLI_EXIT_OK) {
		cli_error(pos[1], "close", errno);
		ret = CLI_EXIT_FAIL;
	}
out_close_dev:
	cli_dev_close(&dev);
	return ret;
}
