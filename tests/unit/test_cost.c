/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/cost: cost per op from raw counters, by hand; a synthetic tiotest phase
 * (two threads, a kernel view) whose figures equal the hand computation from what its JSON
 * writes (each thread's CPU, start and end, the phase's ops, the device's bytes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/cost.h"
#include "workload/tiotest.h"

static int close_rel(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b) + 1e-12;
}

int main(void)
{
	static const struct {
		struct cost_raw c;
		double want[COST_NFIGS];   /* NaN: none */
	} cases[] = {
		/* 1000 ops, 0.01 s user, 0.04 s system, 0.25 s of windows: 10, 40, 200 us */
		{ { .ops = 1000, .usr_s = 0.01, .sys_s = 0.04, .busy_s = 0.25, .nvcsw = 500, .nivcsw = 20,
		    .have_dev = true, .dev_bytes = 4096000, .dev_reqs = 250 },
		  { 10, 40, 200, 0.5, 0.02, 4096, 0.25 } },
		/* no kernel view: no device figures */
		{ { .ops = 4, .usr_s = 0, .sys_s = 0.002, .busy_s = 0.002 }, { 0, 500, 0, 0, 0, NAN, NAN } },
		/* CPU a hair over the window (tick split): wait is 0, not negative */
		{ { .ops = 10, .usr_s = 0.006, .sys_s = 0.005, .busy_s = 0.01 }, { 600, 500, 0, 0, 0, NAN, NAN } },
		/* no ops: nothing */
		{ { .ops = 0, .usr_s = 1, .busy_s = 2 }, { NAN, NAN, NAN, NAN, NAN, NAN, NAN } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double f[COST_NFIGS];

		cost_figures(&cases[i].c, f);
		for (int k = 0; k < COST_NFIGS; k++)
			CHECK(isnan(cases[i].want[k]) ? isnan(f[k]) : close_rel(f[k], cases[i].want[k]),
			      "case %zu figure %d: %g, want %g", i, k, f[k], cases[i].want[k]);
	}

	/* merge adds raw counters; the figures are recomputed, not averaged */
	{
		struct cost_raw a = { .ops = 100, .sys_s = 0.001, .busy_s = 0.002 };
		struct cost_raw b = { .ops = 300, .sys_s = 0.009, .busy_s = 0.010, .have_dev = true, .dev_bytes = 300 };
		double f[COST_NFIGS];

		cost_merge(&a, &b);
		cost_figures(&a, f);
		CHECK(close_rel(f[COST_SYS], 25), "merged system per op %g", f[COST_SYS]);
		CHECK(close_rel(f[COST_WAIT], 5), "merged wait per op %g", f[COST_WAIT]);
		CHECK(close_rel(f[COST_DEV_BYTES], 0.75), "merged device bytes per op %g", f[COST_DEV_BYTES]);
	}

	/* a synthetic tiotest phase: what tio_result_figures makes of the fields the JSON writes */
	{
		static struct tio_result r;
		struct tio_thread_result th[2] = {
			{ .ops = 600, .start_ns = 1000, .end_ns = 30001000, .usr_s = 0.002, .sys_s = 0.012,
			  .nvcsw = 30, .nivcsw = 3 },
			{ .ops = 400, .start_ns = 0, .end_ns = 20000000, .usr_s = 0.001, .sys_s = 0.005, .nvcsw = 10 },
		};
		struct tio_phase_result *pr = &r.phase[1];
		double ops = 1000, usr = 0.003, sys = 0.017, wall = 0.030 + 0.020;

		for (int p = 0; p < TIO_NPHASES; p++)
			opstat_init(&r.phase[p].st);
		opstat_init(&r.total);
		pr->ran = true;
		pr->threads = th;
		pr->nthreads = 2;
		pr->wall_ns = 30001000;
		for (int k = 0; k < 1000; k++)
			opstat_add(&pr->st, 1000, 4096);
		pr->obs.taken = true;
		pr->obs.k.ndisks = 2;
		pr->obs.k.disk[0] = (struct kstat_disk_delta){ .found = true, .primary = true, .wr_bytes = 4096000,
								.wr_ios = 100, .rd_bytes = 8192, .rd_ios = 2 };
		/* a disk under the primary one counts the same I/O again: left out */
		pr->obs.k.disk[1] = (struct kstat_disk_delta){ .found = true, .primary = false, .wr_bytes = 4096000,
								.wr_ios = 100 };
		tio_result_figures(&r);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_USR], 1e6 * usr / ops), "usr %g",
		      pr->fig[TIO_FIG_COST + COST_USR]);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_SYS], 1e6 * sys / ops), "sys %g",
		      pr->fig[TIO_FIG_COST + COST_SYS]);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_WAIT], 1e6 * (wall - usr - sys) / ops), "wait %g",
		      pr->fig[TIO_FIG_COST + COST_WAIT]);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_VCSW], 40 / ops), "vcsw %g",
		      pr->fig[TIO_FIG_COST + COST_VCSW]);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_IVCSW], 3 / ops), "ivcsw %g",
		      pr->fig[TIO_FIG_COST + COST_IVCSW]);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_DEV_BYTES], (4096000 + 8192) / ops), "device bytes %g",
		      pr->fig[TIO_FIG_COST + COST_DEV_BYTES]);
		CHECK(close_rel(pr->fig[TIO_FIG_COST + COST_DEV_REQS], 102 / ops), "device requests %g",
		      pr->fig[TIO_FIG_COST + COST_DEV_REQS]);
		/* the declarations: exploratory (neither primary nor derived), recomputed over processes */
		for (int k = 0; k < COST_NFIGS; k++) {
			const struct figure *fg = &tio_phase_figs[TIO_FIG_COST + k];

			CHECK(fg->key && !(fg->flags & (FIG_PRIMARY | FIG_DERIVED)) && fg->over_procs == FIG_RECOMPUTE,
			      "figure %d declared as exploratory", k);
		}
	}
	return check_done("test_cost");
}
