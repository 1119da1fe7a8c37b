// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT shares the CPU by weight, measured: CPU-bound threads on one
 * CPU get CPU time in proportion to their weights, whether the weights are
 * explicit or come from nice; a yielding thread steps behind its peer; a
 * thread waking from a long sleep gets no catch-up burst (SVT); and
 * SCHED_OTHER tasks are not starved when BVT threads saturate every CPU
 * (the fair server).
 *
 * Shares are measured with per-thread CPU clocks over 2 s by a SCHED_FIFO
 * controller and compared among the threads themselves, so they do not
 * depend on how fast the (possibly emulated) machine is.  Margins: +-5
 * percentage points, as asked of the class; the context switch allowance
 * (3 ms) and tick granularity (1 ms) cost well under 1 point over 2 s.
 * Each share is the median of three runs (see median_shares()).
 */
#include "bvt_util.h"

#include <sys/sysinfo.h>

#include "../kselftest_harness.h"

#define INTERVAL_MS	2000
#define MARGIN		0.05
#define RUNS		3

FIXTURE(share) {
};

FIXTURE_SETUP(share)
{
	ASSERT_EQ(0, become_controller());
}

FIXTURE_TEARDOWN(share)
{
}

/* Check each hog's median share of RUNS runs against @want. */
static void expect_shares(struct __test_metadata *_metadata,
			  struct hog *hogs, int n, const double *want)
{
	double share[MAX_HOGS];
	int i;

	ASSERT_EQ(0, median_shares(hogs, n, RUNS, INTERVAL_MS, share));
	for (i = 0; i < n; i++) {
		TH_LOG("thread %d: median share %.3f (ideal %.3f)",
		       i, share[i], want[i]);
		EXPECT_GE(share[i], want[i] - MARGIN);
		EXPECT_LE(share[i], want[i] + MARGIN);
	}
}

TEST_F(share, weights_1_to_3)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(1024, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(3072, 0), .cpu = test_cpu() },
	};
	const double want[2] = { 0.25, 0.75 };

	expect_shares(_metadata, hogs, 2, want);
}

TEST_F(share, weights_1_2_3)
{
	struct hog hogs[3] = {
		{ .attr = bvt_attr(500, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(1000, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(1500, 0), .cpu = test_cpu() },
	};
	const double want[3] = { 1 / 6.0, 2 / 6.0, 3 / 6.0 };

	expect_shares(_metadata, hogs, 3, want);
}

/* An old-size sched_attr: weight from nice, 1024 (nice 0) : 335 (nice 5). */
TEST_F(share, weight_from_nice)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(0, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(0, 5), .cpu = test_cpu() },
	};
	const double want[2] = { 1024 / 1359.0, 335 / 1359.0 };

	hogs[0].attr.size = SCHED_ATTR_SIZE_VER0;
	hogs[1].attr.size = SCHED_ATTR_SIZE_VER1;
	expect_shares(_metadata, hogs, 2, want);
}

/*
 * A thread that calls sched_yield() in a loop beside a CPU-bound peer of
 * the same weight steps behind it every time it runs: it gets next to
 * nothing (locally 0.2 %), the peer nearly all (at least 90 %).
 */
TEST_F(share, yield_steps_behind_the_peer)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(0, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(0, 0), .cpu = test_cpu(), .yield = true },
	};
	double share[2];

	ASSERT_EQ(0, median_shares(hogs, 2, RUNS, 1000, share));
	TH_LOG("median shares: spinner %.3f, yielder %.3f", share[0], share[1]);
	EXPECT_GE(share[0], 0.90);
}

struct waker {
	struct sched_attr attr;
	int cpu;
	double cpu_ms;		/* CPU time in the 200 ms after waking */
	int err;
};

/* Sleep 2 s, then spin for 200 ms of wall-clock time. */
static void *waker_main(void *arg)
{
	struct waker *w = arg;
	double start, end;

	if (pin_self(w->cpu) || sys_sched_setattr(0, &w->attr, 0)) {
		w->err = errno;
		return NULL;
	}
	usleep(2000000);
	start = clock_s(CLOCK_THREAD_CPUTIME_ID);
	end = now_s() + 0.2;
	while (now_s() < end)
		;
	w->cpu_ms = (clock_s(CLOCK_THREAD_CPUTIME_ID) - start) * 1e3;
	return NULL;
}

