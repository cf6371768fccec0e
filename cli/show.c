// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * show.c - the udmem subcommands that describe devices: list and info,
 * as text or as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cli.h"

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
	const char *memtype_mmap;	/* from the page tables; NULL: not read */
	const char *memtype_mmap_sync;	/* the same, opened with O_SYNC */
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
	f->memtype_mmap = NULL;
	f->memtype_mmap_sync = NULL;
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
	cli_json_str(", ", "memtype_mmap", f->memtype_mmap);
	cli_json_str(", ", "memtype_mmap_sync", f->memtype_mmap_sync);
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
	/* Where tests/kmod/udmem-memtype.ko is loaded: what the page tables hold. */
	if (!access("/dev/udmem-memtype", R_OK)) {
		char path[96];

		snprintf(path, sizeof(path), "/dev/%s", f.name);
		f.memtype_mmap = bench_memtype_of(path, false);
		f.memtype_mmap_sync = bench_memtype_of(path, true);
	}
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
		if (f.memtype_mmap || f.memtype_mmap_sync)
			printf("memtype:       mmap %s, O_SYNC mmap %s (page tables)\n",
			       f.memtype_mmap ? f.memtype_mmap : "-",
			       f.memtype_mmap_sync ? f.memtype_mmap_sync : "-");
	}
	cli_dev_close(&dev);
	return CLI_EXIT_OK;
}

