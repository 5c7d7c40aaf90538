/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every file fsbench writes and its standard output: the destination rules, replacement by
 * rename of a temporary, append logs, and the first write error kept (rules in outfile.h). */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

/* not in every linux/magic.h */
#define OUTFILE_CONFIGFS_MAGIC 0x62656570
#define OUTFILE_FUSECTL_MAGIC 0x65735543

/* Filesystems whose files are kernel interfaces, not places for results: a "regular file"
 * there is a knob (/proc/sys/vm/drop_caches, an EFI variable), and appending to one or
 * creating one is never what a result destination means. */
static const struct {
	unsigned long magic;
	const char *name;
} kernel_fs[] = {
	{ PROC_SUPER_MAGIC, "proc" },
	{ SYSFS_MAGIC, "sysfs" },
	{ DEBUGFS_MAGIC, "debugfs" },
	{ TRACEFS_MAGIC, "tracefs" },
	{ SECURITYFS_MAGIC, "securityfs" },
	{ SELINUX_MAGIC, "selinuxfs" },
	{ SMACK_MAGIC, "smackfs" },
	{ OUTFILE_CONFIGFS_MAGIC, "configfs" },
	{ CGROUP_SUPER_MAGIC, "cgroup" },
	{ CGROUP2_SUPER_MAGIC, "cgroup2" },
	{ BPF_FS_MAGIC, "bpf" },
	{ EFIVARFS_MAGIC, "efivarfs" },
	{ PSTOREFS_MAGIC, "pstore" },
	{ BINFMTFS_MAGIC, "binfmt_misc" },
	{ OUTFILE_FUSECTL_MAGIC, "fusectl" },
};

enum kind {
	KIND_FD,                 /* the process's own descriptor, named by /dev/stdout etc. */
	KIND_DEVICE,             /* a character device or FIFO named as such */
	KIND_FILE,               /* a regular file, or a name that does not exist yet */
};

struct target {
	enum kind kind;
	int fd;                  /* KIND_FD: the descriptor */
	int dirfd;               /* the parent directory (O_PATH), -1 for KIND_FD */
	bool exists;
	char name[NAME_MAX + 1];
};

static int refuse(int rc, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int refuse(int rc, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

static int sys_err(int e, char *err, size_t errlen)
{
	return refuse(-e, err, errlen, "%s", strerror(e));
}

/* "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N: the descriptor, else -1. These
 * exact spellings only: they are the system's own links to the process's descriptors, so the
 * descriptor itself is used (never the link, never what it points to); any other spelling is
 * an ordinary path, refused if its last component is a link. */
static int named_fd(const char *path)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };
	long n = 0;
	const char *p = NULL;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && !p; i++)
		if (!strncmp(path, dirs[i], strlen(dirs[i])))
			p = path + strlen(dirs[i]);
	/* digits only, no leading zero (procfs does not take "01" either), within int */
	if (!p || !*p || (p[0] == '0' && p[1]))
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (*p - '0');
		if (n > INT_MAX)
			return -1;
	}
	return (int)n;
}

bool outfile_is_stdout(const char *path)
{
	return path && named_fd(path) == STDOUT_FILENO;
}

static int check_fd(int fd, char *err, size_t errlen)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return refuse(-EBADF, err, errlen, "file descriptor %d is not open", fd);
	/* O_PATH descriptors read as O_RDONLY here too */
	if ((fl & O_ACCMODE) == O_RDONLY || (fl & O_PATH))
		return refuse(-EBADF, err, errlen, "file descriptor %d is not open for writing", fd);
	if (fstat(fd, &st) < 0)
		return sys_err(errno, err, errlen);
	if (S_ISBLK(st.st_mode))
		return refuse(-EPERM, err, errlen, "file descriptor %d is a block device (refused)", fd);
	if (S_ISDIR(st.st_mode))
		return sys_err(EISDIR, err, errlen);
	return 0;
}

/* A regular file (or a new one) in the directory fd: not on a kernel interface filesystem,
 * and (dev_rule, fd a directory) not in /dev: its filesystem, devtmpfs, holds devices; a file
 * created there is a mistake at best, and renaming onto a name there replaces a device node. */
