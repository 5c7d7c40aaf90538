/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --age and --age-cache in the runner (matrix_run.h): a new filesystem aged before its first run
 * (sys/age.h), or its aged image taken from the cache (sys/agecache.h) instead of mkfs and aging,
 * and an image aged here kept in the cache. Each step recorded in the manifest before it is taken;
 * the cache is an optimisation: an entry that cannot be used or kept is said, never fatal. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/matrix_run.h"
#include "sys/age.h"
#include "sys/agecache.h"
#include "sys/owned.h"
#include "sys/workdir.h"

static int age_stop(void)
{
	return interrupted();
}

/* The cell's cache key: its filesystem, mkfs command (as its configuration records it), the
 * image size, the recipe and the seed. */
static void cell_key(const struct runner *r, const struct mx_cell *c, struct agecache_key *k)
{
	const json_t *mk = json_object_get(c->config, "mkfs");
	char line[4096] = "";
	size_t n = 0;

	for (size_t i = 0; i < json_array_size(mk) && n < sizeof(line); i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", i ? " " : "",
				      json_string_value(json_array_get(mk, i)) ?: "");
	agecache_key(c->fs, line, r->p->e->size_bytes, r->p->age, r->p->seed, k);
}

/* The aged state in the run and the manifest's list ("cache": the entry it came from), said. */
static int aged_record(struct runner *r, const struct mx_cell *c, json_t *run, const struct age_result *a,
		       const char *from)
{
	json_t *o = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:f, s:o, s:s, s:f}", "cell", c->name, "recipe",
			      r->p->cfg->age, "files", (json_int_t)a->files, "bytes", (json_int_t)a->bytes, "written",
			      (json_int_t)a->written, "deleted", (json_int_t)a->deleted, "used_pct",
			      round(a->used_pct * 10) / 10, "extents_per_file",
			      isfinite(a->extents_per_file) ? json_real(round(a->extents_per_file * 1000) / 1000) :
			      json_null(), "list_hash", a->list_hash, "wall_s", round(a->wall_s * 10) / 10);

	json_object_set_new(o, "cache", from ? json_string(from) : json_null());
	json_object_set(run, "age", o);
	if (!json_is_array(json_object_get(r->m.root, "aged")))
		json_object_set_new(r->m.root, "aged", json_array());
	json_array_append_new(json_object_get(r->m.root, "aged"), o);
	say(r, "aged %s%s%s: %.1f %% full, %llu files (%llu written, %llu deleted), %.2f extents per file, %.1f s (%s)",
	    c->name, from ? " from cache " : "", from ? from : "", a->used_pct, (unsigned long long)a->files,
	    (unsigned long long)a->written, (unsigned long long)a->deleted, a->extents_per_file, a->wall_s,
	    a->list_hash);
	return commit(r);
}

int mxr_age(struct runner *r, struct target *t, const struct mx_cell *c, json_t *run, bool restored)
{
	struct age_result a;
	char err[512], line[1300];
	json_t *x;
	int rc;

	if (restored) {
		/* the state the cached image holds, measured as aging measures it */
		if ((rc = age_measure(t->mnt, &a, err, sizeof(err)))) {
			say(r, "measuring %s's aged state: %s", c->name, err);
			return rc;
		}
		a.written = r->age_hit.written;
		a.deleted = r->age_hit.deleted;
		if (strcmp(a.list_hash, r->age_hit.list_hash))
			say(r, "warning: cache entry %s holds other files (%s) than when it was kept (%s)", r->age_key,
			    a.list_hash, r->age_hit.list_hash);
		return aged_record(r, c, run, &a, r->age_key);
	}
	snprintf(line, sizeof(line), "age %s seed %llu", r->p->cfg->age, (unsigned long long)r->p->seed);
	x = manifest_applied(&r->m, line);
	json_object_set_new(x, "cell", json_string(c->name));
	json_object_set(x, "run", json_object_get(run, "order"));
	if (commit(r))
		return -EIO;
	say(r, "aging %s (--age %s) ...", c->name, r->p->cfg->age);
	rc = age_run(t->mnt, r->p->age, r->p->seed, age_stop, &a, err, sizeof(err));
	json_object_set_new(x, "exit", json_integer(rc));
	if (rc) {
		say(r, "aging %s: %s", c->name, err);
		commit(r);
		return rc;
	}
	r->age_hit = (struct agecache_counts){ .written = a.written, .deleted = a.deleted };
	snprintf(r->age_hit.list_hash, sizeof(r->age_hit.list_hash), "%s", a.list_hash);
	return aged_record(r, c, run, &a, NULL);
}

