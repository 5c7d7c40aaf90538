/* SPDX-License-Identifier: GPL-2.0-or-later */
/* freespace: e2freefrag's and xfs_db's output (e2fsprogs 1.47, xfsprogs 6.1, real runs) parsed
 * into the histogram and totals; output that is not theirs refused; btrfs and tmpfs absent. */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "sys/freespace.h"

static const char e2[] =
	"Device: e.img\n"
	"Blocksize: 1024 bytes\n"
	"Total blocks: 204800\n"
	"Free blocks: 114605 (56.0%)\n"
	"\n"
	"Min. free extent: 64 KB \n"
	"Max. free extent: 69101 KB\n"
	"Avg. free extent: 5457 KB\n"
	"Num. free extent: 21\n"
	"\n"
	"HISTOGRAM OF FREE EXTENT SIZES:\n"
	"Extent Size Range :  Free extents   Free Blocks  Percent\n"
	"   64K...  128K-  :             3           253    0.22%\n"
	"  128K...  256K-  :             2           460    0.40%\n"
	"  256K...  512K-  :             2           640    0.56%\n"
	"  512K... 1024K-  :             2          1344    1.17%\n"
	"    1M...    2M-  :             6          8381    7.31%\n"
	"    2M...    4M-  :             2          4416    3.85%\n"
	"    4M...    8M-  :             2         13885   12.12%\n"
	"    8M...   16M-  :             1         16125   14.07%\n"
	"   64M...  128M-  :             1         69101   60.29%\n";

static const char xfs[] =
	"blocksize = 4096\n"
	"   from      to extents  blocks    pct\n"
	"      1       1      16      16   0.04\n"
	"      4       7       1       6   0.01\n"
	"   2048    4095       2    6622  14.71\n"
	"  16384   19200       2   38380  85.24\n"
	"total free extents 21\n"
	"total free blocks 45024\n"
	"average free extent size 2144\n";

int main(void)
{
	struct freespace_result r;

	memset(&r, 0, sizeof(r));
	CHECK(freespace_parse_e2freefrag(e2, &r) == 0, "e2freefrag parses");
	CHECK(r.block_bytes == 1024 && r.total_bytes == 204800ull * 1024 && r.free_bytes == 114605ull * 1024 &&
	      r.free_extents == 21 && r.largest_bytes == 69101ull * 1024, "e2freefrag totals");
	CHECK(r.nbuckets == 9 && r.b[0].min_bytes == 64 << 10 && r.b[0].max_bytes == 128 << 10 &&
	      r.b[0].extents == 3 && r.b[0].free_bytes == 253 * 1024 && r.b[3].max_bytes == 1024 << 10 &&
	      r.b[4].min_bytes == 1 << 20 && r.b[8].min_bytes == 64u << 20 && r.b[8].max_bytes == 128u << 20,
	      "e2freefrag buckets: %u", r.nbuckets);
	memset(&r, 0, sizeof(r));
	CHECK(freespace_parse_xfs_db(xfs, &r) == 0, "xfs_db parses");
	CHECK(r.block_bytes == 4096 && r.free_bytes == 45024ull * 4096 && r.free_extents == 21 &&
	      r.total_bytes == 0 && r.largest_bytes == 0, "xfs_db totals");
	CHECK(r.nbuckets == 4 && r.b[0].min_bytes == 4096 && r.b[0].max_bytes == 8192 && r.b[0].extents == 16 &&
	      r.b[1].min_bytes == 4 * 4096 && r.b[1].max_bytes == 8 * 4096 && r.b[3].max_bytes == 19201ull * 4096 &&
	      r.b[3].free_bytes == 38380ull * 4096, "xfs_db buckets: %u", r.nbuckets);
	/* not what the tools print, or not adding up: refused, never half a histogram */
	CHECK(freespace_parse_e2freefrag("", &r) == -EPROTO, "empty");
	CHECK(freespace_parse_e2freefrag(xfs, &r) == -EPROTO, "xfs_db's output is not e2freefrag's");
	CHECK(freespace_parse_xfs_db(e2, &r) == -EPROTO, "e2freefrag's output is not xfs_db's");
	{
		char bad[sizeof(e2)];

		memcpy(bad, e2, sizeof(e2));
		memcpy(strstr(bad, "Num. free extent: 21"), "Num. free extent: 22", 20);
		CHECK(freespace_parse_e2freefrag(bad, &r) == -EPROTO, "a histogram short of the total");
		memcpy(bad, e2, sizeof(e2));
		memcpy(strstr(bad, "   64K"), "   64X", 6);
		CHECK(freespace_parse_e2freefrag(bad, &r) == -EPROTO, "an unknown unit");
	}
	CHECK(freespace_run("/dev/null", "btrfs", NULL, &r) == 0 && r.absent && strstr(r.why, "per chunk"),
	      "btrfs: absent: %s", r.why);
	freespace_result_free(&r);
	CHECK(freespace_run("tmpfs", "tmpfs", NULL, &r) == 0 && r.absent && strstr(r.why, "tmpfs has no"),
	      "tmpfs: absent: %s", r.why);
	freespace_result_free(&r);
	CHECK(freespace_run("/nonexistent", "ext4", NULL, &r) == -ENOENT && r.absent, "no device");
	freespace_result_free(&r);
	return check_done("test_freespace");
}
