/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * uiomem-abi11.h - what the source files of uiomem-abi11 share.
 */
#ifndef UIOMEM_ABI11_H
#define UIOMEM_ABI11_H

#define _FILE_OFFSET_BITS 64
#include <stddef.h>
#include <stdint.h>

#include "uiomem-test.h"

/* uiomem-abi11.c */
int open_region(int flags, uint64_t *size);
uint64_t scratch(uint64_t size);
uint32_t owner_ioctl(int fd);
uint64_t packed(uint64_t offset, uint64_t size, unsigned int dir);

#endif /* UIOMEM_ABI11_H */
