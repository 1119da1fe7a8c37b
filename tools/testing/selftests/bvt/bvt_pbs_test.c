// SPDX-License-Identifier: GPL-2.0
/*
 * PBS mode of the best-effort level (kernel.sched_bvt_be_mode = pbs).  All
 * threads run on the test CPU (the last one), set up by a SCHED_FIFO
 * controller on CPU 0:
 *  - the paper's Fig. 2 workload, time-scaled by 1/5 (four CPU-bound
 *    threads arriving at 0, 200, 600 and 1000 ms and needing 900, 500,
 *    600 and 400 ms): at alpha = 0.01 they finish in FCFS order and times,
 *    at alpha = 100 in LAS order and times, at alpha = 1 as the reference
 *    simulation (pbs_sim.h) has them, each within FIG2_MARGIN_MS;
 *  - delta: two threads of weights 1:3 at alpha = 1 share the CPU 25/75;
 *  - no starvation at the bounds of alpha: at 100 a long job beside a
 *    stream of short ones that leave it half the CPU, at 0.01 a newcomer
 *    behind a thread that never ends;
 *  - the sampled selection shares the CPU among more threads than it
 *    looks at in a pick;
 *  - /proc/<pid>/sched shows a thread's session;
 *  - the mode changes back and forth under load without losing a thread;
 *  - the tunables refuse what is out of their bounds;
 *  - sched_setattr() on zombies, of any policy, leaves no session behind.
 */
#include "bvt_util.h"
#include "pbs_sim.h"

#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define MODE		"/proc/sys/kernel/sched_bvt_be_mode"
#define ALPHA		"/proc/sys/kernel/sched_bvt_pbs_alpha"
#define BETA		"/proc/sys/kernel/sched_bvt_pbs_beta"
#define SWITCH		"/proc/sys/kernel/sched_bvt_pbs_switch_ns"
#define EPSILON		"/proc/sys/kernel/sched_bvt_pbs_epsilon"
#define SELECT		"/proc/sys/kernel/sched_bvt_pbs_select"
#define SESSIONS	"kernel/sched_bvt_pbs_sessions"

/*
 * Completion times may differ from the simulation's by the tick the
 * kernel decides at, by the other CPU's work and, under TCG, by stalls
 * of the whole guest charged to whichever thread ran (the median of
 * three runs is taken): 150 ms is 6 % of the 2.4 s the four need.
 */
#define FIG2_MARGIN_MS	150
#define FIG2_RUNS	3
#define FIG2_TASKS	4

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (f && fgets(buf, len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		ret = 0;
	}
	if (f)
		fclose(f);
	return ret;
}

static const char * const tunables[] = {
	MODE, ALPHA, BETA, SWITCH, EPSILON, SELECT,
};

FIXTURE(pbs) {
	char saved[ARRAY_SIZE(tunables)][32];
};

FIXTURE_SETUP(pbs)
{
	int i;

	if (access(MODE, W_OK))
		SKIP(return, "no %s", MODE);
	for (i = 0; i < ARRAY_SIZE(tunables); i++)
		ASSERT_EQ(0, read_text(tunables[i], self->saved[i],
				       sizeof(self->saved[i])));
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, pin_self(0));
}

FIXTURE_TEARDOWN(pbs)
{
	int i;

	for (i = ARRAY_SIZE(tunables) - 1; i >= 0; i--)
		if (self->saved[i][0])
			write_file(tunables[i], self->saved[i]);
}

struct arrival {
	double arrive_ms, demand_ms;
	double t0;			/* when all are released */
	double done_ms;			/* out */
	pid_t tid;
	int go, err;
	atomic_int *ready;
};

