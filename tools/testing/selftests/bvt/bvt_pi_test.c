// SPDX-License-Identifier: GPL-2.0
/*
 * Priority inheritance into SCHED_BVT: a thread that holds a
 * PTHREAD_PRIO_INHERIT mutex (a PI futex) that a BVT thread waits for runs
 * with the waiter's BVT parameters until it lets go, as a deadline waiter
 * lends its parameters.
 *
 * Measured on one CPU kept busy by two BVT hogs of weight 1024: the owner,
 * asleep with the mutex, is woken to do WORK_MS of CPU work and unlock,
 * while a BVT waiter is blocked on the mutex.  Its hold time (wake-up to
 * unlock) is compared with the same hold on the CPU alone.  Boosted to
 * weight 1024 the owner gets a third of the CPU: about 3 times its time
 * alone, asserted at most MAX_RATIO.  Unboosted, a SCHED_OTHER owner waits
 * for the fair server, which runs only after 950 ms of starvation (about
 * 50 times), and a BVT owner of weight 128 gets 6 % (about 17 times).
 */
#include "bvt_util.h"

#include <sys/sysinfo.h>

#include "../kselftest_harness.h"

#define WORK_MS		20.0
#define MAX_RATIO	6.0
#define ROUNDS		3

/* One hold of the mutex; the controller releases the threads in turn. */
struct pi_round {
	pthread_mutex_t mutex;
	struct sched_attr owner_attr;
	struct sched_attr waiter_attr;
	/* if not NULL, a waiter with this attr blocks first */
	struct sched_attr *first_waiter;
	double after_ms;	/* the owner spins on for this long unlocked */
	double work_ms;		/* its work holding the mutex; 0: WORK_MS */
	/* out */
	double hold_ms;		/* wake-up to unlock */
	double after_share;	/* the owner's CPU share once unlocked */
	struct sched_attr seen;	/* the owner's attr while boosted */
	int err;
	/* private */
	double released;
	atomic_int locking;
};

struct pi_thread {
	struct pi_round *r;
	int cpu;
	pid_t tid;
	int go[2];
	pthread_t thread;
	atomic_int ready;
};

static void pi_wait_go(struct pi_thread *t)
{
	char c;

	atomic_store(&t->ready, 1);
	if (read(t->go[0], &c, 1) != 1)
		t->r->err = errno;
}

static void *owner_main(void *arg)
{
	struct pi_thread *t = arg;
	struct pi_round *r = t->r;
	double t0, cpu0;

	t->tid = gettid();
	if (pin_self(t->cpu) || pthread_mutex_lock(&r->mutex))
		r->err = errno ?: EINVAL;
	pi_wait_go(t);
	spin_cpu_ms(r->work_ms ?: WORK_MS);
	r->hold_ms = (now_s() - r->released) * 1000;
	pthread_mutex_unlock(&r->mutex);
	if (!r->after_ms)
		return NULL;
	t0 = now_s();
	cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	while (now_s() - t0 < r->after_ms / 1000)
		;
	r->after_share = (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0) /
			 (now_s() - t0);
	return NULL;
}

static void *waiter_main(void *arg)
{
	struct pi_thread *t = arg;
	struct pi_round *r = t->r;

	t->tid = gettid();
	if (pin_self(t->cpu))
		r->err = errno;
	pi_wait_go(t);
	atomic_fetch_add(&r->locking, 1);
	if (pthread_mutex_lock(&r->mutex))
		r->err = EINVAL;
	else
		pthread_mutex_unlock(&r->mutex);
	return NULL;
}

static void pi_start(struct pi_thread *t, struct pi_round *r, int cpu,
		     void *(*fn)(void *), struct sched_attr *attr)
{
	t->r = r;
	t->cpu = cpu;
	t->ready = 0;
	if (pipe(t->go))
		r->err = errno;
	pthread_create(&t->thread, NULL, fn, t);
	while (!atomic_load(&t->ready))
		usleep(1000);
	/* Threads inherit the controller's SCHED_FIFO: set them from outside. */
	if (sys_sched_setattr(t->tid, attr, 0))
		r->err = errno;
}

static void pi_go(struct pi_thread *t)
{
	if (write(t->go[1], "g", 1) != 1)
		t->r->err = errno;
}

static void pi_join(struct pi_thread *t)
{
	pthread_join(t->thread, NULL);
	close(t->go[0]);
	close(t->go[1]);
}

