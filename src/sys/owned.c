/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Markers, the directory rules, knob paths and knob locks (sys/owned.h). */
#include "sys/owned.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "core/matrix.h"
#include "core/quote.h"

static void fmt(char *why, size_t len, const char *f, ...) __attribute__((format(printf, 3, 4)));
static void fmt(char *why, size_t len, const char *f, ...)
{
	va_list ap;

	if (!why || !len)
		return;
	va_start(ap, f);
	vsnprintf(why, len, f, ap);
	va_end(ap);
}

/* "'PATH': strerror(errno)", returning -errno */
static int errfmt(char *why, size_t len, const char *q)
{
	int e = errno;

	fmt(why, len, "'%s': %s", q, strerror(e));
	return -e;
}

/* ---- markers ---------------------------------------------------------------------------- */

int owned_xattr_supported(const char *dir)
{
	char v[8];

	if (getxattr(dir, OWNED_XATTR, v, sizeof(v)) >= 0 || errno == ENODATA || errno == ERANGE)
		return 0;
	return -errno;
}

int owned_set(const char *path, const char *name, const char *value)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK), rc = 0;

	if (fd < 0)
		return -errno;
	if (value ? fsetxattr(fd, name, value, strlen(value), 0) < 0 :
		    fremovexattr(fd, name) < 0 && errno != ENODATA)
		rc = -errno;
	close(fd);
	return rc;
}

int owned_get(const char *path, const char *name, char *buf, size_t len)
{
	ssize_t n;

	if (!len)
		return -ERANGE;
	if ((n = lgetxattr(path, name, buf, len - 1)) < 0) {
		buf[0] = '\0';
		return -errno;
	}
	buf[n] = '\0';
	return (int)n;
}

int owned_mark(const char *path, const char *token)
{
	return owned_set(path, OWNED_XATTR, token);
}

int owned_check(const char *path, const char *token, bool dir, struct stat *st, char *why,
		size_t len)
{
	char v[256];
	ssize_t n;

	if (lstat(path, st) < 0)
		return -errno;
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode)) {
		fmt(why, len, "not a %s fsbench made", dir ? "directory" : "file");
		return -EPERM;
	}
	if (st->st_uid != 0) {
		fmt(why, len, "owned by uid %u, not root", (unsigned)st->st_uid);
		return -EPERM;
	}
	n = lgetxattr(path, OWNED_XATTR, v, sizeof(v) - 1);
	if (n < 0 && errno != ENODATA && errno != ERANGE)
		return fmt(why, len, "its marker cannot be read (%s)", strerror(errno)), -EPERM;
	if (n < 0 || (size_t)n != strlen(token) || memcmp(v, token, (size_t)n)) {
		fmt(why, len, "it carries no marker of this experiment (%s)", OWNED_XATTR);
		return -EPERM;
	}
	return 0;
}

/* ---- directories ------------------------------------------------------------------------ */

