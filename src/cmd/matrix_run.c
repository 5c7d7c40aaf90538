/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment runner: the result directory and its manifest first (matrix_exp.c), then the
 * targets (sparse images and loop devices, or the --device), then every run in the
 * planned order (knobs, mkfs when fresh, mount, bdi limits, cache drop, the workload in this
 * process through the driver, then all of it undone), then the teardown and the report. Every
 * step is recorded in the manifest before it is taken; a signal stops it between steps (the
 * workload at its next op) and everything set up is undone. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/matrix_run.h"
#include "core/cleanup.h"
#include "core/clock.h"
#include "core/driver.h"
#include "core/outfile.h"
#include "core/testhook.h"
#include "core/quote.h"
#include "core/verdict.h"
#include "core/words.h"
#include "cmd/outputs.h"
#include "report/json_after.h"
#include "report/matrix_report.h"
#include "sys/cpuload.h"
#include "sys/devclaim.h"
#include "sys/env.h"
#include "sys/freespace.h"
#include "sys/fsck.h"
#include "sys/fsimage.h"
#include "sys/owned.h"
#include "sys/remount.h"
#include "sys/age.h"
#include "sys/spawn.h"
#include "sys/workdir.h"
#include "workload/workload.h"


/* --fresh never: the filesystem on the target is one this cell may run on (its type and mkfs
 * options) */
static bool holds_same(struct runner *r, int holds, unsigned ci)
{
	return holds >= 0 && mx_fs_group(r->p->e, (unsigned)holds) == mx_fs_group(r->p->e, ci);
}

static void report_cleanup(const char *path, int err)
{
	if (err)
		fprintf(stderr, "fsbench: cannot remove '%s': %s\n", path, strerror(err));
	else
		fprintf(stderr, "fsbench: not removing '%s': it was replaced after fsbench created it\n", path);
}

/* ---- the --device claim (sys/devclaim.h says why it is let go around mkfs, mounts, checks) -- */

/* Before a step that opens the device by its name: the claim let go, the name checked. */
static int device_yield(struct runner *r)
{
	struct devclaim *c = r->p->claim;

	if (!c || !devclaim_release(c))
		return 0;
	say(r, "'%s' is no longer device %u:%u (its node was replaced): stopping", c->path,
	    major(c->rdev), minor(c->rdev));
	r->stop = true;
	return -ENODEV;
}

/* After it (mkfs or the checker ended, the filesystem unmounted): claimed again. */
static int device_reclaim(struct runner *r)
{
	struct devclaim *c = r->p->claim;
	int rc;

	if (!c || !(rc = devclaim_take(c)))
		return 0;
	if (rc == -EBUSY)
		say(r, "'%s' is held by something else since fsbench let go of it for mkfs, a mount or a "
		    "check: stopping", c->path);
	else if (rc == -ENODEV)
		say(r, "'%s' is no longer device %u:%u (its node was replaced): stopping", c->path,
		    major(c->rdev), minor(c->rdev));
	else
		say(r, "cannot claim '%s' again: %s: stopping", c->path, strerror(-rc));
	r->stop = true;
	return rc;
}

/* ---- the undo list ---------------------------------------------------------------------- */

/* Undoes the entries from index `from` on, newest first; one-way knobs stay until the end
 * (final). Returns how many could not be undone. */
static unsigned undo_from(struct runner *r, size_t from, bool final)
{
	json_t *list = json_object_get(r->m.root, "undo");
	char how[PATH_MAX + 256];
	unsigned left = 0;

	for (size_t i = json_array_size(list); i-- > from;) {
		json_t *e = json_array_get(list, i);
		const char *kind = json_string_value(json_object_get(e, "kind"));
		int rc;

		if (json_is_true(json_object_get(e, "undone")))
			continue;
		if (!final && json_is_true(json_object_get(e, "one_way")))
			continue;
		if (!strcmp(kind, "loop"))
			/* the runner's hold first: with autoclear, the device goes with the last close,
			 * and the undo checks that it is gone */
			for (unsigned k = 0; k < r->nt; k++)
				if (r->t[k].fd >= 0 && !strcmp(r->t[k].dev, json_string_value(json_object_get(e, "device")) ?: "")) {
					close(r->t[k].fd);
					r->t[k].fd = -1;
				}
		rc = mxc_undo_entry(&r->proof, e, how, sizeof(how));
		if (!rc && !strcmp(kind, "mount"))
			device_reclaim(r);     /* unmounted: the runner holds the device again */
		manifest_undo_mark(e, rc == 0, how);
		if (rc || !strncmp(how, "left", 4)) {
			left += rc != 0;
			say(r, "%s %s %s: %s", rc ? "cannot undo" : "undo:", kind,
			    json_string_value(json_object_get(e, !strcmp(kind, "mount") ? "target" :
							       !strcmp(kind, "loop") ? "device" :
							       !strcmp(kind, "remount") ? "target" : "path")), how);
		}
		commit(r);
	}
	return left;
}

/* ---- set-up steps ----------------------------------------------------------------------- */

/* the test build's FSBENCH_TEST_MATRIX_KILL=STEP: the runner killed (SIGKILL) at that step,
 * for the tests of what --undo finds there */
static void kill_point(const char *step)
{
	const char *at = testhook_env("FSBENCH_TEST_MATRIX_KILL");

	if (at && !strcmp(at, step))
		raise(SIGKILL);
}

/* The directory parent/name (temp: parent/name.XXXXXX, a random name: the scratch directory,
 * named in the manifest's target.scratch before it is made too), its path in out: recorded
 * (committed) before it is made, so that a runner killed at any point leaves a record that names
 * it (--undo: removed when it carries the marker), then marked. */
