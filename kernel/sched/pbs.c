// SPDX-License-Identifier: GPL-2.0
/*
 * PBS: the log-priority mode of a SCHED_BVT level.
 *
 * H. Feng, V. Misra, D. Rubenstein, "PBS: A Unified Priority-Based CPU
 * Scheduler" (Columbia University, 2006).
 *
 * A level in PBS mode runs, of its runnable entities, the one with the
 * largest log-priority
 *
 *	p = log2(T) - alpha * log2(S)				(Eq. 2)
 *
 * where T is the entity's sojourn time in its current session and S the
 * service it had in it.  One tunable, alpha, moves the policy from FCFS
 * (alpha -> 0) through processor sharing (alpha = 1) to least attained
 * service (alpha -> oo).  The level stays an entity of the BVT tree, with
 * its weight and warp: PBS orders what is inside it, and its threads keep
 * their share against reserved-effort threads, cooperation domains and
 * the other classes.  The best-effort level takes this mode with
 * kernel.sched_bvt_be_mode = pbs.
 *
 *  - Sessions (section 4.1): a wake-up after an inactive period of at
 *    least beta times the mean of the entity's earlier ones starts a new
 *    session (T and S from 0).  beta = inf: one session from the time the
 *    entity entered the level; beta = 0: every wake-up starts one.  "+beta"
 *    counts the inactive time within a session in T, "-beta" leaves it
 *    out.  The first wake-up, with no earlier period, starts one; one whose
 *    inactive period is not known (it slept in another level or class)
 *    starts none and is not counted.
 *  - gamma (Eq. 5): the running entity's bonus, alpha * log2(1 + dT / S),
 *    S taken when it was picked (and at least dT), so that it runs for
 *    about dT (kernel.sched_bvt_pbs_switch_ns) before an equal one takes
 *    over.
 *  - delta (Eq. 6): alpha * log2(kappa) for an entity of weight
 *    1024 * kappa, which is S scaled by 1 / kappa: sched_bvt_weight and
 *    nice keep meaning "kappa times the share".
 *  - epsilon (section 5.3): plus epsilon * (log2(T') - log2(S')), T' and S'
 *    since the entity entered the level (alpha' = 1, beta' = inf), a bonus
 *    for interactive threads (T' >= S': never a malus).
 *
 * Log-priorities are s64 fixed point, Q24 (log2 values are below 64), from
 * the kernel's intlog2(); alpha and epsilon are Q16.  An entity with
 * S = 0 has not run in its session: its priority is infinite (it is run at
 * once, Property 4), and those are ordered by T.
 *
 * An entity arrives when it is created or when the level enters PBS mode.
 * A thread's session spans its changes of class and level, as its lag
 * does: a PI boost (RCU boosting a reader that the level keeps waiting)
 * does not start a new one.  A task that a PI boost brings into the class
 * without its ever entering it gets one as it joins the level (see
 * bvt_pbs_boosted()).
 *
 * The level keeps its timeline, ordered by E: its SVT and its entities'
 * virtual times stay valid, and the mode can change with threads queued.
 * The running entity's A is kept within an allowance of SVT, so that what
 * PBS gave it is no debt when the level goes back to BVT mode.  Wake-up
 * placement, push and pull still compare E across CPUs: under PBS they
 * spread threads by load, not by who would run first.
 *
 * The exact selection looks at every runnable entity of the level, up to
 * BVT_PBS_EXACT_MAX of them; the sampled one (the paper's Algorithm 1, its
 * "O(1) scheduler") at the L = BVT_PBS_TOP best of the last pick (an
 * arrival joins them if it beats the least), M = BVT_PBS_SAMPLE more taken
 * in turn round the timeline and the running one, with T predicted
 * nr * q / 2M ahead, q the switch interval or a tick, when a sampled
 * entity's turn to be looked at comes again (kernel.sched_bvt_pbs_select).
 * A tick asks the same selection whether the running entity's turn is
 * over, and so moves L and the samples on too.
 *
 * Built with bvt.c by build_bvt.c, under CONFIG_SCHED_BVT_PBS.
 */
#include <linux/ctype.h>
#include <linux/int_log.h>
#include <linux/irq_work.h>
#include <linux/seq_file.h>

#define BVT_PBS_Q		24
#define BVT_PBS_ONE		((s64)BIT_ULL(BVT_PBS_Q))
/*
 * Above any finite log-priority: |p| < (64 + 100 * (64 + 10) + 10 * 64)
 * * 2^24 < 2^37 (log2 T, alpha * log2(S / kappa), epsilon's term).
 */
#define BVT_PBS_INF		((s64)BIT_ULL(60))
#define BVT_PBS_BETA_INF	U32_MAX
#define BVT_PBS_BETA_MAX	(1000 * 1000)
/* The sampled selection looks at this many more a pick (the paper's M). */
#define BVT_PBS_SAMPLE		4
/* Beyond this many runnable entities the exact selection samples. */
#define BVT_PBS_EXACT_MAX	64

enum { BVT_PBS_EXACT, BVT_PBS_SAMPLED };
static unsigned int sysctl_sched_bvt_pbs_select = BVT_PBS_EXACT;

/* See bvt_pbs_new_epoch(). */
static u32 bvt_pbs_epoch = 1;

/* A fixed-point tunable, set in thousandths and used in Q16. */
struct bvt_pbs_tunable {
	u32	milli;
	u32	q16;
};

