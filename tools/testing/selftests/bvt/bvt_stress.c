// SPDX-License-Identifier: GPL-2.0
/*
 * A stress run of SCHED_BVT, for BVT_STRESS_SECONDS (default 20): workers,
 * two per CPU, make random sched_setattr(2) calls (every policy the class
 * meets, every attr size, weights, flags, W, L and U inside and outside
 * their ranges) and sched_getattr(2) calls on themselves and each other,
 * change affinity and nice, yield, spin, take PI mutexes that a SCHED_FIFO
 * thread also takes, get SA_BVT_WARP signals, fault pages in, wait on
 * global memory barriers and fork children that set their own policy and
 * exit; meanwhile one thread flips the class's
 * sysctls, one takes CPUs offline and online, an unprivileged process
 * tries to enter the class, and a SCHED_OTHER canary records its longest
 * wait for the CPU.  Checked:
 *  - a getattr right after a successful set of the same thread (both under
 *    a lock only the setters take) returns what was set: 0 mismatches;
 *  - errors are the documented ones (EINVAL, EPERM, EBUSY, E2BIG, ESRCH);
 *  - the unprivileged process never enters SCHED_BVT;
 *  - the canary waits less than CANARY_MAX_S: the fair server runs it for
 *    50 ms a second, and CPUs come and go.
 * The boot that runs it fails on any splat in dmesg.  Not a kselftest that
 * make check runs: "make stress [SECONDS=n]" does.
 */
#include "bvt_util.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define MAX_WORKERS	16
#define NR_PI		3
#define CANARY_MAX_S	3.0

struct worker {
	pthread_t thread;
	pid_t tid;
	pthread_mutex_t lock;	/* held around a set and its check */
	unsigned int seed;
};

static struct worker workers[MAX_WORKERS];
static int nr_workers, nr_cpus;
static pthread_mutex_t pi[NR_PI];
static atomic_bool stop;
static atomic_long calls, mismatches, odd_errors, forks, signals;
static atomic_long hotplugs, sysctl_flips, unpriv_calls, unpriv_entered;
static char first_mismatch[256];
static double canary_gap, membarrier_max;

static long pick(unsigned int *seed, long n)
{
	return rand_r(seed) % n;
}

static void spin_us(long us)
{
	double end = now_s() + us / 1e6;

	while (now_s() < end)
		;
}

static void note_error(int err)
{
	if (err != EINVAL && err != EPERM && err != EBUSY && err != E2BIG &&
	    err != ESRCH)
		atomic_fetch_add(&odd_errors, 1);
}

/* A random attr, often out of range. */
static struct sched_attr random_attr(unsigned int *seed)
{
	static const int policies[] = {
		SCHED_BVT, SCHED_BVT, SCHED_BVT, SCHED_BVT, SCHED_OTHER,
		SCHED_BATCH, SCHED_IDLE,
	};
	static const unsigned int sizes[] = {
		SCHED_ATTR_SIZE_VER0, SCHED_ATTR_SIZE_VER1,
		SCHED_ATTR_SIZE_VER2, SCHED_ATTR_SIZE_VER2,
	};
	static const unsigned int weights[] = {
		0, 1, 64, 1024, 3072, SCHED_BVT_WEIGHT_MAX,
		SCHED_BVT_WEIGHT_MAX + 1,
	};
	static const long long warps[] = {
		0, 1000000, 20000000, SCHED_BVT_WARP_MAX,
		SCHED_BVT_WARP_MAX + 1, -1,
	};
	static const unsigned long long times[] = {
		0, 0, 50000, 5000000, SCHED_BVT_TIME_MAX,
		SCHED_BVT_TIME_MAX + 1, 1,
	};
	struct sched_attr attr = {
		.size = sizes[pick(seed, 4)],
		.sched_policy = policies[pick(seed, 7)],
		.sched_nice = pick(seed, 40) - 20,
	};

	if (!pick(seed, 8))
		attr.sched_flags = SCHED_FLAG_RESET_ON_FORK;
	if (attr.sched_policy != SCHED_BVT)
		return attr;
	attr.sched_bvt_weight = weights[pick(seed, 7)];
	if (pick(seed, 2))
		attr.sched_bvt_flags |= SCHED_BVT_FLAG_WARP;
	if (!pick(seed, 8))
		attr.sched_bvt_flags |= SCHED_BVT_FLAG_RESERVED;
	if (!pick(seed, 16))
		attr.sched_bvt_flags |= 0x80;
	attr.sched_bvt_warp = warps[pick(seed, 6)];
	attr.sched_bvt_warp_limit = times[pick(seed, 7)];
	attr.sched_bvt_unwarp = times[pick(seed, 7)];
	return attr;
}

