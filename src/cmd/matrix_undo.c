/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The undo of what an experiment set up, entry by entry from the manifest's undo list: during
 * the runner's teardown and for `fsbench matrix --undo DIR` after a kill. The manifest says what
 * to look at, never what to trust: an object is touched only when it carries proof, outside the
 * manifest, that it is this experiment's (struct mxc_proof); anything else is reported and left.
 * fsbench(1), SECURITY. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/matrix_int.h"
#include "core/quote.h"
#include "core/run.h"
#include "sys/fsimage.h"
#include "sys/owned.h"
#include "sys/workdir.h"

static const char *str(const json_t *e, const char *k)
{
	const char *s = json_string_value(json_object_get(e, k));

	return s ? s : "";
}

int mxc_token(const char *dir, char *tok, size_t len)
{
	struct stat st;

	if (lstat(dir, &st) < 0)
		return -errno;
	snprintf(tok, len, "fsbench-matrix %llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	return 0;
}

void mxc_proof_init(struct mxc_proof *pf, const char *dir, const char *token, const json_t *root)
{
	const json_t *tg = json_object_get(root, "target");
	const char *sc = json_string_value(json_object_get(tg, "scratch"));
	char r[PATH_MAX], why[256] = "";
	struct stat st;
	int rc;

	memset(pf, 0, sizeof(*pf));
	snprintf(pf->token, sizeof(pf->token), "%s", token);
	pf->exp = json_object_get(root, "experiment");
	/* the knobs as the runner declared them where only root could write: the result
	 * directory's attribute, not the manifest's word alone */
	owned_get(dir, OWNED_XATTR_KNOBS, pf->knobs, sizeof(pf->knobs));
	owned_get(dir, OWNED_XATTR_REMOUNTS, pf->remounts, sizeof(pf->remounts));
	if (!strcmp(str(tg, "kind"), "device") && *str(tg, "device"))
		pf->device = str(tg, "device");
	snprintf(pf->scratch, sizeof(pf->scratch), "%s", sc ? sc : "");
	if (!sc || sc[0] != '/' || strlen(sc) >= sizeof(pf->scratch)) {
		pf->scratch_rc = -EPERM;
		snprintf(pf->scratch_why, sizeof(pf->scratch_why), "the manifest names no scratch directory");
		return;
	}
	/* no symbolic link anywhere in it: what is checked is what is acted on */
	if (realpath(sc, r) && strcmp(r, sc)) {
		pf->scratch_rc = -EPERM;
		snprintf(pf->scratch_why, sizeof(pf->scratch_why), "its scratch directory '%s' has a "
			 "symbolic link in its path", sc);
		return;
	}
	rc = owned_check(sc, token, true, &st, why, sizeof(why));
	pf->scratch_rc = rc == -ENOENT ? -ENOENT : rc ? -EPERM : 0;
	if (rc && rc != -ENOENT) {
		snprintf(pf->scratch_why, sizeof(pf->scratch_why), "'%s' is not this experiment's scratch "
			 "directory (%s)", sc, rc == -EPERM ? why : strerror(-rc));
	}
}

/* path is directly inside the scratch directory (or is it, when self): 0; else -EPERM with
 * the reason in how */
static int in_scratch(const struct mxc_proof *pf, const char *path, bool self, char *how, size_t len)
{
	size_t n = strlen(pf->scratch);
	const char *base = path + n + 1;

	if (self && !strcmp(path, pf->scratch) && *path)
		goto place_ok;
	if (!n || strncmp(path, pf->scratch, n) || path[n] != '/' || !*base || strchr(base, '/') ||
	    !strcmp(base, ".") || !strcmp(base, "..")) {
		snprintf(how, len, "left: not fsbench's (outside this experiment's scratch directory)");
		return -EPERM;
	}
place_ok:
	if (pf->scratch_rc == -EPERM) {
		snprintf(how, len, "left: not proven fsbench's: %s", pf->scratch_why);
		return -EPERM;
	}
	return 0;
}

/* The file in the scratch directory, marked as this experiment's, that (bdev, bino) names: 0
 * with its path in img, or -EPERM. */
static int proven_image(const struct mxc_proof *pf, dev_t bdev, ino_t bino, char *img, size_t len)
{
	DIR *d = pf->scratch_rc ? NULL : opendir(pf->scratch);
	struct dirent *de;
	int rc = -EPERM;

	if (!d)
		return -EPERM;
	while (rc && (de = readdir(d))) {
		char p[PATH_MAX + 300], why[256];
		struct stat st;

		snprintf(p, sizeof(p), "%s/%s", pf->scratch, de->d_name);
		if (de->d_name[0] == '.' || lstat(p, &st) < 0 || !S_ISREG(st.st_mode) || st.st_dev != bdev ||
		    st.st_ino != bino)
			continue;
		if (owned_check(p, pf->token, false, &st, why, sizeof(why)) == 0) {
			snprintf(img, len, "%s", p);
			rc = 0;
		}
	}
	closedir(d);
	return rc;
}

static bool declared_knob(const struct mxc_proof *pf, const char *path)
{
	const json_t *axes = json_object_get(pf->exp, "axes");
	size_t n = strlen(path);
	bool marked = false;

	for (const char *l = pf->knobs; *l && !marked; l += strcspn(l, "\n"), l += *l == '\n')
		marked = strcspn(l, "\n") == n && !strncmp(l, path, n);
	if (!marked)
		return false;
	for (size_t i = 0; i < json_array_size(axes); i++) {
		const json_t *a = json_array_get(axes, i);

		if (!strcmp(str(a, "kind"), "knob") && !strcmp(str(a, "knob"), path))
			return true;
	}
	return false;
}

/* /sys/class/bdi/NAME/FILE (btrfs: /sys/devices/virtual/bdi/NAME/FILE, its own bdi resolved),
 * FILE one of those the runner writes or keeps */
static bool bdi_path(const char *path, bool written)
{
	static const char *const files[] = { "max_ratio_fine", "max_ratio", "strict_limit", "max_bytes" };
	static const char *const dirs[] = { "/sys/class/bdi/", "/sys/devices/virtual/bdi/" };

	for (size_t d = 0; d < 2; d++) {
		const char *p = path + strlen(dirs[d]), *slash;

		if (strncmp(path, dirs[d], strlen(dirs[d])) || !(slash = strchr(p, '/')) || slash == p ||
		    p[0] == '.')
			continue;
		for (size_t i = written ? 2 : 0; i < 4; i++)
			if (!strcmp(slash + 1, files[i]))
				return true;
	}
	return false;
}

/* a knob the experiment declared, still by the knob rules; a bdi file of the runner's */
static int value_allowed(const struct mxc_proof *pf, const json_t *e, char *how, size_t len)
{
	const char *path = str(e, "path");
	char r[PATH_MAX], why[PATH_MAX + 128];

	if (!strcmp(str(e, "kind"), "bdi")) {
		const char *w = json_string_value(json_object_get(e, "written_to"));

		if (bdi_path(path, false) && (!w || bdi_path(w, true)))
			return 0;
		snprintf(how, len, "left: not a bdi setting fsbench writes");
		return -EPERM;
	}
	if (!declared_knob(pf, path)) {
		snprintf(how, len, "left: not a knob the experiment declared");
		return -EPERM;
	}
	if (owned_knob_resolve(path, r, sizeof(r), why, sizeof(why)) || strcmp(r, path)) {
		snprintf(how, len, "left: not a knob by the rules (a file under /proc/sys or /sys, no "
			 "symbolic link in its path)");
		return -EPERM;
	}
	return 0;
}
/* a knob or a bdi setting: restored when it still holds what fsbench wrote */
static int restore_value(json_t *e, char *how, size_t len)
{
	const char *path = str(e, "path"), *prev = str(e, "previous"), *val = str(e, "value");
	const char *readback = json_string_value(json_object_get(e, "readback"));
	char cur[4096], want[4096];
	int rc;

	if (json_is_true(json_object_get(e, "one_way"))) {
		snprintf(how, len, "one-way: left at %s (was %s)", val, prev);
		return 0;
	}
	if ((rc = fsimage_knob_read(path, cur, sizeof(cur)))) {
		if (rc == -ENOENT && !strcmp(str(e, "kind"), "bdi")) {
			snprintf(how, len, "gone with its filesystem");
			return 0;
		}
		snprintf(how, len, "left: cannot read it: %s", strerror(-rc));
		return rc;
	}
	snprintf(want, sizeof(want), "%s", val);
	fsimage_knob_normalize(want);
	if (!strcmp(cur, prev)) {
		snprintf(how, len, "holds %s already", prev);
		return 0;
	}
	if (strcmp(cur, want) && (!readback || strcmp(cur, readback))) {
		snprintf(how, len, "left: changed by someone else since (now %s; fsbench wrote %s over %s)",
			 cur, val, prev);
		return 0;
	}
	/* what was saved is what is written back (bdi max_bytes: its max_ratio_fine) */
	if ((rc = fsimage_knob_write(path, prev))) {
		snprintf(how, len, "left at %s: cannot write %s back: %s", cur, prev, strerror(-rc));
		return rc;
	}
	snprintf(how, len, "restored to %s", prev);
	return 0;
}

static int undo_value(const struct mxc_proof *pf, json_t *e, char *how, size_t len)
{
	const char *path = str(e, "path");
	char why[PATH_MAX + 128];
	int rc, lk;

	if ((rc = value_allowed(pf, e, how, len)))
		return rc;
	if (!pf->lock_knobs || strcmp(str(e, "kind"), "knob"))
		return restore_value(e, how, len);
	/* another experiment holds this knob now: what it finds there is its own to restore */
	if ((rc = owned_knob_lock(path, &lk, why, sizeof(why)))) {
		snprintf(how, len, "left: %s", why);
		return rc;
	}
	rc = restore_value(e, how, len);
	owned_knob_unlock(path, lk);
	return rc;
}

/* an image or a directory: the scratch directory itself, or in it with the marker */
static int undo_file(const struct mxc_proof *pf, json_t *e, bool dir, char *how, size_t len)
{
	const char *path = str(e, "path"), *gone;
	char why[PATH_MAX + 128];
	struct stat st;
	int rc;

	if ((rc = in_scratch(pf, path, dir, how, len)))
		return rc;
	/* a pending record: the runner was killed around the mkdir or the creation, and what is
	 * there, if anything, is proven by the marker alone, as always */
	gone = strcmp(str(e, "state"), "pending") ? "already gone" : "never made";
	if (pf->scratch_rc == -ENOENT) {
		snprintf(how, len, "%s", gone);
		return 0;
	}
	if ((rc = owned_check(path, pf->token, dir, &st, why, sizeof(why)))) {
		if (rc == -ENOENT) {
			snprintf(how, len, "%s", gone);
			return 0;
		}
		snprintf(how, len, "left: not proven fsbench's: %s", rc == -EPERM ? why : strerror(-rc));
		return rc == -EPERM ? rc : -EPERM;
	}
	return fsimage_remove(path, st.st_dev, st.st_ino, dir, how, len);
}

/* --target: the run's subdirectory of a target, fsbench-CELL.XXXXXX directly in the recorded
 * parent (no symbolic link on the way), the directory the record names by device and inode, and
 * proven: by the marker; unmarked (a filesystem without trusted.* attributes, or no root), only
 * by the runner that made it (own_process), as its user's with mode 0700. Removed whole. A
 * record still pending is of a runner killed around the mkdir: the directory may exist or not,
 * and only the marker proves it. */
static int undo_workdir(const struct mxc_proof *pf, json_t *e, char *how, size_t len)
{
	const char *path = str(e, "path"), *parent = str(e, "parent"), *base;
	size_t n = strlen(parent);
	char why[PATH_MAX + 128], real[PATH_MAX];
	struct stat st;
	bool pending;
	int rc;

	if (!*path) {
		snprintf(how, len, "never made");
		return 0;
	}
	base = path + n + 1;
	if (parent[0] != '/' || strncmp(path, parent, n) || path[n] != '/' || strncmp(base, "fsbench-", 8) ||
	    strchr(base, '/') || !realpath(parent, real) || strcmp(real, parent)) {
		snprintf(how, len, "left: not a directory fsbench makes in a target (or a link on its way)");
		return -EPERM;
	}
	pending = !strcmp(str(e, "state"), "pending");
	if (pending || json_is_true(json_object_get(e, "marked"))) {
		rc = owned_check(path, pf->token, true, &st, why, sizeof(why));
	} else if (lstat(path, &st) < 0) {
		rc = -errno;
	} else {
		rc = 0;
		if (!pf->own_process || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 07777) != 0700) {
			snprintf(why, sizeof(why), "unmarked, and not the run's own directory of mode 0700");
			rc = -EPERM;
		}
	}
	if (rc == -ENOENT) {
		snprintf(how, len, pending ? "never made" : "already gone");
		return 0;
	}
	if (!rc && !pending &&
	    ((json_int_t)st.st_dev != json_integer_value(json_object_get(e, "dev")) ||
	     (json_int_t)st.st_ino != json_integer_value(json_object_get(e, "ino")))) {
		snprintf(why, sizeof(why), "not the directory the manifest records (device, inode)");
		rc = -EPERM;
	}
	if (rc) {
		snprintf(how, len, "left: not proven fsbench's: %s", rc == -EPERM ? why : strerror(-rc));
		return -EPERM;
	}
	return workdir_remove(path, st.st_dev, st.st_ino, how, len);
}

