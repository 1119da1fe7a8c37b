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

TEST(errors)
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
TEST(out_reports_the_others_earliest_events)
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
TEST(out_reports_the_end_of_the_turn)
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

/* How late the deadline's owner came back at worst, in ms. */
static double deadliner_worst_ms(const struct deadliner *d)
{
	double late, worst = 0;
	int i;

	for (i = 0; i < ROUNDS; i++) {
		late = (d->back[i] - d->deadline[i]) / 1e6;
		if (late > worst)
			worst = late;
	}
	return worst;
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

TEST(expired_deadline_runs_before_an_event)
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
TEST(tracepoints_show_joins_dispatches_and_leaves)
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
 * policing it would wait for the overrunner to stop, 150 ms on.
 */
TEST(a_member_that_does_not_yield_is_policed)
{
	unsigned long long penalty = read_sysctl(PENALTY_SYSCTL);
	struct overrunner o = { };
	struct deadliner d = { };
	double worst, policed;

	controller();
	write_sysctl(PENALTY_SYSCTL, 1000 * MS);
	o.thread = run_deadliner_beside(overrunner_main, &o, &d);
	policed = proc_sched_field(atomic_load(&o.tid), "bvt.coop.nr_policed");
	atomic_store(&o.stop, 1);
	pthread_join(o.thread, NULL);
	write_sysctl(PENALTY_SYSCTL, penalty);

	ASSERT_EQ(0, o.err);
	ASSERT_EQ(0, d.err);
	worst = deadliner_worst_ms(&d);
	TH_LOG("policed %.0f time(s); the deadline's owner back %.2f ms late at most",
	       policed, worst);
	EXPECT_LE(1, policed);
	EXPECT_GT(50, worst);
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

#define ALLOWANCE_SYSCTL	"kernel/sched_bvt_allowance_ns"

/*
 * cal_Tslice(): a thread outside the domain runs until the domain's
 * earliest deadline, or on until its virtual time passes the domain's if
 * the domain is ahead, not for the allowance C past it.  With C at 50 ms,
 * a member with deadlines 30 ms apart beside a best-effort spinner wakes
 * level with it (SVT), so only the slice switches to it at the deadline:
 * without it, the tick would, C later (each time, 50 ms and more).  Half
 * of C leaves ticks and emulation 25 ms.
 */
TEST(a_deadline_ends_an_outsiders_slice)
{
	unsigned long long allowance = read_sysctl(ALLOWANCE_SYSCTL);
	struct outsider o = { };
	struct deadliner d = { };
	double worst, ran;

	ASSERT_NE(0, allowance);
	controller();
	write_sysctl(ALLOWANCE_SYSCTL, 50 * MS);
	o.thread = run_deadliner_beside(outsider_main, &o, &d);
	ran = proc_sched_field(atomic_load(&o.tid), "se.sum_exec_runtime");
	atomic_store(&o.stop, 1);
	pthread_join(o.thread, NULL);
	write_sysctl(ALLOWANCE_SYSCTL, allowance);

	ASSERT_EQ(0, o.err);
	ASSERT_EQ(0, d.err);
	worst = deadliner_worst_ms(&d);
	TH_LOG("the deadline's owner back %.2f ms late at most; the outsider ran %.0f ms",
	       worst, ran);
	EXPECT_GT(25, worst);
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

TEST(events_run_most_important_first)
{
	static const unsigned int prio[] = { 3, 1, 2 };
	int order[3 * N_RUNS], i;
	struct ordered o[3];
	pthread_barrier_t barrier;
	atomic_int seq = 0;

	controller();
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
 * A child blocked in read() after joining is still a member: its deadline
 * is reported, until it exits, execs or leaves the class.
 */
TEST(members_leave_on_exit_exec_and_policy_change)
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
		usleep(100000);
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
TEST(outsiders_keep_their_shares)
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
TEST(a_blocked_members_past_deadline_is_not_reported)
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

TEST_HARNESS_MAIN
