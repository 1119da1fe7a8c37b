// SPDX-License-Identifier: GPL-2.0
/*
 * coop_poll(2): the cooperation domain of a CPU.  Every member runs on the
 * test CPU (the last one), started by a SCHED_FIFO controller on CPU 0:
 *  - what coop_poll() reports: the earliest deadline of the others (not
 *    the caller's own, not one past the end of the domain's turn) and the
 *    most important event of the others;
 *  - a member whose deadline expires runs before a member that keeps
 *    calling coop_poll() with the most important event: at most one call
 *    of the other returns between the deadline and its return;
 *  - best-effort events run most important first, in whole runs;
 *  - a member that exits, execs or leaves the class is no longer reported;
 *  - a member that does not yield is policed, and the others run on time;
 *  - a thread outside the domain gives the CPU up at a member's deadline;
 *  - a best-effort thread and a SCHED_OTHER one beside four members keep
 *    the shares they would have beside four best-effort threads;
 *  - errors: EINVAL, E2BIG, EFAULT, and EINVAL for a caller that is not a
 *    best-effort SCHED_BVT thread;
 *  - the tracepoints show joins, calls, dispatches and leaves.
 */
#include "bvt_util.h"

#include <semaphore.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define PERIOD_SYSCTL	"kernel/sched_bvt_coop_period_ns"
#define PENALTY_SYSCTL	"kernel/sched_bvt_coop_penalty_ns"
#define MS		1000000ULL

static int coop_poll(const struct sched_bvt_coop *in,
		     struct sched_bvt_coop *out, unsigned int flags)
{
	return bvt_coop_poll(in, out, flags);
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct sched_bvt_coop coop_in(unsigned int flags,
				     unsigned long long deadline,
				     unsigned int priority)
{
	struct sched_bvt_coop in = {
		.size = sizeof(in),
		.flags = flags,
		.deadline = deadline,
		.priority = priority,
	};

	return in;
}

/* Poll with @in; the report in @out.  0 or -errno. */
static int poll_out(struct sched_bvt_coop in, struct sched_bvt_coop *out)
{
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	return coop_poll(&in, out, 0) ? -errno : 0;
}

/*
 * Pin the caller to the test CPU and make it a best-effort BVT thread: a
 * member from its first coop_poll().
 */
static int become_bvt_thread(void)
{
	struct sched_attr attr = bvt_attr(0, 0);

	if (pin_self(test_cpu()))
		return -1;
	return sys_sched_setattr(0, &attr, 0);
}

static unsigned long long saved_period;

static void set_period(unsigned long long ns)
{
	if (!saved_period)
		saved_period = read_sysctl(PERIOD_SYSCTL);
	write_sysctl(PERIOD_SYSCTL, ns);
}

static void restore_period(void)
{
	if (saved_period)
		write_sysctl(PERIOD_SYSCTL, saved_period);
}

static void controller(void)
{
	pin_self(0);
	become_controller();
}

/*
 * Every test needs coop_poll(2): leaving, as a thread that never joined,
 * succeeds wherever it is built in.
 */
FIXTURE(coop) {
};

FIXTURE_SETUP(coop)
{
	if (bvt_coop_poll(NULL, NULL, 0))
		SKIP(return, "no coop_poll(2) (CONFIG_SCHED_BVT_COOP=n)");
}

FIXTURE_TEARDOWN(coop)
{
}

TEST_F(coop, errors)
{
	struct sched_bvt_coop in = coop_in(SCHED_BVT_COOP_EVENT, 0, 1), out;
	struct sched_attr attr = bvt_reserved_attr(64);
	unsigned char big[64] = { 0 };

	/* Not a SCHED_BVT thread. */
	EXPECT_EQ(-EINVAL, poll_out(in, &out));
	ASSERT_EQ(0, become_bvt_thread());

	EXPECT_EQ(-1, coop_poll(&in, NULL, 1));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, coop_poll((void *)8, NULL, 0));
	EXPECT_EQ(EFAULT, errno);
	/* A bad @out fails before the caller yields. */
	EXPECT_EQ(-1, coop_poll(&in, (void *)8, 0));
	EXPECT_EQ(EFAULT, errno);

	in.size = SCHED_BVT_COOP_SIZE_VER0 - 1;
	EXPECT_EQ(-EINVAL, poll_out(in, &out));
	/* Larger is fine while the tail is zero. */
	in.size = sizeof(big);
	memcpy(big, &in, sizeof(in));
	EXPECT_EQ(0, coop_poll((void *)big, NULL, 0));
	big[sizeof(in)] = 1;
	EXPECT_EQ(-1, coop_poll((void *)big, NULL, 0));
	EXPECT_EQ(E2BIG, errno);

