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

int mxt_check(struct mx_exp *e, const struct mxc_config *c, char *err, size_t len)
{
	bool root = geteuid() == 0;
	int a, code;

	if (target_axis(e, &c->target, err, len))
		return EXIT_USAGE;
	if ((a = mx_target_axis(e)) < 0)
		return 0;
	/* what only root may do, before anything else is said about it */
	for (unsigned k = 0; k < e->naxes && !root; k++) {
		enum mx_kind kind = e->axes[k].kind;

		if (kind == MX_KNOB || kind == MX_MKFS || kind == MX_MOUNT || kind == MX_FS ||
		    kind == MX_BDI_MAX_BYTES || kind == MX_BDI_STRICT_LIMIT) {
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
	e->target_kind = "directory";
	return 0;
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
