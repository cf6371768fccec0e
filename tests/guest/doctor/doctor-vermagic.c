// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * doctor-vermagic.c - copy a module file with the release in its vermagic
 * changed (its first character), as a module built for another kernel
 * carries: IN OUT.  Prints the new release.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	static const char key[] = "vermagic=";
	char *data, *p, *end;
	FILE *in, *out;
	long len;

	if (argc != 3) {
		fprintf(stderr, "usage: doctor-vermagic IN OUT\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in || fseek(in, 0, SEEK_END)) {
		perror(argv[1]);
		return 1;
	}
	len = ftell(in);
	if (len <= 0 || fseek(in, 0, SEEK_SET)) {
		perror(argv[1]);
		return 1;
	}
	data = malloc((size_t)len + 1);
	if (!data || fread(data, 1, (size_t)len, in) != (size_t)len) {
		perror(argv[1]);
		return 1;
	}
	fclose(in);
	data[len] = '\0';
	end = data + len;
	for (p = data; p < end; p++) {
		p = memmem(p, (size_t)(end - p), key, sizeof(key) - 1);
		if (!p || p == data || p[-1] == '\0')
			break;
	}
	if (!p || p >= end) {
		fprintf(stderr, "%s: no vermagic=\n", argv[1]);
		return 1;
	}
	p += sizeof(key) - 1;
	*p = *p == '9' ? '1' : (char)(*p + 1);
	out = fopen(argv[2], "wb");
	if (!out || fwrite(data, 1, (size_t)len, out) != (size_t)len || fclose(out)) {
		perror(argv[2]);
		return 1;
	}
	printf("%.*s\n", (int)strcspn(p, " "), p);
	free(data);
	return 0;
}
