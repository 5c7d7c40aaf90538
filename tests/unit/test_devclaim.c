/* SPDX-License-Identifier: GPL-2.0-or-later */
/* devclaim: a --device named through a symbolic link resolves to the kernel's node of that
 * device; what is not a block device, or is missing, is refused; a name that leads elsewhere
 * fails the check. Nothing is opened (no claim is taken on this machine's devices). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sys/devclaim.h"

/* a block device with a node /dev/NAME, from /sys/class/block */
static int any_block_node(char *path, size_t len, struct stat *st)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *e;
	int rc = -ENOENT;

	if (!d)
		return rc;
	while (rc && (e = readdir(d)))
		if (e->d_name[0] != '.' && snprintf(path, len, "/dev/%s", e->d_name) < (int)len &&
		    stat(path, st) == 0 && S_ISBLK(st->st_mode))
			rc = 0;
	closedir(d);
	return rc;
}

int main(void)
{
	struct devclaim c;
	char err[512], node[300], dir[256], link[300];
	struct stat st;

	CHECK(devclaim_resolve("/dev/null", &c, err, sizeof(err)) == -ENOTBLK && strstr(err, "not a block device"),
	      "/dev/null: %s", err);
	CHECK(devclaim_resolve("/nonexistent/dev", &c, err, sizeof(err)) == -ENOENT, "missing: %s", err);
	if (any_block_node(node, sizeof(node), &st)) {
		CHECK_SKIP("a symbolic link to a block device", "no block device node under /dev here");
		return check_done("test_devclaim");
	}
	snprintf(dir, sizeof(dir), "%s/test_devclaim.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(link, sizeof(link), "%s/dev", dir);
	CHECK(symlink(node, link) == 0, "symlink");
	CHECK(devclaim_resolve(link, &c, err, sizeof(err)) == 0 && c.rdev == st.st_rdev && c.fd == -1 &&
	      !strncmp(c.path, "/dev/", 5), "a link to %s: '%s' %s", node, c.path, err);
	CHECK(devclaim_verify(&c) == 0, "the name leads to the device");
	c.rdev++;
	CHECK(devclaim_verify(&c) == -ENODEV, "another device number: the name no longer fits");
	CHECK(devclaim_take(&c) == -ENODEV && c.fd == -1, "no claim through a name that leads elsewhere");
	unlink(link);
	rmdir(dir);
	return check_done("test_devclaim");
}
