/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Worker threads, start barrier, phase window, CPU accounting, stop flag and first error. */
#include "core/run.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/clock.h"
#include "core/quote.h"
#include "core/sample.h"

atomic_int run_stop;
static atomic_int run_sig;
static atomic_int err_claimed;
static atomic_int err_ready;
static struct run_error first_error;

void run_fail_detail(int err, const char *syscall, const char *path, int64_t offset,
		     const char *fmt, ...)
{
	if (atomic_exchange(&err_claimed, 1) == 0) {
		first_error.err = err;
		first_error.syscall = syscall;
		snprintf(first_error.path, sizeof(first_error.path), "%s", path ? path : "");
		first_error.offset = offset;
		first_error.detail[0] = '\0';
		if (fmt) {
			va_list ap;

			va_start(ap, fmt);
			vsnprintf(first_error.detail, sizeof(first_error.detail), fmt, ap);
			va_end(ap);
		}
		atomic_store(&err_ready, 1);
	}
	atomic_store(&run_stop, RUN_STOP_ERROR);
}

void run_fail(int err, const char *syscall, const char *path, int64_t offset)
{
	run_fail_detail(err, syscall, path, offset, NULL);
}

const struct run_error *run_error_get(void)
{
	return atomic_load(&err_ready) ? &first_error : NULL;
}

void run_fail_msg(int err, const char *fmt, ...)
{
	char msg[sizeof(first_error.detail)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	run_fail_detail(err, NULL, NULL, -1, "%s", msg);
}

void run_error_format(const struct run_error *e, char *buf, size_t len)
{
	char off[48] = "", path[QUOTE_MAX];

	if (!e->syscall) {
		snprintf(buf, len, "%s", e->detail);
		return;
	}

	if (e->offset >= 0)
		snprintf(off, sizeof(off), " at offset %lld", (long long)e->offset);
	/* the path comes from the command line (-d, -l): no raw control characters */
	quote_str(e->path, path, sizeof(path));
	if (e->detail[0])
		snprintf(buf, len, "%s '%s'%s: %s", e->syscall, path, off, e->detail);
	else
		snprintf(buf, len, "%s '%s'%s: %s", e->syscall, path, off, strerror(e->err));
}

static void on_signal(int sig)
{
	int zero = 0;

	/* the write that went over RLIMIT_FSIZE returns EFBIG to its caller, which reports it
	 * with its path as the run's first error: the signal itself only must not kill */
	if (sig == SIGXFSZ)
		return;
	atomic_compare_exchange_strong(&run_sig, &zero, sig);
	/* an error that came first stays the reason */
	zero = RUN_GO;
	atomic_compare_exchange_strong(&run_stop, &zero, RUN_STOP_SIGNAL);
}

/* Every signal whose default action ends the process and that can be caught. Left at their
 * default: the faults a handler cannot return from (SIGSEGV, SIGBUS: -M on a file cut short,
 * SIGILL, SIGFPE, SIGSYS), SIGABRT and SIGTRAP, which belong to assertions, sanitizers and
 * debuggers; and SIGKILL and SIGSTOP, which cannot be caught. */
static const int run_sigs[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGPROF, SIGIO, SIGPWR,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

static int catch_one(int sig, const struct sigaction *sa)
{
	struct sigaction old;

	if (sigaction(sig, NULL, &old) < 0)
		return -errno;
	/* an ignore inherited from the parent is deliberate (nohup ignores SIGHUP so that a
	 * closed terminal does not stop the run) and stays; but a shell starts background jobs
	 * with SIGINT and SIGQUIT ignored, and a benchmark started with & must still stop cleanly
	 * on kill -INT, so the keyboard signals and SIGTERM are caught whatever the parent did.
	 * So is SIGPIPE: a parent that ignores it wants EPIPE rather than death, which catching
	 * also gives, and a reader that went away then ends the run the same way either way. */
	if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN &&
	    sig != SIGINT && sig != SIGQUIT && sig != SIGTERM && sig != SIGPIPE)
		return 0;
	/* a handler installed before main (a preloaded profiler's SIGPROF timer) is not ours */
	if ((old.sa_flags & SA_SIGINFO) ||
	    (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN && old.sa_handler != on_signal))
		return 0;
	return sigaction(sig, sa, NULL) < 0 ? -errno : 0;
}

int run_signals_install(void)
{
	struct sigaction sa;
	int rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: a worker blocked in a slow syscall comes back with EINTR and stops */
	for (size_t i = 0; i < sizeof(run_sigs) / sizeof(run_sigs[0]); i++)
		if ((rc = catch_one(run_sigs[i], &sa)))
			return rc;
	/* the real-time signals glibc leaves to applications (it keeps two below SIGRTMIN) */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		if ((rc = catch_one(sig, &sa)))
			return rc;
	return 0;
}

void run_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else if (sig == SIGRTMAX)
		snprintf(buf, len, "SIGRTMAX");
	else if (sig == SIGRTMIN)
		snprintf(buf, len, "SIGRTMIN");
	else if (sig > SIGRTMIN && sig < SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN+%d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "signal %d", sig);
}

