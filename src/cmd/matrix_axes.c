/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench matrix: the axes the options give (--fs, --mount-opts, --knob, the bdi limits,
 * --mkfs-opts), and every knob axis' file resolved once (matrix_int.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/matrix_int.h"
#include "core/opt.h"
#include "core/quote.h"
#include "sys/fsimage.h"
#include "sys/fsopts.h"
#include "sys/owned.h"

/* --fs TYPE[,TYPE...] (repeatable): the fs axis */
static int fs_axis(struct mx_exp *e, const struct mxc_config *c, char *err, size_t errlen)
{
	char q[QUOTE_MAX], msg[512];
	int a;

	if ((a = mx_axis_add(e, "fs", MX_FS, NULL, err, errlen)) < 0)
		return -1;
	for (unsigned i = 0; i < c->fs.n; i++) {
		char *copy = strdup(c->fs.v[i]), *save = NULL;

		if (!copy) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!fsimage_fs_known(t)) {
				snprintf(err, errlen, "option --fs: unknown filesystem '%s' (known: %s)",
					 quote_str(t, q, sizeof(q)), fsimage_fs_list());
				free(copy);
				return -1;
			}
			if (mx_value_add(e, (unsigned)a, NULL, t, false, msg, sizeof(msg))) {
				snprintf(err, errlen, "option --fs: %s", msg);
				free(copy);
				return -1;
			}
		}
		free(copy);
	}
	return 0;
}

/* --knob PATH=VALUE: an axis per path (named after its last component), its values in order */
static int knob_axes(struct mx_exp *e, const struct mxc_config *c, char *err, size_t errlen)
{
	char q[QUOTE_MAX], msg[512];
	int a;

	for (unsigned i = 0; i < c->knob.n; i++) {
		const char *eq = strchr(c->knob.v[i], '='), *base;
		char path[PATH_MAX];
		bool seen = false;

		if (!eq || eq == c->knob.v[i] || (size_t)(eq - c->knob.v[i]) >= sizeof(path)) {
			snprintf(err, errlen, "option --knob: '%s' is not PATH=VALUE",
				 quote_str(c->knob.v[i], q, sizeof(q)));
			return -1;
		}
		snprintf(path, sizeof(path), "%.*s", (int)(eq - c->knob.v[i]), c->knob.v[i]);
		for (unsigned j = 0; j < i && !seen; j++)
			seen = !strncmp(c->knob.v[j], c->knob.v[i], (size_t)(eq - c->knob.v[i]) + 1);
		if (seen)
			continue;
		base = strrchr(path, '/');
		base = base && base[1] ? base + 1 : path;
		for (unsigned k = 0; k < e->naxes; k++)
			if (!strcmp(e->axes[k].name, base) && e->axes[k].kind == MX_KNOB && e->axes[k].knob &&
			    strcmp(e->axes[k].knob, path)) {
				snprintf(err, errlen, "option --knob: two knobs named %s: give the axes names "
					 "in an experiment file", base);
				return -1;
			}
		if ((a = mx_axis_add(e, base, MX_KNOB, path, msg, sizeof(msg))) < 0) {
			snprintf(err, errlen, "option --knob: %s", msg);
			return -1;
		}
		for (unsigned j = i; j < c->knob.n; j++)
			if (!strncmp(c->knob.v[j], c->knob.v[i], (size_t)(eq - c->knob.v[i]) + 1) &&
			    mx_value_add(e, (unsigned)a, NULL, c->knob.v[j] + (eq - c->knob.v[i]) + 1, false, msg,
					 sizeof(msg))) {
				snprintf(err, errlen, "option --knob: %s", msg);
				return -1;
			}
	}
	return 0;
}

/* --mkfs-opts TYPE:OPTS: what every cell of that type shares (one per type) */
static int mkfs_flags(struct mx_exp *e, const struct mxc_config *c, char *err, size_t errlen)
{
	char q[QUOTE_MAX], msg[512];

	for (unsigned i = 0; i < c->mkfs.n; i++) {
		const char *colon = strchr(c->mkfs.v[i], ':');
		char type[32];

		if (!colon || colon == c->mkfs.v[i] || (size_t)(colon - c->mkfs.v[i]) >= sizeof(type)) {
			snprintf(err, errlen, "option --mkfs-opts: '%s' is not TYPE:OPTS",
				 quote_str(c->mkfs.v[i], q, sizeof(q)));
			return -1;
		}
		snprintf(type, sizeof(type), "%.*s", (int)(colon - c->mkfs.v[i]), c->mkfs.v[i]);
		if (!fsimage_fs_known(type)) {
			snprintf(err, errlen, "option --mkfs-opts: unknown filesystem '%s' (known: %s)",
				 quote_str(type, q, sizeof(q)), fsimage_fs_list());
			return -1;
		}
		if (fsopts_mkfs_check_str(type, colon + 1, msg, sizeof(msg))) {
			snprintf(err, errlen, "option --mkfs-opts '%s': %s", quote_str(c->mkfs.v[i], q, sizeof(q)),
				 msg);
			return -1;
		}
		for (unsigned j = 0; j < e->nmkfs; j++)
			if (!strcmp(e->mkfs_type[j], type)) {
				snprintf(err, errlen, "option --mkfs-opts: %s given twice (an axis of mkfs "
					 "options needs an experiment file)", type);
				return -1;
			}
		if (e->nmkfs == 16 || !(e->mkfs_type[e->nmkfs] = strdup(type)) ||
		    !(e->mkfs_opts[e->nmkfs] = strdup(colon + 1))) {
			snprintf(err, errlen, "option --mkfs-opts: too many");
			return -1;
		}
		e->nmkfs++;
	}
	return 0;
}

