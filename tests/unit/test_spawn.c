/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spawn: a tool run by argv without a shell, its output captured (both streams, in order),
 * its exit status, signal, timeout and stop, the C locale, and the lookup by name; the timeout
 * and the stop kill the tool's whole process group, within a bounded time, even when a child
 * of the tool holds its output or left the group. The tools are POSIX utilities every system
 * has (true, false, sh for a scripted child, sleep) and util-linux's setsid, procps' pgrep. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "sys/spawn.h"

#define MS (1000u * 1000)

static bool stop_now(void)
{
	return true;
}

/* true from stop_at on (CLOCK_MONOTONIC ns) */
static uint64_t stop_at;
static bool stop_later(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec >= stop_at;
}

/* Each prints the pid of a child it starts, then holds on. */
static const struct group_case {
	const char *what, *script;
	bool stop;                   /* stopped (as by SIGINT) rather than timed out */
	int exit_code, signal;       /* how the tool itself ended */
	bool escapes;                /* its child left the group: killed by the test itself */
} group_cases[] = {
	{ "a tool that sleeps", "sleep 30 & echo $!; wait", false, -1, SIGTERM, false },
	{ "a tool that ignores SIGTERM", "trap '' TERM; sleep 30 & echo $!; wait", false, -1, SIGKILL, false },
	{ "a tool that leaves a child holding its output", "sleep 30 & echo $!; exit 0", false, 0, 0, false },
	{ "the same, stopped", "sleep 30 & echo $!; exit 0", true, 0, 0, false },
	/* setsid(1) in a background job (not a group leader) calls setsid(2) itself: $! is it */
	{ "a child that left the group (setsid) holding the output", "setsid sleep 30 & echo $!; exit 0",
	  false, 0, 0, true },
};

/* pid (an orphan, so this process's child) has ended, or is killed here when it escaped */
static bool gone(pid_t pid, bool escaped)
{
	int status;

	if (escaped && kill(pid, SIGKILL) < 0)
		return false;
	for (int i = 0; i < 100; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			return WIFSIGNALED(status);
		if (w < 0)
			return errno == ECHILD && kill(pid, 0) < 0;
		usleep(10000);
	}
	return false;
}

int main(void)
{
	struct spawn_result r;
	char path[4096];

	/* the tools' orphans become this process's children, so that it can see them end */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return fprintf(stderr, "prctl: %s\n", strerror(errno)), 1;

	CHECK(spawn_find("sh", path, sizeof(path)) == 0 && path[0] == '/', "sh found: %s", path);
	CHECK(spawn_find("fsbench-no-such-tool", path, sizeof(path)) == -ENOENT, "missing tool: -ENOENT");
	CHECK(spawn_find("", path, sizeof(path)) == -ENOENT, "empty name");
	{
		const char *argv[] = { "fsbench-no-such-tool", NULL };

		CHECK(spawn_run(argv, NULL, &r) == -ENOENT, "not installed: -ENOENT");
		spawn_result_free(&r);
	}
	{
		const char *argv[] = { "true", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.exit_code == 0 && !r.signal && r.out_len == 0 &&
		      r.max_rss_kib > 0, "true: exit 0, no output, some RSS (%llu KiB)",
		      (unsigned long long)r.max_rss_kib);
		spawn_result_free(&r);
	}
	{
		const char *argv[] = { "false", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.exit_code == 1, "false: exit 1");
		spawn_result_free(&r);
	}
	{
		/* both streams through one pipe, in the order written; the argument is one argv
		 * element, never split or expanded by a shell of ours */
		const char *argv[] = { "sh", "-c", "echo out; echo err >&2; echo \"$1\"; echo \"$LC_ALL\"; exit 3", "sh",
				 "a b; $(x)", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.exit_code == 3, "exit 3: %d", r.exit_code);
		CHECK(r.out && !strcmp(r.out, "out\nerr\na b; $(x)\nC\n"), "output: '%s'", r.out ? r.out : "");
		CHECK(r.out_total == r.out_len && r.out_len == strlen(r.out), "lengths");
		spawn_result_free(&r);
	}
	{
		const char *argv[] = { "sh", "-c", "kill -TERM $$", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.signal == SIGTERM && r.exit_code == -1,
		      "killed by SIGTERM: signal %d, exit %d", r.signal, r.exit_code);
		spawn_result_free(&r);
	}
	{
		/* standard input is /dev/null: a tool that reads it ends */
		const char *argv[] = { "sh", "-c", "cat; echo done", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.out && !strcmp(r.out, "done\n"), "stdin empty");
		spawn_result_free(&r);
	}
	{
		const char *argv[] = { "sh", "-c", "exec sleep 30", NULL };
		struct spawn_opts o = { .timeout_ns = 200 * MS };

		CHECK(spawn_run(argv, &o, &r) == 0 && r.timed_out && r.signal == SIGTERM, "timeout: killed (%d)",
		      r.signal);
		spawn_result_free(&r);
		o = (struct spawn_opts){ .stop = stop_now };
		CHECK(spawn_run(argv, &o, &r) == 0 && r.stopped && !r.timed_out && r.signal == SIGTERM &&
		      r.wall_ns < 1000 * MS, "stop: killed at once (%d, %.3f s)", r.signal, (double)r.wall_ns / 1e9);
		spawn_result_free(&r);
	}
	/* The timeout and the whole group: each tool prints the pid of a child it starts, which
	 * must be gone when spawn_run returns (this process is their subreaper: orphans are its
	 * children, reaped here). The elapsed time is bounded by the timeout and two graces. */
	for (size_t i = 0; i < sizeof(group_cases) / sizeof(group_cases[0]); i++) {
		const struct group_case *g = &group_cases[i];
		const char *argv[] = { "sh", "-c", g->script, NULL };
		struct spawn_opts o = { .timeout_ns = g->stop ? 0 : 300 * MS, .stop = g->stop ? stop_later : NULL };
		uint64_t bound = 300 * MS + 2 * SPAWN_GRACE_NS + 1500 * MS;   /* slack for a loaded machine */
		struct timespec ts;
		pid_t child;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		stop_at = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec + 300 * MS;

		CHECK(spawn_run(argv, &o, &r) == 0, "%s: ran", g->what);
		child = r.out ? (pid_t)atoi(r.out) : 0;
		CHECK(r.timed_out == !g->stop && r.stopped == g->stop, "%s: %s reported", g->what,
		      g->stop ? "the stop" : "the timeout");
		CHECK(r.wall_ns >= 300 * MS && r.wall_ns < bound, "%s: %.3f s (bound %.3f s)",
		      g->what, (double)r.wall_ns / 1e9, (double)bound / 1e9);
		CHECK(r.exit_code == g->exit_code && r.signal == g->signal, "%s: exit %d signal %d", g->what,
		      r.exit_code, r.signal);
		CHECK(r.out_held == g->escapes, "%s: output %s", g->what, r.out_held ? "still held" : "closed");
		CHECK(child > 1 && gone(child, g->escapes), "%s: its child %d is gone", g->what, (int)child);
		CHECK(kill(-r.pid, 0) < 0 && errno == ESRCH, "%s: no process left in group %d", g->what, (int)r.pid);
		spawn_result_free(&r);
	}
	{
		/* more than is kept: counted */
		const char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 70 ]; do head -c 16384 /dev/zero; i=$((i+1)); done", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.out_total == 70 * 16384 && r.out_len == SPAWN_OUT_MAX,
		      "kept %zu of %llu", r.out_len, (unsigned long long)r.out_total);
		spawn_result_free(&r);
	}
	return check_done("test_spawn");
}
