/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spooled arrays of a JSON document (report/json_spool.h): an unnamed file of elements, each
 * its JSON_DOC_FLAGS text at depth 0 ended by a NUL (a byte jansson never writes), and the
 * writer that splices them back into the document as it copies them. */
#include "report/json_spool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define MARK_PREFIX "fsbench-spool:"
#define CHUNK (64 * 1024)

struct json_spool_seg {
	uint64_t start, end;         /* its elements' bytes in the file */
	size_t n;
};

struct json_spool {
	int fd;
	int err;                     /* first failure, -errno */
	uint64_t size;               /* bytes in the file */
	size_t max_len;              /* the longest element's text, for reading one back */
	unsigned nseg;
	unsigned last;               /* the segment written last; nseg: none yet */
	struct json_spool_seg *seg;
	/* makes the markers unique: no string of a result (a --label) can pass for one */
	char nonce[33];
};

/* an unnamed file in dir (O_TMPFILE: it has no name to leave behind); -1 when it cannot be */
static int tmp_in(const char *dir)
{
	return open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

static int spool_fd(const char *near)
{
	const char *t = getenv("TMPDIR");
	int fd = -1;

	/* beside the result: where its bytes go anyway, and not in memory */
	if (near && strcmp(near, "-") && strncmp(near, "/dev/", 5) && strncmp(near, "/proc/", 6)) {
		const char *slash = strrchr(near, '/');
		char dir[PATH_MAX];

		if (!slash)
			fd = tmp_in(".");
		else if (slash == near)
			fd = tmp_in("/");
		else if ((size_t)(slash - near) < sizeof(dir)) {
			memcpy(dir, near, (size_t)(slash - near));
			dir[slash - near] = '\0';
			fd = tmp_in(dir);
		}
	}
	if (fd < 0 && t && t[0] == '/')
		fd = tmp_in(t);
	if (fd < 0)
		fd = tmp_in("/tmp");
	/* no filesystem with O_TMPFILE: memory, as compact text (several times less than the
	 * values), still nothing with a name */
	if (fd < 0)
		fd = memfd_create("fsbench-spool", MFD_CLOEXEC);
	return fd;
}

struct json_spool *json_spool_open(const char *near, unsigned nseg)
{
	struct json_spool *s = calloc(1, sizeof(*s));
	unsigned char r[16];

	if (!s || !(s->seg = calloc(nseg ? nseg : 1, sizeof(*s->seg)))) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec ts;
		uint64_t a = (uint64_t)(uintptr_t)s, b;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		b = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		memcpy(r, &a, 8);
		memcpy(r + 8, &b, 8);
	}
	for (unsigned i = 0; i < sizeof(r); i++)
		snprintf(s->nonce + 2 * i, 3, "%02x", r[i]);
	s->nseg = nseg;
	s->last = nseg;
	if ((s->fd = spool_fd(near)) < 0) {
		int e = errno;

		free(s->seg);
		free(s);
		errno = e;
		return NULL;
	}
	return s;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int json_spool_new_segment(struct json_spool *s)
{
	struct json_spool_seg *n;

	if (s->nseg >= INT_MAX)
		return -ENOMEM;
	if (!(n = realloc(s->seg, (s->nseg + 1) * sizeof(*n))))
		return -ENOMEM;
	s->seg = n;
	memset(&n[s->nseg], 0, sizeof(*n));
	/* "none written yet" is last == nseg */
	if (s->last == s->nseg)
		s->last++;
	return (int)s->nseg++;
}

int json_spool_add(struct json_spool *s, unsigned seg, const json_t *v)
{
	struct json_spool_seg *g;
	char *text;
	size_t len;
	int rc;

	if (s->err)
		return s->err;
	if (seg >= s->nseg)
		return -EINVAL;
	g = &s->seg[seg];
	if (g->n && s->last != seg)
		return -EINVAL;
	if (!(text = json_dumps(v, JSON_DOC_FLAGS)))
		return s->err = -ENOMEM;
	len = strlen(text);
	/* the text and its NUL: one write per element, so nothing waits in a buffer */
	rc = write_all(s->fd, text, len + 1);
	free(text);
	if (rc)
		return s->err = rc;
	if (!g->n)
		g->start = s->size;
	s->size += len + 1;
	g->end = s->size;
	g->n++;
	s->last = seg;
	if (len > s->max_len)
		s->max_len = len;
	return 0;
}

json_t *json_spool_marker(const struct json_spool *s, unsigned seg)
{
	char m[sizeof(MARK_PREFIX) + sizeof(s->nonce) + 16];

	snprintf(m, sizeof(m), MARK_PREFIX "%s:%u", s->nonce, seg);
	return json_string(m);
}

/* the segment number after "PREFIX NONCE:" in p, up to stop; -1 when it is not one */
static int seg_number(const struct json_spool *s, const char *p, char stop, const char **after)
{
	char *end;
	unsigned long n;

	if (*p < '0' || *p > '9')
		return -1;
	errno = 0;
	n = strtoul(p, &end, 10);
	if (errno || *end != stop || n >= s->nseg)
		return -1;
	if (after)
		*after = end;
	return (int)n;
}

int json_spool_seg(const struct json_spool *s, const json_t *v)
{
	const char *t = json_string_value(v);
	size_t pl = strlen(MARK_PREFIX), nl;

	if (!s || !t || strncmp(t, MARK_PREFIX, pl))
		return -1;
	nl = strlen(s->nonce);
	if (strncmp(t + pl, s->nonce, nl) || t[pl + nl] != ':')
		return -1;
	return seg_number(s, t + pl + nl + 1, '\0', NULL);
}

size_t json_spool_count(const struct json_spool *s, unsigned seg)
{
	return seg < s->nseg ? s->seg[seg].n : 0;
}

/* CHUNK bytes (fewer at the end) of segment g from off into buf: how many, or -errno */
static ssize_t read_chunk(const struct json_spool *s, const struct json_spool_seg *g, uint64_t off,
			  char *buf)
{
	size_t want = g->end - off < CHUNK ? (size_t)(g->end - off) : CHUNK;
	ssize_t n;

	do
		n = pread(s->fd, buf, want, (off_t)off);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n ? n : -EIO;
}

int json_spool_foreach(const struct json_spool *s, unsigned seg,
		       int (*fn)(void *arg, size_t i, const json_t *v), void *arg)
{
	const struct json_spool_seg *g;
	char *chunk, *el;
	size_t len = 0, i = 0;
	int rc = 0;

	if (s->err)
		return s->err;
	if (seg >= s->nseg)
		return -EINVAL;
	g = &s->seg[seg];
	if (!g->n)
		return 0;
	chunk = malloc(CHUNK);
	el = malloc(s->max_len + 1);
	if (!chunk || !el) {
		free(chunk);
		free(el);
		return -ENOMEM;
	}
	for (uint64_t off = g->start; off < g->end && !rc;) {
		ssize_t n = read_chunk(s, g, off, chunk);

		if (n < 0) {
			rc = (int)n;
			break;
		}
		off += (uint64_t)n;
		for (ssize_t k = 0; k < n && !rc; k++) {
			json_t *v;

			if (chunk[k]) {
				if (len >= s->max_len) {
					rc = -EIO;
					break;
				}
				el[len++] = chunk[k];
				continue;
			}
			if (!(v = json_loadb(el, len, JSON_DECODE_ANY, NULL))) {
				rc = -EIO;
				break;
			}
			rc = fn(arg, i++, v);
			json_decref(v);
			len = 0;
		}
	}
	free(chunk);
	free(el);
	return rc;
}

static void pad(FILE *f, size_t n)
{
	fprintf(f, "%*s", (int)n, "");
}

/* segment seg's array as jansson writes an array whose line is indented by indent spaces:
 * each element one level (2 spaces) deeper, the closing bracket at indent */
static int put_array(const struct json_spool *s, unsigned seg, size_t indent, FILE *f)
{
	const struct json_spool_seg *g = &s->seg[seg];
	size_t done = 0;
	char *chunk;

	if (!g->n) {
		fputs("[]", f);
		return 0;
	}
	if (!(chunk = malloc(CHUNK)))
		return -ENOMEM;
	fputc('[', f);
	fputc('\n', f);
	pad(f, indent + 2);
	for (uint64_t off = g->start; off < g->end;) {
		ssize_t n = read_chunk(s, g, off, chunk), k = 0;

		if (n < 0) {
			free(chunk);
			return (int)n;
		}
		off += (uint64_t)n;
		while (k < n) {
			ssize_t run = k;

			while (run < n && chunk[run] != '\n' && chunk[run])
				run++;
			fwrite(chunk + k, 1, (size_t)(run - k), f);
			if (run == n)
				break;
			if (chunk[run] == '\n') {
				fputc('\n', f);
				pad(f, indent + 2);
			} else if (++done < g->n) {
				fputs(",\n", f);
				pad(f, indent + 2);
			} else {
				fputc('\n', f);
				pad(f, indent);
				fputc(']', f);
			}
			k = run + 1;
		}
	}
	free(chunk);
	return done == g->n ? 0 : -EIO;
}

int json_spool_dumpf(const json_t *root, FILE *f, const struct json_spool *s)
{
	char pat[sizeof(MARK_PREFIX) + sizeof(s->nonce) + 2];
	const char *cur, *p;
	char *text;
	int rc = 0;

	if (!s)
		return json_dumpf(root, f, JSON_DOC_FLAGS) ? -EIO : 0;
	if (s->err)
		return s->err;
	if (!(text = json_dumps(root, JSON_DOC_FLAGS)))
		return -ENOMEM;
	snprintf(pat, sizeof(pat), "\"" MARK_PREFIX "%s:", s->nonce);
	for (cur = text; !rc && (p = strstr(cur, pat));) {
		const char *after, *line = p;
		int seg = seg_number(s, p + strlen(pat), '"', &after);
		size_t indent = 0;

		if (seg < 0) {
			fwrite(cur, 1, (size_t)(p + 1 - cur), f);
			cur = p + 1;
			continue;
		}
		/* the marker's line: its leading spaces are the array's indentation */
		while (line > text && line[-1] != '\n')
			line--;
		while (line[indent] == ' ')
			indent++;
		fwrite(cur, 1, (size_t)(p - cur), f);
		rc = put_array(s, (unsigned)seg, indent, f);
		cur = after + 1;
	}
	if (!rc)
		fputs(cur, f);
	free(text);
	if (!rc && ferror(f))
		rc = -EIO;
	return rc;
}

void json_spool_free(struct json_spool *s)
{
	if (!s)
		return;
	close(s->fd);
	free(s->seg);
	free(s);
}

FILE *json_spool_text(const char *near)
{
	int fd = spool_fd(near);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w+"))) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

int json_spool_text_copy(FILE *f, FILE *out)
{
	char buf[4096];
	size_t n;
	int rc = 0;

	if (fflush(f) || fseeko(f, 0, SEEK_SET))
		rc = -EIO;
	while (!rc && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -EIO;
	if (ferror(f))
		rc = -EIO;
	return rc;
}
