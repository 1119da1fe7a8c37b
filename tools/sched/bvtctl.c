// SPDX-License-Identifier: GPL-2.0
/*
 * bvtctl: show or set the SCHED_BVT parameters of a thread, or run a
 * command with them; chrt(1) for Borrowed Virtual Time.
 *
 *   bvtctl -p PID                         show PID's parameters, and its
 *                                         coop_poll(2) domain if it has one
 *   bvtctl [OPTION]... -p PID             set them on PID
 *   bvtctl [OPTION]... [--] COMMAND [ARG]...  run COMMAND with them
 *
 * Options (durations take a unit: ns, us, ms or s; a bare number is ns):
 *   -w, --weight N      weight, 1..88761 (0: from nice)
 *   -n, --nice N        nice value
 *   -W, --warp DUR      warp W, and enable warping
 *   -L, --limit DUR     warp time limit L (0: unlimited)
 *   -U, --unwarp DUR    unwarp time requirement U
 *       --no-warp       disable warping
 *   -r, --reserved      put it in the reserved-effort level (needs a weight)
 *       --best-effort   put it back in the best-effort level
 *   -R, --reset-on-fork children do not inherit privileged parameters
 *
 * Setting on a thread that is already SCHED_BVT changes only what is given.
 *
 *   bvtctl --level [LEVEL OPTION]...      show, or set, how the best-effort
 *                                         level orders its threads
 *       --mode bvt|pbs      by virtual time, or by PBS log-priority
 *       --alpha X           PBS alpha, 0.01..100
 *       --beta [+-]X|inf    PBS session threshold beta
 *       --switch DUR        PBS switch interval dT (gamma)
 *       --epsilon X         PBS interactivity favour, 0..10
 *       --select exact|sampled  PBS selection: every thread, or Algorithm 1
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/sched_bvt.h>

#include "bvt_syscall.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *policy_name(unsigned int policy)
{
	static const char * const names[] = {
		[SCHED_NORMAL] = "SCHED_OTHER", [SCHED_FIFO] = "SCHED_FIFO",
		[SCHED_RR] = "SCHED_RR", [SCHED_BATCH] = "SCHED_BATCH",
		[SCHED_IDLE] = "SCHED_IDLE", [SCHED_DEADLINE] = "SCHED_DEADLINE",
		[SCHED_EXT] = "SCHED_EXT", [SCHED_BVT] = "SCHED_BVT",
	};

	if (policy < ARRAY_SIZE(names) && names[policy])
		return names[policy];
	return "unknown";
}

/* "20ms" -> 20000000; false if it is not a duration. */
static bool parse_duration(const char *s, unsigned long long *ns)
{
	static const struct { const char *unit; unsigned long long mul; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	char *end;
	double v;
	unsigned int i;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			*ns = v * units[i].mul + 0.5;
			return true;
		}
	}
	return false;
}

static bool parse_int(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && end != s && !*end && *out >= min && *out <= max;
}

/* 20000000 -> "20ms", the largest unit that divides it. */
static const char *duration(unsigned long long ns, char *buf, size_t len)
{
	if (ns && ns % 1000000000 == 0)
		snprintf(buf, len, "%llus", ns / 1000000000);
	else if (ns && ns % 1000000 == 0)
		snprintf(buf, len, "%llums", ns / 1000000);
	else if (ns && ns % 1000 == 0)
		snprintf(buf, len, "%lluus", ns / 1000);
	else
		snprintf(buf, len, "%lluns", ns);
	return buf;
}

/* A field of /proc/PID/sched (CONFIG_SCHED_DEBUG), or -1. */
static long sched_field(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t len = strlen(field);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/sched", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, field, len) && line[len] == ' ' && colon &&
		    sscanf(colon + 1, "%ld", &v) == 1)
			break;
	}
	if (f)
		fclose(f);
	return v;
}

/* The CPU @pid last ran on, from /proc/PID/stat, or -1. */
static int last_cpu(pid_t pid)
{
	char path[64], buf[1024], *p;
	int i, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f)) {
		/* Fields after the command, whose name may hold spaces. */
		p = strrchr(buf, ')');
		for (i = 2; p && i < 39; i++)
			p = strchr(p + 1, ' ');
		if (p)
			cpu = atoi(p + 1);
	}
	fclose(f);
	return cpu;
}

