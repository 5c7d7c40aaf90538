/* SPDX-License-Identifier: GPL-2.0-or-later */
/* runs/CELL/after-run-K.json back into figures (report/after_read.h). */
#include "report/after_read.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/errmsg.h"
#include "report/result_read.h"

const struct figure after_figs[AF_N] = {
	[AF_FSCK_WALL] = { "fsck.wall_s", "fsck.wall_ns", "fsck wall time", "s", FIG_LOWER_BETTER,
			   FIG_MEAN, FIG_MAX, FIG_KEY },
	[AF_FSCK_CPU] = { "fsck.cpu_s", "fsck.cpu_usr_s+cpu_sys_s", "fsck CPU time", "s",
			  FIG_LOWER_BETTER, FIG_MEAN, FIG_SUM, 0 },
	[AF_FSCK_RSS] = { "fsck.max_rss_mib", "fsck.max_rss_kib", "fsck peak memory", "MiB",
			  FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, 0 },
	[AF_FREE_MIB] = { "freespace.free_mib", "freespace.free_bytes", "free space left", "MiB",
			  FIG_NEUTRAL, FIG_MEAN, FIG_SUM, FIG_OPTIONAL },
	[AF_FREE_EXTENTS] = { "freespace.free_extents", "freespace.free_extents", "free extents",
			      "extents", FIG_NEUTRAL, FIG_MEAN, FIG_SUM, FIG_OPTIONAL },
	[AF_FREE_MEAN] = { "freespace.mean_extent_kib", "freespace.free_bytes/free_extents",
			   "mean free extent", "KiB", FIG_HIGHER_BETTER, FIG_MEAN, FIG_RECOMPUTE,
			   FIG_OPTIONAL },
	[AF_FREE_LARGEST] = { "freespace.largest_extent_mib", "freespace.largest_free_extent_bytes",
			      "largest free extent", "MiB", FIG_HIGHER_BETTER, FIG_MEAN, FIG_MAX,
			      FIG_OPTIONAL },
	[AF_FREE_SMALL] = { "freespace.small_pct", "freespace.histogram", "free space in extents < 1 MiB",
			    "%", FIG_LOWER_BETTER, FIG_MEAN, FIG_RECOMPUTE, FIG_KEY | FIG_OPTIONAL },
};

/* a non-negative finite number, null (NaN), or absent (NaN); anything else is an error */
static int num(const json_t *o, const char *key, const char *where, double *v, char *err, size_t errlen)
{
	const json_t *x = json_object_get(o, key);

	*v = NAN;
	if (!x || json_is_null(x))
		return 0;
	if (!json_is_number(x) || !isfinite(json_number_value(x)) || json_number_value(x) < 0 ||
	    json_number_value(x) > 1e18)
		return errmsg(err, errlen, "%s.%s is not a non-negative number", where, key);
	*v = json_number_value(x);
	return 0;
}

static char *text(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	char *out;

	if (!s)
		return strdup("");
	if ((out = malloc(strlen(s) + 1)))
		rr_printable(s, out, strlen(s) + 1);
	return out;
}

