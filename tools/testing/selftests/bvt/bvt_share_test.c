// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT shares the CPU by weight, measured: CPU-bound threads on one
 * CPU get CPU time in proportion to their weights, whether the weights are
 * explicit or come from nice; and SCHED_OTHER tasks are not starved when
 * BVT threads saturate every CPU (the fair server).
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

/* The CPU the one-CPU tests run on: the last, away from the shell's. */
static int test_cpu(void)
{
	return get_nprocs() - 1;
}

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

TEST_HARNESS_MAIN
