// SPDX-License-Identifier: GPL-2.0
/*
 * task: the synthetic programs of the BVT paper's experiments, one per
 * mode, each run in whatever policy its parent gave it:
 *
 *   task cont SECONDS                      compute without pause
 *   task int SECONDS BURST_MS THINK_MS     interactive: sleep a random
 *                                          think time (0.5..1.5 x THINK),
 *                                          then compute BURST_MS
 *   task rt SECONDS PERIOD_MS RUN_MS [FAIL_S]
 *                                          periodic: wake every PERIOD_MS
 *                                          (absolute), compute RUN_MS;
 *                                          after FAIL_S, loop forever (the
 *                                          paper's rt-failure)
 *   task yield SECONDS THREADS             THREADS threads calling
 *                                          sched_yield() (pick cost)
 *   task web SECONDS WORKERS RATE WARP_MS  a server: a generator thread on
 *                                          CPU 0 queues requests (Poisson,
 *                                          RATE/s; 4 in 5 short, 2 ms of
 *                                          CPU, the rest long, 20 ms) for
 *                                          WORKERS threads on the last CPU;
 *                                          with WARP_MS > 0 a worker warps
 *                                          (SCHED_BVT) while it serves a
 *                                          short request
 *   task users SECONDS USERS TASK_MS SEGS GAP_MS THINK_MS RAMP_S
 *                                          the PBS paper's Group A: USERS
 *                                          threads each think (exponential,
 *                                          mean THINK_MS), then run a task
 *                                          of TASK_MS of CPU in SEGS
 *                                          segments GAP_MS of sleep apart;
 *                                          resp_ms and mean/sd over the
 *                                          tasks begun after RAMP_S and
 *                                          done by SECONDS
 *   task http SECONDS CLIENTS THINK_MS XM_MS CAP_MS RAMP_S SOCKET
 *                                          the PBS paper's Group B: CLIENTS
 *                                          threads each think (exponential,
 *                                          mean THINK_MS), then GET
 *                                          /work.cgi?ms=X from the server at
 *                                          the Unix socket SOCKET and read
 *                                          the page, X drawn from
 *                                          Pareto(1.2) with minimum XM_MS,
 *                                          capped at CAP_MS; resp_ms and
 *                                          mean/sd of the requests begun
 *                                          from RAMP_S to SECONDS (each
 *                                          one's answer awaited), and the
 *                                          same for the small ones (X below
 *                                          the distribution's mean)
 *   task dl SECONDS LOAD ERR WARP_MS      a job every D (40..120 ms at
 *                                          random) needing C = LOAD x D of
 *                                          CPU by D; with WARP_MS < 0 each
 *                                          job asks SCHED_DEADLINE for
 *                                          C x (1 + e) (ERR: "exact", "+",
 *                                          "-" or "mixed", |e| <= 0.4),
 *                                          else it runs in its policy,
 *                                          warped by WARP_MS if > 0
 *
 * It first says "ready" on standard output and waits for a line on
 * standard input, so that a controller can start every task and then let
 * them all go at once.  Then it prints one JSON object:
 *
 *   {"mode": M, "cpu_s": X, "n": N, "lat_ms": {...}, "resp_ms": {...}}
 *
 * where lat_ms summarises the dispatch latencies (from the time a sleep
 * was meant to end to the time the task ran again; timer slack is set to
 * 1 ns so that it does not count) and resp_ms the response times (from
 * the same wake-up to the end of the burst), each as median, p99 and
 * max; for yield, n counts the calls of all threads; web adds short_ms
 * and long_ms (response times by kind), dl adds jobs, met and denied,
 * users mean_ms and sd_ms, and http those, small_ms, small_mean_ms,
 * small_sd_ms, small_below_ms and errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "clock.h"

struct samples {
	double *v;
	long n, cap;
};

static void add(struct samples *s, double x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v)
			exit(1);
	}
	s->v[s->n++] = x;
}

static void print_summary(const char *name, struct samples *s)
{
	if (!s->n) {
		printf(", \"%s\": null", name);
		return;
	}
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	printf(", \"%s\": {\"median\": %.3f, \"p99\": %.3f, \"max\": %.3f}", name,
	       s->v[s->n / 2], s->v[s->n * 99 / 100], s->v[s->n - 1]);
}

static double end;
static long yields;
static pthread_barrier_t go;

/* Group A's users (task users). */
static struct {
	double task_ms, gap_ms, think_ms, ramp;
	int segs;
	pthread_mutex_t lock;
	struct samples resp;
} users = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *user_main(void *arg)
{
	unsigned short seed[3] = { getpid(), (long)arg, 1 };
	double begun, done;
	int i;

	for (;;) {
		sleep_until(now_s(CLOCK_MONOTONIC) -
			    log(1 - erand48(seed)) * users.think_ms / 1e3);
		begun = now_s(CLOCK_MONOTONIC);
		if (begun >= end)
			break;
		for (i = 0; i < users.segs; i++) {
			if (i)
				sleep_until(now_s(CLOCK_MONOTONIC) +
					    users.gap_ms / 1e3);
			compute(users.task_ms / users.segs, end);
		}
		done = now_s(CLOCK_MONOTONIC);
		if (begun < users.ramp || done >= end)
			continue;
		pthread_mutex_lock(&users.lock);
		add(&users.resp, (done - begun) * 1e3);
		pthread_mutex_unlock(&users.lock);
	}
	return NULL;
}

