/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which block devices a target path's I/O reaches: the filesystem (mountinfo), the device that
 * holds it (st_dev -> /sys/dev/block/MAJ:MIN), its whole disk, a loop device's backing file, a
 * device-mapper name, and the leaf disks under dm and md devices (slaves/, recursively). And the
 * other way: what is stacked on a device (blockdev_stack), for the runner's --device check. */
#ifndef FSB_SYS_BLOCKDEV_H
#define FSB_SYS_BLOCKDEV_H
#include <limits.h>
#include <stdbool.h>

#include "sys/env.h"

#define BLOCKDEV_MAX_STAT 8      /* devices whose diskstats are read for one target */
#define BLOCKDEV_NAME_MAX 64

enum blockdev_kind {
	BLOCKDEV_NONE,           /* deviceless filesystem: tmpfs, proc, nfs, fuse, overlay ... */
	BLOCKDEV_DISK,           /* a whole disk (vda, nvme0n1, sda) */
	BLOCKDEV_PARTITION,      /* a partition of a disk */
	BLOCKDEV_LOOP,           /* loopN, backing_file known when the kernel exposes it */
	BLOCKDEV_DM,             /* device-mapper (LVM, dm-crypt ...) */
	BLOCKDEV_MD,             /* software RAID */
};

struct blockdev {
	struct env_mount mount;  /* fstype, mount point, options, source */
	bool mount_known;        /* mountinfo had the target's filesystem */
	enum blockdev_kind kind;
	unsigned major, minor;   /* the filesystem's device (st_dev, or the source node for btrfs) */
	char name[BLOCKDEV_NAME_MAX];     /* its kernel name: vda1, loop0, dm-0, md0 */
	char disk[BLOCKDEV_NAME_MAX];     /* the whole disk: vda for vda1; same as name otherwise */
	char dm_name[BLOCKDEV_NAME_MAX];  /* /sys/block/dm-N/dm/name */
	char backing_file[PATH_MAX];      /* /sys/block/loopN/loop/backing_file */
	/* whose /proc/diskstats lines to read: [0] is the device itself (partition-level, so other
	 * partitions' I/O is not counted); dm and md add the whole disks under them */
	unsigned nstat;
	char stat[BLOCKDEV_MAX_STAT][BLOCKDEV_NAME_MAX];
};

extern const char *const blockdev_kind_name[];   /* "none", "disk", "partition", ... */

/* Resolves path (a file or directory; a block device node describes that device). Returns 0
 * (kind BLOCKDEV_NONE for deviceless filesystems), or -errno when path cannot be stat()ed. */
int blockdev_resolve(const char *path, struct blockdev *b);

/* The sysfs half, for tests: fills kind, name, disk, dm_name, backing_file and stat[] for
 * device maj:min under sysfs root sys ("/sys"). Returns 0, or -ENOENT when the device is not
 * a block device in that tree (then kind is BLOCKDEV_NONE). mount fields are left alone. */
int blockdev_resolve_sysfs(const char *sys, unsigned maj, unsigned min, struct blockdev *b);

/* ---- what is stacked on a device --------------------------------------------------------- */
#define BLOCKDEV_STACK_MAX 64

/* A device and everything that reads or writes through it, found in sysfs: its partitions, its
 * holders (holders/: device-mapper, md, bcache: the kernel claims the device for them), every
 * loop device whose backing file is it (LOOP_GET_STATUS64's lo_rdevice, or a stat of sysfs'
 * backing_file; a loop device does not claim what it reads, so nothing else says it is there),
 * then the same for each of those, recursively. When the device is itself a loop device over
 * another block device, that one ("under": written through the device) and what is stacked on
 * it are listed too, and for a partition (or such a device under it) the loop devices over its
 * whole disk whose range overlaps it. node[0] is the device; each node names the one it was
 * found from. */
struct blockdev_node {
	unsigned major, minor;
	char name[BLOCKDEV_NAME_MAX];    /* kernel name: loop7, sda1, dm-0 */
	char how[128];                   /* "partition", "loop device, offset 1048576", "device-mapper 'x'" */
	int parent;                      /* index of the node it was found from, -1 for node[0] */
	bool holder;                     /* in its parent's holders/: the kernel holds the parent for it */
	bool under;                      /* the device's own backing device, or stacked on that */
};

struct blockdev_stack {
	unsigned n;
	bool truncated;                  /* more than BLOCKDEV_STACK_MAX devices */
	struct blockdev_node node[BLOCKDEV_STACK_MAX];
};

/* Fills s for device maj:min under sysfs root sys ("/sys"; another root: a synthetic tree,
 * where a loop device's backing device is found by a stat of its backing_file only). Opens
 * loop devices read-only for LOOP_GET_STATUS64, writes nothing. 0, or -ENOENT when maj:min is
 * not a block device there. */
int blockdev_stack(const char *sys, unsigned maj, unsigned min, struct blockdev_stack *s);
/* "loop5 -> loop7 (loop device, offset 1048576)": how node i was reached from node[0]. */
void blockdev_stack_path(const struct blockdev_stack *s, unsigned i, char *buf, size_t len);
#endif
