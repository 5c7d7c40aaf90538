/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bare reference for bench/fs_mark.sh: the least a file-create benchmark can do per file,
 * openat(O_CREAT|O_EXCL) + write in -w chunks + close, in one directory, timed as one loop.
 * usage: bare_create DIR NFILES SIZE [IO_SIZE]; prints "files_per_sec N"; removes its files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a 40-character name, as fs_mark's default: fixed prefix, 8 hex digits of the counter */
static void name_of(unsigned long i, char *buf)
{
	static const char hex[] = "0123456789abcdef";

	memcpy(buf, "bare~~~~~~~~~~~~~~~~~~~~~~~~~~~~", 32);
	for (int d = 7; d >= 0; d--, i >>= 4)
		buf[32 + d] = hex[i & 15];
	buf[40] = '\0';
}

int main(int argc, char **argv)
{
	unsigned long n, size, io;
	char name[48], *buf;
	double t0, t1;
	int dfd;

	if (argc < 4 || argc > 5) {
		fprintf(stderr, "usage: bare_create DIR NFILES SIZE [IO_SIZE]\n");
		return 2;
	}
	n = strtoul(argv[2], NULL, 10);
	size = strtoul(argv[3], NULL, 10);
	io = argc == 5 ? strtoul(argv[4], NULL, 10) : 16384;
	if (!n || !io || !(buf = calloc(1, io))) {
		fprintf(stderr, "bare_create: bad arguments\n");
		return 2;
	}
	if (mkdir(argv[1], 0777) < 0 && errno != EEXIST) {
		perror(argv[1]);
		return 1;
	}
	dfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		perror(argv[1]);
		return 1;
	}
	t0 = now_s();
	for (unsigned long i = 0; i < n; i++) {
		int fd;

		name_of(i, name);
		fd = openat(dfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0) {
			perror(name);
			return 1;
		}
		for (unsigned long left = size; left;) {
			ssize_t w = write(fd, buf, left < io ? left : io);

			if (w <= 0) {
				perror("write");
				return 1;
			}
			left -= (unsigned long)w;
		}
		close(fd);
	}
	t1 = now_s();
	printf("files_per_sec %.1f\n", (double)n / (t1 - t0));
	for (unsigned long i = 0; i < n; i++) {
		name_of(i, name);
		unlinkat(dfd, name, 0);
	}
	close(dfd);
	rmdir(argv[1]);
	return 0;
}
