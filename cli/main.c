// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * main.c - the udmem command-line tool: dispatch, option parsing, messages
 * and the buffer-or-region helpers the subcommands share.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli.h"

struct cli_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cli_cmd cli_cmds[] = {
	{ "list", cli_cmd_list, "list every buffer and region" },
	{ "info", cli_cmd_info, "show one buffer or region" },
	{ "create", cli_cmd_create, "create a buffer through u-dma-buf-mgr" },
	{ "delete", cli_cmd_delete, "delete a buffer through u-dma-buf-mgr" },
	{ "sync", cli_cmd_sync, "hand a range to the CPU or to the device" },
	{ "dump", cli_cmd_dump, "hexdump part of a buffer or region" },
	{ "load", cli_cmd_load, "copy a file into a buffer or region" },
	{ "save", cli_cmd_save, "copy a buffer or region into a file" },
	{ "import", cli_cmd_import, "DMA address of a DMA-BUF for a buffer's device" },
	{ "export", cli_cmd_export, "a buffer or region range as a DMA-BUF, for a command" },
	{ "dma", cli_cmd_dma, "copy and transfer with the kernel's DMA engines" },
	{ "bench", udmem_bench_main, "measure access and sync costs" },
	{ "doctor", cli_cmd_doctor, "check the system for what buffers need" },
};

const char *const cli_mmap_mode_names[UDMEM_MMAP_PAGE + 1] = {
	[UDMEM_MMAP_DEFAULT] = "default",
	[UDMEM_MMAP_OFF] = "off",
	[UDMEM_MMAP_ON] = "on",
	[UDMEM_MMAP_AUTO] = "auto",
	[UDMEM_MMAP_PAGE] = "page",
};

int cli_lookup(const char *const *names, int n, const char *word)
{
	int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], word))
			return i;
	return -1;
}

static void cli_main_usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: udmem [--version] [--help] COMMAND [ARGS]\n\n"
		"Commands:\n");
	for (i = 0; i < ARRAY_SIZE(cli_cmds); i++)
		fprintf(f, "  %-8s %s\n", cli_cmds[i].name, cli_cmds[i].summary);
	fprintf(f, "\n'udmem COMMAND --help' describes a command.\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

static const char *cli_errno_name(int err)
{
	const char *s = strerrorname_np(err);

	return s ? s : "?";
}

/* "udmem: NAME: WHAT: strerror (errno N, ENAME)" on stderr. */
void cli_error(const char *name, const char *what, int err)
{
	if (err < 0)
		err = -err;
	fprintf(stderr, "udmem: %s%s%s: %s (errno %d, %s)\n",
		name ? name : "", name ? ": " : "", what,
		udmem_strerror(err), err, cli_errno_name(err));
}

/* An open failure, saying what ENOENT and ENODEV mean here. */
void cli_open_error(const char *name, int err)
{
	if (err == -ENOENT)
		cli_error(name, "open (no such buffer or region)", err);
	else if (err == -ENODEV)
		cli_error(name, "open (not a u-dma-buf buffer or uiomem region)", err);
	else if (err == -EINVAL)
		cli_error(name, "open (bad device name)", err);
	else
		cli_error(name, "open", err);
}

void cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "udmem %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'udmem %s --help'.\n", cmd);
}

/*
 * Split argv (argv[0] is the command) into known options and positional
 * arguments.  Returns 0, 1 for --help, or -1 after a usage message.
 */
int cli_parse_args(const char *cmd, int argc, char **argv,
		   struct cli_opt *opts, int nopts, char **pos, int npos_max,
		   int *npos)
{
	int i, j, only_pos = 0;

	*npos = 0;
	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *eq;
		size_t len;

		if (only_pos || arg[0] != '-' || arg[1] != '-' || !arg[2]) {
			if (!only_pos && !strcmp(arg, "--")) {
				only_pos = 1;
				continue;
			}
			if (arg[0] == '-' && arg[1] && strcmp(arg, "-") && !only_pos) {
				if (!strcmp(arg, "-h"))
					return 1;
				cli_usage_error(cmd, "unknown option '%s'", arg);
				return -1;
			}
			if (*npos >= npos_max) {
				cli_usage_error(cmd, "unexpected argument '%s'", arg);
				return -1;
			}
			pos[(*npos)++] = argv[i];
			continue;
		}
		if (!strcmp(arg, "--help"))
			return 1;
		eq = strchr(arg, '=');
		len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
		for (j = 0; j < nopts; j++)
			if (strlen(opts[j].name) == len &&
			    !strncmp(opts[j].name, arg + 2, len))
				break;
		if (j == nopts) {
			cli_usage_error(cmd, "unknown option '%s'", arg);
			return -1;
		}
		if (opts[j].is_flag) {
			if (eq) {
				cli_usage_error(cmd, "option '--%s' takes no value",
						opts[j].name);
				return -1;
			}
			opts[j].value = "";
		} else if (eq) {
			opts[j].value = eq + 1;
		} else if (i + 1 < argc) {
			opts[j].value = argv[++i];
		} else {
			cli_usage_error(cmd, "option '--%s' needs a value",
					opts[j].name);
			return -1;
		}
	}
	return 0;
}

/* Open NAME as a buffer, else as a region. */
int cli_dev_open(const char *name, unsigned int flags, struct cli_dev *dev)
{
	int ret;

	memset(dev, 0, sizeof(*dev));
	ret = udmem_buffer_open(name, flags, &dev->buf);
	if (ret == 0) {
		dev->kind = "buffer";
		return 0;
	}
	if (ret != -ENOENT && ret != -ENODEV)
		return ret;
	ret = udmem_region_open(name, flags, &dev->reg);
	if (ret == 0)
		dev->kind = "region";
	return ret;
}

void cli_dev_close(struct cli_dev *dev)
{
	udmem_buffer_close(dev->buf);
	udmem_region_close(dev->reg);
	dev->buf = NULL;
	dev->reg = NULL;
}

uint64_t cli_dev_size(const struct cli_dev *dev)
{
	return dev->buf ? udmem_buffer_size(dev->buf) : udmem_region_size(dev->reg);
}

int cli_dev_map(struct cli_dev *dev, void **addr)
{
	return dev->buf ? udmem_buffer_map(dev->buf, addr) :
			  udmem_region_map(dev->reg, addr);
}

int cli_dev_sync(struct cli_dev *dev, int for_device, uint64_t offset,
		 uint64_t size, enum udmem_dir dir)
{
	if (dev->buf)
		return for_device ?
			udmem_buffer_sync_for_device(dev->buf, offset, size, dir) :
			udmem_buffer_sync_for_cpu(dev->buf, offset, size, dir);
	return for_device ?
		udmem_region_sync_for_device(dev->reg, offset, size, dir) :
		udmem_region_sync_for_cpu(dev->reg, offset, size, dir);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		cli_main_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		cli_main_usage(stdout);
		return CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("udmem %s\n", udmem_api_version());
		return CLI_EXIT_OK;
	}
	for (i = 0; i < ARRAY_SIZE(cli_cmds); i++)
		if (!strcmp(argv[1], cli_cmds[i].name))
			return cli_cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "udmem: unknown command '%s'\n", argv[1]);
	cli_main_usage(stderr);
	return CLI_EXIT_USAGE;
}
