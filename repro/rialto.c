// SPDX-License-Identifier: GPL-2.0
/*
 * rialto: the workloads of the Rialto/NT paper's section 4 (M. B. Jones
 * and J. Regehr, "CPU Reservations and Time Constraints: Implementation
 * Experience on Windows NT", 1999), on SCHED_BVT's reservations.  Run as
 * root; the main thread is the controller (SCHED_FIFO 90 on CPU 0) and
 * sets every thread's policy from outside.  Prints one JSON object.
 *
 *   rialto fig 4-4|4-5|4-6|4-8 SECONDS
 *	The traces of Figures 4-4 to 4-6: CPU-bound SCHED_BVT threads asking
 *	1/10, 4/20 and 16/40 ms, on the last CPU, beside a BVT competitor
 *	warped by 10 s (the paper's high-priority time-sharing thread),
 *	which runs whenever no reservation does; 4-5 adds, for the 1/10 thread, a
 *	time constraint of 2 ms in the next 10 ms after each 2 ms of its own
 *	run time; 4-6 has no competitor.  4-8: 2/10, 8/20 and 32/40 ms on
 *	any CPU, two competitors.  The caller traces sched_switch.
 *   rialto ctxsw other|bvt|rsv|dl SECONDS
 *	Figure 4-1's switch cost: 10 CPU-bound threads on the last CPU, in
 *	SCHED_OTHER, SCHED_BVT, SCHED_BVT with reservations of 2 to 18 ms
 *	every 128 ms, or SCHED_DEADLINE with the same runtimes, and a nice
 *	19 SCHED_OTHER thread for the time they leave.  Each thread reads
 *	the clock in a loop; the time from the last read of a thread to the
 *	first of the next one is a switch.  SCHED_DEADLINE admits a pinned
 *	thread only if its root domain is that CPU: the caller takes the
 *	other CPUs offline.
 *   rialto acquire 1|2
 *	Figure 4-2: 64 reservations of 1 ms at the paper's periods (4 s, 4 s,
 *	2 s, 4 s, 2 s, 1 s, ...) for 64 blocked threads on the last CPU (1)
 *	or any (2): the time of each BVT_CTL_RESERVE, then of each release.
 *   rialto tcloop RUNS LOOPS
 *	Section 4.3's loop: a thread without a reservation ends its time
 *	constraint and begins the next (100 us in the next 10 ms) in one
 *	call, LOOPS times a run.
 *   rialto base
 *	What the others are compared with in the same boot: getppid(), and
 *	sched_setattr() to SCHED_DEADLINE (1 ms every 100 ms) and to
 *	SCHED_BVT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/sched_bvt.h>

#include "clock.h"
#include "../tools/sched/bvt_syscall.h"

#define MS		1000000ULL
#define MAX_THREADS	64

static atomic_bool go, stop;

static long bvt_ctl(unsigned int op, pid_t pid, void *arg)
{
	if (!sched_bvt_present())
		return -1;
	return syscall(__NR_bvt_ctl, op, pid, arg, 0);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "rialto: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void set_affinity(pid_t tid, int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < sysconf(_SC_NPROCESSORS_ONLN); i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &set);
	if (sched_setaffinity(tid, sizeof(set), &set))
		die("sched_setaffinity");
}

static int set_attr(pid_t tid, struct sched_attr *attr)
{
	attr->size = sizeof(*attr);
	return syscall(SYS_sched_setattr, tid, attr, 0);
}

static void set_policy(pid_t tid, const char *policy, unsigned long long runtime,
		       unsigned long long period)
{
	struct sched_attr attr = { 0 };

	if (!strcmp(policy, "other")) {
		attr.sched_policy = SCHED_OTHER;
	} else if (!strcmp(policy, "nice19")) {
		attr.sched_policy = SCHED_OTHER;
		attr.sched_nice = 19;
	} else if (!strcmp(policy, "dl")) {
		attr.sched_policy = SCHED_DEADLINE;
		attr.sched_runtime = runtime;
		attr.sched_deadline = period;
		attr.sched_period = period;
	} else if (!strcmp(policy, "warped")) {
		/*
		 * Warped by the most the class allows, 10 s of virtual time:
		 * over a trace of 10 s it stays ahead of every unwarped
		 * thread, as the paper's high-priority time-sharing thread.
		 */
		attr.sched_policy = SCHED_BVT;
		attr.sched_bvt_flags = SCHED_BVT_FLAG_WARP;
		attr.sched_bvt_warp = SCHED_BVT_WARP_MAX;
	} else {
		attr.sched_policy = SCHED_BVT;
	}
	if (set_attr(tid, &attr))
		die("sched_setattr");
}

