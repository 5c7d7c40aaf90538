/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hist: every percentile from p50 to p99.99 within 1 % of the exact value on random and
 * adversarial distributions; exact count/min/max/mean; exact merge; bucket geometry. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/hist.h"

static uint64_t rng_state = 42;

static uint64_t rnd(void)
{
	uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static double unif(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define HOUR_NS UINT64_C(3600000000000)

typedef uint64_t (*gen_fn)(size_t i, size_t n);

static uint64_t g_uniform(size_t i, size_t n) { (void)i; (void)n; return 1 + rnd() % 1000000; }
static uint64_t g_lognormal(size_t i, size_t n)
{
	(void)i; (void)n;
	double u1 = unif() + 1e-12, u2 = unif();
	double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

	return (uint64_t)exp(9.0 + 1.5 * z) + 1;
}
static uint64_t g_exponential(size_t i, size_t n) { (void)i; (void)n; return (uint64_t)(-log(unif() + 1e-15) * 50000.0) + 1; }
static uint64_t g_bimodal(size_t i, size_t n) { (void)i; (void)n; return rnd() % 10 ? 1000 + rnd() % 100 : 10000000 + rnd() % 1000000; }
static uint64_t g_constant(size_t i, size_t n) { (void)i; (void)n; return 123457; }
static uint64_t g_pow2(size_t i, size_t n) { (void)n; return UINT64_C(1) << (i % 42); }
static uint64_t g_pow2_minus1(size_t i, size_t n) { (void)n; return (UINT64_C(2) << (i % 41)) - 1; }
static uint64_t g_small(size_t i, size_t n) { (void)n; return 1 + i % 130; }
static uint64_t g_heavy_tail(size_t i, size_t n) { (void)n; return i % 1000 == 7 ? HOUR_NS - rnd() % 1000 : 500 + rnd() % 200; }
static uint64_t g_hour(size_t i, size_t n) { (void)i; (void)n; return 1 + rnd() % HOUR_NS; }
static uint64_t g_descending(size_t i, size_t n) { return (n - i) * 997; }
static uint64_t g_full_range(size_t i, size_t n) { (void)i; (void)n; return rnd() >> (rnd() % 64); }

static const struct {
	const char *name;
	gen_fn gen;
	size_t n;
} dists[] = {
	{ "uniform", g_uniform, 200000 },
	{ "lognormal", g_lognormal, 200000 },
	{ "exponential", g_exponential, 200000 },
	{ "bimodal", g_bimodal, 100000 },
	{ "constant", g_constant, 5000 },
	{ "powers of two", g_pow2, 42000 },
	{ "powers of two minus one", g_pow2_minus1, 41000 },
	{ "small exact values", g_small, 13000 },
	{ "heavy tail to one hour", g_heavy_tail, 100000 },
	{ "uniform up to one hour", g_hour, 100000 },
	{ "descending", g_descending, 100000 },
	{ "full 64-bit range", g_full_range, 100000 },
	{ "single value", g_uniform, 1 },
	{ "two values", g_lognormal, 2 },
};

static uint64_t exact_percentile(const uint64_t *sorted, size_t n, double p)
{
	double r = p / 100.0 * (double)n;
	size_t rank = (size_t)r;

	if ((double)rank < r)
		rank++;
	if (rank < 1)
		rank = 1;
	return sorted[rank - 1];
}

static void check_dist(size_t d)
{
	size_t n = dists[d].n;
	uint64_t *v = malloc(n * sizeof(*v)), sum = 0, mn = UINT64_MAX, mx = 0;
	struct hist *h = malloc(sizeof(*h)), *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	double worst = 0;

	hist_init(h);
	hist_init(a);
	hist_init(b);
	for (size_t i = 0; i < n; i++) {
		v[i] = dists[d].gen(i, n);
		hist_record(h, v[i]);
		/* split across two "workers" unevenly for the merge check */
		hist_record(i % 3 ? a : b, v[i]);
		sum += v[i];
		mn = v[i] < mn ? v[i] : mn;
		mx = v[i] > mx ? v[i] : mx;
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK(h->count == n, "%s: count", dists[d].name);
	CHECK(h->min == mn && h->max == mx, "%s: min/max", dists[d].name);
	CHECK(h->sum == sum, "%s: sum", dists[d].name);
	CHECK(fabs(hist_mean(h) - (double)sum / (double)n) < 1e-6 * ((double)sum / (double)n) + 1e-9,
	      "%s: mean", dists[d].name);
	/* every percentile from p50 to p99.99 */
	for (double p = 50.0; p <= 99.99 + 1e-9; p += (p < 99 ? 0.5 : p < 99.9 ? 0.05 : 0.01)) {
		uint64_t want = exact_percentile(v, n, p), got = hist_percentile(h, p);
		double err = want ? fabs((double)got - (double)want) / (double)want : (double)got;

		if (err > worst)
			worst = err;
		CHECK(err <= 0.01, "%s: p%.2f = %llu, exact %llu (%.3f%%)", dists[d].name, p,
		      (unsigned long long)got, (unsigned long long)want, 100 * err);
	}
	CHECK(hist_percentile(h, 100) == mx && hist_percentile(h, 0) == mn, "%s: p0/p100", dists[d].name);
	hist_merge(a, b);
	CHECK(!memcmp(a, h, sizeof(*h)), "%s: merge of two halves equals the whole", dists[d].name);
	printf("%-26s n=%-7zu worst percentile error %.4f%%\n", dists[d].name, n, 100 * worst);
	free(v);
	free(h);
	free(a);
	free(b);
}

static void check_geometry(void)
{
	uint64_t prev_hi = 0;

	/* buckets tile the whole range without gaps or overlaps, and bucket of v contains v */
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		uint64_t lo, hi;

		hist_bucket_range(i, &lo, &hi);
		if (i)
			CHECK(lo == prev_hi + 1, "bucket %u starts at %llu after %llu", i,
			      (unsigned long long)lo, (unsigned long long)prev_hi);
		CHECK(hist_index(lo) == i && hist_index(hi) == i, "bucket %u bounds map back", i);
		/* the relative half-width bound behind the 1 % promise */
		CHECK(lo == 0 || (double)(hi - lo) / 2.0 / (double)lo <= 1.0 / 128 + 1e-12,
		      "bucket %u too wide", i);
		prev_hi = hi;
	}
	CHECK(prev_hi == UINT64_MAX, "last bucket ends at UINT64_MAX");
	CHECK(sizeof(struct hist) < 32 * 1024, "constant memory: %zu bytes", sizeof(struct hist));
}

/* pack then unpack gives the same histogram, bucket for bucket; an empty one stays empty */
static void check_pack(void)
{
	static struct hist h, back;
	struct hist_packed p = { 0 };
	uint64_t v = 1;

	hist_init(&h);
	for (int i = 0; i < 5000; i++) {
		hist_record(&h, v % 100000000 + (uint64_t)i);
		v = v * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	hist_record(&h, UINT64_MAX);
	CHECK(hist_pack(&p, &h) == 0 && p.n > 100 && p.n < HIST_NBUCKETS, "packed: %u buckets", p.n);
	hist_unpack(&p, &back);
	CHECK(!memcmp(&h, &back, sizeof(h)), "unpacked histogram differs");
	hist_packed_free(&p);
	CHECK(p.n == 0 && !p.idx && !p.cnt, "freed");
	hist_init(&h);
	CHECK(hist_pack(&p, &h) == 0 && p.n == 0 && !p.idx, "empty: nothing allocated");
	hist_unpack(&p, &back);
	CHECK(!memcmp(&h, &back, sizeof(h)), "empty round trip");
	hist_packed_free(&p);
}

int main(void)
{
	struct hist h;

	check_geometry();
	for (size_t d = 0; d < sizeof(dists) / sizeof(dists[0]); d++)
		check_dist(d);
	hist_init(&h);
	CHECK(hist_percentile(&h, 99) == 0 && hist_mean(&h) == 0, "empty histogram");
	check_pack();
	return check_done("test_hist");
}
