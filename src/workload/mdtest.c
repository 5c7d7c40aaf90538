/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mdtest workload: mdtest's names, tree, phases and item counts (hpc/ior src/mdtest.c,
 * IOR 4.x), each phase run through driver_phase() with every task released at once, each item
 * timed, and the SUMMARY tables computed from the phases' common windows. Compatibility notes
 * say which mdtest behaviour each choice keeps or fixes. */
#include "workload/mdtest.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/clock.h"
#include "core/pack.h"
#include "core/phase_limit.h"
#include "workload/run_opts.h"
#include "workload/workload.h"

const char *const mdt_test_name[MDT_NTESTS] = {
	"Directory creation", "Directory stat", "Directory read", "Directory rename",
	"Directory removal", "File creation", "File stat", "File read", "File removal",
	"Tree creation", "Tree removal",
};
const char *const mdt_test_key[MDT_NTESTS] = {
	"dir_create", "dir_stat", "dir_read", "dir_rename", "dir_remove", "file_create",
	"file_stat", "file_read", "file_remove", "tree_create", "tree_remove",
};

/* mdtest's FILEMODE and DIRMODE */
#define MDT_FILEMODE (S_IRUSR | S_IWUSR | S_IRGRP | S_IWGRP | S_IROTH)
#define MDT_DIRMODE (S_IRWXU | S_IRWXG | S_IROTH | S_IXOTH)
#define MDT_MAX_DIRS UINT64_C(100000000)

/* What one process does and has created in the iteration in progress, enough to regenerate
 * every name it made and remove what is left after an interruption (cleanup_fn). */
struct mdt_state {
	const struct mdt_config *c;
	struct driver *d;
	struct mdt_result *r;
	unsigned rank, size;
	char dpath[PATH_MAX];        /* -d */
	char testdir[PATH_MAX];      /* -d/test-dir.J-0 */
	char own_tree[64];           /* "mdtest_tree" or "mdtest_tree.R" (-u) */
	char name[4][32];            /* mk, stat, read, rm: "mdtest.R." or "mdtest.shared." */
	uint64_t *order;             /* the tree's directories, depth first (mdtest's order) */
	unsigned *order_depth;
	uint64_t *rand;              /* stat/read order (-R), items entries */
	char *wbuf, *rbuf;
	struct engine_ctx ctx;
	bool ctx_ok;
	/* created by this process and not removed yet, for the cleanup */
	bool made_dpath, made_testdir;
	uint64_t tree_made;          /* directories of own_tree, a prefix of order */
	uint64_t dirs_made, files_made;   /* items, in creation order */
	bool renamed;                /* a rename phase ran: the first item may be "-XX" */
	uint64_t dirs_removed_ok, files_removed_ok;
	bool tree_removed;
	/* a creation the time limit stopped (run_test): the iteration's later phases work on the
	 * items made, in creation order; [0] directories, [1] files */
	bool cut[2];
	uint64_t cut_items[2];
};

/* the phase's task (one per process: mdtest runs one task per process) */
struct mdt_task {
	struct mdt_state *s;
	enum mdt_test t;
	struct opstat st;
	uint64_t done;
};

/* ---- names ---------------------------------------------------------------------------- */
/* The tree a test works in for this rank: mdtest shifts it by -N per phase with -u (create
 * k=1, stat and rename 2, read 3, remove 4). Compatibility fix: the subdirectories are named
 * after the tree's owner (mdtest names them after the rank working in it, which finds no
 * directory with -u -N and -z > 0). */
static void tree_of(const struct mdt_state *s, enum mdt_test t, char *buf, size_t len)
{
	const struct mdt_config *c = s->c;
	unsigned k = 1;

	if (!c->unique) {
		snprintf(buf, len, "mdtest_tree");
		return;
	}
	if (t == MDT_DIR_STAT || t == MDT_FILE_STAT || t == MDT_DIR_RENAME)
		k = 2;
	else if (t == MDT_FILE_READ)
		k = 3;
	else if (t == MDT_DIR_REMOVE || t == MDT_FILE_REMOVE)
		k = 4;
	snprintf(buf, len, "mdtest_tree.%u", (unsigned)((s->rank + k * c->nstride) % s->size));
}

static const char *name_of(const struct mdt_state *s, enum mdt_test t)
{
	switch (t) {
	case MDT_DIR_STAT: case MDT_FILE_STAT: case MDT_DIR_RENAME:
		return s->name[1];
	case MDT_FILE_READ:
		return s->name[2];
	case MDT_DIR_REMOVE: case MDT_FILE_REMOVE:
		return s->name[3];
	default:
		return s->name[0];
	}
}

/* Directory `node` of tree `tree` under testdir, with a trailing '/': its ancestors as mdtest's
 * mdtest_stat walks them up (node > 0: tree.node, then (node-1)/b while above b). */
static int node_path(const struct mdt_state *s, const char *tree, uint64_t node, char *buf, size_t len)
{
	uint64_t chain[128];
	unsigned n = 0;
	int pos = snprintf(buf, len, "%s/%s.0/", s->testdir, tree);

	if (node > 0) {
		chain[n++] = node;
		while (node > s->c->branch && n < 128) {
			node = (node - 1) / s->c->branch;
			chain[n++] = node;
		}
	}
	while (n-- > 0 && pos > 0 && (size_t)pos < len)
		pos += snprintf(buf + pos, len - (size_t)pos, "%s.%llu/", tree, (unsigned long long)chain[n]);
	return pos > 0 && (size_t)pos < len ? pos : -ENAMETOOLONG;
}

/* item `num` of a test: its directory from num / items_per_dir, then dir.NAMEnum or
 * file.NAMEnum */
static int item_path(const struct mdt_state *s, enum mdt_test t, uint64_t num, char *buf, size_t len)
{
	char tree[64];
	bool dir = t <= MDT_DIR_REMOVE;
	int pos;

	tree_of(s, t, tree, sizeof(tree));
	pos = node_path(s, tree, num / s->c->items_per_dir, buf, len);
	if (pos < 0)
		return pos;
	pos += snprintf(buf + pos, len - (size_t)pos, "%s.%s%llu", dir ? "dir" : "file", name_of(s, t),
			(unsigned long long)num);
	return (size_t)pos < len ? 0 : -ENAMETOOLONG;
}

/* the i-th item a create or remove phase visits: every directory depth first (leaves only
 * with -L and -z > 0), items_per_dir items in each */
static uint64_t visit_item(const struct mdt_state *s, uint64_t i)
{
	const struct mdt_config *c = s->c;
	uint64_t ipd = c->items_per_dir, k = i / ipd;

	if (c->leaf_only && c->depth > 0)
		return (c->num_dirs - c->leaves + k) * ipd + i % ipd;
	return s->order[k] * ipd + i % ipd;
}

/* the i-th item stat, read and rename visit: by number, shuffled with -R */
static uint64_t number_item(const struct mdt_state *s, uint64_t i)
{
	const struct mdt_config *c = s->c;
	uint64_t num = s->rand ? s->rand[i] : i;

	if (c->leaf_only)
		num += c->items_per_dir * (c->num_dirs - c->leaves);
	return num;
}

/* the items a test visits after the iteration's creation: all, or those a time-limited
 * creation made; and the i-th of them for stat, read and rename */
static uint64_t items_of(const struct mdt_state *s, enum mdt_test t)
{
	bool dir = t <= MDT_DIR_REMOVE;

	return s->cut[!dir] ? s->cut_items[!dir] : s->c->items;
}

