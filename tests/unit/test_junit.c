/* SPDX-License-Identifier: GPL-2.0-or-later */
/* junit: every outside text escaped (table-driven), and the document's counts. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/junit.h"

static char *render(const char *in, int attr)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	junit_escape(f, in, attr);
	fclose(f);
	return buf;
}

int main(void)
{
	static const struct {
		const char *in;
		int attr;
		const char *out;
	} t[] = {
		{ "plain", 1, "plain" },
		{ "a&b<c>d\"e'f", 1, "a&amp;b&lt;c&gt;d&quot;e&apos;f" },
		{ "tab\there\nnl\rcr", 1, "tab&#9;here&#10;nl&#13;cr" },
		{ "tab\there\nnl", 0, "tab\there\nnl" },
		{ "ctl\001\033\177x", 1, "ctl\\x01\\x1b\\x7fx" },
		{ "caf\xc3\xa9 \xe2\x82\xac", 1, "caf\xc3\xa9 \xe2\x82\xac" },
		{ "bad\xc3(\xff\xc0\xaf", 0, "bad\\xc3(\\xff\\xc0\\xaf" },
		{ "surrogate\xed\xa0\x80", 0, "surrogate\\xed\\xa0\\x80" },
		{ "", 1, "" },
	};
	const struct junit_case c[] = {
		{ "k", "pass", JUNIT_PASS, NULL, NULL },
		{ "k", "fail", JUNIT_FAILURE, "worse", "line" },
		{ "k", "skip", JUNIT_SKIPPED, "undecided", NULL },
	};
	const struct junit_suite s = { "fsbench test", "e<x>", 2, "0.1.0", 1.5 };
	char *doc = NULL;
	size_t len = 0;
	FILE *f;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *o = render(t[i].in, t[i].attr);

		CHECK(o && !strcmp(o, t[i].out), "%zu: '%s'", i, o ? o : "(null)");
		free(o);
	}
	f = open_memstream(&doc, &len);
	CHECK(f != NULL, "open_memstream");
	if (f) {
		junit_write(f, &s, c, 3);
		fclose(f);
		CHECK(strstr(doc, "<testsuite name=\"fsbench test\" tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\" "
			       "time=\"1.500\">") != NULL, "%s", doc);
		CHECK(strstr(doc, "<property name=\"experiment\" value=\"e&lt;x&gt;\"/>") != NULL, "%s", doc);
		CHECK(strstr(doc, "<failure message=\"worse\" type=\"worse\"/>") != NULL, "%s", doc);
		CHECK(strstr(doc, "<skipped message=\"undecided\"/>") != NULL, "%s", doc);
		CHECK(strstr(doc, "<testcase classname=\"k\" name=\"pass\" time=\"0\"/>") != NULL, "%s", doc);
		free(doc);
	}
	return check_done("test_junit");
}
