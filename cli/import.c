// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * import.c - "udmem import": attach a DMA-BUF the tool inherited to a
 * buffer's device and print its DMA address; with a command after "--",
 * hold the import while the command runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const char cli_import_help[] =
	"Usage: udmem import NAME --fd N [--dir DIR] [-- COMMAND [ARG...]]\n\n"
	"Attach the DMA-BUF open as descriptor N (inherited from the caller) to\n"
	"buffer NAME's device, map it and print its DMA address and size:\n"
	"  addr 0x<hex>\n  size <bytes>\n"
	"The DMA-BUF must be one DMA range for that device.  Without a command\n"
	"the import ends when udmem exits; with one, it is held while COMMAND\n"
	"runs, with UDMEM_IMPORT_ADDR and UDMEM_IMPORT_SIZE in its environment,\n"
	"and udmem exits with COMMAND's status.\n"
	"  --fd N     the DMA-BUF descriptor (required)\n"
	"  --dir DIR  bidirectional (default), to-device or from-device\n";

static const char *const cli_import_dirs[] = {
	[UDMEM_DIR_BIDIRECTIONAL] = "bidirectional",
	[UDMEM_DIR_TO_DEVICE] = "to-device",
	[UDMEM_DIR_FROM_DEVICE] = "from-device",
};

/**
 * cli_run_with() - run a command for `udmem import -- CMD` and `udmem export -- CMD`
 * @cmd: the command and its arguments, NULL-terminated
 * @names: @n environment variables to set for it
 * @values: their values
 * @n: how many
 * @fd: a descriptor the command inherits as number @to, or -1; closed here
 *	once the command holds it
 * @to: the number the command sees @fd as
 *
 * Return: the command's exit status, or CLI_EXIT_FAIL when it could not
 * run or died of a signal.
 */
int cli_run_with(char **cmd, const char *const *names, char *const *values, int n,
		 int fd, int to)
{
	int status, i;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		cli_error(cmd[0], "fork", -errno);
		return CLI_EXIT_FAIL;
	}
	if (pid == 0) {
		/* dup2() clears O_CLOEXEC on the copy; the same number keeps it. */
		if (fd >= 0 && (fd == to ? fcntl(to, F_SETFD, 0) : dup2(fd, to)) < 0) {
			cli_error(cmd[0], "pass the DMA-BUF", -errno);
			_exit(127);
		}
		for (i = 0; i < n; i++)
			setenv(names[i], values[i], 1);
		execvp(cmd[0], cmd);
		cli_error(cmd[0], "exec", -errno);
		_exit(127);
	}
	if (fd >= 0)
		close(fd);
	if (waitpid(pid, &status, 0) < 0) {
		cli_error(cmd[0], "wait", -errno);
		return CLI_EXIT_FAIL;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : CLI_EXIT_FAIL;
}

static int cli_import_run(char **cmd, uint64_t addr, uint64_t size)
{
	static const char *const names[] = { "UDMEM_IMPORT_ADDR", "UDMEM_IMPORT_SIZE" };
	char text[2][32];
	char *const values[] = { text[0], text[1] };

	snprintf(text[0], sizeof(text[0]), "0x%" PRIx64, addr);
	snprintf(text[1], sizeof(text[1]), "%" PRIu64, size);
	return cli_run_with(cmd, names, values, 2, -1, -1);
}

int cli_cmd_import(int argc, char **argv)
{
	struct cli_opt opts[] = { { "fd", NULL, 0 }, { "dir", NULL, 0 } };
	int ret, npos, dir = UDMEM_DIR_BIDIRECTIONAL, nargs, ifd;
	struct udmem_buffer *buf;
	uint64_t addr = 0, size = 0;
	char **cmd = NULL, *pos[1], *end;
	long fd = -1;

	/* Everything after the first "--" is the command. */
	for (nargs = 1; nargs < argc; nargs++) {
		if (!strcmp(argv[nargs], "--")) {
			cmd = argv + nargs + 1;
			break;
		}
	}
	ret = cli_parse_args("import", nargs, argv, opts, 2, pos, 1, &npos);
	if (ret || npos != 1 || !opts[0].value || (cmd && !cmd[0])) {
		if (!ret)
			cli_usage_error("import", npos != 1 ? "expected one NAME" :
					!opts[0].value ? "--fd N is required" :
					"no command after '--'");
		fputs(cli_import_help, ret > 0 ? stdout : stderr);
		return ret > 0 ? CLI_EXIT_OK : CLI_EXIT_USAGE;
	}
	errno = 0;
	fd = strtol(opts[0].value, &end, 10);
	if (errno || *end || end == opts[0].value || fd < 0 || fd > INT32_MAX) {
		cli_usage_error("import", "bad --fd '%s'", opts[0].value);
		return CLI_EXIT_USAGE;
	}
	if (opts[1].value) {
		dir = cli_lookup(cli_import_dirs, 3, opts[1].value);
		if (dir < 0) {
			cli_usage_error("import", "bad --dir '%s' (%s, %s, %s)", opts[1].value,
					cli_import_dirs[0], cli_import_dirs[1], cli_import_dirs[2]);
			return CLI_EXIT_USAGE;
		}
	}
	ret = udmem_buffer_open(pos[0], 0, &buf);
	if (ret) {
		cli_open_error(pos[0], ret);
		return CLI_EXIT_FAIL;
	}
	ifd = udmem_buffer_import_dmabuf(buf, (int)fd, dir, &addr, &size);
	if (ifd < 0) {
		cli_error(pos[0], "import", ifd);
		udmem_buffer_close(buf);
		return CLI_EXIT_FAIL;
	}
	printf("addr 0x%" PRIx64 "\nsize %" PRIu64 "\n", addr, size);
	ret = cmd ? cli_import_run(cmd, addr, size) : CLI_EXIT_OK;
	close(ifd);
	udmem_buffer_close(buf);
	return ret;
}
