/* SPDX-License-Identifier: GPL-2.0-or-later */
/* core/warn.c's tally and report/warn_text.c's lines: kinds merged over phases, iterations and
 * runs, the numbers behind each, ranges when they differ, "in K of N runs". */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/warn.h"
#include "report/warn_text.h"

#define MIB (UINT64_C(1) << 20)

/* the tally's lines as one string (the caller frees it) */
static char *text(const struct warn_tally *t, const struct warn_text_ctx *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	warn_text_print(f, t, c);
	fclose(f);
	return buf;
}

static unsigned lines(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* one phase's warnings from warn_compute, as a workload makes them */
static void phase(struct warn_list *l, const char *name, uint64_t rd, uint64_t wr, bool has_device,
		  uint64_t dev_bytes, double sys_s, unsigned threads, uint64_t first_ns, uint64_t last_ns)
{
	struct kstat_delta k;
	struct warn_phase w = { .name = name, .read_bytes = rd, .write_bytes = wr,
				.data_set_bytes = 64 * MIB, .mem_total_bytes = 8192 * MIB,
				.threads = threads, .cpus = 8, .wall_ns = last_ns, .first_done_ns = first_ns,
				.last_done_ns = last_ns, .sys_s = sys_s, .has_device = has_device, .k = &k };

	memset(&k, 0, sizeof(k));
	k.ndisks = 1;
	k.disk[0].found = k.disk[0].primary = true;
	k.disk[0].rd_bytes = rd ? dev_bytes : 0;
	k.disk[0].wr_bytes = wr ? dev_bytes : 0;
	warn_compute(&w, l);
}

int main(void)
{
	struct blockdev tmpfs = { .kind = BLOCKDEV_NONE, .mount_known = true };
	struct blockdev disk = { .kind = BLOCKDEV_DISK, .mount_known = true };
	struct blockdev nfs = { .kind = BLOCKDEV_NONE, .mount_known = true };
	struct blockdev two[3];
	struct warn_text_ctx c = { .prog = "fsbench tiotest", .targets = &tmpfs, .ntargets = 1,
				   .hint_reads = "use -X", .hint_writes = "use -S", .nruns = 1 };
	struct warn_tally t;
	struct warn_list l;
	char *s;

	strcpy(tmpfs.mount.mount_point, "/dev/shm");
	strcpy(tmpfs.mount.fstype, "tmpfs");
	strcpy(disk.mount.mount_point, "/");
	strcpy(disk.mount.fstype, "ext4");
	strcpy(nfs.mount.mount_point, "/net");
	strcpy(nfs.mount.fstype, "nfs4");

	/* tmpfs: the four phases' cache warnings are one line, with each phase's bytes */
	warn_tally_init(&t);
	CHECK(warn_tally_empty(&t), "a new tally is empty");
	phase(&l, "write", 0, 40 * MIB, false, 0, 0.1, 4, 900000000, 1000000000);
	CHECK(l.n == 1 && l.w[0].no_device && l.w[0].bytes == 40 * MIB, "tmpfs write: %u", l.n);
	warn_tally_add(&t, &l, 1, "write", 0);
	phase(&l, "random_write", 0, 15 * MIB, false, 0, 0.1, 4, 900000000, 1000000000);
	warn_tally_add(&t, &l, 1, "random write", 0);
	phase(&l, "read", 40 * MIB, 0, false, 0, 0.1, 4, 900000000, 1000000000);
	warn_tally_add(&t, &l, 1, "read", 0);
	phase(&l, "random_read", 15 * MIB, 0, false, 0, 0.1, 4, 900000000, 1000000000);
	warn_tally_add(&t, &l, 1, "random read", 0);
	s = text(&t, &c);
	CHECK(!strcmp(s, "fsbench tiotest: warning: no block device under /dev/shm (tmpfs), so these "
		      "rates are memory speed, not storage: write (40.0 MiB written), random write "
		      "(15.0 MiB written), read (40.0 MiB read), random read (15.0 MiB read)\n"),
	      "tmpfs line: %s", s);
	free(s);
	/* the same again in runs 2 and 3, write with other bytes: still one line, a range */
	for (unsigned run = 2; run <= 3; run++) {
		phase(&l, "write", 0, (40 + run) * MIB, false, 0, 0.1, 4, 900000000, 1000000000);
		warn_tally_add(&t, &l, run, "write", 0);
		phase(&l, "read", 40 * MIB, 0, false, 0, 0.1, 4, 900000000, 1000000000);
		warn_tally_add(&t, &l, run, "read", 0);
	}
	c.nruns = 3;
	s = text(&t, &c);
	CHECK(lines(s) == 1 && strstr(s, "write (40.0-43.0 MiB written), random write (15.0 MiB written, "
				      "in 1 run), read (40.0 MiB read), random read (15.0 MiB read, in 1 run); "
				      "in 3 of 3 runs\n"),
	      "three runs: %s", s);
	free(s);
	warn_tally_free(&t);
	CHECK(warn_tally_empty(&t), "freed");

	/* a device: page cache reads with device vs asked bytes, absorbed writes, CPU bound, early
	 * finisher, each its own line, in the kinds' order */
	c.targets = &disk;
	c.nruns = 2;
	warn_tally_init(&t);
	phase(&l, "write", 0, 100 * MIB, true, 10 * MIB, 3.8, 4, 200000000, 1000000000);
	CHECK(l.n == 3, "write: absorbed, cpu bound, early finisher: %u", l.n);
	warn_tally_add(&t, &l, 1, "write", 0);
	phase(&l, "read", 100 * MIB, 0, true, 1 * MIB, 0.1, 4, 900000000, 1000000000);
	warn_tally_add(&t, &l, 2, "read", 0);
	s = text(&t, &c);
	CHECK(lines(s) == 4, "four lines: %s", s);
	CHECK(strstr(s, "fsbench tiotest: warning: reads served from the page cache, not the device (data "
		     "set 64.0 MiB, RAM 8.0 GiB; use -X): read (device read 1.0 of 100.0 MiB); in 1 of 2 "
		     "runs\n"), "cache reads: %s", s);
	CHECK(strstr(s, "warning: writes absorbed by the page cache, the device wrote less than half "
		     "within the phase (use -S): write (device wrote 10.0 of 100.0 MiB); in 1 of 2 runs\n"),
	      "absorbed writes: %s", s);
	CHECK(strstr(s, "warning: bound by kernel CPU, not by the device (system CPU in % of one core, "
		     "out of 400% usable): write (380%); in 1 of 2 runs\n"), "cpu: %s", s);
	CHECK(strstr(s, "warning: threads finished far apart, fewer ran towards the end: write (first "
		     "thread done at 0.200 s, last at 1.000 s); in 1 of 2 runs\n"), "early: %s", s);
	CHECK(strstr(s, "reads served") < strstr(s, "writes absorbed") &&
	      strstr(s, "writes absorbed") < strstr(s, "bound by kernel CPU"), "order: %s", s);
	free(s);
	warn_tally_free(&t);

	/* fs_mark: iterations merged into ranges, over runs; a long list is cut */
	c = (struct warn_text_ctx){ .prog = "fsbench fs_mark", .targets = &tmpfs, .ntargets = 1,
				    .nruns = 2 };
	warn_tally_init(&t);
	phase(&l, "iteration", 0, 2 * MIB, false, 0, 0.1, 1, 0, 1000000000);
	for (unsigned it = 3; it >= 1; it--)
		warn_tally_add(&t, &l, 1, "iteration", it);
	warn_tally_add(&t, &l, 2, "iteration", 5);
	s = text(&t, &c);
	CHECK(!strcmp(s, "fsbench fs_mark: warning: no block device under /dev/shm (tmpfs), so these "
		      "rates are memory speed, not storage: iterations 1-3, 5 (2.0 MiB written); in 2 "
		      "of 2 runs\n"),
	      "iterations: %s", s);
	free(s);
	warn_tally_add(&t, &l, 2, "iteration", 4);
	for (unsigned it = 7; it <= 20; it += 2)
		warn_tally_add(&t, &l, 2, "iteration", it);
	s = text(&t, &c);
	CHECK(strstr(s, ": iterations 1-5, 7, 9, 11, ... (12 in all) (2.0 MiB written)"), "cut: %s", s);
	free(s);
	warn_tally_free(&t);
	warn_tally_init(&t);
	warn_tally_add(&t, &l, 1, "iteration", 1);
	c.nruns = 1;
	s = text(&t, &c);
	CHECK(strstr(s, ": iteration 1 (2.0 MiB written)\n"), "one iteration: %s", s);
	free(s);
	warn_tally_free(&t);

	/* two deviceless targets, one not in memory: named once each, no memory speed claim */
	two[0] = tmpfs;
	two[1] = nfs;
	two[2] = tmpfs;
	c.targets = two;
	c.ntargets = 3;
	warn_tally_init(&t);
	warn_tally_add(&t, &l, 1, "iteration", 1);
	s = text(&t, &c);
	CHECK(strstr(s, "no block device under /dev/shm (tmpfs), /net (nfs4), so these rates may be cache "
		     "speed, not storage"), "nfs: %s", s);
	free(s);
	warn_tally_free(&t);
	/* short_phase: under 1 s, each phase its own span; 1 s itself is long enough */
	warn_tally_init(&t);
	phase(&l, "write", 0, 40 * MIB, true, 40 * MIB, 0.01, 1, 250000000, 250000000);
	CHECK(l.n == 1 && !strcmp(l.w[0].id, "short_phase") && strstr(l.w[0].msg, "write: 0.250 s, shorter than 1 s"),
	      "a 0.25 s phase: %u %s", l.n, l.n ? l.w[0].msg : "");
	warn_tally_add(&t, &l, 1, "write", 0);
	phase(&l, "iteration 3", 0, MIB, true, MIB, 0.01, 1, 400000000, 400000000);
	warn_tally_add(&t, &l, 1, "iteration", 3);
	phase(&l, "iteration 4", 0, MIB, true, MIB, 0.01, 1, 900000000, 900000000);
	warn_tally_add(&t, &l, 1, "iteration", 4);
	phase(&l, "iteration 5", 0, MIB, true, MIB, 0.01, 1, 1000000000, 1000000000);
	CHECK(l.n == 0, "a 1 s phase is not short: %u", l.n);
	{
		struct warn_phase w = { .name = "iteration 6", .threads = 1, .cpus = 8, .wall_ns = 5000000,
					.last_done_ns = 5000000, .has_device = true, .cut_short = true };

		warn_compute(&w, &l);
		CHECK(l.n == 0, "a phase cut short (ENOSPC, an error) is not a short phase: %u", l.n);
	}
	s = text(&t, &c);
	CHECK(lines(s) == 1 && strstr(s, ": warning: shorter than 1 s") &&
	      strstr(s, "write (0.250 s), iterations 3-4 (0.400-0.900 s)"), "short phases: %s", s);
	free(s);
	warn_tally_free(&t);
	return check_done("test_warn");
}
