/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SCHED_BVT: Borrowed Virtual Time scheduling.
 *
 * The policy number, SCHED_BVT, is in <linux/sched.h>.  A thread's BVT
 * parameters travel in the SCHED_ATTR_SIZE_VER2 tail of struct sched_attr
 * (<linux/sched/types.h>):
 *
 *  @sched_bvt_weight:     share of the CPU relative to the other BVT threads,
 *                         SCHED_BVT_WEIGHT_MIN..SCHED_BVT_WEIGHT_MAX; 0 takes
 *                         it from sched_nice with the kernel's nice-to-weight
 *                         table (nice 0 is 1024), and follows later nice(2)
 *                         changes.
 *  @sched_bvt_flags:      SCHED_BVT_FLAG_*.  SCHED_BVT_FLAG_RESERVED puts the
 *                         thread in the reserved-effort (root) level instead
 *                         of the best-effort level: it needs CAP_SYS_NICE and
 *                         an explicit weight, and fails with EBUSY when the
 *                         reserved-effort threads' total weight would exceed
 *                         the share that kernel.sched_bvt_re_share_pct allows.
 *  @sched_bvt_warp:       W, how far a warped thread is moved back in virtual
 *                         time: nanoseconds as seen by a weight-1024 thread,
 *                         0..SCHED_BVT_WARP_MAX.
 *  @sched_bvt_warp_limit: L, nanoseconds of real time a thread may run warped
 *                         before it loses its warp; 0 is unlimited, otherwise
 *                         SCHED_BVT_WARP_LIMIT_MIN..SCHED_BVT_TIME_MAX.
 *  @sched_bvt_unwarp:     U, nanoseconds of real time a thread must wait after
 *                         its warp ended before it may warp again,
 *                         0..SCHED_BVT_TIME_MAX.
 *
 * Callers passing an older, shorter struct sched_attr get all of these as 0:
 * weight from nice, no warp.  See Documentation/scheduler/sched-bvt.rst.
 */
#ifndef _UAPI_LINUX_SCHED_BVT_H
#define _UAPI_LINUX_SCHED_BVT_H

#include <linux/types.h>

/* sched_bvt_flags */
#define SCHED_BVT_FLAG_WARP		0x01	/* warp enabled */
#define SCHED_BVT_FLAG_RESERVED		0x02	/* in the reserved-effort level */
#define SCHED_BVT_FLAGS_ALL		(SCHED_BVT_FLAG_WARP | \
					 SCHED_BVT_FLAG_RESERVED)

/* sched_bvt_weight */
#define SCHED_BVT_WEIGHT_NICE		0	/* derive from sched_nice */
#define SCHED_BVT_WEIGHT_MIN		1
#define SCHED_BVT_WEIGHT_DEFAULT	1024	/* weight of nice 0 */
#define SCHED_BVT_WEIGHT_MAX		88761	/* weight of nice -20 */

/* sched_bvt_warp, sched_bvt_warp_limit, sched_bvt_unwarp (nanoseconds) */
#define SCHED_BVT_WARP_MAX		10000000000LL	/* 10 s */
#define SCHED_BVT_WARP_LIMIT_MIN	10000ULL	/* 10 us */
#define SCHED_BVT_TIME_MAX		10000000000ULL	/* 10 s */

/*
 * sigaction(2) sa_flags: the thread a signal for this handler goes to runs
 * warped, with its own W, L and U, from the wake-up the signal causes until
 * it next blocks, even without SCHED_BVT_FLAG_WARP (it needs a non-zero W).
 * The bit is free on every architecture (see <asm-generic/signal-defs.h>);
 * a kernel without SCHED_BVT clears it, which sigaction() with
 * SA_UNSUPPORTED lets a program see.
 */
#define SA_BVT_WARP			0x00001000

/*
 * coop_poll(2): cooperative polling among the time-sensitive SCHED_BVT
 * threads of a CPU, its cooperation domain.
 *
 *   long coop_poll(const struct sched_bvt_coop *in,
 *                  struct sched_bvt_coop *out, unsigned int flags);
 *
 * @in is the caller's next deadline and its most important best-effort
 * event; the call joins the caller to the domain of its CPU, yields, and
 * returns when the caller's deadline has expired or its event is the most
 * important runnable one of the domain.  @out (may be NULL) then gets the
 * earliest deadline of the other members, or the end of the domain's turn
 * if that is earlier (SCHED_BVT_COOP_POLICING), and the most important
 * event of the others: the caller treats them as its own and calls
 * coop_poll() again when they come.  A NULL @in leaves the domain; so do a
 * change of policy, exec and exit.  @flags must be 0.  See
 * Documentation/scheduler/sched-bvt.rst.
 *
 *  @size:     sizeof(struct sched_bvt_coop), as with struct sched_attr: a
 *             larger struct is accepted if what the kernel does not know
 *             is zero (E2BIG otherwise); out->size is read to know how
 *             much to write, and set to what the kernel wrote.
 *  @flags:    which of the fields below are set: SCHED_BVT_COOP_DEADLINE,
 *             SCHED_BVT_COOP_EVENT; on @out also SCHED_BVT_COOP_POLICING,
 *             and SCHED_BVT_COOP_POLICED while the caller, which ran past
 *             the time it was given, is a plain best-effort thread.
 *  @deadline: CLOCK_MONOTONIC nanoseconds; one in the past has expired.
 *  @priority: of the best-effort event, 0 (most important) to
 *             SCHED_BVT_COOP_PRIO_MAX.
 * A field whose flag is not set is 0.
 */
struct sched_bvt_coop {
	__u32	size;
	__u32	flags;
	__u64	deadline;
	__u32	priority;
	__u32	__reserved;
};

