/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The after-run tools' results as JSON (report/json_after.h). */
#include "report/json_after.h"

#include <string.h>

#include "core/quote.h"
#include "report/json.h"

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* the tool's run: its times and memory, its time limit and whether it was killed at it; null
 * when it did not run */
static void run_fields(json_t *o, const struct spawn_result *r, bool ran, uint64_t timeout_ns)
{
	json_object_set_new(o, "timeout_s", ran && timeout_ns ? json_u64(timeout_ns / 1000000000) : json_null());
	json_object_set_new(o, "timed_out", ran ? json_boolean(r->timed_out) : json_null());
	json_object_set_new(o, "exit_status", ran && r->exit_code >= 0 ? json_integer(r->exit_code) : json_null());
	json_object_set_new(o, "signal", ran && r->signal ? json_integer(r->signal) : json_null());
	json_object_set_new(o, "wall_ns", ran ? json_u64(r->wall_ns) : json_null());
	json_object_set_new(o, "cpu_usr_s", ran ? json_num(r->usr_s) : json_null());
	json_object_set_new(o, "cpu_sys_s", ran ? json_num(r->sys_s) : json_null());
	json_object_set_new(o, "max_rss_kib", ran ? json_u64(r->max_rss_kib) : json_null());
	json_object_set_new(o, "output_bytes", ran ? json_u64(r->out_total) : json_null());
}

json_t *fsck_json(const struct fsck_result *r)
{
	json_t *o = json_object(), *msgs = json_array();
	const bool ran = r->command[0] && r->run.out;

	json_object_set_new(o, "check", json_string("fsck"));
	json_object_set_new(o, "fstype", json_string(r->fstype));
	json_object_set_new(o, "device", json_string(r->device));
	json_object_set_new(o, "tool", str_or_null(r->tool));
	json_object_set_new(o, "command", str_or_null(r->command));
	json_object_set_new(o, "verdict", json_string(fsck_verdict_name[r->verdict]));
	json_object_set_new(o, "finding", json_boolean(r->verdict == FSCK_ERRORS || r->verdict == FSCK_FAILED));
	json_object_set_new(o, "reason", str_or_null(r->why));
	run_fields(o, &r->run, ran, r->timeout_ns);
	for (const char *p = r->messages; p && *p;) {
		size_t n = strcspn(p, "\n");

		json_t *m = json_stringn(p, n);

		/* a line that is not UTF-8 is kept escaped (core/quote.h), not dropped */
		if (!m) {
			char line[4096], q[QUOTE_MAX];

			snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
			m = json_string(quote_str(line, q, sizeof(q)));
		}
		json_array_append_new(msgs, m);
		p += n + (p[n] == '\n');
	}
	json_object_set_new(o, "messages", msgs);
	json_object_set_new(o, "message_lines", json_integer(r->message_lines));
	return o;
}

json_t *freespace_json(const struct freespace_result *r)
{
	json_t *o = json_object(), *h;
	const bool ok = !r->absent;

	json_object_set_new(o, "check", json_string("freespace"));
	json_object_set_new(o, "fstype", json_string(r->fstype));
	json_object_set_new(o, "device", json_string(r->device));
	json_object_set_new(o, "tool", str_or_null(r->tool));
	json_object_set_new(o, "command", str_or_null(r->command));
	json_object_set_new(o, "absent", ok ? json_null() : json_string(r->why));
	json_object_set_new(o, "device_busy", json_boolean(r->busy));
	json_object_set_new(o, "block_bytes", ok ? json_u64(r->block_bytes) : json_null());
	json_object_set_new(o, "total_bytes", ok && r->total_bytes ? json_u64(r->total_bytes) : json_null());
	json_object_set_new(o, "free_bytes", ok ? json_u64(r->free_bytes) : json_null());
	json_object_set_new(o, "free_extents", ok ? json_u64(r->free_extents) : json_null());
	json_object_set_new(o, "largest_free_extent_bytes", ok && r->largest_bytes ? json_u64(r->largest_bytes) : json_null());
	if (ok) {
		h = json_array();
		for (unsigned i = 0; i < r->nbuckets; i++)
			json_array_append_new(h, json_pack("{s:o,s:o,s:o,s:o}", "min_bytes", json_u64(r->b[i].min_bytes),
				"max_bytes", json_u64(r->b[i].max_bytes), "extents", json_u64(r->b[i].extents),
				"free_bytes", json_u64(r->b[i].free_bytes)));
		json_object_set_new(o, "histogram", h);
	} else {
		json_object_set_new(o, "histogram", json_null());
	}
	run_fields(o, &r->run, r->command[0] && r->run.out, r->timeout_ns);
	return o;
}
