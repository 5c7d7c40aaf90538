/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Log-linear latency histogram; the design note is in hist.h. */
#include "core/hist.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_bucket_range(unsigned idx, uint64_t *lo, uint64_t *hi)
{
	unsigned shift;
	uint64_t top;

	if (idx < 2 * HIST_SUB) {
		*lo = *hi = idx;
		return;
	}
	/* idx = (e-6)*64 + m with m in [64,128): value = m << (e-6) */
	shift = idx / HIST_SUB - 1;
	top = (uint64_t)(idx % HIST_SUB + HIST_SUB);
	*lo = top << shift;
	*hi = *lo + ((UINT64_C(1) << shift) - 1);
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	for (unsigned i = 0; i < HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0, lo, hi, mid;

	if (!h->count)
		return 0;
	if (p <= 0)
		return h->min;
	if (p >= 100)
		return h->max;
	/* nearest rank: ceil(p/100 * n), at least 1 */
	rank = (uint64_t)(p / 100.0 * (double)h->count);
	if ((double)rank < p / 100.0 * (double)h->count)
		rank++;
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		seen += h->buckets[i];
		if (seen < rank)
			continue;
		hist_bucket_range(i, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		if (mid < h->min)
			mid = h->min;
		if (mid > h->max)
			mid = h->max;
		return mid;
	}
	return h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

int hist_set_bucket(struct hist *h, uint64_t lo, uint64_t count)
{
	unsigned idx = hist_index(lo);
	uint64_t blo, bhi;

	hist_bucket_range(idx, &blo, &bhi);
	if (blo != lo)
		return -EINVAL;
	h->buckets[idx] = count;
	return 0;
}

int hist_pack(struct hist_packed *p, const struct hist *h)
{
	unsigned n = 0;

	memset(p, 0, sizeof(*p));
	for (unsigned i = 0; i < HIST_NBUCKETS; i++)
		n += h->buckets[i] != 0;
	if (n) {
		p->idx = malloc(n * sizeof(*p->idx));
		p->cnt = malloc(n * sizeof(*p->cnt));
		if (!p->idx || !p->cnt) {
			hist_packed_free(p);
			return -ENOMEM;
		}
		for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
			if (!h->buckets[i])
				continue;
			p->idx[p->n] = i;
			p->cnt[p->n++] = h->buckets[i];
		}
	}
	p->count = h->count;
	p->sum = h->sum;
	p->min = h->min;
	p->max = h->max;
	return 0;
}

void hist_unpack(const struct hist_packed *p, struct hist *h)
{
	hist_init(h);
	for (unsigned i = 0; i < p->n; i++)
		h->buckets[p->idx[i]] = p->cnt[i];
	h->count = p->count;
	h->sum = p->sum;
	h->max = p->max;
	if (p->count)
		h->min = p->min;
}

void hist_packed_free(struct hist_packed *p)
{
	free(p->idx);
	free(p->cnt);
	memset(p, 0, sizeof(*p));
}
