// SPDX-License-Identifier: GPL-2.0
/*
 * A stress run of SCHED_BVT, for BVT_STRESS_SECONDS (default 20): workers,
 * two per CPU, make random sched_setattr(2) calls (every policy the class
 * meets, every attr size, weights, flags, W, L and U inside and outside
 * their ranges) and sched_getattr(2) calls on themselves and each other,
 * change affinity and nice, yield, spin, take PI mutexes that a SCHED_FIFO
 * thread also takes, get SA_BVT_WARP signals, fault pages in, wait on
 * global memory barriers, make random coop_poll(2) calls (joining and
 * leaving their CPU's cooperation domain, bad requests and pointers) and
 * fork children that set their own policy and exit; meanwhile spinners,
 * one for every two CPUs, take turns of up to 2 s as the strongest BVT
 * threads there are (a warp of 10 s with no limit, or the
 * largest weight) so that the BVT threads beside them starve, one thread
 * flips the class's sysctls, one takes CPUs offline and online, an
 * unprivileged process tries to enter the class, a SCHED_OTHER canary
 * records its longest wait for the CPU, and a tracer counts migrations the
 * class makes and how many of them were undone within 50 ms.  Checked:
 *  - a getattr right after a successful set of the same thread (both under
 *    a lock only the setters take) returns what was set: 0 mismatches;
 *  - errors are the documented ones (EINVAL, EPERM, EBUSY, E2BIG, ESRCH);
 *  - the unprivileged process never enters SCHED_BVT;
 *  - the canary waits less than CANARY_MAX_S: the fair server runs the
 *    fair class of a CPU for 50 ms a second, which the canary shares with
 *    the fair threads there (workers between two policies, children, the
 *    unprivileged process, kworkers), so it may miss one such window, and
 *    CPUs come and go; two periods is the bound it is held to;
 *  - a global memory barrier (a grace period: RCU boosting must end the
 *    starvation of a reader that a strong thread preempted) takes less than
 *    BARRIER_MAX_S.  MEMBARRIER_CMD_GLOBAL refuses to run where a CPU is
 *    nohz_full: there the dmesg check (RCU stalls, hung tasks) and the
 *    time a CPU takes to go offline are what show a stuck grace period.
 * The boot that runs it fails on any splat in dmesg (RCU stalls, hung
 * tasks).  "make check" runs a short pass, "make stress [SECONDS=n]" a long
 * one.
 */
#include "bvt_util.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <signal.h>
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
#define CANARY_MAX_S	2.0
#define BARRIER_MAX_S	3.0
#define REVERSAL_S	0.05

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
static atomic_long strong_turns, coop_calls, coop_taken;
static bool have_coop;	/* coop_poll(2) exists: SCHED_BVT is built */
static atomic_ulong faulted;	/* what fault_pages() read: keeps the reads */
static char first_mismatch[256];
static double canary_gap, membarrier_max, offline_max;
static atomic_long barriers;

/* Where the canary's longest wait was, and the hotplug writes around it. */
static double gap_start, t_start;
static int gap_cpu[2];
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
	int err;

	if (!have_coop)
		return;
	memset(buf, 0, sizeof(struct sched_bvt_coop));
	atomic_fetch_add(&coop_calls, 1);
	if (!pick(seed, 8)) {
		if (bvt_coop_poll(NULL, NULL, 0))
			atomic_fetch_add(&odd_errors, 1);
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
	if (!bvt_coop_poll(pick(seed, 16) ? in : (void *)8,
			   outp[pick(seed, 4)], flags)) {
		atomic_fetch_add(&coop_taken, 1);
		return;
	}
	err = errno;
	if (err != EINVAL && err != E2BIG && err != EFAULT && err != EINTR)
		atomic_fetch_add(&odd_errors, 1);
}

/* A global memory barrier waits for every CPU: its latency is recorded. */
static void global_barrier(void)
{
	double t = now_s();

	if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	atomic_fetch_add(&barriers, 1);
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

	/*
	 * Not the controller's SCHED_FIFO: each starts fair, under its lock,
	 * or a worker that set this one's policy as its tid appeared would
	 * read back SCHED_OTHER.
	 */
	pthread_mutex_lock(&self->lock);
	self->tid = gettid();
	sys_sched_setattr(0, &other, 0);
	pthread_mutex_unlock(&self->lock);
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
		case 14:
			random_coop_poll(&seed);
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
		if (t - last > 0.001)
			cpu = sched_getcpu();
		last = t;
	}
	return NULL;
}

/* The hotplug writes that overlap the canary's longest wait. */
static void report_canary_gap(struct __test_metadata *_metadata)
{
	int i, n = atomic_load(&nr_hotplug_log);
	double end = gap_start + canary_gap;

	TH_LOG("SCHED_OTHER canary's longest wait: %.3f s, from %.3f s, CPU %d -> %d",
	       canary_gap, gap_start - t_start, gap_cpu[0], gap_cpu[1]);
	for (i = 0; i < n && i < MAX_HOTPLUG_LOG; i++)
		if (hotplug_log[i].end > gap_start - 0.5 &&
		    hotplug_log[i].start < end + 0.5)
			TH_LOG("  CPU %d %s from %.3f s to %.3f s",
			       hotplug_log[i].cpu,
			       hotplug_log[i].online ? "online" : "offline",
			       hotplug_log[i].start - t_start,
			       hotplug_log[i].end - t_start);
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
	pthread_t rt, sysctl, hotplug, canary, tracer, strong[MAX_STRONG];
	struct sched_attr other = other_attr(0);
	double seconds = stress_seconds(), t0;
	pthread_mutexattr_t ma;
	struct sigaction sa = { .sa_handler = on_signal,
				.sa_flags = SA_BVT_WARP | SA_RESTART };
	int report[2], i, r, cpu, nr_strong;
	long v[2];
	pid_t unpriv;

	nr_cpus = get_nprocs_conf();
	/* Leaving when not a member succeeds wherever the call exists. */
	have_coop = !bvt_coop_poll(NULL, NULL, 0);
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
	TH_LOG("unprivileged: %ld tries to enter, %ld entered",
	       atomic_load(&unpriv_calls), atomic_load(&unpriv_entered));
	TH_LOG("getattr mismatches %ld%s%s, unexpected errors %ld",
	       atomic_load(&mismatches), *first_mismatch ? ": " : "",
	       first_mismatch, atomic_load(&odd_errors));
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
	EXPECT_GT(CANARY_MAX_S, canary_gap);
	EXPECT_GT(BARRIER_MAX_S, membarrier_max);
}

TEST_HARNESS_MAIN
