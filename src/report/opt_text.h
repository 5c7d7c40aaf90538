/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The options table (core/opt.h) as text: --help, man page lists, the plain list. */
#ifndef FSB_REPORT_OPT_TEXT_H
#define FSB_REPORT_OPT_TEXT_H
#include <stdio.h>

#include "core/opt.h"

void opt_text_help(const struct opt_cmd *c, const void *defaults, const char *prog, FILE *out);
/* The option lines of --help alone, under a heading line (NULL: none); defaults may be NULL.
 * The command's option groups (an engine's options) follow, each under its name. */
void opt_text_options(const struct opt_cmd *c, const void *defaults, const char *heading, FILE *out);
/* The man page's list (.TP entries); the option groups are not in it (engines: ENGINES). */
void opt_text_man(const struct opt_cmd *c, const void *defaults, FILE *out);
/* One line per option: "-f --size" (for tests that check help and man page cover the table,
 * and the completion), the groups' options included. */
void opt_text_list(const struct opt_cmd *c, FILE *out);
#endif
