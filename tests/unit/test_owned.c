/* SPDX-License-Identifier: GPL-2.0-or-later */
/* owned: knob paths resolved (the kernel's links followed, no one else's), paths made absolute,
 * the directory rules (owner, group/other write, sticky parents), markers and knob locks. The
 * ownership and marker cases need root (chown, trusted.*): skipped, visibly, otherwise. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "sys/owned.h"

static char tmp[PATH_MAX];

static const char *at(const char *name)
{
	static char buf[4][PATH_MAX + 64];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmp, name);
	return buf[k];
}

static void knob_resolve(void)
{
	static const struct {
		const char *in;
		int rc;
		const char *want;      /* NULL: the input's realpath */
	} cases[] = {
		{ "/proc/sys/fs/lease-break-time", 0, "/proc/sys/fs/lease-break-time" },
		{ "/proc/sys/fs/../fs/lease-break-time", 0, "/proc/sys/fs/lease-break-time" },
		{ "/proc/sys/fs/no-such-knob", -EINVAL, NULL },
		{ "/etc/hostname", -EINVAL, NULL },
		{ "/proc/self/status", -EINVAL, NULL },
		{ "/proc/sys/../../etc/hostname", -EINVAL, NULL },
		{ "LINK", -EINVAL, NULL },                   /* a link of ours to a knob */
		{ "LINKDIR/lease-break-time", -EINVAL, NULL }, /* a linked folder on the way */
	};
	char out[PATH_MAX], why[512];

	if (symlink("/proc/sys/fs/lease-break-time", at("LINK")) || symlink("/proc/sys/fs", at("LINKDIR"))) {
		CHECK(0, "symlink: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *in = cases[i].in[0] == '/' ? cases[i].in : at(cases[i].in);
		int rc = owned_knob_resolve(in, out, sizeof(out), why, sizeof(why));

		CHECK(rc == cases[i].rc, "%s: %d (%s)", in, rc, why);
		if (!rc && cases[i].want)
			CHECK(!strcmp(out, cases[i].want), "%s: %s", in, out);
	}
	/* relative, from the working directory; and the kernel's own links in /sys */
	if (chdir("/proc/sys/fs") == 0) {
		int rc = owned_knob_resolve("lease-break-time", out, sizeof(out), why, sizeof(why));

		CHECK(rc == 0 && !strcmp(out, "/proc/sys/fs/lease-break-time"), "relative: %d %s", rc, out);
		CHECK(chdir(tmp) == 0, "chdir back");
	}
	if (access("/sys/class/bdi", F_OK) == 0) {
		int rc = owned_knob_resolve("/sys/class/bdi", out, sizeof(out), why, sizeof(why));

		CHECK(rc == 0 && !strncmp(out, "/sys/", 5), "/sys/class/bdi: %d %s %s", rc, out, why);
	}
	{
		int fd = owned_knob_open("/proc/sys/fs/lease-break-time", O_RDONLY);

		CHECK(fd >= 0, "owned_knob_open: %d", fd);
		if (fd >= 0)
			close(fd);
		CHECK(owned_knob_open(at("LINK"), O_RDONLY) < 0, "owned_knob_open through a link of ours");
		CHECK(owned_knob_open("/etc/hostname", O_RDONLY) == -EPERM, "owned_knob_open /etc");
	}
}

static void abs_path(void)
{
	char out[PATH_MAX], why[512], want[PATH_MAX + 64];
	int rc;

	CHECK(mkdir(at("d"), 0700) == 0, "mkdir");
	rc = owned_abs_path("d", false, out, sizeof(out), why, sizeof(why));
	CHECK(rc == 0 && !strcmp(out, at("d")), "existing relative: %d %s", rc, out);
	rc = owned_abs_path("d/new/", true, out, sizeof(out), why, sizeof(why));
	snprintf(want, sizeof(want), "%s/new", at("d"));
	CHECK(rc == 0 && !strcmp(out, want), "new under an existing folder: %d %s", rc, out);
	rc = owned_abs_path("new", true, out, sizeof(out), why, sizeof(why));
	CHECK(rc == 0 && !strcmp(out, at("new")), "new here: %d %s", rc, out);
	CHECK(owned_abs_path("no/new", true, out, sizeof(out), why, sizeof(why)) == -ENOENT, "missing parent");
	CHECK(owned_abs_path("new", false, out, sizeof(out), why, sizeof(why)) == -ENOENT, "must exist");
	CHECK(owned_abs_path("d/..", true, out, sizeof(out), why, sizeof(why)) == 0, "d/.. exists");
	CHECK(owned_abs_path("x/..", true, out, sizeof(out), why, sizeof(why)) == -EINVAL, "x/.. is no name");
	CHECK(owned_abs_path("", true, out, sizeof(out), why, sizeof(why)) == -EINVAL, "empty");
}

