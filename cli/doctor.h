/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * doctor.h - what doctor.c and doctor-devices.c share: the context of one
 * `udmem doctor` run and how a check reports.
 */
#ifndef UDMEM_CLI_DOCTOR_H
#define UDMEM_CLI_DOCTOR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "cli.h"

#define DOC_TEXT_MAX	256

enum doc_status { DOC_OK, DOC_WARN, DOC_FAIL, DOC_SKIP };

/* What the checks share: the options, the kernel, the counts, the output mode. */
struct doc_ctx {
	int json;
	int first;			/* no check printed yet (JSON commas) */
	uint64_t want;			/* --want: bytes about to be requested */
	const char *module_dir;		/* --module-dir: where the .ko files are */
	struct utsname uts;
	int kmajor, kminor;
	int count[4];			/* per enum doc_status */
	int lockdown;			/* 1: integrity or confidentiality */
	char **bufs;			/* /sys/class/u-dma-buf */
	char **regs;			/* /sys/class/uiomem */
};

/* One check's result: CHECK is the family, SUBJECT what it looked at. */
void doc_report(struct doc_ctx *c, const char *check, const char *subject,
		enum doc_status st, const char *fix, const char *fmt, ...) CLI_PRINTF(6, 7);
/* The first line of PATH without its newline; -errno. */
int doc_read_line(const char *path, char *buf, size_t len);
int doc_read_u64(const char *path, uint64_t *val);

/* doctor-devices.c */
void doc_check_permissions(struct doc_ctx *c);
void doc_check_buffers(struct doc_ctx *c);
void doc_check_memtype(struct doc_ctx *c);

#endif /* UDMEM_CLI_DOCTOR_H */