static int read_fsck(const json_t *o, struct after_data *a, char *err, size_t errlen)
{
	static const char *const verdicts[] = { "clean", "errors", "failed", "absent" };
	const char *v = json_string_value(json_object_get(o, "verdict"));
	const json_t *msgs = json_object_get(o, "messages"), *x;
	double wall, usr, sys, rss, lines;
	size_t k, len = 0;
	bool known = false;

	if (!json_is_object(o))
		return errmsg(err, errlen, "fsck is not an object");
	for (k = 0; v && k < 4; k++)
		known |= !strcmp(v, verdicts[k]);
	if (!known)
		return errmsg(err, errlen, "fsck.verdict is not clean, errors, failed or absent");
	snprintf(a->verdict, sizeof(a->verdict), "%s", v);
	a->finding = !strcmp(v, "errors") || !strcmp(v, "failed");
	x = json_object_get(o, "timed_out");
	if (x && !json_is_null(x) && !json_is_boolean(x))
		return errmsg(err, errlen, "fsck.timed_out is not true or false");
	a->timed_out = json_is_true(x);
	rr_printable(json_string_value(json_object_get(o, "tool")) ? json_string_value(json_object_get(o, "tool")) : "",
		     a->tool, sizeof(a->tool));
	x = json_object_get(o, "exit_status");
	if (x && !json_is_null(x) && (!json_is_integer(x) || json_integer_value(x) < 0 || json_integer_value(x) > 255))
		return errmsg(err, errlen, "fsck.exit_status is not an exit status");
	a->exit_status = json_is_integer(x) ? (int)json_integer_value(x) : -1;
	if (num(o, "wall_ns", "fsck", &wall, err, errlen) || num(o, "cpu_usr_s", "fsck", &usr, err, errlen) ||
	    num(o, "cpu_sys_s", "fsck", &sys, err, errlen) || num(o, "max_rss_kib", "fsck", &rss, err, errlen) ||
	    num(o, "message_lines", "fsck", &lines, err, errlen))
		return -1;
	if (msgs && !json_is_null(msgs) && (!json_is_array(msgs) || json_array_size(msgs) > 1000))
		return errmsg(err, errlen, "fsck.messages is not a list of lines");
	if (!(a->reason = text(o, "reason")))
		return errmsg(err, errlen, "out of memory");
	for (k = 0; k < json_array_size(msgs); k++)
		len += json_string_length(json_array_get(msgs, k)) + 1;
	if (!(a->messages = calloc(1, len + 1)))
		return errmsg(err, errlen, "out of memory");
	for (k = 0, len = 0; k < json_array_size(msgs); k++) {
		const char *m = json_string_value(json_array_get(msgs, k));

		if (!m)
			return errmsg(err, errlen, "fsck.messages[%zu] is not a string", k);
		rr_printable(m, a->messages + len, strlen(m) + 1);
		len += strlen(m);
		a->messages[len++] = '\n';
	}
	a->message_lines = isnan(lines) ? (unsigned)k : (unsigned)fmin(lines, 1e9);
	/* an absent checker has no times: the figures stay absent */
	if (!strcmp(v, "clean") || !strcmp(v, "errors")) {
		a->v[AF_FSCK_WALL] = wall / 1e9;
		a->v[AF_FSCK_CPU] = isnan(usr) || isnan(sys) ? NAN : usr + sys;
		a->v[AF_FSCK_RSS] = rss / 1024;
	}
	a->has_fsck = true;
	return 0;
}

