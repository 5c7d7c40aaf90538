/* The device an after-run tool reads (sys/fsck.h, sys/freespace.h): named by the caller,
 * resolved once (realpath: /dev/mapper/NAME becomes the dm node it points to), checked to be a
 * block device or a regular file (a filesystem image), and from then on only that resolved name
 * is handed to the tool. Never prints; 0 or -errno. */
#ifndef FSB_SYS_FSDEV_H
#define FSB_SYS_FSDEV_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct fsdev {
	char path[PATH_MAX];         /* resolved */
	bool image;                  /* a regular file, not a block device */
	bool busy;                   /* mounted or held exclusively (an image: through its loop device) */
};

/* 0, or -errno with one line in why: -ENOENT (no such device), -EINVAL (neither a block device
 * nor a regular file). busy is found by an exclusive open (O_EXCL on a block device fails with
 * EBUSY while the kernel holds it mounted), for an image through the loop devices whose
 * backing file it is. */
int fsdev_resolve(const char *name, struct fsdev *d, char *why, size_t len);
#endif