/* A coop_poll(2) member: its domain (its CPU's) and counters. */
static void show_coop(pid_t pid)
{
	if (sched_field(pid, "bvt.coop.member") != 1)
		return;
	printf("pid %d: coop_poll member of CPU %d's domain,", pid,
	       last_cpu(pid));
	printf(" calls %ld, yields %ld, policed %ld\n",
	       sched_field(pid, "bvt.coop.nr_calls"),
	       sched_field(pid, "bvt.coop.nr_yields"),
	       sched_field(pid, "bvt.coop.nr_policed"));
}

/* bvt_ctl(2), on a kernel that has it only. */
static long bvt_ctl(unsigned int op, pid_t pid, void *arg)
{
	if (!sched_bvt_present())
		return -1;
	return syscall(__NR_bvt_ctl, op, pid, arg, 0);
}

/* A CPU reservation (bvt_ctl(2)): what was granted, where, and its use. */
static void show_rsv(pid_t pid)
{
	struct sched_bvt_rsv r = { .size = sizeof(r) };
	char a[32], p[32], ran[32];

	if (bvt_ctl(BVT_CTL_GET_RSV, pid, &r))
		return;
	printf("pid %d: reservation %s of every %s on CPU %d, ran %s\n", pid,
	       duration(r.amount, a, sizeof(a)),
	       duration(r.period, p, sizeof(p)), r.cpu,
	       duration(r.ran, ran, sizeof(ran)));
}

/* Reserve AMOUNT/PERIOD for @pid (0: self), saying what was granted. */
static int reserve_cpu(pid_t pid, unsigned long long amount,
		       unsigned long long period)
{
	struct sched_bvt_rsv r = {
		.size = sizeof(r), .amount = amount, .period = period,
	};

	if (bvt_ctl(BVT_CTL_RESERVE, pid, &r)) {
		fprintf(stderr, "bvtctl: --reserve: %s%s\n", strerror(errno),
			errno == EBUSY ? " (no CPU it may run on has room)" :
			errno == ENOSPC ? " (a plan would have too many slots)" :
			errno == EEXIST ? " (it has one: --release it first)" :
			errno == EPERM ? " (needs CAP_SYS_NICE)" :
			errno == EINVAL ? " (amount or period out of range)" : "");
		return 1;
	}
	return 0;
}

static int show(pid_t pid)
{
	struct sched_attr attr = { };
	char w[32], l[32], u[32];

	if (syscall(SYS_sched_getattr, pid, &attr, sizeof(attr), 0)) {
		fprintf(stderr, "bvtctl: sched_getattr(%d): %s\n", pid,
			strerror(errno));
		return 1;
	}
	printf("pid %d: %s", pid, policy_name(attr.sched_policy));
	if (attr.sched_policy != SCHED_BVT) {
		printf("\n");
		return 0;
	}
	if (attr.sched_bvt_weight)
		printf(" weight %u", attr.sched_bvt_weight);
	else
		printf(" weight from nice");
	printf(" %s nice %d warp %s (%s) limit %s unwarp %s%s\n",
	       attr.sched_bvt_flags & SCHED_BVT_FLAG_RESERVED ?
			"reserved-effort" : "best-effort",
	       attr.sched_nice,
	       duration(attr.sched_bvt_warp, w, sizeof(w)),
	       attr.sched_bvt_flags & SCHED_BVT_FLAG_WARP ? "on" : "off",
	       attr.sched_bvt_warp_limit ?
			duration(attr.sched_bvt_warp_limit, l, sizeof(l)) :
			"unlimited",
	       duration(attr.sched_bvt_unwarp, u, sizeof(u)),
	       attr.sched_flags & SCHED_FLAG_RESET_ON_FORK ?
			" reset-on-fork" : "");
	show_coop(pid);
	show_rsv(pid);
	return 0;
}

/* The best-effort level's sysctls that bvtctl --level shows and sets. */
static const struct {
	const char *opt, *sysctl;
} level_knobs[] = {
	{ "mode", "sched_bvt_be_mode" },
	{ "alpha", "sched_bvt_pbs_alpha" },
	{ "beta", "sched_bvt_pbs_beta" },
	{ "switch", "sched_bvt_pbs_switch_ns" },
	{ "epsilon", "sched_bvt_pbs_epsilon" },
	{ "select", "sched_bvt_pbs_select" },
};

