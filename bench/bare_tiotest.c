/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bare_tiotest: the reference loop for bench/tiotest.sh.
 *
 * The same syscalls as one `fsbench tiotest -t 1` thread, and in the loop only the latency reads
 * (below): create the file once (O_EXCL, ftruncate to blocks*bs, close), then per phase, in tiotest's
 * order (write, random write, read, random read):
 *   open(O_RDWR|O_NOFOLLOW|O_CLOEXEC), ftruncate(blocks*bs), blocks (or r) pwrite/pread of bs
 *   bytes, fsync, close.
 * Sequential phases go i*bs for i in 0..blocks-1; random phases take r block-aligned offsets,
 * uniform with replacement, from splitmix64 (the same cheap generator fsbench uses).
 * Each phase is timed as a whole, CLOCK_MONOTONIC from before open to after close, and its CPU
 * time taken over the same span (CLOCK_PROCESS_CPUTIME_ID: user + system, exact).
 * Each op is timed too, the cheapest correct way fsbench could: two lat_now() reads around the
 * syscall, with fsbench's own clock (src/core/clock.c, linked in: clock_init() decides TSC or
 * clock_gettime exactly as fsbench does, FSBENCH_CLOCK_MONOTONIC=1 included), their differences
 * summed and scaled to ns once per phase. That is the floor of any tool that records every op's
 * latency; what fsbench does beyond it (scaling each op, the histogram) is its own cost.
 * BARE_UNTIMED=1 drops the per-op reads: the same syscalls and nothing else, the absolute floor.
 * BARE_PHASES="write read ..." runs only the phases named (as fsbench tiotest -k skips the
 * others; the file is still created sparse at its full size first, as in fsbench's setup).
 * The pwrite/pread calls are issued the way fsbench's psync engine issues them: one raw
 * `syscall` instruction (on x86-64), not glibc's wrappers, which cost ~10 % of a tmpfs pread
 * here. With glibc's wrappers the floor would be higher than fsbench's own path and the ratio
 * would flatter fsbench; BARE_LIBC=1 in the environment switches to them for comparison.
 *
 * usage: bare_tiotest DIR FILE_MIB BLOCK_BYTES RANDOM_OPS [SEED]
 * output: "latency_clock tsc|clock_monotonic|none", then one line per phase:
 *   "<name> <ops> <wall_ns> <ops_per_s> <cpu_ns> <lat_sum_ns>" (lat_sum_ns: the ops' latencies
 *   added up, 0 untimed)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/syscall.h>

#include "core/clock.h"

static int use_libc;

static inline long raw_prw(long nr, int fd, void *buf, size_t len, uint64_t off)
{
#if defined(__x86_64__)
	if (!use_libc) {
		long ret;
		register long r10 __asm__("r10") = (long)off;

		__asm__ volatile("syscall"
				 : "=a"(ret)
				 : "a"(nr), "D"((long)fd), "S"(buf), "d"(len), "r"(r10)
				 : "rcx", "r11", "memory");
		return ret;
	}
#endif
	return nr == SYS_pwrite64 ? pwrite(fd, buf, len, (off_t)off) : pread(fd, buf, len, (off_t)off);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static inline uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)rng_next(s) * n) >> 64);
}

static char path[4096];

static void die(const char *what)
{
	fprintf(stderr, "bare_tiotest: %s %s: %s\n", what, path, strerror(errno));
	unlink(path);
	exit(1);
}

/* One phase's ops: nr (pwrite64 or pread64) of bs bytes, n times, sequential or random. With
 * timed, two lat_now() reads around each call and their differences summed (in lat_now()
 * units): the sum, 0 untimed. Inlined twice with timed constant, so the untimed loop carries
 * no test for it. */