static struct bvt_pbs_tunable bvt_pbs_alpha = { 1000, 1 << 16 };
static struct bvt_pbs_tunable bvt_pbs_epsilon = { 0, 0 };
/* beta in thousandths (BVT_PBS_BETA_INF: oo); excl: "-beta" */
static u32 bvt_pbs_beta = BVT_PBS_BETA_INF;
static u32 bvt_pbs_beta_excl;
static unsigned int sysctl_sched_bvt_pbs_switch_ns = 4 * NSEC_PER_MSEC;

/* log2(@x) in Q24, 0 for x <= 1; within 2^-15 of the real value. */
static u32 bvt_pbs_log2(u64 x)
{
	unsigned int shift;

	if (x <= 1)
		return 0;
	if (x <= U32_MAX)
		return intlog2(x);
	shift = fls64(x) - 32;
	return intlog2(x >> shift) + (shift << BVT_PBS_Q);
}

/* @q16 times @x, a Q24 value. */
static inline s64 bvt_pbs_mul(u32 q16, s64 x)
{
	return (q16 * x) >> 16;
}

/*
 * p (Eq. 2, with delta) of an entity of @weight that has run @s ns of the
 * @t ns of its session.  T < S only comes of clocks of different CPUs.
 */
static s64 bvt_pbs_prio(u64 t, u64 s, u32 alpha, u32 weight)
{
	s64 log2_s;

	t = max(t, s);
	if (!s)
		return BVT_PBS_INF + bvt_pbs_log2(t);
	/* log2(S / kappa), kappa = weight / 1024 */
	log2_s = (s64)bvt_pbs_log2(s) - bvt_pbs_log2(weight) + 10 * BVT_PBS_ONE;
	return bvt_pbs_log2(t) - bvt_pbs_mul(alpha, log2_s);
}

/*
 * Does an inactive period of @slept ns start a new session, after @nr
 * earlier ones of @total ns?  @beta in thousandths.
 */
static bool bvt_pbs_new_session(u64 slept, u64 total, u32 nr, u32 beta)
{
	u64 threshold;

	if (beta == BVT_PBS_BETA_INF)
		return false;
	if (!nr)
		return true;
	/* Past 2^64 / 1000 ns (213 days) the threshold is never reached. */
	if (check_mul_overflow(div_u64(total, nr), (u64)beta, &threshold))
		return false;
	return slept >= div_u64(threshold, 1000);
}

/* ns from @then to @now, 0 if @then is later (another CPU's clock) */
static inline u64 bvt_pbs_since(u64 now, u64 then)
{
	return now > then ? now - then : 0;
}

/* What @se has run, a thread or a level. */
static u64 bvt_pbs_ran(const struct bvt_entity *se)
{
	if (se->is_level)
		return bvt_level_of(se)->ran;
	return container_of(se, struct task_struct, bvt.se)->se.sum_exec_runtime;
}

/*
 * S: what @se has run since @since_ran.  A level's run time goes back by
 * the minimum charging unit's rounding: never below 0.
 */
static inline u64 bvt_pbs_service(const struct bvt_entity *se, u64 since_ran)
{
	return bvt_pbs_since(bvt_pbs_ran(se), since_ran);
}

/*
 * The clock of @lv's CPU, read without asserting that it was updated: a
 * tick or a pick has updated it, a wake-up preemption check may see it a
 * tick old, and T need not be exact to the tick.
 */
static inline u64 bvt_pbs_now(const struct bvt_level *lv)
{
	return READ_ONCE(lv->rq->clock);
}

static void bvt_pbs_start_session(struct bvt_entity *se,
				  struct bvt_pbs_state *ps, u64 now)
{
	ps->session = now;
	ps->session_ran = bvt_pbs_ran(se);
	ps->session_slept = 0;
	ps->nr_sessions++;
}

/* Bumped by every switch to PBS, never 0: state from before is stale. */
static void bvt_pbs_new_epoch(void)
{
	u32 epoch = bvt_pbs_epoch + 1;

	WRITE_ONCE(bvt_pbs_epoch, epoch ?: 1);
}

/* @se arrives: it entered the level, or the level entered PBS mode. */
static void bvt_pbs_enter(struct bvt_entity *se, u64 now)
{
	struct bvt_pbs_state *ps = READ_ONCE(se->pbs);

	if (unlikely(!ps))
		return;
	ps->entered = now;
	ps->entered_ran = bvt_pbs_ran(se);
	ps->slept_at = 0;
	ps->slept_total = 0;
	ps->nr_slept = 0;
	ps->nr_sessions = 0;
	ps->epoch = READ_ONCE(bvt_pbs_epoch);
	bvt_pbs_start_session(se, ps, now);
}

/*
 * @se's session, if it has one in this switch to PBS mode.  A task that
 * PI boosts into the class without ever entering it gets one from its
 * CPU's spare (bvt_pbs_boosted()); one that found none is judged over its
 * life (bvt_pbs_life()).  Run first instead, as one with S = 0 is, it
 * held the CPU from every thread of the level for as long as it held
 * what its waiter waits for.
 */
static inline const struct bvt_pbs_state *
bvt_pbs_session(const struct bvt_entity *se)
{
	const struct bvt_pbs_state *ps = READ_ONCE(se->pbs);

	if (unlikely(!ps) || ps->epoch != READ_ONCE(bvt_pbs_epoch))
		return NULL;
	return ps;
}

