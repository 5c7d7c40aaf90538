/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between mdtest's files: the run (mdtest.c), the results (mdtest_result.c), the options and
 * the ops struct (mdtest_opts.c). */
#ifndef FSB_WORKLOAD_MDTEST_INT_H
#define FSB_WORKLOAD_MDTEST_INT_H
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/figure.h"
#include "core/run.h"
#include "engine/engine.h"
#include "workload/mdtest.h"

/* the tree's directories at most */
#define MDT_MAX_DIRS UINT64_C(100000000)

struct driver;
struct pack;
struct unpack;
struct opt_strs;

struct mdt_queue;

/* What one process does and has created in the iteration in progress, enough to regenerate
 * every name it made and remove what is left after an interruption (cleanup_fn). */
struct mdt_state {
	const struct mdt_config *c;
	struct driver *d;
	struct mdt_result *r;
	unsigned rank, size;
	char dpath[PATH_MAX];	/* -d */
	char testdir[PATH_MAX]; /* -d/test-dir.J-0 */
	char own_tree[64];	/* "mdtest_tree" or "mdtest_tree.R" (-u) */
	char name[4][32];	/* mk, stat, read, rm: "mdtest.R." or "mdtest.shared." */
	uint64_t *order;	/* the tree's directories, depth first (mdtest's order) */
	unsigned *order_depth;
	uint64_t *rand; /* stat/read order (-R), items entries */
	char *wbuf, *rbuf;
	struct engine_ctx ctx;
	bool ctx_ok;
	/* created by this process and not removed yet, for the cleanup */
	bool made_dpath, made_testdir;
	uint64_t tree_made;		/* directories of own_tree, a prefix of order */
	uint64_t dirs_made, files_made; /* items, in creation order */
	bool renamed;			/* a rename phase ran: the first item may be "-XX" */
	uint64_t dirs_removed_ok, files_removed_ok;
	bool tree_removed;
	/* a creation the time limit stopped (run_test): the iteration's later phases work on the
	 * items made, in creation order; [0] directories, [1] files */
	bool cut[2];
	uint64_t cut_items[2];
	/* --iodepth above 1 (mdt_queue); the creations in it that failed: their names are not
	 * this process's (an earlier run's), the cleanup leaves them */
	struct mdt_queue *q;
	enum mdt_test skip_test;
	uint64_t *skip;
	unsigned nskip;
	/* item_path's last directory: the tree's shift, its node, its path */
	bool ipath_ok;
	unsigned ipath_k;
	uint64_t ipath_node;
	size_t ipath_len;
	char ipath[PATH_MAX];
};

/* the phase's task (one per process: mdtest runs one task per process) */
struct mdt_task {
	struct mdt_state *s;
	enum mdt_test t;
	struct opstat st;
	uint64_t done;
};

/* the names (mdtest.c): a tree directory's path, with its trailing '/' (its length or -errno);
 * an item's (0 or -errno); the i-th item a create or remove phase visits, and stat, read and
 * rename */
int mdt_node_path(const struct mdt_state *s, const char *tree, uint64_t node, char *buf, size_t len);
int mdt_item_path(struct mdt_state *s, enum mdt_test t, uint64_t num, char *buf, size_t len);
uint64_t mdt_visit_item(const struct mdt_state *s, uint64_t i);
uint64_t mdt_stat_item_num(const struct mdt_state *s, enum mdt_test t, uint64_t i);
/* a failed call as the run's first error (mdtest.c): -errno */
int mdt_op_fail(int64_t rc, const char *what, const char *path);
/* an item's requests, linked (mdtest.c): their count */
unsigned mdt_build_create(const struct mdt_state *s, struct engine_req *r, const char *path, bool dir);
unsigned mdt_build_read(const struct mdt_state *s, struct engine_req *r, const char *path);
void mdt_build_stat(struct engine_req *r, const char *path, struct statx *stx);
void mdt_build_remove(struct engine_req *r, const char *path, bool dir);
/* --iodepth above 1 (mdtest_queue.c): the queue and the failed creations' list of s; the
 * phase's items [k->done, n) with up to the depth in flight; whether item i of creation test t
 * failed at its first request (a name not this process's, which the cleanup leaves) */
int mdt_queue_new(struct mdt_state *s, unsigned depth);
void mdt_queue_free(struct mdt_queue *q);
int mdt_queue_work(struct mdt_task *k, uint64_t n);
bool mdt_skipped(const struct mdt_state *s, enum mdt_test t, uint64_t i);

/* the workload hooks (workload/workload.h) */
int mdt_run(struct driver *d, const void *cfg, void *result);
void mdt_run_done(void *result);
void mdt_result_free(void *result);
int mdt_merge(void *dst, const void *src);
int mdt_pack(const void *result, int64_t off, struct pack *o);
int mdt_unpack(void *result, struct unpack *u);
extern const struct figure_set mdt_figs;
/* the SUMMARY tables and the figures from the result's cells */
void mdt_summarize(struct mdt_result *r);
#endif
