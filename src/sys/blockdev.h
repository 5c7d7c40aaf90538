/* Which block devices a target path's I/O reaches: the filesystem (mountinfo), the device that
 * holds it (st_dev -> /sys/dev/block/MAJ:MIN), its whole disk, a loop device's backing file, a
 * device-mapper name, and the leaf disks under dm and md devices (slaves/, recursively). */
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
#endif
