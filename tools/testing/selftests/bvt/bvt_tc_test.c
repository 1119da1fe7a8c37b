// SPDX-License-Identifier: GPL-2.0
/*
 * Time constraints (bvt_ctl(2) BVT_CTL_TC_*, Rialto/NT): what one thread
 * can do to the accepted constraints of others, and what the docs promise
 * of a constraint's begin and end.  The threads run on the test CPU (the
 * last one), set up by a SCHED_FIFO controller on CPU 0, mostly beside a
 * BVT thread warped by 1 s, so that they run only in constraint time:
 *  - an estimate longer than its window is EINVAL, and a demand near 2^64
 *    takes no other constraint's time;
 *  - releasing a CPU's last reservation keeps the constraints accepted
 *    there;
 *  - a constraint accepted on another CPU brings its thread there at its
 *    start, from behind a real-time thread;
 *  - chained constraints (END_PREV) are accepted and met beside a warped
 *    thread, busy or asleep at each start, from a reservation too, and
 *    one whose thread sleeps in it is met; one begun by END_PREV is
 *    charged from its start;
 *  - time taken counts from the start when it is later than the begin,
 *    and time a QAS part runs is not taken from a constraint;
 *  - an affinity change and a change of policy end a constraint's
 *    guarantee (it ends missed) and are not refused for it; TC_END works
 *    after the thread left the class;
 *  - a user without CAP_SYS_NICE holds at most 4 constraints of a CPU and
 *    half its free time;
 *  - a refused constraint is begun all the same and must be ended.
 */
#include "bvt_util.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define RT_RUNTIME	"kernel/sched_rt_runtime_us"
#define MS		1000000ULL

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_until_ns(unsigned long long t)
{
	struct timespec ts = { .tv_sec = t / 1000000000ULL,
			       .tv_nsec = t % 1000000000ULL };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

static double cpu_ms(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e3;
}

/* Begin a constraint: 1 accepted, 0 refused, -1 and errno. */
static long tc_begin(unsigned long long start, unsigned long long estimate,
		     unsigned long long deadline, unsigned int flags,
		     struct sched_bvt_tc *tc)
{
	*tc = (struct sched_bvt_tc){ .size = sizeof(*tc), .flags = flags,
				     .start = start, .estimate = estimate,
				     .deadline = deadline };
	return bvt_ctl(BVT_CTL_TC_BEGIN, 0, tc, 0);
}

static long tc_end(struct sched_bvt_tc *tc)
{
	*tc = (struct sched_bvt_tc){ .size = sizeof(*tc) };
	return bvt_ctl(BVT_CTL_TC_END, 0, tc, 0);
}

static int reserve(pid_t pid, unsigned long long amount,
		   unsigned long long period, struct sched_bvt_rsv *out)
{
	struct sched_bvt_rsv r = {
		.size = sizeof(r), .amount = amount, .period = period,
	};
	int ret = bvt_ctl(BVT_CTL_RESERVE, pid, &r, 0);

	if (out)
		*out = r;
	return ret;
}

/*
 * A thread that spins until told to stop, pinned to @cpu; its policy is
 * set from outside (the controller), so that a strong one cannot starve
 * the others before they are ready.
 */
struct spin {
	pthread_t thread;
	pid_t tid;
	int cpu;
	atomic_int ready;
	atomic_bool stop;
};

static void *spin_main(void *arg)
{
	struct sched_attr other = other_attr(0);
	struct spin *s = arg;

	/* Not the controller's SCHED_FIFO, which it would starve on CPU 0. */
	sys_sched_setattr(0, &other, 0);
	s->tid = gettid();
	pin_self(s->cpu);
	atomic_store(&s->ready, 1);
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed))
		;
	return NULL;
}

static int start_spin(struct spin *s, int cpu, struct sched_attr attr)
{
	s->cpu = cpu;
	atomic_store(&s->ready, 0);
	atomic_store(&s->stop, false);
	if (pthread_create(&s->thread, NULL, spin_main, s))
		return -1;
	while (!atomic_load(&s->ready))
		usleep(1000);
	return sys_sched_setattr(s->tid, &attr, 0);
}

static void stop_spin(struct spin *s)
{
	atomic_store(&s->stop, true);
	pthread_join(s->thread, NULL);
}

/*
 * A thread that does one constraint's work: begin it (when the controller
 * says), sleep until its start, run @work_ms of CPU time from then (or
 * until @give_up_ns), end it.
 */
struct worker {
	/* in */
	int cpu, cpu2;			/* allowed CPUs; cpu2 -1: only cpu */
	unsigned long long start, estimate, deadline, give_up;
	double work_ms;
	bool spin_before;		/* spin, not sleep, until the start */
	/* out */
	pthread_t thread;
	pid_t tid;
	long ret;
	int err;
	struct sched_bvt_tc begun, ended;
	double ran_ms;			/* from the start, by the deadline */
	double before_ms;		/* before the start, from its begin */
	unsigned long long end_ns;
	/* private */
	atomic_int state;		/* 1 ready, 2 begin, 3 begun */
};

/* In @w's thread: pinned to its CPU, wait to be made a BVT thread. */
static void worker_wait_policy(struct worker *w)
{
	w->tid = gettid();
	pin_self(w->cpu);
	atomic_store(&w->state, 1);
	while (atomic_load(&w->state) != 2)
		usleep(1000);
}

