/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Images, loop devices, mkfs, mounts, knobs, bdi limits and device checks for the experiment
 * runner (sys/fsimage.h). */
#include "sys/fsimage.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/loop.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/words.h"
#include "core/errmsg.h"
#include "core/quote.h"
#include "sys/fsopts.h"
#include "sys/blockdev.h"
#include "sys/mountlib.h"
#include "sys/owned.h"

extern char **environ;

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- filesystems ------------------------------------------------------------------------ */

/* The flags that make each mkfs quiet and unattended (it would ask before overwriting a
 * signature). ext*: the inode tables and the journal are initialised by mkfs, not by the
 * ext4lazyinit thread in the background of the first runs (a later -E in the options wins). */
static const struct {
	const char *type;
	const char *flags[4];
} fs_table[] = {
	{ "ext2", { "-q", "-F", "-E", "lazy_itable_init=0" } },
	{ "ext3", { "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0" } },
	{ "ext4", { "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0" } },
	{ "xfs", { "-q", "-f" } },
	{ "btrfs", { "-q", "-f" } },
};
#define NFS (sizeof(fs_table) / sizeof(fs_table[0]))

const char *fsimage_fs_list(void)
{
	return "ext2, ext3, ext4, xfs, btrfs";
}

bool fsimage_fs_known(const char *type)
{
	for (size_t i = 0; i < NFS; i++)
		if (!strcmp(fs_table[i].type, type))
			return true;
	return false;
}

int fsimage_mkfs_argv(const char *type, const char *opts, char **argv, unsigned max, char *err,
		      size_t errlen)
{
	unsigned n = 0, base;
	char prog[64];
	size_t i;

	for (i = 0; i < NFS && strcmp(fs_table[i].type, type); i++)
		;
	if (i == NFS) {
		char q[QUOTE_MAX];

		errmsg(err, errlen, "unknown filesystem '%s' (known: %s)", quote_str(type, q, sizeof(q)),
		       fsimage_fs_list());
		return -1;
	}
	snprintf(prog, sizeof(prog), "mkfs.%s", type);
	if (!(argv[n++] = strdup(prog)))
		goto oom;
	for (unsigned k = 0; k < 4 && fs_table[i].flags[k]; k++)
		if (!(argv[n++] = strdup(fs_table[i].flags[k])))
			goto oom;
	base = n;
	/* the user's words: options of the grammar only (sys/fsopts.h), never an operand */
	if (opts && (words_split(opts, argv, max - 1, &n, err, errlen) ||
		     fsopts_mkfs_check(type, argv + base, n - base, err, errlen))) {
		while (n)
			free(argv[--n]);
		return -1;
	}
	return (int)n;
oom:
	while (n)
		free(argv[--n]);
	errmsg(err, errlen, "out of memory");
	return -1;
}

int fsimage_mkfs_find(const char *type, char *path, size_t len)
{
	const char *env = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		if (!*d)
			continue;
		snprintf(path, len, "%s/mkfs.%s", d, type);
		if (access(path, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

int fsimage_spawn(char *const argv[], char *out, size_t outlen)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, defs;
	int p[2], rc, st;
	size_t k = 0;
	pid_t pid;

	if (outlen)
		out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, p[1], 2);
	posix_spawnattr_init(&at);
	sigemptyset(&none);
	sigemptyset(&defs);
	sigaddset(&defs, SIGPIPE);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &defs);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(p[1]);
	if (rc) {
		close(p[0]);
		return -rc;
	}
	for (;;) {
		char buf[1024];
		ssize_t r = read(p[0], buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		/* keep the beginning: mkfs says what went wrong first, then its usage */
		for (ssize_t i = 0; i < r && k + 1 < outlen; i++)
			out[k++] = buf[i];
	}
	if (outlen)
		out[k] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- images and loop devices ------------------------------------------------------------ */

int fsimage_create(const char *path, uint64_t size, dev_t *dev, ino_t *ino)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct stat st;
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	if (!rc && ftruncate(fd, (off_t)size) < 0)
		rc = -errno;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (rc) {
		unlink(path);
		return rc;
	}
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

int fsimage_remove(const char *path, dev_t dev, ino_t ino, bool dir, char *how, size_t len)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT) {
			errmsg(how, len, "already gone");
			return 0;
		}
		errmsg(how, len, "left: %s", strerror(errno));
		return -errno;
	}
	if (st.st_dev != dev || st.st_ino != ino || (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))) {
		errmsg(how, len, "left: it is no longer what fsbench created");
		return 0;
	}
	if ((dir ? rmdir(path) : unlink(path)) < 0) {
		int e = errno;

		errmsg(how, len, "left: %s", strerror(e));
		return -e;
	}
	errmsg(how, len, "removed");
	return 0;
}