/* Arrive (wake up) at t0 + arrive_ms, run demand_ms of CPU time, finish. */
static void *arrival_main(void *arg)
{
	struct arrival *a = arg;
	struct timespec at;
	double t;
	char c;

	a->tid = gettid();
	if (pin_self(test_cpu()))
		a->err = errno;
	atomic_fetch_add(a->ready, 1);
	if (read(a->go, &c, 1) != 1 || a->err)
		return NULL;
	t = a->t0 + a->arrive_ms / 1e3;
	at.tv_sec = t;
	at.tv_nsec = (t - at.tv_sec) * 1e9;
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	spin_cpu_ms(a->demand_ms);
	a->done_ms = (now_s() - a->t0) * 1e3;
	return NULL;
}

/*
 * Run the Fig. 2 threads once in the best-effort level as it is set:
 * their completion times in @done_ms.  Each becomes SCHED_BVT while it
 * waits to be released, then sleeps until it arrives: with beta = 0 its
 * session, T and S, starts at that wake-up.
 */
static int run_fig2(struct arrival *a, int n, double *done_ms)
{
	pthread_t thread[FIG2_TASKS];
	atomic_int ready = 0;
	struct sched_attr attr = bvt_attr(0, 0);
	int go[2], i, ret = 0;
	double t0;

	if (pipe(go))
		return -1;
	for (i = 0; i < n; i++) {
		a[i].ready = &ready;
		a[i].go = go[0];
		a[i].err = 0;
		a[i].done_ms = -1;
		pthread_create(&thread[i], NULL, arrival_main, &a[i]);
	}
	while (atomic_load(&ready) < n)
		usleep(1000);
	for (i = 0; i < n; i++)
		if (!a[i].err && sys_sched_setattr(a[i].tid, &attr, 0))
			a[i].err = errno;
	t0 = now_s() + 0.1;
	for (i = 0; i < n; i++) {
		a[i].t0 = t0;
		if (write(go[1], "g", 1) != 1)
			ret = -1;
	}
	for (i = 0; i < n; i++) {
		pthread_join(thread[i], NULL);
		if (a[i].err)
			ret = -1;
		done_ms[i] = a[i].done_ms;
	}
	close(go[0]);
	close(go[1]);
	return ret;
}

/* Fig. 2 at @alpha: measured against @expect_ms, median of FIG2_RUNS. */
static void check_fig2(struct __test_metadata *_metadata, const char *alpha,
		       const double *expect_ms)
{
	static const double arrive[] = { 0, 200, 600, 1000 };
	static const double demand[] = { 900, 500, 600, 400 };
	struct arrival a[FIG2_TASKS] = {};
	double done[FIG2_TASKS][FIG2_RUNS], runs[FIG2_RUNS], med;
	int i, run;

	ASSERT_EQ(0, write_file(ALPHA, alpha));
	for (i = 0; i < FIG2_TASKS; i++) {
		a[i].arrive_ms = arrive[i];
		a[i].demand_ms = demand[i];
	}
	for (run = 0; run < FIG2_RUNS; run++) {
		double d[FIG2_TASKS];

		ASSERT_EQ(0, run_fig2(a, FIG2_TASKS, d));
		for (i = 0; i < FIG2_TASKS; i++)
			done[i][run] = d[i];
		printf("# alpha %s run %d: done at %.0f %.0f %.0f %.0f ms\n",
		       alpha, run, d[0], d[1], d[2], d[3]);
	}
	for (i = 0; i < FIG2_TASKS; i++) {
		memcpy(runs, done[i], sizeof(runs));
		med = median(runs, FIG2_RUNS);
		printf("# alpha %s thread %d: done at %.0f ms, expected %.0f\n",
		       alpha, i, med, expect_ms[i]);
		EXPECT_LT(fabs(med - expect_ms[i]), FIG2_MARGIN_MS);
	}
}

/* Setting for Fig. 2: one session from the arrival, no bonus. */
static void fig2_setup(struct __test_metadata *_metadata)
{
	ASSERT_EQ(0, write_file(BETA, "0"));
	ASSERT_EQ(0, write_file(SWITCH, "0"));
	ASSERT_EQ(0, write_file(EPSILON, "0"));
	ASSERT_EQ(0, write_file(MODE, "pbs"));
}

