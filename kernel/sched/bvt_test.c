// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the pure logic of SCHED_BVT: virtual time arithmetic,
 * weight scaling, the context switch allowance, SVT and the timeline, and
 * the checks on sched_setattr(2) parameters, and of the mechanisms built
 * in.  Built by build_bvt.c after bvt.c so that it sees the static helpers.
 */
#include <kunit/test.h>
#include <linux/prandom.h>

static void bvt_test_vt_compare_wraps(struct kunit *test)
{
	u64 near_wrap = U64_MAX - 5;

	KUNIT_EXPECT_TRUE(test, vt_before(1, 2));
	KUNIT_EXPECT_FALSE(test, vt_before(2, 2));
	KUNIT_EXPECT_FALSE(test, vt_before(3, 2));
	/* Across the wrap, order is by distance, not by magnitude. */
	KUNIT_EXPECT_TRUE(test, vt_before(near_wrap, near_wrap + 10));
	KUNIT_EXPECT_EQ(test, vt_max(near_wrap, near_wrap + 10), near_wrap + 10);
	KUNIT_EXPECT_EQ(test, vt_min(near_wrap, near_wrap + 10), near_wrap);
}

static void bvt_test_scale_by_weight(struct kunit *test)
{
	/* A weight-1024 entity's A keeps pace with real time. */
	KUNIT_EXPECT_EQ(test, bvt_scale(NSEC_PER_MSEC, 1024), NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, bvt_scale(NSEC_PER_MSEC, 2048), NSEC_PER_MSEC / 2);
	KUNIT_EXPECT_EQ(test, bvt_scale(NSEC_PER_MSEC, 1), 1024 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, bvt_scale(3 * NSEC_PER_MSEC, 3072), NSEC_PER_MSEC);
	/* No overflow for a day of run time at the smallest weight. */
	KUNIT_EXPECT_EQ(test, bvt_scale(86400ULL * NSEC_PER_SEC, 1),
			86400ULL * NSEC_PER_SEC * 1024);
}

/*
 * What the class adds to every task_struct, BVT or not: what its threads
 * need on the hot paths, and the node by which a warp that waits for U
 * is found in its CPU's tree.  What only some threads use (cooperation,
 * CPU reservations, time constraints, QAS sets) they allocate when they
 * first use it; a PBS session, when they enter the class.
 */
#define BVT_TASK_BYTES_MAX	200

static void bvt_test_task_size(struct kunit *test)
{
	kunit_info(test, "sched_bvt_entity %zu: bvt_entity %zu (pbs %zu), params %zu x2\n",
		   sizeof(struct sched_bvt_entity), sizeof(struct bvt_entity),
		   sizeof(struct bvt_pbs_state), sizeof(struct sched_bvt_params));
	KUNIT_EXPECT_LE(test, sizeof(struct sched_bvt_entity),
			BVT_TASK_BYTES_MAX);
}

static void bvt_test_entity_init(struct sched_bvt_entity *bt, u64 avt,
				 u32 weight)
{
	memset(bt, 0, sizeof(*bt));
	RB_CLEAR_NODE(&bt->se.run_node);
	bt->se.avt = avt;
	bt->se.weight = weight;
	bt->params.weight = weight;
	RB_CLEAR_NODE(&bt->warp_node);
}

static void bvt_test_warp_moves_evt(struct kunit *test)
{
	struct sched_bvt_entity bt;

	bvt_test_entity_init(&bt, 100 * NSEC_PER_MSEC, 1024);
	bt.params.warp = 30 * NSEC_PER_MSEC;
	bt.params.flags = SCHED_BVT_FLAG_WARP;
	/* Wanting to warp is not running warped. */
	KUNIT_EXPECT_TRUE(test, bvt_wants_warp(&bt));
	KUNIT_EXPECT_EQ(test, bvt_evt(&bt.se), 100 * NSEC_PER_MSEC);
	bt.se.warped = 1;
	bt.se.warp = bt.params.warp;
	KUNIT_EXPECT_EQ(test, bvt_evt(&bt.se), 70 * NSEC_PER_MSEC);
	/* The flag without W is no warp. */
	bt.params.warp = 0;
	KUNIT_EXPECT_FALSE(test, bvt_wants_warp(&bt));
}

static void bvt_test_unwarp_wait(struct kunit *test)
{
	struct sched_bvt_entity bt;
	const u64 ms = NSEC_PER_MSEC;

	bvt_test_entity_init(&bt, 0, 1024);
	bt.params.unwarp = 50 * ms;
	bt.warp_ended = 1000 * ms;
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 1000 * ms), 50 * ms);
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 1030 * ms), 20 * ms);
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 1050 * ms), 0);
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 5000 * ms), 0);
	/* A warp that ended on a CPU whose clock is a little ahead. */
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 999 * ms), 0);
	/* Never warped, or no U: no wait. */
	bt.warp_ended = 0;
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 10 * ms), 0);
	bt.warp_ended = 1000 * ms;
	bt.params.unwarp = 0;
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 1000 * ms), 0);
}

