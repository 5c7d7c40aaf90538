/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one clock of fsbench: CLOCK_MONOTONIC in nanoseconds. Report code converts units.
 *
 * Per-op latency needs two reads around every syscall, and on tmpfs a syscall is ~1 us, so
 * the read itself matters: the vDSO's clock_gettime costs ~35 ns here, two per op are 5 % of
 * a pread. When the kernel's own CLOCK_MONOTONIC clocksource is the TSC (constant and nonstop,
 * synchronised across CPUs, or the kernel would not use it), lat_now() reads that same counter
 * directly (~15 ns) and lat_ns() scales a difference to nanoseconds with the TSC/CLOCK_MONOTONIC
 * ratio measured at start-up (clock_init(), 0.005 % or better: far inside the histogram's
 * 0.78 %). A guest whose kernel keeps CLOCK_MONOTONIC on kvm-clock (the TSC scaled by the
 * host's figures, ~30 ns a vDSO read: two per op were the largest part of what fsbench adds
 * to a tmpfs op, bench/README.md) gets the same when the TSC proves itself at start-up on
 * every CPU the process may use: the same rate as CLOCK_MONOTONIC within TSC_PPM, and the
 * same origin within TSC_SKEW_NS, both beyond what the brackets of the reads leave unknown
 * (a thread that moves between the two reads of an op gets no
 * more error than that). Everywhere else lat_now() is clock_ns(). Phase windows and
 * timestamps always use clock_ns(); only latency differences go through lat_*. */
#ifndef FSB_CLOCK_H
#define FSB_CLOCK_H
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static inline uint64_t clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define NS_PER_S 1000000000.0

/* An instant of clock_ns()'s timeline as pthread_cond_timedwait takes it, for a condition
 * variable made by clock_cond_init (timed on CLOCK_MONOTONIC, as everything else). */
static inline struct timespec clock_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u), .tv_nsec = (long)(ns % 1000000000u) };
}

static inline void clock_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}

/* set once by clock_init() before any worker runs, read-only afterwards */
extern bool clock_use_tsc;
extern uint64_t clock_tsc_mult;      /* ns per tick, 32.32 fixed point */

/* One TSC read and the CLOCK_MONOTONIC time it was taken at, within bracket_ns. */
struct tsc_pair {
	uint64_t ns, tsc, bracket_ns;
};

#define TSC_PPM	       100  /* rate: any CPU against the first */
#define TSC_SKEW_NS    250  /* origin: any CPU against the first, beyond the brackets */
#define TSC_CAL_PPM    1000 /* CPU 0's rate known to 0.1 % or better, or not used */
#define TSC_CHECK_CPUS 256  /* more CPUs than this: not checked, clock_gettime */

/* pairs p0[c] and, later, p1[c] taken on each of n CPUs: 0 when they agree (rate and origin,
 * above), with *mult the ns per tick (32.32) of CPU 0's; -ERANGE when they do not, -EINVAL
 * when time does not advance. Pure: the unit test feeds it reference pairs. */
int clock_tsc_check(const struct tsc_pair *p0, const struct tsc_pair *p1, unsigned n, uint64_t *mult);
/* Decides whether latencies use the TSC and calibrates it; safe to call more than once. */
void clock_init(void);
/* What latencies are measured with, for the JSON: "tsc" or "clock_monotonic". */
const char *clock_latency_source(void);
double clock_tsc_ghz(void);

static inline uint64_t lat_now(void)
{
#if defined(__x86_64__)
	if (__builtin_expect(clock_use_tsc, 1))
		return __rdtsc();
#endif
	return clock_ns();
}

/* nanoseconds as a difference of lat_now() values (lat_ns's inverse, to a tick) */
static inline uint64_t lat_span(uint64_t ns)
{
	if (clock_use_tsc && clock_tsc_mult)
		return (uint64_t)(((unsigned __int128)ns << 32) / clock_tsc_mult);
	return ns;
}

/* a difference of two lat_now() values, in nanoseconds */
static inline uint64_t lat_ns(uint64_t d)
{
	if (clock_use_tsc)
		return (uint64_t)(((unsigned __int128)d * clock_tsc_mult) >> 32);
	return d;
}
#endif