/*
 * SVT: a thread that slept for 2 s wakes up beside a CPU-bound peer of
 * the same weight.  Had it kept the A it slept with, it would be 1 s of
 * virtual time behind and take the whole CPU for the next 200 ms; its A
 * is raised to SVT instead and it gets its half: 100 ms, plus at most the
 * allowance C (3 ms) of catch-up, and 15 ms for ticks and emulation
 * (median of three runs).
 */
TEST_F(share, sleeper_wakes_at_svt)
{
	struct hog peer[1] = { { .attr = bvt_attr(0, 0), .cpu = test_cpu() } };
	struct waker w = { .attr = bvt_attr(0, 0), .cpu = test_cpu() };
	double ms[RUNS];
	pthread_t thread;
	int run;

	for (run = 0; run < RUNS; run++) {
		w.cpu_ms = 0;
		pthread_create(&thread, NULL, waker_main, &w);
		ASSERT_EQ(0, run_hogs(peer, 1, 2300));
		pthread_join(thread, NULL);
		ASSERT_EQ(0, w.err);
		ms[run] = w.cpu_ms;
		TH_LOG("run %d: %.1f ms CPU in the 200 ms after waking", run, ms[run]);
	}
	EXPECT_LE(median(ms, RUNS), 100 + 3 + 15);
	EXPECT_GE(median(ms, RUNS), 100 - 3 - 15);
}

struct short_runner {
	pid_t tid;
	atomic_int phase;	/* 1: asleep before the runs, 2: after */
	int err;
};

/*
 * Run 3 ms at a time, twenty times, with a long sleep before and after,
 * during which the controller reads A: a thread that is not running has
 * had its last run charged (and rounded) in full.
 */
static void *short_runner_main(void *arg)
{
	struct sched_attr attr = bvt_attr(0, 0);
	struct short_runner *sr = arg;
	int i;

	sr->tid = gettid();
	if (pin_self(test_cpu()) || sys_sched_setattr(0, &attr, 0)) {
		sr->err = errno;
		atomic_store(&sr->phase, 2);
		return NULL;
	}
	atomic_store(&sr->phase, 1);
	usleep(100000);
	for (i = 0; i < 20; i++) {
		spin_cpu_ms(3);
		usleep(2000);
	}
	atomic_store(&sr->phase, 2);
	usleep(100000);
	return NULL;
}

/*
 * How far the runner's A moves over its runs, with @mcu_ns, and how often
 * the CPU was taken from it in the middle of one (@split).
 */
static double short_runs_avt(struct __test_metadata *_metadata,
			     unsigned int mcu_ns, double *split)
{
	static const char *const fields[] = {
		"bvt.avt", "nr_involuntary_switches",
	};
	struct short_runner sr = { };
	double before[2], after[2];
	pthread_t thread;

	/* Off the runner's CPU: a SCHED_FIFO wake-up there would split its runs. */
	ASSERT_EQ(0, pin_self(0));
	EXPECT_EQ(0, write_sysctl("kernel/sched_bvt_mcu_ns", mcu_ns));
	pthread_create(&thread, NULL, short_runner_main, &sr);
	while (atomic_load(&sr.phase) < 1)
		usleep(1000);
	usleep(20000);
	proc_sched_fields(sr.tid, fields, before, 2);
	while (atomic_load(&sr.phase) < 2)
		usleep(1000);
	usleep(20000);
	proc_sched_fields(sr.tid, fields, after, 2);
	pthread_join(thread, NULL);
	EXPECT_EQ(0, sr.err);
	*split = after[1] - before[1];
	return after[0] - before[0];
}

/*
 * The minimum charging unit: a thread alone on its CPU runs 3 ms at a
 * time (a little more with the system calls around it), twenty times.
 * Charged exactly, its A moves by what it ran (locally 65-90 ms, more on
 * a slow guest); with an mcu of 5 ms every run of 2.5 ms or more is
 * charged at least one whole unit, so A moves by at least 100 ms.  It is
 * not an exact multiple of 5 ms: a run rounded down (the short ones around
 * the sleeps) is charged in full anyway, as the thread, alone, wakes at
 * SVT, which its unrounded A had already moved.  A kernel thread that
 * takes the CPU in the middle of a 3 ms run (through the fair server, on
 * a busy host) splits it in two, each rounded on its own: each such split
 * may cost up to a unit, and the kernel counts them.
 */
TEST_F(share, mcu_rounds_each_run)
{
	double exact, rounded, split, unused;

	exact = short_runs_avt(_metadata, 0, &unused);
	rounded = short_runs_avt(_metadata, 5 * NSEC_PER_MSEC, &split);
	write_sysctl("kernel/sched_bvt_mcu_ns", 0);
	TH_LOG("A moved %.3f ms charged exactly, %.3f ms with a 5 ms mcu (%.0f runs split)",
	       exact, rounded, split);
	EXPECT_GE(exact, 60);
	EXPECT_GE(rounded, 100 - 5 * split - 0.05);
}

