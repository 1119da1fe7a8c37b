/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the SCHED_BVT selftests and the demo: the sched_attr
 * syscalls, and CPU-bound "hog" threads whose CPU time is measured over an
 * interval by a SCHED_FIFO controller, so that the controller itself is
 * never starved by the threads it measures.
 */
#ifndef BVT_UTIL_H
#define BVT_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/sched_bvt.h>

#define NSEC_PER_MSEC	1000000ULL

/* Write @what to the file at @path (sysfs, tracefs); 0 or -1. */
static inline int write_file(const char *path, const char *what)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ret;

	if (fd < 0)
		return -1;
	ret = write(fd, what, strlen(what)) == (ssize_t)strlen(what) ? 0 : -1;
	close(fd);
	return ret;
}

/* Write @val to a sysctl (procfs path relative to /proc/sys); 0 or -1. */
static inline int write_sysctl(const char *name, unsigned long long val)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%llu\n", val) < 0;
	return fclose(f) || ret ? -1 : 0;
}

static inline unsigned long long read_sysctl(const char *name)
{
	unsigned long long val = 0;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &val) != 1)
			val = 0;
		fclose(f);
	}
	return val;
}

static inline int sys_sched_setattr(pid_t pid, struct sched_attr *attr,
				    unsigned int flags)
{
	return syscall(SYS_sched_setattr, pid, attr, flags);
}

static inline int sys_sched_getattr(pid_t pid, struct sched_attr *attr,
				    unsigned int size, unsigned int flags)
{
	return syscall(SYS_sched_getattr, pid, attr, size, flags);
}

/* A SCHED_BVT attr of the full (VER2) size. */
static inline struct sched_attr bvt_attr(unsigned int weight, int nice)
{
	struct sched_attr attr = {
		.size = SCHED_ATTR_SIZE_VER2,
		.sched_policy = SCHED_BVT,
		.sched_nice = nice,
		.sched_bvt_weight = weight,
	};

	return attr;
}

/* A warping SCHED_BVT attr: W, L and U in ns, weight from nice 0. */
static inline struct sched_attr bvt_warp_attr(long long warp,
					      unsigned long long limit,
					      unsigned long long unwarp)
{
	struct sched_attr attr = bvt_attr(0, 0);

	attr.sched_bvt_flags = SCHED_BVT_FLAG_WARP;
	attr.sched_bvt_warp = warp;
	attr.sched_bvt_warp_limit = limit;
	attr.sched_bvt_unwarp = unwarp;
	return attr;
}

/* A reserved-effort SCHED_BVT attr. */
static inline struct sched_attr bvt_reserved_attr(unsigned int weight)
{
	struct sched_attr attr = bvt_attr(weight, 0);

	attr.sched_bvt_flags = SCHED_BVT_FLAG_RESERVED;
	return attr;
}

/* A SCHED_OTHER (EEVDF) attr. */
static inline struct sched_attr other_attr(int nice)
{
	struct sched_attr attr = {
		.size = SCHED_ATTR_SIZE_VER0,
		.sched_policy = SCHED_OTHER,
		.sched_nice = nice,
	};

	return attr;
}

/*
 * A numeric field ("bvt.avt", "se.nr_migrations") of thread @tid of this
 * process, from /proc/self/task/TID/sched (CONFIG_SCHED_DEBUG); -1 if it
 * is not there.  Times are in ms.
 */
/*
 * Fields of /proc/<tid>/sched from one read: the kernel prints them from
 * one snapshot, so fields of a running thread can be compared.  @vals[i]
 * is -1 for a field that is not there.
 */
static inline void proc_sched_fields(pid_t tid, const char *const *fields,
				     double *vals, int n)
{
	char path[64], line[256];
	FILE *f;
	int i;

	for (i = 0; i < n; i++)
		vals[i] = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		const char *colon = strchr(line, ':');

		for (i = 0; colon && i < n; i++) {
			size_t len = strlen(fields[i]);

			if (!strncmp(line, fields[i], len) && line[len] == ' ')
				sscanf(colon + 1, "%lf", &vals[i]);
		}
	}
	if (f)
		fclose(f);
}

static inline double proc_sched_field(pid_t tid, const char *field)
{
	double v;

	proc_sched_fields(tid, &field, &v, 1);
	return v;
}

