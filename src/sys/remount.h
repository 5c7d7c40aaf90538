/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remounting a mounted filesystem with other options and back (fsbench matrix --remount-opts on
 * a --target): its state read from /proc/self/mountinfo (only a mount point, by its device), the
 * cell's options applied over the ones it had, and those replayed to restore it. An option the
 * kernel does not list when it has its default cannot be replayed: remount_same says whether
 * the restore gave back what was there. Functions return 0 or -errno; err gets one line. */
#ifndef FSB_SYS_REMOUNT_H
#define FSB_SYS_REMOUNT_H
#include <stdbool.h>
#include <stddef.h>

struct remount_state {
	char mnt[4096];
	char source[4096];
	char fstype[64];
	char vfs[1024];              /* the mount's options: "rw,relatime" */
	char super[1024];            /* the superblock's: "rw,commit=30" */
	unsigned major, minor;
};

/* mnt's mount: -EINVAL (err says) when mnt is not itself a mount point. */
int remount_read(const char *mnt, struct remount_state *s, char *err, size_t len);
/* The options a remount to state s passes: its mount and filesystem options, then extra (the
 * cell's; NULL: none), later ones winning. */
void remount_opts(const struct remount_state *s, const char *extra, char *out, size_t len);
/* The options that give state s back after a remount with applied (remount_opts's): its own,
 * then, for each filesystem flag in applied that s does not list ("nodelalloc"), its opposite
 * ("delalloc"): the kernel lists such a flag only when it is not the default. A key=value s
 * does not list (commit=30) has no known way back: remount_same tells after. */
void remount_back_opts(const struct remount_state *s, const char *applied, char *out, size_t len);
/* Checks (flags, data as fsopts_mount_parse) without remounting: 0 or -EINVAL. */
int remount_check(const char *opts, char *err, size_t len);
/* Remounts mnt with opts (remount_opts's). */
int remount_apply(const char *mnt, const char *opts, char *err, size_t len);
/* The same mount with the same options. */
bool remount_same(const struct remount_state *a, const struct remount_state *b);
#endif