int owned_dir_chain(const char *path, bool self, char *why, size_t len)
{
	char cur[PATH_MAX], q[QUOTE_MAX];
	struct stat st;
	bool first = true;

	if (path[0] != '/' || strlen(path) >= sizeof(cur))
		return fmt(why, len, "not an absolute path"), -EINVAL;
	snprintf(cur, sizeof(cur), "%s", path);
	for (;;) {
		char *slash;

		quote_str(cur, q, sizeof(q));
		if (lstat(cur, &st) < 0)
			return errfmt(why, len, q);
		if (!S_ISDIR(st.st_mode))
			return fmt(why, len, "'%s' is not a directory", q), -ENOTDIR;
		if (st.st_uid != 0) {
			fmt(why, len, "'%s' belongs to uid %u: someone other than root could replace what "
			    "is in it", q, (unsigned)st.st_uid);
			return -EPERM;
		}
		if ((st.st_mode & 022) && (first && self ? true : !(st.st_mode & S_ISVTX))) {
			fmt(why, len, "'%s' is writable by %s (mode %04o): someone other than root could "
			    "replace what is in it", q, st.st_mode & 002 ? "everyone" : "its group",
			    (unsigned)(st.st_mode & 07777));
			return -EPERM;
		}
		first = false;
		if (!strcmp(cur, "/"))
			return 0;
		slash = strrchr(cur, '/');
		if (slash == cur)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

int owned_abs_path(const char *path, bool may_not_exist, char *out, size_t outlen, char *why,
		   size_t len)
{
	char r[PATH_MAX], parent[PATH_MAX], q[QUOTE_MAX], *slash, *base;
	const char *dir;

	quote_str(path, q, sizeof(q));
	if (!*path)
		return fmt(why, len, "empty path"), -EINVAL;
	if (realpath(path, r)) {
		if ((size_t)snprintf(out, outlen, "%s", r) >= outlen)
			return fmt(why, len, "'%s': path too long", q), -ENAMETOOLONG;
		return 0;
	}
	if (errno != ENOENT || !may_not_exist)
		return errfmt(why, len, q);
	if (strlen(path) >= sizeof(parent))
		return fmt(why, len, "'%s': path too long", q), -ENAMETOOLONG;
	snprintf(parent, sizeof(parent), "%s", path);
	while (strlen(parent) > 1 && parent[strlen(parent) - 1] == '/')
		parent[strlen(parent) - 1] = '\0';
	if (!(slash = strrchr(parent, '/'))) {
		dir = ".";
		base = parent;
	} else if (slash == parent) {
		dir = "/";
		base = parent + 1;
	} else {
		*slash = '\0';
		dir = parent;
		base = slash + 1;
	}
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return fmt(why, len, "'%s': not a directory name", q), -EINVAL;
	if (!realpath(dir, r))
		return errfmt(why, len, q);
	if ((size_t)snprintf(out, outlen, "%s%s%s", r, strcmp(r, "/") ? "/" : "", base) >= outlen)
		return fmt(why, len, "'%s': path too long", q), -ENAMETOOLONG;
	return 0;
}

/* ---- knobs ------------------------------------------------------------------------------ */

static bool under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(p, dir, n) && (p[n] == '/' || p[n] == '\0');
}

int owned_knob_resolve(const char *path, char *out, size_t outlen, char *why, size_t len)
{
	char abs[PATH_MAX], pre[PATH_MAX], r[PATH_MAX], q[QUOTE_MAX];
	size_t k = 0;

	quote_str(path, q, sizeof(q));
	if (path[0] == '/') {
		if (strlen(path) >= sizeof(abs))
			return fmt(why, len, "knob '%s': path too long", q), -EINVAL;
		snprintf(abs, sizeof(abs), "%s", path);
	} else {
		char cwd[PATH_MAX];

		if (!getcwd(cwd, sizeof(cwd)) ||
		    (size_t)snprintf(abs, sizeof(abs), "%s/%s", cwd, path) >= sizeof(abs))
			return fmt(why, len, "knob '%s': cannot make it absolute", q), -EINVAL;
	}
	/* every prefix that is a symbolic link must be one of the kernel's (in /sys or /proc) */
	for (const char *s = abs; *s; s++) {
		struct stat st;

		pre[k++] = *s;
		if (s[1] != '/' && s[1] != '\0')
			continue;
		pre[k] = '\0';
		if (lstat(pre, &st) == 0 && S_ISLNK(st.st_mode) && !under(pre, "/sys") && !under(pre, "/proc")) {
			char ql[QUOTE_MAX];

			fmt(why, len, "knob '%s': '%s' is a symbolic link (give the file's own path)", q,
			    quote_str(pre, ql, sizeof(ql)));
			return -EINVAL;
		}
	}
	if (!realpath(abs, r))
		return fmt(why, len, "knob '%s': %s", q, strerror(errno)), -EINVAL;
	if (!under(r, "/proc/sys") && !under(r, "/sys"))
		return fmt(why, len, "knob '%s': not a file under /proc/sys or /sys", q), -EINVAL;
	if ((size_t)snprintf(out, outlen, "%s", r) >= outlen)
		return fmt(why, len, "knob '%s': path too long", q), -EINVAL;
	return 0;
}

int owned_knob_open(const char *path, int flags)
{
	char r[PATH_MAX], *save = NULL, *c, *next;
	int dfd, fd;

	if (path[0] != '/')
		return -EINVAL;
	if (owned_knob_resolve(path, r, sizeof(r), NULL, 0))
		return access(path, F_OK) < 0 && errno == ENOENT ? -ENOENT : -EPERM;
	if ((dfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	for (c = strtok_r(r, "/", &save); c; c = next) {
		next = strtok_r(NULL, "/", &save);
		fd = openat(dfd, c, next ? O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
					 : flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
		close(dfd);
		if (fd < 0)
			return -errno;
		dfd = fd;
	}
	return dfd;
}

/* a directory root owns and alone may write: made when missing, never a symbolic link */
static int safe_dir(int parent, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(parent, name, 0700) < 0 && errno != EEXIST)
		return -errno;
	if ((fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return errno == ELOOP ? -EPERM : -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != 0 || (st.st_mode & 022)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int lock_dir(void)
{
	int run, fs, k;

	if ((run = safe_dir(AT_FDCWD, "/run")) < 0)
		return run;
	fs = safe_dir(run, "fsbench");
	close(run);
	if (fs < 0)
		return fs;
	k = safe_dir(fs, "knobs");
	close(fs);
	return k;
}

static void lock_name(const char *real, char *name, size_t len)
{
	char h[32];

	mx_hash(real, strlen(real), h);
	snprintf(name, len, "knob-%s.lock", strchr(h, ':') ? strchr(h, ':') + 1 : h);
}

int owned_knob_lock(const char *real, int *fd, char *why, size_t len)
{
	char name[64], buf[64];
	int d = lock_dir(), f = -1;

	*fd = -1;
	if (d < 0) {
		fmt(why, len, "cannot use the lock directory %s: %s", OWNED_LOCK_DIR,
		    d == -EPERM ? "not root's own (owner or mode), or a symbolic link" : strerror(-d));
		return d;
	}
	lock_name(real, name, sizeof(name));
	for (int tries = 0; tries < 100; tries++) {
		struct stat a, b;
		ssize_t n;

		if ((f = openat(d, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0) {
			int e = errno;

			fmt(why, len, "cannot open the lock %s/%s: %s", OWNED_LOCK_DIR, name, strerror(e));
			close(d);
			return -e;
		}
		if (fstat(f, &a) < 0 || !S_ISREG(a.st_mode) || a.st_uid != 0) {
			fmt(why, len, "the lock %s/%s is not root's own file", OWNED_LOCK_DIR, name);
			close(f);
			close(d);
			return -EPERM;
		}
		if (flock(f, LOCK_EX | LOCK_NB) < 0) {
			int e = errno;

			n = pread(f, buf, sizeof(buf) - 1, 0);
			buf[n > 0 ? n : 0] = '\0';
			buf[strcspn(buf, "\n")] = '\0';
			if (e == EWOULDBLOCK)
				fmt(why, len, "in use by another fsbench experiment%s%s%s (lock %s/%s)",
				    *buf ? " (pid " : "", buf, *buf ? ")" : "", OWNED_LOCK_DIR, name);
			else
				fmt(why, len, "cannot lock %s/%s: %s", OWNED_LOCK_DIR, name, strerror(e));
			close(f);
			close(d);
			return e == EWOULDBLOCK ? -EBUSY : -e;
		}
		/* the holder before us removes the file on release: locked a file no longer there,
		 * take the new one */
		if (fstatat(d, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev)
			break;
		close(f);
		f = -1;
	}
	close(d);
	if (f < 0)
		return fmt(why, len, "cannot lock %s/%s", OWNED_LOCK_DIR, name), -EAGAIN;
	snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(f, 0) == 0 && pwrite(f, buf, strlen(buf), 0) < 0) {
		/* the pid is for the message of whoever waits; the lock holds without it */
	}
	*fd = f;
	return 0;
}

void owned_knob_unlock(const char *real, int fd)
{
	char name[64];
	struct stat a, b;
	int d;

	if (fd < 0)
		return;
	lock_name(real, name, sizeof(name));
	if ((d = lock_dir()) >= 0) {
		if (fstat(fd, &a) == 0 && fstatat(d, name, &b, AT_SYMLINK_NOFOLLOW) == 0 && a.st_ino == b.st_ino &&
		    a.st_dev == b.st_dev)
			unlinkat(d, name, 0);
		close(d);
	}
	close(fd);
}
