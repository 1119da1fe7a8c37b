// SPDX-License-Identifier: GPL-2.0
/*
 * A stress run of SCHED_BVT, for BVT_STRESS_SECONDS (default 20): workers,
 * two per CPU, make random sched_setattr(2) calls (every policy the class
 * meets, every attr size, weights, flags, W, L and U inside and outside
 * their ranges) and sched_getattr(2) calls on themselves and each other,
 * change affinity and nice, yield, spin, take PI mutexes that a SCHED_FIFO
 * thread also takes, get SA_BVT_WARP signals, fault pages in, wait on
 * global memory barriers, make random coop_poll(2) calls (joining and
 * leaving their CPU's cooperation domain, bad requests and pointers), make
 * random bvt_ctl(2) calls (every operation, on themselves and each other,
 * with sizes, pointers, pids, flags and values at and beyond their bounds;
 * about half well formed, so that small reservations, time constraints and
 * QAS sets are made, used, and released, ended, or left to exit, a change
 * of policy and hotplug) and fork children that set their own policy and
 * exit, or that reserve, begin a constraint or make a QAS set and then
 * exit, exec or are killed holding it, and set policies on their own
 * zombies (so does the process with RLIMIT_RTPRIO 1, below), while PI
 * boosts bring SCHED_OTHER owners into the class with the best-effort
 * level in PBS mode now and then; meanwhile spinners, one for every
 * two CPUs, take turns of up to 2 s as the strongest BVT threads there are
 * (a warp of 10 s with no limit, or the largest weight) so that the BVT
 * threads beside them starve, one thread flips the class's sysctls, one
 * takes CPUs offline and online, an unprivileged process tries to enter
 * the class and to reserve, a second one with an RLIMIT_RTPRIO of 1 enters
 * it and begins and ends time constraints from several threads, a
 * SCHED_OTHER canary records its longest wait for the CPU, and a tracer
 * counts migrations the class makes and how many of them were undone
 * within 50 ms.  Checked:
 *  - a getattr right after a successful set of the same thread (both under
 *    a lock only the setters take) returns what was set: 0 mismatches;
 *  - errors are the documented ones (EINVAL, EPERM, EBUSY, E2BIG, ESRCH);
 *  - bvt_ctl(2) and coop_poll(2) fail only with the errors documented for
 *    the operation (op_errors[]), and what they return is in range: a
 *    reservation granted no longer a period and no smaller a share than
 *    asked, no constraint accepted whose estimate exceeds its window, no
 *    privileged operation done for an unprivileged caller;
 *  - the unprivileged process never enters SCHED_BVT, and the one with
 *    RLIMIT_RTPRIO does, within the weight of nice 0 and without warp;
 *  - nothing leaks: once every thread and child is gone and every CPU is
 *    back, sched_bvt_rsv_admitted, sched_bvt_re_admitted and
 *    sched_bvt_pbs_sessions are what they were at the start, and each CPU
 *    accepts a full set of 16 constraints, one of them for most of its free
 *    time;
 *  - the canary waits less than CANARY_MAX_S: the fair server runs the
 *    fair class of a CPU for 50 ms a second, which the canary shares with
 *    the fair threads there (workers between two policies, children, the
 *    unprivileged process, kworkers), so it may miss one such window, and
 *    CPUs come and go; three periods is the bound it is held to.  A wait
 *    that overlaps a CPU going offline is held to CANARY_OFFLINE_MAX_S:
 *    on 2 vCPUs every thread of the machine then runs on the CPU left,
 *    with the kworkers that take the other down, for as long as the
 *    write takes, while a fair server that stopped would hold the canary
 *    for the rest of the run;
 *  - a global memory barrier (a grace period: RCU boosting must end the
 *    starvation of a reader that a strong thread preempted) takes less than
 *    BARRIER_MAX_S, as seen by a worker that may be fair and wait for the
 *    fair server to see it end; one that overlaps a CPU going offline is
 *    held to BARRIER_OFFLINE_MAX_S, for the canary's reason.
 *    MEMBARRIER_CMD_GLOBAL refuses to run where a CPU is
 *    nohz_full: there the dmesg check (RCU stalls, hung tasks) and the
 *    time a CPU takes to go offline are what show a stuck grace period.
 * The boot that runs it fails on any splat in dmesg (RCU stalls, hung
 * tasks).  "make check" runs a short pass, "make stress [SECONDS=n]" a long
 * one.
 */
#include "bvt_util.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/membarrier.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"

#define MAX_WORKERS	16
#define MAX_STRONG	4
#define NR_PI		3
#define CANARY_MAX_S	3.0
#define CANARY_OFFLINE_MAX_S	10.0
#define MAX_GAPS	64
#define BARRIER_MAX_S	3.0
#define BARRIER_OFFLINE_MAX_S	CANARY_OFFLINE_MAX_S
#define REVERSAL_S	0.05
#define PBS_SESSIONS	"kernel/sched_bvt_pbs_sessions"

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
static atomic_long strong_turns, coop_calls, coop_taken, zombies_set;
static bool have_coop;	/* coop_poll(2) exists: SCHED_BVT is built */
static atomic_ulong faulted;	/* what fault_pages() read: keeps the reads */
static char first_mismatch[256];
static double canary_gap, membarrier_max, offline_max;
static atomic_long barriers;

/* Where the canary's longest wait was, and the hotplug writes around it. */
static double gap_start, t_start;
static int gap_cpu[2];
/* The canary's waits of more than a second: start and length. */
/* Waits of over a second: when each began, and how long it took. */
struct slow_log {
	double wait[MAX_GAPS][2];
	atomic_int nr;
};

static struct slow_log canary_slow, barrier_slow;
#define MAX_HOTPLUG_LOG	8192
static struct hotplug_op {
	double start, end;
	int cpu, online;
} hotplug_log[MAX_HOTPLUG_LOG];
static atomic_int nr_hotplug_log;

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

/*
 * A child that exits at once, and a random policy set on it as a zombie:
 * its exit has freed what it had of the class, and nothing it gets now
 * may stay (a PBS session allocated for it was never freed).  Returns
 * whether the call succeeded.
 */
static bool zombie_child(unsigned int *seed)
{
	struct sched_attr attr = random_attr(seed);
	siginfo_t info;
	bool ok = false;
	pid_t pid;

	if (pick(seed, 2))
		attr = bvt_attr(0, 0);
	pid = fork();
	if (!pid)
		_exit(0);
	if (pid < 0)
		return false;
	if (!waitid(P_PID, pid, &info, WEXITED | WNOWAIT))
		ok = !syscall(SYS_sched_setattr, pid, &attr, 0);
	waitpid(pid, NULL, 0);
	atomic_fetch_add(&zombies_set, ok);
	return ok;
}

/*
 * Fault pages in and give them back: mmap_lock, the page allocator, and
 * RCU read-side sections (mapping the page cache of our own binary).
 */
static void fault_pages(unsigned int *seed)
{
	size_t len = (1 + pick(seed, 64)) * 4096;
	unsigned long sum = 0;
	struct stat st;
	int fd = -1;
	size_t i;
	char *p;

	/* Not past the end of the file: that would be SIGBUS. */
	if (pick(seed, 2)) {
		fd = open("/proc/self/exe", O_RDONLY);
		if (fd >= 0 && !fstat(fd, &st) && st.st_size < (off_t)len)
			len = st.st_size & ~4095L;
		if (!len) {
			close(fd);
			return;
		}
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		 (fd < 0 ? MAP_ANONYMOUS : 0), fd, 0);
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED)
		return;
	for (i = 0; i < len; i += 4096)
		sum += p[i];
	atomic_fetch_add_explicit(&faulted, sum, memory_order_relaxed);
	munmap(p, len);
}

/*
 * bvt_ctl(2), and coop_poll(2) beside it: every call is counted by who made
 * it, its operation and its outcome, in a mapping shared with the children
 * and the unprivileged processes, which count into the same table.
 */
enum { WHO_ROOT, WHO_UNPRIV, WHO_RTPRIO, NR_WHO };

static const char * const who_names[NR_WHO] = {
	"root", "unprivileged", "unprivileged, RLIMIT_RTPRIO 1",
};

/* Rows: 0 an unknown operation, then each BVT_CTL_*, then coop_poll(2). */
#define NR_CTL_OPS	(BVT_CTL_QAS_GET + 1)
#define ROW_COOP	NR_CTL_OPS
#define NR_ROWS		(NR_CTL_OPS + 1)

static const char * const row_names[NR_ROWS] = {
	"unknown op", "RESERVE", "RELEASE", "GET_RSV", "TC_BEGIN", "TC_END",
	"QAS_PERIOD", "QAS_RESERVE", "QAS_BEGIN", "QAS_NEXT", "QAS_END",
	"QAS_GET", "coop_poll",
};

/* The errors the documentation lists for bvt_ctl(2) and coop_poll(2). */
enum {
	O_OK, O_EINVAL, O_EPERM, O_ESRCH, O_EBUSY, O_ENOSPC, O_EEXIST,
	O_EAGAIN, O_ENOENT, O_E2BIG, O_EFAULT, O_EINTR, O_EOPNOTSUPP, O_OTHER,
	NR_OUTCOMES
};

static const int outcome_errno[NR_OUTCOMES] = {
	[O_EINVAL] = EINVAL, [O_EPERM] = EPERM, [O_ESRCH] = ESRCH,
	[O_EBUSY] = EBUSY, [O_ENOSPC] = ENOSPC, [O_EEXIST] = EEXIST,
	[O_EAGAIN] = EAGAIN, [O_ENOENT] = ENOENT, [O_E2BIG] = E2BIG,
	[O_EFAULT] = EFAULT, [O_EINTR] = EINTR, [O_EOPNOTSUPP] = EOPNOTSUPP,
};

static const char * const outcome_names[NR_OUTCOMES] = {
	"ok", "EINVAL", "EPERM", "ESRCH", "EBUSY", "ENOSPC", "EEXIST",
	"EAGAIN", "ENOENT", "E2BIG", "EFAULT", "EINTR", "EOPNOTSUPP", "other",
};

#define M(o)		(1u << (o))
/*
 * What any operation may fail with, in whatever order the kernel checks:
 * a bad op, pid, flags, size or value (EINVAL), a struct larger than a
 * page or with a non-zero tail (E2BIG), a bad pointer (EFAULT), no such
 * thread (ESRCH).  ENOMEM is never expected.
 */
#define ANY_OP		(M(O_EINVAL) | M(O_E2BIG) | M(O_EFAULT) | M(O_ESRCH))

/* And each operation's own, from its table in the documentation. */
static const unsigned int op_errors[NR_ROWS] = {
	[0]			= ANY_OP,
	[BVT_CTL_RESERVE]	= ANY_OP | M(O_EPERM) | M(O_EBUSY) |
				  M(O_ENOSPC) | M(O_EEXIST) | M(O_EAGAIN),
	/* EBUSY: a constraint counts on it, or it is a QAS mandatory part. */
	[BVT_CTL_RELEASE]	= ANY_OP | M(O_EPERM) | M(O_ENOENT) |
				  M(O_EBUSY),
	[BVT_CTL_GET_RSV]	= ANY_OP | M(O_ENOENT),
	/* Refusal is a return of 0, not an error. */
	[BVT_CTL_TC_BEGIN]	= ANY_OP | M(O_EBUSY),
	[BVT_CTL_TC_END]	= ANY_OP | M(O_ENOENT),
	[BVT_CTL_QAS_PERIOD]	= ANY_OP | M(O_EPERM) | M(O_EEXIST),
	[BVT_CTL_QAS_RESERVE]	= ANY_OP | M(O_EPERM) | M(O_EBUSY) |
				  M(O_ENOSPC) | M(O_EEXIST) | M(O_EAGAIN) |
				  M(O_ENOENT),
	/* EINTR: a signal without SA_RESTART ends its sleep. */
	[BVT_CTL_QAS_BEGIN]	= ANY_OP | M(O_ENOENT) | M(O_EINTR),
	[BVT_CTL_QAS_NEXT]	= ANY_OP | M(O_ENOENT),
	[BVT_CTL_QAS_END]	= ANY_OP | M(O_EPERM) | M(O_ENOENT),
	[BVT_CTL_QAS_GET]	= ANY_OP | M(O_ENOENT),
	[ROW_COOP]		= M(O_EINVAL) | M(O_E2BIG) | M(O_EFAULT) |
				  M(O_EINTR),
};

