/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cache of aged images (sys/agecache.h). */
#include "sys/agecache.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/quote.h"
#include "sys/age.h"
#include "sys/owned.h"

#define FNV_INIT 0xcbf29ce484222325ULL
#define AC_BLOCK 4096

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

void agecache_key(const char *fs, const char *mkfs, uint64_t size_bytes, const struct age_spec *a,
		  uint64_t seed, struct agecache_key *k)
{
	uint64_t sizes = FNV_INIT;
	char line[96];

	/* the histogram by its content, not by the file's name */
	for (unsigned i = 0; i < a->nsizes; i++) {
		snprintf(line, sizeof(line), "%llu %.17g\n", (unsigned long long)a->size[i], a->weight[i]);
		sizes = fnv(sizes, line, strlen(line));
	}
	snprintf(k->text, sizeof(k->text),
		 "fsbench age cache 1\nfs %s\nmkfs %s\nsize_bytes %llu\naging %d fill=%u%% churn=%u sizes=%s%016llx\n"
		 "seed %llu\n", fs, mkfs, (unsigned long long)size_bytes, AGE_VERSION, a->fill_pct, a->churn,
		 a->nsizes ? "fnv1a64:" : "lognormal:", a->nsizes ? (unsigned long long)sizes : 0ULL,
		 (unsigned long long)seed);
	snprintf(k->name, sizeof(k->name), "%.32s-%016llx", fs,
		 (unsigned long long)fnv(FNV_INIT, k->text, strlen(k->text)));
}

int agecache_dir_check(const char *dir, int create, char *why, size_t len)
{
	char q[QUOTE_MAX];

	quote_str(dir, q, sizeof(q));
	if (create && mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int rc = -errno;

		snprintf(why, len, "cannot create '%s': %s", q, strerror(-rc));
		return rc;
	}
	return owned_dir_chain(dir, true, why, len);
}

/* An entry's file or directory: no link, root's, not writable by others, one link (files). */
static int trusted(int fd, bool dir, const char *what, char *why, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return snprintf(why, len, "%s: %s", what, strerror(errno)), -errno;
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode) || st.st_nlink != 1)
		return snprintf(why, len, "%s is not a %s", what, dir ? "directory" : "regular file of one link"), -EPERM;
	if (st.st_uid != 0 || (st.st_mode & 022))
		return snprintf(why, len, "%s belongs to uid %u, mode %04o: not root's alone", what,
				(unsigned)st.st_uid, (unsigned)(st.st_mode & 07777)), -EPERM;
	return 0;
}

static int open_in(int dfd, const char *name, bool dir, const char *what, char *why, size_t len)
{
	int fd = openat(dfd, name, (dir ? O_DIRECTORY : 0) | O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0) {
		rc = -errno;
		if (rc == -ELOOP)
			snprintf(why, len, "%s is a symbolic link", what);
		else
			snprintf(why, len, "%s: %s", what, strerror(-rc));
		return rc == -ENOENT ? -ENOENT : rc == -ELOOP ? -EPERM : rc;
	}
	if ((rc = trusted(fd, dir, what, why, len))) {
		close(fd);
		return rc;
	}
	return fd;
}

/* The digest of the content: every 4 KiB block that is not all zeros, with its offset. */
static int digest(int fd, uint64_t size, char out[32])
{
	char *buf = malloc(1 << 20);
	uint64_t h = FNV_INIT;
	off_t pos = 0;

	if (!buf)
		return -ENOMEM;
	while ((uint64_t)pos < size) {
		off_t data = lseek(fd, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0 || (hole = lseek(fd, data, SEEK_HOLE)) < 0)
			goto fail;
		for (off_t o = data / AC_BLOCK * AC_BLOCK; o < hole;) {
			ssize_t n = pread(fd, buf, (size_t)(hole - o < (1 << 20) ? hole - o : (1 << 20)), o);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				goto fail;
			for (ssize_t b = 0; b < n; b += AC_BLOCK) {
				size_t bl = (size_t)(n - b < AC_BLOCK ? n - b : AC_BLOCK);
				bool zero = true;

				for (size_t i = 0; i < bl && zero; i++)
					zero = !buf[b + (ssize_t)i];
				if (!zero) {
					uint64_t at = (uint64_t)(o + b);

					h = fnv(fnv(h, &at, sizeof(at)), buf + b, bl);
				}
			}
			o += n;
		}
		pos = hole;
	}
	free(buf);
	snprintf(out, 32, "fnv1a64:%016llx", (unsigned long long)h);
	return 0;
fail:
	free(buf);
	return errno ? -errno : -EIO;
}

int agecache_lookup(const char *dir, const struct agecache_key *k, uint64_t size_bytes, int *fd,
		    struct agecache_counts *c, char *why, size_t len)
{
	char text[AGECACHE_KEY_MAX + 512], dg[32], want[40] = "", what[200];
	size_t klen = strlen(k->text);
	unsigned long long w, d;
	int dfd, efd = -1, kfd = -1, ifd = -1, rc;
	ssize_t n;
	struct stat st;

