/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fs_mark's names: regenerable from (thread, file index), where file k of a thread lives, and
 * how a file's error is told. */
#include "workload/fs_mark_int.h"

/* ---- names ---------------------------------------------------------------------------------
 * fs_mark 3.3: hex seconds, '~' padding, then -r characters from [0-9A-Z] drawn with random().
 * Here the random part encodes u = k * threads + thread through a bijection on `bits` bits, so
 * names look random (creation order is not name order, which matters to directory indexes) yet
 * are unique by construction: `-r 0` no longer gives every file one name (doc/reference/fs_mark.md §4), and a
 * name can be rebuilt from (thread, k), so no name table is kept. 32 symbols (0-9A-V) make a
 * character exactly 5 bits. */
static const char fsm_alpha[32] = "0123456789ABCDEFGHIJKLMNOPQRSTUV";

static inline uint64_t mix_bits(uint64_t x, unsigned bits, uint64_t mask)
{
	unsigned sh = bits > 1 ? (bits + 1) / 2 : 1;

	/* xorshift-right and odd multiplication are both invertible modulo 2^bits */
	x ^= x >> sh;
	x = (x * UINT64_C(0xff51afd7ed558ccd)) & mask;
	x ^= x >> sh;
	x = (x * UINT64_C(0xc4ceb9fe1a85ec53)) & mask;
	x ^= x >> sh;
	return x;
}

void fsm_name_tail(const struct fsm_config *c, unsigned bits, uint64_t mask, uint64_t salt,
		      unsigned jt, unsigned th, uint64_t k, char *name)
{
	unsigned r = c->rand_chars, i, lim = r < 13 ? r : 13;
	char *end = name + c->name_chars - 1;
	uint64_t x = 0, y;

	if (bits)
		x = mix_bits(((k * jt + th) ^ salt) & mask, bits, mask);
	for (i = 0; i < lim; i++)
		end[-(int)i] = fsm_alpha[(x >> (5 * i)) & 31];
	/* beyond 13 characters (64 bits) the rest is filler, derived from x to stay regenerable */
	for (y = x; i < r; i++) {
		if ((i - 13) % 12 == 0)
			y = mix64(y + UINT64_C(0x9e3779b97f4a7c15));
		end[-(int)i] = fsm_alpha[(y >> (5 * ((i - 13) % 12))) & 31];
	}
}

/* the time-stamp part: hex seconds cut to its last seq_len characters, or '~'-padded */
static void make_seq(const struct fsm_config *c, time_t now, char *seq)
{
	unsigned seq_len = c->name_chars - c->rand_chars;
	char hex[24];
	int n = snprintf(hex, sizeof(hex), "%lx", (unsigned long)now);

	if ((unsigned)n >= seq_len) {
		memcpy(seq, hex + n - seq_len, seq_len);
	} else {
		memcpy(seq, hex, (size_t)n);
		memset(seq + n, '~', seq_len - (unsigned)n);
	}
	seq[seq_len] = '\0';
}

void fsm_name_bits(const struct fsm_config *c, unsigned *bits, uint64_t *mask)
{
	unsigned b = 5 * c->rand_chars;

	*bits = b > 64 ? 64 : b;
	*mask = *bits == 64 ? UINT64_MAX : (UINT64_C(1) << *bits) - 1;
}

/* ---- where file k of a thread lives ---------------------------------------------------------- */
unsigned fsm_subdir_of(const struct fsm_config *c, const struct fsm_thread *t,
			  const struct fsm_seg *g, uint64_t k)
{
	switch (c->policy) {
	case FSM_DIR_TIME_HASH:
		return g->sub0;
	case FSM_DIR_ROUND_ROBIN:
		return (unsigned)((g->sub0 + (k - g->k0) / c->files_per_subdir) % c->nsubdirs);
	case FSM_DIR_SPREAD:
		return (unsigned)((k * t->s->job_threads + t->s->thread_base + t->id) % c->nsubdirs);
	default:
		return 0;
	}
}

/* the segment holding file k; *hint makes monotone walks (either direction) O(1) */
const struct fsm_seg *fsm_seg_of(const struct fsm_thread *t, uint64_t k, unsigned *hint)
{
	unsigned i = *hint < t->nsegs ? *hint : t->nsegs - 1;

	while (i > 0 && t->segs[i].k0 > k)
		i--;
	while (i + 1 < t->nsegs && t->segs[i + 1].k0 <= k)
		i++;
	*hint = i;
	return &t->segs[i];
}

/* builds file k's name into t->name and returns its directory fd */
int fsm_locate(struct fsm_thread *t, uint64_t k, unsigned *hint)
{
	struct fsm_state *s = t->s;
	const struct fsm_config *c = s->c;
	const struct fsm_seg *g = fsm_seg_of(t, k, hint);

	memcpy(t->name, g->seq, c->name_chars - c->rand_chars);
	fsm_name_tail(c, s->bits, s->bits_mask, s->salt, s->job_threads, s->thread_base + t->id, k, t->name);
	return s->dirfd[t->dir * c->nsubdirs + fsm_subdir_of(c, t, g, k)];
}

void fsm_path_of(const struct fsm_thread *t, const struct fsm_seg *g, uint64_t k, char *buf,
		    size_t len)
{
	const struct fsm_config *c = t->s->c;

	if (c->policy == FSM_DIR_NONE)
		snprintf(buf, len, "%s/%s", c->dirs.v[t->dir], t->name);
	else
		snprintf(buf, len, "%s/%02x/%s", c->dirs.v[t->dir], fsm_subdir_of(c, t, g, k), t->name);
}

int fsm_seg_push(struct fsm_thread *t, uint64_t k0, unsigned sub0, time_t now)
{
	if (t->nsegs == t->segcap) {
		unsigned ncap = t->segcap ? t->segcap * 2 : 8;
		struct fsm_seg *n = realloc(t->segs, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		t->segs = n;
		t->segcap = ncap;
	}
	t->segs[t->nsegs] = (struct fsm_seg){ .k0 = k0, .sub0 = sub0 };
	make_seq(t->s->c, now, t->segs[t->nsegs].seq);
	t->nsegs++;
	return 0;
}

/* ---- errors ---------------------------------------------------------------------------------- */
/* Fill mode: a full filesystem ends the fill (not an error); anything else is the run's error. */
void fsm_fail_file(struct fsm_thread *t, int err, const char *what, uint64_t k, unsigned *hint)
{
	struct fsm_state *s = t->s;
	char path[PATH_MAX + 512];

	if (err == EINTR && run_stopping())
		return;
	fsm_path_of(t, fsm_seg_of(t, k, hint), k, path, sizeof(path));
	if (s->c->fill && is_full(err)) {
		int zero = 0;

		if (atomic_compare_exchange_strong(&s->full, &zero, err)) {
			snprintf(s->full_path, sizeof(s->full_path), "%s", path);
			s->full_what = what;
		}
		return;
	}
	if (err == EEXIST)
		run_fail_detail(err, what, path, -1, "%s (fsbench only creates new files; a name "
				"of an earlier run kept with -k? -r adds random characters)",
				strerror(err));
	else if (err == EOPNOTSUPP && !strcmp(what, "fsetxattr"))
		run_fail_detail(err, what, path, -1, "extended attributes not supported here (--xattr)");
	else
		run_fail(err, what, path, -1);
}
