/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Quality-assuring reservations (bvt_ctl(2) BVT_CTL_QAS_*) for programs,
 * in the DROPS style of the QAS paper's Figure 3.  See
 * Documentation/scheduler/sched-bvt.rst, "Quality-assuring reservations".
 *
 *	qas_set_period(40000000, 0, SIGRTMIN);
 *	qas_reserve_time(10000000, 0, 1);	mandatory: the worst case
 *	qas_reserve_time(8000000, 0, 0);	optional, priority 0
 *	for (;;) {
 *		qas_begin_period();
 *		... mandatory work ...
 *		qas_next_reservation();
 *		... optional work, until SIGRTMIN says it overran ...
 *	}
 *	qas_end_period();
 *
 * Each returns what bvt_ctl() returns: -1 with errno set on an error
 * (ENOSYS: a kernel without SCHED_BVT).
 */
#ifndef _TOOLS_SCHED_QAS_H
#define _TOOLS_SCHED_QAS_H

#include <string.h>
#include <linux/sched_bvt.h>

#include "bvt_syscall.h"

static inline long qas_ctl(unsigned int op, pid_t pid, void *arg)
{
	if (!sched_bvt_present())
		return -1;
	return syscall(__NR_bvt_ctl, op, pid, arg, 0);
}

/* Make thread @pid (0: the caller) periodic; @sig notifies it (0: none). */
static inline long qas_set_period_of(pid_t pid, __u64 period_ns,
				     unsigned int flags, int sig)
{
	struct sched_bvt_qas q;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.period = period_ns;
	q.flags = flags;
	q.signal = sig;
	return qas_ctl(BVT_CTL_QAS_PERIOD, pid, &q);
}

static inline long qas_set_period(__u64 period_ns, unsigned int flags, int sig)
{
	return qas_set_period_of(0, period_ns, flags, sig);
}

/* Add a part; returns its index.  @out (may be NULL) gets the grant. */
static inline long qas_reserve_time_of(pid_t pid, __u64 amount_ns,
				       unsigned int priority, int mandatory,
				       struct sched_bvt_qas_part *out)
{
	struct sched_bvt_qas_part r;
	long ret;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.amount = amount_ns;
	r.priority = priority;
	r.flags = mandatory ? SCHED_BVT_QAS_MANDATORY : 0;
	ret = qas_ctl(BVT_CTL_QAS_RESERVE, pid, &r);
	if (out)
		*out = r;
	return ret < 0 ? ret : r.index;
}

static inline long qas_reserve_time(__u64 amount_ns, unsigned int priority,
				    int mandatory)
{
	return qas_reserve_time_of(0, amount_ns, priority, mandatory, NULL);
}

/* Wait for the next period; returns the number of periods lost. */
static inline long qas_begin_period(void)
{
	return qas_ctl(BVT_CTL_QAS_BEGIN, 0, NULL);
}

/* Go on to the next part; returns its index (the number of parts: none). */
static inline long qas_next_reservation(void)
{
	return qas_ctl(BVT_CTL_QAS_NEXT, 0, NULL);
}

static inline long qas_end_period_of(pid_t pid)
{
	return qas_ctl(BVT_CTL_QAS_END, pid, NULL);
}

static inline long qas_end_period(void)
{
	return qas_end_period_of(0);
}

static inline long qas_get(pid_t pid, struct sched_bvt_qas *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	return qas_ctl(BVT_CTL_QAS_GET, pid, q);
}

#endif /* _TOOLS_SCHED_QAS_H */
