/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clock helpers shared by the experiments' programs (player.c, task.c,
 * work_cgi.c).
 */
#ifndef REPRO_CLOCK_H
#define REPRO_CLOCK_H

#include <errno.h>
#include <time.h>

static inline double now_s(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static inline void sleep_until(double t)
{
	struct timespec ts = { .tv_sec = (time_t)t };

	ts.tv_nsec = (t - ts.tv_sec) * 1e9;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Compute for ms of this thread's CPU time, or until end (monotonic). */
static inline void compute(double ms, double end)
{
	double until = now_s(CLOCK_THREAD_CPUTIME_ID) + ms / 1e3;
	volatile unsigned long x = 0;
	int i;

	do {
		for (i = 0; i < 1000; i++)
			x += i;
	} while (now_s(CLOCK_THREAD_CPUTIME_ID) < until &&
		 now_s(CLOCK_MONOTONIC) < end);
}

#endif
