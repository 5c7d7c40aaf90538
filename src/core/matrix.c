/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment model (core/matrix.h): axes, cells, the experiment file, the schedule. */
#include "core/matrix.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/opt.h"
#include "core/quote.h"

static const char *const kind_names[] = {
	[MX_FS] = "fs", [MX_MKFS] = "mkfs", [MX_MOUNT] = "mount", [MX_KNOB] = "knob",
	[MX_BDI_MAX_BYTES] = "bdi-max-bytes", [MX_BDI_STRICT_LIMIT] = "bdi-strict-limit",
	[MX_ARGS] = "args", [MX_TARGET] = "target", [MX_REMOUNT] = "remount",
};
#define NKINDS (sizeof(kind_names) / sizeof(kind_names[0]))

static void fmt(char *err, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *err, size_t len, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vsnprintf(err, len, f, ap);
	va_end(ap);
}

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
		fmt(err, len, "%s '%s': 1 to %d characters, not starting with '.' or '-'", what,
		    quote_str(s, q, sizeof(q)), MX_NAME_MAX);
		return -1;
	}
	for (const char *p = s; *p; p++)
		if (!name_char(*p)) {
			fmt(err, len, "%s '%s': only letters, digits and ._+=,:- are allowed", what,
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
			fmt(err, errlen, "more than %d axes", MX_MAX_AXES);
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
		fmt(err, errlen, "out of memory");
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
		fmt(err, errlen, "axis %s: more than %d values", a->name, MX_MAX_VALUES);
		return -1;
	}
	for (unsigned i = 0; i < a->nvalues; i++)
		if (!strcmp(a->values[i].label, label)) {
			fmt(err, errlen, "axis %s: value '%s' given twice", a->name,
			    quote_str(label, q, sizeof(q)));
			return -1;
		}
	if (strchr(setting, '\n')) {
		fmt(err, errlen, "axis %s: a value cannot hold a newline", a->name);
		return -1;
	}
	v = &a->values[a->nvalues];
	v->label = strdup(label);
	v->setting = strdup(setting);
	v->one_way = one_way;
	if (!v->label || !v->setting) {
		free(v->label);
		free(v->setting);
		fmt(err, errlen, "out of memory");
		return -1;
	}
	a->nvalues++;
	return 0;
}

int mx_split_words(const char *s, char **out, unsigned max, unsigned *n, char *err, size_t errlen)
{
	size_t len = strlen(s);
	char *w = malloc(len + 1);
	unsigned start = *n;

	if (!w) {
		fmt(err, errlen, "out of memory");
		return -1;
	}
	while (*s) {
		size_t k = 0;
		char quote = 0;
		bool word = false;

		while (*s == ' ' || *s == '\t')
			s++;
		for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
			word = true;
			if (quote) {
				if (*s == quote)
					quote = 0;
				else if (*s == '\\' && quote == '"' && (s[1] == '"' || s[1] == '\\'))
					w[k++] = *++s;
				else
					w[k++] = *s;
			} else if (*s == '\'' || *s == '"') {
				quote = *s;
			} else if (*s == '\\' && s[1]) {
				w[k++] = *++s;
			} else {
				w[k++] = *s;
			}
		}
		if (quote) {
			fmt(err, errlen, "unterminated %c quote", quote);
			goto fail;
		}
		if (!word)
			break;
		if (*n == max) {
			fmt(err, errlen, "more than %u words", max);
			goto fail;
		}
		w[k] = '\0';
		if (!(out[*n] = strdup(w))) {
			fmt(err, errlen, "out of memory");
			goto fail;
		}
		(*n)++;
	}
	free(w);
	return 0;
fail:
	while (*n > start)
		free(out[--*n]);
	free(w);
	return -1;
}

/* ---- the experiment file ------------------------------------------------------------------ */

struct ini_state {
	struct mx_exp *e;
	FILE *f;
	unsigned line;
	bool too_long;
	int (*valid)(const char *key);
	char sect[16];           /* experiment, axis, knob, cell, "" for none */
	char sname[256];
	int axis;                /* the section's axis, -1 */
	int listed;              /* the section's listed cell, -1 */
	/* [axis]/[knob] keys kept until the section ends */
	char *labels;            /* axis: labels = ... */
	char *one_way;           /* axis: one-way = values; knob: yes/no */
	char *knob_value;        /* knob: value = */
	bool kind_set;
	unsigned sect_line;      /* where the section began: its errors point there */
	char err[1024];
	unsigned err_line;
};

