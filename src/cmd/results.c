/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare's and plot's operands: a result file, a matrix directory (each of its cells as one
 * result, the cell's runs as the result's runs) or DIR:CELL (that cell); and plot's series:
 * results that share a label drawn as one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "core/quote.h"
#include "report/matrix_read.h"
#include "report/result_read.h"

/* What an operand names: a directory is a matrix directory; "DIR:CELL" a cell when DIR is a
 * directory and the whole is not a file (a file named "a:b" stays a file). Anything else is a
 * result file, whose reader says what is wrong with it. The stat only classifies: the readers
 * open what they read with their own rules (matrix_read: nothing through a link below DIR). */
static int operand_dir(const char *s, char *dir, size_t dirlen, const char **cell)
{
	struct stat st;
	const char *colon = strrchr(s, ':');

	*cell = NULL;
	if (!stat(s, &st))
		return S_ISDIR(st.st_mode) ? (snprintf(dir, dirlen, "%s", s) < (int)dirlen) : 0;
	if (!colon || colon == s || (size_t)(colon - s) >= dirlen)
		return 0;
	snprintf(dir, dirlen, "%.*s", (int)(colon - s), s);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return 0;
	*cell = colon + 1;
	return 1;
}

static int set_names(struct rr_result *r, const char *dir, const char *cell, bool qualify)
{
	char *path = NULL, *name;

	if (asprintf(&path, "%s:%s", dir, cell) < 0)
		return -1;
	name = strdup(qualify ? path : cell);
	if (!name) {
		free(path);
		return -1;
	}
	free(r->path);
	free(r->name);
	r->path = path;
	r->name = name;
	return 0;
}

/* The cells of the matrix directory dir (only cell when not NULL) appended to res. */
static int load_cells(const char *prog, const char *dir, const char *cell, bool qualify, struct rr_result *res,
		      int max, int *n)
{
	struct mx m;
	char err[1024], q[QUOTE_MAX], qc[QUOTE_MAX];
	bool found = false;
	int rc = -1;

	if (mread_load(dir, false, &m, err, sizeof(err))) {
		fprintf(stderr, "%s: '%s': %s\n", prog, quote_str(dir, q, sizeof(q)), err);
		goto out;
	}
	quote_str(dir, q, sizeof(q));
	for (unsigned c = 0; c < m.ncells; c++) {
		struct mread_cell *mc = &m.cell[c];

		if (cell && strcmp(mc->name, cell))
			continue;
		found = true;
		if (!mc->nrun) {
			/* all cells: the others still stand; a named one is wanted */
			if (!cell) {
				fprintf(stderr, "%s: warning: '%s': cell %s has no usable run (left out)\n", prog, q,
					quote_str(mc->name, qc, sizeof(qc)));
				continue;
			}
			fprintf(stderr, "%s: '%s': cell %s has no usable run\n", prog, q, quote_str(cell, qc, sizeof(qc)));
			goto out;
		}
		if (*n >= max) {
			fprintf(stderr, "%s: more than %d results ('%s' has %u cells; DIR:CELL names one)\n", prog, max,
				q, m.ncells);
			goto out;
		}
		res[*n] = mc->merged;
		memset(&mc->merged, 0, sizeof(mc->merged));
		(*n)++;
		if (set_names(&res[*n - 1], dir, mc->name, qualify)) {
			fprintf(stderr, "%s: out of memory\n", prog);
			goto out;
		}
	}
	if (cell && !found) {
		fprintf(stderr, "%s: '%s' has no cell %s (its cells:", prog, q, quote_str(cell, qc, sizeof(qc)));
		for (unsigned c = 0; c < m.ncells; c++)
			fprintf(stderr, " %s", quote_str(m.cell[c].name, qc, sizeof(qc)));
		fprintf(stderr, ")\n");
		goto out;
	}
	if (!cell && !found) {
		fprintf(stderr, "%s: '%s' has no cells\n", prog, q);
		goto out;
	}
	rc = 0;
out:
	mread_free(&m);
	return rc;
}

int cmd_load_results(const char *prog, const char **ops, int nops, struct rr_result *res, int max, int *nres)
{
	char dir[4096], first[4096] = "", err[1024];
	const char *cell;
	bool qualify = false;
	int ndirs = 0;

	/* cells are named by the cell alone, unless they come from more than one directory */
	for (int i = 0; i < nops; i++)
		if (operand_dir(ops[i], dir, sizeof(dir), &cell)) {
			if (ndirs++ && strcmp(dir, first))
				qualify = true;
			snprintf(first, sizeof(first), "%s", dir);
		}
	*nres = 0;
	for (int i = 0; i < nops; i++) {
		char name[QUOTE_MAX];

		if (operand_dir(ops[i], dir, sizeof(dir), &cell)) {
			if (load_cells(prog, dir, cell, qualify, res, max, nres))
				goto fail;
			continue;
		}
		if (*nres >= max) {
			fprintf(stderr, "%s: more than %d results\n", prog, max);
			goto fail;
		}
		if (rr_load_file(ops[i], &res[*nres], err, sizeof(err))) {
			rr_free(&res[*nres]);
			fprintf(stderr, "%s: '%s': %s\n", prog, quote_str(ops[i], name, sizeof(name)), err);
			goto fail;
		}
		(*nres)++;
	}
	return 0;
fail:
	for (int j = 0; j < *nres; j++)
		rr_free(&res[j]);
	*nres = 0;
	return -1;
}

int cmd_group_labels(struct rr_result *res, int *nres)
{
	for (int i = 0; i < *nres; i++) {
		const struct rr_result *same[64];
		struct rr_result merged;
		unsigned n = 0;
		int k;

		if (!res[i].label)
			continue;
		for (k = i; k < *nres && n < 64; k++)
			if (res[k].label && !strcmp(res[k].label, res[i].label) &&
			    !strcmp(res[k].workload, res[i].workload))
				same[n++] = &res[k];
		if (n < 2)
			continue;
		if (rr_concat(&merged, same, n, res[i].name)) {
			rr_free(&merged);
			return -ENOMEM;
		}
		if (!(merged.label = strdup(res[i].label))) {
			rr_free(&merged);
			return -ENOMEM;
		}
		/* the others go, the series takes the first one's place */
		for (k = *nres - 1; k > i; k--) {
			if (!res[k].label || strcmp(res[k].label, res[i].label) || strcmp(res[k].workload, res[i].workload))
				continue;
			rr_free(&res[k]);
			memmove(&res[k], &res[k + 1], (size_t)(*nres - k - 1) * sizeof(*res));
			(*nres)--;
		}
		rr_free(&res[i]);
		res[i] = merged;
	}
	return 0;
}