/* /dev/loopN */
static bool loop_name(const char *dev)
{
	const char *p = dev + strlen("/dev/loop");

	return !strncmp(dev, "/dev/loop", strlen("/dev/loop")) && *p && strspn(p, "0123456789") == strlen(p);
}

static int undo_loop(const struct mxc_proof *pf, json_t *e, char *how, size_t len)
{
	const char *dev = str(e, "device");
	char img[PATH_MAX + 300];
	dev_t d;
	ino_t i;
	int rc;

	if (!json_object_get(e, "backing_ino") && !*dev) {
		snprintf(how, len, "never attached");
		return 0;
	}
	if ((rc = in_scratch(pf, str(e, "image"), false, how, len)))
		return rc;
	if (!loop_name(dev)) {
		snprintf(how, len, "left: not a loop device name");
		return -EPERM;
	}
	if ((rc = fsimage_loop_backing(dev, &d, &i)) == -ENXIO) {
		snprintf(how, len, "already detached");
		return 0;
	}
	if (rc) {
		snprintf(how, len, "left: %s", strerror(-rc));
		return rc;
	}
	if (proven_image(pf, d, i, img, sizeof(img))) {
		snprintf(how, len, "left: it is attached to a file that is not this experiment's image");
		return -EPERM;
	}
	return fsimage_loop_detach(dev, d, i, how, len);
}