int run_signal(void)
{
	return atomic_load(&run_sig);
}

void run_reset(void)
{
	int was = RUN_STOP_ERROR;

	/* a signal that already arrived still stops what comes next */
	atomic_compare_exchange_strong(&run_stop, &was, RUN_GO);
	atomic_store(&err_claimed, 0);
	atomic_store(&err_ready, 0);
}

void opstat_init(struct opstat *s)
{
	s->ops = s->bytes = s->over_2s = s->over_10s = 0;
	s->tick = NULL;
	hist_init(&s->lat);
}

void opstat_merge(struct opstat *dst, const struct opstat *src)
{
	dst->ops += src->ops;
	dst->bytes += src->bytes;
	dst->over_2s += src->over_2s;
	dst->over_10s += src->over_10s;
	hist_merge(&dst->lat, &src->lat);
}

/* The start gate: workers park on it; the main thread opens it once all are parked. */
struct gate {
	pthread_mutex_t mu;
	pthread_cond_t parked;
	pthread_cond_t open_cv;
	unsigned nparked;
	bool open;
};

/* ThreadSanitizer models one descriptor table per process: with the workers' private tables
 * (worker_main), two workers' fd 7 are one descriptor to it and each close a race with the
 * other's open. Its build (make tsan) keeps the table shared, which costs speed only. */
#if defined(__SANITIZE_THREAD__)
#define RUN_PRIVATE_FDS false
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RUN_PRIVATE_FDS false
#endif
#endif
#ifndef RUN_PRIVATE_FDS
#define RUN_PRIVATE_FDS true
#endif

struct worker_arg {
	struct worker *w;
	struct gate *gate;       /* NULL: start at once (serial mode) */
};

static double cputime_s(clockid_t id);
static void cpu_split(double total, double ru_usr, double ru_sys, double *usr, double *sys);

