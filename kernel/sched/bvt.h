/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCHED_BVT: what the scheduler core and the syscalls need to see of the
 * Borrowed Virtual Time class (kernel/sched/bvt.c).
 */
#ifndef _KERNEL_SCHED_BVT_H
#define _KERNEL_SCHED_BVT_H

#include <linux/errno.h>
#include <linux/hrtimer_types.h>
#include <linux/irq_work_types.h>
#include <linux/rbtree_types.h>
#include <linux/types.h>
#include <linux/uidgid_types.h>
#include <linux/workqueue_types.h>
#include <linux/spinlock_types.h>
#include <linux/sched/bvt.h>
#include <linux/smp_types.h>
#include <uapi/linux/sched.h>
#include <uapi/linux/sched_bvt.h>

struct rq;
struct sched_attr;
struct seq_file;
struct task_struct;

struct bvt_level;

/* PBS's O(1) selection keeps this many top entities (the paper's L). */
#define BVT_PBS_TOP	2

/*
 * A thread's part in the plan of its CPU: its CPU reservation, time
 * constraint and QAS set (kernel/sched/bvt_rsv.c, qas.c).  Linked with
 * the first of them, by the thread itself (a constraint) or under its rq
 * lock having seen it is not exiting; freed when it is dead.  Readers
 * hold RCU or a lock that the one who ends a part holds.
 */
struct bvt_plan_task {
	struct bvt_rsv			*rsv;
	struct bvt_tc			*tc;
	struct bvt_qas			*qas;
	struct rcu_head			rcu;
};

/*
 * An entity's session, as a level in PBS mode sees it (kernel/sched/pbs.c):
 * times are rq clock ns, service is ns run.  A level's is in the level; a
 * thread's is allocated when it enters the class (bvt_prepare_task()).
 */
struct bvt_pbs_state {
	u64				session;	/* when it began */
	u64				session_ran;	/* run by then */
	u64				session_slept;	/* inactive since */
	u64				entered;	/* in the level */
	u64				entered_ran;
	u64				slept_at;	/* last stopped running */
	u64				slept_total;	/* of its inactive periods */
	u32				nr_slept;
	u32				nr_sessions;
	u32				epoch;		/* of bvt_pbs_epoch */
	struct rcu_head			rcu;
};

/*
 * What makes one kind of level differ from another: how it orders its
 * runnable entities and picks one, and how urgent the one it would run
 * makes the level in the level above.  The running entity is kept out of
 * a level's queue, as CFS keeps it out of its tree.
 */
struct bvt_level_ops {
	/* put @se, runnable and not running, in @lv's queue, or take it out */
	void (*queue)(struct bvt_level *lv, struct bvt_entity *se);
	void (*unqueue)(struct bvt_level *lv, struct bvt_entity *se);
	/* the runnable entity to run, the running one included */
	struct bvt_entity *(*pick)(struct bvt_level *lv);
	/* the warp @lv runs with in the level above, from what it would run */
	s64 (*warp)(struct bvt_level *lv);
	/*
	 * should the runnable @se take the CPU from @curr, both of @lv?
	 * @wake_flags: the WF_ flags of an unwarped thread's wake-up or
	 * fork, 0 for any other change (parameters, warp, migration)
	 */
	bool (*preempts)(const struct bvt_entity *se,
			 const struct bvt_entity *curr, int wake_flags);
	/* at a tick: has the running @curr had its turn? */
	bool (*expired)(struct bvt_level *lv, struct bvt_entity *curr);
	/* sched_yield(): put @curr behind the next in line; false: none */
	bool (*yield)(struct bvt_level *lv, struct bvt_entity *curr);
	/* optional: @se is picked to run */
	void (*picked)(struct bvt_level *lv, struct bvt_entity *se);
	/*
	 * optional: @se becomes runnable in @lv, or stops being runnable
	 * (ENQUEUE_ and DEQUEUE_ @flags: a wake-up, a sleep)
	 */
	void (*enqueue)(struct bvt_level *lv, struct bvt_entity *se, int flags);
	void (*dequeue)(struct bvt_level *lv, struct bvt_entity *se, int flags);
	/*
	 * optional, a level that runs threads by time it grants, not by
	 * virtual time (the plan): @curr ran @delta ns by @lv, which charges
	 * it in place of A; how long @curr may go on before @lv must look
	 * again (0: @lv's own timer ends it); and whether the class leaves
	 * the CPU to the classes below for now, although @lv picks nothing.
	 */
	void (*charge)(struct bvt_level *lv, struct bvt_entity *curr, u64 delta);
	u64 (*budget)(struct bvt_level *lv, struct bvt_entity *curr);
	bool (*cede)(struct bvt_level *lv);
};