/* In @w's thread, at its start: work for work_ms, or to give_up, and end. */
static void worker_run(struct worker *w)
{
	double cpu0 = cpu_ms();

	while (cpu_ms() - cpu0 < w->work_ms && now_ns() < w->give_up)
		;
	w->end_ns = now_ns();
	w->ran_ms = cpu_ms() - cpu0;
	tc_end(&w->ended);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	cpu_set_t set;

	worker_wait_policy(w);
	/* Running on @cpu, where the constraint is tried first. */
	if (w->cpu2 >= 0) {
		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		CPU_SET(w->cpu2, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	w->ret = tc_begin(w->start, w->estimate, w->deadline, 0, &w->begun);
	w->err = w->ret < 0 ? errno : 0;
	atomic_store(&w->state, 3);
	if (w->ret < 0)
		return NULL;
	if (w->spin_before) {
		while (now_ns() < w->start)
			;
	} else {
		sleep_until_ns(w->start);
	}
	worker_run(w);
	return NULL;
}

/*
 * Start @w's thread at @fn(@arg), make it a SCHED_BVT thread, and return
 * once it has begun its constraint.
 */
static int worker_start(struct worker *w, void *(*fn)(void *), void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);

	atomic_store(&w->state, 0);
	if (pthread_create(&w->thread, NULL, fn, arg))
		return -1;
	while (atomic_load(&w->state) != 1)
		usleep(1000);
	if (sys_sched_setattr(w->tid, &attr, 0))
		return -1;
	atomic_store(&w->state, 2);
	while (atomic_load(&w->state) != 3)
		usleep(1000);
	return 0;
}

static int worker_begin(struct worker *w)
{
	return worker_start(w, worker_main, w);
}

static bool worker_met(const struct worker *w)
{
	return w->ret == 1 && w->ended.flags == SCHED_BVT_TC_ENDED &&
	       w->end_ns <= w->deadline;
}

static void worker_show(const char *name, const struct worker *w)
{
	printf("# %s: begin %ld (errno %d) on CPU %d, ", name, w->ret, w->err,
	       w->begun.cpu);
	printf("ran %.1f ms by %+.1f ms of its deadline, ", w->ran_ms,
	       ((double)w->end_ns - (double)w->deadline) / 1e6);
	printf("end flags %#x, taken %.1f ms\n", w->ended.flags,
	       w->ended.time_taken / 1e6);
}

/*
 * A CPU-bound BVT thread warped by 1 s, with no limit: an unwarped thread
 * beside it runs only in constraint time, for longer than any window here.
 * (A worker whose work outruns its estimate, as a host stall charged to it
 * can make it, waits behind it up to a second to end its constraint: the
 * workers' estimates leave tens of ms for that.)
 */
static struct sched_attr warped_hog(void)
{
	return bvt_warp_attr(1000 * MS, 0, 0);
}

FIXTURE(tc) {
	int unused;
};

FIXTURE_SETUP(tc)
{
	int ret = rsv_test_setup();

	if (ret > 0)
		SKIP(return, "no bvt_ctl(2)");
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(tc)
{
	EXPECT_EQ(0, read_sysctl(RSV_ADMITTED));
}

/*
 * In a SCHED_BVT thread: an estimate longer than its window is EINVAL
 * (2^64 - 9 ms among them); one that fills its window is refused, not an
 * error; a refused constraint is begun all the same (EBUSY for another
 * BEGIN, ended by END or END_PREV); END_PREV with none in progress begins
 * one; END works after the thread left the class.
 */
static void *errors_main(void *arg)
{
	struct steps *o = arg;
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	struct sched_bvt_tc tc;
	unsigned long long t;

	pin_self(test_cpu());
	check_step(o, !sys_sched_setattr(0, &attr, 0));
	t = now_ns();
	/* 1 */
	check_step(o, tc_begin(t, -10 * MS + 1 * MS, t + 100 * MS, 0, &tc) == -1 &&
		   errno == EINVAL);
	check_step(o, tc_begin(t + 10 * MS, 50 * MS + 1, t + 60 * MS, 0, &tc) == -1 &&
		   errno == EINVAL);
	check_step(o, tc_end(&tc) == -1 && errno == ENOENT);
	/* 4: the whole window: refused, but begun */
	t = now_ns();
	check_step(o, tc_begin(t, 100 * MS, t + 100 * MS, 0, &tc) == 0);
	check_step(o, tc_begin(t, 1 * MS, t + 100 * MS, 0, &tc) == -1 &&
		   errno == EBUSY);
	check_step(o, tc_end(&tc) == 0 && tc.flags == SCHED_BVT_TC_ENDED);
	/* 7: END_PREV with none in progress: just a begin */
	t = now_ns();
	check_step(o, tc_begin(t, 1 * MS, t + 100 * MS, SCHED_BVT_TC_END_PREV,
			       &tc) == 1 && tc.flags == 0 && tc.cpu >= 0);
	/* 8: ended after leaving the class, and by then not guaranteed */
	check_step(o, !sys_sched_setattr(0, &other, 0));
	check_step(o, tc_end(&tc) == 0 &&
		   tc.flags == (SCHED_BVT_TC_ENDED | SCHED_BVT_TC_MISSED));
	check_step(o, tc_end(&tc) == -1 && errno == ENOENT);
	/* 11: non-zero output fields on input */
	check_step(o, !sys_sched_setattr(0, &attr, 0));
	t = now_ns();
	tc = (struct sched_bvt_tc){ .size = sizeof(tc), .start = t,
				    .estimate = MS, .deadline = t + 10 * MS,
				    .cpu = 1 };
	check_step(o, bvt_ctl(BVT_CTL_TC_BEGIN, 0, &tc, 0) == -1 &&
		   errno == EINVAL);
	return NULL;
}

TEST_F(tc, errors)
{
	struct steps o = { 0 };
	pthread_t thread;

	pthread_create(&thread, NULL, errors_main, &o);
	pthread_join(thread, NULL);
	if (o.step)
		printf("# step %d of %d went wrong: errno %d\n", o.step,
		       o.steps, o.err);
	EXPECT_EQ(0, o.step);
}

/*
 * V is accepted for 60 ms in [T + 10, T + 110 ms], A for 30 ms in [T,
 * T + 100 ms]; B asks the same window as A with an estimate of 2^64 - 29 ms,
 * which with A's would sum to 1 ms in a u64: EINVAL.  Beside a warped
 * thread, V then does its work by its deadline (with B accepted, it got
 * 6 to 12 ms and missed by 108 ms).
 */
TEST_F(tc, a_wrapped_estimate_breaks_no_guarantee)
{
	unsigned long long t = now_ns() + 300 * MS;
	struct worker v = { .cpu = test_cpu(), .cpu2 = -1, .start = t + 10 * MS,
			    .estimate = 60 * MS, .deadline = t + 110 * MS,
			    .give_up = t + 300 * MS, .work_ms = 20 };
	struct worker a = v, b = v;
	struct spin hog;

	a.start = t;
	a.estimate = 30 * MS;
	a.deadline = t + 100 * MS;
	a.work_ms = 5;
	b = a;
	b.estimate = -30 * MS + 1 * MS;
	b.work_ms = 1e9;
	b.give_up = t + 100 * MS;
	ASSERT_EQ(0, worker_begin(&v));
	ASSERT_EQ(0, worker_begin(&a));
	ASSERT_EQ(0, worker_begin(&b));
	ASSERT_EQ(0, start_spin(&hog, test_cpu(), warped_hog()));
	pthread_join(v.thread, NULL);
	pthread_join(a.thread, NULL);
	pthread_join(b.thread, NULL);
	stop_spin(&hog);
	worker_show("V", &v);
	worker_show("A", &a);
	worker_show("B", &b);
	EXPECT_EQ(1, v.ret);
	EXPECT_EQ(1, a.ret);
	EXPECT_EQ(-1, b.ret);
	EXPECT_EQ(EINVAL, b.err);
	EXPECT_TRUE(worker_met(&v));
	EXPECT_TRUE(worker_met(&a));
}

/*
 * The most a constraint may ask in [@start, @start + @span], as admission
 * answers, to 1 ms: what the plan's free time there is, beside the others.
 */
static unsigned long long tc_most(unsigned long long start,
				  unsigned long long span)
{
	unsigned long long lo = 0, hi = span, mid;
	struct sched_bvt_tc tc;

	while (hi - lo > MS) {
		mid = (lo + hi) / 2;
		if (tc_begin(start, mid, start + span, 0, &tc) == 1)
			lo = mid;
		else
			hi = mid;
		tc_end(&tc);
	}
	return lo;
}

/*
 * X holds the test CPU's only reservation, 100 of every 1000 ms: the plan
 * is its idle reservation's 100 ms, X's 100 ms, then 800 ms free.  V
 * finds, among ten windows of 500 ms 100 ms apart, one that lies in the
 * free time (so more of it is free than the 450 ms the idle plan alone
 * would give), and is accepted for nearly all of it; beside a warped
 * thread it runs only in that time.  X's reservation is released just
 * before the window: only its slots are freed, the plan stays, and V gets
 * its time by its deadline.  (When a release put the idle plan in force
 * from then on, V got at most 90 % of its window, and missed.)
 */
struct release_probe {
	struct worker w;
	unsigned long long most;
};

static void *release_main(void *arg)
{
	struct release_probe *r = arg;
	struct worker *w = &r->w;
	unsigned long long base, t, most;
	int k, tries;

	worker_wait_policy(w);
	/*
	 * Found before its start: the search is some 90 calls, which a busy
	 * host running the guest under TCG once made last past it.
	 */
	for (tries = 0; tries < 3; tries++) {
		base = now_ns() + 300 * MS;
		r->most = 0;
		for (k = 0; k < 10; k++) {
			t = base + k * 100 * MS;
			most = tc_most(t, 500 * MS);
			if (most > r->most) {
				r->most = most;
				w->start = t;
			}
		}
		if (now_ns() + 50 * MS < w->start)
			break;
	}
	w->deadline = w->start + 500 * MS;
	w->give_up = w->deadline + 500 * MS;
	/* Short of its estimate: it ends while it still runs by the plan. */
	w->work_ms = (r->most - 100 * MS) / 1e6;
	w->ret = tc_begin(w->start, r->most - 5 * MS, w->deadline, 0,
			  &w->begun);
	atomic_store(&w->state, 3);
	if (w->ret != 1)
		return NULL;
	sleep_until_ns(w->start);
	worker_run(w);
	return NULL;
}

TEST_F(tc, a_release_keeps_accepted_constraints)
{
	struct release_probe r = { .w = { .cpu = test_cpu() } };
	struct spin x, hog;

	ASSERT_EQ(0, start_spin(&x, test_cpu(), bvt_attr(0, 0)));
	ASSERT_EQ(0, reserve(x.tid, 100 * MS, 1000 * MS, NULL));
	ASSERT_EQ(0, worker_start(&r.w, release_main, &r));
	ASSERT_EQ(0, start_spin(&hog, test_cpu(), warped_hog()));
	sleep_until_ns(r.w.start - 20 * MS);
	EXPECT_EQ(0, bvt_ctl(BVT_CTL_RELEASE, x.tid, NULL, 0));
	pthread_join(r.w.thread, NULL);
	stop_spin(&hog);
	stop_spin(&x);
	printf("# the best window of 500 ms had %.0f ms free\n", r.most / 1e6);
	worker_show("V", &r.w);
	/* A window in the free time was found: the test tests something. */
	EXPECT_LT(470 * MS, r.most);
	EXPECT_EQ(1, r.w.ret);
	EXPECT_TRUE(worker_met(&r.w));
}

/*
 * Two CPUs, A (the test CPU) and B.  F holds 85 of every 100 ms of A, so
 * V, allowed on both and running on A, is accepted on B for 40 ms in
 * [400, 500] ms from now.  A real-time thread then takes A, with RT
 * throttling off (its 5 % would let V run on A now and then, and be pushed
 * to B as it is put), and a BVT thread keeps B busy (no pull by load).  At
 * its start the constraint brings V to B, where it does its 15 ms of work
 * by the deadline.
 */
TEST_F(tc, a_constraint_brings_its_thread_at_its_start)
{
	int a = test_cpu(), b = test_cpu() - 1;
	unsigned long long t;
	struct sched_attr fifo = { .size = SCHED_ATTR_SIZE_VER0,
				   .sched_policy = SCHED_FIFO,
				   .sched_priority = 1 };
	struct worker v = { .cpu = a, .cpu2 = b, .estimate = 40 * MS,
			    .work_ms = 15, .spin_before = true };
	unsigned long long rt_runtime;
	struct spin f, rt, hog;

	if (a < 1)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, start_spin(&f, a, bvt_attr(0, 0)));
	ASSERT_EQ(0, reserve(f.tid, 85 * MS, 100 * MS, NULL));
	ASSERT_EQ(0, start_spin(&hog, b, bvt_attr(0, 0)));
	/* The real-time thread takes A well before the start. */
	t = now_ns() + 400 * MS;
	v.start = t;
	v.deadline = t + 100 * MS;
	v.give_up = t + 300 * MS;
	ASSERT_EQ(0, worker_begin(&v));
	rt_runtime = read_sysctl(RT_RUNTIME);
	write_file("/proc/sys/" RT_RUNTIME, "-1");
	ASSERT_EQ(0, start_spin(&rt, a, fifo));
	/* Past V's give-up time, whatever V does. */
	sleep_until_ns(t + 400 * MS);
	stop_spin(&rt);
	write_sysctl(RT_RUNTIME, rt_runtime);
	pthread_join(v.thread, NULL);
	stop_spin(&hog);
	stop_spin(&f);
	worker_show("V", &v);
	EXPECT_EQ(1, v.ret);
	EXPECT_EQ(b, v.begun.cpu);
	EXPECT_TRUE(worker_met(&v));
}

struct chain {
	int tries, accepted, met, refused_late;
	double late_ms;		/* the latest begin after its start */
	int err;
	atomic_int ready;
};

/*
 * The paper's loop: end the last constraint and begin the next, 8 ms in
 * the next 10 ms, in one call, and do 2 ms of work in it (with room for a
 * host stall charged to it: a thread whose work outruns its estimate runs
 * on as the BVT thread it is, here behind a warped thread, and asks for
 * its next constraint when that window has gone).  With END_PREV letting
 * the caller be switched out between the end and the begin, 69 to 86 of
 * 100 were accepted; 100 since.
 */
static void *chain_main(void *arg)
{
	struct chain *c = arg;
	struct sched_attr attr = bvt_attr(0, 0);
	struct sched_bvt_tc tc;
	unsigned long long t;
	long ret;
	int i;

	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0)) {
		c->err = errno;
		return NULL;
	}
	for (i = 0; i < c->tries; i++) {
		t = now_ns();
		ret = tc_begin(t, 8 * MS, t + 10 * MS, SCHED_BVT_TC_END_PREV,
			       &tc);
		if (ret < 0) {
			c->err = errno;
			break;
		}
		if (!i)
			atomic_store(&c->ready, 1);
		c->accepted += ret;
		spin_cpu_ms(2);
		if (ret && now_ns() <= t + 10 * MS)
			c->met++;
	}
	tc_end(&tc);
	return NULL;
}

