// SPDX-License-Identifier: GPL-2.0
/*
 * Cooperative polling: coop_poll(2) and the cooperation domains of
 * SCHED_BVT.
 *
 * A. Sinha, C. Krasic, A. Goel, "Achieving predictable timing and fairness
 * through cooperative polling" (UBC, 2007).
 *
 * Time-sensitive threads (players, audio, games) cooperate through the
 * kernel: each gives its next deadline and its most important best-effort
 * event, learns the earliest deadline and the most important event of the
 * others, and yields, by calling coop_poll() again, when one of those
 * comes.  Informed switches replace blind time slicing.
 *
 * The cooperating threads of a CPU form its cooperation domain, a level in
 * the best-effort level with one virtual time for all its members and, as
 * its weight, the sum of its runnable members' weights: together they get
 * what they would get as best-effort threads, and the fair share above
 * them holds.  Inside the domain there is no fair sharing: the member to
 * run is the one with the earliest expired deadline, else the one with the
 * most important event, else the one with the earliest deadline (the
 * talk's choose_next_coop_task()).  A member that gave a deadline and no
 * event sleeps until the deadline.  Members do not preempt each other, and
 * the allowance C does not switch between them: they switch when they
 * call coop_poll().
 *
 * SMP: a domain is per CPU, and a member cooperates with the members of
 * its CPU, the threads it shares a CPU with.  Members stay on their CPU:
 * wake-up placement keeps them there while their affinity allows it, and
 * push and pull do not move them.  One that moves anyway (affinity,
 * hotplug) joins the domain of its new CPU with its events.
 *
 * Built with bvt.c by build_bvt.c, under CONFIG_SCHED_BVT_COOP.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>

/*
 * The longest a cooperation domain's member may run before coop_poll(2)
 * is to be called again, whatever the others' deadlines: the end of the
 * domain's turn that it reports.
 */
static unsigned int sysctl_sched_bvt_coop_period_ns = 10 * NSEC_PER_MSEC;

/* The shortest slice a member gets, whatever it is told to yield by. */
static unsigned int sysctl_sched_bvt_coop_min_slice_ns = NSEC_PER_MSEC;

/* How long a member that overran its slice is a best-effort thread. */
static unsigned int sysctl_sched_bvt_coop_penalty_ns = 100 * NSEC_PER_MSEC;

#define BVT_COOP_IN_FLAGS	(SCHED_BVT_COOP_DEADLINE | SCHED_BVT_COOP_EVENT)

static inline struct bvt_coop_domain *bvt_coop_of(struct bvt_level *lv)
{
	return container_of(lv, struct bvt_coop_domain, lv);
}

/* A member's state: it has one, being in a domain. */
static inline struct sched_bvt_coop_state *
bvt_coop_state(struct bvt_entity *se)
{
	return bvt_se_thread(se)->coop;
}

static inline bool bvt_coop_has_deadline(const struct sched_bvt_coop_state *cs)
{
	return cs->flags & SCHED_BVT_COOP_DEADLINE;
}

static inline bool bvt_coop_has_event(const struct sched_bvt_coop_state *cs)
{
	return cs->flags & SCHED_BVT_COOP_EVENT;
}

/* Deadlines are CLOCK_MONOTONIC ns; this clock may be read under rq->lock. */
static inline u64 bvt_coop_now(void)
{
	return ktime_get_mono_fast_ns();
}

static inline bool bvt_coop_dl_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct sched_bvt_coop_state, dl_node)->deadline <
	       rb_entry(b, struct sched_bvt_coop_state, dl_node)->deadline;
}

static inline bool bvt_coop_asleep_less(struct rb_node *a,
					const struct rb_node *b)
{
	return rb_entry(a, struct sched_bvt_coop_state, asleep_node)->deadline <
	       rb_entry(b, struct sched_bvt_coop_state, asleep_node)->deadline;
}

/*
 * A member with a deadline that stops being runnable joins the domain's
 * list of those asleep in coop_poll() or of those blocked elsewhere, and
 * leaves it when it runs again or leaves the domain.  Under the domain's
 * lock, inside the rq lock or (bvt_coop_detach()) @cs's pi_lock.
 */
static inline struct rb_root_cached *
bvt_coop_asleep_in(struct bvt_coop_domain *dom,
		   const struct sched_bvt_coop_state *cs)
{
	return cs->asleep_waiting ? &dom->waiting : &dom->blocked;
}

static void bvt_coop_asleep_add(struct bvt_coop_domain *dom,
				struct sched_bvt_coop_state *cs)
{
	guard(raw_spinlock)(&dom->lock);
	cs->asleep_waiting = READ_ONCE(cs->waiting);
	rb_add_cached(&cs->asleep_node, bvt_coop_asleep_in(dom, cs),
		      bvt_coop_asleep_less);
}