	EXPECT_EQ(-EINVAL, poll_out(coop_in(0, 0, 0), &out));
	EXPECT_EQ(-EINVAL, poll_out(coop_in(0x80 | SCHED_BVT_COOP_EVENT, 0, 0),
				    &out));
	EXPECT_EQ(-EINVAL, poll_out(coop_in(SCHED_BVT_COOP_POLICING, 0, 0),
				    &out));
	EXPECT_EQ(-EINVAL, poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0,
					    SCHED_BVT_COOP_PRIO_MAX + 1), &out));
	EXPECT_EQ(0, poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0,
				      SCHED_BVT_COOP_PRIO_MAX), &out));
	EXPECT_EQ(-EINVAL, poll_out(coop_in(SCHED_BVT_COOP_DEADLINE,
					    1ULL << 63, 0), &out));
	in = coop_in(SCHED_BVT_COOP_EVENT, 0, 1);
	in.__reserved = 1;
	EXPECT_EQ(-EINVAL, poll_out(in, &out));
	/* A deadline in the past has expired: no wait. */
	EXPECT_EQ(0, poll_out(coop_in(SCHED_BVT_COOP_DEADLINE, 1, 0), &out));
	/* Leaving, twice. */
	EXPECT_EQ(0, coop_poll(NULL, NULL, 0));
	EXPECT_EQ(0, coop_poll(NULL, NULL, 0));

	/* A reserved-effort thread does not cooperate. */
	if (sys_sched_setattr(0, &attr, 0))
		SKIP(return, "no room in the reserved-effort level");
	EXPECT_EQ(-EINVAL, poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 1), &out));
	attr = bvt_attr(0, 0);
	sys_sched_setattr(0, &attr, 0);
}

/* A member that sleeps until its deadline, then leaves. */
struct sleeper {
	pthread_t thread;
	unsigned long long deadline;
	atomic_int joined;
	int err;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct sched_bvt_coop out;

	if (become_bvt_thread()) {
		s->err = errno;
		return NULL;
	}
	atomic_store(&s->joined, 1);
	s->err = -poll_out(coop_in(SCHED_BVT_COOP_DEADLINE, s->deadline, 0),
			   &out);
	coop_poll(NULL, NULL, 0);
	return NULL;
}

/* A member that polls with one event until told to stop. */
struct poller {
	pthread_t thread;
	unsigned int priority;
	atomic_int stop, calls;
	int err;
};

static void *poller_main(void *arg)
{
	struct poller *p = arg;
	struct sched_bvt_coop out;

	if (become_bvt_thread()) {
		p->err = errno;
		return NULL;
	}
	while (!atomic_load(&p->stop)) {
		p->err = -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0,
					   p->priority), &out);
		if (p->err)
			break;
		atomic_fetch_add(&p->calls, 1);
	}
	coop_poll(NULL, NULL, 0);
	return NULL;
}

/* The caller of this test: released by the controller, then reports. */
struct reporter {
	pthread_t thread;
	sem_t go;
	struct sched_bvt_coop out, late_out;
	int err;
};

static void *reporter_main(void *arg)
{
	struct reporter *r = arg;
	struct sched_bvt_coop out;

	if (become_bvt_thread()) {
		r->err = errno;
		return NULL;
	}
	/* Join, then wait outside the domain's queues (asleep). */
	r->err = -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 7), &out);
	sem_wait(&r->go);
	r->err = r->err ?: -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 7),
				     &r->out);
	coop_poll(NULL, NULL, 0);
	return NULL;
}

/*
 * Among the reporter (event 7), a poller (event 9) and two sleepers
 * (deadlines 300 and 400 ms away): the reporter runs first, and learns
 * the first sleeper's deadline and the poller's event.
 */
TEST_F(coop, out_reports_the_others_earliest_events)
{
	unsigned long long t0 = now_ns();
	struct sleeper s[2] = {
		{ .deadline = t0 + 300 * MS },
		{ .deadline = t0 + 400 * MS },
	};
	struct poller p = { .priority = 9 };
	struct reporter r;
	int i;

	controller();
	set_period(NSEC_PER_MSEC * 1000);
	sem_init(&r.go, 0, 0);
	r.err = 0;
	pthread_create(&r.thread, NULL, reporter_main, &r);
	usleep(50000);
	pthread_create(&p.thread, NULL, poller_main, &p);
	for (i = 0; i < 2; i++)
		pthread_create(&s[i].thread, NULL, sleeper_main, &s[i]);
	usleep(100000);
	for (i = 0; i < 2; i++)
		ASSERT_TRUE(atomic_load(&s[i].joined));
	ASSERT_LT(0, atomic_load(&p.calls));
	sem_post(&r.go);
	pthread_join(r.thread, NULL);
	atomic_store(&p.stop, 1);
	pthread_join(p.thread, NULL);
	for (i = 0; i < 2; i++)
		pthread_join(s[i].thread, NULL);
	restore_period();

	ASSERT_EQ(0, r.err);
	EXPECT_EQ(0, p.err);
	EXPECT_EQ(0, s[0].err);
	EXPECT_EQ(0, s[1].err);
	EXPECT_EQ(SCHED_BVT_COOP_DEADLINE | SCHED_BVT_COOP_EVENT, r.out.flags);
	EXPECT_EQ(s[0].deadline, r.out.deadline);
	EXPECT_EQ(9, r.out.priority);
	EXPECT_EQ(sizeof(r.out), r.out.size);
	/* The sleepers slept until their deadlines. */
	EXPECT_LE(s[1].deadline, now_ns());
}