static int make_dir(struct runner *r, const char *parent, const char *name, bool temp, char *out, size_t len)
{
	json_t *e = manifest_undo_add(&r->m, "dir"), *tg = json_object_get(r->m.root, "target");
	struct stat st;
	int rc = -EEXIST, rc2;

	for (unsigned tries = 0; rc == -EEXIST && tries < (temp ? 100 : 1); tries++) {
		if (temp)
			rc = workdir_name(parent, name, out, len);
		else
			rc = snprintf(out, len, "%s/%s", parent, name) >= (int)len ? -ENAMETOOLONG : 0;
		if (rc)
			break;
		if (temp)
			json_object_set_new(tg, "scratch", json_string(out));
		json_object_set_new(e, "path", json_string(out));
		if (commit(r))
			return -EIO;
		kill_point("dir-named");
		rc = workdir_create(out, &st);
	}
	if (rc) {
		say(r, "cannot create '%s': %s", out, strerror(-rc));
		if (temp)
			json_object_set_new(tg, "scratch", json_null());
		out[0] = '\0';
		manifest_undo_mark(e, true, "not made");
		commit(r);
		return rc;
	}
	/* the proof --undo asks for: only root can set a trusted.* attribute */
	if ((rc = owned_mark(out, r->token))) {
		say(r, "cannot mark '%s' as fsbench's (%s): %s", out, OWNED_XATTR, strerror(-rc));
		rc2 = rmdir(out) < 0 ? -errno : 0;
		manifest_undo_mark(e, !rc2,
				   rc2 ? "left: cannot mark it, nor remove it" : "removed at once: unmarked");
		commit(r);
		return rc;
	}
	kill_point("dir-marked");
	json_object_set_new(e, "dev", json_integer((json_int_t)st.st_dev));
	json_object_set_new(e, "ino", json_integer((json_int_t)st.st_ino));
	manifest_undo_done(e);
	return commit(r);
}

static int setup_target(struct runner *r, struct target *t, const char *name)
{
	const struct mxc_plan *p = r->p;
	char err[PATH_MAX + 256];
	dev_t dev;
	ino_t ino;
	json_t *e;
	int rc, n;

	t->fd = -1;
	t->holds = -1;
	if (p->device) {
		snprintf(t->dev, sizeof(t->dev), "%s", p->device);
		return make_dir(r, r->scratch, "mnt", false, t->mnt, sizeof(t->mnt));
	}
	snprintf(t->image, sizeof(t->image), "%s/%s.img", r->scratch, name);
	/* recorded before it is made, marked at once (as make_dir) */
	e = manifest_undo_add(&r->m, "image");
	json_object_set_new(e, "path", json_string(t->image));
	json_object_set_new(e, "size_bytes", json_integer((json_int_t)p->e->size_bytes));
	if (commit(r))
		return -EIO;
	kill_point("image-named");
	if ((rc = fsimage_create(t->image, p->e->size_bytes, &dev, &ino))) {
		say(r, "cannot create '%s': %s", t->image, strerror(-rc));
		manifest_undo_mark(e, true, "not made");
		commit(r);
		return rc;
	}
	if ((rc = owned_mark(t->image, r->token))) {
		say(r, "cannot mark '%s' as fsbench's (%s): %s", t->image, OWNED_XATTR, strerror(-rc));
		n = unlink(t->image) < 0 ? -errno : 0;
		manifest_undo_mark(e, !n,
				   n ? "left: cannot mark it, nor remove it" : "removed at once: unmarked");
		commit(r);
		return rc;
	}
	kill_point("image-marked");
	json_object_set_new(e, "dev", json_integer((json_int_t)dev));
	json_object_set_new(e, "ino", json_integer((json_int_t)ino));
	manifest_undo_done(e);
	if (commit(r) || (rc = make_dir(r, r->scratch, name, false, t->mnt, sizeof(t->mnt))))
		return -EIO;
	e = manifest_undo_add(&r->m, "loop");
	json_object_set_new(e, "image", json_string(t->image));
	for (int tries = 0;; tries++) {
		if ((rc = fsimage_loop_free(&n))) {
			say(r, "no free loop device (/dev/loop-control): %s", strerror(-rc));
			manifest_undo_mark(e, true, "never attached");
			commit(r);
			return rc;
		}
		snprintf(t->dev, sizeof(t->dev), "/dev/loop%d", n);
		/* recorded before it is attached: a kill in between leaves a record to check */
		json_object_set_new(e, "device", json_string(t->dev));
		json_object_set_new(e, "backing_dev", json_integer((json_int_t)dev));
		json_object_set_new(e, "backing_ino", json_integer((json_int_t)ino));
		if (commit(r))
			return -EIO;
		rc = fsimage_loop_attach(n, t->image, &t->fd, &t->dio, err, sizeof(err));
		if (rc != -EBUSY || tries == 20)
			break;
	}
	if (rc) {
		say(r, "%s", rc == -EBUSY ? "no loop device stayed free long enough to attach" : err);
		manifest_undo_mark(e, true, "never attached");
		commit(r);
		return rc;
	}
	json_object_set_new(e, "direct_io", json_boolean(t->dio));
	json_object_set_new(e, "autoclear", json_true());
	manifest_undo_done(e);
	return commit(r);
}

int mxr_workdir(struct runner *r, json_t *e, const char *parent, const char *prefix, char *out, size_t outlen,
		struct stat *st, bool *marked)
{
	int rc = -EEXIST;

	/* a kill between mkdtemp and the record's commit once left a directory that no record
	 * named, and --undo left it */
	for (unsigned tries = 0; rc == -EEXIST && tries < 100; tries++) {
		if ((rc = workdir_name(parent, prefix, out, outlen)))
			break;
		json_object_set_new(e, "path", json_string(out));
		if (commit(r))
			return -EIO;
		kill_point("workdir-named");
		rc = workdir_create(out, st);
	}
	if (rc) {
		json_object_del(e, "path");
		manifest_undo_mark(e, true, "not made");
		return rc;
	}
	kill_point("workdir-made");
	*marked = geteuid() == 0 && owned_mark(out, r->token) == 0;
	kill_point("workdir-marked");
	json_object_set_new(e, "dev", json_integer((json_int_t)st->st_dev));
	json_object_set_new(e, "ino", json_integer((json_int_t)st->st_ino));
	return 0;
}

/* --target: the run's fresh subdirectory of the cell's target (mxr_workdir), the workload's
 * directory. Removed by the run's undo (matrix_undo.c, kind workdir). */
