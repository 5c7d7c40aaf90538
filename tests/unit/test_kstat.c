/* SPDX-License-Identifier: GPL-2.0-or-later */
/* kstat: /proc parsers on synthetic text (old and new diskstats layouts, short cpu lines,
 * per-zone allocstall), the delta maths, the warnings built on it, and a live snapshot. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/warn.h"
#include "sys/kstat.h"

static const char diskstats_a[] =
	"   7       0 loop0 100 2 800 10 50 1 4000 20 0 30 40\n"            /* 14 fields (old) */
	" 254       0 vda 1000 10 20000 100 2000 20 40000 200 1 1000 3000 0 0 0 0 5 6\n"
	" 254       1 vda1 900 9 18000 90 1900 19 38000 190 0 900 2800 0 0 0 0\n"
	"garbage line\n";
static const char diskstats_b[] =
	"   7       0 loop0 100 2 800 10 50 1 4000 20 0 30 40\n"
	" 254       0 vda 1010 12 22048 110 2100 30 242800 400 2 1500 4000 0 0 0 0 5 6\n"
	" 254       1 vda1 910 9 20048 100 2000 29 240800 390 0 1400 3800 0 0 0 0";

static const char stat_a[] =
	"cpu  100 5 200 1000 50 10 20 0 0 0\n"
	"cpu0 50 2 100 500 25 5 10 0 0 0\n"
	"cpu1 50 3 100 500 25 5 10 0 0 0\n"
	"intr 12345 0 0\n";
static const char stat_b[] =
	"cpu  150 5 400 1300 100 10 30 5 0 0\n"
	"cpu0 75 2 200 650 50 5 15 3 0 0\n"
	"cpu1 75 3 200 650 50 5 15 2 0 0\n";
static const char stat_old[] = "cpu  1 2 3 4\n";

static const char vmstat_a[] =
	"nr_dirty 100\nnr_writeback 5\npgpgin 1000\npgpgout 2000\nallocstall_dma 1\n"
	"allocstall_normal 2\nworkingset_refault 7\nnr_dirtied 10\n";
static const char vmstat_b[] =
	"nr_dirty 300\nnr_writeback 0\npgpgin 1500\npgpgout 9000\nallocstall_dma 1\n"
	"allocstall_normal 5\nworkingset_refault_file 9\nnr_dirtied 110\n";

static const char meminfo[] =
	"MemTotal:       24683656 kB\nMemFree:        23000000 kB\nCached:          1000 kB\n"
	"Dirty:               8 kB\nWriteback:           0 kB\nSlab:            2048 kB\nHugePages_Total: 0\n";

static bool near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

