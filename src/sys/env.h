/* What fsbench records about the machine and the target directories: the mount a path lives on
   (from /proc/self/mountinfo) and the host identity (uname, /proc/cpuinfo, /proc/meminfo). */
#ifndef FSB_SYS_ENV_H
#define FSB_SYS_ENV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The mount a path lives on, from /proc/self/mountinfo. All strings are unescaped and always
   NUL-terminated; a field longer than its buffer is truncated (only super_options ever gets that
   long in practice, e.g. overlayfs lowerdir lists). */
struct env_mount {
	char mount_point[4096];
	char fstype[64];
	char source[4096];        /* e.g. /dev/loop0, tmpfs, /dev/mapper/x */
	char mount_options[1024]; /* per-mount options (field 6) */
	char super_options[1024]; /* superblock options (after the ' - ' separator) */
	char root[4096];          /* directory inside the filesystem that is mounted: "/" unless a bind mount or a subvolume */
	unsigned dev_major, dev_minor;
};

/* Fill *m for the filesystem holding path (a file, a directory, or a block device node).
 *
 * Files and directories: stat(path).st_dev is matched against mountinfo's major:minor; when several
 * mounts share the device (bind mounts) the one whose mount point is the longest path-component
 * prefix of realpath(path) wins, and among identical mount points the last (topmost) one. If the
 * device matches but no mount point is a prefix, the device still decides. If no device matches,
 * a btrfs mount whose mount point is the longest prefix is taken, because btrfs reports a per-subvolume
 * st_dev that never appears in mountinfo.
 *
 * Block device nodes: the mount whose source is that device (by major:minor, or by stat() of the
 * source path, which covers /dev/mapper symlinks and btrfs); the first mount of its root ("/") is
 * preferred over bind mounts of subdirectories. An unmounted device is not an error: fstype is ""
 * and source is path.
 *
 * Returns 0, -ENOENT when no mount matches, or another -errno (stat, realpath, reading mountinfo). */
int env_mount_of(const char *path, struct env_mount *m);

/* Same as env_mount_of() for a file or directory, but parsing mountinfo_text instead of
 * /proc/self/mountinfo, for tests. dev is the st_dev of the target and real its realpath
 * (may be NULL: then only the device decides). mountinfo_text is not modified. */
int env_mount_parse(const char *mountinfo_text, dev_t dev, const char *real, struct env_mount *m);

struct env_host {
	char kernel_release[256]; /* uname -r */
	char kernel_version[512]; /* uname -v */
	char machine[64];         /* uname -m */
	char hostname[256];
	char cpu_model[256];      /* /proc/cpuinfo "model name" (first), else "Hardware", "cpu model",
	                             "cpu" (powerpc), "uarch" (riscv), else "" */
	unsigned cpus_online;     /* sysconf(_SC_NPROCESSORS_ONLN) */
	uint64_t mem_total_bytes; /* /proc/meminfo MemTotal x 1024 */
};

/* Returns 0 or -errno (only uname() failing is an error); missing or unreadable /proc files leave
   their fields empty or 0. */
int env_host_read(struct env_host *h);

#endif
