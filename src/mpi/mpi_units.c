/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reporting units to rank 0 as they complete (mpi/mpi_units.h): sent by the others, spooled
 * to an unnamed file on rank 0, read back one at a time. */
#include "mpi/mpi_units.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "mpi/mpi_sendq.h"
#include "report/json_spool.h"

/* before each unit's bytes in a message; every rank runs the same build */
struct uhdr {
	uint32_t run, k;
};

/* rank 0: where a rank's units of a run are in the spool, by k */
struct urun {
	uint64_t *off;
	unsigned n, cap;
};

struct urank {
	struct urun *runs;
	unsigned nruns;
};

struct mpi_units {
	int rank, size;
	MPI_Comm comm;
	unsigned *own; /* this rank's units per run */
	unsigned nown;
	struct mpi_sendq sends; /* the others: sends in flight */
	FILE *f; /* rank 0: the spool, a u64 length before each unit */
	uint64_t end;
	struct urank *ranks;
	int err; /* rank 0: the spool's first failure */
};

/* a run index a message may carry: far above any --repeat */
#define UNITS_MAX_RUNS 100000u

static int count_own(struct mpi_units *u, unsigned run)
{
	if (run >= u->nown) {
		unsigned *n = realloc(u->own, (run + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + u->nown, 0, (run + 1 - u->nown) * sizeof(*n));
		u->own = n;
		u->nown = run + 1;
	}
	u->own[run]++;
	return 0;
}

/* ---- the others: send without waiting ----------------------------------------------------- */
static int send_unit(struct mpi_units *u, unsigned run, const void *buf, size_t len)
{
	struct uhdr h = { .run = run, .k = run < u->nown ? u->own[run] : 0 };
	unsigned char *b;

	if (len > (size_t)INT32_MAX - sizeof(h))
		return -EMSGSIZE;
	if (!(b = malloc(sizeof(h) + len)))
		return -ENOMEM;
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), buf, len);
	return mpi_sendq_post(&u->sends, b, sizeof(h) + len, 0, 0, u->comm);
}

