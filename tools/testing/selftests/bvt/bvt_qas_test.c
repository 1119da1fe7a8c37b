// SPDX-License-Identifier: GPL-2.0
/*
 * Quality-assuring scheduling (bvt_ctl(2) BVT_CTL_QAS_*, QAS/DROPS).  The
 * periodic threads run on the test CPU (the last one), set up by a
 * SCHED_FIFO controller on CPU 0:
 *  - bad requests get their errno, GET returns what was set, and ending a
 *    set (END, a change of policy, exit) gives its mandatory part's
 *    reservation back; a child does not inherit a set;
 *  - the mandatory parts of 3 periodic threads complete in every one of
 *    200 periods (but 4, under TCG's stalls) beside a CPU-bound fair
 *    thread and a warped CPU-bound BVT thread, which keep the rest of the
 *    CPU;
 *  - an optional part stops at its amount: restricted to its reserved
 *    time, a thread that spins gets its parts and waits for its next
 *    period, and the thread beside it gets the rest;
 *  - overruns and a period that ends in a part are notified with the
 *    part's index, and counted;
 *  - BVT_CTL_QAS_BEGIN blocks until the next period starts, and returns at
 *    once, with the number of periods lost, when the caller is late;
 *  - ending the set of a restricted thread that waits for its next period
 *    ends the wait, and a signal may not be chosen for another thread.
 */
#include "bvt_util.h"

#include <signal.h>
#include <stdatomic.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define MS		1000000ULL

static int qas_period(pid_t pid, unsigned long long period, unsigned int flags,
		      int sig)
{
	struct sched_bvt_qas q = {
		.size = sizeof(q), .period = period, .flags = flags,
		.signal = sig,
	};

	return bvt_ctl(BVT_CTL_QAS_PERIOD, pid, &q, 0);
}

static int qas_reserve(pid_t pid, unsigned long long amount,
		       unsigned int priority, bool mandatory,
		       struct sched_bvt_qas_part *out)
{
	struct sched_bvt_qas_part r = {
		.size = sizeof(r), .amount = amount, .priority = priority,
		.flags = mandatory ? SCHED_BVT_QAS_MANDATORY : 0,
	};
	int ret = bvt_ctl(BVT_CTL_QAS_RESERVE, pid, &r, 0);

	if (out)
		*out = r;
	return ret < 0 ? ret : r.index;
}

static int qas_get(pid_t pid, struct sched_bvt_qas *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	return bvt_ctl(BVT_CTL_QAS_GET, pid, q, 0);
}

static inline long qas_begin(void)
{
	return bvt_ctl(BVT_CTL_QAS_BEGIN, 0, NULL, 0);
}

static inline long qas_next(void)
{
	return bvt_ctl(BVT_CTL_QAS_NEXT, 0, NULL, 0);
}

static double cpu_ms(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e3;
}

/* The calling thread, on the test CPU, as a SCHED_BVT thread. */
static int become_bvt(void)
{
	struct sched_attr attr = bvt_attr(0, 0);

	if (pin_self(test_cpu()))
		return -1;
	return sys_sched_setattr(0, &attr, 0);
}

/* Notifications, as the signal handler saw them. */
#define MAX_NOTES	64
static __thread struct {
	int code[MAX_NOTES];
	int index[MAX_NOTES];
	atomic_int n;		/* lock-free: safe in a handler */
} notes;

static void note_signal(int sig, siginfo_t *si, void *uc)
{
	int n = atomic_load(&notes.n);

	if (n < MAX_NOTES) {
		notes.code[n] = si->si_code;
		notes.index[n] = si->si_value.sival_int;
	}
	atomic_store(&notes.n, n + 1);
}

static int catch_notes(int sig)
{
	struct sigaction sa = {
		.sa_sigaction = note_signal,
		.sa_flags = SA_SIGINFO | SA_RESTART,
	};

	return sigaction(sig, &sa, NULL);
}

FIXTURE(qas) {
	int unused;
};

