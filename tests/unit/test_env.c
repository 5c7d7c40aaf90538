/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/sys/env.c: mountinfo parsing against a synthetic table (bind mounts, escapes,
   optional fields, btrfs subvolumes, malformed lines), then live checks on this machine. */
#include "sys/env.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "check.h"

#define CHECK_STR(what, got, want) \
	CHECK(strcmp((got), (want)) == 0, "%s: %s = '%s', want '%s'", (what), #got, (got), (want))

/* Modelled on a real /proc/self/mountinfo; lines after the first blank one are deliberately broken. */
static const char mountinfo[] =
	"22 27 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw\n"
	"27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw,discard\n"
	"40 27 254:0 /srv/data /mnt/bind rw,relatime shared:1 master:2 - ext4 /dev/vda rw,discard\n"
	"41 40 254:0 /srv/data/deep /mnt/bind/deep ro,relatime - ext4 /dev/vda rw,discard\n"
	"50 27 8:17 / /mnt/my\\040disk rw,noatime shared:5 master:2 propagate_from:3 - xfs /dev/sdb1 rw,attr2,inode64\n"
	"51 27 8:18 / /mnt/t\\011n\\012b\\134 rw - ext4 /dev/my\\040src rw\n"
	"60 27 0:50 / /mnt/stack rw - tmpfs first rw,size=1k\n"
	"61 27 0:50 / /mnt/stack rw - tmpfs second rw,size=1k\n"
	"70 27 0:60 /@home /home rw,relatime - btrfs /dev/nvme0n1p2 rw,ssd,subvolid=257,subvol=/@home\n"
	"71 27 0:61 / /mnt/odd\\9\\ rw - ext4 /dev/sdc1 rw\n"
	"\n"
	"garbage\n"
	"90 27 notadev / /mnt/x rw - ext4 /dev/x rw\n"
	"91 27 0:80 / /mnt/y rw shared:1 no-separator ext4 /dev/y rw\n"
	"92 27 0:81 / /mnt/z rw -\n"
	"93 27 -1:82 / /mnt/w rw - ext4 /dev/w rw\n"
	"94 27 0:83: / /mnt/v rw - ext4 /dev/v rw\n"
	"95 27 0:84 / /mnt/u rw - ext4 /dev/u"; /* no super options, no final newline: still counts */

struct parse_case {
	const char *name;
	unsigned maj, min;
	const char *real;
	int rc;
	const char *mount_point, *fstype, *source, *root, *mount_options, *super_options;
	const char *dev; /* major:minor reported, "0:0" when none */
};

static const struct parse_case parse_cases[] = {
	{ "root fs", 254, 0, "/etc/passwd", 0, "/", "ext4", "/dev/vda", "/", "rw,relatime", "rw,discard", "254:0" },
	{ "mount point itself", 254, 0, "/", 0, "/", "ext4", "/dev/vda", "/", "rw,relatime", "rw,discard", "254:0" },
	{ "bind mount, longest prefix", 254, 0, "/mnt/bind/x", 0, "/mnt/bind", "ext4", "/dev/vda", "/srv/data",
	  "rw,relatime", "rw,discard", "254:0" },
	{ "nested bind mount", 254, 0, "/mnt/bind/deep/f", 0, "/mnt/bind/deep", "ext4", "/dev/vda", "/srv/data/deep",
	  "ro,relatime", "rw,discard", "254:0" },
	{ "bind mount point exact", 254, 0, "/mnt/bind/deep", 0, "/mnt/bind/deep", "ext4", "/dev/vda",
	  "/srv/data/deep", "ro,relatime", "rw,discard", "254:0" },
	{ "prefix is per component", 254, 0, "/mnt/bindery/x", 0, "/", "ext4", "/dev/vda", "/", "rw,relatime",
	  "rw,discard", "254:0" },
	{ "no realpath: last device match", 254, 0, NULL, 0, "/mnt/bind/deep", "ext4", "/dev/vda",
	  "/srv/data/deep", "ro,relatime", "rw,discard", "254:0" },
	{ "\\040 in mount point, 3 optional fields", 8, 17, "/mnt/my disk/f", 0, "/mnt/my disk", "xfs", "/dev/sdb1",
	  "/", "rw,noatime", "rw,attr2,inode64", "8:17" },
	{ "device decides when no prefix fits", 8, 17, "/elsewhere", 0, "/mnt/my disk", "xfs", "/dev/sdb1", "/",
	  "rw,noatime", "rw,attr2,inode64", "8:17" },
	{ "\\011 \\012 \\134 escapes, escaped source", 8, 18, "/mnt/t\tn\nb\\/f", 0, "/mnt/t\tn\nb\\", "ext4",
	  "/dev/my src", "/", "rw", "rw", "8:18" },
	{ "stacked mounts: topmost wins", 0, 50, "/mnt/stack/f", 0, "/mnt/stack", "tmpfs", "second", "/", "rw",
	  "rw,size=1k", "0:50" },
	{ "btrfs subvolume st_dev falls back to path", 0, 99, "/home/u/f", 0, "/home", "btrfs", "/dev/nvme0n1p2",
	  "/@home", "rw,relatime", "rw,ssd,subvolid=257,subvol=/@home", "0:60" },
	{ "btrfs fallback needs a prefix", 0, 99, "/var/x", -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "invalid escapes kept literally", 0, 61, "/x", 0, "/mnt/odd\\9\\", "ext4", "/dev/sdc1", "/", "rw", "rw",
	  "0:61" },
	{ "unknown device", 9, 9, "/etc", -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "unknown device, no realpath", 9, 9, NULL, -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "malformed devno skipped", 0, 0, "/mnt/x", -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "line without separator skipped", 0, 80, "/mnt/y", -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "line without fstype skipped", 0, 81, "/mnt/z", -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "negative major skipped", 0, 82, "/mnt/w", -ENOENT, "", "", "", "", "", "", "0:0" },
	{ "missing super options, last line", 0, 84, "/mnt/u", 0, "/mnt/u", "ext4", "/dev/u", "/", "rw", "", "0:84" },
	{ "trailing junk in devno skipped", 0, 83, "/mnt/v", -ENOENT, "", "", "", "", "", "", "0:0" },
};

static void test_parse_table(void)
{
	for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		const struct parse_case *c = &parse_cases[i];
		struct env_mount m;
		char dev[32];
		int rc;

		memset(&m, 'x', sizeof m); /* prove every field is (re)written */
		rc = env_mount_parse(mountinfo, makedev(c->maj, c->min), c->real, &m);
		CHECK(rc == c->rc, "%s: rc = %d, want %d", c->name, rc, c->rc);
		CHECK_STR(c->name, m.mount_point, c->mount_point);
		CHECK_STR(c->name, m.fstype, c->fstype);
		CHECK_STR(c->name, m.source, c->source);
		CHECK_STR(c->name, m.root, c->root);
		CHECK_STR(c->name, m.mount_options, c->mount_options);
		CHECK_STR(c->name, m.super_options, c->super_options);
		snprintf(dev, sizeof dev, "%u:%u", m.dev_major, m.dev_minor);
		CHECK_STR(c->name, dev, c->dev);
	}
}

