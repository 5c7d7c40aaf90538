/* JSON results with jansson: writer and reader. */
#include "report/json.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/hist.h"
#include "report/json_kstat.h"
#include "sys/blockdev.h"
#include "sys/env.h"

#ifndef FSB_VERSION
#define FSB_VERSION "0.0.0"
#endif

/* counts and ns are integers; jansson's json_int_t is long long, and counts above 2^63 do not occur */
json_t *json_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* never nan or inf in the output */
json_t *json_num(double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		v = 0;
	return json_real(v);
}

json_t *json_latency(const struct opstat *s)
{
	const struct hist *h = &s->lat;
	double n = s->ops ? (double)s->ops : 1.0;
	json_t *o = json_object(), *b = json_array();

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
	/* raw non-empty buckets [lo_ns, hi_ns inclusive, count]: enough to recompute anything */
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		uint64_t lo, hi;

		if (!h->buckets[i])
			continue;
		hist_bucket_range(i, &lo, &hi);
		json_array_append_new(b, json_pack("[o,o,o]", json_u64(lo), json_u64(hi), json_u64(h->buckets[i])));
	}
	json_object_set_new(o, "buckets", b);
	return o;
}

json_t *json_samples(const struct sample *s, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "t_ns", json_u64(s[i].t_ns),
			"dt_ns", json_u64(s[i].dt_ns), "ops", json_u64(s[i].ops), "bytes", json_u64(s[i].bytes),
			"p50_ns", json_u64(s[i].p50_ns), "p90_ns", json_u64(s[i].p90_ns), "p99_ns", json_u64(s[i].p99_ns),
			"p99_9_ns", json_u64(s[i].p999_ns)));
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

static int get_f64(const json_t *o, const char *key, double *v, char *err, size_t errlen)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_number(x)) {
		snprintf(err, errlen, "field '%s' is missing or not a number", key);
		return -1;
	}
	*v = json_number_value(x);
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

static json_t *json_mount(const char *path)
{
	struct env_mount *m = calloc(1, sizeof(*m));
	json_t *o = json_object();
	char real[PATH_MAX];

	json_object_set_new(o, "path", json_string(path));
	if (realpath(path, real))
		json_object_set_new(o, "realpath", json_string(real));
	if (m && env_mount_of(path, m) == 0) {
		json_object_set_new(o, "fstype", json_string(m->fstype[0] ? m->fstype : "unknown"));
		json_object_set_new(o, "mount_point", json_string(m->mount_point));
		json_object_set_new(o, "mount_options", json_string(m->mount_options));
		json_object_set_new(o, "super_options", json_string(m->super_options));
		json_object_set_new(o, "source", json_string(m->source));
		json_object_set_new(o, "device", json_sprintf("%u:%u", m->dev_major, m->dev_minor));
	} else {
		json_object_set_new(o, "fstype", json_string("unknown"));
	}
	free(m);
	{
		struct blockdev *b = malloc(sizeof(*b));

		if (b && blockdev_resolve(path, b) == 0)
			json_object_set_new(o, "block_device", blockdev_json(b));
		free(b);
	}
	return o;
}

json_t *json_result_head(const struct json_run_info *ri)
{
	json_t *root = json_object(), *cmd = json_array(), *env = json_object(), *targets = json_array();
	struct env_host h;
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
	if (env_host_read(&h) == 0) {
		json_object_set_new(env, "hostname", json_string(h.hostname));
		json_object_set_new(env, "kernel_release", json_string(h.kernel_release));
		json_object_set_new(env, "kernel_version", json_string(h.kernel_version));
		json_object_set_new(env, "machine", json_string(h.machine));
		json_object_set_new(env, "cpu_model", json_string(h.cpu_model));
		json_object_set_new(env, "cpus_online", json_integer(h.cpus_online));
		json_object_set_new(env, "mem_total_bytes", json_u64(h.mem_total_bytes));
	}
	json_object_set_new(env, "latency_clock", json_string(clock_latency_source()));
	if (clock_use_tsc)
		/* to 10 MHz: the calibration's last digits differ from run to run, the machine does not */
		json_object_set_new(env, "tsc_ghz", json_num(round(clock_tsc_ghz() * 100) / 100));
	for (unsigned i = 0; i < ri->ntargets; i++)
		json_array_append_new(targets, json_mount(ri->targets[i]));
	json_object_set_new(env, "targets", targets);
	json_object_set_new(root, "environment", env);
	return root;
}

