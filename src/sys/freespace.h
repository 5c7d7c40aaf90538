/* SPDX-License-Identifier: GPL-2.0-or-later */
/* After a run: free-space fragmentation, from the filesystem's own tool, parsed into a histogram
 * of free extent sizes (fsbench matrix --after freespace; fsbench __after freespace exercises it).
 *
 *   ext2, ext3, ext4   e2freefrag DEVICE
 *   xfs                xfs_db -r -c "sb 0" -c "p blocksize" -c "freesp -s" DEVICE
 *   btrfs, others      absent, with the reason (btrfs-progs reports free space per chunk, not
 *                      the sizes of free extents)
 * Both tools read the device: on a mounted filesystem what they read would lag behind what the
 * kernel holds in memory, so a mounted or busy device is refused as fsck refuses it (-EBUSY,
 * busy set, nothing run). The tool runs through sys/spawn.h (argv, no shell, LC_ALL=C, timed,
 * its process group killed at the time limit, o->timeout_ns, FSDEV_TIMEOUT_AUTO for the
 * default from the device's size, or when o->stop says so).
 *
 * Use:
 *	struct freespace_result r;
 *	if (freespace_run("/dev/loop0", "ext4", NULL, &r) == 0 && !r.absent)
 *		... r.free_bytes, r.free_extents, r.b[0 .. r.nbuckets-1] ...
 *	freespace_result_free(&r);
 * report/json_after.h writes it as JSON, report/after_text.h as text. */
#ifndef FSB_SYS_FREESPACE_H
#define FSB_SYS_FREESPACE_H
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "sys/spawn.h"

#define FREESPACE_MAX_BUCKETS 64
#define FREESPACE_WHY_MAX 256

/* free extents of min_bytes <= size < max_bytes */
struct freespace_bucket {
	uint64_t min_bytes, max_bytes, extents, free_bytes;
};

struct freespace_result {
	bool absent;                 /* no figures: why */
	char why[FREESPACE_WHY_MAX];
	char fstype[32];
	char device[PATH_MAX];       /* as resolved */
	bool busy;                   /* the device was mounted or in use: refused */
	const char *tool;            /* "e2freefrag", "xfs_db"; NULL when absent */
	char command[PATH_MAX + 128];
	uint64_t block_bytes;
	uint64_t total_bytes;        /* 0: the tool does not say (xfs_db) */
	uint64_t free_bytes, free_extents;
	uint64_t largest_bytes;      /* 0: the tool does not say (xfs_db: only the bucket) */
	unsigned nbuckets;
	struct freespace_bucket b[FREESPACE_MAX_BUCKETS];
	uint64_t timeout_ns;         /* the time limit it ran under; 0: none */
	struct spawn_result run;     /* exit status, times, RSS, the whole output */
};

/* 0 when it ran and parsed, or there is no tool for fstype (absent, why); -ENOENT (no such
 * device, or the tool is not installed: absent), -EINVAL (not a device or image), -EBUSY
 * (mounted or in use: nothing run), -EPROTO (the tool failed or printed what fsbench cannot
 * parse: absent, why quotes it), -ETIMEDOUT (killed at the time limit), -EINTR (stopped), or
 * another -errno.
 * r is always safe to freespace_result_free(). o may be NULL. */
int freespace_run(const char *device, const char *fstype, const struct spawn_opts *o,
		  struct freespace_result *r);
void freespace_result_free(struct freespace_result *r);
/* fstype's free-space tool ("e2freefrag", "xfs_db"), NULL when there is none (btrfs) */
const char *freespace_tool(const char *fstype);

/* The parsers, for tests: the tool's output into r's figures and buckets. 0, or -EPROTO when
 * the output is not what the tool prints (no histogram, totals that do not add up). */
int freespace_parse_e2freefrag(const char *out, struct freespace_result *r);
int freespace_parse_xfs_db(const char *out, struct freespace_result *r);
#endif
