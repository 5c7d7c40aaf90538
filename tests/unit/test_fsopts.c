/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsopts: the mkfs grammars (accepted and refused spellings per program, every way a word
 * could become an operand, an override or a path) and the mount option classification
 * (flags and data through libmount, refused options). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "check.h"
#include "core/matrix.h"
#include "sys/fsimage.h"
#include "sys/fsopts.h"

static void test_mkfs(void)
{
	static const struct {
		const char *type, *opts;
		const char *err;     /* NULL: accepted; else a part of the message */
	} cases[] = {
		/* accepted */
		{ "ext4", "", NULL },
		{ "ext4", "-O ^has_journal", NULL },
		{ "ext4", "-O ^has_journal,extent -E stride=4,stripe_width=8 -L data -b 4096", NULL },
		{ "ext4", "-b -4096", NULL },
		{ "ext4", "-b4096 -i16384 -I 256 -m 0 -N 1000 -G 16 -g 8192 -C 65536", NULL },
		{ "ext4", "-qvjDK", NULL },
		{ "ext4", "-J size=16,location=4M", NULL },
		{ "ext4", "-E lazy_itable_init,lazy_journal_init=1,root_owner=0:0,quotatype=usrquota:grpquota", NULL },
		{ "ext4", "-E lazy_itable_init=0 -E nodiscard", NULL },
		{ "ext4", "-T news,largefile -U clear -e remount-ro -o Linux -r 1", NULL },
		{ "ext4", "-L 'my label'", NULL },
		{ "ext3", "-j -J size=8", NULL },
		{ "ext2", "-O none", NULL },
		{ "xfs", "-m crc=1,reflink=0 -i size=512 -d agcount=4,su=64k,sw=2 -l size=16m,lazy-count=1", NULL },
		{ "xfs", "-b size=4096 -n size=8k,version=ci,ftype=1 -s size=4096 -K -q -L xfsdata", NULL },
		{ "xfs", "-m bigtime -i sparse -l internal -r extsize=64k -d noalign", NULL },
		{ "xfs", "-dagcount=8", NULL },
		{ "btrfs", "-m single -d single --nodesize 16k -s 4096", NULL },
		{ "btrfs", "--metadata=dup --data=single --csum xxhash --checksum=crc32c", NULL },
		{ "btrfs", "-O ^no-holes,free-space-tree -R quota --features=raid1c34 --mixed -K -U clear", NULL },
		{ "btrfs", "-Lx -qv --label=data --byte-count 64M -b64M", NULL },
		/* operands: a second device, a size, an empty word, the end of the options */
		{ "btrfs", "/dev/loop4", "'/dev/loop4' is not an option" },
		{ "btrfs", "-L x /dev/loop4", "'/dev/loop4' is not an option" },
		{ "btrfs", "-Lx /dev/loop4", "'/dev/loop4' is not an option" },
		{ "btrfs", "--label=x /dev/loop4", "'/dev/loop4' is not an option" },
		{ "btrfs", "-M /dev/loop4", "'/dev/loop4' is not an option" },
		{ "btrfs", "-- /dev/loop4", "'--' is not accepted" },
		{ "btrfs", "--", "'--' is not accepted" },
		{ "btrfs", "-", "'-' is not an option" },
		{ "btrfs", "''", "'' is not an option" },
		{ "ext4", "/dev/loop4", "'/dev/loop4' is not an option" },
		{ "ext4", "-O ^has_journal 1024", "'1024' is not an option" },
		{ "ext4", "-q -- /dev/loop4", "'--' is not accepted" },
		{ "xfs", "dev", "'dev' is not an option" },
		/* a value missing: getopt would take the device as the value */
		{ "btrfs", "-L", "'-L' needs a value" },
		{ "btrfs", "--label", "'--label' needs a value" },
		{ "xfs", "-d", "'-d' needs a value" },
		{ "ext4", "-qL", "'-L' needs a value" },
		/* overrides the runner gives itself, and clusters hiding them */
		{ "ext4", "-F", "'-F' is not accepted: the runner gives -F" },
		{ "ext4", "-qF", "'-F' is not accepted" },
		{ "ext4", "-FF", "'-F' is not accepted" },
		{ "xfs", "-f", "'-f' is not accepted" },
		{ "xfs", "-C", "'-C' is not accepted" },
		{ "xfs", "-qf", "'-f' is not accepted" },
		{ "btrfs", "-f", "'-f' is not accepted" },
		{ "btrfs", "--force", "'--force' is not accepted" },
		{ "btrfs", "-vf", "'-f' is not accepted" },
		/* other devices and paths */
		{ "ext4", "-J device=/dev/loop4", "device= is not accepted" },
		{ "ext4", "-J size=4,device=UUID=abc", "device= is not accepted" },
		{ "ext4", "-Jdevice=LABEL=j", "device= is not accepted" },
		{ "ext4", "-d /etc", "'-d' is not accepted" },
		{ "ext4", "-d/etc", "'-d' is not accepted" },
		{ "ext4", "-l /tmp/bad", "'-l' is not accepted" },
		{ "ext4", "-z /tmp/undo", "'-z' is not accepted" },
		{ "ext4", "-M /mnt", "'-M' is not accepted" },
		{ "ext4", "-E android_sparse", "android_sparse is not accepted" },
		{ "ext4", "-t ext2", "'-t' is not accepted" },
		{ "ext4", "-S", "'-S' is not accepted" },
		{ "ext4", "-n", "'-n' is not accepted" },
		{ "ext4", "-V", "'-V' is not accepted" },
		{ "ext4", "-c", "'-c' is not accepted" },
		{ "ext4", "-R stride=4", "'-R' is not accepted" },
		{ "ext4", "--help", "unknown option '--help'" },
		{ "xfs", "-l logdev=/dev/loop4,size=10m", "logdev= is not accepted" },
		{ "xfs", "-l size=10m,logdev=/dev/loop4", "logdev= is not accepted" },
		{ "xfs", "-r rtdev=/dev/loop4", "rtdev= is not accepted" },
		{ "xfs", "-d name=/dev/loop4", "name= is not accepted" },
		{ "xfs", "-d file,size=1g", "file is not accepted" },
		{ "xfs", "-l name=/tmp/log", "name= is not accepted" },
		{ "xfs", "-c options=/tmp/x", "'-c' is not accepted" },
		{ "xfs", "-p /tmp/proto", "'-p' is not accepted" },
		{ "xfs", "-N", "'-N' is not accepted" },
		{ "xfs", "--unsupported", "unknown option '--unsupported'" },
		{ "btrfs", "--rootdir /etc", "'--rootdir' is not accepted" },
		{ "btrfs", "--rootdir=/etc", "'--rootdir' is not accepted" },
		{ "btrfs", "-r /etc", "'-r' is not accepted" },
		{ "btrfs", "--root=/etc", "unknown option '--root'" },
		{ "btrfs", "--for", "unknown option '--for'" },
		{ "btrfs", "--shrink", "'--shrink' is not accepted" },
		{ "btrfs", "-O list-all", "is not a feature list" },
		{ "btrfs", "-V", "'-V' is not accepted" },
		{ "btrfs", "-A 0", "unknown option '-A'" },
		/* values: shapes, '=' and '/' tricks, values that look like options */
		{ "ext4", "-L /dev/loop4", "is not a label" },
		{ "ext4", "-L -F", "is not a label" },
		{ "ext4", "-b /dev/loop4", "is not a number" },
		{ "ext4", "-E stride=4=/dev/loop4", "the value is a number" },
		{ "ext4", "-E stride=/dev/loop4", "the value is a number" },
		{ "ext4", "-E lazy_itable_init=2", "0 or 1" },
		{ "ext4", "-E test_fs=1", "takes no value" },
		{ "ext4", "-E stride=4,", "empty suboption" },
		{ "ext4", "-E ,stride=4", "is not name[=value]" },
		{ "ext4", "-E bogus=1", "unknown suboption 'bogus'" },
		{ "ext4", "-O has_journal,/dev/loop4", "is not a feature list" },
		{ "ext4", "-U ../x", "is not a name" },
		{ "ext4", "-T a/b", "is not a name" },
		{ "ext4", "-L a\001b", "is not a label" },
		{ "xfs", "-m uuid=/dev/loop4", "the value is a name" },
		{ "xfs", "-n version=a=b", "the value is a name" },
		{ "xfs", "-d agcount=", "the value is a number" },
		{ "btrfs", "--label=", "is not a label" },
		{ "btrfs", "--mixed=1", "takes no value" },
		{ "btrfs", "--csum=/dev/loop4", "is not a name" },
		{ "btrfs", "-d /dev/loop4", "is not a name" },
		{ "btrfs", "-m -f", "is not a name" },
		{ "btrfs", "-x", "unknown option '-x'" },
		{ "nilfs2", "-q", "unknown filesystem" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[512] = "";
		int rc = fsopts_mkfs_check_str(cases[i].type, cases[i].opts, err, sizeof(err));

		if (!cases[i].err)
			CHECK(rc == 0, "%s '%s' refused: %s", cases[i].type, cases[i].opts, err);
		else
			CHECK(rc == -EINVAL && strstr(err, cases[i].err), "%s '%s': rc %d, '%s' (want '%s')",
			      cases[i].type, cases[i].opts, rc, err, cases[i].err);
	}
}

/* the runner's mkfs command: its own flags, the user's words after them, a refusal whole */
static void test_mkfs_argv(void)
{
	char *argv[64], err[512];
	int n = fsimage_mkfs_argv("btrfs", "-m single -L x", argv, 64, err, sizeof(err));

	CHECK(n == 7 && !strcmp(argv[0], "mkfs.btrfs") && !strcmp(argv[1], "-q") && !strcmp(argv[2], "-f") &&
	      !strcmp(argv[3], "-m") && !strcmp(argv[6], "x"), "argv: %d", n);
	while (n > 0)
		free(argv[--n]);
	n = fsimage_mkfs_argv("btrfs", "-L x /dev/loop4", argv, 64, err, sizeof(err));
	CHECK(n == -1 && strstr(err, "mkfs.btrfs: '/dev/loop4' is not an option"), "%d %s", n, err);
	n = fsimage_mkfs_argv("ext4", "-J device=/dev/loop4", argv, 64, err, sizeof(err));
	CHECK(n == -1 && strstr(err, "device= is not accepted"), "%d %s", n, err);
}

static void test_mount(void)
{
	static const struct {
		const char *opts;
		unsigned long flags;
		const char *data;    /* NULL: none */
		const char *err;     /* NULL: accepted */
	} cases[] = {
		{ "", 0, NULL, NULL },
		{ "defaults", 0, NULL, NULL },
		{ "defaults,noatime", MS_NOATIME, NULL, NULL },
		{ "sync", MS_SYNCHRONOUS, NULL, NULL },
		{ "ro,rw", 0, NULL, NULL },
		{ "ro", MS_RDONLY, NULL, NULL },
		{ "noatime,lazytime,nodiratime,dirsync",
		  MS_NOATIME | MS_LAZYTIME | MS_NODIRATIME | MS_DIRSYNC, NULL, NULL },
		{ "relatime,strictatime,nosuid,nodev,noexec",
		  MS_RELATIME | MS_STRICTATIME | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL, NULL },
		{ "data=ordered", 0, "data=ordered", NULL },
		{ "nodelalloc", 0, "nodelalloc", NULL },
		{ "delalloc,noatime,commit=5", MS_NOATIME, "delalloc,commit=5", NULL },
		{ "compress=zstd:3,space_cache=v2,discard=async", 0, "compress=zstd:3,space_cache=v2,discard=async", NULL },
		{ "discard", 0, "discard", NULL },
		{ "logbsize=256k,allocsize=64k,noatime", MS_NOATIME, "logbsize=256k,allocsize=64k", NULL },
		{ "errors=remount-ro,journal_checksum", 0, "errors=remount-ro,journal_checksum", NULL },
		{ "subvol=@data", 0, "subvol=@data", NULL },
		{ "noatime,,sync", MS_NOATIME | MS_SYNCHRONOUS, NULL, NULL },
		/* mount(8)'s own: loop devices, helpers, fstab */
		{ "loop=/dev/loop4", 0, NULL, "an option of mount(8)" },
		{ "loop", 0, NULL, "an option of mount(8)" },
		{ "offset=0,loop", 0, NULL, "'offset=0' is not accepted" },
		{ "sizelimit=1M", 0, NULL, "an option of mount(8)" },
		{ "encryption=aes", 0, NULL, "an option of mount(8)" },
		{ "x-mount.mkdir", 0, NULL, "an option of mount(8)" },
		{ "X-mount.subdir=a", 0, NULL, "an option of mount(8)" },
		{ "helper=udisks2", 0, NULL, "an option of mount(8)" },
		{ "uhelper=x", 0, NULL, "an option of mount(8)" },
		{ "user", 0, NULL, "an option of mount(8)" },
		{ "owner", 0, NULL, "an option of mount(8)" },
		{ "verity.hashdevice=/dev/loop4", 0, NULL, "an option of mount(8)" },
		{ "defaults=1", 0, NULL, "defaults takes no value" },
		/* what changes other mounts */
		{ "bind", 0, NULL, "bind, move, remount" },
		{ "rbind", 0, NULL, "bind, move, remount" },
		{ "defaults,bind", 0, NULL, "bind, move, remount" },
		{ "remount", 0, NULL, "bind, move, remount" },
		{ "move", 0, NULL, "it moves a mount" },
		{ "rshared", 0, NULL, "propagation" },
		{ "private", 0, NULL, "propagation" },
		{ "slave", 0, NULL, "propagation" },
		{ "unbindable", 0, NULL, "propagation" },
		{ "noatime=1", 0, NULL, "takes no value" },
		/* the filesystem's options that reach another device or a file */
		{ "journal_path=/dev/loop4", 0, NULL, "an external journal" },
		{ "journal_dev=1792", 0, NULL, "an external journal" },
		{ "logdev=/dev/loop4", 0, NULL, "an external log" },
		{ "rtdev=/dev/loop4", 0, NULL, "a realtime device" },
		{ "device=/dev/loop4", 0, NULL, "it adds a device" },
		{ "usrjquota=aquota.user,jqfmt=vfsv0", 0, NULL, "a quota file" },
		{ "grpjquota=q", 0, NULL, "a quota file" },
		{ "source=/dev/loop4", 0, NULL, "the runner names the source" },
		{ "context=system_u:object_r:tmp_t:s0", 0, NULL, "a security label" },
		{ "rootcontext=x", 0, NULL, "a security label" },
		{ "smackfsroot=x", 0, NULL, "a security label" },
		{ "subvol=/a", 0, NULL, "a path" },
		{ "foo=../../x", 0, NULL, "a path" },
		{ "foo=a=b", 0, NULL, "a value is letters" },
		/* quoting and blanks: libmount and the kernel could split them differently */
		{ "context=\"a,b\"", 0, NULL, "quotes, blanks and control characters" },
		{ "noatime, loop", 0, NULL, "quotes, blanks" },
		{ "noatime\n", 0, NULL, "control characters" },
		{ "=x", 0, NULL, "is not accepted" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[512] = "", *data = (char *)1;
		unsigned long flags = 99;
		int rc = fsopts_mount_parse(cases[i].opts, &flags, &data, err, sizeof(err));

		if (!cases[i].err) {
			CHECK(rc == 0, "'%s' refused: %s", cases[i].opts, err);
			CHECK(flags == cases[i].flags, "'%s': flags %#lx, want %#lx", cases[i].opts, flags,
			      cases[i].flags);
			CHECK(cases[i].data ? data && !strcmp(data, cases[i].data) : !data, "'%s': data '%s'",
			      cases[i].opts, data ? data : "(none)");
		} else {
			CHECK(rc == -EINVAL && strstr(err, cases[i].err) && !data && !flags,
			      "'%s': rc %d, '%s' (want '%s')", cases[i].opts, rc, err, cases[i].err);
		}
		if (!rc)
			free(data);
	}
	CHECK(fsopts_mount_parse(NULL, NULL, NULL, NULL, 0) == 0, "NULL: no options");
}

/* an experiment's axes: mkfs values per type or against every fs, mount values, then cells */
static void test_exp(void)
{
	static const struct {
		const char *fs[2], *mkfs, *mount;
		const char *err;     /* NULL: accepted */
	} cases[] = {
		{ { "ext4", "xfs" }, "xfs:-m crc=1", "noatime", NULL },
		{ { "ext4", "xfs" }, "-q", "data=ordered", NULL },
		{ { NULL, NULL }, "-O ^has_journal", NULL, NULL },
		{ { "ext4", "xfs" }, "-m crc=1", NULL, "axis mkfs: value '-m crc=1': mkfs.ext4: option '-m'" },
		{ { "btrfs", NULL }, "-L x /dev/loop4", NULL, "axis mkfs: value '-L x /dev/loop4': mkfs.btrfs:" },
		{ { "ext4", NULL }, "btrfs:-f", NULL, "mkfs.btrfs: option '-f' is not accepted" },
		{ { "ext4", NULL }, "zfs:-o x", NULL, "unknown filesystem 'zfs'" },
		{ { NULL, NULL }, "/dev/loop4", NULL, "mkfs.ext4: '/dev/loop4' is not an option" },
		{ { "ext4", NULL }, NULL, "noatime,loop=/dev/loop4", "axis mount: value 'noatime,loop=/dev/loop4'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mx_exp *e = calloc(1, sizeof(*e));
		char err[1024] = "";
		int a, rc;

		mx_init(e);
		e->workload = strdup("tiotest");
		e->name = strdup("t");
		if (cases[i].fs[0] && (a = mx_axis_add(e, "fs", MX_FS, NULL, err, sizeof(err))) >= 0)
			for (int k = 0; k < 2 && cases[i].fs[k]; k++)
				mx_value_add(e, (unsigned)a, NULL, cases[i].fs[k], false, err, sizeof(err));
		if (cases[i].mkfs && (a = mx_axis_add(e, "mkfs", MX_MKFS, NULL, err, sizeof(err))) >= 0)
			mx_value_add(e, (unsigned)a, NULL, cases[i].mkfs, false, err, sizeof(err));
		if (cases[i].mount && (a = mx_axis_add(e, "mount", MX_MOUNT, NULL, err, sizeof(err))) >= 0)
			mx_value_add(e, (unsigned)a, NULL, cases[i].mount, false, err, sizeof(err));
		rc = fsopts_exp_check(e, false, err, sizeof(err));
		if (!cases[i].err) {
			CHECK(rc == 0, "case %zu: %s", i, err);
			rc = mx_finish(e, fsimage_mkfs_argv, err, sizeof(err));
			CHECK(rc == 0 && fsopts_exp_check(e, true, err, sizeof(err)) == 0, "case %zu cells: %s", i, err);
		} else {
			CHECK(rc == -EINVAL && strstr(err, cases[i].err), "case %zu: rc %d, '%s' (want '%s')", i, rc,
			      err, cases[i].err);
		}
		mx_free(e);
		free(e);
	}
}

int main(void)
{
	test_mkfs();
	test_mkfs_argv();
	test_mount();
	test_exp();
	return check_done("fsopts");
}