static void bvt_test_allowance_in_real_time(struct kunit *test)
{
	const u64 c = 3 * NSEC_PER_MSEC;
	/* Two entities are too much for a kernel stack frame. */
	struct sched_bvt_entity *curr, *next;

	curr = kunit_kzalloc(test, 2 * sizeof(*curr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, curr);
	next = curr + 1;
	bvt_test_entity_init(next, 0, 1024);
	/* At weight 3072, 3 ms of real time is 1 ms of virtual time. */
	bvt_test_entity_init(curr, NSEC_PER_MSEC, 3072);
	KUNIT_EXPECT_FALSE(test, bvt_allowance_used(&curr->se, &next->se, c));
	curr->se.avt = NSEC_PER_MSEC + 1;
	KUNIT_EXPECT_TRUE(test, bvt_allowance_used(&curr->se, &next->se, c));
	/* At weight 1024 the same entity may run on to 3 ms. */
	curr->se.weight = 1024;
	KUNIT_EXPECT_FALSE(test, bvt_allowance_used(&curr->se, &next->se, c));
}

/*
 * A waking entity preempts by the granularity (real time, at the running
 * entity's weight), any other change by any lower E.
 */
static void bvt_test_wakeup_granularity(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct sched_bvt_entity *curr, *se;
	unsigned int gran = sysctl_sched_bvt_wakeup_granularity_ns;

	curr = kunit_kzalloc(test, 2 * sizeof(*curr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, curr);
	se = curr + 1;
	sysctl_sched_bvt_wakeup_granularity_ns = ms;
	bvt_test_entity_init(curr, 10 * ms, 1024);
	bvt_test_entity_init(se, 10 * ms - ms / 2, 1024);
	KUNIT_EXPECT_FALSE(test, bvt_timeline_preempts(&se->se, &curr->se,
						       WF_TTWU));
	KUNIT_EXPECT_FALSE(test, bvt_timeline_preempts(&se->se, &curr->se,
						       WF_FORK));
	KUNIT_EXPECT_TRUE(test, bvt_timeline_preempts(&se->se, &curr->se, 0));
	/* At weight 2048, 1 ms of real time is 0.5 ms of virtual time. */
	curr->se.weight = 2048;
	se->se.avt = 10 * ms - ms / 2 - 1;
	KUNIT_EXPECT_TRUE(test, bvt_timeline_preempts(&se->se, &curr->se,
						      WF_TTWU));
	curr->se.weight = 1024;
	KUNIT_EXPECT_FALSE(test, bvt_timeline_preempts(&se->se, &curr->se,
						       WF_TTWU));
	/* 0 is the paper's rule. */
	se->se.avt = 10 * ms - 1;
	sysctl_sched_bvt_wakeup_granularity_ns = 0;
	KUNIT_EXPECT_TRUE(test, bvt_timeline_preempts(&se->se, &curr->se,
						      WF_TTWU));
	sysctl_sched_bvt_wakeup_granularity_ns = gran;
}

/*
 * Among entities with one E, those queued wait in the order they came; one
 * that wakes up goes ahead of them.
 */
static void bvt_test_woken_ahead_of_equals(struct kunit *test)
{
	struct bvt_rq *bvt_rq = kunit_kzalloc(test, sizeof(*bvt_rq), GFP_KERNEL);
	struct sched_bvt_entity *bt = kunit_kcalloc(test, 4, sizeof(*bt),
						    GFP_KERNEL);
	struct bvt_level *lv;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, bvt_rq);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	init_bvt_rq(bvt_rq);
	lv = &bvt_rq->root;
	for (i = 0; i < 4; i++)
		bvt_test_entity_init(&bt[i], 100, 1024);
	bvt_enqueue_entity(lv, &bt[0].se, 0);
	bvt_enqueue_entity(lv, &bt[1].se, 0);
	bvt_update_svt(lv);
	KUNIT_EXPECT_PTR_EQ(test, bvt_timeline_first(lv), &bt[0].se);
	/* Woken with an A below SVT, it is raised to SVT and goes first. */
	bt[2].se.avt = 50;
	bvt_enqueue_entity(lv, &bt[2].se, ENQUEUE_WAKEUP);
	KUNIT_EXPECT_EQ(test, bt[2].se.avt, 100ULL);
	KUNIT_EXPECT_PTR_EQ(test, bvt_timeline_first(lv), &bt[2].se);
	/* Put back after a run of 0 ns, or moved here: behind its equals. */
	bvt_unqueue(lv, &bt[2].se);
	bvt_queue(lv, &bt[2].se);
	KUNIT_EXPECT_PTR_EQ(test, bvt_timeline_first(lv), &bt[0].se);
	bvt_enqueue_entity(lv, &bt[3].se, ENQUEUE_MIGRATED);
	KUNIT_EXPECT_PTR_EQ(test, bvt_timeline_first(lv), &bt[0].se);
	for (i = 0; i < 4; i++)
		bvt_dequeue_entity(lv, &bt[i].se, 0);
	KUNIT_EXPECT_EQ(test, lv->nr_queued, 0U);
}

/*
 * At a tick, the running entity hands the CPU on after its allowance over
 * one that has waited since it was picked, after the wake-up granularity
 * over one that woke up since; after its allowance under the paper's rule.
 */
static void bvt_test_woken_waits_granularity(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	unsigned int gran = sysctl_sched_bvt_wakeup_granularity_ns;
	unsigned int c = sysctl_sched_bvt_allowance_ns;
	struct rq *rq = kunit_kzalloc(test, sizeof(*rq), GFP_KERNEL);
	struct sched_bvt_entity *bt = kunit_kcalloc(test, 2, sizeof(*bt),
						    GFP_KERNEL);
	struct bvt_level *lv;

	KUNIT_ASSERT_NOT_NULL(test, rq);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	init_bvt_rq(&rq->bvt);
	lv = &rq->bvt.root;
	sysctl_sched_bvt_allowance_ns = 3 * ms;
	sysctl_sched_bvt_wakeup_granularity_ns = ms;
	/* The running entity is 2 ms past the next one in line. */
	bvt_test_entity_init(&bt[0], 10 * ms, 1024);
	bvt_test_entity_init(&bt[1], 8 * ms, 1024);
	bvt_enqueue_entity(lv, &bt[1].se, 0);
	rq->bvt.picked_at = 50 * ms;
	/* Switched out at the pick. */
	bt[1].wait_start = 50 * ms;
	KUNIT_EXPECT_FALSE(test, bvt_timeline_expired(lv, &bt[0].se));
	bt[1].wait_start = 50 * ms + 1;
	KUNIT_EXPECT_TRUE(test, bvt_timeline_expired(lv, &bt[0].se));
	/* Not yet the granularity past it. */
	bt[0].se.avt = 9 * ms;
	KUNIT_EXPECT_FALSE(test, bvt_timeline_expired(lv, &bt[0].se));
	bt[0].se.avt = 10 * ms;
	sysctl_sched_bvt_wakeup_granularity_ns = 0;
	KUNIT_EXPECT_FALSE(test, bvt_timeline_expired(lv, &bt[0].se));
	sysctl_sched_bvt_wakeup_granularity_ns = gran;
	sysctl_sched_bvt_allowance_ns = c;
	bvt_dequeue_entity(lv, &bt[1].se, 0);
	KUNIT_EXPECT_EQ(test, lv->nr_queued, 0U);
}

static void bvt_test_timeline_and_svt(struct kunit *test)
{
	struct bvt_rq *bvt_rq = kunit_kzalloc(test, sizeof(*bvt_rq), GFP_KERNEL);
	struct sched_bvt_entity *bt = kunit_kcalloc(test, 3, sizeof(*bt),
						    GFP_KERNEL);
	struct bvt_level *lv;

	KUNIT_ASSERT_NOT_NULL(test, bvt_rq);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	init_bvt_rq(bvt_rq);
	lv = &bvt_rq->root;
	bvt_test_entity_init(&bt[0], 500, 1024);
	bvt_test_entity_init(&bt[1], 300, 1024);
	bvt_test_entity_init(&bt[2], 400, 1024);
	/* bt[2] runs warped: least E, but not least A. */
	bt[2].params.flags = SCHED_BVT_FLAG_WARP;
	bt[2].params.warp = 250;
	bt[2].se.warped = 1;
	bt[2].se.warp = 250;

	bvt_enqueue_entity(lv, &bt[0].se, 0);
	bvt_enqueue_entity(lv, &bt[1].se, 0);
	bvt_enqueue_entity(lv, &bt[2].se, 0);
	bvt_update_svt(lv);
	KUNIT_EXPECT_EQ(test, lv->nr_queued, 3U);
	KUNIT_EXPECT_PTR_EQ(test, bvt_pick_entity(lv), &bt[2].se);
	KUNIT_EXPECT_EQ(test, lv->svt, 300ULL);

	/* The picked entity leaves the timeline but still counts for SVT. */
	bvt_set_curr(lv, &bt[2].se);
	KUNIT_EXPECT_PTR_EQ(test, bvt_timeline_first(lv), &bt[1].se);
	bvt_dequeue_entity(lv, &bt[1].se, 0);
	KUNIT_EXPECT_EQ(test, lv->svt, 400ULL);
	KUNIT_EXPECT_PTR_EQ(test, bvt_pick_entity(lv), &bt[2].se);

	/* Waking up, bt[1] is brought up to SVT. */
	bvt_enqueue_entity(lv, &bt[1].se, ENQUEUE_WAKEUP);
	KUNIT_EXPECT_EQ(test, bt[1].se.avt, 400ULL);

	/* SVT never goes back, even when the runqueue empties. */
	bvt_put_curr(lv, &bt[2].se);
	bvt_dequeue_entity(lv, &bt[0].se, 0);
	bvt_dequeue_entity(lv, &bt[1].se, 0);
	bvt_dequeue_entity(lv, &bt[2].se, 0);
	KUNIT_EXPECT_EQ(test, lv->nr_queued, 0U);
	KUNIT_EXPECT_EQ(test, lv->svt, 400ULL);
	KUNIT_EXPECT_NULL(test, bvt_pick_entity(lv));
}

static void bvt_test_relative_vt(struct kunit *test)
{
	struct bvt_rq *bvt_rq = kunit_kzalloc(test, sizeof(*bvt_rq), GFP_KERNEL);
	struct sched_bvt_entity bt;
	struct bvt_level *lv;

	KUNIT_ASSERT_NOT_NULL(test, bvt_rq);
	init_bvt_rq(bvt_rq);
	lv = &bvt_rq->root;
	lv->svt = 1000;
	/* 50 ahead of the SVT it left: 50 ahead of this one. */
	bvt_test_entity_init(&bt, 50, 1024);
	bt.se.vt_relative = 1;
	bvt_enqueue_entity(lv, &bt.se, 0);
	KUNIT_EXPECT_EQ(test, bt.se.avt, 1050ULL);
	KUNIT_EXPECT_EQ(test, bt.se.vt_relative, 0U);
	bvt_dequeue_entity(lv, &bt.se, 0);

	/* Far behind, and waking: no credit. */
	bt.se.avt = -500LL;
	bt.se.vt_relative = 1;
	bvt_enqueue_entity(lv, &bt.se, ENQUEUE_WAKEUP);
	KUNIT_EXPECT_EQ(test, bt.se.avt, 1000ULL);
}

static void bvt_test_params_valid(struct kunit *test)
{
	struct sched_bvt_params ok = {
		.weight = 2048, .flags = SCHED_BVT_FLAG_WARP,
		.warp = 20 * NSEC_PER_MSEC, .warp_limit = 5 * NSEC_PER_MSEC,
		.unwarp = 50 * NSEC_PER_MSEC,
	};
	struct sched_bvt_params p;

	KUNIT_EXPECT_TRUE(test, bvt_params_valid(&ok));
	p = ok; p.weight = 0;
	KUNIT_EXPECT_TRUE(test, bvt_params_valid(&p));
	p = ok; p.warp_limit = 0;
	KUNIT_EXPECT_TRUE(test, bvt_params_valid(&p));
	p = ok; p.weight = SCHED_BVT_WEIGHT_MAX + 1;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	p = ok; p.flags = 0x80000000;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	/* The reserved-effort level takes an explicit weight. */
	p = ok; p.flags |= SCHED_BVT_FLAG_RESERVED;
	KUNIT_EXPECT_TRUE(test, bvt_params_valid(&p));
	p.weight = 0;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	p = ok; p.warp = -1;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	p = ok; p.warp = SCHED_BVT_WARP_MAX + 1;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	p = ok; p.warp_limit = SCHED_BVT_WARP_LIMIT_MIN - 1;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	p = ok; p.warp_limit = SCHED_BVT_TIME_MAX + 1;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
	p = ok; p.unwarp = SCHED_BVT_TIME_MAX + 1;
	KUNIT_EXPECT_FALSE(test, bvt_params_valid(&p));
}

static void bvt_test_params_raise(struct kunit *test)
{
	struct sched_bvt_params none = { };
	struct sched_bvt_params warp = {
		.flags = SCHED_BVT_FLAG_WARP, .warp = 20 * NSEC_PER_MSEC,
		.warp_limit = 5 * NSEC_PER_MSEC, .unwarp = 50 * NSEC_PER_MSEC,
	};
	struct sched_bvt_params p;

	/* Weight: above the cap and above the current weight. */
	p = none; p.weight = 1024;
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&none, 15, &p, 1024));
	p.weight = 1025;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&none, 1024, &p, 1024));
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&none, 4096, &p, 1024));
	/* A nice-19 thread whose RLIMIT_NICE allows no lower nice: 15. */
	p.weight = 1024;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&none, 15, &p, 15));
	p.weight = 15;
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&none, 15, &p, 15));
	/* One that RLIMIT_NICE lets go to nice -5: up to 3121. */
	p.weight = 3121;
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&none, 1024, &p, 3121));
	p.weight = 3122;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&none, 1024, &p, 3121));

	/* Warp: enabling, more, longer or more often raises... */
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&none, 1024, &warp, 1024));
	p = warp; p.warp++;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&warp, 1024, &p, 1024));
	p = warp; p.warp_limit = 0;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&warp, 1024, &p, 1024));
	p = warp; p.unwarp--;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&warp, 1024, &p, 1024));
	/* ...and the rest lowers or keeps the claim. */
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&warp, 1024, &warp, 1024));
	p = warp; p.warp--; p.warp_limit--; p.unwarp++;
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&warp, 1024, &p, 1024));
	p = warp; p.flags = 0;
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&warp, 1024, &p, 1024));
	/* W without the flag is a claim too (SA_BVT_WARP uses it)... */
	p = warp; p.flags = 0;
	KUNIT_EXPECT_TRUE(test, bvt_params_raise(&none, 1024, &p, 1024));
	/* ...but a warp flag with no warp is no warp. */
	p = none; p.flags = SCHED_BVT_FLAG_WARP;
	KUNIT_EXPECT_FALSE(test, bvt_params_raise(&none, 1024, &p, 1024));
}

