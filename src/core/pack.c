/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The byte stream of values that travels between a job's processes (core/pack.h). */
#include "core/pack.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void pack_bytes(struct pack *p, const void *v, size_t n)
{
	if (p->err || !n)
		return;
	if (p->len + n > p->cap) {
		size_t cap = p->cap ? p->cap : 256;
		unsigned char *b;

		while (cap < p->len + n)
			cap *= 2;
		if (!(b = realloc(p->buf, cap))) {
			p->err = -ENOMEM;
			return;
		}
		p->buf = b;
		p->cap = cap;
	}
	memcpy(p->buf + p->len, v, n);
	p->len += n;
}

void pack_u64(struct pack *p, uint64_t v)
{
	pack_bytes(p, &v, sizeof(v));
}

void pack_i64(struct pack *p, int64_t v)
{
	pack_bytes(p, &v, sizeof(v));
}

void pack_f64(struct pack *p, double v)
{
	pack_bytes(p, &v, sizeof(v));
}

void pack_str(struct pack *p, const char *s)
{
	/* length + 1, so that 0 is NULL */
	uint64_t n = s ? strlen(s) + 1 : 0;

	pack_u64(p, n);
	if (n > 1)
		pack_bytes(p, s, n - 1);
}

void pack_hist(struct pack *p, const struct hist *h)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < HIST_NBUCKETS; i++)
		n += h->buckets[i] != 0;
	pack_u64(p, h->count);
	pack_u64(p, h->sum);
	pack_u64(p, h->min);
	pack_u64(p, h->max);
	pack_u64(p, n);
	for (unsigned i = 0; i < HIST_NBUCKETS; i++) {
		uint32_t idx = i;

		if (!h->buckets[i])
			continue;
		pack_bytes(p, &idx, sizeof(idx));
		pack_u64(p, h->buckets[i]);
	}
}

void pack_opstat(struct pack *p, const struct opstat *s)
{
	pack_u64(p, s->ops);
	pack_u64(p, s->bytes);
	pack_u64(p, s->over_2s);
	pack_u64(p, s->over_10s);
	pack_hist(p, &s->lat);
}

void pack_hist_packed(struct pack *p, const struct hist_packed *h)
{
	pack_u64(p, h->count);
	pack_u64(p, h->sum);
	pack_u64(p, h->min);
	pack_u64(p, h->max);
	pack_u64(p, h->n);
	for (unsigned i = 0; i < h->n; i++) {
		pack_bytes(p, &h->idx[i], sizeof(h->idx[i]));
		pack_u64(p, h->cnt[i]);
	}
}

