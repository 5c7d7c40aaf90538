/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON results: the writer for every workload's result and the reader that loads them back
 * (compare, plot, tests). Field names carry their units; counts and nanoseconds are integers. */
#ifndef FSB_REPORT_JSON_H
#define FSB_REPORT_JSON_H
#include <jansson.h>

#include "core/driver.h"
#include "core/figure.h"
#include "core/opt.h"
#include "core/run.h"
#include "core/sample.h"

#define FSB_JSON_SCHEMA "fsbench-result"
/* 2: fs_mark iterations keep percentiles per op type, the buckets are per run; a figure that
 * cannot be computed is null (1 wrote 0). Readers take 1 and 2. */
#define FSB_JSON_SCHEMA_VERSION 2
#define FSB_JSON_SCHEMA_VERSION_MIN 1

/* What every result carries about where and how it ran. */
struct json_run_info {
	int argc;
	char **argv;
	const char *workload;
	const struct driver_result *res;   /* the environment captured at the start */
	long long started_unix_s;
};

/* Scalars as fsbench writes them: counts and nanoseconds as integers; a real that is nan or
 * inf is null. */
json_t *json_u64(uint64_t v);
json_t *json_num(double v);
/* count, min, mean, max, sum, percentiles, % over 2 s and 10 s, and the non-empty buckets */
json_t *json_latency(const struct opstat *s);
/* count, min, mean, p50, p90, p99, p99.9, max only (null when count is 0): fs_mark's per
 * iteration latency, which must stay small over thousands of iterations */
json_t *json_latency_summary(const struct opstat *s);
/* An engine's submitting calls (engine/engine.h, struct engine_submit_stats): calls, sqes,
 * total_ns, min/mean/p50/p99/max_ns of a call (null without calls), requests_in_submit_ns and
 * requests_latency_ns, share_of_latency (their ratio, null without requests) and negligible
 * (share_of_latency below ENGINE_SUBMIT_NEGLIGIBLE); with buckets the calls' histogram too. */
struct engine_submit_stats;
struct engine_opts;
/* config's "engine_setup": the flags the engine set its contexts up with (io_uring: the
 * IORING_SETUP_* flags of every ring, found on this kernel), when the engine says; and its
 * numbers beside them as "engine_NAME" (io_uring: engine_spin_us) */
void json_engine_setup(json_t *config, const struct engine_opts *e);
json_t *json_submission(const struct engine_submit_stats *s, bool buckets);
/* The time series of a phase or iteration: one object per interval. */
json_t *json_samples(const struct sample *s, unsigned n);
int json_latency_parse(const json_t *lat, struct opstat *s, char *err, size_t errlen);
/* The common head: schema, version, command line, environment. */
json_t *json_result_head(const struct json_run_info *ri);
/* Every option of the table with its effective value in cfg, keyed by its long name ('-' as
 * '_'): the config of a workload without a config writer of its own. */
json_t *json_options(const struct opt_cmd *c, const void *cfg);
/* Writes the figures v[0..n-1] into obj at their keys (dotted paths). */
void json_figures(json_t *obj, const struct figure *figs, unsigned n, const double *v);
/* The raw counters of a phase's cost per op (core/cost.h) into obj's "cost" (the figures go
 * beside them, json_figures): ops, cpu_usr_s, cpu_sys_s, busy_s, nvcsw, nivcsw and, with a
 * kernel view, device_bytes and device_requests. */
struct cost_raw;
void json_cost(json_t *obj, const struct cost_raw *c);
/* A run's "complete", "stop_reason" and "error" (the first error goes to the last run). */
void json_run_end(json_t *o, const struct driver_result *res, const struct run_head *h, bool last);
#endif
