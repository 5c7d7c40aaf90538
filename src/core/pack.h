/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A byte stream of values, for results that travel between the processes of a job
 * (fsbench-mpi ships each rank's result to rank 0, src/mpi/). Writers append; a failed
 * allocation sets err and later appends do nothing. Readers take values back in the same
 * order; reading past the end or a malformed value sets err (-EPROTO) and yields zeros.
 *
 * The format is the writer's native byte order and type sizes: every process of a job runs
 * the same fsbench-mpi build (the job checks it at start), so nothing is converted.
 * Histograms travel sparse: count, sum, min, max and the non-empty buckets (index, count). */
#ifndef FSB_CORE_PACK_H
#define FSB_CORE_PACK_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/run.h"
#include "sys/kstat.h"

struct pack {
	unsigned char *buf;
	size_t len, cap;
	int err;                 /* 0 or -ENOMEM */
};

struct unpack {
	const unsigned char *buf;
	size_t len, off;
	int err;                 /* 0 or -EPROTO */
};

void pack_bytes(struct pack *p, const void *v, size_t n);
void pack_u64(struct pack *p, uint64_t v);
void pack_i64(struct pack *p, int64_t v);
void pack_f64(struct pack *p, double v);
void pack_str(struct pack *p, const char *s);          /* NULL travels as NULL */
void pack_hist(struct pack *p, const struct hist *h);
void pack_opstat(struct pack *p, const struct opstat *s);
/* a packed histogram (hist.h) travels in the same form as a histogram */
void pack_hist_packed(struct pack *p, const struct hist_packed *h);
/* a kernel view with only its ndisks disks (the struct holds room for KSTAT_MAX_DISKS) */
void pack_kstat(struct pack *p, const struct kstat_delta *k);
void pack_free(struct pack *p);

static inline void unpack_init(struct unpack *u, const void *buf, size_t len)
{
	u->buf = buf;
	u->len = len;
	u->off = 0;
	u->err = 0;
}
void unpack_bytes(struct unpack *u, void *v, size_t n);
uint64_t unpack_u64(struct unpack *u);
int64_t unpack_i64(struct unpack *u);
double unpack_f64(struct unpack *u);
/* a malloc'd copy (NULL for a NULL string, or on error) */
char *unpack_str(struct unpack *u);
/* into buf of len bytes, truncated; "" for NULL */
void unpack_str_to(struct unpack *u, char *buf, size_t len);
void unpack_hist(struct unpack *u, struct hist *h);
void unpack_opstat(struct unpack *u, struct opstat *s);
/* into k (the disks past ndisks zeroed) */
void unpack_kstat(struct unpack *u, struct kstat_delta *k);
/* into an empty h; left empty on error (or -ENOMEM in u->err) */
void unpack_hist_packed(struct unpack *u, struct hist_packed *h);
/* 0 when everything was read and nothing was left over, else -EPROTO */
int unpack_done(const struct unpack *u);
#endif
