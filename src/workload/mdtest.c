/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The mdtest workload: mdtest's names, tree, phases and item counts (hpc/ior src/mdtest.c,
 * IOR 4.x), each phase run through driver_phase() with every task released at once, each item
 * timed. The SUMMARY tables and the job's results are mdtest_result.c's, the options
 * mdtest_opts.c's. Compatibility notes say which mdtest behaviour each choice keeps or fixes. */
#include "workload/mdtest.h"

#include <errno.h>
#include <fcntl.h>
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
#include "core/phase_limit.h"
#include "sys/perf.h"
#include "workload/mdtest_int.h"
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

/* ---- names ---------------------------------------------------------------------------- */
/* The tree a test works in for this rank: mdtest shifts it by -N per phase with -u (create
 * k=1, stat and rename 2, read 3, remove 4). Compatibility fix: the subdirectories are named
 * after the tree's owner (mdtest names them after the rank working in it, which finds no
 * directory with -u -N and -z > 0). */
static unsigned tree_shift(const struct mdt_state *s, enum mdt_test t)
{
	if (!s->c->unique)
		return 0;
	if (t == MDT_DIR_STAT || t == MDT_FILE_STAT || t == MDT_DIR_RENAME)
		return 2;
	if (t == MDT_FILE_READ)
		return 3;
	if (t == MDT_DIR_REMOVE || t == MDT_FILE_REMOVE)
		return 4;
	return 1;
}

