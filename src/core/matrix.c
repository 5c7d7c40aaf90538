/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment model (core/matrix.h): axes, cells, the experiment file, the schedule. */
#include "core/matrix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "core/opt.h"
#include "core/quote.h"
#include "core/words.h"

static const char *const kind_names[] = {
	[MX_FS] = "fs", [MX_MKFS] = "mkfs", [MX_MOUNT] = "mount", [MX_KNOB] = "knob",
	[MX_BDI_MAX_BYTES] = "bdi-max-bytes", [MX_BDI_STRICT_LIMIT] = "bdi-strict-limit",
	[MX_ARGS] = "args", [MX_TARGET] = "target", [MX_REMOUNT] = "remount",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

int mx_kind_parse(const char *s)
{
	for (unsigned i = 0; i < NKINDS; i++)
		if (!strcmp(s, kind_names[i]))
			return (int)i;
	return -1;
}

const char *mx_kind_name(enum mx_kind k)
{
	return kind_names[k];
}

const char *mx_order_name(enum mx_order o)
{
	return o == MX_ORDER_SEQUENTIAL ? "sequential" : o == MX_ORDER_ROTATED ? "rotated" : "interleaved";
}

const char *mx_fresh_name(enum mx_fresh f)
{
	return f == MX_FRESH_PER_RUN ? "per-run" : f == MX_FRESH_NEVER ? "never" : "per-cell";
}

int mx_order_parse(const char *s, enum mx_order *o)
{
	if (!strcmp(s, "interleaved"))
		*o = MX_ORDER_INTERLEAVED;
	else if (!strcmp(s, "rotated"))
		*o = MX_ORDER_ROTATED;
	else if (!strcmp(s, "sequential"))
		*o = MX_ORDER_SEQUENTIAL;
	else
		return -1;
	return 0;
}

int mx_fresh_parse(const char *s, enum mx_fresh *f)
{
	if (!strcmp(s, "per-run"))
		*f = MX_FRESH_PER_RUN;
	else if (!strcmp(s, "per-cell"))
		*f = MX_FRESH_PER_CELL;
	else if (!strcmp(s, "never"))
		*f = MX_FRESH_NEVER;
	else
		return -1;
	return 0;
}

void mx_init(struct mx_exp *e)
{
	memset(e, 0, sizeof(*e));
	e->target_kind = "image";
}

static void cell_free(struct mx_cell *c)
{
	free(c->name);
	free(c->mkfs_opts);
	free(c->mount_opts);
	for (unsigned i = 0; i < c->nargs; i++)
		free(c->args[i]);
	json_decref(c->config);
	memset(c, 0, sizeof(*c));
}

static void axis_free(struct mx_axis *a)
{
	free(a->name);
	free(a->knob);
	for (unsigned v = 0; v < a->nvalues; v++) {
		free(a->values[v].label);
		free(a->values[v].setting);
	}
	memset(a, 0, sizeof(*a));
}

void mx_free(struct mx_exp *e)
{
	free(e->name);
	free(e->file);
	free(e->workload);
	for (unsigned i = 0; i < e->nargs; i++)
		free(e->args[i]);
	for (unsigned i = 0; i < e->naxes; i++)
		axis_free(&e->axes[i]);
	for (unsigned i = 0; i < e->nlisted; i++) {
		free(e->listed[i].name);
		for (unsigned k = 0; k < e->listed[i].n; k++) {
			free(e->listed[i].key[k]);
			free(e->listed[i].label[k]);
		}
	}
	for (unsigned i = 0; i < e->ncells; i++)
		cell_free(&e->cells[i]);
	for (unsigned i = 0; i < e->nmkfs; i++) {
		free(e->mkfs_type[i]);
		free(e->mkfs_opts[i]);
	}
	for (unsigned i = 0; i < e->nopts; i++)
		free(e->opts[i]);
	mx_init(e);
}

/* Names that become directory names (runs/CELL) and stay readable in a report. */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr("._+=,:-", c);
}

static int name_check(const char *what, const char *s, char *err, size_t len)
{
	char q[QUOTE_MAX];

	if (!*s || strlen(s) > MX_NAME_MAX || s[0] == '.' || s[0] == '-') {
		errmsg(err, len, "%s '%s': 1 to %d characters, not starting with '.' or '-'", what,
		       quote_str(s, q, sizeof(q)), MX_NAME_MAX);
		return -1;
	}
	for (const char *p = s; *p; p++)
		if (!name_char(*p)) {
			errmsg(err, len, "%s '%s': only letters, digits and ._+=,:- are allowed", what,
			       quote_str(s, q, sizeof(q)));
			return -1;
		}
	return 0;
}