static int check_place(int fd, bool dev_rule, char *err, size_t errlen)
{
	struct statfs sf;
	struct stat d, dev, root;

	if (fstatfs(fd, &sf) < 0)
		return sys_err(errno, err, errlen);
	for (size_t i = 0; i < sizeof(kernel_fs) / sizeof(kernel_fs[0]); i++)
		if ((unsigned long)sf.f_type == kernel_fs[i].magic)
			return refuse(-EPERM, err, errlen, "is on a %s filesystem (a kernel interface, "
				      "not a place for files)", kernel_fs[i].name);
	if (!dev_rule)
		return 0;
	if (fstat(fd, &d) < 0)
		return sys_err(errno, err, errlen);
	/* /dev on its own filesystem (devtmpfs, a container's tmpfs): all of it; /dev on the
	 * root filesystem: the directory itself */
	if (stat("/dev", &dev) == 0 && stat("/", &root) == 0 && d.st_dev == dev.st_dev &&
	    (dev.st_dev != root.st_dev || d.st_ino == dev.st_ino))
		return refuse(-EPERM, err, errlen, "is in /dev, where fsbench writes only to a "
			      "character device or FIFO named explicitly");
	return 0;
}

/* Where path leads, by the rules; t->dirfd is open (O_PATH) on success unless KIND_FD. */
static int classify(const char *path, enum outfile_mode mode, struct target *t, char *err,
		    size_t errlen)
{
	char dir[PATH_MAX];
	const char *slash, *base;
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	t->dirfd = -1;
	t->fd = named_fd(path);
	if (t->fd >= 0) {
		t->kind = KIND_FD;
		return check_fd(t->fd, err, errlen);
	}
	if (!*path)
		return sys_err(ENOENT, err, errlen);
	if (strlen(path) >= PATH_MAX)
		return sys_err(ENAMETOOLONG, err, errlen);
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return sys_err(EISDIR, err, errlen);
	if (strlen(base) > NAME_MAX)
		return sys_err(ENAMETOOLONG, err, errlen);
	if (!slash)
		strcpy(dir, ".");
	else if (slash == path)
		strcpy(dir, "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	strcpy(t->name, base);
	/* the parent is followed as the user named it (links in the middle of a path are the
	 * user's own layout); every later step is relative to this descriptor, so the parent
	 * cannot be swapped under the temporary and the rename */
	t->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (t->dirfd < 0)
		return sys_err(errno, err, errlen);
	if (fstatat(t->dirfd, t->name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return sys_err(errno, err, errlen);
		t->kind = KIND_FILE;
		return check_place(t->dirfd, true, err, errlen);
	}
	t->exists = true;
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		t->kind = KIND_FILE;
		rc = check_place(t->dirfd, true, err, errlen);
		/* a file mounted over the name (a bind mount of a /proc knob) is not the
		 * directory's: its own filesystem counts too when it is written in place */
		if (!rc && mode != OUTFILE_REPLACE) {
			int fd = openat(t->dirfd, t->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

			if (fd < 0)
				return sys_err(errno, err, errlen);
			rc = check_place(fd, false, err, errlen);
			close(fd);
		}
		return rc;
	case S_IFCHR:
	case S_IFIFO:
		t->kind = KIND_DEVICE;
		return 0;
	case S_IFLNK:
		return refuse(-ELOOP, err, errlen, "is a symbolic link (refused: name the file itself)");
	case S_IFDIR:
		return sys_err(EISDIR, err, errlen);
	case S_IFBLK:
		return refuse(-EPERM, err, errlen, "is a block device (refused)");
	case S_IFSOCK:
		return refuse(-EPERM, err, errlen, "is a socket (refused)");
	default:
		return refuse(-EPERM, err, errlen, "is not a regular file (refused)");
	}
}

int outfile_check(const char *path, enum outfile_mode mode, char *err, size_t errlen)
{
	struct target t;
	struct stat d, st;
	int rc = classify(path, mode, &t, err, errlen);

	if (rc || t.kind == KIND_FD)
		goto out;
	if (t.kind == KIND_DEVICE || (t.exists && mode != OUTFILE_REPLACE)) {
		/* written in place: the file itself must be writable */
		if (faccessat(t.dirfd, t.name, W_OK, 0) < 0)
			rc = sys_err(errno, err, errlen);
		goto out;
	}
	/* a new file (or the temporary of a replacement) is created in the directory */
	if (faccessat(t.dirfd, ".", W_OK | X_OK, 0) < 0) {
		rc = sys_err(errno, err, errlen);
		goto out;
	}
	/* a sticky directory (/tmp): another user's file cannot be renamed over */
	if (t.exists && geteuid() != 0 && fstat(t.dirfd, &d) == 0 && (d.st_mode & S_ISVTX) &&
	    d.st_uid != geteuid() && fstatat(t.dirfd, t.name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_uid != geteuid())
		rc = sys_err(EPERM, err, errlen);
out:
	if (t.dirfd >= 0)
		close(t.dirfd);
	return rc;
}

/* The stream's writes: all of the buffer or the first error kept (later writes fail with it,
 * so what reaches the file is a prefix of what was meant, and the errno is the cause). */
static ssize_t of_write(void *cookie, const char *buf, size_t len)
{
	struct outfile *of = cookie;
	size_t done = 0;

	if (of->err) {
		errno = of->err;
		return 0;
	}
	while (done < len) {
		ssize_t n = write(of->fd, buf + done, len - done);

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* a descriptor inherited non-blocking (a shared terminal or pipe) */
			struct pollfd p = { .fd = of->fd, .events = POLLOUT };

			if (poll(&p, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		of->err = n < 0 ? errno : EIO;
		errno = of->err;
		/* glibc: fewer bytes than asked (not a negative count) marks the stream failed */
		return 0;
	}
	return (ssize_t)done;
}

static const cookie_io_functions_t of_io = { .write = of_write };

void outfile_random_name(char *buf, size_t len)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static unsigned counter;
	unsigned char r[12];
	struct timespec ts;

	if (len > sizeof(r) + 1)
		len = sizeof(r) + 1;
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		/* no entropy yet (early boot): unpredictable enough against a collision, and
		 * O_EXCL makes a guessed name a failed attempt, not a hijack */
		uint64_t x;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15u ^ (uint64_t)getpid() << 20 ^ ++counter;
		for (size_t i = 0; i < sizeof(r); i++, x = x * 6364136223846793005u + 1442695040888963407u)
			r[i] = (unsigned char)(x >> 56);
	}
	for (size_t i = 0; i + 1 < len; i++)
		buf[i] = abc[r[i] % (sizeof(abc) - 1)];
	buf[len - 1] = '\0';
}

/* REPLACE: a new temporary next to the named file. Named after it when that fits, so a
 * temporary left by a kill -9 says whose it was. */
static int create_tmp(struct outfile *of, char *err, size_t errlen)
{
	for (int tries = 0; tries < 32; tries++) {
		char sfx[11];

		outfile_random_name(sfx, sizeof(sfx));
		if (strlen(of->name) + 5 + strlen(sfx) <= NAME_MAX)
			snprintf(of->tmp, sizeof(of->tmp), "%s.tmp.%s", of->name, sfx);
		else
			snprintf(of->tmp, sizeof(of->tmp), ".fsbench.tmp.%s", sfx);
		of->fd = openat(of->dirfd, of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY |
				O_CLOEXEC, 0644);
		if (of->fd >= 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	of->tmp[0] = '\0';
	return sys_err(errno, err, errlen);
}

static int open_in_place(struct outfile *of, const struct target *t, enum outfile_mode mode,
			 char *err, size_t errlen)
{
	struct stat st;
	int rc;

	of->in_place = true;
	if (t->kind == KIND_FD) {
		/* what fsbench printed there before goes first */
		fflush(stdout);
		fflush(stderr);
		of->fd = fcntl(t->fd, F_DUPFD_CLOEXEC, 3);
		return of->fd < 0 ? sys_err(errno, err, errlen) : 0;
	}
	if (t->kind == KIND_DEVICE) {
		of->fd = openat(t->dirfd, t->name, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC |
				(mode == OUTFILE_APPEND ? O_APPEND : 0));
		if (of->fd < 0)
			return errno == ELOOP ? refuse(-ELOOP, err, errlen, "is a symbolic link (refused)")
					      : sys_err(errno, err, errlen);
		if (fstat(of->fd, &st) < 0)
			return sys_err(errno, err, errlen);
		if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode))
			return refuse(-EPERM, err, errlen, "was replaced by another kind of file (refused)");
		return 0;
	}
	/* APPEND to a regular file. O_NONBLOCK: a FIFO swapped in since the check must not hang
	 * the open (it is refused below); cleared again for the writes. */
	of->fd = openat(t->dirfd, t->name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY |
			O_NONBLOCK | O_CLOEXEC, 0644);
	if (of->fd < 0)
		return errno == ELOOP ? refuse(-ELOOP, err, errlen, "is a symbolic link (refused)")
				      : sys_err(errno, err, errlen);
	if (fstat(of->fd, &st) < 0)
		return sys_err(errno, err, errlen);
	if (!S_ISREG(st.st_mode))
		return refuse(-EPERM, err, errlen, "is not a regular file (refused)");
	if ((rc = check_place(of->fd, false, err, errlen)))
		return rc;
	/* a stream starts empty: only now, once the file is known to be a regular one */
	if (mode == OUTFILE_STREAM && ftruncate(of->fd, 0) < 0)
		return sys_err(errno, err, errlen);
	if (fcntl(of->fd, F_SETFL, O_APPEND) < 0)
		return sys_err(errno, err, errlen);
	return 0;
}

struct outfile *outfile_open(const char *path, enum outfile_mode mode, int *rc, char *err,
			     size_t errlen)
{
	struct outfile *of = calloc(1, sizeof(*of));
	struct target t;

	if (!of) {
		*rc = sys_err(ENOMEM, err, errlen);
		return NULL;
	}
	of->fd = -1;
	of->dirfd = -1;
	*rc = classify(path, mode, &t, err, errlen);
	if (!*rc) {
		snprintf(of->name, sizeof(of->name), "%s", t.name);
		if (t.kind == KIND_FILE && mode == OUTFILE_REPLACE) {
			of->dirfd = t.dirfd;
			t.dirfd = -1;
			*rc = create_tmp(of, err, errlen);
		} else {
			*rc = open_in_place(of, &t, mode, err, errlen);
		}
	}
	if (t.dirfd >= 0)
		close(t.dirfd);
	if (!*rc && !(of->f = fopencookie(of, "w", of_io)))
		*rc = sys_err(errno ? errno : ENOMEM, err, errlen);
	if (*rc) {
		outfile_abort(of);
		return NULL;
	}
	return of;
}

int outfile_error(struct outfile *of)
{
	return -of->err;
}

static void of_free(struct outfile *of)
{
	/* an abort drops what is still buffered: the fd is closed first and the stream
	 * refuses further writes (nothing half-written reaches a terminal or pipe) */
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	of->err = of->err ? of->err : ECANCELED;
	if (of->f)
		fclose(of->f);     /* no close hook: frees the stream only */
	if (of->tmp[0])
		unlinkat(of->dirfd, of->tmp, 0);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of);
}

int outfile_commit(struct outfile *of)
{
	struct stat st;
	int rc = 0;

	if (fflush(of->f) == EOF || ferror(of->f))
		rc = of->err ? -of->err : -EIO;
	fclose(of->f);
	of->f = NULL;
	/* close reports what write could not (NFS, quotas at writeback); EINTR leaves the fd
	 * closed on Linux and is no loss */
	if (close(of->fd) < 0 && errno != EINTR && !rc)
		rc = -errno;
	of->fd = -1;
	if (!rc && !of->in_place) {
		/* something other than a regular file put at the name during the run: not
		 * replaced (a link would be, harmlessly, but the rule is one rule) */
		if (fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
			rc = S_ISLNK(st.st_mode) ? -ELOOP : S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
		else if (renameat(of->dirfd, of->tmp, of->dirfd, of->name) < 0)
			rc = -errno;
		else
			of->tmp[0] = '\0';
	}
	of_free(of);
	return rc;
}

void outfile_abort(struct outfile *of)
{
	if (of)
		of_free(of);
}

/* Standard output as a stream that keeps its first write error (see outfile_std_fds). */
static struct outfile std_out = { .fd = STDOUT_FILENO, .dirfd = -1, .in_place = true };
static FILE *std_out_orig;

int outfile_std_fds(void)
{
	FILE *f;

	for (int fd = 0; fd <= 2; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* the lowest free descriptor is fd itself: the ones below are open by now */
		nfd = open("/dev/null", O_RDWR);
		if (nfd < 0)
			return -errno;
		if (nfd != fd) {
			close(nfd);
			return -EBADF;
		}
	}
	/* glibc documents stdout as a variable a program may set. Before any output, so
	 * nothing is buffered in the stream it replaces. */
	f = fopencookie(&std_out, "w", of_io);
	if (!f)
		return -errno;
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, BUFSIZ);
	std_out_orig = stdout;
	stdout = f;
	return 0;
}

int outfile_close_stdout(void)
{
	int rc = 0;

	errno = 0;
	if (fflush(stdout) == EOF || ferror(stdout)) {
		if (std_out_orig)
			rc = std_out.err ? -std_out.err : -EIO;
		else
			rc = errno ? -errno : -EIO;
	}
	if (std_out_orig) {
		fclose(stdout);
		stdout = std_out_orig;
		std_out_orig = NULL;
	}
	if (close(STDOUT_FILENO) < 0 && errno != EINTR && errno != EBADF && !rc)
		rc = -errno;
	return rc;
}