/* the tree's name for shift k (0: the one shared tree) */
static void tree_name(const struct mdt_state *s, unsigned k, char *buf, size_t len)
{
	if (!k)
		snprintf(buf, len, "mdtest_tree");
	else
		snprintf(buf, len, "mdtest_tree.%u", (unsigned)((s->rank + k * s->c->nstride) % s->size));
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
int mdt_node_path(const struct mdt_state *s, const char *tree, uint64_t node, char *buf, size_t len)
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
 * file.NAMEnum. The directory's part is kept from the previous item in the same directory,
 * as mdtest builds it once per directory: three snprintf calls per item showed in the profile
 * of a tmpfs unlink (bench/README.md, mdtest.sh). */
int mdt_item_path(struct mdt_state *s, enum mdt_test t, uint64_t num, char *buf, size_t len)
{
	const unsigned k = tree_shift(s, t);
	const uint64_t node = num / s->c->items_per_dir;
	const char *name = name_of(s, t), *kind = t <= MDT_DIR_REMOVE ? "dir." : "file.";
	const size_t nlen = strlen(name), klen = strlen(kind);
	char digits[24];
	size_t nd = 0, pos;

	if (!s->ipath_ok || s->ipath_k != k || s->ipath_node != node) {
		char tree[64];
		int rc;

		tree_name(s, k, tree, sizeof(tree));
		s->ipath_ok = false;
		if ((rc = mdt_node_path(s, tree, node, s->ipath, sizeof(s->ipath))) < 0) {
			mdt_node_path(s, tree, node, buf, len); /* the message's path */
			return rc;
		}
		s->ipath_len = (size_t)rc;
		s->ipath_k = k;
		s->ipath_node = node;
		s->ipath_ok = true;
	}
	do
		digits[nd++] = (char)('0' + num % 10);
	while ((num /= 10) && nd < sizeof(digits));
	if (s->ipath_len + klen + nlen + nd >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s->ipath, s->ipath_len);
	pos = s->ipath_len;
	memcpy(buf + pos, kind, klen);
	pos += klen;
	memcpy(buf + pos, name, nlen);
	pos += nlen;
	while (nd)
		buf[pos++] = digits[--nd];
	buf[pos] = '\0';
	return 0;
}

/* the i-th item a create or remove phase visits: every directory depth first (leaves only
 * with -L and -z > 0), items_per_dir items in each */
uint64_t mdt_visit_item(const struct mdt_state *s, uint64_t i)
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

uint64_t mdt_stat_item_num(const struct mdt_state *s, enum mdt_test t, uint64_t i)
{
	return s->cut[t > MDT_DIR_REMOVE] ? mdt_visit_item(s, i) : number_item(s, i);
}

/* ---- the phases --------------------------------------------------------------------------- */
int mdt_op_fail(int64_t rc, const char *what, const char *path)
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

/* One chain through the engine, timed by the engine's own stamps (its submit to its last
 * request's completion): two clock reads per item fewer than reading the clock around the
 * call, which on a kvm-clock guest (lat_now() is clock_gettime there) showed in the profile
 * of a tmpfs unlink (bench/README.md, mdtest.sh). */
static int64_t exec_timed(struct mdt_task *k, struct engine_req *head)
{
	int rc = engine_exec(&k->s->ctx, head);
	const struct engine_req *last = head;

	if (rc)
		return rc;
	for (struct engine_req *r = head; r; r = r->next) {
		if (r->result < 0)
			return r->result;
		last = r;
	}
	opstat_add_at(&k->st, last->done_lat, lat_ns(last->done_lat - head->submit_lat),
		      head->next && head->next->op == ENGINE_OP_WRITE ? head->next->len : 0);
	return 0;
}

static const char *req_what(const struct engine_req *head)
{
	for (const struct engine_req *r = head; r; r = r->next)
		if (r->result < 0 && r->result != -ECANCELED)
			return engine_op_name(r);
	return engine_op_name(head);
}

/* The requests of an item's creation, linked (mdtest's create: mkdir, or open, write, fsync
 * with -y, close): their count. */
unsigned mdt_build_create(const struct mdt_state *s, struct engine_req *r, const char *path, bool dir)
{
	const struct mdt_config *c = s->c;
	unsigned n = 0;

	if (dir) {
		r[n++] = (struct engine_req){
			.op = ENGINE_OP_MKDIRAT, .fd = AT_FDCWD, .name = path, .mode = MDT_DIRMODE
		};
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
	for (unsigned i = 0; i < n; i++)
		r[i].next = i + 1 < n ? &r[i + 1] : NULL;
	return n;
}

/* mdtest's read: open, read -e bytes, close */
unsigned mdt_build_read(const struct mdt_state *s, struct engine_req *r, const char *path)
{
	unsigned n = 0;

	r[n++] = (struct engine_req){ .op = ENGINE_OP_OPENAT,
				      .fd = AT_FDCWD,
				      .name = path,
				      .flags = O_RDONLY | O_NOFOLLOW | O_CLOEXEC };
	if (s->c->read_bytes)
		r[n++] = (struct engine_req){ .op = ENGINE_OP_READ,
					      .fd = ENGINE_FD_CHAIN,
					      .buf = s->rbuf,
					      .len = s->c->read_bytes,
					      .off = 0 };
	r[n++] = (struct engine_req){ .op = ENGINE_OP_CLOSE, .fd = ENGINE_FD_CHAIN };
	for (unsigned i = 0; i < n; i++)
		r[i].next = i + 1 < n ? &r[i + 1] : NULL;
	return n;
}

void mdt_build_stat(struct engine_req *r, const char *path, struct statx *stx)
{
	*r = (struct engine_req){
		.op = ENGINE_OP_STATX, .fd = AT_FDCWD, .name = path, .mode = STATX_BASIC_STATS, .buf = stx
	};
}

void mdt_build_remove(struct engine_req *r, const char *path, bool dir)
{
	*r = (struct engine_req){
		.op = ENGINE_OP_UNLINKAT, .fd = AT_FDCWD, .name = path, .flags = dir ? AT_REMOVEDIR : 0
	};
}

static int create_item(struct mdt_task *k, const char *path, bool dir)
{
	struct mdt_state *s = k->s;
	const struct mdt_config *c = s->c;
	struct engine_req r[4];
	int64_t rc;

	if (!dir && c->mknod) {
		uint64_t t0 = lat_now(), t1;

		if (mknodat(AT_FDCWD, path, S_IFREG | S_IRUSR, 0) < 0)
			return mdt_op_fail(-errno, "mknod", path);
		t1 = lat_now();
		opstat_add_at(&k->st, t1, lat_ns(t1 - t0), 0);
		return 0;
	}
	mdt_build_create(s, r, path, dir);
	rc = exec_timed(k, r);
	if (rc == 0 && c->write_bytes && !dir && (uint64_t)r[1].result != c->write_bytes)
		rc = -EIO;       /* a short write: mdtest warns "unable to write file" */
	return rc ? mdt_op_fail(rc, req_what(r), path) : 0;
}

static int stat_item(struct mdt_task *k, const char *path)
{
	struct statx stx;
	struct engine_req r;
	int64_t rc;

	mdt_build_stat(&r, path, &stx);
	rc = exec_timed(k, &r);
	return rc ? mdt_op_fail(rc, "statx", path) : 0;
}

static int read_item(struct mdt_task *k, const char *path)
{
	struct mdt_state *s = k->s;
	struct engine_req r[3];
	int64_t rc;

	mdt_build_read(s, r, path);
	rc = exec_timed(k, r);
	if (rc == 0 && s->c->read_bytes && (uint64_t)r[1].result != s->c->read_bytes)
		rc = -EIO;       /* mdtest: "unable to read file" */
	return rc ? mdt_op_fail(rc, req_what(r), path) : 0;
}

static int remove_item(struct mdt_task *k, const char *path, bool dir)
{
	struct engine_req r;
	int64_t rc;

	mdt_build_remove(&r, path, dir);
	rc = exec_timed(k, &r);
	return rc ? mdt_op_fail(rc, dir ? "rmdir" : "unlink", path) : 0;
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
	if ((rc = mdt_item_path(s, MDT_DIR_RENAME, mdt_stat_item_num(s, MDT_DIR_RENAME, 0), cur, PATH_MAX)))
		return mdt_op_fail(rc, "rename", cur);
	snprintf(first, sizeof(first), "%.*s-XX", PATH_MAX, cur);
	memcpy(last, first, sizeof(last));
	if (k->done &&
	    (rc = mdt_item_path(s, MDT_DIR_RENAME, mdt_stat_item_num(s, MDT_DIR_RENAME, k->done - 1), last,
				PATH_MAX)))
		return mdt_op_fail(rc, "rename", last);
	for (uint64_t i = k->done; i < n && !run_stopping(); i++) {
		uint64_t t0, t1;

		if ((rc = mdt_item_path(s, MDT_DIR_RENAME, mdt_stat_item_num(s, MDT_DIR_RENAME, i), cur,
					PATH_MAX)))
			return mdt_op_fail(rc, "rename", cur);
		if (i == n - 1)
			memcpy(cur, first, sizeof(cur));
		/* no rename request in the engines: a plain system call, timed alike */
		t0 = lat_now();
		if (renameat(AT_FDCWD, cur, AT_FDCWD, last) < 0)
			return mdt_op_fail(-errno, "rename", cur);
		t1 = lat_now();
		opstat_add_at(&k->st, t1, lat_ns(t1 - t0), 0);
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

		if ((rc = mdt_node_path(s, s->own_tree, node, path, sizeof(path))) < 0)
			return mdt_op_fail(rc, create ? "mkdir" : "rmdir", path);
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

/* the items the task's phase visits */
static uint64_t phase_items(const struct mdt_task *k)
{
	const struct mdt_state *s = k->s;

	switch (k->t) {
	case MDT_TREE_CREATE:
	case MDT_TREE_REMOVE:
		/* without -u the first task makes the one shared tree (mdtest's rank 0) */
		return !s->c->unique && s->rank != 0 ? 0 : s->c->num_dirs;
	case MDT_DIR_CREATE:
	case MDT_FILE_CREATE:
		return s->c->items;
	default:
		return items_of(s, k->t);
	}
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
	if (s->q && k->t != MDT_DIR_RENAME) {
		/* --iodepth above 1; the rename test stays one at a time: each rename frees the
		 * name the next one takes */
		rc = mdt_queue_work(k, phase_items(k));
		goto out;
	}
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
			if ((rc = mdt_item_path(s, k->t, mdt_visit_item(s, i), path, sizeof(path))))
				return mdt_op_fail(rc, create ? "create" : "remove", path);
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
			if ((rc = mdt_item_path(s, k->t, mdt_stat_item_num(s, k->t, i), path, sizeof(path))))
				return mdt_op_fail(rc, "stat", path);
			rc = k->t == MDT_FILE_READ ? read_item(k, path) : stat_item(k, path);
			if (rc)
				return rc;
			k->done++;
		}
		break;
	default:
		break;
	}
out:
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

/* The task's thread makes the engine's state its own (io_uring: the ring) before the release */
static int mdt_prepare(struct worker *w)
{
	struct mdt_task *k = w->ctx;
	int rc = engine_ctx_attach(&k->s->ctx);

	if (rc)
		run_fail_msg(-rc, "cannot set up the %s engine: %s", k->s->c->eng.ops->name, strerror(-rc));
	return rc;
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
	ph.prepare = mdt_prepare;
	ph.expected_ops = t >= MDT_TREE_CREATE ? s->c->num_dirs : s->c->items;
	/* the time series for --stream (the JSON keeps the SUMMARY's per-iteration cells) */
	ph.interval_ns = s->c->run.stream ? s->c->run.interval_ns : 0;
	memset(s->ctx.nops, 0, sizeof(s->ctx.nops));
	rc = driver_phase(s->d, &ph, &cell->obs, NULL);
	free(ph.samples);
	if (cell->obs.profile) {
		perf_profile_merge(&s->r->profile[t], cell->obs.profile);   /* frees it */
		cell->obs.profile = NULL;
	}
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
	s->nskip = 0;
	s->ipath_ok = false; /* a new test-dir */
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

	if (s->renamed && mdt_item_path(s, MDT_DIR_RENAME, number_item(s, 0), path, PATH_MAX) == 0) {
		strcat(path, "-XX");
		bad += unlink_counted(path, true);
		s->renamed = false;
	}
	/* the items this process created, by the names it created them under (a rename keeps
	 * the set of names) */
	for (uint64_t i = s->files_removed_ok; i < s->files_made; i++)
		if (!(c->shared_file && s->rank != 0) && !mdt_skipped(s, MDT_FILE_CREATE, i) &&
		    mdt_item_path(s, MDT_FILE_CREATE, mdt_visit_item(s, i), path, PATH_MAX) == 0)
			bad += unlink_counted(path, false);
	for (uint64_t i = s->dirs_removed_ok; i < s->dirs_made; i++)
		if (!mdt_skipped(s, MDT_DIR_CREATE, i) &&
		    mdt_item_path(s, MDT_DIR_CREATE, mdt_visit_item(s, i), path, PATH_MAX) == 0)
			bad += unlink_counted(path, true);
	s->files_made = s->dirs_made = 0;
	for (uint64_t i = s->tree_made; i-- > 0;)
		if (!mdt_skipped(s, MDT_TREE_CREATE, i) &&
		    mdt_node_path(s, s->own_tree, s->order[i], path, PATH_MAX) > 0)
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

static void state_free(struct mdt_state *s)
{
	if (!s)
		return;
	if (s->ctx_ok)
		engine_ctx_exit(&s->ctx);
	mdt_queue_free(s->q);
	free(s->skip);
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
	if ((rc = engine_ctx_init_opts(&s->ctx, &c->eng, (unsigned)c->eng.iodepth)))
		return rc;
	s->ctx_ok = true;
	if (c->eng.iodepth > 1 && (rc = mdt_queue_new(s, (unsigned)c->eng.iodepth)))
		return rc;
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

int mdt_run(struct driver *d, const void *cfg, void *result)
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
	mdt_summarize(r);
	return 0;
}

void mdt_run_done(void *result)
{
	struct mdt_result *r = result;

	state_free(r->state);
	r->state = NULL;
}

void mdt_result_free(void *result)
{
	struct mdt_result *r = result;

	mdt_run_done(r);
	for (unsigned j = 0; r->cell && j < r->niters; j++)
		for (unsigned t = 0; t < MDT_NTESTS; t++)
			observe_phase_free(&r->cell[j][t].obs);
	for (unsigned t = 0; t < MDT_NTESTS; t++) {
		perf_profile_free(r->profile[t]);
		r->profile[t] = NULL;
	}
	free(r->cell);
	r->cell = NULL;
}