/*
 * Move hogs[0] out of the class and straight back every 2 ms, as a helper
 * that wanted to erase its debt would (or as PI boosts and deboosts it).
 */
static void bounce_first(struct hog *hogs, int n, unsigned int ms)
{
	struct sched_attr other = other_attr(0);
	struct timespec pause = { .tv_nsec = 2 * NSEC_PER_MSEC };
	double end = now_s() + ms / 1e3;
	int bounces = 0;

	while (now_s() < end) {
		nanosleep(&pause, NULL);
		if (!sys_sched_setattr(hogs[0].tid, &other, 0) &&
		    !sys_sched_setattr(hogs[0].tid, &hogs[0].attr, 0))
			bounces++;
	}
	printf("# %d bounces\n", bounces);
}

/*
 * A thread keeps its lag across a class change: moved out and back again
 * and again, it gets its share, no more and no less.  Entering the class
 * at SVT erased the debt it ran up before each bounce, and it took 99 %
 * against an equal peer; keeping debt but not its place behind the peer
 * left it 25 %.  Margins: 6 points over the ideal half, 5 under it.
 */
TEST_F(share, bounced_thread_keeps_its_debt)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(1024, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(1024, 0), .cpu = test_cpu() },
	};
	double s[RUNS];
	int run;

	for (run = 0; run < RUNS; run++) {
		ASSERT_EQ(0, run_hogs_during(hogs, 2, INTERVAL_MS, bounce_first));
		s[run] = hog_share(hogs, 2, 0);
		printf("# run %d: bounced thread %.3f s CPU, peer %.3f s, share %.3f\n",
		       run, hogs[0].cpu_s, hogs[1].cpu_s, s[run]);
	}
	TH_LOG("bounced thread: median share %.3f (ideal 0.500)",
	       median(s, RUNS));
	EXPECT_LE(median(s, RUNS), 0.56);
	EXPECT_GE(median(s, RUNS), 0.5 - MARGIN);
}

static unsigned long long read_ull(const char *path, unsigned long long def)
{
	unsigned long long v;
	FILE *f = fopen(path, "r");

	if (!f)
		return def;
	if (fscanf(f, "%llu", &v) != 1)
		v = def;
	fclose(f);
	return v;
}

/*
 * BVT hogs saturate every CPU, and a SCHED_OTHER hog shares CPU 0 with one
 * of them: the fair server must still give it its bandwidth, and no more
 * than that by much.  Both are checked against the nominal interval as
 * lower bounds, which a TCG stall (see above) can only help.
 */
TEST_F(share, fair_tasks_not_starved)
{
	const char *dir = "/sys/kernel/debug/sched/fair_server/cpu0";
	int ncpu = get_nprocs(), i;
	struct hog *hogs = calloc(ncpu + 1, sizeof(*hogs));
	double server, other_share, bvt_share;
	char runtime[128], period[128];

	/* The fair server's bandwidth, by default 50 ms per 1 s. */
	snprintf(runtime, sizeof(runtime), "%s/runtime", dir);
	snprintf(period, sizeof(period), "%s/period", dir);
	server = (double)read_ull(runtime, 50000000) /
		 read_ull(period, 1000000000);

	for (i = 0; i < ncpu; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(0, 0), .cpu = i };
	hogs[ncpu] = (struct hog){ .attr = other_attr(0), .cpu = 0 };

	ASSERT_EQ(0, run_hogs(hogs, ncpu + 1, INTERVAL_MS));
	other_share = hogs[ncpu].cpu_s / (INTERVAL_MS / 1000.0);
	bvt_share = hogs[0].cpu_s / (INTERVAL_MS / 1000.0);
	TH_LOG("measured over %.3f s; fair server bandwidth %.1f%%",
	       hogs_wall_s, 100 * server);
	TH_LOG("SCHED_OTHER hog on CPU 0: %.3f s CPU (%.1f%%)",
	       hogs[ncpu].cpu_s, 100 * other_share);
	for (i = 0; i < ncpu; i++)
		TH_LOG("BVT hog on CPU %d: %.3f s CPU", i, hogs[i].cpu_s);
	/* Fair gets at least half the server's bandwidth... */
	EXPECT_GE(other_share, server / 2);
	/* ...and BVT all but the server's bandwidth, less 10 points. */
	EXPECT_GE(bvt_share, 1 - server - 0.10);
	free(hogs);
}