/*
 * A level of the BVT hierarchy: a BVT scheduler, with the runnable
 * entities it dispatches and its scheduler virtual time (SVT), and the
 * entity that stands for it in the level above.  The reserved-effort root,
 * the best-effort level and the cooperation domains are all levels; the
 * root's entity is never queued.  The levels of a CPU live as long as its
 * runqueue, and are changed with it locked.
 */
struct bvt_level {
	struct bvt_entity		se;
	const struct bvt_level_ops	*ops;
	struct rq			*rq;		/* its CPU's */
	struct rb_root_cached		timeline;	/* queued, not running */
	struct bvt_entity		*curr;		/* picked, not queued */
	u64				svt;		/* least A of the runnable */
	unsigned int			nr_queued;	/* runnable, curr included */
#ifdef CONFIG_SCHED_CORE
	u64				svt_fi;		/* SVT as a forced idle began */
	unsigned int			fi_seq;		/* the forced idle it is of */
#endif
	/*
	 * Its own warp, and how it uses it (the best-effort level's
	 * sysctls): it runs warped when the entity it would run is warped,
	 * with that entity's warp in direct mode, or with its own when that
	 * entity's reaches the threshold (threshold mode).
	 */
	s64				warp;
	s64				threshold;
	unsigned int			direct;
	/* PBS mode (kernel/sched/pbs.c): what it ran, as an entity */
	u64				ran;
	/* its entity's session, in a level in PBS mode above */
	struct bvt_pbs_state		pbs_state;
	/* the running entity's bonus gamma, log2 in Q24 */
	s64				pbs_gamma;
	/* the running entity called sched_yield(): the next pick skips it */
	unsigned int			pbs_yielded;
	/* the sampled selection's L top entities, and where sampling goes on */
	struct bvt_entity		*pbs_top[BVT_PBS_TOP];
	unsigned int			pbs_nr_top;
	struct rb_node			*pbs_cursor;
};

/*
 * The cooperation domain of a CPU (kernel/sched/coop_poll.c): a level in
 * the best-effort level whose runnable members are ordered by their
 * events, not by virtual time, and whose weight is the sum of theirs.
 */
struct bvt_coop_domain {
	struct bvt_level		lv;
	struct rb_root_cached		deadlines;	/* runnable, with one */
	struct rb_root_cached		events;		/* runnable, with one */
	u64				weight;		/* of the runnable */
	/*
	 * The deadlines of the attached members that are not runnable, for
	 * what coop_poll() reports: those that sleep in coop_poll() until
	 * theirs, and those blocked elsewhere.  A member leaves them when it
	 * moves to another CPU, with only its pi_lock held: hence a lock of
	 * their own, taken inside the rq lock.
	 */
	raw_spinlock_t			lock;
	struct rb_root_cached		waiting;
	struct rb_root_cached		blocked;
};

/*
 * A thread's part in the cooperation domain of its CPU (coop_poll(2)):
 * the events it gave at its last call, and where they are queued.
 * Allocated by its first call, freed when it is dead (bvt_task_dead()).
 */
struct sched_bvt_coop_state {
	struct sched_bvt_entity		*bt;		/* whose it is */
	struct rb_node			dl_node;	/* runnable, by deadline */
	struct rb_node			ev_node;	/* runnable, by priority */
	/* not runnable, by deadline: waiting in coop_poll(), or blocked */
	struct rb_node			asleep_node;
	/* the domain it is attached to, whose trees it is in; NULL: none */
	struct bvt_coop_domain		*dom;
	u64				deadline;	/* CLOCK_MONOTONIC ns */
	u32				priority;
	u32				flags;		/* SCHED_BVT_COOP_* */
	/* it asked to cooperate, and has not left */
	unsigned int			member;
	/* it sleeps in coop_poll() until its deadline */
	unsigned int			waiting;
	/* asleep_node is in its domain's list of the waiting ones */
	unsigned int			asleep_waiting;
	/* sum_exec_runtime by which it is to call coop_poll() again */
	u64				slice_end;
	/* CLOCK_MONOTONIC ns until which it is policed, out of the domain */
	u64				policed_until;
	/* /proc/<pid>/sched */
	unsigned long			nr_calls;
	unsigned long			nr_yields;
	unsigned long			nr_policed;
	struct rcu_head			rcu;
};