int fsimage_loop_free(int *number)
{
	int fd = open("/dev/loop-control", O_RDWR | O_CLOEXEC), n;

	if (fd < 0)
		return -errno;
	n = ioctl(fd, LOOP_CTL_GET_FREE);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	*number = n;
	return 0;
}

int fsimage_loop_attach(int number, const char *image, int *fd, bool *dio, char *err, size_t errlen)
{
	struct loop_config lc;
	struct loop_info64 li;
	char dev[32];
	int ifd, lfd, rc;

	snprintf(dev, sizeof(dev), "/dev/loop%d", number);
	if ((ifd = open(image, O_RDWR | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		rc = -errno;
		errmsg(err, errlen, "cannot open '%s': %s", image, strerror(-rc));
		return rc;
	}
	/* the node may appear a moment after LOOP_CTL_GET_FREE created the device */
	for (int i = 0; (lfd = open(dev, O_RDWR | O_CLOEXEC)) < 0 && errno == ENOENT && i < 50; i++)
		nap_ms(20);
	if (lfd < 0) {
		rc = -errno;
		errmsg(err, errlen, "cannot open '%s': %s", dev, strerror(-rc));
		close(ifd);
		return rc;
	}
	memset(&lc, 0, sizeof(lc));
	lc.fd = (unsigned)ifd;
	snprintf((char *)lc.info.lo_file_name, sizeof(lc.info.lo_file_name), "%s", image);
	lc.info.lo_flags = LO_FLAGS_AUTOCLEAR | LO_FLAGS_DIRECT_IO;
	rc = ioctl(lfd, LOOP_CONFIGURE, &lc);
	if (rc < 0 && errno == EINVAL) {
		/* an older kernel, or direct I/O refused by the backing filesystem: without it */
		lc.info.lo_flags = LO_FLAGS_AUTOCLEAR;
		rc = ioctl(lfd, LOOP_CONFIGURE, &lc);
	}
	if (rc < 0) {
		rc = errno == EBUSY ? -EBUSY : -errno;
		if (rc != -EBUSY)
			errmsg(err, errlen, "cannot attach '%s' to %s: %s", image, dev, strerror(-rc));
		close(lfd);
		close(ifd);
		return rc;
	}
	close(ifd);
	if (!(lc.info.lo_flags & LO_FLAGS_DIRECT_IO))
		ioctl(lfd, LOOP_SET_DIRECT_IO, 1UL);
	*dio = ioctl(lfd, LOOP_GET_STATUS64, &li) == 0 && (li.lo_flags & LO_FLAGS_DIRECT_IO);
	*fd = lfd;
	return 0;
}

int fsimage_loop_backing(const char *dev, dev_t *bdev, ino_t *bino)
{
	struct loop_info64 li;
	int fd = open(dev, O_RDONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return errno == ENOENT ? -ENXIO : -errno;
	if (ioctl(fd, LOOP_GET_STATUS64, &li) < 0)
		rc = -errno;
	close(fd);
	if (rc)
		return rc;
	*bdev = (dev_t)li.lo_device;
	*bino = (ino_t)li.lo_inode;
	return 0;
}

int fsimage_loop_detach(const char *dev, dev_t bdev, ino_t bino, char *how, size_t len)
{
	dev_t d;
	ino_t i;
	int rc = fsimage_loop_backing(dev, &d, &i), fd;

	if (rc == -ENXIO) {
		errmsg(how, len, "already detached");
		return 0;
	}
	if (rc) {
		errmsg(how, len, "left: %s", strerror(-rc));
		return rc;
	}
	if (d != bdev || i != bino) {
		errmsg(how, len, "left: it is now attached to another file");
		return 0;
	}
	if ((fd = open(dev, O_RDONLY | O_CLOEXEC)) < 0) {
		rc = -errno;
		errmsg(how, len, "left: %s", strerror(-rc));
		return rc;
	}
	/* busy right after an unmount: the kernel may still hold it for a moment */
	for (int k = 0; (rc = ioctl(fd, LOOP_CLR_FD)) < 0 && errno == EBUSY && k < 50; k++)
		nap_ms(100);
	rc = rc < 0 ? -errno : 0;
	close(fd);
	if (rc == -ENXIO) {
		errmsg(how, len, "already detached");
		return 0;
	}
	if (rc) {
		errmsg(how, len, "left: %s", strerror(-rc));
		return rc;
	}
	/* LOOP_CLR_FD on a device someone else holds open only marks it for autoclear and
	 * returns 0: detached is what the device says, not what the ioctl returned */
	for (int k = 0; k < 30; k++) {
		if ((rc = fsimage_loop_backing(dev, &d, &i)) == -ENXIO) {
			errmsg(how, len, "detached");
			return 0;
		}
		if (rc || d != bdev || i != bino)
			break;
		nap_ms(100);
	}
	if (rc == 0 && (d != bdev || i != bino)) {
		errmsg(how, len, "detached (now attached to another file)");
		return 0;
	}
	errmsg(how, len,
	       "left: still attached: something else holds it open (the kernel detaches it "
	       "when the last user closes it)");
	return -EBUSY;
}

/* ---- mounts ----------------------------------------------------------------------------- */

int fsimage_mount(const char *source, const char *target, const char *type, const char *opts,
		  char *err, size_t errlen)
{
	unsigned long flags;
	char *data = NULL;
	int rc;

	/* the options were checked before anything was set up: refused here too, never passed */
	if ((rc = fsopts_mount_parse(opts, &flags, &data, err, errlen)))
		return rc;
	if (mount(source, target, type, flags, data) < 0) {
		rc = -errno;
		errmsg(err, errlen, "cannot mount %s (%s, options '%s') on '%s': %s", source, type,
		       opts && *opts ? opts : "defaults", target, strerror(-rc));
		if (rc == -EINVAL)
			errmsg(err + strlen(err), errlen - strlen(err), " (an option %s does not know?)",
			       type);
	}
	free(data);
	return rc;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

static bool same_source(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode) &&
	       sa.st_rdev == sb.st_rdev;
}

int fsimage_mounted(const char *target, const char *source)
{
	char real[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int found = 0;

	if (!realpath(target, real))
		return errno == ENOENT ? 0 : -errno;
	if (!(f = fopen("/proc/self/mountinfo", "re")))
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *fields[16], *save = NULL, *sep = strstr(line, " - ");
		unsigned n = 0;

		if (!sep)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t && n < 16; t = strtok_r(NULL, " ", &save))
			fields[n++] = t;
		if (n < 5)
			continue;
		unescape(fields[4]);
		if (strcmp(fields[4], real))
			continue;
		n = 0;
		save = NULL;
		for (char *t = strtok_r(sep + 3, " \n", &save); t && n < 3; t = strtok_r(NULL, " \n", &save))
			fields[n++] = t;
		if (n < 2)
			continue;
		unescape(fields[1]);
		found = same_source(fields[1], source) ? 1 : found;
	}
	free(line);
	fclose(f);
	return found;
}

int fsimage_umount(const char *target, const char *source, char *how, size_t len)
{
	return fsimage_umount_ns(target, source, NULL, how, len);
}

int fsimage_umount_ns(const char *target, const char *source, uint64_t *ns, char *how, size_t len)
{
	int m = fsimage_mounted(target, source), k;
	uint64_t t0 = clock_ns();

	if (m < 0) {
		errmsg(how, len, "left: %s", strerror(-m));
		return m;
	}
	if (!m) {
		errmsg(how, len, "not mounted (already unmounted)");
		return 0;
	}
	for (k = 0; umount2(target, UMOUNT_NOFOLLOW) < 0; k++) {
		int e = errno;

		if (e == EINVAL && fsimage_mounted(target, source) == 0)
			break;
		if (e != EBUSY || k == 30) {
			if (e == EBUSY && umount2(target, UMOUNT_NOFOLLOW | MNT_DETACH) == 0) {
				errmsg(how, len, "detached lazily (busy: something still uses it)");
				return 0;
			}
			errmsg(how, len, "left: %s", strerror(e));
			return -e;
		}
		nap_ms(100);
	}
	/* a retried unmount waited for someone else: not the filesystem's time */
	if (ns)
		*ns = k ? 0 : clock_ns() - t0;
	errmsg(how, len, "unmounted");
	return 0;
}

/* ---- knobs ------------------------------------------------------------------------------ */

void fsimage_knob_normalize(char *val)
{
	char *o = val, *open, *close;
	bool space = false;

	for (char *s = val; *s; s++) {
		if (isspace((unsigned char)*s)) {
			space = o != val;
			continue;
		}
		if (space)
			*o++ = ' ';
		space = false;
		*o++ = *s;
	}
	*o = '\0';
	/* "always [madvise] never": the value is the one in brackets */
	if ((open = strchr(val, '[')) && (close = strchr(open, ']')) && !strchr(close + 1, '[')) {
		memmove(val, open + 1, (size_t)(close - open - 1));
		val[close - open - 1] = '\0';
	}
}

static int read_all(const char *path, char *buf, size_t len, bool *lines)
{
	int fd = owned_knob_open(path, O_RDONLY);
	size_t k = 0;
	ssize_t r;

	if (fd < 0)
		return fd;
	while (k + 1 < len && (r = read(fd, buf + k, len - 1 - k)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			close(fd);
			return (int)r;
		}
		k += (size_t)r;
	}
	close(fd);
	buf[k] = '\0';
	while (k && (buf[k - 1] == '\n' || buf[k - 1] == ' ' || buf[k - 1] == '\t'))
		buf[--k] = '\0';
	if (lines)
		*lines = strchr(buf, '\n') != NULL || k + 2 >= len;
	return 0;
}

int fsimage_knob_read(const char *path, char *val, size_t len)
{
	int rc = read_all(path, val, len, NULL);

	if (!rc)
		fsimage_knob_normalize(val);
	return rc;
}

int fsimage_knob_write(const char *path, const char *val)
{
	/* O_TRUNC as the shell's '>': the value replaces the file's, whatever was longer */
	int fd = owned_knob_open(path, O_WRONLY | O_TRUNC), rc = 0;
	size_t n = strlen(val);
	ssize_t w;

	if (fd < 0)
		return fd;
	while ((w = write(fd, val, n)) < 0 && errno == EINTR)
		;
	if (w < 0)
		rc = -errno;
	else if ((size_t)w != n)
		rc = -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int fsimage_knob_check(const char *path, char *real, size_t reallen, char *current, size_t curlen,
		       bool *restorable, char *err, size_t errlen)
{
	char q[QUOTE_MAX], buf[4096], r[PATH_MAX];
	struct stat st;
	bool lines;

	quote_str(path, q, sizeof(q));
	if (!realpath(path, r)) {
		int e = errno;

		errmsg(err, errlen, "knob '%s': %s", q, strerror(e));
		return -EINVAL;
	}
	if (strncmp(r, "/proc/sys/", 10) && strncmp(r, "/sys/", 5)) {
		errmsg(err, errlen, "knob '%s': not a file under /proc/sys or /sys", q);
		return -EINVAL;
	}
	if (stat(r, &st) < 0 || !S_ISREG(st.st_mode)) {
		errmsg(err, errlen, "knob '%s': not a file", q);
		return -EINVAL;
	}
	if (!(st.st_mode & 0222)) {
		errmsg(err, errlen, "knob '%s': read-only", q);
		return -EINVAL;
	}
	snprintf(real, reallen, "%s", r);
	*restorable = false;
	current[0] = '\0';
	if ((st.st_mode & 0444) && read_all(r, buf, sizeof(buf), &lines) == 0 && !lines && buf[0]) {
		fsimage_knob_normalize(buf);
		snprintf(current, curlen, "%s", buf);
		*restorable = buf[0] != '\0' && strlen(buf) < curlen;
	}
	return 0;
}

/* btrfs has a bdi of its own (btrfs-N), linked from /sys/fs/btrfs/FSID/bdi */
static int btrfs_bdi(const char *dev, char *path, size_t len)
{
	const struct mountlib_blkid *bk = mountlib_blkid(NULL, 0);
	blkid_probe pr = bk ? bk->new_probe_from_filename(dev) : NULL;
	const char *uuid = NULL;
	char link[PATH_MAX], real[PATH_MAX];
	int rc = -ENOENT;

	if (!bk)
		return -ENOENT;
	if (!pr)
		return -errno ? -errno : -EIO;
	bk->probe_enable_superblocks(pr, 1);
	bk->probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID | BLKID_SUBLKS_TYPE);
	if (bk->do_safeprobe(pr) == 0 && bk->probe_lookup_value(pr, "UUID", &uuid, NULL) == 0) {
		snprintf(link, sizeof(link), "/sys/fs/btrfs/%s/bdi", uuid);
		if (realpath(link, real)) {
			snprintf(path, len, "%s", real);
			rc = 0;
		}
	}
	bk->free_probe(pr);
	return rc;
}

int fsimage_bdi_of(const char *mnt, const char *dev, char *path, size_t len)
{
	struct stat st;

	if (stat(mnt, &st) < 0)
		return -errno;
	snprintf(path, len, "/sys/class/bdi/%u:%u", major(st.st_dev), minor(st.st_dev));
	if (access(path, F_OK) == 0)
		return 0;
	return btrfs_bdi(dev, path, len);
}

int fsimage_drop_caches(void)
{
	sync();
	return fsimage_knob_write("/proc/sys/vm/drop_caches", "3");
}

/* ---- a device named by the user --------------------------------------------------------- */

/* Which node of the stack is device number d, -1 when none. */
static int stack_index(const struct blockdev_stack *s, dev_t d)
{
	for (unsigned i = 0; i < s->n; i++)
		if (makedev(s->node[i].major, s->node[i].minor) == d)
			return (int)i;
	return -1;
}

/* The first node mounted (mountinfo: its device number, or the source path's), with where. */
static int stack_mounted(const struct blockdev_stack *s, char *where, size_t len)
{
	char *line = NULL;
	size_t cap = 0;
	int hit = -1;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return -1;
	while (hit < 0 && getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - "), src[4096], mnt[4096];
		unsigned ma, mi;
		struct stat ss;

		if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3)
			continue;
		hit = stack_index(s, makedev(ma, mi));
		/* btrfs: an anonymous device number; the source names the device */
		if (hit < 0 && sep && sscanf(sep + 3, "%*s %4095s", src) == 1 && src[0] == '/') {
			unescape(src);
			if (stat(src, &ss) == 0 && S_ISBLK(ss.st_mode))
				hit = stack_index(s, ss.st_rdev);
		}
		if (hit >= 0) {
			unescape(mnt);
			snprintf(where, len, "%s", mnt);
		}
	}
	free(line);
	fclose(f);
	return hit;
}

/* The first node that is swap space (/proc/swaps, a partition-type entry). */
static int stack_swap(const struct blockdev_stack *s)
{
	char *line = NULL;
	size_t cap = 0;
	int hit = -1;
	FILE *f = fopen("/proc/swaps", "re");

	if (!f)
		return -1;
	while (hit < 0 && getline(&line, &cap, f) > 0) {
		char name[4096];
		struct stat ss;

		if (line[0] != '/' || sscanf(line, "%4095s", name) != 1)
			continue;
		unescape(name);
		if (stat(name, &ss) == 0 && S_ISBLK(ss.st_mode))
			hit = stack_index(s, ss.st_rdev);
	}
	free(line);
	fclose(f);
	return hit;
}

/* The kernel holds a stacked device for someone (a mount in any mount namespace, swap, an
 * O_EXCL opener): the exclusive open fails. Read-only, closed at once. */
static bool stack_claimed(const struct blockdev_node *n)
{
	char p[BLOCKDEV_NAME_MAX + 8];
	struct stat st;
	int fd;

	snprintf(p, sizeof(p), "/dev/%s", n->name);
	if (stat(p, &st) < 0 || !S_ISBLK(st.st_mode) || st.st_rdev != makedev(n->major, n->minor))
		return false;
	if ((fd = open(p, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK)) < 0)
		return errno == EBUSY;
	close(fd);
	return false;
}

/* What is stacked on the device (sys/blockdev.h's blockdev_stack): a mount, swap or a holder
 * (device-mapper, md: they claim it) anywhere in it is refused, even with --destroy, as a mount
 * of the device itself is; loop devices and partitions on it that nothing uses are data like a
 * signature: refused unless destroy. Through loop devices nothing else would say so: a loop
 * device does not claim what it reads, so the O_EXCL open below succeeds while a filesystem is
 * mounted from a loop device at an offset into the device. */
static int stack_check(const char *q, const struct stat *st, bool destroy, char *err, size_t errlen)
{
	struct blockdev_stack *s = malloc(sizeof(*s));
	char path[1024], where[4096], wq[QUOTE_MAX];
	int i, rc = 0;

	if (!s) {
		errmsg(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (blockdev_stack("/sys", major(st->st_rdev), minor(st->st_rdev), s)) {
		errmsg(err, errlen, "--device '%s': block device %u:%u is not in /sys/dev/block", q,
		       major(st->st_rdev), minor(st->st_rdev));
		free(s);
		return -ENODEV;
	}
	if ((i = stack_mounted(s, where, sizeof(where))) >= 0) {
		blockdev_stack_path(s, (unsigned)i, path, sizeof(path));
		quote_str(where, wq, sizeof(wq));
		if (i == 0)
			errmsg(err, errlen, "--device '%s' is mounted at '%s': refusing it", q, wq);
		else
			errmsg(err, errlen, "--device '%s' is in use: %s is mounted at '%s': refusing it", q,
			       path, wq);
		rc = -EBUSY;
	} else if ((i = stack_swap(s)) >= 0) {
		blockdev_stack_path(s, (unsigned)i, path, sizeof(path));
		errmsg(err, errlen, "--device '%s' is in use: %s is swap space: refusing it", q, path);
		rc = -EBUSY;
	} else if (s->truncated) {
		errmsg(err, errlen,
		       "--device '%s' is in use: more than %d devices are stacked on it: refusing it", q,
		       BLOCKDEV_STACK_MAX);
		rc = -EBUSY;
	} else {
		for (unsigned k = 1; k < s->n && !rc; k++) {
			if (!s->node[k].holder)
				continue;
			blockdev_stack_path(s, k, path, sizeof(path));
			errmsg(err, errlen, "--device '%s' is in use: held by %s: refusing it", q, path);
			rc = -EBUSY;
		}
		for (unsigned k = 1; k < s->n && !rc; k++) {
			if (!stack_claimed(&s->node[k]))
				continue;
			blockdev_stack_path(s, k, path, sizeof(path));
			errmsg(err, errlen,
			       "--device '%s' is in use: %s is held open exclusively (mounted in "
			       "another mount namespace, or another program): refusing it",
			       q, path);
			rc = -EBUSY;
		}
		for (unsigned k = 1; k < s->n && !rc && !destroy; k++) {
			if (s->node[k].under)
				continue;
			blockdev_stack_path(s, k, path, sizeof(path));
			errmsg(err, errlen,
			       "--device '%s' has %s on it: refusing to overwrite it "
			       "(--destroy %s names it again to allow that)",
			       q, path, q);
			rc = -EEXIST;
		}
	}
	free(s);
	return rc;
}

/* the signatures libblkid finds on the open device fd (q: its name quoted): 0 none, or
 * overwritable (destroy); -EEXIST refused, -EIO/-ENOMEM cannot probe (err says) */
static int signatures_check(const struct mountlib_blkid *bk, int fd, const char *q, bool destroy, char *err,
			    size_t errlen)
{
	blkid_probe pr;
	int rc;

	if (!(pr = bk->new_probe())) {
		errmsg(err, errlen, "--device '%s': cannot probe it (libblkid)", q);
		return -ENOMEM;
	}
	rc = bk->probe_set_device(pr, fd, 0, 0);
	if (!rc) {
		const char *type = NULL, *pt = NULL;

		bk->probe_enable_superblocks(pr, 1);
		bk->probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		bk->probe_enable_partitions(pr, 1);
		bk->probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
		rc = bk->do_safeprobe(pr);
		if (rc == 0) {
			bk->probe_lookup_value(pr, "TYPE", &type, NULL);
			bk->probe_lookup_value(pr, "PTTYPE", &pt, NULL);
			if (!destroy) {
				errmsg(err, errlen,
				       "--device '%s' holds %s %s: refusing to overwrite it "
				       "(--destroy %s names it again to allow that)",
				       q,
				       type ? type
				       : pt ? pt
					    : "a",
				       type ? "(a filesystem or RAID signature)"
				       : pt ? "(a partition table)"
					    : "signature",
				       q);
				rc = -EEXIST;
			}
		} else if (rc == -2) {
			if (!destroy) {
				errmsg(err, errlen,
				       "--device '%s' holds several signatures: refusing to overwrite it "
				       "(--destroy %s names it again to allow that)",
				       q, q);
				rc = -EEXIST;
			} else {
				rc = 0;
			}
		} else if (rc == 1) {
			rc = 0;
		} else {
			errmsg(err, errlen, "--device '%s': cannot probe it (libblkid)", q);
			rc = -EIO;
		}
	} else {
		errmsg(err, errlen, "--device '%s': cannot probe it (libblkid)", q);
		rc = -EIO;
	}
	bk->free_probe(pr);
	return rc;
}

int fsimage_device_check(const char *dev, bool destroy, int *claim, char *err, size_t errlen)
{
	const struct mountlib_blkid *bk;
	char q[QUOTE_MAX];
	struct stat st;
	int fd, rc;

	if (claim)
		*claim = -1;
	if (!(bk = mountlib_blkid(err, errlen)))
		return -ENOENT;
	quote_str(dev, q, sizeof(q));
	if (stat(dev, &st) < 0) {
		rc = -errno;
		errmsg(err, errlen, "--device '%s': %s", q, strerror(-rc));
		return rc;
	}
	if (!S_ISBLK(st.st_mode)) {
		errmsg(err, errlen, "--device '%s': not a block device", q);
		return -ENOTBLK;
	}
	if ((rc = stack_check(q, &st, destroy, err, errlen)))
		return rc;
	/* O_EXCL on a block device: fails while anyone holds it exclusively (a mount, swap,
	 * device-mapper, md, a partition of it, another program) */
	if ((fd = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC)) < 0) {
		rc = -errno;
		if (rc == -EBUSY)
			errmsg(err, errlen,
			       "--device '%s' is in use (held open exclusively: mounted, swap, "
			       "device-mapper, RAID or another program): refusing it",
			       q);
		else
			errmsg(err, errlen, "--device '%s': %s", q, strerror(-rc));
		return rc;
	}
	rc = signatures_check(bk, fd, q, destroy, err, errlen);
	if (!rc && claim) {
		struct stat now;

		/* the device checked is the device claimed */
		if (fstat(fd, &now) == 0 && S_ISBLK(now.st_mode) && now.st_rdev == st.st_rdev) {
			*claim = fd;
			return 0;
		}
		errmsg(err, errlen, "--device '%s' changed while it was checked", q);
		rc = -EAGAIN;
	}
	close(fd);
	return rc > 0 ? 0 : rc;
}