int mx_name_check(const char *what, const char *s, char *err, size_t len)
{
	return name_check(what, s, err, len);
}

int mx_axis_add(struct mx_exp *e, const char *name, enum mx_kind kind, const char *knob, char *err,
		size_t errlen)
{
	struct mx_axis *a;
	unsigned i;

	if (name_check("axis", name, err, errlen))
		return -1;
	for (i = 0; i < e->naxes && strcmp(e->axes[i].name, name); i++)
		;
	if (i == e->naxes) {
		if (e->naxes == MX_MAX_AXES) {
			errmsg(err, errlen, "more than %d axes", MX_MAX_AXES);
			return -1;
		}
		e->naxes++;
	}
	a = &e->axes[i];
	axis_free(a);
	a->name = strdup(name);
	a->kind = kind;
	a->knob = knob ? strdup(knob) : NULL;
	if (!a->name || (knob && !a->knob)) {
		errmsg(err, errlen, "out of memory");
		return -1;
	}
	return (int)i;
}

int mx_value_add(struct mx_exp *e, unsigned ai, const char *label, const char *setting, bool one_way,
		 char *err, size_t errlen)
{
	struct mx_axis *a = &e->axes[ai];
	struct mx_value *v;
	char q[QUOTE_MAX];

	if (!label)
		label = setting;
	if (a->nvalues == MX_MAX_VALUES) {
		errmsg(err, errlen, "axis %s: more than %d values", a->name, MX_MAX_VALUES);
		return -1;
	}
	for (unsigned i = 0; i < a->nvalues; i++)
		if (!strcmp(a->values[i].label, label)) {
			errmsg(err, errlen, "axis %s: value '%s' given twice", a->name,
			       quote_str(label, q, sizeof(q)));
			return -1;
		}
	if (strchr(setting, '\n')) {
		errmsg(err, errlen, "axis %s: a value cannot hold a newline", a->name);
		return -1;
	}
	v = &a->values[a->nvalues];
	v->label = strdup(label);
	v->setting = strdup(setting);
	v->one_way = one_way;
	if (!v->label || !v->setting) {
		free(v->label);
		free(v->setting);
		errmsg(err, errlen, "out of memory");
		return -1;
	}
	a->nvalues++;
	return 0;
}

/* ---- cells ------------------------------------------------------------------------------ */

static int cat(char **dst, const char *sep, const char *s)
{
	size_t a = *dst ? strlen(*dst) : 0;
	char *n;

	if (!*s)
		return 0;
	if (!(n = realloc(*dst, a + strlen(sep) + strlen(s) + 1)))
		return -1;
	if (!*dst)
		n[0] = '\0';
	if (a)
		strcat(n, sep);
	strcat(n, s);
	*dst = n;
	return 0;
}

/* "TYPE:OPTS": the part before the colon is a filesystem type (letters and digits) */
static size_t type_prefix(const char *s)
{
	size_t k = 0;

	while ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= '0' && s[k] <= '9'))
		k++;
	return k && s[k] == ':' ? k : 0;
}