static uint64_t stat_item_num(const struct mdt_state *s, enum mdt_test t, uint64_t i)
{
	return s->cut[t > MDT_DIR_REMOVE] ? visit_item(s, i) : number_item(s, i);
}

/* ---- the phases --------------------------------------------------------------------------- */
static int op_fail(int64_t rc, const char *what, const char *path)
{
	int err = (int)-rc;

	if (err == EINTR && run_stopping())
		return -EINTR;
	if (err == EEXIST)
		run_fail_detail(err, what, path, -1, "%s (fsbench only creates new names; left by "
				"an earlier run with -C and no -r?)", strerror(err));
	else
		run_fail(err, what, path, -1);
	return -err;
}

/* one request through the engine, timed */
static int64_t exec_timed(struct mdt_task *k, struct engine_req *head)
{
	uint64_t t0 = lat_now(), t1;
	int rc = engine_exec(&k->s->ctx, head);

	t1 = lat_now();
	if (rc)
		return rc;
	for (struct engine_req *r = head; r; r = r->next)
		if (r->result < 0)
			return r->result;
	opstat_add(&k->st, lat_ns(t1 - t0), head->next && head->next->op == ENGINE_OP_WRITE ?
		   head->next->len : 0);
	return 0;
}

static const char *req_what(const struct engine_req *head)
{
	for (const struct engine_req *r = head; r; r = r->next)
		if (r->result < 0 && r->result != -ECANCELED)
			return engine_op_name(r);
	return engine_op_name(head);
}

static int create_item(struct mdt_task *k, const char *path, bool dir)
{
	struct mdt_state *s = k->s;
	const struct mdt_config *c = s->c;
	struct engine_req r[4];
	unsigned n = 0;
	int64_t rc;

	if (dir) {
		r[n++] = (struct engine_req){ .op = ENGINE_OP_MKDIRAT, .fd = AT_FDCWD, .name = path,
					      .mode = MDT_DIRMODE };
	} else if (c->mknod) {
		uint64_t t0 = lat_now();

		if (mknodat(AT_FDCWD, path, S_IFREG | S_IRUSR, 0) < 0)
			return op_fail(-errno, "mknod", path);
		opstat_add(&k->st, lat_ns(lat_now() - t0), 0);
		return 0;
	} else {
		/* mdtest opens with O_CREAT and no O_EXCL; fsbench creates only new names and
		 * follows no symbolic link (-S shares one name between tasks: no O_EXCL then) */
		r[n++] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = AT_FDCWD, .name = path,
					      .flags = O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
						       (c->shared_file ? 0 : O_EXCL),
					      .mode = MDT_FILEMODE };
		if (c->write_bytes) {
			r[n++] = (struct engine_req){ .op = ENGINE_OP_WRITE, .fd = ENGINE_FD_CHAIN,
						      .buf = s->wbuf, .len = c->write_bytes, .off = 0 };
			if (c->sync_file)
				r[n++] = (struct engine_req){ .op = ENGINE_OP_FSYNC, .fd = ENGINE_FD_CHAIN };
		}
		r[n++] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	}
	for (unsigned i = 0; i + 1 < n; i++)
		r[i].next = &r[i + 1];
	r[n - 1].next = NULL;
	rc = exec_timed(k, r);
	if (rc == 0 && c->write_bytes && !dir && (uint64_t)r[1].result != c->write_bytes)
		rc = -EIO;       /* a short write: mdtest warns "unable to write file" */
	return rc ? op_fail(rc, req_what(r), path) : 0;
}

static int stat_item(struct mdt_task *k, const char *path)
{
	struct statx stx;
	struct engine_req r = { .op = ENGINE_OP_STATX, .fd = AT_FDCWD, .name = path,
				.mode = STATX_BASIC_STATS, .buf = &stx };
	int64_t rc = exec_timed(k, &r);

	return rc ? op_fail(rc, "statx", path) : 0;
}

static int read_item(struct mdt_task *k, const char *path)
{
	struct mdt_state *s = k->s;
	struct engine_req r[3];
	unsigned n = 0;
	int64_t rc;

	r[n++] = (struct engine_req){ .op = ENGINE_OP_OPENAT, .fd = AT_FDCWD, .name = path,
				      .flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC };
	if (s->c->read_bytes)
		r[n++] = (struct engine_req){ .op = ENGINE_OP_READ, .fd = ENGINE_FD_CHAIN, .buf = s->rbuf,
					      .len = s->c->read_bytes, .off = 0 };
	r[n++] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	for (unsigned i = 0; i + 1 < n; i++)
		r[i].next = &r[i + 1];
	r[n - 1].next = NULL;
	rc = exec_timed(k, r);
	if (rc == 0 && s->c->read_bytes && (uint64_t)r[1].result != s->c->read_bytes)
		rc = -EIO;       /* mdtest: "unable to read file" */
	return rc ? op_fail(rc, req_what(r), path) : 0;
}

static int remove_item(struct mdt_task *k, const char *path, bool dir)
{
	struct engine_req r = { .op = ENGINE_OP_UNLINKAT, .fd = AT_FDCWD, .name = path,
				.flags = dir ? AT_REMOVEDIR : 0 };
	int64_t rc = exec_timed(k, &r);

	return rc ? op_fail(rc, dir ? "rmdir" : "unlink", path) : 0;
}

/* mdtest's rename test: every directory item renamed to the previous one's name, the first
 * to NAME-XX and back at the end, so the names are as before (a rotation by one). */
static int rename_work(struct mdt_task *k)
{
	struct mdt_state *s = k->s;
	uint64_t n = items_of(s, MDT_DIR_RENAME);
	/* cur holds at most PATH_MAX bytes (item_path's bound): first and last have room for "-XX" */
	char first[PATH_MAX + 8], last[PATH_MAX + 8], cur[PATH_MAX + 8];
	int rc;

	/* from k->done: the rest of a phase the time limit stopped (run_test's wear-out) */
	if (n < 2)
		return 0;        /* a time-limited creation made one item or none */
	if ((rc = item_path(s, MDT_DIR_RENAME, stat_item_num(s, MDT_DIR_RENAME, 0), cur, PATH_MAX)))
		return op_fail(rc, "rename", cur);
	snprintf(first, sizeof(first), "%.*s-XX", PATH_MAX, cur);
	memcpy(last, first, sizeof(last));
	if (k->done && (rc = item_path(s, MDT_DIR_RENAME, stat_item_num(s, MDT_DIR_RENAME, k->done - 1), last,
						 PATH_MAX)))
		return op_fail(rc, "rename", last);
	for (uint64_t i = k->done; i < n && !run_stopping(); i++) {
		uint64_t t0;

		if ((rc = item_path(s, MDT_DIR_RENAME, stat_item_num(s, MDT_DIR_RENAME, i), cur, PATH_MAX)))
			return op_fail(rc, "rename", cur);
		if (i == n - 1)
			memcpy(cur, first, sizeof(cur));
		/* no rename request in the engines: a plain system call, timed alike */
		t0 = lat_now();
		if (renameat(AT_FDCWD, cur, AT_FDCWD, last) < 0)
			return op_fail(-errno, "rename", cur);
		opstat_add(&k->st, lat_ns(lat_now() - t0), 0);
		s->renamed = i + 1 < n;
		memcpy(last, cur, sizeof(last));
		k->done++;
	}
	return 0;
}

