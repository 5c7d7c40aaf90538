/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Markdown and self-contained HTML from one sequence of calls (doc.h). */
#include "report/doc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/quote.h"

static bool alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Every text that reaches the document passes here: names, labels, hostnames, kernel strings,
 * warnings and tool output come from outside (a manifest, result files, a checker), so nothing
 * in them may become markup. A control byte (C0, DEL, a C1 control) or a byte that is not valid
 * UTF-8 becomes the four characters \xHH, as in messages (core/quote.h); *n is how many input
 * bytes the character at p takes. NULL: p is a byte to write as it is (printable ASCII, or a
 * whole valid UTF-8 sequence of *n bytes); else the escape in esc. */
static const char *ctl_escape(const char *p, char esc[8], size_t *n)
{
	const unsigned char c = (unsigned char)*p;

	*n = 1;
	if (c >= 0x20 && c < 0x7f)
		return NULL;
	if (c >= 0x80 && (*n = quote_utf8_len((const unsigned char *)p)))
		return NULL;
	*n = 1;
	snprintf(esc, 8, "\\x%02x", c);
	return esc;
}

/* Inline Markdown that stays text in every renderer (CommonMark, GitHub's): one line (a newline,
 * CR or tab is a space, so no text starts a block of its own); the HTML specials < & as
 * entities, so no tag, comment or entity of the text's own is HTML (> alone opens nothing, and
 * stays as it is: "ext4 -> xfs"); the Markdown specials
 * * ` [ ] \ | # ~ $ escaped everywhere (| would split a table cell, # close a heading, ~ strike,
 * $ start maths); _ only where it could open or close emphasis (not inside a word:
 * random_write stays as it is). block: the text opens a paragraph, list item or heading, so
 * its leading blanks go (four would make code) and a first - + = > or a number's . ) is
 * escaped (a list, a rule, a quote). Control bytes as \xHH (ctl_escape), escaped again for Markdown. */
static void md_text(FILE *f, const char *s, bool block)
{
	const char *p = s;
	char esc[8];
	size_t n;

	if (!f)
		return;
	if (block) {
		const char *q;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		s = p;
		for (q = p; *q >= '0' && *q <= '9' && q - p < 10; q++)
			;
		if (*p && strchr("-+=>", *p))
			fputc('\\', f);
		else if (q > p && (*q == '.' || *q == ')')) {
			fwrite(p, 1, (size_t)(q - p), f);
			fputc('\\', f);
			p = q;
		}
	}
	for (; *p; p += n) {
		const char *e;

		if (*p == '\n' || *p == '\r' || *p == '\t') {
			fputc(' ', f);
			n = 1;
		} else if ((e = ctl_escape(p, esc, &n))) {
			fputs("\\", f);   /* the escape's own backslash, escaped */
			fputs(e, f);
		} else if (*p == '<') {
			fputs("&lt;", f);
		} else if (*p == '&') {
			fputs("&amp;", f);
		} else if (n == 1 && (strchr("*`[]\\|#~$", *p) ||
				      (*p == '_' && (p == s || !alnum(p[-1]) || !alnum(p[1]))))) {
			fputc('\\', f);
			fputc(*p, f);
		} else {
			fwrite(p, 1, n, f);
		}
	}
}

/* A fenced code block's text: as it is but for control bytes (newlines and tabs stay); the
 * fence is longer than any run of backticks in the text, so no line of it closes the block */
static void md_pre(FILE *f, const char *text)
{
	size_t run = 0, longest = 0, n;
	char esc[8];

	if (!f)
		return;
	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	for (size_t i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
		fputc('`', f);
	fputc('\n', f);
	for (const char *p = text; *p; p += n) {
		const char *e = *p == '\n' || *p == '\t' ? (n = 1, NULL) : ctl_escape(p, esc, &n);

		if (e)
			fputs(e, f);
		else
			fwrite(p, 1, n, f);
	}
	if (*text && text[strlen(text) - 1] != '\n')
		fputc('\n', f);
	for (size_t i = 0; i < (longest < 3 ? 3 : longest + 1); i++)
		fputc('`', f);
	fputs("\n\n", f);
}

/* HTML text: the five specials as entities, control bytes as \xHH (newlines and tabs stay:
 * a <pre> keeps them, elsewhere they are blanks) */
static void html_text(FILE *f, const char *s)
{
	char esc[8];
	size_t n;

	for (; f && *s; s += n) {
		const char *e = *s == '\n' || *s == '\t' ? (n = 1, NULL) : ctl_escape(s, esc, &n);

		if (e) {
			fputs(e, f);
			continue;
		}
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fwrite(s, 1, n, f);
		}
	}
}

