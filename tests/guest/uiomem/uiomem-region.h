/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uiomem-region.h - what the source files of uiomem-region share.
 */
#ifndef UIOMEM_REGION_H
#define UIOMEM_REGION_H

#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "uiomem-test.h"

/* Tests that write data stay above the host peer's mailbox. */
#define SCRATCH	0x10000

/* uiomem-region.c */
extern void *volatile bad_pointer;
int open_region(int flags, size_t *size);

/* uiomem-region-mmap.c */
void write_byte(void *arg);

#endif /* UIOMEM_REGION_H */