/* The sojourn time T at @now in the session @ps */
static u64 bvt_pbs_sojourn(const struct bvt_pbs_state *ps, u64 now)
{
	u64 t = bvt_pbs_since(now, ps->session);

	if (READ_ONCE(bvt_pbs_beta_excl))
		t = t > ps->session_slept ? t - ps->session_slept : 0;
	return t;
}

/*
 * T and S of a task without a session (one exiting, or boosted into the
 * class when its CPU had no spare: see bvt_pbs_boosted()): over its life,
 * as a session of beta = oo begun as it was forked.  (Only a thread lacks
 * a session: a level's is in the level, and entered as the level arrives.)
 */
static void bvt_pbs_life(const struct bvt_entity *se, u64 *t, u64 *s)
{
	const struct task_struct *p = container_of(se, struct task_struct,
						   bvt.se);

	if (SCHED_WARN_ON(se->is_level)) {
		*t = *s = 0;
		return;
	}
	*t = bvt_pbs_since(ktime_get_ns(), p->start_time);
	*s = p->se.sum_exec_runtime;
}

/* @se's log-priority at @now, delta and epsilon included, gamma not. */
static s64 bvt_pbs_entity_prio(const struct bvt_entity *se, u64 now)
{
	const struct bvt_pbs_state *ps = bvt_pbs_session(se);
	u32 alpha = READ_ONCE(bvt_pbs_alpha.q16);
	u32 epsilon = READ_ONCE(bvt_pbs_epsilon.q16);
	u64 t, s, t_in, s_in, ran;
	s64 p, inter;

	if (likely(ps)) {
		ran = bvt_pbs_ran(se);
		t = bvt_pbs_sojourn(ps, now);
		s = bvt_pbs_since(ran, ps->session_ran);
		t_in = bvt_pbs_since(now, ps->entered);
		s_in = bvt_pbs_since(ran, ps->entered_ran);
	} else {
		bvt_pbs_life(se, &t, &s);
		t_in = t;
		s_in = s;
	}
	p = bvt_pbs_prio(t, s, alpha, se->weight);
	if (epsilon) {
		/* T' >= S', as T >= S: a clock skew makes no malus */
		inter = (s64)bvt_pbs_log2(t_in) - bvt_pbs_log2(s_in);
		p += bvt_pbs_mul(epsilon, max_t(s64, inter, 0));
	}
	return p;
}

/*
 * Virtual time orders nothing in a PBS level, but the level keeps it for
 * when it goes back to BVT mode, for migrations and for the SVT the others
 * join at: keep the running @curr's A within an allowance and a tick (at
 * its weight) of SVT, or a thread that ran for minutes under FCFS would
 * be starved that long once the level is back in BVT mode.  @curr is out
 * of the timeline, and SVT, the least A, is not above it.
 */
static void bvt_pbs_bound_lag(struct bvt_level *lv, struct bvt_entity *curr)
{
	u64 ahead = 2 * READ_ONCE(sysctl_sched_bvt_allowance_ns) + TICK_NSEC;
	u64 max = bvt_scale(ahead, curr->weight);

	if (vt_before(lv->svt + max, curr->avt))
		curr->avt = lv->svt + max;
}

/* The running entity's bonus: gamma, or after sched_yield() a malus. */
static inline s64 bvt_pbs_bonus(const struct bvt_level *lv)
{
	return lv->pbs_yielded ? -2 * BVT_PBS_INF : lv->pbs_gamma;
}

/*
 * The exact selection: the runnable entity with the largest p, the
 * running one with its bonus and winning ties.
 */
static struct bvt_entity *bvt_pbs_pick_exact(struct bvt_level *lv, u64 now)
{
	struct bvt_entity *best = lv->curr, *se;
	struct rb_node *node;
	s64 p, best_p = S64_MIN;

	if (best && !best->on_rq)
		best = NULL;
	if (best)
		best_p = bvt_pbs_entity_prio(best, now) + bvt_pbs_bonus(lv);
	for (node = rb_first_cached(&lv->timeline); node; node = rb_next(node)) {
		se = __node_2_bse(node);
		p = bvt_pbs_entity_prio(se, now);
		if (p > best_p) {
			best = se;
			best_p = p;
		}
	}
	return best;
}

static bool bvt_pbs_in_top(const struct bvt_level *lv,
			   const struct bvt_entity *se)
{
	unsigned int i;

	for (i = 0; i < lv->pbs_nr_top; i++) {
		if (lv->pbs_top[i] == se)
			return true;
	}
	return false;
}

/* @se departs: it leaves L. */
static void bvt_pbs_top_del(struct bvt_level *lv, struct bvt_entity *se)
{
	unsigned int i;

	for (i = 0; i < lv->pbs_nr_top; i++) {
		if (lv->pbs_top[i] == se) {
			lv->pbs_top[i] = lv->pbs_top[--lv->pbs_nr_top];
			return;
		}
	}
}

/*
 * @se arrives: it joins L, and if L was full the least of L and @se at
 * @now leaves it (which may be @se).
 */
static void bvt_pbs_top_add(struct bvt_level *lv, struct bvt_entity *se,
			    u64 now)
{
	unsigned int i, least = 0;
	s64 p, least_p;

	if (bvt_pbs_in_top(lv, se))
		return;
	if (lv->pbs_nr_top < BVT_PBS_TOP) {
		lv->pbs_top[lv->pbs_nr_top++] = se;
		return;
	}
	least_p = bvt_pbs_entity_prio(se, now);
	least = BVT_PBS_TOP;
	for (i = 0; i < BVT_PBS_TOP; i++) {
		p = bvt_pbs_entity_prio(lv->pbs_top[i], now);
		if (p < least_p) {
			least_p = p;
			least = i;
		}
	}
	if (least < BVT_PBS_TOP)
		lv->pbs_top[least] = se;
}