/* Warp start and end, as the limit timer and a block drive them. */
static void bvt_test_warp_state(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct sched_bvt_entity bt;

	bvt_test_entity_init(&bt, 100 * ms, 1024);
	bt.params.flags = SCHED_BVT_FLAG_WARP;
	bt.params.warp = 30 * ms;
	bt.params.warp_limit = 5 * ms;
	bt.params.unwarp = 50 * ms;

	__bvt_warp_start(&bt);
	KUNIT_EXPECT_EQ(test, bt.se.warped, 1U);
	KUNIT_EXPECT_EQ(test, bvt_evt(&bt.se), 70 * ms);
	KUNIT_EXPECT_EQ(test, bt.warp_ran, 0ULL);
	/* L reached at 1000 ms: unwarped, and U runs from there. */
	bt.warp_ran = 5 * ms;
	__bvt_warp_end(&bt, 1000 * ms);
	KUNIT_EXPECT_EQ(test, bt.se.warped, 0U);
	KUNIT_EXPECT_EQ(test, bvt_evt(&bt.se), 100 * ms);
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 1010 * ms), 40 * ms);
	KUNIT_EXPECT_EQ(test, bvt_unwarp_wait(&bt, 1050 * ms), 0ULL);
	/* A new warp starts with nothing run. */
	__bvt_warp_start(&bt);
	KUNIT_EXPECT_EQ(test, bt.warp_ran, 0ULL);
	/* An SA_BVT_WARP signal wants W even without the flag. */
	bt.params.flags = 0;
	KUNIT_EXPECT_FALSE(test, bvt_wants_warp(&bt));
	bt.sig_warp = 1;
	KUNIT_EXPECT_TRUE(test, bvt_wants_warp(&bt));
}

/* A level's warp: the threshold and direct modes. */
static void bvt_test_level_warp(struct kunit *test)
{
	struct bvt_level lv = { };
	struct bvt_entity head = { };

	lv.warp = 7;
	lv.threshold = 10;
	KUNIT_EXPECT_EQ(test, bvt_head_warp(&lv, NULL), 0LL);
	/* Unwarped head: no warp in either mode. */
	head.warp = 50;
	KUNIT_EXPECT_EQ(test, bvt_head_warp(&lv, &head), 0LL);
	head.warped = 1;
	/* Threshold: the level's own warp, from the threshold up. */
	KUNIT_EXPECT_EQ(test, bvt_head_warp(&lv, &head), 7LL);
	head.warp = 10;
	KUNIT_EXPECT_EQ(test, bvt_head_warp(&lv, &head), 7LL);
	head.warp = 9;
	KUNIT_EXPECT_EQ(test, bvt_head_warp(&lv, &head), 0LL);
	/* Direct: the head's warp. */
	lv.direct = 1;
	KUNIT_EXPECT_EQ(test, bvt_head_warp(&lv, &head), 9LL);
}

/* Admission: the reserved share against the best-effort weight. */
static void bvt_test_re_admission(struct kunit *test)
{
	/* 75 %: up to three times the best-effort weight. */
	KUNIT_EXPECT_TRUE(test, bvt_re_fits(3072, 1024, 75));
	KUNIT_EXPECT_FALSE(test, bvt_re_fits(3073, 1024, 75));
	KUNIT_EXPECT_TRUE(test, bvt_re_fits(1024, 1024, 50));
	KUNIT_EXPECT_FALSE(test, bvt_re_fits(1025, 1024, 50));
	/* 0 % admits nothing but nothing; no overflow at the extremes. */
	KUNIT_EXPECT_TRUE(test, bvt_re_fits(0, 1, 0));
	KUNIT_EXPECT_FALSE(test, bvt_re_fits(1, 88761, 0));
	KUNIT_EXPECT_TRUE(test, bvt_re_fits(99, 1, 99));
	KUNIT_EXPECT_FALSE(test, bvt_re_fits(1ULL << 40, 1, 99));
}

/* Minimum charging unit: to the nearest unit, exact without one. */
static void bvt_test_mcu_round(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, bvt_mcu_round(1234567, 0), 1234567ULL);
	KUNIT_EXPECT_EQ(test, bvt_mcu_round(1499999, 1000000), 1000000ULL);
	KUNIT_EXPECT_EQ(test, bvt_mcu_round(1500000, 1000000), 2000000ULL);
	KUNIT_EXPECT_EQ(test, bvt_mcu_round(400000, 1000000), 0ULL);
	KUNIT_EXPECT_EQ(test, bvt_mcu_round(0, 1000000), 0ULL);
}

static void bvt_test_pi_merge(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct sched_bvt_params none = { };
	struct sched_bvt_params warp = {
		.flags = SCHED_BVT_FLAG_WARP, .warp = 20 * ms,
		.warp_limit = 5 * ms, .unwarp = 50 * ms,
	};
	struct sched_bvt_params re = {
		.weight = 4096, .flags = SCHED_BVT_FLAG_RESERVED,
	};
	struct sched_bvt_params pi, own;

	/* A thread outside the class runs with its waiter's parameters. */
	bvt_pi_merge(&pi, &none, 0, &warp, 1024);
	KUNIT_EXPECT_EQ(test, pi.weight, 1024U);
	KUNIT_EXPECT_EQ(test, pi.flags, SCHED_BVT_FLAG_WARP);
	KUNIT_EXPECT_EQ(test, pi.warp, 20 * ms);
	KUNIT_EXPECT_EQ(test, pi.warp_limit, 5 * ms);
	KUNIT_EXPECT_EQ(test, pi.unwarp, 50 * ms);

	/* The larger weight; a reserved-effort waiter takes it there. */
	bvt_pi_merge(&pi, &warp, 8192, &re, 4096);
	KUNIT_EXPECT_EQ(test, pi.weight, 8192U);
	KUNIT_EXPECT_EQ(test, pi.flags,
			SCHED_BVT_FLAG_WARP | SCHED_BVT_FLAG_RESERVED);
	KUNIT_EXPECT_EQ(test, pi.warp, 20 * ms);

	/* The larger warp, whole: its L and U come with it. */
	own = warp;
	own.warp = 30 * ms;
	own.warp_limit = 0;
	bvt_pi_merge(&pi, &own, 1024, &warp, 1024);
	KUNIT_EXPECT_EQ(test, pi.warp, 30 * ms);
	KUNIT_EXPECT_EQ(test, pi.warp_limit, 0ULL);
	own.warp = 10 * ms;
	bvt_pi_merge(&pi, &own, 1024, &warp, 1024);
	KUNIT_EXPECT_EQ(test, pi.warp, 20 * ms);
	KUNIT_EXPECT_EQ(test, pi.warp_limit, 5 * ms);

	/* A W without the flag is no warp to inherit, nor to keep. */
	own.flags = 0;
	own.warp = 40 * ms;
	bvt_pi_merge(&pi, &own, 1024, &warp, 1024);
	KUNIT_EXPECT_EQ(test, pi.warp, 20 * ms);
	warp.flags = 0;
	bvt_pi_merge(&pi, &none, 0, &warp, 1024);
	KUNIT_EXPECT_EQ(test, pi.flags, 0U);
}

#ifdef CONFIG_SCHED_BVT_COOP
/* Give @bt the state coop_poll() gives a thread at its first call. */
static void bvt_test_coop_init(struct kunit *test, struct sched_bvt_entity *bt)
{
	struct sched_bvt_coop_state *cs = kunit_kzalloc(test, sizeof(*cs),
							GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cs);
	cs->bt = bt;
	RB_CLEAR_NODE(&cs->dl_node);
	RB_CLEAR_NODE(&cs->ev_node);
	RB_CLEAR_NODE(&cs->asleep_node);
	bt->coop = cs;
}

/* The member a domain picks, if it picks it for @why. */
static struct bvt_entity *bvt_test_coop_pick_why(struct bvt_level *lv,
						 enum bvt_coop_reason why)
{
	enum bvt_coop_reason reason;
	struct bvt_entity *se;

	se = __bvt_coop_pick(lv, &reason);
	return se && reason == why ? se : NULL;
}

/*
 * A cooperation domain runs the earliest expired deadline, else the most
 * important event, else the earliest deadline; its weight is its runnable
 * members'.
 */
static void bvt_test_coop_pick(struct kunit *test)
{
	struct bvt_rq *bvt_rq = kunit_kzalloc(test, sizeof(*bvt_rq), GFP_KERNEL);
	struct sched_bvt_entity *bt = kunit_kcalloc(test, 3, sizeof(*bt),
						    GFP_KERNEL);
	u64 now = ktime_get_mono_fast_ns();
	enum bvt_coop_reason reason;
	struct bvt_level *lv;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, bvt_rq);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	for (i = 0; i < 3; i++) {
		bvt_test_entity_init(&bt[i], 0, 1024 << i);
		bvt_test_coop_init(test, &bt[i]);
	}
	/* As under a runqueue lock: the domain's lock is taken inside it. */
	guard(irq)();
	init_bvt_rq(bvt_rq);
	lv = &bvt_rq->coop.lv;
	bt[0].coop->flags = SCHED_BVT_COOP_EVENT;
	bt[0].coop->priority = 5;
	bt[1].coop->flags = SCHED_BVT_COOP_EVENT;
	bt[1].coop->priority = 2;
	bt[2].coop->flags = SCHED_BVT_COOP_DEADLINE;
	bt[2].coop->deadline = now + 100 * NSEC_PER_SEC;
	for (i = 0; i < 3; i++)
		bvt_enqueue_entity(lv, &bt[i].se, 0);
	KUNIT_EXPECT_EQ(test, lv->se.weight, 1024U + 2048U + 4096U);

	/* Events before a deadline yet to come, the most important first. */
	KUNIT_EXPECT_PTR_EQ(test, bvt_test_coop_pick_why(lv, BVT_COOP_EVENT),
			    &bt[1].se);
	bvt_dequeue_entity(lv, &bt[1].se, 0);
	KUNIT_EXPECT_PTR_EQ(test, bvt_test_coop_pick_why(lv, BVT_COOP_EVENT),
			    &bt[0].se);
	bvt_dequeue_entity(lv, &bt[0].se, 0);
	KUNIT_EXPECT_PTR_EQ(test, bvt_test_coop_pick_why(lv, BVT_COOP_DEADLINE),
			    &bt[2].se);
	KUNIT_EXPECT_EQ(test, lv->se.weight, 4096U);

	/* An expired deadline before any event. */
	bvt_enqueue_entity(lv, &bt[0].se, 0);
	bvt_enqueue_entity(lv, &bt[1].se, 0);
	bvt_dequeue_entity(lv, &bt[2].se, 0);
	bt[2].coop->deadline = now - 1;
	bvt_enqueue_entity(lv, &bt[2].se, 0);
	KUNIT_EXPECT_PTR_EQ(test, bvt_test_coop_pick_why(lv, BVT_COOP_EXPIRED),
			    &bt[2].se);

	/* The last one out leaves a weight to charge at. */
	for (i = 0; i < 3; i++)
		bvt_dequeue_entity(lv, &bt[i].se, 0);
	KUNIT_EXPECT_NULL(test, __bvt_coop_pick(lv, &reason));
	KUNIT_EXPECT_NE(test, lv->se.weight, 0U);
}

