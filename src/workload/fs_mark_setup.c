/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's setup: the directories, the descriptors it needs, the space check, and --layout's
 * sample of an iteration's files. */
#include "workload/fs_mark_int.h"

/* ---- setup ----------------------------------------------------------------------------------- */
/* Makes (when missing) and opens one directory: its fd, or -errno with the syscall that failed
 * in *what and the path in full. The directory is made through the engine (an io_uring engine's
 * mkdirat); its handle is fsbench's own, opened directly: statfs and every engine's requests
 * use it. */
static int open_dir(struct engine_ctx *ctx, const char *path, int at, const char *name, bool top,
		    char *full, size_t len, const char **what)
{
	struct engine_req mk = { .op = ENGINE_OP_MKDIRAT, .fd = at, .name = name, .mode = 0777 };
	struct stat st;
	int64_t res;
	int fd, rc;

	if (top)
		snprintf(full, len, "%s", path);
	else
		snprintf(full, len, "%s/%s", path, name);
	*what = "mkdir";
	res = engine_exec1(ctx, &mk);
	if (res == 0) {
		*what = "register";
		rc = fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : cleanup_add(full, &st);
		if (rc < 0) {
			/* made here a moment ago and not registered: nothing else would remove it */
			unlinkat(at, name, AT_REMOVEDIR);
			return rc;
		}
	} else if (res != -EEXIST) {
		return (int)res;
	}
	/* the -d directory itself may be a symlink the user chose; below it nothing is followed */
	*what = "open";
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (top ? 0 : O_NOFOLLOW));
	return fd < 0 ? -errno : fd;
}

/* A directory that could not be made or opened. In fill mode a mkdir that finds no space or no
 * inodes left is the filesystem found full, as a file's open or write would be (fs_mark died of
 * it): recorded in s->full, no message. */
static int dir_failed(struct fsm_state *s, int rc, const char *what, const char *full)
{
	if (s->c->fill && is_full(-rc) && !strcmp(what, "mkdir")) {
		atomic_store(&s->full, -rc);
		snprintf(s->full_path, sizeof(s->full_path), "%s", full);
		s->full_what = what;
		return rc;
	}
	if (!strcmp(what, "mkdir"))
		run_fail_msg(-rc, "cannot create directory '%s': %s", full, strerror(-rc));
	else if (!strcmp(what, "register"))
		run_fail_msg(-rc, "cannot register '%s': %s", full, strerror(-rc));
	else
		run_fail_msg(-rc, "cannot open directory '%s': %s", full,
			     rc == -ELOOP ? "it is a symbolic link" : strerror(-rc));
	return rc;
}

/* Files a thread keeps in flight (--iodepth): never more than it creates per iteration. */
static unsigned fsm_depth(const struct fsm_config *c)
{
	return (unsigned)(c->eng.iodepth < c->nfiles ? c->eng.iodepth : c->nfiles);
}

/* Open files the run needs at most: every directory's fd, the files in flight and a reopen per
 * thread, and room for stdio, the log, the JSON and the kernel view (32: a plain run fits in
 * ulimit -n 64) */
uint64_t fsm_nofile_need(const struct fsm_config *c)
{
	return (uint64_t)c->ndirs * c->nsubdirs + (fsm_depth(c) + 1ull) * c->nthreads + 32;
}

/* raises the soft limit to what the run needs; fsm_config_check() saw that the hard one allows it */
static int raise_nofile(uint64_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
		return -EMFILE;
	rl.rlim_cur = need;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 ? -errno : 0;
}

/* The -d directories and their -D subdirectories, made when missing and opened, through the
 * first thread's engine context, in this thread: nothing runs in it before the first phase */