/* The axes the options give: --fs, --mount-opts, --knob (grouped by path), the bdi limits. */
int mxc_flag_axes(struct mx_exp *e, const struct mxc_config *c, char *err, size_t errlen)
{
	char q[QUOTE_MAX], msg[512];
	int a;

	if (c->fs.n && fs_axis(e, c, err, errlen))
		return -1;
	if (c->mount.n) {
		if ((a = mx_axis_add(e, "mount", MX_MOUNT, NULL, err, errlen)) < 0)
			return -1;
		for (unsigned i = 0; i < c->mount.n; i++)
			if (fsopts_mount_parse(c->mount.v[i], NULL, NULL, msg, sizeof(msg)) ||
			    mx_value_add(e, (unsigned)a, NULL, c->mount.v[i], false, msg, sizeof(msg))) {
				snprintf(err, errlen, "option --mount-opts '%s': %s",
					 quote_str(c->mount.v[i], q, sizeof(q)), msg);
				return -1;
			}
	}
	if (knob_axes(e, c, err, errlen))
		return -1;
	if (c->bdi_max) {
		uint64_t v;

		if (opt_parse_size(c->bdi_max, 1, true, &v)) {
			snprintf(err, errlen, "option --bdi-max-bytes: '%s' is not a size",
				 quote_str(c->bdi_max, q, sizeof(q)));
			return -1;
		}
		if ((a = mx_axis_add(e, "bdi-max-bytes", MX_BDI_MAX_BYTES, NULL, err, errlen)) < 0 ||
		    mx_value_add(e, (unsigned)a, NULL, c->bdi_max, false, err, errlen))
			return -1;
	}
	if (c->bdi_strict) {
		if (strcmp(c->bdi_strict, "0") && strcmp(c->bdi_strict, "1")) {
			snprintf(err, errlen, "option --bdi-strict-limit: '%s' is not 0 or 1",
				 quote_str(c->bdi_strict, q, sizeof(q)));
			return -1;
		}
		if ((a = mx_axis_add(e, "bdi-strict-limit", MX_BDI_STRICT_LIMIT, NULL, err, errlen)) < 0 ||
		    mx_value_add(e, (unsigned)a, NULL, c->bdi_strict, false, err, errlen))
			return -1;
	}
	if (mkfs_flags(e, c, err, errlen))
		return -1;
	for (unsigned k = 0; k < e->naxes; k++)
		if (e->axes[k].kind == MX_FS)
			for (unsigned v = 0; v < e->axes[k].nvalues; v++)
				if (!fsimage_fs_known(e->axes[k].values[v].setting)) {
					snprintf(err, errlen, "axis %s: unknown filesystem '%s' (known: %s)",
						 e->axes[k].name,
						 quote_str(e->axes[k].values[v].setting, q, sizeof(q)),
						 fsimage_fs_list());
					return -1;
				}
	return 0;
}

/* Every knob axis' path made absolute and resolved, once, here: what is recorded, written, locked
 * and restored is that file, from any working directory, with no symbolic link followed later.
 * Refused: a link that is not the kernel's (sys/owned.h), two axes on one file, an empty value. */
int mxc_knobs_resolve(struct mx_exp *e, char *err, size_t errlen)
{
	for (unsigned a = 0; a < e->naxes; a++) {
		struct mx_axis *ax = &e->axes[a];
		char real[PATH_MAX], msg[PATH_MAX + 256], *dup;

		if (ax->kind != MX_KNOB || !ax->knob)
			continue;
		for (unsigned v = 0; v < ax->nvalues; v++)
			if (!ax->values[v].setting[0]) {
				snprintf(err, errlen, "axis %s: knob %s: an empty value (nothing to write)",
					 ax->name, ax->knob);
				return -1;
			}
		if (owned_knob_resolve(ax->knob, real, sizeof(real), msg, sizeof(msg))) {
			snprintf(err, errlen, "axis %s: %s", ax->name, msg);
			return -1;
		}
		for (unsigned b = 0; b < a; b++)
			if (e->axes[b].kind == MX_KNOB && e->axes[b].knob && !strcmp(e->axes[b].knob, real)) {
				snprintf(err, errlen, "axes %s and %s: the same knob %s", e->axes[b].name,
					 ax->name, real);
				return -1;
			}
		if (!(dup = strdup(real))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		free(ax->knob);
		ax->knob = dup;
	}
	return 0;
}