static int tree_work(struct mdt_task *k, bool create)
{
	struct mdt_state *s = k->s;
	const struct mdt_config *c = s->c;
	char path[PATH_MAX];
	int rc;

	/* without -u the first task makes the one shared tree (mdtest's rank 0) */
	if (!c->unique && s->rank != 0)
		return 0;
	for (uint64_t i = k->done; i < c->num_dirs && !run_stopping(); i++) {
		/* removal: the reverse of the creation order, every child before its parent */
		uint64_t node = s->order[create ? i : c->num_dirs - 1 - i];

		if ((rc = node_path(s, s->own_tree, node, path, sizeof(path))) < 0)
			return op_fail(rc, create ? "mkdir" : "rmdir", path);
		rc = create ? create_item(k, path, true) : remove_item(k, path, true);
		if (rc)
			return rc;
		k->done++;
		if (create)
			s->tree_made = i + 1;
		else
			s->tree_made = c->num_dirs - 1 - i;
	}
	return 0;
}

static int mdt_work(struct worker *w)
{
	struct mdt_task *k = w->ctx;
	struct mdt_state *s = k->s;
	const struct mdt_config *c = s->c;
	char path[PATH_MAX];
	bool dir = k->t <= MDT_DIR_REMOVE;
	int rc = 0;

	if (k->t == MDT_NTESTS)
		return 0;        /* a sync point */
	switch (k->t) {
	case MDT_TREE_CREATE:
	case MDT_TREE_REMOVE:
		rc = tree_work(k, k->t == MDT_TREE_CREATE);
		break;
	case MDT_DIR_RENAME:
		rc = rename_work(k);
		break;
	case MDT_DIR_CREATE: case MDT_FILE_CREATE: case MDT_DIR_REMOVE: case MDT_FILE_REMOVE: {
		bool create = k->t == MDT_DIR_CREATE || k->t == MDT_FILE_CREATE;

		uint64_t n = create ? c->items : items_of(s, k->t);

		for (uint64_t i = k->done; i < n && !run_stopping(); i++) {
			if ((rc = item_path(s, k->t, visit_item(s, i), path, sizeof(path))))
				return op_fail(rc, create ? "create" : "remove", path);
			if (create)
				rc = create_item(k, path, dir);
			else if (!(c->shared_file && s->rank != 0))
				rc = remove_item(k, path, dir);
			if (rc)
				return rc;
			k->done++;
			if (create && dir)
				s->dirs_made++;
			else if (create)
				s->files_made++;
			else if (dir)
				s->dirs_removed_ok++;
			else
				s->files_removed_ok++;
		}
		break;
	}
	case MDT_DIR_STAT: case MDT_FILE_STAT: case MDT_FILE_READ:
		for (uint64_t i = 0, n = items_of(s, k->t); i < n && !run_stopping(); i++) {
			if ((rc = item_path(s, k->t, stat_item_num(s, k->t, i), path, sizeof(path))))
				return op_fail(rc, "stat", path);
			rc = k->t == MDT_FILE_READ ? read_item(k, path) : stat_item(k, path);
			if (rc)
				return rc;
			k->done++;
		}
		break;
	default:
		break;
	}
	/* -Y: mdtest calls the backend's sync at the phase's end, inside its timing */
	if (!rc && c->call_sync)
		sync();
	return rc;
}

/* After a phase the time limit stopped. Statting and reading simply stop. A creation of items
 * cuts the iteration: its later phases work on the items made. Whatever else changes the
 * namespace (the tree, a rename, a removal; a creation in a job with -N, whose tasks visit
 * each other's items) is finished outside the window and the figures, so the next phases
 * find the names they expect: mdtest's "stonewall wear-out" (-W), bounded by what was made. */
static int time_limited(struct mdt_task *k)
{
	struct mdt_state *s = k->s;
	struct worker wk = { .ctx = k };
	bool dir = k->t <= MDT_DIR_REMOVE;

	if (k->t == MDT_DIR_STAT || k->t == MDT_FILE_STAT || k->t == MDT_FILE_READ)
		return 0;
	if ((k->t == MDT_DIR_CREATE || k->t == MDT_FILE_CREATE) && !(s->size > 1 && s->c->nstride)) {
		s->cut[!dir] = true;
		s->cut_items[!dir] = k->done;
		return 0;
	}
	opstat_init(&k->st);
	return mdt_work(&wk);
}

/* One test as a phase: every task released at once, the window from the release to the last
 * task's end. Compatibility fix: mdtest starts each rank's clock after its own barrier exit
 * and rates each rank from its own start, so a late rank looks slow and a rate is the slowest
 * rank's times the ranks; here the job's window is one, opened by one release. */
static int run_test(struct mdt_state *s, unsigned iter, enum mdt_test t)
{
	struct mdt_task k = { .s = s, .t = t };
	struct worker wk = { .ctx = &k };
	struct phase ph = { .name = mdt_test_key[t], .nworkers = 1, .work = mdt_work, .workers = &wk,
			    .label = "mdtest", .ops_unit = "items" };
	struct mdt_cell *cell = &s->r->cell[iter][t];
	int rc;

	opstat_init(&k.st);
	wk.live = &k.st;
	ph.expected_ops = t >= MDT_TREE_CREATE ? s->c->num_dirs : s->c->items;
	/* the time series for --stream (the JSON keeps the SUMMARY's per-iteration cells) */
	ph.interval_ns = s->c->run.stream ? s->c->run.interval_ns : 0;
	memset(s->ctx.nops, 0, sizeof(s->ctx.nops));
	rc = driver_phase(s->d, &ph, NULL, NULL);
	free(ph.samples);
	opstat_merge(&s->r->op[t], &k.st);
	for (unsigned o = 0; o < ENGINE_NOPS; o++)
		s->r->engine_ops[t][o] += s->ctx.nops[o];
	cell->ran = true;
	cell->items = k.done - ph.ramp_ops;
	cell->start_ns = phase_measured_start(&ph);
	cell->end_ns = ph.end_ns;
	cell->time_limited = ph.stonewalled;
	cell->ramp_ns = ph.ramp_ns;
	if (!rc && ph.stonewalled && !run_stopping())
		rc = time_limited(&k);
	return rc ? rc : run_stopping() ? -EINTR : 0;
}

/* A phase no task works in, so that every task passes it before the next (the directory
 * mdtest's rank 0 makes before its barrier). */
static int mkdir_first(struct mdt_state *s, const char *path, bool *made)
{
	struct stat st;

	if (s->rank != 0)
		return 0;
	if (mkdir(path, MDT_DIRMODE) == 0) {
		*made = true;
		return 0;
	}
	if (errno == EEXIST && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && made == &s->made_dpath)
		return 0;        /* -d may exist; test-dir.J-0 must be new */
	run_fail_detail(errno, "mkdir", path, -1, "%s", errno == EEXIST ?
			"exists (fsbench only creates new names; left by an earlier run with -C "
			"and no -r?)" : strerror(errno));
	return -errno;
}

static int sync_point(struct mdt_state *s)
{
	struct worker wk = { 0 };
	struct mdt_task k = { .s = s, .t = MDT_NTESTS };
	struct phase ph = { .name = "setup", .nworkers = 1, .work = mdt_work, .workers = &wk };

	wk.ctx = &k;
	opstat_init(&k.st);
	wk.live = &k.st;
	return driver_phase(s->d, &ph, NULL, NULL) ? -EINTR : run_stopping() ? -EINTR : 0;
}