static int do_workdir(struct runner *r, struct target *t, const struct mx_cell *c)
{
	json_t *e = manifest_undo_add(&r->m, "workdir");
	struct stat st;
	char prefix[MX_NAME_MAX + 32];
	bool marked;
	int rc;

	json_object_set_new(e, "parent", json_string(c->target_dir));
	json_object_set_new(e, "cell", json_string(c->name));
	snprintf(prefix, sizeof(prefix), "fsbench-%s", c->name);
	if ((rc = mxr_workdir(r, e, c->target_dir, prefix, t->mnt, sizeof(t->mnt), &st, &marked))) {
		if (!r->stop) /* else the manifest could not be written, said */
			say(r, "cannot create a directory in '%s': %s", c->target_dir, strerror(-rc));
		commit(r);
		return rc;
	}
	/* the proof --undo asks for, where the filesystem keeps it (not NFS): else the runner's own
	 * undo proves it by device, inode, owner and mode 0700 */
	json_object_set_new(e, "marked", json_boolean(marked));
	manifest_undo_done(e);
	return commit(r);
}

/* --remount-opts: the cell's target remounted with its own options plus the cell's, what it had
 * recorded first and what it has after; the run's undo remounts it back (matrix_target.c). */
static int do_remount(struct runner *r, const struct mx_cell *c)
{
	struct remount_state *was = calloc(1, sizeof(*was)), *now = calloc(1, sizeof(*now));
	char opts[4096], err[PATH_MAX + 256], dev[32];
	json_t *e;
	int rc = -ENOMEM;

	if (!was || !now || (rc = remount_read(c->target_dir, was, err, sizeof(err)))) {
		say(r, "%s", was && now ? err : "out of memory");
		goto out;
	}
	remount_opts(was, c->remount_opts, opts, sizeof(opts));
	snprintf(dev, sizeof(dev), "%u:%u", was->major, was->minor);
	e = manifest_undo_add(&r->m, "remount");
	json_object_set_new(e, "target", json_string(was->mnt));
	json_object_set_new(e, "dev", json_string(dev));
	json_object_set_new(e, "fstype", json_string(was->fstype));
	json_object_set_new(e, "previous_vfs", json_string(was->vfs));
	json_object_set_new(e, "previous_super", json_string(was->super));
	json_object_set_new(e, "options", json_string(opts));
	json_object_set_new(e, "cell", json_string(c->name));
	if ((rc = commit(r)))
		goto out;
	if ((rc = remount_apply(was->mnt, opts, err, sizeof(err)))) {
		say(r, "%s", err);
		if (!remount_read(was->mnt, now, err, sizeof(err)) && remount_same(was, now))
			manifest_undo_mark(e, true, "not remounted");
		commit(r);
		goto out;
	}
	if (!remount_read(was->mnt, now, err, sizeof(err))) {
		json_object_set_new(e, "now_vfs", json_string(now->vfs));
		json_object_set_new(e, "now_super", json_string(now->super));
	}
	manifest_undo_done(e);
	rc = commit(r);
out:
	free(was);
	free(now);
	return rc;
}

static void cmdline(char *buf, size_t len, char *const *argv)
{
	size_t k = 0;

	buf[0] = '\0';
	for (unsigned i = 0; argv[i] && k < len; i++) {
		bool plain = argv[i][0] && !strpbrk(argv[i], " \t'\"\\$`;&|<>*?()[]{}!#~");

		k += (size_t)snprintf(buf + k, len - k, plain ? "%s%s" : "%s'%s'", i ? " " : "", argv[i]);
	}
}

static int do_mkfs(struct runner *r, struct target *t, unsigned ci, json_t *run)
{
	struct mx_cell *c = cell_of(r, ci);
	char *argv[MX_MAX_ARGS + 2] = { 0 }, tool[PATH_MAX], err[512], out[2048], line[8192];
	int n = fsimage_mkfs_argv(c->fs, c->mkfs_opts, argv, MX_MAX_ARGS, err, sizeof(err)), rc = -EIO;
	json_t *a;

	if (n < 0 || fsimage_mkfs_find(c->fs, tool, sizeof(tool))) {
		say(r, "mkfs.%s: %s", c->fs, n < 0 ? err : "not found");
		for (int i = 0; i < n; i++)
			free(argv[i]);
		return -ENOENT;
	}
	argv[n] = t->dev;
	if (device_yield(r))
		goto out;
	cmdline(line, sizeof(line), argv);
	a = manifest_applied(&r->m, line);
	json_object_set_new(a, "cell", json_string(c->name));
	json_object_set(a, "run", json_object_get(run, "order"));
	if (commit(r))
		goto out;
	free(argv[0]);
	argv[0] = strdup(tool);
	rc = argv[0] ? fsimage_spawn(argv, out, sizeof(out)) : -ENOMEM;
	json_object_set_new(a, "exit", json_integer(rc));
	if (device_reclaim(r)) {
		commit(r);
		rc = -EBUSY;
		goto out;
	}
	if (rc) {
		char *first = out + strspn(out, " \t\n"), q[QUOTE_MAX];

		json_object_set_new(a, "output", json_string(out));
		first[strcspn(first, "\n")] = '\0';
		/* the tool's own words reach the terminal escaped */
		say(r, "%s failed (%s %d)%s%s", line, rc < 0 ? "error" : "exit", rc < 0 ? -rc : rc,
		    *first ? ": " : "", quote_str(first, q, sizeof(q)));
		commit(r);
		rc = -EIO;
	} else {
		t->holds = (int)ci;
		json_object_set_new(r->m.root, "mkfs_count",
				    json_integer(json_integer_value(json_object_get(r->m.root, "mkfs_count")) + 1));
		rc = commit(r);
	}
out:
	argv[n] = NULL;
	for (int i = 0; i < n; i++)
		free(argv[i]);
	return rc;
}