	*fd = -1;
	if ((dfd = open(dir, O_DIRECTORY | O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		snprintf(why, len, "cannot open the cache: %s", strerror(errno));
		return -errno;
	}
	snprintf(what, sizeof(what), "entry %s", k->name);
	if ((rc = efd = open_in(dfd, k->name, true, what, why, len)) < 0)
		goto out;
	snprintf(what, sizeof(what), "entry %s: its key", k->name);
	if ((rc = kfd = open_in(efd, "key", false, what, why, len)) < 0)
		goto bad;
	n = read(kfd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	if (n <= 0 || (size_t)n < klen || memcmp(text, k->text, klen) ||
	    sscanf(text + klen, "digest %39s\nwritten %llu\ndeleted %llu\nlist_hash %31s\n", want, &w, &d,
		   c->list_hash) != 4) {
		snprintf(why, len, "entry %s: its key is not this key (another experiment's, or damaged)", k->name);
		rc = -EINVAL;
		goto bad;
	}
	c->written = w;
	c->deleted = d;
	snprintf(what, sizeof(what), "entry %s: its image", k->name);
	if ((rc = ifd = open_in(efd, "image", false, what, why, len)) < 0)
		goto bad;
	if (fstat(ifd, &st) < 0 || (uint64_t)st.st_size != size_bytes) {
		snprintf(why, len, "entry %s: its image is not %llu bytes", k->name, (unsigned long long)size_bytes);
		rc = -EINVAL;
		goto bad;
	}
	if ((rc = digest(ifd, size_bytes, dg)) || strcmp(dg, want)) {
		snprintf(why, len, "entry %s: its image %s", k->name, rc ? strerror(-rc) : "does not match its digest");
		rc = rc ? rc : -EINVAL;
		goto bad;
	}
	*fd = ifd;
	ifd = -1;
	rc = 0;
	goto out;
bad:
	/* an entry that is there but not usable: never -ENOENT (said, not taken for a miss) */
	if (rc == -ENOENT)
		rc = -EINVAL;
out:
	if (ifd >= 0)
		close(ifd);
	if (kfd >= 0)
		close(kfd);
	if (efd >= 0)
		close(efd);
	close(dfd);
	return rc;
}

static int write_all(int fd, const char *buf, size_t n, off_t at)
{
	while (n) {
		ssize_t w = pwrite(fd, buf, n, at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		buf += w;
		n -= (size_t)w;
		at += w;
	}
	return 0;
}

/* The data segments of src into dst at the same offsets (dst: all holes before). */
static int sparse_copy(int src, int dst, uint64_t size)
{
	char *buf = malloc(1 << 20);
	off_t pos = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (!rc && (uint64_t)pos < size) {
		off_t data = lseek(src, pos, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;
		if (data < 0 || (hole = lseek(src, data, SEEK_HOLE)) < 0) {
			rc = -errno;
			break;
		}
		for (off_t o = data; !rc && o < hole;) {
			ssize_t n = pread(src, buf, (size_t)(hole - o < (1 << 20) ? hole - o : (1 << 20)), o);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				rc = n < 0 ? -errno : -EIO;
			else if (!(rc = write_all(dst, buf, (size_t)n, o)))
				o += n;
		}
		pos = hole;
	}
	free(buf);
	return rc;
}

int agecache_copy(int src, int dst, uint64_t size, const char **how)
{
	int rc;

	if (ioctl(dst, FICLONE, src) == 0) {
		*how = "reflink";
		return fsync(dst) < 0 ? -errno : 0;
	}
	*how = "sparse copy";
	if (ftruncate(dst, 0) < 0 || ftruncate(dst, (off_t)size) < 0)
		return -errno;
	if ((rc = sparse_copy(src, dst, size)))
		return rc;
	return fsync(dst) < 0 ? -errno : 0;
}

int agecache_store(const char *dir, const char *tmp, const struct agecache_key *k, int src, uint64_t size,
		   const struct agecache_counts *c, const char **how, char *why, size_t len)
{
	char path[4200], dst[4200], text[AGECACHE_KEY_MAX + 512], dg[32];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/image", tmp);
	if ((fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		return snprintf(why, len, "cannot create '%s': %s", path, strerror(errno)), -errno;
	if ((rc = agecache_copy(src, fd, size, how)) || (rc = digest(fd, size, dg))) {
		snprintf(why, len, "cannot copy the image into the cache: %s", strerror(-rc));
		close(fd);
		return rc;
	}
	if (close(fd) < 0)
		return snprintf(why, len, "cannot write '%s': %s", path, strerror(errno)), -errno;
	snprintf(text, sizeof(text), "%sdigest %s\nwritten %llu\ndeleted %llu\nlist_hash %s\n", k->text, dg,
		 (unsigned long long)c->written, (unsigned long long)c->deleted, c->list_hash);
	snprintf(path, sizeof(path), "%s/key", tmp);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0 ||
	    write_all(fd, text, strlen(text), 0) || fsync(fd) < 0 || close(fd) < 0) {
		rc = -errno;
		snprintf(why, len, "cannot write '%s': %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc ? rc : -EIO;
	}
	snprintf(dst, sizeof(dst), "%s/%s", dir, k->name);
	/* into place whole; an entry already there (another run's, or one that is not used) stays */
	if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE) < 0) {
		rc = -errno;
		snprintf(why, len, "cannot rename the new entry to '%s': %s", dst, strerror(-rc));
		return rc;
	}
	return 0;
}