/* Set @w's policy at random and check it reads back. */
static void set_and_check(struct worker *w, unsigned int *seed)
{
	struct sched_attr attr = random_attr(seed), got;

	pthread_mutex_lock(&w->lock);
	if (sys_sched_setattr(w->tid, &attr, 0)) {
		note_error(errno);
		goto out;
	}
	memset(&got, 0, sizeof(got));
	if (sys_sched_getattr(w->tid, &got, sizeof(got), 0)) {
		note_error(errno);
		goto out;
	}
	if (got.sched_policy == attr.sched_policy &&
	    (attr.sched_policy != SCHED_BVT ||
	     attr.size < SCHED_ATTR_SIZE_VER2 ||
	     (got.sched_bvt_weight == attr.sched_bvt_weight &&
	      got.sched_bvt_flags == attr.sched_bvt_flags &&
	      got.sched_bvt_warp == attr.sched_bvt_warp &&
	      got.sched_bvt_warp_limit == attr.sched_bvt_warp_limit &&
	      got.sched_bvt_unwarp == attr.sched_bvt_unwarp)))
		goto out;
	if (atomic_fetch_add(&mismatches, 1) == 0)
		snprintf(first_mismatch, sizeof(first_mismatch),
			 "set policy %u w %u f %#x W %lld: got policy %u w %u f %#x W %lld",
			 attr.sched_policy, attr.sched_bvt_weight,
			 attr.sched_bvt_flags, (long long)attr.sched_bvt_warp,
			 got.sched_policy, got.sched_bvt_weight,
			 got.sched_bvt_flags, (long long)got.sched_bvt_warp);
out:
	pthread_mutex_unlock(&w->lock);
}

static void get_random_size(struct worker *w, unsigned int *seed)
{
	static const unsigned int sizes[] = {
		0, SCHED_ATTR_SIZE_VER0 - 1, SCHED_ATTR_SIZE_VER0,
		SCHED_ATTR_SIZE_VER1, SCHED_ATTR_SIZE_VER2, 4096,
	};
	char buf[4096] = { 0 };

	if (sys_sched_getattr(w->tid, (struct sched_attr *)buf,
			      sizes[pick(seed, 6)], 0))
		note_error(errno);
}

static void random_affinity(struct worker *w, unsigned int *seed)
{
	cpu_set_t set;
	int cpu;

	CPU_ZERO(&set);
	for (cpu = 0; cpu < nr_cpus; cpu++)
		if (pick(seed, 2))
			CPU_SET(cpu, &set);
	CPU_SET(pick(seed, nr_cpus), &set);
	if (sched_setaffinity(w->tid, sizeof(set), &set))
		note_error(errno);
}

static void pi_section(unsigned int *seed)
{
	pthread_mutex_t *m = &pi[pick(seed, NR_PI)];

	pthread_mutex_lock(m);
	spin_us(pick(seed, 200));
	pthread_mutex_unlock(m);
}

/* A child sets its own policy at random and exits. */
static void fork_child(unsigned int *seed)
{
	struct sched_attr attr = random_attr(seed);
	pid_t pid = fork();

	if (pid == 0) {
		syscall(SYS_sched_setattr, 0, &attr, 0);
		_exit(0);
	}
	if (pid > 0) {
		waitpid(pid, NULL, 0);
		atomic_fetch_add(&forks, 1);
	}
}

/* Fault pages in and give them back: mmap_lock, RCU, the page allocator. */
static void fault_pages(unsigned int *seed)
{
	size_t len = (1 + pick(seed, 64)) * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	memset(p, 1, len);
	munmap(p, len);
}

/* A global memory barrier waits for every CPU: its latency is recorded. */
static void global_barrier(void)
{
	double t = now_s();

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	t = now_s() - t;
	if (t > membarrier_max)
		membarrier_max = t;
}

static void on_signal(int sig)
{
	atomic_fetch_add(&signals, 1);
}