static int do_mount(struct runner *r, struct target *t, const struct mx_cell *c)
{
	char err[PATH_MAX * 2 + 256], line[PATH_MAX * 2 + 512];
	json_t *e;
	int rc;

	if (device_yield(r))
		return -ENODEV;
	e = manifest_undo_add(&r->m, "mount");
	snprintf(line, sizeof(line), "mount -t %s%s%s %s %s", c->fs, *c->mount_opts ? " -o " : "",
		 c->mount_opts, t->dev, t->mnt);
	json_object_set_new(e, "source", json_string(t->dev));
	json_object_set_new(e, "target", json_string(t->mnt));
	json_object_set_new(e, "fstype", json_string(c->fs));
	json_object_set_new(e, "options", json_string(c->mount_opts));
	json_object_set_new(e, "command", json_string(line));
	json_object_set_new(e, "cell", json_string(c->name));
	if (commit(r)) {
		device_reclaim(r);
		return -EIO;
	}
	if ((rc = fsimage_mount(t->dev, t->mnt, c->fs, c->mount_opts, err, sizeof(err)))) {
		say(r, "%s", err);
		manifest_undo_mark(e, true, "not mounted");
		commit(r);
		device_reclaim(r);
		return rc;
	}
	manifest_undo_done(e);
	if (r->p->claim) {
		struct stat st;

		/* what is mounted is the device (btrfs: an anonymous st_dev; then the name is checked) */
		if (stat(t->mnt, &st) < 0 || (major(st.st_dev) && st.st_dev != r->p->claim->rdev) ||
		    devclaim_verify(r->p->claim)) {
			say(r, "'%s' is not mounted from device %u:%u (its node was replaced): stopping", t->mnt,
			    major(r->p->claim->rdev), minor(r->p->claim->rdev));
			r->stop = true;
			commit(r);
			return -ENODEV;
		}
	}
	return commit(r);
}

/* A knob or a bdi file: its value now, then the new one, recorded first. */
/* A knob or a bdi setting, written to wpath; path is the file whose value is saved and restored
 * (the same file, except bdi max_bytes: the kernel keeps it as max_ratio_fine and reads
 * max_bytes back recomputed from the dirty limit of the moment, so that is what is restored). */
static int do_value(struct runner *r, const char *kind, const char *path, const char *wpath,
		    const char *value, bool one_way, const char *cell)
{
	char prev[4096], rb[4096], line[PATH_MAX + 4200];
	json_t *list = json_object_get(r->m.root, "undo"), *e;
	int rc;

	if (one_way)
		/* written once, left as it is: the cells that write it run last */
		for (size_t i = 0; i < json_array_size(list); i++) {
			json_t *x = json_array_get(list, i);

			if (json_is_true(json_object_get(x, "one_way")) &&
			    !strcmp(json_string_value(json_object_get(x, "path")), path))
				return 0;
		}
	if ((rc = fsimage_knob_read(path, prev, sizeof(prev)))) {
		say(r, "cannot read %s '%s': %s", kind, path, strerror(-rc));
		return rc;
	}
	snprintf(line, sizeof(line), "echo %s > %s", value, wpath);
	e = manifest_undo_add(&r->m, kind);
	json_object_set_new(e, "path", json_string(path));
	if (strcmp(path, wpath))
		json_object_set_new(e, "written_to", json_string(wpath));
	json_object_set_new(e, "previous", json_string(prev));
	json_object_set_new(e, "value", json_string(value));
	json_object_set_new(e, "one_way", json_boolean(one_way));
	json_object_set_new(e, "command", json_string(line));
	json_object_set_new(e, "cell", json_string(cell));
	if (commit(r))
		return -EIO;
	if ((rc = fsimage_knob_write(wpath, value))) {
		say(r, "cannot write '%s' to %s '%s': %s", value, kind, wpath, strerror(-rc));
		/* a write that failed changed nothing; a value that reads back otherwise is the
		 * undo's to settle */
		if (fsimage_knob_read(path, rb, sizeof(rb)) == 0 && !strcmp(rb, prev))
			manifest_undo_mark(e, true, "not written");
		commit(r);
		return rc;
	}
	if (fsimage_knob_read(path, rb, sizeof(rb)) == 0)
		json_object_set_new(e, "readback", json_string(rb));
	manifest_undo_done(e);
	return commit(r);
}

static int do_bdi(struct runner *r, struct target *t, const struct mx_cell *c)
{
	char dir[PATH_MAX], file[PATH_MAX + 32], v[32];
	int rc;

	if (!c->bdi_max_set && !c->bdi_strict_set)
		return 0;
	if ((rc = fsimage_bdi_of(t->mnt, t->dev, dir, sizeof(dir)))) {
		say(r, "cannot find the bdi of %s on %s: %s", t->dev, t->mnt, strerror(-rc));
		return rc;
	}
	if (c->bdi_max_set) {
		char keep[PATH_MAX + 32];

		snprintf(file, sizeof(file), "%s/max_bytes", dir);
		snprintf(keep, sizeof(keep), "%s/max_ratio_fine", dir);
		if (access(keep, F_OK) < 0)
			snprintf(keep, sizeof(keep), "%s/max_ratio", dir);
		snprintf(v, sizeof(v), "%llu", (unsigned long long)c->bdi_max_bytes);
		if ((rc = do_value(r, "bdi", keep, file, v, false, c->name)))
			return rc;
	}
	if (c->bdi_strict_set) {
		snprintf(file, sizeof(file), "%s/strict_limit", dir);
		snprintf(v, sizeof(v), "%u", c->bdi_strict_limit);
		if ((rc = do_value(r, "bdi", file, file, v, false, c->name)))
			return rc;
	}
	return 0;
}

/* ---- a run ------------------------------------------------------------------------------ */

/* The workload in this process, through the driver: its classic output into run-K.txt, its
 * JSON into run-K.json, with the working directory runs/CELL (a relative log lands there). */
int mxc_mpi_binary(char *path, size_t len)
{
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	char *slash;

	if (n <= 0)
		return -ENOENT;
	self[n] = '\0';
	if (!(slash = strrchr(self, '/')))
		return -ENOENT;
	*slash = '\0';
	if (snprintf(path, len, "%s/fsbench-mpi", self) >= (int)len)
		return -ENAMETOOLONG;
	return access(path, X_OK) == 0 ? 0 : -ENOENT;
}

/* --mpi: the run as an MPI job, the launcher's words then fsbench-mpi and the workload's
 * arguments (argv[0] is the workload's name); its output (the classic text of the whole job,
 * its messages) goes to the run's text file. The exit status is the job's. */
