/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cputime: run a command and report the CPU time it used, user and system.
 *
 * usage: cputime OUT CMD [ARG]...
 * Forks, execs CMD, waits with wait4() and writes the child's ru_utime and ru_stime (all its
 * threads) as "USER_S SYS_S", seconds with 6 decimals, on one line to OUT ('-': stderr).
 * CPU time counts what the process ran, not what it waited for: a hypervisor's steal time
 * and other tenants slow the wall clock, not this (the sum is exact; the kernel splits it
 * into user and system by sampling). Exits with the command's status (128+signal when
 * killed, 127 when it cannot be run). Used by bench/tiotest.sh and bench/fs_mark.sh.
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
		fprintf(stderr, "usage: cputime OUT CMD [ARG]...\n");
		return 2;
	}
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cputime: cannot run %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while ((w = wait4(pid, &status, 0, &ru)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		perror("cputime: wait4");
		return 127;
	}
	out = strcmp(argv[1], "-") ? fopen(argv[1], "w") : stderr;
	if (!out) {
		fprintf(stderr, "cputime: cannot write %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	fprintf(out, "%ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
		(long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
	if (out != stderr && fclose(out)) {
		fprintf(stderr, "cputime: cannot write %s: %s\n", argv[1], strerror(errno));
		return 127;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