FIXTURE_SETUP(qas)
{
	int ret = rsv_test_setup();

	if (ret > 0)
		SKIP(return, "no bvt_ctl(2)");
	if (bvt_ctl(BVT_CTL_QAS_GET, 0, NULL, 0) && errno == EOPNOTSUPP)
		SKIP(return, "no QAS sets (CONFIG_SCHED_BVT_QAS=n)");
	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(errno));
}

FIXTURE_TEARDOWN(qas)
{
	/* No mandatory part outlives its test. */
	EXPECT_EQ(0, read_sysctl(RSV_ADMITTED));
}

struct errors_out {
	struct steps s;
	struct sched_bvt_qas q;	/* after the first BEGIN */
};

static void *errors_main(void *arg)
{
	struct errors_out *o = arg;
	struct sched_attr other = other_attr(0);
	struct sched_bvt_qas_part part;
	struct sched_bvt_qas q;
	int i;

#define STEP(cond) check_step(&o->s, cond)

	STEP(catch_notes(SIGRTMIN) == 0);
	/* Not SCHED_BVT yet: EINVAL; nothing to act on: ENOENT. */
	STEP(qas_period(0, 20 * MS, 0, 0) == -1 && errno == EINVAL);
	STEP(become_bvt() == 0);
	STEP(qas_reserve(0, 1 * MS, 0, false, NULL) == -1 && errno == ENOENT);
	STEP(qas_begin() == -1 && errno == ENOENT);
	STEP(qas_next() == -1 && errno == ENOENT);
	STEP(qas_get(0, &q) == -1 && errno == ENOENT);
	/* Bad periods, flags and signals. */
	STEP(qas_period(0, 999999, 0, 0) == -1 && errno == EINVAL);
	STEP(qas_period(0, 5000 * MS, 0, 0) == -1 && errno == EINVAL);
	STEP(qas_period(0, 20 * MS, 0x80, 0) == -1 && errno == EINVAL);
	STEP(qas_period(0, 20 * MS, 0, SIGKILL) == -1 && errno == EINVAL);
	STEP(qas_period(0, 20 * MS, 0, 100) == -1 && errno == EINVAL);
	STEP(qas_period(0, 200 * MS, SCHED_BVT_QAS_RESTRICT, SIGRTMIN) == 0);
	STEP(qas_period(0, 200 * MS, 0, 0) == -1 && errno == EEXIST);
	/* BEGIN and NEXT are the caller's own, without an argument. */
	STEP(bvt_ctl(BVT_CTL_QAS_BEGIN, 0, &q, 0) == -1 && errno == EINVAL);
	STEP(bvt_ctl(BVT_CTL_QAS_NEXT, 1, NULL, 0) == -1 && errno == EINVAL);
	/* No part yet: nothing to begin. */
	STEP(qas_begin() == -1 && errno == ENOENT);
	/* Bad parts (in 200 ms: TCG's syscalls take ms of the parts). */
	STEP(qas_reserve(0, 1000, 0, false, NULL) == -1 && errno == EINVAL);
	STEP(qas_reserve(0, 201 * MS, 0, false, NULL) == -1 && errno == EINVAL);
	STEP(qas_reserve(0, 10 * MS, 256, false, NULL) == -1 &&
	     errno == EINVAL);
	STEP(qas_reserve(0, 10 * MS, 3, true, NULL) == -1 && errno == EINVAL);
	/* More than the CPU can guarantee: refused by admission. */
	STEP(qas_reserve(0, 190 * MS, 0, true, NULL) == -1 && errno == EBUSY);
	STEP(read_sysctl(RSV_ADMITTED) == 0);
	/* The mandatory part is admitted, and granted its amount. */
	STEP(qas_reserve(0, 40 * MS, 0, true, &part) == 0);
	STEP(part.cpu == test_cpu() && part.granted_period == 200 * MS &&
	     part.granted_amount == 40 * MS);
	STEP(read_sysctl(RSV_ADMITTED) > 0);
	/* It is the set's: not released apart from it. */
	STEP(bvt_ctl(BVT_CTL_RELEASE, 0, NULL, 0) == -1 && errno == EBUSY);
	STEP(qas_reserve(0, 40 * MS, 0, true, NULL) == -1 && errno == EINVAL);
	STEP(qas_reserve(0, 20 * MS, 7, false, NULL) == 1);
	/* The parts' amounts together fit in the period. */
	STEP(qas_reserve(0, 150 * MS, 8, false, NULL) == -1 && errno == EINVAL);
	for (i = 2; i < SCHED_BVT_QAS_PARTS_MAX; i++)
		STEP(qas_reserve(0, 1 * MS, 9, false, NULL) == i);
	STEP(qas_reserve(0, 1 * MS, 9, false, NULL) == -1 && errno == ENOSPC);
	/* What was set comes back. */
	STEP(qas_get(0, &q) == 0);
	STEP(q.period == 200 * MS && q.flags == SCHED_BVT_QAS_RESTRICT &&
	     q.signal == SIGRTMIN && q.nr_parts == SCHED_BVT_QAS_PARTS_MAX &&
	     q.part == q.nr_parts && q.nr_periods == 0);
	STEP(proc_sched_field(gettid(), "bvt.qas.nr_parts") ==
	     SCHED_BVT_QAS_PARTS_MAX);
	/* Begun: the first period starts, in the first part. */
	STEP(qas_begin() == 0);
	STEP(qas_get(0, &o->q) == 0 && o->q.part == 0 &&
	     o->q.nr_periods == 1);
	STEP(qas_reserve(0, 1 * MS, 9, false, NULL) == -1 && errno == EBUSY);
	STEP(qas_next() == 1);
	/* END gives the reservation back; then there is nothing. */
	STEP(bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0) == 0);
	STEP(read_sysctl(RSV_ADMITTED) == 0);
	STEP(qas_get(0, &q) == -1 && errno == ENOENT);
	STEP(bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0) == -1 && errno == ENOENT);
	/* A set again; a change of policy ends it and its reservation. */
	STEP(qas_period(0, 20 * MS, 0, 0) == 0);
	STEP(qas_reserve(0, 4 * MS, 0, true, NULL) == 0);
	STEP(read_sysctl(RSV_ADMITTED) > 0);
	STEP(sys_sched_setattr(0, &other, 0) == 0);
	STEP(qas_get(0, &q) == -1 && errno == ENOENT);
	return NULL;
