/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Escaping outside text for messages (quote.h). */
#include "core/quote.h"

#include <stdio.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (2..4 bytes, no overlong form, no surrogate, not
 * above U+10FFFF, not a C1 control), or 0. */
size_t quote_utf8_len(const unsigned char *s)
{
	unsigned cp;
	size_t n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return n;
}

/* The escaped form of the character at p: its text in esc (or at p itself), its length in
 * the output, and how many input bytes it takes (*n). */
static const char *piece(const unsigned char *p, char esc[8], size_t *len, size_t *n)
{
	*n = 1;
	if (*p == '\n')
		strcpy(esc, "\\n");
	else if (*p == '\r')
		strcpy(esc, "\\r");
	else if (*p == '\t')
		strcpy(esc, "\\t");
	else if (*p == '\\')
		strcpy(esc, "\\\\");
	else if (*p >= 0x20 && *p < 0x7f)
		esc[0] = (char)*p, esc[1] = '\0';
	else if (*p >= 0x80 && (*n = quote_utf8_len(p))) {
		*len = *n;
		return (const char *)p;
	} else {
		*n = 1;
		snprintf(esc, 8, "\\x%02x", *p);
	}
	*len = strlen(esc);
	return esc;
}

char *quote_str(const char *s, char *out, size_t outlen)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "(null)");
	size_t o = 0, total = 0, len, n, limit;
	char esc[8];

	if (!outlen)
		return out;
	for (const unsigned char *q = p; *q; q += n) {
		piece(q, esc, &len, &n);
		total += len;
	}
	/* whole pieces only: a cut never splits an escape or a character */
	limit = total < outlen ? total : outlen > 4 ? outlen - 4 : 0;
	for (; *p; p += n) {
		const char *t = piece(p, esc, &len, &n);

		if (o + len > limit)
			break;
		memcpy(out + o, t, len);
		o += len;
	}
	snprintf(out + o, outlen - o, "%s", total < outlen ? "" : "...");
	return out;
}
