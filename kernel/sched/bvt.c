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
 * waking entity with a lower E preempts it (if it wakes unwarped: by more
 * than a wake-up granularity, and not the thread that woke it
 * synchronously).  The scheduler virtual time SVT is the least A of the
 * runnable entities: an entity that wakes up has its A raised to SVT, so
 * sleeping earns no credit.
 *
 * Entities are kept in an rbtree ordered by E, augmented with the least A
 * of each subtree so that SVT is read off the root.  The running entity is
 * kept out of the tree, as CFS does, and goes back in when it is put.
 *
 * Every CPU runs a two-level hierarchy: the reserved-effort root holds the
 * admitted SCHED_BVT_FLAG_RESERVED threads and the best-effort level, an
 * entity with its own weight and warp that holds every other BVT thread.
 * A level is a struct bvt_level, and the code below that queues, charges
 * and picks entities does not care whether an entity is a thread or a
 * level.
 *
 * See Documentation/scheduler/sched-bvt.rst.
 */
#include <linux/indirect_call_wrapper.h>
#include <linux/math64.h>
#include <linux/mmu_context.h>
#include <linux/rbtree_augmented.h>
#include <linux/sched.h>
#include <linux/sysctl.h>
#include <linux/task_work.h>
#include <uapi/linux/sched/types.h>
#include <uapi/linux/sched_bvt.h>

#include "sched.h"
#include "pelt.h"

#define CREATE_TRACE_POINTS
#include <trace/events/sched_bvt.h>

/* Context switch allowance C, in ns of real time. */
static unsigned int sysctl_sched_bvt_allowance_ns = 3 * NSEC_PER_MSEC;

/*
 * Wake-up granularity: how far, in ns of real time at the running
 * thread's weight, the E of a thread that wakes up unwarped must be below
 * the running one's for it to take the CPU at once.  0: any lower E does.
 */
static unsigned int sysctl_sched_bvt_wakeup_granularity_ns = NSEC_PER_MSEC;

/* Minimum charging unit: 0 charges run time exactly. */
static unsigned int sysctl_sched_bvt_mcu_ns;

/* Migration penalty M, in ns of virtual time of a weight-1024 thread. */
static unsigned int sysctl_sched_bvt_migration_penalty_ns = NSEC_PER_MSEC;

/* The best-effort level: its weight and warp in the root, and its mode. */
static unsigned int sysctl_sched_bvt_be_weight = SCHED_BVT_WEIGHT_DEFAULT;
static unsigned int sysctl_sched_bvt_be_warp_ns;
static unsigned int sysctl_sched_bvt_be_threshold_ns;
static unsigned int sysctl_sched_bvt_be_direct;
/* how the best-effort level orders its threads: by E, or PBS (pbs.c) */
enum { BVT_MODE_BVT, BVT_MODE_PBS };
static unsigned int sysctl_sched_bvt_be_mode = BVT_MODE_BVT;

/* The share of a CPU the reserved-effort threads may hold together, in %. */
static unsigned int sysctl_sched_bvt_re_share_pct = 75;

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

/*
 * The virtual time that @delta ns of real time at @weight is worth.  Most
 * threads and the best-effort level have the unit weight: no division.
 */
static inline u64 bvt_scale(u64 delta, u32 weight)
{
	if (likely(weight == BVT_WEIGHT_UNIT))
		return delta;
	return mul_u64_u32_div(delta, BVT_WEIGHT_UNIT, weight);
}

/*
 * From a thread's entity @se to its task and to its thread state @bt, and
 * from @bt to its task: bvt_<from>_<to>().  @se must be a thread's, not a
 * level's.
 */
static inline struct task_struct *bvt_se_task(struct bvt_entity *se)
{
	return container_of(se, struct task_struct, bvt.se);
}

static inline struct sched_bvt_entity *bvt_se_thread(struct bvt_entity *se)
{
	return container_of(se, struct sched_bvt_entity, se);
}

static inline struct task_struct *bvt_thread_task(struct sched_bvt_entity *bt)
{
	return container_of(bt, struct task_struct, bvt);
}

static inline struct bvt_entity *__node_2_bse(struct rb_node *node)
{
	return rb_entry(node, struct bvt_entity, run_node);
}

static inline bool bvt_entity_is_task(struct bvt_entity *se)
{
	return !se->is_level;
}

/* The level @se stands for; NULL for a thread's entity. */
static inline struct bvt_level *bvt_level_of(const struct bvt_entity *se)
{
	return se->is_level ? container_of(se, struct bvt_level, se) : NULL;
}

/*
 * The entity above @se: that of the level it is queued in, none in the
 * root.  What the walks up the hierarchy follow.
 */
static inline struct bvt_entity *bvt_parent(const struct bvt_entity *se)
{
	struct bvt_level *lv = se->lv;

	return lv && lv->se.lv ? &lv->se : NULL;
}

/*
 * The parameters a thread runs with: its own, or while PI-boosted, its
 * own merged with its donor's (bvt_pi_set()).
 */
static inline const struct sched_bvt_params *
bvt_run(const struct sched_bvt_entity *bt)
{
	return READ_ONCE(bt->pi_boosted) ? &bt->pi_params : &bt->params;
}

/* @p's QAS set; NULL: none. */
static inline struct bvt_qas *bvt_qas_of(const struct task_struct *p)
{
	struct bvt_plan_task *pt = READ_ONCE(p->bvt.in_plan);

	if (!IS_ENABLED(CONFIG_SCHED_BVT_QAS))
		return NULL;
	return unlikely(pt) ? READ_ONCE(pt->qas) : NULL;
}

/*
 * The weight of @p's nice value.  Not p->se.load: sched_ext keeps a weight
 * of its own, and a task that enters the class from it with a new nice
 * value has the se.load of its old one.
 */
static inline u32 bvt_nice_weight(const struct task_struct *p)
{
	return sched_prio_to_weight[p->static_prio - MAX_RT_PRIO];
}

/*
 * The weight a thread runs with: its own, or for a thread without one,
 * the weight of its nice value.  Its entity is charged at the weight it
 * had when it was queued: every change of it dequeues the thread.
 */
static u32 bvt_run_weight(struct sched_bvt_entity *bt)
{
	return bvt_run(bt)->weight ?: bvt_nice_weight(bvt_thread_task(bt));
}

/* The weight @p has of its own, whatever it inherits. */
static u32 bvt_own_weight(struct task_struct *p)
{
	return p->bvt.params.weight ?: bvt_nice_weight(p);
}

/* E = A - W while warped. */
static inline u64 bvt_evt(const struct bvt_entity *se)
{
	return se->warped ? se->avt - se->warp : se->avt;
}

static inline bool bvt_reserved(const struct sched_bvt_params *params)
{
	return params->flags & SCHED_BVT_FLAG_RESERVED;
}

/*
 * Is the plan level of @brq asked before the root: has it a plan
 * (reservations, time constraints: bvt_rsv.c) or a thread in a QAS part
 * (qas.c)?
 */
static inline bool bvt_plan_busy(const struct bvt_rq *brq)
{
	return IS_ENABLED(CONFIG_SCHED_BVT_RSV) &&
	       (brq->pl.plan || brq->pl.nr_qas);
}

/* Has the plan of @brq stopped its timer until a thread comes? */
static inline bool bvt_plan_resting(const struct bvt_rq *brq)
{
	return IS_ENABLED(CONFIG_SCHED_BVT_RSV) && unlikely(brq->pl.resting);
}

/* The thread's entity that runs by the plan level of @brq; NULL: none. */
static inline struct bvt_entity *bvt_plan_curr(const struct bvt_rq *brq)
{
	return IS_ENABLED(CONFIG_SCHED_BVT_RSV) ? brq->pl.lv.curr : NULL;
}

/*
 * Does what the plan level runs by @by hold while the class
 * gives way to sched_ext's tasks?  What it guarantees does: reserved
 * slots (a QAS mandatory part's among them) and accepted constraints.
 * The plan's idle reservation keeps the share of the classes below.
 */
static inline bool bvt_plan_holds(enum bvt_plan_by by)
{
	return by != BVT_PLAN_QAS;
}

/* What the last pick chose by the plan level of @brq; NULL: nothing. */
static inline struct bvt_entity *bvt_plan_next(const struct bvt_rq *brq)
{
	return IS_ENABLED(CONFIG_SCHED_BVT_RSV) ? brq->pl.next : NULL;
}

/* Has @bt a part in the plan: a reservation, constraint or QAS set? */
static inline bool bvt_in_plan(const struct sched_bvt_entity *bt)
{
	return IS_ENABLED(CONFIG_SCHED_BVT_RSV) && unlikely(bt->in_plan);
}

/* A's distance from the SVT of its level: what fork and migration keep. */
static inline s64 bvt_lag(struct bvt_entity *se)
{
	if (se->vt_relative || !se->lv)
		return se->avt;
	return se->avt - READ_ONCE(se->lv->svt);
}

/*
 * Put a thread in the level it runs in on @rq: the root if it is reserved
 * effort (or PI-boosted by a thread that is), the best-effort level
 * otherwise.  A thread that changes level keeps its distance from the SVT
 * of the level it leaves; one whose A is relative left no level here.
 */
static void bvt_attach(struct rq *rq, struct sched_bvt_entity *bt)
{
	bool reserved = bvt_reserved(bvt_run(bt));
	struct bvt_entity *se = &bt->se;
	struct bvt_level *lv;

	if (bvt_coop_member(bt))
		bvt_coop_check_member(bt);
	if (reserved)
		lv = &rq->bvt.root;
	else if (bvt_coop_member(bt) && !bt->coop->policed_until)
		lv = &rq->bvt.coop.lv;
	else
		lv = &rq->bvt.be;

	if (se->lv != lv && se->lv && !se->vt_relative) {
		se->avt = bvt_is_coop(se->lv) ? bvt_coop_leave_lag(bt) :
						bvt_lag(se);
		se->vt_relative = 1;
		trace_sched_bvt_level(bvt_thread_task(bt), reserved);
	}
	if (IS_ENABLED(CONFIG_SCHED_BVT_COOP) && unlikely(bt->coop)) {
		if (bt->coop->dom && lv != &bt->coop->dom->lv)
			bvt_coop_detach(bt);
		if (lv == &rq->bvt.coop.lv && !bt->coop->dom)
			bvt_coop_attach(&rq->bvt.coop, bt);
	}
	se->lv = lv;
	/*
	 * Every change of the weight a thread runs with dequeues it or
	 * changes its class: it is charged at the weight set here.  A thread
	 * may enter the class while it runs and is not queued (it is
	 * blocking, and another CPU changes its policy while this one
	 * balances): it is charged at this weight as it is put.
	 */
	se->weight = bvt_run_weight(bt);
}

/*
 * Has the running entity @curr used up its allowance over @next?  C is
 * real time, so it is scaled by @curr's weight: every weight gets the same
 * slice of real time before it is switched out.
 */
static bool bvt_allowance_used(struct bvt_entity *curr,
			       struct bvt_entity *next, u64 allowance)
{
	u64 c = bvt_scale(allowance, curr->weight);

	return vt_before(bvt_evt(next) + c, bvt_evt(curr));
}

/*
 * The levels of virtual time, the root and the best-effort level: their
 * queue is the timeline, queued entities by E, each node also holding the
 * least A of its subtree.
 */
static inline bool bvt_entity_less(struct rb_node *a, const struct rb_node *b)
{
	return vt_before(bvt_evt(__node_2_bse(a)),
			 bvt_evt(__node_2_bse((struct rb_node *)b)));
}

static inline bool bvt_entity_not_after(struct rb_node *a,
					const struct rb_node *b)
{
	return !vt_before(bvt_evt(__node_2_bse((struct rb_node *)b)),
			  bvt_evt(__node_2_bse(a)));
}

static inline void __min_avt_update(struct bvt_entity *se,
				    struct rb_node *node)
{
	if (node) {
		struct bvt_entity *rse = __node_2_bse(node);

		if (vt_before(rse->min_avt, se->min_avt))
			se->min_avt = rse->min_avt;
	}
}

static inline bool min_avt_update(struct bvt_entity *se, bool exit)
{
	u64 old_min_avt = se->min_avt;
	struct rb_node *node = &se->run_node;

	se->min_avt = se->avt;
	__min_avt_update(se, node->rb_right);
	__min_avt_update(se, node->rb_left);

	return se->min_avt == old_min_avt;
}

RB_DECLARE_CALLBACKS(static, min_avt_cb, struct bvt_entity,
		     run_node, min_avt, min_avt_update);

/* Queue @se behind the entities with its E: they have waited longer. */
static void bvt_timeline_add(struct bvt_level *lv, struct bvt_entity *se)
{
	se->min_avt = se->avt;
	rb_add_augmented_cached(&se->run_node, &lv->timeline, bvt_entity_less,
				&min_avt_cb);
}

