/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the Borrowed Virtual Time class, for
 * "trace-cmd record -e sched_bvt".  Virtual times are in ns as seen by a
 * weight-1024 thread; see Documentation/scheduler/sched-bvt.rst.  Only
 * kernel/sched/bvt.c includes this, after kernel/sched/bvt.h.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sched_bvt

#if !defined(_TRACE_SCHED_BVT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SCHED_BVT_H

#include <linux/sched.h>
#include <linux/tracepoint.h>

/* Why a thread started or stopped running warped: enum bvt_warp_reason. */
TRACE_DEFINE_ENUM(BVT_WARP_WAKEUP);
TRACE_DEFINE_ENUM(BVT_WARP_UNWARP_DONE);
TRACE_DEFINE_ENUM(BVT_WARP_BLOCK);
TRACE_DEFINE_ENUM(BVT_WARP_LIMIT);
TRACE_DEFINE_ENUM(BVT_WARP_PARAMS);
TRACE_DEFINE_ENUM(BVT_WARP_SIGNAL);

#define show_bvt_warp_reason(reason)				\
	__print_symbolic(reason,				\
			 { BVT_WARP_WAKEUP, "wakeup" },		\
			 { BVT_WARP_UNWARP_DONE, "unwarp-passed" },	\
			 { BVT_WARP_BLOCK, "block" },		\
			 { BVT_WARP_LIMIT, "limit" },		\
			 { BVT_WARP_PARAMS, "params" },		\
			 { BVT_WARP_SIGNAL, "signal" })

/* Why a cooperation domain runs a member: enum bvt_coop_reason. */
TRACE_DEFINE_ENUM(BVT_COOP_EXPIRED);
TRACE_DEFINE_ENUM(BVT_COOP_EVENT);
TRACE_DEFINE_ENUM(BVT_COOP_DEADLINE);

#define show_bvt_coop_reason(reason)				\
	__print_symbolic(reason,				\
			 { BVT_COOP_EXPIRED, "expired-deadline" },	\
			 { BVT_COOP_EVENT, "event" },		\
			 { BVT_COOP_DEADLINE, "deadline" })

/* Why a thread moved to another CPU: enum bvt_migrate_reason. */
TRACE_DEFINE_ENUM(BVT_MIGRATE_WAKEUP);
TRACE_DEFINE_ENUM(BVT_MIGRATE_PUSH);
TRACE_DEFINE_ENUM(BVT_MIGRATE_PULL);
TRACE_DEFINE_ENUM(BVT_MIGRATE_PLAN);

#define show_bvt_migrate_reason(reason)				\
	__print_symbolic(reason,				\
			 { BVT_MIGRATE_WAKEUP, "wakeup" },	\
			 { BVT_MIGRATE_PUSH, "push" },		\
			 { BVT_MIGRATE_PULL, "pull" },		\
			 { BVT_MIGRATE_PLAN, "plan" })

/* The thread picked to run next on a CPU, with the CPU's SVT. */
TRACE_EVENT(sched_bvt_pick,

	TP_PROTO(struct task_struct *p, u64 avt, u64 evt, u64 svt),

	TP_ARGS(p, avt, evt, svt),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u64,	avt)
		__field(u64,	evt)
		__field(u64,	svt)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->avt	= avt;
		__entry->evt	= evt;
		__entry->svt	= svt;
	),

	TP_printk("comm=%s pid=%d avt=%llu evt=%llu svt=%llu",
		  __entry->comm, __entry->pid, __entry->avt, __entry->evt,
		  __entry->svt)
);

DECLARE_EVENT_CLASS(sched_bvt_warp_template,

	TP_PROTO(struct task_struct *p, int reason, u64 ran_ns),

	TP_ARGS(p, reason, ran_ns),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(int,	reason)
		__field(u64,	ran_ns)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->reason	= reason;
		__entry->ran_ns	= ran_ns;
	),

	TP_printk("comm=%s pid=%d reason=%s ran_warped=%llu",
		  __entry->comm, __entry->pid,
		  show_bvt_warp_reason(__entry->reason),
		  __entry->ran_ns)
);

/* A thread starts running warped. */
DEFINE_EVENT(sched_bvt_warp_template, sched_bvt_warp_start,
	TP_PROTO(struct task_struct *p, int reason, u64 ran_ns),
	TP_ARGS(p, reason, ran_ns));

