/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the experiment runner (fsbench matrix) sets up and undoes: sparse images, loop devices
 * (through /dev/loop-control, direct I/O on), mkfs, mounts, /proc/sys and /sys knobs, bdi
 * writeback limits, the page cache drop, and the checks that keep it off a device that holds
 * anything. Every undo checks the identity of what it removes: an image by device and inode, a
 * loop device by its backing file's device and inode, a mount by its mount point and source, a
 * knob by the value it was given. Functions return 0 or -errno; a message, when there is one,
 * goes to err (one line, no program name). */
#ifndef FSB_SYS_FSIMAGE_H
#define FSB_SYS_FSIMAGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- filesystems ---------------------------------------------------------------------- */
/* "ext2, ext3, ext4, xfs, btrfs" */
const char *fsimage_fs_list(void);
bool fsimage_fs_known(const char *type);
/* mkfs.TYPE's command without the device: the program, the flags that make it quiet and
 * unattended (-q -F, -f), then the user's options split into words (shell-like) and checked
 * against mkfs.TYPE's grammar (sys/fsopts.h: options only, no operand, no path). argv gets
 * strdup'd words; returns how many, or -1 with the reason in err. */
int fsimage_mkfs_argv(const char *type, const char *opts, char **argv, unsigned max, char *err,
		      size_t errlen);
/* Where mkfs.TYPE is (PATH, then /usr/sbin, /sbin): 0 or -ENOENT. */
int fsimage_mkfs_find(const char *type, char *path, size_t len);
/* Runs argv[0] (a path) with argv, stdin from /dev/null, stdout and stderr captured into out
 * (its beginning kept when longer). Returns the exit status (>= 0; 128 + signal when killed), or
 * -errno when it could not be started. */
int fsimage_spawn(char *const argv[], char *out, size_t outlen);

/* ---- images and loop devices ----------------------------------------------------------- */
/* A new sparse file of size bytes (O_EXCL, no symlink followed); *ino, *dev identify it. */
int fsimage_create(const char *path, uint64_t size, dev_t *dev, ino_t *ino);
/* Removes path when it is still that file; how says what happened ("removed", "already gone",
 * "left: ..."). 0 when nothing of ours is left, -errno otherwise. */
int fsimage_remove(const char *path, dev_t dev, ino_t ino, bool dir, char *how, size_t len);

/* A free loop device number (LOOP_CTL_GET_FREE). */
int fsimage_loop_free(int *number);
/* Attaches image to /dev/loopN with direct I/O asked and autoclear (the kernel detaches it when
 * the last user goes, so a killed runner leaves no attached device unless it is mounted).
 * *fd stays open (the runner's hold); *dio tells whether direct I/O is on. -EBUSY when the
 * device was taken meanwhile (ask for another number). */
int fsimage_loop_attach(int number, const char *image, int *fd, bool *dio, char *err, size_t errlen);
/* The backing file of /dev/loopN: -ENXIO when nothing is attached. */
int fsimage_loop_backing(const char *dev, dev_t *bdev, ino_t *bino);
/* Detaches dev when its backing file is still (bdev, bino), then checks that the device is gone
 * (one another process holds open stays attached: -EBUSY, "left: still attached ..."). how as
 * for fsimage_remove. */
int fsimage_loop_detach(const char *dev, dev_t bdev, ino_t bino, char *how, size_t len);

/* ---- mounts ----------------------------------------------------------------------------- */
/* mount(2) with the options as sys/fsopts.h parses them (libmount): the VFS options (ro, sync,
 * noatime, ...) become flags, the rest is the filesystem's data string; refused options are
 * never passed (-EINVAL, the reason in err). */
int fsimage_mount(const char *source, const char *target, const char *type, const char *opts,
		  char *err, size_t errlen);
/* 1 when target is a mount point mounted from source (by path or device number), 0 when not. */
int fsimage_mounted(const char *target, const char *source);
/* Unmounts target when it is mounted from source (busy: retried for a few seconds, then
 * detached lazily, which how says). */
int fsimage_umount(const char *target, const char *source, char *how, size_t len);
/* The same, with *ns (when not NULL) the unmount's own time (umount2 alone; 0 when it was
 * retried or not needed). */
int fsimage_umount_ns(const char *target, const char *source, uint64_t *ns, char *how, size_t len);

/* ---- knobs ------------------------------------------------------------------------------ */
/* A file under /proc/sys or /sys that the runner may write: real gets its resolved path,
 * current its value as fsimage_knob_read gives it, *restorable whether that value can be
 * written back (readable, one non-empty line). -EINVAL with the reason in err otherwise. */
int fsimage_knob_check(const char *path, char *real, size_t reallen, char *current, size_t curlen,
		       bool *restorable, char *err, size_t errlen);
/* The value: trimmed, whitespace runs as one space, and of a "a [b] c" choice list the chosen
 * one (b). */
int fsimage_knob_read(const char *path, char *val, size_t len);
void fsimage_knob_normalize(char *val);
/* Writes val whole (O_TRUNC), the file opened by owned_knob_open (sys/owned.h): under /proc/sys
 * or /sys, no symbolic link followed but the kernel's own. Reads open the same way. */
int fsimage_knob_write(const char *path, const char *val);

/* The bdi directory (/sys/class/bdi/NAME) of the filesystem mounted at mnt from dev. */
int fsimage_bdi_of(const char *mnt, const char *dev, char *path, size_t len);

/* sync, then 3 into /proc/sys/vm/drop_caches */
int fsimage_drop_caches(void);

/* ---- a device named by the user --------------------------------------------------------- */
/* Refuses (-EBUSY, -EEXIST, -ENOTBLK, with the reason in err: one line naming what holds it) a
 * device that is not a block device; that is mounted, swap space or held (device-mapper, md,
 * an O_EXCL opener, a mount in another namespace) itself or through anything stacked on it (partitions, holders, loop devices over it at any
 * offset, recursively; for a loop device over a block device, also what uses that one), even
 * with destroy; that is held open exclusively by anyone; or that has loop devices or partitions
 * on it or a filesystem, RAID or partition table signature (libblkid), unless destroy. Writes
 * nothing. With claim, a device that passes stays open O_EXCL in *claim (-1 otherwise). */
int fsimage_device_check(const char *dev, bool destroy, int *claim, char *err, size_t errlen);
#endif