static int mpi_job_run(struct runner *r, int argc, char **argv, FILE *text, char *error, size_t errlen)
{
	char *words[64], bin[PATH_MAX], msg[256];
	const char **av = NULL;
	unsigned nw = 0;
	struct spawn_opts so = { .stop = interrupted };
	struct spawn_result sr;
	int code = EXIT_FAILED, rc;

	memset(&sr, 0, sizeof(sr));
	if (words_split(r->p->cfg->mpi, words, 64, &nw, msg, sizeof(msg)) || mxc_mpi_binary(bin, sizeof(bin)) ||
	    !(av = calloc(nw + (unsigned)argc + 2, sizeof(char *)))) {
		snprintf(error, errlen, "--mpi: cannot start the job");
		goto out;
	}
	for (unsigned i = 0; i < nw; i++)
		av[i] = words[i];
	av[nw] = bin;
	for (int i = 0; i < argc; i++)
		av[nw + 1 + (unsigned)i] = argv[i];
	if ((rc = spawn_run(av, &so, &sr))) {
		snprintf(error, errlen, "--mpi: cannot run '%s': %s", words[0], strerror(-rc));
		goto out;
	}
	if (sr.out && sr.out_len)
		fwrite(sr.out, 1, sr.out_len, text);
	code = sr.signal ? 128 + sr.signal : sr.exit_code;
	if (sr.stopped)
		code = 128 + SIGINT;
	if (code)
		snprintf(error, errlen, "the MPI job ended with exit status %d (its output: the run's text file)",
			 code);
out:
	spawn_result_free(&sr);
	for (unsigned i = 0; i < nw; i++)
		free(words[i]);
	free(av);
	return code;
}

/* --mpi: the launcher's 0 counts only with the job's JSON written (a launcher that started
 * nothing, or lost the job, may exit 0 too) */
static bool mpi_result_missing(const char *json, char *error, size_t errlen)
{
	struct stat st;

	if (!lstat(json, &st) && S_ISREG(st.st_mode) && st.st_size > 0)
		return false;
	snprintf(error, errlen, "the MPI launcher exited 0 but the job wrote no result ('%s')", json);
	return true;
}

static int workload_run(struct runner *r, struct target *t, const struct mx_cell *c, const char *base,
			json_t *run, char *error, size_t errlen, struct cpuload *load)
{
	const struct workload_ops *w = r->p->w;
	char dirarg[PATH_MAX + 160], jsonarg[PATH_MAX + 160], labelarg[MX_NAME_MAX + 16], text[PATH_MAX + 160],
		rundir[PATH_MAX + 96], msg[PATH_MAX + 768], why[256];
	char **argv = calloc(c->nargs + 5, sizeof(char *));
	void *cfg = calloc(1, w->config_size);
	struct cmd_run_io io = { .prog = r->p->prog, .error = error, .errorlen = errlen };
	struct cpuload_snap s0, s1;
	struct outfile *of = NULL;
	int argc = 0, code = EXIT_FAILED, rc;

	error[0] = '\0';
	if (!argv || !cfg) {
		snprintf(error, errlen, "out of memory");
		goto out;
	}
	snprintf(rundir, sizeof(rundir), "%s/runs/%s", r->p->out, c->name);
	snprintf(dirarg, sizeof(dirarg), "--%s=%s", workload_target_opt(w)->lname, t->mnt);
	snprintf(jsonarg, sizeof(jsonarg), "--json=%s/%s.json", rundir, base);
	snprintf(labelarg, sizeof(labelarg), "--label=%s", c->name);
	snprintf(text, sizeof(text), "%s/%s.txt", rundir, base);
	argv[argc++] = (char *)w->name;
	for (unsigned i = 0; i < c->nargs; i++)
		argv[argc++] = c->args[i];
	argv[argc++] = dirarg;
	argv[argc++] = jsonarg;
	w->defaults(cfg);
	if (opt_parse(w->cmd, argc, argv, cfg, msg, sizeof(msg)) == 0 && !workload_run_opts(w, cfg)->label) {
		argv[argc++] = labelarg;
		w->defaults(cfg);
	}
	if (opt_parse(w->cmd, argc, argv, cfg, msg, sizeof(msg)) ||
	    (rc = workload_checks(w, cfg, argc, argv, msg, sizeof(msg)))) {
		snprintf(error, errlen, "%s", msg);
		code = EXIT_USAGE;
		goto out;
	}
	if (!(of = outfile_open(text, OUTFILE_REPLACE, &rc, why, sizeof(why)))) {
		snprintf(error, errlen, "cannot write '%s': %s", text, why);
		goto out;
	}
	json_object_set_new(run, "text", json_sprintf("runs/%s/%s.txt", c->name, base));
	io.argc = argc;
	io.argv = argv;
	io.text = of->f;
	io.err = of->f;
	if (chdir(rundir) < 0) {
		snprintf(error, errlen, "cannot enter '%s': %s", rundir, strerror(errno));
		goto out;
	}
	cpuload_snap(&s0);
	if (r->p->cfg->mpi) {
		code = mpi_job_run(r, argc, argv, of->f, error, errlen);
		if (!code && mpi_result_missing(jsonarg + strlen("--json="), error, errlen))
			code = EXIT_FAILED;
	} else
		code = cmd_workload_run(w, cfg, &io);
	cpuload_snap(&s1);
	cpuload_window(&s0, &s1, load);
	if (fchdir(r->cwd) < 0)
		r->stop = true;
	if ((rc = outfile_commit(of)) && !code) {
		snprintf(error, errlen, "cannot write '%s': %s", text, strerror(-rc));
		code = EXIT_FAILED;
	}
	of = NULL;
out:
	if (of)
		outfile_abort(of);
	free(argv);
	free(cfg);
	return code;
}

/* --after: the filesystem's checker and free-space tool on the unmounted target, after a run
 * (mounted again or made anew by the next run, as the plan says). The results go to
 * runs/CELL/after-BASE.json (not BASE.after.json: a glob of run-K.json files is results only),
 * the manifest's run names it and the checker's verdict. A checker
 * that found errors, or could not check, is a finding: said at once and counted. -1 stops the
 * experiment (a signal, the file cannot be written). */
