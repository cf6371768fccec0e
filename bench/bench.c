// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * bench.c - `udmem bench` entry point.
 */
#include <stdio.h>

#include "bench.h"

int udmem_bench_main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "udmem bench: not implemented yet\n");
	return 1;
}
