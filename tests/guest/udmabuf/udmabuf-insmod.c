// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-insmod - load a module and report the exact errno, which busybox
 * insmod hides behind a message.
 *
 *	udmabuf-insmod MODULE.ko [param=value ...]
 *
 * Prints "ok" (exit 0) or "errno NAME" (exit 1), e.g. "errno EINVAL".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *ut_errno_name(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case ENODEV: return "ENODEV";
	case ENOENT: return "ENOENT";
	case EEXIST: return "EEXIST";
	case EBUSY: return "EBUSY";
	case ERANGE: return "ERANGE";
	case E2BIG: return "E2BIG";
	case ENOSPC: return "ENOSPC";
	case EFBIG: return "EFBIG";
	case ENXIO: return "ENXIO";
	default: return "other";
	}
}

int main(int argc, char **argv)
{
	char params[4096] = "";
	size_t used = 0;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: %s MODULE.ko [param=value ...]\n", argv[0]);
		return 2;
	}
	for (i = 2; i < argc; i++) {
		int n = snprintf(params + used, sizeof(params) - used, "%s%s",
				 used ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(params) - used) {
			fprintf(stderr, "parameters too long\n");
			return 2;
		}
		used += n;
	}
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		printf("cannot open %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	if (syscall(SYS_finit_module, fd, params, 0) != 0) {
		int e = errno;

		printf("errno %s (%d: %s)\n", ut_errno_name(e), e, strerror(e));
		close(fd);
		return 1;
	}
	close(fd);
	printf("ok\n");
	return 0;
}