static void __bvt_coop_asleep_del(struct bvt_coop_domain *dom,
				  struct sched_bvt_coop_state *cs)
{
	lockdep_assert_held(&dom->lock);
	if (RB_EMPTY_NODE(&cs->asleep_node))
		return;
	rb_erase_cached(&cs->asleep_node, bvt_coop_asleep_in(dom, cs));
	RB_CLEAR_NODE(&cs->asleep_node);
}

static inline bool bvt_coop_ev_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct sched_bvt_coop_state, ev_node)->priority <
	       rb_entry(b, struct sched_bvt_coop_state, ev_node)->priority;
}

/*
 * The domain's queues of deadlines and events hold its runnable members,
 * the running one too: a member's place there depends on its events, not
 * on whether it runs.  Its timeline, as any level's, holds those that do
 * not run, by virtual time: what each member ran is charged to it too,
 * and the least A of the others is what bvt_coop_over_share() holds a
 * member to.
 */
static void bvt_coop_enqueue(struct bvt_level *lv, struct bvt_entity *se,
			     int flags)
{
	struct bvt_coop_domain *dom = bvt_coop_of(lv);
	struct sched_bvt_coop_state *cs = bvt_coop_state(se);

	if (bvt_coop_has_deadline(cs)) {
		rb_add_cached(&cs->dl_node, &dom->deadlines, bvt_coop_dl_less);
		/*
		 * Only a dequeue, under the rq lock held here, adds it: seen
		 * off the lists, it stays off.
		 */
		if (!RB_EMPTY_NODE(&cs->asleep_node)) {
			guard(raw_spinlock)(&dom->lock);
			__bvt_coop_asleep_del(dom, cs);
		}
	}
	if (bvt_coop_has_event(cs))
		rb_add_cached(&cs->ev_node, &dom->events, bvt_coop_ev_less);
	/* Joining neither gains nor loses share: the weights add up. */
	dom->weight += se->weight;
	lv->se.weight = min_t(u64, dom->weight, U32_MAX);
}

static void bvt_coop_dequeue(struct bvt_level *lv, struct bvt_entity *se,
			     int flags)
{
	struct bvt_coop_domain *dom = bvt_coop_of(lv);
	struct sched_bvt_coop_state *cs = bvt_coop_state(se);

	if (!RB_EMPTY_NODE(&cs->dl_node)) {
		rb_erase_cached(&cs->dl_node, &dom->deadlines);
		RB_CLEAR_NODE(&cs->dl_node);
		/* Asleep, it is still reported; moved or leaving, not. */
		if (flags & DEQUEUE_SLEEP)
			bvt_coop_asleep_add(dom, cs);
	}
	if (!RB_EMPTY_NODE(&cs->ev_node)) {
		rb_erase_cached(&cs->ev_node, &dom->events);
		RB_CLEAR_NODE(&cs->ev_node);
	}
	dom->weight -= se->weight;
	/* Charging may follow the last one out: keep a weight to charge. */
	if (dom->weight)
		lv->se.weight = min_t(u64, dom->weight, U32_MAX);
}

/*
 * No member takes over from the running one but by its coop_poll(): not
 * at a tick, not by sched_yield() (that yields the domain's turn).
 */
static bool bvt_coop_expired(struct bvt_level *lv, struct bvt_entity *curr)
{
	return false;
}

static bool bvt_coop_yield_turn(struct bvt_level *lv, struct bvt_entity *curr)
{
	return false;
}

static bool bvt_coop_preempts(const struct bvt_entity *se,
			      const struct bvt_entity *curr, int wake_flags)
{
	return false;
}

static struct bvt_entity *bvt_coop_dl_entity(struct rb_node *node)
{
	struct sched_bvt_coop_state *cs;

	cs = rb_entry(node, struct sched_bvt_coop_state, dl_node);
	return &cs->bt->se;
}

static struct bvt_entity *bvt_coop_ev_entity(struct rb_node *node)
{
	struct sched_bvt_coop_state *cs;

	cs = rb_entry(node, struct sched_bvt_coop_state, ev_node);
	return &cs->bt->se;
}

/*
 * choose_next_coop_task(): the earliest expired deadline, else the most
 * important event, else the earliest deadline.  Every runnable member has
 * a deadline or an event (coop_poll() takes nothing else), so a domain
 * with runnable members always has one to run.  Why, in @reason.
 */
static struct bvt_entity *__bvt_coop_pick(struct bvt_level *lv,
					  enum bvt_coop_reason *reason)
{
	struct bvt_coop_domain *dom = bvt_coop_of(lv);
	struct rb_node *dl = rb_first_cached(&dom->deadlines);
	struct rb_node *ev = rb_first_cached(&dom->events);

	if (dl && rb_entry(dl, struct sched_bvt_coop_state, dl_node)->deadline <=
		  bvt_coop_now()) {
		*reason = BVT_COOP_EXPIRED;
		return bvt_coop_dl_entity(dl);
	}
	if (ev) {
		*reason = BVT_COOP_EVENT;
		return bvt_coop_ev_entity(ev);
	}
	*reason = BVT_COOP_DEADLINE;
	return dl ? bvt_coop_dl_entity(dl) : NULL;
}

