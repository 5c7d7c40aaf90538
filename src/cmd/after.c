/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fsbench __after fsck|freespace DEVICE FSTYPE [--json FILE] [--after-timeout SECONDS|auto]: the
 * after-run tools (sys/fsck.h, sys/freespace.h) on their own, as fsbench matrix calls them after
 * a cell; hidden, for tests and for running a check by hand. The same exit status for both
 * checks, by what happened (fsbench(1), AFTER-RUN CHECKS):
 *   0    the check ran and found nothing (clean; free space read), or there is no tool for this
 *        filesystem by nature (tmpfs, btrfs's free space)
 *   1    a finding: the checker found errors or could not check; the tool failed, printed what
 *        cannot be parsed, or was killed at the time limit
 *   2    a bad command line or device (no such device, neither a device nor an image)
 *   3    cannot run here: the tool is not installed, the device is mounted or in use (nothing run)
 *   128+N  a signal N stopped it (the tool's processes killed) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/opt.h"
#include "core/outfile.h"
#include "core/quote.h"
#include "core/run.h"
#include "report/after_text.h"
#include "report/json_after.h"
#include "sys/fsdev.h"

#define AFTER_TIMEOUT_MAX_NS (UINT64_C(30) * 24 * 3600 * 1000000000)

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s fsck|freespace DEVICE FSTYPE [--json FILE] [--after-timeout SECONDS|auto]\n",
		prog);
	return EXIT_USAGE;
}

int after_timeout_parse(const char *s, uint64_t *ns)
{
	uint64_t v;
	int rc;

	if (!strcmp(s, "auto")) {
		*ns = FSDEV_TIMEOUT_AUTO;
		return 0;
	}
	if ((rc = opt_parse_time(s, &v)))
		return rc;
	if (v < 1000000000 || v > AFTER_TIMEOUT_MAX_NS)
		return -ERANGE;
	*ns = v;
	return 0;
}

static bool interrupted(void)
{
	return run_signal() != 0;
}

/* The status for what the module returned: ran says whether the tool was started. */
static int status_for(int rc, bool ran, bool finding)
{
	switch (rc) {
	case 0:
		return finding ? EXIT_FAILED : EXIT_OK;
	case -ENOENT:                /* the tool not installed, or no such device */
		return ran ? EXIT_UNSUPPORTED : EXIT_USAGE;
	case -EINVAL:
		return EXIT_USAGE;
	case -EBUSY:
		return EXIT_UNSUPPORTED;
	case -EPROTO:
	case -ETIMEDOUT:
		return EXIT_FAILED;
	default:
		return cmd_exit_for_errno(rc);
	}
}

int cmd_after(int argc, char **argv, const char *prog)
{
	const char *pos[3] = { NULL, NULL, NULL }, *json = NULL, *timeout = "auto";
	struct spawn_opts so = { .stop = interrupted };
	char qb[QUOTE_MAX], sig[32];
	int npos = 0, code, rc;
	json_t *root = NULL;
	FILE *text;
	bool ran;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strncmp(argv[i], "--json=", 7) && argv[i][7])
			json = argv[i] + 7;
		else if (!strcmp(argv[i], "--after-timeout") && i + 1 < argc)
			timeout = argv[++i];
		else if (!strncmp(argv[i], "--after-timeout=", 16))
			timeout = argv[i] + 16;
		else if (argv[i][0] == '-' || npos == 3)
			return usage(prog);
		else
			pos[npos++] = argv[i];
	}
	if (npos != 3 || (strcmp(pos[0], "fsck") && strcmp(pos[0], "freespace")))
		return usage(prog);
	if (after_timeout_parse(timeout, &so.timeout_ns)) {
		fprintf(stderr, "%s: option --after-timeout: '%s' is not auto or a time from 1 s to 30 days (90, 90s, "
			"10m, 2h)\n", prog, quote_str(timeout, qb, sizeof(qb)));
		return EXIT_USAGE;
	}
	if (json) {
		const struct outputs_dest d = { "--json", json, OUTFILE_REPLACE };

		if ((code = outputs_check(prog, &d, 1)))
			return code;
	}
	/* a signal stops the tool (its whole process group) and this command, never waits for it */
	if (run_signals_install()) {
		fprintf(stderr, "%s: cannot install signal handlers: %s\n", prog, strerror(errno));
		return EXIT_FAILED;
	}
	/* --json -: standard output is the JSON's alone */
	text = json && outfile_is_stdout(json) ? NULL : stdout;
	if (!strcmp(pos[0], "fsck")) {
		struct fsck_result r;

		rc = fsck_run(pos[1], pos[2], &so, &r);
		ran = r.command[0];
		code = status_for(rc, ran, r.verdict == FSCK_ERRORS || r.verdict == FSCK_FAILED);
		if (!interrupted() && (!rc || ran)) {
			if (text)
				fsck_text_print(text, &r);
			root = fsck_json(&r);
		} else if (!interrupted()) {
			fprintf(stderr, "%s: %s\n", prog, quote_str(r.why, qb, sizeof(qb)));
		}
		fsck_result_free(&r);
	} else {
		struct freespace_result r;

		rc = freespace_run(pos[1], pos[2], &so, &r);
		ran = r.command[0];
		code = status_for(rc, ran, false);
		if (!interrupted() && (!rc || ran)) {
			if (text)
				freespace_text_print(text, &r);
			root = freespace_json(&r);
		} else if (!interrupted()) {
			fprintf(stderr, "%s: %s\n", prog, quote_str(r.why, qb, sizeof(qb)));
		}
		freespace_result_free(&r);
	}
	if (text)
		fflush(text);
	if (interrupted()) {
		run_signal_name(run_signal(), sig, sizeof(sig));
		if (!cmd_signal_quiet(run_signal()))
			fprintf(stderr, "%s: interrupted by %s; the tool was stopped, its processes killed\n", prog, sig);
		return cmd_exit_for_signal(run_signal());
	}
	if (!root && (!rc || ran)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return code == EXIT_OK ? EXIT_FAILED : code;
	}
	if (!root)
		return code;
	rc = json ? outputs_json(prog, json, root) : 0;
	if (rc && code == EXIT_OK)
		code = EXIT_FAILED;
	json_decref(root);
	return code;
}
