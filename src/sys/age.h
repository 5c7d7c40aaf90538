/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Aging a filesystem before it is measured (fsbench matrix --age): files written until it is
 * P % full, then N rounds of churn (a seeded 30 % of the files deleted, new ones written up to P %
 * again, Geriatrix-style, fragmenting the free space), all from one seed, so that the same seed
 * on the same filesystem gives the same files (names and sizes: list_hash).
 *
 * Sizes: log-normal by count with mu = 9.48 and sigma = 2.46 (natural log of bytes), the body
 * of the file-size distribution Agrawal, Bolosky, Douceur and Lorch measured over 62,000 Windows
 * desktop file systems ("A Five-Year Study of File-System Metadata", FAST 2007; Impressions'
 * default), capped at 1 % of the filesystem; or a histogram of the user's (sizes=FILE: lines
 * "BYTES WEIGHT", a size drawn with its weight's share). Files go in a tree of depth 3 and
 * fan-out 8 below DIR/aged (d0..d7 at each level), named f00000000 and on.
 *
 * The target is counted in allocated bytes (each file rounded up to 4 KiB) from statvfs at the
 * start, not re-read while writing, so that it does not depend on when the filesystem allocates. */
#ifndef FSB_SYS_AGE_H
#define FSB_SYS_AGE_H
#include <stddef.h>
#include <stdint.h>

#define AGE_MAX_SIZES 256
/* the aging algorithm's version: what an image aged from the same recipe and seed holds
 * (sys/agecache.h keys on it); raised by any change to what age_run writes */
#define AGE_VERSION 1

struct age_spec {
	unsigned fill_pct;           /* 1..95 */
	unsigned churn;              /* rounds, 0..100 */
	unsigned nsizes;             /* 0: the log-normal body */
	uint64_t size[AGE_MAX_SIZES];
	double weight[AGE_MAX_SIZES];
	char sizes_file[1024];       /* as given, "" for none */
};

struct age_result {
	uint64_t files, bytes;       /* live at the end */
	uint64_t written, deleted;   /* files over all rounds */
	double used_pct;             /* statvfs after a syncfs */
	double extents_per_file;     /* FIEMAP over the live files; NaN when unknown */
	char list_hash[32];          /* fnv1a64 over "name size\n" of the live files, in name order */
	double wall_s;
};

/* "fill=60%,churn=2[,sizes=FILE]": 0, or -EINVAL with one line in err (the file read here). */
int age_parse(const char *s, struct age_spec *a, char *err, size_t len);
/* Ages the filesystem mounted at dir (created below dir/aged). stop: polled, non-zero stops
 * (-EINTR). 0 or -errno, err says. */
int age_run(const char *dir, const struct age_spec *a, uint64_t seed, int (*stop)(void),
	    struct age_result *r, char *err, size_t len);
/* The aged state of the filesystem mounted at dir, read from its files (an image aged before:
 * sys/agecache.h): files, bytes, used_pct, extents_per_file and list_hash as age_run gives them
 * (written, deleted: 0). 0 or -errno, err says. */
int age_measure(const char *dir, struct age_result *r, char *err, size_t len);
#endif
