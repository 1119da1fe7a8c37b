// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT across CPUs: threads on a CPU that goes offline move to the
 * others and keep running, in their class, also after it returns.
 */
#include "bvt_util.h"

#include <fcntl.h>
#include <sys/sysinfo.h>

#include "../kselftest_harness.h"

#define NHOGS	4

static int set_online(int cpu, int online)
{
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ret = write(fd, online ? "1" : "0", 1) == 1 ? 0 : -1;
	close(fd);
	return ret;
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

TEST_HARNESS_MAIN