#undef STEP
}

TEST_F(qas, errors)
{
	struct errors_out o = { };
	pthread_t t;

	pthread_create(&t, NULL, errors_main, &o);
	pthread_join(t, NULL);
	EXPECT_EQ(0, o.s.step) TH_LOG("step %d: %s; after BEGIN: part %u, period %llu",
				      o.s.step, strerror(o.s.err), o.q.part,
				      o.q.nr_periods);
	/* The reservation a change of policy released goes on a workqueue. */
	usleep(100000);
}

/* A child does not inherit its parent's set; the exit of a thread ends it. */
TEST_F(qas, fork_and_exit)
{
	struct sched_bvt_qas q;
	pid_t child;
	int status;

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pid_t grandchild;

		if (become_bvt() || qas_period(0, 20 * MS, 0, 0) ||
		    qas_reserve(0, 4 * MS, 0, true, NULL) ||
		    read_sysctl(RSV_ADMITTED) == 0)
			_exit(1);
		grandchild = fork();
		if (!grandchild)
			_exit(qas_get(0, &q) == -1 && errno == ENOENT ? 0 : 2);
		if (grandchild < 0 || waitpid(grandchild, &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			_exit(3);
		/* Exec keeps it: not tested here; exit ends it. */
		_exit(0);
	}
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* The exit released it before its parent could see the exit. */
	EXPECT_EQ(0, read_sysctl(RSV_ADMITTED));
}

/*
 * A periodic thread: in each period, @mandatory_ms of CPU time in its
 * mandatory part, then up to @optional_ms in its optional part, which it
 * abandons when notified (the part overran, or the period ended), as a
 * QAS application drops an optional frame; it records whether the
 * mandatory work was done before its period ended.
 */
/*
 * A mandatory part that ends more than this after its period's end, as the
 * thread sees it, is late.  The kernel's count of mandatory misses is
 * exact; the thread's view has the lateness of the period timer on top,
 * which on a busy host running the guest under TCG was up to 11 ms (27
 * periods of 600 ended after their ends in one make check run, none of
 * them missed by the kernel's count).
 */
#define LATE_MS		25

/* Mandatory parts one thread may see late in 200 periods: see below. */
#define MISSES_MAX	4

struct periodic_qas {
	unsigned long long period, reserve_m, reserve_o;
	unsigned int priority;
	double mandatory_ms, optional_ms;
	int periods;
	/* out */
	int err, late, lost;
	double worst_ms;		/* of mandatory end - period end */
	int late_at[4];			/* the first late periods */
	long late_lost[4];
	struct sched_bvt_qas q;
	atomic_bool *go;
};

static void *periodic_qas_main(void *arg)
{
	struct periodic_qas *pq = arg;
	struct sched_bvt_qas q;
	double end, t0;
	long ret;
	int i, seen;

	if (become_bvt() || catch_notes(SIGRTMIN + 2) ||
	    qas_period(0, pq->period, 0, SIGRTMIN + 2) < 0 ||
	    qas_reserve(0, pq->reserve_m, 0, true, NULL) < 0 ||
	    qas_reserve(0, pq->reserve_o, pq->priority, false, NULL) < 0) {
		pq->err = errno;
		return NULL;
	}
	while (!atomic_load(pq->go))
		usleep(1000);
	pq->worst_ms = -1e9;
	for (i = 0; i < pq->periods; i++) {
		ret = qas_begin();
		if (ret < 0 || qas_get(0, &q)) {
			pq->err = errno;
			break;
		}
		pq->lost += ret;
		spin_cpu_ms(pq->mandatory_ms);
		end = mono_ms() - (q.period_start + q.period) / 1e6;
		if (end > LATE_MS && pq->late < 4) {
			pq->late_at[pq->late] = i;
			pq->late_lost[pq->late] = ret;
		}
		if (end > LATE_MS)
			pq->late++;
		if (end > pq->worst_ms)
			pq->worst_ms = end;
		qas_next();
		seen = notes.n;
		t0 = cpu_ms();
		while (notes.n == seen && cpu_ms() - t0 < pq->optional_ms)
			;
	}
	qas_get(0, &pq->q);
	bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0);
	return NULL;
}