/*
 * The domain's pick, traced: every pick, a member's re-pick and a core
 * scheduling sibling's look included.  Only a CPU's pick of its threads
 * calls it; the KUnit cases call __bvt_coop_pick(), their entities not
 * being in tasks.
 */
static struct bvt_entity *bvt_coop_pick(struct bvt_level *lv)
{
	enum bvt_coop_reason reason;
	struct sched_bvt_coop_state *cs;
	struct bvt_entity *se;

	se = __bvt_coop_pick(lv, &reason);
	if (se && trace_sched_bvt_coop_dispatch_enabled()) {
		cs = bvt_coop_state(se);
		trace_sched_bvt_coop_dispatch(bvt_se_task(se), reason, cs->flags,
					      cs->deadline, cs->priority);
	}
	return se;
}

/* A domain does not run warped: its members' warps are not used in it. */
static s64 bvt_coop_warp(struct bvt_level *lv)
{
	return 0;
}

static const struct bvt_level_ops bvt_coop_ops = {
	.queue		= bvt_timeline_add,
	.unqueue	= bvt_timeline_del,
	.pick		= bvt_coop_pick,
	.warp		= bvt_coop_warp,
	.preempts	= bvt_coop_preempts,
	.expired	= bvt_coop_expired,
	.yield		= bvt_coop_yield_turn,
	.enqueue	= bvt_coop_enqueue,
	.dequeue	= bvt_coop_dequeue,
};

bool bvt_is_coop(const struct bvt_level *lv)
{
	return lv->ops == &bvt_coop_ops;
}

void init_bvt_coop_domain(struct bvt_coop_domain *dom,
			  struct bvt_level *above)
{
	init_bvt_level(&dom->lv, above, &bvt_coop_ops);
	dom->deadlines = RB_ROOT_CACHED;
	dom->events = RB_ROOT_CACHED;
	dom->waiting = RB_ROOT_CACHED;
	dom->blocked = RB_ROOT_CACHED;
	dom->weight = 0;
	raw_spin_lock_init(&dom->lock);
}

/*
 * @bt, a member, is attached to @dom, as it is queued in it: reported from
 * then on, runnable or asleep.  Called with its rq locked.
 */
void bvt_coop_attach(struct bvt_coop_domain *dom,
		     struct sched_bvt_entity *bt)
{
	lockdep_assert_rq_held(task_rq(bvt_thread_task(bt)));
	guard(raw_spinlock)(&dom->lock);
	WRITE_ONCE(bt->coop->dom, dom);
}

/*
 * @bt leaves its domain's lists of deadlines: it moves to another CPU
 * (only its pi_lock may be held), or to another level, or leaves.
 */
void bvt_coop_detach(struct sched_bvt_entity *bt)
{
	struct sched_bvt_coop_state *cs = bt->coop;
	struct bvt_coop_domain *dom;

	if (likely(!cs))
		return;
	/* task_dead_bvt() holds no lock: no one else changes it by then. */
	dom = READ_ONCE(cs->dom);
	if (!dom)
		return;
	guard(raw_spinlock_irqsave)(&dom->lock);
	__bvt_coop_asleep_del(dom, cs);
	WRITE_ONCE(cs->dom, NULL);
}

/*
 * @bt stops cooperating, dequeued: it changes policy, exits, or leaves the
 * class.  Its next enqueue puts it in the best-effort level.
 */
void bvt_coop_forget(struct sched_bvt_entity *bt)
{
	struct sched_bvt_coop_state *cs = bt->coop;

	if (likely(!cs))
		return;
	bvt_coop_detach(bt);
	if (cs->member)
		trace_sched_bvt_coop_member(bvt_thread_task(bt), false);
	cs->member = 0;
	cs->flags = 0;
	cs->slice_end = 0;
	cs->policed_until = 0;
}

/*
 * A member cooperates as a best-effort SCHED_BVT thread that is not
 * exiting.  One whose policy changed while it was boosted out of the
 * class, that was made reserved-effort, or that is exiting (a zombie may
 * be given the class again after task_dead_bvt() ran) stops here, as it
 * joins a level.  Called with its rq locked.
 */
void bvt_coop_check_member(struct sched_bvt_entity *bt)
{
	struct task_struct *p = bvt_thread_task(bt);

	lockdep_assert_rq_held(task_rq(p));
	if (p->policy != SCHED_BVT || bvt_reserved(&bt->params) ||
	    (p->flags & PF_EXITING))
		bvt_coop_forget(bt);
}

/*
 * A member that leaves its domain for another level takes the domain's
 * lag, within the bound a class change keeps (bvt_lag_max()): the time
 * the members ran is charged to the domain, not to each of them.
 */
s64 bvt_coop_leave_lag(struct sched_bvt_entity *bt)
{
	s64 lag = bvt_lag(&bt->se.lv->se), max = bvt_lag_max(bt);

	return clamp_t(s64, lag, -max, max);
}