static inline __attribute__((always_inline)) uint64_t phase_ops(int fd, void *buf, uint64_t bs, uint64_t n,
								uint64_t blocks, int random, uint64_t *rng,
								long nr, const bool timed)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t off = (random ? rng_below(rng, blocks) : i) * bs, t0 = 0;
		long ret;

		if (timed)
			t0 = lat_now();
		ret = raw_prw(nr, fd, buf, bs, off);
		if (timed)
			sum += lat_now() - t0;
		if (ret != (long)bs)
			die(nr == SYS_pwrite64 ? "pwrite" : "pread");
	}
	return sum;
}

/* BARE_PHASES: whether phase name is in the blank- or comma-separated list (all when unset) */
static int phase_wanted(const char *list, const char *name)
{
	size_t len = strlen(name);

	if (!list || !*list)
		return 1;
	for (const char *q = list; *q;) {
		size_t n = strcspn(q, " ,");

		if (n == len && !strncmp(q, name, len))
			return 1;
		q += n;
		q += strspn(q, " ,");
	}
	return 0;
}

static uint64_t num(const char *s, const char *what)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v == 0) {
		fprintf(stderr, "bare_tiotest: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const char *const name[4] = { "write", "random_write", "read", "random_read" };
	const char *phases = getenv("BARE_PHASES");
	uint64_t bs, blocks, rops, seed = 24301;
	void *buf;
	int fd, timed, nwanted = 0;

	use_libc = getenv("BARE_LIBC") != NULL;
	timed = !getenv("BARE_UNTIMED") || !*getenv("BARE_UNTIMED");
	if (argc < 5 || argc > 6) {
		fprintf(stderr, "usage: bare_tiotest DIR FILE_MIB BLOCK_BYTES RANDOM_OPS [SEED]\n");
		return 2;
	}
	bs = num(argv[3], "block size");
	blocks = (num(argv[2], "file size") << 20) / bs;
	rops = num(argv[4], "random ops");
	if (argc == 6)
		seed = num(argv[5], "seed");
	if (!blocks) {
		fprintf(stderr, "bare_tiotest: block size larger than the file\n");
		return 2;
	}
	for (int p = 0; p < 4; p++)
		nwanted += phase_wanted(phases, name[p]);
	if (!nwanted) {
		fprintf(stderr,
			"bare_tiotest: BARE_PHASES '%s' names no phase (write random_write read random_read)\n",
			phases);
		return 2;
	}
	if (posix_memalign(&buf, (size_t)sysconf(_SC_PAGESIZE), bs))
		return 1;
	memset(buf, 0, bs);
	snprintf(path, sizeof(path), "%s/_bare_tiotest_pid%d", argv[1], (int)getpid());
	if (timed)
		clock_init();
	printf("latency_clock %s\n", timed ? clock_latency_source() : "none");

	/* setup, outside any window, as fsbench does it */
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		die("create");
	if (ftruncate(fd, (off_t)(blocks * bs)) < 0)
		die("ftruncate");
	close(fd);

	for (int p = 0; p < 4; p++) {
		const int write = p < 2, random = p & 1;
		const uint64_t n = random ? rops : blocks;
		const long nr = write ? SYS_pwrite64 : SYS_pread64;
		uint64_t rng = seed ^ ((uint64_t)p << 56);
		uint64_t t0, t1, c0, c1, lat;

		if (!phase_wanted(phases, name[p]))
			continue;
		rng_next(&rng);
		c0 = cpu_ns();
		t0 = clock_ns();
		fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			die("open");
		if (ftruncate(fd, (off_t)(blocks * bs)) < 0)
			die("ftruncate");
		lat = timed ? phase_ops(fd, buf, bs, n, blocks, random, &rng, nr, true)
			    : phase_ops(fd, buf, bs, n, blocks, random, &rng, nr, false);
		if (fsync(fd) < 0)
			die("fsync");
		if (close(fd) < 0)
			die("close");
		t1 = clock_ns();
		c1 = cpu_ns();
		printf("%s %" PRIu64 " %" PRIu64 " %.3f %" PRIu64 " %" PRIu64 "\n", name[p], n, t1 - t0,
		       (double)n * 1e9 / (double)(t1 - t0), c1 - c0, lat_ns(lat));
	}
	unlink(path);
	free(buf);
	return 0;
}
