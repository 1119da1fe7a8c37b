// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT: Borrowed Virtual Time scheduling class
 *
 * K. J. Duda and D. R. Cheriton, "Borrowed-Virtual-Time (BVT) scheduling:
 * supporting latency-sensitive threads in a general-purpose scheduler",
 * SOSP 1999.
 *
 * Every entity has an actual virtual time A, which advances by its run time
 * times 1024 / weight (a weight-1024 entity's A keeps pace with real time),
 * and an effective virtual time E, which is A - W while the entity runs
 * warped and A otherwise.  A BVT scheduler dispatches its runnable entity
 * with the least E.  The running entity keeps the CPU until its E is the
 * context switch allowance C, scaled by its weight, past the next one; a
 * waking entity with a lower E preempts it.  The scheduler virtual time SVT
 * is the least A of the runnable entities: an entity that wakes up has its
 * A raised to SVT, so sleeping earns no credit.
 *
 * Entities are kept in an rbtree ordered by E, augmented with the least A
 * of each subtree so that SVT is read off the root.  The running entity is
 * kept out of the tree, as CFS does, and goes back in when it is put.
 *
 * See Documentation/scheduler/sched-bvt.rst.
 */
#include <linux/math64.h>
#include <linux/mmu_context.h>
#include <linux/rbtree_augmented.h>
#include <linux/sched.h>
#include <linux/sysctl.h>
#include <uapi/linux/sched/types.h>
#include <uapi/linux/sched_bvt.h>

#include "sched.h"

#define CREATE_TRACE_POINTS
#include <trace/events/sched_bvt.h>

/* Context switch allowance C, in ns of real time. */
static unsigned int sysctl_sched_bvt_allowance_ns = 3 * NSEC_PER_MSEC;

#define BVT_WEIGHT_UNIT		SCHED_BVT_WEIGHT_DEFAULT

/*
 * Virtual time arithmetic.  Virtual times are u64 nanoseconds compared
 * modulo 2^64, as vruntime is, so they may wrap; what must stay below 2^63
 * is the spread between two runnable entities.
 */
static inline bool vt_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

static inline u64 vt_max(u64 a, u64 b)
{
	return vt_before(a, b) ? b : a;
}

static inline u64 vt_min(u64 a, u64 b)
{
	return vt_before(a, b) ? a : b;
}

/* The virtual time that @delta ns of real time at @weight is worth. */
static inline u64 bvt_scale(u64 delta, u32 weight)
{
	return mul_u64_u32_div(delta, BVT_WEIGHT_UNIT, weight);
}

static inline struct task_struct *bvt_task_of(struct sched_bvt_entity *se)
{
	return container_of(se, struct task_struct, bvt);
}

static inline struct sched_bvt_entity *__node_2_bse(struct rb_node *node)
{
	return rb_entry(node, struct sched_bvt_entity, run_node);
}

static inline struct bvt_sched *bvt_root(struct rq *rq)
{
	return &rq->bvt.root;
}

/* The weight a task runs with: its own, or the one of its nice value. */
static u32 bvt_weight(struct sched_bvt_entity *se)
{
	return se->params.weight ?:
	       scale_load_down(bvt_task_of(se)->se.load.weight);
}

/* E = A - W while warped. */
static inline u64 bvt_evt(struct sched_bvt_entity *se)
{
	return se->warped ? se->avt - se->params.warp : se->avt;
}

/*
 * Has the running entity @curr used up its allowance over @next?  C is
 * real time, so it is scaled by @curr's weight: every weight gets the same
 * slice of real time before it is switched out.
 */
static bool bvt_allowance_used(struct sched_bvt_entity *curr,
			       struct sched_bvt_entity *next, u64 allowance)
{
	u64 c = bvt_scale(allowance, bvt_weight(curr));

	return vt_before(bvt_evt(next) + c, bvt_evt(curr));
}

/*
 * The timeline: queued entities by E, each node also holding the least A
 * of its subtree.
 */
static inline bool bvt_entity_less(struct rb_node *a, const struct rb_node *b)
{
	return vt_before(bvt_evt(__node_2_bse(a)),
			 bvt_evt(__node_2_bse((struct rb_node *)b)));
}

static inline void __min_avt_update(struct sched_bvt_entity *se,
				    struct rb_node *node)
{
	if (node) {
		struct sched_bvt_entity *rse = __node_2_bse(node);

		if (vt_before(rse->min_avt, se->min_avt))
			se->min_avt = rse->min_avt;
	}
}

static inline bool min_avt_update(struct sched_bvt_entity *se, bool exit)
{
	u64 old_min_avt = se->min_avt;
	struct rb_node *node = &se->run_node;

	se->min_avt = se->avt;
	__min_avt_update(se, node->rb_right);
	__min_avt_update(se, node->rb_left);

	return se->min_avt == old_min_avt;
}

RB_DECLARE_CALLBACKS(static, min_avt_cb, struct sched_bvt_entity,
		     run_node, min_avt, min_avt_update);

static void bvt_timeline_add(struct bvt_sched *bs, struct sched_bvt_entity *se)
{
	se->min_avt = se->avt;
	rb_add_augmented_cached(&se->run_node, &bs->timeline, bvt_entity_less,
				&min_avt_cb);
}

static void bvt_timeline_del(struct bvt_sched *bs, struct sched_bvt_entity *se)
{
	rb_erase_augmented_cached(&se->run_node, &bs->timeline, &min_avt_cb);
	RB_CLEAR_NODE(&se->run_node);
}

static struct sched_bvt_entity *bvt_timeline_first(struct bvt_sched *bs)
{
	struct rb_node *left = rb_first_cached(&bs->timeline);

	return left ? __node_2_bse(left) : NULL;
}

/*
 * SVT is the least A of the runnable entities.  It never goes back: an
 * entity joins with A >= SVT (see bvt_enqueue_entity()), so the minimum
 * only moves back when the runqueue empties, and then SVT stays put.
 */
static void bvt_update_svt(struct bvt_sched *bs)
{
	struct rb_node *root = bs->timeline.rb_root.rb_node;
	struct sched_bvt_entity *curr = bs->curr;
	u64 least;

	if (curr && curr->on_rq) {
		least = curr->avt;
		if (root)
			least = vt_min(least, __node_2_bse(root)->min_avt);
	} else if (root) {
		least = __node_2_bse(root)->min_avt;
	} else {
		return;
	}
	WRITE_ONCE(bs->svt, vt_max(bs->svt, least));
}

static void bvt_enqueue_entity(struct bvt_sched *bs,
			       struct sched_bvt_entity *se, int flags)
{
	if (se->vt_relative) {
		se->avt += bs->svt;
		se->vt_relative = 0;
	}
	/* Sleeping earns no credit: wake up no earlier than SVT. */
	if (flags & ENQUEUE_WAKEUP)
		se->avt = vt_max(se->avt, bs->svt);

	if (se != bs->curr)
		bvt_timeline_add(bs, se);
	se->on_rq = 1;
	bs->nr_queued++;
}

static void bvt_dequeue_entity(struct bvt_sched *bs,
			       struct sched_bvt_entity *se)
{
	if (se != bs->curr)
		bvt_timeline_del(bs, se);
	se->on_rq = 0;
	bs->nr_queued--;
	bvt_update_svt(bs);
}

/* The runnable entity with the least E; the running one wins ties. */
static struct sched_bvt_entity *bvt_pick_entity(struct bvt_sched *bs)
{
	struct sched_bvt_entity *left = bvt_timeline_first(bs);
	struct sched_bvt_entity *curr = bs->curr;

	if (curr && !curr->on_rq)
		curr = NULL;
	if (!left || (curr && !vt_before(bvt_evt(left), bvt_evt(curr))))
		return curr;
	return left;
}

static void bvt_set_curr(struct bvt_sched *bs, struct sched_bvt_entity *se)
{
	SCHED_WARN_ON(bs->curr);
	if (se->on_rq)
		bvt_timeline_del(bs, se);
	bs->curr = se;
}

static void bvt_put_curr(struct bvt_sched *bs, struct sched_bvt_entity *se)
{
	SCHED_WARN_ON(bs->curr != se);
	if (se->on_rq)
		bvt_timeline_add(bs, se);
	bs->curr = NULL;
}

/* Charge the running task's run time to its A. */
static void update_curr_bvt(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	struct sched_bvt_entity *se = &curr->bvt;
	s64 delta_exec;

	if (curr->sched_class != &bvt_sched_class)
		return;

	delta_exec = update_curr_common(rq);
	if (unlikely(delta_exec <= 0))
		return;

	se->avt += bvt_scale(delta_exec, bvt_weight(se));
	if (se->warped)
		se->warp_ran += delta_exec;
	bvt_update_svt(bvt_root(rq));
}

/*
 * Warp.  A thread with SCHED_BVT_FLAG_WARP and a non-zero W wants to warp.
 * It runs warped (E = A - W) from when it becomes runnable, as long as
 *  - it has run warped for less than L since the warp began, and
 *  - U has passed since its last warp ended, by blocking or by reaching L.
 * A warp wanted within U starts when U has passed (the thread's unwarp
 * timer); a warp that reaches L ends then (its CPU's limit timer), both to
 * the microsecond, and the thread runs on unwarped.
 */
static inline bool bvt_wants_warp(struct sched_bvt_entity *se)
{
	return (se->params.flags & SCHED_BVT_FLAG_WARP) && se->params.warp;
}

/*
 * How much longer @se must wait at @now before it may warp again; a
 * warp_ended of 0 means it never warped.
 */
static u64 bvt_unwarp_wait(struct sched_bvt_entity *se, u64 now)
{
	s64 since = now - se->warp_ended;

	if (!se->warp_ended || since < 0 || since >= se->params.unwarp)
		return 0;
	return se->params.unwarp - since;
}

static void bvt_warp_start(struct sched_bvt_entity *se, int reason)
{
	se->warped = 1;
	se->warp_ran = 0;
	trace_sched_bvt_warp_start(bvt_task_of(se), reason, 0);
}

static void bvt_warp_end(struct sched_bvt_entity *se, u64 now, int reason)
{
	se->warped = 0;
	se->warp_ended = now;
	trace_sched_bvt_warp_end(bvt_task_of(se), reason, se->warp_ran);
}

/* The timer holds a reference on the task while it is queued. */
static void bvt_unwarp_timer_arm(struct sched_bvt_entity *se, u64 wait)
{
	if (hrtimer_is_queued(&se->unwarp_timer))
		return;
	get_task_struct(bvt_task_of(se));
	hrtimer_start(&se->unwarp_timer, ns_to_ktime(wait),
		      HRTIMER_MODE_REL_HARD);
}

static void bvt_unwarp_timer_cancel(struct sched_bvt_entity *se)
{
	if (hrtimer_try_to_cancel(&se->unwarp_timer) == 1)
		put_task_struct(bvt_task_of(se));
}

/* Warp @se, about to be queued, now if it may, or when U has passed. */
static void bvt_warp_try(struct rq *rq, struct sched_bvt_entity *se,
			 int reason)
{
	u64 wait;

	if (se->warped || !bvt_wants_warp(se))
		return;

	wait = bvt_unwarp_wait(se, rq_clock(rq));
	if (!wait) {
		bvt_warp_start(se, reason);
		return;
	}
	trace_sched_bvt_warp_deferred(bvt_task_of(se), wait);
	bvt_unwarp_timer_arm(se, wait);
}

/* Let the running @se run warped until it reaches L. */
static void bvt_limit_timer_arm(struct rq *rq, struct sched_bvt_entity *se)
{
	u64 limit = se->params.warp_limit;

	if (!se->warped || !limit)
		return;
	hrtimer_start(&rq->bvt.limit_timer,
		      ns_to_ktime(limit > se->warp_ran ? limit - se->warp_ran : 0),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * End the warp of the task running on @rq if it has reached L; it goes on
 * unwarped.  Returns how long it may still run warped, 0 for no limit.
 */
static u64 bvt_check_limit(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	struct sched_bvt_entity *se = &curr->bvt;
	u64 limit = se->params.warp_limit;

	if (curr->sched_class != &bvt_sched_class || !se->warped || !limit)
		return 0;
	if (se->warp_ran < limit)
		return limit - se->warp_ran;

	bvt_warp_end(se, rq_clock(rq), BVT_WARP_LIMIT);
	bvt_warp_try(rq, se, BVT_WARP_UNWARP_DONE);
	resched_curr(rq);
	return se->warped ? limit : 0;
}

static enum hrtimer_restart bvt_limit_timer_fn(struct hrtimer *timer)
{
	struct rq *rq = container_of(timer, struct rq, bvt.limit_timer);
	struct rq_flags rf;
	u64 left;

	rq_lock(rq, &rf);
	update_rq_clock(rq);
	update_curr_bvt(rq);
	left = bvt_check_limit(rq);
	rq_unlock(rq, &rf);

	if (!left)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(left));
	return HRTIMER_RESTART;
}

static void bvt_check_preempt(struct rq *rq, struct task_struct *p);

/* U has passed for a runnable thread that wants to warp: warp it now. */
static enum hrtimer_restart bvt_unwarp_timer_fn(struct hrtimer *timer)
{
	struct sched_bvt_entity *se = container_of(timer,
			struct sched_bvt_entity, unwarp_timer);
	struct task_struct *p = bvt_task_of(se);
	struct bvt_sched *bs;
	struct rq_flags rf;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	update_rq_clock(rq);
	bs = bvt_root(rq);
	if (p->sched_class == &bvt_sched_class && se->on_rq &&
	    !se->warped && bvt_wants_warp(se)) {
		if (se == bs->curr) {
			update_curr_bvt(rq);
			bvt_warp_start(se, BVT_WARP_UNWARP_DONE);
			bvt_limit_timer_arm(rq, se);
		} else {
			bvt_timeline_del(bs, se);
			bvt_warp_start(se, BVT_WARP_UNWARP_DONE);
			bvt_timeline_add(bs, se);
			bvt_check_preempt(rq, p);
		}
	}
	task_rq_unlock(rq, p, &rf);
	put_task_struct(p);
	return HRTIMER_NORESTART;
}

/* Should the runnable @p take the CPU from what runs on @rq now? */
static void bvt_check_preempt(struct rq *rq, struct task_struct *p)
{
	struct task_struct *curr = rq->curr;

	if (curr->sched_class != &bvt_sched_class) {
		if (sched_class_above(&bvt_sched_class, curr->sched_class))
			resched_curr(rq);
		return;
	}

	update_curr_bvt(rq);
	if (vt_before(bvt_evt(&p->bvt), bvt_evt(&curr->bvt)))
		resched_curr(rq);
}

static void enqueue_task_bvt(struct rq *rq, struct task_struct *p, int flags)
{
	update_curr_bvt(rq);
	bvt_warp_try(rq, &p->bvt, flags & ENQUEUE_WAKEUP ? BVT_WARP_WAKEUP :
						       BVT_WARP_PARAMS);
	bvt_enqueue_entity(bvt_root(rq), &p->bvt, flags);
	rq->bvt.nr_running++;
	add_nr_running(rq, 1);
}

static bool dequeue_task_bvt(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_bvt_entity *se = &p->bvt;

	update_curr_bvt(rq);
	/* Blocking ends a warp; a deferred one is tried again on wakeup. */
	if (flags & DEQUEUE_SLEEP) {
		if (se->warped)
			bvt_warp_end(se, rq_clock(rq), BVT_WARP_BLOCK);
		bvt_unwarp_timer_cancel(se);
	}
	bvt_dequeue_entity(bvt_root(rq), se);
	rq->bvt.nr_running--;
	sub_nr_running(rq, 1);
	return true;
}

/* Step behind the next entity in line, if there is one. */
static void yield_task_bvt(struct rq *rq)
{
	struct sched_bvt_entity *se = &rq->curr->bvt;
	struct sched_bvt_entity *next;

	update_curr_bvt(rq);
	next = bvt_timeline_first(bvt_root(rq));
	if (next && !vt_before(bvt_evt(next), bvt_evt(se)))
		se->avt += bvt_evt(next) - bvt_evt(se) + 1;
}

static void wakeup_preempt_bvt(struct rq *rq, struct task_struct *p, int flags)
{
	bvt_check_preempt(rq, p);
}

static struct task_struct *pick_task_bvt(struct rq *rq)
{
	struct sched_bvt_entity *se;

	if (!rq->bvt.nr_running)
		return NULL;

	update_curr_bvt(rq);
	se = bvt_pick_entity(bvt_root(rq));
	return se ? bvt_task_of(se) : NULL;
}

static void put_prev_task_bvt(struct rq *rq, struct task_struct *p,
			      struct task_struct *next)
{
	update_curr_bvt(rq);
	hrtimer_try_to_cancel(&rq->bvt.limit_timer);
	bvt_put_curr(bvt_root(rq), &p->bvt);
}

static void set_next_task_bvt(struct rq *rq, struct task_struct *p, bool first)
{
	struct sched_bvt_entity *se = &p->bvt;

	p->se.exec_start = rq_clock_task(rq);
	bvt_set_curr(bvt_root(rq), se);
	bvt_limit_timer_arm(rq, se);
	if (first)
		trace_sched_bvt_pick(p, se->avt, bvt_evt(se),
				     bvt_root(rq)->svt);
}

static void task_tick_bvt(struct rq *rq, struct task_struct *p, int queued)
{
	struct sched_bvt_entity *next;

	update_curr_bvt(rq);
	next = bvt_timeline_first(bvt_root(rq));
	if (next && bvt_allowance_used(&p->bvt, next,
				       READ_ONCE(sysctl_sched_bvt_allowance_ns)))
		resched_curr(rq);
}

/*
 * A child starts at its parent's A.  It may be placed on another CPU before
 * it is first enqueued, so keep A relative to this CPU's SVT until then.
 */
static void task_fork_bvt(struct task_struct *p)
{
	struct rq *rq = this_rq();
	struct rq_flags rf;

	rq_lock(rq, &rf);
	update_rq_clock(rq);
	update_curr_bvt(rq);
	p->bvt.avt = current->bvt.avt - bvt_root(rq)->svt;
	p->bvt.vt_relative = 1;
	rq_unlock(rq, &rf);
}

/* A task entering the class starts at the present: no credit, no debt. */
static void switching_to_bvt(struct rq *rq, struct task_struct *p)
{
	p->bvt.avt = bvt_root(rq)->svt;
	p->bvt.vt_relative = 0;
}

/* Leaving the class, or dying: no warp, and no timer left behind. */
static void bvt_forget_warp(struct rq *rq, struct task_struct *p)
{
	struct sched_bvt_entity *se = &p->bvt;

	if (se->warped)
		bvt_warp_end(se, rq_clock(rq), BVT_WARP_PARAMS);
	bvt_unwarp_timer_cancel(se);
}

static void switched_from_bvt(struct rq *rq, struct task_struct *p)
{
	bvt_forget_warp(rq, p);
}

static void task_dead_bvt(struct task_struct *p)
{
	bvt_unwarp_timer_cancel(&p->bvt);
}

static void switched_to_bvt(struct rq *rq, struct task_struct *p)
{
	if (task_on_rq_queued(p) && !task_current(rq, p))
		bvt_check_preempt(rq, p);
}

static void prio_changed_bvt(struct rq *rq, struct task_struct *p, int oldprio)
{
	if (task_on_rq_queued(p) && !task_current(rq, p))
		bvt_check_preempt(rq, p);
}

static unsigned int get_rr_interval_bvt(struct rq *rq, struct task_struct *p)
{
	return nsecs_to_jiffies(READ_ONCE(sysctl_sched_bvt_allowance_ns));
}

#ifdef CONFIG_SMP
static int balance_bvt(struct rq *rq, struct task_struct *prev,
		       struct rq_flags *rf)
{
	return sched_stop_runnable(rq) || sched_dl_runnable(rq) ||
	       sched_rt_runnable(rq) || rq->bvt.nr_running;
}

/* Wake up on the allowed CPU with the fewest BVT tasks, @prev_cpu on ties. */
static int select_task_rq_bvt(struct task_struct *p, int prev_cpu, int flags)
{
	unsigned int nr, best_nr = UINT_MAX;
	int cpu, best_cpu = prev_cpu;

	if (p->nr_cpus_allowed == 1)
		return prev_cpu;

	if (cpumask_test_cpu(prev_cpu, p->cpus_ptr) && cpu_active(prev_cpu))
		best_nr = READ_ONCE(cpu_rq(prev_cpu)->bvt.nr_running);

	for_each_cpu_and(cpu, p->cpus_ptr, cpu_active_mask) {
		nr = READ_ONCE(cpu_rq(cpu)->bvt.nr_running);
		if (nr < best_nr) {
			best_nr = nr;
			best_cpu = cpu;
		}
	}
	return best_cpu;
}

/*
 * Virtual times of different CPUs are unrelated: carry A across as its
 * distance from the SVT of the CPU it leaves.  A waking task is not
 * queued and its old runqueue is not locked; a stale SVT only misplaces
 * it by what that CPU ran since, and the wakeup clamp to SVT bounds it.
 */
static void migrate_task_rq_bvt(struct task_struct *p, int new_cpu)
{
	struct sched_bvt_entity *se = &p->bvt;

	if (!se->vt_relative) {
		se->avt -= READ_ONCE(task_rq(p)->bvt.root.svt);
		se->vt_relative = 1;
	}
}
#endif /* CONFIG_SMP */

DEFINE_SCHED_CLASS(bvt) = {
	.enqueue_task		= enqueue_task_bvt,
	.dequeue_task		= dequeue_task_bvt,
	.yield_task		= yield_task_bvt,

	.wakeup_preempt		= wakeup_preempt_bvt,

	.pick_task		= pick_task_bvt,
	.put_prev_task		= put_prev_task_bvt,
	.set_next_task		= set_next_task_bvt,

#ifdef CONFIG_SMP
	.balance		= balance_bvt,
	.select_task_rq		= select_task_rq_bvt,
	.migrate_task_rq	= migrate_task_rq_bvt,
	.set_cpus_allowed	= set_cpus_allowed_common,
#endif

	.task_tick		= task_tick_bvt,
	.task_fork		= task_fork_bvt,
	.task_dead		= task_dead_bvt,

	.switching_to		= switching_to_bvt,
	.switched_from		= switched_from_bvt,
	.switched_to		= switched_to_bvt,
	.prio_changed		= prio_changed_bvt,

	.get_rr_interval	= get_rr_interval_bvt,

	.update_curr		= update_curr_bvt,
};

void init_bvt_rq(struct bvt_rq *bvt_rq)
{
	bvt_rq->root.timeline = RB_ROOT_CACHED;
	bvt_rq->root.curr = NULL;
	bvt_rq->root.svt = 0;
	bvt_rq->root.nr_queued = 0;
	bvt_rq->nr_running = 0;
	hrtimer_init(&bvt_rq->limit_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	bvt_rq->limit_timer.function = bvt_limit_timer_fn;
}

void init_bvt_entity(struct sched_bvt_entity *se)
{
	RB_CLEAR_NODE(&se->run_node);
	se->on_rq = 0;
	se->vt_relative = 0;
	se->warped = 0;
	se->warp_ran = 0;
	se->warp_ended = 0;
	hrtimer_init(&se->unwarp_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	se->unwarp_timer.function = bvt_unwarp_timer_fn;
}

/*
 * Parameters: sched_setattr(2) and sched_getattr(2).
 */
static void bvt_params_from_attr(struct sched_bvt_params *params,
				 const struct sched_attr *attr)
{
	params->weight = attr->sched_bvt_weight;
	params->flags = attr->sched_bvt_flags;
	params->warp = attr->sched_bvt_warp;
	params->warp_limit = attr->sched_bvt_warp_limit;
	params->unwarp = attr->sched_bvt_unwarp;
}

static bool bvt_params_valid(const struct sched_bvt_params *params)
{
	u64 limit = params->warp_limit;

	return params->weight <= SCHED_BVT_WEIGHT_MAX &&
	       !(params->flags & ~SCHED_BVT_FLAGS_ALL) &&
	       params->warp >= 0 && params->warp <= SCHED_BVT_WARP_MAX &&
	       (!limit || (limit >= SCHED_BVT_WARP_LIMIT_MIN &&
			   limit <= SCHED_BVT_TIME_MAX)) &&
	       params->unwarp <= SCHED_BVT_TIME_MAX;
}

/* The warp a thread may run with, 0 when it has none. */
static inline s64 bvt_params_warp(const struct sched_bvt_params *params)
{
	return params->flags & SCHED_BVT_FLAG_WARP ? params->warp : 0;
}

/* How long it may run warped; no limit is the longest. */
static inline u64 bvt_params_limit(const struct sched_bvt_params *params)
{
	return params->warp_limit ?: U64_MAX;
}

/*
 * Does going from @old (at weight @old_weight) to @new raise a thread's
 * claim on the CPU?  As with nice, raising it takes CAP_SYS_NICE and
 * giving some of it up never does: a weight above the nice-0 weight and
 * above the current one, more warp, or longer or more frequent warping.
 */
static bool bvt_params_raise(const struct sched_bvt_params *old, u32 old_weight,
			     const struct sched_bvt_params *new)
{
	s64 warp = bvt_params_warp(new);

	if (new->weight > SCHED_BVT_WEIGHT_DEFAULT && new->weight > old_weight)
		return true;
	if (!warp)
		return false;
	return warp > bvt_params_warp(old) ||
	       bvt_params_limit(new) > bvt_params_limit(old) ||
	       new->unwarp < old->unwarp;
}

bool __checkparam_bvt(const struct sched_attr *attr)
{
	struct sched_bvt_params params;

	/* The deadline fields mean nothing here; refuse rather than ignore. */
	if (attr->sched_runtime || attr->sched_deadline || attr->sched_period)
		return false;

	bvt_params_from_attr(&params, attr);
	return bvt_params_valid(&params);
}

bool bvt_attr_needs_priv(struct task_struct *p, const struct sched_attr *attr)
{
	struct sched_bvt_params old = { }, new;
	u32 old_weight = scale_load_down(p->se.load.weight);

	if (bvt_policy(p->policy)) {
		old = p->bvt.params;
		old_weight = bvt_weight(&p->bvt);
	}
	bvt_params_from_attr(&new, attr);
	return bvt_params_raise(&old, old_weight, &new);
}

/* Called with @p dequeued: the warp starts again, if wanted, on enqueue. */
void __setparam_bvt(struct task_struct *p, const struct sched_attr *attr)
{
	struct sched_bvt_entity *se = &p->bvt;

	bvt_params_from_attr(&se->params, attr);
	if (!bvt_wants_warp(se) && p->sched_class == &bvt_sched_class)
		bvt_forget_warp(task_rq(p), p);
}

void __getparam_bvt(struct task_struct *p, struct sched_attr *attr)
{
	const struct sched_bvt_params *params = &p->bvt.params;

	attr->sched_bvt_weight = params->weight;
	attr->sched_bvt_flags = params->flags;
	attr->sched_bvt_warp = params->warp;
	attr->sched_bvt_warp_limit = params->warp_limit;
	attr->sched_bvt_unwarp = params->unwarp;
}

/* SCHED_RESET_ON_FORK: the child keeps the class but no privilege. */
void bvt_reset_on_fork(struct task_struct *p)
{
	if (bvt_policy(p->policy))
		memset(&p->bvt.params, 0, sizeof(p->bvt.params));
}

static unsigned int bvt_allowance_min = 100 * NSEC_PER_USEC;
static unsigned int bvt_allowance_max = 100 * NSEC_PER_MSEC;

static struct ctl_table bvt_sysctls[] = {
	{
		.procname	= "sched_bvt_allowance_ns",
		.data		= &sysctl_sched_bvt_allowance_ns,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &bvt_allowance_min,
		.extra2		= &bvt_allowance_max,
	},
};

static int __init sched_bvt_sysctl_init(void)
{
	register_sysctl_init("kernel", bvt_sysctls);
	return 0;
}
late_initcall(sched_bvt_sysctl_init);

#ifdef CONFIG_SCHED_BVT_KUNIT_TEST
#include "bvt_test.c"
#endif