/*
 * Take the BVT_PBS_SAMPLE + L - |L| next entities round the timeline from
 * the cursor; *@cursor: where the next sample starts.
 */
static unsigned int bvt_pbs_sample(const struct bvt_level *lv,
				   struct bvt_entity **cand, unsigned int n,
				   struct rb_node **cursor)
{
	unsigned int want = BVT_PBS_SAMPLE + BVT_PBS_TOP - lv->pbs_nr_top;
	unsigned int steps = lv->nr_queued;
	struct rb_node *node, *start;
	struct bvt_entity *se;

	node = lv->pbs_cursor ?: rb_first_cached(&lv->timeline);
	start = node;
	while (node && want && steps--) {
		se = __node_2_bse(node);
		if (!bvt_pbs_in_top(lv, se)) {
			cand[n++] = se;
			want--;
		}
		node = rb_next(node) ?: rb_first_cached(&lv->timeline);
		if (node == start)
			break;
	}
	*cursor = node;
	return n;
}

/*
 * Algorithm 1: of L, the sampled entities and the running one (with its
 * bonus, winning ties), the one with the largest p at T predicted
 * nr * q / 2M ahead, when a sampled entity is looked at again.  Only a
 * selection that takes effect (@advance: the pick is made, or a tick
 * asks) makes the L best of them the next one's L and moves the samples
 * on: a pick that core scheduling or an outsider's slice only looks at
 * leaves them.
 */
static struct bvt_entity *bvt_pbs_select_sampled(struct bvt_level *lv,
						 u64 now, bool advance)
{
	struct bvt_entity *cand[BVT_PBS_TOP + BVT_PBS_SAMPLE + 1];
	struct bvt_entity *curr = lv->curr, *best = NULL;
	s64 p[ARRAY_SIZE(cand)], best_p = S64_MIN;
	u64 q = max_t(u64, READ_ONCE(sysctl_sched_bvt_pbs_switch_ns),
		      TICK_NSEC);
	struct rb_node *cursor;
	unsigned int n, i, j;

	now += lv->nr_queued * q / (2 * BVT_PBS_SAMPLE);
	for (n = 0; n < lv->pbs_nr_top; n++)
		cand[n] = lv->pbs_top[n];
	n = bvt_pbs_sample(lv, cand, n, &cursor);
	if (curr && curr->on_rq && !bvt_pbs_in_top(lv, curr))
		cand[n++] = curr;
	for (i = 0; i < n; i++) {
		p[i] = bvt_pbs_entity_prio(cand[i], now);
		if (cand[i] == curr)
			p[i] += bvt_pbs_bonus(lv);
		if (p[i] > best_p || (p[i] == best_p && cand[i] == curr)) {
			best = cand[i];
			best_p = p[i];
		}
	}
	if (!advance)
		return best;
	lv->pbs_cursor = cursor;
	/* The next L: the BVT_PBS_TOP best, by selection. */
	for (i = 0; i < n && i < BVT_PBS_TOP; i++) {
		for (j = i + 1; j < n; j++) {
			if (p[j] > p[i]) {
				swap(p[i], p[j]);
				swap(cand[i], cand[j]);
			}
		}
		lv->pbs_top[i] = cand[i];
	}
	lv->pbs_nr_top = i;
	return best;
}

static inline bool bvt_pbs_sampling(const struct bvt_level *lv)
{
	return READ_ONCE(sysctl_sched_bvt_pbs_select) == BVT_PBS_SAMPLED ||
	       lv->nr_queued > BVT_PBS_EXACT_MAX;
}

static struct bvt_entity *bvt_pbs_select(struct bvt_level *lv, bool advance)
{
	u64 now = bvt_pbs_now(lv);

	if (bvt_pbs_sampling(lv))
		return bvt_pbs_select_sampled(lv, now, advance);
	return bvt_pbs_pick_exact(lv, now);
}

/*
 * Side-effect free, as every level's pick: a sched_yield()'s malus lasts
 * until another entity is picked (bvt_pbs_picked()).
 */
static struct bvt_entity *bvt_pbs_pick(struct bvt_level *lv)
{
	return bvt_pbs_select(lv, false);
}

/*
 * The running entity's bonus gamma (Eq. 5), for a switch every dT.  The
 * equation is for threads that have run long (S >> dT); a young one's p
 * falls fast as it runs, and one picked for its S = 0 is far from the
 * others': S below dT counts as dT, a bonus of at most alpha.
 */
static void bvt_pbs_picked(struct bvt_level *lv, struct bvt_entity *se)
{
	const struct bvt_pbs_state *ps = bvt_pbs_session(se);
	u64 dt = READ_ONCE(sysctl_sched_bvt_pbs_switch_ns);
	u64 s, t;

	if (likely(ps))
		s = bvt_pbs_service(se, ps->session_ran);
	else
		bvt_pbs_life(se, &t, &s);
	s = max(s, dt);

	lv->pbs_gamma = bvt_pbs_mul(READ_ONCE(bvt_pbs_alpha.q16),
				    (s64)bvt_pbs_log2(s + dt) - bvt_pbs_log2(s));
	lv->pbs_yielded = 0;
	bvt_pbs_bound_lag(lv, se);
	/* The selection that picked it takes effect: the samples move on. */
	if (bvt_pbs_sampling(lv))
		bvt_pbs_select_sampled(lv, bvt_pbs_now(lv), true);
	if (trace_sched_bvt_pbs_pick_enabled() && bvt_entity_is_task(se) &&
	    ps) {
		u64 now = bvt_pbs_now(lv);

		trace_sched_bvt_pbs_pick(bvt_se_task(se),
					 bvt_pbs_sojourn(ps, now),
					 bvt_pbs_service(se, ps->session_ran),
					 bvt_pbs_entity_prio(se, now),
					 ps->nr_sessions);
	}
}

