/* SPDX-License-Identifier: GPL-2.0-or-later */
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

/* Host-wide kernel settings that change results, from sysfs: the CPU frequency governor (every
 * CPU's, the distinct values in CPU order joined by ',': "performance", or mixed
 * "performance,powersave") and driver (cpu0's cpufreq; both empty without cpufreq, as in most VMs) and transparent huge pages
 * (the selected value of enabled and defrag). "" when unknown. */
struct env_sysfs {
	char cpufreq_governor[64];
	char cpufreq_driver[64];
	char thp_enabled[32];
	char thp_defrag[32];
};

/* A target's whole disk's request queue, from /sys/block/DISK: the I/O scheduler in use, the
 * device model, rotational, read-ahead and nr_requests (the queue depth the block layer
 * allows). "" or -1 when unknown. */
struct env_queue {
	char disk[64];
	char scheduler[64];
	char model[256];
	int rotational;           /* 0 or 1; -1 unknown */
	int64_t read_ahead_kb;    /* -1 unknown */
	int64_t nr_requests;      /* -1 unknown */
};

/* Fills *s from the sysfs tree at sys ("/sys"; another root for tests). Always 0: a file that
 * is missing or unreadable leaves its field empty. */
int env_sysfs_read(const char *sys, struct env_sysfs *s);
/* Fills *q for disk (a kernel name: "vda", "loop0", "dm-0") under sys. 0, or -ENOENT when
 * sys/block/DISK does not exist (then every field is unknown); -EINVAL for a name with '/'. */
int env_queue_read(const char *sys, const char *disk, struct env_queue *q);

struct env_host {
	char kernel_release[256]; /* uname -r */
	char kernel_version[512]; /* uname -v */
	char machine[64];         /* uname -m */
	char hostname[256];
	char cpu_model[256];      /* /proc/cpuinfo "model name" (first), else "Hardware", "cpu model",
	                             "cpu" (powerpc), "uarch" (riscv), else "" */
	unsigned cpus_online;     /* sysconf(_SC_NPROCESSORS_ONLN) */
	uint64_t mem_total_bytes; /* /proc/meminfo MemTotal x 1024 */
	struct env_sysfs sysfs;   /* from /sys */
};

/* Returns 0 or -errno (only uname() failing is an error); missing or unreadable /proc files leave
   their fields empty or 0. */
int env_host_read(struct env_host *h);

#endif