static struct periodic_qas *three;
/* The fair hog's long runs before the three went. */
static int long_runs_before;

static void run_three(struct hog *hogs, int n, unsigned int ms)
{
	atomic_bool go = false;
	pthread_t t[3];
	int i;

	for (i = 0; i < 3; i++) {
		three[i].go = &go;
		pthread_create(&t[i], NULL, periodic_qas_main, &three[i]);
	}
	usleep(200000);
	long_runs_before = __atomic_load_n(&hogs[0].nr_long_runs,
					   __ATOMIC_RELAXED);
	atomic_store(&go, true);
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
}

/*
 * Three periodic threads of 20, 40 and 40 ms, with mandatory parts of
 * 15 % of the CPU each (done in half of that: the calls of a period take
 * a share of it, up to half a ms under TCG on a nohz_full CPU, where
 * every kernel entry and exit is tracked) and optional parts of
 * 10 % each that they overrun, beside a CPU-bound fair and a warped
 * CPU-bound BVT thread: every mandatory part completes in its period, 200
 * periods each, and the hogs keep the rest.  (At half these periods,
 * TCG's late timers made one mandatory part in 50 end up to 1.5 ms late;
 * with the CPU overloaded, optional parts of 20 % each, a mandatory part
 * now and then ended up to 12 ms late in a make check run, with no
 * mandatory part counted missed by the kernel: the whole class then waits
 * for the fair server, which runs above it.)
 *
 * The fair server runs above the class for its 50 ms at once when fair
 * tasks had less than its runtime in the idle reservation's fair part.
 * Under TCG, late plan timers give the fair part's time to the slot
 * before it (the fair hog got 5.2 % in traces, against 6.25 % planned
 * and the server's 5 %), and the server did so once or twice a run on
 * 4 vCPUs, taking up to three 20 ms periods from thread 0.  The fair hog
 * counts such runs (25 ms or more without a break of 1 ms: nothing else
 * on the CPU runs it that long), and each excuses three periods a thread.
 */
