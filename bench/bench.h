/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * bench.h - `udmem bench`: measures what each access mode of a u-dma-buf
 * buffer or a uiomem region costs, beside anonymous memory of the same size.
 */
#ifndef UDMEM_BENCH_H
#define UDMEM_BENCH_H

#include <stdbool.h>
#include <stdio.h>

/**
 * udmem_bench_main() - run `udmem bench` with its own argument vector.
 * @argc: number of arguments, argv[0] being "bench"
 * @argv: the arguments
 *
 * Return: a process exit status (0 on success).
 */
int udmem_bench_main(int argc, char **argv);

/**
 * bench_json_put_string() - write a JSON string literal.
 * @f: where to write
 * @s: the text; '"', '\\' and control characters are escaped
 *
 * The bench's JSON lines and the tool's `--json` output share it.
 */
void bench_json_put_string(FILE *f, const char *s);

/**
 * bench_memtype_of() - the memory type of a mapping, from the page tables
 * @dev_path: /dev/<name> of a buffer or a region
 * @o_sync: map it as a file opened with O_SYNC does
 *
 * Needs tests/kmod/udmem-memtype.ko (/dev/udmem-memtype).  `udmem info`
 * and the bench share it.
 *
 * Return: "cacheable", "write-through", "normal-nc", "write-combine",
 * "device" or "other"; NULL with errno set when it cannot be read.
 */
const char *bench_memtype_of(const char *dev_path, bool o_sync);

#endif /* UDMEM_BENCH_H */
