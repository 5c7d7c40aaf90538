/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading fsbench results back: any result file (tiotest, fs_mark; one run or --repeat's
 * "runs") becomes one in-memory model: workload, name, the facts that describe the run
 * (config, environment, command line) and, per run, named figures with unit and direction,
 * plus merged latency histograms and time series for plots.
 *
 * Result files are outside input: every field is checked for type and range, sizes are
 * bounded (file, runs, elements), strings are made printable, and any problem is one line in
 * err naming where in the file it is ("runs[2].phases[1].latency: field 'count' ..."). */
#ifndef FSB_REPORT_RESULT_READ_H
#define FSB_REPORT_RESULT_READ_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"

/* Loading takes about 5 times the file's size in memory (jansson's tree). fsbench's own results
 * stay far below: an fs_mark iteration is a few KiB since schema 2 (percentiles per iteration,
 * buckets per run), so even a fill of 100,000 iterations is some 500 MiB. */
#define RR_MAX_FILE_BYTES (UINT64_C(1) << 30)
#define RR_MAX_RUNS 1000
#define RR_MAX_FIGURES 4096
#define RR_MAX_GROUPS 64          /* phases, op types */
#define RR_MAX_ELEMS 1000000      /* iterations, intervals per run */
#define RR_MAX_FACTS 512

enum rr_dir { RR_NEUTRAL, RR_HIGHER_BETTER, RR_LOWER_BETTER };

/* Where a workload keeps its parts in its result, beyond the declared figures: declared by the
 * workload's presentation (struct workload_report's layout), read here. Every field may be
 * NULL/false; a workload without a layout has its run figures and "complete" only. */
struct rr_layout {
	const char *groups;	     /* array of objects with a "name": tiotest phases */
	const char *group_lat;	     /* latency object in each group (plots) */
	const char *group_intervals; /* time series in each group (optional): one series each */
	const char *iters;	     /* array reduced per run: fs_mark iterations */
	/* time series in each iteration (optional): one series per run, named iter_series, the
	 * iterations end to end (fs_mark's create loops) */
	const char *iter_intervals, *iter_series;
	const char *iter_wall; /* an iteration's create-loop time, when it has no samples */
	/* what a time series' y is: ops per second (files/s), else MiB/s from the bytes; and the
	 * words plots use for its axes (struct rr_result's timeline_*) */
	bool series_y_ops;
	const char *series_y, *series_unit, *series_x;
	/* object op name -> latency, in each iteration: with the buckets in schema 1, percentiles
	 * only from schema 2, where run_lats in the run has the buckets */
	const char *iter_lats, *run_lats;
	const char *iter_lat_key_fig;	       /* that op's p99 is a key figure ("create") */
	const char *fill_x, *fill_x2, *fill_y; /* per iteration: the fill curve */
	const char *fill_y2;		       /* ... and a second y, optional (NAN where absent) */
	const char *fill_agg, *fill_overhead;  /* ... and its optional columns (NaN when absent) */
	const char *complete_field;	       /* boolean in the run ... */
	const char *end_field;		       /* ... or a string, complete when one of: */
	const char *const *end_ok;
};

struct rr_figure {
	char key[96];             /* stable id across results: "write.rate_mib_per_s" */
	char name[96];            /* for people: "write rate" */
	const char *unit;         /* "MiB/s", "IOPS", "%", "ns", "files/s" */
	enum rr_dir dir;
	bool rate;                /* same work per run: averaged with the harmonic mean */
	bool key_fig;             /* one of the few figures plot --type compare draws */
	bool primary;             /* declared primary (FIG_PRIMARY): the confirmatory family */
	bool derived;             /* derived or duplicate (FIG_DERIVED): never tested */
	double *v;                /* per run; NAN where that run lacks the figure */
};

/* A curve of one run: timeline (x: s, y: in the result's timeline_unit, x2: ops/s) or fs_mark
 * fill (x: FSUse%, x2: Count, y: files/s). tiotest's timeline has one series per phase (x: s
 * since the phase start, y: MiB/s); fs_mark's one "create" series per run, the iterations'
 * create loops end to end (x: s of create-loop time, y: files created per second). */
struct rr_series {
	char name[48];            /* phase, "create" or "fill" */
	unsigned run;
	unsigned n;
	double *x, *x2, *y;
	double *y2;               /* fill: fs_mark --layout's extents per file, NAN where absent */
	double *agg, *overhead_ns;   /* fill only: fs_mark's aggregate files/s and app overhead (ns)
				      * per iteration, NaN where the result lacks them; else NULL */
};

/* latency of one phase or op type, merged over every run (and fs_mark iteration) */
struct rr_lat {
	char name[48];
	struct hist *h;
};

struct rr_shown {
	char key[96];             /* "write.latency_over_2s_pct", "total.latency_over_2s_pct" */
	unsigned run;
	double v;
};

struct rr_warn {
	char id[40];              /* "cache_absorbed_writes", "short_phase", ... */
	char msg[320];            /* the first phase's message */
	unsigned run;
	unsigned phases, of;      /* phases (iterations) with it, of the run's */
};