/* Has @bt asked to cooperate, and not left? */
static inline bool bvt_coop_member(const struct sched_bvt_entity *bt)
{
	return IS_ENABLED(CONFIG_SCHED_BVT_COOP) && unlikely(bt->coop) &&
	       bt->coop->member;
}

/*
 * A CPU reservation (kernel/sched/bvt_rsv.c): @amount ns of every @period on
 * the plan of @cpu, for @task.
 */
struct bvt_rsv {
	struct task_struct		*task;		/* NULL once released */
	u64				amount;		/* granted, ns */
	u64				period;		/* granted, ns */
	u64				ran;		/* reserved time run, ns */
	unsigned long			nr_exhausted;	/* slots it ran to the end */
	/*
	 * A QAS mandatory part's (qas.c): @window_amount in every window
	 * of @window ns, however the plan grants it; 0: a reservation as asked.
	 */
	u64				window;
	u64				window_amount;
	int				cpu;
	struct list_head		node;		/* in its CPU's list */
	struct irq_work			irq_work;	/* frees its slots */
	struct work_struct		free_work;
	struct rcu_head			rcu;
};

/* A thread's time constraint (bvt_rsv.c): CLOCK_MONOTONIC ns. */
struct bvt_tc {
	struct rb_node			node;		/* in bvt_plan_level::tcs */
	struct task_struct		*task;
	int				cpu;		/* accepted on; -1: none */
	unsigned int			active;		/* begun, not ended */
	/* its deadline passed, or it lost its guarantee */
	unsigned int			missed;
	/* its thread left SCHED_BVT since its begin */
	unsigned int			lost;
	/*
	 * begun with CAP_SYS_NICE: not held to the bounds of its user, and
	 * not taken off for a privileged claim (bvt_tc_make_room())
	 */
	unsigned int			privileged;
	kuid_t				uid;
	u64				start;
	u64				deadline;
	u64				estimate;
	u64				left;		/* free time to give it */
	/*
	 * Its thread's run time at its begin or, if later, its start; until
	 * the start has passed (@start_pending), the run time and time at
	 * which the thread last began to run, to tell it then.
	 */
	u64				exec_start;
	unsigned int			start_pending;
	u64				run_exec;
	u64				run_at;
	/* /proc/<pid>/sched */
	unsigned long			nr_begun;
	unsigned long			nr_accepted;
	unsigned long			nr_missed;
	struct rcu_head			rcu;
};

/* One part of a QAS reservation set (qas.c). */
struct bvt_qas_part {
	u64				amount;		/* ns of each period */
	u32				rank;		/* 0: mandatory, else 1 + prio */
	unsigned long			nr_overruns;
	unsigned long			nr_period_ends;
};

/*
 * A periodic thread's QAS reservation set (qas.c): changed under its
 * rq lock; allocated by its first BVT_CTL_QAS_PERIOD, freed at its exit.
 */
struct bvt_qas {
	struct rb_node			node;		/* in bvt_plan_level::qas_parts */
	struct task_struct		*task;
	struct hrtimer			timer;		/* at period starts */
	u64				period;
	u64				period_start;	/* CLOCK_MONOTONIC */
	u64				part_exec;	/* sum_exec at part start */
	u64				seq;		/* periods started */
	u64				begun;		/* periods begun */
	u32				flags;		/* SCHED_BVT_QAS_* */
	int				signal;
	unsigned int			nr_parts;
	unsigned int			part;		/* nr_parts: none left */
	unsigned int			active;		/* not ended */
	unsigned int			started;	/* first period begun */
	unsigned int			queued;		/* in qas_parts */
	unsigned int			waiting;	/* for the next period */
	unsigned int			restrict_wait;	/* used up, RESTRICT */
	/* its thread's task work, BVT_QAS_WORK_QUEUED in @work when queued */
	struct callback_head		notify;
	/* BVT_QAS_WORK_QUEUED, and notifications yet to send */
	unsigned long			work;
	unsigned long			pending;
	unsigned long			nr_periods;
	unsigned long			nr_overruns;
	unsigned long			nr_period_ends;
	unsigned long			nr_mandatory_misses;
	struct bvt_qas_part		parts[SCHED_BVT_QAS_PARTS_MAX];
	struct rcu_head			rcu;
};