static int one_iteration(struct mdt_state *s, unsigned j)
{
	const struct mdt_config *c = s->c;
	int rc = 0;

	if (snprintf(s->testdir, sizeof(s->testdir), "%.*s%stest-dir.%u-0", PATH_MAX - 64, s->dpath,
		     s->dpath[strlen(s->dpath) - 1] == '/' ? "" : "/", j) >= (int)sizeof(s->testdir)) {
		run_fail(ENAMETOOLONG, "mkdir", s->dpath, -1);
		return -ENAMETOOLONG;
	}
	s->tree_made = s->dirs_made = s->files_made = 0;
	s->dirs_removed_ok = s->files_removed_ok = 0;
	s->made_testdir = s->renamed = s->tree_removed = false;
	s->cut[0] = s->cut[1] = false;
	if (c->create) {
		if ((rc = mkdir_first(s, s->testdir, &s->made_testdir)) || (rc = sync_point(s)))
			return rc;
		if ((rc = run_test(s, j, MDT_TREE_CREATE)))
			return rc;
	}
	if (c->dirs_only && !c->shared_file) {
		if (c->pre_delay_s)
			sleep((unsigned)c->pre_delay_s);
		if (c->create && (rc = run_test(s, j, MDT_DIR_CREATE)))
			return rc;
		if (c->stat && (rc = run_test(s, j, MDT_DIR_STAT)))
			return rc;
		if (c->rename && c->items > 1 && (rc = run_test(s, j, MDT_DIR_RENAME)))
			return rc;
		if (c->remove && (rc = run_test(s, j, MDT_DIR_REMOVE)))
			return rc;
	}
	if (c->files_only) {
		if (c->pre_delay_s)
			sleep((unsigned)c->pre_delay_s);
		if (c->create && (rc = run_test(s, j, MDT_FILE_CREATE)))
			return rc;
		if (c->stat && (rc = run_test(s, j, MDT_FILE_STAT)))
			return rc;
		if (c->read && (rc = run_test(s, j, MDT_FILE_READ)))
			return rc;
		if (c->remove && (rc = run_test(s, j, MDT_FILE_REMOVE)))
			return rc;
	}
	if (c->remove) {
		if ((rc = run_test(s, j, MDT_TREE_REMOVE)))
			return rc;
		s->tree_removed = true;
		/* every task's tree is gone before the first removes test-dir (mdtest's barrier) */
		if (s->size > 1 && (rc = sync_point(s)))
			return rc;
		if (s->rank == 0 && rmdir(s->testdir) < 0 && errno != ENOENT) {
			run_fail(errno, "rmdir", s->testdir, -1);
			return -errno;
		}
		s->made_testdir = false;
	}
	return 0;
}

/* ---- cleanup: what is left of this process's names after an interruption ------------------ */
static int unlink_counted(const char *path, bool dir)
{
	if (unlinkat(AT_FDCWD, path, dir ? AT_REMOVEDIR : 0) == 0 || errno == ENOENT)
		return 0;
	cleanup_report(path, errno);
	return 1;
}

static int cleanup_fn(void *arg)
{
	struct mdt_state *s = arg;
	const struct mdt_config *c = s->c;
	char path[PATH_MAX + 8];
	int bad = 0;

	if (s->renamed && item_path(s, MDT_DIR_RENAME, number_item(s, 0), path, PATH_MAX) == 0) {
		strcat(path, "-XX");
		bad += unlink_counted(path, true);
		s->renamed = false;
	}
	/* the items this process created, by the names it created them under (a rename keeps
	 * the set of names) */
	for (uint64_t i = s->files_removed_ok; i < s->files_made; i++)
		if (!(c->shared_file && s->rank != 0) &&
		    item_path(s, MDT_FILE_CREATE, visit_item(s, i), path, PATH_MAX) == 0)
			bad += unlink_counted(path, false);
	for (uint64_t i = s->dirs_removed_ok; i < s->dirs_made; i++)
		if (item_path(s, MDT_DIR_CREATE, visit_item(s, i), path, PATH_MAX) == 0)
			bad += unlink_counted(path, true);
	s->files_made = s->dirs_made = 0;
	for (uint64_t i = s->tree_made; i-- > 0;)
		if (node_path(s, s->own_tree, s->order[i], path, PATH_MAX) > 0)
			bad += unlink_counted(path, true);
	s->tree_made = 0;
	if (s->made_testdir)
		bad += unlink_counted(s->testdir, true);
	s->made_testdir = false;
	if (s->made_dpath)
		bad += unlink_counted(s->dpath, true);
	s->made_dpath = false;
	return bad;
}

/* ---- the run --------------------------------------------------------------------------------- */
static void order_fill(struct mdt_state *s, uint64_t node, unsigned depth, uint64_t *n)
{
	s->order[*n] = node;
	s->order_depth[(*n)++] = depth;
	if (depth < s->c->depth)
		for (uint64_t b = 0; b < s->c->branch; b++)
			order_fill(s, node * s->c->branch + 1 + b, depth + 1, n);
}

static uint64_t host_id(void)
{
	char h[256] = "";
	uint64_t x = UINT64_C(1469598103934665603);

	gethostname(h, sizeof(h) - 1);
	for (const char *p = h; *p; p++)
		x = (x ^ (unsigned char)*p) * UINT64_C(1099511628211);
	return x;
}

static void summarize(struct mdt_result *r);

static void state_free(struct mdt_state *s)
{
	if (!s)
		return;
	if (s->ctx_ok)
		engine_ctx_exit(&s->ctx);
	free(s->order);
	free(s->order_depth);
	free(s->rand);
	free(s->wbuf);
	free(s->rbuf);
	free(s);
}

static int setup(struct mdt_state *s)
{
	const struct mdt_config *c = s->c;
	struct statfs sf;
	int rc;

	s->rank = c->run.proc;
	s->size = run_opts_nprocs(&c->run);
	snprintf(s->dpath, sizeof(s->dpath), "%s", c->dir);
	if (c->unique)
		snprintf(s->own_tree, sizeof(s->own_tree), "mdtest_tree.%u", s->rank);
	else
		snprintf(s->own_tree, sizeof(s->own_tree), "mdtest_tree");
	for (unsigned k = 0; k < 4; k++) {
		if (c->shared_file)
			snprintf(s->name[k], sizeof(s->name[k]), "mdtest.shared.");
		else
			snprintf(s->name[k], sizeof(s->name[k]), "mdtest.%u.",
				 (unsigned)((s->rank + k * c->nstride) % s->size));
	}
	s->order = malloc(c->num_dirs * sizeof(*s->order));
	s->order_depth = malloc(c->num_dirs * sizeof(*s->order_depth));
	if (!s->order || !s->order_depth)
		return -ENOMEM;
	uint64_t n = 0;
	order_fill(s, 0, 0, &n);
	if (c->random_order && c->items) {
		/* mdtest's shuffle, with the C library's rand() seeded as mdtest seeds it, so a
		 * seed visits the items in mdtest's order */
		unsigned seed = (unsigned)c->random_seed;

		if (c->random && !c->random_seed)
			seed = (unsigned)c->run.job_salt ? (unsigned)c->run.job_salt : (unsigned)time(NULL);
		if (c->random)
			seed += s->rank;
		s->r->seed = (int)seed;
		if (!(s->rand = malloc(c->items * sizeof(*s->rand))))
			return -ENOMEM;
		srand(seed);
		for (uint64_t i = 0; i < c->items; i++)
			s->rand[i] = i;
		for (uint64_t m = c->items; m > 1;) {
			m--;
			uint64_t k = (uint64_t)(((double)rand() / (double)RAND_MAX) * (double)m);
			uint64_t tmp = s->rand[k];

			s->rand[k] = s->rand[m];
			s->rand[m] = tmp;
		}
	}
	if (c->write_bytes && !(s->wbuf = malloc(c->write_bytes)))
		return -ENOMEM;
	if (s->wbuf)
		memset(s->wbuf, 0x23, c->write_bytes);    /* mdtest's pattern is not verified here */
	if (c->read_bytes && !(s->rbuf = malloc(c->read_bytes)))
		return -ENOMEM;
	if ((rc = engine_ctx_init_opts(&s->ctx, &c->eng, 1)))
		return rc;
	s->ctx_ok = true;
	if ((rc = cleanup_add_fn(cleanup_fn, s)))
		return rc;
	if ((rc = mkdir_first(s, s->dpath, &s->made_dpath)))
		return rc;
	if (s->rank == 0 && statfs(s->dpath, &sf) == 0) {
		s->r->fs_ok = true;
		s->r->fs_bytes = (uint64_t)sf.f_blocks * (uint64_t)sf.f_bsize;
		s->r->fs_free_bytes = (uint64_t)sf.f_bfree * (uint64_t)sf.f_bsize;
		s->r->fs_files = sf.f_files;
		s->r->fs_free_files = sf.f_ffree;
	}
	return 0;
}