/*
 * Queue @se, which has just woken up, ahead of the entities with its E.
 * It wakes at SVT at the earliest, level with the entity that has waited
 * longest, whose A is SVT; behind it, it would wait for that entity's
 * whole turn after the running one's, and a waking thread that does not
 * preempt (see bvt_timeline_preempts()) should wait for no more than the
 * rest of the running one's.  Ties carry no claim to the CPU either way.
 */
static void bvt_timeline_add_woken(struct bvt_level *lv,
				   struct bvt_entity *se)
{
	se->min_avt = se->avt;
	rb_add_augmented_cached(&se->run_node, &lv->timeline,
				bvt_entity_not_after, &min_avt_cb);
}

static void bvt_timeline_del(struct bvt_level *lv, struct bvt_entity *se)
{
	rb_erase_augmented_cached(&se->run_node, &lv->timeline, &min_avt_cb);
	RB_CLEAR_NODE(&se->run_node);
}

static struct bvt_entity *bvt_timeline_first(struct bvt_level *lv)
{
	struct rb_node *left = rb_first_cached(&lv->timeline);

	return left ? __node_2_bse(left) : NULL;
}

/* The runnable entity with the least E; the running one wins ties. */
static struct bvt_entity *bvt_timeline_pick(struct bvt_level *lv)
{
	struct bvt_entity *left = bvt_timeline_first(lv);
	struct bvt_entity *curr = lv->curr;

	if (curr && !curr->on_rq)
		curr = NULL;
	if (!left || (curr && !vt_before(bvt_evt(left), bvt_evt(curr))))
		return curr;
	return left;
}

/*
 * The warp a level of virtual time runs with when it would run @head: in
 * direct mode the warp of @head, in threshold mode its own, if @head's
 * reaches the threshold.
 */
static s64 bvt_head_warp(const struct bvt_level *lv,
			 const struct bvt_entity *head)
{
	if (!head || !head->warped)
		return 0;
	if (lv->direct)
		return head->warp;
	return head->warp >= lv->threshold ? lv->warp : 0;
}

static s64 bvt_timeline_warp(struct bvt_level *lv)
{
	return bvt_head_warp(lv, bvt_timeline_pick(lv));
}

/*
 * A runnable entity with a lower E preempts the running one.  One that
 * has just woken up must be lower by the wake-up granularity: among
 * threads that pass messages, a receiver woken with a lower E than its
 * sender would take the CPU at every message, and the sender back at the
 * next, a switch per message where the sender could have sent a batch.
 */
static bool bvt_timeline_preempts(const struct bvt_entity *se,
				  const struct bvt_entity *curr, int wake_flags)
{
	u64 gran = 0;

	if (wake_flags & (WF_TTWU | WF_FORK)) {
		gran = READ_ONCE(sysctl_sched_bvt_wakeup_granularity_ns);
		gran = bvt_scale(gran, curr->weight);
	}
	return vt_before(bvt_evt(se) + gran, bvt_evt(curr));
}

/*
 * Did @se, a thread, become runnable here (wake up, arrive from another
 * CPU, or be queued again by a change) after the running thread was
 * picked?  A thread switched out at that pick has waited since it.
 */
static bool bvt_woke_since_pick(struct bvt_level *lv, struct bvt_entity *se)
{
	return bvt_entity_is_task(se) &&
	       bvt_se_thread(se)->wait_start > lv->rq->bvt.picked_at;
}

/*
 * The running entity keeps the CPU until it has used its allowance over
 * the next one in line; over a thread that woke up while it ran, only the
 * wake-up granularity, as at the wake-up itself: the granularity defers a
 * wake-up by a little, it does not make it wait for a whole allowance.
 * With a granularity of 0 (the paper's rule) the allowance holds.
 */
static bool bvt_timeline_expired(struct bvt_level *lv, struct bvt_entity *curr)
{
	struct bvt_entity *next = bvt_timeline_first(lv);
	u64 c, gran;

	if (!next)
		return false;
	c = READ_ONCE(sysctl_sched_bvt_allowance_ns);
	gran = READ_ONCE(sysctl_sched_bvt_wakeup_granularity_ns);
	if (gran && bvt_woke_since_pick(lv, next))
		c = min(c, gran);
	return bvt_allowance_used(curr, next, c);
}

/* Step behind the next entity in line. */
static bool bvt_timeline_yield(struct bvt_level *lv, struct bvt_entity *curr)
{
	struct bvt_entity *next = bvt_timeline_first(lv);

	if (!next)
		return false;
	if (!vt_before(bvt_evt(next), bvt_evt(curr)))
		curr->avt += bvt_evt(next) - bvt_evt(curr) + 1;
	return true;
}

static const struct bvt_level_ops bvt_timeline_ops = {
	.queue		= bvt_timeline_add,
	.unqueue	= bvt_timeline_del,
	.pick		= bvt_timeline_pick,
	.warp		= bvt_timeline_warp,
	.preempts	= bvt_timeline_preempts,
	.expired	= bvt_timeline_expired,
	.yield		= bvt_timeline_yield,
};

/*
 * A level's operations.  Levels of virtual time are the common case, and
 * are called directly where indirect calls cost (retpolines).
 */
static inline void bvt_queue(struct bvt_level *lv, struct bvt_entity *se)
{
	INDIRECT_CALL_1(lv->ops->queue, bvt_timeline_add, lv, se);
}

/* Queue @se, just woken up: on a timeline, ahead of its equals. */
static inline void bvt_queue_woken(struct bvt_level *lv, struct bvt_entity *se)
{
	if (lv->ops->queue == bvt_timeline_add)
		bvt_timeline_add_woken(lv, se);
	else
		lv->ops->queue(lv, se);
}

static inline void bvt_unqueue(struct bvt_level *lv, struct bvt_entity *se)
{
	INDIRECT_CALL_1(lv->ops->unqueue, bvt_timeline_del, lv, se);
}

static inline struct bvt_entity *bvt_pick_entity(struct bvt_level *lv)
{
	return INDIRECT_CALL_1(lv->ops->pick, bvt_timeline_pick, lv);
}

/*
 * SVT is the least A of the runnable entities.  It never goes back: an
 * entity joins with A >= SVT (see bvt_enqueue_entity()), or a little below
 * it when it comes back into the class (see switched_from_bvt()), so the
 * minimum only moves back when the runqueue empties or by that little, and
 * then SVT stays put.
 */
static void bvt_update_svt(struct bvt_level *lv)
{
	struct rb_node *root = lv->timeline.rb_root.rb_node;
	struct bvt_entity *curr = lv->curr;
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
	WRITE_ONCE(lv->svt, vt_max(lv->svt, least));
}

static void bvt_enqueue_entity(struct bvt_level *lv, struct bvt_entity *se,
			       int flags)
{
	if (se->vt_relative) {
		se->avt += lv->svt;
		se->vt_relative = 0;
	}
	/* Sleeping earns no credit: wake up no earlier than SVT. */
	if (flags & ENQUEUE_WAKEUP)
		se->avt = vt_max(se->avt, lv->svt);

	if (se != lv->curr) {
		if (flags & ENQUEUE_WAKEUP)
			bvt_queue_woken(lv, se);
		else
			bvt_queue(lv, se);
	}
	se->on_rq = 1;
	lv->nr_queued++;
	if (lv->ops->enqueue)
		lv->ops->enqueue(lv, se, flags);
}

static void bvt_dequeue_entity(struct bvt_level *lv, struct bvt_entity *se,
			       int flags)
{
	if (se != lv->curr)
		bvt_unqueue(lv, se);
	se->on_rq = 0;
	lv->nr_queued--;
	if (lv->ops->dequeue)
		lv->ops->dequeue(lv, se, flags);
	bvt_update_svt(lv);
}

static void bvt_set_curr(struct bvt_level *lv, struct bvt_entity *se)
{
	SCHED_WARN_ON(lv->curr);
	if (se->on_rq)
		bvt_unqueue(lv, se);
	lv->curr = se;
	if (lv->ops->picked)
		lv->ops->picked(lv, se);
}

static void bvt_put_curr(struct bvt_level *lv, struct bvt_entity *se)
{
	SCHED_WARN_ON(lv->curr != se);
	if (se->on_rq)
		bvt_queue(lv, se);
	lv->curr = NULL;
}

/*
 * After a change below @se, a level: it is queued while anything in it is
 * runnable, joining like a waking thread, and its E follows the entity it
 * would run.
 */
static void bvt_level_update(struct bvt_entity *se)
{
	struct bvt_level *lv = bvt_level_of(se), *above = se->lv;
	s64 warp;

	if (!lv->nr_queued) {
		if (se->on_rq)
			bvt_dequeue_entity(above, se, DEQUEUE_SLEEP);
		return;
	}

	warp = INDIRECT_CALL_1(lv->ops->warp, bvt_timeline_warp, lv);
	if (se->on_rq && se->warp == warp)
		return;
	if (se->on_rq && se != above->curr)
		bvt_unqueue(above, se);
	se->warp = warp;
	se->warped = warp != 0;
	if (!se->on_rq)
		bvt_enqueue_entity(above, se, ENQUEUE_WAKEUP);
	else if (se != above->curr)
		bvt_queue(above, se);
}

/* Bring the levels above @se up to date with it. */
static void bvt_levels_update(struct bvt_entity *se)
{
	for (se = bvt_parent(se); se; se = bvt_parent(se))
		bvt_level_update(se);
}

/*
 * The best-effort level's weight, warp and mode, from their sysctls: set
 * where they change (bvt_be_sysctl_handler()), with @lv's CPU locked.
 */
static void bvt_be_apply(struct bvt_level *lv)
{
	lv->se.weight = READ_ONCE(sysctl_sched_bvt_be_weight);
	lv->warp = READ_ONCE(sysctl_sched_bvt_be_warp_ns);
	lv->threshold = READ_ONCE(sysctl_sched_bvt_be_threshold_ns);
	lv->direct = READ_ONCE(sysctl_sched_bvt_be_direct);
	bvt_pbs_set_mode(lv, READ_ONCE(sysctl_sched_bvt_be_mode));
	if (lv->nr_queued)
		bvt_level_update(&lv->se);
}

/*
 * Charge @delta ns of run time (negative: give it back) to @se's A and to
 * the A of every level above it, each at its own weight.
 */
static void bvt_charge(struct bvt_entity *se, s64 delta)
{
	u64 abs = delta < 0 ? -delta : delta;
	u64 vt;

	for (; se; se = bvt_parent(se)) {
		if (!bvt_entity_is_task(se)) {
			bvt_level_of(se)->ran += delta;
			bvt_level_update(se);
		}
		vt = bvt_scale(abs, se->weight);
		se->avt += delta < 0 ? -vt : vt;
		bvt_update_svt(se->lv);
	}
}

#ifdef CONFIG_SCHED_CLASS_EXT
/*
 * The fair server serves no sched_ext task: one that waits for CPU-bound
 * BVT threads (any task a scheduler runs, SCHED_NORMAL or SCHED_EXT, and
 * one on its way in or out as the scheduler loads or unloads) would starve
 * until the watchdog ejects the scheduler, or for good where a CPU hotplug
 * waits for it and the load or unload for the hotplug.  The class gives
 * way by the fair server's parameters instead: in each of its periods, BVT
 * threads keep sched_ext's tasks of a CPU waiting for at most the period
 * less the server's runtime, then leave the CPU to them until the period
 * ends, as RT throttling holds back RT tasks.
 */
static inline bool bvt_ext_waiting(struct rq *rq)
{
	return scx_enabled() && rq->scx.nr_running;
}

static inline bool bvt_ext_ceding(struct rq *rq)
{
	return bvt_ext_waiting(rq) && unlikely(rq->bvt.ext_ceded);
}

static void bvt_ext_charge(struct rq *rq, u64 delta)
{
	struct sched_dl_entity *fs = &rq->fair_server;
	u64 period = READ_ONCE(fs->dl_period);
	u64 runtime = READ_ONCE(fs->dl_runtime);
	u64 now = rq_clock(rq);

	if (!runtime)
		return;
	if (rq->bvt.ext_ceded) {
		/*
		 * A BVT thread that came while none of them waited; one that
		 * runs by what the plan guarantees goes on (bvt_pick_top()).
		 */
		if (!bvt_plan_curr(&rq->bvt) ||
		    !bvt_plan_holds(rq->bvt.pl.curr_by))
			resched_curr(rq);
		return;
	}
	if (now >= rq->bvt.ext_period_end) {
		rq->bvt.ext_period_end = now + period;
		rq->bvt.ext_waited = 0;
	}
	rq->bvt.ext_waited += delta;
	if (rq->bvt.ext_waited + runtime < period)
		return;
	rq->bvt.ext_ceded = true;
	hrtimer_start(&rq->bvt.ext_timer,
		      ns_to_ktime(rq->bvt.ext_period_end - now),
		      HRTIMER_MODE_REL_PINNED_HARD);
	trace_sched_bvt_ext_cede(cpu_of(rq), rq->bvt.ext_waited,
				 rq->scx.nr_running);
	resched_curr(rq);
}

