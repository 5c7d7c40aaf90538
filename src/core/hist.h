/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Latency histogram: log-linear buckets over the whole uint64 nanosecond range.
 *
 * Design. Values below 2^HIST_SUB_BITS (64 ns) get one bucket each, so they are exact. Every
 * octave [2^e, 2^(e+1)) above that is cut into HIST_SUB = 64 equal sub-buckets of width 2^(e-6).
 * The index is continuous: idx = (e-6)*64 + (v >> (e-6)) for e >= 6, idx = v below, so one clz,
 * one shift and one add find the bucket (O(1), no loops, no locks: one histogram per worker per
 * op type, merged after join).
 *
 * Error bound. A percentile is reported as the midpoint of its bucket, clamped to [min, max].
 * The half-width is 2^(e-7) against a value of at least 2^e, so the relative error is at most
 * 1/128 = 0.78 % for any recorded value (0 below 64 ns).
 *
 * Range and memory. 1 ns to 2^64 ns (584 years; the goal was at least one hour) in
 * HIST_NBUCKETS = 3776 counters of 8 bytes: 29.5 KiB per histogram, constant whatever the count.
 * count, sum, min and max are kept exactly, so mean, min and max are exact; merge is exact
 * (bucket-wise addition). sum cannot overflow before 584 years of summed latency.
 */
#ifndef FSB_HIST_H
#define FSB_HIST_H
#include <stdbool.h>
#include <stdint.h>

#define HIST_SUB_BITS 6
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_NBUCKETS ((64 - HIST_SUB_BITS) * HIST_SUB + HIST_SUB)

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t buckets[HIST_NBUCKETS];
};

void hist_init(struct hist *h);

static inline unsigned hist_index(uint64_t v)
{
	unsigned e;

	if (v < HIST_SUB)
		return (unsigned)v;
	e = 63u - (unsigned)__builtin_clzll(v);
	return (e - HIST_SUB_BITS) * HIST_SUB + (unsigned)(v >> (e - HIST_SUB_BITS));
}

/* Only the owning thread records, but a sampler thread may read a live histogram (see
 * sample.h): stores are relaxed atomics, which compile to plain stores (no lock, no fence). */
#define HIST_PUBLISH(lv, v) __atomic_store_n(&(lv), (v), __ATOMIC_RELAXED)
#define HIST_PEEK(lv) __atomic_load_n(&(lv), __ATOMIC_RELAXED)

static inline void hist_record(struct hist *h, uint64_t v)
{
	unsigned i = hist_index(v);

	HIST_PUBLISH(h->buckets[i], h->buckets[i] + 1);
	HIST_PUBLISH(h->count, h->count + 1);
	HIST_PUBLISH(h->sum, h->sum + v);
	if (v < h->min)
		HIST_PUBLISH(h->min, v);
	if (v > h->max)
		HIST_PUBLISH(h->max, v);
}

/* Bounds of bucket idx: [*lo, *hi], both inclusive. */
void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi);
void hist_merge(struct hist *dst, const struct hist *src);
/* Nearest-rank percentile (p in [0,100]): the smallest recorded value v such that at least p %
 * of values are <= v, within the error bound above. 0 when empty. */
uint64_t hist_percentile(const struct hist *h, double p);
double hist_mean(const struct hist *h);
/* Value of the lower bound of the bucket, used by readers that rebuild a histogram. */
int hist_set_bucket(struct hist *h, uint64_t lo, uint64_t count);

/* A finished histogram kept for later (fs_mark: one per op type per --repeat run): count, sum,
 * min, max and the non-empty buckets only, a few hundred bytes where a struct hist is 29.5 KiB.
 * Unpacking gives back the same histogram exactly. A zeroed struct is an empty histogram. */
struct hist_packed {
	uint64_t count, sum, min, max;
	unsigned n;                   /* non-empty buckets */
	uint32_t *idx;                /* their indexes, ascending */
	uint64_t *cnt;                /* their counts */
};
/* 0, or -ENOMEM with p left empty. p must be empty (zeroed or freed). */
int hist_pack(struct hist_packed *p, const struct hist *h);
void hist_unpack(const struct hist_packed *p, struct hist *h);
void hist_packed_free(struct hist_packed *p);
#endif
