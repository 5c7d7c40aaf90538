/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report/json_spool: a document with spooled arrays is written byte for byte as the same
 * document with the arrays in memory, at any depth; --csv reads them back the same; the
 * markers are only the spool's own. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/csv.h"
#include "report/json_spool.h"

/* an iteration-like element: nested objects and arrays, reals, escapes, a line break in a
 * string, an empty object and array */
static json_t *element(unsigned i)
{
	return json_pack("{s:I, s:f, s:f, s:s, s:{s:{s:I, s:[I, I]}, s:{}}, s:[], s:[{s:n}], s:b}",
			 "iteration", (json_int_t)i + 1, "files_per_sec", 1234.5678901234 * (i + 1),
			 "wall_s", 1e-7 / (i + 1), "note", i % 2 ? "tab\there \"q\"\nnext" : "plain",
			 "latency", "create", "count", (json_int_t)i * 1000, "p", (json_int_t)i, (json_int_t)-7,
			 "empty", "nothing", "list", "x", "partial", i == 2);
}

/* text of doc with its markers' arrays in place (the spool) and of mem (arrays in memory) */
static void compare(const char *what, const json_t *doc, const json_t *mem, const struct json_spool *s)
{
	char *a = NULL, *b = json_dumps(mem, JSON_DOC_FLAGS);
	size_t alen = 0;
	FILE *f = open_memstream(&a, &alen);
	int rc = json_spool_dumpf(doc, f, s);

	fclose(f);
	CHECK(rc == 0, "%s: dumpf %d", what, rc);
	CHECK(a && b && !strcmp(a, b), "%s: the same bytes\n--- spooled:\n%s\n--- in memory:\n%s", what, a, b);
	free(a);
	free(b);
}

/* shapes: the array at the top level (one run), inside "runs" (--repeat), empty, alone */
static void test_shapes(void)
{
	static const unsigned counts[][3] = { { 1, 0, 0 }, { 3, 0, 0 }, { 0, 0, 0 }, { 4, 0, 2 }, { 2, 5, 1 } };

	for (unsigned t = 0; t < sizeof(counts) / sizeof(counts[0]); t++) {
		unsigned nseg = counts[t][1] || counts[t][2] ? 3 : 1;
		struct json_spool *s = json_spool_open(NULL, nseg);
		json_t *doc = json_pack("{s:s, s:{s:I}}", "schema", "x", "config", "threads", (json_int_t)2);
		json_t *mem = json_deep_copy(doc), *runs = json_array(), *mruns = json_array();
		char what[64];

		CHECK(s != NULL, "open");
		if (!s)
			return;
		for (unsigned g = 0; g < nseg; g++) {
			json_t *arr = json_array(), *r, *mr;

			for (unsigned i = 0; i < counts[t][g]; i++) {
				json_t *e = element(i);

				CHECK(json_spool_add(s, g, e) == 0, "add");
				json_array_append_new(arr, e);
			}
			CHECK(json_spool_count(s, g) == counts[t][g], "count");
			if (nseg == 1) {
				json_object_set_new(doc, "iterations", json_spool_marker(s, g));
				json_object_set_new(mem, "iterations", arr);
				json_object_set_new(doc, "end", json_pack("{s:s}", "reason", "done"));
				json_object_set_new(mem, "end", json_pack("{s:s}", "reason", "done"));
				continue;
			}
			r = json_pack("{s:I, s:o}", "run", (json_int_t)g, "iterations", json_spool_marker(s, g));
			mr = json_pack("{s:I, s:o}", "run", (json_int_t)g, "iterations", arr);
			json_array_append_new(runs, r);
			json_array_append_new(mruns, mr);
		}
		json_object_set_new(doc, "runs", runs);
		json_object_set_new(mem, "runs", mruns);
		snprintf(what, sizeof(what), "shape %u", t);
		compare(what, doc, mem, s);
		/* a marker alone, as an array element */
		{
			json_t *d2 = json_pack("[o, i]", json_spool_marker(s, 0), 5);
			json_t *m2 = json_pack("[o, i]", json_deep_copy(nseg == 1 ? json_object_get(mem, "iterations") :
				json_object_get(json_array_get(mruns, 0), "iterations")), 5);

			snprintf(what, sizeof(what), "shape %u, as an element", t);
			compare(what, d2, m2, s);
			json_decref(d2);
			json_decref(m2);
		}
		json_decref(doc);
		json_decref(mem);
		json_spool_free(s);
	}
}

static void test_markers(void)
{
	struct json_spool *s = json_spool_open("/dev/stdout", 2), *t = json_spool_open("rel.json", 2);
	json_t *m, *e = element(0);

	CHECK(s && t, "open (stdout, a relative path)");
	if (!s || !t)
		return;
	m = json_spool_marker(s, 1);
	CHECK(json_spool_seg(s, m) == 1, "its own marker");
	CHECK(json_spool_seg(t, m) == -1, "another spool's marker is a string");
	CHECK(json_spool_seg(NULL, m) == -1, "no spool");
	json_decref(m);
	m = json_string("fsbench-spool:0:1");
	CHECK(json_spool_seg(s, m) == -1, "a look-alike");
	json_decref(m);
	CHECK(json_spool_add(s, 2, e) == -EINVAL, "no such segment");
	CHECK(json_spool_add(s, 0, e) == 0 && json_spool_add(s, 1, e) == 0, "two segments");
	CHECK(json_spool_add(s, 0, e) == -EINVAL, "a segment resumed after the next began");
	json_decref(e);
	json_spool_free(s);
	json_spool_free(t);
}

