// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT's two levels: a thread enters the reserved-effort (root) level
 * with SCHED_BVT_FLAG_RESERVED, which takes CAP_SYS_NICE, an explicit
 * weight and room under kernel.sched_bvt_re_share_pct (else EBUSY); every
 * other BVT thread is in the best-effort level, which competes in the root
 * as one entity of kernel.sched_bvt_be_weight.  Measured: best-effort
 * threads keep their weighted shares among themselves while a
 * reserved-effort thread takes the level's share from them.
 */
#include "bvt_util.h"

#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define RE_PCT		"kernel/sched_bvt_re_share_pct"
#define BE_WEIGHT	"kernel/sched_bvt_be_weight"
#define RE_ADMITTED	"kernel/sched_bvt_re_admitted"

static int child_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Set @attr on a new thread and report the errno (0: it worked). */
struct try_thread {
	struct sched_attr attr;
	int err;
	atomic_bool done;
	pthread_t thread;
};

static void *try_main(void *arg)
{
	struct try_thread *t = arg;

	t->err = sys_sched_setattr(0, &t->attr, 0) ? errno : 0;
	while (!atomic_load(&t->done))
		usleep(1000);
	return NULL;
}

static int try_start(struct try_thread *t, struct sched_attr attr)
{
	t->attr = attr;
	t->err = -1;
	t->done = false;
	pthread_create(&t->thread, NULL, try_main, t);
	while (t->err == -1)
		usleep(1000);
	return t->err;
}

static void try_stop(struct try_thread *t)
{
	atomic_store(&t->done, true);
	pthread_join(t->thread, NULL);
}

/*
 * A thread gives its reservation back when it is dead, as SCHED_DEADLINE
 * gives back bandwidth: a little after pthread_join() returns, which only
 * waits for it to leave its memory.  Admission after a thread ended is
 * retried for up to a second.
 */
static int try_start_after_exit(struct try_thread *t, struct sched_attr attr)
{
	int err, tries;

	for (tries = 1;; tries++) {
		err = try_start(t, attr);
		if (err != EBUSY || tries == 1000)
			return err;
		try_stop(t);
		usleep(1000);
	}
}

FIXTURE(level) {
	unsigned long long pct, be_weight;
};

FIXTURE_SETUP(level)
{
	self->pct = read_sysctl(RE_PCT);
	self->be_weight = read_sysctl(BE_WEIGHT);
	ASSERT_EQ(75, self->pct);
	ASSERT_EQ(1024, self->be_weight);
}

FIXTURE_TEARDOWN(level)
{
	write_sysctl(RE_PCT, self->pct);
	write_sysctl(BE_WEIGHT, self->be_weight);
}

TEST_F(level, reserved_round_trip)
{
	struct sched_attr attr = bvt_reserved_attr(2048), got;

	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	memset(&got, 0, sizeof(got));
	ASSERT_EQ(0, sys_sched_getattr(0, &got, sizeof(got), 0));
	EXPECT_EQ(SCHED_BVT, got.sched_policy);
	EXPECT_EQ(SCHED_BVT_FLAG_RESERVED, got.sched_bvt_flags);
	EXPECT_EQ(2048, got.sched_bvt_weight);
	/* Back to best effort, and out of the class. */
	attr = bvt_attr(2048, 0);
	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	ASSERT_EQ(0, sys_sched_getattr(0, &got, sizeof(got), 0));
	EXPECT_EQ(0, got.sched_bvt_flags);
	attr = other_attr(0);
	EXPECT_EQ(0, sys_sched_setattr(0, &attr, 0));
}