static int reserve(pid_t tid, unsigned long long amount,
		   unsigned long long period, struct sched_bvt_rsv *r)
{
	*r = (struct sched_bvt_rsv){ .size = sizeof(*r), .amount = amount,
				     .period = period };
	return bvt_ctl(BVT_CTL_RESERVE, tid, r);
}

static void controller(void)
{
	struct sched_param fifo = { .sched_priority = 90 };
	cpu_set_t set;

	/* On CPU 0 if its cpuset has it (see ctxsw()). */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		die("SCHED_FIFO");
}

/* A thread of the experiment: created blocked, released by go. */
struct thread {
	pthread_t pthread;
	pid_t tid;
	atomic_int *ready;
	void (*body)(struct thread *t);
	/* fig 4-5's constraint loop */
	bool constraints;
	unsigned long begun, accepted, met, near;
	/* ctxsw */
	double *gaps;
	int nr_gaps, max_gaps;
};

static void *thread_main(void *arg)
{
	struct thread *t = arg;

	t->tid = gettid();
	atomic_fetch_add(t->ready, 1);
	while (!atomic_load(&go))
		usleep(1000);
	t->body(t);
	return NULL;
}

static void start_threads(struct thread *t, int n, void (*body)(struct thread *))
{
	static atomic_int ready;
	int i;

	atomic_store(&ready, 0);
	for (i = 0; i < n; i++) {
		t[i].ready = &ready;
		t[i].body = body;
		if (pthread_create(&t[i].pthread, NULL, thread_main, &t[i]))
			die("pthread_create");
	}
	while (atomic_load(&ready) < n)
		usleep(1000);
}

static void join_threads(struct thread *t, int n)
{
	int i;

	atomic_store(&stop, true);
	for (i = 0; i < n; i++)
		pthread_join(t[i].pthread, NULL);
}

/*
 * Spin; with constraints, after each 2 ms of run time, end the constraint
 * and begin the next: 2 ms in the next 10 ms.  Met: ended by its deadline;
 * near: missed it by at most 0.5 ms (how late timers are under TCG).
 */
static void spin_body(struct thread *t)
{
	double next = now_s(CLOCK_THREAD_CPUTIME_ID) + 0.002;
	unsigned long long deadline = 0;
	struct sched_bvt_tc tc;
	long ret;

	while (!atomic_load(&stop)) {
		if (!t->constraints || now_s(CLOCK_THREAD_CPUTIME_ID) < next)
			continue;
		next += 0.002;
		/* A refused one is begun too: END_PREV ends it. */
		tc = (struct sched_bvt_tc){ .size = sizeof(tc),
			.flags = t->begun ? SCHED_BVT_TC_END_PREV : 0,
			.start = now_ns(), .estimate = 2 * MS };
		tc.deadline = tc.start + 10 * MS;
		if (deadline && tc.start <= deadline)
			t->met++;
		else if (deadline && tc.start <= deadline + MS / 2)
			t->near++;
		ret = bvt_ctl(BVT_CTL_TC_BEGIN, 0, &tc);
		if (ret < 0)
			die("BVT_CTL_TC_BEGIN");
		t->begun++;
		t->accepted += ret;
		deadline = ret ? tc.deadline : 0;
	}
	if (t->begun) {
		if (deadline && now_ns() <= deadline)
			t->met++;
		tc = (struct sched_bvt_tc){ .size = sizeof(tc) };
		bvt_ctl(BVT_CTL_TC_END, 0, &tc);
	}
}