/* What bvt_coop_take() took @p off: its queue, its CPU. */
#define BVT_COOP_QUEUED		0x1
#define BVT_COOP_RUNNING	0x2

/*
 * Take @p off its queue and its CPU, as sched_setattr() does, to change
 * how it cooperates; bvt_coop_put_back() queues it anew, in the level it
 * now belongs to, and lists it anew (bvt_attach()).  Called with @p's rq
 * locked and its clock updated.
 */
static unsigned int bvt_coop_take(struct rq *rq, struct task_struct *p)
{
	unsigned int how = 0;

	if (task_on_rq_queued(p)) {
		dequeue_task(rq, p, DEQUEUE_SAVE | DEQUEUE_NOCLOCK);
		how |= BVT_COOP_QUEUED;
	}
	if (task_current(rq, p)) {
		put_prev_task(rq, p);
		how |= BVT_COOP_RUNNING;
	}
	return how;
}

static void bvt_coop_put_back(struct rq *rq, struct task_struct *p,
			      unsigned int how)
{
	if (how & BVT_COOP_QUEUED)
		enqueue_task(rq, p, ENQUEUE_RESTORE | ENQUEUE_NOCLOCK);
	if (how & BVT_COOP_RUNNING)
		set_next_task(rq, p);
}

/*
 * @p takes @in's events, joining its CPU's domain if it is not a member;
 * with @in NULL it leaves.  Until it is resumed it has no slice.
 */
static void bvt_coop_change(struct rq *rq, struct task_struct *p,
			    const struct sched_bvt_coop *in)
{
	struct sched_bvt_coop_state *cs = p->bvt.coop;
	unsigned int how = bvt_coop_take(rq, p);

	if (cs->member != !!in)
		trace_sched_bvt_coop_member(p, !!in);
	cs->slice_end = 0;
	/* A policed member rejoins by a call after its penalty. */
	if (cs->policed_until && bvt_coop_now() >= cs->policed_until)
		cs->policed_until = 0;
	if (in) {
		if (cs->dom)
			bvt_coop_detach(&p->bvt);
		cs->member = 1;
		cs->flags = in->flags & BVT_COOP_IN_FLAGS;
		cs->deadline = in->deadline;
		cs->priority = in->priority;
	} else {
		cs->member = 0;
		cs->flags = 0;
	}
	bvt_coop_put_back(rq, p, how);
}

/*
 * Policing.  A member is to call coop_poll() again by the time it was
 * told, which is at most the end of the domain's turn; it gets at least
 * sched_bvt_coop_min_slice_ns of CPU time for that.  One that runs past
 * its slice is a best-effort thread for sched_bvt_coop_penalty_ns (0: no
 * penalty), and rejoins its domain by its first coop_poll() after that,
 * with new events and a new slice: not by a wake-up, with the events it
 * overran.  A domain cannot take more than its members' share: its
 * virtual time is charged at their weights.
 */

/* Does @bt run in its domain, with a slice? */
static bool bvt_coop_on_slice(struct sched_bvt_entity *bt)
{
	struct sched_bvt_coop_state *cs = bt->coop;

	return cs->slice_end && cs->dom && bt->se.lv == &cs->dom->lv;
}

/* How much CPU time the running @bt has left of its slice; 0: none. */
static u64 bvt_coop_slice_left(struct sched_bvt_entity *bt)
{
	u64 ran;

	if (!bvt_coop_member(bt) || !bvt_coop_on_slice(bt))
		return 0;
	ran = bvt_thread_task(bt)->se.sum_exec_runtime;
	return bt->coop->slice_end > ran ? bt->coop->slice_end - ran : 1;
}

/*
 * Police the member @p: a best-effort thread for the penalty, or, with no
 * penalty, only counted.  True if it is to leave its domain.
 */
static bool bvt_coop_police(struct task_struct *p)
{
	struct sched_bvt_coop_state *cs = p->bvt.coop;
	u64 penalty = READ_ONCE(sysctl_sched_bvt_coop_penalty_ns);

	trace_sched_bvt_coop_police(p, penalty);
	cs->nr_policed++;
	cs->slice_end = 0;
	if (!penalty)
		return false;
	cs->policed_until = bvt_coop_now() + penalty;
	return true;
}

/* From the enforcement timer: police what runs on @rq if it overran. */
static void bvt_coop_check_slice(struct rq *rq)
{
	struct task_struct *curr = rq->curr;

	if (curr->sched_class != &bvt_sched_class ||
	    !bvt_coop_member(&curr->bvt) || !bvt_coop_on_slice(&curr->bvt) ||
	    curr->se.sum_exec_runtime < curr->bvt.coop->slice_end)
		return;
	if (!bvt_coop_police(curr))
		return;
	bvt_coop_put_back(rq, curr, bvt_coop_take(rq, curr));
	resched_curr(rq);
}

/* A domain this far ahead of an outsider waits for the tick's allowance. */
#define BVT_COOP_CATCH_UP_MAX	NSEC_PER_SEC