/* One axis' value applied to cell c: 0, or -1 with the reason in err. */
static int cell_axis(struct mx_cell *c, const struct mx_axis *ax, const struct mx_value *v, char *err,
		     size_t errlen)
{
	const char *set = v->setting;
	size_t tp;
	uint64_t u;

	switch (ax->kind) {
	case MX_FS:
	case MX_TARGET:
		break;
	case MX_REMOUNT:
		c->remount_opts = strcmp(set, "defaults") ? set : NULL;
		break;
	case MX_MKFS:
		/* "TYPE:OPTS" is for cells of that type; plain OPTS for every cell */
		if ((tp = type_prefix(set))) {
			if (tp == strlen(c->fs) && !strncmp(set, c->fs, tp) && cat(&c->mkfs_opts, " ", set + tp + 1))
				goto oom;
		} else if (cat(&c->mkfs_opts, " ", set)) {
			goto oom;
		}
		break;
	case MX_MOUNT:
		if (strcmp(set, "defaults") && cat(&c->mount_opts, ",", set))
			goto oom;
		break;
	case MX_KNOB:
		for (unsigned k = 0; k < c->nknobs; k++)
			if (!strcmp(c->knobs[k].path, ax->knob)) {
				errmsg(err, errlen, "cell %s: knob %s is set by two axes", c->name, ax->knob);
				return -1;
			}
		c->knobs[c->nknobs++] = (struct mx_knob){ ax->knob, set, v->one_way };
		c->one_way |= v->one_way;
		break;
	case MX_BDI_MAX_BYTES:
		if (opt_parse_size(set, 1, true, &u)) {
			errmsg(err, errlen, "axis %s: '%s' is not a size", ax->name, set);
			return -1;
		}
		c->bdi_max_set = true;
		c->bdi_max_bytes = u;
		break;
	case MX_BDI_STRICT_LIMIT:
		if (opt_parse_uint(set, &u) || u > 1) {
			errmsg(err, errlen, "axis %s: '%s' is not 0 or 1", ax->name, set);
			return -1;
		}
		c->bdi_strict_set = true;
		c->bdi_strict_limit = (unsigned)u;
		break;
	case MX_ARGS:
		if (words_split(set, c->args, MX_MAX_ARGS, &c->nargs, err, errlen))
			return -1;
		break;
	}
	return 0;
oom:
	errmsg(err, errlen, "out of memory");
	return -1;
}

/* The cell's "config" object (core/matrix.h: what its hash is over), the mkfs command's n
 * words taken (freed). NULL: out of memory. */
static json_t *cell_config(const struct mx_exp *e, const struct mx_cell *c, char **argv, int n)
{
	json_t *cfg = json_object(), *knobs = json_array(), *args = json_array(), *mk = json_array();

	for (int i = 0; i < n; i++) {
		json_array_append_new(mk, json_string(argv[i]));
		free(argv[i]);
	}
	for (unsigned k = 0; k < c->nknobs; k++) {
		json_t *o = json_object();

		json_object_set_new(o, "path", json_string(c->knobs[k].path));
		json_object_set_new(o, "value", json_string(c->knobs[k].value));
		json_object_set_new(o, "one_way", json_boolean(c->knobs[k].one_way));
		json_array_append_new(knobs, o);
	}
	for (unsigned i = 0; i < c->nargs; i++)
		json_array_append_new(args, json_string(c->args[i]));
	json_object_set_new(cfg, "workload", json_string(e->workload));
	json_object_set_new(cfg, "args", args);
	json_object_set_new(cfg, "fs", json_string(c->fs));
	json_object_set_new(cfg, "mkfs", mk);
	json_object_set_new(cfg, "mount_options", json_string(c->mount_opts));
	json_object_set_new(cfg, "knobs", knobs);
	json_object_set_new(cfg, "bdi_max_bytes",
			    c->bdi_max_set ? json_integer((json_int_t)c->bdi_max_bytes) : json_null());
	json_object_set_new(cfg, "bdi_strict_limit",
			    c->bdi_strict_set ? json_integer(c->bdi_strict_limit) : json_null());
	json_object_set_new(cfg, "target", json_string(e->target_kind));
	if (c->target_dir) {
		json_object_set_new(cfg, "target_name", json_string(c->target_name));
		json_object_set_new(cfg, "target_dir", json_string(c->target_dir));
		json_object_set_new(cfg, "remount_options", c->remount_opts ? json_string(c->remount_opts) : json_null());
	}
	json_object_set_new(cfg, "size_bytes", json_integer((json_int_t)e->size_bytes));
	json_object_set_new(cfg, "fresh", json_string(mx_fresh_name(e->fresh)));
	json_object_set_new(cfg, "drop_caches", json_boolean(e->drop_caches));
	return cfg;
}