static int make_dirs(struct fsm_state *s)
{
	const struct fsm_config *c = s->c;
	struct fsm_thread *t0 = &s->th[0];
	char full[PATH_MAX + 16];
	const char *what;
	int rc;

	for (unsigned d = 0; d < c->ndirs; d++) {
		int top = open_dir(&t0->ctx, c->dirs.v[d], AT_FDCWD, c->dirs.v[d], true, full, sizeof(full),
				   &what);

		if (top < 0)
			return dir_failed(s, top, what, full);
		if (c->policy == FSM_DIR_NONE) {
			s->dirfd[d] = top;
			continue;
		}
		/* created once, up front: fs_mark mkdir()s the target directory before every file */
		for (unsigned i = 0; i < c->nsubdirs; i++) {
			char sub[16];

			snprintf(sub, sizeof(sub), "%02x", i);
			rc = open_dir(&t0->ctx, c->dirs.v[d], top, sub, false, full, sizeof(full), &what);
			if (rc < 0) {
				close(top);
				return dir_failed(s, rc, what, full);
			}
			s->dirfd[d * c->nsubdirs + i] = rc;
		}
		close(top);
	}
	return 0;
}

int fsm_setup(struct fsm_state *s)
{
	const struct fsm_config *c = s->c;
	unsigned nfd = c->ndirs * c->nsubdirs;
	unsigned depth = fsm_depth(c);
	uint64_t salt;
	int rc;

	if (raise_nofile(fsm_nofile_need(c))) {
		run_fail_msg(EMFILE, "%u directories (-d x -D) need more open files than RLIMIT_NOFILE allows",
			     nfd);
		return -EMFILE;
	}
	s->dirfd = malloc(nfd * sizeof(int));
	s->th = calloc(c->nthreads, sizeof(*s->th));
	s->workers = calloc(c->nthreads, sizeof(*s->workers));
	s->wbuf = calloc(1, c->io_bytes);
	s->xbuf = calloc(1, c->xattr_bytes + 1);
	s->run_op = malloc(FSM_NOPS * sizeof(*s->run_op));
	for (unsigned i = 0; s->dirfd && i < nfd; i++)
		s->dirfd[i] = -1;
	if (!s->dirfd || !s->th || !s->workers || !s->wbuf || !s->xbuf || !s->run_op)
		goto nomem;
	for (int o = 0; o < FSM_NOPS; o++)
		opstat_init(&s->run_op[o]);
	for (unsigned i = 0; i < c->nthreads; i++) {
		struct fsm_thread *t = &s->th[i];

		t->s = s;
		t->id = i;
		/* fs_mark: thread i + j*ndirs works in directory i (§2) */
		t->dir = i % c->ndirs;
		t->name = calloc(1, c->name_chars + 1);
		t->rbuf = c->read ? malloc(c->io_bytes) : NULL;
		if (!t->name || (c->read && !t->rbuf))
			goto nomem;
		if ((rc = engine_ctx_init_opts(&t->ctx, &c->eng, depth))) {
			if (rc == -ENOMEM)
				goto nomem;
			run_fail_msg(-rc, "cannot set up the %s engine: %s", c->eng.ops->name, strerror(-rc));
			return rc;
		}
		t->nslots = depth;
		t->slots = calloc(depth, sizeof(*t->slots));
		t->free_slots = calloc(depth, sizeof(*t->free_slots));
		t->sub = calloc(depth, sizeof(*t->sub));
		t->done_reqs = calloc(depth, sizeof(*t->done_reqs));
		t->foreign = calloc(depth, sizeof(*t->foreign));
		if (!t->slots || !t->free_slots || !t->sub || !t->done_reqs || !t->foreign)
			goto nomem;
		for (unsigned k = 0; k < depth; k++)
			if (!(t->slots[k].name = calloc(1, c->name_chars + 1)))
				goto nomem;
		s->workers[i].ctx = t;
	}
	if ((rc = make_dirs(s)))
		return rc;
	/* a different name stream every run, from the clock: runs kept with -k do not collide; a
	 * job's processes share the job's stream (each its own thread numbers) */
	if (c->run.job_salt)
		salt = mix64(c->run.job_salt + s->d->run);
	else
		salt = mix64(clock_ns() ^ ((uint64_t)getpid() << 32));
	s->thread_base = c->run.proc * c->nthreads;
	s->job_threads = c->nthreads * run_opts_nprocs(&c->run);
	fsm_name_bits(c, &s->bits, &s->bits_mask);
	s->salt = salt & s->bits_mask;
	if (cleanup_add_fn(fsm_cleanup_files, s))
		goto nomem;
	return 0;
nomem:
	run_fail_msg(ENOMEM, "out of memory");
	return -ENOMEM;
}