static int after_run(struct runner *r, struct target *t, const struct mx_cell *c, const char *base,
		     json_t *run, const char *where)
{
	const struct mxc_plan *p = r->p;
	const struct spawn_opts so = { .timeout_ns = p->after_timeout_ns, .stop = interrupted };
	json_t *root = json_pack("{s:s, s:i, s:s, s:s}", "schema", "fsbench-after", "version", 1, "cell",
				 c->name, "fstype", c->fs);
	char path[PATH_MAX * 2], line[400], q[QUOTE_MAX];
	int rc = 0;

	if (device_yield(r)) {
		json_decref(root);
		return -1;
	}
	json_object_set_new(run, "after_status", json_string("running"));
	if (!root || commit(r)) {
		device_reclaim(r);
		json_decref(root);
		return -1;
	}
	if (p->after_fsck && !interrupted()) {
		struct fsck_result f;
		int frc = fsck_run(t->dev, c->fs, &so, &f);

		json_object_set_new(root, "fsck", fsck_json(&f));
		json_object_set_new(run, "fsck_verdict", json_string(fsck_verdict_name[f.verdict]));
		if (f.run.stopped || interrupted()) {
			rc = -1;
		} else if (frc || f.verdict == FSCK_ERRORS || f.verdict == FSCK_FAILED) {
			const char *m = f.messages && *f.messages ? f.messages : f.why;

			r->findings++;
			json_object_set_new(run, "fsck_finding", json_true());
			/* the checker's own words, escaped: no terminal sequence of theirs reaches the terminal */
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(m, "\n"), m);
			quote_str(*line ? line : "no message", q, sizeof(q));
			if (f.run.timed_out)
				say(r, "FINDING after %s: %s timed out: %s", where, f.tool, quote_str(f.why, q, sizeof(q)));
			else if (f.verdict == FSCK_ERRORS)
				say(r, "FINDING after %s: %s found errors (exit %d): %s", where, f.tool, f.run.exit_code, q);
			else if (f.run.exit_code >= 0 && f.command[0])
				say(r, "FINDING after %s: %s could not finish the check (exit %d): %s", where, f.tool,
				    f.run.exit_code, q);
			else
				say(r, "FINDING after %s: the filesystem could not be checked: %s", where, q);
		} else {
			say(r, "  fsck after %s: %s, %.2f s (%s)", where, fsck_verdict_name[f.verdict],
			    (double)f.run.wall_ns / 1e9, f.tool);
		}
		fsck_result_free(&f);
	}
	if (p->after_freespace && !rc && !interrupted()) {
		struct freespace_result fr;

		freespace_run(t->dev, c->fs, &so, &fr);
		json_object_set_new(root, "freespace", freespace_json(&fr));
		if (fr.run.stopped || interrupted())
			rc = -1;
		else if (fr.absent)
			say(r, "  free space after %s: absent: %s", where, quote_str(fr.why, q, sizeof(q)));
		else
			say(r, "  free space after %s: %llu free extents, %.1f MiB free, mean %.1f KiB (%s)", where,
			    (unsigned long long)fr.free_extents, (double)fr.free_bytes / 1048576,
			    fr.free_extents ? (double)fr.free_bytes / (double)fr.free_extents / 1024 : 0.0, fr.tool);
		freespace_result_free(&fr);
	}
	/* a device taken meanwhile stops the experiment (r->stop); these results still stand */
	device_reclaim(r);
	if (rc) {
		json_object_set_new(run, "after_status", json_string("interrupted"));
		json_decref(root);
		commit(r);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/runs/%s/after-%s.json", p->out, c->name, base);
	if (outputs_json(p->prog, path, root)) {
		json_object_set_new(run, "after_status", json_string("unwritten"));
		json_decref(root);
		r->stop = true;
		commit(r);
		return -1;
	}
	json_decref(root);
	json_object_set_new(run, "after", json_sprintf("runs/%s/after-%s.json", c->name, base));
	json_object_set_new(run, "after_status", json_string("done"));
	return commit(r) ? -1 : 0;
}

static json_t *pct(double v)
{
	return isfinite(v) ? json_real(round(v * 10) / 10) : json_null();
}

/* A run's set-up, each step recorded before it is taken: the knobs, mkfs when fresh, the
 * remount, the mount (or the --target's subdirectory), the aging of a new filesystem, the bdi
 * limits, the cache drop. 0, or what failed (said). */
static int run_setup(struct runner *r, struct target *t, unsigned ci, json_t *run, bool fresh)
{
	const struct mxc_plan *p = r->p;
	struct mx_cell *c = cell_of(r, ci);
	bool restored = false;
	size_t at;
	int rc = 0;

	for (unsigned k = 0; k < c->nknobs && !rc && !interrupted(); k++)
		if (strcmp(c->knobs[k].value, "-"))    /* "-": left as it is */
			rc = do_value(r, "knob", c->knobs[k].path, c->knobs[k].path, c->knobs[k].value, c->knobs[k].one_way, c->name);
	if (!rc && !interrupted() && fresh && p->age_cache[0])
		rc = mxr_age_restore(r, t, ci, run, &restored);
	if (!rc && !interrupted() && fresh && !restored)
		rc = do_mkfs(r, t, ci, run);
	if (!rc && !interrupted())
		rc = c->remount_opts ? do_remount(r, c) : 0;
	at = json_array_size(json_object_get(r->m.root, "undo"));
	if (!rc && !interrupted())
		rc = c->target_dir ? do_workdir(r, t, c) : do_mount(r, t, c);
	if (!rc && !interrupted() && fresh && p->age)
		rc = mxr_age(r, t, c, run, restored);
	/* an image aged here goes to the cache unmounted, then is mounted again */
	if (!rc && !interrupted() && fresh && p->age && p->age_cache[0] && !restored) {
		if (undo_from(r, at, false))
			rc = -EBUSY;
		if (!rc && !(rc = mxr_age_store(r, t, c)) && !interrupted())
			rc = do_mount(r, t, c);
	}
	if (!rc && !interrupted())
		rc = do_bdi(r, t, c);
	if (!rc && !interrupted() && p->e->drop_caches) {
		json_t *x = manifest_applied(&r->m, "sync; echo 3 > /proc/sys/vm/drop_caches");

		json_object_set_new(x, "cell", json_string(c->name));
		if ((rc = fsimage_drop_caches()))
			say(r, "cannot drop the caches: %s", strerror(-rc));
		json_object_set_new(x, "exit", json_integer(rc));
		commit(r);
	}
	return rc;
}