/* Around a switch: sampling goes on past an entity that leaves the queue. */
static void bvt_pbs_unqueue(struct bvt_level *lv, struct bvt_entity *se)
{
	if (lv->pbs_cursor == &se->run_node)
		lv->pbs_cursor = rb_next(&se->run_node);
	bvt_timeline_del(lv, se);
}

/* A waking entity preempts when its p passes the running one's, bonus included. */
static bool bvt_pbs_preempts(const struct bvt_entity *se,
			     const struct bvt_entity *curr, int wake_flags)
{
	u64 now = bvt_pbs_now(curr->lv);

	return bvt_pbs_entity_prio(se, now) >
	       bvt_pbs_entity_prio(curr, now) + bvt_pbs_bonus(curr->lv);
}

static bool bvt_pbs_expired(struct bvt_level *lv, struct bvt_entity *curr)
{
	bvt_pbs_bound_lag(lv, curr);
	return bvt_pbs_select(lv, true) != curr;
}

/* The running entity gives up its place: any other comes first. */
static bool bvt_pbs_yield(struct bvt_level *lv, struct bvt_entity *curr)
{
	if (RB_EMPTY_ROOT(&lv->timeline.rb_root))
		return false;
	lv->pbs_yielded = 1;
	return true;
}

/*
 * Warps order nothing inside the level: it runs warped in the level above
 * while it runs a warped thread, as its threshold or direct mode says.
 */
static s64 bvt_pbs_warp(struct bvt_level *lv)
{
	struct bvt_entity *curr = lv->curr;

	return bvt_head_warp(lv, curr && curr->on_rq ? curr : NULL);
}

/* @se wakes up: after a long enough inactive period, in a new session. */
static void bvt_pbs_woke(struct bvt_entity *se, struct bvt_pbs_state *ps,
			 u64 now)
{
	u64 slept = bvt_pbs_since(now, ps->slept_at);

	ps->slept_at = 0;
	if (bvt_pbs_new_session(slept, ps->slept_total, ps->nr_slept,
				READ_ONCE(bvt_pbs_beta)))
		bvt_pbs_start_session(se, ps, now);
	else
		ps->session_slept += slept;
	ps->slept_total += slept;
	ps->nr_slept++;
}

/* @se arrives or wakes up, its session up to date before it joins L. */
static void bvt_pbs_enqueue(struct bvt_level *lv, struct bvt_entity *se,
			    int flags)
{
	struct bvt_pbs_state *ps = READ_ONCE(se->pbs);
	u64 now = bvt_pbs_now(lv);

	/* None: boosted into the class by PI with no spare left, or exiting. */
	if (likely(ps)) {
		if (ps->epoch != READ_ONCE(bvt_pbs_epoch))
			bvt_pbs_enter(se, now);
		else if ((flags & ENQUEUE_WAKEUP) && ps->slept_at)
			bvt_pbs_woke(se, ps, now);
	}
	if (bvt_pbs_sampling(lv))
		bvt_pbs_top_add(lv, se, now);
}

static void bvt_pbs_dequeue(struct bvt_level *lv, struct bvt_entity *se,
			    int flags)
{
	struct bvt_pbs_state *ps = READ_ONCE(se->pbs);

	bvt_pbs_top_del(lv, se);
	/* An inactive period it has in another level or class is not known. */
	if (likely(ps))
		ps->slept_at = flags & DEQUEUE_SLEEP ? bvt_pbs_now(lv) : 0;
}

static const struct bvt_level_ops bvt_pbs_ops = {
	.queue		= bvt_timeline_add,
	.unqueue	= bvt_pbs_unqueue,
	.pick		= bvt_pbs_pick,
	.warp		= bvt_pbs_warp,
	.preempts	= bvt_pbs_preempts,
	.expired	= bvt_pbs_expired,
	.yield		= bvt_pbs_yield,
	.picked		= bvt_pbs_picked,
	.enqueue	= bvt_pbs_enqueue,
	.dequeue	= bvt_pbs_dequeue,
};

static inline bool bvt_is_pbs(const struct bvt_level *lv)
{
	return lv->ops == &bvt_pbs_ops;
}

/*
 * Put @lv, locked, in @mode.  Its queue stays: entering PBS mode, its
 * runnable entities arrive now; leaving it, they are in E order already.
 */
void bvt_pbs_set_mode(struct bvt_level *lv, unsigned int mode)
{
	const struct bvt_level_ops *ops;
	struct rb_node *node;
	u64 now;

	ops = mode == BVT_MODE_PBS ? &bvt_pbs_ops : &bvt_timeline_ops;
	if (lv->ops == ops)
		return;
	WRITE_ONCE(lv->ops, ops);
	if (mode != BVT_MODE_PBS)
		return;
	lv->pbs_nr_top = 0;
	lv->pbs_cursor = NULL;
	now = bvt_pbs_now(lv);
	for (node = rb_first_cached(&lv->timeline); node; node = rb_next(node))
		bvt_pbs_enter(__node_2_bse(node), now);
	if (lv->curr) {
		bvt_pbs_enter(lv->curr, now);
		bvt_pbs_picked(lv, lv->curr);
	}
}

