/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for core/why (which primary effects the Why section explains, and how: decided,
 * undecided, not at all; the ranking of the explanatory effects) and report/matrix_why (an
 * undecided effect is headed as undecided with the same rows, after the decided ones, and never
 * as "no difference"), on synthetic effects. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/why.h"
#include "report/matrix_why.h"

/* a primary or exploratory effect between cells 0 and 1 of figure fig */
static struct eff_test eff(unsigned fig, enum vd_family fam, enum vd_kind kind, double ratio)
{
	struct eff_test t = { .kind = EFF_EFFECT, .fig = fig, .cell = { 0, 1 } };

	t.v.family = fam;
	t.v.kind = kind;
	t.v.tested = kind != VD_NA && kind != VD_NOT_TESTED;
	t.v.e.log = true;
	t.v.e.paired = true;
	t.v.e.n = 3;
	t.v.ratio = ratio;
	t.v.lo = isfinite(ratio) ? ratio * 0.8 : NAN;
	t.v.hi = isfinite(ratio) ? ratio * 1.25 : NAN;
	t.v.sign = ratio > 1 ? 1 : ratio < 1 ? -1 : 0;
	t.v.p_adj = kind == VD_DIFFERENT ? 0.0005 : 0.4;
	t.v.more_rounds = kind == VD_UNDECIDED ? 4 : NAN;
	return t;
}

static void test_status(void)
{
	static const struct {
		enum eff_kind kind;
		enum vd_family fam;
		enum vd_kind vk;
		double ratio;
		enum why_kind want;
	} c[] = {
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_DIFFERENT, 0.5, WHY_DECIDED },
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_DETERMINISTIC, 0.5, WHY_DECIDED },
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_UNDECIDED, 0.93, WHY_UNDECIDED },
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_UNDECIDED, NAN, WHY_NONE }, /* nothing estimated */
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_EQUIVALENT, 1.01, WHY_NONE },
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_SAME_CONST, 1, WHY_NONE },
		{ EFF_EFFECT, VD_CONFIRMATORY, VD_NA, NAN, WHY_NONE },
		{ EFF_EFFECT, VD_EXPLORATORY, VD_DIFFERENT, 0.5, WHY_NONE },
		{ EFF_EFFECT, VD_EXPLORATORY, VD_UNDECIDED, 0.9, WHY_NONE },
		{ EFF_INTERACTION, VD_CONFIRMATORY, VD_DIFFERENT, 0.5, WHY_NONE },
		{ EFF_INTERACTION, VD_CONFIRMATORY, VD_UNDECIDED, 0.9, WHY_NONE },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct eff_test t = eff(0, c[i].fam, c[i].vk, c[i].ratio);

		t.kind = c[i].kind;
		CHECK(why_status(&t) == c[i].want, "case %zu: %d, want %d", i, why_status(&t), c[i].want);
	}
}

/* figures: 0 the primary rate, 1 system CPU per op, 2 wait per op (both explanatory), 3 a
 * figure of another group, 4 an explanatory figure that was not estimated */
static void test_rank(void)
{
	struct eff_test t[6];
	struct eff_result r = { .t = t, .nt = 6 };
	static const unsigned group[5] = { 0, 0, 0, 3, 0 };
	static const bool explains[5] = { false, true, true, true, true };
	unsigned out[4], n;

	t[0] = eff(0, VD_CONFIRMATORY, VD_UNDECIDED, 0.93);
	/* the larger point estimate (|ln| 1.10) but undecided: after the decided one */
	t[1] = eff(1, VD_EXPLORATORY, VD_UNDECIDED, 3);
	t[2] = eff(2, VD_EXPLORATORY, VD_DIFFERENT, 0.4); /* |ln| 0.92, interval [0.32, 0.5] */
	t[3] = eff(3, VD_EXPLORATORY, VD_DIFFERENT, 5);	  /* another group: left out */
	t[4] = eff(4, VD_EXPLORATORY, VD_NA, NAN);	  /* not estimated: last */
	t[5] = eff(1, VD_EXPLORATORY, VD_DIFFERENT, 3);	  /* other cells: left out */
	t[5].cell[1] = 2;
	n = why_rank(&r, 0, group, explains, out, 4);
	CHECK(n == 3, "ranked %u", n);
	CHECK(n == 3 && out[0] == 2 && out[1] == 1 && out[2] == 4, "order %u %u %u", out[0], out[1], out[2]);
	n = why_rank(&r, 0, group, explains, out, 1);
	CHECK(n == 1 && out[0] == 2, "top 1: %u (%u)", n, out[0]);
	CHECK(fabs(why_size(&t[2]) - fabs(log(0.4))) < 1e-12, "size %g", why_size(&t[2]));
	CHECK(why_size(&t[4]) == -1, "unestimated size %g", why_size(&t[4]));
	CHECK(fabs(why_floor(&t[2]) - fabs(log(0.5))) < 1e-12, "floor %g", why_floor(&t[2]));
	CHECK(why_floor(&t[1]) == 0 && why_floor(&t[4]) == 0, "undecided floors %g %g", why_floor(&t[1]),
	      why_floor(&t[4]));
	t[1].v.kind = VD_DETERMINISTIC;
	CHECK(fabs(why_floor(&t[1]) - log(3)) < 1e-12, "deterministic floor %g", why_floor(&t[1]));
	n = why_rank(&r, 0, group, explains, out, 4);
	CHECK(n == 3 && out[0] == 1 && out[1] == 2, "deterministic first: %u %u", out[0], out[1]);
	/* a difference (not a ratio): relative to the baseline's mean */
	t[1].v = (struct vd_test){
		.kind = VD_DIFFERENT, .family = VD_EXPLORATORY, .ratio = -3, .lo = -4, .hi = -2, .base = 10
	};
	CHECK(fabs(why_floor(&t[1]) - 0.2) < 1e-12 && fabs(why_size(&t[1]) - 0.3) < 1e-12, "difference %g %g",
	      why_floor(&t[1]), why_size(&t[1]));
}

