/* SPDX-License-Identifier: GPL-2.0-or-later */
/* clock: the TSC check on reference pairs (rate, origin, time standing still) and, on this
 * machine, that latencies through lat_now()/lat_ns() agree with CLOCK_MONOTONIC. */
#include <errno.h>
#include <stdint.h>
#include <time.h>

#include "check.h"
#include "core/clock.h"

/* a 2 GHz counter: 0.5 ns per tick, 2^31 in 32.32; each pair read within 10 ns */
#define P(ns, tsc)              \
	{                       \
		(ns), (tsc), 10 \
	}

static const struct {
	const char *name;
	unsigned n;
	struct tsc_pair p0[2], p1[2];
	int want;
	uint64_t mult;
} cases[] = {
	{ "one cpu",
	  1,
	  { P(1000000000, 2000000000) },
	  { P(1002000000, 2004000000) },
	  0,
	  UINT64_C(2147483648) },
	{ "two cpus in step",
	  2,
	  { P(1000000000, 2000000000), P(1000010000, 2000020000) },
	  { P(1002000000, 2004000000), P(1002010000, 2004020000) },
	  0,
	  UINT64_C(2147483648) },
	{ "origin 100 ns off: within the skew",
	  2,
	  { P(1000000000, 2000000000), P(1000010000, 2000020200) },
	  { P(1002000000, 2004000000), P(1002010000, 2004020200) },
	  0,
	  UINT64_C(2147483648) },
	{ "origin 500 ns off",
	  2,
	  { P(1000000000, 2000000000), P(1000010000, 2000021000) },
	  { P(1002000000, 2004000000), P(1002010000, 2004021000) },
	  -ERANGE,
	  0 },
	{ "rate 150 ppm off",
	  2,
	  { P(1000000000, 2000000000), P(1000010000, 2000020000) },
	  { P(1002000000, 2004000000), P(1002010000, 2004020600) },
	  -ERANGE,
	  0 },
	{ "rate 50 ppm off: within",
	  2,
	  { P(1000000000, 2000000000), P(1000010000, 2000020000) },
	  { P(1002000000, 2004000000), P(1002010000, 2004020200) },
	  0,
	  UINT64_C(2147483648) },
	{ "counter stands still",
	  1,
	  { P(1000000000, 2000000000) },
	  { P(1002000000, 2000000000) },
	  -EINVAL,
	  0 },
	{ "second cpu goes back",
	  2,
	  { P(1000000000, 2000000000), P(1000010000, 2000020000) },
	  { P(1002000000, 2004000000), P(1002010000, 2000000000) },
	  -EINVAL,
	  0 },
	{ "reads 2 us wide over 2 ms: rate unknown to 0.2 %",
	  1,
	  { { 1000000000, 2000000000, 2000 } },
	  { { 1002000000, 2004000000, 2000 } },
	  -ERANGE,
	  0 },
};

int main(void)
{
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t mult = 0;
		int rc = clock_tsc_check(cases[i].p0, cases[i].p1, cases[i].n, &mult);

		CHECK(rc == cases[i].want, "%s: %d, want %d", cases[i].name, rc, cases[i].want);
		if (!cases[i].want)
			CHECK(mult == cases[i].mult, "%s: mult %llu", cases[i].name,
			      (unsigned long long)mult);
	}
	/* whichever source this machine gets, a 20 ms sleep measures 20 ms within 1 % */
	clock_init();
	{
		struct timespec pause = { 0, 20000000 };
		uint64_t n0 = clock_ns(), l0 = lat_now(), l1, n1;
		double r;

		nanosleep(&pause, NULL);
		l1 = lat_now();
		n1 = clock_ns();
		r = (double)lat_ns(l1 - l0) / (double)(n1 - n0);
		CHECK(r > 0.99 && r <= 1.0 + 1e-3, "%s: lat %.6f x CLOCK_MONOTONIC", clock_latency_source(),
		      r);
	}
	return check_done("clock");
}