#define NR_LOG		8

struct ctl_stats {
	atomic_long n[NR_WHO][NR_ROWS][NR_OUTCOMES];
	atomic_long tc_accepted[NR_WHO], tc_refused[NR_WHO];
	/* Errors not documented for the operation; results out of range. */
	atomic_long odd, bad;
	atomic_int nr_odd_log, nr_bad_log;
	char odd_log[NR_LOG][128], bad_log[NR_LOG][160];
	/* Children by what they held when they exited, exec'd, were killed. */
	atomic_long held_exit, held_exec, held_killed, held_nothing;
	atomic_long exec_failed;
	atomic_long qas_runs;
	/* The unprivileged process with RLIMIT_RTPRIO entering the class. */
	atomic_long rt_tries, rt_entered, rt_refused;
	atomic_int rt_setup_err;	/* of its rlimits and uid, if any */
};

static struct ctl_stats *cs;
static int ctl_who;		/* this process's WHO_* */
static bool have_ctl;		/* bvt_ctl(2) exists */
/* its reservations and constraints, and its QAS sets, are built in */
static bool have_rsv, have_qas;

/* Is @row an operation of a mechanism that is not built in? */
static bool row_absent(int row)
{
	if (row >= BVT_CTL_RESERVE && row <= BVT_CTL_TC_END)
		return !have_rsv;
	if (row >= BVT_CTL_QAS_PERIOD && row <= BVT_CTL_QAS_GET)
		return !have_qas;
	return false;
}

static pid_t dead_pid;		/* reaped at the start */
static pid_t rt_unpriv;		/* the unprivileged process with RTPRIO */
static char *straddle;		/* a struct's size readable, the rest not */

#define US		1000ULL
#define MS		NSEC_PER_MSEC
#define SEC		(1000 * MS)

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * SEC + ts.tv_nsec;
}

/* Uniform in [lo, hi], for spans below RAND_MAX. */
static unsigned long long between(unsigned int *seed, unsigned long long lo,
				  unsigned long long hi)
{
	return lo + (unsigned long long)rand_r(seed) % (hi - lo + 1);
}

static bool is_self(pid_t pid)
{
	return !pid || pid == gettid();
}

/*
 * Only what is safe in a child of a threaded process: no strerror(),
 * which may take a lock another thread held at the fork.
 */
static void note_bad(const char *fmt, ...)
{
	int i = atomic_fetch_add(&cs->nr_bad_log, 1);
	va_list ap;

	atomic_fetch_add(&cs->bad, 1);
	if (i >= NR_LOG)
		return;
	va_start(ap, fmt);
	vsnprintf(cs->bad_log[i], sizeof(cs->bad_log[i]), fmt, ap);
	va_end(ap);
}

static int outcome(int err)
{
	int o;

	if (!err)
		return O_OK;
	for (o = O_EINVAL; o < O_OTHER; o++)
		if (outcome_errno[o] == err)
			return o;
	return O_OTHER;
}

/*
 * Count a call of @row that failed with @err (0: it did not); an error not
 * listed for the operation, or any error of a call that must not fail, is
 * odd, and the first few are kept to be shown.
 */
static void note_ctl(int row, unsigned int op, pid_t pid, unsigned int flags,
		     int err, bool must_work)
{
	int o = outcome(err), i;

	atomic_fetch_add_explicit(&cs->n[ctl_who][row][o], 1,
				  memory_order_relaxed);
	if (o == O_OK || ((op_errors[row] & M(o)) && !must_work))
		return;
	/* EOPNOTSUPP: exactly the operations of what is not built in. */
	if (o == O_EOPNOTSUPP && row_absent(row))
		return;
	atomic_fetch_add(&cs->odd, 1);
	i = atomic_fetch_add(&cs->nr_odd_log, 1);
	if (i < NR_LOG)
		snprintf(cs->odd_log[i], sizeof(cs->odd_log[i]),
			 "%s: %s (op %u) pid %d flags %#x: errno %d (%s)",
			 who_names[ctl_who], row_names[row], op, pid, flags,
			 err, outcome_names[o]);
}

/*
 * bvt_ctl(), counted; what no unprivileged caller may get done is a wrong
 * result: a reservation or QAS set, a release or end for another thread,
 * or a constraint for a thread outside the class.
 */
static long ctl(unsigned int op, pid_t pid, void *arg, unsigned int flags)
{
	int row = op < NR_CTL_OPS ? op : 0, err;
	long ret;

	ret = bvt_ctl(op, pid, arg, flags);
	err = ret < 0 ? errno : 0;
	note_ctl(row, op, pid, flags, err, false);
	if (op == BVT_CTL_TC_BEGIN && ret == 1)
		atomic_fetch_add(&cs->tc_accepted[ctl_who], 1);
	else if (op == BVT_CTL_TC_BEGIN && !ret)
		atomic_fetch_add(&cs->tc_refused[ctl_who], 1);
	else if (op == BVT_CTL_TC_BEGIN && ret > 1)
		note_bad("TC_BEGIN returned %ld", ret);
	if (ret >= 0 && ctl_who != WHO_ROOT) {
		if (op == BVT_CTL_RESERVE || op == BVT_CTL_QAS_PERIOD ||
		    op == BVT_CTL_QAS_RESERVE ||
		    ((op == BVT_CTL_RELEASE || op == BVT_CTL_QAS_END) &&
		     !is_self(pid)))
			note_bad("%s: %s for pid %d worked without CAP_SYS_NICE",
				 who_names[ctl_who], row_names[row], pid);
		else if (ctl_who == WHO_UNPRIV && op == BVT_CTL_TC_BEGIN)
			note_bad("%s: TC_BEGIN worked outside SCHED_BVT",
				 who_names[ctl_who]);
	}
	errno = err;
	return ret;
}

/* coop_poll(), counted; leaving (all NULL) works member or not. */
static int coop(const struct sched_bvt_coop *in, struct sched_bvt_coop *out,
		unsigned int flags)
{
	int ret = bvt_coop_poll(in, out, flags), err = ret ? errno : 0;

	note_ctl(ROW_COOP, 0, 0, flags, err, !in && !out && !flags);
	if (!ret && in && ctl_who == WHO_UNPRIV)
		note_bad("%s: coop_poll joined outside SCHED_BVT",
			 who_names[ctl_who]);
	errno = err;
	return ret;
}

/* A small reservation: 0.1 to 2 ms of every 10 to 100 ms. */
static struct sched_bvt_rsv small_rsv(unsigned int *seed)
{
	struct sched_bvt_rsv rsv = {
		.size = sizeof(rsv),
		.amount = between(seed, 100 * US, 2 * MS),
		.period = between(seed, 10, 100) * MS,
	};

	return rsv;
}

/* A granted reservation: never a longer period nor a smaller share. */
static void check_rsv(const struct sched_bvt_rsv *asked,
		      const struct sched_bvt_rsv *got, const char *what)
{
	/* Both below 2^32 (SCHED_BVT_RSV_PERIOD_MAX): no overflow. */
	if (got->size != sizeof(*got) || got->cpu < 0 ||
	    got->cpu >= nr_cpus || got->period < SCHED_BVT_RSV_PERIOD_MIN ||
	    got->period > asked->period || !got->amount ||
	    got->amount > got->period ||
	    got->amount * asked->period < asked->amount * got->period)
		note_bad("%s %llu/%llu ns: size %u, CPU %d, %llu/%llu ns",
			 what, (unsigned long long)asked->amount,
			 (unsigned long long)asked->period, got->size, got->cpu,
			 (unsigned long long)got->amount,
			 (unsigned long long)got->period);
}

/* GET_RSV of @pid: a reservation in range, on a CPU there is. */
static void get_rsv(pid_t pid)
{
	struct sched_bvt_rsv rsv = { .size = sizeof(rsv) };

	if (!ctl(BVT_CTL_GET_RSV, pid, &rsv, 0) &&
	    (rsv.size != sizeof(rsv) || rsv.cpu < 0 || rsv.cpu >= nr_cpus ||
	     rsv.period < SCHED_BVT_RSV_PERIOD_MIN ||
	     rsv.period > SCHED_BVT_RSV_PERIOD_MAX || !rsv.amount ||
	     rsv.amount > rsv.period))
		note_bad("GET_RSV: size %u, CPU %d, %llu/%llu ns", rsv.size,
			 rsv.cpu, (unsigned long long)rsv.amount,
			 (unsigned long long)rsv.period);
}

static void reserve_small(pid_t pid, unsigned int *seed)
{
	struct sched_bvt_rsv rsv = small_rsv(seed), asked = rsv;

	if (ctl(BVT_CTL_RESERVE, pid, &rsv, 0))
		return;
	check_rsv(&asked, &rsv, "RESERVE");
	/* Released later, or by exit, a policy change, hotplug; or now. */
	if (pick(seed, 2))
		return;
	/* (Another worker may have replaced it meanwhile.) */
	if (pick(seed, 2))
		get_rsv(pid);
	ctl(BVT_CTL_RELEASE, pid, NULL, 0);
}

/*
 * A small constraint: 0.1 to 5 ms, at most half its window, in a window
 * of 5 to 50 ms that starts within 4 ms.
 */
static struct sched_bvt_tc small_tc(unsigned int *seed, unsigned int flags)
{
	unsigned long long window = between(seed, 5, 50) * MS;
	struct sched_bvt_tc tc = {
		.size = sizeof(tc),
		.flags = flags,
		.start = now_ns() + pick(seed, 5) * MS,
		.estimate = between(seed, 100 * US, 5 * MS),
	};

	if (tc.estimate > window / 2)
		tc.estimate = window / 2;
	tc.deadline = tc.start + window;
	return tc;
}

/*
 * A constraint's time taken is its thread's run time since it began: no
 * more than the thread has run at all (read after the call, from the same
 * clock; 1 ms for the rounding of the two).
 */
static void check_taken(const struct sched_bvt_tc *tc, const char *what)
{
	unsigned long long ran = clock_s(CLOCK_THREAD_CPUTIME_ID) * 1e9;

	if (tc->time_taken > ran + MS)
		note_bad("%s: time taken %llu ns, thread ran %llu ns", what,
			 (unsigned long long)tc->time_taken, ran);
}

/* TC_END for the caller: what it says of the constraint ended. */
static long end_tc(void)
{
	struct sched_bvt_tc tc = { .size = sizeof(tc) };
	long ret = ctl(BVT_CTL_TC_END, 0, &tc, 0);

	if (ret)
		return ret;
	if (!(tc.flags & SCHED_BVT_TC_ENDED) ||
	    tc.flags & ~(SCHED_BVT_TC_ENDED | SCHED_BVT_TC_MISSED))
		note_bad("TC_END: flags %#x", tc.flags);
	check_taken(&tc, "TC_END");
	return 0;
}

