/* SPDX-License-Identifier: GPL-2.0-or-later */
/* File layout from FS_IOC_FIEMAP, and ext4 block groups from the superblock or statfs
 * (sys/layout.h has the rules). */
#include "sys/layout.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/magic.h>

#define FIEMAP_BATCH 256

void layout_walk_init(struct layout_walk *w, struct layout_file *f)
{
	memset(f, 0, sizeof(*f));
	f->first_physical = UINT64_MAX;
	w->f = f;
	w->have = false;
	w->log_end = w->phys_end = 0;
}

void layout_walk_add(struct layout_walk *w, const struct fiemap_extent *e)
{
	struct layout_file *f = w->f;

	f->fiemap_extents++;
	if (e->fe_flags & FIEMAP_EXTENT_SHARED)
		f->shared = true;
	if (e->fe_flags & FIEMAP_EXTENT_ENCODED)
		f->encoded = true;
	if (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC)) {
		f->unknown_bytes += e->fe_length;
		return;
	}
	if (e->fe_flags & FIEMAP_EXTENT_DATA_INLINE) {
		/* in metadata: one extent, and no place to be adjacent to */
		f->inline_data = true;
		f->extents++;
		f->mapped_bytes += e->fe_length;
		return;
	}
	f->mapped_bytes += e->fe_length;
	if (!w->have) {
		f->extents++;
		f->first_physical = e->fe_physical;
	} else if (e->fe_physical != w->phys_end) {
		f->extents++;
		f->discontinuities++;
	} else if (e->fe_logical != w->log_end) {
		/* physically where the previous one ended, after a logical hole: a new extent for
		 * the count, but no seek for a reader */
		f->extents++;
	}
	/* else: the previous extent continued, logically and physically (merged) */
	w->have = true;
	w->log_end = e->fe_logical + e->fe_length;
	w->phys_end = e->fe_physical + e->fe_length;
}

int layout_fd(int fd, struct layout_file *f)
{
	size_t sz = sizeof(struct fiemap) + FIEMAP_BATCH * sizeof(struct fiemap_extent);
	struct fiemap *fm = malloc(sz);
	struct layout_walk w;
	uint64_t start = 0;
	int rc = 0;

	layout_walk_init(&w, f);
	if (!fm)
		return -ENOMEM;
	for (;;) {
		bool last = false;

		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			rc = errno == ENOTTY || errno == EINVAL ? -EOPNOTSUPP : -errno;
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
			layout_walk_add(&w, &fm->fm_extents[i]);
			last |= (fm->fm_extents[i].fe_flags & FIEMAP_EXTENT_LAST) != 0;
		}
		if (last)
			break;
		{
			const struct fiemap_extent *e = &fm->fm_extents[fm->fm_mapped_extents - 1];
			uint64_t next = e->fe_logical + e->fe_length;

			/* a filesystem that does not mark the last extent, or repeats one */
			if (next <= start || fm->fm_mapped_extents < FIEMAP_BATCH)
				break;
			start = next;
		}
	}
	free(fm);
	return rc;
}

unsigned layout_hist_bucket(uint64_t n)
{
	unsigned b;

	if (n <= 2)
		return (unsigned)n;
	/* 3-4: 3, 5-8: 4, ... */
	for (b = 3; b < LAYOUT_HIST_N - 1; b++)
		if (n <= layout_hist_max(b))
			return b;
	return LAYOUT_HIST_N - 1;
}

uint64_t layout_hist_max(unsigned i)
{
	if (i <= 2)
		return i;
	if (i >= LAYOUT_HIST_N - 1)
		return UINT64_MAX;
	return UINT64_C(1) << (i - 1);
}

void layout_sum_add(struct layout_sum *s, const struct layout_file *f)
{
	s->files++;
	if (f->unknown_bytes) {
		s->unplaced++;
		return;
	}
	if (!f->mapped_bytes) {
		s->empty++;
		return;
	}
	s->placed++;
	s->inline_files += f->inline_data;
	s->one_extent += f->extents == 1;
	s->extents += f->extents;
	s->fiemap_extents += f->fiemap_extents;
	s->discontinuities += f->discontinuities;
	s->mapped_bytes += f->mapped_bytes;
	s->hist[layout_hist_bucket(f->extents)]++;
	if (f->extents > s->max_extents)
		s->max_extents = f->extents;
}