/* With a short turn, the end of the turn comes before any deadline. */
TEST_F(coop, out_reports_the_end_of_the_turn)
{
	struct sched_bvt_coop out;
	unsigned long long t;

	controller();
	set_period(5 * MS);
	pin_self(test_cpu());
	ASSERT_EQ(0, become_bvt_thread());
	t = now_ns();
	ASSERT_EQ(0, poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 0), &out));
	/*
	 * What /proc/<pid>/sched (and bvtctl) shows of a member.  Reading it
	 * may take longer than the 5 ms slice under emulation: the member
	 * may be policed by then, and is a member still.
	 */
	EXPECT_EQ(1, proc_sched_field(gettid(), "bvt.coop.member"));
	EXPECT_EQ(1, proc_sched_field(gettid(), "bvt.coop.nr_calls"));
	coop_poll(NULL, NULL, 0);
	EXPECT_EQ(0, proc_sched_field(gettid(), "bvt.coop.member"));
	restore_period();
	EXPECT_EQ(SCHED_BVT_COOP_DEADLINE | SCHED_BVT_COOP_POLICING, out.flags);
	EXPECT_LE(t + 5 * MS, out.deadline);
	EXPECT_GT(t + 500 * MS, out.deadline);
}

#define ROUNDS		5
#define SPIN_US		1000

/* Wakes at deadlines 30 ms apart, and records when it returned. */
struct deadliner {
	pthread_t thread;
	atomic_int tid;
	unsigned long long deadline[ROUNDS], back[ROUNDS];
	int err;
};

static void *deadliner_main(void *arg)
{
	struct deadliner *d = arg;
	struct sched_bvt_coop out;
	int i;

	atomic_store(&d->tid, gettid());
	if (become_bvt_thread()) {
		d->err = errno;
		return NULL;
	}
	for (i = 0; i < ROUNDS && !d->err; i++) {
		d->deadline[i] = now_ns() + 30 * MS;
		d->err = -poll_out(coop_in(SCHED_BVT_COOP_DEADLINE,
					   d->deadline[i], 0), &out);
		d->back[i] = now_ns();
	}
	coop_poll(NULL, NULL, 0);
	return NULL;
}

/*
 * Start @fn(@arg), a thread on the test CPU, and 20 ms on run @d there to
 * its end; the thread runs on.
 */
static pthread_t run_deadliner_beside(void *(*fn)(void *), void *arg,
				      struct deadliner *d)
{
	pthread_t thread;

	pthread_create(&thread, NULL, fn, arg);
	usleep(20000);
	pthread_create(&d->thread, NULL, deadliner_main, d);
	pthread_join(d->thread, NULL);
	return thread;
}

/*
 * How late the deadline's owner came back, in ms: at worst, and in the
 * median of its rounds, which a host stall or two does not move.
 */
static double deadliner_late_ms(const struct deadliner *d, double *worst)
{
	double late[ROUNDS];
	int i;

	*worst = 0;
	for (i = 0; i < ROUNDS; i++) {
		late[i] = (d->back[i] - d->deadline[i]) / 1e6;
		if (late[i] > *worst)
			*worst = late[i];
	}
	return median(late, ROUNDS);
}

/* Spins SPIN_US between calls with the most important event. */
#define MAX_RETURNS	4096
struct spinner {
	pthread_t thread;
	atomic_int tid;
	atomic_int stop;
	unsigned long long back[MAX_RETURNS];
	atomic_int n;
	int err;
};

static void *spinner_main(void *arg)
{
	struct spinner *s = arg;
	struct sched_bvt_coop out;
	unsigned long long end;
	int n;

	atomic_store(&s->tid, gettid());
	if (become_bvt_thread()) {
		s->err = errno;
		return NULL;
	}
	while (!atomic_load(&s->stop)) {
		s->err = -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 0), &out);
		if (s->err)
			break;
		n = atomic_load(&s->n);
		if (n < MAX_RETURNS) {
			s->back[n] = now_ns();
			atomic_store(&s->n, n + 1);
		}
		for (end = now_ns() + SPIN_US * 1000ULL; now_ns() < end;)
			;
	}
	coop_poll(NULL, NULL, 0);
	return NULL;
}

TEST_F(coop, expired_deadline_runs_before_an_event)
{
	struct spinner *s = calloc(1, sizeof(*s));
	struct deadliner d = { };
	int i, j, overtaken, most = 0;
	double late, worst = 0;

	ASSERT_NE(NULL, s);
	controller();
	s->thread = run_deadliner_beside(spinner_main, s, &d);
	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	ASSERT_EQ(0, d.err);
	ASSERT_EQ(0, s->err);
	ASSERT_LT(ROUNDS * 10, atomic_load(&s->n));

	for (i = 0; i < ROUNDS; i++) {
		/* The spinner's calls that returned after the deadline. */
		overtaken = 0;
		for (j = 0; j < atomic_load(&s->n); j++)
			overtaken += s->back[j] > d.deadline[i] &&
				     s->back[j] < d.back[i];
		late = (d.back[i] - d.deadline[i]) / 1e6;
		if (overtaken > most)
			most = overtaken;
		if (late > worst)
			worst = late;
	}
	TH_LOG("%d calls of the spinner; the deadline's owner back %.2f ms late at most",
	       atomic_load(&s->n), worst);
	TH_LOG("the spinner's calls that returned after a deadline, before its owner: %d at most",
	       most);
	/* One call may be on its way as the deadline passes. */
	EXPECT_GE(1, most);
	free(s);
}

