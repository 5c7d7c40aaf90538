/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Text from outside (option values, paths, file contents) made safe to echo in a message: no
 * raw newline, terminal escape sequence or invalid byte reaches the terminal. */
#ifndef FSB_QUOTE_H
#define FSB_QUOTE_H
#include <stddef.h>

/* Enough for any path: every byte may become four ("\x1b"). */
#define QUOTE_MAX (4 * 4096 + 4)

/* s with backslash escapes: \n \r \t \\ for those, \xHH for every other control byte (C0,
 * DEL, the C1 controls U+0080..U+009F) and every byte that is not part of valid UTF-8;
 * printable ASCII and valid UTF-8 stay as they are. Cut with "..." when out is too small.
 * NULL s reads as "(null)". Returns out. */
char *quote_str(const char *s, char *out, size_t outlen);
/* The length of the valid UTF-8 sequence at s (2..4 bytes, no overlong form, no surrogate, not
 * above U+10FFFF, not a C1 control), or 0: what quote_str and the report's text keep as it is. */
size_t quote_utf8_len(const unsigned char *s);
#endif
