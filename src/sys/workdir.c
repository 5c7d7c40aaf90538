/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Work directories inside directories fsbench does not own (sys/workdir.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/outfile.h"
#include "sys/workdir.h"

/* deeper trees than this are not fsbench's workloads' (fs_mark's are a few levels) */
#define WORKDIR_MAX_DEPTH 64

int workdir_name(const char *parent, const char *prefix, char *out, size_t outlen)
{
	char suffix[7];

	outfile_random_name(suffix, sizeof(suffix));
	if (snprintf(out, outlen, "%s/%s.%s", parent, prefix, suffix) >= (int)outlen)
		return -ENAMETOOLONG;
	return 0;
}

int workdir_create(const char *path, struct stat *st)
{
	int rc;

	/* mkdir never follows a link at the last component: an existing name is EEXIST */
	if (mkdir(path, 0700) < 0)
		return -errno;
	if (lstat(path, st) < 0) {
		rc = -errno;
		rmdir(path);
		return rc;
	}
	return 0;
}

/* Empties the directory open as dfd (on device dev). */
static int empty(int dfd, dev_t dev, unsigned depth)
{
	int fd = dup(dfd), rc = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	if (!(d = fdopendir(fd))) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(d))) {
		struct stat st, cst;
		int cfd, r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT && !rc)
				rc = -errno;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (unlinkat(dfd, de->d_name, 0) < 0 && errno != ENOENT && !rc)
				rc = -errno;
			continue;
		}
		if (st.st_dev != dev) {
			rc = rc ? rc : -EXDEV;
			continue;
		}
		if (depth >= WORKDIR_MAX_DEPTH) {
			rc = rc ? rc : -ELOOP;
			continue;
		}
		cfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (cfd < 0) {
			rc = rc ? rc : -errno;
			continue;
		}
		/* the one stat'ed, not one swapped in since */
		if (fstat(cfd, &cst) < 0 || cst.st_dev != st.st_dev || cst.st_ino != st.st_ino) {
			close(cfd);
			rc = rc ? rc : -EPERM;
			continue;
		}
		r = empty(cfd, dev, depth + 1);
		close(cfd);
		if (r)
			rc = rc ? rc : r;
		else if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) < 0 && errno != ENOENT && !rc)
			rc = -errno;
	}
	closedir(d);
	return rc;
}

int workdir_remove(const char *path, dev_t dev, ino_t ino, char *how, size_t len)
{
	char parent[4096];
	const char *base, *slash = strrchr(path, '/');
	struct stat st;
	int pfd, fd, rc;

	if (!slash || !slash[1] || (size_t)(slash - path) >= sizeof(parent)) {
		snprintf(how, len, "left: not an absolute path");
		return -EINVAL;
	}
	snprintf(parent, sizeof(parent), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	base = slash + 1;
	if ((pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		rc = -errno;
		if (rc == -ENOENT) {
			snprintf(how, len, "gone already");
			return 0;
		}
		snprintf(how, len, "cannot open '%s': %s", parent, strerror(-rc));
		return rc;
	}
	fd = openat(pfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		close(pfd);
		if (rc == -ENOENT) {
			snprintf(how, len, "gone already");
			return 0;
		}
		snprintf(how, len, "left: %s", rc == -ELOOP || rc == -ENOTDIR ? "not the directory fsbench made "
			 "(replaced)" : strerror(-rc));
		return rc == -ELOOP || rc == -ENOTDIR ? -EPERM : rc;
	}
	if (fstat(fd, &st) < 0 || st.st_dev != dev || st.st_ino != ino) {
		close(fd);
		close(pfd);
		snprintf(how, len, "left: not the directory fsbench made (replaced)");
		return -EPERM;
	}
	rc = empty(fd, dev, 0);
	close(fd);
	if (rc) {
		close(pfd);
		snprintf(how, len, "left: %s", rc == -EXDEV ? "another filesystem is mounted inside it" :
			 strerror(-rc));
		return rc;
	}
	/* the name may have been renamed away and replaced meanwhile: removed only if still ours */
	if (fstatat(pfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		rc = errno == ENOENT ? -EPERM : -errno;
	else if (st.st_dev != dev || st.st_ino != ino)
		rc = -EPERM;
	else if (unlinkat(pfd, base, AT_REMOVEDIR) < 0)
		rc = -errno;
	close(pfd);
	if (!rc)
		snprintf(how, len, "removed");
	else
		snprintf(how, len, "left: %s", rc == -EPERM ? "moved or replaced while it was emptied" : strerror(-rc));
	return rc;
}