/* ---- rank 0: the spool ------------------------------------------------------------------------ */
static int spool(struct mpi_units *u, int r, unsigned run, unsigned k, const void *buf, size_t len)
{
	struct urank *rk = &u->ranks[r];
	struct urun *ru;
	uint64_t l = len;

	if (run >= UNITS_MAX_RUNS)
		return -EPROTO;
	if (run >= rk->nruns) {
		struct urun *n = realloc(rk->runs, (run + 1) * sizeof(*n));

		if (!n)
			return -ENOMEM;
		memset(n + rk->nruns, 0, (run + 1 - rk->nruns) * sizeof(*n));
		rk->runs = n;
		rk->nruns = run + 1;
	}
	ru = &rk->runs[run];
	/* a rank's messages arrive in the order it sent them: k is the next one */
	if (k != ru->n)
		return -EPROTO;
	if (ru->n == ru->cap) {
		unsigned cap = ru->cap ? ru->cap * 2 : 16;
		uint64_t *n = realloc(ru->off, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ru->off = n;
		ru->cap = cap;
	}
	if (u->err)
		return u->err;
	if (fwrite(&l, sizeof(l), 1, u->f) != 1 || (len && fwrite(buf, len, 1, u->f) != 1))
		return u->err = -EIO;
	ru->off[ru->n++] = u->end;
	u->end += sizeof(l) + len;
	return 0;
}

/* what has arrived from the others, into the spool; 0, or the first failure (the unit it
 * concerns is lost, the others still taken in) */
static int take_in(struct mpi_units *u, unsigned *got)
{
	int rc = 0;

	for (;;) {
		MPI_Status st;
		struct uhdr h;
		unsigned char *b;
		int flag = 0, n = 0, e;

		if (MPI_Iprobe(MPI_ANY_SOURCE, 0, u->comm, &flag, &st) != MPI_SUCCESS || !flag)
			return rc;
		MPI_Get_count(&st, MPI_BYTE, &n);
		/* out of memory: left for a later look */
		if (!(b = malloc(n > 0 ? (size_t)n : 1)))
			return -ENOMEM;
		if (MPI_Recv(b, n, MPI_BYTE, st.MPI_SOURCE, 0, u->comm, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
			free(b);
			return -EIO;
		}
		if (n < (int)sizeof(h) || st.MPI_SOURCE <= 0 || st.MPI_SOURCE >= u->size) {
			e = -EPROTO;
		} else {
			memcpy(&h, b, sizeof(h));
			e = spool(u, st.MPI_SOURCE, h.run, h.k, b + sizeof(h), (size_t)n - sizeof(h));
		}
		free(b);
		if (e && !rc)
			rc = e;
		if (!e && got)
			++*got;
	}
}

/* ---- the interface ---------------------------------------------------------------------------- */
struct mpi_units *mpi_units_start(int rank, int size, MPI_Comm comm, const char *near)
{
	struct mpi_units *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->rank = rank;
	u->size = size;
	u->comm = comm;
	if (rank != 0)
		return u;
	if (!(u->ranks = calloc((size_t)size, sizeof(*u->ranks))) || !(u->f = json_spool_text(near))) {
		int e = u->ranks ? errno : ENOMEM;

		mpi_units_free(u);
		errno = e;
		return NULL;
	}
	return u;
}

int mpi_units_add(struct mpi_units *u, unsigned run, const void *buf, size_t len)
{
	int rc;

	if (run >= UNITS_MAX_RUNS)
		return -EINVAL;
	if (u->rank != 0) {
		rc = send_unit(u, run, buf, len);
	} else {
		rc = spool(u, 0, run, run < u->nown ? u->own[run] : 0, buf, len);
		/* the others' units of this iteration (or the one before) are in by now */
		take_in(u, NULL);
	}
	return rc ? rc : count_own(u, run);
}

unsigned mpi_units_count(const struct mpi_units *u, unsigned run)
{
	return u && run < u->nown ? u->own[run] : 0;
}

static bool all_in(const struct mpi_units *u, const unsigned *const *count, const unsigned *nruns)
{
	for (int r = 0; r < u->size; r++)
		for (unsigned i = 0; count[r] && i < nruns[r]; i++)
			if (count[r][i] && (i >= u->ranks[r].nruns || u->ranks[r].runs[i].n < count[r][i]))
				return false;
	return true;
}

int mpi_units_collect(struct mpi_units *u, const unsigned *const *count, const unsigned *nruns,
		      unsigned long long wait_ns)
{
	const struct timespec pause = { 0, 1000000 };
	uint64_t last = clock_ns();

	if (u->rank != 0)
		return -EINVAL;
	for (;;) {
		unsigned got = 0;

		take_in(u, &got);
		if (all_in(u, count, nruns))
			return u->err;
		if (got)
			last = clock_ns();
		else if (clock_ns() - last >= wait_ns)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

int mpi_units_get(struct mpi_units *u, int rank, unsigned run, unsigned k, void **buf, size_t *len)
{
	const struct urank *rk;
	uint64_t l, off;
	void *b;

	*buf = NULL;
	*len = 0;
	if (u->rank != 0 || rank < 0 || rank >= u->size)
		return -EINVAL;
	rk = &u->ranks[rank];
	if (run >= rk->nruns || k >= rk->runs[run].n)
		return -ENOENT;
	off = rk->runs[run].off[k];
	if (fflush(u->f) || pread(fileno(u->f), &l, sizeof(l), (off_t)off) != (ssize_t)sizeof(l) ||
	    l > u->end - off - sizeof(l))
		return -EIO;
	if (!(b = malloc(l ? l : 1)))
		return -ENOMEM;
	if (l && pread(fileno(u->f), b, l, (off_t)(off + sizeof(l))) != (ssize_t)l) {
		free(b);
		return -EIO;
	}
	*buf = b;
	*len = l;
	return 0;
}

void mpi_units_free(struct mpi_units *u)
{
	if (!u)
		return;
	/* a rank 0 that is gone never takes the last sends: given up after 2 s */
	mpi_sendq_finish(&u->sends, clock_ns() + 2000000000ull);
	for (int r = 0; u->ranks && r < u->size; r++) {
		for (unsigned i = 0; i < u->ranks[r].nruns; i++)
			free(u->ranks[r].runs[i].off);
		free(u->ranks[r].runs);
	}
	free(u->ranks);
	if (u->f)
		fclose(u->f);
	free(u->own);
	free(u);
}
