/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shell-like words from one string (the experiment's workload arguments, mkfs and mount
 * options, a launcher command): for every layer, core/ and sys/ alike. */
#ifndef FSB_CORE_WORDS_H
#define FSB_CORE_WORDS_H
#include <stddef.h>

/* The words of s appended to out from out[*n] on (at most max in all): split at blanks and
 * tabs, '...' and "..." quoting (\" and \\ escaped inside "..."), \ escaping the next character
 * outside quotes. 0, or -1 with the reason in err and out as it was (nothing added). */
int words_split(const char *s, char **out, unsigned max, unsigned *n, char *err, size_t errlen);
#endif
