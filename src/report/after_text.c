/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The after-run tools' results as text (report/after_text.h). Everything that comes from the
 * tools or the command line (their lines, reasons that quote them, device names) is escaped
 * (core/quote.h): no terminal escape sequence of theirs reaches the terminal. */
#include "report/after_text.h"

#include <string.h>

#include "core/quote.h"

/* s escaped; n bytes of it when n is not SIZE_MAX */
static const char *q(const char *s, size_t n, char *buf, size_t len)
{
	char line[4096];

	if (n != SIZE_MAX) {
		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), s);
		s = line;
	}
	return quote_str(s, buf, len);
}

static void cost(FILE *out, const struct spawn_result *r, const char *command, uint64_t timeout_ns)
{
	char b[QUOTE_MAX];

	fprintf(out, "  command: %s\n", q(command, SIZE_MAX, b, sizeof(b)));
	fprintf(out, "  time: %.3f s wall, %.3f s user, %.3f s system; peak RSS %llu KiB", (double)r->wall_ns / 1e9,
		r->usr_s, r->sys_s, (unsigned long long)r->max_rss_kib);
	if (timeout_ns)
		fprintf(out, "; time limit %llu s", (unsigned long long)(timeout_ns / 1000000000));
	fputc('\n', out);
}

static void head(FILE *out, const char *check, const char *fstype, const char *device)
{
	char a[128], b[QUOTE_MAX];

	fprintf(out, "%s %s %s: ", check, q(fstype, SIZE_MAX, a, sizeof(a)), q(device, SIZE_MAX, b, sizeof(b)));
}

void fsck_text_print(FILE *out, const struct fsck_result *r)
{
	char b[QUOTE_MAX];
	unsigned shown = 0;

	head(out, "fsck", r->fstype, r->device);
	switch (r->verdict) {
	case FSCK_ABSENT:
		fprintf(out, "absent: %s\n", q(r->why, SIZE_MAX, b, sizeof(b)));
		return;
	case FSCK_CLEAN:
		fprintf(out, "clean (%s exit 0)\n", r->tool);
		break;
	case FSCK_ERRORS:
		fprintf(out, "ERRORS FOUND by %s (exit %d)\n", r->tool, r->run.exit_code);
		break;
	case FSCK_FAILED:
		fprintf(out, "CHECK FAILED: %s\n", q(r->why, SIZE_MAX, b, sizeof(b)));
		break;
	}
	if (!r->command[0])
		return;
	/* what the checker said beyond its progress lines: the finding, in its own words */
	for (const char *p = r->messages; p && *p; shown++) {
		size_t n = strcspn(p, "\n");

		fprintf(out, "  | %s\n", q(p, n, b, sizeof(b)));
		p += n + (p[n] == '\n');
	}
	if (r->message_lines > shown)
		fprintf(out, "  | ... %u more lines\n", r->message_lines - shown);
	cost(out, &r->run, r->command, r->timeout_ns);
}

/* bytes as people read them */
static const char *hb(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double b = (double)v;
	int u = 0;

	while (u < 5 && b >= 1024) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, unit[u]);
	return buf;
}

void freespace_text_print(FILE *out, const struct freespace_result *r)
{
	char a[32], b[32], c[32], w[QUOTE_MAX];

	head(out, "freespace", r->fstype, r->device);
	if (r->absent) {
		fprintf(out, "absent: %s\n", q(r->why, SIZE_MAX, w, sizeof(w)));
		if (r->command[0] && r->run.out)
			cost(out, &r->run, r->command, r->timeout_ns);
		return;
	}
	fprintf(out, "%llu free extents, %s free", (unsigned long long)r->free_extents,
		hb(r->free_bytes, a, sizeof(a)));
	if (r->total_bytes)
		fprintf(out, " of %s", hb(r->total_bytes, b, sizeof(b)));
	if (r->largest_bytes)
		fprintf(out, ", largest %s", hb(r->largest_bytes, c, sizeof(c)));
	fprintf(out, " (%s)\n", r->tool);
	fprintf(out, "  %-24s %10s %12s %7s\n", "free extent size", "extents", "free space", "%");
	for (unsigned i = 0; i < r->nbuckets; i++) {
		char range[80];

		snprintf(range, sizeof(range), "%s .. %s", hb(r->b[i].min_bytes, a, sizeof(a)),
			 hb(r->b[i].max_bytes, b, sizeof(b)));
		fprintf(out, "  %-24s %10llu %12s %7.2f\n", range, (unsigned long long)r->b[i].extents,
			hb(r->b[i].free_bytes, c, sizeof(c)),
			r->free_bytes ? 100.0 * (double)r->b[i].free_bytes / (double)r->free_bytes : 0.0);
	}
	cost(out, &r->run, r->command, r->timeout_ns);
}
