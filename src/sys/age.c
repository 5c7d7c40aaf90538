/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Aging a filesystem with seeded files and churn (sys/age.h). */

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>


#include "sys/age.h"
#include "sys/layout.h"

#define AGE_MU 9.48
#define AGE_SIGMA 2.46
#define AGE_DEPTH 3
#define AGE_FANOUT 8
#define AGE_CHURN_PCT 30
#define AGE_BLOCK 4096

static int parse_sizes(const char *path, struct age_spec *a, char *err, size_t len)
{
	FILE *f = fopen(path, "re");
	char line[256];
	unsigned n = 0, ln = 0;

	if (!f) {
		snprintf(err, len, "sizes: cannot read '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		char *end, *p = line + strspn(line, " \t");
		unsigned long long sz;
		double w;

		ln++;
		if (*p == '#' || *p == '\n' || !*p)
			continue;
		errno = 0;
		sz = strtoull(p, &end, 10);
		w = end != p ? strtod(end, &p) : -1;
		if (errno || end == p || !(w >= 0) || !isfinite(w) || sz > (1ULL << 40) ||
		    p[strspn(p, " \t\r\n")] || n == AGE_MAX_SIZES) {
			snprintf(err, len, "sizes: '%s' line %u: not BYTES WEIGHT (at most %d lines)", path, ln,
				 AGE_MAX_SIZES);
			fclose(f);
			return -EINVAL;
		}
		a->size[n] = sz;
		a->weight[n++] = w;
	}
	fclose(f);
	a->nsizes = n;
	for (unsigned i = 0; i < n; i++)
		if (a->weight[i] > 0)
			return 0;
	snprintf(err, len, "sizes: '%s' has no size with a weight above 0", path);
	return -EINVAL;
}

int age_parse(const char *s, struct age_spec *a, char *err, size_t len)
{
	char buf[1200], *save = NULL;
	bool fill = false;

	memset(a, 0, sizeof(*a));
	if (snprintf(buf, sizeof(buf), "%s", s) >= (int)sizeof(buf)) {
		snprintf(err, len, "too long");
		return -EINVAL;
	}
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long v;

		if (!strncmp(t, "fill=", 5)) {
			errno = 0;
			v = strtoul(t + 5, &end, 10);
			if (errno || end == t + 5 || strcmp(end, "%") || v < 1 || v > 95) {
				snprintf(err, len, "fill=P%%: P from 1 to 95");
				return -EINVAL;
			}
			a->fill_pct = (unsigned)v;
			fill = true;
		} else if (!strncmp(t, "churn=", 6)) {
			errno = 0;
			v = strtoul(t + 6, &end, 10);
			if (errno || end == t + 6 || *end || v > 100) {
				snprintf(err, len, "churn=N: N from 0 to 100");
				return -EINVAL;
			}
			a->churn = (unsigned)v;
		} else if (!strncmp(t, "sizes=", 6) && t[6]) {
			snprintf(a->sizes_file, sizeof(a->sizes_file), "%s", t + 6);
			if (parse_sizes(t + 6, a, err, len))
				return -EINVAL;
		} else {
			snprintf(err, len, "'%.64s' is not fill=P%%, churn=N or sizes=FILE", t);
			return -EINVAL;
		}
	}
	if (!fill) {
		snprintf(err, len, "no fill=P%%");
		return -EINVAL;
	}
	return 0;
}