/* A trace instance of its own: the global buffer and events are left be. */
#define TRACE_DIR	"/sys/kernel/tracing/instances/bvt_coop_test"

static const char * const coop_events[] = {
	"sched_bvt_coop_member", "sched_bvt_coop_poll",
	"sched_bvt_coop_dispatch",
};

/* 0, or -1 if the instance or its events could not be set up. */
static int trace_coop_start(void)
{
	char path[256];
	unsigned int i;

	if (mkdir(TRACE_DIR, 0755) && errno != EEXIST)
		return -1;
	for (i = 0; i < ARRAY_SIZE(coop_events); i++) {
		snprintf(path, sizeof(path), TRACE_DIR "/events/sched_bvt/%s/enable",
			 coop_events[i]);
		if (write_file(path, "1"))
			return -1;
	}
	return 0;
}

static void trace_coop_stop(void)
{
	write_file(TRACE_DIR "/tracing_on", "0");
}

/* What the trace says of thread @tid. */
struct coop_trace {
	int joined, left, polls, expired, events;
};

static void read_coop_trace(pid_t tid, struct coop_trace *ct)
{
	FILE *f = fopen(TRACE_DIR "/trace", "r");
	char line[512], pid[32];

	memset(ct, 0, sizeof(*ct));
	snprintf(pid, sizeof(pid), " pid=%d ", tid);
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, pid))
			continue;
		ct->joined += !!strstr(line, "sched_bvt_coop_member:") &&
			      !!strstr(line, " joined");
		ct->left += !!strstr(line, "sched_bvt_coop_member:") &&
			    !!strstr(line, " left");
		ct->polls += !!strstr(line, "sched_bvt_coop_poll:");
		ct->expired += !!strstr(line, "reason=expired-deadline");
		ct->events += !!strstr(line, "reason=event");
	}
	if (f)
		fclose(f);
}

/*
 * The deadline and the spinner of expired_deadline_runs_before_an_event,
 * traced: each joins and leaves once, every call of the deadline's owner
 * is traced, and the domain dispatches it for its expired deadline at
 * least once a round, the spinner for its event.  The spinner overruns its
 * slice at the deadlines (it does not look at what it is told): without a
 * penalty it stays in the domain.
 */
TEST_F(coop, tracepoints_show_joins_dispatches_and_leaves)
{
	unsigned long long penalty = read_sysctl(PENALTY_SYSCTL);
	struct spinner *s = calloc(1, sizeof(*s));
	struct coop_trace dt, st;
	struct deadliner d = { };

	ASSERT_NE(NULL, s);
	if (trace_coop_start()) {
		rmdir(TRACE_DIR);
		free(s);
		SKIP(return, "no trace instance with the sched_bvt_coop events");
	}
	controller();
	write_sysctl(PENALTY_SYSCTL, 0);
	s->thread = run_deadliner_beside(spinner_main, s, &d);
	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	trace_coop_stop();
	write_sysctl(PENALTY_SYSCTL, penalty);
	read_coop_trace(atomic_load(&d.tid), &dt);
	read_coop_trace(atomic_load(&s->tid), &st);
	rmdir(TRACE_DIR);
	ASSERT_EQ(0, d.err);
	ASSERT_EQ(0, s->err);

	TH_LOG("deadline's owner: joined %d, left %d, %d calls, %d expired-deadline dispatches",
	       dt.joined, dt.left, dt.polls, dt.expired);
	TH_LOG("spinner: joined %d, left %d, %d calls, %d event dispatches",
	       st.joined, st.left, st.polls, st.events);
	EXPECT_EQ(1, dt.joined);
	EXPECT_EQ(1, dt.left);
	EXPECT_EQ(ROUNDS, dt.polls);
	EXPECT_LE(ROUNDS, dt.expired);
	EXPECT_EQ(1, st.joined);
	EXPECT_EQ(1, st.left);
	EXPECT_LE(ROUNDS * 10, st.polls);
	EXPECT_LE(ROUNDS * 10, st.events);
	free(s);
}

/* A member that polls once, then runs on without yielding until stopped. */
struct overrunner {
	pthread_t thread;
	atomic_int stop;
	atomic_int tid;
	struct sched_bvt_coop out;
	int err;
};

static void *overrunner_main(void *arg)
{
	struct overrunner *o = arg;
	struct sched_bvt_coop out;

	if (become_bvt_thread()) {
		o->err = errno;
		return NULL;
	}
	o->err = -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 0), &out);
	atomic_store(&o->tid, gettid());
	while (!atomic_load(&o->stop))
		;
	o->err = o->err ?: -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 0),
				     &o->out);
	coop_poll(NULL, NULL, 0);
	return NULL;
}

