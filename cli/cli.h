/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * cli.h - what the udmem tool's source files share.
 */
#ifndef UDMEM_CLI_H
#define UDMEM_CLI_H

#include <stdint.h>

#include "udmem.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CLI_PRINTF(a, b)	__attribute__((format(printf, a, b)))

#define UDMEM_CLI_NAME_MAX	64	/* a device name with its NUL */

/* Exit codes (documented in udmem(1)). */
#define CLI_EXIT_OK		0
#define CLI_EXIT_FAIL		1	/* the operation failed */
#define CLI_EXIT_USAGE		2	/* bad command line */

/* A buffer or a region, opened by name. */
struct cli_dev {
	const char *kind;		/* "buffer" or "region" */
	struct udmem_buffer *buf;
	struct udmem_region *reg;
};

/* One "--name value" option of a subcommand. */
struct cli_opt {
	const char *name;		/* without the dashes */
	const char *value;		/* NULL if absent; "" for a flag */
	int is_flag;			/* takes no value */
};

/* Names of the mmap modes, indexed by enum udmem_mmap_mode. */
extern const char *const cli_mmap_mode_names[UDMEM_MMAP_PAGE + 1];
/* The index of WORD in NAMES[0..N), or -1. */
int cli_lookup(const char *const *names, int n, const char *word);

void cli_error(const char *name, const char *what, int err);
void cli_open_error(const char *name, int err);
void cli_usage_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);
int cli_parse_args(const char *cmd, int argc, char **argv,
		   struct cli_opt *opts, int nopts, char **pos, int npos_max,
		   int *npos);

int cli_dev_open(const char *name, unsigned int flags, struct cli_dev *dev);
void cli_dev_close(struct cli_dev *dev);
uint64_t cli_dev_size(const struct cli_dev *dev);
int cli_dev_map(struct cli_dev *dev, void **addr);
int cli_dev_sync(struct cli_dev *dev, int for_device, uint64_t offset,
		 uint64_t size, enum udmem_dir dir);

int cli_cmd_list(int argc, char **argv);
int cli_cmd_info(int argc, char **argv);
int cli_cmd_create(int argc, char **argv);
int cli_cmd_delete(int argc, char **argv);
int cli_cmd_sync(int argc, char **argv);
int cli_cmd_dump(int argc, char **argv);
int cli_cmd_load(int argc, char **argv);
int cli_cmd_save(int argc, char **argv);
int cli_run_with(char **cmd, const char *const *names, char *const *values, int n,
		 int fd, int to);
int cli_cmd_import(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
int cli_cmd_doctor(int argc, char **argv);
int cli_cmd_dma(int argc, char **argv);

#endif /* UDMEM_CLI_H */