/* One cell's effective configuration, from its axis values and what every cell shares. */
static int cell_resolve(struct mx_exp *e, struct mx_cell *c,
			int (*mkfs_argv)(const char *, const char *, char **, unsigned, char *, size_t),
			char *err, size_t errlen)
{
	json_t *cfg;
	char *argv[MX_MAX_ARGS], *s;
	int n;

	c->fs = "ext4";
	for (unsigned a = 0; a < e->naxes; a++)
		if (e->axes[a].kind == MX_FS)
			c->fs = e->axes[a].values[c->vi[a]].setting;
		else if (e->axes[a].kind == MX_TARGET) {
			c->target_name = e->axes[a].values[c->vi[a]].label;
			c->target_dir = e->axes[a].values[c->vi[a]].setting;
			c->fs = "";
		}
	c->mkfs_opts = strdup("");
	c->mount_opts = strdup("");
	if (!c->mkfs_opts || !c->mount_opts)
		goto oom;
	for (unsigned i = 0; i < e->nmkfs; i++)
		if (!strcmp(e->mkfs_type[i], c->fs) && cat(&c->mkfs_opts, " ", e->mkfs_opts[i]))
			goto oom;
	for (unsigned i = 0; i < e->nargs; i++)
		if (!(c->args[c->nargs++] = strdup(e->args[i])))
			goto oom;
	for (unsigned a = 0; a < e->naxes; a++)
		if (cell_axis(c, &e->axes[a], &e->axes[a].values[c->vi[a]], err, errlen))
			return -1;
	/* an existing target is not made: no mkfs command */
	if ((n = c->target_dir ? 0 : mkfs_argv(c->fs, c->mkfs_opts, argv, MX_MAX_ARGS, err, errlen)) < 0) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", err ? err : "");
		errmsg(err, errlen, "cell %s: %s", c->name, why);
		return -1;
	}
	cfg = cell_config(e, c, argv, n);
	if (!(s = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS))) {
		json_decref(cfg);
		goto oom;
	}
	mx_hash(s, strlen(s), c->hash);
	free(s);
	c->config = cfg;
	return 0;
oom:
	errmsg(err, errlen, "out of memory");
	return -1;
}

unsigned mx_fs_group(const struct mx_exp *e, unsigned ci)
{
	const struct mx_cell *c = &e->cells[ci];

	for (unsigned i = 0; i < ci; i++)
		if (!strcmp(e->cells[i].fs, c->fs) && !strcmp(e->cells[i].mkfs_opts, c->mkfs_opts))
			return i;
	return ci;
}

int mx_target_axis(const struct mx_exp *e)
{
	for (unsigned a = 0; a < e->naxes; a++)
		if (e->axes[a].kind == MX_TARGET)
			return (int)a;
	return -1;
}

/* The cross product's names: the labels of the axes that vary, joined with '-'; characters a
 * name cannot hold become '_'. */
static int product_name(const struct mx_exp *e, const unsigned *vi, char **out)
{
	char buf[1024] = "";
	size_t k = 0;

	for (unsigned a = 0; a < e->naxes; a++) {
		const char *l = e->axes[a].values[vi[a]].label;

		if (e->axes[a].nvalues < 2)
			continue;
		if (k && k + 1 < sizeof(buf))
			buf[k++] = '-';
		for (; *l && k + 1 < sizeof(buf); l++)
			buf[k++] = name_char(*l) ? *l : '_';
	}
	buf[k] = '\0';
	if (!k)
		snprintf(buf, sizeof(buf), "%s", e->name && *e->name ? e->name : "cell");
	if (buf[0] == '.' || buf[0] == '-')
		buf[0] = '_';
	if (strlen(buf) > MX_NAME_MAX)
		buf[MX_NAME_MAX] = '\0';
	return (*out = strdup(buf)) ? 0 : -1;
}

/* Every axis has values, one fs axis at most, at most one one-way value per knob axis. */
static int axes_check(const struct mx_exp *e, char *err, size_t errlen)
{
	unsigned nfs = 0;

	for (unsigned a = 0; a < e->naxes; a++) {
		const struct mx_axis *ax = &e->axes[a];

		if (!ax->nvalues) {
			errmsg(err, errlen, "axis %s has no values", ax->name);
			return -1;
		}
		nfs += ax->kind == MX_FS;
		if (ax->kind == MX_KNOB && !ax->knob) {
			errmsg(err, errlen, "axis %s: a knob axis needs knob = PATH", ax->name);
			return -1;
		}
		for (unsigned v = 0; v < ax->nvalues; v++)
			if (ax->values[v].one_way && ax->kind == MX_KNOB) {
				for (unsigned w = 0; w < ax->nvalues; w++)
					if (w != v && ax->values[w].one_way) {
						errmsg(err, errlen,
						       "axis %s: two one-way values (%s, %s): once one is "
						       "written the other cannot follow",
						       ax->name, ax->values[v].label, ax->values[w].label);
						return -1;
					}
			}
	}
	if (nfs > 1) {
		errmsg(err, errlen, "more than one fs axis");
		return -1;
	}
	return 0;
}