/*
 * A member that never yields again is policed at the end of its slice (the
 * deadline it was told, 10 ms away at most): a best-effort thread for the
 * penalty (1 s here), so that a member with deadlines 30 ms apart runs
 * again, late by a switch at the best-effort level at most.  Without
 * policing it would wait for the overrunner to stop, which it does only
 * when the member has had all its rounds.
 */
TEST_F(coop, a_member_that_does_not_yield_is_policed)
{
	unsigned long long penalty = read_sysctl(PENALTY_SYSCTL);
	struct overrunner o = { };
	struct deadliner d = { };
	double worst, late, policed;

	controller();
	write_sysctl(PENALTY_SYSCTL, 1000 * MS);
	o.thread = run_deadliner_beside(overrunner_main, &o, &d);
	policed = proc_sched_field(atomic_load(&o.tid), "bvt.coop.nr_policed");
	atomic_store(&o.stop, 1);
	pthread_join(o.thread, NULL);
	write_sysctl(PENALTY_SYSCTL, penalty);

	ASSERT_EQ(0, o.err);
	ASSERT_EQ(0, d.err);
	late = deadliner_late_ms(&d, &worst);
	TH_LOG("policed %.0f time(s); the deadline's owner back %.2f ms late, %.2f ms at most",
	       policed, late, worst);
	EXPECT_LE(1, policed);
	EXPECT_GT(25, late);
	/* Its next call, within the penalty, says so. */
	EXPECT_TRUE(o.out.flags & SCHED_BVT_COOP_POLICED);
}

/* A best-effort thread outside the domain that spins until stopped. */
struct outsider {
	pthread_t thread;
	atomic_int stop;
	atomic_int tid;
	int err;
};

static void *outsider_main(void *arg)
{
	struct outsider *o = arg;

	atomic_store(&o->tid, gettid());
	if (become_bvt_thread()) {
		o->err = errno;
		return NULL;
	}
	while (!atomic_load(&o->stop))
		;
	return NULL;
}

/*
 * cal_Tslice(): a thread outside the domain runs until the domain's
 * earliest deadline, or on until its virtual time passes the domain's if
 * the domain is ahead, not for the allowance C past it.  With C at 50 ms,
 * a member with deadlines 30 ms apart beside a best-effort spinner wakes
 * level with it (SVT), so only the slice switches to it at the deadline:
 * without it, the tick would, C later (each time, 50 ms and more).  Half
 * of C leaves ticks and emulation 25 ms, in the median of the rounds.
 */
TEST_F(coop, a_deadline_ends_an_outsiders_slice)
{
	unsigned long long allowance = read_sysctl(ALLOWANCE);
	struct outsider o = { };
	struct deadliner d = { };
	double worst, late, ran;

	ASSERT_NE(0, allowance);
	controller();
	write_sysctl(ALLOWANCE, 50 * MS);
	o.thread = run_deadliner_beside(outsider_main, &o, &d);
	ran = proc_sched_field(atomic_load(&o.tid), "se.sum_exec_runtime");
	atomic_store(&o.stop, 1);
	pthread_join(o.thread, NULL);
	write_sysctl(ALLOWANCE, allowance);

	ASSERT_EQ(0, o.err);
	ASSERT_EQ(0, d.err);
	late = deadliner_late_ms(&d, &worst);
	TH_LOG("the deadline's owner back %.2f ms late, %.2f ms at most; the outsider ran %.0f ms",
	       late, worst, ran);
	EXPECT_GT(25, late);
	/* The outsider ran between the deadlines: it was not starved. */
	EXPECT_LT(ROUNDS * 30 / 2, ran);
}

#define N_RUNS		20

/* Members that record their turns in one sequence. */
struct ordered {
	pthread_t thread;
	unsigned int priority;
	pthread_barrier_t *barrier;
	atomic_int *seq;
	int *order;
	int err;
};

static void *ordered_main(void *arg)
{
	struct ordered *o = arg;
	struct sched_bvt_coop out;
	int i;

	if (become_bvt_thread()) {
		o->err = errno;
		return NULL;
	}
	o->err = -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, o->priority), &out);
	pthread_barrier_wait(o->barrier);
	for (i = 0; i < N_RUNS && !o->err; i++) {
		o->err = -poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0,
					   o->priority), &out);
		o->order[atomic_fetch_add(o->seq, 1)] = o->priority;
	}
	coop_poll(NULL, NULL, 0);
	return NULL;
}

/*
 * Three members with events 3, 1, 2 run in whole runs, most important
 * first.  The turn is 1 s: a vCPU stall charged to one member (TCG's
 * reach the default turn, 10 ms, on 4 vCPUs) would put it a turn ahead of
 * the member that waits, and the share rule would police it and let that
 * one run.
 */