static int fig(const char *which, double seconds)
{
	static const double one[3][2] = { { 1, 10 }, { 4, 20 }, { 16, 40 } };
	static const double two[3][2] = { { 2, 10 }, { 8, 20 }, { 32, 40 } };
	bool smp = !strcmp(which, "4-8");
	int ncomp = smp ? 2 : strcmp(which, "4-6") ? 1 : 0;
	int cpu = smp ? -1 : sysconf(_SC_NPROCESSORS_ONLN) - 1;
	const double (*rsv)[2] = smp ? two : one;
	struct sched_bvt_rsv granted[3];
	struct thread t[5] = { 0 };
	double t0, t1;
	int i, n = 3 + ncomp;

	if (strcmp(which, "4-4") && strcmp(which, "4-5") &&
	    strcmp(which, "4-6") && !smp)
		return -1;
	t[0].constraints = !strcmp(which, "4-5");
	start_threads(t, n, spin_body);
	for (i = 0; i < n; i++) {
		set_affinity(t[i].tid, cpu);
		set_policy(t[i].tid, i < 3 ? "bvt" : "warped", 0, 0);
	}
	/* Largest first: 32/40 ms needs a CPU nearly to itself. */
	for (i = 2; i >= 0; i--) {
		if (reserve(t[i].tid, rsv[i][0] * MS, rsv[i][1] * MS,
			    &granted[i]))
			die("BVT_CTL_RESERVE");
	}
	t0 = now_s(CLOCK_MONOTONIC);
	atomic_store(&go, true);
	usleep(seconds * 1e6);
	t1 = now_s(CLOCK_MONOTONIC);
	join_threads(t, n);
	printf("{\"fig\": \"%s\", \"t0\": %.6f, \"t1\": %.6f, \"threads\": [",
	       which, t0, t1);
	for (i = 0; i < n; i++) {
		printf("%s\n {\"name\": \"%s%d\", \"tid\": %d", i ? "," : "",
		       i < 3 ? "R" : "C", i < 3 ? i + 1 : i - 2, t[i].tid);
		if (i < 3)
			printf(", \"asked_ms\": [%g, %g], \"granted_ms\": [%.6f, %.6f], \"cpu\": %d",
			       rsv[i][0], rsv[i][1], granted[i].amount / 1e6,
			       granted[i].period / 1e6, granted[i].cpu);
		if (t[i].constraints)
			printf(", \"tc_begun\": %lu, \"tc_accepted\": %lu, \"tc_met\": %lu, \"tc_near\": %lu",
			       t[i].begun, t[i].accepted, t[i].met, t[i].near);
		printf("}");
	}
	printf("]}\n");
	return 0;
}

/* The last clock read of any thread, and whose. */
static _Atomic unsigned long long last_ns;
static atomic_int last_tid;

static void ctxsw_body(struct thread *t)
{
	unsigned long long now, prev;

	while (!atomic_load(&stop)) {
		now = now_ns();
		if (atomic_load_explicit(&last_tid, memory_order_relaxed) !=
		    t->tid) {
			prev = atomic_load(&last_ns);
			if (prev && now > prev && t->nr_gaps < t->max_gaps)
				t->gaps[t->nr_gaps++] = (now - prev) / 1e3;
			atomic_store(&last_tid, t->tid);
		}
		atomic_store_explicit(&last_ns, now, memory_order_relaxed);
	}
}

static void print_stats(const char *name, double *v, int n)
{
	double sum = 0;
	int i;

	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	printf("\"%s\": {\"n\": %d", name, n);
	if (n)
		printf(", \"min\": %.3f, \"median\": %.3f, \"mean\": %.3f, \"p90\": %.3f, \"max\": %.3f",
		       v[0], v[n / 2], sum / n, v[n * 9 / 10], v[n - 1]);
	printf("}");
}