/* Group B's clients (task http). */
#define PARETO_SHAPE	1.2

static struct {
	double think_ms, xm_ms, cap_ms, ramp, small_ms;
	struct sockaddr_un addr;
	long errors;
	pthread_mutex_t lock;
	struct samples resp, small;
} http = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Pareto(PARETO_SHAPE) from xm_ms, capped at cap_ms. */
static double pareto_ms(unsigned short seed[3])
{
	double x = http.xm_ms * pow(1 - erand48(seed), -1 / PARETO_SHAPE);

	return x < http.cap_ms ? x : http.cap_ms;
}

/* Its mean: xm + xm / (shape - 1) * (1 - (xm / cap)^(shape - 1)). */
static double pareto_mean_ms(void)
{
	return http.xm_ms + http.xm_ms / (PARETO_SHAPE - 1) *
	       (1 - pow(http.xm_ms / http.cap_ms, PARETO_SHAPE - 1));
}

/* Ask the server for ms of work over a new connection; 0 if it answered 200. */
static int http_get(double ms)
{
	char head[64], rest[4096];
	size_t got = 0;
	ssize_t r;
	int fd, len, ret = -1;

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&http.addr, sizeof(http.addr)))
		goto out;
	len = snprintf(rest, sizeof(rest), "GET /work.cgi?ms=%.3f HTTP/1.0\r\n\r\n", ms);
	if (write(fd, rest, len) != len)
		goto out;
	while ((r = read(fd, got < sizeof(head) ? head + got : rest,
			 got < sizeof(head) ? sizeof(head) - got : sizeof(rest))) > 0)
		got += r;
	/* "HTTP/1.x 200": the status line, whichever version answers. */
	if (!r && got >= 12 && !strncmp(head, "HTTP/1.", 7) &&
	    !strncmp(head + 8, " 200", 4))
		ret = 0;
out:
	close(fd);
	return ret;
}

static void *http_client(void *arg)
{
	/* The same requests, in the same order, under every policy. */
	unsigned short seed[3] = { 1, (long)arg, 2 };
	double begun, ms, resp;
	int failed;

	for (;;) {
		begun = now_s(CLOCK_MONOTONIC) -
			log(1 - erand48(seed)) * http.think_ms / 1e3;
		if (begun >= end)
			break;
		sleep_until(begun);
		ms = pareto_ms(seed);
		failed = http_get(ms);
		resp = (now_s(CLOCK_MONOTONIC) - begun) * 1e3;
		if (begun < http.ramp)
			continue;
		pthread_mutex_lock(&http.lock);
		if (failed) {
			http.errors++;
		} else {
			add(&http.resp, resp);
			if (ms < http.small_ms)
				add(&http.small, resp);
		}
		pthread_mutex_unlock(&http.lock);
	}
	return NULL;
}

