/* SPDX-License-Identifier: GPL-2.0 */
/*
 * coop_poll(2) for programs: the C library has no wrapper.  See
 * Documentation/scheduler/sched-bvt.rst, "Cooperative polling".
 *
 *	struct sched_bvt_coop in, out;
 *
 *	coop_in_deadline(&in, next_frame_ns);
 *	coop_in_event(&in, 3);
 *	if (coop_poll(&in, &out))
 *		... errno ...
 *	... out.deadline: call coop_poll() again by then ...
 *	coop_poll(NULL, NULL);		leave the domain
 */
#ifndef _TOOLS_SCHED_COOP_POLL_H
#define _TOOLS_SCHED_COOP_POLL_H

#include <string.h>
#include <linux/sched_bvt.h>

#include "bvt_syscall.h"

/* 0, or -1 with errno set (ENOSYS: a kernel without SCHED_BVT). */
static inline int coop_poll(const struct sched_bvt_coop *in,
			    struct sched_bvt_coop *out)
{
	if (!sched_bvt_present())
		return -1;
	if (out) {
		memset(out, 0, sizeof(*out));
		out->size = sizeof(*out);
	}
	return syscall(__NR_coop_poll, in, out, 0);
}

/* An empty request: give it a deadline, an event, or both. */
static inline void coop_in_init(struct sched_bvt_coop *in)
{
	memset(in, 0, sizeof(*in));
	in->size = sizeof(*in);
}

/* The caller's next deadline, CLOCK_MONOTONIC nanoseconds. */
static inline void coop_in_deadline(struct sched_bvt_coop *in,
				    unsigned long long deadline)
{
	in->flags |= SCHED_BVT_COOP_DEADLINE;
	in->deadline = deadline;
}

/* The caller's most important best-effort event, 0 the most important. */
static inline void coop_in_event(struct sched_bvt_coop *in,
				 unsigned int priority)
{
	in->flags |= SCHED_BVT_COOP_EVENT;
	in->priority = priority;
}

#endif /* _TOOLS_SCHED_COOP_POLL_H */