__attribute__((format(printf, 1, 0))) static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

void doc_begin(struct doc *d, const char *title)
{
	d->nsvg = 0;
	d->in_list = 0;
	if (d->md) {
		fputs("# ", d->md);
		md_text(d->md, title, true);
		fputs("\n\n", d->md);
	}
	if (d->html) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", d->html);
		html_text(d->html, title);
		fputs("</title>\n<style>\n"
		      "body{font-family:'DejaVu Sans',sans-serif;margin:2em auto;max-width:1250px;padding:0 1em;color:#111;background:#fff}\n"
		      "table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.86em}\n"
		      "th,td{border:1px solid #bbb;padding:.25em .55em;vertical-align:top}\n"
		      "th{background:#eef1f5;text-align:left}\n"
		      "td.r{text-align:right;white-space:nowrap}\n"
		      "tr:nth-child(even) td{background:#f7f8fa}\n"
		      "pre{background:#f4f4f4;border:1px solid #ddd;padding:.6em;overflow-x:auto;font-size:.82em}\n"
		      "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
		      "figure{margin:1em 0}figcaption{font-size:.9em;color:#444}\n"
		      "</style>\n</head>\n<body>\n<h1>", d->html);
		html_text(d->html, title);
		fputs("</h1>\n", d->html);
	}
}

void doc_end(struct doc *d)
{
	doc_list_end(d);
	if (d->html)
		fputs("</body>\n</html>\n", d->html);
}

/* a heading (level > 0), a paragraph (0) or a list item (-1) of already formatted text */
static void block(struct doc *d, int level, const char *s)
{
	if (level >= 0)
		doc_list_end(d);
	else if (!d->in_list && d->html)
		fputs("<ul>\n", d->html);
	if (level < 0)
		d->in_list = 1;
	if (d->md) {
		for (int i = 0; i < level; i++)
			fputc('#', d->md);
		fputs(level > 0 ? " " : level < 0 ? "- " : "", d->md);
		md_text(d->md, s, true);
		fputs(level < 0 ? "\n" : "\n\n", d->md);
	}
	if (d->html) {
		if (level > 0)
			fprintf(d->html, "<h%d>", level);
		else
			fputs(level < 0 ? "<li>" : "<p>", d->html);
		html_text(d->html, s);
		if (level > 0)
			fprintf(d->html, "</h%d>\n", level);
		else
			fputs(level < 0 ? "</li>\n" : "</p>\n", d->html);
	}
}

__attribute__((format(printf, 3, 0))) static void vblock(struct doc *d, int level, const char *fmt,
							 va_list ap)
{
	char *s = vfmt(fmt, ap);

	if (s)
		block(d, level, s);
	free(s);
}

void doc_h(struct doc *d, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vblock(d, level > 0 ? level : 1, fmt, ap);
	va_end(ap);
}

void doc_p(struct doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vblock(d, 0, fmt, ap);
	va_end(ap);
}

void doc_li(struct doc *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vblock(d, -1, fmt, ap);
	va_end(ap);
}

void doc_list_end(struct doc *d)
{
	if (!d->in_list)
		return;
	d->in_list = 0;
	if (d->md)
		fputc('\n', d->md);
	if (d->html)
		fputs("</ul>\n", d->html);
}

void doc_pre(struct doc *d, const char *text)
{
	doc_list_end(d);
	md_pre(d->md, text);
	if (d->html) {
		fputs("<pre>", d->html);
		html_text(d->html, text);
		fputs("</pre>\n", d->html);
	}
}

void doc_table(struct doc *d, unsigned ncols, const char *const *head, const char *align)
{
	doc_list_end(d);
	d->ncols = ncols;
	if (d->md) {
		for (unsigned i = 0; i < ncols; i++) {
			fputs("| ", d->md);
			md_text(d->md, head[i], false);
			fputc(' ', d->md);
		}
		fputs("|\n", d->md);
		for (unsigned i = 0; i < ncols; i++)
			fputs(align && align[i] == 'r' ? "|---:" : "|---", d->md);
		fputs("|\n", d->md);
	}
	if (d->html) {
		fputs("<table>\n<thead><tr>", d->html);
		for (unsigned i = 0; i < ncols; i++) {
			fputs("<th>", d->html);
			html_text(d->html, head[i]);
			fputs("</th>", d->html);
		}
		fputs("</tr></thead>\n<tbody>\n", d->html);
	}
	(void)align;
}

