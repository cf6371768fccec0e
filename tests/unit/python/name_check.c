// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * name_check.c - print "1 NAME" or "0 NAME" for each line of stdin, as
 * libudmem's udmem_name_valid() judges it, so that the Python package's
 * check_name() can be compared with it.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int main(void)
{
	char line[256];

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = '\0';
		printf("%d %s\n", udmem_name_valid(line), line);
	}
	return 0;
}
