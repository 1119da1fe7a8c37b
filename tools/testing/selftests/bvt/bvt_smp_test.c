// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT across CPUs, measured: CPU-bound threads, two per CPU, spread
 * out so that each gets half a CPU; a larger migration penalty M keeps
 * waking threads on the CPU they last ran on (fewer migrations, counted in
 * /proc/<pid>/task/<tid>/sched); threads on a CPU that goes offline move
 * to the others and keep running, in their class, also after it returns;
 * a thread of high weight that runs briefly does not move the others.
 */
#include "bvt_util.h"

#include <fcntl.h>
#include <sys/sysinfo.h>

#include "../kselftest_harness.h"

#define NHOGS	4
#define PENALTY	"kernel/sched_bvt_migration_penalty_ns"

/*
 * Twice as many unpinned CPU-bound threads as CPUs, weight 1024: each gets
 * half a CPU, +-10 points (median of three 2 s runs).  A thread's part of
 * a CPU is its share of all the threads' CPU time times the CPU count:
 * together they keep every CPU busy.
 */
TEST(two_threads_per_cpu_get_half_each)
{
	int ncpu = get_nprocs(), n = 2 * ncpu, i;
	struct hog hogs[MAX_HOGS];
	double share[MAX_HOGS], part;

	if (n > MAX_HOGS)
		n = MAX_HOGS, ncpu = n / 2;
	ASSERT_EQ(0, become_controller());
	for (i = 0; i < n; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0), .cpu = -1 };
	ASSERT_EQ(0, median_shares(hogs, n, 3, 2000, share));
	for (i = 0; i < n; i++) {
		part = share[i] * ncpu;
		TH_LOG("thread %d: %.3f of a CPU (ideal 0.5)", i, part);
		EXPECT_GE(part, 0.4);
		EXPECT_LE(part, 0.6);
	}
}

struct sleeper {
	pthread_t thread;
	pid_t tid;
	long migrations;
	atomic_bool *stop;
};

/* Run 1 ms, sleep 1 ms, until stopped. */
static void *sleeper_main(void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);
	struct sleeper *sl = arg;
	long before;

	sl->tid = gettid();
	if (sys_sched_setattr(0, &attr, 0)) {
		sl->migrations = -1;
		return NULL;
	}
	before = proc_sched_field(sl->tid, "se.nr_migrations");
	while (!atomic_load(sl->stop)) {
		spin_cpu_ms(1);
		usleep(1000);
	}
	sl->migrations = proc_sched_field(sl->tid, "se.nr_migrations") - before;
	return NULL;
}

/*
 * One CPU-bound thread per CPU, and as many threads that run 1 ms and sleep
 * 1 ms, for a thousand ticks (1 s at HZ=1000: the CPUs' running threads
 * are brought up to date, and so compared, less often at a coarser tick),
 * all unpinned: the sleepers' migrations in total.
 */
static long sleeper_migrations(struct __test_metadata *_metadata)
{
	int ncpu = get_nprocs(), i;
	struct sleeper sl[MAX_HOGS];
	struct hog hogs[MAX_HOGS];
	atomic_bool stop = false;
	long total = 0;

	if (ncpu > MAX_HOGS)
		ncpu = MAX_HOGS;
	for (i = 0; i < ncpu; i++) {
		sl[i].stop = &stop;
		pthread_create(&sl[i].thread, NULL, sleeper_main, &sl[i]);
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0), .cpu = -1 };
	}
	EXPECT_EQ(0, run_hogs(hogs, ncpu, 1000 * tick_ms()));
	atomic_store(&stop, true);
	for (i = 0; i < ncpu; i++) {
		pthread_join(sl[i].thread, NULL);
		EXPECT_GE(sl[i].migrations, 0);
		total += sl[i].migrations;
	}
	return total;
}

