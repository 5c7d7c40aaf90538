/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Free-space fragmentation from e2freefrag and xfs_db (sys/freespace.h). */
#include "sys/freespace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fsdev.h"

/* each line of out in turn, NUL-terminated in line (cut at len) */
static const char *next_line(const char *p, char *line, size_t len)
{
	size_t n = strcspn(p, "\n");

	snprintf(line, len, "%.*s", (int)(n < len ? n : len - 1), p);
	return p + n + (p[n] == '\n');
}

static int unit_shift(char u)
{
	switch (u) {
	case 'K': return 10;
	case 'M': return 20;
	case 'G': return 30;
	case 'T': return 40;
	case 'P': return 50;
	default: return -1;
	}
}

/* e2freefrag (e2fsprogs misc/e2freefrag.c):
 *   Blocksize: 4096 bytes / Total blocks: N / Free blocks: N (P%) / Max. free extent: N KB /
 *   Num. free extent: N / HISTOGRAM OF FREE EXTENT SIZES: / a header / rows
 *   "   64K...  128K-  :             3           253    0.22%"  (extents, blocks, percent) */
int freespace_parse_e2freefrag(const char *out, struct freespace_result *r)
{
	unsigned long long v, total = 0, free_blocks = 0, max_kb = 0, nfree = 0;
	bool hist = false, have_free = false, have_num = false;
	uint64_t ext_sum = 0, blk_sum = 0;
	char line[512];

	r->nbuckets = 0;
	r->block_bytes = 0;
	for (const char *p = out; p && *p;) {
		unsigned long long lo, hi, ext, blk;
		char ul, uh;

		p = next_line(p, line, sizeof(line));
		if (sscanf(line, "Blocksize: %llu bytes", &v) == 1)
			r->block_bytes = v;
		else if (sscanf(line, "Total blocks: %llu", &v) == 1)
			total = v;
		else if (sscanf(line, "Free blocks: %llu", &v) == 1)
			free_blocks = v, have_free = true;
		else if (sscanf(line, "Max. free extent: %llu KB", &v) == 1)
			max_kb = v;
		else if (sscanf(line, "Num. free extent: %llu", &v) == 1)
			nfree = v, have_num = true;
		else if (!strncmp(line, "HISTOGRAM OF FREE EXTENT SIZES", 30))
			hist = true;
		else if (hist && sscanf(line, " %llu%c...%llu%c- : %llu %llu", &lo, &ul, &hi, &uh, &ext, &blk) == 6) {
			int sl = unit_shift(ul), sh = unit_shift(uh);
			struct freespace_bucket *b;

			if (sl < 0 || sh < 0 || r->nbuckets >= FREESPACE_MAX_BUCKETS || !r->block_bytes)
				return -EPROTO;
			b = &r->b[r->nbuckets++];
			b->min_bytes = (uint64_t)lo << sl;
			b->max_bytes = (uint64_t)hi << sh;
			b->extents = ext;
			b->free_bytes = blk * r->block_bytes;
			ext_sum += ext;
			blk_sum += blk;
		}
	}
	if (!r->block_bytes || !have_free || !have_num || !hist)
		return -EPROTO;
	/* the histogram holds every free extent (e2freefrag counts the same scan twice) */
	if (ext_sum != nfree || blk_sum != free_blocks)
		return -EPROTO;
	r->total_bytes = total * r->block_bytes;
	r->free_bytes = free_blocks * r->block_bytes;
	r->free_extents = nfree;
	r->largest_bytes = max_kb * 1024;
	return 0;
}

/* xfs_db's "p blocksize" then "freesp -s" (xfsprogs db/freesp.c):
 *   blocksize = 4096 /    from      to extents  blocks    pct / rows "1 1 16 16 0.04" /
 *   total free extents N / total free blocks N / average free extent size X */
int freespace_parse_xfs_db(const char *out, struct freespace_result *r)
{
	unsigned long long v, nfree = 0, free_blocks = 0;
	bool head = false, have_ext = false, have_blk = false;
	uint64_t ext_sum = 0, blk_sum = 0;
	char line[512];

	r->nbuckets = 0;
	r->block_bytes = 0;
	for (const char *p = out; p && *p;) {
		unsigned long long from, to, ext, blk;
		double pct;

		p = next_line(p, line, sizeof(line));
		if (sscanf(line, "blocksize = %llu", &v) == 1)
			r->block_bytes = v;
		else if (strstr(line, "from") && strstr(line, "extents") && strstr(line, "blocks"))
			head = true;
		else if (sscanf(line, "total free extents %llu", &v) == 1)
			nfree = v, have_ext = true;
		else if (sscanf(line, "total free blocks %llu", &v) == 1)
			free_blocks = v, have_blk = true;
		else if (head && sscanf(line, " %llu %llu %llu %llu %lf", &from, &to, &ext, &blk, &pct) == 5) {
			struct freespace_bucket *b;

			if (r->nbuckets >= FREESPACE_MAX_BUCKETS || !r->block_bytes || to < from)
				return -EPROTO;
			b = &r->b[r->nbuckets++];
			b->min_bytes = from * r->block_bytes;
			b->max_bytes = (to + 1) * r->block_bytes;
			b->extents = ext;
			b->free_bytes = blk * r->block_bytes;
			ext_sum += ext;
			blk_sum += blk;
		}
	}
	if (!r->block_bytes || !head || !have_ext || !have_blk || ext_sum != nfree || blk_sum != free_blocks)
		return -EPROTO;
	r->total_bytes = 0;
	r->free_bytes = free_blocks * r->block_bytes;
	r->free_extents = nfree;
	r->largest_bytes = 0;
	return 0;
}