static double tv_s(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static void *worker_main(void *arg)
{
	struct worker_arg *a = arg;
	struct worker *w = a->w;
	struct rusage r0, r1;
	double cpu0;
	bool ran = false;

	if (w->phase->prepare && !run_stopping())
		w->rc = w->phase->prepare(w);
	/* A private copy of the fd table: with the table shared by several threads, every
	 * syscall on an fd takes and drops a file reference (fdget's atomic path), ~40 ns a
	 * pread on tmpfs; a single-threaded tool, or fio's one process per job, has the
	 * lock-free path. The copy keeps every fd open so far; what the worker opens from here
	 * on is its own and is closed when it exits. Best effort: old kernels, seccomp. */
	if (RUN_PRIVATE_FDS && unshare(CLONE_FILES) < 0 && !a->w->phase->name)
		(void)0;
	if (a->gate) {
		pthread_mutex_lock(&a->gate->mu);
		a->gate->nparked++;
		pthread_cond_signal(&a->gate->parked);
		while (!a->gate->open)
			pthread_cond_wait(&a->gate->open_cv, &a->gate->mu);
		pthread_mutex_unlock(&a->gate->mu);
	}
	getrusage(RUSAGE_THREAD, &r0);
	cpu0 = cputime_s(CLOCK_THREAD_CPUTIME_ID);
	w->start_ns = clock_ns();
	if (!w->rc && !run_stopping()) {
		w->rc = w->phase->work(w);
		ran = true;
	}
	w->end_ns = clock_ns();
	if (atomic_fetch_add(&w->phase->ndone, 1) == 0 && !w->phase->serial) {
		/* the first worker done takes the snapshot elbencho calls "first done": how far
		 * everyone had got when the fastest finished */
		struct phase *p = w->phase;

		for (unsigned i = 0; i < p->nworkers; i++) {
			const struct opstat *s = p->workers[i].live;

			if (!s)
				continue;
			p->first_done_ops += HIST_PEEK(s->ops);
			p->first_done_bytes += HIST_PEEK(s->bytes);
		}
	}
	getrusage(RUSAGE_THREAD, &r1);
	cpu_split(cputime_s(CLOCK_THREAD_CPUTIME_ID) - cpu0, tv_s(&r1.ru_utime) - tv_s(&r0.ru_utime),
		  tv_s(&r1.ru_stime) - tv_s(&r0.ru_stime), &w->usr_s, &w->sys_s);
	w->nvcsw = (uint64_t)(r1.ru_nvcsw - r0.ru_nvcsw);
	w->nivcsw = (uint64_t)(r1.ru_nivcsw - r0.ru_nivcsw);
	if (ran && w->phase->finish)
		w->phase->finish(w);
	return NULL;
}

static double cputime_s(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) < 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / NS_PER_S;
}

/* getrusage's user/system split comes from tick sampling and, for a multi-threaded process,
 * lags behind threads still running: over a short window the two can add up to more CPU than
 * the machine has. The total is taken from the scheduler's exact runtime
 * (CLOCK_*_CPUTIME_ID) and split in rusage's proportions; with no tick in the window at all
 * the split is unknown and the time counts as system time (an I/O benchmark's usual case). */
static void cpu_split(double total, double ru_usr, double ru_sys, double *usr, double *sys)
{
	if (total < 0)
		total = 0;
	if (ru_usr + ru_sys > 0) {
		*usr = total * ru_usr / (ru_usr + ru_sys);
		/* no -0.00000 from rounding in the terse output */
		*sys = total > *usr ? total - *usr : 0;
	} else {
		*usr = 0;
		*sys = total;
	}
}

static void phase_window_open(struct phase *p, struct rusage *r0)
{
	getrusage(RUSAGE_SELF, r0);
	p->cpu0_s = cputime_s(CLOCK_PROCESS_CPUTIME_ID);
	/* read by the phase's limit thread (core/phase_limit.c), which counts from it */
	__atomic_store_n(&p->start_ns, clock_ns(), __ATOMIC_RELEASE);
}

static void phase_window_close(struct phase *p, const struct rusage *r0)
{
	struct rusage r1;

	getrusage(RUSAGE_SELF, &r1);
	cpu_split(cputime_s(CLOCK_PROCESS_CPUTIME_ID) - p->cpu0_s,
		  tv_s(&r1.ru_utime) - tv_s(&r0->ru_utime), tv_s(&r1.ru_stime) - tv_s(&r0->ru_stime),
		  &p->usr_s, &p->sys_s);
	p->end_ns = p->first_done_ns = 0;
	for (unsigned i = 0; i < p->nworkers; i++) {
		struct worker *w = &p->workers[i];

		if (!w->started)
			continue;
		if (w->end_ns > p->end_ns)
			p->end_ns = w->end_ns;
		if (!p->first_done_ns || w->end_ns < p->first_done_ns)
			p->first_done_ns = w->end_ns;
	}
	if (!p->end_ns)
		p->end_ns = p->first_done_ns = p->start_ns;
}