static void test_parse_edges(void)
{
	struct env_mount m;
	size_t n = 3000;
	char *text, *opts;
	int rc;

	/* overlayfs lowerdir lists overflow super_options: truncated, terminated, not an error */
	opts = malloc(n + 1);
	text = malloc(n + 128);
	if (!opts || !text) {
		CHECK(0, "out of memory");
		free(opts);
		free(text);
		return;
	}
	memset(opts, 'o', n);
	opts[n] = '\0';
	snprintf(text, n + 128, "1 0 0:90 / /ovl rw - overlay overlay %s\n", opts);
	rc = env_mount_parse(text, makedev(0, 90), "/ovl", &m);
	CHECK(rc == 0, "long options: rc = %d", rc);
	CHECK(strlen(m.super_options) == sizeof m.super_options - 1, "long options: len = %zu",
	      strlen(m.super_options));
	CHECK_STR("long options", m.fstype, "overlay");
	free(opts);
	free(text);

	rc = env_mount_parse("", makedev(0, 1), "/", &m);
	CHECK(rc == -ENOENT, "empty text: rc = %d", rc);

	rc = env_mount_parse("1 0 0:5 / /last rw - tmpfs t rw", makedev(0, 5), "/last", &m);
	CHECK(rc == 0 && strcmp(m.mount_point, "/last") == 0, "last line without newline: rc = %d", rc);
}