/*
 * TC_BEGIN of @tc, a struct of its own size, for the caller, and what it
 * says: no constraint is accepted whose estimate exceeds its window (an
 * overflow in the sum of demands would be one), and one accepted is on a
 * CPU there is.
 */
static long begin_tc(struct sched_bvt_tc *tc)
{
	unsigned long long start = tc->start, deadline = tc->deadline;
	unsigned long long estimate = tc->estimate;
	unsigned int flags = tc->flags;
	long ret = ctl(BVT_CTL_TC_BEGIN, 0, tc, 0);

	/* Only END_PREV ends one, and says so. */
	if (ret >= 0 && tc->flags & SCHED_BVT_TC_ENDED) {
		if (!(flags & SCHED_BVT_TC_END_PREV))
			note_bad("TC_BEGIN without END_PREV: flags %#x",
				 tc->flags);
		check_taken(tc, "TC_BEGIN with END_PREV");
	}
	if (ret == 1 && (deadline <= start || estimate > deadline - start))
		note_bad("TC_BEGIN accepted %llu ns in [%llu, %llu]", estimate,
			 start, deadline);
	else if (ret == 1 && (tc->cpu < 0 || tc->cpu >= nr_cpus))
		note_bad("TC_BEGIN accepted on CPU %d", tc->cpu);
	/* Such a one must not hold the CPU: ended at once. */
	if (ret == 1 && estimate > 5 * MS)
		end_tc();
	return ret;
}

/*
 * A small constraint for the caller, with or without END_PREV, ended soon
 * or left to END_PREV, exit, or its deadline.  (A refused one is left in
 * progress too: the next begin without END_PREV may be EBUSY.)
 */
static void tc_small(unsigned int *seed)
{
	struct sched_bvt_tc tc = small_tc(seed, pick(seed, 3) ? 0 :
					  SCHED_BVT_TC_END_PREV);
	long ret = begin_tc(&tc);

	if (ret == 1)
		spin_us(pick(seed, tc.estimate / US + 1));
	if (ret >= 0 && pick(seed, 3))
		end_tc();
	else if (ret < 0 && errno == EBUSY && pick(seed, 2))
		end_tc();
}

static long get_qas(pid_t pid, struct sched_bvt_qas *q);

/*
 * Add @part to @pid's set of period @period; a mandatory part's
 * reservation must hold its amount in every window of the period (the
 * documentation's k * a + max(0, a - (P - r))).  Checked only if the set
 * still has that period: another worker may have ended it and made one
 * of another period meanwhile, for which the part was then granted.
 */
static long reserve_part(pid_t pid, struct sched_bvt_qas_part *part,
			 unsigned long long period)
{
	unsigned long long amount = part->amount, k, r, held;
	long ret = ctl(BVT_CTL_QAS_RESERVE, pid, part, 0);
	unsigned long long ga, gp;
	struct sched_bvt_qas q;

	if (ret)
		return ret;
	if (part->index < 0 || part->index >= SCHED_BVT_QAS_PARTS_MAX)
		note_bad("QAS_RESERVE: index %d", part->index);
	if (!(part->flags & SCHED_BVT_QAS_MANDATORY) || get_qas(pid, &q) ||
	    q.period != period)
		return 0;
	ga = part->granted_amount;
	gp = part->granted_period;
	if (!gp || gp > period || ga > gp || part->cpu < 0 ||
	    part->cpu >= nr_cpus) {
		note_bad("QAS_RESERVE mandatory %llu of %llu ns: CPU %d, %llu/%llu ns",
			 amount, period, part->cpu, ga, gp);
		return 0;
	}
	k = period / gp;
	r = period % gp;
	held = k * ga + (ga + r > gp ? ga + r - gp : 0);
	if (held < amount)
		note_bad("QAS_RESERVE mandatory %llu of %llu ns: %llu/%llu ns holds %llu",
			 amount, period, ga, gp, held);
	return 0;
}

/*
 * A QAS set for @pid: a period of 10 to 50 ms, a mandatory part of up to a
 * tenth of it or none, and 0 to 3 optional parts of up to a twentieth, or
 * 17 of a hundredth (the last refused): a quarter of the period at most.
 * A signal only for the caller, SIGUSR1, whose handler every process of
 * the test has (exec drops it).
 */
static bool make_qas_set(pid_t pid, unsigned int *seed)
{
	struct sched_bvt_qas q = {
		.size = sizeof(q),
		.flags = pick(seed, 4) ? 0 : SCHED_BVT_QAS_RESTRICT,
		.period = between(seed, 10, 50) * MS,
		.signal = is_self(pid) && pick(seed, 2) ? SIGUSR1 : 0,
	};
	struct sched_bvt_qas_part part;
	bool many = !pick(seed, 8);
	int i, n;

	if (ctl(BVT_CTL_QAS_PERIOD, pid, &q, 0))
		return false;
	if (pick(seed, 2)) {
		part = (struct sched_bvt_qas_part){
			.size = sizeof(part),
			.flags = SCHED_BVT_QAS_MANDATORY,
			.amount = between(seed, 100 * US, q.period / 10),
		};
		reserve_part(pid, &part, q.period);
	}
	n = many ? SCHED_BVT_QAS_PARTS_MAX + 1 : pick(seed, 4);
	for (i = 0; i < n; i++) {
		part = (struct sched_bvt_qas_part){
			.size = sizeof(part),
			.amount = many ? q.period / 100 :
				  between(seed, 100 * US, q.period / 20),
			.priority = pick(seed, SCHED_BVT_QAS_PRIO_MAX + 1),
		};
		reserve_part(pid, &part, q.period);
	}
	/* A mandatory part after the first: EINVAL (or the set is gone). */
	if (n && !pick(seed, 4)) {
		part = (struct sched_bvt_qas_part){
			.size = sizeof(part),
			.flags = SCHED_BVT_QAS_MANDATORY,
			.amount = SCHED_BVT_RSV_AMOUNT_MIN,
		};
		reserve_part(pid, &part, q.period);
	}
	return true;
}

/* QAS_GET of @pid into @q: what it says must be in range. */
static long get_qas(pid_t pid, struct sched_bvt_qas *q)
{
	long ret;

	*q = (struct sched_bvt_qas){ .size = sizeof(*q) };
	ret = ctl(BVT_CTL_QAS_GET, pid, q, 0);
	if (!ret && (q->size != sizeof(*q) ||
		     q->nr_parts > SCHED_BVT_QAS_PARTS_MAX ||
		     q->part > q->nr_parts ||
		     q->period < SCHED_BVT_RSV_PERIOD_MIN ||
		     q->period > SCHED_BVT_RSV_PERIOD_MAX ||
		     q->flags & ~SCHED_BVT_QAS_RESTRICT))
		note_bad("QAS_GET: size %u, %u parts, part %u, period %llu, flags %#x",
			 q->size, q->nr_parts, q->part,
			 (unsigned long long)q->period, q->flags);
	return ret;
}

/*
 * Has the caller a set with parts and a period of 5 to 50 ms?  BEGIN
 * sleeps until the next period: only such a set is begun, and it is
 * looked at before each BEGIN, as another worker may have ended it and
 * made one of up to 4 s meanwhile.
 */
static bool short_qas_set(struct sched_bvt_qas *q)
{
	return !get_qas(0, q) && q->nr_parts && q->period >= 5 * MS &&
	       q->period <= 50 * MS;
}

/* The caller's set through a few periods: BEGIN, a part's work, NEXT. */
static void run_qas_set(unsigned int *seed)
{
	int i, n = 1 + pick(seed, 3);
	struct sched_bvt_qas q;
	long ret;

	for (i = 0; i < n && short_qas_set(&q); i++) {
		/* Interrupted by SIGUSR1 (SA_RESTART), it sleeps again. */
		ret = ctl(BVT_CTL_QAS_BEGIN, 0, NULL, 0);
		if (ret < 0)
			return;
		atomic_fetch_add(&cs->qas_runs, 1);
		spin_us(pick(seed, 1000));
		/* (Of this set, or of one made for it since the look.) */
		ret = ctl(BVT_CTL_QAS_NEXT, 0, NULL, 0);
		if (ret > SCHED_BVT_QAS_PARTS_MAX)
			note_bad("QAS_NEXT: part %ld", ret);
		if (ret >= 0 && pick(seed, 2))
			ctl(BVT_CTL_QAS_NEXT, 0, NULL, 0);
	}
	if (!pick(seed, 4))
		ctl(BVT_CTL_QAS_END, 0, NULL, 0);
}

/* Amounts and periods at and beyond their bounds, and near 2^64. */
static const unsigned long long rsv_amounts[] = {
	0, 1, SCHED_BVT_RSV_AMOUNT_MIN - 1, SCHED_BVT_RSV_AMOUNT_MIN,
	50 * US, MS, SCHED_BVT_RSV_PERIOD_MAX, SCHED_BVT_RSV_PERIOD_MAX + 1,
	1ULL << 32, 1ULL << 63, ULLONG_MAX - 9999, ULLONG_MAX,
};

static const unsigned long long rsv_periods[] = {
	0, 1, SCHED_BVT_RSV_PERIOD_MIN - 1, SCHED_BVT_RSV_PERIOD_MIN,
	10 * MS, 100 * MS, SCHED_BVT_RSV_PERIOD_MAX,
	SCHED_BVT_RSV_PERIOD_MAX + 1, 1ULL << 32, 1ULL << 63,
	ULLONG_MAX - 9999, ULLONG_MAX,
};

/*
 * Of these, the reservations that can be admitted are at most 10 % of a
 * CPU (1 of 10 ms); any larger share asked is 100 % (an amount equal to
 * its period), which the idle reservation leaves no room for.
 */
static void random_rsv(struct sched_bvt_rsv *rsv, unsigned int *seed)
{
	rsv->amount = rsv_amounts[pick(seed, ARRAY_SIZE(rsv_amounts))];
	rsv->period = rsv_periods[pick(seed, ARRAY_SIZE(rsv_periods))];
	/* Output fields set on input. */
	if (!pick(seed, 8))
		rsv->cpu = pick(seed, 2) ? 1 : -1;
	if (!pick(seed, 8))
		rsv->ran = 1 + pick(seed, 1000000);
}

/*
 * Starts in the past, now, ahead, beyond SCHED_BVT_TC_SPAN_MAX and near
 * 2^64; windows empty, short, at and beyond the longest, wrapping;
 * estimates 0, small, beyond the window, near 2^64 (2^64 - 10 ms + 1 ms
 * overflows a sum with a 10 ms demand into 1 ms).  Of these, the
 * constraints that can be accepted ask 5 ms at most: 10 s does not fit a
 * window of 10 s of which 90 % is free.
 */
