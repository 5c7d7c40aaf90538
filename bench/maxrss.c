/* SPDX-License-Identifier: GPL-2.0-or-later */
/* maxrss: run a command and report its peak resident set size.
 *
 * usage: maxrss OUT CMD [ARG]...
 * Forks, execs CMD, waits with wait4() and writes the child's ru_maxrss (KiB, the kernel's
 * high-water mark of the process's RSS, as VmHWM) as one decimal line to OUT ('-': stderr).
 * Exits with the command's status (128+signal when killed, 127 when it cannot be run).
 * Used by bench/memory.sh and tests/cli/t1900-memory-flat.sh; no dependency beyond libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid, w;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: maxrss OUT CMD [ARG]...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "maxrss: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		perror("maxrss: wait4");
		return 127;
	}
	out = strcmp(argv[1], "-") ? fopen(argv[1], "w") : stderr;
	if (!out) {
		fprintf(stderr, "maxrss: cannot write %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	fprintf(out, "%ld\n", ru.ru_maxrss);
	if (out != stderr && fclose(out)) {
		fprintf(stderr, "maxrss: cannot write %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
