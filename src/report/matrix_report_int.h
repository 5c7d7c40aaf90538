/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the parts of a matrix directory's report share (matrix_report.h is the interface):
 * matrix_report.c analyses and puts it together (numbers as people read them, the answer, the
 * plots, the terminal), matrix_summary.c writes summary.json, matrix_doc.c report.md and
 * report.html, matrix_junit.c the --junit file. */
#ifndef FSB_REPORT_MATRIX_REPORT_INT_H
#define FSB_REPORT_MATRIX_REPORT_INT_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/effects.h"
#include "report/doc.h"
#include "report/matrix_read.h"
#include "report/matrix_report.h"

#define MAX_SHOWN 8 /* significant effects on the terminal */

/* the analysis' inputs and results, shared by the writers below */
struct an {
	const struct mx *m;
	const struct matrix_report_opts *o;
	unsigned nfig;
	const struct rr_figure **fig; /* [nfig]: each figure's declaration, from the first cell having it */
	struct eff_figure *ef;
	unsigned *cell_value;
	const double **v;
	unsigned *n;
	unsigned **round;    /* [cell]: each used run's round; NULL when not in rounds */
	const char *primary; /* --primary, else the run's; NULL: the declared figures */
	double equiv_pct;    /* --equivalence, else the run's, else VD_EQUIV_PCT */
	struct eff_result r;
	unsigned nsig, nsig_eff, nsig_ia, ntested_ia; /* decided better/worse (or an interaction) */
	unsigned npaired, nunpaired;		      /* tested, paired by round or not */
	bool incomplete;			      /* some test wanted pairing and had incomplete rounds */
};

enum answer_kind { ANS_EFFECT, ANS_INTERACTION, ANS_EXPLORATORY, ANS_DISAGREE };

/* One line of the answer; t the test behind it (NULL for a disagreement's line). */
typedef void answer_fn(void *ctx, enum answer_kind k, const struct eff_test *t, const char *line);

struct plot_buf {
	char *svg;
	size_t svg_len;
	bool ok;
};

void mrep_answer(const struct an *a, answer_fn *fn, void *ctx);
const char *mrep_better_name(enum rr_dir d);
const char *mrep_cell_name(const struct an *a, unsigned c);
const char *mrep_disp_unit(const char *unit, double ref, double *scale);
void mrep_effect_label(const struct an *a, const struct eff_test *t, char *buf, size_t len);
void mrep_fmt_cell(const struct an *a, unsigned c, unsigned f, double sc, char *buf, size_t len);
void mrep_fmt_estimate(const struct an *a, const struct eff_test *t, char *buf, size_t len);
void mrep_fmt_how(const struct eff_test *t, char *buf, size_t len);
void mrep_fmt_p(double p, char *buf, size_t len);
void mrep_fmt_val(const struct rr_figure *f, double v, char *buf, size_t len, bool unit);
void mrep_interaction_words(const struct an *a, const struct eff_test *t, char *buf, size_t len);
const struct eff_test *mrep_test_vs_first(const struct an *a, unsigned c, unsigned f);
const char *mrep_verdict_word(const struct an *a, const struct eff_test *t);
json_t *mrep_summary_json(const struct an *a);
void mrep_write_doc(struct doc *d, const struct an *a, const struct plot_buf *cmp,
		    const struct plot_buf *fill, const struct plot_buf *after);
int mrep_write_junit(const struct an *a, const char *path, double secs, char *err, size_t errlen);
#endif