/*
 * With M = 0 a waking thread goes wherever it would run soonest; with
 * M = 50 ms it stays where it last ran unless a CPU is free for it: the
 * sleepers move 20 times at least without M, and half as often with it.
 */
TEST(penalty_cuts_migrations)
{
	unsigned long long saved = read_sysctl(PENALTY);
	long none, high;

	if (get_nprocs() < 2)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, write_sysctl(PENALTY, 0));
	none = sleeper_migrations(_metadata);
	ASSERT_EQ(0, write_sysctl(PENALTY, 50 * NSEC_PER_MSEC));
	high = sleeper_migrations(_metadata);
	write_sysctl(PENALTY, saved);
	TH_LOG("sleepers' migrations in 1000 ticks: %ld with M = 0, %ld with M = 50 ms",
	       none, high);
	EXPECT_GE(none, 20);
	EXPECT_LE(high * 2, none);
}

static atomic_bool stop;

struct spinner {
	pthread_t thread;
	pid_t tid;
	int err;
};

static void *spin(void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);
	struct spinner *sp = arg;

	sp->tid = gettid();
	sp->err = sys_sched_setattr(0, &attr, 0) ? errno : 0;
	while (!atomic_load(&stop))
		;
	return NULL;
}

/* The CPU time each spinner gets over @ms milliseconds. */
static void progress(struct spinner *sp, double *cpu_s, unsigned int ms)
{
	double start[NHOGS];
	clockid_t clk;
	int i;

	for (i = 0; i < NHOGS; i++) {
		pthread_getcpuclockid(sp[i].thread, &clk);
		start[i] = clock_s(clk);
	}
	usleep(ms * 1000);
	for (i = 0; i < NHOGS; i++) {
		pthread_getcpuclockid(sp[i].thread, &clk);
		cpu_s[i] = clock_s(clk) - start[i];
	}
}

/*
 * NHOGS CPU-bound BVT threads pinned to the last CPU; it goes offline for
 * half a second and comes back.  Every thread runs while it is away (on
 * the other CPUs, its affinity broken) and after, and stays SCHED_BVT.
 */
TEST(hotplug_loses_no_thread)
{
	int cpu = get_nprocs() - 1, i;
	double away[NHOGS], back[NHOGS];
	struct spinner sp[NHOGS];
	struct sched_attr got;
	pthread_attr_t pa;
	cpu_set_t set;

	if (cpu < 1 || access("/sys/devices/system/cpu/cpu1/online", W_OK))
		SKIP(return, "needs two CPUs and CPU hotplug");
	ASSERT_EQ(0, become_controller());

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_attr_init(&pa);
	pthread_attr_setaffinity_np(&pa, sizeof(set), &set);
	for (i = 0; i < NHOGS; i++)
		pthread_create(&sp[i].thread, &pa, spin, &sp[i]);
	usleep(100000);
	ASSERT_EQ(0, set_online(cpu, 0));
	progress(sp, away, 500);
	ASSERT_EQ(0, set_online(cpu, 1));
	progress(sp, back, 500);

	for (i = 0; i < NHOGS; i++) {
		TH_LOG("thread %d: %.3f s CPU while CPU %d was offline, %.3f s after",
		       i, away[i], cpu, back[i]);
		EXPECT_EQ(0, sp[i].err);
		EXPECT_GT(away[i], 0.01);
		EXPECT_GT(back[i], 0.01);
		ASSERT_EQ(0, sys_sched_getattr(sp[i].tid, &got, sizeof(got), 0));
		EXPECT_EQ(SCHED_BVT, got.sched_policy);
	}
	atomic_store(&stop, true);
	for (i = 0; i < NHOGS; i++)
		pthread_join(sp[i].thread, NULL);
}

