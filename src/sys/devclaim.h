/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The block device the experiment runner was given (--device): named once, held for the whole
 * experiment, and checked to be the same device before and after every step that opens it by
 * name (mkfs, mount, the after-run checkers).
 *
 * Why the claim is released around those steps: the kernel's exclusive claim on a block device
 * (open with O_EXCL) belongs to the open file that made it. mkfs opens the device O_EXCL itself
 * and mount(2) claims it for the filesystem, so both fail with EBUSY while the runner holds its
 * own claim (and the after-run checkers see the device as busy). The runner therefore holds the
 * claim whenever nothing it started holds the device: devclaim_release() just before mkfs, a
 * mount or a checker, devclaim_take() as soon as mkfs or the checker has ended or the filesystem
 * is unmounted; while mounted, the mount is the claim. Each release and take checks that the
 * name still leads to the device number claimed at the start, and the name is the kernel's node
 * under /dev (or a path in directories only root can change), never the symbolic link or node
 * the user gave, so re-pointing that link changes nothing. Never prints; 0 or -errno. */
#ifndef FSB_SYS_DEVCLAIM_H
#define FSB_SYS_DEVCLAIM_H
#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct devclaim {
	char path[PATH_MAX];     /* the name every tool is given: /dev/NAME of the device */
	dev_t rdev;              /* the device, as resolved at parse time */
	int fd;                  /* the O_EXCL claim, -1 while released */
};

/* Resolves given (any path leading to a block device, symbolic links followed once) to its
 * device number and the name to use from then on: /dev/NAME when that node is the same device
 * (NAME from /sys/dev/block/MAJ:MIN/uevent), else the resolved path when every directory on it
 * is root's and writable by root only. Opens nothing; fd is -1. -ENOTBLK, -EPERM (a name others
 * could re-point), -errno, with the reason in err. */
int devclaim_resolve(const char *given, struct devclaim *c, char *err, size_t errlen);
/* Path still leads to the device: 0, or -ENODEV when it names another device or none. */
int devclaim_verify(const struct devclaim *c);
/* Claims the device again (O_EXCL) through path, checked to be the same device: -EBUSY while
 * something else holds it, -ENODEV when path leads elsewhere now. 0 when already held. */
int devclaim_take(struct devclaim *c);
/* Lets go of the claim (for mkfs, a mount, a checker), then checks path: -ENODEV when it
 * leads elsewhere (the caller must not use it). */
int devclaim_release(struct devclaim *c);
/* The end of the experiment: lets go, no check. */
void devclaim_close(struct devclaim *c);
#endif
