/* SPDX-License-Identifier: GPL-2.0-or-later */
/* matrix: the experiment model without the system: axes and the cross product, cell names,
 * listed cells, effective configurations, the hash, the experiment file and its
 * errors (with lines), and the seeded order of the runs. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "core/matrix.h"
#include "sys/fsimage.h"

static struct mx_exp *fresh(const char *workload)
{
	struct mx_exp *e = calloc(1, sizeof(*e));

	mx_init(e);
	e->workload = strdup(workload);
	e->name = strdup("t");
	e->size_bytes = 1 << 30;
	return e;
}

static void done(struct mx_exp *e)
{
	mx_free(e);
	free(e);
}

static int valid(const char *key)
{
	if (!strcmp(key, "repeat") || !strcmp(key, "fs") || !strcmp(key, "mount-opts"))
		return 1;
	if (!strcmp(key, "warmup"))
		return 0;
	return -1;
}

/* an experiment file from text; 0 or the loader's error, message in err */
static int load(struct mx_exp *e, const char *text, char *err, size_t len)
{
	char path[] = "/tmp/fsbench-test-matrix.XXXXXX";
	int fd = mkstemp(path), rc;

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		return -99;
	close(fd);
	rc = mx_ini_load(e, path, valid, err, len);
	unlink(path);
	return rc;
}

static void test_product(void)
{
	struct mx_exp *e = fresh("tiotest");
	char err[512];
	int fs = mx_axis_add(e, "fs", MX_FS, NULL, err, sizeof(err)), mo, kn;

	mx_value_add(e, (unsigned)fs, NULL, "ext4", false, err, sizeof(err));
	mx_value_add(e, (unsigned)fs, NULL, "xfs", false, err, sizeof(err));
	mo = mx_axis_add(e, "mount", MX_MOUNT, NULL, err, sizeof(err));
	mx_value_add(e, (unsigned)mo, NULL, "defaults", false, err, sizeof(err));
	mx_value_add(e, (unsigned)mo, NULL, "noatime,lazytime", false, err, sizeof(err));
	kn = mx_axis_add(e, "dirty", MX_KNOB, "/proc/sys/vm/dirty_ratio", err, sizeof(err));
	mx_value_add(e, (unsigned)kn, "low", "5", false, err, sizeof(err));
	CHECK(mx_value_add(e, (unsigned)kn, "low", "6", false, err, sizeof(err)) == -1, "a label twice");
	e->args[e->nargs++] = strdup("-t");
	e->args[e->nargs++] = strdup("1");
	e->nmkfs = 1;
	e->mkfs_type[0] = strdup("xfs");
	e->mkfs_opts[0] = strdup("-m crc=1");
	CHECK(mx_finish(e, fsimage_mkfs_argv, err, sizeof(err)) == 0, "finish: %s", err);
	CHECK(e->ncells == 4, "%u cells", e->ncells);
	CHECK(!strcmp(e->cells[0].name, "ext4-defaults"), "%s", e->cells[0].name);
	CHECK(!strcmp(e->cells[1].name, "ext4-noatime,lazytime"), "%s", e->cells[1].name);
	CHECK(!strcmp(e->cells[3].name, "xfs-noatime,lazytime"), "%s", e->cells[3].name);
	CHECK(!strcmp(e->cells[0].mount_opts, ""), "defaults is no options: '%s'", e->cells[0].mount_opts);
	CHECK(!strcmp(e->cells[3].mount_opts, "noatime,lazytime"), "'%s'", e->cells[3].mount_opts);
	CHECK(!strcmp(e->cells[2].mkfs_opts, "-m crc=1") && !strcmp(e->cells[0].mkfs_opts, ""),
	      "mkfs options per type: '%s' '%s'", e->cells[2].mkfs_opts, e->cells[0].mkfs_opts);
	CHECK(e->cells[1].nknobs == 1 && !strcmp(e->cells[1].knobs[0].value, "5"), "the knob");
	CHECK(e->cells[2].nargs == 2, "args copied");
	/* the hash: stable, different per cell, a function of the config only */
	CHECK(!strncmp(e->cells[0].hash, "fnv1a64:", 8) && strlen(e->cells[0].hash) == 24, "%s", e->cells[0].hash);
	for (unsigned i = 0; i < e->ncells; i++)
		for (unsigned j = 0; j < i; j++)
			CHECK(strcmp(e->cells[i].hash, e->cells[j].hash), "cells %u and %u share a hash", i, j);
	{
		struct mx_exp *f = fresh("tiotest");
		int a = mx_axis_add(f, "fs", MX_FS, NULL, err, sizeof(err));

		mx_value_add(f, (unsigned)a, NULL, "ext4", false, err, sizeof(err));
		a = mx_axis_add(f, "mount", MX_MOUNT, NULL, err, sizeof(err));
		mx_value_add(f, (unsigned)a, NULL, "defaults", false, err, sizeof(err));
		a = mx_axis_add(f, "other-name", MX_KNOB, "/proc/sys/vm/dirty_ratio", err, sizeof(err));
		mx_value_add(f, (unsigned)a, "other-label", "5", false, err, sizeof(err));
		f->args[f->nargs++] = strdup("-t");
		f->args[f->nargs++] = strdup("1");
		CHECK(mx_finish(f, fsimage_mkfs_argv, err, sizeof(err)) == 0, "%s", err);
		CHECK(!strcmp(f->cells[0].hash, e->cells[0].hash),
		      "same configuration, other names: same hash (%s, %s)", f->cells[0].hash, e->cells[0].hash);
		done(f);
	}
	{
		char out[32];

		/* FNV-1a 64 reference values */
		mx_hash("", 0, out);
		CHECK(!strcmp(out, "fnv1a64:cbf29ce484222325"), "%s", out);
		mx_hash("a", 1, out);
		CHECK(!strcmp(out, "fnv1a64:af63dc4c8601ec8c"), "%s", out);
	}
	done(e);
}

