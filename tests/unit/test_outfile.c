/* SPDX-License-Identifier: GPL-2.0-or-later */
/* outfile: every destination class checked (accepted or refused, with the reason), a
 * replacement complete or absent, the first write errno kept, appends, descriptors. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/outfile.h"

static char dir[] = "/tmp/fsbench-test-outfile.XXXXXX";

static char *at(const char *name)
{
	static char buf[4][PATH_MAX + 512];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static bool holds(const char *path, const char *text)
{
	char buf[256] = "";
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return !strcmp(buf, text);
}

/* what the directory holds besides the named entries: no temporary is ever left */
static int entries(void)
{
	char cmd[PATH_MAX + 64];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	if ((p = popen(cmd, "r"))) {
		if (fscanf(p, "%d", &n) != 1)
			n = -1;
		pclose(p);
	}
	return n;
}

struct check_case {
	const char *path;        /* NULL: end; "@name": inside the scratch directory */
	enum outfile_mode mode;
	int rc;                  /* expected: 0 or -errno */
	const char *why;         /* a substring of the reason, or NULL */
};

int main(void)
{
	char err[512], longname[NAME_MAX + 2], longpath[PATH_MAX + 16];
	struct outfile *of;
	int rc, n0;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	put(at("file"), "old\n");
	CHECK(mkdir(at("sub"), 0755) == 0 && symlink(at("file"), at("link")) == 0 &&
	      symlink(at("nothing"), at("dangling")) == 0 && mkfifo(at("fifo"), 0644) == 0, "setup");
	memset(longname, 'a', NAME_MAX + 1);
	longname[NAME_MAX + 1] = '\0';
	memset(longpath, 'b', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';

	const struct check_case cases[] = {
		{ "-", OUTFILE_REPLACE, 0, NULL },
		{ "/dev/stdout", OUTFILE_REPLACE, 0, NULL },
		{ "/dev/stderr", OUTFILE_APPEND, 0, NULL },
		{ "/dev/fd/2", OUTFILE_REPLACE, 0, NULL },
		{ "/proc/self/fd/1", OUTFILE_REPLACE, 0, NULL },
		{ "/dev/fd/999", OUTFILE_REPLACE, -EBADF, "not open" },
		{ "/dev/fd/01", OUTFILE_REPLACE, -EPERM, "proc" },
		{ "/proc/self/fd/999", OUTFILE_REPLACE, -EBADF, "not open" },
		{ "/dev/null", OUTFILE_REPLACE, 0, NULL },
		{ "/dev/null", OUTFILE_APPEND, 0, NULL },
		{ "/dev/full", OUTFILE_REPLACE, 0, NULL },
		{ "@fifo", OUTFILE_REPLACE, 0, NULL },
		{ "@file", OUTFILE_REPLACE, 0, NULL },
		{ "@file", OUTFILE_APPEND, 0, NULL },
		{ "@new", OUTFILE_REPLACE, 0, NULL },
		{ "@new", OUTFILE_APPEND, 0, NULL },
		{ "@link", OUTFILE_REPLACE, -ELOOP, "symbolic link" },
		{ "@link", OUTFILE_APPEND, -ELOOP, "symbolic link" },
		{ "@dangling", OUTFILE_REPLACE, -ELOOP, "symbolic link" },
		{ "@sub", OUTFILE_REPLACE, -EISDIR, NULL },
		{ "@sub", OUTFILE_APPEND, -EISDIR, NULL },
		{ "@sub/", OUTFILE_REPLACE, -EISDIR, NULL },
		{ "@sub/..", OUTFILE_REPLACE, -EISDIR, NULL },
		{ "@missing/x.json", OUTFILE_REPLACE, -ENOENT, NULL },
		{ "@file/x.json", OUTFILE_REPLACE, -ENOTDIR, NULL },
		{ "@aaaa", OUTFILE_REPLACE, -ENAMETOOLONG, NULL },    /* longname, below */
		{ "longpath", OUTFILE_REPLACE, -ENAMETOOLONG, NULL },
		{ "/dev/x.json", OUTFILE_REPLACE, -EPERM, "/dev" },
		{ "/dev/x.log", OUTFILE_APPEND, -EPERM, "/dev" },
		{ "/proc/self/x.json", OUTFILE_REPLACE, -EPERM, "proc" },
		{ "/proc/sys/vm/drop_caches", OUTFILE_APPEND, -EPERM, "proc" },
		{ "/sys/kernel/x.json", OUTFILE_REPLACE, -EPERM, "sysfs" },
		{ "/dev/stdin", OUTFILE_REPLACE, -ELOOP, "symbolic link" },
		{ "", OUTFILE_REPLACE, -ENOENT, NULL },
		{ NULL },
	};
	for (const struct check_case *c = cases; c->path; c++) {
		const char *p = c->path;

		if (!strcmp(p, "@aaaa"))
			p = at(longname);
		else if (!strcmp(p, "longpath"))
			p = longpath;
		else if (p[0] == '@')
			p = at(p + 1);
		err[0] = '\0';
		rc = outfile_check(p, c->mode, err, sizeof(err));
		CHECK(rc == c->rc && (!c->why || strstr(err, c->why)), "check %s (%s): %d '%s', expected %d",
		      c->path, c->mode == OUTFILE_APPEND ? "append" : "replace", rc, err, c->rc);
	}
	CHECK(holds(at("file"), "old\n"), "checks change nothing");
	CHECK(entries() == 5, "checks create nothing: %d entries", entries());

	/* replace: the new content appears at commit, never before; nothing else is left */
	n0 = entries();
	of = outfile_open(at("file"), OUTFILE_REPLACE, &rc, err, sizeof(err));
	CHECK(of && rc == 0, "open file: %s", err);
	if (of) {
		fputs("new\n", of->f);
		fflush(of->f);
		CHECK(holds(at("file"), "old\n"), "before commit the old file is in place");
		CHECK(entries() == n0 + 1, "one temporary while writing");
		CHECK(outfile_commit(of) == 0, "commit");
	}
	CHECK(holds(at("file"), "new\n") && entries() == n0, "after commit: new content, no temporary");

	/* abort: the previous file stays */
	of = outfile_open(at("file"), OUTFILE_REPLACE, &rc, err, sizeof(err));
	if (of) {
		fputs("half", of->f);
		outfile_abort(of);
	}
	CHECK(holds(at("file"), "new\n") && entries() == n0, "abort keeps the previous file");

	/* a failed write: the errno of the first failure (ENOSPC, not EIO), nothing replaced */
	of = outfile_open("/dev/full", OUTFILE_REPLACE, &rc, err, sizeof(err));
	CHECK(of != NULL, "open /dev/full: %s", err);
	if (of) {
		fputs("x", of->f);
		CHECK(outfile_commit(of) == -ENOSPC, "/dev/full: ENOSPC");
	}
	of = outfile_open("/dev/full", OUTFILE_APPEND, &rc, err, sizeof(err));
	if (of) {
		fputs("x", of->f);
		fflush(of->f);
		CHECK(outfile_error(of) == -ENOSPC, "outfile_error after a failed flush: ENOSPC");
		fputs("more", of->f);
		fflush(of->f);
		CHECK(outfile_error(of) == -ENOSPC, "the first errno stays");
		CHECK(outfile_commit(of) == -ENOSPC, "append /dev/full: ENOSPC at commit");
	}
	CHECK(!outfile_open(at("link"), OUTFILE_REPLACE, &rc, err, sizeof(err)) && rc == -ELOOP,
	      "open refuses a symlink: %d %s", rc, err);
	CHECK(!outfile_open(at("link"), OUTFILE_APPEND, &rc, err, sizeof(err)) && rc == -ELOOP,
	      "append refuses a symlink: %d %s", rc, err);
	CHECK(holds(at("file"), "new\n"), "the link's target is untouched");

	/* a symlink planted at the name after the temporary was made: not renamed over */
	of = outfile_open(at("late"), OUTFILE_REPLACE, &rc, err, sizeof(err));
	if (of) {
		CHECK(symlink(at("file"), at("late")) == 0, "plant a link");
		fputs("late\n", of->f);
		CHECK(outfile_commit(of) == -ELOOP, "a link planted during the write: refused");
	}
	CHECK(holds(at("file"), "new\n"), "the planted link's target is untouched");
	unlink(at("late"));

	/* append: appended, created when missing */
	of = outfile_open(at("log"), OUTFILE_APPEND, &rc, err, sizeof(err));
	if (of) {
		fputs("one\n", of->f);
		CHECK(outfile_commit(of) == 0, "append commit");
	}
	of = outfile_open(at("log"), OUTFILE_APPEND, &rc, err, sizeof(err));
	if (of) {
		fputs("two\n", of->f);
		CHECK(outfile_commit(of) == 0, "append commit 2");
	}
	CHECK(holds(at("log"), "one\ntwo\n"), "appended");

	/* a descriptor: written in place through a dup, the name never touched */
	{
		int fd = open(at("viafd"), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		char name[64];
		struct stat st;

		snprintf(name, sizeof(name), "/dev/fd/%d", fd);
		of = outfile_open(name, OUTFILE_REPLACE, &rc, err, sizeof(err));
		CHECK(of != NULL, "open %s: %s", name, err);
		if (of) {
			fputs("fd\n", of->f);
			CHECK(outfile_commit(of) == 0, "commit through a descriptor");
		}
		CHECK(fcntl(fd, F_GETFD) >= 0, "the named descriptor stays open");
		close(fd);
		CHECK(holds(at("viafd"), "fd\n"), "written through the descriptor");
		CHECK(lstat("/dev/fd", &st) == 0 && S_ISLNK(st.st_mode), "/dev/fd still a link");
		fd = open(at("viafd"), O_RDONLY | O_CLOEXEC);
		snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
		CHECK(outfile_check(name, OUTFILE_REPLACE, err, sizeof(err)) == -EBADF && strstr(err, "for writing"),
		      "a read-only descriptor is refused: %s", err);
		close(fd);
	}
	CHECK(outfile_is_stdout("-") && outfile_is_stdout("/dev/stdout") && outfile_is_stdout("/dev/fd/1") &&
	      outfile_is_stdout("/proc/self/fd/1") && !outfile_is_stdout("/dev/fd/2") &&
	      !outfile_is_stdout("./-") && !outfile_is_stdout(NULL), "outfile_is_stdout");

	snprintf(longpath, sizeof(longpath), "rm -rf '%s'", dir);
	if (system(longpath) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return check_done("test_outfile");
}