TEST_F(tc, chained_constraints_beside_a_warped_thread)
{
	struct chain c = { .tries = 100 };
	pthread_t thread;
	struct spin hog;

	pthread_create(&thread, NULL, chain_main, &c);
	while (!atomic_load(&c.ready) && !c.err)
		usleep(1000);
	ASSERT_EQ(0, start_spin(&hog, test_cpu(), warped_hog()));
	pthread_join(thread, NULL);
	stop_spin(&hog);
	printf("# %d of %d accepted, %d met\n", c.accepted, c.tries, c.met);
	ASSERT_EQ(0, c.err);
	EXPECT_GE(c.accepted, c.tries * 9 / 10);
	EXPECT_GE(c.met, c.accepted * 9 / 10);
}

/*
 * Chained constraints whose thread is asleep at each start, as a periodic
 * real program's: each 15 ms in the next 50 ms, 100 ms apart, for
 * @work_ms of work, or @work_ms then 5 ms asleep then @work2_ms, with
 * END_PREV; from the thread's own 1/10 ms reservation if @reserve.  (Issue
 * 45's cases, 3 ms in 10 ms, 20 ms apart, at five times their scale, above
 * TCG's stalls.)  At most @tries, for at most SLEEPER_S seconds.
 */
#define SLEEPER_WINDOW		(50 * MS)
#define SLEEPER_ESTIMATE	(15 * MS)
#define SLEEPER_APART		(100 * MS)
#define SLEEPER_S		20

