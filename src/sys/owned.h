/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What proves to the experiment runner, as root, that something is its own, and the paths it may
 * write through: the marker it sets on what it creates (an extended attribute in the trusted
 * namespace, which only a process with CAP_SYS_ADMIN can set or read), the rules a directory must
 * meet before root writes in it or trusts a file in it, kernel knob paths resolved once and
 * opened with no symbolic link followed, and the per-knob lock under /run/fsbench/knobs.
 * Functions return 0 or -errno; a reason, when there is one, goes to why (one line). */
#ifndef FSB_SYS_OWNED_H
#define FSB_SYS_OWNED_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define OWNED_XATTR "trusted.fsbench.owner"
#define OWNED_XATTR_KNOBS "trusted.fsbench.knobs"   /* on the result directory: its knobs */
#define OWNED_XATTR_REMOUNTS "trusted.fsbench.remounts"   /* ... and the targets it remounts */
#define OWNED_LOCK_DIR "/run/fsbench/knobs"

/* ---- markers ---------------------------------------------------------------------------- */
/* Whether dir's filesystem keeps trusted.* attributes (root only): 0 or -EOPNOTSUPP. */
int owned_xattr_supported(const char *dir);
/* Sets the marker (token) on path (a file or a directory, no symbolic link followed). */
int owned_mark(const char *path, const char *token);
/* Another attribute of fsbench's on path (no symbolic link followed): set (value NULL: removed,
 * none is fine), or read into buf (NUL-terminated; its length, or -errno, -ENODATA for none). */
int owned_set(const char *path, const char *name, const char *value);
int owned_get(const char *path, const char *name, char *buf, size_t len);
/* 0 when path (no symbolic link at its last component) is a directory (dir) or a regular file
 * owned by root that carries the marker token; *st gets its lstat. -ENOENT when it does not
 * exist; -EPERM with the reason in why when it is not fsbench's. */
int owned_check(const char *path, const char *token, bool dir, struct stat *st, char *why,
		size_t len);

/* ---- directories root writes in or trusts ----------------------------------------------- */
/* path (absolute, resolved) and every directory above it, up to /: each owned by root, and not
 * writable by group or others, except a parent with the sticky bit (/tmp: another user cannot
 * rename or remove what root made in it). self: path itself may not even be sticky-writable
 * (a result directory others could add files to). -EPERM (or -errno) with the reason in why. */
int owned_dir_chain(const char *path, bool self, char *why, size_t len);
/* path made absolute (from the working directory) and resolved (realpath); a path that does not
 * exist yet: its parent resolved and its last component kept (not "." or ".."). */
int owned_abs_path(const char *path, bool may_not_exist, char *out, size_t outlen, char *why,
		   size_t len);

/* ---- kernel knobs ----------------------------------------------------------------------- */
/* A knob path as the user gave it, made absolute and resolved: the symbolic links followed are
 * only those that live in /sys or /proc (the kernel's own, such as /sys/block/NAME); any other
 * (a link the user or someone else made) is refused. The result must lie under /proc/sys or
 * /sys. -EINVAL with the reason in why. */
int owned_knob_resolve(const char *path, char *out, size_t outlen, char *why, size_t len);
/* Opens an absolute path under /proc/sys or /sys: resolved first by owned_knob_resolve's rule
 * (the kernel's links only, such as /sys/class/bdi/NAME; -EPERM otherwise, -ENOENT when it does
 * not exist), then walked from / with no symbolic link followed at any component, so nothing
 * swapped in between is followed. flags as open(2). The file descriptor, or -errno. */
int owned_knob_open(const char *path, int flags);

/* The lock of one knob (its resolved path) for the whole experiment: an flock on
 * OWNED_LOCK_DIR/knob-HASH.lock (the directory root's own, 0700, made if missing and checked),
 * which holds the holder's pid. -EBUSY when another process holds it (why names its pid). */
int owned_knob_lock(const char *real, int *fd, char *why, size_t len);
/* Removes the lock file (while still holding it) and closes fd. */
void owned_knob_unlock(const char *real, int fd);
#endif
