/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Target path -> filesystem -> block device -> the disks whose diskstats tell where its I/O went,
 * read from mountinfo (env_mount_of) and sysfs; and a device -> everything stacked on it. */
#include "sys/blockdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
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

/* ---- what is stacked on a device --------------------------------------------------------- */

/* MAJ:MIN of the sysfs device directory dir */
static int dir_dev(const char *dir, unsigned *ma, unsigned *mi)
{
	char p[PATH_MAX + 8], buf[32];

	if (snprintf(p, sizeof(p), "%s/dev", dir) >= (int)sizeof(p) || read_line(p, buf, sizeof(buf)) ||
	    sscanf(buf, "%u:%u", ma, mi) != 2)
		return -ENOENT;
	return 0;
}

/* the sysfs directory of maj:min */
static int dev_dir(const char *sys, unsigned ma, unsigned mi, char *dir)
{
	char link[PATH_MAX];

	if (snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sys, ma, mi) >= (int)sizeof(link) ||
	    !realpath(link, dir))
		return -ENOENT;
	return 0;
}

/* Adds a node unless that device is listed already; its index, -1 when it was there or there
 * is no room. */
static int stack_add(struct blockdev_stack *s, unsigned ma, unsigned mi, const char *name, const char *how,
		     int parent, bool holder, bool under)
{
	struct blockdev_node *n;

	for (unsigned i = 0; i < s->n; i++)
		if (s->node[i].major == ma && s->node[i].minor == mi)
			return -1;
	if (s->n == BLOCKDEV_STACK_MAX) {
		s->truncated = true;
		return -1;
	}
	n = &s->node[s->n];
	n->major = ma;
	n->minor = mi;
	copy(n->name, sizeof(n->name), name);
	copy(n->how, sizeof(n->how), how);
	n->parent = parent;
	n->holder = holder;
	n->under = under;
	return (int)s->n++;
}

/* The block device under loop device NAME (0 when it is bound to a regular file, or not bound)
 * and its offset. The ioctl gives the device number the kernel reads from (lo_rdevice); the
 * backing_file path in sysfs is only the name it was given then, so it is the fallback. */
static bool loop_backing_dev(const char *sys, const char *name, unsigned *ma, unsigned *mi,
			     unsigned long long *offset, unsigned long long *sizelimit)
{
	char p[PATH_MAX], file[PATH_MAX], buf[32];
	struct loop_info64 li;
	struct stat st;
	int fd;

	*offset = *sizelimit = 0;
	if (snprintf(p, sizeof(p), "%s/block/%s/loop/offset", sys, name) < (int)sizeof(p) &&
	    read_line(p, buf, sizeof(buf)) == 0)
		*offset = strtoull(buf, NULL, 10);
	if (snprintf(p, sizeof(p), "%s/block/%s/loop/sizelimit", sys, name) < (int)sizeof(p) &&
	    read_line(p, buf, sizeof(buf)) == 0)
		*sizelimit = strtoull(buf, NULL, 10);
	if (!strcmp(sys, "/sys") && snprintf(p, sizeof(p), "/dev/%s", name) < (int)sizeof(p) &&
	    (fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
		int rc = ioctl(fd, LOOP_GET_STATUS64, &li);

		close(fd);
		if (rc == 0) {
			*offset = li.lo_offset;
			*sizelimit = li.lo_sizelimit;
			if (!li.lo_rdevice)
				return false;
			*ma = major((dev_t)li.lo_rdevice);
			*mi = minor((dev_t)li.lo_rdevice);
			return true;
		}
	}
	if (snprintf(p, sizeof(p), "%s/block/%s/loop/backing_file", sys, name) >= (int)sizeof(p) ||
	    read_line(p, file, sizeof(file)) || file[0] != '/' || stat(file, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	*ma = major(st.st_rdev);
	*mi = minor(st.st_rdev);
	return true;
}

/* node k's partitions, holders and the loop devices over it */
static void stack_up(const char *sys, struct blockdev_stack *s, unsigned k)
{
	const struct blockdev_node self = s->node[k];
	char dir[PATH_MAX], p[PATH_MAX + 300], sub[PATH_MAX + 256], how[128], buf[64];
	unsigned ma, mi;
	struct dirent *e;
	DIR *d;

	if (dev_dir(sys, self.major, self.minor, dir))
		return;
	if ((d = opendir(dir))) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub) ||
			    !exists(sub, "partition") || dir_dev(sub, &ma, &mi))
				continue;
			snprintf(p, sizeof(p), "%s/partition", sub);
			read_line(p, buf, sizeof(buf));
			snprintf(how, sizeof(how), "partition %s", buf);
			stack_add(s, ma, mi, e->d_name, how, (int)k, false, self.under);
		}
		closedir(d);
	}
	if (snprintf(p, sizeof(p), "%s/holders", dir) < (int)sizeof(p) && (d = opendir(p))) {
		while ((e = readdir(d))) {
			char real[PATH_MAX];

			if (e->d_name[0] == '.' ||
			    snprintf(sub, sizeof(sub), "%s/class/block/%s", sys, e->d_name) >= (int)sizeof(sub) ||
			    !realpath(sub, real) || dir_dev(real, &ma, &mi))
				continue;
			snprintf(p, sizeof(p), "%s/dm/name", real);
			if (exists(real, "dm") && read_line(p, buf, sizeof(buf)) == 0)
				snprintf(how, sizeof(how), "device-mapper '%s'", buf);
			else if (exists(real, "md"))
				snprintf(how, sizeof(how), "RAID");
			else
				snprintf(how, sizeof(how), "holder");
			stack_add(s, ma, mi, e->d_name, how, (int)k, true, self.under);
		}
		closedir(d);
	}
	if (snprintf(p, sizeof(p), "%s/block", sys) < (int)sizeof(p) && (d = opendir(p))) {
		while ((e = readdir(d))) {
			unsigned long long off, lim;
			unsigned bma, bmi;

			if (strncmp(e->d_name, "loop", 4) || !loop_backing_dev(sys, e->d_name, &bma, &bmi, &off, &lim) ||
			    bma != self.major || bmi != self.minor)
				continue;
			snprintf(sub, sizeof(sub), "%s/block/%s", sys, e->d_name);
			if (dir_dev(sub, &ma, &mi))
				continue;
			snprintf(how, sizeof(how), "loop device, offset %llu", off);
			stack_add(s, ma, mi, e->d_name, how, (int)k, false, self.under);
		}
		closedir(d);
	}
}

