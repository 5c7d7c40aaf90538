/* The undo of what an experiment set up, entry by entry from the manifest's undo list: during
 * the runner's teardown and for `fsbench matrix --undo DIR` after a kill. Only what the entry
 * identifies is touched (sys/fsimage.h says how each kind is recognised). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/matrix_int.h"
#include "core/quote.h"
#include "sys/fsimage.h"

static const char *str(const json_t *e, const char *k)
{
	const char *s = json_string_value(json_object_get(e, k));

	return s ? s : "";
}

static long long num(const json_t *e, const char *k)
{
	return json_integer_value(json_object_get(e, k));
}

/* a knob or a bdi setting: restored when it still holds what fsbench wrote */
static int undo_value(json_t *e, char *how, size_t len)
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

int mxc_undo_entry(json_t *e, char *how, size_t len)
{
	const char *kind = str(e, "kind");

	if (!strcmp(kind, "dir") || !strcmp(kind, "image"))
		return fsimage_remove(str(e, "path"), (dev_t)num(e, "dev"), (ino_t)num(e, "ino"),
				      !strcmp(kind, "dir"), how, len);
	if (!strcmp(kind, "loop")) {
		if (!json_object_get(e, "backing_ino")) {
			snprintf(how, len, "never attached");
			return 0;
		}
		return fsimage_loop_detach(str(e, "device"), (dev_t)num(e, "backing_dev"),
					   (ino_t)num(e, "backing_ino"), how, len);
	}
	if (!strcmp(kind, "mount"))
		return fsimage_umount(str(e, "target"), str(e, "source"), how, len);
	if (!strcmp(kind, "knob") || !strcmp(kind, "bdi"))
		return undo_value(e, how, len);
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
	return st && mxc_start_ticks((long)pid) == st;
}

int mxc_undo_dir(const char *prog, const char *dir)
{
	struct manifest m;
	char err[PATH_MAX + 256], how[PATH_MAX + 256], q[QUOTE_MAX];
	json_t *list;
	unsigned todo = 0, left = 0;
	int rc;

	quote_str(dir, q, sizeof(q));
	if (geteuid() != 0) {
		fprintf(stderr, "%s: --undo needs root (it unmounts, detaches loop devices, writes knobs)\n", prog);
		return EXIT_UNSUPPORTED;
	}
	if (manifest_load(&m, dir, err, sizeof(err))) {
		fprintf(stderr, "%s: --undo '%s': %s\n", prog, q, err);
		return EXIT_USAGE;
	}
	if (mxc_owner_alive(m.root)) {
		fprintf(stderr, "%s: --undo '%s': the experiment is still running (pid %lld); stop it "
			"(Ctrl-C or kill -TERM) and it undoes its own set-up\n", prog, q,
			json_integer_value(json_object_get(m.root, "pid")));
		manifest_free(&m);
		return EXIT_USAGE;
	}
	list = json_object_get(m.root, "undo");
	for (size_t i = json_array_size(list); i-- > 0;) {
		json_t *e = json_array_get(list, i);

		if (json_is_true(json_object_get(e, "undone")))
			continue;
		todo++;
		rc = mxc_undo_entry(e, how, sizeof(how));
		manifest_undo_mark(e, rc == 0, how);
		fprintf(stderr, "%s: undo: %s %s: %s\n", prog, str(e, "kind"),
			*str(e, "target") ? str(e, "target") : *str(e, "device") ? str(e, "device") : str(e, "path"),
			how);
		left += rc != 0;
		if ((rc = manifest_commit(&m)))
			fprintf(stderr, "%s: cannot write '%s': %s\n", prog, m.path, strerror(-rc));
	}
	if (!todo)
		fprintf(stderr, "%s: undo: nothing left to undo in '%s'\n", prog, q);
	else if (!left) {
		json_object_set_new(m.root, "undo_complete", json_true());
		if (!strcmp(json_string_value(json_object_get(m.root, "state")) ?: "", "running") ||
		    !strcmp(json_string_value(json_object_get(m.root, "state")) ?: "", "setting-up"))
			json_object_set_new(m.root, "state", json_string("killed"));
		manifest_commit(&m);
	}
	manifest_free(&m);
	return left ? EXIT_FAILED : EXIT_OK;
}
