/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's parts between its files: the per-thread and per-run state, and what one part calls
 * in another (names, the create loop, the phases, setup, the iterations, merge and pack). */
#ifndef FSB_WORKLOAD_FS_MARK_INT_H
#define FSB_WORKLOAD_FS_MARK_INT_H

#include "workload/fs_mark.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "core/cleanup.h"
#include "core/pack.h"
#include "workload/run_opts.h"
#include "workload/workload.h"
#include "core/clock.h"

/* A run of files of one thread that share a time-stamp prefix and a starting subdirectory:
 * one per iteration, plus one per TIME_HASH move. Enough to regenerate every name. */
struct fsm_seg {
	uint64_t k0;             /* first file index (per thread, counted over the whole run) */
	unsigned sub0;
	char seq[24];            /* the time-stamp part, already cut/padded to its length */
};

struct fsm_thread {
	struct fsm_state *s;
	unsigned id, dir;        /* thread number, its -d index */
	uint64_t k_created;      /* files [0, k_created) were created by us (O_EXCL succeeded) */
	uint64_t k_unlinked;     /* files below this were unlinked by the unlink phase */
	uint64_t iter_k0, done;  /* this iteration: first index, files completely created */
	uint64_t loop_ns, loop_end_ns;
	struct fsm_seg *segs;
	unsigned nsegs, segcap;
	uint64_t seg_start_lat;  /* TIME_HASH: when the current subdirectory was entered (lat_now) */
	char *name;              /* name_chars + 1 */
	char *rbuf;              /* --read buffer */
	struct opstat op[FSM_NOPS];
	/* the engine: one context for every phase, --iodepth create chains in flight */
	struct engine_ctx ctx;
	struct fsm_slot *slots;
	unsigned nslots;
	struct fsm_slot **free_slots;
	struct engine_req **sub, **done_reqs;
	uint64_t last_lat;       /* the latest completion seen (lat_now) */
	struct engine_workers wq;  /* the engine's kernel workers at the end of the last phase */
	uint64_t *foreign;       /* files whose O_EXCL create found a file there: never removed */
	unsigned nforeign;
};

struct fsm_slot;

struct fsm_state {
	const struct fsm_config *c;
	struct driver *d;
	int *dirfd;              /* [dir * nsubdirs + sub] */
	struct fsm_thread *th;
	struct worker *workers;
	char *wbuf;              /* zeros, -w bytes (fs_mark writes zeros from a static buffer) */
	char *xbuf;
	uint64_t salt, bits_mask;
	unsigned bits;           /* unique bits encoded in the random part */
	/* the job's threads (fsbench-mpi: every process's; run_opts.proc): this process's first
	 * thread number and how many there are, so that names are unique across the job */
	unsigned thread_base, job_threads;
	atomic_int full;         /* errno that filled the filesystem (fill mode), 0 otherwise */
	char full_path[PATH_MAX + 512];
	const char *full_what;
	char label[64];          /* the progress line's prefix: "fs_mark run 2/3 iteration 5" */
	struct opstat *run_op;   /* [FSM_NOPS]: the reported iterations merged, packed at the end */
	const struct layout_groups *groups;   /* --layout on ext4: the geometry, else NULL */
	dev_t groups_dev;        /* ... of this filesystem */
};

/* ---- the create loop -------------------------------------------------------------------------
 * Every operation goes through the thread's engine context (engine/engine.h) as a chain per
 * file: openat(O_CREAT|O_EXCL) -> write x (-s / -w) -> fsetxattr (--xattr) -> fsync or
 * fdatasync (-S 1) -> close -> directory fsync (--dirsync), the syscalls and the order
 * fs_mark issues. Up to --iodepth files are in flight per thread; at depth 1 with psync each
 * chain runs at submit, one syscall after the other, exactly as a plain loop would. A file
 * with more than FSM_CHAIN_WRITES writes goes in several chains (the later ones on the
 * descriptor the first opened), and so does a file after a short write: the rest is written
 * from where it stopped, as fs_mark's loop does. Each op is timed from its request's
 * timestamps: from the previous op's completion (or its own submission, if later) to its own
 * completion, so at depth 1 the figures are what timing around each syscall gives. */
