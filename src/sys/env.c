/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What fsbench records about the machine and the target directories: mountinfo lookup for a path
   or block device, and host identity from uname, /proc/cpuinfo and /proc/meminfo. */
#include "sys/env.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/testhook.h"

/* Candidates are ranked in tiers; a tier is worth more than any mount point length (< PATH_MAX),
   so the length only orders candidates within one tier. */
#define ENV_TIER (1L << 20)

struct env_match {
	dev_t dev;          /* st_dev of the target, or st_rdev of a block device node */
	const char *real;   /* realpath of the target; NULL for block devices or when unknown */
	int bdev;
	long best;          /* score of the candidate now in *m; 0 = none yet */
	struct env_mount *m;
};

/* Bounded copy that always terminates; truncation is accepted (see env.h). */
static void env_copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

static int env_is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/* The kernel escapes ' ', '\t', '\n' and '\\' in mountinfo as \ooo (fs/proc_namespace.c, mangle()).
   Anything else after a backslash is kept literally rather than rejected. */
static void env_unescape(char *s)
{
	char *w = s;
	const char *r = s;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && env_is_octal(r[2]) && env_is_octal(r[3])) {
			*w++ = (char)(((r[1] - '0') << 6) | ((r[2] - '0') << 3) | (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static int env_parse_uint(const char *s, char **end, unsigned *out)
{
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, end, 10);
	if (errno || v > UINT_MAX)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int env_parse_devno(const char *s, unsigned *maj, unsigned *min)
{
	char *end;

	if (env_parse_uint(s, &end, maj) || *end != ':')
		return -EINVAL;
	if (env_parse_uint(end + 1, &end, min) || *end != '\0')
		return -EINVAL;
	return 0;
}

/* Component-wise, so /mnt/a does not claim /mnt/ab. */
static int env_path_under(const char *real, const char *mp)
{
	size_t n = strlen(mp);

	if (strcmp(mp, "/") == 0)
		return real[0] == '/';
	return strncmp(real, mp, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

/* Sources are free-form ("tmpfs", "host:/export"); only absolute paths can name a device node. */
static int env_source_is_bdev(const char *source, dev_t rdev)
{
	struct stat sb;

	return source[0] == '/' && stat(source, &sb) == 0 && S_ISBLK(sb.st_mode) && sb.st_rdev == rdev;
}

/* Scores one mountinfo line (modified in place) and copies it into st->m if it beats the best so
   far. Malformed lines are skipped: a partial table is more useful than no answer. Format, from
   proc(5): id parent maj:min root mount_point mount_options [optional...] - fstype source super_options */
static void env_consider_line(char *line, struct env_match *st)
{
	char *f[6], *p = line, *tok, *fstype, *source, *super;
	unsigned maj, min;
	long score;
	int devmatch;

	for (int i = 0; i < 6; i++)
		if (!(f[i] = strsep(&p, " ")))
			return;
	do {
		if (!(tok = strsep(&p, " ")))
			return;
	} while (strcmp(tok, "-") != 0);
	fstype = strsep(&p, " ");
	source = strsep(&p, " ");
	super = strsep(&p, " ");
	if (!fstype || !source || env_parse_devno(f[2], &maj, &min))
		return;
	for (int i = 3; i < 6; i++)
		env_unescape(f[i]);
	env_unescape(fstype);
	env_unescape(source);
	if (super)
		env_unescape(super);

	devmatch = makedev(maj, min) == st->dev;
	if (st->bdev) {
		if (!devmatch && !env_source_is_bdev(source, st->dev))
			return;
		/* A bind mount of a subdirectory says less about the device than the mount of its root;
		   among equals the first (original) mount wins, hence the strict comparison below. */
		score = strcmp(f[3], "/") == 0 ? 2 * ENV_TIER : ENV_TIER;
		if (score <= st->best)
			return;
	} else {
		int under = st->real && env_path_under(st->real, f[4]);

		if (devmatch && under)
			score = 3 * ENV_TIER + (long)strlen(f[4]);
		else if (devmatch)
			score = 2 * ENV_TIER; /* e.g. path seen through another mount namespace */
		else if (under && strcmp(fstype, "btrfs") == 0)
			/* btrfs stat() reports a per-subvolume anonymous st_dev that never appears in
			   mountinfo, so fall back to the path, as findmnt --target does. */
			score = ENV_TIER + (long)strlen(f[4]);
		else
			return;
		/* Ties go to the later line: a later mount on the same point covers the earlier one. */
		if (score < st->best)
			return;
	}

	st->best = score;
	env_copy(st->m->mount_point, sizeof st->m->mount_point, f[4]);
	env_copy(st->m->root, sizeof st->m->root, f[3]);
	env_copy(st->m->mount_options, sizeof st->m->mount_options, f[5]);
	env_copy(st->m->fstype, sizeof st->m->fstype, fstype);
	env_copy(st->m->source, sizeof st->m->source, source);
	env_copy(st->m->super_options, sizeof st->m->super_options, super ? super : "");
	st->m->dev_major = maj;
	st->m->dev_minor = min;
}

static int env_finish(struct env_match *st)
{
	if (st->best)
		return 0;
	memset(st->m, 0, sizeof *st->m);
	return -ENOENT;
}

int env_mount_parse(const char *mountinfo_text, dev_t dev, const char *real, struct env_mount *m)
{
	struct env_match st = { .dev = dev, .real = real, .m = m };
	char *copy, *p, *line;

	memset(m, 0, sizeof *m);
	copy = strdup(mountinfo_text);
	if (!copy)
		return -ENOMEM;
	p = copy;
	while ((line = strsep(&p, "\n")))
		env_consider_line(line, &st);
	free(copy);
	return env_finish(&st);
}

static int env_scan_mountinfo(struct env_match *st)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	if (!f)
		return -errno;
	for (;;) {
		errno = 0; /* env_consider_line() may stat() sources and leave errno set */
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (ferror(f))
				err = errno ? -errno : -EIO;
			break;
		}
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = '\0';
		env_consider_line(line, st);
	}
	free(line);
	fclose(f);
	return err;
}

int env_mount_of(const char *path, struct env_mount *m)
{
	struct env_match st = { .m = m };
	char real[PATH_MAX];
	struct stat sb;
	int err;

	memset(m, 0, sizeof *m);
	if (stat(path, &sb) < 0)
		return -errno;
	if (S_ISBLK(sb.st_mode)) {
		st.dev = sb.st_rdev;
		st.bdev = 1;
	} else {
		if (!realpath(path, real))
			return -errno;
		st.dev = sb.st_dev;
		st.real = real;
	}
	err = env_scan_mountinfo(&st);
	if (err) {
		memset(m, 0, sizeof *m);
		return err;
	}
	err = env_finish(&st);
	if (err && st.bdev) {
		/* An unmounted device (about to be mkfs'd, or benchmarked raw) is still worth recording. */
		env_copy(m->source, sizeof m->source, path);
		m->dev_major = major(sb.st_rdev);
		m->dev_minor = minor(sb.st_rdev);
		return 0;
	}
	return err;
}

/* "key<spaces/tabs>: value" as in /proc/cpuinfo and /proc/meminfo; returns the trimmed value, or
   NULL if the line has no colon. key is trimmed in place. */
static char *env_split_kv(char *line, char **key)
{
	char *colon = strchr(line, ':'), *v, *e;

	if (!colon)
		return NULL;
	*colon = '\0';
	for (e = colon; e > line && (e[-1] == ' ' || e[-1] == '\t'); e--)
		e[-1] = '\0';
	*key = line;
	for (v = colon + 1; *v == ' ' || *v == '\t'; v++)
		;
	for (e = v + strlen(v); e > v && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'); e--)
		e[-1] = '\0';
	return v;
}

/* x86 and arm32 have "model name"; arm32 boards also "Hardware"; mips "cpu model"; powerpc "cpu";
   riscv "uarch". arm64 has none of them and gets "" rather than a guess from implementer ids. */
static void env_read_cpu_model(char *out, size_t size)
{
	static const char *const keys[] = { "model name", "Hardware", "cpu model", "cpu", "uarch" };
	const size_t nkeys = sizeof keys / sizeof keys[0];
	size_t best = nkeys, cap = 0;
	char *line = NULL, *key, *val;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return;
	while (best > 0 && getline(&line, &cap, f) >= 0) {
		if (!(val = env_split_kv(line, &key)) || !*val)
			continue;
		for (size_t i = 0; i < best; i++) {
			if (strcmp(key, keys[i]) == 0) {
				env_copy(out, size, val);
				best = i;
				break;
			}
		}
	}
	free(line);
	fclose(f);
}

static uint64_t env_read_mem_total_bytes(void)
{
	char *line = NULL, *key, *val, *end;
	size_t cap = 0;
	uint64_t bytes = 0;
	unsigned long long kib;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 0;
	while (getline(&line, &cap, f) >= 0) {
		if (!(val = env_split_kv(line, &key)) || strcmp(key, "MemTotal") != 0)
			continue;
		if (*val < '0' || *val > '9')
			break;
		errno = 0;
		kib = strtoull(val, &end, 10);
		/* The kernel always prints kB; any other unit would mean a format we do not know. */
		if (!errno && strcmp(end, " kB") == 0 && kib <= UINT64_MAX / 1024)
			bytes = (uint64_t)kib * 1024;
		break;
	}
	free(line);
	fclose(f);
	return bytes;
}

int env_host_read(struct env_host *h)
{
	struct utsname u;
	long n;

	memset(h, 0, sizeof *h);
	if (uname(&u) < 0)
		return -errno;
	env_copy(h->kernel_release, sizeof h->kernel_release, u.release);
	/* test hook (build/fsbench-test only, core/testhook.h): the kernel release a run records, so
	   that tests can put runs of one machine under several kernel labels (history changes) */
	if (testhook_env("FSBENCH_TEST_KERNEL") && *testhook_env("FSBENCH_TEST_KERNEL"))
		env_copy(h->kernel_release, sizeof h->kernel_release, testhook_env("FSBENCH_TEST_KERNEL"));
	env_copy(h->kernel_version, sizeof h->kernel_version, u.version);
	/* utsname's machine is 65 bytes, the API's 64: say the truncation out loud so gcc's
	   -Wformat-truncation has nothing to guess (no real machine name comes close). */
	snprintf(h->machine, sizeof h->machine, "%.*s", (int)sizeof h->machine - 1, u.machine);
	env_copy(h->hostname, sizeof h->hostname, u.nodename);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	h->cpus_online = n > 0 && (unsigned long)n <= UINT_MAX ? (unsigned)n : 0;
	env_read_cpu_model(h->cpu_model, sizeof h->cpu_model);
	h->mem_total_bytes = env_read_mem_total_bytes();
	env_sysfs_read("/sys", &h->sysfs);
	return 0;
}

/* The first line of sys/rel, whitespace trimmed, into out ("" when unreadable). 0 or -errno. */
static int env_read_line(const char *sys, const char *rel, char *out, size_t size)
{
	char path[PATH_MAX], buf[512];
	FILE *f;
	size_t n;
	char *s;

	out[0] = '\0';
	if (snprintf(path, sizeof path, "%s/%s", sys, rel) >= (int)sizeof path)
		return -ENAMETOOLONG;
	if (!(f = fopen(path, "re")))
		return -errno;
	s = fgets(buf, sizeof buf, f);
	fclose(f);
	if (!s)
		return -ENODATA;
	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	env_copy(out, size, s);
	return 0;
}

/* "always [madvise] never" -> "madvise": the kernel marks the selected choice; a file with one
 * word and no brackets (a scheduler list of just "none") is that word */
static void env_selected(char *s)
{
	char *open = strchr(s, '['), *close = open ? strchr(open, ']') : NULL;

	if (open && close) {
		size_t n = (size_t)(close - open - 1);

		memmove(s, open + 1, n);
		s[n] = '\0';
	} else if (strchr(s, ' ')) {
		s[0] = '\0';            /* several choices, none marked: unknown */
	}
}

/* the selected choice in sys/rel, read whole before it is cut to size */
static void env_read_choice(const char *sys, const char *rel, char *out, size_t size)
{
	char buf[512];

	out[0] = '\0';
	if (env_read_line(sys, rel, buf, sizeof buf))
		return;
	env_selected(buf);
	env_copy(out, size, buf);
}

/* a non-negative decimal number in sys/rel, -1 when absent or not one */
static int64_t env_read_int(const char *sys, const char *rel)
{
	char buf[64], *end;
	unsigned long long v;

	if (env_read_line(sys, rel, buf, sizeof buf) || !buf[0] || buf[0] == '-')
		return -1;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || *end || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

/* Every CPU's governor, the distinct values in CPU order joined by ',' ("performance"; mixed:
 * "performance,powersave"): a run on a machine whose CPUs differ says so. */
static void env_read_governors(const char *sys, char *out, size_t size)
{
	char path[PATH_MAX], one[64];
	struct dirent *de;
	unsigned max = 0;
	DIR *d;

	out[0] = '\0';
	if (snprintf(path, sizeof path, "%s/devices/system/cpu", sys) >= (int)sizeof path ||
	    !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		char *end;
		unsigned long n;

		if (strncmp(de->d_name, "cpu", 3) || !isdigit((unsigned char)de->d_name[3]))
			continue;
		n = strtoul(de->d_name + 3, &end, 10);
		if (!*end && n < 65536 && n > max)
			max = (unsigned)n;
	}
	closedir(d);
	for (unsigned i = 0; i <= max; i++) {
		size_t len = strlen(out), ol;
		const char *p;
		bool seen = false;

		snprintf(path, sizeof path, "devices/system/cpu/cpu%u/cpufreq/scaling_governor", i);
		if (env_read_line(sys, path, one, sizeof one) || !one[0])
			continue;
		ol = strlen(one);
		for (p = out; *p && !seen; p += strcspn(p, ","), p += *p == ',')
			seen = strcspn(p, ",") == ol && !strncmp(p, one, ol);
		if (!seen && len + ol + 2 <= size)
			snprintf(out + len, size - len, "%s%s", len ? "," : "", one);
	}
}

int env_sysfs_read(const char *sys, struct env_sysfs *s)
{
	memset(s, 0, sizeof *s);
	env_read_governors(sys, s->cpufreq_governor, sizeof s->cpufreq_governor);
	env_read_line(sys, "devices/system/cpu/cpu0/cpufreq/scaling_driver", s->cpufreq_driver,
		      sizeof s->cpufreq_driver);
	env_read_choice(sys, "kernel/mm/transparent_hugepage/enabled", s->thp_enabled, sizeof s->thp_enabled);
	env_read_choice(sys, "kernel/mm/transparent_hugepage/defrag", s->thp_defrag, sizeof s->thp_defrag);
	return 0;
}

int env_queue_read(const char *sys, const char *disk, struct env_queue *q)
{
	char rel[PATH_MAX], dir[PATH_MAX];
	struct stat st;

	memset(q, 0, sizeof *q);
	q->rotational = -1;
	q->read_ahead_kb = q->nr_requests = -1;
	if (!disk[0] || strchr(disk, '/') || !strcmp(disk, ".") || !strcmp(disk, ".."))
		return -EINVAL;
	env_copy(q->disk, sizeof q->disk, disk);
	if (snprintf(dir, sizeof dir, "%s/block/%s", sys, disk) >= (int)sizeof dir)
		return -ENAMETOOLONG;
	if (stat(dir, &st) < 0)
		return -errno;
	snprintf(rel, sizeof rel, "block/%s/queue/scheduler", disk);
	env_read_choice(sys, rel, q->scheduler, sizeof q->scheduler);
	snprintf(rel, sizeof rel, "block/%s/device/model", disk);
	env_read_line(sys, rel, q->model, sizeof q->model);
	snprintf(rel, sizeof rel, "block/%s/queue/rotational", disk);
	q->rotational = (int)env_read_int(sys, rel);
	if (q->rotational > 1)
		q->rotational = -1;
	snprintf(rel, sizeof rel, "block/%s/queue/read_ahead_kb", disk);
	q->read_ahead_kb = env_read_int(sys, rel);
	snprintf(rel, sizeof rel, "block/%s/queue/nr_requests", disk);
	q->nr_requests = env_read_int(sys, rel);
	return 0;
}
