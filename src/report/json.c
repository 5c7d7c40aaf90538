/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON results with jansson: writer and reader. */
#include "report/json.h"

#include "core/cost.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/hist.h"
#include "engine/engine.h"
#include "report/json_kstat.h"
#include "sys/blockdev.h"
#include "sys/env.h"

#ifndef FSB_VERSION
#define FSB_VERSION "0.0.0"
#endif
/* the build's `git describe --always --dirty` (the Makefile's one define), else unknown */
#ifndef FSB_COMMIT
#define FSB_COMMIT "unknown"
#endif

/* counts and ns are integers; jansson's json_int_t is long long, and counts above 2^63 do not occur */
json_t *json_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* never nan or inf in the output: a figure that cannot be computed is null (absent), not 0,
 * which would read as a measurement */
json_t *json_num(double v)
{
	if (!isfinite(v))
		return json_null();
	return json_real(v);
}

/* raw non-empty buckets [lo_ns, hi_ns inclusive, count]: enough to recompute anything */
static json_t *json_buckets(const struct hist *h)
{
	json_t *b = json_array();

	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		uint64_t lo, hi;

		if (!h->buckets[i])
			continue;
		hist_bucket_range(i, &lo, &hi);
		json_array_append_new(b, json_pack("[o,o,o]", json_u64(lo), json_u64(hi), json_u64(h->buckets[i])));
	}
	return b;
}

json_t *json_latency(const struct opstat *s)
{
	const struct hist *h = &s->lat;
	double n = s->ops ? (double)s->ops : 1.0;
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(h->count));
	json_object_set_new(o, "min_ns", json_u64(h->count ? h->min : 0));
	json_object_set_new(o, "mean_ns", json_num(hist_mean(h)));
	json_object_set_new(o, "max_ns", json_u64(h->max));
	json_object_set_new(o, "sum_ns", json_u64(h->sum));
	json_object_set_new(o, "p50_ns", json_u64(hist_percentile(h, 50)));
	json_object_set_new(o, "p90_ns", json_u64(hist_percentile(h, 90)));
	json_object_set_new(o, "p99_ns", json_u64(hist_percentile(h, 99)));
	json_object_set_new(o, "p99_9_ns", json_u64(hist_percentile(h, 99.9)));
	json_object_set_new(o, "p99_99_ns", json_u64(hist_percentile(h, 99.99)));
	json_object_set_new(o, "over_2s_count", json_u64(s->over_2s));
	json_object_set_new(o, "over_10s_count", json_u64(s->over_10s));
	json_object_set_new(o, "over_2s_pct", json_num(100.0 * (double)s->over_2s / n));
	json_object_set_new(o, "over_10s_pct", json_num(100.0 * (double)s->over_10s / n));
	json_object_set_new(o, "histogram", json_pack("{s:s,s:i}", "scheme", "log-linear",
						      "sub_buckets_per_octave", HIST_SUB));
	json_object_set_new(o, "buckets", json_buckets(h));
	return o;
}

void json_engine_setup(json_t *config, const struct engine_opts *e)
{
	const char *names[16];
	unsigned n;
	json_t *a;

	if (!e->ops)
		return;
	if (e->ops->setup_flags) {
		n = e->ops->setup_flags(e, names, 16);
		a = json_array();
		for (unsigned i = 0; i < n; i++)
			json_array_append_new(a, json_string(names[i]));
		json_object_set_new(config, "engine_setup", a);
	}
	if (e->ops->setup_values) {
		uint64_t v[16];
		char key[64];

		n = e->ops->setup_values(e, names, v, 16);
		for (unsigned i = 0; i < n; i++) {
			snprintf(key, sizeof(key), "engine_%s", names[i]);
			json_object_set_new(config, key, json_u64(v[i]));
		}
	}
}

json_t *json_submission(const struct engine_submit_stats *s, bool buckets)
{
	const struct hist *h = &s->call_ns;
	const double share = engine_submit_share(s);
	json_t *o = json_object();

	json_object_set_new(o, "calls", json_u64(h->count));
	json_object_set_new(o, "sqes", json_u64(s->sqes));
	json_object_set_new(o, "total_ns", json_u64(h->sum));
	/* no call, no duration: null, not 0 ns */
	json_object_set_new(o, "min_ns", h->count ? json_u64(h->min) : json_null());
	json_object_set_new(o, "mean_ns", h->count ? json_num(hist_mean(h)) : json_null());
	json_object_set_new(o, "p50_ns", h->count ? json_u64(hist_percentile(h, 50)) : json_null());
	json_object_set_new(o, "p99_ns", h->count ? json_u64(hist_percentile(h, 99)) : json_null());
	json_object_set_new(o, "max_ns", h->count ? json_u64(h->max) : json_null());
	json_object_set_new(o, "requests_in_submit_ns", json_u64(s->in_submit_ns));
	json_object_set_new(o, "requests_latency_ns", json_u64(s->latency_ns));
	json_object_set_new(o, "share_of_latency", json_num(share));
	json_object_set_new(o, "negligible", isfinite(share) ? json_boolean(share < ENGINE_SUBMIT_NEGLIGIBLE) :
			    json_null());
	if (buckets)
		json_object_set_new(o, "buckets", json_buckets(h));
	return o;
}