static void *worker_main(void *arg)
{
	struct sched_attr other = other_attr(0);
	struct worker *self = arg, *w;
	unsigned int seed = self->seed;

	self->tid = gettid();
	/* Not the controller's SCHED_FIFO: each starts fair. */
	sys_sched_setattr(0, &other, 0);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		w = pick(&seed, 2) ? self : &workers[pick(&seed, nr_workers)];
		switch (pick(&seed, 16)) {
		case 0 ... 4:
			set_and_check(w, &seed);
			break;
		case 5:
			get_random_size(w, &seed);
			break;
		case 6:
			random_affinity(w, &seed);
			break;
		case 7:
			if (setpriority(PRIO_PROCESS, w->tid, pick(&seed, 40) - 20))
				note_error(errno);
			break;
		case 8:
			sched_yield();
			break;
		case 9:
			pi_section(&seed);
			break;
		case 10:
			syscall(SYS_tgkill, getpid(), w->tid, SIGUSR1);
			break;
		case 11:
			if (!pick(&seed, 8))
				fork_child(&seed);
			break;
		case 12:
			fault_pages(&seed);
			break;
		case 13:
			if (!pick(&seed, 16))
				global_barrier();
			break;
		default:
			spin_us(pick(&seed, 2000));
			break;
		}
		atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
	}
	return NULL;
}

/* SCHED_FIFO, now and then: takes the PI mutexes the workers take. */
static void *rt_main(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	unsigned int seed = 1;

	sched_setscheduler(0, SCHED_FIFO, &sp);
	while (!atomic_load(&stop)) {
		pi_section(&seed);
		usleep(5000);
	}
	return NULL;
}

/* Flip the class's sysctls within their ranges; restored at the end. */
static const struct {
	const char *name;
	unsigned long long min, max;
} knobs[] = {
	{ "kernel/sched_bvt_allowance_ns", 100000, 20000000 },
	{ "kernel/sched_bvt_mcu_ns", 0, 5000000 },
	{ "kernel/sched_bvt_migration_penalty_ns", 0, 10000000 },
	{ "kernel/sched_bvt_be_weight", 1, SCHED_BVT_WEIGHT_MAX },
	{ "kernel/sched_bvt_be_warp_ns", 0, 1000000000 },
	{ "kernel/sched_bvt_be_threshold_ns", 0, 1000000000 },
	{ "kernel/sched_bvt_be_direct", 0, 1 },
	{ "kernel/sched_bvt_re_share_pct", 0, 99 },
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

static void *sysctl_main(void *arg)
{
	unsigned int seed = 2;
	int k;

	while (!atomic_load(&stop)) {
		k = pick(&seed, NR_KNOBS);
		write_sysctl(knobs[k].name, knobs[k].min +
			     (unsigned long long)rand_r(&seed) %
			     (knobs[k].max - knobs[k].min + 1));
		atomic_fetch_add(&sysctl_flips, 1);
		usleep(20000);
	}
	return NULL;
}

/* Take CPUs but the first offline and back, one at a time. */
static void *hotplug_main(void *arg)
{
	unsigned int seed = 3;
	int cpu = 1;

	while (!atomic_load(&stop) && nr_cpus > 1) {
		if (!set_online(cpu, 0)) {
			usleep(100000 + pick(&seed, 200000));
			set_online(cpu, 1);
			atomic_fetch_add(&hotplugs, 1);
		}
		usleep(100000 + pick(&seed, 200000));
		cpu = cpu % (nr_cpus - 1) + 1;
	}
	return NULL;
}

/* SCHED_OTHER: its longest wait between two turns. */
static void *canary_main(void *arg)
{
	struct sched_attr other = other_attr(0);
	double last, t;

	sys_sched_setattr(0, &other, 0);
	last = now_s();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		t = now_s();
		if (t - last > canary_gap)
			canary_gap = t - last;
		last = t;
	}
	return NULL;
}

/* An unprivileged process: entering SCHED_BVT must fail with EPERM. */
static pid_t start_unprivileged(int report)
{
	struct rlimit none = { 0, 0 };
	struct sched_attr attr, other = other_attr(0);
	unsigned int seed = 4;
	long n = 0, entered = 0;
	pid_t pid = fork();

	if (pid)
		return pid;
	sys_sched_setattr(0, &other, 0);
	if (setrlimit(RLIMIT_RTPRIO, &none) || setgid(65534) || setuid(65534))
		_exit(2);
	while (getppid() != 1 && !atomic_load(&stop)) {
		attr = random_attr(&seed);
		attr.sched_policy = SCHED_BVT;
		attr.sched_bvt_flags &= ~SCHED_BVT_FLAG_RESERVED;
		n++;
		if (!sys_sched_setattr(0, &attr, 0)) {
			entered++;
			sys_sched_setattr(0, &other, 0);
		}
		if (!(n % 64)) {
			long v[2] = { n, entered };

			if (write(report, v, sizeof(v)) != sizeof(v))
				break;
			n = 0;
			entered = 0;
		}
		usleep(500);
	}
	_exit(0);
}

static double stress_seconds(void)
{
	const char *s = getenv("BVT_STRESS_SECONDS");

	return s ? atof(s) : 20;
}

FIXTURE(stress) {
};