/* A thread stops running warped; "limit" is L exceeded. */
DEFINE_EVENT(sched_bvt_warp_template, sched_bvt_warp_end,
	TP_PROTO(struct task_struct *p, int reason, u64 ran_ns),
	TP_ARGS(p, reason, ran_ns));

/* A thread wants to warp within U of its last warp: deferred by @wait_ns. */
TRACE_EVENT(sched_bvt_warp_deferred,

	TP_PROTO(struct task_struct *p, u64 wait_ns),

	TP_ARGS(p, wait_ns),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u64,	wait_ns)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->wait_ns = wait_ns;
	),

	TP_printk("comm=%s pid=%d wait_ns=%llu",
		  __entry->comm, __entry->pid, __entry->wait_ns)
);

/*
 * A thread moves from CPU @src to CPU @dst: placed there at wakeup, where
 * it runs sooner even with the migration penalty, pushed there to a free
 * CPU or to even out the BVT load, or pulled there by a CPU that had no
 * BVT thread to run.  @penalty_ns is M, the virtual time charged against
 * leaving the CPU it last ran on when the choice was made.
 */
TRACE_EVENT(sched_bvt_migrate,

	TP_PROTO(struct task_struct *p, int src, int dst, int reason,
		 u64 penalty_ns),

	TP_ARGS(p, src, dst, reason, penalty_ns),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(int,	src)
		__field(int,	dst)
		__field(int,	reason)
		__field(u64,	penalty_ns)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->src	= src;
		__entry->dst	= dst;
		__entry->reason	= reason;
		__entry->penalty_ns = penalty_ns;
	),

	TP_printk("comm=%s pid=%d src=%d dst=%d reason=%s penalty=%llu",
		  __entry->comm, __entry->pid, __entry->src, __entry->dst,
		  show_bvt_migrate_reason(__entry->reason), __entry->penalty_ns)
);

/*
 * BVT threads of CPU @cpu have kept sched_ext's @nr_waiting tasks there
 * waiting for @waited_ns of the fair server's period, all they may: the
 * class leaves the CPU to them for the rest of the period.
 */
TRACE_EVENT(sched_bvt_ext_cede,

	TP_PROTO(int cpu, u64 waited_ns, unsigned int nr_waiting),

	TP_ARGS(cpu, waited_ns, nr_waiting),

	TP_STRUCT__entry(
		__field(int,		cpu)
		__field(u64,		waited_ns)
		__field(unsigned int,	nr_waiting)
	),

	TP_fast_assign(
		__entry->cpu		= cpu;
		__entry->waited_ns	= waited_ns;
		__entry->nr_waiting	= nr_waiting;
	),

	TP_printk("cpu=%d waited=%llu nr_waiting=%u", __entry->cpu,
		  __entry->waited_ns, __entry->nr_waiting)
);

/* A thread moves between the reserved-effort and best-effort levels. */
TRACE_EVENT(sched_bvt_level,

	TP_PROTO(struct task_struct *p, bool reserved),

	TP_ARGS(p, reserved),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(bool,	reserved)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->reserved = reserved;
	),

	TP_printk("comm=%s pid=%d level=%s", __entry->comm, __entry->pid,
		  __entry->reserved ? "reserved" : "best-effort")
);

#ifdef CONFIG_SCHED_BVT_COOP
/* A coop_poll() call, with the events it gives (kernel/sched/coop_poll.c). */
TRACE_EVENT(sched_bvt_coop_poll,

	TP_PROTO(struct task_struct *p, u32 flags, u64 deadline, u32 priority),

	TP_ARGS(p, flags, deadline, priority),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u32,	flags)
		__field(u64,	deadline)
		__field(u32,	priority)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->flags		= flags;
		__entry->deadline	= deadline;
		__entry->priority	= priority;
	),

	TP_printk("comm=%s pid=%d flags=%#x deadline=%llu priority=%u",
		  __entry->comm, __entry->pid, __entry->flags,
		  __entry->deadline, __entry->priority)
);

/* A thread joins or leaves the cooperation domain of its CPU. */
TRACE_EVENT(sched_bvt_coop_member,

	TP_PROTO(struct task_struct *p, bool joined),

	TP_ARGS(p, joined),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(bool,	joined)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->joined	= joined;
	),

	TP_printk("comm=%s pid=%d %s", __entry->comm, __entry->pid,
		  __entry->joined ? "joined" : "left")
);

