/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tiotest's parts between its files: the per-thread state, the -c block header, and what one
 * part calls in another (the op loop, setup, the run, merge and pack). */
#ifndef FSB_WORKLOAD_TIOTEST_INT_H
#define FSB_WORKLOAD_TIOTEST_INT_H

#include "workload/tiotest.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <zlib.h>

#include "core/cleanup.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/outfile.h"
#include "core/pack.h"
#include "workload/run_opts.h"
#include "workload/workload.h"
#include "engine/engine.h"

extern char **environ;

static const bool phase_writes[TIO_NPHASES] = { true, true, false, false };
static const bool phase_random[TIO_NPHASES] = { false, true, false, true };

/* What persists for one thread across phases: its file and, with -c, which generation each
 * block holds (0: sequential write, 1: random write). */
struct tio_thread {
	char path[PATH_MAX];
	/* what path must still be when a phase reopens it: the file fsbench created (dev, ino),
	 * or with -R the device (rdev) the run holds */
	dev_t dev, rdev;
	ino_t ino;
	uint64_t base;           /* first byte of the thread's region (non-zero only with -R) */
	uint64_t written;        /* blocks a write phase the time limit stopped wrote (0: all):
				  * the later phases stay inside them, not in the file's hole */
	unsigned char *gen;      /* -c: one bit per block */
	void *buf;               /* bs bytes, page aligned (O_DIRECT) */
	/* the queued path (tio_queued()): the engine context, made once for every phase so a
	 * ring's setup is not inside a phase's time, and one slot per request in flight */
	struct engine_ctx ctx;
	struct tio_slot *slots;
	void *qbuf;              /* the slots' blocks, each page aligned */
	struct tio_slot **free_slots;
	struct engine_req **sub, **done;
};

/* One op in flight on the queued path. A short transfer is resubmitted for the rest in the
 * same slot, and the op counts once, from its first submission to its last completion (what
 * engine_psync_rw's loop does at depth 1). */
struct tio_slot {
	struct engine_req req;
	unsigned char *buf;
	uint64_t b, off;         /* block index and its offset */
	uint64_t t0;             /* the first submission (lat_now units), 0 before */
};

struct tio_worker {
	const struct tio_config *c;
	struct tio_thread *t;
	enum tio_phase phase;
	uint64_t seed;           /* this thread's seed for this phase */
	uint64_t flush_ns;
	struct engine_workers wq;  /* the engine's kernel workers at the end of the phase */
	struct opstat st;
};

/* splitmix64: tiny, fast, and good enough for offsets and payload bytes */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* uniform in [0, n) by multiply-shift: no modulo bias worth the name, no division */
static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}


/* -c block layout: a 32-byte header, then payload from a PRNG keyed by (seed, offset). */
#define VHDR_MAGIC 0x46534231u   /* "FSB1" */
struct vhdr {
	uint32_t magic;
	uint32_t crc;            /* crc32 of the whole block with this field zero */
	uint64_t offset;
	uint64_t seed;
	uint32_t file_id;
	uint32_t gen;
};


/* --between-phases: FSBENCH_FILES_LIST names a file with the test files one per line (a shell
 * loop can read it whatever the paths hold; FSBENCH_FILES, space-separated, breaks on spaces),
 * in a private directory (mkdtemp, 0700) so that nothing can be planted at its name. Both are
 * registered for cleanup the moment they exist and removed by tio_run() at its end. */
struct tio_list {
	char dir[PATH_MAX];
	char path[PATH_MAX + 16];
};

/* tiotest_io.c: the per-thread op loop */
bool tio_queued(const struct tio_config *c);
unsigned tio_depth(const struct tio_config *c);
int tio_work(struct worker *w);
int tio_prepare(struct worker *w);
void tio_finish(struct worker *w);

/* tiotest_setup.c: the test files, --between-phases, the queued path's contexts */
int tio_drop_caches(void);
int tio_list_create(const struct tio_config *c, const struct tio_thread *th, struct tio_list *l);
void tio_list_remove(struct tio_list *l);
int tio_run_between(const struct tio_config *c, enum tio_phase done, int next,
		    struct tio_thread *th, const struct tio_list *list);
void tio_queue_free(struct tio_thread *t);
int tio_setup_threads(struct driver *d, const struct tio_config *c, struct tio_thread *th, int pid,
		      int *excl);

/* tiotest_run.c: the phases and the result */
int tio_run(struct driver *d, const void *cfg, void *result);
void tio_result_free(void *result);

/* tiotest_merge.c: runs of processes side by side (fsbench-mpi) */
int tio_merge(void *dst, const void *src);
int tio_pack(const void *result, int64_t off, struct pack *o);
int tio_unpack(void *result, struct unpack *u);

#endif