TEST_F(pbs, fig2_small_alpha_is_fcfs)
{
	static const double fcfs[] = { 900, 1400, 2000, 2400 };

	fig2_setup(_metadata);
	check_fig2(_metadata, "0.01", fcfs);
}

TEST_F(pbs, fig2_large_alpha_is_las)
{
	/* LAS: the least served first, equals sharing, as worked out. */
	static const double las[] = { 2400, 1900, 2100, 1600 };

	fig2_setup(_metadata);
	check_fig2(_metadata, "100", las);
}

TEST_F(pbs, fig2_alpha_one_matches_the_simulation)
{
	struct pbs_sim_task t[FIG2_TASKS] = {
		{ 0, 900 }, { 200, 500 }, { 600, 600 }, { 1000, 400 },
	};
	double expect[FIG2_TASKS];
	int i;

	pbs_sim(t, FIG2_TASKS, 1.0, NULL, 0);
	for (i = 0; i < FIG2_TASKS; i++)
		expect[i] = t[i].done_ms;
	fig2_setup(_metadata);
	check_fig2(_metadata, "1", expect);
}

/* delta: weights 1:3 get 25/75 at alpha = 1, within 5 points. */
TEST_F(pbs, weights_keep_their_share)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(512, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(1536, 0), .cpu = test_cpu() },
	};
	double share[2];

	ASSERT_EQ(0, write_file(ALPHA, "1"));
	ASSERT_EQ(0, write_file(BETA, "+inf"));
	ASSERT_EQ(0, write_file(MODE, "pbs"));
	ASSERT_EQ(0, median_shares(hogs, 2, 3, 1500, share));
	printf("# weight 512: %.3f, weight 1536: %.3f\n", share[0], share[1]);
	EXPECT_LT(fabs(share[0] - 0.25), 0.05);
}

struct stream {
	double run_ms, sleep_ms;
	int jobs;		/* out: jobs done */
	atomic_bool *stop;
};

/* Short jobs: run_ms of CPU, then sleep_ms, until told to stop. */
static void *stream_main(void *arg)
{
	struct stream *st = arg;
	struct timespec gap = { .tv_nsec = st->sleep_ms * 1e6 };

	while (!atomic_load(st->stop)) {
		spin_cpu_ms(st->run_ms);
		st->jobs++;
		nanosleep(&gap, NULL);
	}
	return NULL;
}

struct long_job {
	double demand_ms;
	double done_ms;		/* out */
};

static void *long_main(void *arg)
{
	struct long_job *lj = arg;
	double t0 = now_s();

	spin_cpu_ms(lj->demand_ms);
	lj->done_ms = (now_s() - t0) * 1e3;
	return NULL;
}

/* Threads born on the test CPU as best-effort SCHED_BVT threads. */
static int spawn_bvt(pthread_t *t, void *(*fn)(void *), void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);
	pthread_attr_t pa;
	cpu_set_t set;
	int ret;

	CPU_ZERO(&set);
	CPU_SET(test_cpu(), &set);
	pthread_attr_init(&pa);
	pthread_attr_setaffinity_np(&pa, sizeof(set), &set);
	if (sys_sched_setattr(0, &attr, 0))
		return -1;
	ret = pthread_create(t, &pa, fn, arg);
	pthread_attr_destroy(&pa);
	return become_controller() || ret ? -1 : 0;
}

/*
 * alpha = 100: a long job beside a stream of short ones that leave it half
 * the CPU, a session per wake-up (beta = 0).  Each short job comes first,
 * as in LAS, and the long one still has the other half.
 */
