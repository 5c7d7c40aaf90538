/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Cost per operation from a phase's raw counters (core/cost.h has the definitions). */
#include "core/cost.h"

#include <math.h>
#include <string.h>

#include "sys/kstat.h"

bool cost_is_key(const char *key)
{
	static const char *const stem[COST_NFIGS] = { "cpu_usr_us_per_", "cpu_sys_us_per_", "wait_us_per_",
						      "vcsw_per_", "ivcsw_per_", "device_bytes_per_",
						      "device_requests_per_" };

	for (int i = 0; i < COST_NFIGS; i++)
		if (!strncmp(key, stem[i], strlen(stem[i])))
			return true;
	return false;
}

void cost_add_worker(struct cost_raw *c, double usr_s, double sys_s, uint64_t busy_ns, uint64_t nvcsw,
		     uint64_t nivcsw)
{
	c->usr_s += usr_s;
	c->sys_s += sys_s;
	c->busy_s += (double)busy_ns / 1e9;
	c->nvcsw += nvcsw;
	c->nivcsw += nivcsw;
}

void cost_add_kstat(struct cost_raw *c, const struct kstat_delta *k)
{
	for (unsigned i = 0; i < k->ndisks; i++) {
		const struct kstat_disk_delta *d = &k->disk[i];

		if (!d->primary || !d->found)
			continue;
		c->have_dev = true;
		c->dev_bytes += d->rd_bytes + d->wr_bytes;
		c->dev_reqs += d->rd_ios + d->wr_ios;
	}
}

void cost_merge(struct cost_raw *dst, const struct cost_raw *src)
{
	dst->ops += src->ops;
	dst->usr_s += src->usr_s;
	dst->sys_s += src->sys_s;
	dst->busy_s += src->busy_s;
	dst->nvcsw += src->nvcsw;
	dst->nivcsw += src->nivcsw;
	/* processes on different hosts each saw their own devices: the bytes add up */
	dst->have_dev |= src->have_dev;
	dst->dev_bytes += src->dev_bytes;
	dst->dev_reqs += src->dev_reqs;
}

void cost_figures(const struct cost_raw *c, double *f)
{
	double n = (double)c->ops, wait = c->busy_s - c->usr_s - c->sys_s;

	for (int i = 0; i < COST_NFIGS; i++)
		f[i] = NAN;
	if (!c->ops)
		return;
	f[COST_USR] = 1e6 * c->usr_s / n;
	f[COST_SYS] = 1e6 * c->sys_s / n;
	/* CPU time is tick-split and the window two clock reads: a CPU-bound worker can come out
	 * a hair over its window */
	f[COST_WAIT] = 1e6 * (wait > 0 ? wait : 0) / n;
	f[COST_VCSW] = (double)c->nvcsw / n;
	f[COST_IVCSW] = (double)c->nivcsw / n;
	if (c->have_dev) {
		f[COST_DEV_BYTES] = (double)c->dev_bytes / n;
		f[COST_DEV_REQS] = (double)c->dev_reqs / n;
	}
}
