/* fsbench __after fsck|freespace DEVICE FSTYPE [--json FILE]: the after-run tools (sys/fsck.h,
 * sys/freespace.h) on their own, as fsbench matrix calls them after a cell; hidden, for tests
 * and for running a check by hand. Exit: 0 clean (or absent by nature: tmpfs, btrfs free
 * space), 1 a finding (the checker found errors or failed; a free-space tool failed), 2 a bad
 * command line or device, 3 cannot run here (the tool is not installed, the device is mounted). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/outputs.h"
#include "core/outfile.h"
#include "report/after_text.h"
#include "report/json_after.h"

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s fsck|freespace DEVICE FSTYPE [--json FILE]\n", prog);
	return EXIT_USAGE;
}

/* the status for a module's -errno: a device that is not one is the command line's fault */
static int status_for(int rc, bool tool_missing)
{
	if (rc == -ENOENT && !tool_missing)
		return EXIT_USAGE;
	if (rc == -EINVAL)
		return EXIT_USAGE;
	if (rc == -ENOENT || rc == -EBUSY)
		return EXIT_UNSUPPORTED;
	return cmd_exit_for_errno(rc);
}

int cmd_after(int argc, char **argv, const char *prog)
{
	const char *pos[3] = { NULL, NULL, NULL }, *json = NULL;
	int npos = 0, code, rc;
	json_t *root;
	FILE *text;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strncmp(argv[i], "--json=", 7) && argv[i][7])
			json = argv[i] + 7;
		else if (argv[i][0] == '-' || npos == 3)
			return usage(prog);
		else
			pos[npos++] = argv[i];
	}
	if (npos != 3 || (strcmp(pos[0], "fsck") && strcmp(pos[0], "freespace")))
		return usage(prog);
	if (json) {
		const struct outputs_dest d = { "--json", json, OUTFILE_REPLACE };

		if ((code = outputs_check(prog, &d, 1)))
			return code;
	}
	/* --json -: standard output is the JSON's alone */
	text = json && outfile_is_stdout(json) ? NULL : stdout;
	if (!strcmp(pos[0], "fsck")) {
		struct fsck_result r;

		rc = fsck_run(pos[1], pos[2], NULL, &r);
		if (rc && r.verdict != FSCK_ABSENT && !r.command[0]) {
			fprintf(stderr, "%s: %s\n", prog, r.why);
			fsck_result_free(&r);
			return status_for(rc, false);
		}
		if (text)
			fsck_text_print(text, &r);
		code = rc ? status_for(rc, true) :
		       r.verdict == FSCK_ERRORS || r.verdict == FSCK_FAILED ? EXIT_FAILED : EXIT_OK;
		root = fsck_json(&r);
		fsck_result_free(&r);
	} else {
		struct freespace_result r;

		rc = freespace_run(pos[1], pos[2], NULL, &r);
		if (rc && rc != -EPROTO && !(rc == -ENOENT && r.tool && r.command[0])) {
			fprintf(stderr, "%s: %s\n", prog, r.why);
			freespace_result_free(&r);
			return status_for(rc, false);
		}
		if (text)
			freespace_text_print(text, &r);
		code = !rc ? EXIT_OK : rc == -EPROTO ? EXIT_FAILED : status_for(rc, true);
		root = freespace_json(&r);
		freespace_result_free(&r);
	}
	if (text)
		fflush(text);
	if (json) {
		rc = root ? outputs_json(prog, json, root) : -ENOMEM;
		if (!root)
			fprintf(stderr, "%s: out of memory\n", prog);
		if (rc && code == EXIT_OK)
			code = EXIT_FAILED;
	}
	json_decref(root);
	return code;
}