TEST_F(pbs, large_alpha_starves_no_long_job)
{
	atomic_bool stop = false;
	struct stream st = { .run_ms = 10, .sleep_ms = 10, .stop = &stop };
	struct long_job lj = { .demand_ms = 500, .done_ms = -1 };
	pthread_t ts, tl;

	ASSERT_EQ(0, write_file(ALPHA, "100"));
	ASSERT_EQ(0, write_file(BETA, "0"));
	ASSERT_EQ(0, write_file(MODE, "pbs"));
	ASSERT_EQ(0, spawn_bvt(&tl, long_main, &lj));
	ASSERT_EQ(0, spawn_bvt(&ts, stream_main, &st));
	pthread_join(tl, NULL);
	atomic_store(&stop, true);
	pthread_join(ts, NULL);
	printf("# the long job took %.0f ms; %d short jobs\n", lj.done_ms,
	       st.jobs);
	/*
	 * Alone it takes 500 ms, with half the CPU 1 s: three times that
	 * leaves room for TCG's stalls and still fails a starved job.
	 */
	EXPECT_LT(lj.done_ms, 3000);
	/* The stream's half: some 50 jobs a second; half that at least. */
	EXPECT_GT(st.jobs * 1000.0 / lj.done_ms, 25);
}

static void *endless_main(void *arg)
{
	atomic_bool *stop = arg;

	while (!atomic_load(stop))
		;
	return NULL;
}

/*
 * alpha = 0.01: a newcomer behind a thread that never ends, 100 ms older.
 * FCFS would keep it waiting for ever; PBS runs it once T_new / T_old
 * reaches (S_new / S_old)^alpha, some 14 times their difference in age
 * for a newcomer that has had a tick beside one that has run a second.
 */
TEST_F(pbs, small_alpha_starves_no_newcomer)
{
	atomic_bool stop = false;
	struct long_job lj = { .demand_ms = 20, .done_ms = -1 };
	pthread_t told, tnew;

	ASSERT_EQ(0, write_file(ALPHA, "0.01"));
	ASSERT_EQ(0, write_file(BETA, "+inf"));
	ASSERT_EQ(0, write_file(SWITCH, "0"));
	ASSERT_EQ(0, write_file(MODE, "pbs"));
	ASSERT_EQ(0, spawn_bvt(&told, endless_main, &stop));
	usleep(100000);
	ASSERT_EQ(0, spawn_bvt(&tnew, long_main, &lj));
	pthread_join(tnew, NULL);
	atomic_store(&stop, true);
	pthread_join(told, NULL);
	printf("# the newcomer's 20 ms took %.0f ms\n", lj.done_ms);
	/* 1.4 s by the formula (0.9-1.0 s measured); starved, it never ends */
	EXPECT_LT(lj.done_ms, 5000);
}

/*
 * The sampled selection (Algorithm 1) with more threads than it looks at
 * in a pick (L + M + the running one = 7): at alpha = 1 the twelve still
 * share the CPU, each within half of its twelfth either way (a thread
 * left out of the samples is found a few picks later, its T grown; one
 * the sampling missed for good would have none).  The exact selection
 * shares as well: that the sampled one is what ran, and how it samples,
 * the KUnit tests check.
 */
TEST_F(pbs, sampled_selection_shares_among_many)
{
	struct hog hogs[12];
	double fair, lo = 1, hi = 0;
	int i;

	for (i = 0; i < 12; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0),
					.cpu = test_cpu() };
	ASSERT_EQ(0, write_file(ALPHA, "1"));
	ASSERT_EQ(0, write_file(BETA, "+inf"));
	ASSERT_EQ(0, write_file(SELECT, "sampled"));
	ASSERT_EQ(0, write_file(MODE, "pbs"));
	ASSERT_EQ(0, run_hogs(hogs, 12, 3000));
	fair = hogs_wall_s / 12;
	for (i = 0; i < 12; i++) {
		lo = fmin(lo, hogs[i].cpu_s / fair);
		hi = fmax(hi, hogs[i].cpu_s / fair);
	}
	printf("# shares of the fair one: %.2f .. %.2f\n", lo, hi);
	EXPECT_GT(lo, 0.5);
	EXPECT_LT(hi, 1.5);
}

struct sessions {
	atomic_int phase;
	atomic_bool stop;
	pid_t tid;
};

