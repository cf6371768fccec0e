// SPDX-License-Identifier: GPL-2.0 OR MIT
/* bench_main.c - `udmem bench` alone, for host tests of its output. */
#include "bench.h"

int main(int argc, char **argv)
{
	return udmem_bench_main(argc, argv);
}
