/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --junit of a matrix report (matrix_report_int.h): the answer's primary effects and
 * interactions as JUnit test cases (report/junit.h). */
#include <stdlib.h>
#include <string.h>

#include "core/errmsg.h"
#include "core/outfile.h"
#include "report/junit.h"
#include "report/matrix_report_int.h"

/* ---- --junit: the answer's primary effects and interactions as test cases ---- */

struct junit_ctx {
	const struct an *a;
	struct junit_case *c;
	char **str; /* every string the cases point to, freed together */
	unsigned n, nstr;
	bool oom;
};

static const char *junit_keep(struct junit_ctx *j, const char *s)
{
	char *d = strdup(s);

	if (!d) {
		j->oom = true;
		return NULL;
	}
	j->str[j->nstr++] = d;
	return d;
}

/* The rule (fsbench(1), REPORT): a primary effect decided worse is a failure; an effect or
 * interaction undecided, without values or not tested is skipped, with the reason; every other
 * verdict (better, equivalent, changed for a figure without a direction, an interaction decided
 * either way, no variation) passes. */
static void answer_to_junit(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line)
{
	struct junit_ctx *j = ctx;
	const struct an *a = j->a;
	struct junit_case *c;
	char lab[768], name[1024];
	const char *word;

	if (!t || (k != ANS_EFFECT && k != ANS_INTERACTION) || j->oom)
		return;
	c = &j->c[j->n];
	word = mrep_verdict_word(a, t);
	if (t->kind == EFF_EFFECT)
		mrep_effect_label(a, t, lab, sizeof(lab));
	else
		snprintf(lab, sizeof(lab), "interaction %s x %s", a->m->axis[t->axis].name,
			 a->m->axis[t->axis_b].name);
	snprintf(name, sizeof(name), "%s, %s", a->fig[t->fig]->name, lab);
	c->result = t->kind == EFF_EFFECT && t->v.kind == VD_DIFFERENT && !strcmp(word, "worse")
			    ? JUNIT_FAILURE
		    : t->v.kind == VD_UNDECIDED || t->v.kind == VD_NA || t->v.kind == VD_NOT_TESTED
			    ? JUNIT_SKIPPED
			    : JUNIT_PASS;
	c->classname = junit_keep(j, a->m->name ? a->m->name : "report");
	c->name = junit_keep(j, name);
	c->text = junit_keep(j, line);
	c->message = c->result == JUNIT_PASS	? NULL
		     : !t->v.tested && t->v.why ? junit_keep(j, t->v.why)
						: c->text;
	j->n++;
}

int mrep_write_junit(const struct an *a, const char *path, double secs, char *err, size_t errlen)
{
	struct junit_ctx j = { .a = a };
	const struct junit_suite s = { "fsbench report", a->m->name, a->m->ncells, FSB_VERSION, secs };
	struct outfile *of;
	char e[256];
	int rc;

	j.c = calloc((size_t)a->r.nt + 1, sizeof(*j.c));
	j.str = calloc((size_t)a->r.nt * 4 + 1, sizeof(*j.str));
	if (!j.c || !j.str) {
		rc = errmsg(err, errlen, "out of memory");
		goto out;
	}
	mrep_answer(a, answer_to_junit, &j);
	if (j.oom) {
		rc = errmsg(err, errlen, "out of memory");
		goto out;
	}
	if (!(of = outfile_open(path, OUTFILE_REPLACE, &rc, e, sizeof(e)))) {
		rc = errmsg(err, errlen, "cannot write '%s': %s", path, e);
		goto out;
	}
	junit_write(of->f, &s, j.c, j.n);
	if ((rc = outfile_commit(of)))
		rc = errmsg(err, errlen, "cannot write '%s': %s", path, strerror(-rc));
out:
	for (unsigned i = 0; i < j.nstr; i++)
		free(j.str[i]);
	free(j.str);
	free(j.c);
	return rc;
}