/* splitmix64: one stream from the seed */
static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
	return ((double)(next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static uint64_t draw_size(const struct age_spec *a, uint64_t *s, uint64_t cap)
{
	double v;

	if (a->nsizes) {
		double tot = 0, x;
		unsigned i;

		for (i = 0; i < a->nsizes; i++)
			tot += a->weight[i];
		x = unit(s) * tot;
		for (i = 0; i + 1 < a->nsizes && x >= a->weight[i]; i++)
			x -= a->weight[i];
		v = (double)a->size[i];
	} else {
		/* Box-Muller: one normal deviate */
		double u1 = unit(s), u2 = unit(s);

		v = exp(AGE_MU + AGE_SIGMA * sqrt(-2 * log(u1)) * cos(6.283185307179586 * u2));
	}
	return v > (double)cap ? cap : (uint64_t)v;
}

struct age_file {
	uint32_t id;
	uint16_t dir;                /* the tree path, base AGE_FANOUT digits */
	bool live;
	uint64_t size;
};

static void path_of(const char *root, const struct age_file *f, char *out, size_t len)
{
	unsigned d = f->dir;

	snprintf(out, len, "%s/d%u/d%u/d%u/f%08u", root, d / (AGE_FANOUT * AGE_FANOUT), d / AGE_FANOUT % AGE_FANOUT,
		 d % AGE_FANOUT, (unsigned)f->id);
}

static int write_file(const char *root, const struct age_file *f, const char *buf, size_t buflen)
{
	char p[4400];
	uint64_t left = f->size;
	int fd;

	path_of(root, f, p, sizeof(p));
	/* its directories, made on first use */
	for (char *s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if ((fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		return -errno;
	while (left) {
		ssize_t n = write(fd, buf, left < buflen ? left : buflen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int rc = n < 0 ? -errno : -EIO;

			close(fd);
			unlink(p);
			return rc;
		}
		left -= (uint64_t)n;
	}
	return close(fd) < 0 ? -errno : 0;
}

static uint64_t alloc_bytes(uint64_t size)
{
	return (size + AGE_BLOCK - 1) / AGE_BLOCK * AGE_BLOCK;
}

/* What aging has done so far: the files (live or deleted), the seeded stream, the bytes live. */
struct age_state {
	const char *root;            /* DIR/aged */
	struct age_file *files;
	size_t nf, cap;
	uint64_t s, have, id;
};

/* A churn round's deletions: a seeded AGE_CHURN_PCT % of the live files. */
static int age_churn(struct age_state *st, struct age_result *r, char *err, size_t len)
{
	for (size_t i = 0; i < st->nf; i++) {
		char p[4400];

		if (!st->files[i].live || next(&st->s) % 100 >= AGE_CHURN_PCT)
			continue;
		path_of(st->root, &st->files[i], p, sizeof(p));
		if (unlink(p) < 0) {
			int rc = -errno;

			snprintf(err, len, "cannot remove '%s': %s", p, strerror(-rc));
			return rc;
		}
		st->files[i].live = false;
		st->have -= alloc_bytes(st->files[i].size);
		r->deleted++;
	}
	return 0;
}

/* New files until target bytes are live. */
static int age_fill(struct age_state *st, const struct age_spec *a, uint64_t target, uint64_t maxsize,
		    const char *buf, int (*stop)(void), struct age_result *r, char *err, size_t len)
{
	int rc;

	while (st->have < target) {
		struct age_file f = { .id = (uint32_t)st->id++, .live = true };

		if (stop && stop()) {
			snprintf(err, len, "interrupted");
			return -EINTR;
		}
		f.dir = (uint16_t)(next(&st->s) % (AGE_FANOUT * AGE_FANOUT * AGE_FANOUT));
		f.size = draw_size(a, &st->s, maxsize);
		if (st->nf == st->cap) {
			struct age_file *n = realloc(st->files, (st->cap = st->cap ? st->cap * 2 : 4096) * sizeof(*n));

			if (!n) {
				snprintf(err, len, "out of memory");
				return -ENOMEM;
			}
			st->files = n;
		}
		if ((rc = write_file(st->root, &f, buf, 1 << 20))) {
			snprintf(err, len, "cannot write an aging file in '%s': %s", st->root, strerror(-rc));
			return rc;
		}
		st->files[st->nf++] = f;
		st->have += alloc_bytes(f.size);
		r->written++;
	}
	return 0;
}

/* the aged state, as the first run finds it: everything placed */
static void age_measure(const char *dir, const struct age_state *st, struct age_result *r)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char line[64];
	uint64_t h = 0xcbf29ce484222325ULL;
	struct layout_sum sum;
	struct statvfs v;

	if (dfd >= 0) {
		syncfs(dfd);
		close(dfd);
	}
	memset(&sum, 0, sizeof(sum));
	for (size_t i = 0; i < st->nf; i++) {
		const struct age_file *f = &st->files[i];
		char p[4400];
		struct layout_file lf;
		int fd;

		if (!f->live)
			continue;
		r->files++;
		r->bytes += f->size;
		snprintf(line, sizeof(line), "d%u/f%08u %llu\n", f->dir, (unsigned)f->id, (unsigned long long)f->size);
		for (const char *c = line; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
		path_of(st->root, f, p, sizeof(p));
		if ((fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
			if (!layout_fd(fd, &lf))
				layout_sum_add(&sum, &lf);
			close(fd);
		}
	}
	snprintf(r->list_hash, sizeof(r->list_hash), "fnv1a64:%016llx", (unsigned long long)h);
	r->extents_per_file = sum.placed ? layout_extents_per_file(&sum) : NAN;
	if (statvfs(dir, &v) == 0 && v.f_blocks)
		r->used_pct = 100.0 * (double)(v.f_blocks - v.f_bfree) / (double)v.f_blocks;
}

int age_run(const char *dir, const struct age_spec *a, uint64_t seed, int (*stop)(void),
	    struct age_result *r, char *err, size_t len)
{
	char root[4096], *buf = malloc(1 << 20);
	struct age_state st = { .root = root, .s = seed ^ 0x61676531ULL };
	uint64_t target, maxsize;
	struct statvfs v;
	struct timespec t0, t1;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(root, sizeof(root), "%s/aged", dir);
	if (!buf || statvfs(dir, &v) < 0 || (mkdir(root, 0755) < 0)) {
		rc = buf ? -errno : -ENOMEM;
		snprintf(err, len, "cannot start aging in '%s': %s", dir, strerror(-rc));
		goto out;
	}
	memset(buf, 0xa5, 1 << 20);
	{
		double total = (double)v.f_blocks * (double)v.f_frsize,
		       used = (double)(v.f_blocks - v.f_bfree) * (double)v.f_frsize, want = total * a->fill_pct / 100.0;

		target = want > used ? (uint64_t)(want - used) : 0;
		maxsize = (uint64_t)(total / 100);
	}
	for (unsigned round = 0; round <= a->churn && !rc; round++)
		if (!(rc = round ? age_churn(&st, r, err, len) : 0))
			rc = age_fill(&st, a, target, maxsize, buf, stop, r, err, len);
	if (!rc)
		age_measure(dir, &st, r);
out:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	free(st.files);
	free(buf);
	return rc;
}

