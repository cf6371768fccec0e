// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * manage.c - the udmem subcommands that talk to /dev/u-dma-buf-mgr:
 * create and delete.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "size.h"

static const char cli_create_help[] =
	"Usage: udmem create NAME SIZE [--dma-mask BITS] [--mmap-mode MODE]\n"
	"                   [--device [BUS/]DEV] [--dma-coherent] [--keep-contents]\n"
	"                   [--sync-check report|strict]\n\n"
	"Create a buffer through /dev/u-dma-buf-mgr (module u-dma-buf-mgr).\n"
	"SIZE is a byte count, with an optional K, M, G or T suffix (4K, 4M, 1G).\n"
	"  --dma-mask BITS     DMA mask width, 12..64 (default: the driver's)\n"
	"  --mmap-mode MODE    on, off, auto or page (default: the driver's)\n"
	"  --device [BUS/]DEV  allocate for this device (BUS: platform if left out,\n"
	"                      pci, amba, pci_express ...), not a new platform device\n"
	"  --dma-coherent      mark the new platform device DMA-coherent (hardware\n"
	"                      that snoops the CPU caches; not with --device)\n"
	"  --keep-contents     do not zero: the buffer is --device's no-map\n"
	"                      memory-region and keeps what it holds\n"
	"  --sync-check MODE   the sync checker, report or strict: CPU access to\n"
	"                      memory the device owns is logged, or gets SIGBUS\n";

int cli_cmd_create(int argc, char **argv)
{
	struct cli_opt opts[] = {
		{ "dma-mask", NULL, 0 }, { "mmap-mode", NULL, 0 },
		{ "device", NULL, 0 }, { "dma-coherent", NULL, 1 },
		{ "keep-contents", NULL, 1 }, { "sync-check", NULL, 0 },
	};
	unsigned int mask = 0, flags = 0;
	int ret, npos, mode = UDMEM_MMAP_DEFAULT;
	uint64_t size, bits;
	char *pos[2];

	ret = cli_parse_args("create", argc, argv, opts, 6, pos, 2, &npos);
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
	if (opts[3].value)
		flags |= UDMEM_CREATE_DMA_COHERENT;
	if (opts[4].value)
		flags |= UDMEM_CREATE_KEEP_CONTENTS;
	if (opts[5].value) {
		if (!strcmp(opts[5].value, "report")) {
			flags |= UDMEM_CREATE_SYNC_CHECK_REPORT;
		} else if (!strcmp(opts[5].value, "strict")) {
			flags |= UDMEM_CREATE_SYNC_CHECK_STRICT;
		} else {
			cli_usage_error("create", "bad --sync-check '%s' (report, strict)",
					opts[5].value);
			return CLI_EXIT_USAGE;
		}
	}
	if (opts[3].value && opts[2].value) {
		cli_usage_error("create",
				"--dma-coherent is for a new platform device, not --device");
		return CLI_EXIT_USAGE;
	}
	if (opts[4].value && !opts[2].value) {
		cli_usage_error("create", "--keep-contents needs --device (its memory-region)");
		return CLI_EXIT_USAGE;
	}
	ret = udmem_buffer_create_on(pos[0], size, mask, mode, opts[2].value, flags);
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
	"Delete a buffer made by u-dma-buf-mgr (not one of module parameters\n"
	"or of the device tree: ENOENT).\n";

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