/* One slot of a CPU's plan: [start, end) of every hyperperiod. */
struct bvt_plan_slot {
	u64				start;
	u64				end;
	struct bvt_rsv			*owner;		/* NULL: free */
	u64				free_before;	/* in the slots before */
};

/* Why the plan runs a thread (bvt_plan_level::pick_by, curr_by). */
enum bvt_plan_by {
	BVT_PLAN_RSV,		/* its reserved slot */
	BVT_PLAN_TC,		/* its accepted constraint, in free time */
	BVT_PLAN_QAS,		/* its QAS part */
	BVT_PLAN_ENDED,		/* its constraint, which it has just ended */
};

/* The most slots a plan may have (ENOSPC beyond). */
#define BVT_PLAN_SLOTS	8192

/*
 * A CPU's precomputed plan (bvt_rsv.c): built by admission, in force under the
 * rq lock.  All periods on it are @base * 2^k and divide @hyper.
 */
struct bvt_plan {
	u64				hyper;		/* the longest period */
	u64				base;		/* 0: idle reservation only */
	u64				shortest;	/* the idle reservation's period */
	u64				free;		/* free time of a hyper */
	unsigned int			capacity;	/* room for slots */
	unsigned int			nr_slots;
	struct bvt_plan_slot		slots[] __counted_by(nr_slots);
};

/* Why a thread started or stopped running warped (sched_bvt tracepoints). */
enum bvt_warp_reason {
	BVT_WARP_WAKEUP,	/* it woke up, or was created */
	BVT_WARP_UNWARP_DONE,	/* U passed while it was runnable */
	BVT_WARP_BLOCK,		/* it blocked */
	BVT_WARP_LIMIT,		/* it ran warped for L */
	BVT_WARP_PARAMS,	/* sched_setattr(), class change, migration */
	BVT_WARP_SIGNAL,	/* an SA_BVT_WARP signal is on its way */
};

/* Why a cooperation domain runs a member (sched_bvt_coop_dispatch). */
enum bvt_coop_reason {
	BVT_COOP_EXPIRED,	/* its deadline has expired, the earliest */
	BVT_COOP_EVENT,		/* its event is the most important */
	BVT_COOP_DEADLINE,	/* no event: its deadline comes first */
};

/* Why a thread moved to another CPU (sched_bvt_migrate). */
enum bvt_migrate_reason {
	BVT_MIGRATE_WAKEUP,	/* placed where it runs sooner */
	BVT_MIGRATE_PUSH,	/* pushed by a CPU where it waited */
	BVT_MIGRATE_PULL,	/* pulled by a CPU with no BVT thread */
	BVT_MIGRATE_PLAN,	/* to its reservation's or constraint's CPU */
};

/*
 * A CPU's plan (bvt_rsv.c) and what it runs: reserved slots, then accepted
 * time constraints by EDF in free time, then QAS parts by rank.  A level
 * that the class asks before the root, while it has a plan or a thread in
 * a QAS part: it picks a thread's own entity, which stays queued in its
 * timeline level, and its lv.curr is that of the thread that runs by it
 * (charged by the plan, not in A), NULL while the thread runs by the tree.
 */
struct bvt_plan_level {
	struct bvt_level		lv;
	struct bvt_plan			*plan;		/* NULL: none */
	u64				epoch;		/* CLOCK_MONOTONIC */
	unsigned int			slot;		/* the current one */
	u64				slot_end;	/* CLOCK_MONOTONIC */
	struct bvt_rsv			*slot_owner;	/* of the current slot */
	struct hrtimer			timer;		/* at slot_end */
#ifdef CONFIG_SMP
	struct irq_work			kick;		/* arms it on its CPU */
#endif
	bool				parked;		/* its CPU is offline */
	/* its timer stops: nothing to run or fetch (bvt_plan_rest()) */
	bool				resting;
	/* no reservation left on it: kept for its constraints until they end */
	bool				orphan;
	struct rb_root_cached		tcs;		/* accepted, by deadline */
	unsigned int			nr_tcs;
	/*
	 * What the last pick of the class chose by the plan (NULL: the
	 * tree), and by what the chosen and the running one run:
	 * BVT_PLAN_RSV, BVT_PLAN_TC, BVT_PLAN_QAS or BVT_PLAN_ENDED.
	 */
	struct bvt_entity		*next;
	enum bvt_plan_by		next_by;
	enum bvt_plan_by		curr_by;
	/* put, and to be moved to its plan's CPU (bvt_plan_put()) */
	struct task_struct		*home_push;
	/* threads in a QAS part (qas.c), runnable here, by rank */
	struct rb_root_cached		qas_parts;
	unsigned int			nr_qas;
};

