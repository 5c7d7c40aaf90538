/* SPDX-License-Identifier: GPL-2.0-or-later */
/* manifest.json: kept in memory, committed whole after every change (core/manifest.h). */
#include "core/manifest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/outfile.h"

int manifest_new(struct manifest *m, const char *dir)
{
	memset(m, 0, sizeof(*m));
	if ((size_t)snprintf(m->path, sizeof(m->path), "%s/%s", dir, MANIFEST_NAME) >= sizeof(m->path))
		return -ENAMETOOLONG;
	if (!(m->root = json_object()))
		return -ENOMEM;
	json_object_set_new(m->root, "schema", json_string(MANIFEST_SCHEMA));
	json_object_set_new(m->root, "version", json_integer(MANIFEST_VERSION));
	json_object_set_new(m->root, "undo", json_array());
	json_object_set_new(m->root, "applied", json_array());
	json_object_set_new(m->root, "runs", json_array());
	return 0;
}

int manifest_load(struct manifest *m, const char *dir, struct stat *st, char *err, size_t errlen)
{
	json_error_t je;
	const json_t *s, *v;
	FILE *f;
	int fd;

	memset(m, 0, sizeof(*m));
	if ((size_t)snprintf(m->path, sizeof(m->path), "%s/%s", dir, MANIFEST_NAME) >= sizeof(m->path)) {
		snprintf(err, errlen, "path too long");
		return -ENAMETOOLONG;
	}
	/* the file itself, never what a symbolic link in its place points to */
	if ((fd = open(m->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0 || fstat(fd, st) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, e == ELOOP ? "%s in '%s' is a symbolic link" : "no %s in '%s': %s",
			 MANIFEST_NAME, dir, strerror(e));
		return e == ELOOP ? -EINVAL : -e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s in '%s' is not a regular file", MANIFEST_NAME, dir);
		return -EINVAL;
	}
	/* buffered: jansson reads a descriptor a byte at a time */
	if (!(f = fdopen(fd, "r"))) {
		close(fd);
		snprintf(err, errlen, "%s: %s", m->path, strerror(ENOMEM));
		return -ENOMEM;
	}
	m->root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
	fclose(f);
	if (!m->root) {
		snprintf(err, errlen, "%s: line %d: %s", m->path, je.line, je.text);
		return -EINVAL;
	}
	s = json_object_get(m->root, "schema");
	v = json_object_get(m->root, "version");
	if (!json_is_string(s) || strcmp(json_string_value(s), MANIFEST_SCHEMA) || !json_is_integer(v) ||
	    json_integer_value(v) != MANIFEST_VERSION || !json_is_array(json_object_get(m->root, "undo"))) {
		snprintf(err, errlen, "%s: not an %s version %d manifest", m->path, MANIFEST_SCHEMA,
			 MANIFEST_VERSION);
		manifest_free(m);
		return -EINVAL;
	}
	if (!json_is_array(json_object_get(m->root, "applied")))
		json_object_set_new(m->root, "applied", json_array());
	return 0;
}

int manifest_commit(struct manifest *m)
{
	char why[256];
	int rc;
	struct outfile *of;

	json_object_set_new(m->root, "updated_at", manifest_now());
	if (!(of = outfile_open(m->path, OUTFILE_REPLACE, &rc, why, sizeof(why))))
		return rc;
	if (json_dumpf(m->root, of->f, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 ||
	    fputc('\n', of->f) == EOF) {
		outfile_abort(of);
		return -EIO;
	}
	return outfile_commit(of);
}

void manifest_free(struct manifest *m)
{
	json_decref(m->root);
	m->root = NULL;
}

json_t *manifest_now(void)
{
	struct timeval tv;
	struct tm tm;
	char buf[64], out[80];
	time_t t;

	gettimeofday(&tv, NULL);
	t = tv.tv_sec;
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, sizeof(out), "%s.%03dZ", buf, (int)(tv.tv_usec / 1000));
	return json_string(out);
}

json_t *manifest_undo_add(struct manifest *m, const char *kind)
{
	json_t *list = json_object_get(m->root, "undo"), *e = json_object();

	json_object_set_new(e, "id", json_integer((json_int_t)json_array_size(list)));
	json_object_set_new(e, "kind", json_string(kind));
	json_object_set_new(e, "state", json_string("pending"));
	json_object_set_new(e, "at", manifest_now());
	json_object_set_new(e, "undone", json_false());
	json_array_append_new(list, e);
	return e;
}

void manifest_undo_done(json_t *e)
{
	json_object_set_new(e, "state", json_string("done"));
}

void manifest_undo_mark(json_t *e, bool undone, const char *how)
{
	json_object_set_new(e, "undone", json_boolean(undone));
	json_object_set_new(e, "undo", json_string(how));
	json_object_set_new(e, "undone_at", manifest_now());
}

json_t *manifest_applied(struct manifest *m, const char *command)
{
	json_t *e = json_object();

	json_object_set_new(e, "at", manifest_now());
	json_object_set_new(e, "command", json_string(command));
	json_array_append_new(json_object_get(m->root, "applied"), e);
	return e;
}
