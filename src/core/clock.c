/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Latency clock selection and TSC calibration against CLOCK_MONOTONIC (see clock.h). */
#include "core/clock.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool clock_use_tsc;
uint64_t clock_tsc_mult;
static bool initialised;

static bool file_has_word(const char *path, const char *prefix, const char *const *words)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		bool all = true;

		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		for (const char *const *w = words; *w; w++) {
			char pat[64];

			snprintf(pat, sizeof(pat), " %s", *w);
			/* whole word: followed by a space or the end of the line */
			char *at = strstr(line, pat);

			while (at && at[strlen(pat)] != ' ' && at[strlen(pat)] != '\n' && at[strlen(pat)])
				at = strstr(at + 1, pat);
			if (!at)
				all = false;
		}
		found = all;
		break;                   /* the first CPU's flags speak for all */
	}
	free(line);
	fclose(f);
	return found;
}

/* the kernel's CLOCK_MONOTONIC clocksource ("tsc", "kvm-clock", ...), "" when unknown */
static const char *clocksource(void)
{
	static char buf[32];
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* The pair check (clock.h). Every rate is known to within the brackets of its two pairs over
 * the time between them: that uncertainty, CPU 0's own within TSC_CAL_PPM, widens the rate
 * tolerance and the origin tolerance. */
int clock_tsc_check(const struct tsc_pair *p0, const struct tsc_pair *p1, unsigned n, uint64_t *mult)
{
	long double m, span0;

	if (!n || p1[0].tsc <= p0[0].tsc || p1[0].ns <= p0[0].ns)
		return -EINVAL;
	span0 = (long double)(p1[0].ns - p0[0].ns);
	if ((long double)(p0[0].bracket_ns + p1[0].bracket_ns) > span0 * TSC_CAL_PPM * 1e-6L)
		return -ERANGE;
	m = span0 / (long double)(p1[0].tsc - p0[0].tsc);
	for (unsigned c = 0; c < n; c++) {
		long double mc, span, unc;

		if (p1[c].tsc <= p0[c].tsc || p1[c].ns <= p0[c].ns)
			return -EINVAL;
		span = (long double)(p1[c].ns - p0[c].ns);
		mc = span / (long double)(p1[c].tsc - p0[c].tsc);
		unc = (long double)(p0[c].bracket_ns + p1[c].bracket_ns) / span +
		      (long double)(p0[0].bracket_ns + p1[0].bracket_ns) / span0;
		if (mc > m * (1 + TSC_PPM * 1e-6L + unc) || mc < m * (1 - TSC_PPM * 1e-6L - unc))
			return -ERANGE;
		for (unsigned k = 0; k < 2; k++) {
			const struct tsc_pair *a = k ? &p1[c] : &p0[c], *r = k ? &p1[0] : &p0[0];
			long double pred =
				(long double)r->ns + ((long double)a->tsc - (long double)r->tsc) * m;
			long double tol = TSC_SKEW_NS + (long double)(a->bracket_ns + r->bracket_ns);

			if (pred - (long double)a->ns > tol || (long double)a->ns - pred > tol)
				return -ERANGE;
		}
	}
	*mult = (uint64_t)(m * 4294967296.0L + 0.5L);
	return *mult ? 0 : -ERANGE;
}

#if defined(__x86_64__)
/* A TSC read between two clock reads, their midpoint its time: the narrowest of a few tries
 * (a preemption between the reads widens the bracket) */
static void tsc_pair_take(struct tsc_pair *p)
{
	p->bracket_ns = UINT64_MAX;
	for (int k = 0; k < 8; k++) {
		uint64_t a = clock_ns(), t = __rdtsc(), b = clock_ns();

		if (b - a < p->bracket_ns) {
			p->bracket_ns = b - a;
			p->ns = a + (b - a) / 2;
			p->tsc = t;
		}
	}
}

/* Pairs on each CPU the process may run on, moving there (the affinity is put back). n: the
 * CPUs taken, at most TSC_CHECK_CPUS; 0 when the affinity cannot be read or set. */
static unsigned tsc_pairs_all(struct tsc_pair *out, const cpu_set_t *mask)
{
	unsigned n = 0;

	for (int cpu = 0; cpu < CPU_SETSIZE && n < TSC_CHECK_CPUS; cpu++) {
		cpu_set_t one;

		if (!CPU_ISSET(cpu, mask))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			return 0;
		tsc_pair_take(&out[n++]);
	}
	return n;
}

/* The kernel keeps CLOCK_MONOTONIC on kvm-clock (a guest: the TSC scaled by the host's
 * figures) and may have been told the TSC is unstable, which a guest's kernel says when it
 * cannot prove the counters agree across vCPUs or survive a migration. Proven here instead,
 * for this run: the same rate and the same origin on every CPU this process may use. */
static bool tsc_checked(uint64_t *mult)
{
	static struct tsc_pair p0[TSC_CHECK_CPUS], p1[TSC_CHECK_CPUS];
	struct timespec pause = { 0, 2000000 };
	cpu_set_t mask;
	unsigned n0, n1;

	if (sched_getaffinity(0, sizeof(mask), &mask) || CPU_COUNT(&mask) > TSC_CHECK_CPUS)
		return false;
	/* a busy host can preempt a pair's reads: up to three tries */
	for (int k = 0; k < 3; k++) {
		n0 = tsc_pairs_all(p0, &mask);
		nanosleep(&pause, NULL);
		n1 = n0 ? tsc_pairs_all(p1, &mask) : 0;
		if (sched_setaffinity(0, sizeof(mask), &mask) || !n0 || n1 != n0)
			return false;
		if (clock_tsc_check(p0, p1, n0, mult) != -ERANGE)
			return clock_tsc_check(p0, p1, n0, mult) == 0;
	}
	return false;
}
#endif

void clock_init(void)
{
#if defined(__x86_64__)
	static const char *const flags[] = { "constant_tsc", "nonstop_tsc", NULL };
	struct tsc_pair p0, p1;
	struct timespec pause = { 0, 2000000 };
	const char *src;

	if (initialised)
		return;
	initialised = true;
	if (getenv("FSBENCH_CLOCK_MONOTONIC") || !file_has_word("/proc/cpuinfo", "flags", flags))
		return;
	src = clocksource();
	if (!strcmp(src, "kvm-clock")) {
		clock_use_tsc = tsc_checked(&clock_tsc_mult);
		return;
	}
	if (strcmp(src, "tsc"))
		return;
	tsc_pair_take(&p0);
	nanosleep(&pause, NULL);
	tsc_pair_take(&p1);
	if (clock_tsc_check(&p0, &p1, 1, &clock_tsc_mult))
		return;
	clock_use_tsc = true;
#else
	initialised = true;
#endif
}

const char *clock_latency_source(void)
{
	return clock_use_tsc ? "tsc" : "clock_monotonic";
}

double clock_tsc_ghz(void)
{
	return clock_use_tsc ? 4294967296.0 / (double)clock_tsc_mult : 0;
}