int main(void)
{
	struct kstat_snap a, b;
	struct kstat_delta d;
	struct warn_list wl;

	memset(&a, 0, sizeof(a));
	a.ndisks = 3;
	strcpy(a.disk[0].name, "vda1");
	strcpy(a.disk[1].name, "vda");
	strcpy(a.disk[2].name, "nvme9n1");
	a.disk[0].primary = true;
	b = a;
	kstat_parse_diskstats(diskstats_a, &a);
	kstat_parse_diskstats(diskstats_b, &b);
	CHECK(a.disk[0].found && a.disk[1].found && !a.disk[2].found, "found flags");
	CHECK(a.disk[1].rd_ios == 1000 && a.disk[1].queue_ms == 3000 && a.disk[1].io_ms == 1000,
	      "vda fields: %llu %llu", (unsigned long long)a.disk[1].rd_ios, (unsigned long long)a.disk[1].queue_ms);
	kstat_parse_stat(stat_a, &a);
	kstat_parse_stat(stat_b, &b);
	CHECK(a.have_stat && a.ncpus == 2 && a.cpu_ticks[KSTAT_SYSTEM] == 200 && a.cpu_ticks[KSTAT_STEAL] == 0,
	      "stat parse");
	kstat_parse_vmstat(vmstat_a, &a);
	kstat_parse_vmstat(vmstat_b, &b);
	CHECK(a.vm[KSTAT_ALLOCSTALL] == 3 && b.vm[KSTAT_ALLOCSTALL] == 6, "allocstall summed per zone");
	CHECK(a.vm[KSTAT_WORKINGSET_REFAULT_FILE] == 7, "old workingset_refault name");
	kstat_parse_meminfo(meminfo, &a);
	kstat_parse_meminfo(meminfo, &b);
	CHECK(a.mem[KSTAT_MEMTOTAL] == UINT64_C(24683656) * 1024 && a.mem[KSTAT_SLAB] == 2048 * 1024, "meminfo kB");
	a.t_ns = 1000000000;
	b.t_ns = 3000000000;                         /* a 2 s window */
	kstat_delta(&a, &b, 100, &d);
	CHECK(d.wall_ns == 2000000000, "wall");
	CHECK(d.disk[0].found && d.disk[0].primary && d.disk[0].wr_ios == 100 &&
	      d.disk[0].wr_bytes == (240800 - 38000) * 512ull && d.disk[0].rd_bytes == 2048 * 512ull,
	      "vda1 delta: wr %llu", (unsigned long long)d.disk[0].wr_bytes);
	CHECK(near(d.disk[0].util_pct, 25.0), "util %% = io_ms / wall: %f", d.disk[0].util_pct);
	CHECK(near(d.disk[0].avg_queue, 0.5), "avg queue = queue_ms / wall: %f", d.disk[0].avg_queue);
	CHECK(near(d.disk[0].avg_wr_bytes, (240800 - 38000) * 512.0 / 100), "avg write request");
	CHECK(!d.disk[2].found, "missing device stays not found");
	CHECK(kstat_write_bytes(&d) == d.disk[0].wr_bytes, "totals count primary devices only");
	/* cpu: 50+0+200+300+50+0+10+5 = 615 ticks = 6.15 s */
	CHECK(d.have_cpu && near(d.cpu_s[KSTAT_SYSTEM], 2.0) && near(d.cpu_s[KSTAT_STEAL], 0.05), "cpu seconds");
	{
		double sum = 0;

		for (int i = 0; i < KSTAT_NCPU_FIELDS; i++)
			sum += d.cpu_pct[i];
		CHECK(near(sum, 100.0), "cpu split adds up to 100: %f", sum);
	}
	CHECK(d.vm[KSTAT_PGPGOUT] == 7000 && d.vm[KSTAT_NR_DIRTIED] == 100, "vm counters are deltas");
	CHECK(d.vm_begin[KSTAT_NR_DIRTY] == 100 && d.vm[KSTAT_NR_DIRTY] == 300, "vm gauges at both ends");
	/* a counter going backwards (device re-created) gives 0, not 2^64 */
	b.disk[0].wr_ios = 1;
	kstat_delta(&a, &b, 100, &d);
	CHECK(d.disk[0].wr_ios == 0, "no wrap");
	kstat_parse_stat(stat_old, &a);
	CHECK(a.have_stat && a.cpu_ticks[KSTAT_IDLE] == 4 && a.cpu_ticks[KSTAT_IOWAIT] == 0, "4-field cpu line");

	/* warnings: page cache reads fire, device-backed reads do not */
	{
		struct kstat_delta k;
		struct warn_phase w = { .name = "read", .read_bytes = 100 << 20, .data_set_bytes = 100 << 20,
					.mem_total_bytes = UINT64_C(1) << 34, .threads = 1, .cpus = 2,
					.wall_ns = 1000000000, .has_device = true, .k = &k };

		memset(&k, 0, sizeof(k));
		k.ndisks = 1;
		k.disk[0].found = k.disk[0].primary = true;
		k.disk[0].rd_bytes = 1 << 20;
		warn_compute(&w, &wl);
		CHECK(wl.n == 1 && !strcmp(wl.w[0].id, "page_cache_reads") && strstr(wl.w[0].msg, "1.0 MiB") &&
		      strstr(wl.w[0].msg, "100.0 MiB"), "page cache warning: %s", wl.n ? wl.w[0].msg : "none");
		k.disk[0].rd_bytes = 100 << 20;
		warn_compute(&w, &wl);
		CHECK(wl.n == 0, "device reads: no warning");
		w.has_device = false;
		warn_compute(&w, &wl);
		CHECK(wl.n == 1 && strstr(wl.w[0].msg, "without a block device"), "tmpfs reads");
		/* writes: O_DIRECT never warns, buffered writes the device did not see do */
		w = (struct warn_phase){ .name = "write", .write_bytes = 100 << 20, .threads = 1, .cpus = 2,
					 .wall_ns = 1000000000, .has_device = true, .k = &k };
		k.disk[0].wr_bytes = 10 << 20;
		warn_compute(&w, &wl);
		CHECK(wl.n == 1 && !strcmp(wl.w[0].id, "cache_absorbed_writes"), "absorbed writes");
		w.direct = true;
		warn_compute(&w, &wl);
		CHECK(wl.n == 0, "O_DIRECT: no cache warning");
		/* CPU bound: 0.95 s of system CPU in 1 s with one thread */
		w.sys_s = 0.95;
		warn_compute(&w, &wl);
		CHECK(wl.n == 1 && !strcmp(wl.w[0].id, "cpu_bound") && strstr(wl.w[0].msg, "95%"), "cpu bound");
		w.sys_s = 0.95;
		w.threads = 4;                   /* 4 threads on 2 CPUs: 95% of 2 cores is not */
		warn_compute(&w, &wl);
		CHECK(wl.n == 0, "cpu bound counts min(threads, cpus) cores");
		w.sys_s = 0;
		w.first_done_ns = 200000000;
		w.last_done_ns = 1000000000;
		warn_compute(&w, &wl);
		CHECK(wl.n == 1 && !strcmp(wl.w[0].id, "early_finisher") && strstr(wl.w[0].msg, "0.200 s"),
		      "early finisher");
		w.first_done_ns = 900000000;
		warn_compute(&w, &wl);
		CHECK(wl.n == 0, "close finishers");
	}
	/* live: this machine's /proc */
	{
		const char *dev[] = { "nonexistent0" };

		CHECK(kstat_begin(&a, dev, 1, 1) == 0 && a.have_stat && a.have_meminfo && a.have_vmstat, "live begin");
		CHECK(kstat_end(&a, &d) == 0 && d.have_cpu && !d.disk[0].found && d.mem_end[KSTAT_MEMTOTAL] > 0,
		      "live end");
	}
	return check_done("test_kstat");
}
