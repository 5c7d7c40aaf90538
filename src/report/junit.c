/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JUnit XML of verdicts (report/junit.h). */
#include <stddef.h>
#include <stdio.h>

#include "report/junit.h"

/* the length of a valid UTF-8 sequence at s (not overlong, no surrogate, <= U+10FFFF), else 0 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0], need, cp, min;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		need = 1, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		need = 2, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		need = 3, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (unsigned i = 1; i <= need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return need + 1;
}

void junit_escape(FILE *f, const char *s, int attr)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		size_t n;

		switch (*p) {
		case '&': fputs("&amp;", f); p++; continue;
		case '<': fputs("&lt;", f); p++; continue;
		case '>': fputs("&gt;", f); p++; continue;
		case '"': fputs("&quot;", f); p++; continue;
		case '\'': fputs("&apos;", f); p++; continue;
		case '\t': case '\n': case '\r':
			if (attr)
				fprintf(f, "&#%u;", *p);
			else
				fputc(*p, f);
			p++;
			continue;
		default:
			break;
		}
		n = *p < 0x20 || *p == 0x7f ? 0 : utf8_len(p);
		if (!n) {
			fprintf(f, "\\x%02x", *p);
			p++;
			continue;
		}
		fwrite(p, 1, n, f);
		p += n;
	}
}

static void attr(FILE *f, const char *name, const char *v)
{
	fprintf(f, " %s=\"", name);
	junit_escape(f, v, 1);
	fputc('"', f);
}

void junit_write(FILE *f, const struct junit_suite *s, const struct junit_case *c, unsigned n)
{
	unsigned nfail = 0, nskip = 0;
	char cells[16];

	for (unsigned i = 0; i < n; i++) {
		nfail += c[i].result == JUNIT_FAILURE;
		nskip += c[i].result == JUNIT_SKIPPED;
	}
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites", f);
	attr(f, "name", s->name);
	fprintf(f, " tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"%.3f\">\n", n, nfail, nskip,
		s->time);
	fputs("  <testsuite", f);
	attr(f, "name", s->name);
	fprintf(f, " tests=\"%u\" failures=\"%u\" errors=\"0\" skipped=\"%u\" time=\"%.3f\">\n", n, nfail, nskip,
		s->time);
	snprintf(cells, sizeof(cells), "%u", s->cells);
	fputs("    <properties>\n      <property name=\"experiment\"", f);
	attr(f, "value", s->experiment);
	fputs("/>\n      <property name=\"cells\"", f);
	attr(f, "value", cells);
	fputs("/>\n      <property name=\"fsbench.version\"", f);
	attr(f, "value", s->version);
	fputs("/>\n    </properties>\n", f);
	for (unsigned i = 0; i < n; i++) {
		const char *tag = c[i].result == JUNIT_FAILURE ? "failure" : "skipped";

		fputs("    <testcase", f);
		attr(f, "classname", c[i].classname);
		attr(f, "name", c[i].name);
		fputs(" time=\"0\"", f);
		if (c[i].result == JUNIT_PASS && !c[i].text) {
			fputs("/>\n", f);
			continue;
		}
		fputs(">\n", f);
		if (c[i].result != JUNIT_PASS) {
			fprintf(f, "      <%s", tag);
			attr(f, "message", c[i].message);
			if (c[i].result == JUNIT_FAILURE)
				fputs(" type=\"worse\"", f);
			fputs("/>\n", f);
		}
		if (c[i].text) {
			fputs("      <system-out>", f);
			junit_escape(f, c[i].text, 0);
			fputs("</system-out>\n", f);
		}
		fputs("    </testcase>\n", f);
	}
	fputs("  </testsuite>\n</testsuites>\n", f);
}
