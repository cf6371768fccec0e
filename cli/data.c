// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * data.c - the udmem subcommands that move or hand over bytes: sync,
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

#include "cli.h"
#include "size.h"

#define CLI_DUMP_DEFAULT	256	/* bytes dumped without --length */

static const char *const cli_dir_names[] = {
	[UDMEM_DIR_BIDIRECTIONAL] = "bidirectional",
	[UDMEM_DIR_TO_DEVICE] = "to-device",
	[UDMEM_DIR_FROM_DEVICE] = "from-device",
};

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