/*
 * A thread that waits behind a warped one moves to a CPU that goes idle:
 * that CPU pulls it.  X (W = 1 s, no limit) and Y run on CPU a, where X's
 * warp keeps Y waiting for about a second; Y may also run on CPU b, where
 * Z runs.  Z blocks: b pulls Y at once, in about a millisecond.  Without a
 * pull Y waits until something else (a kernel thread, an interrupt)
 * makes a pick again and push it: 38 and 343 ms were seen.  The median of
 * PULL_TRIES tries is asserted below PULL_MAX_MS, a margin for TCG.
 */
#define PULL_TRIES	5
#define PULL_MAX_MS	10

struct mover {
	pthread_t thread;
	pid_t tid;
	int cpu, watch_cpu, go[2];
	atomic_int ready;
	atomic_bool *stop, block;
	double when;		/* Y: first seen on watch_cpu; Z: blocked */
};

static void *mover_main(void *arg)
{
	struct mover *m = arg;
	char c;

	m->tid = gettid();
	pin_self(m->cpu);
	atomic_store(&m->ready, 1);
	if (read(m->go[0], &c, 1) != 1)
		return NULL;
	while (!atomic_load_explicit(m->stop, memory_order_relaxed)) {
		if (atomic_load_explicit(&m->block, memory_order_relaxed)) {
			m->when = now_s();
			if (read(m->go[0], &c, 1) != 1)
				return NULL;
		}
		if (m->watch_cpu >= 0 && !m->when &&
		    sched_getcpu() == m->watch_cpu)
			m->when = now_s();
	}
	return NULL;
}

static void mover_start(struct mover *m, int cpu, int watch_cpu,
			atomic_bool *stop)
{
	memset(m, 0, sizeof(*m));
	m->cpu = cpu;
	m->watch_cpu = watch_cpu;
	m->stop = stop;
	if (pipe(m->go))
		return;
	pthread_create(&m->thread, NULL, mover_main, m);
	while (!atomic_load(&m->ready))
		usleep(1000);
}

static void mover_go(struct mover *m)
{
	if (write(m->go[1], "g", 1) != 1)
		m->when = -1;
}

static void mover_join(struct mover *m)
{
	mover_go(m);
	pthread_join(m->thread, NULL);
	close(m->go[0]);
	close(m->go[1]);
}

/* One try: ms from Z blocking on @b to Y running there; -1 if it failed. */
static double pull_delay_ms(struct __test_metadata *_metadata, int a, int b)
{
	struct sched_attr warp = bvt_warp_attr(1000 * NSEC_PER_MSEC, 0, 0);
	struct sched_attr plain = bvt_attr(1024, 0);
	atomic_bool done = false;
	struct mover x, y, z;
	double delay = -1;
	cpu_set_t set;
	int i;

	mover_start(&x, a, -1, &done);
	mover_start(&y, a, b, &done);
	mover_start(&z, b, -1, &done);
	if (sys_sched_setattr(x.tid, &warp, 0) ||
	    sys_sched_setattr(y.tid, &plain, 0) ||
	    sys_sched_setattr(z.tid, &plain, 0))
		goto out;
	mover_go(&z);
	mover_go(&x);
	mover_go(&y);
	usleep(100000);

	/* Y may now run on b too, where Z keeps it from going. */
	CPU_ZERO(&set);
	CPU_SET(a, &set);
	CPU_SET(b, &set);
	if (sched_setaffinity(y.tid, sizeof(set), &set))
		goto out;
	usleep(100000);
	if (y.when) {
		TH_LOG("Y reached CPU %d before Z blocked", b);
		goto out;
	}

	atomic_store(&z.block, true);
	for (i = 0; i < 2000 && !(y.when && z.when); i++)
		usleep(1000);
	if (!y.when || !z.when)
		TH_LOG("Y not on CPU %d 2 s after it went idle", b);
	else
		delay = (y.when - z.when) * 1000;
out:
	atomic_store(&done, true);
	mover_join(&x);
	mover_join(&y);
	mover_join(&z);
	return delay;
}

