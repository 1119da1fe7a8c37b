// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for cyclictest: its measurement threads get the policy
 * the experiment gives, whatever cyclictest would set.
 *
 * cyclictest sets its measurement threads' policy itself, from inside each
 * thread (sched_setscheduler(0, ...) with --policy/-p), and its main
 * thread's twice, and it knows neither SCHED_BVT nor SCHED_DEADLINE.  This
 * shim replaces every sched_setscheduler() call: a measurement thread's
 * first one (a thread other than the main one) applies the struct
 * sched_attr given in LATENCY_ATTR, at the point cyclictest would have set
 * its own; every other call does nothing.  The main thread keeps the
 * policy it was started with.  Setting the policy from inside the thread
 * is what lets SCHED_DEADLINE work: a deadline task may not create
 * threads.  Nor may it be pinned to part of its root domain, and
 * cyclictest pins thread N to CPU N even without -a: the shim also makes
 * the measurement threads' affinity calls do nothing, so that they run
 * unpinned under every policy.
 *
 *   LATENCY_ATTR="policy flags nice prio runtime deadline period
 *                 bvt_weight bvt_flags bvt_warp bvt_warp_limit bvt_unwarp"
 *
 * Each applied thread writes "latency_shim: TID policy P" to stderr, so
 * that the experiment can check every measurement thread got it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched/types.h>

static __thread int applied;

static int apply_attr(void)
{
	struct sched_attr a;
	unsigned long long v[12];
	const char *s = getenv("LATENCY_ATTR");

	if (!s || sscanf(s, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			 &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			 &v[7], &v[8], &v[9], &v[10], &v[11]) != 12) {
		fprintf(stderr, "latency_shim: bad or missing LATENCY_ATTR\n");
		exit(2);
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.sched_policy = v[0];
	a.sched_flags = v[1];
	a.sched_nice = (int)v[2];
	a.sched_priority = v[3];
	a.sched_runtime = v[4];
	a.sched_deadline = v[5];
	a.sched_period = v[6];
	a.sched_bvt_weight = v[7];
	a.sched_bvt_flags = v[8];
	a.sched_bvt_warp = (long long)v[9];
	a.sched_bvt_warp_limit = v[10];
	a.sched_bvt_unwarp = v[11];
	if (syscall(SYS_sched_setattr, 0, &a, 0)) {
		fprintf(stderr, "latency_shim: sched_setattr: %s\n",
			strerror(errno));
		exit(2);
	}
	fprintf(stderr, "latency_shim: %ld policy %u\n", (long)gettid(),
		a.sched_policy);
	return 0;
}

static int main_thread(void)
{
	return gettid() == getpid();
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *mask)
{
	if (main_thread())
		return syscall(SYS_sched_setaffinity, pid, size, mask);
	return 0;
}

/* cyclictest calls it only from a measurement thread, to pin itself. */
int pthread_setaffinity_np(pthread_t thread, size_t size,
			   const cpu_set_t *mask)
{
	return 0;
}

int sched_setscheduler(pid_t pid, int policy, const struct sched_param *param)
{
	if (pid == 0 && !main_thread() && !applied) {
		applied = 1;
		return apply_attr();
	}
	return 0;
}
