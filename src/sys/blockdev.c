/* Target path -> filesystem -> block device -> the disks whose diskstats tell where its I/O went,
 * read from mountinfo (env_mount_of) and sysfs. */
#include "sys/blockdev.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *const blockdev_kind_name[] = { "none", "disk", "partition", "loop", "dm", "md" };

/* bounded copy that always terminates; a longer source is cut (device names are short) */
static void copy(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* the first line of a small sysfs file, without its newline; "" when absent */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool exists(const char *dir, const char *rel)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, rel) >= (int)sizeof(p))
		return false;
	return access(p, F_OK) == 0;
}

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* name of the disk that holds the device at sysfs directory dir (itself unless a partition) */
static void disk_of(const char *dir, char *out, size_t len)
{
	char parent[PATH_MAX];
	char *s;

	copy(parent, sizeof(parent), dir);
	if (exists(dir, "partition") && (s = strrchr(parent, '/'))) {
		*s = '\0';
		copy(out, len, base_of(parent));
	} else {
		copy(out, len, base_of(dir));
	}
}

static void add_stat(struct blockdev *b, const char *name)
{
	for (unsigned i = 0; i < b->nstat; i++)
		if (!strcmp(b->stat[i], name))
			return;
	if (b->nstat < BLOCKDEV_MAX_STAT)
		copy(b->stat[b->nstat++], sizeof(b->stat[0]), name);
}

/* dm and md stack on other block devices (listed in slaves/): collect the whole disks at the
 * bottom, where the I/O finally lands (a RAID1 write shows there twice) */
static void add_leaves(const char *sys, const char *dir, struct blockdev *b, int depth)
{
	char sl[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (depth > 8 || snprintf(sl, sizeof(sl), "%s/slaves", dir) >= (int)sizeof(sl))
		return;
	d = opendir(sl);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char link[PATH_MAX], real[PATH_MAX], disk[BLOCKDEV_NAME_MAX];
		bool has_slaves = false;
		struct dirent *e2;
		DIR *d2;

		if (e->d_name[0] == '.')
			continue;
		if (snprintf(link, sizeof(link), "%s/class/block/%s", sys, e->d_name) >= (int)sizeof(link) ||
		    !realpath(link, real))
			continue;
		if (snprintf(link, sizeof(link), "%s/slaves", real) < (int)sizeof(link) && (d2 = opendir(link))) {
			while ((e2 = readdir(d2)))
				if (e2->d_name[0] != '.')
					has_slaves = true;
			closedir(d2);
		}
		if (has_slaves) {
			add_leaves(sys, real, b, depth + 1);
		} else {
			disk_of(real, disk, sizeof(disk));
			add_stat(b, disk);
		}
	}
	closedir(d);
}

int blockdev_resolve_sysfs(const char *sys, unsigned maj, unsigned min, struct blockdev *b)
{
	char link[PATH_MAX], dir[PATH_MAX], p[PATH_MAX + 32];

	b->kind = BLOCKDEV_NONE;
	b->major = maj;
	b->minor = min;
	b->name[0] = b->disk[0] = b->dm_name[0] = b->backing_file[0] = '\0';
	b->nstat = 0;
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, maj, min);
	if (!realpath(link, dir))
		return -ENOENT;
	copy(b->name, sizeof(b->name), base_of(dir));
	disk_of(dir, b->disk, sizeof(b->disk));
	add_stat(b, b->name);
	b->kind = exists(dir, "partition") ? BLOCKDEV_PARTITION : BLOCKDEV_DISK;
	if (b->kind == BLOCKDEV_DISK && exists(dir, "loop")) {
		b->kind = BLOCKDEV_LOOP;
		snprintf(p, sizeof(p), "%s/loop/backing_file", dir);
		read_line(p, b->backing_file, sizeof(b->backing_file));
	} else if (b->kind == BLOCKDEV_DISK && exists(dir, "dm")) {
		b->kind = BLOCKDEV_DM;
		snprintf(p, sizeof(p), "%s/dm/name", dir);
		read_line(p, b->dm_name, sizeof(b->dm_name));
		add_leaves(sys, dir, b, 0);
	} else if (b->kind == BLOCKDEV_DISK && exists(dir, "md")) {
		b->kind = BLOCKDEV_MD;
		add_leaves(sys, dir, b, 0);
	}
	return 0;
}

int blockdev_resolve(const char *path, struct blockdev *b)
{
	struct stat st, src;
	dev_t dev;

	memset(b, 0, sizeof(*b));
	if (stat(path, &st) < 0)
		return -errno;
	dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	b->mount_known = env_mount_of(path, &b->mount) == 0;
	/* btrfs (and other multi-device filesystems) give files an anonymous st_dev (major 0):
	 * the block device is the mount's source */
	if (major(dev) == 0 && b->mount_known && !strncmp(b->mount.source, "/dev/", 5) &&
	    stat(b->mount.source, &src) == 0 && S_ISBLK(src.st_mode))
		dev = src.st_rdev;
	if (major(dev) == 0) {
		b->kind = BLOCKDEV_NONE;
		b->major = major(dev);
		b->minor = minor(dev);
		return 0;
	}
	blockdev_resolve_sysfs("/sys", major(dev), minor(dev), b);
	return 0;
}
