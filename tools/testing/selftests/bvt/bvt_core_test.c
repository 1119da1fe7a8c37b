// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT under core scheduling: the SMT siblings of a core run threads
 * of one cookie at a time, and the scheduler core's prio_less() decides
 * whose.  Two spinners, each pinned to one of the two siblings of CPU 0's
 * core (never nohz_full) and each in a cookie of its own, so that only one
 * runs at a time.  Needs CONFIG_SCHED_CORE and SMT siblings: the 4-vCPU
 * boot of make check has two cores of two threads; elsewhere it skips.
 */
#include "bvt_util.h"

#include "../kselftest_harness.h"

#define RUN_MS	2000

/* The SMT sibling of @cpu, or -1 if it has none. */
static int sibling_of(int cpu)
{
	char path[96];
	int a, b, n;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
		 cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fscanf(f, "%d%*[-,]%d", &a, &b);
	fclose(f);
	if (n != 2)
		return -1;
	return a == cpu ? b : a;
}

FIXTURE(core) {
	int cpu, sibling;
	char runtime[2][32];	/* their fair servers' runtimes, to restore */
};

static void fair_server_runtime(int cpu, char *old, size_t len,
				const char *new)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/kernel/debug/sched/fair_server/cpu%d/runtime", cpu);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(old, len, f))
			*old = 0;
		fclose(f);
	}
	write_file(path, new);
}

FIXTURE_SETUP(core)
{
	unsigned long cookie;

	self->cpu = 0;
	self->sibling = sibling_of(0);
	if (self->sibling < 0)
		SKIP(return, "CPU 0 has no SMT sibling");
	if (prctl(PR_SCHED_CORE, PR_SCHED_CORE_GET, 0,
		  PR_SCHED_CORE_SCOPE_THREAD, &cookie))
		SKIP(return, "no core scheduling: %s", strerror(errno));
	/*
	 * In 6.12 the core-wide pick compares a task that a CPU's fair server
	 * picked as a fair one (p->dl_server is set only once it runs), so
	 * while that server is active its CPU's BVT thread is hidden behind
	 * it and the CPU is forced idle, for up to a second at a time.  The
	 * servers are off here: this tests BVT's own order.
	 */
	fair_server_runtime(self->cpu, self->runtime[0],
			    sizeof(self->runtime[0]), "0");
	fair_server_runtime(self->sibling, self->runtime[1],
			    sizeof(self->runtime[1]), "0");
	ASSERT_EQ(0, become_controller());
}

FIXTURE_TEARDOWN(core)
{
	char old[32];

	if (self->sibling < 0)
		return;
	if (*self->runtime[0])
		fair_server_runtime(self->cpu, old, sizeof(old),
				    self->runtime[0]);
	if (*self->runtime[1])
		fair_server_runtime(self->sibling, old, sizeof(old),
				    self->runtime[1]);
}

/*
 * Two equal BVT spinners in two cookies on sibling CPUs: the core runs one
 * at a time (they get less than 1.3 CPUs together; without cookies, 2), and
 * takes turns: neither gets less than a quarter of the time.  Comparing
 * them by the vruntime of fair entities that are queued nowhere, or from
 * SVTs that follow the thread alone on each CPU, one of them starves.
 */
TEST_F(core, bvt_threads_of_two_cookies_take_turns)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(0, 0), .cpu = self->cpu, .cookie = true },
		{ .attr = bvt_attr(0, 0), .cpu = self->sibling,
		  .cookie = true },
	};

	ASSERT_EQ(0, run_hogs(hogs, 2, RUN_MS));
	TH_LOG("CPU %d: %.2f s, CPU %d: %.2f s of %.2f s", self->cpu,
	       hogs[0].cpu_s, self->sibling, hogs[1].cpu_s, hogs_wall_s);
	EXPECT_GT(1.3 * hogs_wall_s, hogs[0].cpu_s + hogs[1].cpu_s);
	EXPECT_LT(0.25 * hogs_wall_s, hogs[0].cpu_s);
	EXPECT_LT(0.25 * hogs_wall_s, hogs[1].cpu_s);
}

/*
 * A BVT spinner and a SCHED_OTHER one in two cookies on sibling CPUs: the
 * class above fair keeps the core (allow 80 %); with the fair servers off
 * (see the fixture), the fair thread gets next to nothing.
 */
TEST_F(core, bvt_thread_keeps_the_core_from_a_fair_one)
{
	struct hog hogs[2] = {
		{ .attr = bvt_attr(0, 0), .cpu = self->cpu, .cookie = true },
		{ .attr = other_attr(0), .cpu = self->sibling, .cookie = true },
	};

	ASSERT_EQ(0, run_hogs(hogs, 2, RUN_MS));
	TH_LOG("BVT: %.2f s, SCHED_OTHER: %.2f s of %.2f s", hogs[0].cpu_s,
	       hogs[1].cpu_s, hogs_wall_s);
	EXPECT_LT(0.8 * hogs_wall_s, hogs[0].cpu_s);
	EXPECT_GT(1.3 * hogs_wall_s, hogs[0].cpu_s + hogs[1].cpu_s);
}

TEST_HARNESS_MAIN