TEST_F(coop, events_run_most_important_first)
{
	static const unsigned int prio[] = { 3, 1, 2 };
	int order[3 * N_RUNS], i;
	struct ordered o[3];
	pthread_barrier_t barrier;
	atomic_int seq = 0;

	controller();
	set_period(1000 * MS);
	pthread_barrier_init(&barrier, NULL, 3);
	for (i = 0; i < 3; i++) {
		o[i] = (struct ordered){ .priority = prio[i],
					 .barrier = &barrier, .seq = &seq,
					 .order = order };
		pthread_create(&o[i].thread, NULL, ordered_main, &o[i]);
	}
	for (i = 0; i < 3; i++) {
		pthread_join(o[i].thread, NULL);
		EXPECT_EQ(0, o[i].err);
	}
	restore_period();
	ASSERT_EQ(3 * N_RUNS, atomic_load(&seq));
	for (i = 0; i < 3 * N_RUNS; i++) {
		int got = order[i];

		EXPECT_EQ(1 + i / N_RUNS, got)
			TH_LOG("turn %d went to priority %d", i, got);
	}
}

/*
 * A child process that joins with a deadline @ms away and an event, sends
 * the deadline on @ready, and waits for a byte on @cmd: 'x' execs
 * sleep(1), 'q' exits.
 */
static pid_t start_child(int cmd[2], int ready[2], unsigned long long ms)
{
	unsigned long long deadline = now_ns() + ms * MS;
	struct sched_bvt_coop out;
	pid_t pid = fork();
	char c;

	if (pid)
		return pid;
	close(cmd[1]);
	if (become_bvt_thread() ||
	    poll_out(coop_in(SCHED_BVT_COOP_DEADLINE | SCHED_BVT_COOP_EVENT,
			     deadline, 4), &out))
		_exit(1);
	if (write(ready[1], &deadline, sizeof(deadline)) != sizeof(deadline) ||
	    read(cmd[0], &c, 1) != 1)
		_exit(1);
	if (c == 'x')
		execlp("sleep", "sleep", "1", NULL);
	_exit(0);
}

/* What a poll of the caller, a member, reports as the others' deadline. */
static unsigned long long reported(struct __test_metadata *_metadata)
{
	struct sched_bvt_coop out;

	EXPECT_EQ(0, poll_out(coop_in(SCHED_BVT_COOP_EVENT, 0, 0), &out));
	return out.flags & SCHED_BVT_COOP_POLICING ? 0 : out.deadline;
}

/*
 * Wait until the child has exited (a zombie) or, if @exec, up to 5 s
 * until its exec has begun (its name is the new program's): the kernel
 * takes it out of its domain microseconds later, which a stalled emulator
 * may stretch to tens of ms.
 */
static void wait_child_left(pid_t pid, bool exec)
{
	char path[64], comm[32] = "";
	siginfo_t info;
	FILE *f;
	int i;

	if (!exec) {
		waitid(P_PID, pid, &info, WEXITED | WNOWAIT);
	} else {
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		for (i = 0; i < 500 && strcmp(comm, "sleep\n"); i++) {
			usleep(10000);
			f = fopen(path, "r");
			if (!f || !fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			if (f)
				fclose(f);
		}
	}
	usleep(100000);
}

/*
 * A child blocked in read() after joining is still a member: its deadline
 * is reported, until it exits, execs or leaves the class.
 */
TEST_F(coop, members_leave_on_exit_exec_and_policy_change)
{
	static const char *const how[] = { "exit", "exec", "policy change" };
	struct sched_attr other = other_attr(0);
	unsigned long long deadline;
	int i, ret, cmd[2], ready[2];
	pid_t pid;

	controller();
	set_period(1000 * MS);
	ASSERT_EQ(0, become_bvt_thread());
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, pipe(cmd));
		ASSERT_EQ(0, pipe(ready));
		pid = start_child(cmd, ready, 800);
		ASSERT_LT(0, pid);
		ASSERT_EQ(sizeof(deadline),
			  read(ready[0], &deadline, sizeof(deadline)));
		EXPECT_EQ(deadline, reported(_metadata))
			TH_LOG("the child's deadline is not reported");
		if (i == 2)
			ret = sys_sched_setattr(pid, &other, 0);
		else
			ret = write(cmd[1], i ? "x" : "q", 1) == 1 ? 0 : -1;
		EXPECT_EQ(0, ret);
		/* sched_setattr() has taken it out when it returns. */
		if (i < 2)
			wait_child_left(pid, i == 1);
		EXPECT_EQ(0, reported(_metadata))
			TH_LOG("still reported after the child's %s", how[i]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(cmd[0]);
		close(cmd[1]);
		close(ready[0]);
		close(ready[1]);
	}
	coop_poll(NULL, NULL, 0);
	restore_period();
}

/*
 * Four members, taking turns every 2 ms of work, beside a best-effort
 * thread of weight 1024 and a SCHED_OTHER one on one CPU: the domain weighs
 * what its members weigh (4096), so the outsider gets a fifth of what BVT
 * threads get, as beside four best-effort threads, and the fair thread
 * the fair server's 5 %.  Median shares of three runs of 2 s.
 */