static int mdt_run(struct driver *d, const void *cfg, void *result)
{
	const struct mdt_config *c = cfg;
	struct mdt_result *r = result;
	struct mdt_state *s = calloc(1, sizeof(*s));
	int rc;

	if (!s || !(r->cell = calloc(c->iterations, sizeof(*r->cell)))) {
		free(s);
		run_fail_msg(ENOMEM, "out of memory");
		return -ENOMEM;
	}
	r->state = s;
	s->c = c;
	s->d = d;
	s->r = r;
	for (unsigned t = 0; t < MDT_NTESTS; t++)
		opstat_init(&r->op[t]);
	r->nprocs = 1;
	r->items = c->items;
	r->tree_dirs = c->num_dirs;
	r->nranks = 1;
	r->rank_host[0] = host_id();
	r->nhosts = 1;
	r->head.started_unix_s = (long long)time(NULL);
	if ((rc = setup(s))) {
		if (!run_error_get())
			run_fail_msg(-rc, "cannot set up the run: %s", strerror(-rc));
		r->head.end = RUN_END_ERROR;
		return rc;
	}
	rc = sync_point(s);
	for (unsigned j = 0; !rc && j < c->iterations; j++) {
		r->niters = j + 1;
		rc = one_iteration(s, j);
	}
	if (!rc && c->remove) {
		/* mdtest removes -d when it made it and removed the rest (-r), once every task
		 * is done with it (every task passes the same phases) */
		rc = s->size > 1 ? sync_point(s) : 0;
		if (!rc && s->made_dpath && rmdir(s->dpath) == 0)
			s->made_dpath = false;
	}
	r->finished_unix_s = (long long)time(NULL);
	r->head.complete = !run_stopping() && !rc;
	r->head.end = r->head.complete ? RUN_END_DONE : run_signal() ? RUN_END_SIGNAL : RUN_END_ERROR;
	summarize(r);
	return 0;
}

static void mdt_run_done(void *result)
{
	struct mdt_result *r = result;

	state_free(r->state);
	r->state = NULL;
}

static void mdt_result_free(void *result)
{
	struct mdt_result *r = result;

	mdt_run_done(r);
	free(r->cell);
	r->cell = NULL;
}

/* ---- the SUMMARY tables and the figures ------------------------------------------------------ */
/* Per iteration, a test's job rate is its items over its window (the release of every task to
 * the last task's end), its time the window; Max, Min, Mean and the sample standard deviation
 * over iterations as mdtest prints them (0 for one iteration). */
static void summarize(struct mdt_result *r)
{
	double (*v)[2] = calloc(r->niters ? r->niters : 1, sizeof(*v));

	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		unsigned n = 0;

		for (unsigned j = 0; j < r->niters; j++) {
			const struct mdt_cell *x = &r->cell[j][t];
			double s = x->end_ns > x->start_ns ? (double)(x->end_ns - x->start_ns) / NS_PER_S : 0;

			if (!x->ran || !v)
				continue;
			v[n][0] = s > 0 && x->items ? (double)x->items / s : 0;
			v[n][1] = s;
			n++;
		}
		for (unsigned m = 0; m < 2; m++) {
			double *col = r->table[m][t], sum = 0, var = 0;

			if (!n || !v) {
				/* mdtest prints a test that did not run as zeros */
				col[MDT_MAX] = col[MDT_MIN] = col[MDT_MEAN] = col[MDT_SD] = 0;
				continue;
			}
			col[MDT_MAX] = -INFINITY;
			col[MDT_MIN] = INFINITY;
			for (unsigned j = 0; j < n; j++) {
				col[MDT_MAX] = fmax(col[MDT_MAX], v[j][m]);
				col[MDT_MIN] = fmin(col[MDT_MIN], v[j][m]);
				sum += v[j][m];
			}
			col[MDT_MEAN] = sum / n;
			for (unsigned j = 0; j < n; j++)
				var += (v[j][m] - col[MDT_MEAN]) * (v[j][m] - col[MDT_MEAN]);
			col[MDT_SD] = n > 1 ? sqrt(var / (n - 1)) : 0;
		}
		if (t != MDT_DIR_READ) {
			unsigned f = t < MDT_DIR_READ ? t : t - 1;

			r->fig[f] = n ? r->table[0][t][MDT_MEAN] : NAN;
		}
	}
	for (unsigned t = 0, f = MDT_NRATES; t < MDT_TREE_CREATE; t++) {
		if (t == MDT_DIR_READ)
			continue;
		r->fig[f++] = r->op[t].ops ? (double)hist_percentile(&r->op[t].lat, 50) : NAN;
		r->fig[f++] = r->op[t].ops ? (double)hist_percentile(&r->op[t].lat, 99) : NAN;
	}
	free(v);
}

#define RATE(k, n, fl) { k "_per_s", "operations." k ".rate_per_s", n " rate", "ops/s", \
			  FIG_HIGHER_BETTER, FIG_HMEAN, FIG_SUM, FIG_OPTIONAL | (fl) }
#define LAT(k, n) { k "_latency_p50_ns", "operations." k ".latency_p50_ns", n " latency p50", "ns", \
		    FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL }, \
		  { k "_latency_p99_ns", "operations." k ".latency_p99_ns", n " latency p99", "ns", \
		    FIG_LOWER_BETTER, FIG_MEAN, FIG_HIST, FIG_OPTIONAL }
