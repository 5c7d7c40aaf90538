/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A workload's checks as every caller runs them: its own check hook, then its engine's (the
 * engine's own options against what the run does and where: io_uring's --hipri on the targets'
 * devices), from what the options table declares. */
#include "workload/workload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

struct engine_opts *workload_engine(const struct workload_ops *w, void *cfg)
{
	const struct opt *o = opt_groups_entry(w->cmd);

	return o && w->cmd->groups == &engine_opt_groups ? (struct engine_opts *)((char *)cfg + o->off)
							 : NULL;
}

/* the option flagged OPT_F_DIRECT: whether it is set, and its name as the user writes it */
static bool direct_opt(const struct workload_ops *w, const void *cfg, char *name, size_t len)
{
	name[0] = '\0';
	for (const struct opt *o = w->cmd->opts; !opt_is_end(o); o++)
		if (o->type == OPT_FLAG && (opt_flags(o) & OPT_F_DIRECT)) {
			if (o->sname)
				snprintf(name, len, "-%c", o->sname);
			else
				snprintf(name, len, "--%s", o->lname);
			return *(const bool *)((const char *)cfg + o->off);
		}
	return false;
}

int workload_checks(const struct workload_ops *w, void *cfg, int argc, char **argv, char *err, size_t errlen)
{
	struct engine_opts *e;
	const char *targets[OPT_LIST_MAX];
	char direct[64], *buf;
	struct engine_use u = { .workload = w->name, .targets = targets };
	int rc = w->check(cfg, argc, argv, err, errlen), n;

	if (rc || !(e = workload_engine(w, cfg)) || !e->ops || !e->ops->check)
		return rc;
	if ((n = workload_targets(w, cfg, targets, OPT_LIST_MAX, &buf)) < 0) {
		snprintf(err, errlen, "%s", strerror(-n));
		return n;
	}
	u.ntargets = (unsigned)n;
	u.caps = e->caps;
	u.data_path = e->data_path;
	u.direct = direct_opt(w, cfg, direct, sizeof(direct));
	u.direct_opt = direct[0] ? direct : NULL;
	rc = engine_check(e, &u, err, errlen);
	free(buf);
	return rc;
}
