/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libblkid and libmount loaded at run time (sys/mountlib.h) through sys/dl. */
#include "sys/mountlib.h"

#include <errno.h>

#include "sys/dl.h"

DL_LIBRARY(blkid, MOUNTLIB_BLKID_FUNCS, struct mountlib_blkid, "libblkid.so.1", "libblkid1", "blkid_");
DL_LIBRARY(mount, MOUNTLIB_MOUNT_FUNCS, struct mountlib_mount, "libmount.so.1", "libmount1", "mnt_");

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