TEST_F(level, reserved_needs_a_weight)
{
	struct sched_attr attr = bvt_reserved_attr(0);

	EXPECT_EQ(-1, sys_sched_setattr(0, &attr, 0));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(level, reserved_needs_privilege)
{
	pid_t pid = fork();

	ASSERT_GE(pid, 0);
	if (!pid) {
		struct sched_attr attr = bvt_reserved_attr(100);

		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		if (sys_sched_setattr(0, &attr, 0) != -1 || errno != EPERM)
			_exit(11);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(pid));
}

/*
 * Defaults: best-effort weight 1024, reserved share up to 75 %, so the
 * reserved-effort weights may add up to 3072.
 */
TEST_F(level, admission_refuses_with_ebusy)
{
	struct try_thread a, b, c;

	ASSERT_EQ(0, try_start(&a, bvt_reserved_attr(2048)));
	EXPECT_EQ(0, try_start(&b, bvt_reserved_attr(1024)));
	/* Full: not even weight 1 fits. */
	EXPECT_EQ(EBUSY, try_start(&c, bvt_reserved_attr(1)));
	try_stop(&c);
	/* Leaving gives the weight back; so does exiting. */
	try_stop(&b);
	EXPECT_EQ(0, try_start_after_exit(&c, bvt_reserved_attr(1000)));
	try_stop(&c);
	/* A higher limit admits more. */
	ASSERT_EQ(0, write_sysctl(RE_PCT, 90));
	EXPECT_EQ(0, try_start(&c, bvt_reserved_attr(4096)));
	try_stop(&c);
	try_stop(&a);
	/* Over the limit on its own. */
	ASSERT_EQ(0, write_sysctl(RE_PCT, 50));
	EXPECT_EQ(EBUSY, try_start(&c, bvt_reserved_attr(1025)));
	try_stop(&c);
	EXPECT_EQ(0, try_start_after_exit(&c, bvt_reserved_attr(1024)));
	try_stop(&c);
}

/* The admitted weight, once it is back at @want (up to 1 s); -1 if not there. */
static long long re_admitted_settles(unsigned long long want)
{
	char path[] = "/proc/sys/" RE_ADMITTED;
	int tries;

	if (access(path, R_OK))
		return -1;
	for (tries = 0; tries < 1000 && read_sysctl(RE_ADMITTED) != want;
	     tries++)
		usleep(1000);
	return read_sysctl(RE_ADMITTED);
}

/*
 * A process that has exited but is not reaped yet may not be admitted: its
 * weight would never be given back, and a few such calls would leave the
 * level full until reboot.  Admit a live child, let it exit, try again on
 * the zombie, reap it, and check that the admitted weight comes back.
 * The second try asks for more weight than the first: asking for the same
 * is no change, and succeeds while the zombie has not yet given its first
 * weight back (its last switch may come after waitid() returns).
 */
TEST_F(level, zombie_is_not_admitted)
{
	struct sched_attr attr = bvt_reserved_attr(1024),
			  more = bvt_reserved_attr(2048);
	unsigned long long base;
	siginfo_t info;
	int i, admitted = 0, refused = 0;

	base = read_sysctl(RE_ADMITTED);
	ASSERT_EQ(base, re_admitted_settles(base));
	for (i = 0; i < 10; i++) {
		pid_t pid = fork();

		ASSERT_GE(pid, 0);
		if (!pid) {
			pause();
			_exit(0);
		}
		admitted += !sys_sched_setattr(pid, &attr, 0);
		EXPECT_EQ(base + 1024, read_sysctl(RE_ADMITTED));
		kill(pid, SIGKILL);
		/* Wait until it is a zombie, without reaping it. */
		ASSERT_EQ(0, waitid(P_PID, pid, &info, WEXITED | WNOWAIT));
		if (sys_sched_setattr(pid, &more, 0) == -1 && errno == ESRCH)
			refused++;
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
		EXPECT_EQ(base, re_admitted_settles(base));
	}
	EXPECT_EQ(10, admitted);
	EXPECT_EQ(10, refused);
	EXPECT_EQ(base, re_admitted_settles(base));
}

/* A child does not inherit the reservation: it starts in best effort. */
TEST_F(level, child_starts_in_best_effort)
{
	struct sched_attr attr = bvt_reserved_attr(3072);
	pid_t pid;

	ASSERT_EQ(0, sys_sched_setattr(0, &attr, 0));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid) {
		struct sched_attr got;

		if (sys_sched_getattr(0, &got, sizeof(got), 0))
			_exit(10);
		if (got.sched_policy != SCHED_BVT || got.sched_bvt_flags ||
		    got.sched_bvt_weight != 3072)
			_exit(11);
		_exit(0);
	}
	EXPECT_EQ(0, child_status(pid));
	/* The parent still holds all of it. */
	attr = bvt_reserved_attr(3072);
	EXPECT_EQ(0, sys_sched_setattr(0, &attr, 0));
}

/*
 * One CPU: a reserved-effort thread of weight 1024 beside three best-effort
 * threads of weights 500:1000:1500.  The root splits the CPU 1:1 between
 * the reserved thread and the best-effort level (weight 1024), and the
 * level splits its half 1:2:3.  +-5 points of the CPU, median of three
 * runs of 2 s (see median_shares()).
 */
TEST_F(level, best_effort_shares_beside_reserved)
{
	struct hog hogs[4] = {
		{ .attr = bvt_reserved_attr(1024), .cpu = test_cpu() },
		{ .attr = bvt_attr(500, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(1000, 0), .cpu = test_cpu() },
		{ .attr = bvt_attr(1500, 0), .cpu = test_cpu() },
	};
	const double want[4] = { 0.5, 1 / 12.0, 2 / 12.0, 3 / 12.0 };
	double share[4];
	int i;

	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, median_shares(hogs, 4, 3, 2000, share));
	for (i = 0; i < 4; i++) {
		TH_LOG("thread %d: median share %.3f (ideal %.3f)",
		       i, share[i], want[i]);
		EXPECT_GE(share[i], want[i] - 0.05);
		EXPECT_LE(share[i], want[i] + 0.05);
	}
}

/* A heavier best-effort level takes a bigger part: 3072 : 1024. */
TEST_F(level, best_effort_weight_is_tunable)
{
	struct hog hogs[2] = {
		{ .attr = bvt_reserved_attr(1024), .cpu = test_cpu() },
		{ .attr = bvt_attr(0, 0), .cpu = test_cpu() },
	};
	double share[2];

	ASSERT_EQ(0, write_sysctl(BE_WEIGHT, 3072));
	ASSERT_EQ(0, become_controller());
	ASSERT_EQ(0, median_shares(hogs, 2, 3, 1000, share));
	TH_LOG("reserved %.3f, best effort %.3f (ideal 0.25, 0.75)",
	       share[0], share[1]);
	EXPECT_GE(share[1], 0.70);
	EXPECT_LE(share[1], 0.80);
}

TEST_HARNESS_MAIN