/*
 * A member that calls coop_poll() is over its share when another waits
 * past its deadline and it has run more than a turn of the domain
 * (sched_bvt_coop_period_ns, 10 ms) ahead of the one that ran least.
 */
static void bvt_test_coop_over_share(struct kunit *test)
{
	struct bvt_rq *bvt_rq = kunit_kzalloc(test, sizeof(*bvt_rq), GFP_KERNEL);
	struct sched_bvt_entity *bt = kunit_kcalloc(test, 2, sizeof(*bt),
						    GFP_KERNEL);
	u64 now = ktime_get_mono_fast_ns(), ms = NSEC_PER_MSEC;
	struct bvt_coop_domain *dom;
	struct bvt_level *lv;

	KUNIT_ASSERT_NOT_NULL(test, bvt_rq);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	/* @a runs, with deadline 0; @b waits, its deadline a second ago. */
	bvt_test_entity_init(&bt[0], 100 * ms, 1024);
	bvt_test_entity_init(&bt[1], 100 * ms, 1024);
	bvt_test_coop_init(test, &bt[0]);
	bvt_test_coop_init(test, &bt[1]);
	guard(irq)();
	init_bvt_rq(bvt_rq);
	dom = &bvt_rq->coop;
	lv = &dom->lv;
	bt[0].se.lv = lv;
	bt[1].se.lv = lv;
	bt[0].coop->flags = SCHED_BVT_COOP_DEADLINE;
	bt[1].coop->flags = SCHED_BVT_COOP_DEADLINE;
	bt[1].coop->deadline = now - NSEC_PER_SEC;
	bvt_enqueue_entity(lv, &bt[0].se, 0);
	bvt_enqueue_entity(lv, &bt[1].se, 0);
	bvt_set_curr(lv, &bt[0].se);
	KUNIT_EXPECT_FALSE(test, bvt_coop_over_share(dom, &bt[0], now));
	bt[0].se.avt += 10 * ms;
	KUNIT_EXPECT_FALSE(test, bvt_coop_over_share(dom, &bt[0], now));
	bt[0].se.avt += 1;
	KUNIT_EXPECT_TRUE(test, bvt_coop_over_share(dom, &bt[0], now));
	/* At twice the weight, a turn is 5 ms of virtual time. */
	bt[0].se.weight = 2048;
	bt[0].se.avt = 105 * ms;
	KUNIT_EXPECT_FALSE(test, bvt_coop_over_share(dom, &bt[0], now));
	bt[0].se.avt += 1;
	KUNIT_EXPECT_TRUE(test, bvt_coop_over_share(dom, &bt[0], now));
	bt[0].se.weight = 1024;
	/* Not while the other's deadline is yet to come. */
	bvt_dequeue_entity(lv, &bt[1].se, 0);
	bt[1].coop->deadline = now + 100 * NSEC_PER_SEC;
	bvt_enqueue_entity(lv, &bt[1].se, 0);
	KUNIT_EXPECT_FALSE(test, bvt_coop_over_share(dom, &bt[0], now));
	/* Nor alone. */
	bvt_dequeue_entity(lv, &bt[1].se, 0);
	KUNIT_EXPECT_FALSE(test, bvt_coop_over_share(dom, &bt[0], now));
}

/*
 * cal_Tslice(): an outsider runs to the domain's earliest deadline, and on
 * until its E has passed the domain's, at its own weight.
 */
static void bvt_test_coop_tslice(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC, e = 100 * ms;

	/* The domain behind: at the deadline; now if it has passed. */
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(5 * ms, e, e - ms, 1024), 5 * ms);
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(0, e, e - ms, 1024), 0ULL);
	/* Level with it: just past it. */
	KUNIT_EXPECT_GT(test, bvt_coop_tslice(0, e, e, 1024), 0ULL);
	KUNIT_EXPECT_LE(test, bvt_coop_tslice(0, e, e, 1024), 2ULL);
	/* Ahead by 2 ms of E: 2 ms at weight 1024, 4 ms at 2048, 1 at 512. */
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(0, e, e + 2 * ms, 1024) / ms, 2ULL);
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(0, e, e + 2 * ms, 2048) / ms, 4ULL);
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(0, e, e + 2 * ms, 512) / ms, 1ULL);
	KUNIT_EXPECT_GT(test, bvt_coop_tslice(0, e, e + 2 * ms, 1024), 2 * ms);
	/* Whichever comes later. */
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(7 * ms, e, e + 2 * ms, 1024), 7 * ms);
	/* Across the wrap of E. */
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(0, -ms, ms, 1024) / ms, 2ULL);
	/* Far ahead, at the largest weight: a second of E at most, no wrap. */
	KUNIT_EXPECT_EQ(test, bvt_coop_tslice(0, 0, -1ULL >> 1,
					      SCHED_BVT_WEIGHT_MAX) / ms,
			(u64)SCHED_BVT_WEIGHT_MAX * 1000 / 1024);
}

/* Put @bt in @lv, and queue it there. */
static void bvt_test_queue(struct sched_bvt_entity *bt, struct bvt_level *lv)
{
	bt->se.lv = lv;
	bvt_enqueue_entity(lv, &bt->se, 0);
	bvt_levels_update(&bt->se);
}

/*
 * The outsider's slice is measured against the domain at the level the
 * two share, and only when the levels between would run the domain.
 */
static void bvt_test_coop_outsider_slice(struct kunit *test)
{
	struct bvt_rq *brq = kunit_kzalloc(test, sizeof(*brq), GFP_KERNEL);
	struct sched_bvt_entity *bt = kunit_kcalloc(test, 4, sizeof(*bt),
						    GFP_KERNEL);
	struct sched_bvt_entity *m = &bt[0], *o = &bt[1], *r = &bt[2];
	const u64 ms = NSEC_PER_MSEC;
	u64 left;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, brq);
	KUNIT_ASSERT_NOT_NULL(test, bt);
	for (i = 0; i < 4; i++)
		bvt_test_entity_init(&bt[i], 0, 1024);
	bvt_test_coop_init(test, m);
	guard(irq)();
	init_bvt_rq(brq);
	/*
	 * A member with a deadline 5 s away (a host may stop the guest for
	 * tens of ms meanwhile); the domain at E 90 ms.
	 */
	brq->coop.lv.se.avt = 90 * ms;
	m->coop->flags = SCHED_BVT_COOP_DEADLINE;
	m->coop->deadline = ktime_get_mono_fast_ns() + 5000 * ms;
	bvt_test_queue(m, &brq->coop.lv);
	KUNIT_EXPECT_EQ(test, bvt_evt(&brq->coop.lv.se), 90 * ms);

	/* A best-effort outsider ahead of it: until the deadline. */
	o->se.lv = &brq->be;
	o->se.avt = 100 * ms;
	KUNIT_EXPECT_TRUE(test, bvt_coop_outsider_slice(brq, o, &left));
	KUNIT_EXPECT_GT(test, left, 4000 * ms);
	KUNIT_EXPECT_LE(test, left, 5000 * ms);
	/* A member has a slice of its own. */
	KUNIT_EXPECT_FALSE(test, bvt_coop_outsider_slice(brq, m, &left));

	/* The deadline past: due at once, or when the outsider catches up. */
	bvt_dequeue_entity(&brq->coop.lv, &m->se, 0);
	m->coop->deadline = ktime_get_mono_fast_ns() - 1;
	bvt_enqueue_entity(&brq->coop.lv, &m->se, 0);
	KUNIT_EXPECT_TRUE(test, bvt_coop_outsider_slice(brq, o, &left));
	KUNIT_EXPECT_EQ(test, left, 0ULL);
	o->se.avt = 88 * ms;
	KUNIT_EXPECT_TRUE(test, bvt_coop_outsider_slice(brq, o, &left));
	KUNIT_EXPECT_EQ(test, left / ms, 2ULL);
	o->se.weight = 2048;
	KUNIT_EXPECT_TRUE(test, bvt_coop_outsider_slice(brq, o, &left));
	KUNIT_EXPECT_EQ(test, left / ms, 4ULL);

	/* A reserved thread, behind the best-effort level at the root. */
	r->se.lv = &brq->root;
	r->se.avt = brq->be.se.avt + 5 * ms;
	KUNIT_EXPECT_TRUE(test, bvt_coop_outsider_slice(brq, r, &left));
	KUNIT_EXPECT_EQ(test, left, 0ULL);
	/* Not if the best-effort level would run another thread first. */
	bt[3].se.avt = 50 * ms;
	bvt_test_queue(&bt[3], &brq->be);
	KUNIT_EXPECT_FALSE(test, bvt_coop_outsider_slice(brq, r, &left));
}

#endif /* CONFIG_SCHED_BVT_COOP */