void layout_sum_merge(struct layout_sum *d, const struct layout_sum *s)
{
	d->files += s->files;
	d->empty += s->empty;
	d->unplaced += s->unplaced;
	d->inline_files += s->inline_files;
	d->placed += s->placed;
	d->one_extent += s->one_extent;
	d->extents += s->extents;
	d->fiemap_extents += s->fiemap_extents;
	d->discontinuities += s->discontinuities;
	d->mapped_bytes += s->mapped_bytes;
	for (unsigned i = 0; i < LAYOUT_HIST_N; i++)
		d->hist[i] += s->hist[i];
	if (s->max_extents > d->max_extents)
		d->max_extents = s->max_extents;
}

double layout_extents_per_file(const struct layout_sum *s)
{
	return s->placed ? (double)s->extents / (double)s->placed : NAN;
}

double layout_one_extent_pct(const struct layout_sum *s)
{
	return s->placed ? 100.0 * (double)s->one_extent / (double)s->placed : NAN;
}

double layout_extents_per_mib(const struct layout_sum *s)
{
	return s->placed && s->mapped_bytes ? (double)s->extents / ((double)s->mapped_bytes / 1048576.0) : NAN;
}

double layout_mean_extent_bytes(const struct layout_sum *s)
{
	return s->placed && s->extents ? (double)s->mapped_bytes / (double)s->extents : NAN;
}

double layout_discontinuities_per_mib(const struct layout_sum *s)
{
	return s->placed && s->mapped_bytes ? (double)s->discontinuities / ((double)s->mapped_bytes / 1048576.0) : NAN;
}

/* ---- the filesystem ------------------------------------------------------------------------ */
#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif
#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif
#ifndef ZFS_SUPER_MAGIC
#define ZFS_SUPER_MAGIC 0x2fc12fc1
#endif
#ifndef F2FS_SUPER_MAGIC
#define F2FS_SUPER_MAGIC 0xF2F52010
#endif

static const struct {
	unsigned long magic;
	const char *name;
} fs_names[] = {
	{ EXT4_SUPER_MAGIC, "ext4" }, { XFS_SUPER_MAGIC, "xfs" }, { BTRFS_SUPER_MAGIC, "btrfs" },
	{ TMPFS_MAGIC, "tmpfs" }, { RAMFS_MAGIC, "ramfs" }, { NFS_SUPER_MAGIC, "nfs" },
	{ FUSE_SUPER_MAGIC, "fuse" }, { OVERLAYFS_SUPER_MAGIC, "overlay" }, { F2FS_SUPER_MAGIC, "f2fs" },
	{ ZFS_SUPER_MAGIC, "zfs" }, { PROC_SUPER_MAGIC, "proc" }, { SYSFS_MAGIC, "sysfs" },
};

int layout_fs_type(int fd, unsigned long *magic, const char **name)
{
	static __thread char hex[24];
	struct statfs sf;

	if (fstatfs(fd, &sf) < 0)
		return -errno;
	*magic = (unsigned long)sf.f_type;
	for (size_t i = 0; i < sizeof(fs_names) / sizeof(fs_names[0]); i++)
		if (fs_names[i].magic == *magic) {
			*name = fs_names[i].name;
			return 0;
		}
	snprintf(hex, sizeof(hex), "0x%lx", *magic);
	*name = hex;
	return 0;
}

void layout_absent_reason(int fd, int err, char *why, size_t len)
{
	unsigned long magic;
	const char *name = "this filesystem";

	layout_fs_type(fd, &magic, &name);
	if (err == -EOPNOTSUPP)
		snprintf(why, len, "FIEMAP is not supported on %s: no extents to measure", name);
	else
		snprintf(why, len, "FIEMAP failed on %s: %s", name, strerror(-err));
}

/* ---- ext4 block groups ----------------------------------------------------------------------- */
static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int layout_ext4_sb_parse(const unsigned char *sb, size_t len, struct layout_groups *g)
{
	uint64_t blocks;
	uint32_t log_bs, incompat;

	if (len < 1024 || (sb[56] | sb[57] << 8) != 0xEF53)
		return -EINVAL;
	log_bs = le32(sb + 24);
	if (log_bs > 6)
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	g->exact = true;
	g->block_bytes = 1024u << log_bs;
	g->first_data_block = le32(sb + 20);
	g->blocks_per_group = le32(sb + 32);
	g->inodes_per_group = le32(sb + 40);
	incompat = le32(sb + 96);
	blocks = le32(sb + 4);
	if (incompat & 0x80)          /* INCOMPAT_64BIT: s_blocks_count_hi */
		blocks |= (uint64_t)le32(sb + 0x150) << 32;
	if (!g->blocks_per_group || !g->inodes_per_group || g->first_data_block >= blocks)
		return -EINVAL;
	g->groups = (blocks - g->first_data_block + g->blocks_per_group - 1) / g->blocks_per_group;
	/* INCOMPAT_FLEX_BG: s_log_groups_per_flex */
	g->groups_per_flex = incompat & 0x200 && sb[0x174] < 31 ? 1u << sb[0x174] : 1;
	return 0;
}