static void test_schedule(void)
{
	struct mx_exp *e = fresh("tiotest");
	char err[512];
	unsigned cell[64], rep[64], cell2[64], rep2[64];
	int a = mx_axis_add(e, "fs", MX_FS, NULL, err, sizeof(err)), n;

	mx_value_add(e, (unsigned)a, NULL, "ext4", false, err, sizeof(err));
	mx_value_add(e, (unsigned)a, NULL, "xfs", false, err, sizeof(err));
	mx_value_add(e, (unsigned)a, NULL, "btrfs", false, err, sizeof(err));
	a = mx_axis_add(e, "toggle", MX_KNOB, "/proc/sys/x", err, sizeof(err));
	mx_value_add(e, (unsigned)a, NULL, "on", false, err, sizeof(err));
	mx_value_add(e, (unsigned)a, NULL, "off", true, err, sizeof(err));
	CHECK(mx_finish(e, fsimage_mkfs_argv, err, sizeof(err)) == 0, "%s", err);
	for (int o = MX_ORDER_INTERLEAVED; o <= MX_ORDER_SEQUENTIAL; o++) {
		unsigned count[16] = { 0 };
		bool off_seen = false, order_ok = true;

		n = mx_schedule(e, (enum mx_order)o, 4, 7, cell, rep);
		CHECK(n == 24, "%s: %d runs", mx_order_name((enum mx_order)o), n);
		for (int i = 0; i < n; i++) {
			count[cell[i]]++;
			/* one-way cells (toggle=off) come after every other */
			if (e->cells[cell[i]].one_way)
				off_seen = true;
			else if (off_seen)
				order_ok = false;
		}
		CHECK(order_ok, "%s: a one-way cell before another", mx_order_name((enum mx_order)o));
		for (unsigned c = 0; c < e->ncells; c++)
			CHECK(count[c] == 4, "%s: cell %u runs %u times", mx_order_name((enum mx_order)o), c, count[c]);
		/* rounds: every cell of a group once per round, repeats in order */
		if (o != MX_ORDER_SEQUENTIAL)
			for (int i = 0; i < 12; i++)
				CHECK(rep[i] == (unsigned)i / 3, "%s: slot %d repeat %u", mx_order_name((enum mx_order)o), i, rep[i]);
	}
	/* the same seed, the same order; another seed, another order */
	mx_schedule(e, MX_ORDER_INTERLEAVED, 4, 7, cell, rep);
	mx_schedule(e, MX_ORDER_INTERLEAVED, 4, 7, cell2, rep2);
	CHECK(!memcmp(cell, cell2, sizeof(unsigned) * 24), "seeded order reproducible");
	{
		bool differs = false;

		for (uint64_t s = 8; s < 20 && !differs; s++) {
			mx_schedule(e, MX_ORDER_INTERLEAVED, 4, s, cell2, rep2);
			differs = memcmp(cell, cell2, sizeof(unsigned) * 24) != 0;
		}
		CHECK(differs, "other seeds give other orders");
	}
	mx_schedule(e, MX_ORDER_ROTATED, 2, 0, cell, rep);
	CHECK(cell[0] == 0 && cell[3] == 2, "rotated: round 2 starts at the next cell (%u %u)", cell[0], cell[3]);
	mx_schedule(e, MX_ORDER_SEQUENTIAL, 2, 0, cell, rep);
	CHECK(cell[0] == cell[1] && rep[0] == 0 && rep[1] == 1, "sequential: a cell's runs together");
	done(e);
}