#ifdef CONFIG_SCHED_BVT_PBS
/*
 * PBS: log2 against values computed in user space (Python's math.log2,
 * times 2^24, rounded), within the documented 2^-15.
 */
static void bvt_test_pbs_log2(struct kunit *test)
{
	static const struct {
		u64 x;
		u32 log2;
	} table[] = {
		{ 2ULL, 16777216 },
		{ 3ULL, 26591258 },
		{ 5ULL, 38955489 },
		{ 7ULL, 47099600 },
		{ 10ULL, 55732705 },
		{ 1000ULL, 167198116 },
		{ 12345ULL, 228029867 },
		{ 999999937ULL, 501594345 },
		{ 2147483649ULL, 520093696 },
		{ 4294967295ULL, 536870912 },
		{ 4294967296ULL, 536870912 },
		{ 4294967297ULL, 536870912 },
		{ 1000000000000ULL, 668792462 },
		{ 1125899906854969ULL, 838860800 },
		{ 9223372036854775808ULL, 1056964608 },
		{ 18446744073709551615ULL, 1073741824 },
		{ 6ULL, 43368474 },
		{ 41ULL, 89884807 },
		{ 458ULL, 148297231 },
		{ 2245ULL, 186772353 },
		{ 18757ULL, 238154955 },
		{ 155747ULL, 289387596 },
		{ 1815481ULL, 348830540 },
		{ 9361668ULL, 388532375 },
		{ 95925166ULL, 444854694 },
		{ 577131574ULL, 488289547 },
		{ 4664107866ULL, 538866629 },
		{ 40450741403ULL, 591152707 },
		{ 323156186916ULL, 641450692 },
		{ 4065405791950ULL, 702739470 },
		{ 21949711487695ULL, 743553919 },
		{ 203576929161309ULL, 797464150 },
		{ 2019143950142197ULL, 852998376 },
		{ 9846355209539984ULL, 891348508 },
		{ 113794690928066221ULL, 950583819 },
		{ 742775537210798658ULL, 995991238 },
		{ 5698127616367289324ULL, 1045307692 },
	};
	int i;

	KUNIT_EXPECT_EQ(test, bvt_pbs_log2(0), 0U);
	KUNIT_EXPECT_EQ(test, bvt_pbs_log2(1), 0U);
	for (i = 0; i < ARRAY_SIZE(table); i++) {
		s64 err = (s64)bvt_pbs_log2(table[i].x) - table[i].log2;

		KUNIT_EXPECT_LE_MSG(test, abs(err), 1LL << (BVT_PBS_Q - 15),
				    "log2(%llu)", table[i].x);
	}
}

#define BVT_TEST_Q16(x)	((u32)((x) * 65536))

/* p = log2 T - alpha log2 S at the extremes. */
static void bvt_test_pbs_prio(struct kunit *test)
{
	u32 one = BVT_TEST_Q16(1), lo = 655, hi = BVT_TEST_Q16(100);
	u64 ms = NSEC_PER_MSEC;
	s64 p, slack = 1LL << (BVT_PBS_Q - 14);

	/* S = 0: above any that has run, the older first. */
	KUNIT_EXPECT_GT(test, bvt_pbs_prio(ms, 0, one, 1024),
			bvt_pbs_prio(1000 * ms, 1, lo, 1024));
	KUNIT_EXPECT_GT(test, bvt_pbs_prio(2 * ms, 0, hi, 1024),
			bvt_pbs_prio(ms, 0, hi, 1024));
	/* T < S (clocks of two CPUs) counts as T = S. */
	KUNIT_EXPECT_EQ(test, bvt_pbs_prio(5 * ms, 10 * ms, one, 1024),
			bvt_pbs_prio(10 * ms, 10 * ms, one, 1024));
	/* alpha = 1, T = S: log2 1 = 0; twice the T: 1. */
	p = bvt_pbs_prio(64 * ms, 64 * ms, one, 1024);
	KUNIT_EXPECT_LE(test, abs(p), slack);
	p = bvt_pbs_prio(128 * ms, 64 * ms, one, 1024);
	KUNIT_EXPECT_LE(test, abs(p - BVT_PBS_ONE), slack);
	/* delta: weight 2048 is alpha * log2 2 up, at any alpha. */
	p = bvt_pbs_prio(128 * ms, 64 * ms, BVT_TEST_Q16(3), 2048) -
	    bvt_pbs_prio(128 * ms, 64 * ms, BVT_TEST_Q16(3), 1024);
	KUNIT_EXPECT_LE(test, abs(p - 3 * BVT_PBS_ONE), slack);
	/* alpha = 0.01: the older thread first, though it ran 1000 times more. */
	KUNIT_EXPECT_GT(test, bvt_pbs_prio(3000 * ms, 1000 * ms, lo, 1024),
			bvt_pbs_prio(1000 * ms, ms, lo, 1024));
	/* alpha = 100: the one that ran least first, though far younger. */
	KUNIT_EXPECT_GT(test, bvt_pbs_prio(ms, ms / 2, hi, 1024),
			bvt_pbs_prio(3600000 * ms, ms, hi, 1024));
	/*
	 * No overflow at the largest values: |p| stays within log2 T and
	 * alpha * log2(S / kappa), 64 + 100 * (64 + 10), far below INF.
	 */
	p = bvt_pbs_prio(U64_MAX, U64_MAX, hi, 1);
	KUNIT_EXPECT_LT(test, p, 0LL);
	KUNIT_EXPECT_GT(test, p, -(64LL + 100 * 74 + 1) * BVT_PBS_ONE);
	p = bvt_pbs_prio(U64_MAX, 1, hi, SCHED_BVT_WEIGHT_MAX);
	KUNIT_EXPECT_GT(test, p, 0LL);
	KUNIT_EXPECT_LT(test, p, (64LL + 100 * 10 + 1) * BVT_PBS_ONE);
}

/* Section 4.1's rule for a new session. */
static void bvt_test_pbs_session(struct kunit *test)
{
	u64 ms = NSEC_PER_MSEC;

	/* beta = oo: never; no earlier period: always. */
	KUNIT_EXPECT_FALSE(test, bvt_pbs_new_session(3600 * NSEC_PER_SEC,
						     10 * ms, 1,
						     BVT_PBS_BETA_INF));
	KUNIT_EXPECT_TRUE(test, bvt_pbs_new_session(1, 0, 0, 3000));
	/* beta = 3, a mean of 10 ms: 30 ms starts one, 29 does not. */
	KUNIT_EXPECT_FALSE(test, bvt_pbs_new_session(29 * ms, 40 * ms, 4, 3000));
	KUNIT_EXPECT_TRUE(test, bvt_pbs_new_session(30 * ms, 40 * ms, 4, 3000));
	/* beta = 0: every wake-up. */
	KUNIT_EXPECT_TRUE(test, bvt_pbs_new_session(0, 40 * ms, 4, 0));
	/* beta = 0.5 */
	KUNIT_EXPECT_TRUE(test, bvt_pbs_new_session(5 * ms, 40 * ms, 4, 500));
	KUNIT_EXPECT_FALSE(test, bvt_pbs_new_session(4 * ms, 40 * ms, 4, 500));
	/* A threshold past 2^64 ns: never, and no overflow. */
	KUNIT_EXPECT_FALSE(test, bvt_pbs_new_session(U64_MAX, U64_MAX, 1,
						     BVT_PBS_BETA_MAX));
}

/* Tunables are decimals with up to three places. */
static void bvt_test_pbs_parse(struct kunit *test)
{
	char buf[16];
	u32 milli;

	strscpy(buf, "0.01");
	KUNIT_EXPECT_EQ(test, bvt_parse_milli(buf, &milli), 0);
	KUNIT_EXPECT_EQ(test, milli, 10U);
	strscpy(buf, "100");
	KUNIT_EXPECT_EQ(test, bvt_parse_milli(buf, &milli), 0);
	KUNIT_EXPECT_EQ(test, milli, 100000U);
	strscpy(buf, "2.5");
	KUNIT_EXPECT_EQ(test, bvt_parse_milli(buf, &milli), 0);
	KUNIT_EXPECT_EQ(test, milli, 2500U);
	strscpy(buf, "1.0001");
	KUNIT_EXPECT_EQ(test, bvt_parse_milli(buf, &milli), -EINVAL);
	strscpy(buf, "1.x");
	KUNIT_EXPECT_EQ(test, bvt_parse_milli(buf, &milli), -EINVAL);
	strscpy(buf, "-1");
	KUNIT_EXPECT_NE(test, bvt_parse_milli(buf, &milli), 0);
	strscpy(buf, "5000000");
	KUNIT_EXPECT_EQ(test, bvt_parse_milli(buf, &milli), -ERANGE);
}

/* A level standing in for an entity of a PBS level: T from @start, S @ran. */
static void bvt_test_pbs_entity(struct bvt_level *e, u64 avt, u64 start,
				u64 ran)
{
	memset(e, 0, sizeof(*e));
	RB_CLEAR_NODE(&e->se.run_node);
	e->se.is_level = 1;
	e->se.weight = BVT_WEIGHT_UNIT;
	e->se.avt = avt;
	e->se.pbs = &e->pbs_state;
	e->pbs_state.session = start;
	e->pbs_state.epoch = READ_ONCE(bvt_pbs_epoch);
	e->ran = ran;
}

/*
 * Algorithm 1's sets: L keeps the best of the last pick and the newest
 * arrivals, M is sampled in turn round the timeline, and an entity that
 * is not sampled is found at a later pick.
 */
