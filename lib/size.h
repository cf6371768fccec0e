/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * size.h - the byte-count parser the udmem tool and its bench share; never
 * installed, not part of libudmem's ABI.
 */
#ifndef UDMEM_SIZE_H
#define UDMEM_SIZE_H

#include <stdint.h>

/**
 * udmem_parse_size() - parse a byte count.
 * @text: decimal, 0x hex or 0 octal, with an optional K/M/G/T suffix
 *        (powers of 1024) that may be followed by "iB" or "B"
 * @val:  receives the count; untouched on failure
 *
 * Return: 0; -EINVAL for text that is not a count (empty, signed, a bad
 * suffix or trailing characters); -ERANGE when the count does not fit in
 * 64 bits.
 */
int udmem_parse_size(const char *text, uint64_t *val);

#endif /* UDMEM_SIZE_H */