static void random_tc(struct sched_bvt_tc *tc, unsigned int *seed)
{
	unsigned long long now = now_ns();
	const unsigned long long starts[] = {
		0, 1, now - 5 * SEC, now, now + 2 * MS, now + 20 * MS,
		now + SCHED_BVT_TC_SPAN_MAX - MS,
		now + SCHED_BVT_TC_SPAN_MAX + SEC, ULLONG_MAX - 1000,
		1ULL << 63,
	};
	const unsigned long long spans[] = {
		0, 1, 5 * MS, 50 * MS, SEC, SCHED_BVT_TC_SPAN_MAX,
		SCHED_BVT_TC_SPAN_MAX + 1, ULLONG_MAX - 1000,
	};
	const unsigned long long deadlines[] = {
		0, now - MS, now + 10 * MS, ULLONG_MAX,
	};
	static const unsigned int flags[] = {
		0, 0, 0, SCHED_BVT_TC_END_PREV, SCHED_BVT_TC_END_PREV,
		SCHED_BVT_TC_ENDED, SCHED_BVT_TC_MISSED, 0x80,
		SCHED_BVT_TC_END_PREV | 0x100,
	};
	unsigned long long span;

	tc->start = starts[pick(seed, ARRAY_SIZE(starts))];
	span = spans[pick(seed, ARRAY_SIZE(spans))];
	tc->deadline = pick(seed, 8) ? tc->start + span :
		       deadlines[pick(seed, ARRAY_SIZE(deadlines))];
	span = tc->deadline - tc->start;
	switch (pick(seed, 9)) {
	case 0:
		tc->estimate = 0;
		break;
	case 1:
		tc->estimate = span + 1;
		break;
	case 2:
		tc->estimate = ULLONG_MAX;
		break;
	case 3:
		tc->estimate = 0ULL - 10 * MS + MS;
		break;
	case 4:
		tc->estimate = SCHED_BVT_TC_SPAN_MAX;
		break;
	default:
		tc->estimate = between(seed, 1, 5 * MS);
		break;
	}
	tc->flags = flags[pick(seed, ARRAY_SIZE(flags))];
	if (!pick(seed, 8))
		tc->cpu = pick(seed, 2) ? 1 : -1;
	if (!pick(seed, 8))
		tc->time_taken = 1 + pick(seed, 1000000);
	if (!pick(seed, 16))
		tc->__reserved = 1;
}

/*
 * QAS periods from the same bounds, unknown flags, signals 0, SIGUSR1 (it
 * has a handler: no other valid one is given, as a notification with no
 * handler would kill the worker), kernel-only and beyond _NSIG.
 */
static void random_qas(struct sched_bvt_qas *q, unsigned int *seed)
{
	static const unsigned int flags[] = {
		0, SCHED_BVT_QAS_RESTRICT, 0x2, 0x80000000,
	};
	static const int signals[] = {
		0, 0, SIGUSR1, SIGKILL, SIGSTOP, 65, -1, INT_MAX,
	};

	q->period = rsv_periods[pick(seed, ARRAY_SIZE(rsv_periods))];
	q->flags = flags[pick(seed, ARRAY_SIZE(flags))];
	q->signal = signals[pick(seed, ARRAY_SIZE(signals))];
	if (!pick(seed, 16))
		q->__reserved = 1;
	if (!pick(seed, 8)) {
		q->nr_parts = 3;
		q->part = 1;
		q->nr_periods = 7;
	}
}

/*
 * Parts of the same amounts (but none larger than 50 us that could be
 * accepted: a set's period may be 1 ms), priorities beyond
 * SCHED_BVT_QAS_PRIO_MAX, a mandatory one with a priority, unknown flags.
 */
static void random_part(struct sched_bvt_qas_part *part, unsigned int *seed)
{
	static const unsigned int flags[] = {
		0, 0, SCHED_BVT_QAS_MANDATORY, 0x2,
		SCHED_BVT_QAS_MANDATORY | 0x80,
	};
	static const unsigned long long amounts[] = {
		0, 1, SCHED_BVT_RSV_AMOUNT_MIN - 1, SCHED_BVT_RSV_AMOUNT_MIN,
		50 * US, SCHED_BVT_RSV_PERIOD_MAX + 1, 1ULL << 63,
		ULLONG_MAX - 9999, ULLONG_MAX,
	};
	static const unsigned int priorities[] = {
		0, 1, SCHED_BVT_QAS_PRIO_MAX, SCHED_BVT_QAS_PRIO_MAX + 1,
		UINT_MAX,
	};

	part->flags = flags[pick(seed, ARRAY_SIZE(flags))];
	part->amount = amounts[pick(seed, ARRAY_SIZE(amounts))];
	part->priority = priorities[pick(seed, ARRAY_SIZE(priorities))];
	if (!pick(seed, 8)) {
		part->index = 3;
		part->cpu = 1;
		part->granted_amount = MS;
		part->granted_period = 10 * MS;
	}
	if (!pick(seed, 16))
		part->__reserved = 1;
}

/* Structs the kernel can read and not write back (in .rodata). */
static const struct sched_bvt_rsv ro_rsv = {
	.size = sizeof(ro_rsv), .amount = 100 * US, .period = 10 * MS,
};

static const struct sched_bvt_qas ro_qas = {
	.size = sizeof(ro_qas), .period = 20 * MS,
};

static const struct sched_bvt_qas_part ro_part = {
	.size = sizeof(ro_part), .amount = 100 * US, .priority = 7,
};

/*
 * A struct's size: 0, below VER0, VER0, larger with a zero tail, larger
 * with a non-zero one, a page (zero tail), beyond a page; or its own.
 */
static unsigned int random_size(unsigned int *seed, unsigned int size,
				unsigned int ver0, unsigned char *buf)
{
	switch (pick(seed, 16)) {
	case 0:
		return 0;
	case 1:
		return ver0 - 1;
	case 2:
		return ver0;
	case 3:
		return size + 8;
	case 4:
		buf[size + 7] = 1;
		return size + 8;
	case 5:
		return 4096;
	case 6:
		return 4097;
	case 7:
		return UINT_MAX;
	default:
		return size;
	}
}

/*
 * A bvt_ctl() call of any operation, unknown ones too, with its struct's
 * values, size and pointer (NULL, (void *)8, read-only, cut by an
 * unmapped page) and the pid (the caller, @other, -1, a dead one,
 * 0x7fffffff, init, the test's main thread, the unprivileged process with
 * RTPRIO) and flags at and beyond their bounds.  What it makes is small
 * (see the tables above) and is ended by later calls, exit and policy
 * changes.
 */
static void random_ctl(pid_t other, unsigned int *seed)
{
	/* Zeroed past any size tried: a larger struct with a zero tail. */
	static __thread __u64 buf64[1024];
	unsigned char *buf = (void *)buf64;
	const pid_t pids[] = {
		0, 0, 0, gettid(), other, other, -1, dead_pid, 0x7fffffff, 1,
		getpid(), rt_unpriv,
	};
	unsigned int op, size = 0, ver0 = 0, usize = 0, flags;
	struct sched_bvt_tc *tc = (void *)buf, asked_tc;
	struct sched_bvt_rsv *rsv = (void *)buf, asked_rsv;
	struct sched_bvt_qas q;
	const void *ro = NULL;
	void *arg;
	pid_t pid;
	long ret;

	op = pick(seed, 16) ? pick(seed, NR_CTL_OPS) :
	     pick(seed, 2) ? NR_CTL_OPS : UINT_MAX;
	memset(buf, 0, 4104);
	switch (op) {
	case BVT_CTL_RESERVE:
	case BVT_CTL_GET_RSV:
		random_rsv(rsv, seed);
		size = sizeof(*rsv);
		ver0 = SCHED_BVT_RSV_SIZE_VER0;
		ro = &ro_rsv;
		break;
	case BVT_CTL_TC_BEGIN:
	case BVT_CTL_TC_END:
		random_tc(tc, seed);
		size = sizeof(*tc);
		ver0 = SCHED_BVT_TC_SIZE_VER0;
		break;
	case BVT_CTL_QAS_PERIOD:
	case BVT_CTL_QAS_GET:
		random_qas((void *)buf, seed);
		size = sizeof(struct sched_bvt_qas);
		ver0 = SCHED_BVT_QAS_SIZE_VER0;
		ro = &ro_qas;
		break;
	case BVT_CTL_QAS_RESERVE:
		random_part((void *)buf, seed);
		size = sizeof(struct sched_bvt_qas_part);
		ver0 = SCHED_BVT_QAS_PART_SIZE_VER0;
		ro = &ro_part;
		break;
	}
	asked_tc = *tc;
	asked_rsv = *rsv;
	if (size) {
		usize = random_size(seed, size, ver0, buf);
		*(__u32 *)buf = usize;
		switch (pick(seed, 16)) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)8;
			break;
		case 2:
			arg = ro ? (void *)ro : buf;
			break;
		case 3:
			arg = straddle ? straddle + 4096 - 8 : (void *)buf;
			memcpy(arg, &usize, sizeof(usize));
			break;
		default:
			arg = buf;
			break;
		}
	} else {
		/* Operations without a struct, and unknown ones. */
		arg = pick(seed, 4) ? NULL : pick(seed, 2) ? (void *)buf :
		      (void *)8;
	}
	pid = pids[pick(seed, ARRAY_SIZE(pids))];
	flags = pick(seed, 16) ? 0 : pick(seed, 2) ? 1 : 0x80000000;

	/* A well-formed BEGIN sleeps a period: only for a short one. */
	if (op == BVT_CTL_QAS_BEGIN && is_self(pid) && !arg && !flags &&
	    !short_qas_set(&q))
		return;
	ret = ctl(op, pid, arg, flags);
	if (ret < 0 || arg != buf)
		return;
	if (op == BVT_CTL_RESERVE && usize >= size)
		check_rsv(&asked_rsv, rsv, "random RESERVE");
	if (op == BVT_CTL_TC_BEGIN && ret == 1 &&
	    (asked_tc.deadline <= asked_tc.start ||
	     asked_tc.estimate > asked_tc.deadline - asked_tc.start))
		note_bad("random TC_BEGIN accepted %llu ns in [%llu, %llu]",
			 asked_tc.estimate, asked_tc.start, asked_tc.deadline);
	if (op == BVT_CTL_TC_BEGIN && ret == 1 &&
	    (asked_tc.estimate > 5 * MS || pick(seed, 2)))
		end_tc();
}

/*
 * A plain SCHED_BVT thread, half the time, if the caller is not one: the
 * other half, its calls meet another policy.  Under its lock, as
 * set_and_check() sets it.
 */
static void maybe_bvt(struct worker *self, unsigned int *seed)
{
	struct sched_attr attr = bvt_attr(SCHED_BVT_WEIGHT_DEFAULT, 0);

	if ((sched_getscheduler(0) & ~SCHED_RESET_ON_FORK) == SCHED_BVT ||
	    pick(seed, 2))
		return;
	pthread_mutex_lock(&self->lock);
	if (sys_sched_setattr(0, &attr, 0))
		note_error(errno);
	pthread_mutex_unlock(&self->lock);
}

/* What a holding child holds, and what becomes of it. */
#define HELD_RSV	0x1
#define HELD_TC		0x2
#define HELD_QAS	0x4

enum { FATE_EXIT, FATE_TRUE, FATE_REEXEC, FATE_KILL, NR_FATES };

/* Set in the environment of a re-exec: the copy exits before main(). */
#define REEXEC_ENV	"BVT_STRESS_REEXEC"

static void __attribute__((constructor)) exit_if_reexecuted(void)
{
	if (getenv(REEXEC_ENV))
		_exit(0);
}

/*
 * In the child: enter the class and take a reservation, a constraint
 * (often with a window of seconds, which would stay queued on its CPU if
 * exit did not end it) and a QAS set, begun or not, as chosen.
 */