static int ctxsw(const char *policy, double seconds)
{
	int cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1, i, n = 0;
	struct thread t[11] = { 0 };
	struct sched_bvt_rsv r;
	double *all;

	if (strcmp(policy, "other") && strcmp(policy, "bvt") &&
	    strcmp(policy, "rsv") && strcmp(policy, "dl"))
		return -1;
	for (i = 0; i < 11; i++) {
		t[i].max_gaps = 200000;
		t[i].gaps = calloc(t[i].max_gaps, sizeof(double));
	}
	start_threads(t, 11, ctxsw_body);
	set_affinity(t[10].tid, cpu);
	set_policy(t[10].tid, "nice19", 0, 0);
	for (i = 0; i < 10; i++) {
		/* 2 to 18 ms of every 128: 100 ms in all. */
		unsigned long long amount = (2 + 16 * i / 9.0) * MS;

		set_affinity(t[i].tid, cpu);
		set_policy(t[i].tid, !strcmp(policy, "rsv") ? "bvt" : policy,
			   amount, 128 * MS);
		if (!strcmp(policy, "rsv") &&
		    reserve(t[i].tid, amount, 128 * MS, &r))
			die("BVT_CTL_RESERVE");
	}
	atomic_store(&go, true);
	usleep(seconds * 1e6);
	join_threads(t, 11);
	for (i = 0; i < 11; i++)
		n += t[i].nr_gaps;
	all = calloc(n + 1, sizeof(double));
	for (n = 0, i = 0; i < 11; i++) {
		memcpy(all + n, t[i].gaps, t[i].nr_gaps * sizeof(double));
		n += t[i].nr_gaps;
	}
	printf("{\"policy\": \"%s\", \"seconds\": %g, ", policy, seconds);
	print_stats("switch_us", all, n);
	printf("}\n");
	return 0;
}

static void block_body(struct thread *t)
{
	while (!atomic_load(&stop))
		usleep(10000);
}

/* The paper's sequence: 4 s; 4, 2 s; 4, 2, 1 s; 4, 2, 1, 0.5 s; ... */
static unsigned long long paper_period(int n)
{
	int k = 1;

	while (n >= k) {
		n -= k;
		k++;
	}
	return 4000 * MS >> n;
}

static int acquire(int cpus)
{
	double took[MAX_THREADS], freed[MAX_THREADS], t;
	struct thread th[MAX_THREADS] = { 0 };
	int cpu = cpus == 1 ? sysconf(_SC_NPROCESSORS_ONLN) - 1 : -1;
	struct sched_bvt_rsv r[MAX_THREADS];
	int err[MAX_THREADS], i;

	start_threads(th, MAX_THREADS, block_body);
	for (i = 0; i < MAX_THREADS; i++) {
		set_affinity(th[i].tid, cpu);
		set_policy(th[i].tid, "bvt", 0, 0);
	}
	/* Its first look at /proc is not the kernel's to answer for. */
	if (!sched_bvt_present())
		die("SCHED_BVT");
	atomic_store(&go, true);
	for (i = 0; i < MAX_THREADS; i++) {
		t = now_s(CLOCK_MONOTONIC);
		err[i] = reserve(th[i].tid, 1 * MS, paper_period(i), &r[i]) ?
			 errno : 0;
		took[i] = (now_s(CLOCK_MONOTONIC) - t) * 1e6;
	}
	for (i = MAX_THREADS - 1; i >= 0; i--) {
		t = now_s(CLOCK_MONOTONIC);
		if (!err[i] && bvt_ctl(BVT_CTL_RELEASE, th[i].tid, NULL))
			die("BVT_CTL_RELEASE");
		freed[i] = (now_s(CLOCK_MONOTONIC) - t) * 1e6;
	}
	join_threads(th, MAX_THREADS);
	printf("{\"cpus\": %d, \"reserve\": [", cpus);
	for (i = 0; i < MAX_THREADS; i++)
		printf("%s\n {\"period_ms\": %g, \"us\": %.2f, \"errno\": %d, \"cpu\": %d, \"release_us\": %.2f}",
		       i ? "," : "", paper_period(i) / 1e6, took[i], err[i],
		       err[i] ? -1 : r[i].cpu, freed[i]);
	printf("]}\n");
	return 0;
}

