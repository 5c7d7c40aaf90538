/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Minimal table-driven test support: CHECK records a failure with its line and goes on;
 * CHECK_SKIP says that a check could not run here and why; check_done prints "NAME: N passed,
 * N failed" and gives the exit status: 1 on any failure, else 77 (tests/run.sh: a visible SKIP,
 * its first "skip:" line shown) when something was skipped, else 0. A missing prerequisite is
 * never a silent pass. */
#ifndef FSB_TEST_CHECK_H
#define FSB_TEST_CHECK_H
#include <stdio.h>

static int check_pass, check_fail, check_skipped;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond) {                                                    \
			check_pass++;                                          \
		} else {                                                       \
			check_fail++;                                          \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, \
				__LINE__, #cond);                              \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

/* what: the check that did not run; why: the missing prerequisite */
#define CHECK_SKIP(what, ...)                                                  \
	do {                                                                   \
		check_skipped++;                                               \
		printf("skip: %s: ", (what));                                  \
		printf(__VA_ARGS__);                                           \
		putchar('\n');                                                 \
		fflush(stdout);                                                \
	} while (0)

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed", name, check_pass, check_fail);
	if (check_skipped)
		printf(", %d skipped", check_skipped);
	putchar('\n');
	return check_fail ? 1 : check_skipped ? 77 : 0;
}
#endif