/* The run's image, proven the experiment's (its marker), opened for writing: fd or -errno. */
static int image_open(struct runner *r, const struct target *t)
{
	char why[PATH_MAX + 256];
	struct stat st, fst;
	int fd, rc;

	if ((rc = owned_check(t->image, r->token, false, &st, why, sizeof(why)))) {
		say(r, "'%s': %s", t->image, rc == -EPERM ? why : strerror(-rc));
		return rc;
	}
	if ((fd = open(t->image, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &fst) < 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

int mxr_age_restore(struct runner *r, struct target *t, unsigned ci, json_t *run, bool *restored)
{
	const struct mx_cell *c = cell_of(r, ci);
	struct agecache_key k;
	char why[PATH_MAX + 512], line[256];
	const char *how = "";
	int src, dst, rc;
	json_t *x;

	*restored = false;
	/* made when missing; checked each time (root's, as every directory above it) */
	if ((rc = agecache_dir_check(r->p->age_cache, 1, why, sizeof(why)))) {
		say(r, "warning: --age-cache: %s: not used", why);
		return 0;
	}
	cell_key(r, c, &k);
	snprintf(r->age_key, sizeof(r->age_key), "%s", k.name);
	rc = agecache_lookup(r->p->age_cache, &k, r->p->e->size_bytes, &src, &r->age_hit, why, sizeof(why));
	if (rc == -ENOENT)
		return 0;
	if (rc) {
		say(r, "warning: --age-cache: %s: not used (aging instead)", why);
		return 0;
	}
	snprintf(line, sizeof(line), "aged from cache %s", k.name);
	x = manifest_applied(&r->m, line);
	json_object_set_new(x, "cell", json_string(c->name));
	json_object_set(x, "run", json_object_get(run, "order"));
	if (commit(r) || (dst = image_open(r, t)) < 0) {
		close(src);
		return -EIO;
	}
	rc = agecache_copy(src, dst, r->p->e->size_bytes, &how);
	close(src);
	close(dst);
	/* what mkfs wrote through the loop device is in its cache: read the new content from now on */
	if (!rc && t->fd >= 0 && ioctl(t->fd, BLKFLSBUF, 0) < 0)
		rc = -errno;
	json_object_set_new(x, "exit", json_integer(rc));
	json_object_set_new(x, "how", json_string(how));
	if (rc) {
		say(r, "copying cache entry %s into '%s': %s", k.name, t->image, strerror(-rc));
		commit(r);
		return rc;
	}
	say(r, "%s: aged image from cache %s (%s)", c->name, k.name, how);
	t->holds = (int)ci;
	*restored = true;
	return commit(r);
}

int mxr_age_store(struct runner *r, struct target *t, const struct mx_cell *c)
{
	const char *dir = r->p->age_cache, *how = "";
	json_t *e;
	char tmp[PATH_MAX], why[PATH_MAX + 512], line[256];
	struct agecache_key k;
	struct stat st;
	bool marked;
	int fd, rc;

	if ((rc = agecache_dir_check(dir, 1, why, sizeof(why)))) {
		say(r, "warning: --age-cache: %s: nothing kept", why);
		return 0;
	}
	cell_key(r, c, &k);
	e = manifest_undo_add(&r->m, "workdir");
	json_object_set_new(e, "parent", json_string(dir));
	json_object_set_new(e, "cell", json_string(c->name));
	if ((rc = mxr_workdir(r, e, dir, "fsbench-agecache", tmp, sizeof(tmp), &st, &marked))) {
		if (r->stop)
			return -EIO;
		say(r, "warning: --age-cache: cannot create a directory in '%s': %s", dir, strerror(-rc));
		return commit(r);
	}
	/* the proof the undo asks for; without it the directory goes at once, nothing kept */
	if (!marked) {
		say(r, "warning: --age-cache: '%s' keeps no trusted.* attributes: nothing kept", dir);
		rmdir(tmp);
		manifest_undo_mark(e, true, "removed");
		return commit(r);
	}
	json_object_set_new(e, "marked", json_true());
	manifest_undo_done(e);
	if (commit(r))
		return -EIO;
	if ((fd = open(t->image, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		say(r, "warning: --age-cache: '%s': %s", t->image, strerror(errno));
		return 0;
	}
	rc = agecache_store(dir, tmp, &k, fd, r->p->e->size_bytes, &r->age_hit, &how, why, sizeof(why));
	close(fd);
	if (rc) {
		say(r, "warning: --age-cache: %s: nothing kept", why);
		return 0;
	}
	snprintf(line, sizeof(line), "kept in cache %s", k.name);
	json_object_set_new(manifest_applied(&r->m, line), "how", json_string(how));
	say(r, "%s: aged image kept in cache %s (%s)", c->name, k.name, how);
	return commit(r);
}