static unsigned char child_hold(unsigned int *seed)
{
	struct sched_attr attr = bvt_attr(SCHED_BVT_WEIGHT_DEFAULT, 0);
	unsigned int what = 1 + pick(seed, 7);
	struct sched_bvt_rsv rsv;
	struct sched_bvt_tc tc;
	unsigned char held = 0;

	if (sys_sched_setattr(0, &attr, 0))
		return 0;
	if (what & HELD_QAS && make_qas_set(0, seed)) {
		held |= HELD_QAS;
		/* The first BEGIN starts the periods at once. */
		if (pick(seed, 2))
			ctl(BVT_CTL_QAS_BEGIN, 0, NULL, 0);
	}
	if (what & HELD_RSV) {
		rsv = small_rsv(seed);
		if (!ctl(BVT_CTL_RESERVE, 0, &rsv, 0))
			held |= HELD_RSV;
	}
	if (what & HELD_TC) {
		tc = small_tc(seed, 0);
		if (pick(seed, 2))
			tc.deadline = tc.start + between(seed, 1000, 10000) * MS;
		if (begin_tc(&tc) == 1)
			held |= HELD_TC;
	}
	return held;
}

/*
 * A child that holds a reservation, constraint or QAS set and exits
 * without letting go, execs /bin/true or this binary (which exits at
 * once), or waits to be killed with SIGKILL.  It ends as it should: exit
 * 0, or killed by SIGKILL (a QAS notification kept past exec, which drops
 * the handler, would kill it with SIGUSR1).
 */
static void fork_holding_child(unsigned int *seed)
{
	static char *const true_argv[] = { "/bin/true", NULL };
	static char *const self_argv[] = { "bvt_stress", NULL };
	static char *const self_envp[] = { REEXEC_ENV "=1", NULL };
	static char *const no_envp[] = { NULL };
	unsigned int child_seed = rand_r(seed);
	int fate = pick(seed, NR_FATES), p[2], status, ret;
	unsigned char held = 0;
	struct pollfd pfd;
	bool ended_well;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		held = child_hold(&child_seed);
		if (write(p[1], &held, 1) != 1)
			_exit(1);
		switch (fate) {
		case FATE_EXIT:
			_exit(0);
		case FATE_TRUE:
			execve(true_argv[0], true_argv, no_envp);
			_exit(127);
		case FATE_REEXEC:
			execve("/proc/self/exe", self_argv, self_envp);
			_exit(127);
		}
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return;
	}
	/*
	 * A strong thread may keep it from getting there for 2 s; SIGUSR1
	 * (another worker's, a QAS notification) ends a poll, SA_RESTART or
	 * not.
	 */
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	do
		ret = poll(&pfd, 1, 3000);
	while (ret < 0 && errno == EINTR);
	if (ret != 1 || read(p[0], &held, 1) != 1)
		held = 0;
	if (fate == FATE_KILL) {
		usleep(pick(seed, 5000));
		kill(pid, SIGKILL);
	}
	ret = waitpid(pid, &status, 0);
	/* Open until then: a child late to write must not die of SIGPIPE. */
	close(p[0]);
	if (ret != pid)
		return;
	if (fate == FATE_KILL)
		ended_well = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
	else
		ended_well = WIFEXITED(status) && (!WEXITSTATUS(status) ||
						   WEXITSTATUS(status) == 127);
	if (!ended_well)
		note_bad("child (fate %d, held %#x) ended with status %#x",
			 fate, held, status);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		atomic_fetch_add(&cs->exec_failed, 1);
	else if (!held)
		atomic_fetch_add(&cs->held_nothing, 1);
	else if (fate == FATE_EXIT)
		atomic_fetch_add(&cs->held_exit, 1);
	else if (fate == FATE_KILL)
		atomic_fetch_add(&cs->held_killed, 1);
	else
		atomic_fetch_add(&cs->held_exec, 1);
}

/*
 * A worker's bvt_ctl() calls on itself and on @w (which may be itself):
 * about half random, half well formed.
 */
static void random_bvt_ctl(struct worker *self, struct worker *w,
			   unsigned int *seed)
{
	pid_t pid = w != self ? w->tid : pick(seed, 2) ? 0 : self->tid;

	if (!have_ctl)
		return;
	switch (pick(seed, 16)) {
	case 0 ... 6:
		random_ctl(w->tid, seed);
		break;
	case 7 ... 8:
		if (w == self)
			maybe_bvt(self, seed);
		reserve_small(pid, seed);
		break;
	case 9 ... 10:
		maybe_bvt(self, seed);
		tc_small(seed);
		break;
	case 11:
		if (w == self)
			maybe_bvt(self, seed);
		make_qas_set(pid, seed);
		break;
	case 12 ... 13:
		if (!pick(seed, 4)) {
			maybe_bvt(self, seed);
			make_qas_set(0, seed);
		}
		run_qas_set(seed);
		break;
	case 14:
		switch (pick(seed, 3)) {
		case 0:
			ctl(BVT_CTL_RELEASE, pid, NULL, 0);
			break;
		case 1:
			ctl(BVT_CTL_QAS_END, pid, NULL, 0);
			break;
		default:
			end_tc();
			break;
		}
		break;
	default:
		if (!pick(seed, 2)) {
			fork_holding_child(seed);
		} else {
			struct sched_bvt_qas q;

			get_rsv(pid);
			get_qas(pid, &q);
		}
		break;
	}
}

/*
 * An unprivileged process's calls: reservations and QAS sets for itself
 * and @other (EPERM), releases and ends (its own only), gets, constraints
 * (EINVAL outside the class), and the random ones.
 */
static void unpriv_ctl(pid_t other, unsigned int *seed)
{
	pid_t pid = pick(seed, 2) ? 0 : other;
	struct sched_bvt_rsv rsv;
	struct sched_bvt_qas q;

	switch (pick(seed, 8)) {
	case 0:
		rsv = small_rsv(seed);
		ctl(BVT_CTL_RESERVE, pid, &rsv, 0);
		break;
	case 1:
		ctl(BVT_CTL_RELEASE, pid, NULL, 0);
		break;
	case 2:
		make_qas_set(pid, seed);
		break;
	case 3:
		ctl(pick(seed, 2) ? BVT_CTL_QAS_END : BVT_CTL_QAS_NEXT, pid,
		    NULL, 0);
		if (short_qas_set(&q))
			ctl(BVT_CTL_QAS_BEGIN, 0, NULL, 0);
		break;
	case 4:
		tc_small(seed);
		break;
	case 5:
		get_rsv(pid);
		get_qas(pid, &q);
		break;
	default:
		random_ctl(other, seed);
		break;
	}
}

/*
 * coop_poll(2) with a random request, often out of range or with a bad
 * pointer, or leaving: the caller joins and leaves the domain of its CPU
 * as it changes policy, affinity and CPU.  Documented errors only.
 */
static void random_coop_poll(unsigned int *seed)
{
	static const unsigned int sizes[] = {
		0, SCHED_BVT_COOP_SIZE_VER0 - 1, SCHED_BVT_COOP_SIZE_VER0,
		sizeof(struct sched_bvt_coop), 64, 8192,
	};
	/* Zeroed past any size tried: a larger struct with a zero tail. */
	static __thread unsigned char buf[8192];
	struct sched_bvt_coop *in = (void *)buf, out = { .size = sizeof(out) };
	struct sched_bvt_coop *outp[] = { NULL, &out, &out, (void *)8 };
	unsigned long long now = now_s() * 1e9;
	const unsigned long long deadlines[] = {
		0, 1, now - 1000000, now + pick(seed, 20000000),
		now + pick(seed, 20000000), 1ULL << 63,
	};
	unsigned int flags = pick(seed, 8) ? 0 : 1;

	if (!have_coop)
		return;
	memset(buf, 0, sizeof(struct sched_bvt_coop));
	atomic_fetch_add(&coop_calls, 1);
	if (!pick(seed, 8)) {
		coop(NULL, NULL, 0);
		return;
	}
	/* Half the calls well formed, to join and take turns. */
	if (pick(seed, 2)) {
		in->size = sizeof(*in);
		in->flags = 1 + pick(seed, 3);
		if (in->flags & SCHED_BVT_COOP_DEADLINE)
			in->deadline = deadlines[2 + pick(seed, 3)];
		if (in->flags & SCHED_BVT_COOP_EVENT)
			in->priority = pick(seed, 8);
		flags = 0;
	} else {
		in->size = sizes[pick(seed, 6)];
		in->flags = pick(seed, 8);
		if (in->flags & SCHED_BVT_COOP_DEADLINE || !pick(seed, 8))
			in->deadline = deadlines[pick(seed, 6)];
		if (in->flags & SCHED_BVT_COOP_EVENT || !pick(seed, 8))
			in->priority = pick(seed,
					    SCHED_BVT_COOP_PRIO_MAX + 64);
	}
	/* Its errors are counted, and checked, with bvt_ctl()'s. */
	if (!coop(pick(seed, 16) ? in : (void *)8, outp[pick(seed, 4)], flags))
		atomic_fetch_add(&coop_taken, 1);
}

static void log_slow(struct slow_log *log, double start, double len)
{
	int i;

	if (len <= 1.0)
		return;
	i = atomic_fetch_add(&log->nr, 1);
	if (i < MAX_GAPS) {
		log->wait[i][0] = start;
		log->wait[i][1] = len;
	}
}

/* A global memory barrier waits for every CPU: its latency is recorded. */
static void global_barrier(void)
{
	double start = now_s(), t;

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	atomic_fetch_add(&barriers, 1);
	t = now_s() - start;
	log_slow(&barrier_slow, start, t);
	if (t > membarrier_max)
		membarrier_max = t;
}

static void on_signal(int sig)
{
	atomic_fetch_add(&signals, 1);
}

/*
 * One reservation, constraint and QAS set of the worker's own, made first:
 * the run then has something of each to let go of however few calls a slow
 * host lets the draws make.  The constraint is tried a few times, as a
 * full CPU refuses one.
 */
static void make_one_of_each(unsigned int *seed)
{
	struct sched_attr attr = bvt_attr(SCHED_BVT_WEIGHT_DEFAULT, 0);
	struct sched_bvt_tc tc;
	int i;

	if (!have_rsv || sys_sched_setattr(0, &attr, 0))
		return;
	reserve_small(0, seed);
	for (i = 0; i < 8; i++) {
		tc = small_tc(seed, SCHED_BVT_TC_END_PREV);
		if (begin_tc(&tc) == 1)
			break;
	}
	if (have_qas)
		make_qas_set(0, seed);
}

