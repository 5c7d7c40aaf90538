/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Two kernel profiles of the same work compared by what each symbol costs per operation, not by
 * its share: a filesystem that burns 5x the CPU per op shows its symbols' shares unchanged.
 *
 * A symbol's cost per op is its samples over the profile's frequency (CPU seconds, cpu-clock
 * samples every 1/hz s of each CPU's time) over the ops the profiled windows did, in us. With
 * call chains the cost is inclusive (the samples whose chain holds the symbol, each sample once),
 * else self (the samples in the symbol itself). Without a frequency or ops the cost is NaN and
 * the rows are ranked by the change of share.
 *
 * Sampling artefacts. cpu-clock fires from a timer interrupt, so a CPU with interrupts off is
 * sampled where they come back on: on a virtual machine (no NMI-driven PMU) most of a spinlock's
 * or a syscall's time lands on pvm_irq_enable, native_irq_enable, _raw_spin_unlock_irqrestore
 * or the idle halt. profdiff_artefacts lists them (the man page's table). With call chains their
 * samples are folded into the caller (the frame dropped from the chain); without, they stay as
 * they are and are marked (artefact). */
#ifndef FSB_CORE_PROFDIFF_H
#define FSB_CORE_PROFDIFF_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/perf_profile.h"

struct profdiff_artefact {
	const char *pattern;     /* fnmatch(3) */
	const char *why;
};
extern const struct profdiff_artefact profdiff_artefacts[];   /* {NULL, NULL}-terminated */
bool profdiff_is_artefact(const char *symbol);

struct profdiff_row {
	char image[64];          /* "" when only call chains named it */
	char symbol[128];
	double a_us, b_us;       /* cost per op (inclusive or self), NaN when unknown */
	double a_pct, b_pct;     /* share of each profile's samples, % (inclusive or self) */
	double a_self_pct, b_self_pct;   /* self share; with chains the folded leaf's */
	bool artefact;           /* an artefact left in place (no call chains) */
};

struct profdiff {
	bool inclusive;          /* both had call chains: inclusive, artefacts folded */
	bool per_op;             /* costs known (frequency and ops on both sides) */
	size_t n;
	struct profdiff_row *v;  /* the largest change of cost per op first (else of share) */
};

/* 0 or -ENOMEM (d safe to free). */
int profdiff_compute(const struct perf_profile *a, uint64_t ops_a, const struct perf_profile *b,
		     uint64_t ops_b, struct profdiff *d);
void profdiff_free(struct profdiff *d);
/* One profile's cost per op of each of its samples, us; NaN without frequency or ops. */
double profdiff_us_per_sample(const struct perf_profile *p, uint64_t ops);
#endif
