/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One document written twice at once: Markdown (report.md) and one self-contained HTML file
 * (report.html: inline CSS, inline SVG, no external URL). Headings, paragraphs, lists,
 * preformatted blocks, tables and figures; text is escaped for each. Presentation only. */
#ifndef FSB_REPORT_DOC_H
#define FSB_REPORT_DOC_H
#include <stddef.h>
#include <stdio.h>

struct doc {
	FILE *md, *html;         /* either may be NULL */
	unsigned nsvg;           /* inline SVGs so far: their ids get a prefix each */
	unsigned ncols;          /* the open table's */
	int in_list;
};

void doc_begin(struct doc *d, const char *title);
void doc_end(struct doc *d);
void doc_h(struct doc *d, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void doc_p(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* a list item (the list opens at the first, closes at doc_list_end) */
void doc_li(struct doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void doc_list_end(struct doc *d);
void doc_pre(struct doc *d, const char *text);
/* align: one letter per column, 'l' or 'r' */
void doc_table(struct doc *d, unsigned ncols, const char *const *head, const char *align);
void doc_row(struct doc *d, const char *const *cells);
void doc_table_end(struct doc *d);
/* svg (its text): inline in the HTML; in the Markdown an image link to svg_file, and png_file */
void doc_figure(struct doc *d, const char *svg, size_t len, const char *svg_file, const char *png_file,
		const char *caption);
/* the same with an SVG alone (no PNG beside it) */
void doc_svg(struct doc *d, const char *svg, size_t len, const char *svg_file, const char *caption);
#endif
