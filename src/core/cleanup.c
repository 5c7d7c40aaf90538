/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cleanup registry: what fsbench created, and nothing else, is removed at the end. */
#include "core/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct entry {
	char *path;              /* NULL for a callback entry */
	dev_t dev;
	ino_t ino;
	bool is_dir;
	int (*fn)(void *arg);
	void *arg;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct entry *entries;
static unsigned nentries, cap;

static int push(struct entry e)
{
	int rc = 0;

	pthread_mutex_lock(&mu);
	if (nentries == cap) {
		unsigned ncap = cap ? cap * 2 : 16;
		struct entry *n = realloc(entries, ncap * sizeof(*n));

		if (!n) {
			rc = -ENOMEM;
			goto out;
		}
		entries = n;
		cap = ncap;
	}
	entries[nentries++] = e;
out:
	pthread_mutex_unlock(&mu);
	return rc;
}

int cleanup_add(const char *path, const struct stat *st)
{
	struct entry e = { .dev = st->st_dev, .ino = st->st_ino, .is_dir = S_ISDIR(st->st_mode) };
	int rc;

	e.path = strdup(path);
	if (!e.path)
		return -ENOMEM;
	rc = push(e);
	if (rc)
		free(e.path);
	return rc;
}

int cleanup_add_fn(int (*fn)(void *arg), void *arg)
{
	return push((struct entry){ .fn = fn, .arg = arg });
}

int cleanup_create_file(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int fd, rc;

	fd = open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	rc = fstat(fd, &st) < 0 ? -errno : cleanup_add(path, &st);
	if (rc < 0) {
		/* we did create it (O_EXCL), so removing it here is ours to do */
		unlink(path);
		close(fd);
		return rc;
	}
	return fd;
}

int cleanup_mkdir(const char *path, mode_t mode)
{
	struct stat st;
	int rc;

	if (mkdir(path, mode) < 0)
		return -errno;
	rc = lstat(path, &st) < 0 ? -errno : cleanup_add(path, &st);
	if (rc < 0) {
		rmdir(path);
		return rc;
	}
	return 0;
}

static cleanup_reporter reporter;

void cleanup_set_reporter(cleanup_reporter fn)
{
	reporter = fn;
}

void cleanup_report(const char *path, int err)
{
	if (reporter)
		reporter(path, err);
}

static int remove_entry(struct entry *e)
{
	struct stat st;

	if (e->fn)
		return e->fn(e->arg) ? -1 : 0;
	if (lstat(e->path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		cleanup_report(e->path, errno);
		return -1;
	}
	if (st.st_dev != e->dev || st.st_ino != e->ino) {
		cleanup_report(e->path, 0);
		return -1;
	}
	if ((e->is_dir ? rmdir(e->path) : unlink(e->path)) < 0) {
		cleanup_report(e->path, errno);
		return -1;
	}
	return 0;
}

int cleanup_run(bool keep)
{
	int failed = 0;

	pthread_mutex_lock(&mu);
	while (nentries) {
		struct entry *e = &entries[--nentries];

		if (!keep && remove_entry(e) < 0)
			failed++;
		free(e->path);
	}
	free(entries);
	entries = NULL;
	cap = 0;
	pthread_mutex_unlock(&mu);
	return failed;
}

int cleanup_remove_now(const char *path)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&mu);
	for (unsigned i = nentries; i-- > 0;) {
		if (!entries[i].path || strcmp(entries[i].path, path))
			continue;
		rc = remove_entry(&entries[i]) < 0 ? -EIO : 0;
		free(entries[i].path);
		memmove(&entries[i], &entries[i + 1], (nentries - i - 1) * sizeof(*entries));
		nentries--;
		break;
	}
	pthread_mutex_unlock(&mu);
	return rc;
}
