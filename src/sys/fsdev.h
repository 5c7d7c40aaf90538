/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The device an after-run tool reads (sys/fsck.h, sys/freespace.h): named by the caller,
 * resolved once (realpath: /dev/mapper/NAME becomes the dm node it points to), checked to be a
 * block device or a regular file (a filesystem image), and from then on only that resolved name
 * is handed to the tool. Never prints; 0 or -errno. */
#ifndef FSB_SYS_FSDEV_H
#define FSB_SYS_FSDEV_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/spawn.h"

struct fsdev {
	char path[PATH_MAX];         /* resolved */
	bool image;                  /* a regular file, not a block device */
	bool busy;                   /* mounted or held exclusively (an image: through its loop device) */
	uint64_t bytes;              /* its size; 0 when unknown */
};

/* The after-run tools' time limit, when the user leaves it at auto (fsbench matrix
 * --after-timeout, __after --after-timeout): FSDEV_TIMEOUT_BASE_S plus FSDEV_TIMEOUT_S_PER_GIB
 * for each GiB of the device (1 GiB, the matrix's default image: 610 s; 100 GiB: 1600 s; 4 TiB:
 * 11.5 h). The limit is there to end a checker that hangs, never one that is slow: ten minutes
 * is many times what e2fsck -fn, xfs_repair -n or btrfs check take on the matrix's images (a
 * second or two for 1 GiB), and 10 s per GiB is reading the WHOLE device at 100 MiB/s, while a
 * checker reads its metadata, a small part of it. spawn_opts.timeout_ns = FSDEV_TIMEOUT_AUTO
 * asks fsck_run and freespace_run for it. */
#define FSDEV_TIMEOUT_BASE_S 600
#define FSDEV_TIMEOUT_S_PER_GIB 10
#define FSDEV_TIMEOUT_AUTO UINT64_MAX
uint64_t fsdev_timeout_ns(uint64_t bytes);

/* 0, or -errno with one line in why: -ENOENT (no such device), -EINVAL (neither a block device
 * nor a regular file). bytes: the file's size, the device's (BLKGETSIZE64). busy is found by an exclusive open (O_EXCL on a block device fails with
 * EBUSY while the kernel holds it mounted), for an image through the loop devices whose
 * backing file it is. */
int fsdev_resolve(const char *name, struct fsdev *d, char *why, size_t len);

/* Runs an after-run tool on a resolved device d: argv[0] the tool's name, NULL-terminated.
 * o's time limit (FSDEV_TIMEOUT_AUTO: fsdev_timeout_ns(d->bytes); o NULL: none) is left in
 * *timeout_ns, the tool's result in *run, the command line in command (the program as found
 * once it ran; an argument with a space in quotes). 0 once the tool ran, whatever it exited
 * with; -ENOENT (not installed) or another -errno with one line in why. */
int fsdev_tool_run(const char *argv[], const struct spawn_opts *o, const struct fsdev *d,
		   uint64_t *timeout_ns, struct spawn_result *run, char *command, size_t cmdlen, char *why,
		   size_t whylen);
#endif
