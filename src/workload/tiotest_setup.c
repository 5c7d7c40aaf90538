/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's setup: the test files (or -R's device regions), --between-phases and the queued
 * path's engine contexts. */
#include "workload/tiotest_int.h"

int tio_drop_caches(void)
{
	int fd, rc = 0;

	/* drop_caches only drops clean pages: write back first, and do it before the window opens
	 * (tiotest does it inside the window, in every thread, while others already run) */
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, "3", 1) != 1)
		rc = -errno;
	close(fd);
	return rc;
}

int tio_list_create(const struct tio_config *c, const struct tio_thread *th, struct tio_list *l)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;
	FILE *f;
	int fd, rc = 0;

	if (!tmp || tmp[0] != '/' || strlen(tmp) + 32 >= sizeof(l->dir))
		tmp = "/tmp";
	snprintf(l->dir, sizeof(l->dir), "%s/fsbench-files.XXXXXX", tmp);
	if (!mkdtemp(l->dir)) {
		rc = -errno;
		l->dir[0] = '\0';
		return rc;
	}
	rc = lstat(l->dir, &st) < 0 ? -errno : cleanup_add(l->dir, &st);
	if (rc) {
		rmdir(l->dir);
		l->dir[0] = '\0';
		return rc;
	}
	snprintf(l->path, sizeof(l->path), "%s/files", l->dir);
	fd = cleanup_create_file(l->path, O_WRONLY, 0600);
	if (fd < 0) {
		l->path[0] = '\0';
		return fd;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < c->threads; i++)
		fprintf(f, "%s\n", th[i].path);
	if (fflush(f) || ferror(f))
		rc = -(errno ? errno : EIO);
	if (fclose(f) && !rc)
		rc = -(errno ? errno : EIO);
	return rc;
}

void tio_list_remove(struct tio_list *l)
{
	if (l->path[0])
		cleanup_remove_now(l->path);
	if (l->dir[0])
		cleanup_remove_now(l->dir);
	l->path[0] = l->dir[0] = '\0';
}

/* waits for the command; a signal that stops the run stops it too (SIGTERM), so a hook that
 * waits (a sleep, a hung remount) does not hold the clean-up back. -EINTR: stopped that way. */
static int wait_between(pid_t pid)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	bool killed = false;
	int status;

	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (run_stopping() && !killed) {
			kill(pid, SIGTERM);
			killed = true;
		}
		/* polled, not a blocking waitpid: a signal that lands just before the wait
		 * would not interrupt it */
		nanosleep(&tick, NULL);
	}
	if (killed)
		return -EINTR;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECANCELED;
}

/* NAME=VALUE, or NULL (asprintf leaves its pointer undefined on failure) */
static char *env_var(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) < 0 ? NULL : s;
}

int tio_run_between(const struct tio_config *c, enum tio_phase done, int next,
		       struct tio_thread *th, const struct tio_list *list)
{
	char sh[] = "sh", dash_c[] = "-c";
	char *argv[] = { sh, dash_c, (char *)c->between, NULL };
	size_t flen = 1;
	char *files, *e[4] = { NULL, NULL, NULL, NULL };
	char **envp;
	size_t n = 0;
	posix_spawn_file_actions_t fa;
	int rc;
	pid_t pid;