/* The per-CPU part of SCHED_BVT, in struct rq. */
struct bvt_rq {
	struct bvt_level		root;		/* reserved effort */
	struct bvt_level		be;		/* best effort */
	struct bvt_coop_domain		coop;		/* in be */
	unsigned int			nr_running;	/* runnable BVT tasks */
	unsigned int			nr_migratory;	/* of which may move */
	unsigned int			overloaded;	/* in bvt_overload_mask */
	unsigned long			load;		/* their total weight */
	s64				curr_lag;	/* E - SVT of the running one */
	u64				picked_at;	/* when it was picked */
	struct hrtimer			enforce_timer;	/* L, coop slice */
	/* queued threads whose warp waits for U, by when each may */
	struct rb_root_cached		warp_waiting;
	struct hrtimer			warp_timer;
#ifdef CONFIG_SMP
	/* asks the CPU to update its enforce_timer (see bvt_enforce_arm()) */
	call_single_data_t		enforce_csd;
#endif
	/* what runs first: reserved slots, constraints, QAS parts */
	struct bvt_plan_level		pl;
#ifdef CONFIG_SCHED_CLASS_EXT
	/*
	 * How long BVT threads kept sched_ext's tasks waiting in the
	 * period that ends at ext_period_end, and whether the class now
	 * leaves the CPU to them until it ends (bvt_ext_charge()).
	 */
	u64				ext_waited;
	u64				ext_period_end;
	bool				ext_ceded;
	struct hrtimer			ext_timer;
#endif
};

#ifdef CONFIG_SCHED_BVT

static inline bool bvt_policy(int policy)
{
	return policy == SCHED_BVT;
}

void init_bvt_rq(struct bvt_rq *bvt_rq);
void init_bvt_entity(struct sched_bvt_entity *se);
int bvt_prepare_task(struct task_struct *p);
bool __checkparam_bvt(const struct sched_attr *attr);
bool bvt_attr_needs_priv(struct task_struct *p, const struct sched_attr *attr);
void __setparam_bvt(struct task_struct *p, const struct sched_attr *attr);
void __getparam_bvt(struct task_struct *p, struct sched_attr *attr);
int bvt_admit(struct task_struct *p, int policy, const struct sched_attr *attr);
void bvt_keep_params(struct task_struct *p, struct sched_attr *attr);
void bvt_reset_on_fork(struct task_struct *p);
struct task_struct *bvt_pi_donor(struct task_struct *pi_task, int prio);
void bvt_pi_set(struct task_struct *p, struct task_struct *donor);
bool bvt_pi_boosted(struct task_struct *p);
bool bvt_prio_less(const struct task_struct *a, const struct task_struct *b,
		   bool in_fi);

#else /* !CONFIG_SCHED_BVT */

static inline bool bvt_policy(int policy)
{
	return false;
}

static inline bool __checkparam_bvt(const struct sched_attr *attr)
{
	return false;
}

static inline int bvt_prepare_task(struct task_struct *p)
{
	return 0;
}

static inline bool bvt_attr_needs_priv(struct task_struct *p,
				       const struct sched_attr *attr)
{
	return true;
}

static inline void __setparam_bvt(struct task_struct *p,
				  const struct sched_attr *attr) { }
static inline void __getparam_bvt(struct task_struct *p,
				  struct sched_attr *attr) { }
static inline int bvt_admit(struct task_struct *p, int policy,
			    const struct sched_attr *attr)
{
	return 0;
}

static inline void bvt_keep_params(struct task_struct *p,
				   struct sched_attr *attr) { }
static inline void bvt_reset_on_fork(struct task_struct *p) { }

