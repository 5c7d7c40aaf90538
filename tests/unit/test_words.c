/* SPDX-License-Identifier: GPL-2.0-or-later */
/* words: shell-like splitting, table-driven: blanks, quotes, escapes, the empty word, errors. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/words.h"

int main(void)
{
	static const struct {
		const char *in;
		unsigned n;
		const char *w[4];
		int rc;
	} cases[] = {
		{ "-t 1  -f\t64", 4, { "-t", "1", "-f", "64" }, 0 },
		{ "-E 'a b' \"c d\"", 3, { "-E", "a b", "c d" }, 0 },
		{ "x\\ y z", 2, { "x y", "z" }, 0 },
		{ "''", 1, { "" }, 0 },
		{ "   ", 0, { 0 }, 0 },
		{ "'open", 0, { 0 }, -1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out[8], err[128];
		unsigned n = 0;
		int rc = words_split(cases[i].in, out, 8, &n, err, sizeof(err));

		CHECK(rc == cases[i].rc, "'%s': rc %d", cases[i].in, rc);
		CHECK(n == cases[i].n, "'%s': %u words", cases[i].in, n);
		for (unsigned k = 0; k < n && k < cases[i].n; k++) {
			CHECK(!strcmp(out[k], cases[i].w[k]), "'%s' word %u: '%s'", cases[i].in, k, out[k]);
			free(out[k]);
		}
	}
	/* appended after what is there; on an error nothing is added */
	{
		char kept[] = "kept", *out[3] = { kept }, err[128];
		unsigned n = 1;

		CHECK(words_split("a b c", out, 3, &n, err, sizeof(err)) == -1 && n == 1, "over max: n %u", n);
		CHECK(!strcmp(err, "more than 3 words"), "err '%s'", err);
		CHECK(words_split("a 'b", out, 3, &n, err, sizeof(err)) == -1 && n == 1, "unterminated: n %u", n);
		CHECK(words_split("a b", out, 3, &n, err, sizeof(err)) == 0 && n == 3 && !strcmp(out[0], "kept") &&
		      !strcmp(out[2], "b"), "appended: n %u", n);
		while (n > 1)
			free(out[--n]);
	}
	return check_done("test_words");
}