/*
 * The slice of a thread outside the domain, the talk's cal_Tslice(): it
 * runs until the later of the earliest deadline in the domain, @wait from
 * now, and the time its E, @e at the level it shares with the domain,
 * where it is charged at @weight, takes to pass the domain's @e_dom: until
 * then the domain's turn has not come, as fair share has it.  0: the
 * domain is due.  A domain behind the outsider may take the CPU before the
 * deadline (by E, as any entity does); this slice only ensures it does by
 * the deadline, not the allowance C after it.
 */
static u64 bvt_coop_tslice(u64 wait, u64 e, u64 e_dom, u32 weight)
{
	u64 ahead, catch_up = 0;

	if (!vt_before(e_dom, e)) {
		ahead = min_t(u64, e_dom - e + 1, BVT_COOP_CATCH_UP_MAX);
		catch_up = mul_u64_u32_div(ahead, weight, BVT_WEIGHT_UNIT) + 1;
	}
	return max(wait, catch_up);
}

/*
 * The slice of @bt, running on @brq's CPU, if it runs outside the CPU's
 * domain and the domain has a member with a deadline that it would run,
 * were it picked at the level it shares with @bt.
 */
static bool bvt_coop_outsider_slice(struct bvt_rq *brq,
				    struct sched_bvt_entity *bt, u64 *left)
{
	struct bvt_coop_domain *dom = &brq->coop;
	const struct bvt_entity *se = &bt->se, *dse = &dom->lv.se;
	const struct bvt_entity *below;
	struct rb_node *node;
	u64 now, deadline;

	if (likely(!dse->on_rq) || se->lv == &dom->lv)
		return false;
	node = rb_first_cached(&dom->deadlines);
	if (!node)
		return false;
	bvt_find_match(&se, &dse);
	for (below = &dom->lv.se; below != dse; below = bvt_parent(below)) {
		if (bvt_pick_entity(below->lv) != below)
			return false;
	}
	now = bvt_coop_now();
	deadline = rb_entry(node, struct sched_bvt_coop_state, dl_node)->deadline;
	*left = bvt_coop_tslice(deadline > now ? deadline - now : 0,
				bvt_evt(se), bvt_evt(dse), se->weight);
	return true;
}

/*
 * From the enforcement timer: if the domain's deadline has come for the
 * outsider that runs on @rq, switch.
 */
static void bvt_coop_check_outsider(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	u64 left;

	if (curr->sched_class == &bvt_sched_class &&
	    bvt_coop_outsider_slice(&rq->bvt, &curr->bvt, &left) && !left)
		resched_curr(rq);
}

/*
 * How long @bt, running on @rq, may go on before the enforcement timer
 * looks at it for its domain: to the end of its slice if it is a member,
 * or of its outsider's slice; 0: no end.  An outsider whose slice has
 * ended and that is already to be switched out has none: the switch arms
 * the timer anew, and if it keeps the CPU after all, the tick's allowance
 * C ends it.
 */
u64 bvt_coop_left(struct rq *rq, struct sched_bvt_entity *bt)
{
	u64 left = bvt_coop_slice_left(bt), outsider;

	if (unlikely(bvt_coop_outsider_slice(&rq->bvt, bt, &outsider)) &&
	    (outsider || !test_tsk_need_resched(bvt_thread_task(bt))))
		left = min_not_zero(left, outsider ?: 1);
	return left;
}

/* The enforcement timer: what runs on @rq overran its slice, either kind. */
void bvt_coop_check(struct rq *rq)
{
	bvt_coop_check_slice(rq);
	bvt_coop_check_outsider(rq);
}

/*
 * Member @p was queued on @rq: if its deadline is now the domain's
 * earliest, it may end the slice of the outsider that runs there sooner.
 */
void bvt_coop_enqueued(struct rq *rq, struct task_struct *p)
{
	struct bvt_coop_domain *dom = &rq->bvt.coop;
	struct task_struct *curr = rq->curr;

	if (rb_first_cached(&dom->deadlines) == &p->bvt.coop->dl_node &&
	    curr->sched_class == &bvt_sched_class &&
	    curr->bvt.se.lv != &dom->lv && !test_tsk_need_resched(curr))
		bvt_enforce_arm(rq, &curr->bvt);
}

static bool bvt_coop_valid(const struct sched_bvt_coop *in)
{
	if (in->flags & ~BVT_COOP_IN_FLAGS || !(in->flags & BVT_COOP_IN_FLAGS))
		return false;
	if ((in->flags & SCHED_BVT_COOP_EVENT) &&
	    in->priority > SCHED_BVT_COOP_PRIO_MAX)
		return false;
	if ((in->flags & SCHED_BVT_COOP_DEADLINE) && in->deadline > KTIME_MAX)
		return false;
	/* What a flag does not give is 0, to be given a meaning later. */
	if (!(in->flags & SCHED_BVT_COOP_DEADLINE) && in->deadline)
		return false;
	if (!(in->flags & SCHED_BVT_COOP_EVENT) && in->priority)
		return false;
	return !in->__reserved;
}

