/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bare_uring: the io_uring reference loop for bench/uring.sh.
 *
 * The requests of one `fsbench tiotest -t 1 --engine io_uring --iodepth N` thread's read
 * phases, with no measurement inside the loop: the file is written once (pwrite, not timed);
 * then each phase (sequential read, random read) runs in a thread of its own, as fsbench's do,
 * which makes its ring of the same size and flags before the phase's clock starts
 * (SINGLE_ISSUER|DEFER_TASKRUN where the kernel has them, else COOP_TASKRUN, else none, as
 * fsbench's engine/io_uring.c) and registers its descriptor (IORING_REGISTER_RING_FDS where the
 * kernel has it, as fsbench's workers do): open(O_RDWR|O_NOFOLLOW|O_CLOEXEC), N reads of BS bytes in
 * flight (IORING_OP_READ at an offset, each completion refilled with the next offset, reaped in
 * batches, each batch submitted with GETEVENTS and min_complete 0 as fsbench's engine and fio
 * do: with DEFER_TASKRUN that posts what finished meanwhile, so the next wait finds it in the
 * ring without entering the kernel), an fsync through the ring, close. Random offsets: uniform with replacement from
 * splitmix64, as fsbench draws. Each phase is timed as a whole (CLOCK_MONOTONIC, open to close)
 * with its CPU time over the same span (CLOCK_PROCESS_CPUTIME_ID: user + system, io-wq workers
 * included).
 *
 * usage: bare_uring DIR FILE_MIB BLOCK_BYTES RANDOM_OPS DEPTH [direct]
 * (direct: the phases open with O_DIRECT, as tiotest -X; the file is written and fsynced first)
 * output: one line per phase: "<name> <ops> <wall_ns> <ops_per_s> <cpu_ns> <setup flags>
 * <latency_ns>": the last, with BARE_TIMED=1, the mean of the requests' timed latencies in ns
 * (the TSC's ticks scaled by its rate over the phase against CLOCK_MONOTONIC), else "-"
 * build: cc -O2 -o bare_uring bare_uring.c -luring -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint64_t clock_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bare_uring: %s: %s\n", what, strerror(err));
	exit(1);
}

static int direct;
/* experiment switches (bench/README.md, issue 25): BARE_ENTRIES (SQ ring size), BARE_MAXWQ
 * (IORING_REGISTER_IOWQ_MAX_WORKERS, bounded workers), BARE_ASYNC=1 (IOSQE_ASYNC on every read),
 * BARE_GETEV=0 (plain io_uring_submit, as before issue 25), BARE_REGRING=0 (the ring entered by
 * its descriptor; default: registered, IORING_REGISTER_RING_FDS, as fsbench's workers do where
 * the kernel has it: "+REGISTERED_RING" after the flags in the output), BARE_SPIN_US (before a wait that
 * would sleep, look for completions that long: io_uring_get_events, no sleep; bench/uring.sh
 * gives it fsbench's --io_uring-spin), BARE_TIMED=1 (what fsbench's measurement adds per op,
 * to price it: two TSC reads around each submitting call and a histogram record of the call,
 * a TSC read per completion not posted by that call and a record of its latency, in
 * log-linear histograms of fsbench's size, core/hist.h), BARE_TICK_US (a second thread that
 * only sleeps this long and wakes again, for the length of each phase: what a process's
 * periodic wake-up, fio's status loop or fsbench's old reporter tick, does to the ring's rate
 * on its own) */
static unsigned env_u(const char *name, unsigned dflt)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

/* BARE_TIMED's clock: the TSC, as fsbench's lat_now() where the kernel's clock uses it */
#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t tnow(void)
{
	return __rdtsc();
}
#else
static inline uint64_t tnow(void)
{
	return clock_of(CLOCK_MONOTONIC);
}
#endif

/* core/hist.h's log-linear histogram: 64 sub-buckets per octave, count, sum, min, max */
#define TH_SUB_BITS 6
struct th {
	uint64_t b[(64 - TH_SUB_BITS) * (1u << TH_SUB_BITS) + (1u << TH_SUB_BITS)];
	uint64_t count, sum, min, max;
};

static void th_record(struct th *h, uint64_t v)
{
	unsigned i;

	if (v < (1u << TH_SUB_BITS)) {
		i = (unsigned)v;
	} else {
		unsigned e = 63 - (unsigned)__builtin_clzll(v);

		i = (e - TH_SUB_BITS + 1) * (1u << TH_SUB_BITS) + (unsigned)((v >> (e - TH_SUB_BITS)) & 63);
	}
	__atomic_store_n(&h->b[i], h->b[i] + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->count, h->count + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&h->sum, h->sum + v, __ATOMIC_RELAXED);
	if (v < h->min)
		__atomic_store_n(&h->min, v, __ATOMIC_RELAXED);
	if (v > h->max)
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
}

/* the ring of the calling thread: the flags fsbench's engine would take, in its order; *reg:
 * whether its descriptor was registered */
static const char *ring_make(struct io_uring *ring, unsigned entries, bool *reg)
{
	static const struct {
		unsigned flags;
		const char *name;
	} way[] = {
		{ IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN, "SINGLE_ISSUER|DEFER_TASKRUN" },
		{ IORING_SETUP_COOP_TASKRUN, "COOP_TASKRUN" },
		{ 0, "none" },
	};
	int rc = -EINVAL;

	for (size_t i = 0; i < sizeof(way) / sizeof(way[0]); i++) {
		struct io_uring_params p = { .flags = IORING_SETUP_CQSIZE | way[i].flags,
					     .cq_entries = entries * 4 };

		rc = io_uring_queue_init_params(entries, ring, &p);
		if (!rc) {
			*reg = env_u("BARE_REGRING", 1) && io_uring_register_ring_fd(ring) == 1;
			return way[i].name;
		}
		if (rc != -EINVAL)
			break;
	}
	die("io_uring_queue_init", -rc);
	return NULL;
}

struct phase_arg {
	const char *path, *name;
	bool random;
	uint64_t blocks, bs, n;
	unsigned depth;
	char *bufs;
};

static void *phase(void *arg)
{
	const struct phase_arg *a = arg;
	const char *path = a->path, *name = a->name;
	const bool random = a->random;
	const uint64_t blocks = a->blocks, bs = a->bs, n = a->n;
	const unsigned depth = a->depth;
	char *bufs = a->bufs;
	struct io_uring r, *ring = &r;
	bool reg;
	const char *flags = ring_make(ring, env_u("BARE_ENTRIES", depth < 16 ? 64 : depth * 4), &reg);
	const unsigned async = env_u("BARE_ASYNC", 0) ? IOSQE_ASYNC : 0;
	const bool getev = env_u("BARE_GETEV", 1);
	const uint64_t spin_ns = env_u("BARE_SPIN_US", 0) * UINT64_C(1000);
	const bool timed = env_u("BARE_TIMED", 0);
	static struct th lat_h, call_h;
	uint64_t sub_ts[4096], enter_end = 0;
	unsigned cq_at_enter = 0, refill[4096], nref = 0;
	uint64_t t0 = clock_of(CLOCK_MONOTONIC), c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), t1, c1;
	const uint64_t tsc0 = tnow();
	uint64_t rng = 42, issued = 0, done = 0, tsc1;
	char lat[32] = "-";
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | direct);
	struct io_uring_cqe *cqe;

	if (fd < 0)
		die("open", errno);
	if (env_u("BARE_MAXWQ", 0)) {
		unsigned v[2] = { env_u("BARE_MAXWQ", 0), 0 };

		if (io_uring_register_iowq_max_workers(ring, v) < 0)
			die("iowq_max_workers", EINVAL);
	}
	for (unsigned k = 0; k < depth && issued < n; k++, issued++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		uint64_t b = random ? splitmix(&rng) % blocks : issued;

		io_uring_prep_read(sqe, fd, bufs + k * bs, (unsigned)bs, b * bs);
		io_uring_sqe_set_data64(sqe, k);
		sqe->flags |= async;
	}
	if (depth > 4096)
		die("depth", EINVAL);
	/* this phase's alone: the histograms are static (their size), the phases one after the other */
	memset(&lat_h, 0, sizeof(lat_h));
	memset(&call_h, 0, sizeof(call_h));
	lat_h.min = call_h.min = UINT64_MAX;
	{
		uint64_t s0 = timed ? tnow() : 0;

		io_uring_submit(ring);
		if (timed) {
			enter_end = tnow();
			cq_at_enter = io_uring_cq_ready(ring);
			th_record(&call_h, enter_end - s0);
			for (unsigned k = 0; k < depth; k++)
				sub_ts[k] = s0;
		}
	}
	while (done < n) {
		unsigned head, seen = 0;
		int rc;

		if (spin_ns && !io_uring_cq_ready(ring))
			for (uint64_t s0 = clock_of(CLOCK_MONOTONIC);
			     !io_uring_cq_ready(ring) && clock_of(CLOCK_MONOTONIC) - s0 < spin_ns;)
				io_uring_get_events(ring);
		rc = io_uring_wait_cqe(ring, &cqe);
		nref = 0;

		if (rc == -EINTR)
			continue;
		if (rc)
			die("io_uring_wait_cqe", -rc);
		io_uring_for_each_cqe(ring, head, cqe) {
			unsigned k = (unsigned)cqe->user_data;

			if (cqe->res != (int)bs)
				die("read", cqe->res < 0 ? -cqe->res : EIO);
			if (timed) {
				uint64_t now = seen < cq_at_enter ? enter_end : tnow();

				th_record(&lat_h, now - sub_ts[k]);
			}
			seen++;
			done++;
			if (issued < n) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
				uint64_t b = random ? splitmix(&rng) % blocks : issued;

				io_uring_prep_read(sqe, fd, bufs + k * bs, (unsigned)bs, b * bs);
				io_uring_sqe_set_data64(sqe, k);
				sqe->flags |= async;
				issued++;
				refill[nref++] = k;
			}
		}
		io_uring_cq_advance(ring, seen);
		cq_at_enter = 0;
		{
			uint64_t s0 = timed ? tnow() : 0;

			if (getev)
				io_uring_submit_and_get_events(ring);
			else
				io_uring_submit(ring);
			if (timed) {
				enter_end = tnow();
				cq_at_enter = io_uring_cq_ready(ring);
				th_record(&call_h, enter_end - s0);
				/* the refilled slots: handed over by this call */
				for (unsigned i = 0; i < nref; i++)
					sub_ts[refill[i]] = s0;
			}
		}
	}
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_fsync(sqe, fd, 0);
		io_uring_submit_and_wait(ring, 1);
		if (io_uring_wait_cqe(ring, &cqe) == 0)
			io_uring_cqe_seen(ring, cqe);
	}
	close(fd);
	tsc1 = tnow();
	t1 = clock_of(CLOCK_MONOTONIC);
	c1 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
	if (timed && lat_h.count && tsc1 > tsc0)
		snprintf(lat, sizeof(lat), "%.1f",
			 (double)lat_h.sum / (double)lat_h.count * (double)(t1 - t0) / (double)(tsc1 - tsc0));
	printf("%s %" PRIu64 " %" PRIu64 " %.1f %" PRIu64 " %s%s %s\n", name, n, t1 - t0,
	       (double)n / ((double)(t1 - t0) / 1e9), c1 - c0, flags, reg ? "+REGISTERED_RING" : "", lat);
	if (timed)
		fprintf(stderr,
			"bare_uring: %s: %" PRIu64 " latencies recorded (%" PRIu64 " in all), %" PRIu64
			" calls, mean %.0f ticks\n",
			name, n, lat_h.count, call_h.count, (double)lat_h.sum / (double)lat_h.count);
	io_uring_queue_exit(ring);
	return NULL;
}