TEST_F(coop, outsiders_keep_their_shares)
{
	struct hog hogs[6];
	double share[6], members = 0;
	int i;

	for (i = 0; i < 6; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0),
					.cpu = test_cpu(), .coop = i < 4 };
	hogs[5].attr = other_attr(0);
	controller();
	ASSERT_EQ(0, median_shares(hogs, 6, 3, 2000, share));
	for (i = 0; i < 4; i++)
		members += share[i];
	TH_LOG("members %.3f together, outsider %.3f, SCHED_OTHER %.3f (ideal 0.76, 0.19, 0.05)",
	       members, share[4], share[5]);
	EXPECT_GE(share[4], 0.19 - 0.05);
	EXPECT_LE(share[4], 0.19 + 0.05);
	EXPECT_LE(share[5], 0.05 + 0.05);
	EXPECT_GE(members, 0.76 - 0.05);
	/* They took turns: each got part of the members' time. */
	for (i = 0; i < 4; i++)
		EXPECT_GE(share[i], 0.76 / 4 / 2);
}

/*
 * A member blocked outside coop_poll() past its deadline runs when it
 * wakes: the others are not told to yield to it meanwhile.
 */
TEST_F(coop, a_blocked_members_past_deadline_is_not_reported)
{
	unsigned long long deadline;
	int cmd[2], ready[2];
	pid_t pid;

	controller();
	set_period(1000 * MS);
	ASSERT_EQ(0, become_bvt_thread());
	ASSERT_EQ(0, pipe(cmd));
	ASSERT_EQ(0, pipe(ready));
	pid = start_child(cmd, ready, 50);
	ASSERT_LT(0, pid);
	ASSERT_EQ(sizeof(deadline), read(ready[0], &deadline, sizeof(deadline)));
	EXPECT_EQ(deadline, reported(_metadata));
	usleep(100000);
	EXPECT_EQ(0, reported(_metadata));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	coop_poll(NULL, NULL, 0);
	restore_period();
}

/*
 * A member that calls coop_poll() with deadline 0 every 0.2 ms (always
 * expired, always first, never past its slice) beside one that sleeps
 * until a deadline 10 ms ahead, again and again: the expired deadlines
 * buy the first the CPU only within its share of the domain, so it is
 * policed, and the other returns again and again, at most a penalty and a
 * few turns apart (when nothing bounded them it did not return once in 3 s
 * in one run, and in another, policed now and then for a stall in its
 * slice, 37 times, up to a second apart).
 */
struct starver {
	pthread_t thread;
	atomic_int stop, ready;
	atomic_int tid;
	bool attacker;
	int returns, err;
	double worst_ms;	/* the longest between two returns */
};

static void *starver_main(void *arg)
{
	struct starver *s = arg;
	struct sched_bvt_coop out;
	double t, last;
	int ret;

	if (become_bvt_thread()) {
		s->err = errno;
		return NULL;
	}
	atomic_store(&s->tid, gettid());
	atomic_store(&s->ready, 1);
	last = now_s();
	while (!atomic_load(&s->stop)) {
		if (s->attacker) {
			ret = poll_out(coop_in(SCHED_BVT_COOP_DEADLINE, 0, 0),
				       &out);
			spin_cpu_ms(0.2);
		} else {
			ret = poll_out(coop_in(SCHED_BVT_COOP_DEADLINE,
					       now_ns() + 10 * MS, 0), &out);
			spin_cpu_ms(0.5);
		}
		if (ret) {
			s->err = -ret;
			break;
		}
		t = now_s();
		s->returns++;
		if ((t - last) * 1e3 > s->worst_ms)
			s->worst_ms = (t - last) * 1e3;
		last = t;
	}
	coop_poll(NULL, NULL, 0);
	return NULL;
}

TEST_F(coop, an_expired_deadline_buys_no_more_than_a_share)
{
	struct starver v = { }, a = { .attacker = true };
	double policed;

	controller();
	pthread_create(&v.thread, NULL, starver_main, &v);
	while (!atomic_load(&v.ready) && !v.err)
		usleep(1000);
	pthread_create(&a.thread, NULL, starver_main, &a);
	usleep(3000 * 1000);
	policed = proc_sched_field(atomic_load(&a.tid), "bvt.coop.nr_policed");
	atomic_store(&v.stop, 1);
	atomic_store(&a.stop, 1);
	pthread_join(a.thread, NULL);
	pthread_join(v.thread, NULL);
	TH_LOG("sleeper: %d returns, %.1f ms apart at most", v.returns,
	       v.worst_ms);
	TH_LOG("the one with deadline 0: %d calls, policed %.0f times",
	       a.returns, policed);
	ASSERT_EQ(0, v.err);
	ASSERT_EQ(0, a.err);
	EXPECT_LE(1, policed);
	/* About 10 a turn of the penalty (100 ms): 100 is a third. */
	EXPECT_LE(100, v.returns);
	EXPECT_GT(400, v.worst_ms);
}

/*
 * Members blocked outside coop_poll() past their deadlines, 2000 of them:
 * a coop_poll() call on their CPU costs what it costs without them, not a
 * walk of them all with interrupts off (2 ms each, 25 times the call,
 * when it was one).
 */
