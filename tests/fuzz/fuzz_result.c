/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target for the result reader (report/result_read.c): any bytes must load or fail with
 * a message, never crash, leak or read out of bounds.
 *
 * libFuzzer:  tests/fuzz/run.sh [SECONDS] builds it with clang -fsanitize=fuzzer,address,undefined
 *             (with the library sources) and fuzzes from tests/fuzz/corpus.
 * Plain:      built without -DFSB_LIBFUZZER, main() runs the target over every file named
 *             (or every file in a directory named) and prints one line per input; the unit
 *             test test_result_read includes this file to run the corpus in make check. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report/result_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rr_result r;
	char err[1024];

	err[0] = '\0';
	if (rr_load_buffer((const char *)data, size, "fuzz.json", &r, err, sizeof(err)) == 0) {
		/* touch what compare and plot read */
		for (unsigned i = 0; i < r.nfig; i++) {
			double v[RR_MAX_RUNS];

			(void)rr_values(&r, &r.fig[i], v);
		}
	} else if (!err[0] || strchr(err, '\n')) {
		abort();   /* a failure must say why, on one line */
	}
	rr_free(&r);
	return 0;
}

#ifndef FSB_LIBFUZZER
/* Runs one file; returns 1 when it loaded, 0 when it was rejected (with the message in err). */
static int fuzz_file(const char *path, char *err, size_t errlen)
{
	struct rr_result r;
	int ok = rr_load_file(path, &r, err, errlen) == 0;
	FILE *f = fopen(path, "rb");

	rr_free(&r);
	/* and the in-memory path the fuzzer takes */
	if (f) {
		static char buf[1 << 22];
		size_t n = fread(buf, 1, sizeof(buf), f);

		fclose(f);
		LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	}
	return ok;
}

#ifndef FUZZ_RESULT_NO_MAIN
int main(int argc, char **argv)
{
	char err[1024];

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) && (d = opendir(argv[i]))) {
			while ((e = readdir(d))) {
				char p[4096];

				if (e->d_name[0] == '.')
					continue;
				snprintf(p, sizeof(p), "%s/%s", argv[i], e->d_name);
				printf("%s: %s\n", p, fuzz_file(p, err, sizeof(err)) ? "loaded" : err);
			}
			closedir(d);
			continue;
		}
		printf("%s: %s\n", argv[i], fuzz_file(argv[i], err, sizeof(err)) ? "loaded" : err);
	}
	return 0;
}
#endif
#endif