/* The mean and standard deviation of @s, as PREFIXmean_ms and PREFIXsd_ms. */
static void print_mean_sd(const char *prefix, struct samples *s)
{
	double sum = 0, sq = 0, mean;
	long i;

	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	mean = s->n ? sum / s->n : 0;
	for (i = 0; i < s->n; i++)
		sq += (s->v[i] - mean) * (s->v[i] - mean);
	printf(", \"%smean_ms\": %.3f, \"%ssd_ms\": %.3f", prefix, mean,
	       prefix, s->n > 1 ? sqrt(sq / (s->n - 1)) : 0);
}

static void *yielder(void *arg)
{
	long n = 0;

	pthread_barrier_wait(&go);
	while (now_s(CLOCK_MONOTONIC) < end) {
		sched_yield();
		n++;
	}
	__atomic_add_fetch(&yields, n, __ATOMIC_RELAXED);
	return NULL;
}

/* sched_attr VER2 (include/uapi/linux/sched_bvt.h), for the workers. */
struct attr {
	unsigned int size, policy;
	unsigned long long flags;
	int nice;
	unsigned int prio;
	unsigned long long runtime, deadline, period;
	unsigned int util_min, util_max, bvt_weight, bvt_flags;
	long long bvt_warp;
	unsigned long long bvt_warp_limit, bvt_unwarp;
};

#define SCHED_DEADLINE	6
#define SCHED_BVT	8
#define SCHED_BVT_FLAG_WARP	0x1

static int set_self(struct attr *a)
{
	a->size = sizeof(*a);
	return syscall(SYS_sched_setattr, 0, a, 0);
}

/* This thread in SCHED_BVT, warped by warp_ms (0: not warped). */
static void bvt_warp_self(double warp_ms)
{
	struct attr a = { .policy = SCHED_BVT };

	if (warp_ms > 0) {
		a.bvt_flags = SCHED_BVT_FLAG_WARP;
		a.bvt_warp = warp_ms * 1e6;
	}
	if (set_self(&a))
		perror("sched_setattr"), exit(1);
}

static void pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* The web server's queue: arrival times and kinds, in order. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t more;
	double *arrival;
	char *is_long;
	long head, tail, cap;
	int done;
	double warp_ms;
	struct samples resp[2];
} web = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER };

static void *web_worker(void *arg)
{
	int warped = 0;

	pin_self(sysconf(_SC_NPROCESSORS_ONLN) - 1);
	pthread_mutex_lock(&web.lock);
	for (;;) {
		double arrival;
		int is_long;

		while (web.head == web.tail && !web.done)
			pthread_cond_wait(&web.more, &web.lock);
		if (web.head == web.tail)
			break;
		arrival = web.arrival[web.head];
		is_long = web.is_long[web.head++];
		pthread_mutex_unlock(&web.lock);
		if (web.warp_ms > 0 && warped == is_long) {
			bvt_warp_self(is_long ? 0 : web.warp_ms);
			warped = !is_long;
		}
		compute(is_long ? 20 : 2, end);
		pthread_mutex_lock(&web.lock);
		if (now_s(CLOCK_MONOTONIC) < end)
			add(&web.resp[is_long],
			    (now_s(CLOCK_MONOTONIC) - arrival) * 1e3);
	}
	pthread_mutex_unlock(&web.lock);
	return NULL;
}

/* Queue requests until the end, then let the workers finish. */
static void web_generate(double rate)
{
	double t = now_s(CLOCK_MONOTONIC);

	pin_self(0);
	for (;;) {
		t += -log(1 - drand48()) / rate;
		if (t >= end)
			break;
		sleep_until(t);
		pthread_mutex_lock(&web.lock);
		if (web.tail < web.cap) {
			web.arrival[web.tail] = now_s(CLOCK_MONOTONIC);
			web.is_long[web.tail++] = drand48() < 0.2;
			pthread_cond_signal(&web.more);
		}
		pthread_mutex_unlock(&web.lock);
	}
	pthread_mutex_lock(&web.lock);
	web.done = 1;
	pthread_cond_broadcast(&web.more);
	pthread_mutex_unlock(&web.lock);
}

