/* SPDX-License-Identifier: GPL-2.0-or-later */
/* quote: outside text echoed in messages, table-driven: what stays, what is escaped, cuts. */
#include <string.h>

#include "check.h"
#include "core/quote.h"

int main(void)
{
	static const struct {
		const char *in;
		size_t outlen;
		const char *want;
	} cases[] = {
		{ "plain/path.json", 64, "plain/path.json" },
		{ "a\nb", 64, "a\\nb" },
		{ "\x1b[31mred\x1b[0m", 64, "\\x1b[31mred\\x1b[0m" },
		{ "tab\there\r", 64, "tab\\there\\r" },
		{ "back\\slash", 64, "back\\\\slash" },
		{ "del\x7f", 64, "del\\x7f" },
		{ "\x01\x1f", 64, "\\x01\\x1f" },
		{ "caf\xc3\xa9", 64, "caf\xc3\xa9" },                 /* valid UTF-8 stays */
		{ "\xe2\x82\xac", 64, "\xe2\x82\xac" },                /* euro sign */
		{ "\xc2\x9b" "2J", 64, "\\xc2\\x9b2J" },               /* C1 CSI in UTF-8 */
		{ "\x9b" "2J", 64, "\\x9b2J" },                        /* raw 8-bit CSI */
		{ "\xc3(", 64, "\\xc3(" },                             /* truncated sequence */
		{ "\xc0\xaf", 64, "\\xc0\\xaf" },                      /* overlong */
		{ "\xed\xa0\x80", 64, "\\xed\\xa0\\x80" },             /* surrogate */
		{ "\xf4\x90\x80\x80", 64, "\\xf4\\x90\\x80\\x80" },    /* above U+10FFFF */
		{ "", 64, "" },
		{ NULL, 64, "(null)" },
		{ "abcdef", 7, "abcdef" },                             /* just fits */
		{ "abcdefg", 7, "abc..." },                            /* cut, marked */
		{ "ab\ncdef", 7, "ab..." },                            /* never half an escape */
		{ "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 7, "\xc3\xa9..." }, /* never half a character */
		{ "abc", 1, "" },
	};
	char out[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(out, 'Z', sizeof(out));
		quote_str(cases[i].in, out, cases[i].outlen);
		CHECK(!strcmp(out, cases[i].want), "case %zu: got '%s', want '%s'", i, out, cases[i].want);
	}
	return check_done("test_quote");
}