struct sleeper {
	int tries;
	double work_ms, work2_ms;
	bool reserve;
	/* out */
	int begun, accepted, needed, met;
	double worst_ms;	/* the latest done of those needed, after its start */
	int err;
	atomic_int ready;
	/* private: the last one begun */
	long ret;
	unsigned long long start, done;
};

static void sleeper_work(const struct sleeper *c)
{
	spin_cpu_ms(c->work_ms);
	if (!c->work2_ms)
		return;
	sleep_until_ns(now_ns() + 5 * MS);
	spin_cpu_ms(c->work2_ms);
}

/*
 * The next start, SLEEPER_APART on; one that a wait of the thread has
 * passed (its work outran its estimate, and it waited behind the warped
 * thread) is that far from now, so that one overrun costs one constraint.
 */
static unsigned long long sleeper_next(unsigned long long t)
{
	unsigned long long now = now_ns();

	t += SLEEPER_APART;
	return t < now + 2 * MS ? now + SLEEPER_APART : t;
}

/*
 * The last one begun has ended (@ended): if accepted and it needed no
 * more than its estimate by the kernel's count, it is judged, and met if
 * done by its deadline and not flagged missed.
 */
static void sleeper_ended(struct sleeper *c, const struct sched_bvt_tc *ended)
{
	double ms = ((double)c->done - (double)c->start) / 1e6;

	if (c->ret != 1 || ended->time_taken > SLEEPER_ESTIMATE)
		return;
	c->needed++;
	if (c->done <= c->start + SLEEPER_WINDOW &&
	    !(ended->flags & SCHED_BVT_TC_MISSED))
		c->met++;
	if (ms > c->worst_ms)
		c->worst_ms = ms;
}

static void *sleeper_main(void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);
	unsigned long long t, end = now_ns() + SLEEPER_S * 1000 * MS;
	struct sleeper *c = arg;
	struct sched_bvt_tc tc;
	long ret;

	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0) ||
	    (c->reserve && reserve(0, 1 * MS, 10 * MS, NULL)))
		goto out;
	t = now_ns() + 100 * MS - SLEEPER_APART;
	for (; c->begun < c->tries && now_ns() < end; c->begun++) {
		t = sleeper_next(t);
		ret = tc_begin(t, SLEEPER_ESTIMATE, t + SLEEPER_WINDOW,
			       SCHED_BVT_TC_END_PREV, &tc);
		if (ret < 0)
			goto out;
		sleeper_ended(c, &tc);
		c->ret = ret;
		c->start = t;
		c->accepted += ret;
		atomic_store(&c->ready, 1);
		sleep_until_ns(t);
		sleeper_work(c);
		c->done = now_ns();
	}
	if (tc_end(&tc))
		goto out;
	sleeper_ended(c, &tc);
	if (c->reserve && bvt_ctl(BVT_CTL_RELEASE, 0, NULL, 0))
		goto out;
	return NULL;
out:
	c->err = errno;
	atomic_store(&c->ready, 1);
	return NULL;
}

/*
 * Run @c's thread beside a CPU-bound thread warped by 1 s, started once
 * the first constraint is begun: the thread runs only in constraint time
 * (and reserved time), its wake-ups putting it a warp behind the other.
 * Each is begun at least 2 ms before its start and fits: 90 % at least
 * are accepted (a host stall longer than its window's free time between
 * reading the clock and asking has it refused).  Under TCG a host stall
 * counts as run time to the thread that held the vCPU, and a constraint
 * whose work then outruns its estimate goes on as the BVT thread it is,
 * behind the warped one for up to a second: those that needed more than
 * their estimate by the kernel's count are not judged, and the next start
 * is then SLEEPER_APART on, not every start of a fixed grid refused for
 * having passed.  At least half are judged, and 90 % of those are met.
 */
