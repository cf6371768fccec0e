// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * udmabuf-hold - keep a u-dma-buf buffer busy for lifetime tests.
 *
 *	udmabuf-hold NAME open|mmap|export READYFILE
 *
 * open: keeps /dev/NAME open; mmap: maps the first page, fills it with a
 * pattern and closes the fd; export: exports the first page as a dma-buf
 * and closes the device fd.  Then creates READYFILE and waits for SIGUSR1
 * (or SIGTERM: exit 0 at once).  On SIGUSR1 in mmap mode it reads the
 * mapping back: exit 0 if the data is intact, 3 if it changed; SIGBUS kills
 * it (status 128 + SIGBUS in the shell).  Other modes exit 0.
 */
#include <signal.h>

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "udmabuf-abi.h"
#include "ut.h"

static volatile sig_atomic_t ut_go;

static void ut_on_usr1(int sig)
{
	(void)sig;
	ut_go = 1;
}

int main(int argc, char **argv)
{
	struct ut_export_args a;
	long pg = sysconf(_SC_PAGESIZE);
	char path[256];
	char *p = NULL;
	int fd, rfd;

	if (argc != 4)
		return 2;
	signal(SIGUSR1, ut_on_usr1);
	snprintf(path, sizeof(path), "/dev/%s", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror(path);
		return 2;
	}
	if (!strcmp(argv[2], "mmap")) {
		p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 2;
		}
		ut_fill(p, pg, 0, 4242);
		close(fd);
	} else if (!strcmp(argv[2], "export")) {
		memset(&a, 0, sizeof(a));
		a.flags = O_RDWR;
		a.size = pg;
		if (ioctl(fd, UT_EXPORT, &a) < 0) {
			perror("export");
			return 2;
		}
		close(fd);
	}
	rfd = open(argv[3], O_WRONLY | O_CREAT, 0644);
	if (rfd >= 0)
		close(rfd);
	while (!ut_go)
		pause();
	if (p && ut_check(p, pg, 0, 4242) >= 0)
		return 3;
	return 0;
}