/* What the run did, in its manifest entry: times, exit, error, status, the CPU around it. */
static void run_record(struct runner *r, json_t *run, const struct mx_cell *c, const char *base, int code,
		       const char *error, const struct cpuload *load, uint64_t t0)
{
	const struct mxc_plan *p = r->p;
	char path[PATH_MAX * 2];

	json_object_set_new(run, "duration_s", json_real(round((double)(clock_ns() - t0) / 1e6) / 1e3));
	json_object_set_new(run, "run_ended_at", manifest_now());
	json_object_set_new(run, "exit", json_integer(code));
	json_object_set_new(run, "error", error[0] ? json_string(error) : json_null());
	json_object_set_new(run, "status", json_string(code == 0 ? "ok" : code > 128 ? "interrupted" : "failed"));
	json_object_set_new(run, "other_cpu_pct", pct(load->other_pct));
	json_object_set_new(run, "other_cpu_flagged", json_boolean(load->other_pct > (double)p->cfg->max_other_cpu));
	json_object_set_new(run, "cpu", json_pack("{s:o, s:o, s:o, s:o, s:o}", "busy_pct", pct(load->busy_pct),
						    "own_pct", pct(load->own_pct), "kthread_pct",
						    pct(load->kthread_pct), "other_pct", pct(load->other_pct),
						    "steal_pct", pct(load->steal_pct)));
	/* a run that could not start wrote no result */
	snprintf(path, sizeof(path), "%s/runs/%s/%s.json", p->out, c->name, base);
	if (access(path, F_OK) < 0)
		json_object_set_new(run, "json", json_null());
}

/* The run counted (ok, failed, flagged) and said in one line. */
static void run_tally(struct runner *r, unsigned slot, unsigned nslots, const struct mx_cell *c, unsigned rep,
		      int code, const char *error, const struct cpuload *load, uint64_t t0)
{
	const struct mxc_plan *p = r->p;
	char a[64], where[64], note[160] = "";

	snprintf(a, sizeof(a), "%.1f s", (double)(clock_ns() - t0) / 1e9);
	if (slot && code == 0)
		r->done++;
	if (code && code <= 128)
		r->failed += slot != 0;
	if (load->other_pct > (double)p->cfg->max_other_cpu)
		r->flagged += slot != 0;
	if (slot)
		snprintf(where, sizeof(where), "run %u/%u", slot, nslots);
	else
		snprintf(where, sizeof(where), "warm-up run");
	if (load->other_pct > (double)p->cfg->max_other_cpu)
		snprintf(note, sizeof(note), " (over --max-other-cpu %llu%%: flagged)",
			 (unsigned long long)p->cfg->max_other_cpu);
	if (load->steal_pct >= 0.5)
		snprintf(note + strlen(note), sizeof(note) - strlen(note), ", steal %.0f%%", load->steal_pct);
	if (code == 0)
		say(r, "%s %s #%u: ok, %s, other processes %.0f%% CPU%s", where, c->name, rep + 1, a,
		    load->other_pct, note);
	else if (code > 128)
		say(r, "%s %s #%u: interrupted", where, c->name, rep + 1);
	else
		say(r, "%s %s #%u: failed (exit %d)%s%s", where, c->name, rep + 1, code,
		    error[0] ? ": " : "", error);
}

/* One run: set up, the workload, undone. slot is its 1-based position (0: warm-up). -1 stops
 * the experiment (a set-up step failed, a signal, the manifest), 0 goes on. */
static int one_run(struct runner *r, unsigned slot, unsigned nslots, unsigned ci, unsigned rep)
{
	const struct mxc_plan *p = r->p;
	struct mx_cell *c = cell_of(r, ci);
	struct target *t = target_of(r, ci);
	json_t *run = json_object(), *list = json_object_get(r->m.root, "undo");
	size_t mark = json_array_size(list);
	char base[32], error[PATH_MAX + 768];
	struct cpuload load = { 0 };
	uint64_t t0;
	int code = -1, rc = 0;
	bool fresh;

	if (slot)
		snprintf(base, sizeof(base), "run-%u", rep + 1);
	else
		snprintf(base, sizeof(base), "warmup");
	json_object_set_new(run, "cell", json_string(c->name));
	json_object_set_new(run, "repeat", json_integer(slot ? rep + 1 : 0));
	json_object_set_new(run, "order", json_integer(slot));
	json_object_set_new(run, "warmup", json_boolean(!slot));
	json_object_set_new(run, "status", json_string("setting-up"));
	json_object_set_new(run, "started_at", manifest_now());
	json_array_append_new(json_object_get(r->m.root, "runs"), run);
	fresh = !c->target_dir && (p->e->fresh == MX_FRESH_PER_RUN || (p->e->fresh == MX_FRESH_NEVER ?
								      !holds_same(r, t->holds, ci) : t->holds != (int)ci));
	json_object_set_new(run, "mkfs", json_boolean(fresh));
	if (commit(r))
		goto undo;
	rc = run_setup(r, t, ci, run, fresh);
	if (rc || r->stop) {
		json_object_set_new(run, "status", json_string("setup-failed"));
		r->stop = true;
		goto undo;
	}
	if (interrupted()) {
		json_object_set_new(run, "status", json_string("interrupted"));
		goto undo;
	}
	json_object_set_new(run, "status", json_string("running"));
	json_object_set_new(run, "json", json_sprintf("runs/%s/%s.json", c->name, base));
	json_object_set_new(run, "run_started_at", manifest_now());
	if (commit(r))
		goto undo;
	t0 = clock_ns();
	code = workload_run(r, t, c, base, run, error, sizeof(error), &load);
	run_record(r, run, c, base, code, error, &load, t0);
	run_tally(r, slot, nslots, c, rep, code, error, &load, t0);
	commit(r);
undo:
	json_object_set_new(run, "ended_at", manifest_now());
	if (undo_from(r, mark, false)) {
		json_object_set_new(run, "status", json_string("undo-failed"));
		r->stop = true;
	}
	mxc_umount_note(run, list, mark);
	if (json_is_string(json_object_get(run, "status")) &&
	    !strcmp(json_string_value(json_object_get(run, "status")), "setting-up"))
		json_object_set_new(run, "status", json_string("stopped"));
	/* unmounted now: a cell's next run re-mounts what is on the target */
	commit(r);
	if (r->stop || interrupted())
		return -1;
	/* the checks, on what the run left: a run that ran (failed or not), not the warm-up */
	if (slot && code >= 0 && code <= 128 && (p->after_fsck || p->after_freespace)) {
		char where[64];

		snprintf(where, sizeof(where), "run %u/%u %s #%u", slot, nslots, c->name, rep + 1);
		if (after_run(r, t, c, base, run, where))
			return -1;
	}
	if (code && code <= 128 && p->cfg->stop_on_error) {
		say(r, "stopping at the first failed run (--stop-on-error)");
		return -1;
	}
	return 0;
}