static void *worker_main(void *arg)
{
	struct sched_attr other = other_attr(0);
	struct worker *self = arg, *w;
	unsigned int seed = self->seed;

	/*
	 * Not the controller's SCHED_FIFO: each starts fair, under its lock,
	 * or a worker that set this one's policy as its tid appeared would
	 * read back SCHED_OTHER.
	 */
	pthread_mutex_lock(&self->lock);
	self->tid = gettid();
	make_one_of_each(&seed);
	sys_sched_setattr(0, &other, 0);
	pthread_mutex_unlock(&self->lock);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		w = pick(&seed, 2) ? self : &workers[pick(&seed, nr_workers)];
		switch (pick(&seed, 17)) {
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
			else if (!pick(&seed, 8))
				zombie_child(&seed);
			break;
		case 12:
			fault_pages(&seed);
			break;
		case 13:
			if (!pick(&seed, 16))
				global_barrier();
			break;
		case 14:
			random_coop_poll(&seed);
			break;
		case 15:
			random_bvt_ctl(self, w, &seed);
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

/*
 * The strongest BVT thread there is, in turns of 0.5 to 2 s with 0.2 s of
 * rest: a warp of SCHED_BVT_WARP_MAX with no limit (it always runs before
 * an unwarped thread) or the largest weight.  The BVT threads on its CPU
 * starve for the turn; fair ones keep the fair server's share.
 */
static void *strong_main(void *arg)
{
	struct sched_attr warped = bvt_warp_attr(SCHED_BVT_WARP_MAX, 0, 0);
	struct sched_attr heavy = bvt_attr(SCHED_BVT_WEIGHT_MAX, 0);
	struct sched_attr other = other_attr(0), attr;
	struct sched_param fifo = { .sched_priority = 1 };
	unsigned int seed = (uintptr_t)arg;

	while (!atomic_load(&stop)) {
		attr = pick(&seed, 2) ? warped : heavy;
		/* A kernel without SCHED_BVT: the same starvation from RT. */
		if (sys_sched_setattr(0, &attr, 0) &&
		    sched_setscheduler(0, SCHED_FIFO, &fifo))
			note_error(errno);
		spin_us(500000 + pick(&seed, 1500000));
		sys_sched_setattr(0, &other, 0);
		atomic_fetch_add(&strong_turns, 1);
		usleep(200000);
	}
	return NULL;
}

/*
 * Migrations the class makes (the sched_bvt_migrate event), by reason, and
 * how many of each a migration of the same thread back where it came from
 * undid within REVERSAL_S: a move that is undone at once did not pay for
 * itself.  The last move of each thread is kept in a table indexed by pid;
 * a collision forgets one, which can only hide a reversal.
 */
#define TRACING		"/sys/kernel/tracing/"
#define MIGRATE_EVENT	TRACING "events/sched_bvt/sched_bvt_migrate/enable"
#define NR_REASONS	3
#define NR_LAST		4096

static const char * const reasons[NR_REASONS] = { "wakeup", "push", "pull" };
static long migrations[NR_REASONS], reversed[NR_REASONS];
static long undone_by[NR_REASONS][NR_REASONS];	/* [first][the one back] */

struct last_move {
	int pid, src, dst, reason;
	double t;
};

static struct last_move last_move[NR_LAST];

static void count_migration(const char *line)
{
	const char *ev = strstr(line, ": sched_bvt_migrate: ");
	const char *ts, *args;
	struct last_move m, *last;
	char reason[16];
	int r;

	if (!ev || ev == line)
		return;
	for (ts = ev - 1; ts > line && ts[-1] != ' '; ts--)
		;
	args = strstr(ev, " pid=");
	if (!args || sscanf(args, " pid=%d src=%d dst=%d reason=%15s",
			    &m.pid, &m.src, &m.dst, reason) != 4)
		return;
	for (r = 0; r < NR_REASONS && strcmp(reason, reasons[r]); r++)
		;
	if (r == NR_REASONS || m.pid <= 0)
		return;
	m.reason = r;
	m.t = atof(ts);
	migrations[r]++;
	last = &last_move[m.pid % NR_LAST];
	if (last->pid == m.pid && last->src == m.dst && last->dst == m.src &&
	    m.t - last->t < REVERSAL_S) {
		reversed[last->reason]++;
		undone_by[last->reason][r]++;
	}
	*last = m;
}

static void *tracer_main(void *arg)
{
	char buf[65536], *line, *nl;
	size_t have = 0;
	ssize_t n;
	int fd;

	write_file(TRACING "buffer_size_kb", "2048");
	write_file(TRACING "trace", "");
	write_file(MIGRATE_EVENT, "1");
	fd = open(TRACING "trace_pipe", O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	while (!atomic_load(&stop)) {
		n = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (n <= 0) {
			usleep(20000);
			continue;
		}
		have += n;
		buf[have] = 0;
		for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
			*nl = 0;
			count_migration(line);
		}
		have -= line - buf;
		memmove(buf, line, have);
		if (have == sizeof(buf) - 1)
			have = 0;
	}
	write_file(MIGRATE_EVENT, "0");
	close(fd);
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
	{ "kernel/sched_bvt_pbs_switch_ns", 0, 20000000 },
};

#define NR_KNOBS	ARRAY_SIZE(knobs)

/* The PBS mode and its decimal tunables, set as text. */
static const struct {
	const char *name;
	const char *values[4];
} text_knobs[] = {
	{ "kernel/sched_bvt_be_mode", { "bvt", "pbs", "pbs", "bvt" } },
	{ "kernel/sched_bvt_pbs_alpha", { "0.01", "1", "100", "2.5" } },
	{ "kernel/sched_bvt_pbs_beta", { "+inf", "-3", "0", "+2" } },
	{ "kernel/sched_bvt_pbs_epsilon", { "0", "0.5", "10", "0" } },
	{ "kernel/sched_bvt_pbs_select", { "exact", "sampled", "sampled", "exact" } },
};

#define NR_TEXT_KNOBS	ARRAY_SIZE(text_knobs)

static char saved_text[NR_TEXT_KNOBS][32];

static void read_text_sysctl(const char *name, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

static void write_text_sysctl(const char *name, const char *val)
{
	char path[256];

	snprintf(path, sizeof(path), "/proc/sys/%s", name);
	if (val[0])
		write_file(path, val);
}

static void *sysctl_main(void *arg)
{
	unsigned int seed = 2;
	int k;

	while (!atomic_load(&stop)) {
		k = pick(&seed, NR_KNOBS + NR_TEXT_KNOBS);
		if (k >= (int)NR_KNOBS) {
			k -= NR_KNOBS;
			write_text_sysctl(text_knobs[k].name,
					  text_knobs[k].values[pick(&seed, 4)]);
		} else {
			write_sysctl(knobs[k].name, knobs[k].min +
				     (unsigned long long)rand_r(&seed) %
				     (knobs[k].max - knobs[k].min + 1));
		}
		atomic_fetch_add(&sysctl_flips, 1);
		usleep(20000);
	}
	return NULL;
}

static void log_hotplug(int cpu, int online, double start)
{
	int i = atomic_fetch_add(&nr_hotplug_log, 1);

	if (i < MAX_HOTPLUG_LOG)
		hotplug_log[i] = (struct hotplug_op){ start, now_s(), cpu,
						      online };
}

/* Take CPUs but the first offline and back, one at a time. */
static void *hotplug_main(void *arg)
{
	unsigned int seed = 3;
	int cpu = 1;

	double t;

	while (!atomic_load(&stop) && nr_cpus > 1) {
		t = now_s();
		if (!set_online(cpu, 0)) {
			log_hotplug(cpu, 0, t);
			/* Taking a CPU down waits for grace periods. */
			t = now_s() - t;
			if (t > offline_max)
				offline_max = t;
			usleep(100000 + pick(&seed, 200000));
			t = now_s();
			set_online(cpu, 1);
			log_hotplug(cpu, 1, t);
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

	int cpu = sched_getcpu();

	sys_sched_setattr(0, &other, 0);
	last = now_s();
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		t = now_s();
		if (t - last > canary_gap) {
			canary_gap = t - last;
			gap_start = last;
			gap_cpu[0] = cpu;
			gap_cpu[1] = sched_getcpu();
		}
		log_slow(&canary_slow, last, t - last);
		if (t - last > 0.001)
			cpu = sched_getcpu();
		last = t;
	}
	return NULL;
}

static int nr_hotplug_ops(void)
{
	int n = atomic_load(&nr_hotplug_log);

	return n < MAX_HOTPLUG_LOG ? n : MAX_HOTPLUG_LOG;
}

static bool hotplug_overlaps(const struct hotplug_op *op, double start,
			     double end)
{
	return op->end > start && op->start < end;
}

/* Does [@start, @end] overlap a write that took a CPU offline? */
static bool during_offline(double start, double end)
{
	int i;

	for (i = 0; i < nr_hotplug_ops(); i++)
		if (!hotplug_log[i].online &&
		    hotplug_overlaps(&hotplug_log[i], start, end))
			return true;
	return false;
}

/*
 * The longest wait of @log that overlaps no CPU going offline, and the
 * longest that does, into @other and @offline.
 */
static void longest_waits(struct slow_log *log, double *other,
			  double *offline)
{
	int i, n = atomic_load(&log->nr);
	double *max;

	*other = *offline = 0;
	for (i = 0; i < n && i < MAX_GAPS; i++) {
		max = during_offline(log->wait[i][0],
				     log->wait[i][0] + log->wait[i][1]) ?
		      offline : other;
		if (log->wait[i][1] > *max)
			*max = log->wait[i][1];
	}
}

/* The hotplug writes that overlap the canary's longest wait. */
static void report_canary_gap(struct __test_metadata *_metadata)
{
	double end = gap_start + canary_gap;
	int i;

	TH_LOG("SCHED_OTHER canary's longest wait: %.3f s, from %.3f s, CPU %d -> %d",
	       canary_gap, gap_start - t_start, gap_cpu[0], gap_cpu[1]);
	for (i = 0; i < nr_hotplug_ops(); i++)
		if (hotplug_overlaps(&hotplug_log[i], gap_start - 0.5,
				     end + 0.5))
			TH_LOG("  CPU %d %s from %.3f s to %.3f s",
			       hotplug_log[i].cpu,
			       hotplug_log[i].online ? "online" : "offline",
			       hotplug_log[i].start - t_start,
			       hotplug_log[i].end - t_start);
}

/*
 * An unprivileged process: entering SCHED_BVT must fail with EPERM, and so
 * must reserving and making QAS sets, for itself or the test's main thread
 * (its parent); outside the class no constraint is begun and no
 * cooperation domain joined.
 */
static pid_t start_unprivileged(int report)
{
	struct rlimit none = { 0, 0 };
	struct sched_attr attr, other = other_attr(0);
	struct sched_bvt_coop in = {
		.size = sizeof(in), .flags = SCHED_BVT_COOP_EVENT,
	};
	unsigned int seed = 4;
	long n = 0, entered = 0;
	pid_t pid = fork();

	if (pid)
		return pid;
	ctl_who = WHO_UNPRIV;
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
		if (have_ctl)
			unpriv_ctl(getppid(), &seed);
		if (have_coop && !pick(&seed, 8))
			coop(&in, NULL, 0);
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

/*
 * A thread of the unprivileged process with RLIMIT_RTPRIO 1: it may enter
 * the class with at most the weight of its nice value (0: 1024), no warp,
 * in the best-effort level; it may not raise that.  Back and forth, now
 * and then.
 */
static void rt_unpriv_enter(unsigned int *seed)
{
	static const struct {
		unsigned int weight, flags;
		long long warp;
		bool allowed;
	} tries[] = {
		{ 0, 0, 0, true },
		{ SCHED_BVT_WEIGHT_DEFAULT, 0, 0, true },
		{ 100, 0, 0, true },
		{ 2 * SCHED_BVT_WEIGHT_DEFAULT, 0, 0, false },
		{ SCHED_BVT_WEIGHT_DEFAULT, SCHED_BVT_FLAG_WARP, MS, false },
		{ SCHED_BVT_WEIGHT_DEFAULT, SCHED_BVT_FLAG_RESERVED, 0, false },
	};
	struct sched_attr attr, other = other_attr(0);
	int i = pick(seed, ARRAY_SIZE(tries));

	if (!pick(seed, 8)) {
		sys_sched_setattr(0, &other, 0);
		return;
	}
	attr = bvt_attr(tries[i].weight, 0);
	attr.sched_bvt_flags = tries[i].flags;
	attr.sched_bvt_warp = tries[i].warp;
	atomic_fetch_add(&cs->rt_tries, 1);
	if (!sys_sched_setattr(0, &attr, 0)) {
		if (tries[i].allowed)
			atomic_fetch_add(&cs->rt_entered, 1);
		else
			note_bad("%s: weight %u, flags %#x, W %lld allowed",
				 who_names[ctl_who], tries[i].weight,
				 tries[i].flags, tries[i].warp);
	} else if (tries[i].allowed) {
		atomic_fetch_add(&cs->rt_refused, 1);
		note_bad("%s: weight %u refused: errno %d", who_names[ctl_who],
			 tries[i].weight, errno);
	} else if (errno != EPERM) {
		note_bad("%s: weight %u, flags %#x, W %lld: errno %d, not EPERM",
			 who_names[ctl_who], tries[i].weight, tries[i].flags,
			 tries[i].warp, errno);
	}
}

/*
 * Its threads begin and end small constraints, several at once (they
 * may be refused, by per-user bounds too), and try what needs
 * CAP_SYS_NICE; a root worker may give its first thread a reservation or
 * a QAS set, which it may release and end itself.
 */
#define NR_RT_UNPRIV	4

static void *rt_unpriv_main(void *arg)
{
	unsigned int seed = 5 + (uintptr_t)arg;
	bool in_class = false;

	for (;;) {
		if (getppid() == 1)
			_exit(0);
		if (!in_class || !pick(&seed, 16)) {
			rt_unpriv_enter(&seed);
			in_class = (sched_getscheduler(0) &
				    ~SCHED_RESET_ON_FORK) == SCHED_BVT;
		}
		if (!pick(&seed, 16))
			zombie_child(&seed);
		else if (pick(&seed, 2))
			tc_small(&seed);
		else
			unpriv_ctl(getppid(), &seed);
		usleep(200 + pick(&seed, 800));
	}
	return NULL;
}

static pid_t start_unprivileged_rt(void)
{
	struct rlimit one = { 1, 1 }, nice = { 0, 0 };
	struct sched_attr other = other_attr(0);
	pthread_t thread;
	pid_t pid = fork();
	uintptr_t i;

	if (pid)
		return pid;
	ctl_who = WHO_RTPRIO;
	sys_sched_setattr(0, &other, 0);
	/* RLIMIT_NICE 0: the weight it may take is that of its nice, 0. */
	if (setrlimit(RLIMIT_RTPRIO, &one) || setrlimit(RLIMIT_NICE, &nice) ||
	    setgid(65534) || setuid(65534)) {
		atomic_store(&cs->rt_setup_err, errno);
		_exit(2);
	}
	for (i = 1; i < NR_RT_UNPRIV; i++)
		pthread_create(&thread, NULL, rt_unpriv_main, (void *)i);
	rt_unpriv_main(NULL);
	_exit(0);
}

/*
 * The end: what exit and a change of policy release, they free through a
 * workqueue, which a RESERVE flushes before it places anything.  One, for
 * a thread of its own, released at once (not counted).
 */
static void *flush_main(void *arg)
{
	struct sched_attr attr = bvt_attr(SCHED_BVT_WEIGHT_DEFAULT, 0);
	struct sched_bvt_rsv rsv = {
		.size = sizeof(rsv),
		.amount = SCHED_BVT_RSV_AMOUNT_MIN,
		.period = 100 * MS,
	};

	if (!sys_sched_setattr(0, &attr, 0) &&
	    !bvt_ctl(BVT_CTL_RESERVE, 0, &rsv, 0))
		bvt_ctl(BVT_CTL_RELEASE, 0, NULL, 0);
	return NULL;
}

/* Sysctl @name back at @want within 2 s: its value then. */
static unsigned long long settle(const char *name, unsigned long long want)
{
	double end = now_s() + 2;
	unsigned long long v;

	while ((v = read_sysctl(name)) != want && now_s() < end)
		usleep(10000);
	return v;
}

/*
 * A constraint left behind stays queued on its CPU until its deadline
 * (up to 20 s after it was begun), taking free time and one of the 16
 * places a CPU has for constraints ("Time constraints" in the
 * documentation).  So, on each CPU, 16 SCHED_BVT threads pinned there
 * begin one each in the same second, which starts 200 ms ahead (so that
 * the begins, unless the guest stalls that long, see the whole second):
 * one for most of its free time (the idle plan's 90 %: 800 ms), the
 * others for 100 us.  Every one must be accepted.
 */
#define TC_PLACES	16

struct probe {
	pthread_t thread;
	int cpu, err;		/* of setting it up, of TC_BEGIN */
	unsigned long long estimate;
	long ret;
};

static struct {
	pthread_barrier_t ready, go, begun;
	unsigned long long start, deadline;
} probes;

static void *probe_main(void *arg)
{
	struct sched_attr attr = bvt_attr(SCHED_BVT_WEIGHT_DEFAULT, 0);
	struct sched_bvt_tc tc = { .size = sizeof(tc) };
	struct probe *pr = arg;

	pr->ret = -2;
	pr->err = pin_self(pr->cpu) || sys_sched_setattr(0, &attr, 0) ?
		  errno : 0;
	pthread_barrier_wait(&probes.ready);
	pthread_barrier_wait(&probes.go);
	if (!pr->err) {
		tc.start = probes.start;
		tc.deadline = probes.deadline;
		tc.estimate = pr->estimate;
		pr->ret = bvt_ctl(BVT_CTL_TC_BEGIN, 0, &tc, 0);
		if (pr->ret < 0)
			pr->err = errno;
	}
	pthread_barrier_wait(&probes.begun);
	if (pr->ret >= 0) {
		tc = (struct sched_bvt_tc){ .size = sizeof(tc) };
		bvt_ctl(BVT_CTL_TC_END, 0, &tc, 0);
	}
	return NULL;
}

/*
 * Does @cpu accept TC_PLACES constraints, the first of @big ns?  1 if so,
 * 0 if one was refused or failed (in @why), -1 if it could not be told: a
 * thread could not be set up (pinned there, made SCHED_BVT), or the
 * begins ran past the start.
 */
static int cpu_takes_constraints(int cpu, unsigned long long big, char *why,
				 size_t len)
{
	struct probe pr[TC_PLACES];
	int i, ret = 1;
	bool late;

	pthread_barrier_init(&probes.ready, NULL, TC_PLACES + 1);
	pthread_barrier_init(&probes.go, NULL, TC_PLACES + 1);
	pthread_barrier_init(&probes.begun, NULL, TC_PLACES + 1);
	for (i = 0; i < TC_PLACES; i++) {
		pr[i] = (struct probe){ .cpu = cpu,
					.estimate = i ? 100 * US : big };
		pthread_create(&pr[i].thread, NULL, probe_main, &pr[i]);
	}
	pthread_barrier_wait(&probes.ready);
	probes.start = now_ns() + 200 * MS;
	probes.deadline = probes.start + SEC;
	pthread_barrier_wait(&probes.go);
	pthread_barrier_wait(&probes.begun);
	late = now_ns() >= probes.start;
	for (i = 0; i < TC_PLACES; i++)
		pthread_join(pr[i].thread, NULL);
	pthread_barrier_destroy(&probes.ready);
	pthread_barrier_destroy(&probes.go);
	pthread_barrier_destroy(&probes.begun);
	for (i = 0; i < TC_PLACES && ret > 0; i++) {
		if (pr[i].ret == -2) {
			snprintf(why, len, "thread %d not set up: errno %d", i,
				 pr[i].err);
			ret = -1;
		} else if (pr[i].ret < 0) {
			snprintf(why, len, "constraint %d of %d: errno %d",
				 i + 1, TC_PLACES, pr[i].err);
			ret = 0;
		} else if (pr[i].ret != 1) {
			snprintf(why, len, "constraint %d of %d (%llu ns of 1 s) %s",
				 i + 1, TC_PLACES, pr[i].estimate,
				 pr[i].ret ? "not an answer" : "refused");
			ret = late ? -1 : 0;
		}
	}
	return ret;
}

/*
 * The CPUs where a constraint may have been left behind: one was refused,
 * or it could not be told after 5 tries.  Most of the free time only if
 * no reservation was there at the start: a plan with a long period puts
 * its idle time in one block, which a second may hold all of.
 */
static int cpus_with_constraints(struct __test_metadata *_metadata,
				 bool reserved)
{
	unsigned long long permille, idle, big;
	int cpu, tries, r, n = 0;
	char why[128];

	permille = read_sysctl("kernel/sched_bvt_rsv_idle_permille") ?: 100;
	idle = (10 * MS * permille + 999) / 1000;
	/* 8/9 of the free time of a second of the idle plan. */
	big = idle < 10 * MS ? 100 * (10 * MS - idle) * 8 / 9 : 0;
	if (reserved || big < 100 * US)
		big = 100 * US;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		for (tries = 0; tries < 5; tries++) {
			r = cpu_takes_constraints(cpu, big, why, sizeof(why));
			if (r >= 0)
				break;
		}
		if (r > 0)
			continue;
		TH_LOG("CPU %d: %s%s", cpu, why, r ? ", 5 times" : "");
		n++;
	}
	TH_LOG("constraints at the end: %d of %d CPUs took %d at once, one of %.1f ms",
	       nr_cpus - n, nr_cpus, TC_PLACES, big / 1e6);
	return n;
}

/* The bvt_ctl() and coop_poll() figures, by caller, operation, outcome. */
static void report_ctl(struct __test_metadata *_metadata)
{
	char line[512];
	int who, row, o, len;
	long total, v;

	for (who = 0; who < NR_WHO; who++) {
		for (row = 0; row < NR_ROWS; row++) {
			total = 0;
			len = 0;
			line[0] = 0;
			for (o = 0; o < NR_OUTCOMES; o++) {
				v = atomic_load(&cs->n[who][row][o]);
				total += v;
				if (v && len < (int)sizeof(line))
					len += snprintf(line + len,
							sizeof(line) - len,
							" %s %ld",
							outcome_names[o], v);
			}
			if (total)
				TH_LOG("  %s %s: %ld:%s", who_names[who],
				       row_names[row], total, line);
		}
	}
}

static long ctl_calls(int who)
{
	long n = 0;
	int row, o;

	for (row = 0; row < NR_CTL_OPS; row++)
		for (o = 0; o < NR_OUTCOMES; o++)
			n += atomic_load(&cs->n[who][row][o]);
	return n;
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
	pthread_t rt, sysctl, hotplug, canary, tracer, strong[MAX_STRONG];
	struct sched_attr other = other_attr(0);
	double seconds = stress_seconds(), t0;
	pthread_mutexattr_t ma;
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_BVT_WARP | SA_RESTART };
	int report[2], i, r, cpu, nr_strong, tc_leaks = 0;
	unsigned long long rsv_start, rsv_end, re_start, re_end;
	unsigned long long pbs_start = 0, pbs_end = 0;
	bool have_pbs = !access("/proc/sys/" PBS_SESSIONS, R_OK);
	double wait_other, wait_offline;
	pthread_t flush;
	long v[2];
	pid_t unpriv;

	nr_cpus = get_nprocs_conf();
	/* Leaving when not a member succeeds wherever the call exists. */
	have_coop = !bvt_coop_poll(NULL, NULL, 0);
	/* Operation 0 is unknown wherever the call exists. */
	have_ctl = bvt_ctl(0, 0, NULL, 0) < 0 && errno == EINVAL;
	have_rsv = have_ctl && !access("/proc/sys/kernel/sched_bvt_rsv_admitted",
				       R_OK);
	have_qas = have_rsv && !(bvt_ctl(BVT_CTL_QAS_GET, 0, NULL, 0) < 0 &&
				 errno == EOPNOTSUPP);
	/* Counted into by the children and the unprivileged processes too. */
	cs = mmap(NULL, sizeof(*cs), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, cs);
	straddle = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (straddle == MAP_FAILED ||
	    mprotect(straddle + 4096, 4096, PROT_NONE))
		straddle = NULL;
	dead_pid = fork();
	if (!dead_pid)
		_exit(0);
	ASSERT_EQ(dead_pid, waitpid(dead_pid, NULL, 0));
	rsv_start = read_sysctl("kernel/sched_bvt_rsv_admitted");
	re_start = read_sysctl("kernel/sched_bvt_re_admitted");
	if (have_pbs)
		pbs_start = read_sysctl(PBS_SESSIONS);
	nr_workers = 2 * nr_cpus > MAX_WORKERS ? MAX_WORKERS : 2 * nr_cpus;
	nr_strong = nr_cpus / 2 > MAX_STRONG ? MAX_STRONG : nr_cpus / 2 ?: 1;
	for (i = 0; i < (int)NR_KNOBS; i++)
		saved[i] = read_sysctl(knobs[i].name);
	for (i = 0; i < (int)NR_TEXT_KNOBS; i++)
		read_text_sysctl(text_knobs[i].name, saved_text[i],
				 sizeof(saved_text[i]));
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	for (i = 0; i < NR_PI; i++)
		pthread_mutex_init(&pi[i], &ma);
	ASSERT_EQ(0, pipe(report));
	fcntl(report[0], F_SETFL, O_NONBLOCK);
	unpriv = start_unprivileged(report[1]);
	ASSERT_LT(0, unpriv);
	rt_unpriv = start_unprivileged_rt();
	ASSERT_LT(0, rt_unpriv);

	ASSERT_EQ(0, become_controller());
	t_start = now_s();
	pthread_create(&canary, NULL, canary_main, NULL);
	for (i = 0; i < nr_workers; i++) {
		pthread_mutex_init(&workers[i].lock, NULL);
		workers[i].seed = i + 1;
		pthread_create(&workers[i].thread, NULL, worker_main,
			       &workers[i]);
	}
	for (i = 0; i < nr_strong; i++)
		pthread_create(&strong[i], NULL, strong_main,
			       (void *)(uintptr_t)(100 + i));
	pthread_create(&tracer, NULL, tracer_main, NULL);
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
	for (i = 0; i < nr_strong; i++)
		pthread_join(strong[i], NULL);
	pthread_join(tracer, NULL);
	pthread_join(rt, NULL);
	pthread_join(sysctl, NULL);
	pthread_join(hotplug, NULL);
	pthread_join(canary, NULL);
	kill(unpriv, SIGKILL);
	waitpid(unpriv, NULL, 0);
	kill(rt_unpriv, SIGKILL);
	waitpid(rt_unpriv, NULL, 0);
	while (read(report[0], v, sizeof(v)) == sizeof(v)) {
		unpriv_calls += v[0];
		unpriv_entered += v[1];
	}
	for (i = 0; i < (int)NR_KNOBS; i++)
		write_sysctl(knobs[i].name, saved[i]);
	for (i = NR_TEXT_KNOBS - 1; i >= 0; i--)
		write_text_sysctl(text_knobs[i].name, saved_text[i]);
	for (cpu = 1; cpu < nr_cpus; cpu++)
		set_online(cpu, 1);

	/*
	 * Nothing is left: every thread, child and process that held a
	 * reservation, constraint or set is gone, and every CPU is back.
	 */
	if (have_rsv) {
		pthread_create(&flush, NULL, flush_main, NULL);
		pthread_join(flush, NULL);
	}
	rsv_end = settle("kernel/sched_bvt_rsv_admitted", rsv_start);
	re_end = settle("kernel/sched_bvt_re_admitted", re_start);
	if (have_pbs)
		pbs_end = settle(PBS_SESSIONS, pbs_start);
	if (have_rsv)
		tc_leaks = cpus_with_constraints(_metadata, rsv_start != 0);

	TH_LOG("%.0f s, %d workers on %d CPUs: %ld calls (%.0f/s), %ld forks, %ld signals",
	       seconds, nr_workers, nr_cpus, atomic_load(&calls),
	       atomic_load(&calls) / seconds, atomic_load(&forks),
	       atomic_load(&signals));
	TH_LOG("%ld sysctl flips, %ld CPU offline/online cycles, %ld turns of %d strong threads",
	       atomic_load(&sysctl_flips), atomic_load(&hotplugs),
	       atomic_load(&strong_turns), nr_strong);
	TH_LOG("migrations by reason, and those undone within %.0f ms by wakeup/push/pull:",
	       REVERSAL_S * 1e3);
	for (r = 0; r < NR_REASONS; r++)
		TH_LOG("  %s: %ld, undone %ld (%.1f %%): %ld/%ld/%ld",
		       reasons[r], migrations[r], reversed[r],
		       migrations[r] ? 100.0 * reversed[r] / migrations[r] : 0,
		       undone_by[r][0], undone_by[r][1], undone_by[r][2]);
	TH_LOG("coop_poll: %ld calls, %ld taken",
	       atomic_load(&coop_calls), atomic_load(&coop_taken));
	TH_LOG("bvt_ctl: %ld calls: %ld reservations made, constraints %ld accepted, %ld refused",
	       ctl_calls(WHO_ROOT),
	       atomic_load(&cs->n[WHO_ROOT][BVT_CTL_RESERVE][O_OK]),
	       atomic_load(&cs->tc_accepted[WHO_ROOT]),
	       atomic_load(&cs->tc_refused[WHO_ROOT]));
	TH_LOG("  %ld QAS sets made (%ld periods begun)",
	       atomic_load(&cs->n[WHO_ROOT][BVT_CTL_QAS_PERIOD][O_OK]),
	       atomic_load(&cs->qas_runs));
	TH_LOG("children holding something: %ld exited, %ld exec'd, %ld killed",
	       atomic_load(&cs->held_exit), atomic_load(&cs->held_exec),
	       atomic_load(&cs->held_killed));
	TH_LOG("  %ld held nothing, %ld execs failed",
	       atomic_load(&cs->held_nothing), atomic_load(&cs->exec_failed));
	TH_LOG("bvt_ctl and coop_poll calls by caller, operation and outcome:");
	report_ctl(_metadata);
	TH_LOG("unprivileged: %ld tries to enter, %ld entered, %ld bvt_ctl calls",
	       atomic_load(&unpriv_calls), atomic_load(&unpriv_entered),
	       ctl_calls(WHO_UNPRIV));
	if (atomic_load(&cs->rt_setup_err))
		TH_LOG("unprivileged with RLIMIT_RTPRIO 1: not set up, errno %d",
		       atomic_load(&cs->rt_setup_err));
	TH_LOG("unprivileged with RLIMIT_RTPRIO 1: %ld tries to enter, %ld entered, %ld refused",
	       atomic_load(&cs->rt_tries), atomic_load(&cs->rt_entered),
	       atomic_load(&cs->rt_refused));
	TH_LOG("  %ld bvt_ctl calls, %ld constraints accepted, %ld refused",
	       ctl_calls(WHO_RTPRIO),
	       atomic_load(&cs->tc_accepted[WHO_RTPRIO]),
	       atomic_load(&cs->tc_refused[WHO_RTPRIO]));
	TH_LOG("getattr mismatches %ld%s%s, unexpected errors %ld",
	       atomic_load(&mismatches), *first_mismatch ? ": " : "",
	       first_mismatch, atomic_load(&odd_errors));
	TH_LOG("bvt_ctl and coop_poll: unexpected errors %ld, wrong results %ld",
	       atomic_load(&cs->odd), atomic_load(&cs->bad));
	for (i = 0; i < NR_LOG && i < atomic_load(&cs->nr_odd_log); i++)
		TH_LOG("  %s", cs->odd_log[i]);
	for (i = 0; i < NR_LOG && i < atomic_load(&cs->nr_bad_log); i++)
		TH_LOG("  %s", cs->bad_log[i]);
	TH_LOG("sched_bvt_rsv_admitted %llu at the start, %llu at the end",
	       rsv_start, rsv_end);
	TH_LOG("sched_bvt_re_admitted %llu at the start, %llu at the end",
	       re_start, re_end);
	TH_LOG("%ld policies set on zombies", atomic_load(&zombies_set));
	TH_LOG("sched_bvt_pbs_sessions %llu at the start, %llu at the end",
	       pbs_start, pbs_end);
	report_canary_gap(_metadata);
	if (atomic_load(&barriers))
		TH_LOG("%ld membarrier(MEMBARRIER_CMD_GLOBAL), the longest %.3f s",
		       atomic_load(&barriers), membarrier_max);
	else
		TH_LOG("membarrier(MEMBARRIER_CMD_GLOBAL) unavailable (nohz_full)");
	TH_LOG("longest CPU offline: %.3f s", offline_max);
	EXPECT_EQ(0, atomic_load(&mismatches));
	EXPECT_EQ(0, atomic_load(&odd_errors));
	EXPECT_LT(0, atomic_load(&unpriv_calls));
	EXPECT_EQ(0, atomic_load(&unpriv_entered));
	longest_waits(&canary_slow, &wait_other, &wait_offline);
	TH_LOG("canary's longest wait over 1 s: %.3f s, beside a CPU going offline %.3f s",
	       wait_other, wait_offline);
	EXPECT_GT(CANARY_MAX_S, wait_other);
	EXPECT_GT(CANARY_OFFLINE_MAX_S, wait_offline);
	/* (Any wait, were there more than MAX_GAPS.) */
	EXPECT_GT(CANARY_OFFLINE_MAX_S, canary_gap);
	longest_waits(&barrier_slow, &wait_other, &wait_offline);
	TH_LOG("membarrier's longest over 1 s: %.3f s, beside a CPU going offline %.3f s",
	       wait_other, wait_offline);
	EXPECT_GT(BARRIER_MAX_S, wait_other);
	EXPECT_GT(BARRIER_OFFLINE_MAX_S, wait_offline);
	/* (Any, were there more than MAX_GAPS.) */
	EXPECT_GT(BARRIER_OFFLINE_MAX_S, membarrier_max);
	EXPECT_EQ(0, atomic_load(&cs->odd));
	EXPECT_EQ(0, atomic_load(&cs->bad));
	EXPECT_EQ(rsv_start, rsv_end);
	EXPECT_EQ(re_start, re_end);
	EXPECT_EQ(pbs_start, pbs_end);
	EXPECT_LT(0, atomic_load(&zombies_set));
	EXPECT_EQ(0, tc_leaks);
	/* The stress did make what it was to let go of. */
	if (have_rsv) {
		EXPECT_LT(0, atomic_load(&cs->n[WHO_ROOT][BVT_CTL_RESERVE][O_OK]));
		EXPECT_LT(0, atomic_load(&cs->tc_accepted[WHO_ROOT]));
	}
	if (have_qas)
		EXPECT_LT(0, atomic_load(&cs->n[WHO_ROOT][BVT_CTL_QAS_PERIOD][O_OK]));
	if (have_ctl)
		EXPECT_LT(0, ctl_calls(WHO_UNPRIV));
	/* Root without CAP_SYS_RESOURCE (a container) cannot raise it. */
	if (have_ctl && !atomic_load(&cs->rt_setup_err)) {
		EXPECT_LT(0, ctl_calls(WHO_RTPRIO));
		EXPECT_LT(0, atomic_load(&cs->rt_entered));
	}
}

TEST_HARNESS_MAIN