static void run_sleeper(struct __test_metadata *const _metadata,
			struct sleeper *c)
{
	pthread_t thread;
	struct spin hog;

	pthread_create(&thread, NULL, sleeper_main, c);
	while (!atomic_load(&c->ready))
		usleep(1000);
	ASSERT_EQ(0, c->err) TH_LOG("%s", strerror(c->err));
	ASSERT_EQ(0, start_spin(&hog, test_cpu(), warped_hog()));
	pthread_join(thread, NULL);
	stop_spin(&hog);
	printf("# %d of %d accepted; ", c->accepted, c->begun);
	printf("%d met of the %d accepted that needed no more than asked, ",
	       c->met, c->needed);
	printf("the latest done %.1f ms after its start\n", c->worst_ms);
	ASSERT_EQ(0, c->err) TH_LOG("%s", strerror(c->err));
	EXPECT_GE(c->accepted, c->begun * 9 / 10);
	EXPECT_GE(c->needed, c->begun / 2);
	EXPECT_GE(c->met, c->needed * 9 / 10);
}

TEST_F_TIMEOUT(tc, sleeping_chained_constraints_beside_a_warped_thread, 60)
{
	struct sleeper c = { .tries = 50, .work_ms = 6 };

	run_sleeper(_metadata, &c);
}

TEST_F_TIMEOUT(tc, sleeping_chained_constraints_from_a_reservation, 60)
{
	struct sleeper c = { .tries = 30, .work_ms = 6, .reserve = true };

	run_sleeper(_metadata, &c);
}

/* Work, 5 ms asleep, work: the wake-up in the constraint runs it at once. */
TEST_F_TIMEOUT(tc, a_constraint_that_sleeps_in_it_is_met, 60)
{
	struct sleeper c = { .tries = 30, .work_ms = 1.5, .work2_ms = 2.5 };

	run_sleeper(_metadata, &c);
}

#define MISS_EVENT	TRACEFS "/events/sched_bvt/sched_bvt_tc_miss/enable"
#define PREV_TRIES	5

struct prev_ended {
	pid_t tid;
	int missed, err;
};

/*
 * Alone on the test CPU: begin A at once and run by it for 1 ms, end it
 * and begin B 20 ms on in one call, sleep until past B's deadline, end B.
 */
static void *prev_ended_main(void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);
	struct prev_ended *o = arg;
	struct sched_bvt_tc tc;
	unsigned long long t;
	int i;

	o->tid = gettid();
	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0))
		goto out;
	for (i = 0; i < PREV_TRIES; i++) {
		t = now_ns();
		if (tc_begin(t, 8 * MS, t + 50 * MS, 0, &tc) != 1)
			goto out;
		spin_cpu_ms(1);
		t = now_ns() + 20 * MS;
		if (tc_begin(t, 5 * MS, t + 10 * MS, SCHED_BVT_TC_END_PREV,
			     &tc) != 1)
			goto out;
		sleep_until_ns(t + 30 * MS);
		if (tc_end(&tc))
			goto out;
		o->missed += !!(tc.flags & SCHED_BVT_TC_MISSED);
	}
	return NULL;
out:
	o->err = errno ? errno : EAGAIN;
	return NULL;
}

/* The demand left at each miss of @tid's constraints, from the trace. */
static int misses_left(pid_t tid, unsigned long long *left, int max)
{
	char line[512], want[32];
	const char *at;
	int n = 0;
	FILE *f;

	snprintf(want, sizeof(want), " pid=%d ", tid);
	f = fopen(TRACEFS "/trace", "r");
	while (f && fgets(line, sizeof(line), f) && n < max) {
		at = strstr(line, "left=");
		if (strstr(line, "sched_bvt_tc_miss:") && strstr(line, want) &&
		    at)
			left[n++] = strtoull(at + 5, NULL, 10);
	}
	if (f)
		fclose(f);
	return n;
}

/*
 * A constraint begun by END_PREV while its thread runs by the one it ends
 * is charged from its own start, not for the rest of the call: its thread
 * asleep from before its start to past its deadline, it ends missed with
 * all of its 5 ms demand left, by the sched_bvt_tc_miss tracepoint.  (The
 * call went on charging the constraint that ended, whose state the next
 * one reuses.)  Five times, as at the end of A the CPU may be in its idle
 * reservation's time, where A does not run its thread.
 */
TEST_F(tc, a_constraint_begun_by_end_prev_is_charged_from_its_start)
{
	unsigned long long left[PREV_TRIES * 2];
	struct prev_ended o = { 0 };
	pthread_t thread;
	int i, n;

	if (access(MISS_EVENT, F_OK))
		SKIP(return, "no tracefs at " TRACEFS);
	write_file(TRACEFS "/trace", "");
	ASSERT_EQ(0, write_file(MISS_EVENT, "1"));
	pthread_create(&thread, NULL, prev_ended_main, &o);
	pthread_join(thread, NULL);
	write_file(MISS_EVENT, "0");
	ASSERT_EQ(0, o.err) TH_LOG("%s", strerror(o.err));
	EXPECT_EQ(PREV_TRIES, o.missed);
	n = misses_left(o.tid, left, PREV_TRIES * 2);
	printf("# %d misses, left:", n);
	for (i = 0; i < n; i++)
		printf(" %llu", left[i]);
	printf(" ns\n");
	EXPECT_EQ(PREV_TRIES, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(5 * MS, left[i]);
}

/*
 * Alone on its CPU: a constraint begun 20 ms before its start and ended
 * 10 ms after it took its run time from the start, not from the begin;
 * one ended before its start took 0.  The start's instant is bracketed by
 * two readings of the thread's CPU clock, 2 ms before and just after it:
 * what was taken lies between the CPU time since each (a host stall
 * around the start falls between the two).  A bracket whose first
 * reading a stall pushed past the start proves nothing: measured again.
 */
struct taken {
	double taken, since_after, since_before, before_start;
};

static void *taken_main(void *arg)
{
	struct taken *out = arg;
	struct sched_attr attr = bvt_attr(0, 0);
	struct sched_bvt_tc tc;
	unsigned long long t, pre_at;
	double pre, post, end;
	int tries;

	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0))
		return NULL;
	t = now_ns();
	if (tc_begin(t + 50 * MS, 10 * MS, t + 100 * MS, 0, &tc) < 0 ||
	    tc_end(&tc))
		return NULL;
	out->before_start = tc.time_taken / 1e6;
	for (tries = 0; tries < 5; tries++) {
		t = now_ns();
		if (tc_begin(t + 20 * MS, 15 * MS, t + 100 * MS, 0, &tc) < 0)
			return NULL;
		while (now_ns() < t + 18 * MS)
			;
		pre = cpu_ms();
		pre_at = now_ns();
		while (now_ns() < t + 20 * MS)
			;
		post = cpu_ms();
		while (now_ns() < t + 30 * MS)
			;
		end = cpu_ms();
		if (tc_end(&tc))
			return NULL;
		if (pre_at < t + 20 * MS)
			break;
	}
	out->taken = tc.time_taken / 1e6;
	out->since_after = end - post;
	out->since_before = end - pre;
	return NULL;
}