/* Is thread @tid of this process asleep ('S' in its stat)? */
static bool thread_sleeping(pid_t tid)
{
	char path[64], buf[256], *p;
	FILE *f;
	bool ret = false;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		ret = p && p[1] == ' ' && p[2] == 'S';
	}
	if (f)
		fclose(f);
	return ret;
}

/* Release @t, which is to block on the mutex, and wait until it has. */
static void pi_block(struct pi_thread *t, int n)
{
	struct pi_round *r = t->r;
	int i;

	pi_go(t);
	for (i = 0; i < 2000 && atomic_load(&r->locking) < n; i++)
		usleep(1000);
	for (i = 0; i < 2000 && !thread_sleeping(t->tid); i++)
		usleep(1000);
	if (atomic_load(&r->locking) < n || !thread_sleeping(t->tid))
		r->err = ETIMEDOUT;
	/* A futex waiter sleeps; a little longer for it to be queued. */
	usleep(20000);
}

static struct pi_round *pi_round;

/* The owner holds the mutex asleep; the waiters block; then it works. */
static void pi_hold(struct hog *hogs, int n, unsigned int ms)
{
	struct pi_round *r = pi_round;
	struct pi_thread owner, waiter, first;
	pthread_mutexattr_t ma;

	r->err = 0;
	r->locking = 0;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(&r->mutex, &ma);

	pi_start(&owner, r, test_cpu(), owner_main, &r->owner_attr);
	pi_start(&waiter, r, test_cpu(), waiter_main, &r->waiter_attr);
	if (r->first_waiter) {
		/* Elsewhere, so that it can run to block first. */
		pi_start(&first, r, 0, waiter_main, r->first_waiter);
		pi_block(&first, 1);
	}
	pi_block(&waiter, r->first_waiter ? 2 : 1);
	sys_sched_getattr(owner.tid, &r->seen, sizeof(r->seen), 0);

	r->released = now_s();
	pi_go(&owner);
	pi_join(&owner);
	pi_join(&waiter);
	if (r->first_waiter)
		pi_join(&first);
	pthread_mutex_destroy(&r->mutex);
}

/* The median hold of ROUNDS rounds, beside @nhogs BVT hogs. */
static double pi_median_hold(struct pi_round *r, int nhogs)
{
	struct hog hogs[2];
	double hold[ROUNDS];
	int i, j;

	pi_round = r;
	for (i = 0; i < ROUNDS; i++) {
		if (nhogs) {
			for (j = 0; j < nhogs; j++) {
				memset(&hogs[j], 0, sizeof(hogs[j]));
				hogs[j].attr = bvt_attr(1024, 0);
				hogs[j].cpu = test_cpu();
			}
			if (run_hogs_during(hogs, nhogs, 0, pi_hold))
				return -1;
		} else {
			pi_hold(NULL, 0, 0);
		}
		if (r->err)
			return -1;
		hold[i] = r->hold_ms;
	}
	return median(hold, ROUNDS);
}

FIXTURE(pi) {
};

FIXTURE_SETUP(pi)
{
	ASSERT_EQ(0, pin_self(0));
	ASSERT_EQ(0, become_controller());
}

FIXTURE_TEARDOWN(pi)
{
}

/* Compare the hold beside hogs with the hold alone. */
static void check_hold(struct __test_metadata *_metadata, struct pi_round *r,
		       double max_ratio)
{
	double alone, busy;

	alone = pi_median_hold(r, 0);
	ASSERT_LT(0, alone) TH_LOG("err %d", r->err);
	busy = pi_median_hold(r, 2);
	ASSERT_LT(0, busy) TH_LOG("err %d", r->err);
	TH_LOG("hold alone %.1f ms, beside 2 BVT hogs %.1f ms: %.2f times",
	       alone, busy, busy / alone);
	EXPECT_GE(max_ratio, busy / alone);
}

/* A SCHED_OTHER owner runs in SCHED_BVT at its waiter's weight. */
TEST_F(pi, fair_owner_inherits)
{
	struct pi_round r = {
		.owner_attr = other_attr(0),
		.waiter_attr = bvt_attr(1024, 0),
	};

	check_hold(_metadata, &r, MAX_RATIO);
	/* Its own policy is what sched_getattr() shows while boosted. */
	EXPECT_EQ(SCHED_OTHER, r.seen.sched_policy);
}

/*
 * A fair waiter that blocked first does not hide the BVT one behind it:
 * BVT waiters come first in the PI order.
 */
