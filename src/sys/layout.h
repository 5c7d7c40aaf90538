/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where a file's data lies on its device, as the filesystem itself says (FS_IOC_FIEMAP, fstat,
 * fstatfs; no outside tool): extents, physical discontinuities, and on ext4 the block group of
 * the data against the group of its inode and of its directory.
 *
 * Extents. FIEMAP returns the file's mappings in logical order. Two that continue each other
 * both logically and physically are one extent here (a filesystem's own cap on extent length,
 * ext4's 32768 blocks, or btrfs's per-item split, is not fragmentation): the count filefrag
 * prints. A discontinuity is an extent whose physical start is not where the previous one
 * ended, a seek for a reader going through the file in order; a logical hole whose data
 * continues physically is not one. Extents whose place is not known yet (FIEMAP_EXTENT_UNKNOWN:
 * delayed allocation before writeback) are counted apart and take no part in adjacency;
 * fsbench never forces their writeback (FIEMAP_FLAG_SYNC), which would change the layout it
 * measures. Data kept inside metadata (FIEMAP_EXTENT_DATA_INLINE: btrfs and ext4 inline data)
 * is one extent with no place of its own.
 *
 * ext4 block groups. Group g holds blocks [first_data_block + g * blocks_per_group, ...) and
 * inodes [g * inodes_per_group + 1, ...]. Exact from the superblock (bytes 1024..2047 of the
 * device, read when fsbench may open it: root); otherwise derived from fstatfs, which gives
 * the block size and the inode count but not the geometry: blocks_per_group is taken as mke2fs's
 * default (8 x block size, one bitmap block), first_data_block as 1 for 1 KiB blocks, and
 * inodes_per_group as inodes / groups, with the group count from f_blocks, which ext4 reports
 * less its metadata overhead: approximate (the source says so). Data group = physical block /
 * blocks_per_group (after first_data_block); inode group = (ino - 1) / inodes_per_group.
 *
 * Every function returns 0 or -errno and never prints. */
#ifndef FSB_SYS_LAYOUT_H
#define FSB_SYS_LAYOUT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/fiemap.h>

#define LAYOUT_HIST_N 12         /* extents per file: 0, 1, 2, 3-4, 5-8, ..., 257-512, more */
#define LAYOUT_REASON_MAX 160

/* One file's layout. */
struct layout_file {
	uint64_t extents;            /* merged as above, inline data counted as one */
	uint64_t fiemap_extents;     /* as FIEMAP returned them */
	uint64_t discontinuities;    /* extents not starting where the previous one ended */
	uint64_t mapped_bytes;       /* data with a known place (inline data included) */
	uint64_t unknown_bytes;      /* data with no place yet (delayed allocation) */
	uint64_t first_physical;     /* byte address of the first placed extent; UINT64_MAX: none */
	bool inline_data;            /* the data lives in metadata: no place of its own */
	bool shared, encoded;        /* some extent is shared (reflink, snapshot) / compressed */
};

/* The extent walk behind layout_fd, one FIEMAP extent at a time in logical order: it keeps
 * nothing but the previous extent, so a file of a million extents costs no memory. Exposed so
 * that the merging and adjacency rules are tested on synthetic extents. */
struct layout_walk {
	struct layout_file *f;
	bool have;                   /* a placed extent was seen */
	uint64_t log_end, phys_end;  /* where the previous placed extent ended */
};
void layout_walk_init(struct layout_walk *w, struct layout_file *f);
void layout_walk_add(struct layout_walk *w, const struct fiemap_extent *e);

/* Maps the open file fd (any access mode) with FIEMAP in batches. 0, or -errno:
 * -EOPNOTSUPP when the filesystem has no FIEMAP (tmpfs, ramfs, nfs, fuse). */
int layout_fd(int fd, struct layout_file *f);

