/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bare_uring: the io_uring reference loop for bench/uring.sh.
 *
 * The requests of one `fsbench tiotest -t 1 --engine io_uring --iodepth N` thread's read
 * phases, with no measurement inside the loop: the file is written once (pwrite, not timed),
 * one ring of the same size is made before the phases; then per phase (sequential read, random
 * read): open(O_RDWR|O_NOFOLLOW|O_CLOEXEC), N reads of BS bytes in flight (IORING_OP_READ at an
 * offset, each completion refilled with the next offset, reaped in batches), an fsync through
 * the ring, close. Random offsets: uniform with replacement from splitmix64, as fsbench draws.
 * Each phase is timed as a whole (CLOCK_MONOTONIC, open to close) with its CPU time over the
 * same span (CLOCK_PROCESS_CPUTIME_ID: user + system, io-wq workers included).
 *
 * usage: bare_uring DIR FILE_MIB BLOCK_BYTES RANDOM_OPS DEPTH [direct]
 * (direct: the phases open with O_DIRECT, as tiotest -X; the file is written and fsynced first)
 * output: one line per phase: "<name> <ops> <wall_ns> <ops_per_s> <cpu_ns>"
 * build: cc -O2 -o bare_uring bare_uring.c -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <liburing.h>
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

static void phase(struct io_uring *ring, const char *path, const char *name, bool random, uint64_t blocks,
		  uint64_t bs, uint64_t n, unsigned depth, char *bufs)
{
	uint64_t t0 = clock_of(CLOCK_MONOTONIC), c0 = clock_of(CLOCK_PROCESS_CPUTIME_ID), t1, c1;
	uint64_t rng = 42, issued = 0, done = 0;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC | direct);
	struct io_uring_cqe *cqe;

	if (fd < 0)
		die("open", errno);
	for (unsigned k = 0; k < depth && issued < n; k++, issued++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		uint64_t b = random ? splitmix(&rng) % blocks : issued;

		io_uring_prep_read(sqe, fd, bufs + k * bs, (unsigned)bs, b * bs);
		io_uring_sqe_set_data64(sqe, k);
	}
	io_uring_submit(ring);
	while (done < n) {
		unsigned head, seen = 0;
		int rc = io_uring_wait_cqe(ring, &cqe);

		if (rc == -EINTR)
			continue;
		if (rc)
			die("io_uring_wait_cqe", -rc);
		io_uring_for_each_cqe(ring, head, cqe) {
			unsigned k = (unsigned)cqe->user_data;

			if (cqe->res != (int)bs)
				die("read", cqe->res < 0 ? -cqe->res : EIO);
			seen++;
			done++;
			if (issued < n) {
				struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
				uint64_t b = random ? splitmix(&rng) % blocks : issued;

				io_uring_prep_read(sqe, fd, bufs + k * bs, (unsigned)bs, b * bs);
				io_uring_sqe_set_data64(sqe, k);
				issued++;
			}
		}
		io_uring_cq_advance(ring, seen);
		io_uring_submit(ring);
	}
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		io_uring_prep_fsync(sqe, fd, 0);
		io_uring_submit_and_wait(ring, 1);
		if (io_uring_wait_cqe(ring, &cqe) == 0)
			io_uring_cqe_seen(ring, cqe);
	}
	close(fd);
	t1 = clock_of(CLOCK_MONOTONIC);
	c1 = clock_of(CLOCK_PROCESS_CPUTIME_ID);
	printf("%s %" PRIu64 " %" PRIu64 " %.1f %" PRIu64 "\n", name, n, t1 - t0,
	       (double)n / ((double)(t1 - t0) / 1e9), c1 - c0);
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	char path[4096], *bufs;
	uint64_t mib, bs, rops, blocks;
	unsigned depth;
	int fd, rc;

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
	/* set up as fsbench's engine sets its rings up (engine/io_uring.c): cooperative task
	 * running where the kernel has it */
	rc = io_uring_queue_init(depth < 64 ? 64 : depth * 4, &ring, IORING_SETUP_COOP_TASKRUN);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(depth < 64 ? 64 : depth * 4, &ring, 0);
	if (rc)
		die("io_uring_queue_init", -rc);
	phase(&ring, path, "read", false, blocks, bs, blocks, depth, bufs);
	phase(&ring, path, "random_read", true, blocks, bs, rops, depth, bufs);
	io_uring_queue_exit(&ring);
	unlink(path);
	free(bufs);
	return 0;
}