/*
 * What a SCHED_DEADLINE job costs beyond its computation: the wake-up, the
 * sched_setattr() of the next job, and the overrun up to the tick (HZ=1000)
 * at which the runtime is enforced, which the next job pays for.  Without
 * it, exact predictions met half their deadlines at 40 % load.
 */
#define DL_ALLOWANCE_MS	1.0

/* One dl instance: returns the number of jobs; counts met and denied. */
static long dl_jobs(double load, const char *err, double warp_ms,
		    long *met, long *denied)
{
	double release = now_s(CLOCK_MONOTONIC), e = 0;
	long jobs = 0;

	if (warp_ms > 0)
		bvt_warp_self(warp_ms);
	for (;; jobs++) {
		double d = 0.040 + 0.080 * drand48(), c = load * d * 1e3;
		struct attr a = { .policy = SCHED_DEADLINE };

		if (release + d > end)
			break;
		if (!strcmp(err, "+"))
			e = 0.4 * drand48();
		else if (!strcmp(err, "-"))
			e = -0.4 * drand48();
		else if (!strcmp(err, "mixed"))
			e = 0.8 * drand48() - 0.4;
		if (warp_ms < 0) {
			/*
			 * Ask before sleeping: the wake-up at the release,
			 * past the last deadline, replenishes with these.
			 */
			a.runtime = (c * (1 + e) + DL_ALLOWANCE_MS) * 1e6;
			a.deadline = a.period = d * 1e9;
			if (set_self(&a)) {
				/* Refused: the deadline counts as missed. */
				(*denied)++;
				release += d;
				continue;
			}
		}
		sleep_until(release);
		compute(c, release + d);
		if (now_s(CLOCK_MONOTONIC) <= release + d)
			(*met)++;
		/*
		 * A deadline task stays one between jobs: the next job's
		 * parameters replace these in the admission test.
		 */
		release += d;
	}
	return jobs;
}