TEST_F(tc, time_taken_counts_from_the_start)
{
	struct taken out = { -1, -1, -1, -1 };
	pthread_t thread;

	pthread_create(&thread, NULL, taken_main, &out);
	pthread_join(thread, NULL);
	printf("# taken %.3f ms; CPU clock since just after the start %.3f ms, ",
	       out.taken, out.since_after);
	printf("since 2 ms before it %.3f ms; ", out.since_before);
	printf("ended before its start: %.3f ms\n", out.before_start);
	ASSERT_GE(out.since_after, 0);
	/*
	 * Counted from the begin, it would hold some 18 ms more than the
	 * upper bound.  4 ms either way: the kernel splits the run time at
	 * the start by the monotonic clock since the thread last came in,
	 * and under TCG the clocksource watchdog may find the TSC unstable,
	 * after which that clock and the run-time clock drift apart by
	 * milliseconds (1.7 ms in a make check).
	 */
	EXPECT_GT(out.taken, out.since_after - 4);
	EXPECT_LT(out.taken, out.since_before + 4);
	EXPECT_EQ(0, out.before_start);
}

/*
 * P has a QAS set with one optional part, 30 ms of every 400 ms, and a
 * constraint of 40 ms in [50, 100] ms after its period starts.  Beside a
 * warped thread it runs in the part first, then only in the constraint:
 * the part's 30 ms are not taken from the constraint, which is met.
 */
static void *part_main(void *arg)
{
	struct worker *w = arg;
	struct sched_attr attr = bvt_attr(0, 0);
	struct sched_bvt_qas q = { .size = sizeof(q), .period = 400 * MS };
	struct sched_bvt_qas_part part = { .size = sizeof(part),
					   .amount = 30 * MS };
	unsigned long long t;
	double cpu0;

	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0) ||
	    bvt_ctl(BVT_CTL_QAS_PERIOD, 0, &q, 0) ||
	    bvt_ctl(BVT_CTL_QAS_RESERVE, 0, &part, 0)) {
		w->err = errno;
		atomic_store(&w->state, 3);
		return NULL;
	}
	atomic_store(&w->state, 1);
	while (atomic_load(&w->state) != 2)
		usleep(1000);
	if (bvt_ctl(BVT_CTL_QAS_BEGIN, 0, NULL, 0) < 0)
		w->err = errno;
	t = now_ns();
	w->start = t + 50 * MS;
	w->deadline = t + 100 * MS;
	w->ret = tc_begin(w->start, 40 * MS, w->deadline, 0, &w->begun);
	/* In the part, then as a plain thread (behind the warped one). */
	cpu0 = cpu_ms();
	atomic_store(&w->state, 3);
	while (now_ns() < w->start)
		;
	w->before_ms = cpu_ms() - cpu0;
	w->work_ms = 15;
	w->give_up = t + 300 * MS;
	worker_run(w);
	bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0);
	return NULL;
}

TEST_F(tc, qas_part_time_is_not_taken_from_a_constraint)
{
	struct worker w = { 0 };
	struct spin hog;

	if (bvt_ctl(BVT_CTL_QAS_GET, 0, NULL, 0) && errno == EOPNOTSUPP)
		SKIP(return, "no QAS sets (CONFIG_SCHED_BVT_QAS=n)");
	pthread_create(&w.thread, NULL, part_main, &w);
	while (atomic_load(&w.state) == 0)
		usleep(1000);
	atomic_store(&w.state, 2);
	while (atomic_load(&w.state) != 3)
		usleep(1000);
	ASSERT_EQ(0, start_spin(&hog, test_cpu(), warped_hog()));
	pthread_join(w.thread, NULL);
	stop_spin(&hog);
	worker_show("P", &w);
	printf("# P ran %.1f ms before the start\n", w.before_ms);
	ASSERT_EQ(0, w.err);
	EXPECT_EQ(1, w.ret);
	/* It ran its part before the start (and more until the hog came). */
	EXPECT_LT(20, w.before_ms);
	EXPECT_TRUE(worker_met(&w));
}

/*
 * An affinity change that takes a constraint's CPU away, when the
 * constraint does not count on reserved time there, is not refused: the
 * constraint loses its guarantee, and ends missed.
 */
TEST_F(tc, affinity_changes_are_not_refused_for_a_constraint)
{
	unsigned long long t = now_ns() + 50 * MS;
	struct worker v = { .cpu = test_cpu(), .cpu2 = -1, .start = t,
			    .estimate = 5 * MS, .deadline = t + 1000 * MS,
			    .give_up = t + 200 * MS, .work_ms = 1e9 };
	cpu_set_t set;

	if (test_cpu() < 1)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, worker_begin(&v));
	ASSERT_EQ(1, v.ret);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	EXPECT_EQ(0, sched_setaffinity(v.tid, sizeof(set), &set));
	pthread_join(v.thread, NULL);
	worker_show("V", &v);
	EXPECT_EQ(SCHED_BVT_TC_ENDED | SCHED_BVT_TC_MISSED, v.ended.flags);
}

/*
 * A thread that left the class gave its constraint's free time back:
 * 800 ms of the next second then fits for another thread.
 */
static void *leaver_main(void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	struct sched_bvt_tc tc;
	unsigned long long t;
	atomic_int *state = arg;

	pin_self(test_cpu());
	sys_sched_setattr(0, &attr, 0);
	t = now_ns();
	if (tc_begin(t, 800 * MS, t + 1000 * MS, 0, &tc) == 1)
		sys_sched_setattr(0, &other, 0);
	atomic_store(state, 1);
	while (atomic_load(state) != 2)
		usleep(1000);
	tc_end(&tc);
	return NULL;
}

