/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The numbers of a plot's axes (plot_cairo_int.h): round steps and ranges, tick positions on a
 * ratio axis, tick labels in one style per axis, absolute values as people read them. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/plot_cairo_int.h"

double nice_step(double range, int target)
{
	double raw = range / target, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Tick labels in one style per axis: plain numbers take the axis' largest magnitude's suffix
 * (k, M) and the step's decimals, so one axis never mixes "5000" with "10k" or "1e+06"; times
 * take a unit each (1 us, 10 us, 1 ms: log axes span decades); ratios read "0.5x". */
void fmt_tick(const struct axis *a, double v, double step, char *buf, size_t len)
{
	if (a->kind == 1) {
		static const char *const u[] = { "ns", "us", "ms", "s" };
		int k = 0;

		while (k < 3 && fabs(v) >= 1000) {
			v /= 1000;
			k++;
		}
		snprintf(buf, len, "%g %s", v, u[k]);
	} else if (a->kind == 2) {
		/* v nines: 2 is 99 %, 3 is 99.9 %; a tick between two (2.5 = 99.68 %) needs the
		 * decimals of the next one up, or it would round to its neighbour or to 100 % */
		int dec = (int)ceil(v - 1e-9) - 2;

		snprintf(buf, len, "%.*f%%", dec > 0 ? dec : 0, 100 * (1 - pow(10, -v)));
	} else if (a->kind == 3) {
		/* round ratios share the step's decimals (0.9x, 1.0x, 1.1x); powers of two are exact */
		int dec = step > 0 ? (int)ceil(-log10(step) - 1e-9) : 0;

		if (step > 0)
			snprintf(buf, len, "%.*f×", dec < 0 ? 0 : dec > 4 ? 4 : dec, v);
		else
			snprintf(buf, len, "%g×", v);
	} else {
		double m = fmax(fabs(a->lo), fabs(a->hi)), div = 1;
		const char *suf = "";
		int dec;

		if (m >= 1e6) {
			div = 1e6;
			suf = "M";
		} else if (m >= 1e4) {
			div = 1e3;
			suf = "k";
		}
		step = step > 0 ? step / div : 1;
		dec = (int)ceil(-log10(step) - 1e-9);
		dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
		v /= div;
		if (fabs(v) < 1e-12 * (m / div + 1))
			snprintf(buf, len, "0");
		else
			snprintf(buf, len, "%.*f%s", dec, v, suf);
	}
}

/* A ratio axis' ticks: powers of two over a wide range, else round ratios (0.9, 1, 1.1). */
unsigned ratio_ticks(const struct axis *a, double *t, unsigned max)
{
	unsigned n = 0;

	if (a->hi / a->lo >= 6) {
		int k0 = (int)ceil(log2(a->lo) - 1e-9), k1 = (int)floor(log2(a->hi) + 1e-9), by = 1;

		while ((k1 - k0) / by + 1 > 9)
			by *= 2;
		for (int k = k0 - (((k0 % by) + by) % by); k <= k1 && n < max; k += by)
			if (k >= k0)
				t[n++] = pow(2, k);
	} else {
		double step = nice_step(a->hi - a->lo, 6);

		for (double v = ceil(a->lo / step - 1e-9) * step; v <= a->hi * (1 + 1e-9) && n < max;
		     v += step)
			t[n++] = fabs(v - 1) < 1e-9 ? 1 : v;
	}
	return n;
}

/* extend [lo, hi] to round numbers, never empty */
void axis_fit(struct axis *a, double lo, double hi, bool from_zero)
{
	if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) {
		lo = 0;
		hi = 1;
	}
	if (a->log) {
		lo = lo > 0 ? pow(10, floor(log10(lo))) : 1;
		hi = hi > lo ? pow(10, ceil(log10(hi))) : lo * 10;
		if (hi <= lo)
			hi = lo * 10;
	} else {
		double step;

		if (from_zero && lo > 0)
			lo = 0;
		if (hi - lo < 1e-12 * (fabs(hi) + 1)) {
			hi += hi ? fabs(hi) * 0.1 : 1;
			lo -= lo && !from_zero ? fabs(lo) * 0.1 : 0;
		}
		step = nice_step(hi - lo, 6);
		lo = floor(lo / step) * step;
		hi = ceil(hi / step) * step;
	}
	a->lo = lo;
	a->hi = hi;
}

/* an absolute value as people read it: ns as us or ms, 3 significant digits, k/M */
void fmt_abs(double v, const char *unit, char *buf, size_t len)
{
	const char *u = unit;

	if (!strcmp(unit, "ns")) {
		static const char *const tu[] = { "ns", "us", "ms", "s" };
		int k = 0;

		while (k < 3 && fabs(v) >= 1000) {
			v /= 1000;
			k++;
		}
		u = tu[k];
	}
	{
		const char *suf = fabs(v) >= 1e6 ? "M" : fabs(v) >= 1e4 ? "k" : "";
		double x = fabs(v) >= 1e6 ? v / 1e6 : fabs(v) >= 1e4 ? v / 1e3 : v;
		int dec = fabs(x) >= 100 ? 0 : fabs(x) >= 10 ? 1 : fabs(x) >= 1 ? 2 : 3;

		snprintf(buf, len, "%.*f%s %s", dec, x, suf, u);
	}
}