/* The cells the file lists, each axis' value found by its label. */
static int cells_listed(struct mx_exp *e, char *err, size_t errlen)
{
	char q[QUOTE_MAX];

	for (unsigned i = 0; i < e->nlisted; i++) {
		const struct mx_listed *l = &e->listed[i];
		struct mx_cell *c = &e->cells[e->ncells];

		memset(c, 0, sizeof(*c));
		for (unsigned k = 0; k < l->n; k++) {
			unsigned a, v;

			for (a = 0; a < e->naxes && strcmp(e->axes[a].name, l->key[k]); a++)
				;
			if (a == e->naxes) {
				errmsg(err, errlen, "cell %s: no axis named %s", l->name,
				       quote_str(l->key[k], q, sizeof(q)));
				return -1;
			}
			for (v = 0; v < e->axes[a].nvalues && strcmp(e->axes[a].values[v].label, l->label[k]); v++)
				;
			if (v == e->axes[a].nvalues) {
				errmsg(err, errlen, "cell %s: axis %s has no value '%s'", l->name, l->key[k],
				       quote_str(l->label[k], q, sizeof(q)));
				return -1;
			}
			c->vi[a] = v + 1;    /* 0: not given */
		}
		for (unsigned a = 0; a < e->naxes; a++) {
			if (!c->vi[a] && e->axes[a].nvalues > 1) {
				errmsg(err, errlen, "cell %s: no value for axis %s", l->name,
				       e->axes[a].name);
				return -1;
			}
			c->vi[a] = c->vi[a] ? c->vi[a] - 1 : 0;
		}
		if (!(c->name = strdup(l->name))) {
			errmsg(err, errlen, "out of memory");
			return -1;
		}
		e->ncells++;
	}
	return 0;
}

/* The cross product of the axes, the last axis varying fastest. */
static int cells_product(struct mx_exp *e, char *err, size_t errlen)
{
	unsigned vi[MX_MAX_AXES] = { 0 };

	for (;;) {
		struct mx_cell *c;
		unsigned a;

		if (e->ncells == MX_MAX_CELLS) {
			errmsg(err, errlen, "more than %d cells", MX_MAX_CELLS);
			return -1;
		}
		c = &e->cells[e->ncells];
		memset(c, 0, sizeof(*c));
		memcpy(c->vi, vi, sizeof(vi));
		if (product_name(e, vi, &c->name)) {
			errmsg(err, errlen, "out of memory");
			return -1;
		}
		e->ncells++;
		for (a = e->naxes; a-- > 0;) {
			if (++vi[a] < e->axes[a].nvalues)
				break;
			vi[a] = 0;
		}
		if (a == (unsigned)-1 || !e->naxes)
			return 0;
	}
}

/* the one-way group must agree on its one-way values: each knob written once */
static int one_way_check(const struct mx_exp *e, char *err, size_t errlen)
{
	for (unsigned i = 0; i < e->ncells; i++)
		for (unsigned j = 0; j < i; j++)
			for (unsigned a = 0; a < e->naxes; a++) {
				const struct mx_axis *ax = &e->axes[a];
				const struct mx_value *x = &ax->values[e->cells[i].vi[a]],
						      *y = &ax->values[e->cells[j].vi[a]];

				if (e->cells[i].one_way && e->cells[j].one_way && ax->kind == MX_KNOB &&
				    (x->one_way || y->one_way) && x != y) {
					errmsg(err, errlen,
					       "cells %s and %s: knob %s is one-way in one of them and "
					       "differs: after a one-way write it cannot change again",
					       e->cells[j].name, e->cells[i].name, ax->knob);
					return -1;
				}
			}
	return 0;
}

int mx_finish(struct mx_exp *e, int (*mkfs_argv)(const char *, const char *, char **, unsigned, char *, size_t),
	      char *err, size_t errlen)
{
	if (!e->workload) {
		errmsg(err, errlen,
		       "no workload: give one after '--' (-- tiotest -t 1 ...) or workload = in [experiment]");
		return -1;
	}
	if (axes_check(e, err, errlen) || (e->nlisted ? cells_listed(e, err, errlen) : cells_product(e, err, errlen)))
		return -1;
	for (unsigned i = 0; i < e->ncells; i++) {
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(e->cells[i].name, e->cells[j].name)) {
				errmsg(err, errlen,
				       "two cells are named %s (labels that differ only in characters "
				       "a name cannot hold: give labels = in the file)",
				       e->cells[i].name);
				return -1;
			}
		if (cell_resolve(e, &e->cells[i], mkfs_argv, err, errlen))
			return -1;
	}
	return one_way_check(e, err, errlen);
}

