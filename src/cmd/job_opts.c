/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench-mpi's own options (cmd/job_opts.h). */
#include "cmd/job_opts.h"

#include <stddef.h>
#include <string.h>

#define F(x) offsetof(struct job_opts, x)

static const struct opt job_opts_table[] = {
	{ 0, "shared-dir", OPT_FLAG, F(shared_dir), NULL, 0, 0, 0, 0,
	  "every rank works in the -d directories themselves (shared-directory contention, as "
	  "mdtest without -u), not in its own DIR/rank.R" },
	{ 0, "stonewall", OPT_TIME, F(stonewall_ns), "TIME", 1000000, UINT64_C(31536000000000000), 0, 0,
	  "every phase of every rank stops TIME after its release (IOR -D, mdtest -W); the phase "
	  "counts what was done and the report says it was stopped (ns/us/ms/s/m/h; bare: seconds)" },
	{ 0, "mpi-timeout", OPT_TIME, F(timeout_ns), "TIME", 100000000, UINT64_C(31536000000000000), 0, 0,
	  "a rank not heard from for TIME (killed, stopped) ends the job, named; ranks that are "
	  "only slower are waited for" },
	{ 0 },
};

const struct opt_cmd job_opt_cmd = {
	.name = "mpi",
	.summary = "fsbench-mpi options (anywhere among the workload's):",
	.opts = job_opts_table,
};

void job_opts_defaults(struct job_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->timeout_ns = UINT64_C(60000000000);
}

static const struct opt *job_opt(const char *arg)
{
	size_t n;

	if (strncmp(arg, "--", 2) || !arg[2])
		return NULL;
	arg += 2;
	n = strcspn(arg, "=");
	for (const struct opt *o = job_opts_table; !opt_is_end(o); o++)
		if (strlen(o->lname) == n && !strncmp(o->lname, arg, n))
			return o;
	return NULL;
}

void job_opts_split(int *argc, char **argv, int *jargc, char **jargv)
{
	int n = 1, m = 1;

	jargv[0] = argv[0];
	for (int i = 1; i < *argc; i++) {
		const struct opt *o = job_opt(argv[i]);

		if (!o) {
			argv[n++] = argv[i];
			continue;
		}
		jargv[m++] = argv[i];
		if (opt_takes_arg(o) && !strchr(argv[i], '=') && i + 1 < *argc)
			jargv[m++] = argv[++i];
	}
	argv[n] = NULL;
	jargv[m] = NULL;
	*argc = n;
	*jargc = m;
}