/* The device node of maj:min: /sys/dev/block/MAJ:MIN/uevent names it (DEVNAME=loop0); the node
 * opened must be that device (st_rdev), whatever a name under /dev points to. */
static int open_dev(unsigned maj, unsigned min, char *path, size_t len)
{
	char p[96], line[256];
	struct stat st;
	FILE *f;
	int fd = -ENOENT;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/uevent", maj, min);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	path[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			if (!strstr(line + 8, "..") && strlen(line + 8) + 6 <= len)
				snprintf(path, len, "/dev/%.*s", (int)(len - 6), line + 8);
		}
	fclose(f);
	if (!path[0])
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != makedev(maj, min)) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

int layout_ext4_groups(int fd, struct layout_groups *g, char *why, size_t len)
{
	unsigned char sb[1024];
	char dev[96];
	struct statfs sf;
	struct stat st;
	int dfd, rc;

	memset(g, 0, sizeof(*g));
	if (fstatfs(fd, &sf) < 0 || fstat(fd, &st) < 0)
		return -errno;
	if (sf.f_type != EXT4_SUPER_MAGIC) {
		unsigned long magic;
		const char *name = "this filesystem";

		layout_fs_type(fd, &magic, &name);
		snprintf(why, len, "block groups are ext4's: %s has none fsbench knows", name);
		return -EOPNOTSUPP;
	}
	dfd = open_dev(major(st.st_dev), minor(st.st_dev), dev, sizeof(dev));
	if (dfd >= 0) {
		ssize_t n = pread(dfd, sb, sizeof(sb), 1024);

		rc = n == (ssize_t)sizeof(sb) ? layout_ext4_sb_parse(sb, sizeof(sb), g) : -EIO;
		close(dfd);
		if (!rc) {
			snprintf(g->source, sizeof(g->source), "superblock of %s", dev);
			return 0;
		}
		rc = -EINVAL;
	} else {
		rc = dfd;
	}
	/* statfs: block size and inode count are exact, the rest mke2fs's defaults */
	memset(g, 0, sizeof(*g));
	g->block_bytes = (uint32_t)sf.f_bsize;
	if (!g->block_bytes || !sf.f_files || !sf.f_blocks) {
		snprintf(why, len, "statfs gives no ext4 geometry");
		return -EINVAL;
	}
	g->blocks_per_group = 8 * (uint64_t)g->block_bytes;
	g->first_data_block = g->block_bytes == 1024;
	g->groups = ((uint64_t)sf.f_blocks + g->blocks_per_group - 1) / g->blocks_per_group;
	g->inodes_per_group = ((uint64_t)sf.f_files + g->groups - 1) / g->groups;
	g->groups_per_flex = 0;
	snprintf(g->source, sizeof(g->source), "statfs (approximate: the superblock could not be read: %s)",
		 strerror(-rc));
	return 0;
}

uint64_t layout_locality_add(struct layout_locality *l, const struct layout_groups *g, uint64_t ino,
			     uint64_t dir_ino, const struct layout_file *f)
{
	uint64_t dg, ig, pg;

	if (f->unknown_bytes || f->inline_data || f->first_physical == UINT64_MAX)
		return UINT64_MAX;
	dg = layout_block_group(g, f->first_physical);
	ig = layout_inode_group(g, ino);
	pg = layout_inode_group(g, dir_ino);
	l->files++;
	l->in_inode_group += dg == ig;
	l->in_dir_group += dg == pg;
	if (g->groups_per_flex > 1) {
		l->in_inode_flex += dg / g->groups_per_flex == ig / g->groups_per_flex;
		l->in_dir_flex += dg / g->groups_per_flex == pg / g->groups_per_flex;
	}
	l->inode_distance_sum += dg > ig ? dg - ig : ig - dg;
	return dg;
}