/* ---- space ----------------------------------------------------------------------------------- */
/* Bytes and inodes the next iteration needs on each filesystem (-d directories on one
 * filesystem add up): threads x files x size rounded to blocks, and threads x files inodes.
 * fs_mark counted n x s per thread only (doc/reference/fs_mark.md §5). Returns 0 when it fits. */
int fsm_space_check(const struct fsm_state *s, uint64_t files_per_thread, char *why, size_t len)
{
	const struct fsm_config *c = s->c;

	for (unsigned d = 0; d < c->ndirs; d++) {
		struct statfs sf, so;
		unsigned threads = 0;
		uint64_t bsize, per_file, need_b, need_i, free_b;
		bool first = true;

		if (fstatfs(s->dirfd[d * c->nsubdirs], &sf) < 0)
			continue;
		for (unsigned e = 0; e < c->ndirs; e++) {
			if (fstatfs(s->dirfd[e * c->nsubdirs], &so) < 0 ||
			    memcmp(&so.f_fsid, &sf.f_fsid, sizeof(sf.f_fsid)) || so.f_type != sf.f_type)
				continue;
			if (e < d)
				first = false;   /* counted with an earlier directory */
			threads += c->nthreads / c->ndirs;
		}
		if (!first)
			continue;
		bsize = sf.f_bsize ? (uint64_t)sf.f_bsize : 4096;
		per_file = (c->file_bytes + bsize - 1) / bsize * bsize;
		need_b = threads * files_per_thread * per_file;
		need_i = threads * files_per_thread;
		free_b = (uint64_t)sf.f_bavail * bsize;
		if (free_b < need_b) {
			snprintf(why, len, "'%s' has %llu bytes free, %u thread(s) x %llu file(s) of %llu "
				 "bytes need %llu", c->dirs.v[d], (unsigned long long)free_b, threads,
				 (unsigned long long)files_per_thread,
				 (unsigned long long)c->file_bytes, (unsigned long long)need_b);
			return -ENOSPC;
		}
		/* f_files 0: the filesystem has no inode limit to report (btrfs) */
		if (sf.f_files && (uint64_t)sf.f_ffree < need_i) {
			snprintf(why, len, "'%s' has %llu inodes free, %u thread(s) x %llu file(s) need %llu",
				 c->dirs.v[d], (unsigned long long)sf.f_ffree, threads,
				 (unsigned long long)files_per_thread, (unsigned long long)need_i);
			return -ENOSPC;
		}
	}
	return 0;
}

void fsm_use_pct(const struct fsm_state *s, int *blocks, int *inodes)
{
	struct statfs sf;

	*blocks = *inodes = 0;
	if (fstatfs(s->dirfd[0], &sf) < 0)
		return;
	/* fs_mark's FSUse%: truncated, reserved blocks count as used (§6) */
	if (sf.f_blocks)
		*blocks = (int)(100.0 * (double)(sf.f_blocks - sf.f_bavail) / (double)sf.f_blocks);
	if (sf.f_files)
		*inodes = (int)(100.0 * (double)(sf.f_files - sf.f_ffree) / (double)sf.f_files);
}

/* ---- --layout: a seeded sample of the iteration's files, mapped before the unlink phase ---- */
#define FSM_LAYOUT_SEED UINT64_C(0x1a7047)

/* the geometry the locality figures use: the first -d's filesystem's, when it is ext4 */
void fsm_layout_groups_init(struct fsm_state *s, struct fsm_result *r)
{
	struct stat st;
	int rc = layout_ext4_groups(s->dirfd[0], &r->groups, r->groups_why, sizeof(r->groups_why));

	r->groups_ok = rc == 0 && fstat(s->dirfd[0], &st) == 0;
	if (rc && rc != -EOPNOTSUPP)
		snprintf(r->groups_why, sizeof(r->groups_why), "ext4 geometry unknown: %s", strerror(-rc));
	if (r->groups_ok) {
		s->groups = &r->groups;
		s->groups_dev = st.st_dev;
	}
}