TEST(idle_cpu_pulls_a_waiting_thread)
{
	int a = get_nprocs() - 1, b = 0, i;
	double delay[PULL_TRIES];

	if (a < 1)
		SKIP(return, "needs two CPUs");
	ASSERT_EQ(0, pin_self(b));
	ASSERT_EQ(0, become_controller());
	for (i = 0; i < PULL_TRIES; i++) {
		delay[i] = pull_delay_ms(_metadata, a, b);
		ASSERT_LE(0, delay[i]);
		TH_LOG("try %d: Y moved to CPU %d %.1f ms after Z blocked there",
		       i, b, delay[i]);
	}
	EXPECT_GT(PULL_MAX_MS, median(delay, PULL_TRIES));
}

/* Hogs start on the controller's CPU: let them spread out first. */
#define SPREAD_MS	200

/* The hogs' migrations after SPREAD_MS, to the end of run_hogs_during(). */
static double hog_moves[MAX_HOGS];

static void count_hog_moves(struct hog *hogs, int n, unsigned int ms)
{
	int i;

	usleep(SPREAD_MS * 1000);
	for (i = 0; i < n; i++)
		hog_moves[i] = proc_sched_field(hogs[i].tid, "se.nr_migrations");
	usleep((ms - SPREAD_MS) * 1000);
	for (i = 0; i < n; i++)
		hog_moves[i] = proc_sched_field(hogs[i].tid, "se.nr_migrations") -
			       hog_moves[i];
}

/*
 * Three CPU-bound threads per CPU (MAX_HOGS at most), unpinned, and on
 * every CPU a thread of nice -20's weight (88761) that wakes every 10 ms
 * to run 0.1 ms, for 2 s.  Evening loads out counts a thread while it
 * waits, not while it runs: the heavy threads' picks leave the hogs where
 * they are.  Counted while it ran, a heavy thread made its CPU look loaded
 * at each of its picks, which pushed hogs to the other CPUs, whose picks
 * pushed them back: a move at each of the 100 picks a second on each CPU
 * at least.  Some moves remain: a heavy thread that has woken can wait
 * behind the running hog, and while it waits its weight makes the hog
 * that waits beside it move and, the loads uneven then, one move back.  The
 * hogs' moves in 1 s, once they have spread out, are held to 50 a CPU:
 * half of the move a pick that counting the runner makes.
 */
TEST(heavy_sleepers_leave_the_hogs_in_place)
{
	int ncpu = get_nprocs(), n = 3 * ncpu, i;
	struct periodic pr[MAX_HOGS] = {};
	pthread_t thread[MAX_HOGS];
	struct hog hogs[MAX_HOGS];
	double moves = 0;

	if (ncpu < 2)
		SKIP(return, "needs two CPUs");
	if (n > MAX_HOGS)
		n = MAX_HOGS;
	if (ncpu > MAX_HOGS)
		ncpu = MAX_HOGS;
	ASSERT_EQ(0, become_controller());
	for (i = 0; i < ncpu; i++) {
		pr[i] = (struct periodic){
			.attr = bvt_attr(88761, 0), .cpu = i, .periods = 200,
			.period_ms = 10, .run_ms = 0.1,
		};
		pthread_create(&thread[i], NULL, periodic_main, &pr[i]);
	}
	for (i = 0; i < n; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0), .cpu = -1 };
	EXPECT_EQ(0, run_hogs_during(hogs, n, SPREAD_MS + 1000,
				     count_hog_moves));
	for (i = 0; i < ncpu; i++) {
		pthread_join(thread[i], NULL);
		EXPECT_EQ(0, pr[i].err);
	}
	for (i = 0; i < n; i++) {
		EXPECT_LE(0, hog_moves[i]);
		moves += hog_moves[i];
	}
	TH_LOG("%d hogs moved %.0f times in 1 s beside %d heavy sleepers",
	       n, moves, ncpu);
	EXPECT_LE(moves, 50 * ncpu);
}

TEST_HARNESS_MAIN