static int undo_mount(const struct mxc_proof *pf, json_t *e, char *how, size_t len)
{
	const char *target = str(e, "target"), *source = str(e, "source");
	char img[PATH_MAX + 300];
	int rc;

	if ((rc = in_scratch(pf, target, false, how, len)))
		return rc;
	if (pf->scratch_rc == -ENOENT || (rc = fsimage_mounted(target, source)) == 0) {
		snprintf(how, len, "not mounted (already unmounted)");
		return 0;
	}
	if (rc < 0) {
		snprintf(how, len, "left: %s", strerror(-rc));
		return rc;
	}
	/* from the --device, or from a loop device of one of the experiment's images */
	if (!(pf->device && !strcmp(source, pf->device))) {
		dev_t d;
		ino_t i;

		if (!loop_name(source) || fsimage_loop_backing(source, &d, &i) ||
		    proven_image(pf, d, i, img, sizeof(img))) {
			snprintf(how, len, "left: mounted from %s, which is not this experiment's", source);
			return -EPERM;
		}
	}
	return mxc_umount_timed(e, target, source, how, len);
}

int mxc_undo_entry(const struct mxc_proof *pf, json_t *e, char *how, size_t len)
{
	const char *kind = str(e, "kind");

	if (!strcmp(kind, "dir") || !strcmp(kind, "image"))
		return undo_file(pf, e, !strcmp(kind, "dir"), how, len);
	if (!strcmp(kind, "loop"))
		return undo_loop(pf, e, how, len);
	if (!strcmp(kind, "workdir"))
		return undo_workdir(pf, e, how, len);
	if (!strcmp(kind, "remount"))
		return mxt_undo_remount(pf, e, how, len);
	if (!strcmp(kind, "mount"))
		return undo_mount(pf, e, how, len);
	if (!strcmp(kind, "knob") || !strcmp(kind, "bdi"))
		return undo_value(pf, e, how, len);
	snprintf(how, len, "left: unknown kind '%s'", kind);
	return -EINVAL;
}

