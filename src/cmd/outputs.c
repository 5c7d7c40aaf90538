/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The destinations a command's options name: checked before a run, written after it. */
#include "cmd/outputs.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/quote.h"
#include "report/csv.h"
#include "report/profile_text.h"

static void say(const char *prog, const char *opt, const char *path, const char *reason)
{
	char q[QUOTE_MAX];

	fprintf(stderr, "%s: %s%s%scannot write '%s': %s\n", prog, opt ? "option " : "", opt ? opt : "",
		opt ? ": " : "", quote_str(path, q, sizeof(q)), reason);
}

int outputs_check(const char *prog, const struct outputs_dest *v, unsigned n)
{
	char why[256];

	for (unsigned i = 0; i < n; i++) {
		if (!v[i].path)
			continue;
		if (outfile_check(v[i].path, v[i].mode, why, sizeof(why))) {
			say(prog, v[i].opt, v[i].path, why);
			return EXIT_USAGE;
		}
	}
	return 0;
}

int outputs_check_run(const char *prog, const struct run_opts *o, const char *log)
{
	char path[PATH_MAX + 16];
	const char *json = o->json, *folded = o->profile_folded;
	struct outputs_dest v[5] = {
		{ "--json", json, OUTFILE_REPLACE },
		{ folded ? "--profile-folded" : "--profile-callgraph", NULL, OUTFILE_REPLACE },
		{ "-l", log, OUTFILE_APPEND },
		{ "--csv", o->csv, OUTFILE_REPLACE },
		{ "--stream", o->stream, OUTFILE_STREAM },
	};

	if (o->profile_callgraph) {
		int rc = profile_folded_path(folded, json, path, sizeof(path));

		if (rc == -ENAMETOOLONG) {
			say(prog, v[1].opt, folded ? folded : json, strerror(ENAMETOOLONG));
			return EXIT_USAGE;
		}
		if (!rc)
			v[1].path = path;
	}
	return outputs_check(prog, v, 5);
}

struct outfile *outputs_open(const char *prog, const char *path, enum outfile_mode mode)
{
	char why[256];
	int rc;
	struct outfile *of = outfile_open(path, mode, &rc, why, sizeof(why));

	if (!of)
		say(prog, NULL, path, why);
	return of;
}

int outputs_commit(const char *prog, struct outfile *of, const char *path)
{
	int rc = outfile_commit(of);

	/* the reader of standard output went away (| head): the exit status says it */
	if (rc && !(rc == -EPIPE && outfile_is_stdout(path)))
		say(prog, NULL, path, strerror(-rc));
	return rc;
}

int outputs_json(const char *prog, const char *path, const json_t *root)
{
	return outputs_json_spooled(prog, path, root, NULL);
}

int outputs_json_spooled(const char *prog, const char *path, const json_t *root,
			 const struct json_spool *sp)
{
	struct outfile *of = outputs_open(prog, path, OUTFILE_REPLACE);
	int drc;

	if (!of)
		return -EIO;
	/* jansson reports a failed write as -1 only: the errno is the stream's (a failure of the
	 * spool, -ENOSPC where it was, is its own) */
	if ((drc = json_spool_dumpf(root, of->f, sp)) || fputc('\n', of->f) == EOF) {
		int rc = outfile_error(of) ? outfile_error(of) : drc ? drc : -EIO;

		outfile_abort(of);
		if (!(rc == -EPIPE && outfile_is_stdout(path)))
			say(prog, NULL, path, strerror(-rc));
		return rc;
	}
	return outputs_commit(prog, of, path);
}

int outputs_csv(const char *prog, const char *path, const struct figure_set *fs, const json_t *root,
		const struct json_spool *sp)
{
	struct outfile *of = outputs_open(prog, path, OUTFILE_REPLACE);
	int rc;

	if (!of)
		return -EIO;
	if ((rc = csv_write(of->f, fs, root, sp))) {
		rc = outfile_error(of) ? outfile_error(of) : rc;
		outfile_abort(of);
		if (!(rc == -EPIPE && outfile_is_stdout(path)))
			say(prog, NULL, path, strerror(-rc));
		return rc;
	}
	return outputs_commit(prog, of, path);
}

struct outfile *outputs_folded_open(const char *prog, const char *folded, const char *json,
				    char *path, size_t len, int *rc)
{
	struct outfile *of;

	*rc = profile_folded_path(folded, json, path, len);
	if (*rc == -ENOENT) {
		*rc = 0;
		fprintf(stderr, "%s: --profile-callgraph: no --profile-folded FILE or --json FILE, so the "
			"folded stacks are not written\n", prog);
		return NULL;
	}
	if (*rc) {
		say(prog, NULL, folded ? folded : json, strerror(-*rc));
		return NULL;
	}
	of = outputs_open(prog, path, OUTFILE_REPLACE);
	*rc = of ? 0 : -EIO;
	return of;
}
