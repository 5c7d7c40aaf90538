/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench matrix on existing targets (--target NAME=DIR, [target NAME] dir = DIR): the axis, its
 * directories checked before anything is set up, what needs root refused without it, and the
 * targets' filesystems as the manifest records them. The runner (matrix_run.c) runs each cell's
 * workload in a fresh subdirectory of its target (sys/workdir.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/matrix_int.h"
#include "core/quote.h"
#include "sys/env.h"
#include "sys/owned.h"
#include "sys/remount.h"

/* --target NAME=DIR...: the axis "target", replacing the experiment file's [target] sections */
static int target_axis(struct mx_exp *e, const struct opt_strs *t, char *err, size_t len)
{
	char q[QUOTE_MAX], msg[512], name[MX_NAME_MAX + 1];
	int a;

	if (!t->n)
		return 0;
	if ((a = mx_axis_add(e, "target", MX_TARGET, NULL, err, len)) < 0)
		return -1;
	for (unsigned i = 0; i < t->n; i++) {
		const char *eq = strchr(t->v[i], '=');

		if (!eq || eq == t->v[i] || !eq[1] || (size_t)(eq - t->v[i]) > MX_NAME_MAX) {
			snprintf(err, len, "option --target: '%s' is not NAME=DIR", quote_str(t->v[i], q, sizeof(q)));
			return -1;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(eq - t->v[i]), t->v[i]);
		if (mx_name_check("option --target: the name", name, msg, sizeof(msg)) ||
		    mx_value_add(e, (unsigned)a, name, eq + 1, false, msg, sizeof(msg))) {
			snprintf(err, len, "%s", msg);
			return -1;
		}
	}
	return 0;
}

/* One target's directory: resolved once (what is recorded and used has no symbolic link), a
 * directory this user may create in, on a filesystem mounted read-write; as root, one whose
 * every directory up to / only root may change (sys/owned.h: root writes nowhere else). */
static int target_dir(struct mx_value *v, bool root, char *err, size_t len)
{
	char real[PATH_MAX], why[PATH_MAX + 256], q[QUOTE_MAX], *dup;
	struct statvfs vfs;
	struct stat st;

	quote_str(v->setting, q, sizeof(q));
	if (owned_abs_path(v->setting, false, real, sizeof(real), why, sizeof(why))) {
		snprintf(err, len, "target %s: %s", v->label, why);
		return EXIT_USAGE;
	}
	if (stat(real, &st) < 0) {
		snprintf(err, len, "target %s: '%s': %s", v->label, q, strerror(errno));
		return EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, len, "target %s: '%s' is not a directory", v->label, q);
		return EXIT_USAGE;
	}
	if (root && owned_dir_chain(real, false, why, sizeof(why))) {
		snprintf(err, len, "target %s: as root, refusing '%s': %s", v->label, q, why);
		return EXIT_USAGE;
	}
	if (statvfs(real, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		snprintf(err, len, "target %s: '%s' is on a filesystem mounted read-only", v->label, q);
		return EXIT_UNSUPPORTED;
	}
	if (access(real, W_OK | X_OK) < 0) {
		snprintf(err, len, "target %s: cannot create a directory in '%s': %s", v->label, q, strerror(errno));
		return EXIT_UNSUPPORTED;
	}
	if (!(dup = strdup(real))) {
		snprintf(err, len, "out of memory");
		return EXIT_FAILED;
	}
	free(v->setting);
	v->setting = dup;
	return 0;
}

/* --remount-opts OPTS...: the axis "remount" (replacing the file's), each value mount options
 * as --mount-opts takes them */
static int remount_axis(struct mx_exp *e, const struct opt_strs *o, char *err, size_t len)
{
	char q[QUOTE_MAX], msg[512];
	int a = -1;

	if (o->n && (a = mx_axis_add(e, "remount", MX_REMOUNT, NULL, err, len)) < 0)
		return -1;
	for (unsigned i = 0; i < o->n; i++)
		if (remount_check(o->v[i], msg, sizeof(msg)) ||
		    mx_value_add(e, (unsigned)a, NULL, o->v[i], false, msg, sizeof(msg))) {
			snprintf(err, len, "option --remount-opts '%s': %s", quote_str(o->v[i], q, sizeof(q)), msg);
			return -1;
		}
	return 0;
}

/* A remount axis over the targets: each a mount point whose options can be replayed, with each
 * value's options over them */
static int remount_targets(const struct mx_exp *e, int ta, int ra, char *err, size_t len)
{
	for (unsigned v = 0; v < e->axes[ta].nvalues; v++) {
		const struct mx_value *t = &e->axes[ta].values[v];
		struct remount_state *s = calloc(1, sizeof(*s));
		char opts[4096], msg[PATH_MAX + 256];
		int rc = s ? remount_read(t->setting, s, msg, sizeof(msg)) : -ENOMEM;

		if (rc) {
			snprintf(err, len, "--remount-opts: target %s: %s", t->label, s ? msg : "out of memory");
			free(s);
			return EXIT_USAGE;
		}
		for (unsigned k = 0; k <= e->axes[ra].nvalues; k++) {
			remount_opts(s, k < e->axes[ra].nvalues ? e->axes[ra].values[k].setting : NULL, opts,
				     sizeof(opts));
			if (remount_check(opts, msg, sizeof(msg))) {
				snprintf(err, len, "--remount-opts: target %s: its options could not be %s: %s",
					 t->label, k < e->axes[ra].nvalues ? "combined" : "given back", msg);
				free(s);
				return k < e->axes[ra].nvalues ? EXIT_USAGE : EXIT_UNSUPPORTED;
			}
		}
		free(s);
	}
	return 0;
}

int mxt_check(struct mx_exp *e, const struct mxc_config *c, char *err, size_t len)
{
	bool root = geteuid() == 0;
	int a, ra, code;

	if (target_axis(e, &c->target, err, len) || remount_axis(e, &c->remount, err, len))
		return EXIT_USAGE;
	ra = -1;
	for (unsigned k = 0; k < e->naxes; k++)
		if (e->axes[k].kind == MX_REMOUNT)
			ra = (int)k;
	if ((a = mx_target_axis(e)) < 0 && ra >= 0) {
		snprintf(err, len, "axis %s: a remount axis is for --target (images are mounted with "
			 "--mount-opts)", e->axes[ra].name);
		return EXIT_USAGE;
	}
	if (a < 0)
		return 0;
	/* what only root may do, before anything else is said about it */
	for (unsigned k = 0; k < e->naxes && !root; k++) {
		enum mx_kind kind = e->axes[k].kind;

		if (kind == MX_KNOB || kind == MX_MKFS || kind == MX_MOUNT || kind == MX_FS ||
		    kind == MX_BDI_MAX_BYTES || kind == MX_BDI_STRICT_LIMIT || kind == MX_REMOUNT) {
			snprintf(err, len, "axis %s: a %s axis needs root (only the workload's arguments vary "
				 "over --target without it)", e->axes[k].name, mx_kind_name(kind));
			return EXIT_UNSUPPORTED;
		}
	}
	if (!root && (e->nmkfs || c->drop_caches)) {
		snprintf(err, len, "%s needs root", e->nmkfs ? "--mkfs-opts" : "--drop-caches");
		return EXIT_UNSUPPORTED;
	}
	for (unsigned k = 0; k < e->naxes; k++) {
		enum mx_kind kind = e->axes[k].kind;

		if (kind == MX_FS || kind == MX_MKFS || kind == MX_MOUNT || kind == MX_BDI_MAX_BYTES ||
		    kind == MX_BDI_STRICT_LIMIT) {
			snprintf(err, len, "axis %s: --target runs on the filesystem that is there: no %s axis "
				 "(--remount-opts varies its mount options)", e->axes[k].name, mx_kind_name(kind));
			return EXIT_USAGE;
		}
	}
	if (e->nmkfs || c->device || c->after || c->fresh) {
		snprintf(err, len, "--target runs on the filesystem that is there: no %s",
			 e->nmkfs ? "--mkfs-opts" : c->device ? "--device" : c->after ? "--after" : "--fresh");
		return EXIT_USAGE;
	}
	for (unsigned v = 0; v < e->axes[a].nvalues; v++)
		if ((code = target_dir(&e->axes[a].values[v], root, err, len)))
			return code;
	if (ra >= 0 && (code = remount_targets(e, a, ra, err, len)))
		return code;
	e->target_kind = "directory";
	return 0;
}

int mxt_declare(const struct mx_exp *e, const char *out)
{
	char list[4096] = "";
	size_t k = 0;
	int a = mx_target_axis(e), rc;
	bool remount = false;

	if (geteuid() != 0)
		return 0;
	for (unsigned x = 0; x < e->naxes; x++)
		remount |= e->axes[x].kind == MX_REMOUNT;
	for (unsigned v = 0; remount && a >= 0 && v < e->axes[a].nvalues; v++) {
		int n = snprintf(list + k, sizeof(list) - k, "%s%s", k ? "\n" : "", e->axes[a].values[v].setting);

		if (n < 0 || (size_t)n >= sizeof(list) - k)
			return -ENAMETOOLONG;
		k += (size_t)n;
	}
	/* an empty result directory's earlier list goes too */
	rc = owned_set(out, OWNED_XATTR_REMOUNTS, k ? list : NULL);
	return rc && (k || rc != -EOPNOTSUPP) ? rc : 0;
}

static const char *jstr(const json_t *e, const char *k)
{
	const char *s = json_string_value(json_object_get(e, k));

	return s ? s : "";
}

/* The manifest names the mount; it is remounted back only when the result directory declares
 * it (OWNED_XATTR_REMOUNTS, set by root), it is still a mount point of the recorded device, and
 * it still has the options fsbench gave it (someone who changed them since owns them now). */
int mxt_undo_remount(const struct mxc_proof *pf, json_t *e, char *how, size_t len)
{
	const char *mnt = jstr(e, "target");
	struct remount_state *cur = calloc(1, sizeof(*cur)), *prev = calloc(1, sizeof(*prev));
	char opts[4096], msg[PATH_MAX + 256], dev[32];
	const char *l = pf->remounts;
	size_t n = strlen(mnt);
	bool listed = false;
	int rc = -EPERM;

	if (!cur || !prev) {
		snprintf(how, len, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (; *l && n && !listed; l += strcspn(l, "\n"), l += *l == '\n')
		listed = !strncmp(l, mnt, n) && (l[n] == '\n' || !l[n]);
	if (geteuid() != 0 || !listed) {
		snprintf(how, len, "left: not proven fsbench's (%s)", geteuid() ? "not root" :
			 "the result directory does not declare this target");
		goto out;
	}
	if ((rc = remount_read(mnt, cur, msg, sizeof(msg)))) {
		snprintf(how, len, "left: %s", msg);
		rc = -EPERM;
		goto out;
	}
	snprintf(dev, sizeof(dev), "%u:%u", cur->major, cur->minor);
	if (!json_object_get(e, "now_vfs")) {
		/* recorded, then killed before or after the remount: settled only when it is as it was */
		rc = !strcmp(dev, jstr(e, "dev")) && !strcmp(cur->vfs, jstr(e, "previous_vfs")) &&
		     !strcmp(cur->super, jstr(e, "previous_super")) ? 0 : -EPERM;
		snprintf(how, len, rc ? "left: its options are not the ones it had (%s %s) and fsbench did not "
			 "record giving it these: check it by hand" : "never remounted", cur->vfs, cur->super);
		goto out;
	}
	if (strcmp(dev, jstr(e, "dev")) || strcmp(cur->vfs, jstr(e, "now_vfs")) || strcmp(cur->super, jstr(e, "now_super"))) {
		snprintf(how, len, "left: not what fsbench made it (now %s %s, options %s)", dev, cur->vfs, cur->super);
		rc = -EPERM;
		goto out;
	}
	*prev = *cur;
	snprintf(prev->vfs, sizeof(prev->vfs), "%s", jstr(e, "previous_vfs"));
	snprintf(prev->super, sizeof(prev->super), "%s", jstr(e, "previous_super"));
	remount_back_opts(prev, jstr(e, "options"), opts, sizeof(opts));
	if ((rc = remount_apply(mnt, opts, msg, sizeof(msg)))) {
		snprintf(how, len, "%s", msg);
		goto out;
	}
	if ((rc = remount_read(mnt, cur, msg, sizeof(msg))) || !remount_same(cur, prev)) {
		/* an option the kernel lists only when it is not its default cannot be replayed */
		snprintf(how, len, "remounted with its options, but they read back otherwise: %s %s, was %s %s",
			 cur->vfs, cur->super, prev->vfs, prev->super);
		rc = -EIO;
		goto out;
	}
	snprintf(how, len, "remounted with %s", opts);
out:
	free(cur);
	free(prev);
	return rc;
}

json_t *mxt_json(const struct mx_exp *e)
{
	json_t *list = json_array();
	int a = mx_target_axis(e);

	for (unsigned v = 0; a >= 0 && v < e->axes[a].nvalues; v++) {
		const struct mx_value *x = &e->axes[a].values[v];
		struct env_mount *m = calloc(1, sizeof(*m));
		json_t *o = json_pack("{s:s, s:s}", "name", x->label, "dir", x->setting);

		if (m && env_mount_of(x->setting, m) == 0) {
			json_object_set_new(o, "fstype", json_string(m->fstype));
			json_object_set_new(o, "source", json_string(m->source));
			json_object_set_new(o, "mount_point", json_string(m->mount_point));
			json_object_set_new(o, "mount_options", json_string(m->mount_options));
			json_object_set_new(o, "super_options", json_string(m->super_options));
		} else {
			json_object_set_new(o, "fstype", json_null());
		}
		free(m);
		json_array_append_new(list, o);
	}
	return list;
}
