/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running an outside tool (a filesystem's checker, its free-space reporter) and measuring it:
 * posix_spawn of a program found by name in $PATH and the sbin directories, with an argv array
 * and no shell; standard input /dev/null; standard output and error captured together through
 * one pipe, in the order written, the first SPAWN_OUT_MAX bytes kept; every signal at its
 * default in the child; LC_ALL=C, so that what it prints parses. Timed: wall time
 * (CLOCK_MONOTONIC) from the spawn to the wait, CPU time and peak RSS of the child from wait4's
 * rusage. Never prints; 0 or -errno.
 *
 * The tool runs in a process group of its own, so that what it starts goes with it. It has
 * ended when it has exited AND its output is closed: a child it leaves behind holding the pipe
 * (a daemon) keeps it running. At the timeout, or when stop() says so, the whole group gets
 * SIGTERM (and SIGCONT, for a stopped one), then SIGKILL after the grace; reading stops once the
 * tool has exited and a grace has passed after the SIGKILL, even when a process that left the
 * group (setsid) still holds the pipe, so nothing outside can keep spawn_run waiting. Whatever
 * the tool left running in its group when it ended is killed too. The tool is reaped last, so
 * its process group id cannot be reused by another process while it is signalled. A stop is
 * noticed within 100 ms: after SIGINT, spawn_run returns within about that plus the grace. */
#ifndef FSB_SYS_SPAWN_H
#define FSB_SYS_SPAWN_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SPAWN_OUT_MAX (1u << 20)

#define SPAWN_GRACE_NS (500u * 1000 * 1000)   /* SIGTERM to SIGKILL, and SIGKILL to giving up */

struct spawn_opts {
	uint64_t timeout_ns;         /* 0: none; past it the tool's process group is killed */
	uint64_t grace_ns;           /* 0: SPAWN_GRACE_NS */
	bool (*stop)(void);          /* NULL, or asked while waiting: true kills the group */
};

struct spawn_result {
	char path[PATH_MAX];         /* the program that ran */
	pid_t pid;                   /* its pid and process group id (reaped: for tests) */
	int exit_code;               /* its exit status; -1 when a signal ended it */
	int signal;                  /* 0, or the signal that ended it */
	bool timed_out, stopped;     /* killed at the timeout / because stop() said so */
	bool out_held;               /* reading stopped with the pipe still open (a process that
				      * left the group holds it) */
	uint64_t wall_ns;
	double usr_s, sys_s;
	uint64_t max_rss_kib;
	char *out;                   /* what it wrote (stdout and stderr), NUL-terminated, malloc'd */
	size_t out_len;              /* kept */
	uint64_t out_total;          /* written */
};

/* prog's path: prog itself when it holds a '/', else the first executable regular file named
 * prog in $PATH, /usr/local/sbin, /usr/sbin, /sbin. 0, or -ENOENT. */
int spawn_find(const char *prog, char *path, size_t len);
/* Runs argv[0] (looked up with spawn_find) with argv. 0 when it ran, whatever its exit status
 * (r says); -ENOENT when it is not installed, another -errno when it could not be started. r is
 * always safe to spawn_result_free(). o may be NULL. */
int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r);
void spawn_result_free(struct spawn_result *r);
#endif