/* --csv of a spooled document: the same text as of the document in memory */
static void test_csv(void)
{
	static const struct figure iter[] = { { .key = "rate", .unit = "files/s", .path = "files_per_sec" },
					      { .key = "count", .unit = "ops", .path = "latency.create.count" } };
	static const struct figure run[] = { { .key = "files", .unit = "files", .path = "files" } };
	struct figure_set fs = { .iters = "iterations", .iter = iter, .niter = 2, .run = run, .nrun = 1 };
	struct json_spool *s = json_spool_open(NULL, 2);
	json_t *doc = json_object(), *mem = json_object(), *runs = json_array(), *mruns = json_array();
	char *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	FILE *fa = open_memstream(&a, &alen), *fb = open_memstream(&b, &blen);

	CHECK(s != NULL, "open");
	if (!s)
		return;
	for (unsigned g = 0; g < 2; g++) {
		json_t *arr = json_array();

		for (unsigned i = 0; i < 3 + g; i++) {
			json_t *e = element(i);

			json_spool_add(s, g, e);
			json_array_append_new(arr, e);
		}
		json_array_append_new(runs, json_pack("{s:o, s:i}", "iterations", json_spool_marker(s, g), "files", 10 + g));
		json_array_append_new(mruns, json_pack("{s:o, s:i}", "iterations", arr, "files", 10 + g));
	}
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(mem, "runs", mruns);
	CHECK(csv_write(fa, &fs, doc, s) == 0 && csv_write(fb, &fs, mem, NULL) == 0, "csv");
	fclose(fa);
	fclose(fb);
	CHECK(a && b && !strcmp(a, b) && strstr(a, "\n2,4,"), "the same rows\n--- spooled:\n%s--- in memory:\n%s", a, b);
	free(a);
	free(b);
	json_decref(doc);
	json_decref(mem);
	json_spool_free(s);
}

/* json_spool_text: rows written one by one come back whole and in order, nothing on the side */
static void test_text(void)
{
	static const struct {
		const char *near;
		unsigned rows;
	} cases[] = {
		{ NULL, 0 },
		{ NULL, 1 },
		{ "-", 3 },
		{ "/dev/stdout", 2 },
		{ "/tmp/result.json", 5000 },
		{ "result.json", 7 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = json_spool_text(cases[i].near), *mem, *out;
		char *a = NULL, *b = NULL;
		size_t alen = 0, blen = 0;

		CHECK(f, "case %zu: no stream: %s", i, strerror(errno));
		if (!f)
			continue;
		mem = open_memstream(&a, &alen);
		out = open_memstream(&b, &blen);
		for (unsigned r = 0; r < cases[i].rows; r++) {
			fprintf(f, "iteration %u  %u\n", r + 1, r * 7);
			fprintf(mem, "iteration %u  %u\n", r + 1, r * 7);
		}
		CHECK(json_spool_text_copy(f, out) == 0, "case %zu: copy", i);
		fclose(mem);
		fclose(out);
		CHECK(alen == blen && !memcmp(a, b, alen), "case %zu: %zu bytes back, %zu written", i, blen,
		      alen);
		fclose(f);
		free(a);
		free(b);
	}
}

/* segments added after the ones opened for (the "mpi" object's per-phase arrays after the
 * iterations): nested in objects of an array, one empty; the same bytes as in memory, and the
 * first segments' elements still where they were */
static void test_new_segments(void)
{
	struct json_spool *s = json_spool_open(NULL, 1);
	json_t *doc = json_object(), *mem = json_object(), *hosts = json_array(), *mhosts = json_array();
	json_t *iters = json_array();
	int g;

	CHECK(s != NULL, "open");
	if (!s)
		return;
	for (unsigned i = 0; i < 3; i++) {
		json_t *e = element(i);

		json_spool_add(s, 0, e);
		json_array_append_new(iters, e);
	}
	json_object_set_new(doc, "iterations", json_spool_marker(s, 0));
	json_object_set_new(mem, "iterations", iters);
	for (unsigned h = 0; h < 3; h++) {
		json_t *arr = json_array();

		g = json_spool_new_segment(s);
		CHECK(g == (int)h + 1, "segment %d, wanted %u", g, h + 1);
		if (g < 0)
			break;
		/* host 1's list is empty */
		for (unsigned i = 0; h != 1 && i < 2 + h; i++) {
			json_t *e = element(10 * h + i);

			CHECK(json_spool_add(s, (unsigned)g, e) == 0, "add to segment %d", g);
			json_array_append_new(arr, e);
		}
		json_array_append_new(hosts, json_pack("{s:I, s:o}", "host", (json_int_t)h, "phases",
						       json_spool_marker(s, (unsigned)g)));
		json_array_append_new(mhosts, json_pack("{s:I, s:o}", "host", (json_int_t)h, "phases", arr));
	}
	CHECK(json_spool_count(s, 1) == 2 && json_spool_count(s, 2) == 0, "counts");
	CHECK(json_spool_count(s, 0) == 3 && json_spool_count(s, 3) == 4, "counts");
	/* the segment written before the new ones cannot grow again: contiguity */
	CHECK(json_spool_add(s, 1, iters) == -EINVAL, "an earlier segment grew");
	json_object_set_new(doc, "mpi", json_pack("{s:o}", "hosts", hosts));
	json_object_set_new(mem, "mpi", json_pack("{s:o}", "hosts", mhosts));
	compare("new segments", doc, mem, s);
	json_decref(doc);
	json_decref(mem);
	json_spool_free(s);
}

int main(void)
{
	test_shapes();
	test_new_segments();
	test_markers();
	test_csv();
	test_text();
	return check_done("test_json_spool");
}