FIXTURE_SETUP(stress)
{
}

FIXTURE_TEARDOWN(stress)
{
}

/* The harness's 30 s would end it: the guest's timeout bounds it instead. */
TEST_F_TIMEOUT(stress, run, 86400)
{
	unsigned long long saved[NR_KNOBS];
	pthread_t rt, sysctl, hotplug, canary;
	struct sched_attr other = other_attr(0);
	double seconds = stress_seconds(), t0;
	pthread_mutexattr_t ma;
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_BVT_WARP | SA_RESTART };
	int report[2], i, cpu;
	long v[2];
	pid_t unpriv;

	nr_cpus = get_nprocs_conf();
	nr_workers = 2 * nr_cpus > MAX_WORKERS ? MAX_WORKERS : 2 * nr_cpus;
	for (i = 0; i < (int)NR_KNOBS; i++)
		saved[i] = read_sysctl(knobs[i].name);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	for (i = 0; i < NR_PI; i++)
		pthread_mutex_init(&pi[i], &ma);
	ASSERT_EQ(0, pipe(report));
	fcntl(report[0], F_SETFL, O_NONBLOCK);
	unpriv = start_unprivileged(report[1]);
	ASSERT_LT(0, unpriv);

	ASSERT_EQ(0, become_controller());
	pthread_create(&canary, NULL, canary_main, NULL);
	for (i = 0; i < nr_workers; i++) {
		pthread_mutex_init(&workers[i].lock, NULL);
		workers[i].seed = i + 1;
		pthread_create(&workers[i].thread, NULL, worker_main,
			       &workers[i]);
	}
	pthread_create(&rt, NULL, rt_main, NULL);
	pthread_create(&sysctl, NULL, sysctl_main, NULL);
	pthread_create(&hotplug, NULL, hotplug_main, NULL);

	t0 = now_s();
	while (now_s() - t0 < seconds) {
		usleep(100000);
		while (read(report[0], v, sizeof(v)) == sizeof(v)) {
			unpriv_calls += v[0];
			unpriv_entered += v[1];
		}
	}
	atomic_store(&stop, true);

	/*
	 * Starved workers must run to see the stop: make them all fair, not
	 * between another's set and its check.
	 */
	for (i = 0; i < nr_workers; i++) {
		pthread_mutex_lock(&workers[i].lock);
		sys_sched_setattr(workers[i].tid, &other, 0);
		pthread_mutex_unlock(&workers[i].lock);
	}
	for (i = 0; i < nr_workers; i++)
		pthread_join(workers[i].thread, NULL);
	pthread_join(rt, NULL);
	pthread_join(sysctl, NULL);
	pthread_join(hotplug, NULL);
	pthread_join(canary, NULL);
	kill(unpriv, SIGKILL);
	waitpid(unpriv, NULL, 0);
	while (read(report[0], v, sizeof(v)) == sizeof(v)) {
		unpriv_calls += v[0];
		unpriv_entered += v[1];
	}
	for (i = 0; i < (int)NR_KNOBS; i++)
		write_sysctl(knobs[i].name, saved[i]);
	for (cpu = 1; cpu < nr_cpus; cpu++)
		set_online(cpu, 1);

	TH_LOG("%.0f s, %d workers on %d CPUs: %ld calls (%.0f/s), %ld forks, %ld signals",
	       seconds, nr_workers, nr_cpus, atomic_load(&calls),
	       atomic_load(&calls) / seconds, atomic_load(&forks),
	       atomic_load(&signals));
	TH_LOG("%ld sysctl flips, %ld CPU offline/online cycles",
	       atomic_load(&sysctl_flips), atomic_load(&hotplugs));
	TH_LOG("unprivileged: %ld tries to enter, %ld entered",
	       atomic_load(&unpriv_calls), atomic_load(&unpriv_entered));
	TH_LOG("getattr mismatches %ld%s%s, unexpected errors %ld",
	       atomic_load(&mismatches), *first_mismatch ? ": " : "",
	       first_mismatch, atomic_load(&odd_errors));
	TH_LOG("SCHED_OTHER canary's longest wait: %.3f s", canary_gap);
	TH_LOG("longest membarrier(MEMBARRIER_CMD_GLOBAL): %.3f s",
	       membarrier_max);
	EXPECT_EQ(0, atomic_load(&mismatches));
	EXPECT_EQ(0, atomic_load(&odd_errors));
	EXPECT_LT(0, atomic_load(&unpriv_calls));
	EXPECT_EQ(0, atomic_load(&unpriv_entered));
	EXPECT_GT(CANARY_MAX_S, canary_gap);
}

TEST_HARNESS_MAIN