static int section_end(struct ini_state *s);
static int section_begin(struct ini_state *s, const char *section);

/* inih reads through this so that the handler knows the line (INI_HANDLER_LINENO is off in
 * Debian's build), a line longer than inih's buffer is an error and not two lines, and a
 * section is seen when it begins, keys or not (a listed cell may have none). A section header
 * is recognised as inih does: '[' after blanks, the name up to ']', blanks trimmed. */
static char *mx_ini_read(char *str, int num, void *stream)
{
	struct ini_state *s = stream;
	char *r = fgets(str, num, s->f), *p, *end, name[256];
	size_t l;

	if (!r)
		return NULL;
	s->line++;
	l = strlen(r);
	if (l == (size_t)num - 1 && r[l - 1] != '\n' && !feof(s->f)) {
		s->too_long = true;
		return NULL;
	}
	/* a UTF-8 byte order mark (editors on some systems write one): not part of the first line */
	if (s->line == 1 && !strncmp(r, "\xef\xbb\xbf", 3))
		memmove(r, r + 3, l - 2);
	for (p = r; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '[' && (end = strchr(p, ']')) && !s->err[0]) {
		for (p++; *p == ' ' || *p == '\t'; p++)
			;
		while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		snprintf(name, sizeof(name), "%.*s", (int)(end - p), p);
		if (section_end(s) || !s->err[0])
			section_begin(s, name);
	}
	return r;
}

static int ini_fail(struct ini_state *s, const char *f, ...) __attribute__((format(printf, 2, 3)));
static int ini_fail(struct ini_state *s, const char *f, ...)
{
	va_list ap;

	if (!s->err[0]) {
		va_start(ap, f);
		vsnprintf(s->err, sizeof(s->err), f, ap);
		va_end(ap);
		s->err_line = s->line;
	}
	return 0;
}

