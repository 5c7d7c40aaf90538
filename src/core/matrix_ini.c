/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The experiment file (core/matrix.h: mx_ini_load): libinih reads the lines, the sections and
 * keys become the experiment's axes, listed cells and options, every error with its line. */
#include "core/matrix.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/quote.h"
#include "core/words.h"

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

/* The end of an [axis] section: its kind known, labels and one-way applied to its values. */
static int axis_end(struct ini_state *s, struct mx_axis *a)
{
	char err[512], *words[MX_MAX_VALUES];
	unsigned n = 0;
	int rc = 1;

	if (!s->kind_set)
		rc = ini_fail(s, "[axis %s]: what does it vary? (an axis named fs, mkfs, mount, "
			      "args, bdi-max-bytes or bdi-strict-limit, or kind = ..., or knob = PATH)",
			      a->name);
	if (rc && s->labels) {
		if (words_split(s->labels, words, MX_MAX_VALUES, &n, err, sizeof(err))) {
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
		if (words_split(s->one_way, words, MX_MAX_VALUES, &n, err, sizeof(err)))
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
	return rc;
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
			rc = axis_end(s, a);
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

		if (mx_name_check("target", sp, err2, sizeof(err2)))
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

		if (mx_name_check("cell", sp, err2, sizeof(err2)))
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
		if (mx_name_check("experiment name", value, err, sizeof(err)))
			return ini_fail(s, "%s", err);
		return set_str(&e->name, value) ? ini_fail(s, "out of memory") : 1;
	}
	if (!strcmp(key, "workload"))
		return set_str(&e->workload, value) ? ini_fail(s, "out of memory") : 1;
	if (!strcmp(key, "args")) {
		/* several args lines add up (a long command over lines) */
		if (words_split(value, e->args, MX_MAX_ARGS, &e->nargs, err, sizeof(err)))
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
		if (words_split(value, words, MX_MAX_VALUES, &n, err, sizeof(err)))
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
		snprintf(err, errlen, "cannot read experiment file '%s': %s", q, strerror(errno));
		return rc;
	}
	if (set_str(&e->file, path)) {
		fclose(s.f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = ini_parse_stream(mx_ini_read, &s, mx_ini_key, &s);
	if (ferror(s.f) && !s.err[0]) {
		snprintf(err, errlen, "cannot read experiment file '%s': %s", q, strerror(errno));
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
		snprintf(err, errlen, "%s:%u: %s", q, s.err_line, s.err);
		return -EINVAL;
	}
	return 0;
}