static json_t *tio_json_config(const struct tio_config *c)
{
	json_t *o = json_object(), *dirs = json_array(), *phases = json_array();

	json_object_set_new(o, "threads", json_u64(c->threads));
	json_object_set_new(o, "file_size_bytes", json_u64(c->file_bytes));
	json_object_set_new(o, "file_size_used_bytes", json_u64(c->blocks * c->block_bytes));
	json_object_set_new(o, "block_size_bytes", json_u64(c->block_bytes));
	json_object_set_new(o, "blocks_per_thread", json_u64(c->blocks));
	json_object_set_new(o, "random_ops_per_thread", json_u64(c->random_ops));
	for (unsigned i = 0; i < c->dirs.n; i++)
		json_array_append_new(dirs, json_string(c->dirs.v[i]));
	json_object_set_new(o, "dirs", dirs);
	for (int p = 0; p < TIO_NPHASES; p++)
		if (c->run_phase[p])
			json_array_append_new(phases, json_string(tio_phase_name[p]));
	json_object_set_new(o, "phases", phases);
	json_object_set_new(o, "engine", json_string(c->mmap ? "mmap" : "psync"));
	json_object_set_new(o, "o_sync", json_boolean(c->sync));
	json_object_set_new(o, "o_direct", json_boolean(c->direct));
	json_object_set_new(o, "verify", json_boolean(c->verify));
	json_object_set_new(o, "drop_caches", json_boolean(c->drop_caches));
	json_object_set_new(o, "serial_write", json_boolean(c->serial_write));
	json_object_set_new(o, "raw", json_boolean(c->raw));
	json_object_set_new(o, "raw_offset_bytes", json_u64(c->raw_offset_bytes));
	json_object_set_new(o, "raw_offset_first", json_boolean(c->raw_offset_first));
	json_object_set_new(o, "seed", json_u64(c->seed));
	json_object_set_new(o, "repeat", json_u64(c->repeat));
	json_object_set_new(o, "interval_ns", json_u64(c->interval_ns));
	json_object_set_new(o, "keep", json_boolean(c->keep));
	json_object_set_new(o, "between_phases", c->between ? json_string(c->between) : json_null());
	return o;
}

static json_t *json_procio(const struct procio *io)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "rchar", json_u64(io->rchar), "wchar", json_u64(io->wchar),
			 "syscr", json_u64(io->syscr), "syscw", json_u64(io->syscw), "read_bytes", json_u64(io->read_bytes),
			 "write_bytes", json_u64(io->write_bytes), "cancelled_write_bytes",
			 json_u64(io->cancelled_write_bytes));
}