#define BURST_S		0.025
#define BURST_PERIODS	3

TEST_F(qas, mandatory_parts_complete)
{
	struct periodic_qas pq[3] = {
		{ 20 * MS, 3 * MS, 2 * MS, 0, 1.5, 4.0, 200 },
		{ 40 * MS, 6 * MS, 4 * MS, 1, 3.0, 8.0, 200 },
		{ 40 * MS, 6 * MS, 4 * MS, 2, 3.0, 8.0, 200 },
	};
	struct hog hogs[2] = {
		{ .attr = other_attr(0), .cpu = test_cpu(), .gaps = true,
		  .long_run_s = BURST_S },
		{ .attr = bvt_warp_attr(50 * MS, 0, 0), .cpu = test_cpu() },
	};
	int i, j, late = 0, excused;

	three = pq;
	ASSERT_EQ(0, run_hogs_during(hogs, 2, 0, run_three));
	excused = BURST_PERIODS * (hogs[0].nr_long_runs - long_runs_before);
	TH_LOG("the fair server's bursts: %d before the three went, %d after",
	       long_runs_before, hogs[0].nr_long_runs - long_runs_before);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(0, pq[i].err) TH_LOG("thread %d: %s", i,
					       strerror(pq[i].err));
		TH_LOG("thread %d: %d periods, late %d, lost %d, worst %.2f ms",
		       i, pq[i].periods, pq[i].late, pq[i].lost,
		       pq[i].worst_ms);
		TH_LOG("  kernel: periods %llu overruns %llu ended %llu mandatory misses %llu",
		       pq[i].q.nr_periods, pq[i].q.nr_overruns,
		       pq[i].q.nr_period_ends, pq[i].q.nr_mandatory_misses);
		for (j = 0; j < pq[i].late && j < 4; j++)
			TH_LOG("  late in period %d, begun with %ld lost",
			       pq[i].late_at[j], pq[i].late_lost[j]);
		/*
		 * None, but for a few periods in 200 (TCG): when the whole
		 * class stops for longer than a period's slack, mandatory
		 * parts run past their periods' ends whatever the class does,
		 * and are counted missed by the kernel too.  In one make check
		 * run in four a stop of a few ms did it to two threads in one
		 * period; in traced 4-vCPU boots, up to 2 a thread without a
		 * run of the fair server.  A reservation that did not hold
		 * would miss most of them.
		 */
		EXPECT_GE(MISSES_MAX + excused, pq[i].q.nr_mandatory_misses);
		EXPECT_GE(MISSES_MAX + excused, pq[i].late);
		late += pq[i].late;
		EXPECT_LE(200, pq[i].q.nr_periods);
		/* Their optional parts end by their amount or the period. */
		EXPECT_LE(150, pq[i].q.nr_overruns + pq[i].q.nr_period_ends);
	}
	/* ... and not in more than 6 of all 600 (1 %). */
	EXPECT_GE(6 + 3 * excused, late);
	TH_LOG("hogs over %.2f s: fair %.3f s, BVT %.3f s", hogs_wall_s,
	       hogs[0].cpu_s, hogs[1].cpu_s);
	EXPECT_LT(0.02 * hogs_wall_s, hogs[0].cpu_s);
	EXPECT_LT(0.02 * hogs_wall_s, hogs[1].cpu_s);
	usleep(100000);
}