/* Five runs of 20 ms, 5 ms apart, then one that goes on. */
static void *sessions_main(void *arg)
{
	struct sessions *ss = arg;
	int i;

	ss->tid = gettid();
	for (i = 0; i < 5; i++) {
		spin_cpu_ms(20);
		usleep(5000);
	}
	atomic_store(&ss->phase, 1);
	while (!atomic_load(&ss->stop))
		;
	return NULL;
}

/* /proc/<pid>/sched shows the session: its count, T, S and p. */
TEST_F(pbs, proc_shows_the_session)
{
	static const char *const fields[] = {
		"bvt.pbs.nr_sessions", "bvt.pbs.sojourn",
		"bvt.pbs.service", "bvt.pbs.prio",
	};
	struct sessions ss = { };
	double v[4], n, t, sv, p;
	pthread_t th;

	ASSERT_EQ(0, write_file(ALPHA, "1"));
	ASSERT_EQ(0, write_file(BETA, "0"));
	ASSERT_EQ(0, write_file(MODE, "pbs"));
	ASSERT_EQ(0, spawn_bvt(&th, sessions_main, &ss));
	while (!atomic_load(&ss.phase))
		usleep(1000);
	usleep(100000);
	/* One read: T and S of a running thread from the same instant */
	proc_sched_fields(ss.tid, fields, v, 4);
	n = v[0];
	t = v[1];
	sv = v[2];
	p = v[3];
	atomic_store(&ss.stop, true);
	pthread_join(th, NULL);
	printf("# %.0f sessions; T %.1f ms, S %.1f ms, p %.3f\n", n, t, sv, p);
	/* It arrived, then every wake-up started one (beta = 0). */
	EXPECT_GE(n, 6);
	/* The last began at the last wake-up, 100 ms or more ago. */
	EXPECT_GE(t, 90);
	EXPECT_LT(t, 1000);
	/*
	 * Alone on its CPU, it ran all of that: S and T agree within 10 %.
	 * Not exactly: the session began at a wake-up that another CPU may
	 * have done, on its idea of this CPU's clock (5 ms apart once in a
	 * 4-vCPU boot under TCG, whose TSC the kernel finds unstable).
	 */
	EXPECT_LT(fabs(sv - t), 0.1 * t);
	/* alpha = 1: p = log2(T / S), near 0 */
	EXPECT_GT(p, -0.5);
	EXPECT_LT(p, 1.5);
}

static const char *flip_mode;

/* Switch the mode every 50 ms while the hogs run. */
static void flip_modes(struct hog *hogs, int n, unsigned int ms)
{
	int i;

	for (i = 0; i < (int)ms / 50; i++) {
		flip_mode = i % 2 ? "bvt" : "pbs";
		if (write_file(MODE, flip_mode))
			break;
		usleep(50000);
	}
}

/*
 * Changing the mode with threads queued loses none: each keeps running,
 * and between them they get the CPU.
 */
TEST_F(pbs, mode_changes_under_load_lose_no_thread)
{
	struct hog hogs[6];
	double total = 0;
	int i;

	for (i = 0; i < 6; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0),
					.cpu = test_cpu() };
	ASSERT_EQ(0, write_file(ALPHA, "1"));
	ASSERT_EQ(0, run_hogs_during(hogs, 6, 2000, flip_modes));
	for (i = 0; i < 6; i++) {
		printf("# thread %d: %.3f s\n", i, hogs[i].cpu_s);
		total += hogs[i].cpu_s;
		/*
		 * A sixth of the CPU would be 0.33 s (0.34 measured); a thread
		 * lost at a switch would have none, one kept out of the other
		 * mode's order far less than 0.2 s.
		 */
		EXPECT_GT(hogs[i].cpu_s, 0.2);
	}
	printf("# %.3f s of CPU in %.3f s, last mode %s\n", total,
	       hogs_wall_s, flip_mode);
	/* The CPU never idled for long with six runnable (1.00 measured). */
	EXPECT_GT(total, 0.8 * hogs_wall_s);
}

