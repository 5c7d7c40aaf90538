/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options fsbench matrix passes to mkfs and mount(2), as grammars: what a user may give and
 * in which form. mkfs: per program (mke2fs for ext2/3/4, mkfs.xfs, mkfs.btrfs) a whitelist of
 * options with the shape of their argument, read the way the program's getopt reads it (glued
 * "-Lx", clusters "-qK", "--long=value"), so that no word can become an operand (a second
 * device), an override (-f, -F) or a path (an external journal or log, a root directory, a
 * config, undo or prototype file): those are refused, not checked. Mount: libmount classifies
 * each option (the kernel's VFS flags, mount(8)'s userspace options, the rest the filesystem's);
 * bind/move/remount/propagation, every userspace option but "defaults" (loop=, offset=, x-*,
 * helpers), security labels and the filesystem options that name another device or a file
 * (journal_path=, logdev=, device=, usrjquota=, any value with a '/') are refused. Functions
 * return 0, or -EINVAL with one line (no program name) in err. */
#ifndef FSB_SYS_FSOPTS_H
#define FSB_SYS_FSOPTS_H
#include <stdbool.h>
#include <stddef.h>

struct mx_exp;

/* The user's words for mkfs.TYPE (without the program, the runner's flags and the device). */
int fsopts_mkfs_check(const char *type, char *const words[], unsigned n, char *err, size_t errlen);
/* The same for an option string, split into words as the runner splits it (shell-like). */
int fsopts_mkfs_check_str(const char *type, const char *opts, char *err, size_t errlen);

/* A comma-separated mount option string: *flags gets the MS_* flags (libmount's map), *data
 * (malloc'd, NULL when empty) the filesystem's options in their order. flags and data may be
 * NULL to check only. "" and "defaults" are no options. */
int fsopts_mount_parse(const char *opts, unsigned long *flags, char **data, char *err, size_t errlen);

/* An experiment's options before anything is set up (core/matrix.h). Before mx_finish (cells
 * false): every value of its mkfs and mount axes, an experiment file's too ("TYPE:OPTS" against
 * mkfs.TYPE's grammar, plain OPTS against every filesystem of the fs axis). After it (cells
 * true): every cell's joined mount options. */
int fsopts_exp_check(const struct mx_exp *e, bool cells, char *err, size_t errlen);
#endif
