// SPDX-License-Identifier: GPL-2.0
/*
 * The PBS paper's Figures 2 and 3 (and 4, which measured 2 in a kernel):
 * CPU-bound threads on one CPU, arriving at given times and needing given
 * CPU time, in the best-effort level as it is set (PBS mode and alpha are
 * the caller's).  A sampler on another CPU reads every thread's CPU time
 * every 50 ms; the same workload is run through the reference simulation
 * (tools/testing/selftests/bvt/pbs_sim.h) and sampled the same way.
 *
 *   pbs_fig fig2|fig3 SCALE CPU POLICY
 *
 * SCALE divides every time (1: the paper's 12 s); POLICY is bvt (a
 * best-effort SCHED_BVT thread) or other (SCHED_OTHER).  Prints JSON: per
 * thread its arrival, demand and completion time, and the samples, each
 * a time and the CPU time every thread had by then (ms), measured and
 * simulated.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/sched_bvt.h>

#include "../tools/testing/selftests/bvt/pbs_sim.h"

#define MAX_T		8
#define SAMPLE_MS	50
#define MAX_SAMPLES	1024

struct thread {
	double arrive_ms, demand_ms, done_ms;
	pthread_t pt;
	clockid_t clock;
	pid_t tid;
	int go;
	atomic_int *ready;
};

static double t0;
static atomic_bool stop;
static double end_ms;

static double now_ms(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int cpu_of_threads;

static void *thread_main(void *arg)
{
	struct thread *t = arg;
	struct timespec at;
	double until, abs_ms;
	char c;

	t->tid = gettid();
	pin(cpu_of_threads);
	atomic_fetch_add(t->ready, 1);
	if (read(t->go, &c, 1) != 1)
		return NULL;
	abs_ms = t0 + t->arrive_ms;
	at.tv_sec = abs_ms / 1e3;
	at.tv_nsec = (abs_ms - at.tv_sec * 1e3) * 1e6;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	until = now_ms(CLOCK_THREAD_CPUTIME_ID) + t->demand_ms;
	while (now_ms(CLOCK_THREAD_CPUTIME_ID) < until && !atomic_load(&stop))
		;
	t->done_ms = now_ms(CLOCK_MONOTONIC) - t0;
	return NULL;
}

static void set_policy(pid_t tid, const char *policy)
{
	struct sched_attr attr = { .size = sizeof(attr) };

	if (!strcmp(policy, "bvt"))
		attr.sched_policy = SCHED_BVT;
	else
		attr.sched_policy = SCHED_OTHER;
	if (syscall(SYS_sched_setattr, tid, &attr, 0)) {
		perror("sched_setattr");
		exit(1);
	}
}

static void print_samples(const char *name, double s[][MAX_T + 1], int ns,
			  int n)
{
	int i, j;

	printf(" \"%s\": [", name);
	for (i = 0; i < ns; i++) {
		printf("%s[%.1f", i ? ", " : "", s[i][0]);
		for (j = 0; j < n; j++)
			printf(", %.2f", s[i][j + 1]);
		printf("]");
	}
	printf("],\n");
}

int main(int argc, char **argv)
{
	/* Fig. 2: four threads; Fig. 3: one, then four more, to the end. */
	static const double fig2[][2] = {
		{ 0, 4500 }, { 1000, 2500 }, { 3000, 3000 }, { 5000, 2000 },
	};
	static const double fig3[][2] = {
		{ 0, 1e9 }, { 2500, 1e9 }, { 3000, 1e9 }, { 3500, 1e9 },
		{ 4000, 1e9 },
	};
	static double meas[MAX_SAMPLES][MAX_T + 1], sim[MAX_SAMPLES][MAX_T + 1];
	struct sched_param fifo = { .sched_priority = 50 };
	struct thread th[MAX_T] = { };
	struct pbs_sim_task st[MAX_T] = { };
	const double (*w)[2];
	int n, i, j, ns = 0, go[2], *ran, q, nq;
	double scale, next, alpha = 0;
	atomic_int ready = 0;
	char c = 'g';

	if (argc < 5) {
		fprintf(stderr, "usage: pbs_fig fig2|fig3 SCALE CPU POLICY [ALPHA]\n");
		return 2;
	}
	if (!strcmp(argv[1], "fig2")) {
		w = fig2;
		n = 4;
	} else {
		w = fig3;
		n = 5;
	}
	scale = atof(argv[2]);
	cpu_of_threads = atoi(argv[3]);
	if (argc > 5)
		alpha = atof(argv[5]);
	end_ms = 12000 / scale;

	pin(0);
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		perror("sched_setscheduler");
	if (pipe(go))
		return 1;
	for (i = 0; i < n; i++) {
		th[i].arrive_ms = w[i][0] / scale;
		th[i].demand_ms = w[i][1] / scale;
		th[i].done_ms = -1;
		th[i].go = go[0];
		th[i].ready = &ready;
		pthread_create(&th[i].pt, NULL, thread_main, &th[i]);
	}
	while (atomic_load(&ready) < n)
		usleep(1000);
	for (i = 0; i < n; i++) {
		set_policy(th[i].tid, argv[4]);
		pthread_getcpuclockid(th[i].pt, &th[i].clock);
	}
	t0 = now_ms(CLOCK_MONOTONIC) + 100;
	for (i = 0; i < n; i++)
		if (write(go[1], &c, 1) != 1)
			return 1;
	/* Sample every 50 ms until the end. */
	for (next = 0; next <= end_ms && ns < MAX_SAMPLES; next += SAMPLE_MS) {
		struct timespec at;
		double abs_ms = t0 + next;

		at.tv_sec = abs_ms / 1e3;
		at.tv_nsec = (abs_ms - at.tv_sec * 1e3) * 1e6;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		meas[ns][0] = now_ms(CLOCK_MONOTONIC) - t0;
		for (i = 0; i < n; i++) {
			struct timespec ts;

			/* a thread that has exited keeps its last value */
			if (!clock_gettime(th[i].clock, &ts))
				meas[ns][i + 1] = ts.tv_sec * 1e3 +
						  ts.tv_nsec / 1e6;
			else if (ns)
				meas[ns][i + 1] = meas[ns - 1][i + 1];
		}
		ns++;
	}
	atomic_store(&stop, true);
	for (i = 0; i < n; i++)
		pthread_join(th[i].pt, NULL);
	/* CPU time from the release on: subtract what setting up took. */
	for (j = 1; j <= n; j++)
		for (i = ns - 1; i >= 0; i--)
			meas[i][j] -= meas[0][j];

	/* The simulation, in 1 ms quanta, sampled the same way. */
	nq = end_ms;
	ran = calloc(nq, sizeof(*ran));
	for (i = 0; i < n; i++) {
		st[i].arrive_ms = th[i].arrive_ms;
		st[i].demand_ms = th[i].demand_ms < end_ms ?
				  th[i].demand_ms : end_ms * 2;
	}
	if (alpha > 0) {
		double acc[MAX_T] = { };
		int k = 0;

		/* stop at end_ms: persistent threads never finish */
		for (i = 0; i < n; i++)
			if (st[i].demand_ms > end_ms)
				st[i].demand_ms = end_ms;
		pbs_sim(st, n, alpha, ran, nq);
		for (q = 0; q <= nq; q++) {
			if (q % SAMPLE_MS == 0 && k < MAX_SAMPLES) {
				sim[k][0] = q;
				for (i = 0; i < n; i++)
					sim[k][i + 1] = acc[i];
				k++;
			}
			if (q < nq && ran[q] >= 0)
				acc[ran[q]] += 1;
		}
		printf("{\n");
		print_samples("simulated", sim, k, n);
	} else {
		printf("{\n");
	}
	print_samples("measured", meas, ns, n);
	printf(" \"threads\": [");
	for (i = 0; i < n; i++)
		printf("%s{\"arrive_ms\": %.0f, \"demand_ms\": %.0f, \"done_ms\": %.1f, \"sim_done_ms\": %.1f}",
		       i ? ", " : "", th[i].arrive_ms,
		       th[i].demand_ms > end_ms ? -1 : th[i].demand_ms,
		       th[i].done_ms,
		       alpha > 0 && th[i].demand_ms <= end_ms ? st[i].done_ms : -1);
	printf("]\n}\n");
	return 0;
}