/*
 * Restricted to its reserved time, a thread with 20 ms mandatory and 8 ms
 * optional of every 40 ms spins through both in each period: it gets its
 * optional part's 8 ms (the thread beside it comes later) and no more, is
 * notified of the overrun (index 1), and waits for its next period.  It
 * spends 1 ms of its mandatory part: the rest is room for a vCPU that
 * TCG's host stops while the thread runs, charged to it.  A stall longer
 * than that (its CPU clock ran the whole part in the 1 ms spin) ends the
 * part, notified with index 0, and that period is not judged.
 */
struct restricted_out {
	int err, periods;
	long next;
	double optional_ms[64];
	int n, stalled, period_notes, bad_notes;
	struct sched_bvt_qas q;
};

static void *restricted_main(void *arg)
{
	struct restricted_out *o = arg;
	int i, seen, stall_notes = 0;
	double t0;
	long next;

	if (become_bvt() || catch_notes(SIGRTMIN) ||
	    qas_period(0, 40 * MS, SCHED_BVT_QAS_RESTRICT, SIGRTMIN) < 0 ||
	    qas_reserve(0, 20 * MS, 0, true, NULL) < 0 ||
	    qas_reserve(0, 8 * MS, 0, false, NULL) < 0) {
		o->err = errno;
		return NULL;
	}
	for (i = 0; i < o->periods; i++) {
		if (qas_begin() < 0) {
			o->err = errno;
			break;
		}
		t0 = cpu_ms();
		spin_cpu_ms(1);
		next = qas_next();
		if (next == 2 && cpu_ms() - t0 >= 19) {
			o->stalled++;
			continue;
		}
		o->next = next;
		if (next != 1) {
			o->err = errno;
			break;
		}
		/* Spin until the overrun's notification comes. */
		seen = notes.n;
		t0 = cpu_ms();
		while (notes.n == seen && cpu_ms() - t0 < 100)
			;
		if (o->n < 64)
			o->optional_ms[o->n++] = cpu_ms() - t0;
	}
	for (i = 0; i < notes.n && i < MAX_NOTES; i++) {
		if (notes.code[i] == SI_BVT_QAS_OVERRUN && notes.index[i] == 1)
			continue;
		if (notes.code[i] == SI_BVT_QAS_OVERRUN && !notes.index[i] &&
		    stall_notes < o->stalled) {
			stall_notes++;
			continue;
		}
		if (notes.code[i] == SI_BVT_QAS_PERIOD)
			o->period_notes++;
		else
			o->bad_notes++;
	}
	qas_get(0, &o->q);
	bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0);
	return NULL;
}

static struct restricted_out *restricted;

static void run_restricted(struct hog *hogs, int n, unsigned int ms)
{
	pthread_t t;

	pthread_create(&t, NULL, restricted_main, restricted);
	pthread_join(t, NULL);
}

TEST_F(qas, optional_part_stops_at_its_amount)
{
	struct restricted_out o = { .periods = 50 };
	struct hog hog = { .attr = bvt_attr(0, 0), .cpu = test_cpu() };
	double med, wall;

	restricted = &o;
	ASSERT_EQ(0, run_hogs_during(&hog, 1, 0, run_restricted));
	ASSERT_EQ(0, o.err) TH_LOG("%s", strerror(o.err));
	wall = hogs_wall_s;
	EXPECT_EQ(1, o.next);
	med = median(o.optional_ms, o.n);
	TH_LOG("optional part ran (ms): min %.2f median %.2f max %.2f",
	       o.optional_ms[0], med, o.optional_ms[o.n - 1]);
	TH_LOG("overruns %llu of %llu periods; hog %.3f s of %.3f s",
	       o.q.nr_overruns, o.q.nr_periods, hog.cpu_s, wall);
	TH_LOG("period ends %llu, %d notified; other notes %d; %d stalled",
	       o.q.nr_period_ends, o.period_notes, o.bad_notes, o.stalled);
	EXPECT_EQ(50, o.n + o.stalled);
	EXPECT_GE(3, o.stalled);
	EXPECT_EQ(0, o.bad_notes);
	/*
	 * A period ends in a part only if TCG's host keeps the thread from
	 * its vCPU for over 30 ms of the 40: notified as the kernel counted
	 * it, and rare.
	 */
	EXPECT_GE(o.q.nr_period_ends, o.period_notes);
	EXPECT_GE(3, o.period_notes);
	/*
	 * Its amount, 8 ms, with a margin for the enforcement timer, late
	 * under TCG (0.5 to 1.3 ms in make check runs, at 4 ms; 2 ms in the
	 * median on a busy host): half the amount at most.
	 */
	EXPECT_LT(7.5, med);
	EXPECT_GT(12.0, med);
	EXPECT_LE(50 - o.period_notes, o.q.nr_overruns);
	/* Waiting for its periods, 9 of every 40 ms: the hog has the rest. */
	EXPECT_LT(0.5 * wall, hog.cpu_s);
	usleep(100000);
}