json_t *json_latency_summary(const struct opstat *s)
{
	const struct hist *h = &s->lat;
	json_t *o = json_object();

	json_object_set_new(o, "count", json_u64(h->count));
	if (!h->count) {
		/* no op, no latency: absent, not 0 ns */
		static const char *const keys[] = { "min_ns", "mean_ns", "p50_ns", "p90_ns", "p99_ns",
						    "p99_9_ns", "max_ns" };

		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			json_object_set_new(o, keys[i], json_null());
		return o;
	}
	json_object_set_new(o, "min_ns", json_u64(h->min));
	json_object_set_new(o, "mean_ns", json_num(hist_mean(h)));
	json_object_set_new(o, "p50_ns", json_u64(hist_percentile(h, 50)));
	json_object_set_new(o, "p90_ns", json_u64(hist_percentile(h, 90)));
	json_object_set_new(o, "p99_ns", json_u64(hist_percentile(h, 99)));
	json_object_set_new(o, "p99_9_ns", json_u64(hist_percentile(h, 99.9)));
	json_object_set_new(o, "max_ns", json_u64(h->max));
	return o;
}

json_t *json_samples(const struct sample *s, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++) {
		json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "t_ns", json_u64(s[i].t_ns),
			"dt_ns", json_u64(s[i].dt_ns), "ops", json_u64(s[i].ops), "bytes", json_u64(s[i].bytes),
			"p50_ns", json_u64(s[i].p50_ns), "p90_ns", json_u64(s[i].p90_ns), "p99_ns", json_u64(s[i].p99_ns),
			"p99_9_ns", json_u64(s[i].p999_ns));

		/* --ramp: in the series, not in the figures */
		if (o && s[i].ramp)
			json_object_set_new(o, "ramp", json_true());
		json_array_append_new(a, o);
	}
	return a;
}

static int get_u64(const json_t *o, const char *key, uint64_t *v, char *err, size_t errlen)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_integer(x) || json_integer_value(x) < 0) {
		snprintf(err, errlen, "field '%s' is missing or not a non-negative integer", key);
		return -1;
	}
	*v = (uint64_t)json_integer_value(x);
	return 0;
}

int json_latency_parse(const json_t *lat, struct opstat *s, char *err, size_t errlen)
{
	const json_t *b = json_object_get(lat, "buckets");
	uint64_t total = 0, min = 0;
	size_t i;
	json_t *e;

	opstat_init(s);
	if (!json_is_object(lat) || !json_is_array(b)) {
		snprintf(err, errlen, "latency is not an object with a buckets array");
		return -1;
	}
	if (get_u64(lat, "count", &s->lat.count, err, errlen) || get_u64(lat, "sum_ns", &s->lat.sum, err, errlen) ||
	    get_u64(lat, "max_ns", &s->lat.max, err, errlen) || get_u64(lat, "min_ns", &min, err, errlen) ||
	    get_u64(lat, "over_2s_count", &s->over_2s, err, errlen) ||
	    get_u64(lat, "over_10s_count", &s->over_10s, err, errlen))
		return -1;
	s->lat.min = s->lat.count ? min : UINT64_MAX;
	json_array_foreach(b, i, e) {
		json_int_t lo, hi, n;

		if (json_unpack(e, "[III]", &lo, &hi, &n) || lo < 0 || n < 0 ||
		    hist_set_bucket(&s->lat, (uint64_t)lo, (uint64_t)n)) {
			snprintf(err, errlen, "latency bucket %zu is malformed", i);
			return -1;
		}
		total += (uint64_t)n;
	}
	if (total != s->lat.count) {
		snprintf(err, errlen, "latency buckets add up to %llu, count says %llu",
			 (unsigned long long)total, (unsigned long long)s->lat.count);
		return -1;
	}
	s->ops = s->lat.count;
	return 0;
}

/* a string known only when not empty */
static void set_known(json_t *o, const char *key, const char *v)
{
	if (v[0])
		json_object_set_new(o, key, json_string(v));
}