	for (unsigned i = 0; i < c->threads; i++)
		flen += strlen(th[i].path) + 1;
	files = calloc(1, flen + 16);
	for (unsigned i = 0; files && i < c->threads; i++) {
		strcat(files, i ? " " : "");
		strcat(files, th[i].path);
	}
	while (environ[n])
		n++;
	envp = calloc(n + 5, sizeof(*envp));
	e[0] = env_var("FSBENCH_PHASE_DONE", tio_phase_name[done]);
	e[1] = env_var("FSBENCH_PHASE_NEXT", next >= 0 ? tio_phase_name[next] : "");
	e[2] = files ? env_var("FSBENCH_FILES", files) : NULL;
	e[3] = env_var("FSBENCH_FILES_LIST", list->path);
	if (!envp || !e[0] || !e[1] || !e[2] || !e[3]) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(envp, environ, n * sizeof(*envp));
	memcpy(envp + n, e, sizeof(e));
	rc = posix_spawn_file_actions_init(&fa);
	if (rc) {
		rc = -rc;
		goto out;
	}
	/* --json -: stdout is the JSON's alone, so the command's stdout goes to stderr */
	if (c->json_stdout)
		rc = posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
	/* what this process has written so far comes before what the command writes */
	fflush(NULL);
	if (!rc)
		rc = posix_spawn(&pid, "/bin/sh", &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	rc = rc ? -rc : wait_between(pid);
out:
	for (int i = 0; i < 4; i++)
		free(e[i]);
	free(envp);
	free(files);
	return rc;
}

/* The queued path's context and slots for one thread: 0 or -errno (recorded). */
static int queue_setup(const struct tio_config *c, struct tio_thread *t)
{
	const unsigned depth = tio_depth(c);
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const size_t stride = (c->block_bytes + page - 1) / page * page;
	int rc = engine_ctx_init_opts(&t->ctx, &c->eng, depth);

	if (rc) {
		run_fail_msg(-rc, "cannot set up the %s engine: %s", c->eng.ops->name, strerror(-rc));
		return rc;
	}
	t->slots = calloc(depth, sizeof(*t->slots));
	t->free_slots = calloc(depth, sizeof(*t->free_slots));
	t->sub = calloc(depth, sizeof(*t->sub));
	t->done = calloc(depth, sizeof(*t->done));
	if (!t->slots || !t->free_slots || !t->sub || !t->done ||
	    posix_memalign(&t->qbuf, page, stride * depth))
		return -ENOMEM;
	memset(t->qbuf, 0, stride * depth);
	for (unsigned k = 0; k < depth; k++)
		t->slots[k].buf = (unsigned char *)t->qbuf + k * stride;
	if (c->eng.ops->buffers && (rc = c->eng.ops->buffers(&t->ctx, t->qbuf, stride * depth))) {
		run_fail_msg(-rc, "cannot register the buffers with the %s engine: %s", c->eng.ops->name,
			     strerror(-rc));
		return rc;
	}
	return 0;
}

/* A phase's worker makes its thread's engine state its own (io_uring: the ring) before the
 * release: 0 or -errno (recorded). */
int tio_prepare(struct worker *w)
{
	struct tio_worker *tw = w->ctx;
	int rc = engine_ctx_attach(&tw->t->ctx);

	if (rc)
		run_fail_msg(-rc, "cannot set up the %s engine: %s", tw->c->eng.ops->name, strerror(-rc));
	return rc;
}

void tio_queue_free(struct tio_thread *t)
{
	engine_ctx_exit(&t->ctx);
	free(t->slots);
	free(t->free_slots);
	free(t->sub);
	free(t->done);
	free(t->qbuf);
}

/* O_DIRECT refuses a block size that is not a multiple of the device's logical block size at
 * the first transfer, not at open: one transfer of the thread's first block finds out now,
 * before any phase. On a test file a write of the zeros it already holds (a read of a hole is
 * not checked); on a device, whose data is not ours until the write phase, a read. The offsets
 * are base + multiples of -b, and base is whole MiB, so the first block stands for all.
 * Closes fd; 0, or -EOPNOTSUPP with the error recorded. */
static int direct_aligned(const struct tio_config *c, const struct tio_thread *t, int fd,
			  const char *dir)
{
	ssize_t n = c->raw ? pread(fd, t->buf, c->block_bytes, (off_t)t->base) :
			     pwrite(fd, t->buf, c->block_bytes, 0);
	int err = errno;

	close(fd);
	if (n >= 0 || err != EINVAL)
		return 0;
	run_fail_msg(EOPNOTSUPP, "O_DIRECT on '%s' refuses %llu-byte blocks (-b): the block size "
		     "must be a multiple of the device's logical block size", dir,
		     (unsigned long long)c->block_bytes);
	return -EOPNOTSUPP;
}

/* -R: each device is opened once with O_EXCL, and held so until the end of the run (excl[d]
 * for -d number d): a mount, or another fsbench -R run, cannot take it in the meantime (EBUSY:
 * exit status 3). Threads past the first on a device share its claim. */
/* -R: thread i's region of its device, the device held O_EXCL for the run (excl[], one per
 * -R), and O_DIRECT tried now rather than as a failed run */
static int setup_region(const struct tio_config *c, struct tio_thread *t, unsigned i, int *excl)
{
	const char *dir = c->dirs.v[i % c->dirs.n];
	/* thread k on a device starts at k*(f+o) MiB, plus o with -O (tiotest -o/-O) */
	uint64_t k = i / c->dirs.n, dev_bytes = 0;
	struct stat st;
	int fd;

	snprintf(t->path, sizeof(t->path), "%s", dir);
	t->base = k * (c->file_bytes + c->raw_offset_bytes) +
		  (c->raw_offset_first ? c->raw_offset_bytes : 0);
	fd = excl[i % c->dirs.n];
	if (fd < 0) {
		fd = open(dir, O_RDONLY | O_CLOEXEC | O_EXCL);
		if (fd < 0) {
			int err = errno;

			run_fail_msg(err, "cannot use '%s': %s%s", dir, strerror(err),
				     err == EBUSY ? " (mounted, or in use by another program or "
				     "fsbench -R run)" : "");
			return -err;
		}
		excl[i % c->dirs.n] = fd;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	t->rdev = st.st_rdev;
	if (ioctl(fd, BLKGETSIZE64, &dev_bytes) < 0)
		dev_bytes = 0;
	if (t->base + c->blocks * c->block_bytes > dev_bytes) {
		run_fail_msg(ENOSPC, "device '%s' (%llu bytes) is too small for thread %u's "
			     "region ending at byte %llu", dir, (unsigned long long)dev_bytes, i,
			     (unsigned long long)(t->base + c->blocks * c->block_bytes));
		return -ENOSPC;
	}
	if (c->direct) {
		int dfd = open(dir, O_RDONLY | O_DIRECT | O_CLOEXEC);

		if (dfd < 0) {
			int err = errno;

			run_fail_msg(err == EINVAL ? EOPNOTSUPP : err,
				     "O_DIRECT is not supported on '%s': %s", dir, strerror(err));
			return err == EINVAL ? -EOPNOTSUPP : -err;
		}
		if ((dfd = direct_aligned(c, t, dfd, dir)) < 0)
			return dfd;
	}
	return 0;
}

int tio_setup_threads(struct driver *d, const struct tio_config *c, struct tio_thread *th, int pid,
			 int *excl)
{
	for (unsigned i = 0; i < c->threads; i++) {
		struct tio_thread *t = &th[i];
		const char *dir = c->dirs.v[i % c->dirs.n];
		long page = sysconf(_SC_PAGESIZE);
		struct stat st;
		int fd, rc;

		if (posix_memalign(&t->buf, (size_t)page, c->block_bytes))
			return -ENOMEM;
		memset(t->buf, 0, c->block_bytes);
		if (c->verify && !(t->gen = calloc(c->blocks / 8 + 1, 1)))
			return -ENOMEM;
		if (tio_queued(c) && (rc = queue_setup(c, t)))
			return rc;
		if (c->raw) {
			if ((rc = setup_region(c, t, i, excl)))
				return rc;
			continue;
		}
		/* keep the original name so scripts that look for the files still find them; the
		 * thread's number is the job's (a job's processes may share a directory and a pid) */
		snprintf(t->path, sizeof(t->path), "%s/_tiotest_pid%d.thr%u", dir, pid,
			 c->run.proc * (unsigned)c->threads + i);
		fd = cleanup_create_file(t->path, O_RDWR, 0600);
		if (fd < 0) {
			run_fail_msg(-fd, "cannot create '%s': %s", t->path, strerror(-fd));
			return fd;
		}
		if (c->debug >= 50)
			driver_note(d, "tiotest: ftruncate '%s' to %llu bytes", t->path,
				    (unsigned long long)(c->blocks * c->block_bytes));
		if (fstat(fd, &st) < 0 || ftruncate(fd, (off_t)(c->blocks * c->block_bytes)) < 0) {
			int err = errno;

			run_fail_msg(err, "cannot size '%s': %s", t->path, strerror(err));
			close(fd);
			return -err;
		}
		t->dev = st.st_dev;
		t->ino = st.st_ino;
		close(fd);
		if (c->direct) {
			/* find out now, not as a failed run, that the filesystem refuses O_DIRECT */
			fd = open(t->path, O_RDWR | O_DIRECT | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				int err = errno;

				run_fail_msg(err == EINVAL ? EOPNOTSUPP : err,
					     "O_DIRECT is not supported on '%s': %s", dir, strerror(err));
				return err == EINVAL ? -EOPNOTSUPP : -err;
			}
			if ((fd = direct_aligned(c, t, fd, dir)) < 0)
				return fd;
		}
	}
	return 0;
}