static inline double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline double clock_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CLOCK_MONOTONIC, in ms. */
static inline double mono_ms(void)
{
	return now_s() * 1e3;
}

/*
 * The scheduler tick, in ms: the coarse clocks' resolution is the jiffy.
 * The allowance C and the wake-up granularity G are enforced at ticks, so
 * what a test can tell apart of them depends on it (1 ms at HZ=1000, a
 * distribution's 250 Hz makes it 4).
 */
static inline double tick_ms(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts))
		return 1;
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The CPU the one-CPU tests run on: the last, away from the shell's. */
static inline int test_cpu(void)
{
	return get_nprocs() - 1;
}

#ifndef __NR_bvt_ctl
#define __NR_bvt_ctl	464
#endif

/* bvt_ctl(2) with every argument, errors included (no libc wrapper). */
static inline long bvt_ctl(unsigned int op, pid_t pid, void *arg,
			   unsigned int flags)
{
	return syscall(__NR_bvt_ctl, op, pid, arg, flags);
}

/* Take @cpu offline (0) or bring it back (1); -1 if that failed. */
static inline int set_online(int cpu, int online)
{
	char path[64];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/online", cpu);
	return write_file(path, online ? "1" : "0");
}

static inline int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The controller: SCHED_FIFO, so that it runs whenever it wakes up. */
static inline int become_controller(void)
{
	struct sched_param sp = { .sched_priority = 50 };

	return sched_setscheduler(0, SCHED_FIFO, &sp);
}

/* Whether a sched_ext scheduler is loaded, and how far. */
#define SCX_STATE	"/sys/kernel/sched_ext/state"

