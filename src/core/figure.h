/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A figure declared once, as data: its key, unit, which direction is better, and how it
 * combines over repeated runs (and iterations) and over processes. A workload declares its
 * figures in one table; it computes their values once, from raw counters, into an array
 * indexed like the table. The JSON writer, the text reports, the result reader (compare,
 * plot) and the --repeat summary iterate the same table: none of them knows a figure by name.
 *
 * Aggregation. Runs that each do the same work: rates combine with the harmonic mean (total
 * work over total time), times and percentages with the arithmetic mean. Processes (MPI ranks,
 * merged results) doing work side by side: counts and rates add up, wall times take the
 * maximum, latency figures are recomputed from the merged histogram (FIG_HIST), percentages
 * of a window are recomputed from the merged counters (FIG_RECOMPUTE). */
#ifndef FSB_CORE_FIGURE_H
#define FSB_CORE_FIGURE_H
#include <stdbool.h>
#include <stddef.h>

enum fig_dir { FIG_NEUTRAL, FIG_HIGHER_BETTER, FIG_LOWER_BETTER };

enum fig_agg {
	FIG_MEAN,                /* arithmetic mean */
	FIG_HMEAN,               /* harmonic mean: a rate of equal amounts of work */
	FIG_SUM,
	FIG_MAX,
	FIG_HIST,                /* recomputed from the merged latency histogram */
	FIG_RECOMPUTE,           /* recomputed from the merged raw counters */
};

enum {
	FIG_KEY = 1u << 0,       /* one of the few figures plot --type compare draws */
	FIG_OPTIONAL = 1u << 1,  /* absent from some groups or older results */
	FIG_NOCOMPARE = 1u << 2, /* written and shown (the classic tables) but not compared: a
				  * figure that is 0 in nearly every result (tiotest's % > 2 s) */
	FIG_PRIMARY = 1u << 3,   /* a primary figure: its effects and interactions form the
				  * confirmatory family of an experiment (core/verdict.h) */
	FIG_DERIVED = 1u << 4,   /* derived from, or a duplicate of, another figure (IOPS from
				  * the rate): shown, never tested */
};

struct figure {
	const char *key;         /* stable id across results: "latency_p99_ns" (readers prefix the
				  * group: "write.latency_p99_ns") */
	const char *path;        /* where the JSON holds it, a dotted path inside its group or run:
				  * "latency.p99_ns" */
	const char *name;        /* for people: "latency p99" */
	const char *unit;        /* "MiB/s", "IOPS", "%", "ns", "files/s" */
	enum fig_dir dir;
	enum fig_agg over_runs;  /* --repeat, fs_mark iterations */
	enum fig_agg over_procs; /* processes side by side */
	unsigned flags;
};

/* A workload's figure tables: per run, and per group (tiotest's phases) or per iteration
 * (fs_mark's rows, reduced over a run's iterations with over_runs). */
struct figure_set {
	const struct figure *run;
	unsigned nrun;
	const struct figure *group;  /* each element of the run's `groups` array */
	unsigned ngroup;
	const char *groups;          /* "phases"; NULL for none */
	const struct figure *iter;   /* each element of the run's `iters` array */
	unsigned niter;
	const char *iters;           /* "iterations"; NULL for none */
	size_t run_values_off;       /* where a run result keeps its nrun values (double[nrun]) */
};

/* The same, one value at a time (a reader that streams thousands of iterations). */
struct figure_acc {
	double sum, rsum, max;
	unsigned n;
	bool nonpos;
};
void figure_acc_add(struct figure_acc *a, double v);     /* NAN is left out */
double figure_acc_value(const struct figure_acc *a, enum fig_agg agg);   /* NAN when empty */
/* Combines v[0..n-1] as agg says (FIG_HIST and FIG_RECOMPUTE: the mean, for callers that only
 * have the values). NAN values are left out; NAN when none is left. */
double figure_combine(enum fig_agg agg, const double *v, unsigned n);
/* A rate is averaged over runs with the harmonic mean. */
static inline bool figure_is_rate(const struct figure *f)
{
	return f->over_runs == FIG_HMEAN;
}
#endif
