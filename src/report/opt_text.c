/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options table as text: --help, the man page's option lists, and the plain list tests
 * compare them with (core/opt.h declares the table). */
#include "report/opt_text.h"

static void options_lines(const struct opt *opts, const void *defaults, FILE *out)
{
	for (const struct opt *o = opts; !opt_is_end(o); o++) {
		char names[96], def[256] = "";

		if (o->type == OPT_GROUPS)
			continue;
		opt_format_names(o, names, sizeof(names));
		if (defaults)
			opt_format_default(o, defaults, def, sizeof(def));
		fprintf(out, "  %-26s %s", names, o->help);
		if (def[0])
			fprintf(out, " (default: %s)", def);
		fputc('\n', out);
	}
}

void opt_text_options(const struct opt_cmd *c, const void *defaults, const char *heading, FILE *out)
{
	struct opt_group g;

	if (heading)
		fprintf(out, "\n%s\n", heading);
	options_lines(c->opts, defaults, out);
	/* each group's own options under its name (an engine's: --engine NAME only) */
	for (unsigned i = 0; opt_groups_entry(c) && opt_group_at(c, i, &g); i++) {
		if (!g.opts)
			continue;
		fprintf(out, "\n%s %s options (--%s %s only):\n", g.name, c->groups->kind, c->groups->select,
			g.name);
		options_lines(g.opts, defaults ? opt_group_values(c, defaults, i, &g) : NULL, out);
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

		/* the groups' options are in their own section (engines: ENGINES) */
		if (o->type == OPT_GROUPS)
			continue;
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

static void list_lines(const struct opt *opts, FILE *out)
{
	for (const struct opt *o = opts; !opt_is_end(o); o++) {
		if (o->type == OPT_GROUPS)
			continue;
		if (o->sname)
			fprintf(out, "-%c", o->sname);
		if (o->sname && o->lname)
			fputc(' ', out);
		if (o->lname)
			fprintf(out, "--%s", o->lname);
		fputc('\n', out);
	}
}

void opt_text_list(const struct opt_cmd *c, FILE *out)
{
	struct opt_group g;

	list_lines(c->opts, out);
	for (unsigned i = 0; opt_groups_entry(c) && opt_group_at(c, i, &g); i++)
		if (g.opts)
			list_lines(g.opts, out);
}