static int level_knob(const char *sysctl, const char *set, char *buf,
		      size_t len)
{
	char path[128];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", sysctl);
	f = fopen(path, set ? "w" : "r");
	if (!f)
		return -1;
	if (set)
		ret = fprintf(f, "%s\n", set) < 0;
	else
		ret = !fgets(buf, len, f);
	if (fclose(f) || ret)
		return -1;
	if (!set)
		buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Set the level's knobs given in @set (NULL: leave), then show them all. */
static int be_level(char **set)
{
	char buf[64], dur[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(level_knobs); i++) {
		if (set[i] && level_knob(level_knobs[i].sysctl, set[i], NULL, 0)) {
			fprintf(stderr, "bvtctl: --%s %s: %s%s\n",
				level_knobs[i].opt, set[i], strerror(errno),
				errno == EINVAL ? " (out of its range)" :
				errno == EACCES || errno == EPERM ?
					" (needs root)" : "");
			return 1;
		}
	}
	printf("best-effort level:");
	for (i = 0; i < ARRAY_SIZE(level_knobs); i++) {
		if (level_knob(level_knobs[i].sysctl, NULL, buf, sizeof(buf))) {
			printf("\n");
			fprintf(stderr, "bvtctl: no %s in this kernel\n",
				level_knobs[i].sysctl);
			return 1;
		}
		if (!strcmp(level_knobs[i].opt, "switch"))
			printf(" switch %s", duration(strtoull(buf, NULL, 10),
						      dur, sizeof(dur)));
		else
			printf(" %s %s", level_knobs[i].opt, buf);
	}
	printf("\n");
	return 0;
}

static void print_usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: bvtctl -p PID\n"
		"       bvtctl [OPTION]... -p PID\n"
		"       bvtctl [OPTION]... [--] COMMAND [ARG]...\n"
		"options: -w/--weight N  -n/--nice N  -W/--warp DUR  -L/--limit DUR\n"
		"         -U/--unwarp DUR  --no-warp  -r/--reserved  --best-effort\n"
		"         -R/--reset-on-fork  -X/--reserve DUR/DUR  --release\n"
		"       bvtctl --level [--mode bvt|pbs] [--alpha X] [--beta [+-]X|inf]\n"
		"                      [--switch DUR] [--epsilon X] [--select exact|sampled]\n"
		"DUR is a number with a unit: ns, us, ms or s (e.g. 20ms)\n");
	exit(status);
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "weight", required_argument, NULL, 'w' },
		{ "nice", required_argument, NULL, 'n' },
		{ "warp", required_argument, NULL, 'W' },
		{ "limit", required_argument, NULL, 'L' },
		{ "unwarp", required_argument, NULL, 'U' },
		{ "no-warp", no_argument, NULL, 'N' },
		{ "reserved", no_argument, NULL, 'r' },
		{ "best-effort", no_argument, NULL, 'B' },
		{ "reset-on-fork", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "reserve", required_argument, NULL, 'X' },
		{ "release", no_argument, NULL, 0x200 },
		{ "level", no_argument, NULL, 'l' },
		/* the level's knobs: 0x100 + their index in level_knobs */
		{ "mode", required_argument, NULL, 0x100 },
		{ "alpha", required_argument, NULL, 0x101 },
		{ "beta", required_argument, NULL, 0x102 },
		{ "switch", required_argument, NULL, 0x103 },
		{ "epsilon", required_argument, NULL, 0x104 },
		{ "select", required_argument, NULL, 0x105 },
		{ }
	};
	char *level_set[ARRAY_SIZE(level_knobs)] = { };
	unsigned long long rsv_amount = 0, rsv_period = 0;
	bool level_opt = false, release = false;
	struct sched_attr attr = { .size = sizeof(attr) };
	bool set = false;
	pid_t pid = -1;
	long v;
	int c;

	/* Start from what the target has, if it already is SCHED_BVT. */
	while ((c = getopt_long(argc, argv, "+p:w:n:W:L:U:X:rRh", options, NULL)) != -1) {
		if (c == 'h')
			print_usage(0);
		if (c == 'p' && !parse_int(optarg, 0, INT_MAX, &v)) {
			fprintf(stderr, "bvtctl: bad pid '%s'\n", optarg);
			return 1;
		}
		if (c == 'p')
			pid = v;
	}
	/* 463 and 464 are other calls on a kernel without the class. */
	if (!sched_bvt_present()) {
		fprintf(stderr, "bvtctl: this kernel has no SCHED_BVT (no %s)\n",
			SCHED_BVT_SYSCTL);
		return 1;
	}
	if (syscall(SYS_sched_getattr, pid < 0 ? 0 : pid, &attr, sizeof(attr), 0)) {
		memset(&attr, 0, sizeof(attr));
	} else if (attr.sched_policy != SCHED_BVT) {
		/* Dropping reset-on-fork would need CAP_SYS_NICE. */
		__u64 flags = attr.sched_flags;
		int nice = attr.sched_nice;

		memset(&attr, 0, sizeof(attr));
		attr.sched_nice = nice;
		attr.sched_flags = flags;
	}
	attr.size = sizeof(attr);
	attr.sched_policy = SCHED_BVT;
	attr.sched_flags &= SCHED_FLAG_RESET_ON_FORK;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:w:n:W:L:U:X:rRh", options, NULL)) != -1) {
		unsigned long long ns;

		switch (c) {
		case 'p':
			break;
		case 'w':
			if (!parse_int(optarg, 0, SCHED_BVT_WEIGHT_MAX, &v))
				goto bad;
			attr.sched_bvt_weight = v;
			break;
		case 'n':
			if (!parse_int(optarg, -20, 19, &v))
				goto bad;
			attr.sched_nice = v;
			break;
		case 'W':
			if (!parse_duration(optarg, &ns))
				goto bad;
			attr.sched_bvt_warp = ns;
			attr.sched_bvt_flags |= SCHED_BVT_FLAG_WARP;
			break;
		case 'L':
			if (!parse_duration(optarg, &ns))
				goto bad;
			attr.sched_bvt_warp_limit = ns;
			break;
		case 'U':
			if (!parse_duration(optarg, &ns))
				goto bad;
			attr.sched_bvt_unwarp = ns;
			break;
		case 'N':
			attr.sched_bvt_flags &= ~SCHED_BVT_FLAG_WARP;
			break;
		case 'r':
			attr.sched_bvt_flags |= SCHED_BVT_FLAG_RESERVED;
			break;
		case 'B':
			attr.sched_bvt_flags &= ~SCHED_BVT_FLAG_RESERVED;
			break;
		case 'R':
			attr.sched_flags |= SCHED_FLAG_RESET_ON_FORK;
			break;
		case 'X': {
			char *slash = strchr(optarg, '/');

			if (!slash)
				goto bad;
			*slash = '\0';
			if (!parse_duration(optarg, &rsv_amount) ||
			    !parse_duration(slash + 1, &rsv_period)) {
				*slash = '/';
				goto bad;
			}
			break;
		}
		case 0x200:
			release = true;
			continue;
		case 'h':
			print_usage(0);
		case 'l':
			level_opt = true;
			continue;
		case 0x100 ... 0x105:
			level_set[c - 0x100] = optarg;
			level_opt = true;
			if (c == 0x103) {
				static char ns_buf[32];

				if (!parse_duration(optarg, &ns))
					goto bad_level;
				snprintf(ns_buf, sizeof(ns_buf), "%llu", ns);
				level_set[c - 0x100] = ns_buf;
			}
			continue;
		default:
			print_usage(2);
		}
		if (c != 'p')
			set = true;
	}

	if (level_opt) {
		if (set || pid >= 0 || optind < argc)
			print_usage(2);
		return be_level(level_set);
	}

	if (pid >= 0 && optind < argc)
		print_usage(2);
	if (release) {
		if (set || pid < 0)
			print_usage(2);
		if (bvt_ctl(BVT_CTL_RELEASE, pid, NULL)) {
			fprintf(stderr, "bvtctl: release: %s%s\n", strerror(errno),
				errno == ENOENT ? " (it has no reservation)" :
				errno == EBUSY ? " (its time constraint counts on it)" : "");
			return 1;
		}
		return show(pid);
	}
	if (pid >= 0 && !set)
		return show(pid);
	if (pid < 0 && optind == argc)
		print_usage(2);

	if (syscall(SYS_sched_setattr, pid < 0 ? 0 : pid, &attr, 0)) {
		fprintf(stderr, "bvtctl: sched_setattr: %s%s\n", strerror(errno),
			errno == EPERM ?
				" (raising weight or warp, or reserving, needs CAP_SYS_NICE)" :
			errno == EINVAL ? " (a value out of range, or reserved without a weight)" :
			errno == EBUSY ? " (no room in the reserved-effort level)" :
			errno == E2BIG ? " (this kernel has no SCHED_BVT)" : "");
		return 1;
	}
	/* A reservation goes with the thread through exec. */
	if (rsv_period && reserve_cpu(pid < 0 ? 0 : pid, rsv_amount, rsv_period))
		return 1;
	if (pid >= 0)
		return show(pid);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "bvtctl: %s: %s\n", argv[optind], strerror(errno));
	return 127;

bad:
	fprintf(stderr, "bvtctl: bad value '%s' for -%c\n", optarg, c);
	return 1;
bad_level:
	fprintf(stderr, "bvtctl: bad value '%s' for --switch\n", optarg);
	return 1;
}