unsigned long long mxc_start_ticks(long pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (!(f = fopen(path, "re")))
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* field 22, counted after the name's closing parenthesis */
	if ((p = strrchr(buf, ')')) &&
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &t) == 1)
		return t;
	return 0;
}

bool mxc_owner_alive(const json_t *root)
{
	long long pid = json_integer_value(json_object_get(root, "pid"));
	unsigned long long st = (unsigned long long)json_integer_value(json_object_get(root, "pid_start"));

	if (pid <= 0 || (long)pid == (long)getpid())
		return false;
	/* without its start time a live process cannot be told from the runner: it may be it */
	if (!st)
		return kill((pid_t)pid, 0) == 0 || errno == EPERM;
	return mxc_start_ticks((long)pid) == st;
}

/* DIR and its manifest, before anything in it is believed: the directory (and those above it)
 * root's alone, the manifest a regular file of the invoking user's that nobody else may write.
 * 0, or EXIT_USAGE with the reason said. */
static int undo_trust(const char *prog, const char *dir, char *real, size_t rlen, struct manifest *m)
{
	char q[QUOTE_MAX], why[PATH_MAX + 256], err[PATH_MAX + 256];
	struct stat st;

	quote_str(dir, q, sizeof(q));
	if (owned_abs_path(dir, false, real, rlen, why, sizeof(why))) {
		fprintf(stderr, "%s: --undo: %s\n", prog, why);
		return EXIT_USAGE;
	}
	if (owned_dir_chain(real, true, why, sizeof(why))) {
		fprintf(stderr, "%s: --undo '%s': refusing it: %s\n", prog, q, why);
		return EXIT_USAGE;
	}
	if (manifest_load(m, real, &st, err, sizeof(err))) {
		fprintf(stderr, "%s: --undo '%s': %s\n", prog, q, err);
		return EXIT_USAGE;
	}
	if (st.st_uid != geteuid() || (st.st_mode & 022)) {
		fprintf(stderr, "%s: --undo '%s': refusing its %s: %s\n", prog, q, MANIFEST_NAME,
			st.st_uid != geteuid() ? "it belongs to another user" : "others may write it");
		manifest_free(m);
		return EXIT_USAGE;
	}
	return 0;
}

