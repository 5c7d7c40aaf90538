/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options table as text: --help, the man page's option lists, and the plain list tests
 * compare them with (core/opt.h declares the table). */
#include "report/opt_text.h"

void opt_text_options(const struct opt_cmd *c, const void *defaults, const char *heading, FILE *out)
{
	if (heading)
		fprintf(out, "\n%s\n", heading);
	for (const struct opt *o = c->opts; !opt_is_end(o); o++) {
		char names[96], def[256] = "";

		opt_format_names(o, names, sizeof(names));
		if (defaults)
			opt_format_default(o, defaults, def, sizeof(def));
		fprintf(out, "  %-26s %s", names, o->help);
		if (def[0])
			fprintf(out, " (default: %s)", def);
		fputc('\n', out);
	}
}

void opt_text_help(const struct opt_cmd *c, const void *defaults, const char *prog, FILE *out)
{
	fprintf(out, "usage: %s [OPTION]...\n%s\n\n", prog, c->summary);
	opt_text_options(c, defaults, NULL, out);
}

/* roff needs '-' escaped and a leading '.' or '\'' protected */
static void roff_text(const char *s, FILE *out)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void opt_text_man(const struct opt_cmd *c, const void *defaults, FILE *out)
{
	for (const struct opt *o = c->opts; !opt_is_end(o); o++) {
		char def[256];

		fputs(".TP\n.B ", out);
		if (o->sname)
			fprintf(out, "\\-%c", o->sname);
		if (o->sname && o->lname)
			fputs(", ", out);
		if (o->lname) {
			fputs("\\-\\-", out);
			roff_text(o->lname, out);
		}
		if (opt_arg_optional(o)) {
			fputs("[=\\fI", out);
			roff_text(o->arg, out);
			fputs("\\fR]", out);
		} else if (opt_takes_arg(o)) {
			fputs(" \\fI", out);
			roff_text(o->arg, out);
			fputs("\\fR", out);
		}
		fputc('\n', out);
		roff_text(o->help, out);
		opt_format_default(o, defaults, def, sizeof(def));
		if (def[0]) {
			fputs(" (default: ", out);
			roff_text(def, out);
			fputc(')', out);
		}
		fputc('\n', out);
	}
}

void opt_text_list(const struct opt_cmd *c, FILE *out)
{
	for (const struct opt *o = c->opts; !opt_is_end(o); o++) {
		if (o->sname)
			fprintf(out, "-%c", o->sname);
		if (o->sname && o->lname)
			fputc(' ', out);
		if (o->lname)
			fprintf(out, "--%s", o->lname);
		fputc('\n', out);
	}
}