/* The contents of SCX_STATE ("enabled", "disabled", ...) into @buf. */
static inline const char *scx_state(char *buf, size_t len)
{
	FILE *f = fopen(SCX_STATE, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static inline bool scx_state_is(const char *want)
{
	char buf[32];

	return !strcmp(scx_state(buf, sizeof(buf)), want);
}

/* Where the tests read the class's tracepoints. */
#define TRACEFS		"/sys/kernel/tracing"

/* The reserved share that admission holds, in ppb: 0 with none. */
#define RSV_ADMITTED	"kernel/sched_bvt_rsv_admitted"
#define ALLOWANCE	"kernel/sched_bvt_allowance_ns"
#define GRAN		"kernel/sched_bvt_wakeup_granularity_ns"

/*
 * Set up a test that reserves time with bvt_ctl(2): nothing reserved
 * before it, run by the SCHED_FIFO controller on CPU 0.  Returns 0, 1 if
 * the kernel has no bvt_ctl(2) (skip), or -1 with errno set.
 */
static inline int rsv_test_setup(void)
{
	if (access("/proc/sys/" RSV_ADMITTED, R_OK))
		return 1;
	if (read_sysctl(RSV_ADMITTED)) {
		errno = EBUSY;
		return -1;
	}
	if (become_controller() || pin_self(0))
		return -1;
	return 0;
}

/* Of a run of checks in a thread: the first that went wrong, and errno. */
struct steps {
	int steps, step, err;
};

static inline void check_step(struct steps *o, bool ok)
{
	o->steps++;
	if (!ok && !o->step) {
		o->step = o->steps;
		o->err = errno;
	}
}

struct hog {
	/* in: the policy to run under, the CPU */
	struct sched_attr attr;
	int cpu;		/* -1: any */
	bool yield;		/* call sched_yield() in the loop */
	bool gaps;		/* measure max_gap_s and count long runs */
	double long_run_s;	/* with gaps: a run this long counts */
	bool cookie;		/* in a core-scheduling cookie of its own */
	bool coop;		/* a coop_poll() member, calling every 2 ms */
	/* out */
	pid_t tid;
	int err;		/* errno of setting it up, 0 if it worked */
	double cpu_s;		/* CPU time over the measured interval */
	double max_gap_s;	/* longest wait between two loop runs */
	int nr_long_runs;	/* runs of long_run_s or more, no gap of 1 ms */
	/* private */
	pthread_t thread;
	clockid_t clock;
	atomic_int *ready;
	atomic_bool *stop;
	int go;			/* read end of a pipe: a byte means start */
};

/* How long the last run_hogs() measured, in wall-clock seconds. */
static double hogs_wall_s;

#ifndef __NR_coop_poll
#define __NR_coop_poll	463
#endif

/* coop_poll(2) with every argument, errors included (tools/sched/coop_poll.h). */
static inline int bvt_coop_poll(const struct sched_bvt_coop *in,
				struct sched_bvt_coop *out, unsigned int flags)
{
	return syscall(__NR_coop_poll, in, out, flags);
}

static void spin_cpu_ms(double ms);

/*
 * A cooperating hog: 2 ms of work between calls, each with an event whose
 * priority is the number of calls so far, so that the members take turns.
 */
static inline int hog_coop_turn(unsigned int *calls)
{
	struct sched_bvt_coop in = {
		.size = sizeof(in),
		.flags = SCHED_BVT_COOP_EVENT,
		.priority = *calls < SCHED_BVT_COOP_PRIO_MAX ?
			    *calls : SCHED_BVT_COOP_PRIO_MAX,
	};

	spin_cpu_ms(2);
	++*calls;
	return bvt_coop_poll(&in, NULL, 0);
}

/*
 * A hog pins itself and waits, asleep, for its policy: the controller sets
 * it from outside, so that no hog can be starved by another (a warped one,
 * say) before it has told the controller it is ready.
 */
static void *hog_main(void *arg)
{
	struct hog *h = arg;
	unsigned int calls = 0;
	double last, t, run0;
	char c;

	h->tid = gettid();
	h->err = 0;
	h->max_gap_s = 0;
	h->nr_long_runs = 0;
	if (h->cpu >= 0 && pin_self(h->cpu))
		h->err = errno;
	atomic_fetch_add(h->ready, 1);
	if (read(h->go, &c, 1) != 1)
		return NULL;
	last = now_s();
	run0 = last;
	while (!atomic_load_explicit(h->stop, memory_order_relaxed)) {
		if (h->yield)
			sched_yield();
		if (h->coop && hog_coop_turn(&calls) && !h->err)
			h->err = errno;
		if (!h->gaps)
			continue;
		t = now_s();
		if (t - last > h->max_gap_s)
			h->max_gap_s = t - last;
		if (t - last > 0.001) {
			if (h->long_run_s && last - run0 >= h->long_run_s)
				__atomic_add_fetch(&h->nr_long_runs, 1,
						   __ATOMIC_RELAXED);
			run0 = t;
		}
		last = t;
	}
	if (h->gaps && h->long_run_s && last - run0 >= h->long_run_s)
		__atomic_add_fetch(&h->nr_long_runs, 1, __ATOMIC_RELAXED);
	if (h->coop)
		bvt_coop_poll(NULL, NULL, 0);
	return NULL;
}

/* What the controller does while hogs run: by default, sleep. */
typedef void (*hogs_during_fn)(struct hog *hogs, int n, unsigned int ms);

/*
 * Run @n hogs for @ms milliseconds and measure the CPU time each got,
 * calling @during (NULL: sleeping) meanwhile.  The calling thread must be
 * the controller.  Returns 0, or -1 if a hog could not be set up (see its
 * err).
 */
static inline int run_hogs_during(struct hog *hogs, int n, unsigned int ms,
				  hogs_during_fn during)
{
	struct timespec interval = {
		.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L,
	};
	atomic_int ready = 0;
	atomic_bool stop = false;
	double *start = calloc(n, sizeof(*start));
	int go[2], i, ret = 0;
	double t0;

	if (pipe(go))
		return -1;
	for (i = 0; i < n; i++) {
		hogs[i].ready = &ready;
		hogs[i].stop = &stop;
		hogs[i].go = go[0];
		pthread_create(&hogs[i].thread, NULL, hog_main, &hogs[i]);
	}
	while (atomic_load(&ready) < n)
		usleep(1000);
	/* Threads inherit the controller's SCHED_FIFO: always set a policy. */
	for (i = 0; i < n; i++)
		if (!hogs[i].err && sys_sched_setattr(hogs[i].tid, &hogs[i].attr, 0))
			hogs[i].err = errno;
	for (i = 0; i < n; i++)
		if (!hogs[i].err && hogs[i].cookie &&
		    prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, hogs[i].tid,
			  PR_SCHED_CORE_SCOPE_THREAD, 0))
			hogs[i].err = errno;
	for (i = 0; i < n; i++)
		if (write(go[1], "g", 1) != 1)
			ret = -1;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		pthread_getcpuclockid(hogs[i].thread, &hogs[i].clock);
		start[i] = clock_s(hogs[i].clock);
	}
	if (during)
		during(hogs, n, ms);
	else
		nanosleep(&interval, NULL);
	for (i = 0; i < n; i++)
		hogs[i].cpu_s = clock_s(hogs[i].clock) - start[i];
	hogs_wall_s = now_s() - t0;
	atomic_store(&stop, true);
	for (i = 0; i < n; i++) {
		pthread_join(hogs[i].thread, NULL);
		if (hogs[i].err)
			ret = -1;
	}
	close(go[0]);
	close(go[1]);
	free(start);
	return ret;
}

