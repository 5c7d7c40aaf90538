/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The --sysstats table: one row per phase and device. */
#include "report/kstat_text.h"

#define MIB 1048576.0

void kstat_text_header(FILE *out)
{
	fprintf(out, "\nKernel view per phase (devices of the targets; CPU and memory system-wide)\n");
	fprintf(out, "%-14s %-8s %9s %9s %8s %8s %8s %6s %6s %5s %5s %5s %5s %9s\n", "Phase", "Device",
		"Rd MiB", "Wr MiB", "Rd IOs", "Wr IOs", "Req KiB", "Queue", "Util%", "usr%", "sys%",
		"iowt%", "idle%", "Dirty MiB");
}

static void cpu_mem(FILE *out, const struct kstat_delta *d)
{
	if (d->have_cpu)
		fprintf(out, " %5.1f %5.1f %5.1f %5.1f", d->cpu_pct[KSTAT_USER] + d->cpu_pct[KSTAT_NICE],
			d->cpu_pct[KSTAT_SYSTEM] + d->cpu_pct[KSTAT_IRQ] + d->cpu_pct[KSTAT_SOFTIRQ],
			d->cpu_pct[KSTAT_IOWAIT], d->cpu_pct[KSTAT_IDLE]);
	else
		fprintf(out, " %5s %5s %5s %5s", "-", "-", "-", "-");
	if (d->have_mem)
		fprintf(out, " %9.1f", (double)d->mem_end[KSTAT_DIRTY] / MIB);
	else
		fprintf(out, " %9s", "-");
	fputc('\n', out);
}

void kstat_text_row(FILE *out, const char *label, const struct kstat_delta *d)
{
	unsigned rows = 0;

	for (unsigned i = 0; i < d->ndisks; i++) {
		const struct kstat_disk_delta *k = &d->disk[i];
		uint64_t ios = k->rd_ios + k->wr_ios;

		if (!k->found)
			continue;
		fprintf(out, "%-14s %-8s %9.2f %9.2f %8llu %8llu %8.1f %6.2f %6.1f", rows ? "" : label, k->name,
			(double)k->rd_bytes / MIB, (double)k->wr_bytes / MIB, (unsigned long long)k->rd_ios,
			(unsigned long long)k->wr_ios,
			ios ? (double)(k->rd_bytes + k->wr_bytes) / (double)ios / 1024.0 : 0.0, k->avg_queue,
			k->util_pct);
		if (rows++)
			fputc('\n', out);
		else
			cpu_mem(out, d);
	}
	if (!rows) {
		fprintf(out, "%-14s %-8s %9s %9s %8s %8s %8s %6s %6s", label, "(none)", "-", "-", "-", "-", "-",
			"-", "-");
		cpu_mem(out, d);
	}
}
