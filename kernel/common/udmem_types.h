/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * udmem_types.h - what the header-only helpers in kernel/common need, in the
 * kernel and on the host (tests/unit builds them with the host compiler).
 */
#ifndef UDMEM_COMMON_TYPES_H
#define UDMEM_COMMON_TYPES_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/overflow.h>
#include <linux/types.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/cdefs.h>	/* __always_inline (glibc) */
typedef unsigned long long u64;
typedef unsigned int u32;
#define check_add_overflow(a, b, d)	__builtin_add_overflow(a, b, d)
#define ALIGN_DOWN(x, a)		((x) & ~((__typeof__(x))(a) - 1))
#endif

#endif /* UDMEM_COMMON_TYPES_H */
