/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The sync after a run, timed, with its kernel view (core/afterrun.h). */
#include "core/afterrun.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/driver.h"

const struct figure afterrun_umount_fig = { "after.umount_s", "umount_s", "unmount after the run", "s",
					    FIG_LOWER_BETTER, FIG_MEAN, FIG_MAX, FIG_OPTIONAL };

#define MAX_FS 64

/* Opens each target once per filesystem: fd[0..*n). A target that is not a directory (a raw
 * device) or cannot be opened ends it: -errno. */
static int open_targets(const char *const *targets, unsigned ntargets, int *fd, unsigned *n)
{
	dev_t dev[MAX_FS];

	*n = 0;
	for (unsigned i = 0; i < ntargets && *n < MAX_FS; i++) {
		/* O_DIRECTORY: a block device fails at the lookup, before its driver is opened */
		int f = open(targets[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		struct stat st;
		unsigned k;

		if (f < 0 || fstat(f, &st)) {
			int e = errno;

			if (f >= 0)
				close(f);
			return -e;
		}
		for (k = 0; k < *n && dev[k] != st.st_dev; k++)
			;
		if (k < *n) {
			close(f);
			continue;
		}
		dev[*n] = st.st_dev;
		fd[(*n)++] = f;
	}
	return 0;
}

static void take(struct afterrun *a, const struct observe *o, const char *const *targets, unsigned ntargets)
{
	struct kstat_snap *s = malloc(sizeof(*s));
	int fd[MAX_FS];
	unsigned n = 0;
	uint64_t t0;
	int rc = open_targets(targets, ntargets, fd, &n);

	if (rc || !n || !s) {
		a->err = rc ? -rc : ENOMEM;
		goto out;
	}
	/* the kernel view's window is the outer one, as observe_begin's */
	rc = kstat_begin(s, o->devs, o->ndevs, o->nprimary);
	t0 = clock_ns();
	for (unsigned i = 0; i < n && !a->err; i++)
		if (syncfs(fd[i]))
			a->err = errno;
	a->sync_ns = clock_ns() - t0;
	a->have_k = !rc && kstat_end(s, &a->k) == 0;
	a->nfs = n;
	a->taken = !a->err;
out:
	for (unsigned i = 0; i < n; i++)
		close(fd[i]);
	free(s);
}

/* the result's run figures named like ours, at the workload's run_values_off */
static void put(const struct workload_ops *w, struct run_head *h, const double *f)
{
	static const struct figure decl[AFTERRUN_NFIGS] = { AFTERRUN_FIGURES(0) };
	const struct figure_set *fs = w->figs;
	double *v;

	if (!fs || !fs->run_values_off)
		return;
	v = (double *)((char *)h + fs->run_values_off);
	for (unsigned i = 0; i < fs->nrun; i++)
		for (unsigned k = 0; k < AFTERRUN_NFIGS; k++)
			if (!strcmp(fs->run[i].key, decl[k].key))
				v[i] = f[k];
}

void afterrun_run(struct driver *d, struct run_head *h, const char *const *targets, unsigned ntargets)
{
	double f[AFTERRUN_NFIGS];

	memset(&h->after, 0, sizeof(h->after));
	/* a signal or an error: the user waits for the end, not for a sync */
	if (d->obs_open && h->complete && !run_stopping())
		take(&h->after, &d->obs, targets, ntargets);
	afterrun_figures(&h->after, f);
	put(d->w, h, f);
}

void afterrun_figures(const struct afterrun *a, double *f)
{
	bool dev = false;

	f[AFTERRUN_SYNC_S] = a->taken ? (double)a->sync_ns / 1e9 : NAN;
	for (unsigned i = 0; a->taken && a->have_k && i < a->k.ndisks; i++)
		dev |= a->k.disk[i].primary && a->k.disk[i].found;
	f[AFTERRUN_SYNC_MIB] = dev ? (double)kstat_write_bytes(&a->k) / 1048576.0 : NAN;
}

uint64_t afterrun_dirty_before(const struct afterrun *a)
{
	if (!a->have_k || !a->k.have_mem)
		return 0;
	return a->k.mem_begin[KSTAT_DIRTY] + a->k.mem_begin[KSTAT_WRITEBACK];
}
