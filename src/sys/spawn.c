/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An outside tool run by argv, captured and measured (sys/spawn.h). */
#include "sys/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static bool executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int spawn_find(const char *prog, char *path, size_t len)
{
	static const char sbin[] = "/usr/local/sbin:/usr/sbin:/sbin";
	const char *env = getenv("PATH");

	if (!*prog)
		return -ENOENT;
	if (strchr(prog, '/')) {
		snprintf(path, len, "%s", prog);
		return executable(path) ? 0 : -ENOENT;
	}
	for (int pass = 0; pass < 2; pass++) {
		const char *p = pass ? sbin : env ? env : "";

		while (*p) {
			size_t n = strcspn(p, ":");

			/* an empty entry or a relative one would be the working directory: not that */
			if (n && p[0] == '/' && n + strlen(prog) + 2 <= len) {
				snprintf(path, len, "%.*s/%s", (int)n, p, prog);
				if (executable(path))
					return 0;
			}
			p += n + (p[n] == ':');
		}
	}
	return -ENOENT;
}

/* environ without the locale variables, then LC_ALL=C: the tools' messages as parsed */
static char **c_locale_env(void)
{
	size_t n = 0, k = 0;
	static char c_all[] = "LC_ALL=C";
	char **e;

	while (environ[n])
		n++;
	e = calloc(n + 2, sizeof(*e));
	if (!e)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LC_", 3) && strncmp(environ[i], "LANG=", 5) &&
		    strncmp(environ[i], "LANGUAGE=", 9))
			e[k++] = environ[i];
	e[k] = c_all;
	return e;
}

static int start(const char *const argv[], struct spawn_result *r, int *rfd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t all, none;
	char **env = c_locale_env();
	int p[2], rc;

	if (!env)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) < 0) {
		rc = -errno;
		free(env);
		return rc;
	}
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	/* fsbench's handlers and ignored signals (SIGPIPE) are not the tool's */
	if (!rc)
		rc = posix_spawnattr_setsigdefault(&at, &all);
	if (!rc)
		rc = posix_spawnattr_setsigmask(&at, &none);
	/* a group of its own: what the tool starts can be killed with it, and a terminal's ^C
	 * reaches fsbench alone, which stops the tool itself */
	if (!rc)
		rc = posix_spawnattr_setpgroup(&at, 0);
	if (!rc)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETPGROUP);
	if (!rc) {
		/* what this process has buffered comes before what the tool writes */
		fflush(NULL);
		/* posix_spawn's argv is char *const [] for historical reasons; it never writes
		 * the strings (POSIX, exec's rationale) */
		rc = posix_spawn(pid, r->path, &fa, &at, (char *const *)argv, env);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	free(env);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return -rc;
	}
	*rfd = p[0];
	return 0;
}

/* The tool has exited: left a zombie, not reaped, so that its pid, which is its process
 * group's id, stays its own while the group is signalled. */
static bool exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		if (errno != EINTR)
			return true;    /* ECHILD: nothing left to wait for */
	return si.si_pid == pid;
}

static void keep(struct spawn_result *r, size_t *cap, const char *buf, size_t n)
{
	r->out_total += n;
	if (r->out_len + n > SPAWN_OUT_MAX)
		n = SPAWN_OUT_MAX - r->out_len;
	if (r->out_len + n + 1 > *cap) {
		size_t ncap = *cap;
		char *nb;

		while (r->out_len + n + 1 > ncap)
			ncap *= 2;
		if (!(nb = realloc(r->out, ncap)))
			return;         /* out of memory: the rest is counted, not kept */
		r->out = nb;
		*cap = ncap;
	}
	memcpy(r->out + r->out_len, buf, n);
	r->out_len += n;
	r->out[r->out_len] = '\0';
}

static int ms_until(uint64_t now, uint64_t when)
{
	return when <= now ? 0 : (int)((when - now + 999999) / 1000000);
}

int spawn_run(const char *const argv[], const struct spawn_opts *o, struct spawn_result *r)
{
	static const struct spawn_opts none = { 0 };
	enum { RUNNING, TERMED, KILLED } state = RUNNING;
	uint64_t t0, grace, t_kill = 0;
	size_t cap = 4096;
	struct rusage ru;
	bool done = false, eof = false;
	pid_t pid;
	int fd = -1, rc, status;

	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
	if (!o)
		o = &none;
	grace = o->grace_ns ? o->grace_ns : SPAWN_GRACE_NS;
	if ((rc = spawn_find(argv[0], r->path, sizeof(r->path))))
		return rc;
	if (!(r->out = malloc(cap)))
		return -ENOMEM;
	r->out[0] = '\0';
	t0 = now_ns();
	if ((rc = start(argv, r, &fd, &pid)))
		return rc;
	r->pid = pid;
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		int wait_ms = 100;
		char buf[16384];
		ssize_t n;

		done = done || exited(pid);
		if (done && eof)
			break;
		if (state == RUNNING) {
			r->stopped = o->stop && o->stop();
			r->timed_out = !r->stopped && o->timeout_ns && now - t0 >= o->timeout_ns;
			if (r->stopped || r->timed_out) {
				killpg(pid, SIGTERM);
				killpg(pid, SIGCONT);
				state = TERMED;
				t_kill = now;
			} else if (o->timeout_ns && ms_until(now, t0 + o->timeout_ns) < wait_ms) {
				wait_ms = ms_until(now, t0 + o->timeout_ns);
			}
		}
		if (state == TERMED && now - t_kill >= grace) {
			killpg(pid, SIGKILL);
			state = KILLED;
			t_kill = now;
		}
		if (state == KILLED && done && now - t_kill >= grace) {
			r->out_held = !eof;   /* held by a process outside the group: not ours to wait for */
			break;
		}
		if (state != RUNNING && ms_until(now, t_kill + grace) < wait_ms)
			wait_ms = ms_until(now, t_kill + grace) + 1;
		if (eof) {
			/* the output is closed, the tool still runs: poll cannot wait for its exit */
			const struct timespec tick = { 0, (long)(wait_ms < 10 ? wait_ms : 10) * 1000000 };

			nanosleep(&tick, NULL);
			continue;
		}
		if (poll(&pfd, 1, wait_ms) <= 0)
			continue;       /* EINTR (a signal: stop() says) or time */
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			eof = true;     /* every writer closed its end */
		else
			keep(r, &cap, buf, (size_t)n);
	}
	/* what the tool left running in its group goes with it */
	killpg(pid, SIGKILL);
	close(fd);
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	r->wall_ns = now_ns() - t0;
	r->usr_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	r->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	r->max_rss_kib = (uint64_t)ru.ru_maxrss;
	if (WIFEXITED(status))
		r->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	return 0;
}

void spawn_result_free(struct spawn_result *r)
{
	free(r->out);
	r->out = NULL;
	r->out_len = 0;
}