static json_t *tio_json_phase(const struct tio_config *c, const struct tio_result *r, int p)
{
	const struct tio_phase_result *pr = &r->phase[p];
	double wall_s = (double)pr->wall_ns / 1e9;
	json_t *o = json_object(), *threads = json_array();

	json_object_set_new(o, "name", json_string(tio_phase_name[p]));
	json_object_set_new(o, "complete", json_boolean(pr->complete));
	json_object_set_new(o, "ops", json_u64(pr->st.ops));
	json_object_set_new(o, "bytes", json_u64(pr->st.bytes));
	json_object_set_new(o, "wall_ns", json_u64(pr->wall_ns));
	json_object_set_new(o, "first_done_ns", json_u64(pr->first_done_ns));
	json_object_set_new(o, "last_done_ns", json_u64(pr->last_done_ns));
	json_object_set_new(o, "rate_mib_per_s", json_num(wall_s > 0 ? (double)pr->st.bytes / 1048576.0 / wall_s : 0));
	if (pr->first_done_bytes) {
		double fd_s = (double)pr->first_done_ns / 1e9;

		/* how far every thread had got when the fastest finished (elbencho's "first done") */
		json_object_set_new(o, "first_done", json_pack("{s:o,s:o,s:o,s:o}", "ns", json_u64(pr->first_done_ns),
			"ops", json_u64(pr->first_done_ops), "bytes", json_u64(pr->first_done_bytes), "rate_mib_per_s",
			json_num(fd_s > 0 ? (double)pr->first_done_bytes / 1048576.0 / fd_s : 0)));
	}
	json_object_set_new(o, "iops", json_num(wall_s > 0 ? (double)pr->st.ops / wall_s : 0));
	json_object_set_new(o, "cpu_usr_s", json_num(pr->usr_s));
	json_object_set_new(o, "cpu_sys_s", json_num(pr->sys_s));
	json_object_set_new(o, "cpu_usr_pct", json_num(wall_s > 0 ? 100.0 * pr->usr_s / wall_s : 0));
	json_object_set_new(o, "cpu_sys_pct", json_num(wall_s > 0 ? 100.0 * pr->sys_s / wall_s : 0));
	json_object_set_new(o, "proc_io", json_procio(&pr->io));
	/* kernel-side view (core/observe.h): always when taken; profile with --profile */
	if (pr->obs.taken) {
		json_object_set_new(o, "kernel", kstat_json(&pr->obs.k));
		json_object_set_new(o, "warnings", warn_json(&pr->obs.warns));
	}
	if (pr->obs.profile)
		json_object_set_new(o, "profile", perf_json(pr->obs.profile));
	for (unsigned i = 0; i < c->threads; i++) {
		const struct tio_thread_result *t = &pr->threads[i];

		json_array_append_new(threads, json_pack("{s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}",
			"thread", (int)i, "file", t->path, "ops", json_u64(t->ops), "bytes", json_u64(t->bytes),
			"start_ns", json_u64(t->start_ns), "end_ns", json_u64(t->end_ns), "flush_ns", json_u64(t->flush_ns),
			"cpu_usr_s", json_num(t->usr_s), "cpu_sys_s", json_num(t->sys_s)));
	}
	json_object_set_new(o, "threads", threads);
	json_object_set_new(o, "latency", json_latency(&pr->st));
	json_object_set_new(o, "intervals", json_samples(pr->samples, pr->nsamples));
	json_object_set_new(o, "interval_ns", json_u64(pr->sample_interval_ns));
	return o;
}

/* One run: what --repeat repeats. */
static json_t *tio_json_run(const struct tio_config *c, const struct tio_result *r, bool last)
{
	json_t *o = json_object(), *phases = json_array();
	const struct run_error *e = last ? run_error_get() : NULL;

	json_object_set_new(o, "complete", json_boolean(r->complete));
	if (r->complete)
		json_object_set_new(o, "stop_reason", json_null());
	else if (run_signal()) {
		char sig[32];

		run_signal_name(run_signal(), sig, sizeof(sig));
		json_object_set_new(o, "stop_reason", json_string(sig));
	}
	else
		json_object_set_new(o, "stop_reason", json_string("error"));
	if (e && !r->complete) {
		char msg[PATH_MAX + 512];

		run_error_format(e, msg, sizeof(msg));
		json_object_set_new(o, "error", json_pack("{s:s,s:i,s:s,s:s,s:I,s:s}", "message", msg,
			"errno", e->err, "syscall", e->syscall, "path", e->path, "offset", (json_int_t)e->offset,
			"detail", e->detail));
	} else {
		json_object_set_new(o, "error", json_null());
	}
	json_object_set_new(o, "seed", json_u64(r->seed));
	for (int p = 0; p < TIO_NPHASES; p++)
		if (r->phase[p].ran)
			json_array_append_new(phases, tio_json_phase(c, r, p));
	json_object_set_new(o, "phases", phases);
	json_object_set_new(o, "total_latency", json_latency(&r->total));
	return o;
}

json_t *tio_json(const struct tio_config *c, const struct tio_result *runs, unsigned nruns,
		 const struct json_run_info *ri)
{
	json_t *root = json_result_head(ri);

	json_object_set_new(root, "label", c->label ? json_string(c->label) : json_null());
	json_object_set_new(root, "config", tio_json_config(c));
	if (nruns == 1) {
		/* a single run is the top level itself; readers: runs = root.runs or [root] */
		json_t *run = tio_json_run(c, &runs[0], true);

		json_object_update(root, run);
		json_decref(run);
	} else {
		json_t *arr = json_array();

		for (unsigned i = 0; i < nruns; i++)
			json_array_append_new(arr, tio_json_run(c, &runs[i], i + 1 == nruns));
		json_object_set_new(root, "runs", arr);
		json_object_set_new(root, "complete", json_boolean(runs[nruns - 1].complete));
	}
	return root;
}