/*
 * Notifications: a thread that runs past all three of its parts is
 * notified of each overrun, in order, with each index; one whose period
 * ends while it sleeps in its mandatory part is notified of that.
 *
 * Under TCG a vCPU the host stops is charged to the thread it was
 * running, tens of ms at a time: the parts are long enough that such a
 * stall seldom ends one by itself, and the thread works until it has
 * seen its three overruns rather than for a fixed time.
 */
struct notes_out {
	int err, n, code[MAX_NOTES], index[MAX_NOTES];
	struct sched_bvt_qas q;
};

static void *notes_main(void *arg)
{
	struct notes_out *o = arg;
	double t0;
	int i;

	if (become_bvt() || catch_notes(SIGRTMIN + 1) ||
	    qas_period(0, 400 * MS, 0, SIGRTMIN + 1) < 0 ||
	    qas_reserve(0, 20 * MS, 0, true, NULL) < 0 ||
	    qas_reserve(0, 10 * MS, 0, false, NULL) < 0 ||
	    qas_reserve(0, 10 * MS, 1, false, NULL) < 0) {
		o->err = errno;
		return NULL;
	}
	if (qas_begin() < 0) {
		o->err = errno;
		return NULL;
	}
	/* Past the parts' 40 ms, well within the period. */
	t0 = cpu_ms();
	while (atomic_load(&notes.n) < 3 && cpu_ms() - t0 < 200)
		;
	/* Released: the next period; then asleep past its end. */
	if (qas_begin() < 0) {
		o->err = errno;
		return NULL;
	}
	usleep(500000);
	o->n = notes.n;
	for (i = 0; i < notes.n && i < MAX_NOTES; i++) {
		o->code[i] = notes.code[i];
		o->index[i] = notes.index[i];
	}
	qas_get(0, &o->q);
	bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0);
	return NULL;
}

TEST_F(qas, notifications)
{
	struct notes_out o = { };
	pthread_t t;
	int i;

	pthread_create(&t, NULL, notes_main, &o);
	pthread_join(t, NULL);
	ASSERT_EQ(0, o.err) TH_LOG("%s", strerror(o.err));
	for (i = 0; i < o.n && i < MAX_NOTES; i++)
		TH_LOG("note %d: si_code %d index %d", i, o.code[i],
		       o.index[i]);
	TH_LOG("kernel: periods %llu overruns %llu ended %llu mandatory misses %llu",
	       o.q.nr_periods, o.q.nr_overruns, o.q.nr_period_ends,
	       o.q.nr_mandatory_misses);
	ASSERT_LE(4, o.n);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(SI_BVT_QAS_OVERRUN, o.code[i]);
		EXPECT_EQ(i, o.index[i]);
	}
	EXPECT_EQ(SI_BVT_QAS_PERIOD, o.code[3]);
	EXPECT_EQ(0, o.index[3]);
	EXPECT_EQ(3, o.q.nr_overruns);
	EXPECT_LE(1, o.q.nr_period_ends);
	EXPECT_LE(1, o.q.nr_mandatory_misses);
	usleep(100000);
}

/*
 * A restricted thread past its parts waits for its next period; ending
 * its set (from another thread) ends the wait at once, not at the period.
 */
struct waiter {
	pid_t tid;
	int err;
	double begun_ms, resumed_ms;
	atomic_bool started;
};