static void test_ini(void)
{
	static const struct {
		const char *text;
		const char *err;     /* NULL: loads and finishes; else a substring of the error */
	} cases[] = {
		{ "[experiment]\nworkload = fs_mark\nargs = -D 16 -n 100\nargs = -F\nrepeat = 2\nwarmup = yes\n"
		  "[axis delalloc]\nkind = mount\nvalues = delalloc nodelalloc\n"
		  "[axis toggle]\nknob = /proc/sys/fs/lease-break-time\nvalue = 40\nvalue = 45\nlabels = on off\n"
		  "one-way = off\n[knob k]\npath = /proc/sys/vm/stat_interval\nvalue = 2\n", NULL },
		{ "[experiment]\nworkload = tiotest\nbogus = 1\n", ":3: [experiment]: unknown key 'bogus'" },
		{ "[experiment]\nworkload = tiotest\nwarmup = maybe\n", ":3: warmup: 'maybe' is not yes or no" },
		{ "[experiment\nworkload = tiotest\n", ":1: not a [section]" },
		{ "workload = tiotest\n", ":1: a key before any [section]" },
		{ "[experiment]\nworkload = tiotest\n[axis x]\nvalues = a b\n", ":3: [axis x]: what does it vary?" },
		{ "[experiment]\nworkload = tiotest\n[axis mount]\nvalues = a b\nlabels = c\n", ":3: [axis mount]: 1 labels for 2 values" },
		{ "[experiment]\nworkload = tiotest\n[axis mount]\nvalues = a a\n", "given twice" },
		{ "[experiment]\nworkload = tiotest\n[axis mount]\nvalues = a\none-way = a\n", "one-way applies to knob axes only" },
		{ "[experiment]\nworkload = tiotest\n[knob k]\nvalue = 1\n", ":3: [knob k]: no path" },
		{ "[experiment]\nworkload = tiotest\n[thing x]\na = b\n", ":3: [thing x]: unknown section" },
		{ "[experiment]\nworkload = tiotest\n[cell a b]\nx = y\n", "cell 'a b'" },
		{ "[experiment]\nworkload = tiotest\n[axis fs]\nvalues = ext4 xfs\n[cell a]\nfs = ext4\n[cell b]\n"
		  "fs = zfs\n", "cell b: axis fs has no value 'zfs'" },
		{ "[experiment]\nworkload = tiotest\n[axis fs]\nvalues = ext4 xfs\n[cell a]\nmount = x\n",
		  "cell a: no axis named mount" },
		{ "[experiment]\nworkload = tiotest\n[axis fs]\nvalues = ext4 xfs\n[cell a]\n[cell b]\nfs = xfs\n",
		  "cell a: no value for axis fs" },
		{ "[experiment]\nworkload = tiotest\n[axis fs]\nvalues = ext4\n[cell a]\n[cell b]\nfs = ext4\n", NULL },
		{ "[experiment]\nname = ../x\nworkload = tiotest\n", "not starting with" },
		{ "[experiment]\nname = a/b\nworkload = tiotest\n", "only letters" },
		{ "[experiment]\nworkload = tiotest\nargs = 'open\n", ":3: args: unterminated" },
		/* a UTF-8 byte order mark: skipped at the start of the file, a byte like any other after */
		{ "\xef\xbb\xbf[experiment]\nworkload = tiotest\n", NULL },
		{ "\xef\xbb\xbf; made on Windows\n[experiment]\nworkload = tiotest\nbogus = 1\n",
		  ":4: [experiment]: unknown key 'bogus'" },
		{ "[experiment]\n\xef\xbb\xbfworkload = tiotest\n", ":2: [experiment]: unknown key" },
		/* mkfs options reach the cells only through their grammar (sys/fsopts.h) */
		{ "[experiment]\nworkload = tiotest\n[axis fs]\nvalues = btrfs\n[axis mkfs]\nvalue = -L x /dev/loop4\n",
		  "mkfs.btrfs: '/dev/loop4' is not an option" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct mx_exp *e = calloc(1, sizeof(*e));
		char err[1024] = "";
		int rc;

		mx_init(e);
		rc = load(e, cases[i].text, err, sizeof(err));
		if (!rc) {
			if (!e->name)
				e->name = strdup("t");
			rc = mx_finish(e, fsimage_mkfs_argv, err, sizeof(err));
		}
		if (!cases[i].err)
			CHECK(rc == 0, "case %zu: %s", i, err);
		else
			CHECK(rc != 0 && strstr(err, cases[i].err), "case %zu: rc %d, '%s' (want '%s')", i, rc, err,
			      cases[i].err);
		if (i == 0 && rc == 0) {
			CHECK(e->nargs == 5, "args lines add up: %u", e->nargs);
			CHECK(e->nopts == 2 && !strcmp(e->opts[0], "--repeat=2") && !strcmp(e->opts[1], "--warmup"),
			      "[experiment] keys as options: %u", e->nopts);
			CHECK(e->opt_line[0] == 5, "option line %u", e->opt_line[0]);
			CHECK(e->naxes == 3 && e->ncells == 4, "%u axes, %u cells", e->naxes, e->ncells);
			CHECK(!strcmp(e->cells[1].name, "delalloc-off") && e->cells[1].one_way, "%s", e->cells[1].name);
			CHECK(!strcmp(e->cells[1].knobs[0].value, "45"), "labels name values: %s", e->cells[1].knobs[0].value);
		}
		if (i == 15 && rc == 0)
			CHECK(e->ncells == 2 && !strcmp(e->cells[0].name, "a") && !strcmp(e->cells[0].fs, "ext4"),
			      "a listed cell without keys: the axes' single values");
		mx_free(e);
		free(e);
	}
}

int main(void)
{
	test_product();
	test_schedule();
	test_ini();
	return check_done("test_matrix");
}