/* Run @nr threads of @fn, the i-th given i, until all have ended. */
static int run_all(int nr, void *(*fn)(void *))
{
	pthread_t *tids = calloc(nr, sizeof(*tids));
	int i, n;

	for (n = 0; n < nr; n++)
		if (pthread_create(&tids[n], NULL, fn, (void *)(long)n))
			break;
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	free(tids);
	return n < nr ? -1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: task cont|int|rt|yield|web|users|http|dl SECONDS [ARGS...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct samples lat = { 0 }, resp = { 0 };
	double seconds, cpu0, start, wake;
	int i, threads = 0;
	pthread_t *tids = NULL;
	const char *mode;
	long n = 0, met = 0, denied = 0;
	char line[16];

	if (argc < 3 || (seconds = atof(argv[2])) <= 0)
		usage();
	mode = argv[1];
	prctl(PR_SET_TIMERSLACK, 1UL);
	srand48(getpid());
	if (!strcmp(mode, "yield") && argc == 4) {
		/* All threads exist, waiting, before the count starts. */
		threads = atoi(argv[3]);
		tids = calloc(threads, sizeof(*tids));
		pthread_barrier_init(&go, NULL, threads + 1);
		for (i = 0; i < threads; i++)
			if (pthread_create(&tids[i], NULL, yielder, NULL))
				return 1;
	}
	printf("ready\n");
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 1;

	cpu0 = now_s(CLOCK_PROCESS_CPUTIME_ID);
	start = now_s(CLOCK_MONOTONIC);
	end = start + seconds;
	if (!strcmp(mode, "cont")) {
		compute(seconds * 1e3, end);
	} else if (!strcmp(mode, "int") && argc == 5) {
		double burst = atof(argv[3]), think = atof(argv[4]) / 1e3;

		for (wake = start; ; n++) {
			wake += think * (0.5 + drand48());
			if (wake >= end)
				break;
			sleep_until(wake);
			add(&lat, (now_s(CLOCK_MONOTONIC) - wake) * 1e3);
			compute(burst, end);
			add(&resp, (now_s(CLOCK_MONOTONIC) - wake) * 1e3);
			wake = now_s(CLOCK_MONOTONIC);
		}
	} else if (!strcmp(mode, "rt") && (argc == 5 || argc == 6)) {
		double period = atof(argv[3]) / 1e3, run = atof(argv[4]);
		double fail = argc == 6 ? start + atof(argv[5]) : end;

		for (wake = start + period; wake < end; wake += period, n++) {
			sleep_until(wake);
			add(&lat, (now_s(CLOCK_MONOTONIC) - wake) * 1e3);
			if (now_s(CLOCK_MONOTONIC) >= fail) {
				compute(seconds * 1e3, end);	/* the failure */
				break;
			}
			compute(run, end);
			add(&resp, (now_s(CLOCK_MONOTONIC) - wake) * 1e3);
		}
	} else if (!strcmp(mode, "web") && argc == 6) {
		int workers = atoi(argv[3]);

		web.warp_ms = atof(argv[5]);
		web.cap = seconds * atof(argv[4]) * 2 + 100;
		web.arrival = calloc(web.cap, sizeof(*web.arrival));
		web.is_long = calloc(web.cap, 1);
		tids = calloc(workers, sizeof(*tids));
		for (i = 0; i < workers; i++)
			if (pthread_create(&tids[i], NULL, web_worker, NULL))
				return 1;
		web_generate(atof(argv[4]));
		for (i = 0; i < workers; i++)
			pthread_join(tids[i], NULL);
		n = web.tail;
	} else if (!strcmp(mode, "users") && argc == 9) {
		int nr = atoi(argv[3]);

		users.task_ms = atof(argv[4]);
		users.segs = atoi(argv[5]);
		users.gap_ms = atof(argv[6]);
		users.think_ms = atof(argv[7]);
		users.ramp = start + atof(argv[8]);
		if (run_all(nr, user_main))
			return 1;
		resp = users.resp;
		n = resp.n;
	} else if (!strcmp(mode, "http") && argc == 9) {
		int nr = atoi(argv[3]);

		http.think_ms = atof(argv[4]);
		http.xm_ms = atof(argv[5]);
		http.cap_ms = atof(argv[6]);
		http.ramp = start + atof(argv[7]);
		http.addr.sun_family = AF_UNIX;
		strncpy(http.addr.sun_path, argv[8],
			sizeof(http.addr.sun_path) - 1);
		http.small_ms = pareto_mean_ms();
		if (run_all(nr, http_client))
			return 1;
		resp = http.resp;
		n = resp.n;
	} else if (!strcmp(mode, "dl") && argc == 6) {
		n = dl_jobs(atof(argv[3]), argv[4], atof(argv[5]), &met, &denied);
	} else if (threads) {
		pthread_barrier_wait(&go);
		for (i = 0; i < threads; i++)
			pthread_join(tids[i], NULL);
		n = yields;
	} else {
		usage();
	}
	printf("{\"mode\": \"%s\", \"cpu_s\": %.4f, \"wall_s\": %.4f, \"n\": %ld",
	       mode, now_s(CLOCK_PROCESS_CPUTIME_ID) - cpu0,
	       now_s(CLOCK_MONOTONIC) - start, n);
	print_summary("lat_ms", &lat);
	print_summary("resp_ms", &resp);
	if (!strcmp(mode, "web")) {
		print_summary("short_ms", &web.resp[0]);
		print_summary("long_ms", &web.resp[1]);
	}
	if (!strcmp(mode, "dl"))
		printf(", \"jobs\": %ld, \"met\": %ld, \"denied\": %ld", n, met,
		       denied);
	if (!strcmp(mode, "users") || !strcmp(mode, "http"))
		print_mean_sd("", &resp);
	if (!strcmp(mode, "http")) {
		print_mean_sd("small_", &http.small);
		print_summary("small_ms", &http.small);
		printf(", \"small_below_ms\": %.3f, \"errors\": %ld",
		       http.small_ms, http.errors);
	}
	printf("}\n");
	return 0;
}