/* A matrix of three cells on one axis (ext4, btrfs, xfs) and the figures above: ext4 -> btrfs
 * decided worse, ext4 -> xfs undecided; the Why text of both, as explain prints it. */
static struct rr_figure fig[3] = {
	{ .key = "write.rate_mib_per_s", .name = "write rate", .unit = "MiB/s", .dir = RR_HIGHER_BETTER },
	{ .key = "write.cpu_sys_us_per_op",
	  .name = "write system CPU per op",
	  .unit = "us",
	  .dir = RR_LOWER_BETTER },
	{ .key = "write.wait_us_per_op", .name = "write wait per op", .unit = "us", .dir = RR_LOWER_BETTER },
};

/* the write phase's profile of each cell: A (ext4) and B (xfs) without call chains; x and y
 * with the same self samples on both sides (different functions: two rows) */
static struct perf_entry pe[2][3];
static struct perf_profile pp[2] = { { .hz = 1000, .samples = 100, .n = 3, .nself = 3, .v = pe[0] },
				     { .hz = 1000, .samples = 100, .n = 3, .nself = 3, .v = pe[1] } };
static struct mread_profile mp[2] = {
	{ .name = "write", .p = &pp[0], .ops = 1000, .window = "the phase's timed window" },
	{ .name = "write", .p = &pp[1], .ops = 1000, .window = "the phase's timed window" }
};

static void profile_init(void)
{
	static const char *const sym[3] = { "x", "y", "z" };
	static const uint64_t n[2][3] = { { 10, 10, 80 }, { 40, 40, 20 } };

	for (unsigned c = 0; c < 2; c++)
		for (unsigned i = 0; i < 3; i++) {
			pe[c][i] = (struct perf_entry){ .samples = n[c][i] };
			snprintf(pe[c][i].image, sizeof(pe[c][i].image), "vmlinux");
			snprintf(pe[c][i].symbol, sizeof(pe[c][i].symbol), "%s", sym[i]);
		}
}

static char *explain_text(const struct eff_result *r, int a, int b, unsigned *n)
{
	/* struct mx holds writable strings (mread_load's copies) */
	static char ext4[] = "ext4", btrfs[] = "btrfs", xfs[] = "xfs", fs[] = "fs", name[] = "t",
		    wl[] = "tiotest";
	static char *vals[] = { ext4, btrfs, xfs };
	struct mread_axis ax = { .name = fs, .nvalues = 3, .values = vals };
	struct mread_cell cells[3] = { { .name = ext4, .value = { 0 }, .prof = &mp[0], .nprof = 1 },
				       { .name = btrfs, .value = { 1 } },
				       { .name = xfs, .value = { 2 }, .prof = &mp[1], .nprof = 1 } };
	struct mx m = { .name = name, .workload = wl, .axis = &ax, .naxes = 1, .cell = cells, .ncells = 3 };
	const struct rr_figure *fp[3] = { &fig[0], &fig[1], &fig[2] };
	struct mwhy_in in = { .m = &m, .fig = fp, .nfig = 3, .r = r, .cell_a = a, .cell_b = b };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	*n = mwhy_term(f, &in);
	fclose(f);
	return buf;
}