/* The period has ended: BVT threads run first again. */
static enum hrtimer_restart bvt_ext_timer_fn(struct hrtimer *timer)
{
	struct rq *rq = container_of(timer, struct rq, bvt.ext_timer);
	struct rq_flags rf;

	rq_lock(rq, &rf);
	rq->bvt.ext_ceded = false;
	if (rq->bvt.nr_running && rq->curr->sched_class != &bvt_sched_class)
		resched_curr(rq);
	rq_unlock(rq, &rf);
	return HRTIMER_NORESTART;
}

static void init_bvt_ext(struct bvt_rq *bvt_rq)
{
	hrtimer_init(&bvt_rq->ext_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	bvt_rq->ext_timer.function = bvt_ext_timer_fn;
}
#else
static inline bool bvt_ext_waiting(struct rq *rq)
{
	return false;
}

static inline bool bvt_ext_ceding(struct rq *rq)
{
	return false;
}

static inline void bvt_ext_charge(struct rq *rq, u64 delta) { }
static inline void init_bvt_ext(struct bvt_rq *bvt_rq) { }
#endif /* CONFIG_SCHED_CLASS_EXT */

static void update_curr_bvt(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	struct sched_bvt_entity *bt = &curr->bvt;
	s64 delta_exec;

	if (curr->sched_class != &bvt_sched_class)
		return;

	delta_exec = update_curr_common(rq);
	if (unlikely(delta_exec <= 0))
		return;
	if (bvt_ext_waiting(rq))
		bvt_ext_charge(rq, delta_exec);
	if (unlikely(bvt_plan_curr(&rq->bvt) == &bt->se)) {
		/* Time granted by the plan is not part of its run in A. */
		curr->se.prev_sum_exec_runtime += delta_exec;
		rq->bvt.pl.lv.ops->charge(&rq->bvt.pl.lv, &bt->se, delta_exec);
		return;
	}

	if (bt->se.warped)
		bt->warp_ran += delta_exec;
	bvt_charge(&bt->se, delta_exec);
	WRITE_ONCE(rq->bvt.curr_lag, bvt_evt(&bt->se) - bt->se.lv->svt);
}

/*
 * The paper charges run time in whole minimum charging units, rounded to
 * the nearest, trusting the rounding to average out.  @ran ns rounds to
 * this many ns; an mcu of 0 charges exactly.
 */
static u64 bvt_mcu_round(u64 ran, u32 mcu)
{
	if (!mcu)
		return ran;
	return div64_u64(ran + mcu / 2, mcu) * mcu;
}

/*
 * What the running @p has run in virtual time since it was picked: fair.c's
 * slice measure, which a class leaves to the class that runs the task.
 */
static inline u64 bvt_slice_ran(struct task_struct *p)
{
	return p->se.sum_exec_runtime - p->se.prev_sum_exec_runtime;
}

/* The running @p is put: round what it ran since it was picked. */
static void bvt_charge_mcu(struct task_struct *p)
{
	u64 ran = bvt_slice_ran(p);
	s64 extra = bvt_mcu_round(ran, READ_ONCE(sysctl_sched_bvt_mcu_ns)) - ran;

	if (extra)
		bvt_charge(&p->bvt.se, extra);
}

/*
 * Warp.  A thread with SCHED_BVT_FLAG_WARP and a non-zero W wants to warp.
 * It runs warped (E = A - W) from when it becomes runnable, as long as
 *  - it has run warped for less than L since the warp began, and
 *  - U has passed since its last warp ended, by blocking or by reaching L.
 * A warp wanted within U starts when U has passed (its CPU's warp timer);
 * a warp that reaches L ends then (its CPU's enforcement timer), both to
 * the microsecond, and the thread runs on unwarped.
 */
static inline bool bvt_wants_warp(struct sched_bvt_entity *bt)
{
	return ((bvt_run(bt)->flags & SCHED_BVT_FLAG_WARP) || bt->sig_warp) &&
	       bvt_run(bt)->warp;
}

/*
 * How much longer @bt must wait at @now before it may warp again; a
 * warp_ended of 0 means it never warped.
 */
static u64 bvt_unwarp_wait(struct sched_bvt_entity *bt, u64 now)
{
	s64 since = now - bt->warp_ended;

	if (!bt->warp_ended || since < 0 || since >= bvt_run(bt)->unwarp)
		return 0;
	return bvt_run(bt)->unwarp - since;
}

/*
 * The state of a warp, apart from its tracepoints: those read the task
 * around the entity, which the KUnit cases do not have.
 */
static void __bvt_warp_start(struct sched_bvt_entity *bt)
{
	bt->se.warped = 1;
	bt->se.warp = bvt_run(bt)->warp;
	bt->warp_ran = 0;
}

static void __bvt_warp_end(struct sched_bvt_entity *bt, u64 now)
{
	bt->se.warped = 0;
	bt->se.warp = 0;
	bt->warp_ended = now;
}

static void bvt_warp_start(struct sched_bvt_entity *bt, int reason)
{
	__bvt_warp_start(bt);
	trace_sched_bvt_warp_start(bvt_thread_task(bt), reason, 0);
}

static void bvt_warp_end(struct sched_bvt_entity *bt, u64 now, int reason)
{
	trace_sched_bvt_warp_end(bvt_thread_task(bt), reason, bt->warp_ran);
	__bvt_warp_end(bt, now);
}

/*
 * When @bt, whose warp waits, may warp: U after its last warp ended, by
 * the rq clock.  Neither changes while it waits: a change of its
 * parameters (sched_setattr(), PI, class, migration) dequeues it, which
 * ends the wait; a warp ends only while it is warped, and one that waits
 * is not, until bvt_warp_try() takes it out of the tree and starts it.
 */
static inline u64 bvt_warp_at(const struct sched_bvt_entity *bt)
{
	return bt->warp_ended + bvt_run(bt)->unwarp;
}

static inline bool bvt_warp_before(struct rb_node *a, const struct rb_node *b)
{
	return bvt_warp_at(rb_entry(a, struct sched_bvt_entity, warp_node)) <
	       bvt_warp_at(rb_entry(b, struct sched_bvt_entity, warp_node));
}

/*
 * A warp that waits for U waits in its CPU's tree, by when it may warp,
 * which the CPU's warp timer takes from when the first may: one timer a
 * CPU, not one in every task, and an expiry looks at the threads whose
 * wait ends then, not at every one that waits.  A thread leaves the tree
 * when it is dequeued, and its next enqueue tries again.  Called with
 * @rq locked.
 */
static void bvt_warp_defer(struct rq *rq, struct sched_bvt_entity *bt,
			   u64 wait)
{
	struct hrtimer *timer = &rq->bvt.warp_timer;

	lockdep_assert_rq_held(rq);
	if (RB_EMPTY_NODE(&bt->warp_node))
		rb_add_cached(&bt->warp_node, &rq->bvt.warp_waiting,
			      bvt_warp_before);
	if (hrtimer_is_queued(timer) &&
	    !ktime_before(ktime_add_ns(ktime_get(), wait),
			  hrtimer_get_expires(timer)))
		return;
	hrtimer_start(timer, ns_to_ktime(wait), HRTIMER_MODE_REL_HARD);
}

static inline void bvt_warp_undefer(struct rq *rq, struct sched_bvt_entity *bt)
{
	if (unlikely(!RB_EMPTY_NODE(&bt->warp_node))) {
		rb_erase_cached(&bt->warp_node, &rq->bvt.warp_waiting);
		RB_CLEAR_NODE(&bt->warp_node);
	}
}

/* Warp @bt, about to be queued, now if it may, or when U has passed. */
static void bvt_warp_try(struct rq *rq, struct sched_bvt_entity *bt,
			 int reason)
{
	u64 wait;

	if (bt->se.warped || !bvt_wants_warp(bt))
		return;

	wait = bvt_unwarp_wait(bt, rq_clock(rq));
	if (!wait) {
		/*
		 * Out of the tree first, if the timer has not taken it yet:
		 * warp_ran, which the warp starts, shares warp_ended's place.
		 */
		bvt_warp_undefer(rq, bt);
		bvt_warp_start(bt, reason);
		return;
	}
	trace_sched_bvt_warp_deferred(bvt_thread_task(bt), wait);
	bvt_warp_defer(rq, bt, wait);
}

/* Does @bt run warped with a limit L to enforce? */
static inline bool bvt_limited(struct sched_bvt_entity *bt)
{
	return bt->se.warped && bvt_run(bt)->warp_limit;
}

/* How much longer the running @bt may run warped; 0: no limit to enforce. */
static u64 bvt_limit_left(struct sched_bvt_entity *bt)
{
	u64 limit = bvt_run(bt)->warp_limit;

	if (!bvt_limited(bt))
		return 0;
	return limit > bt->warp_ran ? limit - bt->warp_ran : 1;
}

/*
 * The enforcement timer of a CPU ends what the running thread may do only
 * for so long: run warped (L), run as a member of a cooperation domain
 * without calling coop_poll() (its slice), and run outside the domain when
 * a member's deadline comes (see coop_poll.c).  It fires at the first of
 * those to end; 0 is none.  An outsider whose slice has ended and that is
 * already to be switched out has none: the switch arms the timer anew, and
 * if it keeps the CPU after all, the tick's allowance C ends it.
 */
static u64 bvt_enforce_left(struct rq *rq, struct sched_bvt_entity *bt)
{
	struct task_struct *p = bvt_thread_task(bt);
	/* A QAS part ends when it has run its amount, however it runs. */
	u64 part = bvt_qas_of(p) ? bvt_qas_left(p) : 0;
	u64 left;

	if (unlikely(bvt_plan_curr(&rq->bvt) == &bt->se))
		return min_not_zero(rq->bvt.pl.lv.ops->budget(&rq->bvt.pl.lv,
							      &bt->se), part);
	left = min_not_zero(bvt_limit_left(bt), part);
	return min_not_zero(left, bvt_coop_left(rq, bt));
}

/*
 * Start @rq's enforcement timer for @bt, which runs there.  Called with
 * @rq locked.  The timer is pinned and only started on its own CPU, as
 * hrtick does: a change made from another CPU (sched_setattr(), PI, a
 * signal, a member's wake-up) asks @rq's CPU to look again at what runs
 * there.  It is stopped
 * when its thread is put.
 */
static void bvt_enforce_arm(struct rq *rq, struct sched_bvt_entity *bt)
{
	u64 left;

	lockdep_assert_rq_held(rq);
	left = bvt_enforce_left(rq, bt);

	if (!left)
		return;
#ifdef CONFIG_SMP
	if (rq != this_rq()) {
		smp_call_function_single_async(cpu_of(rq), &rq->bvt.enforce_csd);
		return;
	}
#endif
	hrtimer_start(&rq->bvt.enforce_timer, ns_to_ktime(left),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

/* Arm the timer for what runs on @rq now, if it is a BVT thread. */
static void bvt_enforce_rearm(struct rq *rq)
{
	if (rq->curr->sched_class == &bvt_sched_class)
		bvt_enforce_arm(rq, &rq->curr->bvt);
}

#ifdef CONFIG_SMP
static void bvt_enforce_csd_fn(void *arg)
{
	struct rq *rq = arg;
	struct rq_flags rf;

	rq_lock(rq, &rf);
	update_rq_clock(rq);
	update_curr_bvt(rq);
	bvt_enforce_rearm(rq);
	rq_unlock(rq, &rf);
}
#endif

/*
 * End the warp of the task running on @rq if it has reached L; it goes on
 * unwarped, or warped again at once if U is 0.
 */
static void bvt_check_limit(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	struct sched_bvt_entity *bt = &curr->bvt;

	if (curr->sched_class != &bvt_sched_class || !bvt_limited(bt) ||
	    bt->warp_ran < bvt_run(bt)->warp_limit)
		return;

	bvt_warp_end(bt, rq_clock(rq), BVT_WARP_LIMIT);
	bvt_warp_try(rq, bt, BVT_WARP_UNWARP_DONE);
	bvt_levels_update(&bt->se);
	resched_curr(rq);
}

/*
 * Has the thread that runs on @rq by the plan level had what it grants it,
 * or, if none does, does the level cede the CPU?
 */
static bool bvt_plan_done(struct rq *rq)
{
	struct bvt_level *lv = &rq->bvt.pl.lv;

	return lv->ops->expired(lv, lv->curr) ||
	       (!lv->curr && lv->ops->cede(lv));
}

/* End what the plan level granted the running thread, once used up. */
static void bvt_check_granted(struct rq *rq)
{
	if (bvt_plan_curr(&rq->bvt) && bvt_plan_done(rq))
		resched_curr(rq);
}

/*
 * Re-armed, if need be, under the rq lock and never by returning
 * HRTIMER_RESTART: a remote change may have started it again meanwhile.
 */
static enum hrtimer_restart bvt_enforce_timer_fn(struct hrtimer *timer)
{
	struct rq *rq = container_of(timer, struct rq, bvt.enforce_timer);
	struct rq_flags rf;

	rq_lock(rq, &rf);
	update_rq_clock(rq);
	update_curr_bvt(rq);
	bvt_check_limit(rq);
	bvt_coop_check(rq);
	bvt_check_granted(rq);
	bvt_qas_check(rq);
	bvt_enforce_rearm(rq);
	rq_unlock(rq, &rf);
	return HRTIMER_NORESTART;
}

static void bvt_check_preempt(struct rq *rq, struct task_struct *p,
			      int wake_flags);

/*
 * Warp the queued @bt now, or when U has passed: it moves in its level's
 * timeline, or if it is running, its L starts counting.
 */
static void bvt_warp_queued(struct rq *rq, struct sched_bvt_entity *bt,
			    int reason)
{
	struct bvt_level *lv = bt->se.lv;
	bool running = &bt->se == lv->curr;

	if (running)
		update_curr_bvt(rq);
	else
		bvt_unqueue(lv, &bt->se);
	bvt_warp_try(rq, bt, reason);
	if (!running)
		bvt_queue(lv, &bt->se);
	bvt_levels_update(&bt->se);
	if (running)
		bvt_enforce_arm(rq, bt);
	else
		bvt_check_preempt(rq, bvt_thread_task(bt), 0);
}

/*
 * U has passed for the first of the queued threads that wait to warp:
 * warp those it has passed for, and wait for the next.  The rq clock and
 * the timer's may differ by a little: one found a little early is waited
 * for again.
 */
static enum hrtimer_restart bvt_warp_timer_fn(struct hrtimer *timer)
{
	struct rq *rq = container_of(timer, struct rq, bvt.warp_timer);
	struct sched_bvt_entity *bt;
	struct rb_node *node;
	struct rq_flags rf;
	u64 now, wait;

	rq_lock(rq, &rf);
	update_rq_clock(rq);
	now = rq_clock(rq);
	while ((node = rb_first_cached(&rq->bvt.warp_waiting))) {
		bt = rb_entry(node, struct sched_bvt_entity, warp_node);
		wait = bvt_unwarp_wait(bt, now);
		if (wait) {
			hrtimer_start(timer, ns_to_ktime(wait),
				      HRTIMER_MODE_REL_HARD);
			break;
		}
		bvt_warp_undefer(rq, bt);
		if (!bt->se.warped && bvt_wants_warp(bt))
			bvt_warp_queued(rq, bt, BVT_WARP_UNWARP_DONE);
	}
	rq_unlock(rq, &rf);
	return HRTIMER_NORESTART;
}

/*
 * A signal whose handler was installed with SA_BVT_WARP is on its way to
 * @p: @p runs warped, with its own W, L and U, from the wake-up that the
 * signal causes (or now, if it is runnable) until it next blocks, whether
 * or not it has SCHED_BVT_FLAG_WARP.  Called with @p's siglock held.
 */
void bvt_signal_warp(struct task_struct *p)
{
	struct sched_bvt_entity *bt = &p->bvt;
	struct rq_flags rf;
	struct rq *rq;

	/* Most handlers' threads are not BVT ones: look before locking. */
	if (READ_ONCE(p->sched_class) != &bvt_sched_class)
		return;
	rq = task_rq_lock(p, &rf);
	if (p->sched_class != &bvt_sched_class || !bvt_run(bt)->warp)
		goto unlock;
	bt->sig_warp = 1;
	if (bt->se.on_rq && !bt->se.warped) {
		update_rq_clock(rq);
		bvt_warp_queued(rq, bt, BVT_WARP_SIGNAL);
	}
unlock:
	task_rq_unlock(rq, p, &rf);
}

/* How deep in the hierarchy @se is queued: 0 in the root. */
static int bvt_depth(const struct bvt_entity *se)
{
	int depth = 0;

	while ((se = bvt_parent(se)))
		depth++;
	return depth;
}

/* Walk the deeper of @se and @pse up to the depth of the other. */
static void bvt_match_depth(const struct bvt_entity **se,
			    const struct bvt_entity **pse)
{
	int depth = bvt_depth(*se), pdepth = bvt_depth(*pse);

	for (; depth > pdepth; depth--)
		*se = bvt_parent(*se);
	for (; pdepth > depth; pdepth--)
		*pse = bvt_parent(*pse);
}

/* Walk @se and @pse up to the entities of theirs that share a level. */
static void bvt_find_match(const struct bvt_entity **se,
			   const struct bvt_entity **pse)
{
	bvt_match_depth(se, pse);
	while ((*se)->lv != (*pse)->lv) {
		*se = bvt_parent(*se);
		*pse = bvt_parent(*pse);
	}
}

/*
 * A synchronous wake-up from the thread that runs on @rq, which is about
 * to sleep: it leaves the CPU to the woken thread as soon as it does, and
 * taking the CPU now costs a switch there and back.  With a wake-up
 * granularity of 0 the woken thread takes it (the paper's rule).
 */
static bool bvt_sync_wakeup(struct rq *rq, int wake_flags)
{
	return (wake_flags & WF_SYNC) && in_task() && rq->curr == current &&
	       READ_ONCE(sysctl_sched_bvt_wakeup_granularity_ns);
}

/*
 * Should the runnable @p take the CPU from what runs on @rq now?
 * @wake_flags: those of a wake-up or fork, else 0.  A warped thread's
 * wake-up is like any other change: it takes the CPU by any lower E, at
 * once, at whatever level it meets what runs (that is what warp is for).
 */
static void bvt_check_preempt(struct rq *rq, struct task_struct *p,
			      int wake_flags)
{
	struct task_struct *curr = rq->curr;
	const struct bvt_entity *se, *pse;

	if (curr->sched_class != &bvt_sched_class) {
		if (sched_class_above(&bvt_sched_class, curr->sched_class))
			resched_curr(rq);
		return;
	}

	update_curr_bvt(rq);
	/* The levels in order: the plan's first, then the tree's. */
	if (unlikely(bvt_plan_busy(&rq->bvt))) {
		struct bvt_level *lv = &rq->bvt.pl.lv;

		if (lv->ops->preempts(&p->bvt.se, lv->curr, wake_flags)) {
			resched_curr(rq);
			return;
		}
		if (lv->curr)
			return;
	}
	if (p->bvt.se.warped)
		wake_flags = 0;
	else if (bvt_sync_wakeup(rq, wake_flags))
		return;
	se = &curr->bvt.se;
	pse = &p->bvt.se;
	bvt_find_match(&se, &pse);
	if (INDIRECT_CALL_1(se->lv->ops->preempts, bvt_timeline_preempts,
			    pse, se, wake_flags))
		resched_curr(rq);
}

static void bvt_queue_push(struct rq *rq);
static void bvt_account_queued(struct rq *rq, struct sched_bvt_entity *bt,
			       int delta);

static void enqueue_task_bvt(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_bvt_entity *bt = &p->bvt;
	struct bvt_entity *se = &bt->se;

	update_curr_bvt(rq);
	bvt_attach(rq, bt);
	bt->wait_start = rq_clock(rq);
	bvt_warp_try(rq, bt, flags & ENQUEUE_WAKEUP ? BVT_WARP_WAKEUP :
						  BVT_WARP_PARAMS);
	bvt_enqueue_entity(se->lv, se, flags);
	bvt_levels_update(se);
	if (IS_ENABLED(CONFIG_SCHED_BVT_COOP) &&
	    unlikely(se->lv == &rq->bvt.coop.lv))
		bvt_coop_enqueued(rq, p);
	if (bvt_plan_resting(&rq->bvt))
		bvt_plan_wake(rq);
	if (bvt_in_plan(bt))
		bvt_plan_enqueued(rq, p);
	if (bvt_qas_of(p))
		bvt_qas_enqueued(rq, p);
	WRITE_ONCE(rq->bvt.nr_running, rq->bvt.nr_running + 1);
	WRITE_ONCE(rq->bvt.load, rq->bvt.load + se->weight);
	bvt_account_queued(rq, bt, 1);
	add_nr_running(rq, 1);
	/* Frequency governors see BVT time through avg_bvt. */
	if (rq->bvt.nr_running == 1)
		cpufreq_update_util(rq, 0);
	/*
	 * Put back after a change of its parameters, its PI boost, nice or
	 * affinity: it may now come before what runs.
	 */
	if ((flags & ENQUEUE_RESTORE) && !task_current(rq, p))
		bvt_check_preempt(rq, p, 0);
}

static bool dequeue_task_bvt(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_bvt_entity *bt = &p->bvt;
	struct bvt_entity *se = &bt->se;

	update_curr_bvt(rq);
	/*
	 * Blocking ends a warp, and the one a signal gave; a deferred one is
	 * tried again on wakeup.
	 */
	if (flags & DEQUEUE_SLEEP) {
		bt->sig_warp = 0;
		if (se->warped)
			bvt_warp_end(bt, rq_clock(rq), BVT_WARP_BLOCK);
	}
	bvt_warp_undefer(rq, bt);
	bvt_dequeue_entity(se->lv, se, flags);
	bvt_levels_update(se);
	if (bvt_qas_of(p))
		bvt_qas_dequeued(rq, p);
	WRITE_ONCE(rq->bvt.nr_running, rq->bvt.nr_running - 1);
	WRITE_ONCE(rq->bvt.load, rq->bvt.load - se->weight);
	bvt_account_queued(rq, bt, -1);
	sub_nr_running(rq, 1);
	if (!rq->bvt.nr_running)
		cpufreq_update_util(rq, 0);
	return true;
}

/*
 * Step behind the next entity in line, at the lowest level that has one:
 * a thread alone in the best-effort level yields the level's turn.
 */
static void yield_task_bvt(struct rq *rq)
{
	struct bvt_entity *se = &rq->curr->bvt.se;

	update_rq_clock(rq);
	update_curr_bvt(rq);
	/* The clock is fresh for the schedule() that follows. */
	rq_clock_skip_update(rq);
	for (; se; se = bvt_parent(se)) {
		if (!INDIRECT_CALL_1(se->lv->ops->yield, bvt_timeline_yield,
				     se->lv, se))
			continue;
		bvt_levels_update(se);
		return;
	}
}

static void wakeup_preempt_bvt(struct rq *rq, struct task_struct *p, int flags)
{
	bvt_check_preempt(rq, p, flags);
}

/*
 * How a pick by the plan level becomes what runs.  The plan level picks a
 * thread's own entity, which stays queued in its timeline level; the
 * level's lv.curr only marks that the running thread runs by the plan,
 * and curr_by says by what (slot, constraint, QAS part, or a constraint
 * just ended).
 *
 * 1. pick_task_bvt() asks bvt_pick_top(): pl.next is what the plan level
 *    picked, and pl.next_by why; NULL when the tree picked.  Nothing else
 *    changes yet: the core may still run a task of another class, or, with
 *    core scheduling, another thread.
 * 2. A switch puts the outgoing thread: put_prev_task_bvt() ends what it
 *    ran by the plan (lv.curr put, bvt_plan_switched()).  Then
 *    set_next_task_bvt() calls bvt_plan_set_curr(): if pl.next is the
 *    thread set, it becomes lv.curr, whose picked op copies next_by into
 *    curr_by; pl.next is cleared.
 * 3. A pick of the thread that already runs has no put and set
 *    (put_prev_set_next_task()): bvt_plan_repicked() does their part.  By
 *    the same level for the same reason, nothing changes and the timer
 *    stands; otherwise lv.curr is put, pl.next set in its place, and the
 *    enforcement timer armed again.
 * 4. While it runs, bvt_enforce_left() ends it by lv.curr and curr_by: by
 *    the plan level's budget when it runs by the plan, else by its L, its
 *    slice in a cooperation domain or its QAS part.
 *
 * So pl.next lives from a pick to the set or repick after it, and lv.curr
 * with curr_by from the set to the put.
 */

/*
 * The entity to run, from the levels of @brq in order: the plan level's
 * while it is busy, else the root's, descending to a thread.  NULL: none,
 * or the plan level, or @ceding (the class gives way to sched_ext's
 * tasks), cedes the CPU to the classes below.
 */
static struct bvt_entity *bvt_pick_top(struct bvt_rq *brq, bool ceding)
{
	struct bvt_level *lv = &brq->root;
	struct bvt_entity *se;

	if (IS_ENABLED(CONFIG_SCHED_BVT_RSV))
		brq->pl.next = NULL;
	if (unlikely(bvt_plan_busy(brq))) {
		se = brq->pl.lv.ops->pick(&brq->pl.lv);
		if (se && (!ceding || bvt_plan_holds(brq->pl.next_by))) {
			brq->pl.next = se;
			return se;
		}
		if (brq->pl.lv.ops->cede(&brq->pl.lv))
			return NULL;
	}
	if (ceding)
		return NULL;
	do {
		se = bvt_pick_entity(lv);
		if (SCHED_WARN_ON(!se))
			return NULL;
		lv = bvt_level_of(se);
	} while (lv);
	return se;
}

/*
 * A pick of the task that runs already has no put and set (see
 * put_prev_set_next_task()): if it now runs by another level, or by the
 * plan for another reason, the plan level's running entity changes here.
 */
static void bvt_plan_repicked(struct rq *rq, struct task_struct *p)
{
	struct bvt_plan_level *pl = &rq->bvt.pl;
	struct bvt_level *lv = &pl->lv;

	/* By the same level, for the same reason: its timer stands. */
	if (lv->curr == pl->next && (!pl->next || pl->curr_by == pl->next_by)) {
		pl->next = NULL;
		return;
	}
	if (lv->curr)
		bvt_put_curr(lv, lv->curr);
	if (bvt_plan_next(&rq->bvt))
		bvt_set_curr(lv, rq->bvt.pl.next);
	rq->bvt.pl.next = NULL;
	bvt_enforce_arm(rq, &p->bvt);
}

static struct task_struct *pick_task_bvt(struct rq *rq)
{
	struct bvt_entity *se;
	struct task_struct *p;

	if (!rq->bvt.nr_running)
		return NULL;

	/*
	 * A wake-up that preempts leaves the rq clock where the waker read
	 * it (rq_clock_skip_update()), and the pick starts the next thread's
	 * run from there: from another CPU, the wait for the IPI would be
	 * charged to the slot or constraint the plan runs it in.  On a
	 * nohz_full CPU every timer of its threads fires elsewhere.
	 */
	if (unlikely(bvt_plan_busy(&rq->bvt)))
		update_rq_clock(rq);
	update_curr_bvt(rq);
	se = bvt_pick_top(&rq->bvt, bvt_ext_ceding(rq));
	if (!se)
		return NULL;
	p = bvt_se_task(se);
	if (unlikely(bvt_plan_curr(&rq->bvt) || bvt_plan_next(&rq->bvt)) &&
	    p == rq->curr)
		bvt_plan_repicked(rq, p);
	return p;
}

/* Is @se the entity of a level that @next, a BVT thread, is queued under? */
static bool bvt_level_above(const struct bvt_entity *se,
			    const struct bvt_entity *next)
{
	for (next = bvt_parent(next); next; next = bvt_parent(next)) {
		if (next == se)
			return true;
	}
	return false;
}

/*
 * A switch to @next puts @p's entities up to the level the two share, and
 * set_next_task_bvt() sets @next's up to there: a level that @next runs
 * under too stays the running entity of the level above it, as CFS stops
 * at the common ancestor.  A put around a change puts them all.
 */
static void put_prev_task_bvt(struct rq *rq, struct task_struct *p,
			      struct task_struct *next)
{
	struct sched_bvt_entity *bt = &p->bvt;
	struct bvt_entity *se;

	update_curr_bvt(rq);
	update_bvt_rq_load_avg(rq_clock_pelt(rq), rq, 1);
	hrtimer_try_to_cancel(&rq->bvt.enforce_timer);
	/* Only a switch ends what it ran, not a put around a change. */
	if (next) {
		if (unlikely(bvt_plan_curr(&rq->bvt)))
			bvt_put_curr(&rq->bvt.pl.lv, &bt->se);
		if (bvt_in_plan(bt))
			bvt_plan_switched(rq, p, false);
		bvt_charge_mcu(p);
		bt->wait_start = rq_clock(rq);
	}
	if (next && next->sched_class != &bvt_sched_class)
		next = NULL;
	for (se = &bt->se; se; se = bvt_parent(se)) {
		if (next && bvt_level_above(se, &next->bvt.se))
			break;
		bvt_put_curr(se->lv, se);
	}
}

/*
 * At every level, the running entity keeps the CPU until it has had its
 * turn there: in a level of virtual time, until it has used its allowance
 * over the next one.
 */
static void bvt_check_allowance(struct rq *rq, struct bvt_entity *se)
{
	for (; se; se = bvt_parent(se)) {
		if (INDIRECT_CALL_1(se->lv->ops->expired, bvt_timeline_expired,
				    se->lv, se)) {
			resched_curr(rq);
			return;
		}
	}
}

/* @p was picked: it runs by the plan level if that is what picked it. */
static void bvt_plan_set_curr(struct rq *rq, struct task_struct *p)
{
	struct bvt_plan_level *pl = &rq->bvt.pl;

	if (unlikely(bvt_plan_curr(&rq->bvt)))
		bvt_put_curr(&pl->lv, pl->lv.curr);
	if (unlikely(bvt_plan_next(&rq->bvt))) {
		if (pl->next == &p->bvt.se)
			bvt_set_curr(&pl->lv, pl->next);
		pl->next = NULL;
	}
	if (bvt_in_plan(&p->bvt))
		bvt_plan_switched(rq, p, true);
}

/*
 * @first: @p was picked.  Otherwise the running @p was put and set again
 * around a change (sched_setattr(), nice, PI, affinity): its new weight or
 * warp takes effect now, not at the next tick.
 */
static void set_next_task_bvt(struct rq *rq, struct task_struct *p, bool first)
{
	struct sched_bvt_entity *bt = &p->bvt;
	struct bvt_entity *se;

	p->se.exec_start = rq_clock_task(rq);
	if (first) {
		p->se.prev_sum_exec_runtime = p->se.sum_exec_runtime;
		rq->bvt.picked_at = rq_clock(rq);
		bvt_plan_set_curr(rq, p);
	}
	/* Up to the level that the thread put runs under too, if any. */
	for (se = &bt->se; se && se->lv->curr != se; se = bvt_parent(se))
		bvt_set_curr(se->lv, se);
	se = &bt->se;
	bvt_enforce_arm(rq, bt);
	WRITE_ONCE(rq->bvt.curr_lag, bvt_evt(se) - se->lv->svt);
	if (!first) {
		bvt_check_allowance(rq, se);
		return;
	}
	/* A BVT task put has had its running time counted already. */
	if (rq->curr->sched_class != &bvt_sched_class)
		update_bvt_rq_load_avg(rq_clock_pelt(rq), rq, 0);
	trace_sched_bvt_pick(p, se->avt, bvt_evt(se), se->lv->svt);
	bvt_queue_push(rq);
}

#ifdef CONFIG_SCHED_CORE
/*
 * Core scheduling runs, on all SMT siblings of a core, the threads of one
 * cookie: the strongest of what each sibling would run decides, and a
 * sibling with nothing of that cookie is forced idle.  BVT threads of
 * different CPUs compare as distances from the SVT of each CPU's level, as
 * migration carries them; while a sibling is forced idle, from the SVT each
 * level had when that began, as cfs_prio_less() uses zero_vruntime_fi: a
 * thread alone on its CPU keeps its SVT at its own A, and would tie with
 * the thread it keeps out for as long as it ran.
 */
static void bvt_fi_update(struct bvt_level *lv, unsigned int fi_seq,
			  bool in_fi)
{
	if (in_fi) {
		if (lv->fi_seq == fi_seq)
			return;
		lv->fi_seq = fi_seq;
	}
	lv->svt_fi = lv->svt;
}

/* Does @b, picked on an SMT sibling of @a's CPU, come before @a? */
bool bvt_prio_less(const struct task_struct *a, const struct task_struct *b,
		   bool in_fi)
{
	unsigned int fi_seq = task_rq(a)->core->core_forceidle_seq;
	const struct bvt_entity *sea = &a->bvt.se, *seb = &b->bvt.se;

	/* A reserved thread against a best-effort one: the root decides. */
	bvt_match_depth(&sea, &seb);
	bvt_fi_update(sea->lv, fi_seq, in_fi);
	bvt_fi_update(seb->lv, fi_seq, in_fi);
	return (s64)(bvt_evt(sea) - sea->lv->svt_fi) >
	       (s64)(bvt_evt(seb) - seb->lv->svt_fi);
}

/*
 * Alone on its CPU while a sibling is forced idle, the running thread sees
 * no one to hand the CPU to, and would keep the core until it blocks: after
 * an allowance, have the core pick again (as task_tick_core() does).
 */
static void bvt_tick_core(struct rq *rq, struct task_struct *p)
{
	if (sched_core_enabled(rq) && rq->core->core_forceidle_count &&
	    rq->bvt.nr_running == 1 &&
	    bvt_slice_ran(p) >= READ_ONCE(sysctl_sched_bvt_allowance_ns))
		resched_curr(rq);
}
#else
static inline void bvt_tick_core(struct rq *rq, struct task_struct *p)
{
}
#endif /* CONFIG_SCHED_CORE */

static void task_tick_bvt(struct rq *rq, struct task_struct *p, int queued)
{
	update_curr_bvt(rq);
	/* Governors hear of BVT time when its signal moved, as of fair's. */
	if (update_bvt_rq_load_avg(rq_clock_pelt(rq), rq, 1))
		cpufreq_update_util(rq, 0);
	if (unlikely(bvt_plan_busy(&rq->bvt))) {
		if (bvt_plan_done(rq))
			resched_curr(rq);
		/* What the plan grants ends by its timers, not by C. */
		if (bvt_plan_curr(&rq->bvt))
			return;
	}
	bvt_check_allowance(rq, &p->bvt.se);
	bvt_tick_core(rq, p);
}

/*
 * A child starts at its parent's A.  It may be placed on another CPU before
 * it is first enqueued, so keep A relative to its level's SVT until then.
 * A reservation is not inherited: the child starts in the best-effort
 * level (see init_bvt_entity()).
 */
static void task_fork_bvt(struct task_struct *p)
{
	struct rq *rq = this_rq();
	struct rq_flags rf;
	s64 lag = 0;

	rq_lock(rq, &rf);
	update_rq_clock(rq);
	if (current->sched_class == &bvt_sched_class) {
		update_curr_bvt(rq);
		lag = bvt_lag(&current->bvt.se);
	}
	p->bvt.se.avt = lag;
	p->bvt.se.vt_relative = 1;
	rq_unlock(rq, &rf);
}

/*
 * The most a thread's A may be ahead of or behind its level's SVT when it
 * leaves the class and comes back.  A runnable thread runs ahead of the
 * next one by at most its allowance and a tick of charging granularity,
 * at its weight, plus its warp, and waits behind the others by about as
 * much: a lag within that was earned by running or by waiting.
 */
static u64 bvt_lag_max(struct sched_bvt_entity *bt)
{
	u64 ahead = 2 * READ_ONCE(sysctl_sched_bvt_allowance_ns) + TICK_NSEC;

	return bvt_scale(ahead, bvt_run_weight(bt)) + bvt_run(bt)->warp;
}

/*
 * A thread entering the class keeps the lag it had when it last left it
 * (see switched_from_bvt()), as CFS keeps vlag: leaving and coming back,
 * by a change of policy or a PI boost, neither erases debt nor earns
 * credit.  A thread that was never in the class starts at SVT, and one
 * that wakes up no earlier than SVT, as ever.
 */
static void switching_to_bvt(struct rq *rq, struct task_struct *p)
{
	bvt_attach(rq, &p->bvt);
}

/* Leaving the class: no warp (its dequeue took it off the warp list). */
static void bvt_forget_warp(struct rq *rq, struct task_struct *p)
{
	struct sched_bvt_entity *bt = &p->bvt;

	bt->sig_warp = 0;
	if (bt->se.warped)
		bvt_warp_end(bt, rq_clock(rq), BVT_WARP_PARAMS);
}

/*
 * Keep @p's lag: its A as a distance from the SVT of the level it leaves,
 * within bvt_lag_max() either way.  Its SVT no longer counts @p, so a
 * thread that was behind the others has a negative lag: dropping that
 * would cost it its turn at every class change, as keeping no debt would
 * give it one.  A sleeper's credit is still dropped when it wakes up.
 */
static void switched_from_bvt(struct rq *rq, struct task_struct *p)
{
	struct sched_bvt_entity *bt = &p->bvt;
	s64 lag = bvt_lag(&bt->se), max = bvt_lag_max(bt);

	bvt_forget_warp(rq, p);
	bvt_coop_forget(bt);
	if (bvt_plan_curr(&rq->bvt) == &bt->se)
		bvt_put_curr(&rq->bvt.pl.lv, &bt->se);
	bt->se.avt = clamp_t(s64, lag, -max, max);
	bt->se.vt_relative = 1;
}

static void bvt_re_release(struct task_struct *p);

/* Its cooperation state goes with bvt_task_dead(), in whatever class. */
static void task_dead_bvt(struct task_struct *p)
{
	bvt_re_release(p);
}

/*
 * exec(): the new program has not asked to cooperate, and the handlers
 * that QAS notifications went to are gone.
 */
void bvt_task_exec(struct task_struct *p)
{
	bvt_coop_exec(p);
	bvt_qas_exec(p);
}

/*
 * do_exit(), once PF_EXITING is set and before exit_mm() wakes the
 * thread's joiners, in whatever class it runs: what the plan level holds
 * for it ends now.
 */
void bvt_task_exit(struct task_struct *p)
{
	bvt_plan_task_exit(p);
}

/*
 * What a thread allocated for the mechanisms it used goes with it, in
 * whatever class it dies: called from finish_task_switch(), before the
 * RCU-delayed put of the task, which CPUs may still be reading under
 * their rq locks, and from sched_cancel_fork() for a child that never ran.
 */
void bvt_task_dead(struct task_struct *p)
{
	bvt_coop_free(p);
	bvt_pbs_free(p);
	bvt_plan_task_dead(p);
}

/*
 * Allocate what every thread of the class may need but that is kept out
 * of task_struct: its PBS session.  Called where it may sleep, before @p
 * enters the class by sched_setattr() or is forked in it; kept until it
 * is dead, and freed by bvt_task_dead(), by a failed fork too.
 */
int bvt_prepare_task(struct task_struct *p)
{
	return bvt_pbs_alloc(p);
}

static void switched_to_bvt(struct rq *rq, struct task_struct *p)
{
	/* Its time in the class starts now, as in switched_to_rt(). */
	if (task_current(rq, p)) {
		update_bvt_rq_load_avg(rq_clock_pelt(rq), rq, 0);
		rq->bvt.picked_at = rq_clock(rq);
	}
	if (!task_on_rq_queued(p))
		return;
	if (!task_current(rq, p))
		bvt_check_preempt(rq, p, 0);
	bvt_queue_push(rq);
}

static void prio_changed_bvt(struct rq *rq, struct task_struct *p, int oldprio)
{
	if (task_on_rq_queued(p) && !task_current(rq, p))
		bvt_check_preempt(rq, p, 0);
}

static unsigned int get_rr_interval_bvt(struct rq *rq, struct task_struct *p)
{
	return nsecs_to_jiffies(READ_ONCE(sysctl_sched_bvt_allowance_ns));
}

#ifdef CONFIG_SMP
/*
 * SMP.  The paper's multiprocessor BVT runs, on every CPU, the runnable
 * thread with the least E system-wide, adding the migration penalty M to
 * the E of a thread that last ran on another CPU.  Here every CPU has its
 * own runqueue and its own SVT, and virtual times are compared across CPUs
 * as distances from the SVT of each: that is what migration keeps.  Three
 * things approximate the global rule:
 *
 *  - a waking thread goes to a CPU free for it (no BVT, RT or deadline
 *    thread runnable there), or else to the CPU where its E, plus M if that
 *    is not the CPU it last ran on, is furthest below the E of what runs
 *    there: a warped thread moves to run at once, a batch thread stays;
 *  - a CPU that picks a thread while others wait pushes a waiting one to
 *    a free CPU, or to one where BVT has less load if that evens the load
 *    out: with equal weights, no CPU runs two threads more than another;
 *  - a CPU about to run no BVT thread pulls one that waits elsewhere.
 *
 * Two CPU masks keep this from visiting every CPU: the CPUs with BVT
 * threads runnable (the others are the free ones, unless RT or deadline
 * threads run there) and the CPUs where a thread that may move waits (what
 * a pull looks at), as rt has its cpupri masks and rto_mask.  Looking for
 * a free CPU, and comparing E or load, look at BVT_SCAN_CPUS CPUs at most.
 */
#define BVT_SCAN_CPUS	8

static struct cpumask bvt_busy_mask;
static struct cpumask bvt_overload_mask;
static atomic_t bvt_overload_count;

/*
 * After @rq's BVT threads changed: is it busy, and do threads wait there
 * that could move?  Written only at a change: the busy bit when the CPU
 * gets its first BVT thread or loses its last, as cpupri_set() is at a
 * change of a CPU's highest RT priority, the overload bit as
 * rt_set_overload() is.
 */
static void bvt_update_masks(struct rq *rq)
{
	struct bvt_rq *bvt_rq = &rq->bvt;
	bool over = bvt_rq->nr_running > 1 && bvt_rq->nr_migratory;
	bool busy = bvt_rq->nr_running;
	int cpu = cpu_of(rq);

	if (busy != cpumask_test_cpu(cpu, &bvt_busy_mask))
		assign_cpu(cpu, &bvt_busy_mask, busy);
	if (over == bvt_rq->overloaded)
		return;
	bvt_rq->overloaded = over;
	if (over) {
		cpumask_set_cpu(cpu, &bvt_overload_mask);
		/* The mask before the count: pairs with bvt_pull(). */
		smp_wmb();
		atomic_inc(&bvt_overload_count);
	} else {
		atomic_dec(&bvt_overload_count);
		cpumask_clear_cpu(cpu, &bvt_overload_mask);
	}
}

/* @se joins (@delta 1) or leaves (-1) @rq's runnable threads. */
static void bvt_account_queued(struct rq *rq, struct sched_bvt_entity *bt,
			       int delta)
{
	/* A member of a cooperation domain stays with it (coop_poll.c). */
	if (delta > 0) {
		bt->migratory = bvt_thread_task(bt)->nr_cpus_allowed > 1 &&
				!bvt_coop_member(bt);
		rq->bvt.nr_migratory += bt->migratory;
	} else {
		rq->bvt.nr_migratory -= bt->migratory;
	}
	bvt_update_masks(rq);
}

static inline u64 bvt_penalty(void)
{
	return READ_ONCE(sysctl_sched_bvt_migration_penalty_ns);
}

/* Does @rq run nothing that a BVT thread would wait for? */
static bool bvt_cpu_free(struct rq *rq)
{
	return !READ_ONCE(rq->bvt.nr_running) &&
	       !READ_ONCE(rq->rt.rt_nr_running) &&
	       !READ_ONCE(rq->dl.dl_nr_running);
}

static inline bool bvt_cpu_usable(struct task_struct *p, int cpu)
{
	return cpumask_test_cpu(cpu, p->cpus_ptr) && cpu_active(cpu);
}

/*
 * A CPU free for @p other than @not, or -1: @prefer first (if not -1),
 * then the first few without BVT threads (those may run RT or deadline
 * ones).
 */
static int bvt_find_free(struct task_struct *p, int prefer, int not)
{
	int cpu, scan = BVT_SCAN_CPUS;

	if (prefer >= 0 && prefer != not && bvt_cpu_usable(p, prefer) &&
	    bvt_cpu_free(cpu_rq(prefer)))
		return prefer;
	for_each_cpu_andnot(cpu, p->cpus_ptr, &bvt_busy_mask) {
		if (cpu == not || !cpu_active(cpu))
			continue;
		if (bvt_cpu_free(cpu_rq(cpu)))
			return cpu;
		if (!--scan)
			break;
	}
	return -1;
}

/*
 * How far behind the running BVT thread of @cpu the waking @p would be, in
 * virtual time: negative when it would preempt it.  S64_MAX when @cpu runs
 * something above BVT.
 */
static s64 bvt_wake_margin(struct task_struct *p, int cpu, int prev_cpu)
{
	struct sched_bvt_entity *bt = &p->bvt;
	struct rq *rq = cpu_rq(cpu);
	s64 evt;

	if (available_idle_cpu(cpu) || bvt_cpu_free(rq))
		return S64_MIN;
	if (READ_ONCE(rq->rt.rt_nr_running) || READ_ONCE(rq->dl.dl_nr_running))
		return S64_MAX;

	/* Sleeping earns no credit: it wakes at SVT at the earliest. */
	evt = max_t(s64, bvt_lag(&bt->se), 0);
	if (bvt_wants_warp(bt))
		evt -= bvt_run(bt)->warp;
	if (cpu != prev_cpu)
		evt += bvt_penalty();
	return evt - READ_ONCE(rq->bvt.curr_lag);
}

static int select_task_rq_bvt(struct task_struct *p, int prev_cpu, int flags)
{
	s64 margin, best_margin;
	int cpu, best_cpu, scan = BVT_SCAN_CPUS;

	if (p->nr_cpus_allowed == 1)
		return prev_cpu;
	/* In its reserved time or its constraint's, to its plan's CPU. */
	if (bvt_in_plan(&p->bvt)) {
		cpu = bvt_plan_home(p);
		if (cpu >= 0 && bvt_cpu_usable(p, cpu))
			return cpu;
	}
	/* A member of a cooperation domain stays with it while it may. */
	if (bvt_coop_member(&p->bvt) && bvt_cpu_usable(p, prev_cpu))
		return prev_cpu;

	best_cpu = bvt_find_free(p, prev_cpu, -1);
	if (best_cpu >= 0)
		goto out;

	/* No CPU is free: where it would run soonest, ties to prev_cpu. */
	best_cpu = prev_cpu;
	best_margin = bvt_cpu_usable(p, prev_cpu) ?
		      bvt_wake_margin(p, prev_cpu, prev_cpu) : S64_MAX;
	for_each_cpu_wrap(cpu, p->cpus_ptr, prev_cpu) {
		if (cpu == prev_cpu || !cpu_active(cpu))
			continue;
		if (!scan--)
			break;
		margin = bvt_wake_margin(p, cpu, prev_cpu);
		if (margin < best_margin) {
			best_margin = margin;
			best_cpu = cpu;
		}
	}
out:
	if (best_cpu != prev_cpu)
		trace_sched_bvt_migrate(p, prev_cpu, best_cpu,
					BVT_MIGRATE_WAKEUP, bvt_penalty());
	return best_cpu;
}

/*
 * Virtual times of different CPUs are unrelated: carry A across as its
 * distance from the SVT of its level on the CPU it leaves.  A waking task
 * is not queued and its old runqueue is not locked; a stale SVT only
 * misplaces it by what that CPU ran since, and the wakeup clamp to SVT
 * bounds it.
 */
static void migrate_task_rq_bvt(struct task_struct *p, int new_cpu)
{
	struct bvt_entity *se = &p->bvt.se;
	s64 lag = bvt_lag(se), max;

	/*
	 * A member's distance from its domain's SVT is the domain's to bound
	 * (bvt_coop_over_share()), and it has left it: it takes a lag within
	 * the bound of a class change, as one that leaves for another level
	 * does (bvt_coop_leave_lag()).
	 */
	if (se->lv && bvt_is_coop(se->lv)) {
		max = bvt_lag_max(&p->bvt);
		lag = clamp_t(s64, lag, -max, max);
	}
	se->avt = lag;
	se->vt_relative = 1;
	bvt_coop_detach(&p->bvt);
}

/* Members of a cooperation domain, policed or not, stay on their CPU. */
static bool bvt_can_move(struct rq *rq, struct task_struct *p)
{
	return !task_on_cpu(rq, p) && p->nr_cpus_allowed > 1 &&
	       !is_migration_disabled(p) && !bvt_coop_member(&p->bvt);
}

/*
 * How many waiting threads, in E order, a push or pull looks at on each
 * level.  The push runs at every switch of a CPU with waiting threads:
 * scanning the whole timeline would make a switch among many pinned
 * threads cost their number.  The next few in line are the ones worth
 * moving anyway.
 */
#define BVT_PUSH_SCAN	8

/*
 * Of the first waiting threads of @bs, the one with the least E that may
 * move, to @cpu if it is not -1.
 */
static struct task_struct *bvt_movable_in(struct rq *rq, struct bvt_level *lv,
					  int cpu)
{
	struct rb_node *node = rb_first_cached(&lv->timeline);
	int scan = BVT_PUSH_SCAN;

	for (; node && scan--; node = rb_next(node)) {
		struct bvt_entity *se = __node_2_bse(node);
		struct task_struct *p;

		if (!bvt_entity_is_task(se))
			continue;
		p = bvt_se_task(se);
		if (bvt_can_move(rq, p) &&
		    (cpu < 0 || cpumask_test_cpu(cpu, p->cpus_ptr)))
			return p;
	}
	return NULL;
}

static struct task_struct *bvt_movable_task(struct rq *rq, int cpu)
{
	return bvt_movable_in(rq, &rq->bvt.root, cpu) ?:
	       bvt_movable_in(rq, &rq->bvt.be, cpu);
}

/* Move the queued @p from @src to @dst; both are locked. */
static void bvt_move_task(struct task_struct *p, struct rq *src,
			  struct rq *dst, int reason)
{
	trace_sched_bvt_migrate(p, cpu_of(src), cpu_of(dst), reason,
				bvt_penalty());
	deactivate_task(src, p, 0);
	set_task_cpu(p, cpu_of(dst));
	activate_task(dst, p, 0);
}

/*
 * The weight of the BVT threads that wait on @rq, locked or not: a thread
 * counts while it waits, not while it runs.  A thread of high weight that
 * runs for a moment at each wake-up would otherwise make its CPU look
 * loaded at every pick there, and each of those picks push the threads
 * that wait to the other CPUs, whose picks push them back.  CPU-bound
 * threads still even out: each counts while the others run.  A thread
 * that has blocked is still rq->curr until the switch, but its weight has
 * left the load already: taking it off again would show the threads that
 * wait there as none, and draw one more from another CPU.
 */
static unsigned long bvt_waiting_load(struct rq *rq)
{
	unsigned long load = READ_ONCE(rq->bvt.load);
	const struct task_struct *curr = rcu_dereference_sched(rq->curr);

	if (curr->sched_class == &bvt_sched_class &&
	    READ_ONCE(curr->bvt.se.on_rq))
		load -= min_t(unsigned long, load,
			      READ_ONCE(curr->bvt.se.weight));
	return load;
}

/*
 * Where @p, waiting on @rq, should go: a CPU free for it, or the one where
 * the least BVT load waits (of the next few) if moving @p there evens that
 * out.  -1: stay.
 */
static int bvt_push_target(struct rq *rq, struct task_struct *p)
{
	unsigned long load, least = bvt_waiting_load(rq) - p->bvt.se.weight;
	int cpu, target, this_cpu = cpu_of(rq), scan = BVT_SCAN_CPUS;

	target = bvt_find_free(p, -1, this_cpu);
	if (target >= 0)
		return target;
	/*
	 * Evening the load out moves @p to wait elsewhere.  Not before it has
	 * waited an allowance here: one that has just woken up or come from
	 * another CPU is as likely to be run by a pick here, or pulled, as to
	 * be moved back, and pushing it would only move it to and fro.  A
	 * balance callback may find the clock not updated since the pick.
	 */
	if (READ_ONCE(rq->clock) - p->bvt.wait_start <
	    READ_ONCE(sysctl_sched_bvt_allowance_ns))
		return -1;
	for_each_cpu_wrap(cpu, p->cpus_ptr, this_cpu) {
		if (cpu == this_cpu || !cpu_active(cpu))
			continue;
		if (!scan--)
			break;
		load = bvt_waiting_load(cpu_rq(cpu));
		if (load < least) {
			least = load;
			target = cpu;
		}
	}
	return target;
}

/* Move one waiting thread off @rq, if that helps.  Called with @rq locked. */
static bool bvt_push_one(struct rq *rq)
{
	struct task_struct *p;
	struct rq *dst;
	bool moved = false;
	int cpu;

	lockdep_assert_rq_held(rq);
	p = bvt_movable_task(rq, -1);
	if (!p)
		return false;
	cpu = bvt_push_target(rq, p);
	if (cpu < 0)
		return false;

	dst = cpu_rq(cpu);
	get_task_struct(p);
	/* This may drop rq->lock: check that @p may still move. */
	double_lock_balance(rq, dst);
	if (task_rq(p) == rq && task_on_rq_queued(p) && bvt_can_move(rq, p) &&
	    p->sched_class == &bvt_sched_class &&
	    cpumask_test_cpu(cpu, p->cpus_ptr) && cpu_active(cpu)) {
		bvt_move_task(p, rq, dst, BVT_MIGRATE_PUSH);
		wakeup_preempt(dst, p, 0);
		moved = true;
	}
	double_unlock_balance(rq, dst);
	put_task_struct(p);
	return moved;
}

static void bvt_push_tasks(struct rq *rq)
{
	unsigned int budget = rq->bvt.nr_running;

	while (budget-- && rq->bvt.nr_running > 1 && bvt_push_one(rq))
		;
}

static DEFINE_PER_CPU(struct balance_callback, bvt_push_head);

/*
 * Threads that may move wait on @rq: try to move some, once the rq lock
 * is free.
 */
static void bvt_queue_push(struct rq *rq)
{
	if (rq->bvt.overloaded)
		queue_balance_callback(rq, &per_cpu(bvt_push_head, cpu_of(rq)),
				       bvt_push_tasks);
}

/*
 * @rq, locked, is about to run no BVT thread: take one that waits on
 * another CPU, the first found.  As pull_rt_task(), this may drop the
 * lock.
 */
static bool bvt_pull(struct rq *rq)
{
	int this_cpu = cpu_of(rq), cpu;
	struct task_struct *p;
	bool pulled = false;
	struct rq *src;

	if (likely(!atomic_read(&bvt_overload_count)))
		return false;
	/* The count before the mask: pairs with bvt_update_masks(). */
	smp_rmb();
	for_each_cpu(cpu, &bvt_overload_mask) {
		if (cpu == this_cpu)
			continue;
		src = cpu_rq(cpu);
		if (READ_ONCE(src->bvt.nr_running) < 2)
			continue;
		double_lock_balance(rq, src);
		/* Both may have changed while rq->lock was dropped. */
		if (!rq->bvt.nr_running && src->bvt.nr_running > 1) {
			p = bvt_movable_task(src, this_cpu);
			if (p) {
				bvt_move_task(p, src, rq, BVT_MIGRATE_PULL);
				pulled = true;
			}
		}
		double_unlock_balance(rq, src);
		if (pulled || rq->bvt.nr_running)
			break;
	}
	return pulled;
}

/*
 * Called before a pick when the task put was BVT or above: if no BVT
 * thread would run here, pull one, so that no CPU idles or runs fair
 * tasks while a BVT thread waits elsewhere.
 */
static bool bvt_above_runnable(struct rq *rq)
{
	return sched_stop_runnable(rq) || sched_dl_runnable(rq) ||
	       sched_rt_runnable(rq);
}

static int balance_bvt(struct rq *rq, struct task_struct *prev,
		       struct rq_flags *rf)
{
	if (!rq->bvt.nr_running && !bvt_above_runnable(rq) &&
	    cpu_active(cpu_of(rq))) {
		rq_unpin_lock(rq, rf);
		bvt_pull(rq);
		rq_repin_lock(rq, rf);
	}
	/* The lock may have been dropped: look again. */
	return bvt_above_runnable(rq) || rq->bvt.nr_running;
}
#else
static void bvt_queue_push(struct rq *rq) { }
static void bvt_account_queued(struct rq *rq, struct sched_bvt_entity *bt,
			       int delta)
{
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
	.rq_online		= bvt_plan_unpark,
	.rq_offline		= bvt_plan_park,
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

static void init_bvt_se(struct bvt_entity *se)
{
	RB_CLEAR_NODE(&se->run_node);
	se->on_rq = 0;
	se->avt = 0;
	se->vt_relative = 1;
	se->warped = 0;
	se->warp = 0;
	se->lv = NULL;
	se->is_level = 0;
	se->pbs = NULL;
}

/*
 * A task's scheduling state starts afresh at fork, at the SVT of whatever
 * level it joins; its parameters are inherited, but not a place in the
 * reserved-effort level (that takes an admission of its own) nor in a
 * cooperation domain (that takes a coop_poll() of its own).
 */
void init_bvt_entity(struct sched_bvt_entity *bt)
{
	init_bvt_se(&bt->se);
	bt->warp_ended = 0;
	bt->re_weight = 0;
	bt->sig_warp = 0;
	bt->params.flags &= ~SCHED_BVT_FLAG_RESERVED;
	bt->pi_boosted = 0;
	/* Neither a reservation nor a constraint is inherited. */
	bt->in_plan = NULL;
	bt->coop = NULL;
	RB_CLEAR_NODE(&bt->warp_node);
}

static void init_bvt_level(struct bvt_level *lv, struct bvt_level *above,
			   const struct bvt_level_ops *ops)
{
	memset(lv, 0, sizeof(*lv));
	init_bvt_se(&lv->se);
	lv->ops = ops;
	lv->timeline = RB_ROOT_CACHED;
	lv->se.is_level = 1;
	lv->se.pbs = &lv->pbs_state;
	lv->se.lv = above;
	lv->se.weight = BVT_WEIGHT_UNIT;
}

void init_bvt_rq(struct bvt_rq *bvt_rq)
{
	struct rq *rq = container_of(bvt_rq, struct rq, bvt);

	init_bvt_level(&bvt_rq->root, NULL, &bvt_timeline_ops);
	init_bvt_level(&bvt_rq->be, &bvt_rq->root, &bvt_timeline_ops);
	init_bvt_coop_domain(&bvt_rq->coop, &bvt_rq->be);
	bvt_rq->root.rq = rq;
	bvt_rq->be.rq = rq;
	bvt_rq->coop.lv.rq = rq;
	bvt_be_apply(&bvt_rq->be);
	bvt_rq->nr_running = 0;
	bvt_rq->load = 0;
	bvt_rq->curr_lag = 0;
	hrtimer_init(&bvt_rq->enforce_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	bvt_rq->enforce_timer.function = bvt_enforce_timer_fn;
	bvt_rq->warp_waiting = RB_ROOT_CACHED;
	hrtimer_init(&bvt_rq->warp_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	bvt_rq->warp_timer.function = bvt_warp_timer_fn;
	init_bvt_plan_level(&bvt_rq->pl, rq);
	init_bvt_ext(bvt_rq);
#ifdef CONFIG_SMP
	INIT_CSD(&bvt_rq->enforce_csd, bvt_enforce_csd_fn,
		 container_of(bvt_rq, struct rq, bvt));
#endif
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

static inline bool bvt_reserved_attr(const struct sched_attr *attr)
{
	return attr->sched_bvt_flags & SCHED_BVT_FLAG_RESERVED;
}

static bool bvt_params_valid(const struct sched_bvt_params *params)
{
	u64 limit = params->warp_limit;

	return params->weight <= SCHED_BVT_WEIGHT_MAX &&
	       !(params->flags & ~SCHED_BVT_FLAGS_ALL) &&
	       params->warp >= 0 && params->warp <= SCHED_BVT_WARP_MAX &&
	       (!limit || (limit >= SCHED_BVT_WARP_LIMIT_MIN &&
			   limit <= SCHED_BVT_TIME_MAX)) &&
	       params->unwarp <= SCHED_BVT_TIME_MAX &&
	       (!bvt_reserved(params) || params->weight);
}

/* How long it may run warped; no limit is the longest. */
static inline u64 bvt_params_limit(const struct sched_bvt_params *params)
{
	return params->warp_limit ?: U64_MAX;
}

/*
 * Does going from @old (at weight @old_weight) to @new raise a thread's
 * claim on the CPU beyond what it may take unprivileged, a weight of
 * @weight_cap?  As with nice, raising it takes CAP_SYS_NICE and giving
 * some of it up never does: a weight above @weight_cap and above the
 * current one, more warp, or longer or more frequent warping, and
 * anything in the reserved-effort level.  W counts whether or not
 * SCHED_BVT_FLAG_WARP is set, as an SA_BVT_WARP handler runs with it:
 * the flag alone is the thread's own switch.
 */
static bool bvt_params_raise(const struct sched_bvt_params *old, u32 old_weight,
			     const struct sched_bvt_params *new, u32 weight_cap)
{
	if (bvt_reserved(new))
		return true;
	if (new->weight > weight_cap && new->weight > old_weight)
		return true;
	if (!new->warp)
		return false;
	return new->warp > old->warp ||
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

/*
 * The weight of the strongest nice value @p may set without CAP_SYS_NICE:
 * its own, or what RLIMIT_NICE allows, as is_nice_reduction() decides.
 */
static u32 bvt_weight_cap(struct task_struct *p)
{
	/* RLIMIT_NICE r allows nice 20 - r: 0 none, 40 and more any. */
	unsigned long rlim = min(task_rlimit(p, RLIMIT_NICE), 40UL);
	long nice = min_t(long, task_nice(p), rlimit_to_nice(rlim));

	return sched_prio_to_weight[nice - MIN_NICE];
}

/*
 * For a caller without CAP_SYS_NICE: do @attr's BVT parameters ask for
 * more than @p has or RLIMIT_NICE allows?  Entering the class at all is
 * checked by the caller, as for SCHED_FIFO: it takes RLIMIT_RTPRIO.
 */
bool bvt_attr_needs_priv(struct task_struct *p, const struct sched_attr *attr)
{
	struct sched_bvt_params old = { }, new;
	u32 old_weight = bvt_nice_weight(p);

	if (bvt_policy(p->policy)) {
		old = p->bvt.params;
		old_weight = bvt_own_weight(p);
	}
	bvt_params_from_attr(&new, attr);
	return bvt_params_raise(&old, old_weight, &new, bvt_weight_cap(p));
}

/*
 * @p's parameters, or those it runs with, changed while it was dequeued: a
 * warp it no longer wants ends now, one it runs goes on with the new W,
 * one it wants starts on enqueue, and bvt_attach() moves it to its new
 * level.
 */
static void bvt_params_changed(struct task_struct *p)
{
	struct sched_bvt_entity *bt = &p->bvt;

	if (p->sched_class != &bvt_sched_class)
		return;
	if (!bvt_wants_warp(bt))
		bvt_forget_warp(task_rq(p), p);
	else if (bt->se.warped)
		bt->se.warp = bvt_run(bt)->warp;
}

void __setparam_bvt(struct task_struct *p, const struct sched_attr *attr)
{
	bvt_params_from_attr(&p->bvt.params, attr);
	bvt_params_changed(p);
}

static void bvt_params_to_attr(struct sched_attr *attr,
			       const struct sched_bvt_params *params)
{
	attr->sched_bvt_weight = params->weight;
	attr->sched_bvt_flags = params->flags;
	attr->sched_bvt_warp = params->warp;
	attr->sched_bvt_warp_limit = params->warp_limit;
	attr->sched_bvt_unwarp = params->unwarp;
}

void __getparam_bvt(struct task_struct *p, struct sched_attr *attr)
{
	bvt_params_to_attr(attr, &p->bvt.params);
}

/*
 * A call that carries no BVT parameters, sched_setparam(2),
 * sched_setscheduler(2) or sched_setattr(2) with a struct shorter than
 * SCHED_ATTR_SIZE_VER2 (even one that ends inside the tail: what it has of
 * the tail is ignored), keeps those of a thread already in SCHED_BVT, as
 * SCHED_FLAG_KEEP_PARAMS would; a thread entering the class with one gets
 * weight from nice and no warp, whatever its policy was.
 */
void bvt_keep_params(struct task_struct *p, struct sched_attr *attr)
{
	static const struct sched_bvt_params none;
	int policy = attr->sched_policy;

	/* SETPARAM_POLICY (syscalls.c), the only negative one: no change. */
	if (policy < 0)
		policy = p->policy;
	if (bvt_policy(policy) && task_has_bvt_policy(p))
		__getparam_bvt(p, attr);
	else
		bvt_params_to_attr(attr, &none);
}

/*
 * Priority inheritance.  A thread holding an rt_mutex (a PI futex) that a
 * BVT thread waits for runs in SCHED_BVT until it lets go, as one that a
 * deadline thread waits for runs with the waiter's deadline parameters:
 * with the stronger of each of its own parameters, if it is a BVT thread,
 * and those its top waiter runs with: the larger weight, the larger warp
 * with that warp's L and U, and the reserved-effort level if either runs
 * there.  Its A stays its own, charged at the weight it runs with.  RT and
 * deadline waiters and owners come first, as ever: BVT ones only boost an
 * owner below them, and wait for an rt_mutex behind them and ahead of the
 * rest (see __waiter_prio()).
 */
bool bvt_task(struct task_struct *p)
{
	return READ_ONCE(p->sched_class) == &bvt_sched_class;
}

/*
 * The thread whose parameters a task at effective priority @prio, whose
 * top waiter is @pi_task, inherits; NULL if none.  @pi_task is blocked
 * and cannot go away (see rt_mutex_setprio()).
 */
struct task_struct *bvt_pi_donor(struct task_struct *pi_task, int prio)
{
	if (!pi_task || rt_or_dl_prio(prio) || !bvt_task(pi_task))
		return NULL;
	return pi_task;
}

/* Does @p run with parameters it inherits? */
bool bvt_pi_boosted(struct task_struct *p)
{
	return READ_ONCE(p->bvt.pi_boosted);
}

/*
 * Where @p waits for an rt_mutex among BVT waiters, lowest first: reserved
 * effort first, then the larger warp, then the larger weight, the order
 * of bvt_pi_merge(), so that the owner inherits from the strongest.
 * Weights are below 2^17, warps below 2^24 us.
 */
u64 bvt_pi_key(struct task_struct *p)
{
	const struct sched_bvt_params *run = bvt_run(&p->bvt);
	u64 warp = 0;

	if (run->flags & SCHED_BVT_FLAG_WARP)
		warp = div_u64(run->warp, NSEC_PER_USEC);
	return ~((u64)bvt_reserved(run) << 41 | warp << 17 |
		 (run->weight ?: bvt_nice_weight(p)));
}

static void bvt_pi_merge(struct sched_bvt_params *pi,
			 const struct sched_bvt_params *own, u32 own_weight,
			 const struct sched_bvt_params *donor, u32 donor_weight)
{
	s64 own_warp = (own->flags & SCHED_BVT_FLAG_WARP) ? own->warp : 0;

	*pi = *own;
	pi->weight = max(own_weight, donor_weight);
	pi->flags |= donor->flags & SCHED_BVT_FLAG_RESERVED;
	if ((donor->flags & SCHED_BVT_FLAG_WARP) && donor->warp > own_warp) {
		pi->flags |= SCHED_BVT_FLAG_WARP;
		pi->warp = donor->warp;
		pi->warp_limit = donor->warp_limit;
		pi->unwarp = donor->unwarp;
	}
}

/*
 * Let @p, dequeued and put, run with its own parameters merged with those
 * of @donor, or with its own alone if @donor is NULL.  Called with @p's
 * pi_lock and rq lock held, before it gets its new class.  A donor's
 * parameters may change meanwhile: each field is read whole (the class
 * is 64-bit only), and its sched_setattr() walks the PI chain again,
 * which merges them anew (see bvt_pi_key()).
 */
void bvt_pi_set(struct task_struct *p, struct task_struct *donor)
{
	static const struct sched_bvt_params none;
	struct sched_bvt_entity *bt = &p->bvt;
	const struct sched_bvt_params *own = &none;
	u32 own_weight = 0;

	lockdep_assert_held(&p->pi_lock);
	lockdep_assert_rq_held(task_rq(p));
	if (!donor) {
		if (!bt->pi_boosted)
			return;
		WRITE_ONCE(bt->pi_boosted, 0);
	} else {
		if (task_has_bvt_policy(p)) {
			own = &bt->params;
			own_weight = bvt_own_weight(p);
		}
		bvt_pi_merge(&bt->pi_params, own, own_weight,
			     bvt_run(&donor->bvt), bvt_run_weight(&donor->bvt));
		WRITE_ONCE(bt->pi_boosted, 1);
		/* One that never entered the class has no PBS session yet. */
		bvt_pbs_boosted(p);
	}
	bvt_params_changed(p);
}

/*
 * Admission to the reserved-effort level.  Its threads' weights add up
 * against the best-effort level's: if they all ran on one CPU, they would
 * hold total / (total + best-effort weight) of it, and that may not pass
 * kernel.sched_bvt_re_share_pct.  Weights are counted as admitted; a
 * reserved-effort thread has one of its own (nice does not change it).
 */
static DEFINE_RAW_SPINLOCK(bvt_re_lock);
static unsigned long bvt_re_total;	/* kernel.sched_bvt_re_admitted */

static bool bvt_re_fits(u64 total, u32 be_weight, unsigned int pct)
{
	return total * 100 <= (u64)pct * (total + be_weight);
}

/*
 * Take or give back @p's reservation for the policy and parameters it is
 * about to get: -EBUSY if it does not fit.  Called with @p's rq locked,
 * after every other check of sched_setattr().
 */
int bvt_admit(struct task_struct *p, int policy, const struct sched_attr *attr)
{
	u32 old = p->bvt.re_weight, new = 0;
	u64 total;

	lockdep_assert_rq_held(task_rq(p));
	/* SCHED_FLAG_KEEP_PARAMS keeps the policy too: nothing changes. */
	if (attr->sched_flags & SCHED_FLAG_KEEP_PARAMS)
		return 0;
	/*
	 * Leaving the class ends the CPU reservation and QAS set, and the
	 * guarantee of a constraint (bvt_rsv.c), whatever parameters it keeps.
	 */
	if (!bvt_policy(policy))
		bvt_plan_leave(p);
	if (bvt_policy(policy) && bvt_reserved_attr(attr))
		new = attr->sched_bvt_weight;
	if (new == old)
		return 0;
	/*
	 * task_dead_bvt() gives the weight back once, after the last switch
	 * of an exiting task; one admitted after that would never be.  The
	 * rq lock orders this test against that switch.
	 */
	lockdep_assert_rq_held(task_rq(p));
	if (new > old && (p->flags & PF_EXITING))
		return -ESRCH;

	guard(raw_spinlock)(&bvt_re_lock);
	total = bvt_re_total - old + new;
	if (new > old &&
	    !bvt_re_fits(total, READ_ONCE(sysctl_sched_bvt_be_weight),
			 READ_ONCE(sysctl_sched_bvt_re_share_pct)))
		return -EBUSY;
	bvt_re_total = total;
	p->bvt.re_weight = new;
	return 0;
}

static void bvt_re_release(struct task_struct *p)
{
	guard(raw_spinlock_irqsave)(&bvt_re_lock);
	bvt_re_total -= p->bvt.re_weight;
	p->bvt.re_weight = 0;
}

/*
 * SCHED_RESET_ON_FORK: the child of a BVT thread starts in SCHED_NORMAL,
 * as that of an RT or deadline one does, at the nice value sched_fork()
 * chose (its parent's, or 0 if that was negative).
 */
void bvt_reset_on_fork(struct task_struct *p)
{
	if (!bvt_policy(p->policy))
		return;
	p->policy = SCHED_NORMAL;
	memset(&p->bvt.params, 0, sizeof(p->bvt.params));
}

static unsigned int bvt_allowance_min = 100 * NSEC_PER_USEC;
static unsigned int bvt_allowance_max = 100 * NSEC_PER_MSEC;
static unsigned int bvt_time_max = NSEC_PER_SEC;
static unsigned int bvt_weight_min = SCHED_BVT_WEIGHT_MIN;
static unsigned int bvt_weight_max = SCHED_BVT_WEIGHT_MAX;
static unsigned int bvt_pct_max = 99;

#define BVT_SYSCTL_HANDLER(name, min, max, handler)		\
	{							\
		.procname	= #name,			\
		.data		= &sysctl_##name,		\
		.maxlen		= sizeof(unsigned int),		\
		.mode		= 0644,				\
		.proc_handler	= handler,			\
		.extra1		= (min),			\
		.extra2		= (max),			\
	}

#define BVT_SYSCTL(name, min, max)				\
	BVT_SYSCTL_HANDLER(name, min, max, proc_douintvec_minmax)

/*
 * A change of the best-effort level's sysctls reaches that level on every
 * CPU at once.  Each CPU's level reads them all when it is updated, so the
 * last writer's walk leaves every CPU with the last values written.
 */
static void bvt_be_apply_all(void)
{
	struct rq_flags rf;
	struct rq *rq;
	int cpu;

	for_each_possible_cpu(cpu) {
		rq = cpu_rq(cpu);
		rq_lock_irqsave(rq, &rf);
		update_rq_clock(rq);
		/* What ran so far is charged at the old weight. */
		update_curr_bvt(rq);
		bvt_be_apply(&rq->bvt.be);
		/* A new warp may change who runs. */
		if (rq->curr->sched_class == &bvt_sched_class)
			resched_curr(rq);
		rq_unlock_irqrestore(rq, &rf);
	}
}

static int bvt_be_sysctl_handler(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret;

	ret = proc_douintvec_minmax(table, write, buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	bvt_be_apply_all();
	return 0;
}

#define BVT_SYSCTL_BE(name, min, max)				\
	BVT_SYSCTL_HANDLER(name, min, max, bvt_be_sysctl_handler)

/*
 * Tunables are sysctls, not debugfs files: they are the system's policy
 * (how much the reserved-effort level may take, how the best-effort level
 * competes with it), to be set at boot from sysctl.conf on kernels without
 * debugfs.  A change takes effect at once: most are read at every use, the
 * best-effort level's are written into the level of every CPU.
 */
static struct ctl_table bvt_sysctls[] = {
	BVT_SYSCTL(sched_bvt_allowance_ns, &bvt_allowance_min,
		   &bvt_allowance_max),
	BVT_SYSCTL(sched_bvt_wakeup_granularity_ns, SYSCTL_ZERO,
		   &bvt_allowance_max),
	BVT_SYSCTL(sched_bvt_mcu_ns, SYSCTL_ZERO, &bvt_allowance_max),
	BVT_SYSCTL(sched_bvt_migration_penalty_ns, SYSCTL_ZERO, &bvt_time_max),
	BVT_SYSCTL_BE(sched_bvt_be_weight, &bvt_weight_min, &bvt_weight_max),
	BVT_SYSCTL_BE(sched_bvt_be_warp_ns, SYSCTL_ZERO, &bvt_time_max),
	BVT_SYSCTL_BE(sched_bvt_be_threshold_ns, SYSCTL_ZERO, &bvt_time_max),
	BVT_SYSCTL_BE(sched_bvt_be_direct, SYSCTL_ZERO, SYSCTL_ONE),
	BVT_SYSCTL(sched_bvt_re_share_pct, SYSCTL_ZERO, &bvt_pct_max),
	{
		/* read only: the weight admitted to the reserved-effort level */
		.procname	= "sched_bvt_re_admitted",
		.data		= &bvt_re_total,
		.maxlen		= sizeof(bvt_re_total),
		.mode		= 0444,
		.proc_handler	= proc_doulongvec_minmax,
	},
};

static int __init sched_bvt_sysctl_init(void)
{
	register_sysctl_init("kernel", bvt_sysctls);
	return 0;
}
late_initcall(sched_bvt_sysctl_init);

/* A /proc/<pid>/sched line: @ns as ms with six places. */
static inline void bvt_seq_ms(struct seq_file *m, const char *name, u64 ns)
{
	u32 rem;
	u64 ms = div_u64_rem(ns, NSEC_PER_MSEC, &rem);

	seq_printf(m, "%-45s:%14llu.%06u\n", name, ms, rem);
}