static void bvt_test_pbs_sampled(struct kunit *test)
{
	struct bvt_level *lv = kunit_kzalloc(test, sizeof(*lv), GFP_KERNEL);
	struct bvt_level *e = kunit_kcalloc(test, 8, sizeof(*e), GFP_KERNEL);
	u64 ms = NSEC_PER_MSEC, now = NSEC_PER_SEC;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, lv);
	KUNIT_ASSERT_NOT_NULL(test, e);
	init_bvt_level(lv, NULL, &bvt_pbs_ops);
	/* In E order e[0] .. e[7]; e[7] has run least, the best p. */
	for (i = 0; i < 8; i++) {
		bvt_test_pbs_entity(&e[i], i * ms, 0, (100 - 10 * i) * ms);
		bvt_timeline_add(lv, &e[i].se);
		e[i].se.on_rq = 1;
		lv->nr_queued++;
	}
	/* L is empty: M + L = 6 are sampled, e[0] .. e[5]. */
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_select_sampled(lv, now, false),
			    &e[5].se);
	/* Only looked at, the selection moves nothing on. */
	KUNIT_EXPECT_EQ(test, lv->pbs_nr_top, 0U);
	KUNIT_EXPECT_NULL(test, lv->pbs_cursor);
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_select_sampled(lv, now, true),
			    &e[5].se);
	KUNIT_EXPECT_EQ(test, lv->pbs_nr_top, 2U);
	KUNIT_EXPECT_TRUE(test, bvt_pbs_in_top(lv, &e[5].se));
	KUNIT_EXPECT_TRUE(test, bvt_pbs_in_top(lv, &e[4].se));
	KUNIT_EXPECT_PTR_EQ(test, lv->pbs_cursor, &e[6].se.run_node);
	/* L and 4 more, round the end: e[6], e[7], e[0], e[1]. */
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_select_sampled(lv, now, true),
			    &e[7].se);
	KUNIT_EXPECT_TRUE(test, bvt_pbs_in_top(lv, &e[7].se));
	KUNIT_EXPECT_TRUE(test, bvt_pbs_in_top(lv, &e[6].se));
	KUNIT_EXPECT_PTR_EQ(test, lv->pbs_cursor, &e[2].se.run_node);
	/* A departure leaves L; an arrival into a full L drops the least. */
	bvt_pbs_top_del(lv, &e[7].se);
	KUNIT_EXPECT_EQ(test, lv->pbs_nr_top, 1U);
	bvt_pbs_top_add(lv, &e[0].se, now);
	bvt_pbs_top_add(lv, &e[7].se, now);
	KUNIT_EXPECT_TRUE(test, bvt_pbs_in_top(lv, &e[7].se));
	KUNIT_EXPECT_TRUE(test, bvt_pbs_in_top(lv, &e[6].se));
	KUNIT_EXPECT_FALSE(test, bvt_pbs_in_top(lv, &e[0].se));
	/* An arrival worse than all of a full L stays out of it. */
	bvt_pbs_top_add(lv, &e[1].se, now);
	KUNIT_EXPECT_FALSE(test, bvt_pbs_in_top(lv, &e[1].se));
	/* Sampling goes on past an entity that leaves the queue. */
	bvt_pbs_unqueue(lv, &e[2].se);
	KUNIT_EXPECT_PTR_EQ(test, lv->pbs_cursor, &e[3].se.run_node);
	/* The exact selection finds the best at once. */
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_pick_exact(lv, now), &e[7].se);
}

/*
 * The sampled selection predicts T when the samples come round again: a
 * young entity's p grows faster.  And the running entity that yielded
 * gives way, its gamma aside, for one pick.
 */
static void bvt_test_pbs_predicted(struct kunit *test)
{
	struct bvt_level *lv = kunit_kzalloc(test, sizeof(*lv), GFP_KERNEL);
	struct bvt_level *e = kunit_kcalloc(test, 2, sizeof(*e), GFP_KERNEL);
	u64 ms = NSEC_PER_MSEC, us = NSEC_PER_USEC, now = NSEC_PER_SEC;

	KUNIT_ASSERT_NOT_NULL(test, lv);
	KUNIT_ASSERT_NOT_NULL(test, e);
	init_bvt_level(lv, NULL, &bvt_pbs_ops);
	/* young: T 1 ms, S 0.5 ms, p 1; old: T 100 ms, S 20 ms, p 2.32 */
	bvt_test_pbs_entity(&e[0], 0, now - ms, 500 * us);
	bvt_test_pbs_entity(&e[1], 1, now - 100 * ms, 20 * ms);
	bvt_timeline_add(lv, &e[0].se);
	bvt_timeline_add(lv, &e[1].se);
	e[0].se.on_rq = 1;
	e[1].se.on_rq = 1;
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_pick_exact(lv, now), &e[1].se);
	/*
	 * As with 8 runnable: T 4 ms ahead (8 * q / 2M, q = dT = 4 ms):
	 * young log2(5 / 0.5) = 3.32, old log2(104 / 20) = 2.38.
	 */
	lv->nr_queued = 8;
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_select_sampled(lv, now, true),
			    &e[0].se);

	/* The old one runs, with no bonus: it stays, but not after a yield. */
	bvt_timeline_del(lv, &e[1].se);
	lv->curr = &e[1].se;
	lv->nr_queued = 2;
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_pick_exact(lv, now), &e[1].se);
	KUNIT_EXPECT_TRUE(test, bvt_pbs_yield(lv, &e[1].se));
	KUNIT_EXPECT_PTR_EQ(test, bvt_pbs_pick_exact(lv, now), &e[0].se);
	/* The young one, alone, does not yield. */
	bvt_timeline_del(lv, &e[0].se);
	lv->curr = &e[0].se;
	KUNIT_EXPECT_FALSE(test, bvt_pbs_yield(lv, &e[0].se));
}

#endif /* CONFIG_SCHED_BVT_PBS */

#ifdef CONFIG_SCHED_BVT_RSV
static void bvt_test_rsv_grant(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_plan_req r;

	/* An empty plan takes the period as asked. */
	r = (struct bvt_plan_req){ 1 * ms, 10 * ms };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(0, &r));
	KUNIT_EXPECT_EQ(test, r.period, 10 * ms);
	KUNIT_EXPECT_EQ(test, r.amount, 1 * ms);
	/* On a 10 ms base, 4/20 and 16/40 exactly (Rialto/NT: 4/16, 13/32). */
	r = (struct bvt_plan_req){ 4 * ms, 20 * ms };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(10 * ms, &r));
	KUNIT_EXPECT_EQ(test, r.period, 20 * ms);
	KUNIT_EXPECT_EQ(test, r.amount, 4 * ms);
	r = (struct bvt_plan_req){ 16 * ms, 40 * ms };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(10 * ms, &r));
	KUNIT_EXPECT_EQ(test, r.period, 40 * ms);
	/* Not harmonic: a shorter period, the same fraction rounded up. */
	r = (struct bvt_plan_req){ 7500 * 1000, 33333333 };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(10 * ms, &r));
	KUNIT_EXPECT_EQ(test, r.period, 20 * ms);
	KUNIT_EXPECT_EQ(test, r.amount, 4500001ULL);
	r = (struct bvt_plan_req){ 1 * ms, 3 * ms };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(10 * ms, &r));
	KUNIT_EXPECT_EQ(test, r.period, 2500 * 1000ULL);
	KUNIT_EXPECT_EQ(test, r.amount, 833334ULL);
	/* Halving stops at 1 ms: nothing below it fits a 10 ms base. */
	r = (struct bvt_plan_req){ 100 * 1000, 1200 * 1000 };
	KUNIT_EXPECT_FALSE(test, bvt_plan_grant(10 * ms, &r));
	/* An odd first period is made halvable down to 1 ms. */
	r = (struct bvt_plan_req){ 1 * ms, 33333333 };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(0, &r));
	KUNIT_EXPECT_EQ(test, r.period, 33333312ULL);
	KUNIT_EXPECT_EQ(test, r.period % 32, 0);
}

/*
 * A QAS mandatory part: its amount in every window of its period, from
 * the least amount per granted period that guarantees it.
 */
static void bvt_test_rsv_window(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_plan_req r;
	u64 p, w, t, a, k, rem, got;

	/* The same period: the amount itself. */
	KUNIT_EXPECT_EQ(test, bvt_plan_window_amount(10 * ms, 40 * ms, 40 * ms),
			10 * ms);
	/* Halves: half of it in each. */
	KUNIT_EXPECT_EQ(test, bvt_plan_window_amount(10 * ms, 40 * ms, 20 * ms),
			5 * ms);
	/* 30 ms on 16: 6 of every 16 holds 6 + (6 - 2) = 10 in any 30. */
	KUNIT_EXPECT_EQ(test, bvt_plan_window_amount(10 * ms, 30 * ms, 16 * ms),
			6 * ms);
	/* 20 in 30: 11 of every 16, 11 + (11 - 2). */
	KUNIT_EXPECT_EQ(test, bvt_plan_window_amount(20 * ms, 30 * ms, 16 * ms),
			11 * ms);
	/* Minimal and sufficient, by the bound it is made from. */
	for (p = 1 * ms; p <= 40 * ms; p += 3 * ms) {
		for (t = p; t <= 100 * ms; t += 7 * ms) {
			for (w = 100 * 1000; w < t; w += t / 5) {
				a = bvt_plan_window_amount(w, t, p);
				if (a > p)
					continue;
				k = t / p;
				rem = t - k * p;
				got = k * a + (a > p - rem ? a - (p - rem) : 0);
				KUNIT_EXPECT_GE(test, got, w);
				a--;
				got = k * a + (a > p - rem ? a - (p - rem) : 0);
				KUNIT_EXPECT_LT(test, got, w);
			}
		}
	}
	/* On a 10 ms base 480 ms is granted 320, and 100 of it holds 100 in 480. */
	r = (struct bvt_plan_req){ 100 * ms, 480 * ms, NULL, true };
	KUNIT_ASSERT_TRUE(test, bvt_plan_grant(10 * ms, &r));
	KUNIT_EXPECT_EQ(test, r.period, 320 * ms);
	KUNIT_EXPECT_EQ(test, r.amount,
			bvt_plan_window_amount(100 * ms, 480 * ms, 320 * ms));
}

/* Free time of @plan in [@t0, @t1), ns after its epoch. */
static u64 bvt_plan_free_in(const struct bvt_plan *plan, u64 t0, u64 t1)
{
	return bvt_plan_free_to(plan, t1) - bvt_plan_free_to(plan, t0);
}

