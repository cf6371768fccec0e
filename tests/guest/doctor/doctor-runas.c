// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * doctor-runas.c - run a command as another user, for the doctor suite's
 * permission checks (busybox in the guests has no su): UID GID CMD [ARGS].
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: doctor-runas UID GID CMD [ARGS]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	gid = (gid_t)strtoul(argv[2], NULL, 10);
	if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
		perror("doctor-runas: dropping root");
		return 2;
	}
	if (getuid() != uid || geteuid() != uid) {
		fprintf(stderr, "doctor-runas: still uid %u\n", (unsigned int)geteuid());
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("doctor-runas: exec");
	return 127;
}