static inline int run_hogs(struct hog *hogs, int n, unsigned int ms)
{
	return run_hogs_during(hogs, n, ms, NULL);
}

/* The share of hogs[i] in the CPU time of all @n. */
static inline double hog_share(const struct hog *hogs, int n, int i)
{
	double total = 0;
	int j;

	for (j = 0; j < n; j++)
		total += hogs[j].cpu_s;
	return total > 0 ? hogs[i].cpu_s / total : 0;
}

/* A thread that wakes every period_ms and then runs for run_ms. */
struct periodic {
	struct sched_attr attr;
	int cpu, periods;
	double period_ms, run_ms;
	double delay_ms[200];	/* wake-up to running, per period */
	int err;
};

static void spin_cpu_ms(double ms)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + ms / 1000;

	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
		;
}

static void *periodic_main(void *arg)
{
	struct periodic *pr = arg;
	struct timespec next;
	long period_ns = pr->period_ms * 1e6;
	int i;

	if (pin_self(pr->cpu) || sys_sched_setattr(0, &pr->attr, 0)) {
		pr->err = errno;
		return NULL;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < pr->periods; i++) {
		next.tv_nsec += period_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		pr->delay_ms[i] = (now_s() - next.tv_sec - next.tv_nsec / 1e9) * 1e3;
		spin_cpu_ms(pr->run_ms);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

#define MAX_HOGS	8
#define MAX_RUNS	5

/*
 * Under QEMU's TCG the whole guest sometimes stops for 0.1 s to 1 s (seen
 * with both vCPUs' clocks jumping at once), and the stall is charged to
 * whatever ran.  Run @hogs @runs times for @ms each and give each one's
 * median share in @share, which one stall cannot move.
 */
static inline int median_shares(struct hog *hogs, int n, int runs,
				unsigned int ms, double *share)
{
	double s[MAX_HOGS][MAX_RUNS];
	int i, run;

	for (run = 0; run < runs; run++) {
		if (run_hogs(hogs, n, ms))
			return -1;
		for (i = 0; i < n; i++) {
			s[i][run] = hog_share(hogs, n, i);
			printf("# run %d thread %d: %.3f s CPU, share %.3f\n",
			       run, i, hogs[i].cpu_s, s[i][run]);
		}
	}
	for (i = 0; i < n; i++)
		share[i] = median(s[i], runs);
	return 0;
}

/*
 * Run @pr next to @nhogs CPU-bound threads with @hog_attr on its CPU and
 * return its median wake-up delay in ms (see pr->err).  Called by the
 * controller.
 */
static inline double periodic_among_hogs(struct periodic *pr, int nhogs,
					 struct sched_attr hog_attr)
{
	struct hog hogs[MAX_HOGS];
	pthread_t thread;
	int i;

	for (i = 0; i < nhogs; i++)
		hogs[i] = (struct hog){ .attr = hog_attr, .cpu = pr->cpu };
	pthread_create(&thread, NULL, periodic_main, pr);
	run_hogs(hogs, nhogs, pr->periods * pr->period_ms + 300);
	for (i = 0; i < nhogs; i++)
		pr->err = pr->err ?: hogs[i].err;
	pthread_join(thread, NULL);
	return median(pr->delay_ms, pr->periods);
}

#endif /* BVT_UTIL_H */