#define BLOCKED_MEMBERS	2000
#define CALLS		300

static int blocked_pipe[2];
static atomic_int blocked_ready;

static void *blocked_main(void *arg)
{
	struct sched_bvt_coop in = coop_in(SCHED_BVT_COOP_DEADLINE, 1, 0);
	char c;

	if (!become_bvt_thread() && !coop_poll(&in, NULL, 0))
		atomic_fetch_add(&blocked_ready, 1);
	else
		atomic_fetch_add(&blocked_ready, 1 << 16);
	/* Blocked, a member with a past deadline, until the pipe closes. */
	while (read(blocked_pipe[0], &c, 1) > 0)
		;
	return NULL;
}

/* The median time of a coop_poll() call that returns at once, in ms. */
static double median_call_ms(void)
{
	struct sched_bvt_coop in = coop_in(SCHED_BVT_COOP_EVENT, 0, 0);
	double t[CALLS];
	int i;

	for (i = 0; i < CALLS; i++) {
		t[i] = now_s();
		coop_poll(&in, NULL, 0);
		t[i] = (now_s() - t[i]) * 1e3;
	}
	return median(t, CALLS);
}

static void *caller_main(void *arg)
{
	double *ms = arg;

	if (become_bvt_thread())
		return NULL;
	*ms = median_call_ms();
	coop_poll(NULL, NULL, 0);
	return NULL;
}

TEST_F(coop, blocked_members_do_not_lengthen_a_call)
{
	static pthread_t threads[BLOCKED_MEMBERS];
	double alone = -1, beside = -1;
	pthread_attr_t small;
	pthread_t caller;
	int i, n;

	controller();
	pthread_create(&caller, NULL, caller_main, &alone);
	pthread_join(caller, NULL);
	ASSERT_EQ(0, pipe(blocked_pipe));
	pthread_attr_init(&small);
	pthread_attr_setstacksize(&small, 64 * 1024);
	for (n = 0; n < BLOCKED_MEMBERS; n++)
		if (pthread_create(&threads[n], &small, blocked_main, NULL))
			break;
	while (atomic_load(&blocked_ready) % (1 << 16) +
	       atomic_load(&blocked_ready) / (1 << 16) < n)
		usleep(10000);
	pthread_create(&caller, NULL, caller_main, &beside);
	pthread_join(caller, NULL);
	close(blocked_pipe[1]);
	for (i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	close(blocked_pipe[0]);
	TH_LOG("%d members blocked past their deadlines (%d could not join)",
	       n, atomic_load(&blocked_ready) / (1 << 16));
	TH_LOG("a call takes %.3f ms beside them, %.3f ms without", beside,
	       alone);
	ASSERT_EQ(BLOCKED_MEMBERS, n);
	ASSERT_GT(alone, 0);
	EXPECT_LT(beside, 3 * alone + 0.05);
}

/*
 * A member asleep in coop_poll() until its deadline, 300 ms away, gets a
 * signal 100 ms in: with SA_RESTART the call goes on to its deadline,
 * without, it ends with EINTR.
 */
static void on_usr2(int sig)
{
}

struct restarter {
	bool restart;
	int ret, err;
	double slept_ms;
	atomic_int tid;
};

static void *restarter_main(void *arg)
{
	struct restarter *r = arg;
	struct sigaction sa = { .sa_handler = on_usr2,
				.sa_flags = r->restart ? SA_RESTART : 0 };
	struct sched_bvt_coop in;
	double t;

	sigaction(SIGUSR2, &sa, NULL);
	if (become_bvt_thread()) {
		r->err = errno;
		return NULL;
	}
	in = coop_in(SCHED_BVT_COOP_DEADLINE, now_ns() + 300 * MS, 0);
	atomic_store(&r->tid, gettid());
	t = now_s();
	r->ret = coop_poll(&in, NULL, 0);
	r->err = r->ret ? errno : 0;
	r->slept_ms = (now_s() - t) * 1e3;
	coop_poll(NULL, NULL, 0);
	return NULL;
}

TEST_F(coop, a_signal_restarts_the_wait_with_sa_restart)
{
	struct restarter r[2] = { { .restart = true }, { .restart = false } };
	pthread_t thread;
	int i;

	controller();
	for (i = 0; i < 2; i++) {
		pthread_create(&thread, NULL, restarter_main, &r[i]);
		while (!atomic_load(&r[i].tid))
			usleep(1000);
		usleep(100 * 1000);
		syscall(SYS_tgkill, getpid(), atomic_load(&r[i].tid), SIGUSR2);
		pthread_join(thread, NULL);
		TH_LOG("%s SA_RESTART: returned %d (errno %d) after %.0f ms",
		       r[i].restart ? "with" : "without", r[i].ret, r[i].err,
		       r[i].slept_ms);
	}
	EXPECT_EQ(0, r[0].ret);
	EXPECT_LE(290, r[0].slept_ms);
	EXPECT_EQ(-1, r[1].ret);
	EXPECT_EQ(EINTR, r[1].err);
}

TEST_HARNESS_MAIN
