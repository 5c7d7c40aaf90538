/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libblkid and libmount (util-linux), loaded at run time (sys/dl.h) by the experiment runner's
 * device checks and mount options (sys/fsimage, sys/fsopts): the other commands do not load
 * them, nor libselinux and libpcre2 behind them, at every start. */
#ifndef FSB_SYS_MOUNTLIB_H
#define FSB_SYS_MOUNTLIB_H
#include <blkid/blkid.h>
#include <libmount/libmount.h>
#include <stddef.h>

/* clang-format off */
#define MOUNTLIB_BLKID_FUNCS(X) \
	X(do_safeprobe) X(free_probe) X(new_probe) X(new_probe_from_filename) \
	X(probe_enable_partitions) X(probe_enable_superblocks) X(probe_lookup_value) \
	X(probe_set_device) X(probe_set_partitions_flags) X(probe_set_superblocks_flags)
#define MOUNTLIB_MOUNT_FUNCS(X) X(get_builtin_optmap) X(optstr_get_flags) X(optstr_next_option)
/* clang-format on */

struct mountlib_blkid {
#define MOUNTLIB_BLKID_PTR(name) __typeof__(blkid_##name) *name;
	MOUNTLIB_BLKID_FUNCS(MOUNTLIB_BLKID_PTR)
#undef MOUNTLIB_BLKID_PTR
};
struct mountlib_mount {
#define MOUNTLIB_MOUNT_PTR(name) __typeof__(mnt_##name) *name;
	MOUNTLIB_MOUNT_FUNCS(MOUNTLIB_MOUNT_PTR)
#undef MOUNTLIB_MOUNT_PTR
};

/* libblkid's, libmount's functions (loaded at the first call); NULL with one line in err (may
 * be NULL) when the library or a function cannot be found */
const struct mountlib_blkid *mountlib_blkid(char *err, size_t errlen);
const struct mountlib_mount *mountlib_mount(char *err, size_t errlen);
/* both: 0, or -ENOENT with one line in err (the experiment runner asks before it starts) */
int mountlib_load(char *err, size_t errlen);
#endif
