/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Remounting a target with a cell's options and back (sys/remount.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "sys/env.h"
#include "sys/fsopts.h"
#include "sys/remount.h"

int remount_read(const char *mnt, struct remount_state *s, char *err, size_t len)
{
	struct env_mount *m = calloc(1, sizeof(*m));
	int rc;

	memset(s, 0, sizeof(*s));
	if (!m)
		return -ENOMEM;
	if ((rc = env_mount_of(mnt, m))) {
		snprintf(err, len, "cannot find the mount of '%s': %s", mnt, strerror(-rc));
		free(m);
		return rc;
	}
	if (strcmp(m->mount_point, mnt)) {
		snprintf(err, len, "'%s' is not a mount point (it is on the mount at '%s'): a remount would "
			 "change all of that", mnt, m->mount_point);
		free(m);
		return -EINVAL;
	}
	snprintf(s->mnt, sizeof(s->mnt), "%s", m->mount_point);
	snprintf(s->source, sizeof(s->source), "%s", m->source);
	snprintf(s->fstype, sizeof(s->fstype), "%s", m->fstype);
	snprintf(s->vfs, sizeof(s->vfs), "%s", m->mount_options);
	snprintf(s->super, sizeof(s->super), "%s", m->super_options);
	s->major = m->dev_major;
	s->minor = m->dev_minor;
	free(m);
	return 0;
}

void remount_opts(const struct remount_state *s, const char *extra, char *out, size_t len)
{
	/* the superblock's rw/ro is the mount's too: given once, by the mount's options */
	const char *sup = s->super;

	if (!strncmp(sup, "rw", 2) || !strncmp(sup, "ro", 2))
		sup += sup[2] == ',' ? 3 : sup[2] ? 0 : 2;
	snprintf(out, len, "%s%s%s%s%s", s->vfs, *sup ? "," : "", sup, extra && *extra ? "," : "",
		 extra ? extra : "");
}

static bool listed(const char *list, const char *w, size_t n)
{
	for (const char *l = list; *l; l += strcspn(l, ","), l += *l == ',')
		if (strcspn(l, ",") == n && !strncmp(l, w, n))
			return true;
	return false;
}

void remount_back_opts(const struct remount_state *s, const char *applied, char *out, size_t len)
{
	size_t k;

	remount_opts(s, NULL, out, len);
	for (const char *w = applied; *w; w += strcspn(w, ","), w += *w == ',') {
		size_t n = strcspn(w, ","), nn;
		char word[256], msg[256], *data = NULL;
		unsigned long flags = 0;
		const char *base;

		if (!n || n >= sizeof(word) || memchr(w, '=', n) || listed(s->super, w, n) || listed(s->vfs, w, n))
			continue;
		snprintf(word, sizeof(word), "%.*s", (int)n, w);
		/* a filesystem's flag only (the mount's flags are set whole by s->vfs) */
		if (fsopts_mount_parse(word, &flags, &data, msg, sizeof(msg)) || flags || !data) {
			free(data);
			continue;
		}
		free(data);
		base = strncmp(word, "no", 2) ? NULL : word + 2;
		nn = base ? strlen(base) : n + 2;
		/* its opposite, unless s lists that (then s's own options give it back) */
		if (base ? listed(s->super, base, nn) : false)
			continue;
		k = strlen(out);
		snprintf(out + k, len - k, "%s%s%s", *out ? "," : "", base ? "" : "no", base ? base : word);
	}
}

int remount_check(const char *opts, char *err, size_t len)
{
	return fsopts_mount_parse(opts, NULL, NULL, err, len);
}

int remount_apply(const char *mnt, const char *opts, char *err, size_t len)
{
	unsigned long flags = 0;
	char *data = NULL;
	int rc;

	if ((rc = fsopts_mount_parse(opts, &flags, &data, err, len)))
		return rc;
	/* without MS_BIND a remount sets the superblock's options and the mount's flags */
	if (mount(NULL, mnt, NULL, MS_REMOUNT | flags, data) < 0) {
		rc = -errno;
		snprintf(err, len, "cannot remount '%s' with '%s': %s", mnt, opts, strerror(-rc));
	}
	free(data);
	return rc;
}

bool remount_same(const struct remount_state *a, const struct remount_state *b)
{
	return a->major == b->major && a->minor == b->minor && !strcmp(a->mnt, b->mnt) &&
	       !strcmp(a->vfs, b->vfs) && !strcmp(a->super, b->super);
}
