/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for report/plot_cairo: every plot type renders the corpus results to PNG and SVG
 * of the asked size, and the PNG is not blank (pixels read back with cairo).
 * With arguments, "test_plot_cairo FILE.png WIDTH HEIGHT MIN_PIXELS" checks one PNG (used by
 * tests/cli/t3030 on plots of real results, t8xxx on report plots and a browser's screenshot):
 * that size, at least MIN_PIXELS not white, and not every pixel (not one colour). */
#include <cairo.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report/plot_cairo.h"
#include "report/result_read.h"

/* pixels that are not the white background */
static long ink(const char *png, int *w, int *h)
{
	cairo_surface_t *s = cairo_image_surface_create_from_png(png);
	long n = 0;

	*w = *h = 0;
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		return -1;
	}
	cairo_surface_flush(s);
	*w = cairo_image_surface_get_width(s);
	*h = cairo_image_surface_get_height(s);
	for (int y = 0; y < *h; y++) {
		const uint32_t *row = (const uint32_t *)(cairo_image_surface_get_data(s) +
							 (size_t)y * (size_t)cairo_image_surface_get_stride(s));

		for (int x = 0; x < *w; x++)
			n += (row[x] & 0xffffff) != 0xffffff;
	}
	cairo_surface_destroy(s);
	return n;
}

int main(int argc, char **argv)
{
	char dir[4096], p1[8192], p2[8192], out[8192], err[1024];
	const char *slash = strrchr(__FILE__, '/');
	struct rr_result tio[2], fsm;
	char tmpdir[] = "/tmp/fsbench-plot.XXXXXX";
	int w, h;
	long n;

	if (argc == 5) {
		n = ink(argv[1], &w, &h);
		printf("%s: %dx%d, %ld non-background pixels\n", argv[1], w, h, n);
		/* not one colour: ink, and background left (a page all grey is no rendering either) */
		return n >= atol(argv[4]) && n < (long)w * h && w == atoi(argv[2]) && h == atoi(argv[3]) ? 0 : 1;
	}
	snprintf(dir, sizeof(dir), "%.*s/../fuzz/corpus", slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	snprintf(p1, sizeof(p1), "%s/valid_tiotest.json", dir);
	snprintf(p2, sizeof(p2), "%s/valid_runs.json", dir);
	if (rr_load_file(p1, &tio[0], err, sizeof(err)) || rr_load_file(p2, &tio[1], err, sizeof(err))) {
		fprintf(stderr, "cannot load the corpus results in %s: %s\n", dir, err);
		return 1;
	}
	snprintf(p1, sizeof(p1), "%s/valid_fs_mark.json", dir);
	CHECK(rr_load_file(p1, &fsm, err, sizeof(err)) == 0, "fs_mark: %s", err);
	CHECK(mkdtemp(tmpdir) != NULL, "mkdtemp");

	CHECK(plot_default_type(&fsm, 1) == PLOT_FILL, "fs_mark: fill");
	CHECK(plot_default_type(tio, 2) == PLOT_COMPARE, "two tiotest results: compare");
	CHECK(plot_default_type(tio, 1) == PLOT_TIMELINE, "one tiotest result with intervals: timeline");
	for (int t = PLOT_FILL; t <= PLOT_COMPARE; t++) {
		for (int fmt = 0; fmt < 2; fmt++) {
			struct plot_opts o = { .type = t, .format = fmt ? PLOT_SVG : PLOT_PNG, .width = 900, .height = 600 };
			const struct rr_result *res = t == PLOT_FILL ? &fsm : tio;
			unsigned nres = t == PLOT_FILL ? 1 : 2;

			FILE *fw;

			snprintf(out, sizeof(out), "%s/%s.%s", tmpdir, plot_type_name[t], fmt ? "svg" : "png");
			fw = fopen(out, "we");
			CHECK(fw && plot_render(res, nres, &o, fw, err, sizeof(err)) == 0, "%s: %s", out, err);
			CHECK(fw && fclose(fw) == 0, "%s: close", out);
			if (!fmt) {
				n = ink(out, &w, &h);
				CHECK(w == 900 && h == 600 && n > 20000, "%s: %dx%d, %ld pixels drawn", out, w, h, n);
			} else {
				FILE *f = fopen(out, "r");
				char head[512] = "";

				CHECK(f && fread(head, 1, sizeof(head) - 1, f) > 0, "%s readable", out);
				CHECK(strstr(head, "width=\"900pt\" height=\"600pt\""), "%s: size in the header", out);
				if (f)
					fclose(f);
			}
			unlink(out);
		}
	}
	/* the fill band: three runs whose iterations land on neighbouring FSUse% values, jumping up
	 * and down; their median and quartile band per bin ink more than the runs' lines alone */
	{
		static double x[3][20], x2[3][20], y[3][20];
		struct rr_series se[3];
		struct rr_result r;
		long ink0 = 0, ink1 = 0;

		memset(&r, 0, sizeof(r));
		for (unsigned s = 0; s < 3; s++) {
			for (unsigned k = 0; k < 20; k++) {
				x[s][k] = 5.0 * k + s;
				x2[s][k] = 1000.0 * (k + 1);
				y[s][k] = 2000 - 60.0 * k + ((k + s) % 2 ? 400 : -400);
			}
			se[s] = (struct rr_series){ .name = "fill", .run = s, .n = 20, .x = x[s], .x2 = x2[s], .y = y[s] };
		}
		r.fill = se;
		r.nfill = 3;
		r.name = r.path = (char *)"synthetic";
		for (int band = 0; band < 2; band++) {
			struct plot_opts o = { .type = PLOT_FILL, .format = PLOT_PNG, .width = 900, .height = 600,
					       .band = band };
			FILE *fw;

			snprintf(out, sizeof(out), "%s/band%d.png", tmpdir, band);
			fw = fopen(out, "we");
			CHECK(fw && plot_render(&r, 1, &o, fw, err, sizeof(err)) == 0, "band %d: %s", band, err);
			CHECK(fw && fclose(fw) == 0, "band %d: close", band);
			*(band ? &ink1 : &ink0) = ink(out, &w, &h);
			unlink(out);
		}
		printf("fill: %ld pixels with the band, %ld the runs alone\n", ink1, ink0);
		CHECK(ink1 > ink0 + 20000, "the band inks %ld pixels, the runs alone %ld", ink1, ink0);
	}
	/* a type the results have no data for names the file */
	{
		struct plot_opts o = { .type = PLOT_FILL, .format = PLOT_PNG, .width = 400, .height = 300 };

		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		CHECK(f && plot_render(tio, 1, &o, f, err, sizeof(err)) == -EINVAL && strstr(err, "valid_tiotest.json"),
		      "fill of tiotest is refused: %s", err);
		if (f)
			fclose(f);
		free(buf);
	}
	/* a failed write is -EIO (the stream knows the errno), not a silent success */
	{
		struct plot_opts o = { .type = PLOT_COMPARE, .format = PLOT_PNG, .width = 400, .height = 300 };
		FILE *f = fopen("/dev/full", "we");

		if (f) {
			setvbuf(f, NULL, _IONBF, 0);
			CHECK(plot_render(tio, 2, &o, f, err, sizeof(err)) == -EIO, "write to /dev/full: -EIO");
			fclose(f);
		}
	}
	rmdir(tmpdir);
	rr_free(&tio[0]);
	rr_free(&tio[1]);
	rr_free(&fsm);
	return check_done("test_plot_cairo");
}
