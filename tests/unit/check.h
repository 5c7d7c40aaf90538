/* Minimal table-driven test support: CHECK records a failure with its line and goes on;
 * check_done prints "NAME: N passed, N failed" and gives the exit status. */
#ifndef FSB_TEST_CHECK_H
#define FSB_TEST_CHECK_H
#include <stdio.h>

static int check_pass, check_fail;

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

static inline int check_done(const char *name)
{
	printf("%s: %d passed, %d failed\n", name, check_pass, check_fail);
	return check_fail ? 1 : 0;
}
#endif
