/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/sys/cpuload.c: /proc/stat's cpu line (busy, total, steal), the window's
   shares with steal time, and a live snapshot pair on this machine. */
#include "sys/cpuload.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

struct stat_case {
	const char *line;
	int rc;
	unsigned long long busy, total, steal;
};

static const struct stat_case stat_cases[] = {
	/* user nice system idle iowait irq softirq steal guest guest_nice */
	{ "cpu  100 5 50 1000 20 3 2 40 0 0\n", 0, 155, 1220, 40 },
	{ "cpu  7 0 3 90 0 0 0 0 0 0\n", 0, 10, 100, 0 },
	/* guest time is already inside user: not counted twice */
	{ "cpu  300 0 100 600 0 0 0 0 250 0\n", 0, 400, 1000, 0 },
	/* a kernel before steal (2.6.11): four fields, no steal */
	{ "cpu  10 0 10 80\n", 0, 20, 100, 0 },
	{ "cpu0 1 2 3 4 5 6 7 8\n", -5, 0, 0, 0 },
	{ "intr 12345\n", -5, 0, 0, 0 },
	{ "cpu  1 2\n", -5, 0, 0, 0 },
	{ "", -5, 0, 0, 0 },
};

int main(void)
{
	for (size_t i = 0; i < sizeof(stat_cases) / sizeof(stat_cases[0]); i++) {
		const struct stat_case *c = &stat_cases[i];
		struct cpuload_snap s;
		int rc;

		memset(&s, 0, sizeof(s));
		rc = cpuload_parse_stat(c->line, &s);
		CHECK(rc == c->rc, "case %zu: rc %d, want %d", i, rc, c->rc);
		if (rc || c->rc)
			continue;
		CHECK(s.busy == c->busy && s.total == c->total && s.steal == c->steal,
		      "case %zu: busy %llu total %llu steal %llu, want %llu %llu %llu", i, (unsigned long long)s.busy,
		      (unsigned long long)s.total, (unsigned long long)s.steal, c->busy, c->total, c->steal);
	}

	/* a window: 1000 ticks of capacity, 250 of them stolen, 300 busy */
	{
		struct cpuload_snap a, b;
		struct cpuload l;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		CHECK(cpuload_parse_stat("cpu  100 0 100 800 0 0 0 100 0 0", &a) == 0, "window: a");
		CHECK(cpuload_parse_stat("cpu  300 0 200 1250 0 0 0 350 0 0", &b) == 0, "window: b");
		cpuload_window(&a, &b, &l);
		CHECK(fabs(l.steal_pct - 25.0) < 1e-9, "window: steal %.3f %%, want 25", l.steal_pct);
		CHECK(fabs(l.busy_pct - 30.0) < 1e-9, "window: busy %.3f %%, want 30", l.busy_pct);
		CHECK(fabs(l.other_pct - 30.0) < 1e-9, "window: other %.3f %%, want 30 (nothing own)", l.other_pct);
	}

	/* live: two snapshots of this machine; steal is a share, never negative */
	{
		struct cpuload_snap a, b;
		struct cpuload l;
		volatile double x = 0;

		CHECK(cpuload_snap(&a) == 0, "live: first snapshot");
		for (int i = 0; i < 20000000; i++)
			x += i;
		CHECK(cpuload_snap(&b) == 0, "live: second snapshot");
		cpuload_window(&a, &b, &l);
		CHECK(l.steal_pct >= 0 && l.steal_pct <= 100, "live: steal %.3f %%", l.steal_pct);
		CHECK(l.own_pct >= 0, "live: own %.3f %%", l.own_pct);
	}
	return check_done("test_cpuload");
}