void mx_hash(const char *s, size_t len, char out[32])
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(1099511628211);
	}
	snprintf(out, 32, "fnv1a64:%016llx", (unsigned long long)h);
}

json_t *mx_json(const struct mx_exp *e)
{
	json_t *o = json_object(), *axes = json_array(), *cells = json_array(), *argv = json_array();

	json_object_set_new(o, "name", json_string(e->name ? e->name : ""));
	json_object_set_new(o, "file", e->file ? json_string(e->file) : json_null());
	json_object_set_new(o, "workload", json_string(e->workload ? e->workload : ""));
	for (unsigned i = 0; i < e->nargs; i++)
		json_array_append_new(argv, json_string(e->args[i]));
	json_object_set_new(o, "argv", argv);
	for (unsigned a = 0; a < e->naxes; a++) {
		const struct mx_axis *ax = &e->axes[a];
		json_t *x = json_object(), *vals = json_array(), *labels = json_array(), *ow = json_array();

		json_object_set_new(x, "name", json_string(ax->name));
		json_object_set_new(x, "kind", json_string(mx_kind_name(ax->kind)));
		if (ax->knob)
			json_object_set_new(x, "knob", json_string(ax->knob));
		for (unsigned v = 0; v < ax->nvalues; v++) {
			json_array_append_new(labels, json_string(ax->values[v].label));
			json_array_append_new(vals, json_string(ax->values[v].setting));
			if (ax->values[v].one_way)
				json_array_append_new(ow, json_string(ax->values[v].label));
		}
		json_object_set_new(x, "values", labels);
		json_object_set_new(x, "settings", vals);
		json_object_set_new(x, "one_way", ow);
		json_array_append_new(axes, x);
	}
	json_object_set_new(o, "axes", axes);
	for (unsigned i = 0; i < e->ncells; i++) {
		const struct mx_cell *c = &e->cells[i];
		json_t *x = json_object(), *av = json_object();

		json_object_set_new(x, "name", json_string(c->name));
		for (unsigned a = 0; a < e->naxes; a++)
			json_object_set_new(av, e->axes[a].name, json_string(e->axes[a].values[c->vi[a]].label));
		json_object_set_new(x, "axes", av);
		json_object_set(x, "config", c->config);
		json_object_set_new(x, "config_hash", json_string(c->hash));
		json_array_append_new(cells, x);
	}
	json_object_set_new(o, "cells", cells);
	return o;
}

/* splitmix64: a seeded stream that is the same on every machine */
static uint64_t mix_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

int mx_schedule(const struct mx_exp *e, enum mx_order order, unsigned repeat, uint64_t seed,
		unsigned *cell, unsigned *rep)
{
	unsigned group[MX_MAX_CELLS], n = 0, k = 0;
	uint64_t st = seed;

	/* cells that write a one-way knob run after every other cell: once written, it stays */
	for (int g = 0; g < 2; g++) {
		n = 0;
		for (unsigned i = 0; i < e->ncells; i++)
			if (e->cells[i].one_way == (g == 1))
				group[n++] = i;
		if (!n)
			continue;
		if (order == MX_ORDER_SEQUENTIAL) {
			for (unsigned i = 0; i < n; i++)
				for (unsigned r = 0; r < repeat; r++) {
					cell[k] = group[i];
					rep[k++] = r;
				}
			continue;
		}
		for (unsigned r = 0; r < repeat; r++) {
			unsigned perm[MX_MAX_CELLS];

			for (unsigned i = 0; i < n; i++)
				perm[i] = group[order == MX_ORDER_ROTATED ? (i + r) % n : i];
			if (order == MX_ORDER_INTERLEAVED)
				for (unsigned i = n - 1; i > 0; i--) {
					unsigned j = (unsigned)(mix_next(&st) % (i + 1)), t = perm[i];

					perm[i] = perm[j];
					perm[j] = t;
				}
			for (unsigned i = 0; i < n; i++) {
				cell[k] = perm[i];
				rep[k++] = r;
			}
		}
	}
	return (int)k;
}
