/* Running an outside tool (a filesystem's checker, its free-space reporter) and measuring it:
 * posix_spawn of a program found by name in $PATH and the sbin directories, with an argv array
 * and no shell; standard input /dev/null; standard output and error captured together through
 * one pipe, in the order written, the first SPAWN_OUT_MAX bytes kept; every signal at its
 * default in the child; LC_ALL=C, so that what it prints parses. Timed: wall time
 * (CLOCK_MONOTONIC) from the spawn to the wait, CPU time and peak RSS of the child from wait4's
 * rusage. Never prints; 0 or -errno. */
#ifndef FSB_SYS_SPAWN_H
#define FSB_SYS_SPAWN_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPAWN_OUT_MAX (1u << 20)

struct spawn_opts {
	uint64_t timeout_ns;         /* 0: none; past it the child is killed (SIGKILL) */
	bool (*stop)(void);          /* NULL, or asked while waiting: true kills the child */
};

struct spawn_result {
	char path[PATH_MAX];         /* the program that ran */
	int exit_code;               /* its exit status; -1 when a signal ended it */
	int signal;                  /* 0, or the signal that ended it */
	bool timed_out, stopped;     /* killed at the timeout / because stop() said so */
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
int spawn_run(char *const argv[], const struct spawn_opts *o, struct spawn_result *r);
void spawn_result_free(struct spawn_result *r);
#endif