int tio_json_parse(const json_t *root, struct tio_result *r, uint64_t *threads, char *err, size_t errlen)
{
	const json_t *phases = json_object_get(root, "phases"), *cfg = json_object_get(root, "config");
	const json_t *ph;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->stopped_in = -1;
	if (!json_is_object(root) || !json_is_string(json_object_get(root, "schema")) ||
	    strcmp(json_string_value(json_object_get(root, "schema")), FSB_JSON_SCHEMA)) {
		snprintf(err, errlen, "not an fsbench result (no \"schema\": \"%s\")", FSB_JSON_SCHEMA);
		return -1;
	}
	if (!json_is_integer(json_object_get(root, "schema_version")) ||
	    json_integer_value(json_object_get(root, "schema_version")) != FSB_JSON_SCHEMA_VERSION) {
		snprintf(err, errlen, "unsupported schema_version (this fsbench reads %d)", FSB_JSON_SCHEMA_VERSION);
		return -1;
	}
	if (!json_is_string(json_object_get(root, "workload")) ||
	    strcmp(json_string_value(json_object_get(root, "workload")), "tiotest")) {
		snprintf(err, errlen, "not a tiotest result");
		return -1;
	}
	if (!json_is_object(cfg)) {
		snprintf(err, errlen, "field 'config' is missing or not an object (no threads)");
		return -1;
	}
	if (get_u64(cfg, "threads", threads, err, errlen))
		return -1;
	if (!json_is_array(phases)) {
		snprintf(err, errlen, "field 'phases' is missing or not an array");
		return -1;
	}
	r->complete = json_is_true(json_object_get(root, "complete"));
	opstat_init(&r->total);
	json_array_foreach(phases, i, ph) {
		const char *name = json_string_value(json_object_get(ph, "name"));
		struct tio_phase_result *pr = NULL;

		for (int p = 0; name && p < TIO_NPHASES; p++)
			if (!strcmp(name, tio_phase_name[p]))
				pr = &r->phase[p];
		if (!pr) {
			snprintf(err, errlen, "phase %zu has an unknown name", i);
			return -1;
		}
		pr->ran = true;
		pr->complete = json_is_true(json_object_get(ph, "complete"));
		if (get_u64(ph, "wall_ns", &pr->wall_ns, err, errlen) ||
		    get_u64(ph, "first_done_ns", &pr->first_done_ns, err, errlen) ||
		    get_u64(ph, "last_done_ns", &pr->last_done_ns, err, errlen) ||
		    get_f64(ph, "cpu_usr_s", &pr->usr_s, err, errlen) ||
		    get_f64(ph, "cpu_sys_s", &pr->sys_s, err, errlen) ||
		    json_latency_parse(json_object_get(ph, "latency"), &pr->st, err, errlen) ||
		    get_u64(ph, "ops", &pr->st.ops, err, errlen) || get_u64(ph, "bytes", &pr->st.bytes, err, errlen))
			return -1;
		opstat_merge(&r->total, &pr->st);
	}
	return 0;
}

int json_check_writable(const char *path)
{
	char dir[PATH_MAX];
	char *slash;

	struct stat st;

	if (!strcmp(path, "-"))
		return 0;
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return -EISDIR;
	/* a device, FIFO or /dev/stdout is written in place (json_write), not next to */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return access(path, W_OK) < 0 ? -errno : 0;
	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) - 32)
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (!slash)
		strcpy(dir, ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return access(dir, W_OK | X_OK) < 0 ? -errno : 0;
}

int json_write(json_t *root, const char *path)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd, rc = 0;

	if (!strcmp(path, "-")) {
		if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0)
			return -EIO;
		fputc('\n', stdout);
		return fflush(stdout) ? -errno : 0;
	}
	/* renaming over a device, FIFO or /dev/stdout would replace /dev/null (as root) with a
	 * regular file: those are written in place */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (json_dumpfd(root, fd, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 ||
		    write(fd, "\n", 1) != 1)
			rc = -EIO;
		if (close(fd) < 0 && !rc)
			rc = -errno;
		return rc;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (json_dumpfd(root, fd, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) < 0 || write(fd, "\n", 1) != 1)
		rc = -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}
