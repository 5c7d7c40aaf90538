/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The filesystem's own checker, read-only (sys/fsck.h). */
#include "sys/fsck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/fsdev.h"

const char *const fsck_verdict_name[] = { "clean", "errors", "failed", "absent" };

/* Progress lines, not findings: a '#' stands for one or more digits, the rest is a prefix. */
static const char *const e2fsck_noise[] = {
	"e2fsck #.#", "Pass #:", NULL,
};
static const char *const xfs_noise[] = {
	"Phase #", "        - ", "No modify flag set", "Cannot get host filesystem geometry.",
	"Repair may fail if there is a sector size mismatch", "the image and the host filesystem.",
	NULL,
};
static const char *const btrfs_noise[] = {
	"Opening filesystem to check...", "Checking filesystem on ", "UUID: ", "[#/#] ",
	"found # bytes used, no error found", "total csum bytes: ", "total tree bytes: ",
	"total fs tree bytes: ", "total extent tree bytes: ", "btree space waste bytes: ",
	"file data blocks allocated: ", " referenced ", NULL,
};

static const struct checker {
	const char *fstypes;         /* space-separated */
	const char *tool;
	const char *args[4];         /* after the tool's name, before the device */
	const char *const *noise;
} checkers[] = {
	{ " ext2 ext3 ext4 ", "e2fsck", { "-f", "-n", NULL }, e2fsck_noise },
	{ " xfs ", "xfs_repair", { "-n", NULL }, xfs_noise },
	{ " btrfs ", "btrfs", { "check", "--readonly", NULL }, btrfs_noise },
};

static const struct checker *checker_of(const char *fstype)
{
	char key[40];

	if (strlen(fstype) > 30 || strchr(fstype, ' '))
		return NULL;
	snprintf(key, sizeof(key), " %s ", fstype);
	for (size_t i = 0; i < sizeof(checkers) / sizeof(checkers[0]); i++)
		if (strstr(checkers[i].fstypes, key))
			return &checkers[i];
	return NULL;
}

const char *fsck_tool(const char *fstype)
{
	const struct checker *k = checker_of(fstype);

	return k ? k->tool : NULL;
}

static const struct checker *checker_by_tool(const char *tool)
{
	for (size_t i = 0; tool && i < sizeof(checkers) / sizeof(checkers[0]); i++)
		if (!strcmp(checkers[i].tool, tool))
			return &checkers[i];
	return NULL;
}

/* line (len bytes) begins with pattern, '#' matching one or more digits */
static bool starts(const char *line, size_t len, const char *pat)
{
	size_t i = 0;

	for (; *pat; pat++) {
		if (*pat == '#') {
			size_t d = i;

			while (i < len && line[i] >= '0' && line[i] <= '9')
				i++;
			if (i == d)
				return false;
			continue;
		}
		if (i >= len || line[i] != *pat)
			return false;
		i++;
	}
	return true;
}

/* e2fsck's closing summary: "NAME: 11/51200 files (0.0% non-contiguous), 12/204800 blocks" */
static bool e2fsck_summary(const char *line, size_t len)
{
	const char *p = memmem(line, len, ": ", 2);

	return p && starts(p + 2, len - (size_t)(p + 2 - line), "#/# files (");
}

static bool noise(const struct checker *k, const char *line, size_t len)
{
	bool blank = true;

	for (size_t i = 0; i < len; i++)
		blank &= line[i] == ' ' || line[i] == '\t' || line[i] == '\r';
	if (blank)
		return true;
	for (const char *const *p = k ? k->noise : NULL; p && *p; p++)
		if (starts(line, len, *p))
			return true;
	return k && !strcmp(k->tool, "e2fsck") && e2fsck_summary(line, len);
}

char *fsck_messages(const char *tool, const char *out, unsigned max_lines, unsigned *nlines)
{
	const struct checker *k = checker_by_tool(tool);
	size_t cap = 1, at = 0;
	char *buf;

	*nlines = 0;
	for (const char *p = out; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (!noise(k, p, n) && ++*nlines <= max_lines)
			cap += n + 1;
		p += n + (p[n] == '\n');
	}
	if (!(buf = malloc(cap)))
		return NULL;
	*nlines = 0;
	for (const char *p = out; p && *p;) {
		size_t n = strcspn(p, "\n");

		if (!noise(k, p, n) && ++*nlines <= max_lines) {
			memcpy(buf + at, p, n);
			at += n;
			buf[at++] = '\n';
		}
		p += n + (p[n] == '\n');
	}
	if (at)
		at--;    /* no newline after the last line */
	buf[at] = '\0';
	return buf;
}