/*
 * /proc/<pid>/sched of a thread in a PBS level: its session count, T and S
 * in ms, and p, brought up to date as task_sched_runtime() does: on a
 * nohz_full CPU a thread alone may run for seconds without a tick.
 */
void bvt_pbs_proc_show(struct task_struct *p, struct seq_file *m)
{
	struct bvt_entity *se = &p->bvt.se;
	const struct bvt_pbs_state *ps;
	u64 now, t, s, frac;
	struct rq_flags rf;
	struct rq *rq;
	s64 prio;
	u32 nr;

	rq = task_rq_lock(p, &rf);
	ps = bvt_pbs_session(se);
	if (p->sched_class != &bvt_sched_class || !se->lv ||
	    !bvt_is_pbs(se->lv) || !ps) {
		task_rq_unlock(rq, p, &rf);
		return;
	}
	update_rq_clock(rq);
	if (task_current(rq, p))
		update_curr_bvt(rq);
	now = rq_clock(rq);
	nr = ps->nr_sessions;
	t = bvt_pbs_sojourn(ps, now);
	s = bvt_pbs_service(se, ps->session_ran);
	prio = bvt_pbs_entity_prio(se, now);
	task_rq_unlock(rq, p, &rf);

	seq_printf(m, "%-45s:%21u\n", "bvt.pbs.nr_sessions", nr);
	bvt_seq_ms(m, "bvt.pbs.sojourn", t);
	bvt_seq_ms(m, "bvt.pbs.service", s);
	if (prio >= BVT_PBS_INF) {
		seq_printf(m, "%-45s:%21s\n", "bvt.pbs.prio", "inf");
		return;
	}
	frac = ((abs(prio) & (BVT_PBS_ONE - 1)) * 1000000) >> BVT_PBS_Q;
	seq_printf(m, "%-45s:%13s%lld.%06llu\n", "bvt.pbs.prio",
		   prio < 0 ? "-" : "", abs(prio) >> BVT_PBS_Q, frac);
}

/* The sessions of threads (kernel.sched_bvt_pbs_sessions, read only). */
static atomic_long_t bvt_pbs_nr_sessions = ATOMIC_LONG_INIT(0);

/*
 * Link @ps as @p's session, counted; false (uncounted) if @p has one.
 * Counted first, so that a free racing with it never counts below 0.
 */
static bool bvt_pbs_link(struct task_struct *p, struct bvt_pbs_state *ps)
{
	atomic_long_inc(&bvt_pbs_nr_sessions);
	if (!cmpxchg(&p->bvt.se.pbs, NULL, ps))
		return true;
	atomic_long_dec(&bvt_pbs_nr_sessions);
	return false;
}

/*
 * A thread's session lives as long as it does: allocated as it enters the
 * class or is forked in it, where it may sleep, since entering PBS mode
 * takes every thread of the level at once, under its rq lock, and freed
 * by bvt_task_dead().  Those who allocate race with each other
 * (sched_setattr() from two threads) and with the thread's exit: a
 * thread that has begun to exit, a zombie among them, may be past
 * bvt_task_dead() already, and gets none (bvt_pbs_life() judges it).
 * Charged to the caller's memory cgroup: any user may ask for one.
 */
int bvt_pbs_alloc(struct task_struct *p)
{
	struct bvt_pbs_state *ps;

	if (likely(READ_ONCE(p->bvt.se.pbs)) ||
	    (READ_ONCE(p->flags) & PF_EXITING))
		return 0;
	ps = kzalloc(sizeof(*ps), GFP_KERNEL_ACCOUNT);
	if (!ps)
		return -ENOMEM;
	if (!bvt_pbs_link(p, ps)) {
		kfree(ps);
		return 0;
	}
	/*
	 * Linked, then PF_EXITING looked at: the cmpxchg() that linked it is
	 * fully ordered.  The exit sets PF_EXITING (exit_signals()) before
	 * its last __schedule(), whose smp_mb__after_spinlock() orders that
	 * before bvt_task_dead() looks at the link from finish_task_switch():
	 * of the two loads, one sees the other's store.  Seen exiting, the
	 * session is taken back; of this and bvt_task_dead(), the one whose
	 * xchg() gets it frees it.
	 */
	if (READ_ONCE(p->flags) & PF_EXITING)
		bvt_pbs_free(p);
	return 0;
}

/*
 * Free @p's session: @p is dead, or exiting and had it taken back.  The
 * rq lock holders that read it (its level's ops, /proc/<pid>/sched) do so
 * with preemption off, which kfree_rcu() waits for.
 */
void bvt_pbs_free(struct task_struct *p)
{
	struct bvt_pbs_state *ps;

	if (!READ_ONCE(p->bvt.se.pbs))
		return;
	ps = xchg(&p->bvt.se.pbs, NULL);
	if (!ps)
		return;
	atomic_long_dec(&bvt_pbs_nr_sessions);
	kfree_rcu(ps, rcu);
}