static bool yes(const char *v, bool *out)
{
	if (!strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

static int set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = strdup(v);
	return *dst ? 0 : -1;
}

/* The end of an [axis] or [knob] section: labels and one-way apply to the values now known. */
static int section_end(struct ini_state *s)
{
	struct mx_exp *e = s->e;
	char err[512];
	unsigned line = s->line;
	int rc = 0;

	s->line = s->sect_line;
	if (s->axis >= 0) {
		struct mx_axis *a = &e->axes[s->axis];

		if (!strcmp(s->sect, "target")) {
			if (!s->knob_value)
				rc = ini_fail(s, "[target %s]: no dir = DIR", s->labels);
			else if (mx_value_add(e, (unsigned)s->axis, s->labels, s->knob_value, false, err, sizeof(err)))
				rc = ini_fail(s, "%s", err);
			else
				rc = 1;
		} else if (!strcmp(s->sect, "knob")) {
			bool ow = false;

			if (!a->knob) {
				rc = ini_fail(s, "[knob %s]: no path = FILE", a->name);
			} else if (!s->knob_value) {
				rc = ini_fail(s, "[knob %s]: no value = ...", a->name);
			} else if (s->one_way && !yes(s->one_way, &ow)) {
				rc = ini_fail(s, "[knob %s]: one-way = yes or no", a->name);
			} else if (mx_value_add(e, (unsigned)s->axis, NULL, s->knob_value, ow, err, sizeof(err))) {
				rc = ini_fail(s, "%s", err);
			} else {
				rc = 1;
			}
		} else {
			char *words[MX_MAX_VALUES];
			unsigned n = 0;

			rc = 1;
			if (!s->kind_set)
				rc = ini_fail(s, "[axis %s]: what does it vary? (an axis named fs, mkfs, mount, "
					      "args, bdi-max-bytes or bdi-strict-limit, or kind = ..., or knob = PATH)",
					      a->name);
			if (rc && s->labels) {
				if (mx_split_words(s->labels, words, MX_MAX_VALUES, &n, err, sizeof(err))) {
					rc = ini_fail(s, "[axis %s]: labels: %s", a->name, err);
				} else if (n != a->nvalues) {
					rc = ini_fail(s, "[axis %s]: %u labels for %u values", a->name, n, a->nvalues);
				} else {
					for (unsigned i = 0; i < n && rc; i++) {
						for (unsigned j = 0; j < i; j++)
							if (!strcmp(words[i], words[j]))
								rc = ini_fail(s, "[axis %s]: label '%s' given twice",
									      a->name, words[i]);
						if (rc && set_str(&a->values[i].label, words[i]))
							rc = ini_fail(s, "out of memory");
					}
				}
				while (n)
					free(words[--n]);
			}
			if (rc && s->one_way) {
				if (mx_split_words(s->one_way, words, MX_MAX_VALUES, &n, err, sizeof(err)))
					rc = ini_fail(s, "[axis %s]: one-way: %s", a->name, err);
				for (unsigned i = 0; rc && i < n; i++) {
					unsigned v;

					for (v = 0; v < a->nvalues && strcmp(a->values[v].setting, words[i]) &&
						    strcmp(a->values[v].label, words[i]); v++)
						;
					if (v == a->nvalues)
						rc = ini_fail(s, "[axis %s]: one-way value '%s' is not one of its values",
							      a->name, words[i]);
					else
						a->values[v].one_way = true;
				}
				while (n)
					free(words[--n]);
			}
			if (rc && s->one_way && a->kind != MX_KNOB)
				rc = ini_fail(s, "[axis %s]: one-way applies to knob axes only", a->name);
			if (rc && !a->nvalues)
				rc = ini_fail(s, "[axis %s]: no values", a->name);
			if (rc && a->kind == MX_KNOB && !a->knob)
				rc = ini_fail(s, "[axis %s]: a knob axis needs knob = PATH", a->name);
		}
	}
	free(s->labels);
	free(s->one_way);
	free(s->knob_value);
	s->labels = s->one_way = s->knob_value = NULL;
	s->axis = s->listed = -1;
	s->kind_set = false;
	s->line = line;
	return rc;
}

static int section_begin(struct ini_state *s, const char *section)
{
	struct mx_exp *e = s->e;
	const char *sp = strchr(section, ' ');
	char err[512];

	snprintf(s->sname, sizeof(s->sname), "%s", section);
	s->sect_line = s->line;
	s->sect[0] = '\0';
	if (!strcmp(section, "experiment")) {
		snprintf(s->sect, sizeof(s->sect), "experiment");
		return 1;
	}
	if (!sp || sp - section > 10)
		return ini_fail(s, "[%s]: unknown section (experiment, axis NAME, knob NAME, cell NAME, "
				"target NAME)", section);
	snprintf(s->sect, sizeof(s->sect), "%.*s", (int)(sp - section), section);
	while (*sp == ' ')
		sp++;
	if (!strcmp(s->sect, "axis") || !strcmp(s->sect, "knob")) {
		int kind = !strcmp(s->sect, "knob") ? MX_KNOB : mx_kind_parse(sp);
		int a;

		for (unsigned i = 0; i < e->naxes; i++)
			if (!strcmp(e->axes[i].name, sp))
				return ini_fail(s, "[%s]: axis %s is defined twice", section, sp);
		/* an axis named after a kind has that kind until kind = says otherwise */
		if ((a = mx_axis_add(e, sp, kind < 0 ? MX_KNOB : (enum mx_kind)kind, NULL, err, sizeof(err))) < 0)
			return ini_fail(s, "[%s]: %s", section, err);
		s->axis = a;
		s->kind_set = kind >= 0;
		return 1;
	}
	if (!strcmp(s->sect, "target")) {
		char err2[512];
		int a = mx_target_axis(e);

		if (name_check("target", sp, err2, sizeof(err2)))
			return ini_fail(s, "[%s]: %s", section, err2);
		/* every [target] section adds a value to the one axis "target" */
		if (a < 0 && (a = mx_axis_add(e, "target", MX_TARGET, NULL, err, sizeof(err))) < 0)
			return ini_fail(s, "[%s]: %s", section, err);
		for (unsigned v = 0; v < e->axes[a].nvalues; v++)
			if (!strcmp(e->axes[a].values[v].label, sp))
				return ini_fail(s, "[%s]: target %s is defined twice", section, sp);
		s->axis = a;
		return set_str(&s->labels, sp) ? ini_fail(s, "out of memory") : 1;
	}
	if (!strcmp(s->sect, "cell")) {
		struct mx_listed *l;
		char err2[512];

		if (name_check("cell", sp, err2, sizeof(err2)))
			return ini_fail(s, "[%s]: %s", section, err2);
		for (unsigned i = 0; i < e->nlisted; i++)
			if (!strcmp(e->listed[i].name, sp))
				return ini_fail(s, "[%s]: cell %s is listed twice", section, sp);
		if (e->nlisted == MX_MAX_CELLS)
			return ini_fail(s, "more than %d cells", MX_MAX_CELLS);
		l = &e->listed[e->nlisted];
		memset(l, 0, sizeof(*l));
		if (!(l->name = strdup(sp)))
			return ini_fail(s, "out of memory");
		l->line = s->line;
		s->listed = (int)e->nlisted++;
		return 1;
	}
	return ini_fail(s, "[%s]: unknown section (experiment, axis NAME, knob NAME, cell NAME, target NAME)",
			section);
}

static int key_experiment(struct ini_state *s, const char *key, const char *value)
{
	struct mx_exp *e = s->e;
	int v;
	char opt[1100], q[QUOTE_MAX], err[512];

	if (!strcmp(key, "name")) {
		if (name_check("experiment name", value, err, sizeof(err)))
			return ini_fail(s, "%s", err);
		return set_str(&e->name, value) ? ini_fail(s, "out of memory") : 1;
	}
	if (!strcmp(key, "workload"))
		return set_str(&e->workload, value) ? ini_fail(s, "out of memory") : 1;
	if (!strcmp(key, "args")) {
		/* several args lines add up (a long command over lines) */
		if (mx_split_words(value, e->args, MX_MAX_ARGS, &e->nargs, err, sizeof(err)))
			return ini_fail(s, "args: %s", err);
		return 1;
	}
	v = s->valid ? s->valid(key) : -1;
	if (v < 0)
		return ini_fail(s, "[experiment]: unknown key '%s'", quote_str(key, q, sizeof(q)));
	if (v == 0) {
		bool on;

		if (!yes(value, &on))
			return ini_fail(s, "%s: '%s' is not yes or no", key, quote_str(value, q, sizeof(q)));
		if (!on)
			return 1;
		snprintf(opt, sizeof(opt), "--%s", key);
	} else {
		snprintf(opt, sizeof(opt), "--%s=%s", key, value);
	}
	if (e->nopts == MX_MAX_INI_OPTS)
		return ini_fail(s, "more than %d [experiment] keys", MX_MAX_INI_OPTS);
	if (!(e->opts[e->nopts] = strdup(opt)))
		return ini_fail(s, "out of memory");
	e->opt_line[e->nopts++] = s->line;
	return 1;
}

static int key_axis(struct ini_state *s, const char *key, const char *value)
{
	struct mx_exp *e = s->e;
	struct mx_axis *a = &e->axes[s->axis];
	char err[512], *words[MX_MAX_VALUES];
	unsigned n = 0;
	int rc = 1;

	if (!strcmp(key, "kind")) {
		int k = mx_kind_parse(value);

		if (k < 0)
			return ini_fail(s, "[axis %s]: kind '%s': fs, mkfs, mount, knob, bdi-max-bytes, "
					"bdi-strict-limit or args", a->name, value);
		a->kind = (enum mx_kind)k;
		s->kind_set = true;
		return 1;
	}
	if (!strcmp(key, "knob")) {
		if (s->kind_set && a->kind != MX_KNOB)
			return ini_fail(s, "[axis %s]: knob = PATH on a %s axis", a->name, mx_kind_name(a->kind));
		a->kind = MX_KNOB;
		s->kind_set = true;
		return set_str(&a->knob, value) ? ini_fail(s, "out of memory") : 1;
	}
	if (!strcmp(key, "value")) {
		if (mx_value_add(e, (unsigned)s->axis, NULL, value, false, err, sizeof(err)))
			return ini_fail(s, "%s", err);
		return 1;
	}
	if (!strcmp(key, "values")) {
		if (mx_split_words(value, words, MX_MAX_VALUES, &n, err, sizeof(err)))
			return ini_fail(s, "[axis %s]: values: %s", a->name, err);
		for (unsigned i = 0; i < n && rc; i++)
			if (mx_value_add(e, (unsigned)s->axis, NULL, words[i], false, err, sizeof(err)))
				rc = ini_fail(s, "%s", err);
		while (n)
			free(words[--n]);
		return rc;
	}
	if (!strcmp(key, "labels"))
		return set_str(&s->labels, value) ? ini_fail(s, "out of memory") : 1;
	if (!strcmp(key, "one-way"))
		return set_str(&s->one_way, value) ? ini_fail(s, "out of memory") : 1;
	return ini_fail(s, "[axis %s]: unknown key '%s' (kind, knob, value, values, labels, one-way)",
			a->name, key);
}

static int key_knob(struct ini_state *s, const char *key, const char *value)
{
	struct mx_axis *a = &s->e->axes[s->axis];

	if (!strcmp(key, "path"))
		return set_str(&a->knob, value) ? ini_fail(s, "out of memory") : 1;
	if (!strcmp(key, "value"))
		return set_str(&s->knob_value, value) ? ini_fail(s, "out of memory") : 1;
	if (!strcmp(key, "one-way"))
		return set_str(&s->one_way, value) ? ini_fail(s, "out of memory") : 1;
	return ini_fail(s, "[knob %s]: unknown key '%s' (path, value, one-way)", a->name, key);
}

static int key_cell(struct ini_state *s, const char *key, const char *value)
{
	struct mx_listed *l = &s->e->listed[s->listed];

	for (unsigned i = 0; i < l->n; i++)
		if (!strcmp(l->key[i], key))
			return ini_fail(s, "[cell %s]: axis %s given twice", l->name, key);
	if (l->n == MX_MAX_AXES)
		return ini_fail(s, "[cell %s]: more than %d axes", l->name, MX_MAX_AXES);
	l->key[l->n] = strdup(key);
	l->label[l->n] = strdup(value);
	if (!l->key[l->n] || !l->label[l->n]) {
		free(l->key[l->n]);
		free(l->label[l->n]);
		return ini_fail(s, "out of memory");
	}
	l->n++;
	return 1;
}

static int mx_ini_key(void *user, const char *section, const char *key, const char *value)
{
	struct ini_state *s = user;

	if (s->err[0])
		return 0;
	if (!*section)
		return ini_fail(s, "a key before any [section]");
	if (!s->sect[0] || strcmp(section, s->sname))
		return 0;    /* a section the reader refused: said already */
	if (!strcmp(s->sect, "experiment"))
		return key_experiment(s, key, value);
	if (!strcmp(s->sect, "axis"))
		return key_axis(s, key, value);
	if (!strcmp(s->sect, "knob"))
		return key_knob(s, key, value);
	if (!strcmp(s->sect, "target")) {
		if (strcmp(key, "dir"))
			return ini_fail(s, "[target %s]: unknown key '%s' (dir)", s->labels, key);
		return set_str(&s->knob_value, value) ? ini_fail(s, "out of memory") : 1;
	}
	return key_cell(s, key, value);
}

int mx_ini_load(struct mx_exp *e, const char *path, int (*valid)(const char *key), char *err,
		size_t errlen)
{
	struct ini_state s = { .e = e, .valid = valid, .axis = -1, .listed = -1 };
	char q[QUOTE_MAX];
	int rc;

	quote_str(path, q, sizeof(q));
	if (!(s.f = fopen(path, "r"))) {
		rc = -errno;
		fmt(err, errlen, "cannot read experiment file '%s': %s", q, strerror(errno));
		return rc;
	}
	if (set_str(&e->file, path)) {
		fclose(s.f);
		fmt(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = ini_parse_stream(mx_ini_read, &s, mx_ini_key, &s);
	if (ferror(s.f) && !s.err[0]) {
		fmt(err, errlen, "cannot read experiment file '%s': %s", q, strerror(errno));
		fclose(s.f);
		return -EIO;
	}
	fclose(s.f);
	if (s.too_long && !s.err[0]) {
		s.err_line = s.line;
		snprintf(s.err, sizeof(s.err), "line longer than %d characters (continue a value on "
			 "indented lines)", INI_MAX_LINE - 2);
	}
	if (!s.err[0] && !rc)
		section_end(&s);
	/* inih's first error line: a syntax error before ours is the one to say */
	if (rc > 0 && (!s.err[0] || (unsigned)rc < s.err_line)) {
		s.err_line = (unsigned)rc;
		snprintf(s.err, sizeof(s.err), "not a [section] or key = value line");
	}
	free(s.labels);
	free(s.one_way);
	free(s.knob_value);
	if (s.err[0]) {
		fmt(err, errlen, "%s:%u: %s", q, s.err_line, s.err);
		return -EINVAL;
	}
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

/* One cell's effective configuration, from its axis values and what every cell shares. */
static int cell_resolve(struct mx_exp *e, struct mx_cell *c,
			int (*mkfs_argv)(const char *, const char *, char **, unsigned, char *, size_t),
			char *err, size_t errlen)
{
	json_t *cfg, *knobs, *args, *mk;
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
	for (unsigned a = 0; a < e->naxes; a++) {
		const struct mx_axis *ax = &e->axes[a];
		const struct mx_value *v = &ax->values[c->vi[a]];
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
					fmt(err, errlen, "cell %s: knob %s is set by two axes", c->name, ax->knob);
					return -1;
				}
			c->knobs[c->nknobs++] = (struct mx_knob){ ax->knob, set, v->one_way };
			c->one_way |= v->one_way;
			break;
		case MX_BDI_MAX_BYTES:
			if (opt_parse_size(set, 1, true, &u)) {
				fmt(err, errlen, "axis %s: '%s' is not a size", ax->name, set);
				return -1;
			}
			c->bdi_max_set = true;
			c->bdi_max_bytes = u;
			break;
		case MX_BDI_STRICT_LIMIT:
			if (opt_parse_uint(set, &u) || u > 1) {
				fmt(err, errlen, "axis %s: '%s' is not 0 or 1", ax->name, set);
				return -1;
			}
			c->bdi_strict_set = true;
			c->bdi_strict_limit = (unsigned)u;
			break;
		case MX_ARGS:
			if (mx_split_words(set, c->args, MX_MAX_ARGS, &c->nargs, err, errlen))
				return -1;
			break;
		}
	}
	/* an existing target is not made: no mkfs command */
	if ((n = c->target_dir ? 0 : mkfs_argv(c->fs, c->mkfs_opts, argv, MX_MAX_ARGS, err, errlen)) < 0) {
		char why[1024];

		snprintf(why, sizeof(why), "%s", err ? err : "");
		fmt(err, errlen, "cell %s: %s", c->name, why);
		return -1;
	}
	cfg = json_object();
	knobs = json_array();
	args = json_array();
	mk = json_array();
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
	if (!(s = json_dumps(cfg, JSON_COMPACT | JSON_SORT_KEYS))) {
		json_decref(cfg);
		goto oom;
	}
	mx_hash(s, strlen(s), c->hash);
	free(s);
	c->config = cfg;
	return 0;
oom:
	fmt(err, errlen, "out of memory");
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

int mx_finish(struct mx_exp *e, int (*mkfs_argv)(const char *, const char *, char **, unsigned, char *, size_t),
	      char *err, size_t errlen)
{
	unsigned nfs = 0, vi[MX_MAX_AXES] = { 0 };
	char q[QUOTE_MAX];

	if (!e->workload) {
		fmt(err, errlen, "no workload: give one after '--' (-- tiotest -t 1 ...) or workload = in [experiment]");
		return -1;
	}
	for (unsigned a = 0; a < e->naxes; a++) {
		const struct mx_axis *ax = &e->axes[a];

		if (!ax->nvalues) {
			fmt(err, errlen, "axis %s has no values", ax->name);
			return -1;
		}
		nfs += ax->kind == MX_FS;
		if (ax->kind == MX_KNOB && !ax->knob) {
			fmt(err, errlen, "axis %s: a knob axis needs knob = PATH", ax->name);
			return -1;
		}
		for (unsigned v = 0; v < ax->nvalues; v++)
			if (ax->values[v].one_way && ax->kind == MX_KNOB) {
				for (unsigned w = 0; w < ax->nvalues; w++)
					if (w != v && ax->values[w].one_way) {
						fmt(err, errlen, "axis %s: two one-way values (%s, %s): once one is "
						    "written the other cannot follow", ax->name,
						    ax->values[v].label, ax->values[w].label);
						return -1;
					}
			}
	}
	if (nfs > 1) {
		fmt(err, errlen, "more than one fs axis");
		return -1;
	}
	if (e->nlisted) {
		for (unsigned i = 0; i < e->nlisted; i++) {
			const struct mx_listed *l = &e->listed[i];
			struct mx_cell *c = &e->cells[e->ncells];

			memset(c, 0, sizeof(*c));
			for (unsigned k = 0; k < l->n; k++) {
				unsigned a, v;

				for (a = 0; a < e->naxes && strcmp(e->axes[a].name, l->key[k]); a++)
					;
				if (a == e->naxes) {
					fmt(err, errlen, "cell %s: no axis named %s", l->name,
					    quote_str(l->key[k], q, sizeof(q)));
					return -1;
				}
				for (v = 0; v < e->axes[a].nvalues && strcmp(e->axes[a].values[v].label, l->label[k]); v++)
					;
				if (v == e->axes[a].nvalues) {
					fmt(err, errlen, "cell %s: axis %s has no value '%s'", l->name, l->key[k],
					    quote_str(l->label[k], q, sizeof(q)));
					return -1;
				}
				c->vi[a] = v + 1;    /* 0: not given */
			}
			for (unsigned a = 0; a < e->naxes; a++) {
				if (!c->vi[a] && e->axes[a].nvalues > 1) {
					fmt(err, errlen, "cell %s: no value for axis %s", l->name, e->axes[a].name);
					return -1;
				}
				c->vi[a] = c->vi[a] ? c->vi[a] - 1 : 0;
			}
			if (!(c->name = strdup(l->name))) {
				fmt(err, errlen, "out of memory");
				return -1;
			}
			e->ncells++;
		}
	} else {
		for (;;) {
			struct mx_cell *c;
			unsigned a;

			if (e->ncells == MX_MAX_CELLS) {
				fmt(err, errlen, "more than %d cells", MX_MAX_CELLS);
				return -1;
			}
			c = &e->cells[e->ncells];
			memset(c, 0, sizeof(*c));
			memcpy(c->vi, vi, sizeof(vi));
			if (product_name(e, vi, &c->name)) {
				fmt(err, errlen, "out of memory");
				return -1;
			}
			e->ncells++;
			/* the last axis varies fastest */
			for (a = e->naxes; a-- > 0;) {
				if (++vi[a] < e->axes[a].nvalues)
					break;
				vi[a] = 0;
			}
			if (a == (unsigned)-1 || !e->naxes)
				break;
		}
	}
	for (unsigned i = 0; i < e->ncells; i++) {
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(e->cells[i].name, e->cells[j].name)) {
				fmt(err, errlen, "two cells are named %s (labels that differ only in characters "
				    "a name cannot hold: give labels = in the file)", e->cells[i].name);
				return -1;
			}
		if (cell_resolve(e, &e->cells[i], mkfs_argv, err, errlen))
			return -1;
	}
	/* the one-way group must agree on its one-way values: each knob written once */
	for (unsigned i = 0; i < e->ncells; i++)
		for (unsigned j = 0; j < i; j++)
			for (unsigned a = 0; a < e->naxes; a++) {
				const struct mx_axis *ax = &e->axes[a];
				const struct mx_value *x = &ax->values[e->cells[i].vi[a]],
						      *y = &ax->values[e->cells[j].vi[a]];

				if (e->cells[i].one_way && e->cells[j].one_way && ax->kind == MX_KNOB &&
				    (x->one_way || y->one_way) && x != y) {
					fmt(err, errlen, "cells %s and %s: knob %s is one-way in one of them and "
					    "differs: after a one-way write it cannot change again", e->cells[j].name,
					    e->cells[i].name, ax->knob);
					return -1;
				}
			}
	return 0;
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
