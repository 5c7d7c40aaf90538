/* SPDX-License-Identifier: GPL-2.0-or-later */
/* "The directories a run works in", read from the one option each workload flags OPT_F_TARGET
 * (core/opt.h): the kernel view's and the environment's targets, fsbench-mpi's per-process
 * directories and the target fsbench matrix supplies all come from that declaration. */
#include "workload/workload.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const struct opt *workload_target_opt(const struct workload_ops *w)
{
	for (const struct opt *o = w->cmd->opts; !opt_is_end(o); o++)
		if ((o->type == OPT_STR || o->type == OPT_STRS) && (opt_flags(o) & OPT_F_TARGET))
			return o;
	return NULL;
}

bool workload_names_devices(const struct workload_ops *w, const void *cfg)
{
	for (const struct opt *o = w->cmd->opts; !opt_is_end(o); o++)
		if (o->type == OPT_FLAG && (opt_flags(o) & OPT_F_NAMES_DEVICES) &&
		    *(const bool *)((const char *)cfg + o->off))
			return true;
	return false;
}

/* the option's values as a list: an OPT_STR is a list of one (none while unset) */
static unsigned target_values(const struct opt *o, const void *cfg, const char **v, unsigned max)
{
	const void *field = (const char *)cfg + o->off;
	const struct opt_strs *l = field;
	unsigned n = 0;

	if (o->type == OPT_STR) {
		if (*(const char *const *)field && max)
			v[n++] = *(const char *const *)field;
		return n;
	}
	for (; n < l->n && n < max; n++)
		v[n] = l->v[n];
	return n;
}

void workload_nearest_existing(char *path)
{
	struct stat st;

	/* "." and "/" exist (or nothing does) */
	while (strcmp(path, ".") && strcmp(path, "/") && stat(path, &st) < 0) {
		size_t len = strlen(path);
		char *slash;

		while (len > 1 && path[len - 1] == '/')
			path[--len] = '\0';
		slash = strrchr(path, '/');
		if (!slash)
			strcpy(path, ".");
		else
			slash[slash == path] = '\0';
	}
}

int workload_targets(const struct workload_ops *w, const void *cfg, const char **out, unsigned max,
		     char **buf)
{
	const struct opt *o = workload_target_opt(w);
	unsigned n = o ? target_values(o, cfg, out, max) : 0;
	size_t size = 0, at = 0;

	*buf = NULL;
	if (!n || workload_names_devices(w, cfg))
		return (int)n;
	/* a parent is never longer than its path, "." than 2 bytes */
	for (unsigned i = 0; i < n; i++)
		size += strlen(out[i]) + 2;
	if (!(*buf = malloc(size)))
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		char *p = *buf + at;

		strcpy(p, out[i]);
		workload_nearest_existing(p);
		out[i] = p;
		at += strlen(p) + 1;
	}
	return (int)n;
}

int workload_rank_dirs(const struct workload_ops *w, void *cfg, struct opt_strs **out)
{
	const struct opt *o = workload_target_opt(w);

	*out = NULL;
	if (o && (opt_flags(o) & OPT_F_TARGET_SHARED))
		return 0;
	if (!o || o->type != OPT_STRS || workload_names_devices(w, cfg))
		return -ENOTDIR;
	*out = (struct opt_strs *)((char *)cfg + o->off);
	return 0;
}

int workload_bad(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int workload_check_new_dir(const char *dir, char *err, size_t len)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;

	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : workload_bad(err, len, "option -d: '%s' is not a directory", dir);
	if (errno != ENOENT)
		return workload_bad(err, len, "option -d: cannot use '%s': %s", dir, strerror(errno));
	snprintf(parent, sizeof(parent), "%s", dir);
	while ((slash = strrchr(parent, '/')) && slash != parent && !slash[1])
		*slash = '\0';          /* trailing slashes */
	if (!(slash = strrchr(parent, '/')))
		return 0;                /* relative, in the working directory */
	slash[slash == parent] = '\0';
	if (stat(parent, &st) < 0 || !S_ISDIR(st.st_mode))
		return workload_bad(err, len, "option -d: cannot create '%s': '%s' is not an existing "
				    "directory", dir, parent);
	return 0;
}