/* Is @cpu in the CPU list ("1-3,5") in file @path? */
static bool cpu_listed(const char *path, int cpu)
{
	char buf[256], *p = buf;
	int lo, hi, n;
	bool ret = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	while (sscanf(p, "%d%n", &lo, &n) == 1) {
		p += n;
		hi = lo;
		if (*p == '-' && sscanf(p + 1, "%d%n", &hi, &n) == 1)
			p += 1 + n;
		if (cpu >= lo && cpu <= hi)
			ret = true;
		if (*p != ',')
			break;
		p++;
	}
	return ret;
}

/*
 * On a nohz_full CPU (make check's 4-CPU boot makes the test CPU one) the
 * tick stops while one task runs; with two BVT threads it must go on, or
 * the allowance C is never enforced.  Two hogs: each waits at most C and
 * a tick (4 ms) for its turn, asserted below 500 ms for TCG on a busy
 * host; without the tick they took turns at the nohz_full CPU's residual
 * tick, once a second.
 */
TEST_F(share, allowance_holds_on_nohz_full)
{
	struct hog hogs[2];
	int i;

	if (!cpu_listed("/sys/devices/system/cpu/nohz_full", test_cpu()))
		SKIP(return, "CPU %d is not nohz_full", test_cpu());
	for (i = 0; i < 2; i++)
		hogs[i] = (struct hog){ .attr = bvt_attr(1024, 0),
					.cpu = test_cpu(), .gaps = true };
	ASSERT_EQ(0, run_hogs(hogs, 2, INTERVAL_MS));
	for (i = 0; i < 2; i++) {
		TH_LOG("thread %d: share %.3f, longest wait %.1f ms", i,
		       hog_share(hogs, 2, i), hogs[i].max_gap_s * 1000);
		EXPECT_GT(0.5, hogs[i].max_gap_s);
		EXPECT_GE(hog_share(hogs, 2, i), 0.5 - MARGIN);
	}
}

/*
 * A field of CPU @cpu in /sys/kernel/debug/sched/debug (".avg_bvt.util_avg");
 * -1 if it is not there.
 */
static long cpu_debug_field(int cpu, const char *field)
{
	char line[256], head[32], *p;
	bool in_cpu = false;
	long v = -1;
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");

	if (!f)
		return -1;
	snprintf(head, sizeof(head), "cpu#%d", cpu);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cpu#", 4))
			in_cpu = !strncmp(line, head, strlen(head)) &&
				 (line[strlen(head)] == '\n' ||
				  line[strlen(head)] == ',');
		if (!in_cpu)
			continue;
		p = strstr(line, field);
		if (p && p[strlen(field)] == ' ' &&
		    sscanf(strchr(p, ':') + 1, "%ld", &v) == 1)
			break;
	}
	fclose(f);
	return v;
}

static long util_seen;

static void read_util(struct hog *hogs, int n, unsigned int ms)
{
	usleep(ms * 1000);
	util_seen = cpu_debug_field(hogs[0].cpu, ".avg_bvt.util_avg");
}

/*
 * A CPU kept busy by a BVT thread shows it in its utilization, which
 * schedutil, the fair class's capacity and balancing read: avg_bvt, a
 * PELT signal as avg_rt is for SCHED_FIFO.  After 500 ms of a hog it is
 * within a few percent of 1024 (PELT's half-life is 32 ms); asserted
 * above 800.  Without it the CPU's utilization read as the fair tasks'
 * alone: none.  On a CPU that is not nohz_full: there a lone task runs
 * without the tick, and the signal, like avg_rt, is brought up to date by
 * the remote tick, once a second.
 */
TEST_F(share, busy_cpu_reports_bvt_utilization)
{
	struct hog hog = { .attr = bvt_attr(0, 0), .cpu = test_cpu() };
	long idle;

	while (hog.cpu > 0 &&
	       cpu_listed("/sys/devices/system/cpu/nohz_full", hog.cpu))
		hog.cpu--;
	idle = cpu_debug_field(hog.cpu, ".avg_bvt.util_avg");
	ASSERT_LE(0, idle) TH_LOG("no avg_bvt in /sys/kernel/debug/sched/debug");
	ASSERT_EQ(0, run_hogs_during(&hog, 1, 500, read_util));
	TH_LOG("CPU %d: avg_bvt.util_avg %ld before, %ld with a BVT hog",
	       hog.cpu, idle, util_seen);
	EXPECT_LT(800, util_seen);
}

TEST_HARNESS_MAIN