static void test_live_mounts(void)
{
	struct env_mount m, root;
	struct stat sb;
	int rc;

	rc = env_mount_of("/proc", &m);
	CHECK(rc == 0, "/proc: rc = %d", rc);
	CHECK_STR("/proc", m.fstype, "proc");
	CHECK_STR("/proc", m.mount_point, "/proc");

	rc = env_mount_of("/proc/self/status", &m);
	CHECK(rc == 0, "/proc/self/status: rc = %d", rc);
	CHECK_STR("file in /proc", m.fstype, "proc");

	if (stat("/dev/shm", &sb) == 0) {
		rc = env_mount_of("/dev/shm", &m);
		CHECK(rc == 0, "/dev/shm: rc = %d", rc);
		CHECK_STR("/dev/shm", m.fstype, "tmpfs");
	} else {
		CHECK_SKIP("/dev/shm", "%s", strerror(errno));
	}

	rc = env_mount_of("/nonexistent/fsbench-test-env", &m);
	CHECK(rc == -ENOENT, "missing path: rc = %d", rc);

	rc = env_mount_of("/", &root);
	CHECK(rc == 0, "/: rc = %d", rc);
	CHECK_STR("/", root.mount_point, "/");
	CHECK(root.fstype[0] != '\0', "/: empty fstype");

	/* The device under / (when it is a real block device) must lead back to a mount of it. */
	if (rc == 0 && stat(root.source, &sb) == 0 && S_ISBLK(sb.st_mode)) {
		rc = env_mount_of(root.source, &m);
		CHECK(rc == 0, "%s: rc = %d", root.source, rc);
		CHECK_STR(root.source, m.fstype, root.fstype);
		CHECK(m.mount_point[0] == '/', "%s: mount point '%s'", root.source, m.mount_point);
	} else {
		CHECK_SKIP("block device of /", "the source of / is not a block device node here");
	}
}

/* An unmounted block device: fstype "" and source = the path given. Needs CAP_MKNOD. */
static void test_live_unmounted_bdev(void)
{
	char dir[] = "/tmp/test_env.XXXXXX", node[64];
	struct env_mount m;
	int rc;

	if (!mkdtemp(dir)) {
		CHECK_SKIP("unmounted block device", "%s", strerror(errno));
		return;
	}
	snprintf(node, sizeof node, "%s/blk", dir);
	/* blkext major with a minor far beyond anything allocated, so it cannot be mounted */
	if (mknod(node, S_IFBLK | 0600, makedev(259, 1000000)) < 0) {
		CHECK_SKIP("unmounted block device", "%s", strerror(errno));
	} else {
		rc = env_mount_of(node, &m);
		CHECK(rc == 0, "unmounted bdev: rc = %d", rc);
		CHECK_STR("unmounted bdev", m.fstype, "");
		CHECK_STR("unmounted bdev", m.source, node);
		CHECK_STR("unmounted bdev", m.mount_point, "");
		CHECK(m.dev_major == 259 && m.dev_minor == 1000000, "unmounted bdev: dev = %u:%u", m.dev_major,
		      m.dev_minor);
		unlink(node);
	}
	rmdir(dir);
}

static void test_live_host(void)
{
	struct env_host h;
	int rc = env_host_read(&h);

	CHECK(rc == 0, "env_host_read: rc = %d", rc);
	CHECK(h.kernel_release[0] != '\0', "empty kernel_release");
	CHECK(h.kernel_version[0] != '\0', "empty kernel_version");
	CHECK(h.machine[0] != '\0', "empty machine");
	CHECK(h.cpus_online >= 1, "cpus_online = %u", h.cpus_online);
	CHECK(h.mem_total_bytes > 0 && h.mem_total_bytes % 1024 == 0, "mem_total_bytes = %llu",
	      (unsigned long long)h.mem_total_bytes);
	/* cpu_model may legitimately be "" (arm64), but never untrimmed */
	if (h.cpu_model[0])
		CHECK(h.cpu_model[strlen(h.cpu_model) - 1] != '\n' && h.cpu_model[0] != ' ',
		      "cpu_model not trimmed: '%s'", h.cpu_model);
}

/* sysfs fixtures: a synthetic tree per case, files given as "relative path=content" */
struct sysfs_case {
	const char *name;
	const char *files[8];
	const char *disk;
	struct env_sysfs want;
	int want_rc;
	struct env_queue wantq;
};