#define SCHED_BVT_COOP_SIZE_VER0	24	/* first published struct */

#define SCHED_BVT_COOP_DEADLINE		0x01	/* deadline is set */
#define SCHED_BVT_COOP_EVENT		0x02	/* priority is set */
#define SCHED_BVT_COOP_POLICING		0x04	/* out: the domain's turn ends */
#define SCHED_BVT_COOP_POLICED		0x08	/* out: the caller is policed */

#define SCHED_BVT_COOP_PRIO_MAX		1023

/*
 * bvt_ctl(2): CPU reservations and time constraints (Rialto/NT), and the
 * operations the later mechanisms on them add.
 *
 *   long bvt_ctl(unsigned int op, pid_t pid, void *arg, unsigned int flags);
 *
 * @op is a BVT_CTL_* operation on thread @pid (0: the caller), @arg its
 * struct, which starts with its size (as struct sched_attr: a larger
 * struct is accepted if what the kernel does not know is zero, E2BIG
 * otherwise; the kernel writes back at most what the caller's size says
 * and sets size to what it wrote), @flags must be 0.
 *
 * BVT_CTL_RESERVE, struct sched_bvt_rsv: reserve @amount ns of every
 * @period ns for SCHED_BVT thread @pid, continuously: in every window of
 * the granted period, the thread, when runnable, runs for at least the
 * granted amount.  The granted period may be shorter and the granted
 * fraction of the CPU larger than asked, never the reverse; @amount,
 * @period and @cpu return what was granted and on which CPU's plan.  The
 * thread runs there in its reserved time, and anywhere as the BVT thread
 * it is outside it.  Needs CAP_SYS_NICE.  Errors: EINVAL (not SCHED_BVT,
 * amount or period out of range, amount above period), EPERM, ESRCH,
 * EBUSY (no CPU that the thread may run on has room: admission refused),
 * ENOSPC (a plan would have too many slots), EEXIST (the thread has a
 * reservation already: release it first), EAGAIN (the thread's affinity
 * changed meanwhile: ask again).
 * BVT_CTL_RELEASE: end @pid's reservation (@arg NULL); ENOENT if none.
 * BVT_CTL_GET_RSV, struct sched_bvt_rsv: @pid's reservation, and the
 * reserved time it has used (@ran); ENOENT if none.
 *
 * BVT_CTL_TC_BEGIN, struct sched_bvt_tc (@pid 0): ask that @estimate ns
 * of the caller's run time fit between @start and @deadline
 * (CLOCK_MONOTONIC ns; a start in the past is now, one more than
 * SCHED_BVT_TC_SPAN_MAX ahead is EINVAL).  Returns 1 if the
 * constraint is accepted, and then guaranteed: while it has run less
 * than its estimate, the caller runs in its own reserved time and, by
 * earliest deadline first, in the free time of its CPU's plan, before
 * every BVT thread.  Returns 0 at once if the constraint cannot be
 * guaranteed; the caller runs as before.  With SCHED_BVT_TC_END_PREV in
 * @flags, the caller's current constraint ends first, atomically, and
 * @time_taken returns its time.  EBUSY: a constraint is in progress
 * (without END_PREV).  Only a SCHED_BVT thread may ask.
 * BVT_CTL_TC_END, struct sched_bvt_tc (@pid 0): end the caller's
 * constraint; @time_taken is the caller's run time from its begin (or its
 * start, if later) to now, ns.  ENOENT if none.
 *
 * See Documentation/scheduler/sched-bvt.rst.
 */
enum {
	BVT_CTL_RESERVE		= 1,
	BVT_CTL_RELEASE		= 2,
	BVT_CTL_GET_RSV		= 3,
	BVT_CTL_TC_BEGIN	= 4,
	BVT_CTL_TC_END		= 5,
};

struct sched_bvt_rsv {
	__u32	size;
	__s32	cpu;		/* out: the CPU whose plan holds it */
	__u64	amount;		/* ns of every period */
	__u64	period;		/* ns */
	__u64	ran;		/* out: reserved time used, ns */
};

#define SCHED_BVT_RSV_SIZE_VER0		32	/* first published struct */

/* Reservations' bounds (ns): periods up to 4 s keep the arithmetic in 64 bits. */
#define SCHED_BVT_RSV_PERIOD_MIN	1000000ULL	/* 1 ms */
#define SCHED_BVT_RSV_PERIOD_MAX	4000000000ULL	/* 4 s */
#define SCHED_BVT_RSV_AMOUNT_MIN	10000ULL	/* 10 us */

struct sched_bvt_tc {
	__u32	size;
	__u32	flags;		/* SCHED_BVT_TC_* */
	__u64	start;		/* CLOCK_MONOTONIC ns */
	__u64	estimate;	/* ns of run time */
	__u64	deadline;	/* CLOCK_MONOTONIC ns */
	__u64	time_taken;	/* out: of the constraint ended, ns */
	__s32	cpu;		/* out: the CPU whose plan guarantees it */
	__u32	__reserved;
};

#define SCHED_BVT_TC_SIZE_VER0		48	/* first published struct */

/* The longest a constraint may span, start to deadline (ns). */
#define SCHED_BVT_TC_SPAN_MAX		10000000000ULL	/* 10 s */

#define SCHED_BVT_TC_END_PREV		0x01	/* end the current one first */
#define SCHED_BVT_TC_ENDED		0x02	/* out: time_taken is set */
#define SCHED_BVT_TC_MISSED		0x04	/* out: it ended past its deadline */

#endif /* _UAPI_LINUX_SCHED_BVT_H */