/* the target's disk's request queue: unknown values absent */
static json_t *json_queue(const struct env_queue *q)
{
	json_t *o = json_object();

	set_known(o, "disk", q->disk);
	set_known(o, "scheduler", q->scheduler);
	set_known(o, "model", q->model);
	if (q->rotational >= 0)
		json_object_set_new(o, "rotational", json_boolean(q->rotational));
	if (q->read_ahead_kb >= 0)
		json_object_set_new(o, "read_ahead_kb", json_integer(q->read_ahead_kb));
	if (q->nr_requests >= 0)
		json_object_set_new(o, "nr_requests", json_integer(q->nr_requests));
	return o;
}

static json_t *json_mount(const char *path, const struct env_mount *m)
{
	json_t *o = json_object();
	char real[PATH_MAX];

	json_object_set_new(o, "path", json_string(path));
	if (realpath(path, real))
		json_object_set_new(o, "realpath", json_string(real));
	if (m) {
		json_object_set_new(o, "fstype", json_string(m->fstype[0] ? m->fstype : "unknown"));
		json_object_set_new(o, "mount_point", json_string(m->mount_point));
		json_object_set_new(o, "mount_options", json_string(m->mount_options));
		json_object_set_new(o, "super_options", json_string(m->super_options));
		json_object_set_new(o, "source", json_string(m->source));
		json_object_set_new(o, "device", json_sprintf("%u:%u", m->dev_major, m->dev_minor));
	} else {
		json_object_set_new(o, "fstype", json_string("unknown"));
	}
	return o;
}

