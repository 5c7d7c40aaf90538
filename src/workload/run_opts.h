/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The long options every workload shares (JSON result, repeats, time series, progress, kernel
 * view), declared once and expanded into each workload's options table. F is the workload's
 * offsetof macro; its config embeds struct run_opts (core/driver.h) as the member `run`. UNIT names one
 * measured window in help text: "phase" (tiotest), "create loop" (fs_mark). */
#ifndef FSB_WORKLOAD_RUN_OPTS_H
#define FSB_WORKLOAD_RUN_OPTS_H
#include "core/opt.h"
#include "engine/engine.h"
#include "sys/perf.h"

/* The two tables are aligned by hand: clang-format would put every field on a line. */
/* clang-format off */
#define RUN_OPTS(F, UNIT)                                                                          \
	{ 0, "json", OPT_STR, F(run.json), "FILE", 0, 0, 0, 0,                                          \
	  "write the full result as JSON to FILE ('-' or /dev/stdout: stdout, then nothing else "   \
	  "goes to stdout); never through a symbolic link (OUTPUT FILES in fsbench(1))" },         \
	{ 0, "csv", OPT_STR, F(run.csv), "FILE", 0, 0, 0, 0,                                            \
	  "write the figures as CSV to FILE: one row per " UNIT " or iteration and run, one column " \
	  "per figure with its unit in the header (same destinations as --json)" },               \
	{ 0, "stream", OPT_STR, F(run.stream), "FILE", 0, 0, 0, 0,                                      \
	  "write each --interval sample to FILE as one JSON line while the run goes (flushed "      \
	  "each interval, so an interrupted or killed run keeps what completed)" },                \
	{ 0, "repeat", OPT_UINT, F(run.repeat), "N", 1, 10000, 0, 0,                                   \
	  "run the whole benchmark N times (fresh files each time) and summarise: mean, 95% "     \
	  "confidence interval, CV" },                                                             \
	{ 0, "label", OPT_STR, F(run.label), "NAME", 0, 0, 0, 0,                                        \
	  "a name for this result (e.g. kmemleak=on), stored in the JSON" },                       \
	{ 0, "interval", OPT_TIME, F(run.interval_ns), "TIME", 1000000, UINT64_C(3600000000000), 0, 0, \
	  "time series resolution of each " UNIT " in the JSON (ns/us/ms/s/m/h; bare: seconds); "  \
	  "a short " UNIT " gets finer points (down to 5 ms), at least ~20" },                     \
	{ 0, "time-limit", OPT_TIME, F(run.time_limit_ns), "TIME", 1000000, UINT64_C(31536000000000000), \
	  0, 0, "end each " UNIT " TIME after its start: the work done so far is counted and the "   \
	  "result marked 'stopped by time limit' (a phase that ends sooner is not)" },             \
	{ 0, "ramp", OPT_TIME, F(run.ramp_ns), "TIME", 1000000, UINT64_C(31536000000000000), 0, 0, \
	  "leave each " UNIT "'s first TIME out of its figures (rates, latencies); its interval "  \
	  "samples stay in the time series, marked \"ramp\"" },                                   \
	{ 0, "quiet", OPT_FLAG, F(run.quiet), NULL, 0, 0, 0, 0,                                        \
	  "no live progress line and no warnings (figures that describe the page cache or the "   \
	  "CPU, not the storage) on stderr; the JSON keeps the warnings" },                        \
	{ 0, "sysstats", OPT_FLAG, F(run.sysstats), NULL, 0, 0, 0, 0,                                  \
	  "after the classic output, the kernel's view of each " UNIT " (device I/O, utilisation, " \
	  "CPU split, dirty memory)" },                                                            \
	{ 0, "profile", OPT_FLAG, F(run.profile), NULL, 0, 0, 0, 0,                                    \
	  "sample on-CPU activity during each " UNIT " (perf cpu-clock) and print a per-symbol "   \
	  "profile of this run (its threads and the kernel threads working for it, kernel "       \
	  "included) and one line per other process" },                                           \
	{ 0, "profile-hz", OPT_UINT, F(run.profile_hz), "HZ", 1, 100000, 0, 0,                         \
	  "--profile sampling frequency" },                                                        \
	{ 0, "profile-top", OPT_UINT, F(run.profile_top), "N", 0, 1000000, 0, 0,                       \
	  "rows of each profile table (0: all; the JSON has all)" },                               \
	{ 0, "profile-callgraph", OPT_FLAG, F(run.profile_callgraph), NULL, 0, 0, 0, 0,                \
	  "with --profile: record kernel call chains, print the inclusive table and write folded " \
	  "stacks (flame graph input)" },                                                          \
	{ 0, "profile-inclusive", OPT_FLAG, F(run.profile_inclusive), NULL, 0, 0, 0, 0,             \
	  "--profile with kernel call chains and a second table of children-included samples per " \
	  "symbol (no folded stacks file)" },                                                      \
	{ 0, "profile-folded", OPT_STR, F(run.profile_folded), "FILE", 0, 0, 0, 0,                      \
	  "where --profile-callgraph writes folded stacks (default: the --json file with .folded "  \
	  "for .json)" }
/* The I/O engine options of every workload that does I/O through an engine (tiotest, fs_mark,
 * mdtest), declared once; the config embeds struct engine_opts (engine/engine.h) as the member
 * `eng`, the workload's opt_cmd sets ENGINE_OPT_GROUPS, and its check calls engine_select().
 * The last entry stands for every engine's own options (engine_ops.options: --io_uring-sqpoll
 * is io_uring's), which --help lists under each engine's name. Not part of RUN_OPTS: a
 * workload that does no I/O must not accept an engine it would ignore. */
#define ENGINE_OPTS(F)                                                                             \
	{ 0, "engine", OPT_STR, F(eng.name), "NAME", 0, 0, 0, 0,                                    \
	  "I/O engine: psync (default: one system call per operation), mmap (tiotest only, as -M), " \
	  "io_uring (requests through a ring, --iodepth in flight); " \
	  "'fsbench list engines' lists them" },                                                   \
	{ 0, "iodepth", OPT_UINT, F(eng.iodepth), "N", 1, 4096, 0, 0,                               \
	  "requests each thread keeps in flight, for engines that queue them (psync and mmap: 1)" }, \
	{ 0, NULL, OPT_GROUPS, F(eng), NULL, 0, 0, 0, 0, NULL }
/* clang-format on */
/* The opt_cmd member that goes with them. */
#define ENGINE_OPT_GROUPS .groups = &engine_opt_groups
#define ENGINE_OPTS_DEFAULTS(c)                                                                    \
	do {                                                                                       \
		(c)->eng.iodepth = 1;                                                              \
	} while (0)
/* Their defaults, for the command's defaults function (c: its config struct). */
#define RUN_OPTS_DEFAULTS(c)                                                                       \
	do {                                                                                       \
		(c)->run.interval_ns = UINT64_C(1000000000);                                           \
		(c)->run.repeat = 1;                                                                   \
		(c)->run.profile_hz = PERF_DEFAULT_HZ;                                                 \
		(c)->run.profile_top = 15;                                                             \
		(c)->run.nprocs = 1;                                                                   \
	} while (0)
#endif
