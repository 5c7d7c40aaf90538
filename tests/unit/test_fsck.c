/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsck: the verdict from each checker's exit status and output, and its problem lines without
 * the progress lines, on the checkers' real output (e2fsprogs 1.47, xfsprogs 6.1, btrfs-progs
 * 6.2); then a filesystem with no checker, and a device that does not exist; the default time
 * limit (sys/fsdev.h: 600 s plus 10 s per GiB, rounded up) for a few sizes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "sys/fsck.h"
#include "sys/fsdev.h"

static const char e2_clean[] =
	"e2fsck 1.47.0 (5-Feb-2023)\n"
	"Pass 1: Checking inodes, blocks, and sizes\n"
	"Pass 2: Checking directory structure\n"
	"Pass 3: Checking directory connectivity\n"
	"Pass 4: Checking reference counts\n"
	"Pass 5: Checking group summary information\n"
	"e.img: 32/51200 files (15.6% non-contiguous), 90195/204800 blocks\n";

static const char e2_corrupt[] =
	"e2fsck 1.47.0 (5-Feb-2023)\n"
	"Pass 1: Checking inodes, blocks, and sizes\n"
	"Deleted inode 12 has zero dtime.  Fix? no\n"
	"\n"
	"Pass 2: Checking directory structure\n"
	"Entry 'f' in / (2) has deleted/unused inode 12.  Clear? no\n"
	"\n"
	"Pass 3: Checking directory connectivity\n"
	"Pass 4: Checking reference counts\n"
	"Pass 5: Checking group summary information\n"
	"Block bitmap differences:  -(16385--24576) -(26625--28672)\n"
	"Fix? no\n"
	"\n"
	"Inode bitmap differences:  -12\n"
	"Fix? no\n"
	"\n"
	"\n"
	"c.img: ********** WARNING: Filesystem still has errors **********\n"
	"\n"
	"c.img: 32/51200 files (15.6% non-contiguous), 90195/204800 blocks\n";

static const char xfs_clean[] =
	"Phase 1 - find and verify superblock...\n"
	"Phase 2 - using internal log\n"
	"        - zero log...\n"
	"        - scan filesystem freespace and inode maps...\n"
	"        - found root inode chunk\n"
	"Phase 3 - for each AG...\n"
	"        - agno = 0\n"
	"No modify flag set, skipping phase 5\n"
	"Phase 7 - verify link counts...\n"
	"No modify flag set, skipping filesystem flush and exiting.\n";

static const char xfs_corrupt[] =
	"Phase 1 - find and verify superblock...\n"
	"Phase 3 - for each AG...\n"
	"        - agno = 0\n"
	"bad magic number 0x0 on inode 131\n"
	"would have cleared inode 131\n"
	"Phase 7 - verify link counts...\n"
	"No modify flag set, skipping filesystem flush and exiting.\n";

static const char btrfs_clean[] =
	"Opening filesystem to check...\n"
	"Checking filesystem on b.img\n"
	"UUID: cfa41d23-ba14-4dfd-8da6-8961ee9f3aea\n"
	"[1/7] checking root items\n"
	"[2/7] checking extents\n"
	"[7/7] checking quota groups skipped (not enabled on this FS)\n"
	"found 147456 bytes used, no error found\n"
	"total csum bytes: 0\n"
	"total tree bytes: 147456\n"
	"total fs tree bytes: 32768\n"
	"total extent tree bytes: 16384\n"
	"btree space waste bytes: 140595\n"
	"file data blocks allocated: 0\n"
	" referenced 0\n";

static const char btrfs_corrupt[] =
	"Opening filesystem to check...\n"
	"Checking filesystem on b.img\n"
	"[4/7] checking fs roots\n"
	"root 5 inode 257 errors 2000, link count wrong\n"
	"ERROR: errors found in fs roots\n"
	"found 147456 bytes used, error(s) found\n";

static const char btrfs_cannot[] =
	"ERROR: not a btrfs filesystem: /dev/loop9\n"
	"ERROR: cannot open file system\n";

