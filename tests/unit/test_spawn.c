/* spawn: a tool run by argv without a shell, its output captured (both streams, in order),
 * its exit status, signal, timeout and stop, the C locale, and the lookup by name. The tools
 * are POSIX utilities every system has (true, false, sh for a scripted child). */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sys/spawn.h"

static bool stop_now(void)
{
	return true;
}

int main(void)
{
	struct spawn_result r;
	char path[4096];

	CHECK(spawn_find("sh", path, sizeof(path)) == 0 && path[0] == '/', "sh found: %s", path);
	CHECK(spawn_find("fsbench-no-such-tool", path, sizeof(path)) == -ENOENT, "missing tool: -ENOENT");
	CHECK(spawn_find("", path, sizeof(path)) == -ENOENT, "empty name");
	{
		char *argv[] = { "fsbench-no-such-tool", NULL };

		CHECK(spawn_run(argv, NULL, &r) == -ENOENT, "not installed: -ENOENT");
		spawn_result_free(&r);
	}
	{
		char *argv[] = { "true", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.exit_code == 0 && !r.signal && r.out_len == 0 &&
		      r.max_rss_kib > 0, "true: exit 0, no output, some RSS (%llu KiB)",
		      (unsigned long long)r.max_rss_kib);
		spawn_result_free(&r);
	}
	{
		char *argv[] = { "false", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.exit_code == 1, "false: exit 1");
		spawn_result_free(&r);
	}
	{
		/* both streams through one pipe, in the order written; the argument is one argv
		 * element, never split or expanded by a shell of ours */
		char *argv[] = { "sh", "-c", "echo out; echo err >&2; echo \"$1\"; echo \"$LC_ALL\"; exit 3", "sh",
				 "a b; $(x)", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.exit_code == 3, "exit 3: %d", r.exit_code);
		CHECK(r.out && !strcmp(r.out, "out\nerr\na b; $(x)\nC\n"), "output: '%s'", r.out ? r.out : "");
		CHECK(r.out_total == r.out_len && r.out_len == strlen(r.out), "lengths");
		spawn_result_free(&r);
	}
	{
		char *argv[] = { "sh", "-c", "kill -TERM $$", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.signal == SIGTERM && r.exit_code == -1,
		      "killed by SIGTERM: signal %d, exit %d", r.signal, r.exit_code);
		spawn_result_free(&r);
	}
	{
		/* standard input is /dev/null: a tool that reads it ends */
		char *argv[] = { "sh", "-c", "cat; echo done", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.out && !strcmp(r.out, "done\n"), "stdin empty");
		spawn_result_free(&r);
	}
	{
		char *argv[] = { "sh", "-c", "exec sleep 30", NULL };
		struct spawn_opts o = { .timeout_ns = 200 * 1000 * 1000 };

		CHECK(spawn_run(argv, &o, &r) == 0 && r.timed_out && r.signal == SIGKILL, "timeout: killed");
		spawn_result_free(&r);
		o = (struct spawn_opts){ .stop = stop_now };
		CHECK(spawn_run(argv, &o, &r) == 0 && r.stopped && !r.timed_out && r.signal == SIGKILL,
		      "stop: killed");
		spawn_result_free(&r);
	}
	{
		/* more than is kept: counted */
		char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 70 ]; do head -c 16384 /dev/zero; i=$((i+1)); done", NULL };

		CHECK(spawn_run(argv, NULL, &r) == 0 && r.out_total == 70 * 16384 && r.out_len == SPAWN_OUT_MAX,
		      "kept %zu of %llu", r.out_len, (unsigned long long)r.out_total);
		spawn_result_free(&r);
	}
	return check_done("test_spawn");
}