void pack_free(struct pack *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

void unpack_bytes(struct unpack *u, void *v, size_t n)
{
	if (u->err || n > u->len - u->off) {
		u->err = -EPROTO;
		memset(v, 0, n);
		return;
	}
	memcpy(v, u->buf + u->off, n);
	u->off += n;
}

uint64_t unpack_u64(struct unpack *u)
{
	uint64_t v;

	unpack_bytes(u, &v, sizeof(v));
	return v;
}

int64_t unpack_i64(struct unpack *u)
{
	int64_t v;

	unpack_bytes(u, &v, sizeof(v));
	return v;
}

double unpack_f64(struct unpack *u)
{
	double v;

	unpack_bytes(u, &v, sizeof(v));
	return v;
}

char *unpack_str(struct unpack *u)
{
	uint64_t n = unpack_u64(u);
	char *s;

	if (u->err || !n)
		return NULL;
	if (n - 1 > u->len - u->off) {
		u->err = -EPROTO;
		return NULL;
	}
	if (!(s = malloc(n))) {
		u->off += n - 1;
		return NULL;
	}
	unpack_bytes(u, s, n - 1);
	s[n - 1] = '\0';
	return s;
}

void unpack_str_to(struct unpack *u, char *buf, size_t len)
{
	uint64_t n = unpack_u64(u);
	size_t keep;

	if (len)
		buf[0] = '\0';
	if (u->err || !n)
		return;
	if (n - 1 > u->len - u->off) {
		u->err = -EPROTO;
		return;
	}
	keep = n - 1 < len ? n - 1 : (len ? len - 1 : 0);
	if (len) {
		memcpy(buf, u->buf + u->off, keep);
		buf[keep] = '\0';
	}
	u->off += n - 1;
}

void unpack_hist(struct unpack *u, struct hist *h)
{
	uint64_t n;

	hist_init(h);
	h->count = unpack_u64(u);
	h->sum = unpack_u64(u);
	h->min = unpack_u64(u);
	h->max = unpack_u64(u);
	n = unpack_u64(u);
	if (n > HIST_NBUCKETS)
		u->err = -EPROTO;
	for (uint64_t i = 0; i < n && !u->err; i++) {
		uint32_t idx;
		uint64_t c;

		unpack_bytes(u, &idx, sizeof(idx));
		c = unpack_u64(u);
		if (idx >= HIST_NBUCKETS) {
			u->err = -EPROTO;
			break;
		}
		h->buckets[idx] = c;
	}
	if (u->err)
		hist_init(h);
}

/* the parts of a kernel view: what comes before the disks, and after them */
#define KSTAT_HEAD offsetof(struct kstat_delta, disk)
#define KSTAT_TAIL (offsetof(struct kstat_delta, disk) + sizeof(((struct kstat_delta *)0)->disk))

void pack_kstat(struct pack *p, const struct kstat_delta *k)
{
	unsigned n = k->ndisks < KSTAT_MAX_DISKS ? k->ndisks : KSTAT_MAX_DISKS;

	pack_bytes(p, k, KSTAT_HEAD);
	pack_bytes(p, k->disk, n * sizeof(k->disk[0]));
	pack_bytes(p, (const char *)k + KSTAT_TAIL, sizeof(*k) - KSTAT_TAIL);
}

void unpack_kstat(struct unpack *u, struct kstat_delta *k)
{
	memset(k, 0, sizeof(*k));
	unpack_bytes(u, k, KSTAT_HEAD);
	if (k->ndisks > KSTAT_MAX_DISKS) {
		u->err = -EPROTO;
		k->ndisks = 0;
		return;
	}
	unpack_bytes(u, k->disk, k->ndisks * sizeof(k->disk[0]));
	unpack_bytes(u, (char *)k + KSTAT_TAIL, sizeof(*k) - KSTAT_TAIL);
}

void unpack_opstat(struct unpack *u, struct opstat *s)
{
	s->ops = unpack_u64(u);
	s->bytes = unpack_u64(u);
	s->over_2s = unpack_u64(u);
	s->over_10s = unpack_u64(u);
	unpack_hist(u, &s->lat);
}

void unpack_hist_packed(struct unpack *u, struct hist_packed *h)
{
	uint64_t n;

	memset(h, 0, sizeof(*h));
	h->count = unpack_u64(u);
	h->sum = unpack_u64(u);
	h->min = unpack_u64(u);
	h->max = unpack_u64(u);
	n = unpack_u64(u);
	if (u->err || n > HIST_NBUCKETS) {
		u->err = u->err ? u->err : -EPROTO;
		memset(h, 0, sizeof(*h));
		return;
	}
	if (n) {
		h->idx = malloc(n * sizeof(*h->idx));
		h->cnt = malloc(n * sizeof(*h->cnt));
		if (!h->idx || !h->cnt) {
			hist_packed_free(h);
			u->err = -ENOMEM;
			return;
		}
	}
	for (uint64_t i = 0; i < n && !u->err; i++) {
		unpack_bytes(u, &h->idx[i], sizeof(h->idx[i]));
		h->cnt[i] = unpack_u64(u);
		if (h->idx[i] >= HIST_NBUCKETS || (i && h->idx[i] <= h->idx[i - 1]))
			u->err = -EPROTO;
	}
	h->n = (unsigned)n;
	if (u->err)
		hist_packed_free(h);
}

int unpack_done(const struct unpack *u)
{
	return u->err ? u->err : u->off == u->len ? 0 : -EPROTO;
}