struct rr_coverage {
	char key[96];             /* the figure: "layout_extents_per_file" */
	unsigned run;
	unsigned present, of;     /* iterations that had it, of the run's */
};

struct rr_fact {
	char *key;                /* "config.threads", "environment.kernel_release", "command_line" */
	char *value;              /* printable text */
};

struct rr_result {
	char *path;
	char *name;               /* the label, else the file's base name */
	char *label;              /* NULL when the result has none */
	char *workload;
	unsigned nruns, ncomplete;
	char *incomplete_reason;  /* the first incomplete run's stop reason, or NULL */
	struct rr_figure *fig;
	unsigned nfig;
	struct rr_lat *lat;
	unsigned nlat;
	struct rr_series *timeline;
	unsigned ntimeline;
	/* the timeline's axes, from the workload: y "throughput" in unit "MiB/s" (tiotest) or
	 * "create rate" in "files/s" (fs_mark), and the x axis label */
	const char *timeline_y, *timeline_unit, *timeline_x;
	struct rr_series *fill;
	unsigned nfill;
	struct rr_fact *facts;
	unsigned nfacts;
	/* figures written for the classic tables only (FIG_NOCOMPARE: "% >2 sec"): shown as the
	 * run printed them, never compared, so kept apart from fig; not carried by rr_concat */
	struct rr_shown *shown;
	unsigned nshown;
	/* the honesty warnings (core/warn.h) the run's phases or iterations had, one entry per run
	 * and id; and the iteration figures some iterations lacked (fs_mark --layout before data
	 * is placed): how many iterations had them. Neither is carried by rr_concat. */
	struct rr_warn *warns;
	unsigned nwarns;
	struct rr_coverage *cover;
	unsigned ncover;
};

/* Loads path into r (zeroed first). 0, or -1 with a one-line reason in err (without the
 * file name; the caller names the file). r is always safe to rr_free(). */
int rr_load_file(const char *path, struct rr_result *r, char *err, size_t errlen);
/* The same from an open file (read from where it is; the caller closes it); name stands in for
 * the file name. */
int rr_load_fd(int fd, const char *name, struct rr_result *r, char *err, size_t errlen);
/* A JSON document parsed as it is read from fd (duplicate keys refused), at most max bytes:
 * the tree, or NULL with je (a syntax error) or *err (EFBIG past max, a read error's errno)
 * set. Reads take jansson's buffer at a time: json_loadfd reads one byte per system call. */
struct json_t;
struct json_error_t;
struct json_t *rr_json_load(int fd, uint64_t max, struct json_error_t *je, int *err);
/* The same from memory; name stands in for the file name. */
int rr_load_buffer(const char *buf, size_t len, const char *name, struct rr_result *r, char *err,
		   size_t errlen);
void rr_free(struct rr_result *r);
/* Several results of one workload as the runs of one (fsbench matrix: a cell's run files):
 * runs end to end in src order, each figure by key (NaN in runs without it), fill and timeline
 * series renumbered, latency histograms merged by name, the first result's facts. dst is
 * named name (its path too). 0, or -1 out of memory (dst safe to rr_free). */
int rr_concat(struct rr_result *dst, const struct rr_result *const *src, unsigned n, const char *name);
const struct rr_figure *rr_find(const struct rr_result *r, const char *key);
/* The FIG_* flags workload declares for the figure key (a phase's "write.rate_mib_per_s" by its
 * group declaration); 0 for a key it does not declare (history check: FIG_PRIMARY, FIG_DERIVED). */
unsigned rr_figure_flags(const char *workload, const char *key);
/* A shown-only figure's value in run (NaN when absent). */
double rr_shown(const struct rr_result *r, const char *key, unsigned run);
/* Sets run's value of the figure d declares (added, NaN in the other runs, when r lacks it):
 * figures measured beside a result (fsbench matrix --after). 0, -EINVAL (no such run), -E2BIG,
 * -ENOMEM. */
struct figure;
int rr_figure_put(struct rr_result *r, const struct figure *d, unsigned run, double v);
/* f named key and name, with d's unit, direction, combination and flags (the values are f's) */
void rr_figure_declare(struct rr_figure *f, const struct figure *d, const char *key, const char *name);
const struct rr_fact *rr_fact_find(const struct rr_result *r, const char *key);
/* The value of the figure key in run (NaN when absent); a fact's value as a number (NaN when
 * absent or not a number): what a workload's classic table from figures reads. */
double rr_run_value(const struct rr_result *r, const char *key, unsigned run);
double rr_fact_num(const struct rr_result *r, const char *key);
/* values of f that are present (not NaN), copied into out (r->nruns entries); returns how many */
unsigned rr_values(const struct rr_result *r, const struct rr_figure *f, double *out);
/* Text safe to print: control and non-ASCII bytes become '?'. Returns out. */
char *rr_printable(const char *s, char *out, size_t outlen);
#endif