TEST_F(tc, leaving_the_class_gives_the_time_back)
{
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	struct sched_bvt_tc tc;
	atomic_int state = 0;
	unsigned long long t;
	pthread_t thread;
	long ret;

	pthread_create(&thread, NULL, leaver_main, &state);
	while (!atomic_load(&state))
		usleep(1000);
	ASSERT_EQ(0, pin_self(test_cpu()));
	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	t = now_ns();
	ret = tc_begin(t, 800 * MS, t + 1000 * MS, 0, &tc);
	tc_end(&tc);
	ASSERT_EQ(0, sys_sched_setattr(0, &other, 0));
	atomic_store(&state, 2);
	pthread_join(thread, NULL);
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, pin_self(0));
	EXPECT_EQ(1, ret);
}

/*
 * A process of an unprivileged user (RLIMIT_RTPRIO 1, so it may enter
 * the class) holds at most 4 accepted constraints of a CPU, and at most
 * half its free time in a window; root may take more.  Five threads ask
 * for 1 ms in the next second each: 4 accepted; then 500 ms of the 900 ms
 * free in the next second: refused, 400 ms accepted.
 */
#define UNPRIV_THREADS	5

static atomic_int unpriv_state;

static void *unpriv_main(void *arg)
{
	struct sched_bvt_tc tc;
	unsigned long long t;
	long *ret = arg;

	pin_self(test_cpu());
	t = now_ns();
	*ret = tc_begin(t, 1 * MS, t + 1000 * MS, 0, &tc);
	atomic_fetch_add(&unpriv_state, 1);
	while (atomic_load(&unpriv_state) < 100)
		usleep(1000);
	tc_end(&tc);
	return NULL;
}

static int unprivileged_child(void)
{
	struct rlimit one = { 1, 1 };
	struct sched_attr attr = bvt_attr(0, 0);
	pthread_t thread[UNPRIV_THREADS];
	long ret[UNPRIV_THREADS];
	struct sched_bvt_tc tc;
	unsigned long long t;
	int i, accepted = 0;

	if (setrlimit(RLIMIT_RTPRIO, &one) || setgid(65534) || setuid(65534))
		return 10;
	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0))
		return 11;
	for (i = 0; i < UNPRIV_THREADS; i++) {
		pthread_create(&thread[i], NULL, unpriv_main, &ret[i]);
		while (atomic_load(&unpriv_state) != i + 1)
			usleep(1000);
	}
	for (i = 0; i < UNPRIV_THREADS; i++)
		accepted += ret[i] == 1;
	atomic_store(&unpriv_state, 100);
	for (i = 0; i < UNPRIV_THREADS; i++)
		pthread_join(thread[i], NULL);
	printf("# unprivileged: %d of %d accepted\n", accepted,
	       UNPRIV_THREADS);
	if (accepted != 4)
		return 12;
	t = now_ns();
	if (tc_begin(t, 500 * MS, t + 1000 * MS, 0, &tc) != 0)
		return 13;
	tc_end(&tc);
	t = now_ns();
	if (tc_begin(t, 400 * MS, t + 1000 * MS, 0, &tc) != 1)
		return 14;
	tc_end(&tc);
	return 0;
}

TEST_F(tc, an_unprivileged_user_holds_a_bounded_part)
{
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	struct sched_bvt_tc tc;
	unsigned long long t;
	int status;
	pid_t pid;
	long ret;

	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(unprivileged_child());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* Root: 500 ms of the next second fits. */
	ASSERT_EQ(0, pin_self(test_cpu()));
	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	t = now_ns();
	ret = tc_begin(t, 500 * MS, t + 1000 * MS, 0, &tc);
	tc_end(&tc);
	ASSERT_EQ(0, sys_sched_setattr(0, &other, 0));
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, pin_self(0));
	EXPECT_EQ(1, ret);
}

/*
 * A thread whose constraint, a second ahead, is accepted on CPU 0 gets a
 * reservation on the test CPU; taking the test CPU offline moves the
 * reservation and leaves the constraint, which does not count on it,
 * alone.  (An offline was refused, EBUSY, while the thread had a
 * constraint on any CPU.)
 */
TEST_F(tc, a_constraint_elsewhere_does_not_hold_a_cpu_up)
{
	unsigned long long t = now_ns() + 1000 * MS;
	struct worker v = { .cpu = 0, .cpu2 = -1, .start = t,
			    .estimate = 50 * MS, .deadline = t + 1000 * MS,
			    .give_up = t + 500 * MS, .work_ms = 3 };
	cpu_set_t set;
	struct sched_bvt_rsv r;
	struct spin y;
	int err, last;

	if (test_cpu() < 1 ||
	    access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs two CPUs and CPU hotplug");
	/* Y's reservation on CPU 0 sends V's to the test CPU. */
	ASSERT_EQ(0, start_spin(&y, 0, bvt_attr(0, 0)));
	ASSERT_EQ(0, reserve(y.tid, 1 * MS, 10 * MS, &r));
	ASSERT_EQ(0, r.cpu);
	v.spin_before = false;
	ASSERT_EQ(0, worker_begin(&v));
	ASSERT_EQ(1, v.ret);
	ASSERT_EQ(0, v.begun.cpu);
	/* Then free to run on both: its reservation goes to the test CPU. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(test_cpu(), &set);
	ASSERT_EQ(0, sched_setaffinity(v.tid, sizeof(set), &set));
	ASSERT_EQ(0, reserve(v.tid, 1 * MS, 10 * MS, &r))
		TH_LOG("reserve: %s", strerror(errno));
	EXPECT_EQ(test_cpu(), r.cpu);
	/* (test_cpu() is another CPU while this one is offline.) */
	last = test_cpu();
	err = set_online(last, 0) ? errno : 0;
	EXPECT_EQ(0, err);
	if (!err)
		EXPECT_EQ(0, set_online(last, 1));
	pthread_join(v.thread, NULL);
	stop_spin(&y);
	worker_show("V", &v);
	EXPECT_TRUE(worker_met(&v));
	usleep(100 * 1000);
}

/*
 * An unprivileged constraint keeps nothing from a privileged claim: uid
 * 65534 (RLIMIT_RTPRIO 1) begins 3.8 s in the next 9.5 s, within its half
 * of the free time, and sleeps; root's 6/10 ms reservation on that CPU is
 * granted (it was EBUSY until the constraint ended, and END_PREV renewed
 * it for ever) and the constraint ends missed.  So does the next one, as
 * a constraint of root's that needs its time is accepted.
 */
static int sleeper_child(int ready, int go)
{
	struct rlimit one = { 1, 1 };
	struct sched_attr attr = bvt_attr(0, 0);
	struct sched_bvt_tc tc;
	unsigned long long t;
	char c;
	int i;

	if (setrlimit(RLIMIT_RTPRIO, &one) || setgid(65534) || setuid(65534))
		return 10;
	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0))
		return 11;
	for (i = 0; i < 2; i++) {
		t = now_ns();
		c = tc_begin(t, 3800 * MS, t + 9500 * MS, 0, &tc) == 1;
		if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
			return 12;
		if (tc_end(&tc))
			return 13;
		if (!(tc.flags & SCHED_BVT_TC_MISSED))
			return 20 + i;
	}
	return 0;
}

