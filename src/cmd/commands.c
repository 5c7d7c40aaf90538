/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The commands besides the workloads (those come from workload/registry.c), in one table: each
 * entry names its function, its one-line summary and its options (table, config, defaults).
 * main.c dispatches on it; `fsbench list`, `fsbench --help` and `__man-options` walk it, and
 * through them the man page and the shell completion (scripts/mkman.sh, mkcompletion.sh). A new
 * command is one entry here and its file in cmd/. */
#include <string.h>

#include "cmd/cmd.h"

static const struct subcmd subcmds[] = {
	{ "compare", cmd_compare, "results side by side: deltas, 95% intervals, significance, what differs",
	  &compare_options, false },
	{ "matrix", cmd_matrix, "an experiment: a workload over filesystems, options and knobs on fresh images, interleaved",
	  &matrix_options, false },
	{ "plot", cmd_plot, "draw results to PNG or SVG: fill curves, timelines, latency CDFs, bars",
	  &plot_options, false },
	{ "report", cmd_report, "analyse a matrix result directory: effects, interactions, plots, report.html",
	  &report_options, false },
	{ "explain", cmd_explain,
	  "why a matrix's cells differ: cost per op and profile symbols of each primary effect",
	  &explain_options, false },
	{ "export", cmd_export, "results as OpenMetrics text for a monitoring stack (node_exporter's textfile collector)",
	  &export_options, false },
	{ "history", cmd_history, "matrix runs over time: list, show, trend, check for regressions, changes, report",
	  &history_options, false },
	{ "__man-options", cmd_man_options, "print a subcommand's options as man page text (build use)",
	  NULL, true },
	{ "__after", cmd_after, "the after-run tools on a device: fsck (read-only checker), freespace (free extent histogram)",
	  NULL, true },
};

const struct subcmd *subcmd_at(unsigned i)
{
	return i < sizeof(subcmds) / sizeof(subcmds[0]) ? &subcmds[i] : NULL;
}

const struct subcmd *subcmd_find(const char *name)
{
	const struct subcmd *s;

	for (unsigned i = 0; (s = subcmd_at(i)); i++)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}