static const struct figure mdt_run_figs[MDT_NFIGS] = {
	RATE("dir_create", "directory creation", FIG_PRIMARY),
	RATE("dir_stat", "directory stat", FIG_PRIMARY),
	RATE("dir_rename", "directory rename", 0),
	RATE("dir_remove", "directory removal", FIG_PRIMARY),
	RATE("file_create", "file creation", FIG_PRIMARY | FIG_KEY),
	RATE("file_stat", "file stat", FIG_PRIMARY | FIG_KEY),
	RATE("file_read", "file read", FIG_PRIMARY),
	RATE("file_remove", "file removal", FIG_PRIMARY | FIG_KEY),
	RATE("tree_create", "tree creation", 0),
	RATE("tree_remove", "tree removal", 0),
	LAT("dir_create", "directory creation"),
	LAT("dir_stat", "directory stat"),
	LAT("dir_rename", "directory rename"),
	LAT("dir_remove", "directory removal"),
	LAT("file_create", "file creation"),
	LAT("file_stat", "file stat"),
	LAT("file_read", "file read"),
	LAT("file_remove", "file removal"),
};
static const struct figure_set mdt_figs = {
	.run = mdt_run_figs, .nrun = MDT_NFIGS,
	.run_values_off = offsetof(struct mdt_result, fig),
};

/* ---- across processes ------------------------------------------------------------------------ */
/* Tasks side by side: items add up, a test's window runs from the first release to the last
 * end, latency histograms merge exactly; the tables are recomputed from the merged windows. */
static int mdt_merge(void *dst, const void *src)
{
	struct mdt_result *a = dst;
	const struct mdt_result *b = src;

	if (a->niters < b->niters) {
		void *n = realloc(a->cell, b->niters * sizeof(*a->cell));

		if (!n)
			return -ENOMEM;
		a->cell = n;
		memset(a->cell + a->niters, 0, (b->niters - a->niters) * sizeof(*a->cell));
		a->niters = b->niters;
	}
	for (unsigned j = 0; j < b->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			struct mdt_cell *x = &a->cell[j][t];
			const struct mdt_cell *y = &b->cell[j][t];

			if (!y->ran)
				continue;
			if (!x->ran) {
				*x = *y;
				continue;
			}
			x->items += y->items;
			x->start_ns = x->start_ns < y->start_ns ? x->start_ns : y->start_ns;
			x->end_ns = x->end_ns > y->end_ns ? x->end_ns : y->end_ns;
			x->time_limited |= y->time_limited;
			x->ramp_ns = x->ramp_ns > y->ramp_ns ? x->ramp_ns : y->ramp_ns;
		}
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		opstat_merge(&a->op[t], &b->op[t]);
		for (unsigned o = 0; o < ENGINE_NOPS; o++)
			a->engine_ops[t][o] += b->engine_ops[t][o];
	}
	for (unsigned i = 0; i < b->nranks && a->nranks < MDT_MAX_RANKS; i++) {
		bool known = false;

		for (unsigned k = 0; k < a->nranks; k++)
			known |= a->rank_host[k] == b->rank_host[i];
		a->nhosts += !known;
		a->rank_host[a->nranks++] = b->rank_host[i];
	}
	if (!a->items && !a->tree_dirs) {
		a->items = b->items;
		a->tree_dirs = b->tree_dirs;
		a->seed = b->seed;
		a->head.started_unix_s = b->head.started_unix_s;
	}
	if (!a->fs_ok && b->fs_ok) {
		a->fs_ok = true;
		a->fs_bytes = b->fs_bytes;
		a->fs_free_bytes = b->fs_free_bytes;
		a->fs_files = b->fs_files;
		a->fs_free_files = b->fs_free_files;
	}
	a->nprocs += b->nprocs;
	if (b->finished_unix_s > a->finished_unix_s)
		a->finished_unix_s = b->finished_unix_s;
	if (!b->head.complete && a->head.complete)
		a->head = b->head;
	summarize(a);
	return 0;
}

static int mdt_pack(const void *result, int64_t off, struct pack *o)
{
	const struct mdt_result *r = result;

	driver_head_pack(o, &r->head);
	pack_u64(o, r->niters);
	for (unsigned j = 0; j < r->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			const struct mdt_cell *x = &r->cell[j][t];

			pack_u64(o, x->ran);
			pack_u64(o, x->items);
			pack_u64(o, x->start_ns - (uint64_t)off);
			pack_u64(o, x->end_ns - (uint64_t)off);
			pack_u64(o, x->time_limited);
			pack_u64(o, x->ramp_ns);
		}
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		pack_opstat(o, &r->op[t]);
		for (unsigned e = 0; e < ENGINE_NOPS; e++)
			pack_u64(o, r->engine_ops[t][e]);
	}
	pack_u64(o, r->nprocs);
	pack_u64(o, r->nranks);
	for (unsigned i = 0; i < r->nranks; i++)
		pack_u64(o, r->rank_host[i]);
	pack_i64(o, r->finished_unix_s);
	pack_u64(o, r->items);
	pack_u64(o, r->tree_dirs);
	pack_i64(o, r->seed);
	pack_u64(o, r->fs_ok);
	pack_u64(o, r->fs_bytes);
	pack_u64(o, r->fs_free_bytes);
	pack_u64(o, r->fs_files);
	pack_u64(o, r->fs_free_files);
	return o->err;
}

static int mdt_unpack(void *result, struct unpack *u)
{
	struct mdt_result *r = result;
	uint64_t n;

	driver_head_unpack(u, &r->head);
	n = unpack_u64(u);
	if (u->err || n > 1000000 || n * MDT_NTESTS * 32 > u->len)
		return -EPROTO;
	if (n && !(r->cell = calloc(n, sizeof(*r->cell))))
		return -ENOMEM;
	r->niters = (unsigned)n;
	for (unsigned j = 0; j < n; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++) {
			struct mdt_cell *x = &r->cell[j][t];

			x->ran = unpack_u64(u) != 0;
			x->items = unpack_u64(u);
			x->start_ns = unpack_u64(u);
			x->end_ns = unpack_u64(u);
			x->time_limited = unpack_u64(u) != 0;
			x->ramp_ns = unpack_u64(u);
		}
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		unpack_opstat(u, &r->op[t]);
		for (unsigned e = 0; e < ENGINE_NOPS; e++)
			r->engine_ops[t][e] = unpack_u64(u);
	}
	r->nprocs = (unsigned)unpack_u64(u);
	n = unpack_u64(u);
	if (u->err || n > MDT_MAX_RANKS)
		return -EPROTO;
	r->nranks = (unsigned)n;
	for (unsigned i = 0; i < n; i++)
		r->rank_host[i] = unpack_u64(u);
	r->nhosts = r->nranks ? 1 : 0;
	r->finished_unix_s = unpack_i64(u);
	r->items = unpack_u64(u);
	r->tree_dirs = unpack_u64(u);
	r->seed = unpack_i64(u);
	r->fs_ok = unpack_u64(u) != 0;
	r->fs_bytes = unpack_u64(u);
	r->fs_free_bytes = unpack_u64(u);
	r->fs_files = unpack_u64(u);
	r->fs_free_files = unpack_u64(u);
	if (unpack_done(u))
		return u->err == -ENOMEM ? -ENOMEM : -EPROTO;
	summarize(r);
	return 0;
}

static struct opt_strs *mdt_dirs(void *cfg)
{
	/* mdtest's tasks share -d (-u: a tree each inside it): no per-rank directories */
	return &((struct mdt_config *)cfg)->no_rank_dirs;
}