/* the tool's first line, for a reason */
static void first_line(const char *out, char *buf, size_t len)
{
	size_t n = out ? strcspn(out, "\n") : 0;

	snprintf(buf, len, "%.*s", (int)(n < 120 ? n : 120), out ? out : "");
}

const char *freespace_tool(const char *fstype)
{
	if (!strcmp(fstype, "ext2") || !strcmp(fstype, "ext3") || !strcmp(fstype, "ext4"))
		return "e2freefrag";
	return !strcmp(fstype, "xfs") ? "xfs_db" : NULL;
}

int freespace_run(const char *device, const char *fstype, const struct spawn_opts *o,
		  struct freespace_result *r)
{
	const char *e2[] = { "e2freefrag", NULL, NULL };
	const char *xfs[] = { "xfs_db", "-r", "-c", "sb 0", "-c", "p blocksize", "-c", "freesp -s", NULL, NULL };
	const char **argv;
	char first[128];
	struct fsdev d;
	int rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->fstype, sizeof(r->fstype), "%s", fstype);
	snprintf(r->device, sizeof(r->device), "%s", device);
	r->absent = true;
	r->run.exit_code = -1;
	if (freespace_tool(fstype) && !strcmp(freespace_tool(fstype), "e2freefrag")) {
		argv = e2;
	} else if (freespace_tool(fstype)) {
		argv = xfs;
	} else {
		if (!strcmp(fstype, "btrfs"))
			snprintf(r->why, sizeof(r->why), "btrfs has no free-space histogram tool: btrfs-progs "
				 "reports free space per chunk, not the sizes of free extents");
		else
			snprintf(r->why, sizeof(r->why), "%.32s has no free-space histogram tool fsbench knows "
				 "(e2freefrag for ext2/3/4, xfs_db for xfs)", fstype);
		return 0;
	}
	r->tool = argv[0];
	if ((rc = fsdev_resolve(device, &d, r->why, sizeof(r->why))))
		return rc;
	snprintf(r->device, sizeof(r->device), "%s", d.path);
	/* as fsck: what the tool would read of a mounted filesystem lags behind the kernel's */
	if ((r->busy = d.busy)) {
		snprintf(r->why, sizeof(r->why), "'%.160s' is mounted or in use: %s needs it unmounted", d.path,
			 r->tool);
		return -EBUSY;
	}
	argv[argv == e2 ? 1 : 8] = d.path;
	if ((rc = fsdev_tool_run(argv, o, &d, &r->timeout_ns, &r->run, r->command, sizeof(r->command), r->why,
				 sizeof(r->why))))
		return rc;
	first_line(r->run.out, first, sizeof(first));
	if (r->run.timed_out) {
		snprintf(r->why, sizeof(r->why), "%s did not finish within %llu s: timed out, its processes killed",
			 r->tool, (unsigned long long)(r->timeout_ns / 1000000000));
		return -ETIMEDOUT;
	}
	if (r->run.stopped) {
		snprintf(r->why, sizeof(r->why), "%s was stopped, its processes killed", r->tool);
		return -EINTR;
	}
	if (r->run.exit_code != 0) {
		snprintf(r->why, sizeof(r->why), "%s failed (%s %d): %s", r->tool,
			 r->run.signal ? "signal" : "exit", r->run.signal ? r->run.signal : r->run.exit_code, first);
		return -EPROTO;
	}
	rc = argv == e2 ? freespace_parse_e2freefrag(r->run.out, r) : freespace_parse_xfs_db(r->run.out, r);
	if (rc) {
		snprintf(r->why, sizeof(r->why), "%s printed what fsbench cannot parse: %s", r->tool, first);
		return rc;
	}
	r->absent = false;
	return 0;
}

void freespace_result_free(struct freespace_result *r)
{
	spawn_result_free(&r->run);
}