static int read_freespace(const json_t *o, struct after_data *a, char *err, size_t errlen)
{
	const json_t *h = json_object_get(o, "histogram"), *absent = json_object_get(o, "absent");
	double free_b, ext, largest, small = 0;
	char where[48];

	if (!json_is_object(o))
		return errmsg(err, errlen, "freespace is not an object");
	a->has_freespace = true;
	if (absent && !json_is_null(absent)) {
		if (!(a->free_absent = text(o, "absent")))
			return errmsg(err, errlen, "out of memory");
		if (!*a->free_absent) {
			free(a->free_absent);
			a->free_absent = strdup("no reason given");
		}
		return a->free_absent ? 0 : errmsg(err, errlen, "out of memory");
	}
	if (num(o, "free_bytes", "freespace", &free_b, err, errlen) ||
	    num(o, "free_extents", "freespace", &ext, err, errlen) ||
	    num(o, "largest_free_extent_bytes", "freespace", &largest, err, errlen))
		return -1;
	if (!json_is_array(h) || json_array_size(h) > 256)
		return errmsg(err, errlen, "freespace.histogram is not a list of buckets");
	for (size_t i = 0; i < json_array_size(h); i++) {
		const json_t *b = json_array_get(h, i);
		double lo, hi, n, bytes;
		unsigned k;

		snprintf(where, sizeof(where), "freespace.histogram[%zu]", i);
		if (!json_is_object(b))
			return errmsg(err, errlen, "%s is not an object", where);
		if (num(b, "min_bytes", where, &lo, err, errlen) || num(b, "max_bytes", where, &hi, err, errlen) ||
		    num(b, "extents", where, &n, err, errlen) || num(b, "free_bytes", where, &bytes, err, errlen))
			return -1;
		if (isnan(lo) || isnan(n) || isnan(bytes) || lo < 1)
			return errmsg(err, errlen, "%s lacks min_bytes, extents or free_bytes", where);
		k = (unsigned)floor(log2(lo));
		if (k >= AFTER_BUCKETS)
			return errmsg(err, errlen, "%s.min_bytes is out of range", where);
		a->hist_extents[k] += n;
		a->hist_bytes[k] += bytes;
		if (!isnan(hi) && hi <= AFTER_SMALL_BYTES)
			small += bytes;
	}
	a->v[AF_FREE_MIB] = free_b / 1048576;
	a->v[AF_FREE_EXTENTS] = ext;
	a->v[AF_FREE_MEAN] = ext > 0 ? free_b / ext / 1024 : NAN;
	a->v[AF_FREE_LARGEST] = largest / 1048576;
	a->v[AF_FREE_SMALL] = free_b > 0 ? 100 * small / free_b : NAN;
	return 0;
}

int after_load(const char *path, struct after_data *a, char *err, size_t errlen)
{
	int fd, rc;

	/* O_NONBLOCK: a FIFO must not hang the reader (after_load_fd refuses it) */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		rc = errno;
		after_load_fd(-1, a, err, errlen);
		return errmsg(err, errlen, "%s", strerror(rc));
	}
	rc = after_load_fd(fd, a, err, errlen);
	close(fd);
	return rc;
}

int after_load_fd(int fd, struct after_data *a, char *err, size_t errlen)
{
	json_error_t je;
	json_t *root, *x;
	struct stat st;
	const char *s;
	char text[160];
	int rc = -1, rerr;

	memset(a, 0, sizeof(*a));
	a->exit_status = -1;
	for (unsigned k = 0; k < AF_N; k++)
		a->v[k] = NAN;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		return errmsg(err, errlen, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode) || st.st_size > AFTER_MAX_FILE_BYTES)
		return errmsg(err, errlen, "not a regular file of at most %u bytes", AFTER_MAX_FILE_BYTES);
	if (!(root = rr_json_load(fd, AFTER_MAX_FILE_BYTES, &je, &rerr)))
		return rerr ? errmsg(err, errlen, "%s",
				     rerr == EFBIG ? "grew past its size limit" : strerror(rerr))
			    : errmsg(err, errlen, "line %d: %s", je.line,
				     rr_printable(je.text, text, sizeof(text)));
	s = json_string_value(json_object_get(root, "schema"));
	if (!json_is_object(root) || !s || strcmp(s, "fsbench-after")) {
		errmsg(err, errlen, "not an fsbench after-run file (schema is not fsbench-after)");
		goto out;
	}
	x = json_object_get(root, "version");
	if (!json_is_integer(x) || json_integer_value(x) != 1) {
		errmsg(err, errlen, "version is not 1");
		goto out;
	}
	if ((x = json_object_get(root, "fsck")) && read_fsck(x, a, err, errlen))
		goto out;
	if ((x = json_object_get(root, "freespace")) && read_freespace(x, a, err, errlen))
		goto out;
	rc = 0;
out:
	json_decref(root);
	return rc;
}

void after_free(struct after_data *a)
{
	free(a->reason);
	free(a->messages);
	free(a->free_absent);
	a->reason = a->messages = a->free_absent = NULL;
}

void after_bucket_name(unsigned b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

	snprintf(buf, len, "%llu %s", 1ULL << (b % 10), unit[b / 10 < 6 ? b / 10 : 6]);
}