static int tcloop(int runs, int loops)
{
	struct sched_attr attr = { .sched_policy = SCHED_BVT };
	double *v = calloc(loops, sizeof(double)), t;
	struct sched_bvt_tc tc;
	int run, i, accepted;

	set_affinity(0, sysconf(_SC_NPROCESSORS_ONLN) - 1);
	if (set_attr(0, &attr))
		die("sched_setattr");
	printf("{\"runs\": [");
	for (run = 0; run < runs; run++) {
		accepted = 0;
		for (i = 0; i <= loops; i++) {
			tc = (struct sched_bvt_tc){ .size = sizeof(tc),
				.flags = i ? SCHED_BVT_TC_END_PREV : 0,
				.start = now_ns(), .estimate = MS / 10 };
			tc.deadline = tc.start + 10 * MS;
			t = now_s(CLOCK_MONOTONIC);
			if (bvt_ctl(BVT_CTL_TC_BEGIN, 0, &tc) < 0)
				die("BVT_CTL_TC_BEGIN");
			if (i)
				v[i - 1] = (now_s(CLOCK_MONOTONIC) - t) * 1e6;
			accepted += tc.cpu >= 0;
		}
		tc = (struct sched_bvt_tc){ .size = sizeof(tc) };
		bvt_ctl(BVT_CTL_TC_END, 0, &tc);
		printf("%s\n {\"accepted\": %d, ", run ? "," : "", accepted);
		print_stats("us", v, loops);
		printf("}");
	}
	printf("]}\n");
	return 0;
}

static int setattr_retries;

/*
 * The time of sched_setattr() to @attr, us; then back to @back.  A task
 * that left SCHED_DEADLINE keeps its bandwidth until its 0-lag time, up
 * to a period later, and after CPU hotplug 6.12's accounting has now and
 * then refused the next one (EBUSY): such a call is tried again, 100 ms
 * later, and counted, not timed.
 */
static double timed_setattr(struct sched_attr *attr, struct sched_attr *back)
{
	double t = now_s(CLOCK_MONOTONIC), us;
	int tries = 0;

	while (set_attr(0, attr)) {
		if (errno != EBUSY || ++tries > 20)
			die("sched_setattr");
		setattr_retries++;
		usleep(100000);
		t = now_s(CLOCK_MONOTONIC);
	}
	us = (now_s(CLOCK_MONOTONIC) - t) * 1e6;
	if (set_attr(0, back))
		die("sched_setattr back");
	return us;
}

static int base(void)
{
	struct sched_attr dl = { .sched_policy = SCHED_DEADLINE,
				 .sched_runtime = MS,
				 .sched_deadline = 100 * MS,
				 .sched_period = 100 * MS };
	struct sched_attr bvt = { .sched_policy = SCHED_BVT };
	struct sched_attr other = { .sched_policy = SCHED_OTHER };
	static double v[3][1000];
	double t;
	int i;

	/* A thread of its own, unpinned: SCHED_DEADLINE wants the whole root domain. */
	set_affinity(0, -1);
	if (set_attr(0, &other))
		die("sched_setattr");
	for (i = 0; i < 1000; i++) {
		t = now_s(CLOCK_MONOTONIC);
		syscall(SYS_getppid);
		v[0][i] = (now_s(CLOCK_MONOTONIC) - t) * 1e6;
	}
	for (i = 0; i < 200; i++) {
		v[1][i] = timed_setattr(&dl, &other);
		v[2][i] = timed_setattr(&bvt, &other);
	}
	printf("{");
	print_stats("getppid_us", v[0], 1000);
	printf(", ");
	print_stats("setattr_dl_us", v[1], 200);
	printf(", ");
	print_stats("setattr_bvt_us", v[2], 200);
	printf(", \"setattr_retries\": %d", setattr_retries);
	printf("}\n");
	return 0;
}

int main(int argc, char **argv)
{
	int ret = -1;

	if (argc < 2)
		goto usage;
	if (strcmp(argv[1], "base"))
		controller();
	if (!strcmp(argv[1], "fig") && argc == 4)
		ret = fig(argv[2], atof(argv[3]));
	else if (!strcmp(argv[1], "ctxsw") && argc == 4)
		ret = ctxsw(argv[2], atof(argv[3]));
	else if (!strcmp(argv[1], "acquire") && argc == 3)
		ret = acquire(atoi(argv[2]));
	else if (!strcmp(argv[1], "tcloop") && argc == 4)
		ret = tcloop(atoi(argv[2]), atoi(argv[3]));
	else if (!strcmp(argv[1], "base") && argc == 2)
		ret = base();
	if (!ret)
		return 0;
usage:
	fprintf(stderr, "usage: see the comment at the top of rialto.c\n");
	return 2;
}
