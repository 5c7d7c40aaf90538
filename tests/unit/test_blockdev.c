/* SPDX-License-Identifier: GPL-2.0-or-later */
/* blockdev: device resolution against a synthetic sysfs tree (disk, partition, loop with its
 * backing file, dm over a partition, md over two disks, a dm over md), then this machine's
 * root filesystem and a tmpfs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sys/blockdev.h"

static char root[256];

static void mk(const char *rel)
{
	char p[1024], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void ln(const char *target, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p))
		perror(p);
}

/* a block device directory under devices/, its dev/block and class/block links */
static void dev(const char *dir, const char *name, const char *majmin)
{
	char rel[512], target[512];

	snprintf(rel, sizeof(rel), "devices/%s", dir);
	mk(rel);
	snprintf(target, sizeof(target), "../../devices/%s", dir);
	snprintf(rel, sizeof(rel), "dev/block/%s", majmin);
	ln(target, rel);
	snprintf(rel, sizeof(rel), "class/block/%s", name);
	ln(target, rel);
}

int main(void)
{
	struct blockdev b;

	snprintf(root, sizeof(root), "%s/test_blockdev.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 1;
	}
	mk("dev/block");
	mk("class/block");
	dev("pci/virtio1/block/vda", "vda", "254:0");
	dev("pci/virtio1/block/vda/vda1", "vda1", "254:1");
	put("devices/pci/virtio1/block/vda/vda1/partition", "1\n");
	dev("pci/virtio1/block/vda/vda2", "vda2", "254:2");
	put("devices/pci/virtio1/block/vda/vda2/partition", "2\n");
	dev("virtual/block/loop0", "loop0", "7:0");
	mk("devices/virtual/block/loop0/loop");
	put("devices/virtual/block/loop0/loop/backing_file", "/tmp/img ext4.img\n");
	dev("virtual/block/dm-0", "dm-0", "253:0");
	mk("devices/virtual/block/dm-0/dm");
	put("devices/virtual/block/dm-0/dm/name", "vg-root\n");
	mk("devices/virtual/block/dm-0/slaves");
	ln("../../../../pci/virtio1/block/vda/vda2", "devices/virtual/block/dm-0/slaves/vda2");
	dev("pci/sd/block/sda", "sda", "8:0");
	dev("pci/sd/block/sdb", "sdb", "8:16");
	dev("virtual/block/md0", "md0", "9:0");
	mk("devices/virtual/block/md0/md");
	mk("devices/virtual/block/md0/slaves");
	ln("x", "devices/virtual/block/md0/slaves/sda");
	ln("x", "devices/virtual/block/md0/slaves/sdb");
	dev("virtual/block/dm-1", "dm-1", "253:1");
	mk("devices/virtual/block/dm-1/dm");
	put("devices/virtual/block/dm-1/dm/name", "crypt\n");
	mk("devices/virtual/block/dm-1/slaves");
	ln("x", "devices/virtual/block/dm-1/slaves/md0");

	CHECK(blockdev_resolve_sysfs(root, 254, 0, &b) == 0 && b.kind == BLOCKDEV_DISK &&
	      !strcmp(b.name, "vda") && !strcmp(b.disk, "vda") && b.nstat == 1, "disk");
	CHECK(blockdev_resolve_sysfs(root, 254, 1, &b) == 0 && b.kind == BLOCKDEV_PARTITION &&
	      !strcmp(b.name, "vda1") && !strcmp(b.disk, "vda") && b.nstat == 1 && !strcmp(b.stat[0], "vda1"),
	      "partition -> disk: %s %s", b.name, b.disk);
	CHECK(blockdev_resolve_sysfs(root, 7, 0, &b) == 0 && b.kind == BLOCKDEV_LOOP &&
	      !strcmp(b.backing_file, "/tmp/img ext4.img"), "loop backing file: '%s'", b.backing_file);
	CHECK(blockdev_resolve_sysfs(root, 253, 0, &b) == 0 && b.kind == BLOCKDEV_DM &&
	      !strcmp(b.dm_name, "vg-root") && b.nstat == 2 && !strcmp(b.stat[0], "dm-0") &&
	      !strcmp(b.stat[1], "vda"), "dm over a partition: %u %s", b.nstat, b.nstat > 1 ? b.stat[1] : "");
	CHECK(blockdev_resolve_sysfs(root, 9, 0, &b) == 0 && b.kind == BLOCKDEV_MD && b.nstat == 3,
	      "md over two disks: %u", b.nstat);
	CHECK(blockdev_resolve_sysfs(root, 253, 1, &b) == 0 && b.kind == BLOCKDEV_DM && b.nstat == 3 &&
	      (!strcmp(b.stat[1], "sda") || !strcmp(b.stat[1], "sdb")), "dm over md: the disks at the bottom");
	CHECK(blockdev_resolve_sysfs(root, 1, 99, &b) == -ENOENT && b.kind == BLOCKDEV_NONE, "unknown device");

	/* what is stacked on vda: its partitions, dm-0 holding vda2; loop0's backing file is a
	 * regular file (not a device), so it is on nothing */
	{
		struct blockdev_stack *s = calloc(1, sizeof(*s));
		char path[512];

		put("devices/pci/virtio1/block/vda/dev", "254:0\n");
		put("devices/pci/virtio1/block/vda/vda1/dev", "254:1\n");
		put("devices/pci/virtio1/block/vda/vda2/dev", "254:2\n");
		put("devices/virtual/block/dm-0/dev", "253:0\n");
		put("devices/virtual/block/loop0/dev", "7:0\n");
		mk("block");
		ln("../devices/virtual/block/loop0", "block/loop0");
		mk("devices/pci/virtio1/block/vda/vda2/holders");
		ln("../../../../../../virtual/block/dm-0", "devices/pci/virtio1/block/vda/vda2/holders/dm-0");
		CHECK(s && blockdev_stack(root, 254, 0, s) == 0 && s->n == 4 && !s->truncated, "stack of vda: %u",
		      s ? s->n : 0);
		for (unsigned i = 0; s && i < s->n; i++) {
			blockdev_stack_path(s, i, path, sizeof(path));
			if (!strcmp(s->node[i].name, "dm-0"))
				CHECK(s->node[i].holder && !s->node[i].under &&
				      !strcmp(path, "vda -> vda2 (partition 2) -> dm-0 (device-mapper 'vg-root')"),
				      "dm-0 on vda2: '%s'", path);
			else if (!strcmp(s->node[i].name, "vda1"))
				CHECK(!s->node[i].holder && !strcmp(path, "vda -> vda1 (partition 1)"), "vda1: '%s'", path);
		}
		CHECK(s && blockdev_stack(root, 7, 0, s) == 0 && s->n == 1, "loop0 over a file: alone");
		CHECK(s && blockdev_stack(root, 1, 99, s) == -ENOENT, "stack of an unknown device");
		free(s);
	}

	/* live */
	CHECK(blockdev_resolve("/proc", &b) == 0 && b.kind == BLOCKDEV_NONE, "proc is deviceless");
	if (blockdev_resolve("/dev/shm", &b) == 0 && b.mount_known && !strcmp(b.mount.fstype, "tmpfs"))
		CHECK(b.kind == BLOCKDEV_NONE && b.nstat == 0, "tmpfs is deviceless");
	CHECK(blockdev_resolve("/nonexistent/x", &b) == -ENOENT, "missing path");
	{
		char cmd[512];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd))
			fprintf(stderr, "cannot remove %s\n", root);
	}
	return check_done("test_blockdev");
}
