/* SPDX-License-Identifier: GPL-2.0-or-later */
/* layout: the extent walk on synthetic FIEMAP extents (merging, adjacency, holes, delayed
 * allocation, inline data), the sums and figures, the histogram buckets, the ext4 superblock
 * parser and group arithmetic; then FIEMAP on a real file here and on tmpfs (absent). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>

#include "check.h"
#include "sys/layout.h"

#define K 1024ull
#define E(l, p, n, fl) { .fe_logical = (l) * K, .fe_physical = (p) * K, .fe_length = (n) * K, .fe_flags = (fl) }

static void walk(const struct fiemap_extent *e, unsigned n, struct layout_file *f)
{
	struct layout_walk w;

	layout_walk_init(&w, f);
	for (unsigned i = 0; i < n; i++)
		layout_walk_add(&w, &e[i]);
}

static void walks(void)
{
	static const struct {
		const char *what;
		struct fiemap_extent e[6];
		unsigned n;
		uint64_t extents, raw, discont, mapped_k, unknown_k;
		bool inl;
	} cases[] = {
		{ "one extent", { E(0, 100, 64, FIEMAP_EXTENT_LAST) }, 1, 1, 1, 0, 64, 0, false },
		{ "split by the filesystem, contiguous: one", { E(0, 100, 64, 0), E(64, 164, 64, FIEMAP_EXTENT_LAST) },
		  2, 1, 2, 0, 128, 0, false },
		{ "physical gap: two, one discontinuity", { E(0, 100, 64, 0), E(64, 300, 64, FIEMAP_EXTENT_LAST) },
		  2, 2, 2, 1, 128, 0, false },
		{ "backwards: a discontinuity", { E(0, 500, 8, 0), E(8, 100, 8, FIEMAP_EXTENT_LAST) },
		  2, 2, 2, 1, 16, 0, false },
		{ "logical hole, physically continuous: two, no discontinuity",
		  { E(0, 100, 8, 0), E(64, 108, 8, FIEMAP_EXTENT_LAST) }, 2, 2, 2, 0, 16, 0, false },
		{ "unwritten next to written: merged", { E(0, 100, 8, 0), E(8, 108, 8, FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_LAST) },
		  2, 1, 2, 0, 16, 0, false },
		{ "random rewrites: every other block elsewhere",
		  { E(0, 100, 4, 0), E(4, 900, 4, 0), E(8, 108, 4, 0), E(12, 904, 4, 0), E(16, 116, 4, FIEMAP_EXTENT_LAST) },
		  5, 5, 5, 4, 20, 0, false },
		{ "delayed allocation: unknown, no adjacency",
		  { E(0, 100, 8, 0), E(8, 0, 8, FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN), E(16, 108, 8, FIEMAP_EXTENT_LAST) },
		  3, 2, 3, 0, 16, 8, false },
		{ "inline data: one extent, no place", { E(0, 4, 1, FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_LAST) },
		  1, 1, 1, 0, 1, 0, true },
		{ "empty file", { E(0, 0, 0, 0) }, 0, 0, 0, 0, 0, 0, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct layout_file f;

		walk(cases[i].e, cases[i].n, &f);
		CHECK(f.extents == cases[i].extents, "%s: %llu extents", cases[i].what, (unsigned long long)f.extents);
		CHECK(f.fiemap_extents == cases[i].raw, "%s: %llu raw", cases[i].what, (unsigned long long)f.fiemap_extents);
		CHECK(f.discontinuities == cases[i].discont, "%s: %llu discontinuities", cases[i].what,
		      (unsigned long long)f.discontinuities);
		CHECK(f.mapped_bytes == cases[i].mapped_k * K, "%s: %llu mapped", cases[i].what, (unsigned long long)f.mapped_bytes);
		CHECK(f.unknown_bytes == cases[i].unknown_k * K, "%s: %llu unknown", cases[i].what,
		      (unsigned long long)f.unknown_bytes);
		CHECK(f.inline_data == cases[i].inl, "%s: inline %d", cases[i].what, f.inline_data);
	}
	{
		struct fiemap_extent e[] = { E(0, 100, 8, 0) };
		struct layout_file f;

		walk(e, 1, &f);
		CHECK(f.first_physical == 100 * K, "first physical %llu", (unsigned long long)f.first_physical);
		walk(e, 0, &f);
		CHECK(f.first_physical == UINT64_MAX, "no extent: first physical %llu", (unsigned long long)f.first_physical);
	}
}

static void buckets(void)
{
	static const struct { uint64_t n; unsigned b; } cases[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 3 }, { 5, 4 }, { 8, 4 }, { 9, 5 }, { 16, 5 },
		{ 17, 6 }, { 512, 10 }, { 513, 11 }, { UINT64_C(1) << 40, 11 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(layout_hist_bucket(cases[i].n) == cases[i].b, "%llu extents: bucket %u, want %u",
		      (unsigned long long)cases[i].n, layout_hist_bucket(cases[i].n), cases[i].b);
	for (unsigned b = 0; b < LAYOUT_HIST_N; b++)
		CHECK(layout_hist_bucket(layout_hist_max(b)) == b, "bucket %u's max lands in it", b);
}

static void sums(void)
{
	struct fiemap_extent one[] = { E(0, 100, 64, 0) };
	struct fiemap_extent two[] = { E(0, 100, 32, 0), E(32, 400, 32, 0) };
	struct fiemap_extent dl[] = { E(0, 0, 8, FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN) };
	struct layout_sum s = { 0 }, t = { 0 };
	struct layout_file f;

	CHECK(isnan(layout_extents_per_file(&s)) && isnan(layout_one_extent_pct(&s)) &&
	      isnan(layout_extents_per_mib(&s)) && isnan(layout_mean_extent_bytes(&s)),
	      "no placed file: every figure absent (NaN), never 0");
	walk(one, 1, &f);
	layout_sum_add(&s, &f);
	layout_sum_add(&s, &f);
	walk(two, 2, &f);
	layout_sum_add(&s, &f);
	walk(dl, 1, &f);
	layout_sum_add(&s, &f);
	walk(one, 0, &f);
	layout_sum_add(&s, &f);
	CHECK(s.files == 5 && s.placed == 3 && s.unplaced == 1 && s.empty == 1, "files %llu placed %llu "
	      "unplaced %llu empty %llu", (unsigned long long)s.files, (unsigned long long)s.placed,
	      (unsigned long long)s.unplaced, (unsigned long long)s.empty);
	CHECK(s.extents == 4 && s.one_extent == 2 && s.discontinuities == 1 && s.max_extents == 2,
	      "extents %llu one %llu", (unsigned long long)s.extents, (unsigned long long)s.one_extent);
	CHECK(fabs(layout_extents_per_file(&s) - 4.0 / 3) < 1e-9, "extents per file %g", layout_extents_per_file(&s));
	CHECK(fabs(layout_one_extent_pct(&s) - 200.0 / 3) < 1e-9, "one extent %g%%", layout_one_extent_pct(&s));
	CHECK(fabs(layout_extents_per_mib(&s) - 4 / (192.0 / 1024)) < 1e-9, "per MiB %g", layout_extents_per_mib(&s));
	CHECK(fabs(layout_mean_extent_bytes(&s) - 192.0 * 1024 / 4) < 1e-9, "mean %g", layout_mean_extent_bytes(&s));
	CHECK(s.hist[1] == 2 && s.hist[2] == 1, "histogram %llu %llu", (unsigned long long)s.hist[1],
	      (unsigned long long)s.hist[2]);
	layout_sum_merge(&t, &s);
	layout_sum_merge(&t, &s);
	CHECK(t.files == 10 && t.extents == 8 && t.hist[1] == 4 && t.max_extents == 2, "merge");
	CHECK(fabs(layout_extents_per_file(&t) - layout_extents_per_file(&s)) < 1e-12, "merged figures recomputed");
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8 & 0xff;
	p[2] = v >> 16 & 0xff;
	p[3] = v >> 24;
}

static void groups(void)
{
	unsigned char sb[1024] = { 0 };
	struct layout_groups g;
	struct layout_locality l = { 0 };
	struct layout_file f;

	CHECK(layout_ext4_sb_parse(sb, sizeof(sb), &g) == -EINVAL, "no magic: not a superblock");
	/* 1 KiB blocks (a small mke2fs), 204800 blocks, 8192 per group, 2048 inodes per group */
	put32(sb + 4, 204800);
	put32(sb + 20, 1);
	put32(sb + 24, 0);
	put32(sb + 32, 8192);
	put32(sb + 40, 2048);
	sb[56] = 0x53;
	sb[57] = 0xEF;
	put32(sb + 96, 0x200);     /* flex_bg */
	sb[0x174] = 4;             /* 16 groups per flex */
	CHECK(layout_ext4_sb_parse(sb, sizeof(sb), &g) == 0, "parse");
	CHECK(g.exact && g.block_bytes == 1024 && g.first_data_block == 1 && g.blocks_per_group == 8192 &&
	      g.inodes_per_group == 2048 && g.groups == 25 && g.groups_per_flex == 16,
	      "geometry: %u-byte blocks, first %llu, %llu per group, %llu inodes, %llu groups, flex %u",
	      g.block_bytes, (unsigned long long)g.first_data_block, (unsigned long long)g.blocks_per_group,
	      (unsigned long long)g.inodes_per_group, (unsigned long long)g.groups, g.groups_per_flex);
	/* block 1..8192 is group 0, 8193.. group 1; inode 1..2048 group 0, 2049.. group 1 */
	CHECK(layout_block_group(&g, 1 * K) == 0 && layout_block_group(&g, 8192 * K) == 0 &&
	      layout_block_group(&g, 8193 * K) == 1 && layout_block_group(&g, 0) == 0, "block groups");
	CHECK(layout_inode_group(&g, 1) == 0 && layout_inode_group(&g, 2048) == 0 &&
	      layout_inode_group(&g, 2049) == 1, "inode groups");
	{
		struct fiemap_extent e[] = { { .fe_logical = 0, .fe_physical = 8200 * K, .fe_length = 4 * K } };
		struct fiemap_extent far[] = { { .fe_logical = 0, .fe_physical = 20 * 8192 * K + 2 * K, .fe_length = 4 * K } };
		struct fiemap_extent inl[] = { { .fe_logical = 0, .fe_physical = 8200 * K, .fe_length = 60,
						 .fe_flags = FIEMAP_EXTENT_DATA_INLINE } };

		walk(e, 1, &f);
		CHECK(layout_locality_add(&l, &g, 2049, 12, &f) == 1, "data in group 1");
		walk(far, 1, &f);
		CHECK(layout_locality_add(&l, &g, 2049, 2050, &f) == 20, "data in group 20");
		walk(inl, 1, &f);
		CHECK(layout_locality_add(&l, &g, 2049, 12, &f) == UINT64_MAX, "inline: no place of its own");
		CHECK(l.files == 2 && l.in_inode_group == 1 && l.in_dir_group == 0 && l.in_inode_flex == 1 &&
		      l.in_dir_flex == 1 && l.inode_distance_sum == 19,
		      "locality: files %llu inode %llu dir %llu iflex %llu dflex %llu dist %llu",
		      (unsigned long long)l.files, (unsigned long long)l.in_inode_group,
		      (unsigned long long)l.in_dir_group, (unsigned long long)l.in_inode_flex,
		      (unsigned long long)l.in_dir_flex, (unsigned long long)l.inode_distance_sum);
	}
	/* 64-bit block count, 4 KiB blocks */
	put32(sb + 4, 0);
	put32(sb + 0x150, 1);
	put32(sb + 20, 0);
	put32(sb + 24, 2);
	put32(sb + 32, 32768);
	put32(sb + 96, 0x80);
	CHECK(layout_ext4_sb_parse(sb, sizeof(sb), &g) == 0 && g.block_bytes == 4096 &&
	      g.groups == (UINT64_C(1) << 32) / 32768 && g.groups_per_flex == 1, "64-bit: %llu groups",
	      (unsigned long long)g.groups);
	put32(sb + 24, 40);
	CHECK(layout_ext4_sb_parse(sb, sizeof(sb), &g) == -EINVAL, "absurd block size refused");
}

