/* SPDX-License-Identifier: GPL-2.0-or-later */
/* after_read: what fsbench matrix --after wrote back into figures. The writer's own output
 * (report/json_after.h from parsed results) reads back to the same numbers; absent checks give
 * NaN figures, never zeros; hostile files (wrong schema, version, types, ranges, sizes, control
 * characters) are refused with the field named, or made printable. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "report/after_read.h"
#include "report/json_after.h"

static char dir[] = "/tmp/fsbench-test-after.XXXXXX";

static const char *put(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) == EOF || fclose(f))
		abort();
	return path;
}

static const char *put_json(const char *name, json_t *root)
{
	char *s = json_dumps(root, 0);
	const char *p = put(name, s);

	free(s);
	json_decref(root);
	return p;
}

/* 0 or -1 with err */
static int load(const char *text, struct after_data *a, char *err, size_t len)
{
	return after_load(put("x.json", text), a, err, len);
}

int main(void)
{
	struct after_data a;
	char err[512];

	if (!mkdtemp(dir))
		return 1;

	/* the writer's output, from a checker run and a parsed e2freefrag */
	{
		struct fsck_result f = { .verdict = FSCK_ERRORS, .fstype = "ext4", .device = "/dev/loop9",
					 .tool = "e2fsck", .command = "e2fsck -f -n /dev/loop9" };
		struct freespace_result fr = { .fstype = "ext4", .device = "/dev/loop9", .tool = "e2freefrag",
					       .command = "e2freefrag /dev/loop9", .block_bytes = 4096,
					       .free_bytes = 3u << 20, .free_extents = 3, .largest_bytes = 2u << 20,
					       .nbuckets = 2 };
		json_t *root = json_pack("{s:s,s:i,s:s,s:s}", "schema", "fsbench-after", "version", 1, "cell", "c",
					 "fstype", "ext4");

		f.messages = strdup("Inode 12 has zero dtime.  Fix? no\nEntry 'f' has deleted inode 12.  Clear? no");
		f.message_lines = 5;
		f.run.exit_code = 4;
		f.run.wall_ns = 1500000000;
		f.run.usr_s = 0.25;
		f.run.sys_s = 0.5;
		f.run.max_rss_kib = 2048;
		f.run.out = strdup("x");
		fr.b[0] = (struct freespace_bucket){ 4096, 8192, 2, 1u << 20 };   /* 2 x 512 KiB? counts as given */
		fr.b[1] = (struct freespace_bucket){ 2u << 20, 4u << 20, 1, 2u << 20 };
		fr.run.out = strdup("x");
		fr.command[0] = 'e';
		json_object_set_new(root, "fsck", fsck_json(&f));
		json_object_set_new(root, "freespace", freespace_json(&fr));
		free(f.messages);
		free(f.run.out);
		free(fr.run.out);
		CHECK(after_load(put_json("w.json", root), &a, err, sizeof(err)) == 0, "%s", err);
		CHECK(a.has_fsck && a.has_freespace && a.finding && !strcmp(a.verdict, "errors"), "%s", a.verdict);
		CHECK(!strcmp(a.tool, "e2fsck") && a.exit_status == 4 && a.message_lines == 5, "%s %d %u", a.tool,
		      a.exit_status, a.message_lines);
		CHECK(a.messages && !strncmp(a.messages, "Inode 12 has zero dtime.", 24) && strchr(a.messages, '\n'),
		      "%s", a.messages);
		CHECK(fabs(a.v[AF_FSCK_WALL] - 1.5) < 1e-9, "%g", a.v[AF_FSCK_WALL]);
		CHECK(fabs(a.v[AF_FSCK_CPU] - 0.75) < 1e-9, "%g", a.v[AF_FSCK_CPU]);
		CHECK(fabs(a.v[AF_FSCK_RSS] - 2) < 1e-9, "%g", a.v[AF_FSCK_RSS]);
		CHECK(fabs(a.v[AF_FREE_MIB] - 3) < 1e-9 && a.v[AF_FREE_EXTENTS] == 3, "%g %g", a.v[AF_FREE_MIB],
		      a.v[AF_FREE_EXTENTS]);
		CHECK(fabs(a.v[AF_FREE_MEAN] - 1024) < 1e-9, "%g", a.v[AF_FREE_MEAN]);
		CHECK(fabs(a.v[AF_FREE_LARGEST] - 2) < 1e-9, "%g", a.v[AF_FREE_LARGEST]);
		/* a third of the free space lies in extents under 1 MiB */
		CHECK(fabs(a.v[AF_FREE_SMALL] - 100.0 / 3) < 1e-9, "%g", a.v[AF_FREE_SMALL]);
		CHECK(a.hist_extents[12] == 2 && a.hist_bytes[12] == 1u << 20 && a.hist_extents[21] == 1,
		      "%g %g %g", a.hist_extents[12], a.hist_bytes[12], a.hist_extents[21]);
		after_free(&a);
	}

	/* clean, btrfs: free space absent with its reason, its figures NaN (not zero) */
	CHECK(load("{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"clean\",\"tool\":\"btrfs\","
		   "\"exit_status\":0,\"wall_ns\":1000000,\"cpu_usr_s\":0.001,\"cpu_sys_s\":0,\"max_rss_kib\":100,"
		   "\"messages\":[],\"message_lines\":0},\"freespace\":{\"absent\":\"btrfs has no tool\","
		   "\"histogram\":null,\"free_bytes\":null}}", &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(!a.finding && !strcmp(a.verdict, "clean") && a.free_absent && !strcmp(a.free_absent, "btrfs has no tool"),
	      "%s", a.free_absent ? a.free_absent : "(null)");
	CHECK(isnan(a.v[AF_FREE_MIB]) && isnan(a.v[AF_FREE_SMALL]) && isnan(a.v[AF_FREE_MEAN]), "free figures not NaN");
	CHECK(fabs(a.v[AF_FSCK_WALL] - 0.001) < 1e-12, "%g", a.v[AF_FSCK_WALL]);
	after_free(&a);
	/* an absent checker has no times; a failed one is a finding without figures */
	CHECK(load("{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"absent\",\"reason\":\"no\"}}",
		   &a, err, sizeof(err)) == 0 && !a.finding && isnan(a.v[AF_FSCK_WALL]) && !a.has_freespace, "%s", err);
	after_free(&a);
	CHECK(load("{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"failed\",\"exit_status\":8,"
		   "\"wall_ns\":5,\"reason\":\"e2fsck\\u0007 failed\"}}", &a, err, sizeof(err)) == 0 && a.finding &&
	      isnan(a.v[AF_FSCK_WALL]) && a.exit_status == 8, "%s", err);
	CHECK(a.reason && !strchr(a.reason, '\a') && strstr(a.reason, "failed"), "reason not printable: %s", a.reason);
	after_free(&a);

	/* refused, each with the field named */
	{
		static const struct {
			const char *text, *want;
		} bad[] = {
			{ "{\"schema\":\"fsbench-matrix\",\"version\":1}", "schema" },
			{ "{\"schema\":\"fsbench-after\",\"version\":2}", "version" },
			{ "[1]", "schema" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":3}", "fsck is not an object" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"fine\"}}", "fsck.verdict" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"clean\",\"wall_ns\":-1}}",
			  "fsck.wall_ns" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"clean\",\"wall_ns\":\"1\"}}",
			  "fsck.wall_ns" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"clean\",\"exit_status\":999}}",
			  "fsck.exit_status" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"fsck\":{\"verdict\":\"clean\",\"messages\":[1]}}",
			  "fsck.messages[0]" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"freespace\":{\"absent\":null,\"histogram\":5}}",
			  "freespace.histogram" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"freespace\":{\"absent\":null,\"histogram\":"
			  "[{\"min_bytes\":0,\"extents\":1,\"free_bytes\":1}]}}", "freespace.histogram[0]" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"freespace\":{\"absent\":null,\"histogram\":"
			  "[{\"min_bytes\":1e30,\"extents\":1,\"free_bytes\":1}]}}", "freespace.histogram[0].min_bytes" },
			{ "{\"schema\":\"fsbench-after\",\"version\":1,\"schema\":\"x\"}", "line" },
			{ "not json", "line" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			int rc = load(bad[i].text, &a, err, sizeof(err));

			CHECK(rc == -1 && strstr(err, bad[i].want), "case %zu: rc %d, '%s' lacks '%s'", i, rc, err, bad[i].want);
			after_free(&a);
		}
	}
	/* not a regular file, and too large */
	CHECK(after_load(dir, &a, err, sizeof(err)) == -1 && strstr(err, "regular file"), "%s", err);
	{
		char path[300];
		FILE *f;

		snprintf(path, sizeof(path), "%s/big.json", dir);
		CHECK((f = fopen(path, "w")) && fseek(f, AFTER_MAX_FILE_BYTES + 1L, SEEK_SET) == 0 && fputc(' ', f) != EOF &&
		      fclose(f) == 0, "cannot write %s", path);
		CHECK(after_load(path, &a, err, sizeof(err)) == -1 && strstr(err, "at most"), "%s", err);
		unlink(path);
	}
	{
		char b[32];

		after_bucket_name(12, b, sizeof(b));
		CHECK(!strcmp(b, "4 KiB"), "%s", b);
		after_bucket_name(26, b, sizeof(b));
		CHECK(!strcmp(b, "64 MiB"), "%s", b);
	}
	unlink(put("x.json", ""));
	unlink(put("w.json", ""));
	rmdir(dir);
	return check_done("test_after_read");
}