/*
 * Only a best-effort SCHED_BVT thread cooperates, and only while it is in
 * the class: not while an RT or deadline waiter boosts it out of it.
 */
static bool bvt_coop_allowed(struct task_struct *p)
{
	return p->policy == SCHED_BVT && p->sched_class == &bvt_sched_class &&
	       !bvt_reserved(&p->bvt.params);
}

/*
 * A member asleep in coop_poll() until a deadline that has passed, whose
 * timer has not woken it yet (under an emulator timers fire milliseconds
 * late): the earliest such in the domain of the caller's CPU, referenced,
 * for the caller to wake.  The caller's call is an
 * informed switch, and the member's deadline comes first.  Called with
 * the caller's rq locked.
 */
static struct task_struct *bvt_coop_overdue(struct bvt_coop_domain *dom)
{
	struct sched_bvt_coop_state *cs;
	struct rb_node *node;

	guard(raw_spinlock)(&dom->lock);
	node = rb_first_cached(&dom->waiting);
	if (!node)
		return NULL;
	cs = rb_entry(node, struct sched_bvt_coop_state, asleep_node);
	if (cs->deadline > bvt_coop_now())
		return NULL;
	return get_task_struct(bvt_thread_task(cs->bt));
}

/* The first of @root's members, in @node order, other than @self. */
static struct rb_node *bvt_coop_first_other(struct rb_root_cached *root,
					    struct rb_node *self)
{
	struct rb_node *node = rb_first_cached(root);

	return node == self ? rb_next(node) : node;
}

/*
 * Does @bt, a member calling coop_poll() in its domain @dom, keep the
 * others from their turn?  Another member waits runnable past its
 * deadline, and @bt has run more than a turn of the domain
 * (sched_bvt_coop_period_ns, at its weight) ahead of the member that ran
 * least: its expired deadlines or events have bought it more than its
 * share of the domain.  Called with its rq locked, and its run time
 * charged.
 */
static bool bvt_coop_over_share(struct bvt_coop_domain *dom,
				struct sched_bvt_entity *bt, u64 now)
{
	struct rb_node *node, *root = dom->lv.timeline.rb_root.rb_node;
	u64 turn;

	if (bt->se.lv != &dom->lv || !root)
		return false;
	node = bvt_coop_first_other(&dom->deadlines, &bt->coop->dl_node);
	if (!node || rb_entry(node, struct sched_bvt_coop_state,
			      dl_node)->deadline > now)
		return false;
	turn = bvt_scale(READ_ONCE(sysctl_sched_bvt_coop_period_ns),
			 bt->se.weight);
	return vt_before(__node_2_bse(root)->min_avt + turn, bt->se.avt);
}

/*
 * Take @in's events and yield: the domain's pick decides who runs next,
 * which may be the caller.  A caller with a future deadline and no event
 * sleeps until the deadline; a signal that comes first restarts the call.
 */
static int bvt_coop_yield(const struct sched_bvt_coop *in)
{
	struct task_struct *p = current, *overdue = NULL;
	unsigned long switches = p->nvcsw + p->nivcsw;
	struct rq_flags rf;
	int ret = 0;
	bool sleep;
	ktime_t t;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	if (!bvt_coop_allowed(p)) {
		task_rq_unlock(rq, p, &rf);
		return -EINVAL;
	}
	update_rq_clock(rq);
	update_curr_bvt(rq);
	trace_sched_bvt_coop_poll(p, in->flags, in->deadline, in->priority);
	p->bvt.coop->nr_calls++;
	if (bvt_coop_over_share(&rq->bvt.coop, &p->bvt, bvt_coop_now()))
		bvt_coop_police(p);
	bvt_coop_change(rq, p, in);
	/* A member policed out of the domain still calls for its events. */
	if (p->bvt.coop->member)
		overdue = bvt_coop_overdue(&rq->bvt.coop);
	sleep = in->flags == SCHED_BVT_COOP_DEADLINE &&
		in->deadline > bvt_coop_now();
	if (!sleep)
		resched_curr(rq);
	task_rq_unlock(rq, p, &rf);
	if (overdue) {
		/* Runnable past its deadline, it comes first in the pick. */
		wake_up_process(overdue);
		put_task_struct(overdue);
	}

	if (!sleep) {
		schedule();
	} else {
		/* Until the deadline; a signal restarts the call (it is absolute). */
		t = ns_to_ktime(in->deadline);
		/*
		 * Set before the sleep dequeues it, under its rq lock, which
		 * bvt_coop_next_deadline() holds: who sees it off its queue
		 * sees it waiting.
		 */
		WRITE_ONCE(p->bvt.coop->waiting, 1);
		for (;;) {
			set_current_state(TASK_INTERRUPTIBLE);
			if (!schedule_hrtimeout_range_clock(&t, 0, HRTIMER_MODE_ABS,
							    CLOCK_MONOTONIC))
				break;
			/* With SA_RESTART, its handler run, it starts again. */
			if (signal_pending(current)) {
				ret = -ERESTARTSYS;
				break;
			}
			/* Woken for its deadline by another member's call. */
			if (bvt_coop_now() >= in->deadline)
				break;
		}
		WRITE_ONCE(p->bvt.coop->waiting, 0);
	}
	if (p->nvcsw + p->nivcsw != switches)
		p->bvt.coop->nr_yields++;
	return ret;
}