int main(void)
{
	static const struct {
		const char *tool, *out;
		int exit_code, signal;
		enum fsck_verdict want;
		unsigned lines;
		const char *first;   /* the first problem line, NULL for none */
	} cases[] = {
		{ "e2fsck", e2_clean, 0, 0, FSCK_CLEAN, 0, NULL },
		{ "e2fsck", e2_corrupt, 4, 0, FSCK_ERRORS, 7, "Deleted inode 12 has zero dtime.  Fix? no" },
		{ "e2fsck", e2_corrupt, 1, 0, FSCK_ERRORS, 7, "Deleted inode 12 has zero dtime.  Fix? no" },
		{ "e2fsck", "e2fsck: No such file or directory while trying to open x\n", 8, 0, FSCK_FAILED, 1,
		  "e2fsck: No such file or directory while trying to open x" },
		{ "e2fsck", "", 12, 0, FSCK_FAILED, 0, NULL },
		{ "e2fsck", e2_corrupt, 12, 0, FSCK_ERRORS, 7, "Deleted inode 12 has zero dtime.  Fix? no" },
		{ "e2fsck", e2_corrupt, 8, 0, FSCK_FAILED, 7, "Deleted inode 12 has zero dtime.  Fix? no" },
		{ "e2fsck", e2_clean, -1, 9, FSCK_FAILED, 0, NULL },
		{ "xfs_repair", xfs_clean, 0, 0, FSCK_CLEAN, 0, NULL },
		{ "xfs_repair", xfs_corrupt, 1, 0, FSCK_ERRORS, 2, "bad magic number 0x0 on inode 131" },
		{ "xfs_repair", "fatal error -- couldn't initialize XFS library\n", 2, 0, FSCK_FAILED, 1, NULL },
		{ "btrfs", btrfs_clean, 0, 0, FSCK_CLEAN, 0, NULL },
		{ "btrfs", btrfs_corrupt, 1, 0, FSCK_ERRORS, 3, "root 5 inode 257 errors 2000, link count wrong" },
		{ "btrfs", btrfs_cannot, 1, 0, FSCK_FAILED, 2, "ERROR: not a btrfs filesystem: /dev/loop9" },
	};
	struct fsck_result r;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned n;
		char *m = fsck_messages(cases[i].tool, cases[i].out, FSCK_MSG_LINES, &n);
		enum fsck_verdict v = fsck_verdict_of(cases[i].tool, cases[i].exit_code, cases[i].signal, cases[i].out);

		CHECK(v == cases[i].want, "case %zu (%s exit %d): %s, want %s", i, cases[i].tool,
		      cases[i].exit_code, fsck_verdict_name[v], fsck_verdict_name[cases[i].want]);
		CHECK(m && n == cases[i].lines, "case %zu: %u problem lines, want %u: '%s'", i, n, cases[i].lines,
		      m ? m : "");
		if (m && cases[i].first)
			CHECK(!strncmp(m, cases[i].first, strlen(cases[i].first)) &&
			      (m[strlen(cases[i].first)] == '\n' || !m[strlen(cases[i].first)]),
			      "case %zu: first line '%.60s'", i, m);
		free(m);
	}
	{
		unsigned n;
		char *m = fsck_messages("e2fsck", e2_corrupt, 2, &n);

		CHECK(m && n == 7 && !strcmp(m, "Deleted inode 12 has zero dtime.  Fix? no\n"
				       "Entry 'f' in / (2) has deleted/unused inode 12.  Clear? no"),
		      "two kept of %u, no trailing newline: '%s'", n, m ? m : "");
		free(m);
	}
	CHECK(fsck_run("/dev/null", "tmpfs", NULL, &r) == 0 && r.verdict == FSCK_ABSENT && !r.tool &&
	      strstr(r.why, "tmpfs has no checker"), "tmpfs: absent: %s", r.why);
	fsck_result_free(&r);
	CHECK(fsck_run("/nonexistent/device", "ext4", NULL, &r) == -ENOENT && r.verdict == FSCK_FAILED &&
	      strstr(r.why, "No such file"), "no device: %s", r.why);
	fsck_result_free(&r);
	CHECK(fsck_run("/dev/null", "ext4", NULL, &r) == -EINVAL && strstr(r.why, "neither a block device"),
	      "a character device is not a filesystem: %s", r.why);
	fsck_result_free(&r);
	{
		static const struct { uint64_t bytes, s; } lim[] = {
			{ 0, 600 }, { 1, 610 }, { UINT64_C(32) << 20, 610 }, { UINT64_C(1) << 30, 610 },
			{ (UINT64_C(1) << 30) + 1, 620 }, { UINT64_C(100) << 30, 1600 },
			{ UINT64_C(4) << 40, 600 + 4096 * 10 }, { UINT64_C(1) << 44, 600 + 16384 * 10 },
		};

		for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++)
			CHECK(fsdev_timeout_ns(lim[i].bytes) == lim[i].s * UINT64_C(1000000000),
			      "default limit for %llu bytes: %llu s, expected %llu", (unsigned long long)lim[i].bytes,
			      (unsigned long long)(fsdev_timeout_ns(lim[i].bytes) / 1000000000),
			      (unsigned long long)lim[i].s);
	}
	return check_done("test_fsck");
}
