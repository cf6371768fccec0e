// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * export.c - "udmem export": a page-aligned range of a buffer or a region
 * as a DMA-BUF, described, or passed on to a command that inherits it.
 * A DMA-BUF lives as long as a descriptor holds it, so the export outlives
 * udmem only through the command (the mirror of "udmem import --fd N").
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "size.h"

#define CLI_EXPORT_FD	3	/* the command's descriptor by default */

static const char cli_export_help[] =
	"Usage: udmem export NAME [--offset N] [--size N] [--access A] [--uncached]\n"
	"                    [--fd N] [-- COMMAND [ARG...]]\n\n"
	"Export a page-aligned range of buffer or region NAME as a DMA-BUF and\n"
	"print what it is:\n"
	"  exporter <name>\n  size <bytes>\n  addr 0x<hex>  (the range's DMA address for NAME's device)\n"
	"Without a command the DMA-BUF is closed when udmem exits.  With one,\n"
	"COMMAND runs with the DMA-BUF open as descriptor N and with\n"
	"UDMEM_DMABUF_FD and UDMEM_DMABUF_SIZE in its environment, and udmem\n"
	"exits with COMMAND's status; the export lives as long as a process\n"
	"holds it.\n"
	"  --offset N   first byte, page-aligned (default 0)\n"
	"  --size N     bytes, page-aligned (default: the rest, whole pages)\n"
	"  --access A   rw (default), ro or wo: what importers may do\n"
	"  --uncached   importers' CPU mappings are uncached (O_SYNC; buffers only)\n"
	"  --fd N       the command's descriptor, 3 or more (default 3)\n";

static const char *const cli_export_access[] = { "ro", "wo", "rw" };

/* exp_name of a DMA-BUF, from /proc/self/fdinfo; "?" if not found. */
static void cli_export_name(int fd, char *name, size_t len)
{
	char path[64], line[128];
	FILE *f;

	snprintf(name, len, "?");
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "exp_name:", 9)) {
			snprintf(name, len, "%s", line + 9 + strspn(line + 9, " \t"));
			name[strcspn(name, "\n")] = 0;
			break;
		}
	}
	fclose(f);
}

static int cli_export_run(char **cmd, int dmabuf, int to, uint64_t size)
{
	static const char *const names[] = { "UDMEM_DMABUF_FD", "UDMEM_DMABUF_SIZE" };
	char text[2][32];
	char *const values[] = { text[0], text[1] };

	snprintf(text[0], sizeof(text[0]), "%d", to);
	snprintf(text[1], sizeof(text[1]), "%" PRIu64, size);
	/* the command holds the export now */
	return cli_run_with(cmd, names, values, 2, dmabuf, to);
}

int cli_cmd_export(int argc, char **argv)
{
	struct cli_opt opts[] = {
		{ "offset", NULL, 0 }, { "size", NULL, 0 }, { "access", NULL, 0 },
		{ "uncached", NULL, 1 }, { "fd", NULL, 0 },
	};
	uint64_t offset = 0, size = 0, addr = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
	int ret, npos, nargs, access = 2, dmabuf, flags;
	char **cmd = NULL, *pos[1], *end, name[64];
	struct cli_dev dev;
	long to = CLI_EXPORT_FD;

	/* Everything after the first "--" is the command. */
	for (nargs = 1; nargs < argc; nargs++) {
		if (!strcmp(argv[nargs], "--")) {
			cmd = argv + nargs + 1;
			break;
		}
	}
	ret = cli_parse_args("export", nargs, argv, opts, ARRAY_SIZE(opts), pos, 1, &npos);
	if (ret || npos != 1 || (cmd && !cmd[0])) {
		if (!ret)
			cli_usage_error("export", npos != 1 ? "expected one NAME" :
					"no command after '--'");
		fputs(cli_export_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	if ((opts[0].value && udmem_parse_size(opts[0].value, &offset)) ||
	    (opts[1].value && (udmem_parse_size(opts[1].value, &size) || !size))) {
		cli_usage_error("export", "bad --%s '%s'", opts[0].value ? "offset" : "size",
				opts[0].value ? opts[0].value : opts[1].value);
		return CLI_EXIT_USAGE;
	}
	if (offset % page || size % page) {
		cli_usage_error("export", "--offset and --size must be multiples of the %" PRIu64
				"-byte page", page);
		return CLI_EXIT_USAGE;
	}
	if (opts[2].value) {
		access = cli_lookup(cli_export_access, 3, opts[2].value);
		if (access < 0) {
			cli_usage_error("export", "bad --access '%s' (rw, ro, wo)", opts[2].value);
			return CLI_EXIT_USAGE;
		}
	}
	if (opts[4].value) {
		errno = 0;
		to = strtol(opts[4].value, &end, 10);
		if (errno || *end || end == opts[4].value || to < 3 || to > 1023) {
			cli_usage_error("export", "bad --fd '%s' (3 to 1023)", opts[4].value);
			return CLI_EXIT_USAGE;
		}
	}
	ret = cli_dev_open(pos[0], 0, &dev);
	if (ret) {
		cli_open_error(pos[0], ret);
		return CLI_EXIT_FAIL;
	}
	if (!size && offset < cli_dev_size(&dev))
		size = (cli_dev_size(&dev) - offset) / page * page;
	/* O_RDONLY, O_WRONLY and O_RDWR are 0, 1 and 2: the index of the word. */
	flags = access | O_CLOEXEC;
	if (opts[3].value && dev.reg) {
		cli_usage_error("export",
				"--uncached is for buffers (a region's export has no mmap)");
		cli_dev_close(&dev);
		return CLI_EXIT_USAGE;
	}
	if (opts[3].value)
		flags |= O_SYNC;
	if (dev.buf) {
		dmabuf = udmem_buffer_export_dmabuf(dev.buf, offset, size, flags, &addr);
	} else {
		dmabuf = udmem_region_export_dmabuf(dev.reg, offset, size, flags);
		addr = udmem_region_dma_addr(dev.reg) + offset;
	}
	if (dmabuf < 0) {
		cli_error(pos[0], "export", dmabuf);
		cli_dev_close(&dev);
		return CLI_EXIT_FAIL;
	}
	cli_export_name(dmabuf, name, sizeof(name));
	printf("exporter %s\nsize %" PRIu64 "\naddr 0x%" PRIx64 "\n", name, size, addr);
	/* The export holds the buffer or region: the handle may go. */
	cli_dev_close(&dev);
	if (cmd)
		return cli_export_run(cmd, dmabuf, (int)to, size);
	close(dmabuf);
	return CLI_EXIT_OK;
}