enum fsck_verdict fsck_verdict_of(const char *tool, int exit_code, int signal, const char *out)
{
	if (signal || exit_code < 0)
		return FSCK_FAILED;
	if (!exit_code)
		return FSCK_CLEAN;
	if (!strcmp(tool, "e2fsck")) {
		/* 1 errors corrected, 2 reboot, 4 left uncorrected (with -n: found); 8 operational
		 * error, 16 usage, 32 cancelled, 128 library error. 12: it found errors, then gave
		 * up on one (a garbage inode it cannot read with -n): errors, when it said which. */
		unsigned lines = 0;
		char *m;

		if (!(exit_code & ~7))
			return FSCK_ERRORS;
		if ((exit_code & 4) && (m = fsck_messages(tool, out, 1, &lines)))
			free(m);
		return lines ? FSCK_ERRORS : FSCK_FAILED;
	}
	if (!strcmp(tool, "xfs_repair"))
		return exit_code == 1 ? FSCK_ERRORS : FSCK_FAILED;
	/* btrfs check exits 1 for both: its summary says which */
	return out && (strstr(out, "error(s) found") || strstr(out, "errors found")) ? FSCK_ERRORS : FSCK_FAILED;
}

int fsck_run(const char *device, const char *fstype, const struct spawn_opts *o, struct fsck_result *r)
{
	const struct checker *k;
	const char *argv[8];
	struct fsdev d;
	int n = 0, rc;

	memset(r, 0, sizeof(*r));
	snprintf(r->fstype, sizeof(r->fstype), "%s", fstype);
	snprintf(r->device, sizeof(r->device), "%s", device);
	r->verdict = FSCK_ABSENT;
	r->run.exit_code = -1;
	if (!(k = checker_of(fstype))) {
		snprintf(r->why, sizeof(r->why), "%s has no checker fsbench knows (e2fsck, xfs_repair, "
			 "btrfs check)", fstype);
		return 0;
	}
	r->tool = k->tool;
	if ((rc = fsdev_resolve(device, &d, r->why, sizeof(r->why)))) {
		r->verdict = FSCK_FAILED;
		return rc;
	}
	snprintf(r->device, sizeof(r->device), "%s", d.path);
	if (d.busy) {
		r->verdict = FSCK_FAILED;
		snprintf(r->why, sizeof(r->why), "'%.160s' is mounted or in use: the checker needs it unmounted",
			 d.path);
		return -EBUSY;
	}
	argv[n++] = k->tool;
	for (int i = 0; k->args[i]; i++)
		argv[n++] = k->args[i];
	if (d.image && !strcmp(k->tool, "xfs_repair"))
		argv[n++] = "-f";     /* xfs_repair: the device is a regular file */
	argv[n++] = d.path;
	argv[n] = NULL;
	if ((rc = fsdev_tool_run(argv, o, &d, &r->timeout_ns, &r->run, r->command, sizeof(r->command), r->why,
				 sizeof(r->why)))) {
		if (rc != -ENOENT)
			r->verdict = FSCK_FAILED;
		return rc;
	}
	r->verdict = fsck_verdict_of(k->tool, r->run.exit_code, r->run.signal, r->run.out);
	/* a checker that had to be killed did not finish, whatever it said before: not clean */
	if (r->run.timed_out || r->run.stopped)
		r->verdict = FSCK_FAILED;
	r->messages = fsck_messages(k->tool, r->run.out, FSCK_MSG_LINES, &r->message_lines);
	if (!r->messages)
		return -ENOMEM;
	if (r->verdict == FSCK_FAILED) {
		if (r->run.timed_out)
			snprintf(r->why, sizeof(r->why), "%s did not finish within %llu s: timed out, its processes "
				 "killed", k->tool, (unsigned long long)(r->timeout_ns / 1000000000));
		else if (r->run.stopped)
			snprintf(r->why, sizeof(r->why), "%s was stopped, its processes killed", k->tool);
		else if (r->run.signal)
			snprintf(r->why, sizeof(r->why), "%s was killed by signal %d", k->tool, r->run.signal);
		else
			snprintf(r->why, sizeof(r->why), "%s could not check the filesystem (exit %d)", k->tool,
				 r->run.exit_code);
	}
	return 0;
}

void fsck_result_free(struct fsck_result *r)
{
	free(r->messages);
	r->messages = NULL;
	spawn_result_free(&r->run);
}