/* A member ran past its slice: a best-effort thread for penalty_ns. */
TRACE_EVENT(sched_bvt_coop_police,

	TP_PROTO(struct task_struct *p, u64 penalty_ns),

	TP_ARGS(p, penalty_ns),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u64,	penalty_ns)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->penalty_ns	= penalty_ns;
	),

	TP_printk("comm=%s pid=%d penalty_ns=%llu", __entry->comm,
		  __entry->pid, __entry->penalty_ns)
);

/*
 * A cooperation domain picks the member to run, and why; with the events
 * the member gave, as sched_bvt_coop_poll shows them.
 */
TRACE_EVENT(sched_bvt_coop_dispatch,

	TP_PROTO(struct task_struct *p, int reason, u32 flags, u64 deadline,
		 u32 priority),

	TP_ARGS(p, reason, flags, deadline, priority),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(int,	reason)
		__field(u32,	flags)
		__field(u64,	deadline)
		__field(u32,	priority)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->reason		= reason;
		__entry->flags		= flags;
		__entry->deadline	= deadline;
		__entry->priority	= priority;
	),

	TP_printk("comm=%s pid=%d reason=%s flags=0x%x deadline=%llu priority=%u",
		  __entry->comm, __entry->pid,
		  show_bvt_coop_reason(__entry->reason), __entry->flags,
		  __entry->deadline, __entry->priority)
);
#endif /* CONFIG_SCHED_BVT_COOP */

#ifdef CONFIG_SCHED_BVT_PBS
/* A thread of a level in PBS mode is picked: its T, S and p (Q24). */
TRACE_EVENT(sched_bvt_pbs_pick,

	TP_PROTO(struct task_struct *p, u64 sojourn, u64 service, s64 prio,
		 u32 nr_sessions),

	TP_ARGS(p, sojourn, service, prio, nr_sessions),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u64,	sojourn)
		__field(u64,	service)
		__field(s64,	prio)
		__field(u32,	nr_sessions)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->sojourn	= sojourn;
		__entry->service	= service;
		__entry->prio		= prio;
		__entry->nr_sessions	= nr_sessions;
	),

	TP_printk("comm=%s pid=%d sojourn=%llu service=%llu prio=%lld nr_sessions=%u",
		  __entry->comm, __entry->pid, __entry->sojourn,
		  __entry->service, __entry->prio, __entry->nr_sessions)
);
#endif /* CONFIG_SCHED_BVT_PBS */

#ifdef CONFIG_SCHED_BVT_RSV
/* A CPU reservation is granted on @cpu's plan, or released. */
DECLARE_EVENT_CLASS(sched_bvt_rsv_class,

	TP_PROTO(struct task_struct *p, int cpu, u64 amount, u64 period),

	TP_ARGS(p, cpu, amount, period),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(int,	cpu)
		__field(u64,	amount)
		__field(u64,	period)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->cpu	= cpu;
		__entry->amount	= amount;
		__entry->period	= period;
	),

	TP_printk("comm=%s pid=%d cpu=%d amount=%llu period=%llu",
		  __entry->comm, __entry->pid, __entry->cpu, __entry->amount,
		  __entry->period)
);

DEFINE_EVENT(sched_bvt_rsv_class, sched_bvt_rsv_reserve,
	TP_PROTO(struct task_struct *p, int cpu, u64 amount, u64 period),
	TP_ARGS(p, cpu, amount, period));

/* For a release, amount is the reserved time it ran, period 0. */
DEFINE_EVENT(sched_bvt_rsv_class, sched_bvt_rsv_release,
	TP_PROTO(struct task_struct *p, int cpu, u64 amount, u64 period),
	TP_ARGS(p, cpu, amount, period));

/*
 * A CPU's plan enters a slot of @len ns: of the reservation of @pid (its
 * budget replenished), of the idle reservation (@pid -1) or free (0).
 * @exhausted: the thread of the slot that ended was running, its budget
 * used up.
 */
TRACE_EVENT(sched_bvt_rsv_slot,

	TP_PROTO(int cpu, pid_t pid, u64 len, pid_t exhausted),

	TP_ARGS(cpu, pid, len, exhausted),

	TP_STRUCT__entry(
		__field(int,	cpu)
		__field(pid_t,	pid)
		__field(u64,	len)
		__field(pid_t,	exhausted)
	),

	TP_fast_assign(
		__entry->cpu		= cpu;
		__entry->pid		= pid;
		__entry->len		= len;
		__entry->exhausted	= exhausted;
	),

	TP_printk("cpu=%d pid=%d len=%llu exhausted=%d", __entry->cpu,
		  __entry->pid, __entry->len, __entry->exhausted)
);