static void *restricted_waiter_main(void *arg)
{
	struct waiter *w = arg;

	w->tid = gettid();
	if (become_bvt() ||
	    qas_period(0, 1000 * MS, SCHED_BVT_QAS_RESTRICT, 0) < 0 ||
	    qas_reserve(0, 5 * MS, 0, false, NULL) < 0 || qas_begin() < 0) {
		w->err = errno;
		atomic_store(&w->started, true);
		return NULL;
	}
	w->begun_ms = mono_ms();
	atomic_store(&w->started, true);
	/* 5 ms of its part, then the wait, then 5 ms more. */
	spin_cpu_ms(10);
	w->resumed_ms = mono_ms();
	return NULL;
}

TEST_F(qas, end_wakes_a_restricted_waiter)
{
	struct waiter w = { };
	pthread_t t;

	pthread_create(&t, NULL, restricted_waiter_main, &w);
	while (!atomic_load(&w.started))
		usleep(1000);
	usleep(100000);
	/* No signal of one thread's choice for another. */
	EXPECT_EQ(-1, qas_period(w.tid, 20 * MS, 0, SIGRTMIN));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(0, bvt_ctl(BVT_CTL_QAS_END, w.tid, NULL, 0));
	pthread_join(t, NULL);
	ASSERT_EQ(0, w.err) TH_LOG("%s", strerror(w.err));
	TH_LOG("resumed %.1f ms after it began its period of 1000 ms",
	       w.resumed_ms - w.begun_ms);
	EXPECT_LE(100, w.resumed_ms - w.begun_ms);
	EXPECT_GT(500, w.resumed_ms - w.begun_ms);
}

/*
 * BVT_CTL_QAS_BEGIN: the first returns at once, the second when the next
 * period starts, and one called late, at once, with the periods lost.
 */
struct begin_out {
	int err;
	long lost;
	double first_ms, second_ms, late_ms, period_ms;
};

static void *begin_main(void *arg)
{
	struct begin_out *o = arg;
	struct sched_bvt_qas q;
	double t;

	if (become_bvt() || qas_period(0, 100 * MS, 0, 0) < 0 ||
	    qas_reserve(0, 5 * MS, 0, false, NULL) < 0) {
		o->err = errno;
		return NULL;
	}
	t = mono_ms();
	if (qas_begin() < 0 || qas_get(0, &q)) {
		o->err = errno;
		return NULL;
	}
	o->first_ms = mono_ms() - t;
	t = q.period_start / 1e6;
	if (qas_begin() < 0) {
		o->err = errno;
		return NULL;
	}
	o->second_ms = mono_ms() - t;
	/*
	 * Asleep over the starts of the next two periods, to the middle of
	 * the one after: 50 ms from either.
	 */
	while (mono_ms() < t + 350)
		usleep((t + 350 - mono_ms()) * 1000);
	t = mono_ms();
	o->lost = qas_begin();
	o->late_ms = mono_ms() - t;
	bvt_ctl(BVT_CTL_QAS_END, 0, NULL, 0);
	return NULL;
}

TEST_F(qas, begin_blocks_until_the_period)
{
	struct begin_out o = { };
	pthread_t t;

	pthread_create(&t, NULL, begin_main, &o);
	pthread_join(t, NULL);
	ASSERT_EQ(0, o.err) TH_LOG("%s", strerror(o.err));
	TH_LOG("first %.2f ms, second %.2f ms after the period started",
	       o.first_ms, o.second_ms);
	TH_LOG("late one %.2f ms, lost %ld", o.late_ms, o.lost);
	/*
	 * At once, or a period of 100 ms later, with a margin of 40 ms for
	 * TCG's late timers and host stalls.
	 */
	EXPECT_GT(40, o.first_ms);
	EXPECT_LE(99.9, o.second_ms);
	EXPECT_GT(140, o.second_ms);
	EXPECT_GT(40, o.late_ms);
	EXPECT_EQ(1, o.lost);
}

TEST_HARNESS_MAIN
