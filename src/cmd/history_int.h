/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the files of `fsbench history` share (history.c: options, list, show, trend, the
 * dispatch; history_check.c: check and --bisect; history_changes.c: changes; history_fleet.c:
 * import, export): the parsed command line and the helpers that
 * print the same thing the same way. Not for other commands. */
#ifndef FSB_CMD_HISTORY_INT_H
#define FSB_CMD_HISTORY_INT_H
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/hchange.h"
#include "core/stats.h"
#include "core/verdict.h"
#include "report/history.h"

/* --bisect: an error (the database unreadable, a bad option) stops git bisect run, which takes
 * any status from 1 to 127 but 125 as "bad" */
#define HIST_EXIT_ABORT 255

struct hist_config {
	const char *db;
	const char *cell;
	const char *experiment;
	const char *fail_if_worse;
	const char *output;
	const char *junit;
	const char *since;
	const char *config;
	const char *order;       /* changes: "time" or "kernel" */
	const char *baseline;    /* check: the earlier runs' kernel release */
	bool all;
	bool all_hosts;
	bool bisect;
	bool include_flagged;    /* the default since flagged runs stay in; kept for old scripts */
	bool exclude_flagged;
	uint64_t width, height;
	int help;
	/* operands after the command (changes FIGURE..., import DB...) */
	const char *const *args;
	unsigned nargs;
};

/* a unit for display ("ns" as us or ms by ref's size) and its scale */
const char *hist_display(const char *unit, double ref, double *scale);
/* mean [low, high] unit (the mean alone without spread) */
void hist_fmt_mean(const struct stats_summary *s, const char *unit, char *buf, size_t len);
/* rates: harmonic mean; other positive figures but percentages: geometric; percentages: arithmetic */
int hist_summarize(const double *v, unsigned n, bool rate, const char *unit, struct stats_summary *s);
/* a run the statistics take: usable, and not flagged under --exclude-flagged */
bool hist_take(const struct history_val *v, const struct hist_config *c);
/* runs among v[0..n) of exp_id (0: any) and cell (NULL: any): flagged, and of those left out */
void hist_count_flagged(const struct history_val *v, unsigned n, long long exp_id, const char *cell,
			const struct hist_config *c, unsigned *flagged, unsigned *left);
/* "N runs flagged ..., counted" / "... left out (--exclude-flagged)" (nothing when none) */
void hist_say_flagged(FILE *out, unsigned flagged, unsigned left, const char *indent);
/* a verdict's estimate as "x0.702 [0.671, 0.734]" (a difference: "+1.2 [0.3, 2.1]") */
void hist_fmt_effect(const struct vd_test *t, char *buf, size_t len);
/* the selection the options make (keys: none) */
void hist_sel(const struct hist_config *c, struct history_sel *sel);
/* --order: 0, or EXIT_USAGE said */
int hist_check_order(const struct hist_config *c, const char *prog);

/* the changes the options select (history changes and report): the series, the searched ones
 * (hs[i] is s[map[i]]), their changes, the detection's options */
struct hist_found {
	struct history_series *s;
	unsigned ns;
	struct hc_series *hs;
	double **vals;
	unsigned *map, nh;
	struct hc_change *ch;
	unsigned nch;
	struct ediv_opts o;
	bool by_kernel;
	unsigned long_enough;  /* searched series with enough runs for two sides */
	unsigned nflag, nleft; /* runs flagged among the searched series, of them left out */
};
/* 0, or the exit status said */
int hist_found_make(struct history *h, const struct hist_config *c, struct hist_found *f, const char *prog);
void hist_found_free(struct hist_found *f);
/* no series long enough: EXIT_UNSUPPORTED said; else 0 */
int hist_found_nothing(const struct hist_found *f, const char *prog);
/* a figure's family: primary confirmatory, derived none, else exploratory */
enum vd_family hist_family(const struct history_val *v);
/* the environment of two runs where it differs: "kernel A -> B; mount options X -> Y; ..." (the
 * runs' record and what run_env kept of them; "" when the same, and what was not recorded said) */
void hist_env_diff(struct history *h, const struct history_val *last, const struct history_val *first,
		   char *buf, size_t len);

int hist_check(struct history *h, const struct hist_config *c, const char *prog);
int hist_changes(struct history *h, const struct hist_config *c, const char *prog);
int hist_import(struct history *h, const struct hist_config *c, const char *prog);
int hist_export(struct history *h, const struct hist_config *c, const char *prog);
int hist_report(struct history *h, const struct hist_config *c, const char *prog);
/* report -o DIR: missing (made later), or an empty directory of this user's alone, or one an
 * earlier history report wrote (its marker and its files only). 0, or EXIT_USAGE said. */
int hist_report_check_dir(const char *dir, const char *prog);
#endif
