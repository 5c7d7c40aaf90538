/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The runner's --device: one name, one device number, an exclusive claim (sys/devclaim.h). */
#include "sys/devclaim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/quote.h"

/* every directory from / down to path's is root's and writable by root only (a sticky /tmp
 * is not: anyone may add names there) */
static bool root_only_dirs(const char *path)
{
	char dir[PATH_MAX], *s;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	while ((s = strrchr(dir, '/'))) {
		*s = '\0';
		if (stat(*dir ? dir : "/", &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
		    (st.st_mode & 022))
			return false;
		if (!*dir)
			break;
	}
	return true;
}

/* /dev/NAME from the kernel's uevent file of the device */
static int kernel_node(dev_t rdev, char *out, size_t len)
{
	char p[96], line[512];
	int rc = -ENOENT;
	FILE *f;

	snprintf(p, sizeof(p), "/sys/dev/block/%u:%u/uevent", major(rdev), minor(rdev));
	if (!(f = fopen(p, "re")))
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "DEVNAME=", 8)) {
			line[strcspn(line, "\n")] = '\0';
			if (line[8] && !strstr(line + 8, "..") &&
			    snprintf(out, len, "/dev/%s", line + 8) < (int)len)
				rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

static bool same_dev(const char *path, dev_t rdev)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == rdev;
}

int devclaim_resolve(const char *given, struct devclaim *c, char *err, size_t errlen)
{
	char real[PATH_MAX], q[QUOTE_MAX];
	struct stat st;
	int rc;

	c->fd = -1;
	quote_str(given, q, sizeof(q));
	if (!realpath(given, real) || stat(real, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "--device '%s': %s", q, strerror(-rc));
		return rc;
	}
	if (!S_ISBLK(st.st_mode)) {
		snprintf(err, errlen, "--device '%s': not a block device", q);
		return -ENOTBLK;
	}
	c->rdev = st.st_rdev;
	if (kernel_node(c->rdev, c->path, sizeof(c->path)) == 0 && same_dev(c->path, c->rdev) &&
	    root_only_dirs(c->path))
		return 0;
	if (root_only_dirs(real)) {
		snprintf(c->path, sizeof(c->path), "%s", real);
		return 0;
	}
	{
		char rq[QUOTE_MAX];

		snprintf(err, errlen, "--device '%s': its node '%s' is in a directory others can change, "
			 "and /dev has no node for device %u:%u: refusing it", q, quote_str(real, rq, sizeof(rq)),
			 major(c->rdev), minor(c->rdev));
	}
	return -EPERM;
}

int devclaim_verify(const struct devclaim *c)
{
	return same_dev(c->path, c->rdev) ? 0 : -ENODEV;
}

int devclaim_take(struct devclaim *c)
{
	struct stat st;
	int fd;

	if (c->fd >= 0)
		return 0;
	if (devclaim_verify(c))
		return -ENODEV;
	if ((fd = open(c->path, O_RDONLY | O_EXCL | O_CLOEXEC)) < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != c->rdev) {
		close(fd);
		return -ENODEV;
	}
	c->fd = fd;
	return 0;
}

int devclaim_release(struct devclaim *c)
{
	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	return devclaim_verify(c);
}

void devclaim_close(struct devclaim *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
