/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libblkid and libmount loaded at run time (sys/mountlib.h) through sys/dl. */
#include "sys/mountlib.h"

#include <errno.h>

#include "sys/dl.h"

static const char *const blkid_names[] = { MOUNTLIB_BLKID_FUNCS(DL_NAME) };
static union {
	struct mountlib_blkid f;
	void *p[DL_COUNT(blkid_names)];
} blkid_tab;
_Static_assert(sizeof(blkid_tab.f) == sizeof(blkid_tab.p), "one name per pointer");
static struct dl_lib blkid_lib = {
	.soname = "libblkid.so.1",
	.package = "libblkid1",
	.prefix = "blkid_",
	.names = blkid_names,
	.fns = blkid_tab.p,
	.n = DL_COUNT(blkid_names),
};

static const char *const mount_names[] = { MOUNTLIB_MOUNT_FUNCS(DL_NAME) };
static union {
	struct mountlib_mount f;
	void *p[DL_COUNT(mount_names)];
} mount_tab;
_Static_assert(sizeof(mount_tab.f) == sizeof(mount_tab.p), "one name per pointer");
static struct dl_lib mount_lib = {
	.soname = "libmount.so.1",
	.package = "libmount1",
	.prefix = "mnt_",
	.names = mount_names,
	.fns = mount_tab.p,
	.n = DL_COUNT(mount_names),
};

const struct mountlib_blkid *mountlib_blkid(char *err, size_t errlen)
{
	return dl_load(&blkid_lib, err, errlen) ? NULL : &blkid_tab.f;
}

const struct mountlib_mount *mountlib_mount(char *err, size_t errlen)
{
	return dl_load(&mount_lib, err, errlen) ? NULL : &mount_tab.f;
}

int mountlib_load(char *err, size_t errlen)
{
	return mountlib_blkid(err, errlen) && mountlib_mount(err, errlen) ? 0 : -ENOENT;
}