static void test_text(void)
{
	struct eff_cell cell[9];
	struct eff_test t[6];
	struct eff_result r = { .cell = cell, .t = t, .nt = 6 };
	static const double mean[3][3] = { { 100, 10, 20 }, { 50, 56, 21 }, { 93, 20, 30 } };
	char *s, *dec, *und;
	unsigned n;

	memset(cell, 0, sizeof(cell));
	profile_init();
	for (unsigned c = 0; c < 3; c++)
		for (unsigned f = 0; f < 3; f++)
			cell[c * 3 + f] =
				(struct eff_cell){ .present = true, .s = { .n = 3, .mean = mean[c][f] } };
	/* the undecided effect first in the tests: the text puts the decided one first anyway */
	t[0] = eff(0, VD_CONFIRMATORY, VD_UNDECIDED, 0.93);
	t[0].cell[1] = 2;
	t[1] = eff(1, VD_EXPLORATORY, VD_UNDECIDED, 2); /* larger, but undecided: after wait per op */
	t[1].cell[1] = 2;
	t[2] = eff(2, VD_EXPLORATORY, VD_DIFFERENT, 1.5);
	t[2].cell[1] = 2;
	t[3] = eff(0, VD_CONFIRMATORY, VD_DIFFERENT, 0.5);
	t[4] = eff(1, VD_EXPLORATORY, VD_DIFFERENT, 5.6);
	t[5] = eff(2, VD_EXPLORATORY, VD_UNDECIDED, 1.05);
	s = explain_text(&r, -1, -1, &n);
	CHECK(s != NULL, "memstream");
	if (!s)
		return;
	CHECK(n == 2, "explained %u", n);
	dec = strstr(s, "write rate, fs: ext4 -> btrfs: worse x0.5 [0.4, 0.625]\n");
	und = strstr(s, "write rate, fs: ext4 -> xfs: undecided (x0.93 [0.744, 1.16]); the largest measured "
			"changes, none of which decides it\n");
	CHECK(dec != NULL, "the decided title:\n%s", s);
	CHECK(und != NULL, "the undecided title:\n%s", s);
	CHECK(dec && und && dec < und, "decided first:\n%s", s);
	CHECK(strstr(s,
		     "write rate is undecided (paired by round, n 3, confirmatory; ~4 more rounds would decide it)"),
	      "what would decide it:\n%s", s);
	CHECK(!strstr(s, "no difference"), "\"no difference\":\n%s", s);
	/* the undecided effect's rows: wait per op (x1.5, decided, with its stars) before system CPU
	 * (x2, undecided) */
	if (und) {
		const char *w = strstr(und, "  write wait per op"),
			   *c = strstr(und, "  write system CPU per op");

		CHECK(w && c && w < c, "undecided rows in order:\n%s", und);
		CHECK(w && strstr(w, "x1.5 [1.2, 1.88]") && strstr(w, "worse (***)"), "wait row:\n%s", und);
		CHECK(c && strstr(c, "x2 [1.6, 2.5]") && strstr(c, "undecided\n"), "CPU row:\n%s", und);
	}
	if (dec)
		CHECK(strstr(dec, "  write system CPU per op") < strstr(dec, "  write wait per op"),
		      "decided rows:\n%s", dec);
	/* btrfs has no profile; xfs's against ext4's under its window, self costs, x and y apart */
	CHECK(dec && strstr(dec, "No profile of this group") < und, "no profile for btrfs:\n%s", s);
	if (und) {
		CHECK(strstr(und, "Profile window: the phase's timed window."), "window:\n%s", und);
		CHECK(strstr(und, "  profile: z (self) ") && strstr(und, "  profile: x (self) ") &&
			      strstr(und, "  profile: y (self) ") && !strstr(und, "the same samples"),
		      "self rows:\n%s", und);
		CHECK(strstr(und, "  profile: z (self) ") < strstr(und, "  profile: x (self) "),
		      "z first:\n%s", und);
	}
	free(s);

	/* one pair: only its effect, undecided or not */
	s = explain_text(&r, 2, 0, &n);
	CHECK(s && n == 1 && strstr(s, "ext4 -> xfs: undecided") && !strstr(s, "btrfs"),
	      "the pair ext4 xfs:\n%s", s ? s : "");
	free(s);

	/* every primary effect equivalent: nothing explained */
	t[0].v.kind = VD_EQUIVALENT;
	t[3].v.kind = VD_EQUIVALENT;
	s = explain_text(&r, -1, -1, &n);
	CHECK(s && n == 0 && !s[0], "equivalent effects explained (%u):\n%s", n, s ? s : "");
	free(s);
}

int main(void)
{
	test_status();
	test_rank();
	test_text();
	return check_done("test_why");
}