json_t *json_result_head(const struct json_run_info *ri)
{
	const struct driver_result *res = ri->res;
	const struct driver_env *e = &res->env;
	json_t *root = json_object(), *cmd = json_array(), *env = json_object(), *targets = json_array();
	char when[64] = "";
	time_t t = (time_t)ri->started_unix_s;
	struct tm tm;

	json_object_set_new(root, "schema", json_string(FSB_JSON_SCHEMA));
	json_object_set_new(root, "schema_version", json_integer(FSB_JSON_SCHEMA_VERSION));
	json_object_set_new(root, "fsbench_version", json_string(FSB_VERSION));
	json_object_set_new(root, "workload", json_string(ri->workload));
	for (int i = 0; i < ri->argc; i++)
		json_array_append_new(cmd, json_string(ri->argv[i]));
	json_object_set_new(root, "command_line", cmd);
	if (gmtime_r(&t, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(root, "started_at", json_string(when));
	/* captured when the command started (core/driver.h), not now: the targets may be gone */
	if (e->host_ok) {
		json_object_set_new(env, "hostname", json_string(e->host.hostname));
		json_object_set_new(env, "kernel_release", json_string(e->host.kernel_release));
		json_object_set_new(env, "kernel_version", json_string(e->host.kernel_version));
		json_object_set_new(env, "machine", json_string(e->host.machine));
		json_object_set_new(env, "cpu_model", json_string(e->host.cpu_model));
		json_object_set_new(env, "cpus_online", json_integer(e->host.cpus_online));
		json_object_set_new(env, "mem_total_bytes", json_u64(e->host.mem_total_bytes));
		set_known(env, "cpufreq_governor", e->host.sysfs.cpufreq_governor);
		set_known(env, "cpufreq_driver", e->host.sysfs.cpufreq_driver);
		set_known(env, "thp_enabled", e->host.sysfs.thp_enabled);
		set_known(env, "thp_defrag", e->host.sysfs.thp_defrag);
	}
	json_object_set_new(env, "fsbench_version", json_string(FSB_VERSION));
	json_object_set_new(env, "fsbench_commit", json_string(FSB_COMMIT));
	json_object_set_new(env, "latency_clock", json_string(clock_latency_source()));
	if (clock_use_tsc)
		/* to 10 MHz: the calibration's last digits differ from run to run, the machine does not */
		json_object_set_new(env, "tsc_ghz", json_num(round(clock_tsc_ghz() * 100) / 100));
	for (unsigned i = 0; i < e->ntargets; i++) {
		json_t *m = json_mount(e->targets[i], e->mount_ok[i] ? &e->mounts[i] : NULL);

		if (i < res->ntargets && res->targets)
			json_object_set_new(m, "block_device", blockdev_json(&res->targets[i]));
		if (e->queues && e->queue_ok[i])
			json_object_set_new(m, "queue", json_queue(&e->queues[i]));
		json_array_append_new(targets, m);
	}
	json_object_set_new(env, "targets", targets);
	json_object_set_new(root, "environment", env);
	return root;
}

/* A figure's value: nanoseconds that are whole numbers stay integers, as counts do. */
static json_t *json_figure_value(const struct figure *f, double v)
{
	if (!strcmp(f->unit, "ns") && v >= 0 && v < 9e18 && v == floor(v))
		return json_u64((uint64_t)v);
	return json_num(v);
}

/* Sets obj's field at a dotted path, creating the objects on the way. */
static void json_set_path(json_t *obj, const char *path, json_t *v)
{
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		char key[64];
		json_t *sub;

		snprintf(key, sizeof(key), "%.*s", (int)(dot - path), path);
		sub = json_object_get(obj, key);
		if (!json_is_object(sub)) {
			sub = json_object();
			json_object_set_new(obj, key, sub);
		}
		obj = sub;
		path = dot + 1;
	}
	json_object_set_new(obj, path, v);
}

void json_figures(json_t *obj, const struct figure *figs, unsigned n, const double *v)
{
	for (unsigned i = 0; i < n; i++)
		json_set_path(obj, figs[i].path, json_figure_value(&figs[i], v[i]));
}

void json_cost(json_t *obj, const struct cost_raw *c)
{
	json_t *o = json_pack("{s:o,s:o,s:o,s:o,s:o,s:o}", "ops", json_u64(c->ops), "cpu_usr_s", json_num(c->usr_s),
			      "cpu_sys_s", json_num(c->sys_s), "busy_s", json_num(c->busy_s), "nvcsw",
			      json_u64(c->nvcsw), "nivcsw", json_u64(c->nivcsw));

	if (o && c->have_dev) {
		json_object_set_new(o, "device_bytes", json_u64(c->dev_bytes));
		json_object_set_new(o, "device_requests", json_u64(c->dev_reqs));
	}
	json_object_set_new(obj, "cost", o);
}

void json_run_end(json_t *o, const struct driver_result *res, const struct run_head *h, bool last)
{
	const struct run_error *e = last && res->failed ? &res->error : NULL;

	json_object_set_new(o, "complete", json_boolean(h->complete));
	if (h->complete)
		json_object_set_new(o, "stop_reason", json_null());
	else if (h->end == RUN_END_SIGNAL && res->signal) {
		char sig[32];

		run_signal_name(res->signal, sig, sizeof(sig));
		json_object_set_new(o, "stop_reason", json_string(sig));
	}
	else
		json_object_set_new(o, "stop_reason", json_string("error"));
	if (e && !h->complete) {
		char msg[PATH_MAX + 512];

		run_error_format(e, msg, sizeof(msg));
		json_object_set_new(o, "error", json_pack("{s:s,s:i,s:s,s:s,s:I,s:s}", "message", msg,
			"errno", e->err, "syscall", e->syscall ? e->syscall : "", "path", e->path,
			"offset", (json_int_t)e->offset, "detail", e->detail));
	} else {
		json_object_set_new(o, "error", json_null());
	}
}

/* one option's value, read at base + off, under its name with '-' as '_' */
static void json_option(json_t *o, const struct opt *op, const void *base)
{
	const void *field = (const char *)base + op->off;
	char key[64];
	json_t *v;

	if (op->lname)
		snprintf(key, sizeof(key), "%s", op->lname);
	else
		snprintf(key, sizeof(key), "%c", op->sname);
	for (char *p = key; *p; p++)
		if (*p == '-')
			*p = '_';
	switch (op->type) {
	case OPT_FLAG:
		v = json_boolean(*(const bool *)field);
		break;
	case OPT_STR:
		v = *(const char *const *)field ? json_string(*(const char *const *)field) : json_null();
		break;
	case OPT_STRS: {
		const struct opt_strs *l = field;

		v = json_array();
		for (unsigned i = 0; i < l->n; i++)
			json_array_append_new(v, json_string(l->v[i]));
		break;
	}
	case OPT_UINTS: {
		const struct opt_uints *l = field;

		v = json_array();
		for (unsigned i = 0; i < l->n; i++)
			json_array_append_new(v, json_u64(l->v[i]));
		break;
	}
	default:
		v = json_u64(*(const uint64_t *)field);
		break;
	}
	json_object_set_new(o, key, v);
}

json_t *json_options(const struct opt_cmd *c, const void *cfg)
{
	json_t *o = json_object();
	struct opt_group g;

	for (const struct opt *op = c->opts; !opt_is_end(op); op++) {
		if (op->type == OPT_HELP)
			continue;
		if (op->type != OPT_GROUPS) {
			json_option(o, op, cfg);
			continue;
		}
		/* every group's options where the table has them: the one in use with its values,
		 * the others with their defaults */
		for (unsigned i = 0; opt_groups_entry(c) && opt_group_at(c, i, &g); i++)
			for (const struct opt *go = g.opts; go && !opt_is_end(go); go++)
				json_option(o, go, opt_group_values(c, cfg, i, &g));
	}
	return o;
}
