/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SCHED_BVT_H
#define _LINUX_SCHED_BVT_H

#include <linux/rbtree_types.h>
#include <linux/types.h>

struct bvt_level;
struct bvt_pbs_state;

/* A thread's BVT parameters, as set with sched_setattr(2). */
struct sched_bvt_params {
	u32				weight;		/* 0: from nice */
	u32				flags;		/* SCHED_BVT_FLAG_* */
	s64				warp;		/* W, ns of virtual time */
	u64				warp_limit;	/* L, ns, 0: unlimited */
	u64				unwarp;		/* U, ns */
};

/*
 * What a level of SCHED_BVT queues: a thread, or a level of the hierarchy
 * (the best-effort level, a cooperation domain) queued in the level above.
 * All virtual times are in nanoseconds as seen by a weight-1024 entity and
 * compared modulo 2^64.
 */
struct bvt_entity {
	struct rb_node			run_node;	/* in bvt_level::timeline */
	u64				avt;		/* A: actual virtual time */
	u64				min_avt;	/* least A in this subtree */
	s64				warp;		/* E = A - warp while warped */
	u32				weight;		/* A is charged at, while queued */
	u8				on_rq;
	/* avt is relative to the svt of the level it left (fork, migration) */
	u8				vt_relative;
	u8				warped;
	/* it stands for a struct bvt_level, whose entity it is: not a thread */
	u8				is_level;
	/* the level it is queued in; its entity is this one's parent */
	struct bvt_level		*lv;
	/* its session in a level in PBS mode; NULL: none (kernel/sched/pbs.c) */
	struct bvt_pbs_state		*pbs;
};

struct sched_bvt_coop_state;
struct bvt_plan_task;

/* A thread's SCHED_BVT state: its entity, parameters, warp and timers. */
struct sched_bvt_entity {
	struct bvt_entity		se;
	/* weight admitted to the reserved-effort level, 0 outside it */
	u32				re_weight;
	/* counted in bvt_rq::nr_migratory while queued */
	u8				migratory;
	/* an SA_BVT_WARP signal warps it until it next blocks */
	u8				sig_warp;
	/* it runs with pi_params, not params (see bvt_run()) */
	u8				pi_boosted;
	union {
		/* while warped: ns run warped since this warp began */
		u64			warp_ran;
		/* otherwise: rq clock when the last warp ended, 0: never */
		u64			warp_ended;
	};
	/* rq clock when it last began to wait for its CPU */
	u64				wait_start;
	/* in bvt_rq::warp_waiting while its warp waits for U to pass */
	struct rb_node			warp_node;
	/* its own, as set with sched_setattr(2) and returned by getattr */
	struct sched_bvt_params		params;
	/* its own merged with its PI donor's, while boosted */
	struct sched_bvt_params		pi_params;
	/* its part in a cooperation domain, from its first coop_poll(2) */
	struct sched_bvt_coop_state	*coop;
	/* its reservations, constraint and QAS set, from its first (bvt_rsv.c) */
	struct bvt_plan_task		*in_plan;
};

struct task_struct;

#ifdef CONFIG_SCHED_BVT
void bvt_signal_warp(struct task_struct *p);
void bvt_task_exec(struct task_struct *p);
void bvt_task_exit(struct task_struct *p);
void bvt_task_dead(struct task_struct *p);
bool bvt_task(struct task_struct *p);
u64 bvt_pi_key(struct task_struct *p);
#else
static inline void bvt_signal_warp(struct task_struct *p) { }
static inline void bvt_task_exec(struct task_struct *p) { }
static inline void bvt_task_exit(struct task_struct *p) { }
static inline void bvt_task_dead(struct task_struct *p) { }
static inline bool bvt_task(struct task_struct *p)
{
	return false;
}

static inline u64 bvt_pi_key(struct task_struct *p)
{
	return 0;
}
#endif

#endif /* _LINUX_SCHED_BVT_H */