TEST_F(tc, a_reservation_takes_an_unprivileged_constraints_place)
{
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	int ready[2], go[2], status;
	struct sched_bvt_rsv r;
	struct sched_bvt_tc tc;
	unsigned long long t;
	struct spin y;
	long ret;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(ready));
	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		close(ready[0]);
		close(go[1]);
		_exit(sleeper_child(ready[1], go[0]));
	}
	close(ready[1]);
	close(go[0]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(1, c);
	ASSERT_EQ(0, start_spin(&y, test_cpu(), bvt_attr(0, 0)));
	EXPECT_EQ(0, reserve(y.tid, 6 * MS, 10 * MS, &r))
		TH_LOG("reserve: %s", strerror(errno));
	EXPECT_EQ(test_cpu(), r.cpu);
	bvt_ctl(BVT_CTL_RELEASE, y.tid, NULL, 0);
	stop_spin(&y);
	ASSERT_EQ(1, write(go[1], "g", 1));

	ASSERT_EQ(1, read(ready[0], &c, 1));
	EXPECT_EQ(1, c);
	ASSERT_EQ(0, pin_self(test_cpu()));
	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	t = now_ns();
	/* 7 s of the 8.1 s free: not beside the child's 3.8 s. */
	ret = tc_begin(t, 7000 * MS, t + 9000 * MS, 0, &tc);
	tc_end(&tc);
	ASSERT_EQ(0, sys_sched_setattr(0, &other, 0));
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, pin_self(0));
	EXPECT_EQ(1, ret);
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(ready[0]);
	close(go[1]);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * sched_setattr(2) with SCHED_FLAG_KEEP_PARAMS keeps the policy, whatever
 * policy it names: the thread stays in SCHED_BVT with its reservation, its
 * accepted constraint (met, not lost) and its QAS set.  (Before, the call
 * ended them all and left the thread in the class.)
 */
TEST_F(tc, keep_params_keeps_the_plan)
{
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	struct sched_attr keep = { .size = SCHED_ATTR_SIZE_VER0,
				   .sched_policy = SCHED_OTHER,
				   .sched_flags = SCHED_FLAG_KEEP_PARAMS };
	struct sched_bvt_qas q = { .size = sizeof(q), .period = 100 * MS };
	struct sched_bvt_qas_part part = { .size = sizeof(part),
					   .amount = 10 * MS };
	struct sched_bvt_rsv r = { .size = sizeof(r) };
	struct sched_bvt_tc tc;
	unsigned long long t;
	bool qas;

	ASSERT_EQ(0, pin_self(test_cpu()));
	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	ASSERT_EQ(0, reserve(0, 1 * MS, 10 * MS, NULL));
	t = now_ns();
	ASSERT_EQ(1, tc_begin(t, 5 * MS, t + 1000 * MS, 0, &tc));
	EXPECT_EQ(0, sys_sched_setattr(0, &keep, 0));
	EXPECT_EQ(SCHED_BVT, sched_getscheduler(0));
	EXPECT_EQ(0, bvt_ctl(BVT_CTL_GET_RSV, 0, &r, 0))
		TH_LOG("GET_RSV: %s", strerror(errno));
	EXPECT_EQ(0, tc_end(&tc));
	EXPECT_EQ(SCHED_BVT_TC_ENDED, tc.flags);
	EXPECT_EQ(0, bvt_ctl(BVT_CTL_RELEASE, 0, NULL, 0));

	qas = !bvt_ctl(BVT_CTL_QAS_PERIOD, 0, &q, 0);
	if (qas) {
		ASSERT_EQ(0, bvt_ctl(BVT_CTL_QAS_RESERVE, 0, &part, 0));
		EXPECT_EQ(0, sys_sched_setattr(0, &keep, 0));
		EXPECT_EQ(SCHED_BVT, sched_getscheduler(0));
		q = (struct sched_bvt_qas){ .size = sizeof(q) };
		EXPECT_EQ(0, bvt_ctl(BVT_CTL_QAS_GET, 0, &q, 0))
			TH_LOG("QAS_GET: %s", strerror(errno));
		EXPECT_EQ(1, q.nr_parts);
		EXPECT_EQ(0, bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0));
	}
	ASSERT_EQ(0, sys_sched_setattr(0, &other, 0));
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, pin_self(0));
}

/* A thread may release its own reservation without CAP_SYS_NICE. */
TEST_F(tc, releasing_ones_own_reservation_needs_no_privilege)
{
	int status, go[2], done[2];
	char c;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct rlimit one = { 1, 1 };
		struct sched_attr attr = bvt_attr(0, 0);

		if (setrlimit(RLIMIT_RTPRIO, &one) ||
		    sys_sched_setattr(0, &attr, 0) || setgid(65534) ||
		    setuid(65534))
			_exit(10);
		c = 1;
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(11);
		/* Another's: EPERM; its own: released. */
		if (bvt_ctl(BVT_CTL_RELEASE, getppid(), NULL, 0) != -1 ||
		    (errno != EPERM && errno != ENOENT))
			_exit(12);
		_exit(bvt_ctl(BVT_CTL_RELEASE, 0, NULL, 0) ? 13 : 0);
	}
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_EQ(0, reserve(pid, 1 * MS, 10 * MS, NULL));
	ASSERT_EQ(1, write(go[1], "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	usleep(100 * 1000);
}

TEST_HARNESS_MAIN