int mxc_undo_dir(const char *prog, const char *dir)
{
	struct manifest m;
	struct mxc_proof pf;
	char how[PATH_MAX + 256], q[QUOTE_MAX], real[PATH_MAX], tok[96];
	struct timespec last, now;
	json_t *list;
	unsigned todo = 0, left = 0;
	int rc, code;

	quote_str(dir, q, sizeof(q));
	if (geteuid() != 0) {
		fprintf(stderr, "%s: --undo needs root (it unmounts, detaches loop devices, writes knobs)\n", prog);
		return EXIT_UNSUPPORTED;
	}
	/* a signal stops it between entries, never in the middle of writing the manifest */
	if (run_signals_install()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", prog, strerror(errno));
		return EXIT_FAILED;
	}
	if ((code = undo_trust(prog, dir, real, sizeof(real), &m)))
		return code;
	if (mxc_owner_alive(m.root)) {
		long long pid = json_integer_value(json_object_get(m.root, "pid"));

		if (json_integer_value(json_object_get(m.root, "pid_start")))
			fprintf(stderr, "%s: --undo '%s': the experiment is still running (pid %lld); stop it "
				"(Ctrl-C or kill -TERM) and it undoes its own set-up\n", prog, q, pid);
		else
			fprintf(stderr, "%s: --undo '%s': pid %lld is alive and the manifest has no start time "
				"to tell it from the runner: refusing (the experiment may still be running)\n",
				prog, q, pid);
		manifest_free(&m);
		return EXIT_USAGE;
	}
	if (mxc_token(real, tok, sizeof(tok))) {
		fprintf(stderr, "%s: --undo '%s': %s\n", prog, q, strerror(errno));
		manifest_free(&m);
		return EXIT_FAILED;
	}
	mxc_proof_init(&pf, real, tok, m.root);
	pf.lock_knobs = true;
	list = json_object_get(m.root, "undo");
	clock_gettime(CLOCK_MONOTONIC, &last);
	for (size_t i = json_array_size(list); i-- > 0 && !run_signal();) {
		json_t *e = json_array_get(list, i);

		if (json_is_true(json_object_get(e, "undone")))
			continue;
		todo++;
		rc = mxc_undo_entry(&pf, e, how, sizeof(how));
		manifest_undo_mark(e, rc == 0, how);
		fprintf(stderr, "%s: undo: %s %s: %s\n", prog, str(e, "kind"),
			*str(e, "target") ? str(e, "target") : *str(e, "device") ? str(e, "device") : str(e, "path"),
			how);
		left += rc != 0;
		/* the manifest is rewritten at most once a second: a kill in between loses marks
		 * that the next --undo settles again (every entry is checked, not believed) */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > last.tv_sec + 1 || (now.tv_sec == last.tv_sec + 1 && now.tv_nsec >= last.tv_nsec)) {
			last = now;
			if ((rc = manifest_commit(&m))) {
				fprintf(stderr, "%s: cannot write '%s': %s; stopping\n", prog, m.path, strerror(-rc));
				manifest_free(&m);
				return EXIT_FAILED;
			}
		}
	}
	if (run_signal()) {
		code = 128 + run_signal();
	} else if (!todo) {
		fprintf(stderr, "%s: undo: nothing left to undo in '%s'\n", prog, q);
	} else if (!left) {
		json_object_set_new(m.root, "undo_complete", json_true());
		if (!strcmp(json_string_value(json_object_get(m.root, "state")) ?: "", "running") ||
		    !strcmp(json_string_value(json_object_get(m.root, "state")) ?: "", "setting-up"))
			json_object_set_new(m.root, "state", json_string("killed"));
	}
	if (todo && (rc = manifest_commit(&m))) {
		fprintf(stderr, "%s: cannot write '%s': %s\n", prog, m.path, strerror(-rc));
		code = code ? code : EXIT_FAILED;
	}
	if (run_signal())
		fprintf(stderr, "%s: --undo interrupted by SIG%s; what is done is recorded, 'fsbench matrix "
			"--undo %s' goes on\n", prog, sigabbrev_np(run_signal()), q);
	manifest_free(&m);
	return code ? code : left ? EXIT_FAILED : EXIT_OK;
}