static int spawn(struct worker *w, struct worker_arg *a)
{
	int rc = pthread_create(&w->tid, NULL, worker_main, a);

	if (rc) {
		run_fail(rc, "pthread_create", w->phase->name, -1);
		return -rc;
	}
	w->started = true;
	return 0;
}

static int phase_run_serial(struct phase *p, struct worker_arg *args)
{
	struct rusage r0;
	struct sampler *smp = NULL;
	int rc = 0;

	if (p->release && (rc = p->release(p->release_arg, p))) {
		run_fail(-rc, "release", p->name, -1);
		return rc;
	}
	if (p->interval_ns || p->progress)
		smp = sampler_start(p);
	phase_window_open(p, &r0);
	sampler_arm(smp);
	sampler_go(smp);
	for (unsigned i = 0; i < p->nworkers && !run_stopping(); i++) {
		args[i] = (struct worker_arg){ .w = &p->workers[i], .gate = NULL };
		rc = spawn(&p->workers[i], &args[i]);
		if (rc)
			break;
		pthread_join(p->workers[i].tid, NULL);
	}
	phase_window_close(p, &r0);
	sampler_stop(smp);
	return rc;
}

static int phase_run_threads(struct phase *p, struct worker_arg *args)
{
	struct gate gate = { .mu = PTHREAD_MUTEX_INITIALIZER, .parked = PTHREAD_COND_INITIALIZER,
			     .open_cv = PTHREAD_COND_INITIALIZER };
	struct rusage r0;
	struct sampler *smp = NULL;
	unsigned n = 0;
	int rc = 0;

	for (; n < p->nworkers; n++) {
		args[n] = (struct worker_arg){ .w = &p->workers[n], .gate = &gate };
		rc = spawn(&p->workers[n], &args[n]);
		if (rc)
			break;
	}
	/* the reporter's thread made and parked before the window, as the workers are */
	if (p->interval_ns || p->progress)
		smp = sampler_start(p);
	pthread_mutex_lock(&gate.mu);
	while (gate.nparked < n)
		pthread_cond_wait(&gate.parked, &gate.mu);
	if (p->release && !rc) {
		int hrc = p->release(p->release_arg, p);

		if (hrc) {
			run_fail(-hrc, "release", p->name, -1);
			rc = hrc;
		}
	}
	/* every worker is parked: the window opens before any of them can run */
	phase_window_open(p, &r0);
	sampler_arm(smp);
	gate.open = true;
	pthread_cond_broadcast(&gate.open_cv);
	pthread_mutex_unlock(&gate.mu);
	/* the reporter is told after the release so it never delays it */
	sampler_go(smp);
	for (unsigned i = 0; i < n; i++)
		pthread_join(p->workers[i].tid, NULL);
	phase_window_close(p, &r0);
	sampler_stop(smp);
	pthread_cond_destroy(&gate.parked);
	pthread_cond_destroy(&gate.open_cv);
	pthread_mutex_destroy(&gate.mu);
	return rc;
}

int phase_run(struct phase *p)
{
	struct worker_arg *args;
	int rc;

	for (unsigned i = 0; i < p->nworkers; i++) {
		p->workers[i].id = i;
		p->workers[i].phase = p;
		p->workers[i].started = false;
		p->workers[i].rc = 0;
		p->workers[i].start_ns = p->workers[i].end_ns = 0;
		p->workers[i].usr_s = p->workers[i].sys_s = 0;
	}
	atomic_store(&p->ndone, 0);
	p->samples = NULL;
	p->nsamples = 0;
	p->sample_interval_ns = 0;
	p->first_done_ops = p->first_done_bytes = 0;
	/* on the heap, not the stack: a phase may have thousands of workers */
	if (!(args = calloc(p->nworkers ? p->nworkers : 1, sizeof(*args)))) {
		run_fail(ENOMEM, "calloc", p->name, -1);
		return -ENOMEM;
	}
	rc = p->serial ? phase_run_serial(p, args) : phase_run_threads(p, args);
	free(args);
	return rc;
}
