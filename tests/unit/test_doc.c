/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doc: text from outside written into report.md and report.html, table-driven: in a paragraph,
 * a list item, a heading, a table cell and a code block, what stays text and how. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/doc.h"

enum where { P, LI, H, CELL, PRE };

/* the Markdown (md) or HTML (!md) that one call writes for text */
static char *render(enum where w, const char *text, int md)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct doc d = { 0 };
	const char *head[1] = { "h" }, *row[1] = { text };

	if (!f)
		return NULL;
	if (md)
		d.md = f;
	else
		d.html = f;
	if (w == CELL)
		doc_table(&d, 1, head, NULL);
	fflush(f);
	len = 0;                 /* only what the call itself writes */
	fseek(f, 0, SEEK_SET);
	switch (w) {
	case P: doc_p(&d, "%s", text); break;
	case LI: doc_li(&d, "%s", text); doc_list_end(&d); break;
	case H: doc_h(&d, 3, "%s", text); break;
	case CELL: doc_row(&d, row); break;
	case PRE: doc_pre(&d, text); break;
	}
	fclose(f);
	return buf;
}

int main(void)
{
	static const struct {
		enum where w;
		const char *in, *md, *html;
	} cases[] = {
		{ P, "random_write ok", "random_write ok\n\n", "<p>random_write ok</p>\n" },
		{ P, "<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>\n\n",
		  "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n" },
		{ P, "a & b &amp; c", "a &amp; b &amp;amp; c\n\n", "<p>a &amp; b &amp;amp; c</p>\n" },
		{ P, "ext4 -> xfs", "ext4 -> xfs\n\n", "<p>ext4 -&gt; xfs</p>\n" },
		{ P, "x\n# heading\n- item", "x \\# heading - item\n\n", "<p>x\n# heading\n- item</p>\n" },
		{ P, "*e* _u_ `c` [l](u) ~~s~~ $m$ a|b", "\\*e\\* \\_u\\_ \\`c\\` \\[l\\](u) \\~\\~s\\~\\~ \\$m\\$ a\\|b\n\n", NULL },
		{ P, "# title", "\\# title\n\n", NULL },
		{ P, "- not a list", "\\- not a list\n\n", NULL },
		{ P, "> not a quote", "\\> not a quote\n\n", NULL },
		{ P, "+ x", "\\+ x\n\n", NULL },
		{ P, "12. not a list", "12\\. not a list\n\n", NULL },
		{ P, "3) not a list", "3\\) not a list\n\n", NULL },
		{ P, "    not code", "not code\n\n", NULL },
		{ P, "esc\x1b[31m del\x7f c1\xc2\x9b bad\xff", "esc\\\\x1b\\[31m del\\\\x7f c1\\\\xc2\\\\x9b bad\\\\xff\n\n",
		  "<p>esc\\x1b[31m del\\x7f c1\\xc2\\x9b bad\\xff</p>\n" },
		{ P, "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac\n\n", "<p>caf\xc3\xa9 \xe2\x82\xac</p>\n" },
		{ LI, "1. x <b>", "- 1\\. x &lt;b>\n\n", "<ul>\n<li>1. x &lt;b&gt;</li>\n</ul>\n" },
		{ H, "name ##", "### name \\#\\#\n\n", "<h3>name ##</h3>\n" },
		{ CELL, "a|b\nc", "| a\\|b c |\n", "<tr><td>a|b\nc</td></tr>\n" },
		{ CELL, "- x", "| - x |\n", NULL },
		{ PRE, "plain\n", "```\nplain\n```\n\n", "<pre>plain\n</pre>\n" },
		{ PRE, "````\n<b>x</b>\n", "`````\n````\n<b>x</b>\n`````\n\n", "<pre>````\n&lt;b&gt;x&lt;/b&gt;\n</pre>\n" },
		{ PRE, "a ``` b\n\tc\x1b[2J", "````\na ``` b\n\tc\\x1b[2J\n````\n\n", "<pre>a ``` b\n\tc\\x1b[2J</pre>\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int md = 1; md >= 0; md--) {
			const char *want = md ? cases[i].md : cases[i].html;
			char *got;

			if (!want)
				continue;
			got = render(cases[i].w, cases[i].in, md);
			CHECK(got && !strcmp(got, want), "case %zu (%s): got '%s', want '%s'", i, md ? "md" : "html",
			      got ? got : "(null)", want);
			free(got);
		}
	}
	return check_done("test_doc");
}
