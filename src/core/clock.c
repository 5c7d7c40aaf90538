/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Latency clock selection and TSC calibration against CLOCK_MONOTONIC (see clock.h). */
#include "core/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool clock_use_tsc;
uint64_t clock_tsc_mult;
static bool initialised;

static bool file_has_word(const char *path, const char *prefix, const char *const *words)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		bool all = true;

		if (strncmp(line, prefix, strlen(prefix)))
			continue;
		for (const char *const *w = words; *w; w++) {
			char pat[64];

			snprintf(pat, sizeof(pat), " %s", *w);
			/* whole word: followed by a space or the end of the line */
			char *at = strstr(line, pat);

			while (at && at[strlen(pat)] != ' ' && at[strlen(pat)] != '\n' && at[strlen(pat)])
				at = strstr(at + 1, pat);
			if (!at)
				all = false;
		}
		found = all;
		break;                   /* the first CPU's flags speak for all */
	}
	free(line);
	fclose(f);
	return found;
}

static bool tsc_is_clocksource(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return !strcmp(buf, "tsc\n");
}

void clock_init(void)
{
#if defined(__x86_64__)
	static const char *const flags[] = { "constant_tsc", "nonstop_tsc", NULL };
	struct timespec pause = { 0, 2000000 };
	uint64_t t0, n0, t1, n1;

	if (initialised)
		return;
	initialised = true;
	if (getenv("FSBENCH_CLOCK_MONOTONIC") || !tsc_is_clocksource() ||
	    !file_has_word("/proc/cpuinfo", "flags", flags))
		return;
	/* each TSC read sits between two clock reads; their midpoint is its time */
	n0 = clock_ns();
	t0 = __rdtsc();
	n0 = (n0 + clock_ns()) / 2;
	nanosleep(&pause, NULL);
	n1 = clock_ns();
	t1 = __rdtsc();
	n1 = (n1 + clock_ns()) / 2;
	if (t1 <= t0 || n1 <= n0)
		return;
	clock_tsc_mult = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / (t1 - t0));
	clock_use_tsc = clock_tsc_mult > 0;
#else
	initialised = true;
#endif
}

const char *clock_latency_source(void)
{
	return clock_use_tsc ? "tsc" : "clock_monotonic";
}

double clock_tsc_ghz(void)
{
	return clock_use_tsc ? 4294967296.0 / (double)clock_tsc_mult : 0;
}
