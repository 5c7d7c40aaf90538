/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A filesystem's device for the after-run tools (sys/fsdev.h). */
#include "sys/fsdev.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* a block device the kernel holds (mounted, swap, another exclusive opener) */
static bool dev_busy(const char *path)
{
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0) {
		close(fd);
		return false;
	}
	return errno == EBUSY;
}

static uint64_t dev_bytes(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	uint64_t bytes = 0;

	if (fd < 0)
		return 0;
	if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
		bytes = 0;
	close(fd);
	return bytes;
}

/* an image is busy when a loop device backed by it is */
static bool image_busy(const char *path)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	bool busy = false;

	if (!d)
		return false;
	while (!busy && (e = readdir(d))) {
		char p[512], back[PATH_MAX + 2], dev[300];
		FILE *f;

		if (strncmp(e->d_name, "loop", 4))
			continue;
		snprintf(p, sizeof(p), "/sys/block/%s/loop/backing_file", e->d_name);
		if (!(f = fopen(p, "re")))
			continue;
		if (fgets(back, sizeof(back), f)) {
			back[strcspn(back, "\n")] = '\0';
			snprintf(dev, sizeof(dev), "/dev/%s", e->d_name);
			busy = !strcmp(back, path) && dev_busy(dev);
		}
		fclose(f);
	}
	closedir(d);
	return busy;
}

int fsdev_resolve(const char *name, struct fsdev *d, char *why, size_t len)
{
	struct stat st;

	memset(d, 0, sizeof(*d));
	if (!realpath(name, d->path)) {
		int err = errno;

		snprintf(why, len, "cannot use '%.160s': %s", name, strerror(err));
		return -err;
	}
	if (lstat(d->path, &st) < 0) {
		int err = errno;

		snprintf(why, len, "cannot use '%.160s': %s", d->path, strerror(err));
		return -err;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode)) {
		snprintf(why, len, "'%.160s' is neither a block device nor a filesystem image", d->path);
		return -EINVAL;
	}
	d->image = S_ISREG(st.st_mode);
	d->busy = d->image ? image_busy(d->path) : dev_busy(d->path);
	d->bytes = d->image ? (uint64_t)st.st_size : dev_bytes(d->path);
	return 0;
}

uint64_t fsdev_timeout_ns(uint64_t bytes)
{
	uint64_t gib = (bytes + (UINT64_C(1) << 30) - 1) >> 30;

	return (FSDEV_TIMEOUT_BASE_S + gib * FSDEV_TIMEOUT_S_PER_GIB) * UINT64_C(1000000000);
}

static void command_text(const char *const argv[], char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (int i = 0; argv[i] && at < len; i++)
		at += (size_t)snprintf(buf + at, len - at, strchr(argv[i], ' ') ? "%s\"%s\"" : "%s%s",
				       i ? " " : "", argv[i]);
}

int fsdev_tool_run(const char *argv[], const struct spawn_opts *o, const struct fsdev *d,
		   uint64_t *timeout_ns, struct spawn_result *run, char *command, size_t cmdlen, char *why,
		   size_t whylen)
{
	const char *tool = argv[0];
	struct spawn_opts so = o ? *o : (struct spawn_opts){ 0 };
	int rc;

	command_text(argv, command, cmdlen);
	if (so.timeout_ns == FSDEV_TIMEOUT_AUTO)
		so.timeout_ns = fsdev_timeout_ns(d->bytes);
	*timeout_ns = so.timeout_ns;
	rc = spawn_run(argv, &so, run);
	if (rc == -ENOENT) {
		snprintf(why, whylen, "%s is not installed", tool);
		return rc;
	}
	if (rc) {
		snprintf(why, whylen, "cannot run %s: %s", tool, strerror(-rc));
		return rc;
	}
	/* the command as run: the program found, then its arguments */
	argv[0] = run->path;
	command_text(argv, command, cmdlen);
	argv[0] = tool;
	return 0;
}