static void dir_chain(void)
{
	static const struct {
		const char *name;
		mode_t mode;
		uid_t uid;
		bool self;
		int rc;
	} cases[] = {
		{ "c-ok", 0755, 0, true, 0 },
		{ "c-gw", 0775, 0, true, -EPERM },
		{ "c-ow", 0757, 0, true, -EPERM },
		{ "c-sticky-self", 01777, 0, true, -EPERM },   /* a result directory others add to */
		{ "c-sticky-parent", 01777, 0, false, 0 },     /* /tmp's kind, as a parent */
		{ "c-open-parent", 0777, 0, false, -EPERM },
		{ "c-nobody", 0700, 65534, true, -EPERM },
		{ "c-nobody-parent", 0755, 65534, false, -EPERM },
	};
	char why[512];

	if (geteuid() != 0) {
		CHECK_SKIP("owned_dir_chain", "needs root (chown, and a chain of root's folders)");
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = at(cases[i].name);
		int rc;

		CHECK(mkdir(p, 0700) == 0 && chmod(p, cases[i].mode) == 0 && chown(p, cases[i].uid, 0) == 0,
		      "%s: %s", p, strerror(errno));
		rc = owned_dir_chain(p, cases[i].self, why, sizeof(why));
		CHECK(rc == cases[i].rc, "%s: %d (%s)", cases[i].name, rc, why);
	}
	/* below a folder of nobody's: refused whatever it is itself */
	{
		char p[PATH_MAX + 80];

		snprintf(p, sizeof(p), "%s/x", at("c-nobody"));
		CHECK(mkdir(p, 0700) == 0, "mkdir %s", p);
		CHECK(owned_dir_chain(p, true, why, sizeof(why)) == -EPERM, "under nobody's: %s", why);
	}
	CHECK(owned_dir_chain("relative", true, why, sizeof(why)) == -EINVAL, "relative");
}

static void markers_and_locks(void)
{
	char why[512], v[PATH_MAX + 16];
	struct stat st;
	int fd, fd2, rc;

	if (geteuid() != 0) {
		CHECK_SKIP("markers and locks", "needs root (trusted.* attributes, /run/fsbench)");
		return;
	}
	if (owned_xattr_supported(tmp)) {
		CHECK_SKIP("markers", "no trusted.* attributes on %s's filesystem", tmp);
	} else {
		CHECK(mkdir(at("m"), 0700) == 0, "mkdir");
		close(open(at("m/img"), O_CREAT | O_WRONLY, 0600));
		CHECK(owned_check(at("m"), "tok", true, &st, why, sizeof(why)) == -EPERM, "unmarked: %s", why);
		CHECK(owned_mark(at("m"), "tok") == 0 && owned_mark(at("m/img"), "tok") == 0, "mark");
		CHECK(owned_check(at("m"), "tok", true, &st, why, sizeof(why)) == 0, "marked dir: %s", why);
		CHECK(owned_check(at("m/img"), "tok", false, &st, why, sizeof(why)) == 0, "marked file: %s", why);
		CHECK(owned_check(at("m"), "tok2", true, &st, why, sizeof(why)) == -EPERM, "another token");
		CHECK(owned_check(at("m"), "to", true, &st, why, sizeof(why)) == -EPERM, "a prefix of it");
		CHECK(owned_check(at("m/img"), "tok", true, &st, why, sizeof(why)) == -EPERM, "not a dir");
		CHECK(owned_check(at("m/none"), "tok", false, &st, why, sizeof(why)) == -ENOENT, "missing");
		CHECK(symlink(at("m/img"), at("m/link")) == 0, "symlink");
		CHECK(owned_check(at("m/link"), "tok", false, &st, why, sizeof(why)) == -EPERM, "a link to it");
		CHECK(owned_mark(at("m/link"), "tok") < 0, "marking through a link");
		CHECK(owned_set(at("m"), OWNED_XATTR_KNOBS, "/proc/sys/a\n/sys/b") == 0, "set a list");
		CHECK(owned_get(at("m"), OWNED_XATTR_KNOBS, v, sizeof(v)) == 18 && !strcmp(v, "/proc/sys/a\n/sys/b"),
		      "read it back: %s", v);
		CHECK(owned_get(at("m"), OWNED_XATTR_KNOBS, v, 4) == -ERANGE, "a short buffer");
		CHECK(owned_set(at("m"), OWNED_XATTR_KNOBS, NULL) == 0, "remove it");
		CHECK(owned_get(at("m"), OWNED_XATTR_KNOBS, v, sizeof(v)) == -ENODATA && !v[0], "removed");
		CHECK(owned_set(at("m"), OWNED_XATTR_KNOBS, NULL) == 0, "remove none");
		CHECK(chown(at("m/img"), 65534, 0) == 0, "chown");
		CHECK(owned_check(at("m/img"), "tok", false, &st, why, sizeof(why)) == -EPERM, "nobody's");
	}
	snprintf(v, sizeof(v), "%s/test-knob", tmp);
	rc = owned_knob_lock(v, &fd, why, sizeof(why));
	CHECK(rc == 0, "lock: %s", why);
	if (rc)
		return;
	CHECK(owned_knob_lock(v, &fd2, why, sizeof(why)) == -EBUSY, "second lock: %s", why);
	CHECK(strstr(why, "in use by another fsbench experiment") != NULL, "busy: %s", why);
	owned_knob_unlock(v, fd);
	CHECK(owned_knob_lock(v, &fd2, why, sizeof(why)) == 0, "lock after unlock: %s", why);
	owned_knob_unlock(v, fd2);
}

int main(void)
{
	char cmd[PATH_MAX + 16];
	int rc;

	snprintf(tmp, sizeof(tmp), "%s/test_owned.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp) || chdir(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	knob_resolve();
	abs_path();
	dir_chain();
	markers_and_locks();
	CHECK(chdir("/") == 0, "chdir /");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	rc = system(cmd);
	CHECK(rc == 0, "rm");
	return check_done("test_owned");
}