/* one sampled file: file k of thread t, opened read-only by the name fsbench created (no link
 * followed, the directory fsbench opened), mapped. 0, or -errno from FIEMAP (the sample stops). */
static int layout_one(struct fsm_state *s, struct fsm_thread *t, uint64_t k, struct fsm_layout *L,
		      bool example)
{
	unsigned hint = 0;
	int dfd = fsm_locate(t, k, &hint), fd, rc;
	struct stat st, dst;
	struct layout_file f;

	fd = openat(dfd, t->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;        /* gone (another program): not in the sample */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || fstat(dfd, &dst) < 0) {
		close(fd);
		return 0;
	}
	rc = layout_fd(fd, &f);
	if (rc) {
		layout_absent_reason(fd, rc, L->why, sizeof(L->why));
		close(fd);
		return rc;
	}
	close(fd);
	layout_sum_add(&L->sum, &f);
	if (s->groups && st.st_dev == s->groups_dev) {
		uint64_t dg = layout_locality_add(&L->loc, s->groups, st.st_ino, dst.st_ino, &f);

		if (example && dg != UINT64_MAX && L->nex < FSM_LAYOUT_EXAMPLES)
			L->ex[L->nex++] = (struct fsm_layout_example){
				.ino = st.st_ino, .dir_ino = dst.st_ino, .data_group = dg,
				.inode_group = layout_inode_group(s->groups, st.st_ino),
				.dir_group = layout_inode_group(s->groups, dst.st_ino),
				.first_block = f.first_physical / s->groups->block_bytes, .extents = f.extents };
	}
	return 0;
}

static void layout_figs(struct fsm_layout *L)
{
	const struct layout_locality *l = &L->loc;
	const bool ok = L->taken && !L->absent;

	L->fig[FSM_LFIG_EXTENTS_PER_FILE] = ok ? layout_extents_per_file(&L->sum) : NAN;
	L->fig[FSM_LFIG_ONE_EXTENT_PCT] = ok ? layout_one_extent_pct(&L->sum) : NAN;
	L->fig[FSM_LFIG_INODE_GROUP_PCT] = ok && l->files ? 100.0 * (double)l->in_inode_group / (double)l->files : NAN;
	L->fig[FSM_LFIG_DIR_GROUP_PCT] = ok && l->files ? 100.0 * (double)l->in_dir_group / (double)l->files : NAN;
}

/* N files of the iteration, one drawn from each of N equal strata of its files in creation
 * order, thread after thread: spread over the iteration, the threads and so the subdirectories
 * (each file's subdirectory follows from its index). The draw is seeded by the run and the
 * iteration: the same run samples the same files. */
void fsm_layout_sample(struct fsm_state *s, struct fsm_iter *it)
{
	const struct fsm_config *c = s->c;
	struct fsm_layout *L = &it->layout;
	uint64_t total = 0, n, rng = mix64(FSM_LAYOUT_SEED ^ ((uint64_t)s->d->run << 40) ^ it->index);
	uint64_t base = 0;       /* files of the threads before thread th */
	unsigned th = 0;

	L->taken = true;
	for (unsigned i = 0; i < c->nthreads; i++)
		total += s->th[i].done;
	n = total < c->layout_files ? total : c->layout_files;
	for (uint64_t j = 0; j < n && !run_stopping(); j++) {
		uint64_t lo = j * total / n, hi = (j + 1) * total / n, g;

		rng += UINT64_C(0x9e3779b97f4a7c15);
		g = lo + (uint64_t)(((unsigned __int128)mix64(rng) * (hi - lo)) >> 64);
		while (g >= base + s->th[th].done)
			base += s->th[th++].done;
		L->sampled++;
		if (layout_one(s, &s->th[th], s->th[th].iter_k0 + (g - base), L,
			       j == 0 || j == n / 2 || j == n - 1)) {
			L->absent = true;
			break;
		}
	}
	if (!L->absent && !L->sum.placed) {
		L->absent = true;
		snprintf(L->why, sizeof(L->why), !total ? "no file was created in this iteration" :
			 c->file_bytes == 0 ? "the files are empty (-s 0): no data to place" :
			 "no sampled file has its data placed yet (delayed allocation, nothing synced)");
	}
	layout_figs(L);
}
