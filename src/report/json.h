/* JSON results: the writer for every workload's result and the reader that loads them back
 * (compare, plot, tests). Field names carry their units; counts and nanoseconds are integers. */
#ifndef FSB_REPORT_JSON_H
#define FSB_REPORT_JSON_H
#include <jansson.h>

#include "core/run.h"
#include "core/sample.h"
#include "workload/tiotest.h"

#define FSB_JSON_SCHEMA "fsbench-result"
#define FSB_JSON_SCHEMA_VERSION 1

/* What every result carries about where and how it ran. */
struct json_run_info {
	int argc;
	char **argv;
	const char *workload;
	const char *const *targets;  /* directories (or devices) to describe */
	unsigned ntargets;
	long long started_unix_s;
};

/* Scalars as fsbench writes them: counts and nanoseconds as integers; reals never nan/inf. */
json_t *json_u64(uint64_t v);
json_t *json_num(double v);
json_t *json_latency(const struct opstat *s);
/* The time series of a phase or iteration: one object per interval. */
json_t *json_samples(const struct sample *s, unsigned n);
int json_latency_parse(const json_t *lat, struct opstat *s, char *err, size_t errlen);
/* The common head: schema, version, command line, environment. */
json_t *json_result_head(const struct json_run_info *ri);
/* A tiotest result: nruns == 1 puts the run at the top level, more go into "runs". */
json_t *tio_json(const struct tio_config *c, const struct tio_result *runs, unsigned nruns,
		 const struct json_run_info *ri);
/* Reads back the per-phase figures of a tiotest result (for tests, compare and plot). */
int tio_json_parse(const json_t *root, struct tio_result *r, uint64_t *threads, char *err, size_t errlen);
#endif