/* @owner's time in each of its periods of @plan's hyperperiod. */
static bool bvt_test_plan_holds(const struct bvt_plan *plan,
				const struct bvt_rsv *owner, u64 amount,
				u64 period)
{
	u64 off;

	for (off = 0; off < plan->hyper; off += period)
		if (bvt_plan_owned_in(plan, owner, off, off + period) != amount)
			return false;
	return true;
}

/*
 * Figure 4-5's plan: 1/10 ms for @r[0], 4/20 for @r[1], 16/40 for @r[2],
 * each held in every period, and 2 ms free in every 10 ms.
 */
static void bvt_test_plan_fig45(struct kunit *test,
				const struct bvt_plan *plan,
				const struct bvt_rsv *r)
{
	const u64 ms = NSEC_PER_MSEC;
	u64 t;

	KUNIT_EXPECT_TRUE(test, bvt_test_plan_holds(plan, &r[0], 1 * ms,
						    10 * ms));
	KUNIT_EXPECT_TRUE(test, bvt_test_plan_holds(plan, &r[1], 4 * ms,
						    20 * ms));
	KUNIT_EXPECT_TRUE(test, bvt_test_plan_holds(plan, &r[2], 16 * ms,
						    40 * ms));
	for (t = 0; t < plan->hyper; t += 10 * ms)
		KUNIT_EXPECT_EQ(test, bvt_plan_free_in(plan, t, t + 10 * ms),
				2 * ms);
}

KUNIT_DEFINE_ACTION_WRAPPER(bvt_test_work_free, bvt_plan_work_free,
			    struct bvt_plan_work *);
KUNIT_DEFINE_ACTION_WRAPPER(bvt_test_kvfree, kvfree, const void *);

/* Room to lay plans out in, freed when the case ends. */
static struct bvt_plan_work *bvt_test_plan_room(struct kunit *test)
{
	struct bvt_plan_work *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_EQ(test, bvt_plan_work_alloc(w), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							bvt_test_work_free, w),
			0);
	return w;
}

/* kvfree() a plan when the case ends. */
static struct bvt_plan *bvt_test_plan_keep(struct kunit *test,
					   struct bvt_plan *plan)
{
	KUNIT_ASSERT_FALSE(test, IS_ERR(plan));
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, bvt_test_kvfree,
							plan), 0);
	return plan;
}

static void bvt_test_rsv_plan(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_rsv r[4] = { };
	struct bvt_plan_req req[4] = {
		{ 1 * ms, 10 * ms, &bvt_idle_rsv },
		{ 1 * ms, 10 * ms, &r[1] },
		{ 4 * ms, 20 * ms, &r[2] },
		{ 16 * ms, 40 * ms, &r[3] },
	};
	struct bvt_plan_work *w;
	struct bvt_plan *plan, *more;
	unsigned int i;
	u64 t;

	w = bvt_test_plan_room(test);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		r[i].task = current;
	plan = bvt_plan_lay(w, NULL, req, 4, 1, 10 * ms);
	bvt_test_plan_keep(test, plan);
	/* Each owner's amount in each of its periods, and 8 ms left free. */
	KUNIT_EXPECT_TRUE(test, bvt_test_plan_holds(plan, &bvt_idle_rsv,
						    1 * ms, 10 * ms));
	bvt_test_plan_fig45(test, plan, &r[1]);
	KUNIT_EXPECT_EQ(test, plan->hyper, 40 * ms);
	KUNIT_EXPECT_EQ(test, plan->shortest, 10 * ms);
	KUNIT_EXPECT_EQ(test, plan->free, 8 * ms);
	KUNIT_EXPECT_EQ(test, bvt_plan_free_in(plan, 0, 80 * ms), 16 * ms);
	/* Spread: the 2 ms free of every 10 ms right after the idle's 1 ms. */
	for (t = 0; t < 40 * ms; t += 10 * ms)
		KUNIT_EXPECT_EQ(test, bvt_plan_free_in(plan, t + 1 * ms,
						       t + 3 * ms), 2 * ms);

	/* A full CPU fits exactly; a nanosecond more does not. */
	req[3].amount = 24 * ms;
	more = bvt_plan_lay(w, NULL, req, 4, 1, 10 * ms);
	KUNIT_EXPECT_FALSE(test, IS_ERR(more));
	if (!IS_ERR(more))
		kvfree(more);
	req[3].amount = 24 * ms + 1;
	KUNIT_EXPECT_PTR_EQ(test, bvt_plan_lay(w, NULL, req, 4, 1, 10 * ms),
			    ERR_PTR(-EBUSY));

	/* Added to a plan: its slots stay, repeated to the new period. */
	req[0] = (struct bvt_plan_req){ 16 * ms, 80 * ms, &r[0] };
	more = bvt_plan_add(w, NULL, plan, req, NULL, 0);
	bvt_test_plan_keep(test, more);
	KUNIT_EXPECT_EQ(test, more->hyper, 80 * ms);
	KUNIT_EXPECT_EQ(test, more->free, 0);
	for (i = 1; i < ARRAY_SIZE(r); i++)
		KUNIT_EXPECT_EQ(test,
				bvt_plan_owned_in(more, &r[i], 0, 40 * ms),
				bvt_plan_owned_in(plan, &r[i], 0, 40 * ms));
	KUNIT_EXPECT_TRUE(test, bvt_test_plan_holds(more, &r[0], 16 * ms,
						    80 * ms));
	/* And a nanosecond more than is free does not fit in place. */
	req[0].amount++;
	KUNIT_EXPECT_PTR_EQ(test, bvt_plan_add(w, NULL, plan, req, NULL, 0),
			    ERR_PTR(-EBUSY));
}

/* The idle reservation's request at @period in the cases below: 1/10. */
static unsigned int bvt_test_idle_req(u64 period, struct bvt_plan_req *req)
{
	*req = (struct bvt_plan_req){ period / 10, period, &bvt_idle_rsv };
	return 1;
}

/*
 * Figure 4-2 of the Rialto/NT paper: 64 reservations of 1 ms at periods
 * 4 s, 4 s, 2 s, 4 s, 2 s, 1 s, ... each added in place to the plan the
 * one before made (the first lays one out), none refused, each holding
 * its amount in every period.
 */