/* ---- options ------------------------------------------------------------------------------- */
#define F(x) offsetof(struct mdt_config, x)
#define U64MAX UINT64_C(0xffffffffffff)
static const struct opt mdt_opts[] = {
	{ 'n', NULL, OPT_UINT, F(items), "N", 0, U64MAX, 0, 0,
	  "every task creates/stats/reads/removes N directories and N files" },
	{ 'I', NULL, OPT_UINT, F(items_per_dir), "N", 0, U64MAX, 0, 0,
	  "items per directory of the tree (instead of -n)" },
	{ 'z', NULL, OPT_UINT, F(depth), "N", 0, 1000, 0, 0, "depth of the directory tree" },
	{ 'b', NULL, OPT_UINT, F(branch), "N", 0, 1000000, 0, 0, "branching factor of the tree" },
	{ 'd', "dir", OPT_STR, F(dir), "DIR", 0, 0, 0, 0,
	  "directory the test runs in (created when missing, and removed with -r)" },
	{ 'u', NULL, OPT_FLAG, F(unique), NULL, 0, 0, 0, 0, "a tree of its own for each task" },
	{ 'F', NULL, OPT_FLAG, F(files_only), NULL, 0, 0, 0, 0, "files only (no directory tests)" },
	{ 'D', NULL, OPT_FLAG, F(dirs_only), NULL, 0, 0, 0, 0, "directories only (no file tests)" },
	{ 'C', NULL, OPT_FLAG, F(create), NULL, 0, 0, 0, 0, "only the creation phases (and the tree's)" },
	{ 'T', NULL, OPT_FLAG, F(stat), NULL, 0, 0, 0, 0, "only the stat phases" },
	{ 'E', NULL, OPT_FLAG, F(read), NULL, 0, 0, 0, 0, "only the read phase" },
	{ 'r', NULL, OPT_FLAG, F(remove), NULL, 0, 0, 0, 0,
	  "only the removal phases (and the tree's): removes what a run with -C left" },
	{ 'U', NULL, OPT_FLAG, F(rename), NULL, 0, 0, 0, 0, "the directory rename phase" },
	{ 'e', NULL, OPT_SIZE, F(read_bytes), "BYTES", 0, UINT64_C(1) << 30, 1, 0,
	  "bytes to read from each file" },
	{ 'w', NULL, OPT_SIZE, F(write_bytes), "BYTES", 0, UINT64_C(1) << 30, 1, 0,
	  "bytes to write to each file after it is created" },
	{ 'L', NULL, OPT_FLAG, F(leaf_only), NULL, 0, 0, 0, 0, "items only in the tree's leaves" },
	{ 'N', NULL, OPT_UINT, F(nstride), "N", 0, 1000000, 0, 0,
	  "stride between tasks from phase to phase (fsbench-mpi; 1 defeats a client cache)" },
	{ 'i', NULL, OPT_UINT, F(iterations), "N", 1, 1000000, 0, 0, "iterations" },
	{ 'S', NULL, OPT_FLAG, F(shared_file), NULL, 0, 0, 0, 0,
	  "every task the same file names (files only)" },
	{ 't', NULL, OPT_FLAG, F(time_unique), NULL, 0, 0, 0, 0,
	  "accepted; no effect: every task's window opens at one release" },
	{ 'v', NULL, OPT_FLAG, F(verbose), NULL, 0, 0, 0, 0, "accepted; mdtest's traces are not printed" },
	{ 'V', NULL, OPT_UINT, F(verbosity), "N", 0, 100, 0, 0, "accepted, as -v" },
	{ 'Z', NULL, OPT_FLAG, F(print_time), NULL, 0, 0, 0, 0, "SUMMARY time instead of SUMMARY rate" },
	{ 'P', NULL, OPT_FLAG, F(print_both), NULL, 0, 0, 0, 0, "SUMMARY rate and SUMMARY time" },
	{ 'R', NULL, OPT_FLAG, F(random), NULL, 0, 0, 0, 0,
	  "stat and read the items in a random order" },
	{ 0, "random-seed", OPT_UINT, F(random_seed), "N", 0, 2147483647, 0, 0,
	  "the seed of -R (also turns the random order on, as in mdtest)" },
	{ 'W', NULL, OPT_UINT, F(stonewall_s), "S", 0, 1000000, 0, 0,
	  "mdtest's stonewall: not supported (only 0); --time-limit ends every phase" },
	{ 'B', NULL, OPT_UINT, F(no_barriers), "N", 0, 1, 0, 0,
	  "accepted; phases always start together (each is one window)" },
	{ 'p', NULL, OPT_UINT, F(pre_delay_s), "S", 0, 3600, 0, 0,
	  "seconds to wait before the directory and the file tests" },
	{ 'y', NULL, OPT_FLAG, F(sync_file), NULL, 0, 0, 0, 0, "fsync each file after its write" },
	{ 'Y', NULL, OPT_FLAG, F(call_sync), NULL, 0, 0, 0, 0,
	  "sync(2) at the end of each phase, inside its window" },
	{ 'k', NULL, OPT_FLAG, F(mknod), NULL, 0, 0, 0, 0, "create the files with mknod" },
	{ 'c', NULL, OPT_FLAG, F(collective), NULL, 0, 0, 0, 0, "collective creates: not supported" },
	{ 'f', NULL, OPT_UINT, F(first), "N", 0, 1000000, 0, 0,
	  "first task count: not supported (every task runs)" },
	{ 'l', NULL, OPT_UINT, F(last), "N", 0, 1000000, 0, 0,
	  "last task count: not supported (every task runs)" },
	{ 's', NULL, OPT_UINT, F(stride), "N", 1, 1000000, 0, 0,
	  "task count stride: not supported (only 1)" },
	{ 'a', NULL, OPT_STR, F(api), "API", 0, 0, 0, 0,
	  "mdtest's I/O API: POSIX only (--engine picks how the calls are made)" },
	{ 'G', NULL, OPT_UINT, F(buffer_offset), "N", 0, UINT64_MAX, 0, 0,
	  "accepted; the data written is not verified" },
	{ 0, "dataPacketType", OPT_STR, F(packet_type), "TYPE", 0, 0, 0, 0,
	  "accepted; the data written is not verified" },
	{ 'X', "verify-read", OPT_FLAG, F(verify_read), NULL, 0, 0, 0, 0, "not supported" },
	{ 0, "verify-write", OPT_FLAG, F(verify_write), NULL, 0, 0, 0, 0, "not supported" },
	{ 'x', NULL, OPT_STR, F(stonewall_file), "FILE", 0, 0, 0, 0, "not supported (as -W)" },
	{ 0, "run-cmd-before-phase", OPT_STR, F(cmd_before), "CMD", 0, 0, 0, 0,
	  "not supported: fsbench runs no shell command" },
	{ 0, "run-cmd-after-phase", OPT_STR, F(cmd_after), "CMD", 0, 0, 0, 0,
	  "not supported: fsbench runs no shell command" },
	{ 0, "warningAsErrors", OPT_FLAG, F(warnings_as_errors), NULL, 0, 0, 0, 0,
	  "accepted; every failed call is an error that ends the run" },
	{ 0, "saveRankPerformanceDetails", OPT_STR, F(save_rank_csv), "FILE", 0, 0, 0, 0,
	  "not supported: --json has every task's phases (fsbench-mpi)" },
	{ 0, "savePerOpDataCSV", OPT_STR, F(save_op_csv), "PREFIX", 0, 0, 0, 0,
	  "not supported: --json has each operation's latency histogram" },
	{ 0, "showRankStatistics", OPT_FLAG, F(show_rank_stats), NULL, 0, 0, 0, 0, "not supported" },
	{ 0, "print-all-procs", OPT_FLAG, F(print_all_procs), NULL, 0, 0, 0, 0, "not supported" },
	{ 'h', "help", OPT_HELP, F(help), NULL, 0, 0, 0, 0, "show this help" },
	RUN_OPTS(F, "phase"),
	ENGINE_OPTS(F),
	{ 0 },
};