/* Many files together: what tiotest's phases and fs_mark's samples report. */
struct layout_sum {
	uint64_t files;              /* mapped (layout_fd succeeded) */
	uint64_t empty;              /* no data at all */
	uint64_t unplaced;           /* some data with no place yet: left out of what follows */
	uint64_t inline_files;
	uint64_t placed;             /* with data, all of it placed: the files the figures describe */
	uint64_t one_extent;         /* placed files in one extent */
	uint64_t extents, fiemap_extents, discontinuities, mapped_bytes;
	uint64_t hist[LAYOUT_HIST_N];/* placed files by extent count (layout_hist_bucket) */
	uint64_t max_extents;
};
void layout_sum_add(struct layout_sum *s, const struct layout_file *f);
void layout_sum_merge(struct layout_sum *dst, const struct layout_sum *src);
/* The bucket of a file of n extents, and the largest count bucket i holds (UINT64_MAX: the last). */
unsigned layout_hist_bucket(uint64_t n);
uint64_t layout_hist_max(unsigned i);
/* Figures of a sum, NAN when it has no placed file: extents per placed file, % of placed files
 * in one extent, extents per MiB of mapped data, mean extent size in bytes, discontinuities
 * per MiB of mapped data. */
double layout_extents_per_file(const struct layout_sum *s);
double layout_one_extent_pct(const struct layout_sum *s);
double layout_extents_per_mib(const struct layout_sum *s);
double layout_mean_extent_bytes(const struct layout_sum *s);
double layout_discontinuities_per_mib(const struct layout_sum *s);

/* The filesystem fd lives on: its statfs magic and a name ("ext4", "tmpfs", ...; "0x..."
 * for one fsbench does not know). ext2, ext3 and ext4 share one magic and are "ext4" here. */
int layout_fs_type(int fd, unsigned long *magic, const char **name);
/* Why FIEMAP figures cannot be had for a file on fd's filesystem, as one line, when layout_fd
 * failed with err (the caller's figures are then absent, never zeros). */
void layout_absent_reason(int fd, int err, char *why, size_t len);

/* ext4 block-group geometry (see the top of this file). */
struct layout_groups {
	bool exact;                  /* from the superblock; false: derived from statfs */
	uint32_t block_bytes;
	uint64_t blocks_per_group, inodes_per_group, first_data_block, groups;
	unsigned groups_per_flex;    /* flex_bg: groups whose metadata sit together; 0 unknown, 1 none */
	char source[LAYOUT_REASON_MAX];   /* "superblock of /dev/loop0", "statfs (approximate: ...)" */
};
/* Parses the 1024 bytes of an ext2/3/4 superblock. 0, or -EINVAL when it is not one. */
int layout_ext4_sb_parse(const unsigned char *sb, size_t len, struct layout_groups *g);
/* The geometry of the ext4 filesystem fd lives on: the superblock read from its device when it
 * can be opened (the device node found through /sys/dev/block/MAJ:MIN/uevent and checked to be
 * st_dev's), else derived from fstatfs. -EOPNOTSUPP with why when fd is not on ext2/3/4. */
int layout_ext4_groups(int fd, struct layout_groups *g, char *why, size_t len);
static inline uint64_t layout_inode_group(const struct layout_groups *g, uint64_t ino)
{
	return ino ? (ino - 1) / g->inodes_per_group : 0;
}
static inline uint64_t layout_block_group(const struct layout_groups *g, uint64_t phys_bytes)
{
	uint64_t b = phys_bytes / g->block_bytes;

	return (b > g->first_data_block ? b - g->first_data_block : 0) / g->blocks_per_group;
}

/* Locality of sampled files' data to the group of their inode and of their directory. */
struct layout_locality {
	uint64_t files;              /* placed files with a place of their own (not inline) */
	uint64_t in_inode_group, in_dir_group;
	uint64_t in_inode_flex, in_dir_flex;   /* the same flex group (groups_per_flex > 1) */
	uint64_t inode_distance_sum; /* sum of |data group - inode group| */
};
/* One file: ino and its directory's, and its layout. The data group is the first placed
 * extent's. Returns the data group, or UINT64_MAX when the file has no place of its own. */
uint64_t layout_locality_add(struct layout_locality *l, const struct layout_groups *g, uint64_t ino,
			     uint64_t dir_ino, const struct layout_file *f);
#endif