static atomic_bool tick_stop;

/* BARE_TICK_US: wakes every us microseconds and does nothing else until the phase ends */
static void *ticker(void *arg)
{
	const unsigned us = *(const unsigned *)arg;
	const struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000 };

	while (!atomic_load(&tick_stop))
		nanosleep(&ts, NULL);
	return NULL;
}

static void run_phase(struct phase_arg *a)
{
	static unsigned tick_us;
	pthread_t t, tk;
	int rc;

	tick_us = env_u("BARE_TICK_US", 0);
	atomic_store(&tick_stop, false);
	if (tick_us && (rc = pthread_create(&tk, NULL, ticker, &tick_us)))
		die("pthread_create", rc);
	rc = pthread_create(&t, NULL, phase, a);
	if (rc)
		die("pthread_create", rc);
	pthread_join(t, NULL);
	if (tick_us) {
		atomic_store(&tick_stop, true);
		pthread_join(tk, NULL);
	}
}

int main(int argc, char **argv)
{
	char path[4096], *bufs;
	uint64_t mib, bs, rops, blocks;
	unsigned depth;
	int fd;

	if (argc != 6 && !(argc == 7 && !strcmp(argv[6], "direct"))) {
		fprintf(stderr, "usage: bare_uring DIR FILE_MIB BLOCK_BYTES RANDOM_OPS DEPTH [direct]\n");
		return 2;
	}
	direct = argc == 7 ? O_DIRECT : 0;
	mib = strtoull(argv[2], NULL, 10);
	bs = strtoull(argv[3], NULL, 10);
	rops = strtoull(argv[4], NULL, 10);
	depth = (unsigned)strtoul(argv[5], NULL, 10);
	if (!mib || !bs || !depth)
		return 2;
	blocks = (mib << 20) / bs;
	snprintf(path, sizeof(path), "%s/bare_uring.%d", argv[1], (int)getpid());
	if (posix_memalign((void **)&bufs, 4096, bs * depth))
		die("posix_memalign", ENOMEM);
	memset(bufs, 'x', bs * depth);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		die(path, errno);
	for (uint64_t b = 0; b < blocks; b++)
		if (pwrite(fd, bufs, bs, (off_t)(b * bs)) != (ssize_t)bs)
			die("pwrite", errno);
	fsync(fd);
	close(fd);
	run_phase(&(struct phase_arg){ path, "read", false, blocks, bs, blocks, depth, bufs });
	run_phase(&(struct phase_arg){ path, "random_read", true, blocks, bs, rops, depth, bufs });
	unlink(path);
	free(bufs);
	return 0;
}