TEST_F(pi, bvt_waiter_goes_before_a_fair_one)
{
	struct sched_attr other = other_attr(0);
	struct pi_round r = {
		.owner_attr = other_attr(0),
		.waiter_attr = bvt_attr(1024, 0),
		.first_waiter = &other,
	};

	check_hold(_metadata, &r, MAX_RATIO);
}

/*
 * Among BVT waiters the strongest comes first: a weight-64 waiter that
 * blocked first does not hide a weight-8192 one.  The owner runs at 8192
 * (within 3 times its time alone), not at 64 (3 % of the CPU, about 33
 * times).
 */
TEST_F(pi, strongest_bvt_waiter_goes_first)
{
	struct sched_attr weak = bvt_attr(64, 0);
	struct pi_round r = {
		.owner_attr = other_attr(0),
		.waiter_attr = bvt_attr(8192, 0),
		.first_waiter = &weak,
	};

	check_hold(_metadata, &r, 3.0);
}

/*
 * A BVT owner of weight 128 runs at its waiter's 8192 while boosted (4/5
 * of the CPU, about 1.25 times its time alone) and at 128 again once it
 * has unlocked: 128 / 2176 = 6 % of the CPU, asserted below 20 %.
 */
TEST_F(pi, bvt_owner_inherits_and_gives_back)
{
	struct pi_round r = {
		.owner_attr = bvt_attr(128, 0),
		.waiter_attr = bvt_attr(8192, 0),
	};

	check_hold(_metadata, &r, 3.0);
	EXPECT_EQ(SCHED_BVT, r.seen.sched_policy);
	EXPECT_EQ(128, r.seen.sched_bvt_weight);

	r.after_ms = 500;
	ASSERT_LT(0, pi_median_hold(&r, 2)) TH_LOG("err %d", r.err);
	TH_LOG("share unlocked %.3f", r.after_share);
	EXPECT_GT(0.20, r.after_share);
}

#define BE_MODE		"/proc/sys/kernel/sched_bvt_be_mode"

/* The best-effort level in PBS mode for the test, in BVT mode after. */
FIXTURE(pi_pbs) {
};

FIXTURE_SETUP(pi_pbs)
{
	if (access(BE_MODE, W_OK))
		SKIP(return, "no %s", BE_MODE);
	ASSERT_EQ(0, pin_self(0));
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, write_file(BE_MODE, "pbs"));
}

FIXTURE_TEARDOWN(pi_pbs)
{
	write_file(BE_MODE, "bvt");
}

/*
 * In a level in PBS mode a SCHED_OTHER owner boosted into the class has
 * no session of its own (it never entered the class): it is run at once,
 * as an entity that has not run in its session is, until it unlocks.
 * Ranked last, it would never run beside the hogs (the fair server does
 * not serve it while it is boosted) and the round would time out.
 */
TEST_F(pi_pbs, fair_owner_runs_in_a_pbs_level)
{
	struct pi_round r = {
		.owner_attr = other_attr(0),
		.waiter_attr = bvt_attr(1024, 0),
	};

	check_hold(_metadata, &r, MAX_RATIO);
}

/*
 * A boosted owner without a session is judged over its life (T since it
 * was created, S all it ran), not run first for as long as it holds the
 * mutex: holding it for 1 s of work beside a BVT hog, the two share the
 * CPU (alpha = 1: about half each), and the hold takes some 2 s, at
 * least 1.4 s (the hog had at least 28 % of it).  Run first, the owner
 * held the CPU: 1003 ms.
 */
TEST_F(pi_pbs, a_boosted_owner_does_not_starve_the_level)
{
	struct pi_round r = {
		.owner_attr = other_attr(0),
		.waiter_attr = bvt_attr(1024, 0),
		.work_ms = 1000,
	};
	struct hog hog = { .attr = bvt_attr(1024, 0), .cpu = test_cpu() };

	pi_round = &r;
	ASSERT_EQ(0, run_hogs_during(&hog, 1, 0, pi_hold));
	ASSERT_EQ(0, r.err);
	TH_LOG("held %.0f ms for %.0f ms of work; the hog had %.0f ms of %.0f",
	       r.hold_ms, r.work_ms, hog.cpu_s * 1e3, hogs_wall_s * 1e3);
	EXPECT_LE(1.4 * r.work_ms, r.hold_ms);
}

TEST_HARNESS_MAIN