/* the loop devices over the whole disk of partition node k (sysfs directory dir) whose range
 * overlaps it */
static void overlapping_loops(const char *sys, struct blockdev_stack *s, unsigned k, const char *dir)
{
	char whole[PATH_MAX], p[PATH_MAX + 16], buf[32], how[128], *slash;
	unsigned long long start, size;
	unsigned wma, wmi;
	struct dirent *e;
	DIR *d;

	copy(whole, sizeof(whole), dir);
	if (!(slash = strrchr(whole, '/')))
		return;
	*slash = '\0';
	if (dir_dev(whole, &wma, &wmi))
		return;
	snprintf(p, sizeof(p), "%s/start", dir);
	if (read_line(p, buf, sizeof(buf)) || !buf[0])
		return;
	start = strtoull(buf, NULL, 10) * 512;
	snprintf(p, sizeof(p), "%s/size", dir);
	if (read_line(p, buf, sizeof(buf)) || !buf[0])
		return;
	size = strtoull(buf, NULL, 10) * 512;
	snprintf(p, sizeof(p), "%s/block", sys);
	if (!(d = opendir(p)))
		return;
	while ((e = readdir(d))) {
		unsigned long long off, lim;
		unsigned bma, bmi, ma, mi;
		char sub[PATH_MAX];

		if (strncmp(e->d_name, "loop", 4) || !loop_backing_dev(sys, e->d_name, &bma, &bmi, &off, &lim) ||
		    bma != wma || bmi != wmi || off >= start + size || (lim && off + lim <= start))
			continue;
		snprintf(sub, sizeof(sub), "%s/block/%s", sys, e->d_name);
		if (dir_dev(sub, &ma, &mi))
			continue;
		snprintf(how, sizeof(how), "loop device over %.32s at offset %llu, across it", base_of(whole), off);
		stack_add(s, ma, mi, e->d_name, how, (int)k, false, true);
	}
	closedir(d);
}

int blockdev_stack(const char *sys, unsigned maj, unsigned min, struct blockdev_stack *s)
{
	char dir[PATH_MAX];
	unsigned ma, mi;
	int at = 0;

	s->n = 0;
	s->truncated = false;
	if (dev_dir(sys, maj, min, dir))
		return -ENOENT;
	stack_add(s, maj, min, base_of(dir), "", -1, false, false);
	/* a loop device over a block device does not claim it: whatever else uses that device
	 * shares the bytes the runner would write (down the chain of loop devices) */
	for (int depth = 0; depth < 8; depth++) {
		unsigned long long off, lim;
		char name[BLOCKDEV_NAME_MAX], how[128];
		int i;

		copy(name, sizeof(name), s->node[at].name);
		if (!loop_backing_dev(sys, name, &ma, &mi, &off, &lim) || dev_dir(sys, ma, mi, dir))
			break;
		snprintf(how, sizeof(how), "backing device of %s at offset %llu", name, off);
		if ((i = stack_add(s, ma, mi, base_of(dir), how, at, false, true)) < 0)
			break;
		at = i;
	}
	/* a partition shares its bytes with loop devices over its whole disk that overlap it (the
	 * kernel's claims cover the disk's mounts and holders, not those) */
	for (unsigned k = 0, n = s->n; k < n; k++)
		if (!dev_dir(sys, s->node[k].major, s->node[k].minor, dir) && exists(dir, "partition"))
			overlapping_loops(sys, s, k, dir);
	for (unsigned k = 0; k < s->n; k++)
		stack_up(sys, s, k);
	return 0;
}

void blockdev_stack_path(const struct blockdev_stack *s, unsigned i, char *buf, size_t len)
{
	unsigned chain[BLOCKDEV_STACK_MAX], n = 0;
	size_t at = 0;

	for (int k = (int)i; k >= 0 && n < BLOCKDEV_STACK_MAX; k = s->node[k].parent)
		chain[n++] = (unsigned)k;
	buf[0] = '\0';
	while (n-- && at < len) {
		const struct blockdev_node *x = &s->node[chain[n]];

		at += (size_t)snprintf(buf + at, len - at, *x->how ? "%s%s (%s)" : "%s%s", at ? " -> " : "",
				       x->name, x->how);
	}
}
