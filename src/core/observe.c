/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-phase kernel observation: device resolution, kstat window, perf window, warnings. */
#include "core/observe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/env.h"

/* The devices whose own kernel threads work for this run (jbd2/loop0-8, xfsaild/dm-1): each
 * target's filesystem device (name and MAJ:MIN) and the disks under dm and md (name only). Not
 * a loop device's backing filesystem: its threads are the host's, shared. */
static void observe_perf_devs(const struct observe *o, struct perf_config *pc)
{
	for (unsigned i = 0; i < o->ntargets; i++) {
		const struct blockdev *b = &o->targets[i];

		if (b->kind == BLOCKDEV_NONE)
			continue;
		for (unsigned j = 0; j < b->nstat && pc->ndevs < PERF_MAX_DEVS; j++) {
			struct perf_dev *d = &pc->devs[pc->ndevs];
			const char *name = j ? b->stat[j] : b->name;
			unsigned k;

			for (k = 0; k < pc->ndevs; k++)
				if (!strcmp(pc->devs[k].name, name))
					break;
			if (k < pc->ndevs || !name[0])
				continue;
			snprintf(d->name, sizeof(d->name), "%s", name);
			d->major = j ? 0 : b->major;
			d->minor = j ? 0 : b->minor;
			pc->ndevs++;
		}
	}
}

int observe_open(struct observe *o, const struct observe_config *c, const char *const *targets,
		 unsigned ntargets)
{
	struct env_host h;

	memset(o, 0, sizeof(*o));
	o->targets = calloc(ntargets ? ntargets : 1, sizeof(*o->targets));
	if (!o->targets)
		return -ENOMEM;
	o->ntargets = ntargets;
	o->has_device = ntargets > 0;
	for (unsigned i = 0; i < ntargets; i++) {
		if (blockdev_resolve(targets[i], &o->targets[i]) || o->targets[i].kind == BLOCKDEV_NONE)
			o->has_device = false;
	}
	/* the filesystems' own devices first (their totals feed the warnings), then the disks
	 * under dm and md */
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < ntargets; i++) {
			const struct blockdev *b = &o->targets[i];

			for (unsigned j = pass ? 1 : 0; j < (pass ? b->nstat : (b->nstat ? 1u : 0u)); j++) {
				unsigned k;

				for (k = 0; k < o->ndevs; k++)
					if (!strcmp(o->devs[k], b->stat[j]))
						break;
				if (k == o->ndevs && o->ndevs < KSTAT_MAX_DISKS)
					o->devs[o->ndevs++] = b->stat[j];
			}
			if (!pass)
				o->nprimary = o->ndevs;
		}
	if (env_host_read(&h) == 0) {
		o->mem_total_bytes = h.mem_total_bytes;
		o->cpus = h.cpus_online;
	}
	if (c->profile) {
		struct perf_config pc = { .hz = c->hz, .callgraph = c->callgraph };
		int rc;

		observe_perf_devs(o, &pc);
		rc = perf_open(&o->perf, &pc, o->perf_why, sizeof(o->perf_why));

		if (rc == -ENOMEM)
			return rc;
		if (!rc)
			o->perf_why[0] = '\0';
	}
	return 0;
}

void observe_begin(struct observe *o)
{
	/* kstat first and perf last, so the sampling window is the innermost one */
	kstat_begin(&o->snap, o->devs, o->ndevs, o->nprimary);
	if (o->perf && perf_begin(o->perf)) {
		perf_close(o->perf);
		o->perf = NULL;
	}
}

void observe_end(struct observe *o, struct observe_phase *p)
{
	memset(p, 0, sizeof(*p));
	if (o->perf)
		perf_stop(o->perf);
	p->taken = kstat_end(&o->snap, &p->k) == 0;
	/* draining and symbolising take a while: after the window is closed */
	if (o->perf && perf_end(o->perf, &p->profile))
		p->profile = NULL;
}

void observe_warn(const struct observe *o, struct observe_phase *p, struct warn_phase *w)
{
	w->has_device = o->has_device;
	w->mem_total_bytes = o->mem_total_bytes;
	w->cpus = o->cpus;
	w->k = p->taken ? &p->k : NULL;
	warn_compute(w, &p->warns);
}

void observe_phase_free(struct observe_phase *p)
{
	perf_profile_free(p->profile);
	p->profile = NULL;
}

void observe_close(struct observe *o)
{
	perf_close(o->perf);
	free(o->targets);
	memset(o, 0, sizeof(*o));
}
