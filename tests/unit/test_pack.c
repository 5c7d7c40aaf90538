/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pack: values come back in order and exactly (histograms bucket for bucket); a truncated or
 * corrupt stream is an error, never a crash or a half-filled value taken as good. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/pack.h"

int main(void)
{
	struct pack p = { 0 };
	struct unpack u;
	struct opstat a, b;
	char buf[8], *s;

	opstat_init(&a);
	for (uint64_t v = 1; v < 5000000; v = v * 3 + 7)
		opstat_add(&a, v, 4096);
	pack_u64(&p, UINT64_MAX);
	pack_i64(&p, -42);
	pack_f64(&p, 0.125);
	pack_str(&p, "rank.3");
	pack_str(&p, NULL);
	pack_str(&p, "");
	pack_str(&p, "truncated here");
	pack_opstat(&p, &a);
	CHECK(p.err == 0, "err %d", p.err);

	unpack_init(&u, p.buf, p.len);
	CHECK(unpack_u64(&u) == UINT64_MAX, "u64");
	CHECK(unpack_i64(&u) == -42, "i64");
	CHECK(unpack_f64(&u) == 0.125, "f64");
	s = unpack_str(&u);
	CHECK(s && !strcmp(s, "rank.3"), "str");
	free(s);
	CHECK(unpack_str(&u) == NULL && !u.err, "NULL string");
	s = unpack_str(&u);
	CHECK(s && !s[0], "empty string");
	free(s);
	unpack_str_to(&u, buf, sizeof(buf));
	CHECK(!strcmp(buf, "truncat"), "truncated copy '%s'", buf);
	unpack_opstat(&u, &b);
	CHECK(unpack_done(&u) == 0, "done %d", unpack_done(&u));
	CHECK(b.ops == a.ops && b.bytes == a.bytes && b.lat.count == a.lat.count &&
	      b.lat.sum == a.lat.sum && b.lat.min == a.lat.min && b.lat.max == a.lat.max,
	      "opstat scalars");
	CHECK(!memcmp(b.lat.buckets, a.lat.buckets, sizeof(a.lat.buckets)), "buckets");

	/* every truncation of the stream is an error */
	for (size_t cut = 0; cut < p.len; cut += 7) {
		unpack_init(&u, p.buf, cut);
		unpack_u64(&u);
		unpack_i64(&u);
		unpack_f64(&u);
		free(unpack_str(&u));
		free(unpack_str(&u));
		free(unpack_str(&u));
		unpack_str_to(&u, buf, sizeof(buf));
		unpack_opstat(&u, &b);
		CHECK(unpack_done(&u) != 0, "cut at %zu read as complete", cut);
	}
	/* a bucket index out of range */
	{
		struct pack q = { 0 };
		uint32_t bad = HIST_NBUCKETS + 5;
		struct hist h;

		pack_u64(&q, 1);
		pack_u64(&q, 1);
		pack_u64(&q, 1);
		pack_u64(&q, 1);
		pack_u64(&q, 1);
		pack_bytes(&q, &bad, sizeof(bad));
		pack_u64(&q, 1);
		unpack_init(&u, q.buf, q.len);
		unpack_hist(&u, &h);
		CHECK(u.err && h.count == 0, "bad bucket index taken");
		pack_free(&q);
	}
	/* a kernel view travels with its disks only, and comes back whole */
	{
		struct pack q = { 0 };
		struct kstat_delta *k = calloc(2, sizeof(*k)), *k2 = k + 1;

		CHECK(k != NULL, "calloc");
		k->wall_ns = 123456789;
		k->ndisks = 2;
		strcpy(k->disk[0].name, "loop7");
		k->disk[1].wr_bytes = 4096;
		k->disk[1].util_pct = 12.5;
		k->have_mem = true;
		k->cpu_s[1] = 0.75;
		k->mem_end[2] = 99;
		pack_kstat(&q, k);
		CHECK(q.len < sizeof(*k) / 2, "packed %zu of %zu bytes", q.len, sizeof(*k));
		memset(k2, 0xa5, sizeof(*k2));
		unpack_init(&u, q.buf, q.len);
		unpack_kstat(&u, k2);
		CHECK(unpack_done(&u) == 0 && !memcmp(k, k2, sizeof(*k)), "kernel view round trip");
		/* more disks than it holds: an error, never a read past its end */
		((struct kstat_delta *)q.buf)->ndisks = KSTAT_MAX_DISKS + 1;
		unpack_init(&u, q.buf, q.len);
		unpack_kstat(&u, k2);
		CHECK(u.err && k2->ndisks == 0, "ndisks %u taken", k2->ndisks);
		pack_free(&q);
		free(k);
	}
	/* left-over bytes are an error too */
	unpack_init(&u, p.buf, p.len);
	unpack_u64(&u);
	CHECK(unpack_done(&u) != 0, "left-over bytes");
	pack_free(&p);
	return check_done("pack");
}