/* A time constraint begins: accepted on @cpu, or not (-1). */
TRACE_EVENT(sched_bvt_tc_begin,

	TP_PROTO(struct task_struct *p, u64 start, u64 estimate, u64 deadline,
		 int cpu),

	TP_ARGS(p, start, estimate, deadline, cpu),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u64,	start)
		__field(u64,	estimate)
		__field(u64,	deadline)
		__field(int,	cpu)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->start		= start;
		__entry->estimate	= estimate;
		__entry->deadline	= deadline;
		__entry->cpu		= cpu;
	),

	TP_printk("comm=%s pid=%d start=%llu estimate=%llu deadline=%llu cpu=%d",
		  __entry->comm, __entry->pid, __entry->start,
		  __entry->estimate, __entry->deadline, __entry->cpu)
);

/* A time constraint ends: the time it took, and whether it missed. */
TRACE_EVENT(sched_bvt_tc_end,

	TP_PROTO(struct task_struct *p, u64 taken, int missed),

	TP_ARGS(p, taken, missed),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(u64,	taken)
		__field(int,	missed)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid	= p->pid;
		__entry->taken	= taken;
		__entry->missed	= missed;
	),

	TP_printk("comm=%s pid=%d taken=%llu missed=%d", __entry->comm,
		  __entry->pid, __entry->taken, __entry->missed)
);

/* An accepted constraint's deadline passes before its end. */
TRACE_EVENT(sched_bvt_tc_miss,

	TP_PROTO(struct task_struct *p, int cpu, u64 deadline, u64 left),

	TP_ARGS(p, cpu, deadline, left),

	TP_STRUCT__entry(
		__array(char,	comm,	TASK_COMM_LEN)
		__field(pid_t,	pid)
		__field(int,	cpu)
		__field(u64,	deadline)
		__field(u64,	left)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->cpu		= cpu;
		__entry->deadline	= deadline;
		__entry->left		= left;
	),

	TP_printk("comm=%s pid=%d cpu=%d deadline=%llu left=%llu",
		  __entry->comm, __entry->pid, __entry->cpu, __entry->deadline,
		  __entry->left)
);
#endif /* CONFIG_SCHED_BVT_RSV */

#ifdef CONFIG_SCHED_BVT_QAS
/*
 * A QAS thread's part @part ended: @overrun, it ran its amount; else the
 * thread went on to the next, or began its next period.
 */
TRACE_EVENT(sched_bvt_qas_part,

	TP_PROTO(struct task_struct *p, unsigned int part, bool overrun),

	TP_ARGS(p, part, overrun),

	TP_STRUCT__entry(
		__array(char,		comm,	TASK_COMM_LEN)
		__field(pid_t,		pid)
		__field(unsigned int,	part)
		__field(bool,		overrun)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->part		= part;
		__entry->overrun	= overrun;
	),

	TP_printk("comm=%s pid=%d part=%u overrun=%d",
		  __entry->comm, __entry->pid, __entry->part, __entry->overrun)
);

/*
 * Period @seq of a QAS thread started at @start (CLOCK_MONOTONIC ns); the
 * one before ended in part @ended (the number of parts: in none).
 */
TRACE_EVENT(sched_bvt_qas_period,

	TP_PROTO(struct task_struct *p, u64 seq, u64 start, unsigned int ended),

	TP_ARGS(p, seq, start, ended),

	TP_STRUCT__entry(
		__array(char,		comm,	TASK_COMM_LEN)
		__field(pid_t,		pid)
		__field(u64,		seq)
		__field(u64,		start)
		__field(unsigned int,	ended)
	),

	TP_fast_assign(
		memcpy(__entry->comm, p->comm, TASK_COMM_LEN);
		__entry->pid		= p->pid;
		__entry->seq		= seq;
		__entry->start		= start;
		__entry->ended		= ended;
	),

	TP_printk("comm=%s pid=%d seq=%llu start=%llu ended=%u",
		  __entry->comm, __entry->pid, __entry->seq, __entry->start,
		  __entry->ended)
);
#endif /* CONFIG_SCHED_BVT_QAS */

#endif /* _TRACE_SCHED_BVT_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
