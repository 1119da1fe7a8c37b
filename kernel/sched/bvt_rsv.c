// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT CPU reservations and time constraints, after Rialto/NT (M. B.
 * Jones and J. Regehr, "CPU Reservations and Time Constraints:
 * Implementation Experience on Windows NT", 1999).  Built with bvt.c by
 * build_bvt.c, under CONFIG_SCHED_BVT_RSV.
 *
 * A reservation asks for X ns of every Y for one thread, continuously: in
 * every window of length Y, the thread runs for at least X if it is
 * runnable.  Each CPU keeps a precomputed plan (the paper's section 3.1):
 * one hyperperiod cut into slots, each reserved to one reservation, to the
 * CPU's idle reservation, or free, and repeated from the plan's epoch on.
 * A reservation's slots lie at the same offsets in each of its periods, so
 * that any window of one period holds exactly its amount.  EDF with a
 * budget per period would not do: a budget spent at the start of one
 * period and at the end of the next leaves a gap of 2 (Y - X).
 *
 * The periods of a plan are harmonic: the first reservation of an empty
 * plan sets its base P0, and every period on it is P0 * 2^k.  A request is
 * granted the longest such period P not above Y and the amount
 * X * P / Y rounded up: the fraction of the CPU is kept, the granularity
 * may be finer, never coarser (the paper's rule; its 1 ms clock made it
 * round 16 of 40 ms to 13 of 32, where a plan based on 10 ms grants 1/10,
 * 4/20 and 16/40 exactly).  A new reservation is added in place, in the
 * time free in all its periods (Rialto's incremental step), and only if
 * it does not fit so is the plan laid out anew.  With harmonic periods,
 * laying reservations out in order of period, each in free time of its
 * own period at the same offsets in the others, fits any set whose
 * utilization, with the idle reservation's, is at most 1: what the
 * shorter periods left free repeats with each longer one.  So admission
 * is exact, and the paper's backtracking search is not needed.
 */
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/sched/cputime.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

/*
 * The idle reservation of every CPU's plan (bvt_rsv.c), per mille of its
 * shortest period: the time kept for everything without a reservation.
 * At least the fair server's default share (5 %) and a margin, so that
 * fair tasks, which run first in it, never need the fair server to
 * preempt a reservation.
 */
static unsigned int sysctl_sched_bvt_rsv_idle_permille = 100;
static unsigned int bvt_rsv_idle_min = 60;
/* The share of all CPUs reserved, in ppb of one CPU (read only). */
static unsigned long bvt_rsv_admitted;

/* @p's reservation and constraint; NULL: none. */
static inline struct bvt_rsv *bvt_rsv_of(const struct task_struct *p)
{
	struct bvt_plan_task *pt = READ_ONCE(p->bvt.in_plan);

	return unlikely(pt) ? READ_ONCE(pt->rsv) : NULL;
}

static inline struct bvt_tc *bvt_tc_of(const struct task_struct *p)
{
	struct bvt_plan_task *pt = READ_ONCE(p->bvt.in_plan);

	return unlikely(pt) ? READ_ONCE(pt->tc) : NULL;
}

/*
 * What one reservation asks of a plan, and what it is granted: what
 * bvt_plan_add() and bvt_plan_lay() lay out.  @owner is what its slots
 * run: a reservation, or the plan's idle reservation.
 */
struct bvt_plan_req {
	u64			amount;
	u64			period;
	struct bvt_rsv		*owner;
	bool			window;
};

/*
 * The largest power of 2 that the base of a plan made for @period can be
 * a multiple of, so that halving it down to SCHED_BVT_RSV_PERIOD_MIN is exact.
 */
static u64 bvt_plan_grain(u64 period)
{
	u64 ratio = period / SCHED_BVT_RSV_PERIOD_MIN;

	return ratio > 1 ? rounddown_pow_of_two(ratio) : 1;
}

/* The period a plan of base @base grants for @period; 0 if none fits. */
static u64 bvt_plan_period(u64 base, u64 period)
{
	u64 p = base;

	if (!base)
		return rounddown(period, bvt_plan_grain(period));
	while (p > period) {
		/* Halving stays exact down to the shortest period. */
		if (p & 1 || p / 2 < SCHED_BVT_RSV_PERIOD_MIN)
			return 0;
		p /= 2;
	}
	while (p <= period / 2 && p * 2 <= SCHED_BVT_RSV_PERIOD_MAX)
		p *= 2;
	return p;
}

/*
 * The least amount of every @period that holds @amount in every window of
 * @window >= @period ns, as a QAS mandatory part needs in its periods,
 * whatever their phase.  Slots at the same offsets in every period give
 * each window of @period exactly the amount a, and a window of r <
 * @period at least a - (@period - r): a window of @window, k periods and
 * r, holds at least k * a + max(0, a - (@period - r)).  More than
 * @period if no amount does.
 */
static u64 bvt_plan_window_amount(u64 amount, u64 window, u64 period)
{
	u64 k = div64_u64(window, period), r = window - k * period, a, b;

	a = DIV64_U64_ROUND_UP(amount, k);
	if (!r)
		return a;
	b = max(period - r, DIV64_U64_ROUND_UP(amount + period - r, k + 1));
	return min(a, b);
}

/*
 * Grant @req on a plan of base @base: its period and amount as said
 * above, or for a window, as bvt_plan_window_amount() says.  Returns
 * false if no period fits.
 */
static bool bvt_plan_grant(u64 base, struct bvt_plan_req *req)
{
	u64 period = bvt_plan_period(base, req->period);

	if (!period)
		return false;
	/* Both are below 2^32 (SCHED_BVT_RSV_PERIOD_MAX): no overflow. */
	if (req->window)
		req->amount = bvt_plan_window_amount(req->amount, req->period,
						     period);
	else
		req->amount = DIV64_U64_ROUND_UP(req->amount * period,
						 req->period);
	req->period = period;
	return req->amount <= period;
}

/*
 * Append [@start, @end) of @owner to @out, merged with the last slot; a
 * new slot has @free_before of free time before it.
 */
static __always_inline int bvt_plan_append(struct bvt_plan_slot *out,
					   unsigned int *nr, unsigned int max,
					   u64 start, u64 end,
					   struct bvt_rsv *owner,
					   u64 free_before)
{
	struct bvt_plan_slot *last = *nr ? &out[*nr - 1] : NULL;

	if (last && last->owner == owner && last->end == start) {
		last->end = end;
		return 0;
	}
	if (*nr == max)
		return -ENOSPC;
	out[(*nr)++] = (struct bvt_plan_slot){ start, end, owner, free_before };
	return 0;
}

/*
 * Count, in each slot of @plan, the free time before it, and in the plan
 * the free time of a hyperperiod: what time constraints can be given.
 */
static void bvt_plan_count_free(struct bvt_plan *plan)
{
	u64 free = 0;
	unsigned int i;

	for (i = 0; i < plan->nr_slots; i++) {
		plan->slots[i].free_before = free;
		if (!plan->slots[i].owner)
			free += plan->slots[i].end - plan->slots[i].start;
	}
	plan->free = free;
}

/* The slot of @plan that holds offset @off of its hyperperiod. */
static unsigned int bvt_plan_find(const struct bvt_plan *plan, u64 off)
{
	unsigned int lo = 0, hi = plan->nr_slots - 1, mid;

	while (lo < hi) {
		mid = (lo + hi + 1) / 2;
		if (plan->slots[mid].start <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* Free time of @plan from its epoch to @t (ns after the epoch). */
static u64 bvt_plan_free_to(const struct bvt_plan *plan, u64 t)
{
	const struct bvt_plan_slot *slot;
	u64 off, n;

	n = div64_u64_rem(t, plan->hyper, &off);
	slot = &plan->slots[bvt_plan_find(plan, off)];
	return n * plan->free + slot->free_before +
	       (slot->owner ? 0 : off - slot->start);
}

/* Time of @plan's slots of @owner from its epoch to @t. */
static u64 bvt_plan_owned_to(const struct bvt_plan *plan,
			     const struct bvt_rsv *owner, u64 t)
{
	u64 off, n, per = 0, before = 0;
	unsigned int i;

	n = div64_u64_rem(t, plan->hyper, &off);
	for (i = 0; i < plan->nr_slots; i++) {
		if (plan->slots[i].owner != owner)
			continue;
		per += plan->slots[i].end - plan->slots[i].start;
		if (plan->slots[i].start < off)
			before += min(plan->slots[i].end, off) -
				  plan->slots[i].start;
	}
	return n * per + before;
}

/* Time of @plan's slots of @owner in [@t0, @t1), ns after its epoch. */
static u64 bvt_plan_owned_in(const struct bvt_plan *plan,
			     const struct bvt_rsv *owner, u64 t0, u64 t1)
{
	return bvt_plan_owned_to(plan, owner, t1) -
	       bvt_plan_owned_to(plan, owner, t0);
}

/*
 * What a time constraint needs of a CPU's free time: @demand ns of it
 * between @start and @deadline, ns after the CPU's plan epoch.
 */
struct bvt_tc_need {
	u64	start;
	u64	deadline;
	u64	demand;
};

/* The most constraints one admission test looks at: a CPU's and one more. */
#define BVT_TC_MAX	16	/* accepted constraints a CPU keeps */
#define BVT_TC_NEEDS	(BVT_TC_MAX + 1)

/*
 * Can @nr constraints all have their demand by their deadlines, run
 * earliest deadline first in @plan's free time, or in the share of it that
 * @shift leaves (free >> @shift)?  For constraints released at set times,
 * EDF meets every deadline if and only if, for every interval from a start
 * to a deadline, what must be run inside it fits in the free time it
 * holds; those intervals are the only ones to check.  The plan is looked
 * up once per start and deadline, and every sum is checked for overflow:
 * demands come from user space.
 */
static bool bvt_tc_feasible(const struct bvt_plan *plan,
			    const struct bvt_tc_need *need, unsigned int nr,
			    unsigned int shift)
{
	u64 free_to_start[BVT_TC_NEEDS], free_to_deadline[BVT_TC_NEEDS];
	unsigned int i, j, k;
	u64 sum;

	if (WARN_ON_ONCE(nr > BVT_TC_NEEDS))
		return false;
	for (i = 0; i < nr; i++) {
		free_to_start[i] = bvt_plan_free_to(plan, need[i].start);
		free_to_deadline[i] = bvt_plan_free_to(plan, need[i].deadline);
	}
	for (i = 0; i < nr; i++) {
		for (j = 0; j < nr; j++) {
			if (need[j].deadline <= need[i].start)
				continue;
			sum = 0;
			for (k = 0; k < nr; k++) {
				if (need[k].start >= need[i].start &&
				    need[k].deadline <= need[j].deadline &&
				    check_add_overflow(sum, need[k].demand, &sum))
					return false;
			}
			if (sum > (free_to_deadline[j] - free_to_start[i]) >> shift)
				return false;
		}
	}
	return true;
}

/*
 * The runtime.  Admission (bvt_ctl(2), affinity changes, hotplug) is
 * serialized by bvt_rsv_mutex and builds plans off any rq lock; a CPU's
 * plan, the slot it is in and its accepted constraints are read and
 * changed under its rq lock.  A plan is replaced or freed under
 * bvt_rsv_mutex only (the idle plan, never freed, comes and goes under
 * the rq lock alone).  bvt_rsv_lock, a leaf lock, guards the reservations
 * of each CPU and the link of a thread to its reservation, which exit and
 * a change of policy cut in atomic context.
 *
 * Lock order, outermost first:
 *
 *   bvt_qas_mutex		(a change of a QAS set, and exit)
 *     bvt_rsv_mutex		(admission, release, moves, the free work)
 *       rq locks		(two at a time by double_rq_lock())
 *         bvt_rsv_lock, a coop domain's lock
 *
 * The hotplug callback bvt_rsv_cpu_inactive() runs with the hotplug lock
 * held for writing and takes bvt_rsv_mutex: so no holder of bvt_rsv_mutex
 * or bvt_qas_mutex may wait for the hotplug lock (none takes it: admission
 * looks at cpu_active_mask under the mutex, a constraint's under the rq
 * lock, which the callback takes after clearing its CPU there, so neither
 * is half made on a CPU going down), for the other mutex out of this
 * order, or for
 * bvt_rsv_wq, whose work takes bvt_rsv_mutex (the workqueue is flushed
 * before either mutex is taken, and hotplug does not flush it).
 * /proc/<pid>/sched takes none of them (the rq lock and RCU).
 */
static DEFINE_MUTEX(bvt_rsv_mutex);
static DEFINE_RAW_SPINLOCK(bvt_rsv_lock);

/* What admission knows of a CPU. */
struct bvt_rsv_cpu {
	struct list_head	list;		/* its reservations */
	unsigned int		nr;
	u64			util;		/* their share, in ppb */
	struct bvt_plan		*room;		/* to write its next plan in */
};

static DEFINE_PER_CPU(struct bvt_rsv_cpu, bvt_rsv_cpus);
/* A CPU's plan with the idle reservation alone, for its constraints. */
static DEFINE_PER_CPU(struct bvt_plan *, bvt_idle_plan);
/*
 * The owners of every CPU's idle reservation slots: in the first part of
 * each, fair tasks run first, in the second the BVT tree does.
 */
static struct bvt_rsv bvt_idle_fair, bvt_idle_rsv;
/* bvt_rsv_init() had all it needed. */
static bool bvt_rsv_ready;

static inline u64 bvt_rsv_util(u64 amount, u64 period)
{
	return div64_u64(amount * NSEC_PER_SEC, period);
}

/* Count @rsv in its CPU's reservations (@sign 1) or out (-1). */
static void bvt_rsv_account(struct bvt_rsv *rsv, int sign)
{
	struct bvt_rsv_cpu *rc = per_cpu_ptr(&bvt_rsv_cpus, rsv->cpu);
	u64 util = bvt_rsv_util(rsv->amount, rsv->period);

	lockdep_assert_held(&bvt_rsv_lock);
	rc->nr += sign;
	rc->util += sign * util;
	WRITE_ONCE(bvt_rsv_admitted, bvt_rsv_admitted + sign * util);
}

static inline bool bvt_rsv_is_idle(const struct bvt_rsv *owner)
{
	return owner == &bvt_idle_rsv || owner == &bvt_idle_fair;
}

/*
 * The owner of @slot in a plan built anew from it: none if it is a
 * reservation released whose slots the free work has not freed yet (the
 * hotplug callback, which may place one meanwhile, does not wait for it).
 */
static struct bvt_rsv *bvt_plan_kept_owner(const struct bvt_plan_slot *slot)
{
	struct bvt_rsv *owner = slot->owner;

	if (owner && !bvt_rsv_is_idle(owner) && !READ_ONCE(owner->task))
		return NULL;
	return owner;
}

/*
 * The idle reservation's requests for @cpu's plans of shortest period
 * @period, in @req: one or two, returned.  Its fair part is the fair
 * server's share and a quarter more, so that fair tasks get the server's
 * runtime in it and the server, which then has nothing to make up, never
 * preempts a reservation; the rest is the BVT tree's, so that reservations
 * starve no BVT thread either.
 */
static int bvt_plan_idle_reqs(int cpu, u64 period, struct bvt_plan_req *req)
{
	u64 permille = READ_ONCE(sysctl_sched_bvt_rsv_idle_permille);
	struct sched_dl_entity *fs = &cpu_rq(cpu)->fair_server;
	u64 idle = DIV64_U64_ROUND_UP(period * permille, 1000);
	u64 fair = 0;
	int n = 0;

	if (READ_ONCE(fs->dl_period))
		fair = mul_u64_u64_div_u64(period, READ_ONCE(fs->dl_runtime) * 5,
					   READ_ONCE(fs->dl_period) * 4);
	fair = min(fair, idle);
	if (fair)
		req[n++] = (struct bvt_plan_req){ fair, period, &bvt_idle_fair };
	if (idle > fair)
		req[n++] = (struct bvt_plan_req){ idle - fair, period,
						  &bvt_idle_rsv };
	return n;
}

/*
 * Repeat the @n slots of @a, a plan of hyperperiod @hyper, into @b until
 * @longer, a multiple of @hyper; with @drop, a released reservation's
 * slots as free.  For bvt_plan_fold() and bvt_plan_write(), which do not
 * read the free time before the slots.  Returns the number of slots, or
 * -ENOSPC.
 */
static int bvt_plan_repeat(struct bvt_plan_slot *b,
			   const struct bvt_plan_slot *a, unsigned int n,
			   u64 hyper, u64 longer, bool drop)
{
	unsigned int i, nr = 0;
	u64 base;
	int err;

	for (base = 0; base < longer; base += hyper) {
		for (i = 0; i < n; i++) {
			err = bvt_plan_append(b, &nr, BVT_PLAN_SLOTS,
					      base + a[i].start,
					      base + a[i].end,
					      drop ? bvt_plan_kept_owner(&a[i]) :
						     a[i].owner, 0);
			if (err)
				return err;
		}
	}
	return nr;
}

/*
 * Laying a request out.  Its slots go at the same offsets of each of its
 * periods, in time that is free in all of them: the plan folded at its
 * period.  Where in that time is chosen to keep the plan's free time
 * level: a period is cut in blocks (the longest period of the plan's
 * family not above BVT_PLAN_BLOCK_MAX), and the amount goes, a piece at a
 * time, to the block with the most free time left in its worst period,
 * at the end of the free time there.  So free time stays at the start of
 * every block, right after the idle reservation, which takes the first
 * free time of each of its periods, and a time constraint finds some in
 * any window of a block or two, where laying everything out at the
 * earliest free time bunched it at the end of the hyperperiod.
 */
#define BVT_PLAN_BLOCK_MAX	(10 * NSEC_PER_MSEC)
#define BVT_PLAN_PIECE_MIN	NSEC_PER_MSEC
#define BVT_PLAN_PIECES		8
/* The most blocks in a period: a block is at least the shortest period. */
#define BVT_PLAN_BLOCKS	(SCHED_BVT_RSV_PERIOD_MAX / SCHED_BVT_RSV_PERIOD_MIN)

/* [start, end) of a period, free in each of a plan's periods. */
struct bvt_plan_span {
	u64			start;
	u64			end;
};

/* A block of a period: see bvt_plan_fold() and bvt_plan_spread(). */
struct bvt_plan_block {
	u64			level;
	u64			open;
	u64			common;
	u64			take;
};

/* Room to lay plans out in, under bvt_rsv_mutex: 1 MiB, at first use. */
struct bvt_plan_work {
	struct bvt_plan_slot	*slots[2];	/* BVT_PLAN_SLOTS each */
	struct bvt_plan_span	*span[2];	/* BVT_PLAN_SLOTS each */
	struct bvt_plan_slot	*marks;		/* BVT_PLAN_SLOTS */
	struct bvt_plan_block	*blk;		/* BVT_PLAN_BLOCKS */
};

static void bvt_plan_work_free(struct bvt_plan_work *w)
{
	kvfree(w->slots[0]);
	kvfree(w->slots[1]);
	kvfree(w->span[0]);
	kvfree(w->span[1]);
	kvfree(w->marks);
	kvfree(w->blk);
	*w = (struct bvt_plan_work){ };
}

static int bvt_plan_work_alloc(struct bvt_plan_work *w)
{
	w->slots[0] = kvcalloc(BVT_PLAN_SLOTS, sizeof(*w->slots[0]), GFP_KERNEL);
	w->slots[1] = kvcalloc(BVT_PLAN_SLOTS, sizeof(*w->slots[1]), GFP_KERNEL);
	w->span[0] = kvcalloc(BVT_PLAN_SLOTS, sizeof(*w->span[0]), GFP_KERNEL);
	w->span[1] = kvcalloc(BVT_PLAN_SLOTS, sizeof(*w->span[1]), GFP_KERNEL);
	w->marks = kvcalloc(BVT_PLAN_SLOTS, sizeof(*w->marks), GFP_KERNEL);
	w->blk = kvcalloc(BVT_PLAN_BLOCKS, sizeof(*w->blk), GFP_KERNEL);
	if (w->slots[0] && w->slots[1] && w->span[0] && w->span[1] &&
	    w->marks && w->blk)
		return 0;
	bvt_plan_work_free(w);
	return -ENOMEM;
}

/* The blocks of a plan whose shortest period is @shortest. */
static u64 bvt_plan_block_len(u64 shortest)
{
	u64 len = shortest;

	while (len > BVT_PLAN_BLOCK_MAX && !(len & 1) &&
	       len / 2 >= SCHED_BVT_RSV_PERIOD_MIN)
		len /= 2;
	return len;
}

/* May a request take @slot: free, or the idle reservation's if it moves? */
static inline bool bvt_plan_open(const struct bvt_plan_slot *slot, bool idle)
{
	return !slot->owner || (idle && bvt_rsv_is_idle(slot->owner));
}

static __always_inline int bvt_plan_span_add(struct bvt_plan_span *out,
					     unsigned int *nr, u64 start,
					     u64 end)
{
	if (*nr && out[*nr - 1].end == start) {
		out[*nr - 1].end = end;
		return 0;
	}
	if (*nr == BVT_PLAN_SLOTS)
		return -ENOSPC;
	out[(*nr)++] = (struct bvt_plan_span){ start, end };
	return 0;
}

/* Count [@s, @e) of a period, open to a request, in its blocks of @len. */
static inline void bvt_plan_level_add(struct bvt_plan_block *blk, u64 len,
				      unsigned int *b, u64 *end, u64 s, u64 e)
{
	for (; s < e; s = min(e, *end)) {
		while (s >= *end) {
			(*b)++;
			*end += len;
		}
		blk[*b].open += min(e, *end) - s;
	}
}

/*
 * The time of a period of @period that is open (bvt_plan_open()) in every
 * period of the @n slots of @in, a plan of @hyper: into one of @w->span[],
 * set in *@ff.  And if the period is cut in @nr_blk > 1 blocks of @len,
 * the level of each in @w->blk: the least time in it, in any period, that
 * is free or the idle reservation's (no thread's guarantee).  Returns the
 * number of spans, or -ENOSPC.
 */
static int bvt_plan_fold(struct bvt_plan_work *w,
			 const struct bvt_plan_slot *in, unsigned int n,
			 u64 hyper, u64 period, bool idle, u64 len,
			 unsigned int nr_blk, struct bvt_plan_span **ff)
{
	struct bvt_plan_span *a = w->span[0], *b = w->span[1];
	unsigned int i = 0, k, m, na = 0, nb = 0, blk;
	struct bvt_rsv *owner;
	u64 base, s, e, end;
	bool is_idle;

	for (k = 0; k < nr_blk; k++)
		w->blk[k] = (struct bvt_plan_block){ .level = U64_MAX };
	for (base = 0; base < hyper; base += period) {
		nb = 0;
		k = 0;
		blk = 0;
		end = len;
		for (; i < n && in[i].start < base + period; i++) {
			owner = in[i].owner;
			is_idle = owner && bvt_rsv_is_idle(owner);
			if (owner && !is_idle)
				continue;
			s = max(in[i].start, base) - base;
			e = min(in[i].end, base + period) - base;
			if (nr_blk > 1)
				bvt_plan_level_add(w->blk, len, &blk, &end,
						   s, e);
			if (is_idle && !idle)
				continue;
			if (!base) {
				if (bvt_plan_span_add(a, &na, s, e))
					return -ENOSPC;
				continue;
			}
			while (k < na && a[k].end <= s)
				k++;
			for (m = k; m < na && a[m].start < e; m++) {
				if (bvt_plan_span_add(b, &nb,
						      max(s, a[m].start),
						      min(e, a[m].end)))
					return -ENOSPC;
			}
		}
		/* A slot that runs on into the next period is seen there too. */
		if (i && in[i - 1].end > base + period)
			i--;
		for (k = 0; nr_blk > 1 && k < nr_blk; k++) {
			w->blk[k].level = min(w->blk[k].level, w->blk[k].open);
			w->blk[k].open = 0;
		}
		if (base) {
			swap(a, b);
			na = nb;
		}
		if (!na)
			break;
	}
	*ff = a;
	return na;
}

/*
 * Mark the first @amount of the @nr spans of *@ff for @owner, after the
 * @nm marks of @w, and take it out of *@ff.
 */
static int bvt_plan_first(struct bvt_plan_work *w, struct bvt_plan_span **ff,
			  unsigned int *nr, unsigned int *nm, u64 amount,
			  struct bvt_rsv *owner)
{
	struct bvt_plan_span *span;
	u64 t;

	while (amount) {
		if (!*nr)
			return -EBUSY;
		if (*nm == BVT_PLAN_SLOTS)
			return -ENOSPC;
		span = *ff;
		t = min(amount, span->end - span->start);
		w->marks[(*nm)++] = (struct bvt_plan_slot){
			span->start, span->start + t, owner };
		span->start += t;
		amount -= t;
		if (span->start == span->end) {
			(*ff)++;
			(*nr)--;
		}
	}
	return 0;
}

/*
 * Mark @amount of the @nr spans of @ff, in a period cut in @nr_blk blocks
 * of @len, for @owner, after the @nm marks of @w: a piece at a time to the
 * block whose level (bvt_plan_fold()) less what it gave is highest, the
 * first on a tie, then in each block the last of its spans.
 */
static int bvt_plan_spread(struct bvt_plan_work *w,
			   const struct bvt_plan_span *ff, unsigned int nr,
			   u64 len, unsigned int nr_blk, unsigned int *nm,
			   u64 amount, struct bvt_rsv *owner)
{
	u64 piece = max(BVT_PLAN_PIECE_MIN,
			DIV64_U64_ROUND_UP(amount, BVT_PLAN_PIECES));
	struct bvt_plan_block *blk = w->blk;
	unsigned int b, k, m, first, tries;
	u64 lo, hi, s, e, t, left;

	for (k = 0, b = 0, hi = len; k < nr; k++) {
		for (s = ff[k].start; s < ff[k].end; s = e) {
			for (; s >= hi; hi += len)
				b++;
			e = min(ff[k].end, hi);
			blk[b].common += e - s;
		}
	}
	/* Pieces to the most level blocks; crumbs, if that is all there is. */
	for (tries = 0; amount && tries < 4 * BVT_PLAN_PIECES; tries++) {
		m = nr_blk;
		for (b = 0; b < nr_blk; b++) {
			if (blk[b].take == blk[b].common)
				continue;
			if (m == nr_blk || blk[b].level - blk[b].take >
					   blk[m].level - blk[m].take)
				m = b;
		}
		if (m == nr_blk)
			break;
		t = min3(piece, amount, blk[m].common - blk[m].take);
		blk[m].take += t;
		amount -= t;
	}
	for (b = 0; amount && b < nr_blk; b++) {
		t = min(amount, blk[b].common - blk[b].take);
		blk[b].take += t;
		amount -= t;
	}
	if (amount)
		return -EBUSY;

	for (k = 0, b = 0, lo = 0; b < nr_blk; b++, lo += len) {
		hi = lo + len;
		while (k < nr && ff[k].end <= lo)
			k++;
		if (!blk[b].take)
			continue;
		for (m = k; m < nr && ff[m].start < hi; m++)
			;
		first = *nm;
		for (left = blk[b].take; left; left -= t) {
			if (*nm == BVT_PLAN_SLOTS)
				return -ENOSPC;
			m--;
			s = max(ff[m].start, lo);
			e = min(ff[m].end, hi);
			t = min(left, e - s);
			w->marks[(*nm)++] = (struct bvt_plan_slot){
				e - t, e, owner };
		}
		/* Taken from the end: put them back in order. */
		for (m = *nm - 1; first < m; first++, m--)
			swap(w->marks[first], w->marks[m]);
	}
	return 0;
}

/*
 * Copy the @n slots of @in, a plan of @hyper, into @out, with the @nm > 0
 * marks of @marks, at their offsets in each period of @period, given to
 * their owners; the rest of what is open (bvt_plan_open()) is free.
 * Returns the number of slots, or -ENOSPC.
 */
static int bvt_plan_write(struct bvt_plan_slot *out, unsigned int max,
			  const struct bvt_plan_slot *in, unsigned int n,
			  u64 hyper, u64 period,
			  const struct bvt_plan_slot *marks, unsigned int nm,
			  bool idle)
{
	unsigned int i, k = 0, nr = 0;
	u64 base = 0, free = 0, s, e;
	struct bvt_rsv *owner;
	int err;

	for (i = 0; i < n; i++) {
		/*
		 * A slot kept: as it was, but for the free time before it.
		 * It follows none of its owner (a plan's slots are merged,
		 * and the marks are for others).
		 */
		if (!bvt_plan_open(&in[i], idle)) {
			if (nr == max)
				return -ENOSPC;
			out[nr] = in[i];
			out[nr++].free_before = free;
			continue;
		}
		for (s = in[i].start; s < in[i].end; s = e) {
			while (base < hyper && base + marks[k].end <= s) {
				if (++k < nm)
					continue;
				k = 0;
				base += period;
			}
			if (base < hyper && base + marks[k].start <= s) {
				e = min(base + marks[k].end, in[i].end);
				owner = marks[k].owner;
			} else {
				e = base < hyper ? min(base + marks[k].start,
						       in[i].end) : in[i].end;
				owner = NULL;
			}
			err = bvt_plan_append(out, &nr, max, s, e, owner,
					      free);
			if (err)
				return err;
			if (!owner)
				free += e - s;
		}
	}
	return nr;
}

/*
 * Mark, in @w->marks, where the @nr requests of @req, all of one period,
 * the idle reservation's first, go over the @n slots of @in, a plan of
 * @hyper whose shortest period is @shortest: in the time open in every
 * period (bvt_plan_open(); @idle: the idle reservation moves), the idle
 * reservation's at the start of it, a reservation spread.  Returns the
 * number of marks, -EBUSY if the requests do not fit, or -ENOSPC.
 */
static int bvt_plan_mark(struct bvt_plan_work *w,
			 const struct bvt_plan_slot *in, unsigned int n,
			 u64 hyper, u64 shortest,
			 const struct bvt_plan_req *req, unsigned int nr,
			 bool idle)
{
	u64 period = req[0].period, len = bvt_plan_block_len(shortest);
	unsigned int i, nr_ff, nr_blk = 1, nm = 0;
	struct bvt_plan_span *ff;
	int ret;

	if (len < period && div64_u64(period, len) <= BVT_PLAN_BLOCKS)
		nr_blk = div64_u64(period, len);
	else
		len = period;
	ret = bvt_plan_fold(w, in, n, hyper, period, idle, len, nr_blk, &ff);
	if (ret < 0)
		return ret;
	nr_ff = ret;
	for (i = 0; i < nr; i++) {
		if (bvt_rsv_is_idle(req[i].owner))
			ret = bvt_plan_first(w, &ff, &nr_ff, &nm, req[i].amount,
					     req[i].owner);
		else
			ret = bvt_plan_spread(w, ff, nr_ff, len, nr_blk, &nm,
					      req[i].amount, req[i].owner);
		if (ret)
			return ret;
	}
	return nm;
}

/* Close @plan's @n slots: their free time in a hyperperiod. */
static void bvt_plan_seal(struct bvt_plan *plan, unsigned int n)
{
	const struct bvt_plan_slot *last = &plan->slots[n - 1];

	plan->nr_slots = n;
	plan->free = last->free_before +
		     (last->owner ? 0 : last->end - last->start);
}

/*
 * Room for a plan of @nr slots: *@room if it has that much (a CPU keeps
 * the plan it replaced, so that adding to a plan allocates nothing once
 * the plans have grown), or new room with some to spare.  Large plans
 * are vmalloc()ed: they need not be contiguous, and kvmalloc()'s try at
 * contiguous pages first stalled admission on compaction for
 * milliseconds.  NULL if memory is short.
 */
static struct bvt_plan *bvt_plan_room_get(struct bvt_plan **room,
					  unsigned int nr)
{
	struct bvt_plan *plan = room ? *room : NULL;
	unsigned int cap;
	size_t size;

	if (plan && plan->capacity >= nr) {
		*room = NULL;
		return plan;
	}
	cap = min_t(unsigned int, roundup_pow_of_two(max(nr, 16U)),
		    BVT_PLAN_SLOTS);
	size = struct_size(plan, slots, cap);
	plan = size > PAGE_SIZE ? vmalloc(size) : kmalloc(size, GFP_KERNEL);
	if (plan)
		plan->capacity = cap;
	return plan;
}

/* Keep @plan, out of force, as *@room if it is larger; free the other. */
static void bvt_plan_room_put(struct bvt_plan **room, struct bvt_plan *plan)
{
	if (room && plan && (!*room || (*room)->capacity < plan->capacity))
		swap(*room, plan);
	kvfree(plan);
}

/* A plan of @n slots from @slots, in *@room if it fits; NULL if no memory. */
static struct bvt_plan *bvt_plan_alloc(struct bvt_plan **room,
				       const struct bvt_plan_slot *slots,
				       unsigned int n, u64 hyper, u64 base,
				       u64 shortest)
{
	struct bvt_plan *plan = bvt_plan_room_get(room, n);

	if (!plan)
		return NULL;
	plan->hyper = hyper;
	plan->base = base;
	plan->shortest = shortest;
	plan->nr_slots = n;
	memcpy(plan->slots, slots, n * sizeof(*slots));
	bvt_plan_count_free(plan);
	return plan;
}

/*
 * @cur, a plan of reservations, with @new added in place (Rialto's
 * incremental step): the plan repeated up to @new's period if that is
 * longer, and @new laid out in the time free in all its periods.  Nothing
 * reserved moves but the idle reservation, which, if @new's period is
 * the shortest yet, moves to it as its @nr_idle requests @idle.  Written
 * straight into the new plan, in *@room if it fits: one pass to find the
 * time, one to write.  Returns the plan, or ERR_PTR(-EBUSY) if @new does
 * not fit so, -ENOSPC, -ENOMEM.
 */
static struct bvt_plan *bvt_plan_add(struct bvt_plan_work *w,
				     struct bvt_plan **room,
				     const struct bvt_plan *cur,
				     const struct bvt_plan_req *new,
				     const struct bvt_plan_req *idle,
				     unsigned int nr_idle)
{
	const struct bvt_plan_slot *in = cur->slots;
	u64 hyper = cur->hyper, shortest = cur->shortest;
	struct bvt_plan_req req[3];
	struct bvt_plan *plan;
	int n = cur->nr_slots, nm;
	u64 max;

	if (nr_idle > 2)
		return ERR_PTR(-EINVAL);
	if (new->period > hyper) {
		n = bvt_plan_repeat(w->slots[0], in, n, hyper, new->period,
				    true);
		if (n < 0)
			return ERR_PTR(n);
		in = w->slots[0];
		hyper = new->period;
	}
	memcpy(req, idle, nr_idle * sizeof(*idle));
	req[nr_idle] = *new;
	if (nr_idle)
		shortest = new->period;
	nm = bvt_plan_mark(w, in, n, hyper, shortest, req, nr_idle + 1,
			   nr_idle);
	if (nm < 0)
		return ERR_PTR(nm);
	/* Each mark in each period cuts a slot in three at most. */
	max = min(n + 2 * nm * div64_u64(hyper, new->period),
		  (u64)BVT_PLAN_SLOTS);
	plan = bvt_plan_room_get(room, max);
	if (!plan)
		return ERR_PTR(-ENOMEM);
	plan->nr_slots = max;
	n = bvt_plan_write(plan->slots, max, in, n, hyper, new->period,
			   w->marks, nm, nr_idle);
	if (n < 0) {
		bvt_plan_room_put(room, plan);
		return ERR_PTR(n);
	}
	plan->hyper = hyper;
	plan->base = cur->base;
	plan->shortest = shortest;
	bvt_plan_seal(plan, n);
	return plan;
}

/*
 * A plan laid out anew from the @nr requests of @req, sorted by period,
 * the idle reservation's @nr_idle first at the shortest.  Each is laid
 * out over one period of its own of what is laid out before it, where the
 * free time is that of any period: so a set fits if and only if its
 * utilization is at most 1, and admission is exact.  Written in *@room if
 * it fits.  Returns the plan, or ERR_PTR(-EBUSY) if the requests do not
 * fit, -ENOSPC, -ENOMEM.
 */
static struct bvt_plan *bvt_plan_lay(struct bvt_plan_work *w,
				     struct bvt_plan **room,
				     const struct bvt_plan_req *req,
				     unsigned int nr, unsigned int nr_idle,
				     u64 base)
{
	struct bvt_plan_slot *a = w->slots[0], *b = w->slots[1];
	u64 shortest = req[0].period, hyper = shortest;
	struct bvt_plan *plan;
	unsigned int i, step;
	int n = 1, nm;

	a[0] = (struct bvt_plan_slot){ 0, hyper, NULL };
	for (i = 0; i < nr; i += step) {
		step = i ? 1 : nr_idle + 1;
		if (req[i].period > hyper) {
			n = bvt_plan_repeat(b, a, n, hyper, req[i].period,
					    false);
			if (n < 0)
				return ERR_PTR(n);
			hyper = req[i].period;
			swap(a, b);
		}
		nm = bvt_plan_mark(w, a, n, hyper, shortest, &req[i],
				   min(step, nr - i), false);
		if (nm < 0)
			return ERR_PTR(nm);
		n = bvt_plan_write(b, BVT_PLAN_SLOTS, a, n, hyper, hyper,
				   w->marks, nm, false);
		if (n < 0)
			return ERR_PTR(n);
		swap(a, b);
	}
	plan = bvt_plan_alloc(room, a, n, hyper, base, shortest);
	return plan ?: ERR_PTR(-ENOMEM);
}

static int bvt_plan_req_cmp(const void *a, const void *b)
{
	const struct bvt_plan_req *x = a, *y = b;

	return x->period < y->period ? -1 : x->period > y->period;
}

/* Where admission lays plans out. */
static struct bvt_plan_work bvt_plan_room;

/*
 * A new plan for @cpu with @new added to its reservations: added in place
 * to its current plan @cur if it fits there (*@kept: the reservations in
 * it keep their slots), else laid out anew.  Called with bvt_rsv_mutex
 * held.
 */
static struct bvt_plan *bvt_plan_with(int cpu, const struct bvt_plan *cur,
				      const struct bvt_plan_req *new,
				      bool *kept)
{
	struct bvt_rsv_cpu *rc = per_cpu_ptr(&bvt_rsv_cpus, cpu);
	struct bvt_plan_work *w = &bvt_plan_room;
	struct bvt_plan_req *req, idle[2];
	unsigned int nr, first, nr_idle = 0;
	struct bvt_plan *plan;
	struct bvt_rsv *rsv;

	*kept = false;
	if (!w->blk && bvt_plan_work_alloc(w))
		return ERR_PTR(-ENOMEM);
	if (cur && cur->base) {
		if (new->period < cur->shortest)
			nr_idle = bvt_plan_idle_reqs(cpu, new->period, idle);
		plan = bvt_plan_add(w, &rc->room, cur, new, idle, nr_idle);
		*kept = !IS_ERR(plan);
		if (PTR_ERR(plan) != -EBUSY && PTR_ERR(plan) != -ENOSPC)
			return plan;
	}

	/* req[0..1] are for the idle reservation, filled in once sorted. */
	req = kcalloc(rc->nr + 3, sizeof(*req), GFP_KERNEL);
	if (!req)
		return ERR_PTR(-ENOMEM);
	nr = 2;
	scoped_guard(raw_spinlock_irq, &bvt_rsv_lock) {
		list_for_each_entry(rsv, &rc->list, node) {
			if (nr == rc->nr + 2)
				break;
			req[nr++] = (struct bvt_plan_req){
				rsv->amount, rsv->period, rsv };
		}
	}
	req[nr++] = *new;
	sort(&req[2], nr - 2, sizeof(*req), bvt_plan_req_cmp, NULL);
	nr_idle = bvt_plan_idle_reqs(cpu, req[2].period, idle);
	first = 2 - nr_idle;
	memcpy(&req[first], idle, nr_idle * sizeof(*req));
	plan = bvt_plan_lay(w, &rc->room, &req[first], nr - first, nr_idle,
			    new->period);
	kfree(req);
	return plan;
}

/* QAS reservation sets, on these reservations: qas.c. */

/*
 * The thread that @owner's slot is for: its own, unless it is a QAS
 * mandatory part's and the thread is past that part (its slots are then
 * the plan's free time).  Read without its rq lock, as a hint, elsewhere.
 */
static inline struct task_struct *bvt_rsv_task(const struct bvt_rsv *owner)
{
	struct task_struct *p = READ_ONCE(owner->task);

	if (unlikely(owner->window) && p && !bvt_qas_mandatory(p))
		return NULL;
	return p;
}

/*
 * The owner of @rq's current slot: a reservation, the idle one, or NULL.
 * Kept in the rq, where other CPUs read it as a hint (bvt_plan_home()).
 */
static inline struct bvt_rsv *bvt_plan_owner(struct rq *rq)
{
	return rq->bvt.pl.slot_owner;
}

/*
 * Move @rq's plan on to the slot that holds @now (CLOCK_MONOTONIC ns).
 * A timer that fires late walks the plan forward, as Rialto/NT did with
 * late DPCs: the plan keeps to real time, and what a late switch cost
 * falls on the slots it delayed.
 */
static void bvt_plan_seek(struct rq *rq, u64 now)
{
	struct bvt_rq *brq = &rq->bvt;
	struct bvt_plan *plan = brq->pl.plan;
	u64 off, n;

	if (now < brq->pl.slot_end)
		return;
	if (now - brq->pl.slot_end < plan->slots[brq->pl.slot].end -
				  plan->slots[brq->pl.slot].start) {
		/* On time, or nearly: the next slot, or the one after. */
		do {
			if (++brq->pl.slot == plan->nr_slots) {
				brq->pl.slot = 0;
				brq->pl.epoch += plan->hyper;
			}
			brq->pl.slot_end = brq->pl.epoch +
					plan->slots[brq->pl.slot].end;
		} while (brq->pl.slot_end <= now);
		return;
	}
	/* Late by more than a slot: straight to where the plan is now. */
	n = div64_u64_rem(now - brq->pl.epoch, plan->hyper, &off);
	brq->pl.epoch += n * plan->hyper;
	brq->pl.slot = bvt_plan_find(plan, off);
	brq->pl.slot_end = brq->pl.epoch + plan->slots[brq->pl.slot].end;
}

/* Seek, and publish the new slot's owner. */
static void bvt_plan_seek_owner(struct rq *rq, u64 now)
{
	bvt_plan_seek(rq, now);
	WRITE_ONCE(rq->bvt.pl.slot_owner,
		   rq->bvt.pl.plan->slots[rq->bvt.pl.slot].owner);
}

/*
 * When @rq's plan must look again: at the end of its slot, or before, at
 * the start of an accepted constraint, which may then come first.
 */
static u64 bvt_plan_due(struct rq *rq)
{
	u64 next = rq->bvt.pl.slot_end, now;
	struct rb_node *node;
	struct bvt_tc *tc;

	if (!rq->bvt.pl.nr_tcs)
		return next;
	now = ktime_get_ns();
	for (node = rb_first_cached(&rq->bvt.pl.tcs); node;
	     node = rb_next(node)) {
		tc = rb_entry(node, struct bvt_tc, node);
		if (tc->start > now && tc->start < next)
			next = tc->start;
	}
	return next;
}

#ifdef CONFIG_SMP
/*
 * Have @rq's CPU arm or wake its plan.  An irq_work, not a csd: a csd for
 * the CPU it is sent from runs at once, in bvt_plan_enqueued() under the
 * lock of the rq being enqueued on.  Not for an offline CPU (the plan of
 * one, parked, is armed as the CPU unparks), and the look holds: with
 * interrupts off, as under any rq lock, no CPU leaves cpu_online_mask,
 * which takes stop_machine() and so this CPU too, and the CPU runs what
 * is queued for it before it goes (smpcfd_dying_cpu()).
 */
static void bvt_plan_kick(struct rq *rq)
{
	lockdep_assert_irqs_disabled();
	if (cpu_online(cpu_of(rq)))
		irq_work_queue_on(&rq->bvt.pl.kick, cpu_of(rq));
}
#endif

/*
 * Start @rq's plan timer, locked, for bvt_plan_due().  Pinned, and
 * only started on @rq's own CPU, as the enforcement timer: a timer started
 * by admission on another CPU would stay there, and every change of slot
 * would cost an IPI to the CPU it is for.
 */
static void bvt_plan_arm(struct rq *rq)
{
	if (rq->bvt.pl.parked)
		return;
#ifdef CONFIG_SMP
	if (rq != this_rq()) {
		bvt_plan_kick(rq);
		return;
	}
#endif
	hrtimer_start(&rq->bvt.pl.timer, ns_to_ktime(bvt_plan_due(rq)),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * A CPU that goes offline keeps its plan, parked: its timer stops, and
 * the plan resumes in phase (the same epoch) when the CPU is back.  What
 * suspend and kexec take down keeps its reservations; an offline CPU has
 * none left otherwise (bvt_rsv_cpu_inactive()), except slots whose free
 * is still queued.  rq_attach_root() takes a CPU offline and online too.
 */
void bvt_plan_park(struct rq *rq)
{
	rq->bvt.pl.parked = true;
	hrtimer_try_to_cancel(&rq->bvt.pl.timer);
}

void bvt_plan_unpark(struct rq *rq)
{
	rq->bvt.pl.parked = false;
	if (rq->bvt.pl.plan)
		bvt_plan_wake(rq);
}

/*
 * Has @rq's plan nothing to run or fetch until a thread comes: no BVT
 * thread here, no constraint accepted here, and no thread of one of its
 * reservations runnable anywhere?
 */
static bool bvt_plan_unused(struct rq *rq)
{
	const struct bvt_plan *plan = rq->bvt.pl.plan;
	const struct bvt_rsv *owner;
	struct task_struct *p;
	unsigned int i;

	for (i = 0; i < plan->nr_slots; i++) {
		owner = plan->slots[i].owner;
		if (!owner || bvt_rsv_is_idle(owner))
			continue;
		p = READ_ONCE(owner->task);
		if (p && READ_ONCE(p->bvt.se.on_rq))
			return false;
	}
	return true;
}

/*
 * From the plan's timer: if the plan is unused, its timer stops, so that
 * the slots of threads that sleep wake no idle or nohz_full CPU, until a
 * thread comes (bvt_plan_wake()): a thread queued on another CPU
 * meanwhile is seen here, or sees the mark.
 */
static bool bvt_plan_rest(struct rq *rq)
{
	if (rq->bvt.nr_running || rq->bvt.pl.nr_tcs)
		return false;
	WRITE_ONCE(rq->bvt.pl.resting, true);
	/* The mark before the look: pairs with bvt_plan_enqueued(). */
	smp_mb();
	if (bvt_plan_unused(rq))
		return true;
	WRITE_ONCE(rq->bvt.pl.resting, false);
	return false;
}

/*
 * A thread comes to @rq, locked, or a constraint is accepted there: the
 * plan takes up its slots where they are now, and its timer again.
 */
void bvt_plan_wake(struct rq *rq)
{
	WRITE_ONCE(rq->bvt.pl.resting, false);
	bvt_plan_seek_owner(rq, ktime_get_ns());
	bvt_plan_arm(rq);
}

#ifdef CONFIG_SMP
static void bvt_plan_kick_fn(struct irq_work *work)
{
	struct rq *rq = container_of(work, struct rq, bvt.pl.kick);
	struct rq_flags rf;

	rq_lock(rq, &rf);
	if (rq->bvt.pl.plan) {
		if (rq->bvt.pl.resting)
			bvt_plan_wake(rq);
		else
			bvt_plan_arm(rq);
	}
	rq_unlock(rq, &rf);
}

/*
 * @p, with a part in the plan, was queued on @rq: if it has a reservation
 * on another CPU, whose plan rests, that plan wakes (on @rq, the class did
 * that under the lock the timer takes).
 */
void bvt_plan_enqueued(struct rq *rq, struct task_struct *p)
{
	struct bvt_rsv *rsv = bvt_rsv_of(p);
	struct rq *home;

	if (!rsv)
		return;
	home = cpu_rq(READ_ONCE(rsv->cpu));
	if (home == rq)
		return;
	/* Queued before the look at the mark: pairs with bvt_plan_rest(). */
	smp_mb();
	if (READ_ONCE(home->bvt.pl.resting))
		bvt_plan_kick(home);
}
#else
void bvt_plan_enqueued(struct rq *rq, struct task_struct *p)
{
}
#endif

/*
 * Put @plan in force on @rq, locked: from @epoch (CLOCK_MONOTONIC ns, a
 * multiple of the old plan's hyperperiod ago if the new one keeps its
 * slots) on.  NULL ends the plan.  Returns the old one.
 */
static struct bvt_plan *bvt_plan_set(struct rq *rq, struct bvt_plan *plan,
				     u64 epoch)
{
	struct bvt_plan *old = rq->bvt.pl.plan;

	rq->bvt.pl.plan = plan;
	rq->bvt.pl.orphan = false;
	WRITE_ONCE(rq->bvt.pl.resting, false);
	/* What runs is picked again, by the new plan. */
	resched_curr(rq);
	if (!plan) {
		WRITE_ONCE(rq->bvt.pl.slot_owner, NULL);
		hrtimer_try_to_cancel(&rq->bvt.pl.timer);
		return old;
	}
	rq->bvt.pl.epoch = epoch;
	rq->bvt.pl.slot = 0;
	rq->bvt.pl.slot_end = epoch + plan->slots[0].end;
	bvt_plan_seek_owner(rq, ktime_get_ns());
	bvt_plan_arm(rq);
	return old;
}

static void bvt_tc_expire(struct rq *rq, u64 now);
static void bvt_tc_unqueue(struct rq *rq, struct bvt_tc *tc, bool missed);
static void bvt_rsv_pull(struct rq *rq, struct rq_flags *rf);
static void bvt_tc_pull(struct rq *rq, struct rq_flags *rf);
static void bvt_plan_tcs_gone(struct rq *rq);
static void bvt_tc_drop_orphans(struct rq *rq);

/* The slot @rq enters, and the thread whose slot ended, if it ran. */
static void bvt_rsv_trace_slot(struct rq *rq, struct task_struct *ran)
{
	struct bvt_rsv *owner = bvt_plan_owner(rq);
	struct task_struct *p;
	pid_t pid = 0;

	if (!trace_sched_bvt_rsv_slot_enabled())
		return;
	if (bvt_rsv_is_idle(owner)) {
		pid = -1;
	} else if (owner) {
		p = READ_ONCE(owner->task);
		pid = p ? p->pid : 0;
	}
	trace_sched_bvt_rsv_slot(cpu_of(rq), pid,
				 rq->bvt.pl.slot_end - ktime_get_ns(),
				 ran ? ran->pid : 0);
}

/*
 * @rsv's slot on @rq ended with its thread still running: it wanted more
 * than its reservation.  Counted (/proc/<pid>/sched); the place where the
 * quality-assuring reservations will notify the thread of an overrun.
 */
static void bvt_rsv_exhausted(struct rq *rq, struct bvt_rsv *rsv)
{
	rsv->nr_exhausted++;
}

/*
 * The CPU's work at each change of slot: what ran is charged, and what is
 * to run now is picked again.  A reservation's thread queued on another
 * CPU is pulled here.  Re-armed under the rq lock, never by returning
 * HRTIMER_RESTART: a plan change may have started it again meanwhile.
 */
static enum hrtimer_restart bvt_plan_timer_fn(struct hrtimer *timer)
{
	struct rq *rq = container_of(timer, struct rq, bvt.pl.timer);
	struct rq_flags rf;

	rq_lock(rq, &rf);
	if (rq->bvt.pl.plan && !rq->bvt.pl.parked) {
		struct bvt_rsv *owner = bvt_plan_owner(rq);
		struct task_struct *ran = NULL;

		bool next_slot = ktime_get_ns() >= rq->bvt.pl.slot_end;

		update_rq_clock(rq);
		update_curr_bvt(rq);
		if (owner && !bvt_rsv_is_idle(owner) &&
		    rq->bvt.pl.lv.curr == &rq->curr->bvt.se &&
		    bvt_rsv_task(owner) == rq->curr)
			ran = rq->curr;
		/* Else a constraint starts: picking again is all there is. */
		if (next_slot) {
			if (ran)
				bvt_rsv_exhausted(rq, owner);
			bvt_plan_seek_owner(rq, ktime_get_ns());
			bvt_rsv_trace_slot(rq, ran);
		}
		bvt_tc_expire(rq, ktime_get_ns());
		bvt_rsv_pull(rq, &rf);
		bvt_tc_pull(rq, &rf);
		/* A plan kept for constraints alone, and none left: it ends. */
		bvt_plan_tcs_gone(rq);
		/* (A plan set meanwhile was armed by its setter.) */
		if (rq->bvt.pl.plan && !hrtimer_is_queued(timer) &&
		    !bvt_plan_rest(rq)) {
			resched_curr(rq);
			bvt_plan_arm(rq);
		}
	}
	rq_unlock(rq, &rf);
	return HRTIMER_NORESTART;
}

/* Is @p, a BVT thread, queued on @rq and free to run there? */
static inline bool bvt_plan_runnable(struct rq *rq, struct task_struct *p)
{
	return task_rq(p) == rq && task_on_rq_queued(p) &&
	       p->sched_class == &bvt_sched_class;
}

/* Does @tc, accepted on @rq's plan, want free time at @now? */
static inline bool bvt_tc_wants(const struct bvt_tc *tc, u64 now)
{
	return tc->left && tc->start <= now && now < tc->deadline;
}

/* Constraints of @rq whose deadline has passed leave it: misses. */
static void bvt_tc_expire(struct rq *rq, u64 now)
{
	struct rb_node *node;
	struct bvt_tc *tc;

	while ((node = rb_first_cached(&rq->bvt.pl.tcs))) {
		tc = rb_entry(node, struct bvt_tc, node);
		if (now < tc->deadline)
			break;
		bvt_tc_unqueue(rq, tc, true);
	}
}

/*
 * The accepted constraint of @rq with the earliest deadline whose thread
 * is runnable here and has free time left to run at @now.
 */
static struct task_struct *bvt_tc_pick(struct rq *rq, u64 now)
{
	struct rb_node *node;
	struct bvt_tc *tc;

	for (node = rb_first_cached(&rq->bvt.pl.tcs); node;
	     node = rb_next(node)) {
		tc = rb_entry(node, struct bvt_tc, node);
		if (bvt_tc_wants(tc, now) && bvt_plan_runnable(rq, tc->task))
			return tc->task;
	}
	return NULL;
}

/*
 * What @rq's plan runs at @now, and by what (@by): the owner of the
 * current slot if it is runnable here, else in free time (or a slot its
 * owner leaves unused) the constraint that comes first, then the QAS part
 * that comes first.  NULL: the BVT tree decides, after fair tasks in the
 * idle reservation's time (bvt_plan_cede()).
 */
static struct task_struct *__bvt_plan_pick(struct rq *rq, u64 now,
					   enum bvt_plan_by *by)
{
	struct bvt_rsv *owner = bvt_plan_owner(rq);
	struct task_struct *p;

	if (bvt_rsv_is_idle(owner))
		return NULL;
	if (owner) {
		p = bvt_rsv_task(owner);
		if (p && bvt_plan_runnable(rq, p)) {
			*by = BVT_PLAN_RSV;
			return p;
		}
	}
	if (!RB_EMPTY_ROOT(&rq->bvt.pl.tcs.rb_root)) {
		p = bvt_tc_pick(rq, now);
		if (p) {
			*by = BVT_PLAN_TC;
			return p;
		}
	}
	*by = BVT_PLAN_QAS;
	return bvt_qas_pick(rq);
}

/*
 * The plan level.  It picks a thread's own entity, which stays queued in
 * its timeline level: the level keeps no queue of its own, and its curr
 * is only the mark that the running thread runs by it.
 */
static void bvt_plan_queue(struct bvt_level *lv, struct bvt_entity *se)
{
}

static struct bvt_entity *bvt_plan_pick(struct bvt_level *lv)
{
	struct rq *rq = lv->rq;
	struct task_struct *p;
	u64 now = ktime_get_ns();

	bvt_tc_expire(rq, now);
	p = __bvt_plan_pick(rq, now, &rq->bvt.pl.next_by);
	return p ? &p->bvt.se : NULL;
}

/* Never asked: the plan level's entity is not queued in a level above. */
static s64 bvt_plan_warp(struct bvt_level *lv)
{
	return 0;
}

/* Should @se, just runnable, run now by the plan, over what runs by it? */
static bool bvt_plan_preempts(const struct bvt_entity *se,
			      const struct bvt_entity *curr, int wake_flags)
{
	enum bvt_plan_by by;
	struct task_struct *p = __bvt_plan_pick(se->lv->rq, ktime_get_ns(), &by);

	return p && &p->bvt.se == se && se != curr;
}

/* Has the thread that runs by a constraint had the free time it wants? */
static bool bvt_plan_expired(struct bvt_level *lv, struct bvt_entity *curr)
{
	struct bvt_plan_level *pl = container_of(lv, struct bvt_plan_level, lv);
	struct bvt_tc *tc;

	if (!curr || pl->curr_by != BVT_PLAN_TC)
		return false;
	tc = bvt_tc_of(bvt_se_task(curr));
	return tc && !tc->left;
}

/* sched_yield() does not give up what the plan grants. */
static bool bvt_plan_yield(struct bvt_level *lv, struct bvt_entity *curr)
{
	return false;
}

static void bvt_plan_picked(struct bvt_level *lv, struct bvt_entity *se)
{
	struct bvt_plan_level *pl = container_of(lv, struct bvt_plan_level, lv);

	pl->curr_by = pl->next_by;
}

/*
 * Charge @delta ns that @curr ran by the plan to what it ran by: its
 * reserved time, or its constraint's free time (not its QAS part's, which
 * counts its thread's run time, nor a constraint it has just ended).  None
 * of them advances its virtual time, so that it shares the rest of the CPU
 * as the BVT thread it is.
 */
static void bvt_plan_charge(struct bvt_level *lv, struct bvt_entity *curr,
			    u64 delta)
{
	struct bvt_plan_level *pl = container_of(lv, struct bvt_plan_level, lv);
	struct task_struct *p = bvt_se_task(curr);
	struct bvt_rsv *owner = bvt_plan_owner(lv->rq);
	struct bvt_tc *tc;

	switch (pl->curr_by) {
	case BVT_PLAN_RSV:
		if (owner && bvt_rsv_task(owner) == p)
			owner->ran += delta;
		break;
	case BVT_PLAN_TC:
		/* Queued here, or this rq's lock is not its lock. */
		tc = bvt_tc_of(p);
		if (tc && READ_ONCE(tc->cpu) == cpu_of(lv->rq))
			tc->left -= min(tc->left, delta);
		break;
	case BVT_PLAN_QAS:
	case BVT_PLAN_ENDED:
		break;
	}
}

/*
 * How long @curr may run by the plan before the enforcement timer looks
 * again: to the end of its free time if it runs in its constraint's, none
 * in its reserved time (the plan's timer ends that) or its part's (the
 * part's amount does, bvt_qas_left()).
 */
static u64 bvt_plan_budget(struct bvt_level *lv, struct bvt_entity *curr)
{
	struct bvt_plan_level *pl = container_of(lv, struct bvt_plan_level, lv);
	struct bvt_tc *tc;

	if (pl->curr_by != BVT_PLAN_TC)
		return 0;
	tc = bvt_tc_of(bvt_se_task(curr));
	return tc ? tc->left : 0;
}

/*
 * In the fair part of the idle reservation, fair tasks, or sched_ext's
 * tasks while it runs them all, run before the BVT tree.  (Not "until
 * they have had the fair server's runtime": a server whose runtime is used
 * up in the background starts a new period at once, full, so that would
 * hand them the whole idle reservation.)
 */
static bool bvt_plan_cede(struct bvt_level *lv)
{
	return bvt_plan_owner(lv->rq) == &bvt_idle_fair &&
	       (lv->rq->cfs.h_nr_runnable || bvt_ext_waiting(lv->rq));
}

static const struct bvt_level_ops bvt_plan_ops = {
	.queue		= bvt_plan_queue,
	.unqueue	= bvt_plan_queue,
	.pick		= bvt_plan_pick,
	.warp		= bvt_plan_warp,
	.preempts	= bvt_plan_preempts,
	.expired	= bvt_plan_expired,
	.yield		= bvt_plan_yield,
	.picked		= bvt_plan_picked,
	.charge		= bvt_plan_charge,
	.budget		= bvt_plan_budget,
	.cede		= bvt_plan_cede,
};

void init_bvt_plan_level(struct bvt_plan_level *pl, struct rq *rq)
{
	init_bvt_level(&pl->lv, NULL, &bvt_plan_ops);
	pl->lv.rq = rq;
	pl->plan = NULL;
	pl->orphan = false;
	pl->slot_owner = NULL;
	pl->tcs = RB_ROOT_CACHED;
	pl->nr_tcs = 0;
	pl->next = NULL;
	pl->next_by = BVT_PLAN_RSV;
	pl->curr_by = BVT_PLAN_RSV;
	pl->home_push = NULL;
	pl->qas_parts = RB_ROOT_CACHED;
	pl->nr_qas = 0;
	pl->parked = false;
	pl->resting = false;
	hrtimer_init(&pl->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	pl->timer.function = bvt_plan_timer_fn;
#ifdef CONFIG_SMP
	pl->kick = IRQ_WORK_INIT_HARD(bvt_plan_kick_fn);
#endif
}

#ifdef CONFIG_SMP
/*
 * The CPU @p is to be on now, or -1: that of its reservation while its
 * slot is current there, or that of its constraint while it wants free
 * time.  Read without the other CPU's lock: a hint that the CPU itself
 * makes good (bvt_rsv_pull()).
 */
int bvt_plan_home(struct task_struct *p)
{
	struct bvt_rsv *rsv = bvt_rsv_of(p);
	struct bvt_tc *tc = bvt_tc_of(p);
	int cpu;

	if (rsv && bvt_rsv_task(rsv) == p) {
		cpu = READ_ONCE(rsv->cpu);
		/*
		 * A resting plan's slot is not known without a look: the
		 * thread goes there, and its coming wakes the plan.
		 */
		if (READ_ONCE(cpu_rq(cpu)->bvt.pl.slot_owner) == rsv ||
		    READ_ONCE(cpu_rq(cpu)->bvt.pl.resting))
			return cpu;
	}
	if (tc && READ_ONCE(tc->cpu) >= 0 && bvt_tc_wants(tc, ktime_get_ns()))
		return READ_ONCE(tc->cpu);
	return -1;
}

/*
 * Bring @p, which @rq's plan runs now, here if it waits on another CPU,
 * or have that CPU let it go if it runs there (put_prev_task_bvt() then
 * pushes it home).  Called from the plan's timer, with @p held by the
 * caller, or by its reservation, which the timer's interrupts-off keeps
 * from being freed (kfree_rcu()).  As pull_rt_task(), this may drop
 * @rq's lock: @p must still be wanted here once both are locked.
 */
static void bvt_plan_fetch(struct rq *rq, struct rq_flags *rf,
			   struct task_struct *p)
{
	struct rq *src;

	if (task_rq(p) == rq || !task_on_rq_queued(p) ||
	    !cpumask_test_cpu(cpu_of(rq), p->cpus_ptr))
		return;
	src = task_rq(p);
	rq_unpin_lock(rq, rf);
	double_lock_balance(rq, src);
	if (task_rq(p) == src && task_on_rq_queued(p) &&
	    p->sched_class == &bvt_sched_class &&
	    bvt_plan_home(p) == cpu_of(rq) &&
	    cpumask_test_cpu(cpu_of(rq), p->cpus_ptr) && cpu_active(cpu_of(rq))) {
		if (task_on_cpu(src, p))
			resched_curr(src);
		else if (!is_migration_disabled(p))
			bvt_move_task(p, src, rq, BVT_MIGRATE_PLAN);
	}
	double_unlock_balance(rq, src);
	rq_repin_lock(rq, rf);
}

/* At a change of slot of @rq, locked: its new owner comes here. */
static void bvt_rsv_pull(struct rq *rq, struct rq_flags *rf)
{
	struct bvt_rsv *owner = bvt_plan_owner(rq);
	struct task_struct *p;

	if (!owner || bvt_rsv_is_idle(owner))
		return;
	p = bvt_rsv_task(owner);
	if (p)
		bvt_plan_fetch(rq, rf, p);
}

/*
 * At the start of a constraint accepted on @rq (the plan's timer fires
 * then), and at each change of slot while it wants free time: the thread
 * of the first in EDF order, the one the plan runs next, comes here as the
 * owner of a slot does, if it is elsewhere.
 */
static void bvt_tc_pull(struct rq *rq, struct rq_flags *rf)
{
	u64 now = ktime_get_ns();
	struct task_struct *p = NULL;
	struct rb_node *node;
	struct bvt_tc *tc;

	bvt_tc_drop_orphans(rq);
	for (node = rb_first_cached(&rq->bvt.pl.tcs); node;
	     node = rb_next(node)) {
		tc = rb_entry(node, struct bvt_tc, node);
		if (bvt_tc_wants(tc, now)) {
			p = tc->task;
			break;
		}
	}
	if (!p || task_rq(p) == rq)
		return;
	get_task_struct(p);
	bvt_plan_fetch(rq, rf, p);
	put_task_struct(p);
}

static DEFINE_PER_CPU(struct balance_callback, bvt_home_head);

/* Move the thread @rq put, which is to be on another CPU now, there. */
static void bvt_push_home(struct rq *rq)
{
	struct task_struct *p = rq->bvt.pl.home_push;
	struct rq *dst;
	int cpu;

	rq->bvt.pl.home_push = NULL;
	if (!p)
		return;
	cpu = bvt_plan_home(p);
	if (cpu < 0 || cpu == cpu_of(rq))
		goto out;
	dst = cpu_rq(cpu);
	double_lock_balance(rq, dst);
	if (task_rq(p) == rq && task_on_rq_queued(p) && !task_on_cpu(rq, p) &&
	    p->sched_class == &bvt_sched_class && !is_migration_disabled(p) &&
	    cpumask_test_cpu(cpu, p->cpus_ptr) && cpu_active(cpu)) {
		bvt_move_task(p, rq, dst, BVT_MIGRATE_PLAN);
		wakeup_preempt(dst, p, 0);
	}
	double_unlock_balance(rq, dst);
out:
	put_task_struct(p);
}

/* @p, put on @rq and still runnable, may be wanted on its plan's CPU. */
static void bvt_plan_put(struct rq *rq, struct task_struct *p)
{
	int cpu;

	if (rq->bvt.pl.home_push || !task_on_rq_queued(p) ||
	    rq->balance_callback == &balance_push_callback)
		return;
	cpu = bvt_plan_home(p);
	if (cpu < 0 || cpu == cpu_of(rq))
		return;
	get_task_struct(p);
	rq->bvt.pl.home_push = p;
	queue_balance_callback(rq, &per_cpu(bvt_home_head, cpu_of(rq)),
			       bvt_push_home);
}
#else
int bvt_plan_home(struct task_struct *p)
{
	return -1;
}

static inline void bvt_rsv_pull(struct rq *rq, struct rq_flags *rf) { }
static inline void bvt_tc_pull(struct rq *rq, struct rq_flags *rf) { }
static inline void bvt_plan_put(struct rq *rq, struct task_struct *p) { }
#endif /* CONFIG_SMP */

/*
 * Release.  Exit and a change of policy end a reservation in atomic
 * context, the latter under the rq lock: the thread is cut from it at
 * once and its share returned to admission; its slots, which until then
 * run nothing, are freed on bvt_rsv_wq (which admission flushes first),
 * reached through an irq_work, as nothing may be woken under an rq lock.
 */
static struct workqueue_struct *bvt_rsv_wq;

/* Free @old, @cpu's plan if it has just ended, and the room kept for it. */
static void bvt_plan_end(int cpu, struct bvt_plan *old)
{
	struct bvt_rsv_cpu *rc = per_cpu_ptr(&bvt_rsv_cpus, cpu);

	if (!old)
		return;
	kvfree(old);
	kvfree(rc->room);
	rc->room = NULL;
}

/* Free the slots of @rsv, released, and @rsv.  With bvt_rsv_mutex held. */
static void __bvt_rsv_free(struct bvt_rsv *rsv)
{
	struct bvt_plan *plan, *old = NULL;
	struct rq *rq = cpu_rq(rsv->cpu);
	struct rq_flags rf;
	bool owned = false;
	unsigned int i;

	lockdep_assert_held(&bvt_rsv_mutex);
	rq_lock_irqsave(rq, &rf);
	plan = rq->bvt.pl.plan;
	for (i = 0; plan && i < plan->nr_slots; i++) {
		if (plan->slots[i].owner == rsv)
			plan->slots[i].owner = NULL;
		else if (plan->slots[i].owner &&
			 !bvt_rsv_is_idle(plan->slots[i].owner))
			owned = true;
	}
	if (plan) {
		bvt_plan_count_free(plan);
		WRITE_ONCE(rq->bvt.pl.slot_owner,
			   plan->slots[rq->bvt.pl.slot].owner);
	}
	/*
	 * No reservation left: the plan ends, or, if constraints were
	 * accepted on it, goes on as it is until they end (the free time
	 * they count on, at the offsets they count on it, stays; a release
	 * only adds to it).
	 */
	if (plan && !owned && plan != per_cpu(bvt_idle_plan, rsv->cpu)) {
		if (RB_EMPTY_ROOT(&rq->bvt.pl.tcs.rb_root))
			old = bvt_plan_set(rq, NULL, 0);
		else
			rq->bvt.pl.orphan = true;
	}
	rq_unlock_irqrestore(rq, &rf);
	bvt_plan_end(rsv->cpu, old);
	kfree_rcu(rsv, rcu);
}

/*
 * A plan kept for its constraints when its last reservation went ends
 * with the last of them: by a work item, as plans are freed under
 * bvt_rsv_mutex only, reached through an irq_work from under the rq lock.
 */
struct bvt_plan_retire {
	struct irq_work		irq_work;
	struct work_struct	work;
	int			cpu;
};

static DEFINE_PER_CPU(struct bvt_plan_retire, bvt_plan_retire);

static void bvt_plan_retire_work(struct work_struct *work)
{
	struct bvt_plan_retire *r = container_of(work, struct bvt_plan_retire,
						 work);
	struct rq *rq = cpu_rq(r->cpu);
	struct bvt_plan *old = NULL;
	struct rq_flags rf;

	guard(mutex)(&bvt_rsv_mutex);
	rq_lock_irqsave(rq, &rf);
	if (rq->bvt.pl.orphan && !rq->bvt.pl.nr_tcs)
		old = bvt_plan_set(rq, NULL, 0);
	rq_unlock_irqrestore(rq, &rf);
	bvt_plan_end(r->cpu, old);
}

static void bvt_plan_retire_irq_work(struct irq_work *work)
{
	struct bvt_plan_retire *r = container_of(work, struct bvt_plan_retire,
						 irq_work);

	queue_work(bvt_rsv_wq, &r->work);
}

/*
 * The last constraint of @rq may have gone, @rq locked: a plan that was
 * there for constraints alone ends, the idle plan at once, one left by
 * released reservations through bvt_plan_retire_work().
 */
static void bvt_plan_tcs_gone(struct rq *rq)
{
	lockdep_assert_rq_held(rq);
	if (rq->bvt.pl.nr_tcs || !rq->bvt.pl.plan)
		return;
	if (rq->bvt.pl.plan == per_cpu(bvt_idle_plan, cpu_of(rq)))
		bvt_plan_set(rq, NULL, 0);
	else if (rq->bvt.pl.orphan)
		irq_work_queue(&per_cpu(bvt_plan_retire, cpu_of(rq)).irq_work);
}

static void bvt_rsv_free(struct bvt_rsv *rsv)
{
	guard(mutex)(&bvt_rsv_mutex);
	__bvt_rsv_free(rsv);
}

static void bvt_rsv_free_work(struct work_struct *work)
{
	bvt_rsv_free(container_of(work, struct bvt_rsv, free_work));
}

static void bvt_rsv_free_irq_work(struct irq_work *work)
{
	struct bvt_rsv *rsv = container_of(work, struct bvt_rsv, irq_work);

	queue_work(bvt_rsv_wq, &rsv->free_work);
}

/* Cut @p from its reservation, if it has one; returns that. */
static struct bvt_rsv *bvt_rsv_unlink(struct task_struct *p)
{
	struct bvt_rsv *rsv;

	/* Linking checks PF_EXITING under its rq lock: no race with exit. */
	if (likely(!bvt_rsv_of(p)))
		return NULL;
	guard(raw_spinlock_irqsave)(&bvt_rsv_lock);
	rsv = bvt_rsv_of(p);
	if (!rsv)
		return NULL;
	WRITE_ONCE(p->bvt.in_plan->rsv, NULL);
	WRITE_ONCE(rsv->task, NULL);
	list_del(&rsv->node);
	bvt_rsv_account(rsv, -1);
	trace_sched_bvt_rsv_release(p, rsv->cpu, rsv->ran, 0);
	return rsv;
}

/* End @p's reservation, if it has one.  Any context. */
static void bvt_rsv_release(struct task_struct *p)
{
	struct bvt_rsv *rsv = bvt_rsv_unlink(p);

	if (rsv)
		irq_work_queue(&rsv->irq_work);
}

/*
 * What @p needs to link the first of its reservation, constraint and QAS
 * set: its part in the plan, allocated here, where one may sleep, unless
 * it has one.  0 or -ENOMEM.
 */
static int bvt_in_plan_prepare(struct task_struct *p,
			       struct bvt_plan_task **spare)
{
	*spare = NULL;
	if (READ_ONCE(p->bvt.in_plan))
		return 0;
	*spare = kzalloc(sizeof(**spare), GFP_KERNEL);
	return *spare ? 0 : -ENOMEM;
}

/*
 * Link *@spare as @p's part in the plan, unless it has one: where @p is
 * current, or under its rq lock having seen it is not exiting, so that
 * bvt_rsv_task_dead() finds it.  The caller frees what is left in @spare.
 */
static void bvt_in_plan_link(struct task_struct *p,
			     struct bvt_plan_task **spare)
{
	if (*spare && !cmpxchg(&p->bvt.in_plan, NULL, *spare))
		*spare = NULL;
}

/* A new reservation, and room in *@cpus for bvt_rsv_cpu_order(). */
static struct bvt_rsv *bvt_rsv_alloc(int **cpus)
{
	struct bvt_rsv *rsv = kzalloc(sizeof(*rsv), GFP_KERNEL);

	*cpus = kcalloc(nr_cpu_ids, sizeof(**cpus), GFP_KERNEL);
	if (!rsv || !*cpus) {
		kfree(rsv);
		kfree(*cpus);
		return NULL;
	}
	INIT_WORK(&rsv->free_work, bvt_rsv_free_work);
	init_irq_work(&rsv->irq_work, bvt_rsv_free_irq_work);
	return rsv;
}

/* Admission's CPUs: the active ones of @mask, least reserved first. */
static int bvt_rsv_cpu_order(const struct cpumask *mask, int *cpus)
{
	int cpu, i, n = 0;

	for_each_cpu_and(cpu, mask, cpu_active_mask) {
		for (i = n; i > 0 &&
		     per_cpu(bvt_rsv_cpus, cpus[i - 1]).util >
		     per_cpu(bvt_rsv_cpus, cpu).util; i--)
			cpus[i] = cpus[i - 1];
		cpus[i] = cpu;
		n++;
	}
	return n;
}

/*
 * Can @rq's accepted constraints all still be met under @plan, from @now?
 * Called with @rq locked.
 */
static bool bvt_tc_fit(struct rq *rq, const struct bvt_plan *plan,
		       u64 epoch, u64 now, struct bvt_tc *new);
static bool bvt_tc_make_room(struct rq *rq, const struct bvt_plan *plan,
			     u64 epoch, u64 now, struct bvt_tc *new);
static void bvt_tc_rebase(struct rq *rq, const struct bvt_plan *plan,
			  u64 epoch, u64 now);

/*
 * Try to place @rsv, granted on @cpu's plan: build the plan with it and
 * put it in force if the CPU's accepted constraints still fit, or, with
 * @evict, once unprivileged ones have made room.  Called with
 * bvt_rsv_mutex held.
 */
static int bvt_rsv_place(struct bvt_rsv *rsv, int cpu, u64 amount,
			 u64 period, bool evict)
{
	struct bvt_rsv_cpu *rc = per_cpu_ptr(&bvt_rsv_cpus, cpu);
	struct bvt_plan_req req = { amount, period, rsv };
	struct rq *rq = cpu_rq(cpu);
	struct bvt_plan *plan, *old;
	struct rq_flags rf;
	u64 epoch, now;
	bool keep;

	old = rq->bvt.pl.plan;	/* stable: only changed under the mutex */
	if (old == per_cpu(bvt_idle_plan, cpu))
		old = NULL;
	/* A QAS mandatory part is granted anew from what it needs. */
	if (rsv->window) {
		req.amount = rsv->window_amount;
		req.period = rsv->window;
		req.window = true;
	}
	if (!bvt_plan_grant(old ? old->base : 0, &req))
		return -EBUSY;
	plan = bvt_plan_with(cpu, old, &req, &keep);
	if (IS_ERR(plan))
		return PTR_ERR(plan);

	rq_lock_irqsave(rq, &rf);
	now = ktime_get_ns();
	epoch = keep ? rq->bvt.pl.epoch : now;
	if (!bvt_tc_fit(rq, plan, epoch, now, NULL) &&
	    !(evict && bvt_tc_make_room(rq, plan, epoch, now, NULL))) {
		rq_unlock_irqrestore(rq, &rf);
		bvt_plan_room_put(&rc->room, plan);
		return -EBUSY;
	}
	bvt_tc_rebase(rq, plan, epoch, now);
	rsv->amount = req.amount;
	rsv->period = req.period;
	rsv->cpu = cpu;
	scoped_guard(raw_spinlock, &bvt_rsv_lock) {
		list_add_tail(&rsv->node, &per_cpu(bvt_rsv_cpus, cpu).list);
		bvt_rsv_account(rsv, 1);
	}
	old = bvt_plan_set(rq, plan, epoch);
	rq_unlock_irqrestore(rq, &rf);
	if (old != per_cpu(bvt_idle_plan, cpu))
		bvt_plan_room_put(&rc->room, old);
	return 0;
}

/*
 * Place @rsv on the first of the @n CPUs of @cpus but @skip that takes it:
 * of those where it fits beside every accepted constraint, or, with
 * @evict, if there are none, of those where unprivileged constraints make
 * room.  0, -ENOMEM, -EBUSY, or -ENOSPC if the first CPU's plan would have
 * had too many slots and the others refused.
 */
static int bvt_rsv_place_any(struct bvt_rsv *rsv, const int *cpus, int n,
			     int skip, u64 amount, u64 period, bool evict)
{
	int i, err, ret = -EBUSY, pass;

	for (pass = 0; pass <= evict; pass++) {
		for (i = 0; i < n; i++) {
			if (cpus[i] == skip)
				continue;
			err = bvt_rsv_place(rsv, cpus[i], amount, period, pass);
			if (!err || err == -ENOMEM)
				return err;
			/* Too many slots is worth saying if nothing else refused. */
			if (err == -ENOSPC && !i && !pass)
				ret = -ENOSPC;
		}
	}
	return ret;
}

/*
 * Time constraints.  A thread has at most one at a time, begun or not
 * accepted, in bvt_tc_of(p) (allocated at its first begin, freed at exit).
 * An accepted one is queued, by deadline, on the CPU whose plan
 * guarantees it, and its thread runs there by EDF in the plan's free
 * time until it has had @left of it, besides its own reserved time.
 */
static inline bool bvt_tc_before(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct bvt_tc, node)->deadline <
	       rb_entry(b, struct bvt_tc, node)->deadline;
}

/* Does @tc's thread run on @rq by it now? */
static inline bool bvt_tc_runs(struct rq *rq, const struct bvt_tc *tc)
{
	return rq->bvt.pl.lv.curr == &tc->task->bvt.se &&
	       rq->bvt.pl.curr_by == BVT_PLAN_TC;
}

/*
 * Take @tc, accepted on @rq, off it; @missed: its deadline passed, or it
 * lost its guarantee.  What its thread runs on now, if it runs by it, is
 * for its caller to look at again.
 */
static void __bvt_tc_unqueue(struct rq *rq, struct bvt_tc *tc, bool missed)
{
	rb_erase_cached(&tc->node, &rq->bvt.pl.tcs);
	rq->bvt.pl.nr_tcs--;
	WRITE_ONCE(tc->cpu, -1);
	if (missed) {
		tc->missed = 1;
		tc->nr_missed++;
		trace_sched_bvt_tc_miss(tc->task, cpu_of(rq), tc->deadline,
					tc->left);
	}
}

/* As __bvt_tc_unqueue(), and the tree decides what its thread runs on. */
static void bvt_tc_unqueue(struct rq *rq, struct bvt_tc *tc, bool missed)
{
	bool runs = bvt_tc_runs(rq, tc);

	__bvt_tc_unqueue(rq, tc, missed);
	if (runs)
		resched_curr(rq);
}

/*
 * What @tc, accepted on @rq, will need of the free time of @plan, put in
 * force from @epoch at @now: what it needs of the current plan's, less
 * what its thread's own reservation there gives it in the new plan beyond
 * what it gave in the current one (a rebuilt plan moves its slots).
 */
static u64 bvt_tc_left_under(struct rq *rq, const struct bvt_tc *tc,
			     const struct bvt_plan *plan, u64 epoch, u64 now)
{
	const struct bvt_plan *cur = rq->bvt.pl.plan;
	struct bvt_rsv *rsv = bvt_rsv_of(tc->task);
	u64 from = max(tc->start, now), was, will;

	if (!rsv || rsv->cpu != cpu_of(rq) || !cur || plan == cur ||
	    tc->deadline <= from)
		return tc->left;
	was = bvt_plan_owned_in(cur, rsv, from - rq->bvt.pl.epoch,
				tc->deadline - rq->bvt.pl.epoch);
	will = bvt_plan_owned_in(plan, rsv, from - epoch, tc->deadline - epoch);
	return tc->left + was > will ? tc->left + was - will : 0;
}

/* Have @rq's accepted constraints the needs of @plan, about to be in force. */
static void bvt_tc_rebase(struct rq *rq, const struct bvt_plan *plan,
			  u64 epoch, u64 now)
{
	struct rb_node *node;
	struct bvt_tc *tc;

	for (node = rb_first_cached(&rq->bvt.pl.tcs); node;
	     node = rb_next(node)) {
		tc = rb_entry(node, struct bvt_tc, node);
		tc->left = bvt_tc_left_under(rq, tc, plan, epoch, now);
	}
}

/*
 * A constraint whose thread has left the class since its begin is not
 * guaranteed (its thread is no longer the plan's to run, and coming back
 * does not make it so): whoever finds it queued takes it off, missed.
 */
static inline bool bvt_tc_orphaned(const struct bvt_tc *tc)
{
	return READ_ONCE(tc->lost);
}

/*
 * @p leaves SCHED_BVT (a change of policy, not a PI boost), @p's rq
 * locked: its constraint, if begun, loses its guarantee.  Its thread alone
 * frees it, and not meanwhile.
 */
static void bvt_tc_lose(struct task_struct *p)
{
	struct bvt_tc *tc = bvt_tc_of(p);

	if (tc && tc->active)
		WRITE_ONCE(tc->lost, 1);
}

/* Take @rq's orphaned constraints off it, missed; at most BVT_TC_MAX. */
static void bvt_tc_drop_orphans(struct rq *rq)
{
	struct rb_node *node, *next;
	struct bvt_tc *tc;

	for (node = rb_first_cached(&rq->bvt.pl.tcs); node; node = next) {
		next = rb_next(node);
		tc = rb_entry(node, struct bvt_tc, node);
		if (bvt_tc_orphaned(tc))
			bvt_tc_unqueue(rq, tc, true);
	}
}

/* Constraints that a user without CAP_SYS_NICE may hold on one CPU. */
#define BVT_TC_USER_MAX	4

static inline bool bvt_tc_same_user(const struct bvt_tc *tc,
				    const struct bvt_tc *new)
{
	return !tc->privileged && uid_eq(tc->uid, new->uid);
}

/*
 * Can @rq's accepted constraints, and @new if not NULL, all be met under
 * @plan, put in force from @epoch, from @now?  A @new begun without
 * CAP_SYS_NICE must also leave its user at most BVT_TC_USER_MAX
 * constraints of the CPU, together needing at most half its free time.
 * Called with @rq locked: the walk is of BVT_TC_MAX constraints at most.
 */
static bool bvt_tc_fit(struct rq *rq, const struct bvt_plan *plan,
		       u64 epoch, u64 now, struct bvt_tc *new)
{
	struct bvt_tc_need need[BVT_TC_NEEDS], mine[BVT_TC_NEEDS];
	unsigned int nr = 0, nr_mine = 0, users = 0;
	struct rb_node *node;
	struct bvt_tc *tc;
	u64 left;

	lockdep_assert_rq_held(rq);
	bvt_tc_drop_orphans(rq);
	for (node = rb_first_cached(&rq->bvt.pl.tcs); node;
	     node = rb_next(node)) {
		tc = rb_entry(node, struct bvt_tc, node);
		if (tc->deadline <= now)
			continue;
		if (new && bvt_tc_same_user(tc, new))
			users++;
		left = bvt_tc_left_under(rq, tc, plan, epoch, now);
		if (!left)
			continue;
		if (WARN_ON_ONCE(nr == BVT_TC_MAX))
			return false;
		need[nr] = (struct bvt_tc_need){
			max(tc->start, now) - epoch, tc->deadline - epoch,
			left };
		if (new && bvt_tc_same_user(tc, new))
			mine[nr_mine++] = need[nr];
		nr++;
	}
	if (new) {
		/* bvt_tc_try() keeps a CPU's constraints to BVT_TC_MAX. */
		if (nr == BVT_TC_MAX)
			return false;
		need[nr] = (struct bvt_tc_need){
			new->start - epoch, new->deadline - epoch, new->left };
		if (!new->privileged) {
			if (users >= BVT_TC_USER_MAX)
				return false;
			mine[nr_mine++] = need[nr];
			if (!bvt_tc_feasible(plan, mine, nr_mine, 1))
				return false;
		}
		nr++;
	}
	return bvt_tc_feasible(plan, need, nr, 0);
}

/*
 * A privileged claim on @rq that bvt_tc_fit() refused, a reservation
 * (@new NULL) or a constraint begun with CAP_SYS_NICE: make room for it by
 * taking off constraints begun without, which keep nothing from it (a
 * thread may sleep through a long one, and renew it with END_PREV, for
 * ever).  Of those, the earliest deadlines are kept, each if it still fits
 * beside the ones kept before it, and BVT_TC_MAX bounds them all; the
 * others lose their guarantee and end missed.  False, with none taken off,
 * if the claim does not fit without any of them either.  Called with @rq
 * locked: each constraint's need is worked out once, then at most
 * BVT_TC_MAX + 1 feasibility tests of BVT_TC_NEEDS needs.
 */
static bool bvt_tc_make_room(struct rq *rq, const struct bvt_plan *plan,
			     u64 epoch, u64 now, struct bvt_tc *new)
{
	struct bvt_tc_need need[BVT_TC_NEEDS], trial[BVT_TC_NEEDS];
	struct bvt_tc *tcs[BVT_TC_MAX];
	unsigned int nr = 0, kept = 0, n, i, j;
	bool keep[BVT_TC_MAX];
	struct rb_node *node;
	struct bvt_tc *tc;

	if (new && !new->privileged)
		return false;
	/* Those past their deadline are missed already. */
	bvt_tc_expire(rq, now);
	bvt_tc_drop_orphans(rq);
	for (node = rb_first_cached(&rq->bvt.pl.tcs); node;
	     node = rb_next(node)) {
		tc = rb_entry(node, struct bvt_tc, node);
		if (WARN_ON_ONCE(nr == BVT_TC_MAX))
			return false;
		tcs[nr] = tc;
		need[nr] = (struct bvt_tc_need){
			max(tc->start, now) - epoch, tc->deadline - epoch,
			bvt_tc_left_under(rq, tc, plan, epoch, now) };
		keep[nr] = tc->privileged;
		kept += keep[nr];
		nr++;
	}
	if (new)
		need[nr] = (struct bvt_tc_need){
			new->start - epoch, new->deadline - epoch, new->left };
	/* With only the privileged ones, then with each unprivileged one. */
	for (i = 0; i <= nr; i++) {
		if (i < nr && (keep[i] || kept + !!new >= BVT_TC_MAX))
			continue;
		for (n = 0, j = 0; j < nr; j++) {
			if (keep[j] || j == i)
				trial[n++] = need[j];
		}
		if (new)
			trial[n++] = need[nr];
		if (i == nr)
			break;
		if (bvt_tc_feasible(plan, trial, n, 0)) {
			keep[i] = true;
			kept++;
		}
	}
	/* The last trial is of those kept. */
	if (kept + !!new > BVT_TC_MAX || !bvt_tc_feasible(plan, trial, n, 0))
		return false;
	for (i = 0; i < nr; i++) {
		if (!keep[i])
			bvt_tc_unqueue(rq, tcs[i], true);
	}
	return true;
}

/*
 * Try to accept @tc on @cpu: the plan in force there, or the idle plan if
 * none; with @evict (@tc begun with CAP_SYS_NICE), once unprivileged
 * constraints have made room.  Its demand on free time is its estimate
 * less what its own reservation on that plan gives it between start and
 * deadline.
 */
static bool bvt_tc_try(struct bvt_tc *tc, int cpu, u64 estimate, bool evict)
{
	struct task_struct *p = tc->task;
	struct rq *rq = cpu_rq(cpu);
	struct bvt_plan *plan;
	struct bvt_rsv *rsv;
	struct rq_flags rf;
	u64 now, epoch, own = 0;

	rq_lock_irqsave(rq, &rf);
	now = ktime_get_ns();
	plan = rq->bvt.pl.plan;
	if (plan && rq->bvt.pl.resting)
		bvt_plan_wake(rq);
	epoch = plan ? rq->bvt.pl.epoch : now;
	if (!plan)
		plan = per_cpu(bvt_idle_plan, cpu);
	/* A CPU going down takes none (bvt_rsv_cpu_inactive()). */
	if (!plan || !cpu_active(cpu)) {
		rq_unlock_irqrestore(rq, &rf);
		return false;
	}
	tc->start = max(tc->start, now);
	if (tc->deadline <= tc->start) {
		rq_unlock_irqrestore(rq, &rf);
		return false;
	}
	rsv = bvt_rsv_of(p);
	if (rsv && rsv->cpu == cpu)
		own = bvt_plan_owned_in(plan, rsv, tc->start - epoch,
					tc->deadline - epoch);
	tc->left = estimate > own ? estimate - own : 0;
	bvt_tc_drop_orphans(rq);
	if ((rq->bvt.pl.nr_tcs >= BVT_TC_MAX ||
	     !bvt_tc_fit(rq, plan, epoch, now, tc)) &&
	    !(evict && bvt_tc_make_room(rq, plan, epoch, now, tc))) {
		/* Its refusal may have taken an orphan off the last. */
		bvt_plan_tcs_gone(rq);
		rq_unlock_irqrestore(rq, &rf);
		return false;
	}
	if (!rq->bvt.pl.plan)
		bvt_plan_set(rq, plan, now);
	rb_add_cached(&tc->node, &rq->bvt.pl.tcs, bvt_tc_before);
	rq->bvt.pl.nr_tcs++;
	WRITE_ONCE(tc->cpu, cpu);
	/* A start ahead wants the timer then. */
	if (tc->start > now)
		bvt_plan_arm(rq);
	/* It may come before what runs there now. */
	resched_curr(rq);
	rq_unlock_irqrestore(rq, &rf);
	return true;
}

/*
 * The caller, which runs on @rq by its constraint, ends it: it runs on by
 * the plan until it is picked anew, at the end of its bvt_ctl(), so that
 * it does not wait behind the threads the constraint ran it before, but
 * by nothing that is charged.  Its next constraint, which it may begin in
 * the same call in the same state, is charged from its start.
 */
static void bvt_tc_ended_running(struct rq *rq)
{
	update_rq_clock(rq);
	update_curr_bvt(rq);
	rq->bvt.pl.curr_by = BVT_PLAN_ENDED;
}

/*
 * Take @tc off the CPU it is accepted on, if it is: @missed, it lost its
 * guarantee.  A plan kept for constraints alone may end with it.  Not
 * under an rq lock; by @tc's thread, by bvt_task_dead() after it, or
 * under rcu_read_lock(), so that @tc is not freed meanwhile.
 *
 * Its own thread ends it in bvt_ctl(), and may begin the next in the same
 * call (SCHED_BVT_TC_END_PREV): it is not switched out in between, which
 * would have it wait behind the threads the constraint ran it before, and
 * ask for the next one late.  Returns true if it is then to be looked at
 * again (bvt_tc_resched()); the plan's timer ends a plan left empty.
 */
static bool bvt_tc_dequeue(struct bvt_tc *tc, bool missed)
{
	int cpu = READ_ONCE(tc->cpu);
	bool self = tc->task == current, runs = false;
	struct rq_flags rf;
	struct rq *rq;

	if (cpu < 0)
		return false;
	rq = cpu_rq(cpu);
	rq_lock_irqsave(rq, &rf);
	/* Its CPU takes it off when its deadline passes. */
	if (tc->cpu == cpu) {
		runs = bvt_tc_runs(rq, tc);
		if (self) {
			if (runs)
				bvt_tc_ended_running(rq);
			__bvt_tc_unqueue(rq, tc, missed);
		} else {
			bvt_tc_unqueue(rq, tc, missed);
			bvt_plan_tcs_gone(rq);
		}
	}
	rq_unlock_irqrestore(rq, &rf);
	return self && runs;
}

/* The caller ended the constraint it ran by: what it runs on is picked anew. */
static void bvt_tc_resched(void)
{
	set_tsk_need_resched(current);
	set_preempt_need_resched();
}

/* End the guarantee of @p's accepted constraint, if any: it ends missed. */
static void bvt_tc_drop(struct task_struct *p)
{
	struct bvt_tc *tc;

	guard(rcu)();
	tc = bvt_tc_of(p);
	if (tc && bvt_tc_dequeue(tc, true))
		bvt_tc_resched();
}

/*
 * @p, whose constraint was begun before its start, is switched in (@in)
 * or out, as a BVT thread: its run time at the start is known once the
 * start has passed.  Out, it ran from when it last came in; in, it did
 * not run since it last went out.  Only the thread itself, on its CPU,
 * changes these.
 */
static void bvt_tc_switched(struct task_struct *p, bool in)
{
	struct bvt_tc *tc = bvt_tc_of(p);
	u64 now;

	if (likely(!tc->start_pending))
		return;
	now = ktime_get_ns();
	if (now < tc->start) {
		if (in) {
			tc->run_exec = p->se.sum_exec_runtime;
			tc->run_at = now;
		}
		return;
	}
	tc->exec_start = in ? p->se.sum_exec_runtime :
			 tc->run_exec + (tc->start - tc->run_at);
	tc->start_pending = 0;
}

/*
 * The run time of @p, current, from its constraint's begin or, if later,
 * its start: 0 before the start.  Running, it has run since it last came
 * in, before the start if that is still pending.
 */
static u64 bvt_tc_taken(struct task_struct *p, struct bvt_tc *tc)
{
	u64 exec, now;

	guard(preempt)();
	exec = task_sched_runtime(p);
	if (tc->start_pending) {
		now = ktime_get_ns();
		if (now < tc->start)
			return 0;
		tc->exec_start = tc->run_exec + (tc->start - tc->run_at);
		tc->start_pending = 0;
	}
	return exec > tc->exec_start ? exec - tc->exec_start : 0;
}

/*
 * End @p's constraint, if begun: its time taken, ns; -ENOENT if none.
 * Past its deadline, or left by its thread's class, it was missed.
 * *@resched: the caller ran by it, and is to be picked anew.
 */
static s64 bvt_tc_end(struct task_struct *p, bool *missed, bool *resched)
{
	struct bvt_tc *tc = bvt_tc_of(p);
	bool late;
	u64 taken;

	if (!tc || !tc->active)
		return -ENOENT;
	/* The end is now, not when the caller next runs. */
	taken = bvt_tc_taken(p, tc);
	tc->start_pending = 0;
	late = ktime_get_ns() > tc->deadline;
	*resched = bvt_tc_dequeue(tc, late || bvt_tc_orphaned(tc));
	tc->active = 0;
	*missed = tc->missed || late;
	trace_sched_bvt_tc_end(p, taken, *missed);
	return taken;
}

/*
 * Begin a constraint for the caller: accepted on its reservation's CPU if
 * it has one, else on its own CPU or the least reserved that takes it.
 * Returns 1 if accepted, 0 if not (the caller runs as before); either
 * way it is begun, and ends by BVT_CTL_TC_END.
 */
static int bvt_tc_begin(struct sched_bvt_tc *arg)
{
	struct task_struct *p = current;
	struct bvt_tc *tc = bvt_tc_of(p);
	int *cpus, n, i, pass, cpu = -1;
	struct bvt_rsv *rsv;
	u64 now;

	if (!tc) {
		struct bvt_plan_task *spare;

		if (bvt_in_plan_prepare(p, &spare))
			return -ENOMEM;
		tc = kzalloc(sizeof(*tc), GFP_KERNEL);
		if (!tc) {
			kfree(spare);
			return -ENOMEM;
		}
		tc->task = p;
		tc->cpu = -1;
		bvt_in_plan_link(p, &spare);
		kfree(spare);
		WRITE_ONCE(p->bvt.in_plan->tc, tc);
	}
	tc->active = 1;
	tc->missed = 0;
	tc->lost = 0;
	tc->start = arg->start;
	tc->deadline = arg->deadline;
	tc->estimate = arg->estimate;
	tc->privileged = ns_capable_noaudit(&init_user_ns, CAP_SYS_NICE);
	tc->uid = current_uid();
	/* Not switched meanwhile: bvt_tc_switched() reads these. */
	scoped_guard(preempt) {
		now = ktime_get_ns();
		tc->exec_start = task_sched_runtime(p);
		tc->run_exec = tc->exec_start;
		tc->run_at = now;
		tc->start_pending = arg->start > now;
	}
	tc->nr_begun++;

	if (bvt_rsv_of(p)) {
		/* Its reserved time there counts: no move or release meanwhile. */
		mutex_lock(&bvt_rsv_mutex);
		rsv = bvt_rsv_of(p);
		for (pass = 0; rsv && cpu < 0 && pass <= tc->privileged; pass++) {
			if (bvt_tc_try(tc, rsv->cpu, arg->estimate, pass))
				cpu = rsv->cpu;
		}
		mutex_unlock(&bvt_rsv_mutex);
		if (rsv)
			goto out;
	}
	if (bvt_tc_try(tc, task_cpu(p), arg->estimate, false)) {
		cpu = task_cpu(p);
		goto out;
	}
	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		goto out;
	n = bvt_rsv_cpu_order(p->cpus_ptr, cpus);
	/*
	 * Where it fits beside every accepted constraint first: one begun
	 * with CAP_SYS_NICE then takes unprivileged ones' place, its own CPU
	 * first.
	 */
	for (pass = 0; cpu < 0 && pass <= tc->privileged; pass++) {
		if (pass && bvt_tc_try(tc, task_cpu(p), arg->estimate, true)) {
			cpu = task_cpu(p);
			break;
		}
		for (i = 0; i < n && cpu < 0; i++) {
			if (cpus[i] != task_cpu(p) &&
			    bvt_tc_try(tc, cpus[i], arg->estimate, pass))
				cpu = cpus[i];
		}
	}
	kfree(cpus);
out:
	trace_sched_bvt_tc_begin(p, arg->start, arg->estimate, arg->deadline,
				 cpu);
	if (cpu < 0)
		return 0;
	tc->nr_accepted++;
	arg->cpu = cpu;
	/* Accepted elsewhere: go there (bvt_plan_put()). */
	if (cpu != task_cpu(p)) {
		set_tsk_need_resched(p);
		set_preempt_need_resched();
	}
	return 1;
}

/*
 * Exit: no constraint outlives its thread.  An idle plan left without
 * constraints ends at once, one kept for them by the retire work.
 */
static void bvt_tc_release(struct task_struct *p)
{
	struct bvt_tc *tc = bvt_tc_of(p);

	if (!tc)
		return;
	if (bvt_tc_dequeue(tc, false))
		bvt_tc_resched();
	WRITE_ONCE(p->bvt.in_plan->tc, NULL);
	kfree_rcu(tc, rcu);
}

/*
 * The thread exits (bvt_task_exit()): its reservation, constraint and QAS
 * set end now, so that a joiner that reserves the share again finds it
 * free.
 */
void bvt_plan_task_exit(struct task_struct *p)
{
	struct bvt_rsv *rsv;

	/*
	 * PF_EXITING before the look: pairs with bvt_qas_set_period(), which
	 * stores a set and then looks at PF_EXITING, so that of the two one
	 * sees the other.
	 */
	smp_mb();
	if (likely(!bvt_rsv_of(p) && !bvt_tc_of(p) &&
		   !bvt_qas_of(p)))
		return;
	bvt_qas_exit(p);
	rsv = bvt_rsv_unlink(p);
	if (rsv)
		bvt_rsv_free(rsv);
	bvt_tc_release(p);
}

/*
 * A thread's reservation and constraint end with it, in whatever class it
 * dies (boosted, or having left the class with a constraint queued on
 * another CPU).  Normally bvt_plan_task_exit() has ended them; not one that
 * BVT_CTL_RESERVE, racing with the exit, linked after that.  A QAS set
 * never outlives bvt_plan_task_exit(): bvt_qas_set_period() takes back one it
 * stores as the thread starts to exit.
 */
void bvt_plan_task_dead(struct task_struct *p)
{
	struct bvt_plan_task *pt = p->bvt.in_plan;

	if (likely(!pt))
		return;
	bvt_rsv_release(p);
	bvt_tc_release(p);
	/* /proc/<pid>/sched may still read it, under RCU. */
	WRITE_ONCE(p->bvt.in_plan, NULL);
	kfree_rcu(pt, rcu);
}

/*
 * Leaving the class ends @p's CPU reservation and QAS set, and the
 * guarantee of its constraint, whatever parameters it keeps.  Called with
 * its rq locked.
 */
void bvt_plan_leave(struct task_struct *p)
{
	lockdep_assert_rq_held(task_rq(p));
	if (likely(!p->bvt.in_plan))
		return;
	bvt_qas_stop(task_rq(p), p);
	bvt_rsv_release(p);
	bvt_tc_lose(p);
}

/*
 * Has @p a CPU its plan may want it on: a reservation, or a constraint
 * accepted there?  A constraint that ended, which its thread keeps until
 * exit, has none.
 */
static inline bool bvt_plan_homed(const struct task_struct *p)
{
	struct bvt_tc *tc = bvt_tc_of(p);

	return bvt_rsv_of(p) || (tc && READ_ONCE(tc->cpu) >= 0);
}

/*
 * @p, with a part in the plan, starts (@in) or stops running on @rq: its
 * constraint's time taken counts from then, and once put, it may be
 * wanted on its plan's CPU.
 */
void bvt_plan_switched(struct rq *rq, struct task_struct *p, bool in)
{
	if (bvt_tc_of(p))
		bvt_tc_switched(p, in);
	if (!in && bvt_plan_homed(p))
		bvt_plan_put(rq, p);
}

/*
 * Before a reservation is made, with no mutex held: the slots of those
 * that exits ended are freed first.
 */
static void bvt_rsv_flush(void)
{
	flush_workqueue(bvt_rsv_wq);
}

/*
 * Reserve for @p: the placement of bvt_ctl(BVT_CTL_RESERVE), and with a
 * @window (its period), of a QAS mandatory part of @arg->amount.  Placed
 * and linked under bvt_rsv_mutex: hotplug, which moves reservations under
 * it too, sees none half made.
 */
static int bvt_rsv_reserve(struct task_struct *p, struct sched_bvt_rsv *arg,
			   u64 window)
{
	int *cpus, n, ret;
	struct bvt_plan_task *spare;
	struct bvt_rsv *rsv;
	struct rq_flags rf;
	struct rq *rq;

	if (arg->period < SCHED_BVT_RSV_PERIOD_MIN ||
	    arg->period > SCHED_BVT_RSV_PERIOD_MAX ||
	    arg->amount < SCHED_BVT_RSV_AMOUNT_MIN ||
	    arg->amount > arg->period)
		return -EINVAL;
	if (bvt_in_plan_prepare(p, &spare))
		return -ENOMEM;
	rsv = bvt_rsv_alloc(&cpus);
	if (!rsv) {
		kfree(spare);
		return -ENOMEM;
	}
	rsv->window = window;
	rsv->window_amount = window ? arg->amount : 0;

	mutex_lock(&bvt_rsv_mutex);
	if (bvt_rsv_of(p)) {
		ret = -EEXIST;
		goto unlock;
	}
	n = bvt_rsv_cpu_order(p->cpus_ptr, cpus);
	/* Its caller has CAP_SYS_NICE: unprivileged constraints make room. */
	ret = bvt_rsv_place_any(rsv, cpus, n, -1, arg->amount, arg->period,
				true);
	if (ret)
		goto unlock;

	/* Placed: link it to @p unless @p has left the class or is exiting. */
	rq = task_rq_lock(p, &rf);
	scoped_guard(raw_spinlock, &bvt_rsv_lock) {
		/* An affinity change meanwhile may have left its CPU. */
		if (!cpumask_test_cpu(rsv->cpu, p->cpus_ptr))
			ret = -EAGAIN;
		else if (p->policy != SCHED_BVT || (p->flags & PF_EXITING) ||
			 bvt_rsv_of(p) || (window && !bvt_qas_takes_rsv(p)))
			ret = -ESRCH;
		if (!ret) {
			bvt_in_plan_link(p, &spare);
			WRITE_ONCE(rsv->task, p);
			WRITE_ONCE(p->bvt.in_plan->rsv, rsv);
		} else {
			list_del(&rsv->node);
			bvt_rsv_account(rsv, -1);
		}
	}
	task_rq_unlock(rq, p, &rf);
	if (ret) {
		__bvt_rsv_free(rsv);
		rsv = NULL;
		goto unlock;
	}
	arg->amount = rsv->amount;
	arg->period = rsv->period;
	arg->cpu = rsv->cpu;
	arg->ran = 0;
	trace_sched_bvt_rsv_reserve(p, rsv->cpu, rsv->amount, rsv->period);
	rsv = NULL;
unlock:
	mutex_unlock(&bvt_rsv_mutex);
	kfree(spare);
	kfree(rsv);
	kfree(cpus);
	return ret;
}

/*
 * Taking a reservation's CPU away.  A reservation stays on its CPU; one
 * that must leave it, when its thread's affinity no longer has it or the
 * CPU goes down, is admitted anew elsewhere, granted from what it has (so
 * never less), and only then leaves its old plan: it moves whole or not
 * at all.  The call that takes the CPU away fails with -EBUSY if no
 * other CPU takes it, or while its thread's accepted constraint, which
 * counts on its reserved time there, runs.
 */

/* The CPU @p's accepted constraint is queued on, or -1. */
static int bvt_tc_cpu(struct task_struct *p)
{
	struct bvt_tc *tc;

	guard(rcu)();
	tc = bvt_tc_of(p);
	return tc ? READ_ONCE(tc->cpu) : -1;
}

/*
 * Move @p's reservation @rsv to an active CPU of @mask.  Mutex held.  Not
 * while @p's constraint, accepted on @rsv's CPU, counts on its reserved
 * time there, unless that CPU goes down (@hotplug): the constraint then
 * loses its guarantee as the reservation leaves.
 */
static int bvt_rsv_move(struct task_struct *p, struct bvt_rsv *rsv,
			const struct cpumask *mask, bool hotplug)
{
	int *cpus, n, ret;
	struct bvt_rsv *to, *freed;
	struct rq_flags rf;
	bool counts_on;
	struct rq *rq;

	lockdep_assert_held(&bvt_rsv_mutex);
	counts_on = bvt_tc_cpu(p) == rsv->cpu;
	if (counts_on && !hotplug)
		return -EBUSY;
	to = bvt_rsv_alloc(&cpus);
	if (!to)
		return -ENOMEM;
	to->window = rsv->window;
	to->window_amount = rsv->window_amount;
	n = bvt_rsv_cpu_order(mask, cpus);
	/*
	 * A CPU going down moves it as it must; an affinity change, only if
	 * its caller might have made it anew.
	 */
	ret = bvt_rsv_place_any(to, cpus, n, rsv->cpu, rsv->amount,
				rsv->period, hotplug ||
				ns_capable_noaudit(&init_user_ns, CAP_SYS_NICE));
	kfree(cpus);
	if (ret) {
		kfree(to);
		return ret == -ENOSPC ? -EBUSY : ret;
	}

	/* Placed: hand @p over, unless it has let @rsv go meanwhile. */
	rq = task_rq_lock(p, &rf);
	scoped_guard(raw_spinlock, &bvt_rsv_lock) {
		freed = to;
		if (bvt_rsv_of(p) == rsv) {
			to->ran = rsv->ran;
			to->nr_exhausted = rsv->nr_exhausted;
			WRITE_ONCE(to->task, p);
			WRITE_ONCE(p->bvt.in_plan->rsv, to);
			WRITE_ONCE(rsv->task, NULL);
			freed = rsv;
		}
		list_del(&freed->node);
		bvt_rsv_account(freed, -1);
	}
	task_rq_unlock(rq, p, &rf);
	if (freed == rsv) {
		trace_sched_bvt_rsv_reserve(p, to->cpu, to->amount, to->period);
		if (counts_on)
			bvt_tc_drop(p);
	}
	__bvt_rsv_free(freed);
	return 0;
}

/*
 * sched_setaffinity() of @p to @mask: move its reservation if @mask does
 * not have its CPU, or refuse (-EBUSY) if no CPU of @mask has room or its
 * accepted constraint counts on the reserved time it has there.  A
 * constraint accepted on a CPU that @mask does not have, and that counts
 * on no reserved time, loses its guarantee: the change goes ahead.
 *
 * Not for a change of cpuset, which cpuset_can_attach() does not ask us
 * about, nor for a change racing with BVT_CTL_RESERVE (which checks the
 * mask it links under, not the one about to be set): either leaves the
 * reservation unused (bvt_rsv_pull() does not pull a thread where it may
 * not run) until it is released; no other thread's guarantee changes.
 */
int bvt_rsv_check_affinity(struct task_struct *p, const struct cpumask *mask)
{
	struct bvt_rsv *rsv;
	int cpu, ret;

	if (likely(!bvt_rsv_of(p) && !bvt_tc_of(p)))
		return 0;
	/* Hotplug moves reservations under the mutex too: no CPU lock. */
	guard(mutex)(&bvt_rsv_mutex);
	/* Unlinked meanwhile, @rsv is freed under the mutex only. */
	rsv = bvt_rsv_of(p);
	cpu = bvt_tc_cpu(p);
	if (rsv && !cpumask_test_cpu(rsv->cpu, mask)) {
		ret = bvt_rsv_move(p, rsv, mask, false);
		if (ret)
			return ret;
	}
	if (cpu >= 0 && !cpumask_test_cpu(cpu, mask))
		bvt_tc_drop(p);
	return 0;
}

/*
 * @cpu is going down (cpu_active_mask no longer has it): move its
 * reservations to the CPUs their threads may run on, or refuse, as
 * SCHED_DEADLINE refuses when its bandwidth would not fit.  Once all have
 * moved, the constraints accepted there lose their guarantee and end
 * flagged missed: any SCHED_BVT thread may ask for one, and none may hold
 * a CPU up.  An offline refused leaves them, but for those that counted on
 * a reservation that moved.  With tasks frozen (suspend, kexec) nothing
 * moves and nothing is refused: the plan is parked with the CPU
 * (rq_offline_bvt()) and resumes with it.  Called with the hotplug lock
 * held for writing: it waits for no one that may wait for that lock (the
 * slots of reservations that exits released are freed by bvt_rsv_wq, not
 * flushed here; they run nothing meanwhile).
 */
int bvt_rsv_cpu_inactive(unsigned int cpu)
{
	struct bvt_rsv_cpu *rc = per_cpu_ptr(&bvt_rsv_cpus, cpu);
	struct rq *rq = cpu_rq(cpu);
	struct task_struct *p;
	struct rb_node *node;
	struct bvt_rsv *rsv;
	int ret = 0;

	if (!READ_ONCE(bvt_rsv_ready) || cpuhp_tasks_frozen)
		return 0;
	guard(mutex)(&bvt_rsv_mutex);
	while (!ret) {
		scoped_guard(raw_spinlock_irq, &bvt_rsv_lock) {
			rsv = list_first_entry_or_null(&rc->list,
						       struct bvt_rsv, node);
			/* None is half made: that takes the mutex. */
			p = rsv ? rsv->task : NULL;
			if (p)
				get_task_struct(p);
		}
		if (!p)
			break;
		ret = bvt_rsv_move(p, rsv, p->cpus_ptr, true);
		put_task_struct(p);
	}
	if (ret)
		return ret;
	scoped_guard(rq_lock_irqsave, rq) {
		while ((node = rb_first_cached(&rq->bvt.pl.tcs)))
			bvt_tc_unqueue(rq, rb_entry(node, struct bvt_tc, node),
				       true);
		bvt_plan_tcs_gone(rq);
	}
	return 0;
}

/*
 * /proc/<pid>/sched: the thread's reservation (granted amount and period,
 * its CPU, reserved time run) and its constraints so far.
 */
void bvt_rsv_proc_show(struct task_struct *p, struct seq_file *m)
{
	struct sched_bvt_rsv r = { .cpu = -1 };
	unsigned long exhausted = 0;
	struct bvt_rsv *rsv;
	struct bvt_tc *tc;

	bvt_qas_proc_show(p, m);
	scoped_guard(raw_spinlock_irqsave, &bvt_rsv_lock) {
		rsv = bvt_rsv_of(p);
		if (rsv) {
			r.amount = rsv->amount;
			r.period = rsv->period;
			r.cpu = rsv->cpu;
			r.ran = READ_ONCE(rsv->ran);
			exhausted = READ_ONCE(rsv->nr_exhausted);
		}
	}
	if (r.cpu >= 0) {
		bvt_seq_ms(m, "bvt.rsv.amount", r.amount);
		bvt_seq_ms(m, "bvt.rsv.period", r.period);
		seq_printf(m, "%-45s:%21d\n", "bvt.rsv.cpu", r.cpu);
		bvt_seq_ms(m, "bvt.rsv.ran", r.ran);
		seq_printf(m, "%-45s:%21lu\n", "bvt.rsv.nr_exhausted", exhausted);
	}
	guard(rcu)();
	tc = bvt_tc_of(p);
	if (!tc)
		return;
	seq_printf(m, "%-45s:%21lu\n", "bvt.tc.nr_begun", tc->nr_begun);
	seq_printf(m, "%-45s:%21lu\n", "bvt.tc.nr_accepted", tc->nr_accepted);
	seq_printf(m, "%-45s:%21lu\n", "bvt.tc.nr_missed", tc->nr_missed);
}

long bvt_ctl_rsv(unsigned int op, pid_t pid, void __user *uarg)
{
	struct sched_bvt_rsv arg = { };
	struct task_struct *p;
	struct bvt_rsv *rsv;
	u32 usize = 0;
	long ret;

	/* Until bvt_rsv_init() has run. */
	if (unlikely(!READ_ONCE(bvt_rsv_ready)))
		return -ENOMEM;
	if (op != BVT_CTL_RELEASE) {
		ret = bvt_ctl_copy_in(&arg, sizeof(arg), uarg, &usize,
				      SCHED_BVT_RSV_SIZE_VER0);
		if (ret)
			return ret;
	}
	/* What only the kernel writes is 0 from the caller, for later use. */
	if (op == BVT_CTL_RESERVE && (arg.cpu || arg.ran))
		return -EINVAL;
	if (op == BVT_CTL_RESERVE && !capable(CAP_SYS_NICE))
		return -EPERM;
	scoped_guard(rcu) {
		p = pid ? find_task_by_vpid(pid) : current;
		if (!p)
			return -ESRCH;
		get_task_struct(p);
	}
	/* Giving one's own up needs no privilege, as lowering nice does not. */
	ret = -EPERM;
	if (op == BVT_CTL_RELEASE && p != current && !capable(CAP_SYS_NICE))
		goto put;
	/* As sched_setattr() and sched_getattr() ask of another thread. */
	ret = op == BVT_CTL_GET_RSV ? security_task_getscheduler(p) :
				      security_task_setscheduler(p);
	if (ret)
		goto put;
	switch (op) {
	case BVT_CTL_RESERVE:
		ret = -EINVAL;
		if (p->policy != SCHED_BVT)
			break;
		bvt_rsv_flush();
		ret = bvt_rsv_reserve(p, &arg, 0);
		break;
	case BVT_CTL_RELEASE:
		ret = -ENOENT;
		if (!bvt_rsv_of(p))
			break;
		/*
		 * Its constraint counts on the reservation: end that first.
		 * (bvt_tc_begin() holds the mutex too while it counts.)
		 */
		scoped_guard(mutex, &bvt_rsv_mutex) {
			rsv = bvt_rsv_of(p);
			ret = -ENOENT;
			if (!rsv)
				break;
			ret = -EBUSY;
			if (bvt_tc_cpu(p) == rsv->cpu)
				break;
			/* A QAS mandatory part's ends with its set. */
			if (rsv->window)
				break;
			rsv = bvt_rsv_unlink(p);
			if (rsv)
				__bvt_rsv_free(rsv);
			ret = 0;
		}
		break;
	default:
		scoped_guard(raw_spinlock_irq, &bvt_rsv_lock) {
			rsv = bvt_rsv_of(p);
			ret = -ENOENT;
			if (rsv) {
				arg.amount = rsv->amount;
				arg.period = rsv->period;
				arg.cpu = rsv->cpu;
				arg.ran = READ_ONCE(rsv->ran);
				ret = 0;
			}
		}
	}
	if (!ret && op != BVT_CTL_RELEASE)
		ret = bvt_ctl_copy_out(uarg, &arg, usize, sizeof(arg));
put:
	put_task_struct(p);
	return ret;
}

long bvt_ctl_tc(unsigned int op, pid_t pid, void __user *uarg)
{
	struct sched_bvt_tc arg = { };
	bool missed = false, resched = false;
	u32 usize;
	long ret;
	s64 taken;

	/* Until bvt_rsv_init() has run. */
	if (unlikely(!READ_ONCE(bvt_rsv_ready)))
		return -ENOMEM;
	ret = bvt_ctl_copy_in(&arg, sizeof(arg), uarg, &usize,
			      SCHED_BVT_TC_SIZE_VER0);
	if (ret)
		return ret;
	if (pid && pid != task_pid_vnr(current))
		return -EINVAL;
	/* A constraint ends whatever its thread's class is now. */
	if (op == BVT_CTL_TC_END) {
		if (arg.flags)
			return -EINVAL;
		taken = bvt_tc_end(current, &missed, &resched);
		if (taken < 0)
			return taken;
		if (resched)
			bvt_tc_resched();
		arg.time_taken = taken;
		arg.flags = SCHED_BVT_TC_ENDED | (missed ? SCHED_BVT_TC_MISSED : 0);
		return bvt_ctl_copy_out(uarg, &arg, usize, sizeof(arg));
	}
	if (current->policy != SCHED_BVT)
		return -EINVAL;
	/* An estimate longer than its window can never be met. */
	if (arg.flags & ~SCHED_BVT_TC_END_PREV || !arg.estimate ||
	    arg.deadline <= arg.start || arg.cpu || arg.time_taken ||
	    arg.__reserved ||
	    arg.deadline - arg.start > SCHED_BVT_TC_SPAN_MAX ||
	    arg.estimate > arg.deadline - arg.start ||
	    arg.start > ktime_get_ns() + SCHED_BVT_TC_SPAN_MAX)
		return -EINVAL;
	if (bvt_tc_of(current) && bvt_tc_of(current)->active) {
		if (!(arg.flags & SCHED_BVT_TC_END_PREV))
			return -EBUSY;
		arg.time_taken = bvt_tc_end(current, &missed, &resched);
		arg.flags = SCHED_BVT_TC_ENDED |
			    (missed ? SCHED_BVT_TC_MISSED : 0);
	} else {
		arg.flags = 0;
	}
	arg.cpu = -1;
	ret = bvt_tc_begin(&arg);
	/* Only now, with the next one in place (or refused). */
	if (resched)
		bvt_tc_resched();
	if (ret < 0)
		return ret;
	if (bvt_ctl_copy_out(uarg, &arg, usize, sizeof(arg)))
		return -EFAULT;
	return ret;
}

static int __init bvt_rsv_init(void)
{
	struct bvt_plan_slot slots[3];
	struct bvt_plan_req idle[2];
	int cpu, n, i;
	u64 t;

	bvt_rsv_wq = alloc_workqueue("bvt_rsv", WQ_UNBOUND, 0);
	if (!bvt_rsv_wq)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct bvt_plan_retire *r = per_cpu_ptr(&bvt_plan_retire, cpu);

		r->cpu = cpu;
		init_irq_work(&r->irq_work, bvt_plan_retire_irq_work);
		INIT_WORK(&r->work, bvt_plan_retire_work);
		INIT_LIST_HEAD(&per_cpu(bvt_rsv_cpus, cpu).list);
		/* Its idle reservation, at the start of 10 ms, then free. */
		n = bvt_plan_idle_reqs(cpu, 10 * NSEC_PER_MSEC, idle);
		for (t = 0, i = 0; i < n; t += idle[i++].amount)
			slots[i] = (struct bvt_plan_slot){
				t, t + idle[i].amount, idle[i].owner };
		slots[n] = (struct bvt_plan_slot){ t, 10 * NSEC_PER_MSEC, NULL };
		per_cpu(bvt_idle_plan, cpu) = bvt_plan_alloc(NULL, slots, n + 1,
							     10 * NSEC_PER_MSEC,
							     0, 0);
		if (!per_cpu(bvt_idle_plan, cpu))
			return -ENOMEM;
	}
	bvt_rsv_ready = true;
	return 0;
}
late_initcall(bvt_rsv_init);

static struct ctl_table bvt_rsv_sysctls[] = {
	BVT_SYSCTL(sched_bvt_rsv_idle_permille, &bvt_rsv_idle_min,
		   SYSCTL_ONE_THOUSAND),
	{
		/* read only: the reserved share of all CPUs, ppb of one */
		.procname	= "sched_bvt_rsv_admitted",
		.data		= &bvt_rsv_admitted,
		.maxlen		= sizeof(bvt_rsv_admitted),
		.mode		= 0444,
		.proc_handler	= proc_doulongvec_minmax,
	},
};

static int __init sched_bvt_rsv_sysctl_init(void)
{
	register_sysctl_init("kernel", bvt_rsv_sysctls);
	return 0;
}
late_initcall(sched_bvt_rsv_sysctl_init);
