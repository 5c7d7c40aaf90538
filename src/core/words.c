/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shell-like word splitting (core/words.h). */
#include "core/words.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int words_split(const char *s, char **out, unsigned max, unsigned *n, char *err, size_t errlen)
{
	size_t len = strlen(s);
	char *w = malloc(len + 1);
	unsigned start = *n;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while (*s) {
		size_t k = 0;
		char quote = 0;
		bool word = false;

		while (*s == ' ' || *s == '\t')
			s++;
		for (; *s && (quote || (*s != ' ' && *s != '\t')); s++) {
			word = true;
			if (quote) {
				if (*s == quote)
					quote = 0;
				else if (*s == '\\' && quote == '"' && (s[1] == '"' || s[1] == '\\'))
					w[k++] = *++s;
				else
					w[k++] = *s;
			} else if (*s == '\'' || *s == '"') {
				quote = *s;
			} else if (*s == '\\' && s[1]) {
				w[k++] = *++s;
			} else {
				w[k++] = *s;
			}
		}
		if (quote) {
			snprintf(err, errlen, "unterminated %c quote", quote);
			goto fail;
		}
		if (!word)
			break;
		if (*n == max) {
			snprintf(err, errlen, "more than %u words", max);
			goto fail;
		}
		w[k] = '\0';
		if (!(out[*n] = strdup(w))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		(*n)++;
	}
	free(w);
	return 0;
fail:
	while (*n > start)
		free(out[--*n]);
	free(w);
	return -1;
}
