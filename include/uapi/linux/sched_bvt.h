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
 * A struct sched_attr shorter than SCHED_ATTR_SIZE_VER2 carries none of
 * these, not even the part of them it covers: a thread entering SCHED_BVT
 * with one gets all of them as 0, weight from nice and no warp, and one
 * already in it keeps its own.  See Documentation/scheduler/sched-bvt.rst.
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
 * change of policy, exec and exit.  @flags must be 0.  A caller that sleeps
 * to its deadline and gets a signal restarts the call after a handler
 * installed with SA_RESTART, else returns EINTR.  An expired deadline buys
 * a member the CPU before the others only within its share of the domain:
 * one that has run more than a turn ahead of the others while another
 * waits past its deadline is policed.  coop_poll() is system call 463
 * (see Documentation/scheduler/sched-bvt.rst, "System call numbers"); a
 * kernel built without cooperative polling (its option SCHED_BVT_COOP,
 * sched-bvt.rst "Configuration") fails it with ENOSYS.
 *
 *  @size:     sizeof(struct sched_bvt_coop), as with struct sched_attr: a
 *             larger @in is accepted if what the kernel does not know is
 *             zero (E2BIG otherwise, or above a page); out->size is read
 *             to know how much to write, and set to what the kernel wrote.
 *             Either below SCHED_BVT_COOP_SIZE_VER0 is EINVAL.  @in and
 *             out->size are read before the caller yields; an @out that
 *             cannot be written fails with EFAULT after it has.
 *  @flags:    which of the fields below are set: SCHED_BVT_COOP_DEADLINE,
 *             SCHED_BVT_COOP_EVENT; on @out also SCHED_BVT_COOP_POLICING
 *             (the deadline is the end of the domain's turn), and
 *             SCHED_BVT_COOP_POLICED while the caller, policed for running
 *             past the time it was given or beyond its share, is a plain
 *             best-effort thread.
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
 * and sets size to what it wrote), @flags must be 0.  BVT_CTL_RESERVE,
 * BVT_CTL_TC_BEGIN and BVT_CTL_QAS_RESERVE take the fields the kernel
 * writes back ("out") as 0 on the way in (EINVAL otherwise), and so does
 * BVT_CTL_TC_END the flags of its struct; the other operations ignore
 * what they hold.  An operation of a mechanism the kernel is built
 * without fails with EOPNOTSUPP: BVT_CTL_RESERVE to BVT_CTL_TC_END need
 * the option SCHED_BVT_RSV, BVT_CTL_QAS_* SCHED_BVT_QAS (sched-bvt.rst,
 * "Configuration").  Any operation may fail with ENOMEM.
 * bvt_ctl() is system call 464 (see Documentation/scheduler/sched-bvt.rst,
 * "System call numbers").
 *
 * BVT_CTL_RESERVE, struct sched_bvt_rsv: reserve @amount ns of every
 * @period ns for SCHED_BVT thread @pid, continuously: in every window of
 * the granted period, the thread, when runnable, runs for at least the
 * granted amount.  The granted period may be shorter and the granted
 * fraction of the CPU larger than asked, never the reverse; @amount,
 * @period and @cpu return what was granted and on which CPU's plan.  The
 * thread runs there in its reserved time, and anywhere as the BVT thread
 * it is outside it.  Needs CAP_SYS_NICE.  Errors: EINVAL (not SCHED_BVT,
 * amount or period out of range, amount above period), EPERM, ESRCH
 * (checked in the order: @cpu and @ran, CAP_SYS_NICE, @pid), ENOMEM,
 * EBUSY (no CPU that the thread may run on has room: admission refused),
 * ENOSPC (a plan would have too many slots), EEXIST (the thread has a
 * reservation already: release it first), EAGAIN (the thread's affinity
 * changed meanwhile: ask again).
 * BVT_CTL_RELEASE: end @pid's reservation (@arg ignored); ENOENT if none,
 * EBUSY if its accepted constraint counts on it or it is a QAS mandatory
 * part's, EPERM for another thread's without CAP_SYS_NICE (a thread may
 * give its own up).
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
 * guaranteed; the caller runs as before.  Accepted or not, the constraint
 * is begun, and is ended by BVT_CTL_TC_END.  With SCHED_BVT_TC_END_PREV
 * in @flags, the caller's current constraint ends first, atomically, and
 * @time_taken returns its time (with none begun, it just begins one).
 * EBUSY: a constraint is begun (without END_PREV).  EINVAL: an estimate
 * longer than deadline - start, or a window of more than
 * SCHED_BVT_TC_SPAN_MAX.  Only a SCHED_BVT thread may ask.  Without
 * CAP_SYS_NICE, a constraint is accepted only if its user then holds at
 * most 4 of the CPU's 16 and they need at most half its free time, and it
 * gives way to a privileged claim (a reservation, or a constraint begun
 * with CAP_SYS_NICE) that needs its time: it then loses its guarantee.
 * BVT_CTL_TC_END, struct sched_bvt_tc (@pid 0): end the caller's
 * constraint, whatever its policy is by now; @time_taken is the caller's
 * run time from its begin (or its start, if later; 0 before the start) to
 * now, ns.  SCHED_BVT_TC_MISSED: it ended past its deadline, or lost its
 * guarantee (its thread left SCHED_BVT, an affinity change took its CPU
 * away, the CPU went offline, a privileged claim took its place).
 * ENOENT if none; EINVAL if the struct's
 * flags are not 0 on the way in.
 *
 * Quality-assuring scheduling (QAS, DROPS): a periodic thread holds a
 * reservation set, parts of its period each used in turn, in the order
 * reserved: a mandatory part first, if any, then optional parts.
 * BVT_CTL_QAS_PERIOD, struct sched_bvt_qas: make SCHED_BVT thread @pid
 * periodic, with @period, @flags (SCHED_BVT_QAS_RESTRICT) and @signal (the
 * signal that notifies it, 0: none; only for the caller itself: EPERM
 * otherwise; EINVAL if not a valid signal number, or SIGKILL or
 * SIGSTOP).  Needs CAP_SYS_NICE.  EEXIST if it has a set already.
 * BVT_CTL_QAS_RESERVE, struct sched_bvt_qas_part: add a part to @pid's
 * set, @amount ns of each period at @priority.  With
 * SCHED_BVT_QAS_MANDATORY (the first part only) the amount is the worst
 * case and is guaranteed in every period: it is admitted as a CPU
 * reservation (see BVT_CTL_RESERVE; @cpu, @granted_amount and
 * @granted_period return it) that holds @amount in any window of the
 * period, and the part runs before every optional part.  Optional parts
 * run in the time reservations and accepted constraints leave, before
 * the BVT threads, by @priority (0 first; QMS: the lower the quality asked
 * of a part, the later it comes).  @index returns the part's index.
 * EBUSY: the mandatory part does not fit, or the set has begun (parts are
 * reserved before the first BVT_CTL_QAS_BEGIN); ENOSPC: more than
 * SCHED_BVT_QAS_PARTS_MAX parts; EINVAL: the parts' amounts would exceed
 * the period, an @amount below SCHED_BVT_RSV_AMOUNT_MIN, a @priority
 * above SCHED_BVT_QAS_PRIO_MAX, a mandatory part after the first or with
 * a non-zero @priority; EEXIST: @pid has a CPU reservation of its own.
 * Needs CAP_SYS_NICE.
 * BVT_CTL_QAS_BEGIN (@pid 0 or the caller's, @arg NULL: EINVAL
 * otherwise): begin the caller's next period.
 * The first call starts the periods, at once.  Later ones release what is
 * left of the current period's parts and sleep until the next period
 * starts, or return at once if one has started since the last call: the
 * caller is late, and has been using that period's parts.  Returns the
 * number of periods that started since the last call minus one (periods
 * lost).  A signal interrupts the sleep: EINTR, or the call starts
 * again after a handler installed with SA_RESTART.
 * BVT_CTL_QAS_NEXT (@pid 0 or the caller's, @arg NULL: EINVAL otherwise):
 * go on to the next part; returns
 * its index, or the number of parts if the set is used up.
 * A part ends when it has run its amount (an overrun: notified) or at
 * BVT_CTL_QAS_NEXT, and the next one starts; once the last has ended the
 * thread runs as the BVT thread it is until the next period, or with
 * SCHED_BVT_QAS_RESTRICT waits for it (on its way back to user space).
 * A period that ends with a part not ended is notified too, and each
 * period starts with all the parts afresh, from the first.
 * BVT_CTL_QAS_END: end @pid's periods and release its set; ENOENT if none.
 * A change of policy and exit do too; exec keeps it, without its signal;
 * fork does not pass it.
 * BVT_CTL_QAS_GET, struct sched_bvt_qas: @pid's set and its counters.
 *
 * A notification is the signal @signal, sent to the thread when it next
 * returns to user space, which is when it next runs, with si_code
 * SI_BVT_QAS_OVERRUN or SI_BVT_QAS_PERIOD and the part's index in
 * si_value.sival_int.  What happens again, to the same part, before the
 * thread gets there is sent once, and a signal below SIGRTMIN is not
 * queued twice either; the counters count every one.  (As any negative
 * si_code, SI_TIMER's and SI_MESGQ's among them, these can also be sent
 * by a process allowed to signal the thread, with its own si_pid: the
 * kernel's have si_pid 0.)
 *
 * See Documentation/scheduler/sched-bvt.rst.
 */
enum {
	BVT_CTL_RESERVE		= 1,
	BVT_CTL_RELEASE		= 2,
	BVT_CTL_GET_RSV		= 3,
	BVT_CTL_TC_BEGIN	= 4,
	BVT_CTL_TC_END		= 5,
	BVT_CTL_QAS_PERIOD	= 6,
	BVT_CTL_QAS_RESERVE	= 7,
	BVT_CTL_QAS_BEGIN	= 8,
	BVT_CTL_QAS_NEXT	= 9,
	BVT_CTL_QAS_END		= 10,
	BVT_CTL_QAS_GET		= 11,
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
#define SCHED_BVT_TC_MISSED		0x04	/* out: late, or guarantee lost */

struct sched_bvt_qas {
	__u32	size;
	__u32	flags;		/* SCHED_BVT_QAS_RESTRICT */
	__u64	period;		/* ns */
	__s32	signal;		/* notifies the thread; 0: none */
	__u32	nr_parts;	/* out */
	__u32	part;		/* out: the current one; nr_parts: none */
	__u32	__reserved;
	__u64	period_start;	/* out: of the current period, CLOCK_MONOTONIC */
	__u64	nr_periods;	/* out: periods started */
	__u64	nr_overruns;	/* out: parts ended by their amount */
	__u64	nr_period_ends;	/* out: periods ended with a part not ended */
	__u64	nr_mandatory_misses; /* out: ... in the mandatory part */
};

#define SCHED_BVT_QAS_SIZE_VER0		72	/* first published struct */

#define SCHED_BVT_QAS_RESTRICT		0x01	/* used up: wait for the next */

struct sched_bvt_qas_part {
	__u32	size;
	__u32	flags;		/* SCHED_BVT_QAS_MANDATORY */
	__u64	amount;		/* ns of each period */
	__u32	priority;	/* of an optional part: 0 runs first */
	__s32	index;		/* out: in the set */
	__s32	cpu;		/* out: the mandatory part's reservation */
	__u32	__reserved;
	__u64	granted_amount;	/* out: ... of every granted_period ns */
	__u64	granted_period;
};

#define SCHED_BVT_QAS_PART_SIZE_VER0	48	/* first published struct */

#define SCHED_BVT_QAS_MANDATORY		0x01	/* admitted: guaranteed */

#define SCHED_BVT_QAS_PARTS_MAX		16
#define SCHED_BVT_QAS_PRIO_MAX		255

/* si_code of a notification (a negative code: si_value carries the index) */
#define SI_BVT_QAS_OVERRUN	(-32)	/* the part ran its amount */
#define SI_BVT_QAS_PERIOD	(-33)	/* the period ended in that part */

#endif /* _UAPI_LINUX_SCHED_BVT_H */