static const struct sysfs_case sysfs_cases[] = {
	{ "bare metal", {
		"devices/system/cpu/cpu0/cpufreq/scaling_governor=performance\n",
		"devices/system/cpu/cpu0/cpufreq/scaling_driver=intel_pstate\n",
		"kernel/mm/transparent_hugepage/enabled=[always] madvise never\n",
		"kernel/mm/transparent_hugepage/defrag=always defer defer+madvise [madvise] never\n",
		"block/sda/queue/scheduler=mq-deadline kyber [bfq] none\n",
		"block/sda/device/model=Samsung SSD 870  \n",
		"block/sda/queue/rotational=0\n",
		"block/sda/queue/read_ahead_kb=128\n" }, "sda",
	  { "performance", "intel_pstate", "always", "madvise" }, 0,
	  { "sda", "bfq", "Samsung SSD 870", 0, 128, -1 } },
	{ "mixed governors: the distinct ones in CPU order", {
		"devices/system/cpu/cpu0/cpufreq/scaling_governor=performance\n",
		"devices/system/cpu/cpu1/cpufreq/scaling_governor=performance\n",
		"devices/system/cpu/cpu2/cpufreq/scaling_governor=powersave\n",
		"devices/system/cpu/cpu3/online=0\n",
		"devices/system/cpu/cpu10/cpufreq/scaling_governor=performance\n",
		"devices/system/cpu/cpufreq/boost=1\n" }, "sdz",
	  { "performance,powersave", "", "", "" }, -ENOENT,
	  { "sdz", "", "", -1, -1, -1 } },
	{ "vm without cpufreq, nvme with none", {
		"kernel/mm/transparent_hugepage/enabled=always madvise [never]\n",
		"block/nvme0n1/queue/scheduler=[none] mq-deadline\n",
		"block/nvme0n1/queue/rotational=1\n",
		"block/nvme0n1/queue/nr_requests=1023\n",
		"block/nvme0n1/queue/read_ahead_kb=garbage\n" }, "nvme0n1",
	  { "", "", "never", "" }, 0,
	  { "nvme0n1", "none", "", 1, -1, 1023 } },
	{ "loop: one scheduler, no marks", {
		"block/loop0/queue/scheduler=none\n",
		"block/loop0/queue/rotational=7\n",
		"block/loop0/queue/nr_requests=-3\n" }, "loop0",
	  { "", "", "", "" }, 0,
	  { "loop0", "none", "", -1, -1, -1 } },
	{ "no such disk", { NULL }, "sdz", { "", "", "", "" }, -ENOENT,
	  { "sdz", "", "", -1, -1, -1 } },
	{ "a name with a slash", { NULL }, "../x", { "", "", "", "" }, -EINVAL,
	  { "", "", "", -1, -1, -1 } },
};

static void write_fixture(const char *root, const char *spec)
{
	char path[4096], rel[1024];
	const char *eq = strchr(spec, '=');
	FILE *f;

	snprintf(rel, sizeof rel, "%.*s", (int)(eq - spec), spec);
	for (char *p = rel; (p = strchr(p, '/')); p++) {
		*p = '\0';
		snprintf(path, sizeof path, "%s/%s", root, rel);
		mkdir(path, 0755);
		*p = '/';
	}
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if ((f = fopen(path, "w"))) {
		fputs(eq + 1, f);
		fclose(f);
	}
}

static void test_sysfs_table(void)
{
	for (size_t i = 0; i < sizeof sysfs_cases / sizeof sysfs_cases[0]; i++) {
		const struct sysfs_case *c = &sysfs_cases[i];
		char root[] = "/tmp/test_env.XXXXXX", cmd[64];
		struct env_sysfs s;
		struct env_queue q;
		int rc;

		if (!mkdtemp(root)) {
			CHECK(0, "mkdtemp: %s", strerror(errno));
			return;
		}
		for (unsigned k = 0; k < 8 && c->files[k]; k++)
			write_fixture(root, c->files[k]);
		CHECK(env_sysfs_read(root, &s) == 0, "%s: env_sysfs_read", c->name);
		CHECK_STR(c->name, s.cpufreq_governor, c->want.cpufreq_governor);
		CHECK_STR(c->name, s.cpufreq_driver, c->want.cpufreq_driver);
		CHECK_STR(c->name, s.thp_enabled, c->want.thp_enabled);
		CHECK_STR(c->name, s.thp_defrag, c->want.thp_defrag);
		rc = env_queue_read(root, c->disk, &q);
		CHECK(rc == c->want_rc, "%s: env_queue_read = %d, want %d", c->name, rc, c->want_rc);
		CHECK_STR(c->name, q.disk, c->wantq.disk);
		CHECK_STR(c->name, q.scheduler, c->wantq.scheduler);
		CHECK_STR(c->name, q.model, c->wantq.model);
		CHECK(q.rotational == c->wantq.rotational, "%s: rotational %d, want %d", c->name,
		      q.rotational, c->wantq.rotational);
		CHECK(q.read_ahead_kb == c->wantq.read_ahead_kb, "%s: read_ahead_kb %lld, want %lld", c->name,
		      (long long)q.read_ahead_kb, (long long)c->wantq.read_ahead_kb);
		CHECK(q.nr_requests == c->wantq.nr_requests, "%s: nr_requests %lld, want %lld", c->name,
		      (long long)q.nr_requests, (long long)c->wantq.nr_requests);
		/* the fixture tree holds only what this test wrote */
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
		CHECK(system(cmd) == 0, "%s: cannot remove %s", c->name, root);
	}
}

int main(void)
{
	test_sysfs_table();
	test_parse_table();
	test_parse_edges();
	test_live_mounts();
	test_live_unmounted_bdev();
	test_live_host();
	return check_done("test_env");
}