TEST_F(pbs, tunables_refuse_what_is_out_of_bounds)
{
	char buf[32];

	EXPECT_NE(0, write_file(MODE, "fifo"));
	EXPECT_NE(0, write_file(ALPHA, "0"));
	EXPECT_NE(0, write_file(ALPHA, "0.009"));
	EXPECT_NE(0, write_file(ALPHA, "100.001"));
	EXPECT_NE(0, write_file(ALPHA, "1.0001"));
	EXPECT_NE(0, write_file(ALPHA, "-1"));
	EXPECT_NE(0, write_file(BETA, "x"));
	EXPECT_NE(0, write_file(EPSILON, "10.5"));
	EXPECT_NE(0, write_file(SELECT, "random"));
	ASSERT_EQ(0, write_file(ALPHA, "0.25"));
	ASSERT_EQ(0, read_text(ALPHA, buf, sizeof(buf)));
	EXPECT_STREQ("0.250", buf);
	ASSERT_EQ(0, write_file(BETA, "-3"));
	ASSERT_EQ(0, read_text(BETA, buf, sizeof(buf)));
	EXPECT_STREQ("-3.000", buf);
	ASSERT_EQ(0, write_file(BETA, "+inf"));
	ASSERT_EQ(0, read_text(BETA, buf, sizeof(buf)));
	EXPECT_STREQ("+inf", buf);
	ASSERT_EQ(0, write_file(MODE, "pbs"));
	ASSERT_EQ(0, read_text(MODE, buf, sizeof(buf)));
	EXPECT_STREQ("pbs", buf);
}

/*
 * A zombie is past the exit that frees its session: sched_setattr() to
 * SCHED_BVT on it, a child of another policy or one forked in the class,
 * by root and by an unprivileged user with RLIMIT_RTPRIO 1, allocates
 * none that nothing would free.  ZOMBIES children each way; every
 * session is gone once they are reaped (11 997 of 12 000 were leaked).
 */
#define ZOMBIES		200

static int zombies_set(bool in_class)
{
	struct sched_attr attr = bvt_attr(0, 0), other = other_attr(0);
	pid_t pid[ZOMBIES];
	siginfo_t info;
	int i, failed = 0;

	if (sys_sched_setattr(0, in_class ? &attr : &other, 0))
		return -1;
	for (i = 0; i < ZOMBIES; i++) {
		pid[i] = fork();
		if (pid[i] < 0)
			return -1;
		if (!pid[i])
			_exit(0);
	}
	for (i = 0; i < ZOMBIES; i++) {
		/* A zombie, not yet reaped. */
		if (waitid(P_PID, pid[i], &info, WEXITED | WNOWAIT))
			return -1;
		failed += sys_sched_setattr(pid[i], &attr, 0) != 0;
	}
	for (i = 0; i < ZOMBIES; i++)
		waitpid(pid[i], NULL, 0);
	return failed;
}

/* In a child: root's zombies, then, with @unprivileged, uid 65534's. */
static int zombies_child(bool unprivileged)
{
	struct rlimit one = { 1, 1 };

	if (unprivileged && (setrlimit(RLIMIT_RTPRIO, &one) || setgid(65534) ||
			     setuid(65534)))
		return 10;
	return zombies_set(false) < 0 || zombies_set(true) < 0 ? 11 : 0;
}

TEST_F(pbs, zombies_keep_no_session)
{
	unsigned long long before;
	int status, i;
	pid_t pid;

	if (access("/proc/sys/" SESSIONS, R_OK))
		SKIP(return, "no %s", SESSIONS);
	before = read_sysctl(SESSIONS);
	/* In children: a thread's own session goes only with it. */
	for (i = 0; i < 2; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid)
			_exit(zombies_child(i));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}
	/* A reaped child may not have made its last switch yet. */
	for (i = 0; i < 200 && read_sysctl(SESSIONS) != before; i++)
		usleep(10000);
	TH_LOG("sessions: %llu before, %llu after", before,
	       read_sysctl(SESSIONS));
	EXPECT_EQ(before, read_sysctl(SESSIONS));
}

TEST_HARNESS_MAIN
