/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JUnit XML (the Jenkins/ant shape: testsuites/testsuite/properties/testcase/failure/skipped)
 * of verdicts a command already has: presentation only, nothing computed here. report --junit
 * writes one test case per primary effect and interaction, history check --junit one per
 * figure checked (fsbench(1), REPORT and HISTORY). Every outside text (cell and axis names,
 * figures, reasons) is escaped: & < > " ' as entities, tab/newline/CR as character references
 * in attributes, other control characters and bytes that are not UTF-8 as the text "\xNN"
 * (XML 1.0 cannot carry them at all). */
#ifndef FSB_REPORT_JUNIT_H
#define FSB_REPORT_JUNIT_H
#include <stdio.h>

enum junit_result {
	JUNIT_PASS,
	JUNIT_FAILURE,           /* <failure message=...>: a decided "worse" */
	JUNIT_SKIPPED,           /* <skipped message=...>: undecided or untested, and why */
};

struct junit_case {
	const char *classname;   /* "report.EXPERIMENT" / "history.EXPERIMENT.CELL" */
	const char *name;        /* the figure and what was compared */
	enum junit_result result;
	const char *message;     /* failure/skipped: the one-line reason; NULL: none */
	const char *text;        /* the case's full line (<system-out>); NULL: none */
};

struct junit_suite {
	const char *name;        /* "fsbench report" */
	const char *experiment;  /* property "experiment" */
	unsigned cells;          /* property "cells" */
	const char *version;     /* property "fsbench.version" */
	double time;             /* seconds: the command's own time producing the verdicts */
};

/* The document for n cases into f (errors are f's, checked by its writer). */
void junit_write(FILE *f, const struct junit_suite *s, const struct junit_case *c, unsigned n);
/* s escaped for an XML attribute value or text (attr: tab, newline, CR as references). */
void junit_escape(FILE *f, const char *s, int attr);
#endif