/* FIEMAP itself: a file in the build tree's filesystem, and one on tmpfs */
static void real(void)
{
	char path[4096], shm[] = "/dev/shm/layout-test.XXXXXX", why[LAYOUT_REASON_MAX];
	static char buf[65536];
	struct layout_file f;
	struct statfs sf;
	int fd, rc;

	/* the build tree (make check sets BUILD): a disk filesystem, where /tmp may be tmpfs */
	snprintf(path, sizeof(path), "%s/layout-test.XXXXXX", getenv("BUILD") ? getenv("BUILD") : ".");
	fd = mkstemp(path);

	if (fd < 0) {
		CHECK_SKIP("FIEMAP on a real file", "cannot create a file here: %s", strerror(errno));
	} else {
		unlink(path);
		CHECK(write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) && fsync(fd) == 0, "write");
		rc = layout_fd(fd, &f);
		if (rc == -EOPNOTSUPP) {
			layout_absent_reason(fd, rc, why, sizeof(why));
			CHECK(strstr(why, "not supported"), "reason: %s", why);
			CHECK_SKIP("FIEMAP on a real file", "the build tree's filesystem has no FIEMAP (%s)", why);
		} else {
			CHECK(rc == 0, "layout_fd: %s", strerror(-rc));
			CHECK(f.mapped_bytes + f.unknown_bytes >= sizeof(buf) && f.extents >= 1,
			      "64 KiB written and synced: mapped %llu, %llu extents",
			      (unsigned long long)f.mapped_bytes, (unsigned long long)f.extents);
		}
		close(fd);
	}
	fd = mkstemp(shm);
	if (fd < 0 || fstatfs(fd, &sf) < 0 || sf.f_type != TMPFS_MAGIC) {
		CHECK_SKIP("FIEMAP on tmpfs", "/dev/shm is not a writable tmpfs here");
	} else {
		unsigned long magic;
		const char *name;

		CHECK(write(fd, buf, 4096) == 4096, "write");
		rc = layout_fd(fd, &f);
		CHECK(rc == -EOPNOTSUPP, "tmpfs: %d, want -EOPNOTSUPP", rc);
		layout_absent_reason(fd, rc, why, sizeof(why));
		CHECK(!strcmp(why, "FIEMAP is not supported on tmpfs: no extents to measure"), "reason: %s", why);
		CHECK(layout_fs_type(fd, &magic, &name) == 0 && !strcmp(name, "tmpfs"), "type name");
		{
			struct layout_groups g;

			CHECK(layout_ext4_groups(fd, &g, why, sizeof(why)) == -EOPNOTSUPP && strstr(why, "tmpfs"),
			      "tmpfs has no block groups: %s", why);
		}
	}
	if (fd >= 0) {
		unlink(shm);
		close(fd);
	}
}

int main(void)
{
	walks();
	buckets();
	sums();
	groups();
	real();
	return check_done("test_layout");
}