#define FSM_CHAIN_WRITES 16
#define FSM_CHAIN_MAX (1 + FSM_CHAIN_WRITES + 4)    /* openat, writes, xattr, fsync, close, dirsync */

struct fsm_slot {
	struct engine_req req[FSM_CHAIN_MAX];
	uint64_t k;              /* the file */
	int dfd;                 /* its directory */
	int fd;                  /* open (the engine's descriptor), or -1 */
	uint64_t left;           /* bytes still to write */
	uint64_t prev_lat;       /* the previous op's completion, 0 before the first */
	char *name;              /* name_chars + 1 */
	unsigned seg;            /* 1 + the segment whose time stamp name holds, 0: none */
};

static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline bool is_full(int err)
{
	return err == ENOSPC || err == EDQUOT;
}

static inline bool stop_now(const struct fsm_state *s)
{
	return run_stopping() || atomic_load_explicit(&s->full, memory_order_relaxed);
}

/* fs_mark_names.c: names, and where file k of a thread lives */
void fsm_name_tail(const struct fsm_config *c, unsigned bits, uint64_t mask, uint64_t salt,
		   unsigned jt, unsigned th, uint64_t k, char *name);
void fsm_name_bits(const struct fsm_config *c, unsigned *bits, uint64_t *mask);
unsigned fsm_subdir_of(const struct fsm_config *c, const struct fsm_thread *t,
		       const struct fsm_seg *g, uint64_t k);
const struct fsm_seg *fsm_seg_of(const struct fsm_thread *t, uint64_t k, unsigned *hint);
int fsm_locate(struct fsm_thread *t, uint64_t k, unsigned *hint);
void fsm_path_of(const struct fsm_thread *t, const struct fsm_seg *g, uint64_t k, char *buf,
		 size_t len);
int fsm_seg_push(struct fsm_thread *t, uint64_t k0, unsigned sub0, time_t now);
void fsm_fail_file(struct fsm_thread *t, int err, const char *what, uint64_t k, unsigned *hint);

/* fs_mark_create.c, fs_mark_phases.c: each phase's work, every phase's finish hook (the engine's
 * kernel workers), and the cleanup callback */
int fsm_create_work(struct worker *w);
int fsm_stat_work(struct worker *w);
int fsm_read_work(struct worker *w);
int fsm_unlink_work(struct worker *w);
void fsm_finish(struct worker *w);
int fsm_cleanup_files(void *arg);

/* fs_mark_setup.c: directories, descriptors, space, --layout */
uint64_t fsm_nofile_need(const struct fsm_config *c);
int fsm_setup(struct fsm_state *s);
int fsm_space_check(const struct fsm_state *s, uint64_t files_per_thread, char *why, size_t len);
void fsm_use_pct(const struct fsm_state *s, int *blocks, int *inodes);
void fsm_layout_groups_init(struct fsm_state *s, struct fsm_result *r);
void fsm_layout_sample(struct fsm_state *s, struct fsm_iter *it);

/* fs_mark_run.c: the iterations and the result */
int fsm_reserve(struct fsm_result *r, unsigned n);
void fsm_iter_release(struct fsm_iter *it);
void fsm_run_figures(struct fsm_result *r);
int fsm_run(struct driver *d, const void *cfg, void *result);
void fsm_result_drop_state(void *result);
void fsm_result_free(void *result);

/* fs_mark_merge.c: runs of processes side by side (fsbench-mpi) */
int fsm_merge(void *dst, const void *src);
int fsm_pack(const void *result, int64_t off, struct pack *o);
int fsm_unpack(void *result, struct unpack *u);
int fsm_pack_unit(const void *unit, int64_t off, struct pack *o);
int fsm_unpack_unit(void *unit, struct unpack *u);
int fsm_merge_unit(void *dst, const void *src);
void fsm_unit_free(void *unit);

#endif
