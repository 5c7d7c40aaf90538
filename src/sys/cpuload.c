/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CPU other processes took during a window (sys/cpuload.h). */
#include "sys/cpuload.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000u

int cpuload_parse_stat(const char *text, struct cpuload_snap *s)
{
	unsigned long long v[10] = { 0 };
	int n;

	/* the machine's line: "cpu" then blanks, not "cpu0" */
	if (strncmp(text, "cpu", 3) || (text[3] != ' ' && text[3] != '\t'))
		return -EIO;
	n = sscanf(text, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	if (n < 4)
		return -EIO;
	/* guest time is already inside user and nice; steal (the 8th field, Linux 2.6.11+) is time
	 * this virtual CPU wanted to run and the hypervisor ran someone else: capacity the run lost */
	s->busy = v[0] + v[1] + v[2];
	s->steal = v[7];
	s->total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
	return 0;
}

static int stat_line(struct cpuload_snap *s)
{
	char buf[512];
	FILE *f = fopen("/proc/stat", "re");
	int rc;

	if (!f)
		return -errno;
	rc = fgets(buf, sizeof(buf), f) ? cpuload_parse_stat(buf, s) : -EIO;
	fclose(f);
	return rc;
}

static double rusage_s(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* utime + stime of a kernel thread; -1 for a process or an unreadable entry */
static int kthread_ticks(const char *pid, uint64_t *ticks)
{
	char path[300], buf[1024], *p;
	unsigned long flags;
	unsigned long long ut, st;
	ssize_t r;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	/* the name may hold spaces and parentheses: fields resume after the last ')' */
	if (!(p = strrchr(buf, ')')))
		return -1;
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu %*u %*u %*u %*u %llu %llu", &flags, &ut, &st) != 3)
		return -1;
	if (!(flags & PF_KTHREAD))
		return -1;
	*ticks = ut + st;
	return 0;
}

int cpuload_snap(struct cpuload_snap *s)
{
	struct dirent *de;
	unsigned cap = 0;
	DIR *d;
	int rc;

	memset(s, 0, sizeof(*s));
	if ((rc = stat_line(s)))
		return rc;
	/* children waited for count as our own: a launcher (mpirun) and its descendants, the
	 * job's ranks and their helpers, once the launcher has reaped them and we the launcher */
	s->own_s = rusage_s(RUSAGE_SELF) + rusage_s(RUSAGE_CHILDREN);
	if (!(d = opendir("/proc")))
		return 0;
	while ((de = readdir(d))) {
		uint64_t t;

		if (!isdigit((unsigned char)de->d_name[0]) || kthread_ticks(de->d_name, &t))
			continue;
		if (s->nkt == cap) {
			unsigned nc = cap ? cap * 2 : 256;
			struct cpuload_kt *k = realloc(s->kt, nc * sizeof(*k));

			if (!k)
				break;
			s->kt = k;
			cap = nc;
		}
		s->kt[s->nkt++] = (struct cpuload_kt){ (pid_t)atoi(de->d_name), t };
	}
	closedir(d);
	return 0;
}

void cpuload_window(struct cpuload_snap *a, struct cpuload_snap *b, struct cpuload *out)
{
	long hz = sysconf(_SC_CLK_TCK);
	double total = (double)(b->total - a->total), kt = 0, busy, own, other;

	/* a kernel thread that started in the window counts from 0; one that ended is lost */
	for (unsigned i = 0; i < b->nkt; i++) {
		uint64_t t0 = 0;

		for (unsigned j = 0; j < a->nkt; j++)
			if (a->kt[j].pid == b->kt[i].pid) {
				t0 = a->kt[j].ticks <= b->kt[i].ticks ? a->kt[j].ticks : b->kt[i].ticks;
				break;
			}
		kt += (double)(b->kt[i].ticks - t0);
	}
	busy = (double)(b->busy - a->busy);
	own = (b->own_s - a->own_s) * (double)(hz > 0 ? hz : 100);
	other = busy - own - kt;
	memset(out, 0, sizeof(*out));
	if (total > 0) {
		out->steal_pct = (double)(b->steal - a->steal) / total * 100;
		out->busy_pct = busy / total * 100;
		out->own_pct = own / total * 100;
		out->kthread_pct = kt / total * 100;
		out->other_pct = other > 0 ? other / total * 100 : 0;
	}
	free(a->kt);
	free(b->kt);
	a->kt = b->kt = NULL;
}