void doc_row(struct doc *d, const char *const *cells)
{
	if (d->md) {
		for (unsigned i = 0; i < d->ncols; i++) {
			fputs("| ", d->md);
			md_text(d->md, cells[i] ? cells[i] : "", false);
			fputc(' ', d->md);
		}
		fputs("|\n", d->md);
	}
	if (d->html) {
		fputs("<tr>", d->html);
		for (unsigned i = 0; i < d->ncols; i++) {
			const char *c = cells[i] ? cells[i] : "";
			/* numbers right-aligned: a cell that starts like one */
			bool num = (*c >= '0' && *c <= '9') || ((*c == '-' || *c == '+') && c[1] >= '0' && c[1] <= '9');

			fputs(num ? "<td class=\"r\">" : "<td>", d->html);
			html_text(d->html, c);
			fputs("</td>", d->html);
		}
		fputs("</tr>\n", d->html);
	}
}

void doc_table_end(struct doc *d)
{
	if (d->md)
		fputc('\n', d->md);
	if (d->html)
		fputs("</tbody>\n</table>\n", d->html);
}

/* cairo's SVG inlined: without the XML declaration and the namespace declarations (the HTML
 * parser knows svg and xlink:href), scaled to the page, its ids prefixed so that two plots'
 * glyph symbols ("glyph0-1") do not resolve to each other's */
static void svg_inline(FILE *f, const char *svg, size_t len, unsigned k)
{
	const char *p = svg, *end = svg + len;
	bool root_done = false;

	if (len > 5 && !strncmp(p, "<?xml", 5)) {
		const char *q = memchr(p, '>', len);

		p = q ? q + 1 : p;
	}
	while (p < end) {
		static const char *const pat[] = { "id=\"", "href=\"#", "url(#" };
		const char *hit = NULL;
		size_t which = 0;

		if (!root_done && (size_t)(end - p) >= 5 && !strncmp(p, "<svg ", 5)) {
			const char *gt = memchr(p, '>', (size_t)(end - p));
			const char *q = p + 5;

			fputs("<svg style=\"max-width:100%;height:auto\" ", f);
			/* the root's attributes less xmlns and xmlns:xlink */
			while (gt && q < gt) {
				const char *sp = q;
				const char *eq = memchr(q, '=', (size_t)(gt - q));
				const char *q1 = eq ? memchr(eq + 2, '"', (size_t)(gt - eq - 1)) : NULL;

				if (!eq || !q1)
					break;
				if (strncmp(sp, "xmlns", 5))
					fprintf(f, "%.*s ", (int)(q1 + 1 - sp), sp);
				q = q1 + 1;
				while (q < gt && *q == ' ')
					q++;
			}
			fputs(">", f);
			p = gt ? gt + 1 : end;
			root_done = true;
			continue;
		}
		for (size_t i = 0; i < 3 && !hit; i++)
			if ((size_t)(end - p) >= strlen(pat[i]) && !strncmp(p, pat[i], strlen(pat[i]))) {
				hit = pat[i];
				which = i;
			}
		if (hit) {
			fputs(hit, f);
			fprintf(f, "s%u-", k);
			p += strlen(hit);
			(void)which;
			continue;
		}
		fputc(*p++, f);
	}
}

void doc_figure(struct doc *d, const char *svg, size_t len, const char *svg_file, const char *png_file,
		const char *caption)
{
	doc_list_end(d);
	if (d->md) {
		fputs("![", d->md);
		md_text(d->md, caption, false);
		fprintf(d->md, "](%s)\n\n", svg_file);
		md_text(d->md, caption, true);
		fprintf(d->md, " (%s, %s)\n\n", svg_file, png_file);
	}
	if (d->html) {
		fputs("<figure>\n", d->html);
		svg_inline(d->html, svg, len, ++d->nsvg);
		fputs("\n<figcaption>", d->html);
		html_text(d->html, caption);
		fputs(" (also ", d->html);
		html_text(d->html, svg_file);
		fputs(", ", d->html);
		html_text(d->html, png_file);
		fputs(" beside this file)</figcaption>\n</figure>\n", d->html);
	}
}

void doc_svg(struct doc *d, const char *svg, size_t len, const char *svg_file, const char *caption)
{
	doc_list_end(d);
	if (d->md) {
		fputs("![", d->md);
		md_text(d->md, caption, false);
		fprintf(d->md, "](%s)\n\n", svg_file);
	}
	if (d->html) {
		fputs("<figure>\n", d->html);
		svg_inline(d->html, svg, len, ++d->nsvg);
		fputs("\n<figcaption>", d->html);
		html_text(d->html, caption);
		fputs("</figcaption>\n</figure>\n", d->html);
	}
}