static inline struct task_struct *bvt_pi_donor(struct task_struct *pi_task,
					       int prio)
{
	return NULL;
}

static inline void bvt_pi_set(struct task_struct *p,
			      struct task_struct *donor) { }

static inline bool bvt_pi_boosted(struct task_struct *p)
{
	return false;
}

#endif /* CONFIG_SCHED_BVT */

/*
 * The mechanisms on the class, each in its file and under its option
 * (kernel/sched/build_bvt.c builds them with the class): what the class,
 * /proc/<pid>/sched and bvt_ctl(2) call of each, besides the ops of its
 * levels.  With an option off these do nothing, and the tests of the hot
 * paths that lead to them are constants.
 */
#ifdef CONFIG_SCHED_BVT_COOP
/* Cooperation domains (kernel/sched/coop_poll.c). */
void init_bvt_coop_domain(struct bvt_coop_domain *dom, struct bvt_level *above);
bool bvt_is_coop(const struct bvt_level *lv);
void bvt_coop_attach(struct bvt_coop_domain *dom, struct sched_bvt_entity *bt);
void bvt_coop_detach(struct sched_bvt_entity *bt);
void bvt_coop_forget(struct sched_bvt_entity *bt);
s64 bvt_coop_leave_lag(struct sched_bvt_entity *bt);
void bvt_coop_check_member(struct sched_bvt_entity *bt);
u64 bvt_coop_left(struct rq *rq, struct sched_bvt_entity *bt);
void bvt_coop_check(struct rq *rq);
void bvt_coop_enqueued(struct rq *rq, struct task_struct *p);
void bvt_coop_exec(struct task_struct *p);
void bvt_coop_free(struct task_struct *p);
void bvt_coop_proc_show(struct task_struct *p, struct seq_file *m);
#else
static inline void init_bvt_coop_domain(struct bvt_coop_domain *dom,
					struct bvt_level *above) { }
static inline bool bvt_is_coop(const struct bvt_level *lv)
{
	return false;
}

static inline void bvt_coop_attach(struct bvt_coop_domain *dom,
				   struct sched_bvt_entity *bt) { }
static inline void bvt_coop_detach(struct sched_bvt_entity *bt) { }
static inline void bvt_coop_forget(struct sched_bvt_entity *bt) { }
static inline s64 bvt_coop_leave_lag(struct sched_bvt_entity *bt)
{
	return 0;
}

static inline void bvt_coop_check_member(struct sched_bvt_entity *bt) { }
static inline u64 bvt_coop_left(struct rq *rq, struct sched_bvt_entity *bt)
{
	return 0;
}

static inline void bvt_coop_check(struct rq *rq) { }
static inline void bvt_coop_enqueued(struct rq *rq, struct task_struct *p) { }
static inline void bvt_coop_exec(struct task_struct *p) { }
static inline void bvt_coop_free(struct task_struct *p) { }
static inline void bvt_coop_proc_show(struct task_struct *p,
				      struct seq_file *m) { }
#endif

#ifdef CONFIG_SCHED_BVT_PBS
/* Proportional-share log-priority mode of a level (kernel/sched/pbs.c). */
int bvt_pbs_alloc(struct task_struct *p);
void bvt_pbs_free(struct task_struct *p);
void bvt_pbs_boosted(struct task_struct *p);
void bvt_pbs_set_mode(struct bvt_level *lv, unsigned int mode);
void bvt_pbs_proc_show(struct task_struct *p, struct seq_file *m);
#else
static inline int bvt_pbs_alloc(struct task_struct *p)
{
	return 0;
}

static inline void bvt_pbs_free(struct task_struct *p) { }
static inline void bvt_pbs_boosted(struct task_struct *p) { }
static inline void bvt_pbs_set_mode(struct bvt_level *lv, unsigned int mode) { }
static inline void bvt_pbs_proc_show(struct task_struct *p,
				     struct seq_file *m) { }
#endif