/*
 * A task that a PI boost brings into the class without its ever entering
 * it has no session, and none can be allocated where it is boosted, under
 * its pi_lock and rq lock.  Each CPU keeps a spare that a boost takes,
 * and a work item makes a new one: the session starts as the boosted task
 * joins its level, so that it shares the CPU with the level's threads
 * from its boost on (its life, bvt_pbs_life(), would rank an old task
 * that mostly slept far above them for as long as it held the lock).
 */
static DEFINE_PER_CPU(struct bvt_pbs_state *, bvt_pbs_spare);

static void bvt_pbs_refill(struct work_struct *work)
{
	struct bvt_pbs_state *ps;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (READ_ONCE(per_cpu(bvt_pbs_spare, cpu)))
			continue;
		ps = kzalloc(sizeof(*ps), GFP_KERNEL);
		if (!ps)
			return;
		if (cmpxchg(per_cpu_ptr(&bvt_pbs_spare, cpu), NULL, ps))
			kfree(ps);
	}
}

static DECLARE_WORK(bvt_pbs_refill_work, bvt_pbs_refill);

static void bvt_pbs_refill_irq(struct irq_work *work)
{
	schedule_work(&bvt_pbs_refill_work);
}

static DEFINE_IRQ_WORK(bvt_pbs_refill_kick, bvt_pbs_refill_irq);

/* @p, dequeued, is boosted into the class: give it a session if need be. */
void bvt_pbs_boosted(struct task_struct *p)
{
	struct bvt_pbs_state *ps;

	lockdep_assert_irqs_disabled();
	if (likely(READ_ONCE(p->bvt.se.pbs)))
		return;
	ps = this_cpu_xchg(bvt_pbs_spare, NULL);
	if (!ps)
		return;
	if (!bvt_pbs_link(p, ps))
		kfree_rcu(ps, rcu);
	irq_work_queue(&bvt_pbs_refill_kick);
}

static int __init bvt_pbs_spares_init(void)
{
	schedule_work(&bvt_pbs_refill_work);
	return 0;
}
late_initcall(bvt_pbs_spares_init);

static int bvt_pbs_sessions_handler(const struct ctl_table *table, int write,
				    void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table t = *table;
	unsigned long nr = atomic_long_read(&bvt_pbs_nr_sessions);

	t.data = &nr;
	return proc_doulongvec_minmax(&t, write, buffer, lenp, ppos);
}

/*
 * Tunables.  alpha, epsilon and beta are decimals with up to three
 * places ("0.01", "-3", "+inf"); a change applies at the next pick.
 */
static const char * const bvt_modes[] = { "bvt", "pbs" };

static DEFINE_MUTEX(bvt_pbs_sysctl_mutex);

/* A text sysctl of @len bytes at most: read or written to @buf. */
static int bvt_text_sysctl(int write, char *buf, size_t len, void *buffer,
			   size_t *lenp, loff_t *ppos)
{
	struct ctl_table t = { .data = buf, .maxlen = len };

	return proc_dostring(&t, write, buffer, lenp, ppos);
}

/*
 * A sysctl that is one of @names: show @cur, or read a write into
 * *@choice.  1 if a choice was written, 0 if read, or an error.
 */