/* ---- the experiment (the record around it: matrix_exp.c) ---------------------------------- */

/* The targets the runs use: the scratch directory with an image and a loop device per cell (one
 * for all under --fresh per-run, one per filesystem under --fresh never) or the --device, made
 * now; existing targets need none. */
static void targets_setup(struct runner *r)
{
	const struct mxc_plan *p = r->p;

	if (mx_target_axis(p->e) >= 0) {
		/* existing targets: no scratch directory, nothing made before the runs */
		mxc_proof_init(&r->proof, p->out, r->token, r->m.root);
		r->proof.own_process = true;
	} else if (make_dir(r, p->scratch_parent, "fsbench-matrix", true, r->scratch, sizeof(r->scratch))) {
		r->stop = true;
	} else {
		mxc_proof_init(&r->proof, p->out, r->token, r->m.root);
		for (unsigned i = 0; i < r->nt && !r->stop && !interrupted(); i++) {
			const char *name = cell_of(r, i)->name;

			if (p->device)
				name = "device";
			else if (mxr_one_image(p))
				name = "fs";
			if (target_of(r, i) == &r->t[i] && setup_target(r, &r->t[i], name))
				r->stop = true;
		}
	}
	if (!r->stop && !p->device && r->nt && !r->t[0].dio && mx_target_axis(p->e) < 0)
		say(r, "direct I/O is off on the loop devices (the filesystem under '%s' refused it): the "
		    "host's page cache caches the images too", r->scratch);
}

/* The teardown: everything still set up undone, newest first, whatever happened before; the
 * experiment's state recorded and the closing lines said. Returns the state. */
static const char *teardown(struct runner *r, unsigned n, bool signalled)
{
	const struct mxc_plan *p = r->p;
	const char *state = "done";

	if (undo_from(r, 0, true))
		state = "undo-failed";
	else if (signalled)
		state = "interrupted";
	else if (r->stop)
		state = "failed";
	json_object_set_new(r->m.root, "state", json_string(state));
	json_object_set_new(r->m.root, "undo_complete", json_boolean(strcmp(state, "undo-failed") != 0));
	json_object_set_new(r->m.root, "ended_at", manifest_now());
	commit(r);
	if (signalled)
		say(r, "interrupted by SIG%s; everything set up is undone", sigabbrev_np(run_signal()));
	say(r, "%u of %u runs ok, %u failed, %u flagged (other processes over %llu%% CPU); %s", r->done,
	    p->auto_rounds ? r->done + r->failed : n,
	    r->failed, r->flagged, (unsigned long long)p->cfg->max_other_cpu, r->m.path);
	if (r->findings)
		say(r, "FINDING: after %u run%s the filesystem checker found errors or could not check (the "
		    "report lists them first)", r->findings, r->findings == 1 ? "" : "s");
	if (!strcmp(state, "undo-failed"))
		say(r, "some of the set-up could not be undone (above); 'fsbench matrix --undo %s' "
		    "tries again", p->out);
	return state;
}

int mxc_run(struct mxc_plan *p)
{
	struct runner r = { .p = p, .cwd = -1, .proof = { .scratch_rc = -EPERM } };
	unsigned n = p->e->ncells * p->repeat, *cell = calloc(n, sizeof(unsigned)), *rep = calloc(n, sizeof(unsigned));
	const char *state;
	bool signalled;
	int code;

	if (!cell || !rep) {
		fprintf(stderr, "%s: out of memory\n", p->prog);
		free(cell);
		free(rep);
		return EXIT_FAILED;
	}
	mx_schedule(p->e, p->order, p->repeat, p->seed, cell, rep);
	clock_gettime(CLOCK_MONOTONIC, &r.start);
	cleanup_set_reporter(report_cleanup);
	if (run_signals_install()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", p->prog, strerror(errno));
		code = EXIT_FAILED;
		goto out;
	}
	if ((code = mxr_begin(&r, cell, rep, n)))
		goto out;
	r.nt = p->device || mxr_one_image(p) ? 1 : p->e->ncells;
	if (!(r.t = calloc(r.nt, sizeof(*r.t)))) {
		code = EXIT_FAILED;
		goto out;
	}
	for (unsigned i = 0; i < r.nt; i++)
		r.t[i].fd = -1;
	targets_setup(&r);
	if (!r.stop && !interrupted()) {
		json_object_set_new(r.m.root, "state", json_string("running"));
		commit(&r);
	}
	if (!r.stop && !interrupted() && p->warmup && n)
		one_run(&r, 0, n, cell[0], 0);
	for (unsigned i = 0; i < n && !r.stop && !interrupted(); i++) {
		if (one_run(&r, i + 1, n, cell[i], rep[i]))
			break;
		if (p->auto_rounds && (i + 1) % p->e->ncells == 0 && !interrupted() &&
		    mxr_auto_stop(&r, (i + 1) / p->e->ncells))
			break;
	}
	/* the runs are what they are: a signal from here on ends only the report */
	signalled = interrupted();
	state = teardown(&r, n, signalled);
	if (r.done && !signalled && !r.stop)
		mxr_report(&r);
	if (signalled)
		code = 128 + run_signal();
	else if (r.stop || r.failed || strcmp(state, "done"))
		code = EXIT_FAILED;
	else
		code = EXIT_OK;
	for (unsigned i = 0; i < r.nt; i++)
		if (r.t[i].fd >= 0)
			close(r.t[i].fd);
out:
	free(r.t);
	manifest_free(&r.m);
	if (r.cwd >= 0)
		close(r.cwd);
	free(cell);
	free(rep);
	return code;
}
