/* Markdown and self-contained HTML from one sequence of calls (doc.h). */
#include "report/doc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static bool alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Markdown's specials escaped: * ` [ ] \ (and | in a table cell); _ only where it could open or
 * close emphasis (not inside a word: random_write stays as it is) */
static void md_text(FILE *f, const char *s, bool cell)
{
	for (const char *p = s; f && *p; p++) {
		if (strchr("*`[]\\", *p) || (cell && *p == '|') ||
		    (*p == '_' && (p == s || !alnum(p[-1]) || !alnum(p[1]))))
			fputc('\\', f);
		fputc(*p == '\n' && cell ? ' ' : *p, f);
	}
}

static void html_text(FILE *f, const char *s)
{
	for (; f && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

static char *vfmt(const char *fmt, va_list ap)
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
		md_text(d->md, title, false);
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

void doc_h(struct doc *d, int level, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	doc_list_end(d);
	if (d->md) {
		for (int i = 0; i < level; i++)
			fputc('#', d->md);
		fputc(' ', d->md);
		md_text(d->md, s, false);
		fputs("\n\n", d->md);
	}
	if (d->html) {
		fprintf(d->html, "<h%d>", level);
		html_text(d->html, s);
		fprintf(d->html, "</h%d>\n", level);
	}
	free(s);
}

void doc_p(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	doc_list_end(d);
	if (d->md) {
		md_text(d->md, s, false);
		fputs("\n\n", d->md);
	}
	if (d->html) {
		fputs("<p>", d->html);
		html_text(d->html, s);
		fputs("</p>\n", d->html);
	}
	free(s);
}

void doc_li(struct doc *d, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vfmt(fmt, ap);
	va_end(ap);
	if (!s)
		return;
	if (!d->in_list && d->html)
		fputs("<ul>\n", d->html);
	d->in_list = 1;
	if (d->md) {
		fputs("- ", d->md);
		md_text(d->md, s, false);
		fputc('\n', d->md);
	}
	if (d->html) {
		fputs("<li>", d->html);
		html_text(d->html, s);
		fputs("</li>\n", d->html);
	}
	free(s);
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
	if (d->md)
		fprintf(d->md, "```\n%s%s```\n\n", text, *text && text[strlen(text) - 1] == '\n' ? "" : "\n");
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
			md_text(d->md, head[i], true);
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
			md_text(d->md, cells[i] ? cells[i] : "", true);
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
		md_text(d->md, caption, false);
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