static int bvt_choice_sysctl(const char * const *names, size_t n,
			     unsigned int cur, unsigned int *choice, int write,
			     void *buffer, size_t *lenp, loff_t *ppos)
{
	char name[8];
	int ret;

	strscpy(name, names[cur]);
	ret = bvt_text_sysctl(write, name, sizeof(name), buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	ret = __sysfs_match_string(names, n, name);
	if (ret < 0)
		return -EINVAL;
	*choice = ret;
	return 1;
}

static int bvt_be_mode_handler(const struct ctl_table *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int mode;
	int ret;

	guard(mutex)(&bvt_pbs_sysctl_mutex);
	ret = bvt_choice_sysctl(bvt_modes, ARRAY_SIZE(bvt_modes),
				sysctl_sched_bvt_be_mode, &mode, write, buffer,
				lenp, ppos);
	if (ret <= 0 || mode == sysctl_sched_bvt_be_mode)
		return ret < 0 ? ret : 0;
	if (mode == BVT_MODE_PBS)
		bvt_pbs_new_epoch();
	WRITE_ONCE(sysctl_sched_bvt_be_mode, mode);
	bvt_be_apply_all();
	return 0;
}

static const char * const bvt_pbs_selects[] = { "exact", "sampled" };

static int bvt_pbs_select_handler(const struct ctl_table *table, int write,
				  void *buffer, size_t *lenp, loff_t *ppos)
{
	unsigned int select;
	int ret;

	guard(mutex)(&bvt_pbs_sysctl_mutex);
	ret = bvt_choice_sysctl(bvt_pbs_selects, ARRAY_SIZE(bvt_pbs_selects),
				sysctl_sched_bvt_pbs_select, &select, write,
				buffer, lenp, ppos);
	if (ret > 0)
		WRITE_ONCE(sysctl_sched_bvt_pbs_select, select);
	return ret < 0 ? ret : 0;
}

/* "12.345" to 12345; -EINVAL for anything else, as for more places. */
static int bvt_parse_milli(char *s, u32 *milli)
{
	char *frac = strchr(s, '.');
	unsigned int ip, scale = 100, f = 0;
	int ret;

	if (frac) {
		*frac++ = '\0';
		if (!*frac || strlen(frac) > 3)
			return -EINVAL;
		for (; *frac; frac++, scale /= 10) {
			if (!isdigit(*frac))
				return -EINVAL;
			f += (*frac - '0') * scale;
		}
	}
	ret = kstrtouint(s, 10, &ip);
	if (ret)
		return ret;
	if (ip > (U32_MAX - 1 - f) / 1000)
		return -ERANGE;
	*milli = ip * 1000 + f;
	return 0;
}

/* alpha, epsilon: a bvt_pbs_tunable within [*extra1, *extra2] thousandths */
static int bvt_pbs_tunable_handler(const struct ctl_table *table, int write,
				   void *buffer, size_t *lenp, loff_t *ppos)
{
	struct bvt_pbs_tunable *tun = table->data;
	u32 min = *(u32 *)table->extra1, max = *(u32 *)table->extra2, milli;
	char buf[24];
	int ret;

	guard(mutex)(&bvt_pbs_sysctl_mutex);
	snprintf(buf, sizeof(buf), "%u.%03u", tun->milli / 1000,
		 tun->milli % 1000);
	ret = bvt_text_sysctl(write, buf, sizeof(buf), buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	ret = bvt_parse_milli(strim(buf), &milli);
	if (ret)
		return ret;
	if (milli < min || milli > max)
		return -EINVAL;
	tun->milli = milli;
	WRITE_ONCE(tun->q16, div_u64((u64)milli << 16, 1000));
	return 0;
}

/* beta: "[+|-]inf" or "[+|-]decimal"; "+" counts inactive time in T. */
static int bvt_pbs_beta_handler(const struct ctl_table *table, int write,
				void *buffer, size_t *lenp, loff_t *ppos)
{
	char buf[24], *s;
	u32 milli, excl;
	int ret;

	guard(mutex)(&bvt_pbs_sysctl_mutex);
	excl = bvt_pbs_beta_excl;
	if (bvt_pbs_beta == BVT_PBS_BETA_INF)
		snprintf(buf, sizeof(buf), "%cinf", excl ? '-' : '+');
	else
		snprintf(buf, sizeof(buf), "%c%u.%03u", excl ? '-' : '+',
			 bvt_pbs_beta / 1000, bvt_pbs_beta % 1000);
	ret = bvt_text_sysctl(write, buf, sizeof(buf), buffer, lenp, ppos);
	if (ret || !write)
		return ret;
	s = strim(buf);
	excl = *s == '-';
	if (*s == '-' || *s == '+')
		s++;
	if (!strcmp(s, "inf")) {
		milli = BVT_PBS_BETA_INF;
	} else {
		ret = bvt_parse_milli(s, &milli);
		if (ret)
			return ret;
		if (milli > BVT_PBS_BETA_MAX)
			return -EINVAL;
	}
	WRITE_ONCE(bvt_pbs_beta, milli);
	WRITE_ONCE(bvt_pbs_beta_excl, excl);
	return 0;
}

/*
 * alpha's bounds (section 3.3: PBS starves no one for 0 < alpha < oo, but
 * for a long while near either end).  A waiting thread overtakes a running
 * one when T_wait / T_run reaches (S_wait / S_run)^alpha.  At 0.01 a
 * newcomer that has had a 1 ms tick waits behind a thread that has run
 * 1 s for some 14 times their difference in age (1000^-0.01 = 0.93); at
 * 100 a thread that has run twice as long as another is behind it until
 * its T is 2^100 times the other's, as good as LAS.  Past either bound
 * nothing is gained but longer starvation.
 */
static u32 bvt_pbs_alpha_min = 10, bvt_pbs_alpha_max = 100000;
static u32 bvt_pbs_epsilon_max = 10000;
static unsigned int bvt_pbs_switch_max = NSEC_PER_SEC;

static struct ctl_table bvt_pbs_sysctls[] = {
	{
		.procname	= "sched_bvt_be_mode",
		.maxlen		= 8,
		.mode		= 0644,
		.proc_handler	= bvt_be_mode_handler,
	},
	{
		.procname	= "sched_bvt_pbs_alpha",
		.data		= &bvt_pbs_alpha,
		.maxlen		= 24,
		.mode		= 0644,
		.proc_handler	= bvt_pbs_tunable_handler,
		.extra1		= &bvt_pbs_alpha_min,
		.extra2		= &bvt_pbs_alpha_max,
	},
	{
		.procname	= "sched_bvt_pbs_epsilon",
		.data		= &bvt_pbs_epsilon,
		.maxlen		= 24,
		.mode		= 0644,
		.proc_handler	= bvt_pbs_tunable_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &bvt_pbs_epsilon_max,
	},
	{
		.procname	= "sched_bvt_pbs_beta",
		.maxlen		= 24,
		.mode		= 0644,
		.proc_handler	= bvt_pbs_beta_handler,
	},
	{
		.procname	= "sched_bvt_pbs_select",
		.maxlen		= 8,
		.mode		= 0644,
		.proc_handler	= bvt_pbs_select_handler,
	},
	{
		/* read only: the PBS sessions of threads that are not dead */
		.procname	= "sched_bvt_pbs_sessions",
		.maxlen		= sizeof(unsigned long),
		.mode		= 0444,
		.proc_handler	= bvt_pbs_sessions_handler,
	},
	{
		.procname	= "sched_bvt_pbs_switch_ns",
		.data		= &sysctl_sched_bvt_pbs_switch_ns,
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &bvt_pbs_switch_max,
	},
};

static int __init sched_bvt_pbs_sysctl_init(void)
{
	register_sysctl_init("kernel", bvt_pbs_sysctls);
	return 0;
}
late_initcall(sched_bvt_pbs_sysctl_init);