/*
 * The earliest deadline of the members of @dom but @self that is still to
 * be met: of the runnable ones, those asleep in coop_poll() (reported
 * past their deadline too: their timers are about to wake them), and
 * those blocked elsewhere whose deadline is ahead (one blocked past its
 * deadline runs when it wakes, and is not to be yielded to before).
 * Each list is looked at in O(log n) at most, under the domain's lock.
 */
static struct sched_bvt_coop_state *
bvt_coop_next_deadline(struct bvt_coop_domain *dom,
		       struct sched_bvt_coop_state *self, u64 now)
{
	struct sched_bvt_coop_state *best = NULL, *cs;
	struct rb_node *node;

	lockdep_assert_held(&dom->lock);
	node = bvt_coop_first_other(&dom->deadlines, &self->dl_node);
	if (node)
		best = rb_entry(node, struct sched_bvt_coop_state, dl_node);
	node = rb_first_cached(&dom->waiting);
	if (node) {
		cs = rb_entry(node, struct sched_bvt_coop_state, asleep_node);
		if (!best || cs->deadline < best->deadline)
			best = cs;
	}
	/* The leftmost blocked member whose deadline is after @now. */
	for (node = dom->blocked.rb_root.rb_node; node;) {
		cs = rb_entry(node, struct sched_bvt_coop_state, asleep_node);
		if (cs->deadline > now) {
			if (!best || cs->deadline < best->deadline)
				best = cs;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return best;
}

/*
 * The caller runs again.  It is to treat as its own events the earliest
 * deadline of the other members of its domain, or the end of the domain's
 * turn if that comes first, and the most important event of the others:
 * those go to @out.  It has until then, and at least the minimum slice, of
 * CPU time before it is policed.
 */
static void bvt_coop_resume(struct sched_bvt_coop *out)
{
	u64 now = bvt_coop_now(), min_slice, turn_end;
	struct task_struct *p = current;
	struct sched_bvt_coop_state *cs = p->bvt.coop, *other;
	struct bvt_coop_domain *dom;
	struct rb_node *node;
	struct rq_flags rf;
	struct rq *rq;

	turn_end = now + READ_ONCE(sysctl_sched_bvt_coop_period_ns);
	min_slice = READ_ONCE(sysctl_sched_bvt_coop_min_slice_ns);
	out->flags = SCHED_BVT_COOP_DEADLINE | SCHED_BVT_COOP_POLICING;
	out->deadline = turn_end;
	rq = task_rq_lock(p, &rf);
	if (cs->policed_until)
		out->flags |= SCHED_BVT_COOP_POLICED;
	dom = cs->dom;
	if (dom && p->bvt.se.lv == &dom->lv) {
		raw_spin_lock(&dom->lock);
		other = bvt_coop_next_deadline(dom, cs, now);
		if (other && other->deadline < turn_end) {
			out->deadline = other->deadline;
			out->flags &= ~SCHED_BVT_COOP_POLICING;
		}
		raw_spin_unlock(&dom->lock);
		node = bvt_coop_first_other(&dom->events, &cs->ev_node);
		if (node) {
			out->flags |= SCHED_BVT_COOP_EVENT;
			out->priority = rb_entry(node, struct sched_bvt_coop_state,
						 ev_node)->priority;
		}
		update_rq_clock(rq);
		update_curr_bvt(rq);
		cs->slice_end = p->se.sum_exec_runtime +
				max_t(s64, out->deadline - now, min_slice);
		bvt_enforce_arm(rq, &p->bvt);
	}
	task_rq_unlock(rq, p, &rf);
}

/* @p stops cooperating, if it does. */
static void bvt_coop_leave(struct task_struct *p)
{
	struct rq_flags rf;
	struct rq *rq;

	rq = task_rq_lock(p, &rf);
	if (bvt_coop_member(&p->bvt)) {
		update_rq_clock(rq);
		bvt_coop_change(rq, p, NULL);
	}
	task_rq_unlock(rq, p, &rf);
}

/* The new program has not asked to cooperate. */
void bvt_coop_exec(struct task_struct *p)
{
	if (p->bvt.coop && READ_ONCE(p->bvt.coop->member))
		bvt_coop_leave(p);
}

/*
 * A thread's state in the domains comes with its first call, and stays
 * until it is dead, with its counters, after it leaves the domain too (a
 * change of class leaves it, a PI boost out of the class included: see
 * switched_from_bvt()).  Only the thread sets it; those that read it hold
 * its rq lock or pi_lock.
 */
static int bvt_coop_prepare(struct task_struct *p)
{
	struct sched_bvt_coop_state *cs;
	struct rq_flags rf;
	struct rq *rq;

	if (likely(p->bvt.coop))
		return 0;
	/* No state for a caller bvt_coop_yield() is about to refuse. */
	if (!bvt_coop_allowed(p))
		return -EINVAL;
	cs = kzalloc(sizeof(*cs), GFP_KERNEL);
	if (!cs)
		return -ENOMEM;
	cs->bt = &p->bvt;
	RB_CLEAR_NODE(&cs->dl_node);
	RB_CLEAR_NODE(&cs->ev_node);
	RB_CLEAR_NODE(&cs->asleep_node);
	rq = task_rq_lock(p, &rf);
	WRITE_ONCE(p->bvt.coop, cs);
	task_rq_unlock(rq, p, &rf);
	return 0;
}

/*
 * @p is dead: its state goes, once no CPU reads it for /proc/<pid>/sched.
 * task_dead_bvt(), if it died in the class, has detached it.
 */
void bvt_coop_free(struct task_struct *p)
{
	struct sched_bvt_coop_state *cs = p->bvt.coop;

	if (likely(!cs))
		return;
	bvt_coop_forget(&p->bvt);
	WRITE_ONCE(p->bvt.coop, NULL);
	kfree_rcu(cs, rcu);
}

/* /proc/<pid>/sched: 0 for a thread that never called coop_poll(). */
void bvt_coop_proc_show(struct task_struct *p, struct seq_file *m)
{
	const struct sched_bvt_coop_state *cs;
	struct sched_bvt_coop_state none = { };

	guard(rcu)();
	cs = READ_ONCE(p->bvt.coop) ?: &none;
	seq_printf(m, "%-45s:%21u\n", "bvt.coop.member", READ_ONCE(cs->member));
	seq_printf(m, "%-45s:%21lu\n", "bvt.coop.nr_calls",
		   READ_ONCE(cs->nr_calls));
	seq_printf(m, "%-45s:%21lu\n", "bvt.coop.nr_yields",
		   READ_ONCE(cs->nr_yields));
	seq_printf(m, "%-45s:%21lu\n", "bvt.coop.nr_policed",
		   READ_ONCE(cs->nr_policed));
}

/* Read a struct sched_bvt_coop of any size, as sched_copy_attr() does. */
static int bvt_coop_copy_in(const struct sched_bvt_coop __user *uin,
			    struct sched_bvt_coop *in)
{
	u32 size;
	int ret;

	if (get_user(size, &uin->size))
		return -EFAULT;
	if (size < SCHED_BVT_COOP_SIZE_VER0)
		return -EINVAL;
	if (size > PAGE_SIZE)
		return -E2BIG;
	ret = copy_struct_from_user(in, sizeof(*in), uin, size);
	if (ret)
		return ret;
	return bvt_coop_valid(in) ? 0 : -EINVAL;
}

/* Write @out as far as the caller's struct, of @usize bytes, goes. */
static int bvt_coop_copy_out(struct sched_bvt_coop __user *uout,
			     struct sched_bvt_coop *out, u32 usize)
{
	out->size = min_t(u32, usize, sizeof(*out));
	return copy_to_user(uout, out, out->size) ? -EFAULT : 0;
}

SYSCALL_DEFINE3(coop_poll, const struct sched_bvt_coop __user *, uin,
		struct sched_bvt_coop __user *, uout, unsigned int, flags)
{
	struct sched_bvt_coop in, out = { };
	u32 usize = 0;
	int ret;

	if (flags)
		return -EINVAL;
	if (!uin) {
		bvt_coop_leave(current);
		return 0;
	}
	ret = bvt_coop_copy_in(uin, &in);
	if (ret)
		return ret;
	/* A bad @out fails before the caller yields. */
	if (uout) {
		if (get_user(usize, &uout->size))
			return -EFAULT;
		if (usize < SCHED_BVT_COOP_SIZE_VER0)
			return -EINVAL;
	}
	ret = bvt_coop_prepare(current);
	if (ret)
		return ret;
	ret = bvt_coop_yield(&in);
	if (ret == -EINVAL)
		return ret;
	bvt_coop_resume(&out);
	if (ret || !uout)
		return ret;
	return bvt_coop_copy_out(uout, &out, usize);
}

static struct ctl_table bvt_coop_sysctls[] = {
	BVT_SYSCTL(sched_bvt_coop_period_ns, &bvt_allowance_min, &bvt_time_max),
	BVT_SYSCTL(sched_bvt_coop_min_slice_ns, &bvt_allowance_min,
		   &bvt_allowance_max),
	BVT_SYSCTL(sched_bvt_coop_penalty_ns, SYSCTL_ZERO, &bvt_time_max),
};

static int __init sched_bvt_coop_sysctl_init(void)
{
	register_sysctl_init("kernel", bvt_coop_sysctls);
	return 0;
}
late_initcall(sched_bvt_coop_sysctl_init);