#ifdef CONFIG_SCHED_BVT_RSV
/* The plan level: reservations, time constraints (kernel/sched/bvt_rsv.c). */
void init_bvt_plan_level(struct bvt_plan_level *pl, struct rq *rq);
void bvt_plan_switched(struct rq *rq, struct task_struct *p, bool in);
int bvt_plan_home(struct task_struct *p);
void bvt_plan_leave(struct task_struct *p);
void bvt_plan_task_exit(struct task_struct *p);
void bvt_plan_task_dead(struct task_struct *p);
int bvt_rsv_check_affinity(struct task_struct *p, const struct cpumask *mask);
int bvt_rsv_cpu_inactive(unsigned int cpu);
void bvt_plan_park(struct rq *rq);
void bvt_plan_unpark(struct rq *rq);
void bvt_plan_wake(struct rq *rq);
void bvt_plan_enqueued(struct rq *rq, struct task_struct *p);
void bvt_rsv_proc_show(struct task_struct *p, struct seq_file *m);
long bvt_ctl_rsv(unsigned int op, pid_t pid, void __user *uarg);
long bvt_ctl_tc(unsigned int op, pid_t pid, void __user *uarg);
#else
static inline void init_bvt_plan_level(struct bvt_plan_level *pl,
				       struct rq *rq) { }
static inline void bvt_plan_switched(struct rq *rq, struct task_struct *p,
				     bool in) { }
static inline int bvt_plan_home(struct task_struct *p)
{
	return -1;
}

static inline void bvt_plan_leave(struct task_struct *p) { }
static inline void bvt_plan_task_exit(struct task_struct *p) { }
static inline void bvt_plan_task_dead(struct task_struct *p) { }

static inline int bvt_rsv_check_affinity(struct task_struct *p,
					 const struct cpumask *mask)
{
	return 0;
}

static inline int bvt_rsv_cpu_inactive(unsigned int cpu)
{
	return 0;
}

static inline void bvt_plan_park(struct rq *rq) { }
static inline void bvt_plan_unpark(struct rq *rq) { }
static inline void bvt_plan_wake(struct rq *rq) { }
static inline void bvt_plan_enqueued(struct rq *rq, struct task_struct *p) { }
static inline void bvt_rsv_proc_show(struct task_struct *p,
				     struct seq_file *m) { }
static inline long bvt_ctl_rsv(unsigned int op, pid_t pid, void __user *uarg)
{
	return -EOPNOTSUPP;
}

static inline long bvt_ctl_tc(unsigned int op, pid_t pid, void __user *uarg)
{
	return -EOPNOTSUPP;
}
#endif

#ifdef CONFIG_SCHED_BVT_QAS
/* QAS reservation sets, on the plan level (kernel/sched/qas.c). */
void bvt_qas_enqueued(struct rq *rq, struct task_struct *p);
void bvt_qas_dequeued(struct rq *rq, struct task_struct *p);
u64 bvt_qas_left(struct task_struct *p);
void bvt_qas_check(struct rq *rq);
void bvt_qas_exec(struct task_struct *p);
bool bvt_qas_mandatory(struct task_struct *p);
struct task_struct *bvt_qas_pick(struct rq *rq);
void bvt_qas_stop(struct rq *rq, struct task_struct *p);
void bvt_qas_exit(struct task_struct *p);
bool bvt_qas_takes_rsv(struct task_struct *p);
void bvt_qas_proc_show(struct task_struct *p, struct seq_file *m);
long bvt_ctl_qas(unsigned int op, pid_t pid, void __user *uarg);
#else
static inline void bvt_qas_enqueued(struct rq *rq, struct task_struct *p) { }
static inline void bvt_qas_dequeued(struct rq *rq, struct task_struct *p) { }
static inline u64 bvt_qas_left(struct task_struct *p)
{
	return 0;
}

static inline void bvt_qas_check(struct rq *rq) { }
static inline void bvt_qas_exec(struct task_struct *p) { }
static inline bool bvt_qas_mandatory(struct task_struct *p)
{
	return false;
}

static inline struct task_struct *bvt_qas_pick(struct rq *rq)
{
	return NULL;
}

static inline void bvt_qas_stop(struct rq *rq, struct task_struct *p) { }
static inline void bvt_qas_exit(struct task_struct *p) { }
static inline bool bvt_qas_takes_rsv(struct task_struct *p)
{
	return false;
}

static inline void bvt_qas_proc_show(struct task_struct *p,
				     struct seq_file *m) { }
static inline long bvt_ctl_qas(unsigned int op, pid_t pid, void __user *uarg)
{
	return -EOPNOTSUPP;
}
#endif

#endif /* _KERNEL_SCHED_BVT_H */