static void bvt_test_rsv_plan_adds(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_plan_req req[2], idle;
	struct bvt_plan *plan, *next;
	struct bvt_plan_work *w;
	unsigned int i, k, j;
	struct bvt_rsv *r;
	u64 period, nr, got, t, all = 0, most = 0;
	unsigned int most_i = 0;

	w = bvt_test_plan_room(test);
	r = kunit_kcalloc(test, 64, sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	plan = NULL;
	for (i = 0, k = 1, j = 0; i < 64; i++) {
		period = (4000 * ms) >> j;
		if (++j == k) {
			j = 0;
			k++;
		}
		r[i].task = current;
		req[1] = (struct bvt_plan_req){ 1 * ms, period, &r[i] };
		if (!plan) {
			bvt_test_idle_req(period, &req[0]);
			plan = bvt_plan_lay(w, NULL, req, 2, 1, period);
		} else {
			t = ktime_get_ns();
			next = bvt_plan_add(w, NULL, plan, &req[1], &idle,
					    period < plan->shortest ?
					    bvt_test_idle_req(period, &idle) :
					    0);
			t = ktime_get_ns() - t;
			all += t;
			if (t > most) {
				most = t;
				most_i = i;
			}
			KUNIT_EXPECT_FALSE_MSG(test, IS_ERR(next),
					       "reservation %u: %ld", i,
					       PTR_ERR(next));
			if (IS_ERR(next))
				break;
			kvfree(plan);
			plan = next;
		}
		KUNIT_ASSERT_FALSE(test, IS_ERR(plan));
		r[i].period = period;
	}
	bvt_test_plan_keep(test, plan);
	KUNIT_EXPECT_EQ(test, plan->hyper, 4000 * ms);
	KUNIT_EXPECT_LE(test, plan->nr_slots, BVT_PLAN_SLOTS);
	/* Each has its 1 ms in its first, a middle and its last period. */
	for (k = 0; k < i; k++) {
		nr = div64_u64(plan->hyper, r[k].period);
		for (j = 0; j < 3; j++) {
			period = (j == 1 ? nr - 1 : j ? nr / 2 : 0) *
				 r[k].period;
			got = bvt_plan_owned_in(plan, &r[k], period,
						period + r[k].period);
			KUNIT_EXPECT_EQ_MSG(test, got, 1 * ms,
					    "reservation %u at %llu", k, period);
		}
	}
	kunit_info(test, "64 reservations in %u slots; added in %llu us, the slowest the %u-th in %llu us",
		   plan->nr_slots, all / NSEC_PER_USEC, most_i + 1,
		   most / NSEC_PER_USEC);
}

/*
 * Figure 4-5: 1/10, 4/20 and 16/40 added longest period first, as the
 * paper's program asks for them.  However the plan comes about, every
 * 10 ms hold 2 ms of free time, so a constraint asking 1 ms of free time
 * in the next 10 ms fits wherever it starts.
 */
static void bvt_test_rsv_plan_level(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_rsv r[3] = { };
	struct bvt_plan_req req[3] = {
		{ 16 * ms, 40 * ms, &r[2] },
		{ 4 * ms, 20 * ms, &r[1] },
		{ 1 * ms, 10 * ms, &r[0] },
	};
	struct bvt_plan_req all[4], idle;
	struct bvt_plan *plan, *next;
	struct bvt_tc_need need;
	struct bvt_plan_work *w;
	unsigned int i, k;
	u64 t;

	w = bvt_test_plan_room(test);
	for (i = 0; i < ARRAY_SIZE(r); i++)
		r[i].task = current;
	plan = NULL;
	for (i = 0; i < ARRAY_SIZE(req); i++) {
		next = plan ? bvt_plan_add(w, NULL, plan, &req[i], &idle,
					   bvt_test_idle_req(req[i].period,
							     &idle)) :
			      ERR_PTR(-EBUSY);
		if (PTR_ERR(next) == -EBUSY) {
			/* As bvt_plan_with(): all laid out anew, sorted. */
			for (k = 0; k <= i; k++)
				all[1 + k] = req[i - k];
			bvt_test_idle_req(req[i].period, &all[0]);
			next = bvt_plan_lay(w, NULL, all, i + 2, 1, 40 * ms);
		}
		KUNIT_ASSERT_FALSE(test, IS_ERR(next));
		kvfree(plan);
		plan = next;
	}
	bvt_test_plan_keep(test, plan);
	KUNIT_EXPECT_EQ(test, plan->shortest, 10 * ms);
	bvt_test_plan_fig45(test, plan, r);
	for (t = 0; t < 40 * ms; t += 100 * NSEC_PER_USEC) {
		need = (struct bvt_tc_need){ t, t + 10 * ms, 1 * ms };
		KUNIT_EXPECT_TRUE_MSG(test, bvt_tc_feasible(plan, &need, 1, 0),
				      "1 ms in [%llu, +10 ms)", t);
	}
}

/*
 * Random sets on bases of 8, 10 and 25 ms: each request is added in
 * place or, failing that, laid out anew with all the others, and is
 * admitted if and only if the utilization, with the idle reservation's,
 * is at most 1; every admitted reservation, and the idle one, holds its
 * amount in each of its periods.
 */
static void bvt_test_rsv_plan_exact(struct kunit *test)
{
	static const u64 bases[] = { 8, 10, 25 };
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_plan_req req[10], all[11], idle;
	struct bvt_plan *plan, *next;
	unsigned int trial, i, k, nr;
	struct bvt_plan_work *w;
	struct rnd_state rnd;
	u64 base, period, amount, util, shortest;
	struct bvt_rsv *r;
	bool held;

	w = bvt_test_plan_room(test);
	r = kunit_kcalloc(test, ARRAY_SIZE(req), sizeof(*r), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r);
	prandom_seed_state(&rnd, 42);
	for (trial = 0; trial < 40; trial++) {
		base = bases[prandom_u32_state(&rnd) % 3] * ms;
		plan = NULL;
		nr = 0;
		for (i = 0; i < ARRAY_SIZE(req); i++) {
			period = base << (prandom_u32_state(&rnd) % 4);
			amount = 1 + prandom_u32_state(&rnd) % (period / 4);
			r[nr].task = current;
			req[nr] = (struct bvt_plan_req){ amount, period, &r[nr] };
			shortest = plan ? min(plan->shortest, period) : period;
			next = ERR_PTR(-EBUSY);
			if (plan)
				next = bvt_plan_add(w, NULL, plan, &req[nr], &idle,
						    period < plan->shortest ?
						    bvt_test_idle_req(period,
								      &idle) :
						    0);
			if (PTR_ERR(next) == -EBUSY) {
				/* Sorted by period, as bvt_plan_with() does. */
				for (k = 0; k <= nr; k++)
					all[1 + k] = req[k];
				sort(&all[1], nr + 1, sizeof(*all),
				     bvt_plan_req_cmp, NULL);
				bvt_test_idle_req(shortest, &all[0]);
				next = bvt_plan_lay(w, NULL, all, nr + 2, 1,
						    period);
			}
			/* The utilization in ppb, rounded up, as it fits. */
			util = DIV64_U64_ROUND_UP(shortest / 10 * NSEC_PER_SEC,
						  shortest);
			for (k = 0; k <= nr; k++)
				util += div64_u64(req[k].amount * NSEC_PER_SEC,
						  req[k].period);
			if (IS_ERR(next)) {
				KUNIT_EXPECT_PTR_EQ(test, next, ERR_PTR(-EBUSY));
				KUNIT_EXPECT_GT_MSG(test, util + nr + 1,
						    NSEC_PER_SEC,
						    "trial %u: refused", trial);
				continue;
			}
			KUNIT_EXPECT_LE_MSG(test, util, NSEC_PER_SEC,
					    "trial %u: admitted", trial);
			kvfree(plan);
			plan = next;
			nr++;
			for (k = 0; k < nr; k++) {
				held = bvt_test_plan_holds(plan, &r[k],
							   req[k].amount,
							   req[k].period);
				KUNIT_EXPECT_TRUE(test, held);
			}
			held = bvt_test_plan_holds(plan, &bvt_idle_rsv,
						   plan->shortest / 10,
						   plan->shortest);
			KUNIT_EXPECT_TRUE(test, held);
		}
		kvfree(plan);
	}
}

static void bvt_test_tc_feasible(struct kunit *test)
{
	const u64 ms = NSEC_PER_MSEC;
	struct bvt_plan *plan;
	struct bvt_tc_need need[3];

	/* 2 ms free at the end of every 10 ms. */
	plan = kunit_kzalloc(test, struct_size(plan, slots, 2), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, plan);
	plan->hyper = 10 * ms;
	plan->nr_slots = 2;
	plan->slots[0] = (struct bvt_plan_slot){ 0, 8 * ms, &bvt_idle_rsv };
	plan->slots[1] = (struct bvt_plan_slot){ 8 * ms, 10 * ms, NULL };
	bvt_plan_count_free(plan);

	need[0] = (struct bvt_tc_need){ 0, 10 * ms, 2 * ms };
	KUNIT_EXPECT_TRUE(test, bvt_tc_feasible(plan, need, 1, 0));
	need[0].demand = 2 * ms + 1;
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 1, 0));
	/* Too little free time before its deadline. */
	need[0] = (struct bvt_tc_need){ 0, 9 * ms, 1500 * 1000 };
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 1, 0));
	/* Two in one window do not fit; one later fits. */
	need[0] = (struct bvt_tc_need){ 0, 10 * ms, 1 * ms };
	need[1] = (struct bvt_tc_need){ 2 * ms, 10 * ms, 1500 * 1000 };
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 2, 0));
	need[1] = (struct bvt_tc_need){ 10 * ms, 20 * ms, 2 * ms };
	KUNIT_EXPECT_TRUE(test, bvt_tc_feasible(plan, need, 2, 0));
	/* EDF: a late deadline leaves room for an early one, not in reverse. */
	need[0] = (struct bvt_tc_need){ 0, 20 * ms, 2 * ms };
	need[1] = (struct bvt_tc_need){ 0, 10 * ms, 2 * ms };
	KUNIT_EXPECT_TRUE(test, bvt_tc_feasible(plan, need, 2, 0));
	need[2] = (struct bvt_tc_need){ 5 * ms, 20 * ms, 1 };
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 3, 0));
	/* Demands that wrap a u64 when summed do not fit. */
	need[0] = (struct bvt_tc_need){ 0, 10 * ms, 1 * ms };
	need[1] = (struct bvt_tc_need){ 0, 10 * ms, -(u64)(1 * ms) + 500 * 1000 };
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 2, 0));
	need[1] = (struct bvt_tc_need){ 0, 10 * ms, U64_MAX };
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 2, 0));
	/* Half the free time: 1 ms of every 10 ms. */
	need[0] = (struct bvt_tc_need){ 0, 20 * ms, 2 * ms };
	KUNIT_EXPECT_TRUE(test, bvt_tc_feasible(plan, need, 1, 1));
	need[0].demand = 2 * ms + 1;
	KUNIT_EXPECT_FALSE(test, bvt_tc_feasible(plan, need, 1, 1));
}

#endif /* CONFIG_SCHED_BVT_RSV */

static struct kunit_case bvt_test_cases[] = {
	KUNIT_CASE(bvt_test_vt_compare_wraps),
	KUNIT_CASE(bvt_test_task_size),
	KUNIT_CASE(bvt_test_scale_by_weight),
	KUNIT_CASE(bvt_test_warp_moves_evt),
	KUNIT_CASE(bvt_test_unwarp_wait),
	KUNIT_CASE(bvt_test_allowance_in_real_time),
	KUNIT_CASE(bvt_test_wakeup_granularity),
	KUNIT_CASE(bvt_test_woken_ahead_of_equals),
	KUNIT_CASE(bvt_test_woken_waits_granularity),
	KUNIT_CASE(bvt_test_timeline_and_svt),
	KUNIT_CASE(bvt_test_relative_vt),
	KUNIT_CASE(bvt_test_params_valid),
	KUNIT_CASE(bvt_test_params_raise),
	KUNIT_CASE(bvt_test_warp_state),
	KUNIT_CASE(bvt_test_level_warp),
	KUNIT_CASE(bvt_test_re_admission),
	KUNIT_CASE(bvt_test_mcu_round),
	KUNIT_CASE(bvt_test_pi_merge),
#ifdef CONFIG_SCHED_BVT_COOP
	KUNIT_CASE(bvt_test_coop_pick),
	KUNIT_CASE(bvt_test_coop_over_share),
	KUNIT_CASE(bvt_test_coop_tslice),
	KUNIT_CASE(bvt_test_coop_outsider_slice),
#endif
#ifdef CONFIG_SCHED_BVT_PBS
	KUNIT_CASE(bvt_test_pbs_log2),
	KUNIT_CASE(bvt_test_pbs_prio),
	KUNIT_CASE(bvt_test_pbs_session),
	KUNIT_CASE(bvt_test_pbs_parse),
	KUNIT_CASE(bvt_test_pbs_sampled),
	KUNIT_CASE(bvt_test_pbs_predicted),
#endif
#ifdef CONFIG_SCHED_BVT_RSV
	KUNIT_CASE(bvt_test_rsv_grant),
	KUNIT_CASE(bvt_test_rsv_window),
	KUNIT_CASE(bvt_test_rsv_plan),
	KUNIT_CASE(bvt_test_rsv_plan_adds),
	KUNIT_CASE(bvt_test_rsv_plan_level),
	KUNIT_CASE(bvt_test_rsv_plan_exact),
	KUNIT_CASE(bvt_test_tc_feasible),
#endif
	{ }
};

static struct kunit_suite bvt_test_suite = {
	.name = "sched_bvt",
	.test_cases = bvt_test_cases,
};

kunit_test_suite(bvt_test_suite);