static const struct opt_cmd mdt_cmd = {
	.name = "mdtest",
	.summary = "mdtest: directory and file create/stat/read/remove rates over a tree (hpc/ior)",
	.opts = mdt_opts,
};

static void mdt_defaults(void *cfg)
{
	struct mdt_config *c = cfg;

	memset(c, 0, sizeof(*c));
	c->branch = 1;
	c->dir = "./out";
	c->iterations = 1;
	c->stride = 1;
	RUN_OPTS_DEFAULTS(c);
	ENGINE_OPTS_DEFAULTS(c);
}

static int bad(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* -d exists as a directory, or its parent does (mdtest makes -d, not its parents) */
static int check_dir(const char *dir, char *err, size_t len)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : bad(err, len, "option -d: '%s' is not a directory", dir);
	if (errno != ENOENT)
		return bad(err, len, "option -d: cannot use '%s': %s", dir, strerror(errno));
	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) && slash != parent && !slash[1])
		*slash = '\0';
	if (!(slash = strrchr(parent, '/')))
		return 0;
	slash[slash == parent] = '\0';
	if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
		return bad(err, len, "option -d: cannot create '%s': '%s' is not an existing directory",
			   dir, parent);
	return 0;
}

static uint64_t upow(uint64_t b, uint64_t e, bool *over)
{
	uint64_t x = 1;

	while (e--) {
		if (b && x > MDT_MAX_DIRS / b) {
			*over = true;
			return MDT_MAX_DIRS;
		}
		x *= b;
	}
	return x;
}

static int mdt_check(void *cfg, int argc, char **argv, char *err, size_t len)
{
	struct mdt_config *c = cfg;
	bool over = false;
	int rc;

	(void)argc;
	(void)argv;
	/* options fsbench does not reproduce: refused rather than ignored */
	if (c->collective)
		return bad(err, len, "option -c (collective creates) is not supported");
	if (c->stonewall_s || c->stonewall_file)
		return bad(err, len, "options -W and -x are not supported (--time-limit "
			   "ends every phase at a time)");
	if (c->first || c->last || c->stride != 1)
		return bad(err, len, "options -f, -l and -s are not supported: every task runs once");
	if (c->verify_read || c->verify_write)
		return bad(err, len, "options -X and --verify-write are not supported");
	if (c->cmd_before || c->cmd_after)
		return bad(err, len, "options --run-cmd-before-phase and --run-cmd-after-phase are not "
			   "supported: fsbench runs no shell command");
	if (c->save_rank_csv || c->save_op_csv)
		return bad(err, len, "options --saveRankPerformanceDetails and --savePerOpDataCSV are "
			   "not supported: --json has every figure");
	if (c->show_rank_stats || c->print_all_procs)
		return bad(err, len, "options --showRankStatistics and --print-all-procs are not supported");
	if (c->api && strcmp(c->api, "POSIX"))
		return bad(err, len, "option -a: only the POSIX API is supported (--engine picks how "
			   "the calls are made)");
	if (!*c->dir || strchr(c->dir, '@'))
		return bad(err, len, "option -d: one directory (mdtest's DIR1@DIR2 lists are not supported)");
	if ((rc = check_dir(c->dir, err, len)))
		return rc;
	/* mdtest's own checks, its messages */
	if (!c->create && !c->stat && !c->read && !c->remove && !c->rename)
		c->create = c->stat = c->read = c->remove = c->rename = true;
	if (!c->dirs_only && !c->files_only)
		c->dirs_only = c->files_only = true;
	if (c->shared_file)
		c->dirs_only = false;
	if (c->branch < 1 && c->depth > 0)
		return bad(err, len, "branch factor must be greater than or equal to zero");
	if (c->items && c->items_per_dir) {
		if (c->unique)
			return bad(err, len, "only specify the number of items or the number of items per directory");
		if (c->items % c->items_per_dir)
			return bad(err, len, "items must be a multiple of items per directory");
		return bad(err, len, "-n with -I (mdtest's directory loops) is not supported: give one of them");
	}
	if (c->write_bytes && c->mknod)
		return bad(err, len, "-k not compatible with -w");
	if (c->unique && c->shared_file)
		return bad(err, len, "-u not compatible with -S");
	if (c->create && c->read && c->read_bytes > c->write_bytes)
		return bad(err, len, "When writing and reading files, read bytes must be smaller than write bytes");
	/* the tree and the item counts, as mdtest computes them */
	if (c->depth == 0 || c->branch < 1)
		c->num_dirs = 1;
	else if (c->branch == 1)
		c->num_dirs = c->depth + 1;
	else
		c->num_dirs = (upow(c->branch, c->depth + 1, &over) - 1) / (c->branch - 1);
	c->leaves = c->branch <= 1 ? 1 : upow(c->branch, c->depth, &over);
	if (over || c->num_dirs > MDT_MAX_DIRS)
		return bad(err, len, "-b and -z make a tree of more than %llu directories",
			   (unsigned long long)MDT_MAX_DIRS);
	if (c->items_per_dir) {
		c->items = c->items_per_dir * (c->leaf_only ? c->leaves : c->num_dirs);
	} else if (c->leaf_only) {
		c->items_per_dir = c->branch <= 1 ? c->items : c->items / c->leaves;
		c->items = c->items_per_dir * (c->branch <= 1 ? 1 : c->leaves);
	} else {
		c->items_per_dir = c->items / c->num_dirs;
		c->items = c->items_per_dir * c->num_dirs;
	}
	if (!c->items_per_dir)
		c->items_per_dir = 1;    /* no item: only keeps the divisions defined */
	if (c->items > UINT64_C(1) << 32)
		return bad(err, len, "more than 2^32 items per task");
	c->random_order = c->random || c->random_seed;
	if (c->eng.iodepth > 1)
		return bad(err, len, "--iodepth above 1 is not supported by mdtest (one request at a time)");
	rc = engine_select(&c->eng, "mdtest", ENGINE_META | (c->read_bytes || c->write_bytes ? ENGINE_DATA : 0),
			   false, false, err, len);
	if (rc)
		return rc;
	return 0;
}

static unsigned mdt_targets(const void *cfg, const char **out, unsigned max)
{
	if (!max)
		return 0;
	out[0] = ((const struct mdt_config *)cfg)->dir;
	return 1;
}

/* without -r (mdtest's -C, -T, -E runs) the tree and items stay for a later run */
static bool mdt_keep(const void *cfg, const void *result)
{
	(void)result;
	return !((const struct mdt_config *)cfg)->remove;
}

extern const struct workload_report mdtest_report;

const struct workload_ops workload_mdtest = {
	.name = "mdtest",
	.summary = "mdtest: directory and file create/stat/read/remove rates over a tree (hpc/ior)",
	.cmd = &mdt_cmd,
	.config_size = sizeof(struct mdt_config),
	.run_opts_off = offsetof(struct mdt_config, run),
	.result_size = sizeof(struct mdt_result),
	.defaults = mdt_defaults,
	.check = mdt_check,
	.targets = mdt_targets,
	.run = mdt_run,
	.run_done = mdt_run_done,
	.result_free = mdt_result_free,
	.merge = mdt_merge,
	.keep = mdt_keep,
	.target_opt = "dir",
	.figs = &mdt_figs,
	.report = &mdtest_report,
	.dirs = mdt_dirs,
	.pack = mdt_pack,
	.unpack = mdt_unpack,
};
