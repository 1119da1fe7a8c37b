// SPDX-License-Identifier: GPL-2.0
/*
 * bvt-rtkit: rtkit's D-Bus interface (org.freedesktop.RealtimeKit1) on the
 * system bus, granting SCHED_BVT with warp where rtkit-daemon grants
 * SCHED_RR.  Programs that ask rtkit for a real-time audio or game thread
 * (PipeWire, PulseAudio, libraries using rtkit's client code) get a thread
 * that is dispatched early when it wakes up, within its fair share, instead
 * of one that may hold the CPU from everything below it.
 *
 * The checks are rtkit's: the caller must own the process, the thread must
 * be one of the process's, start times guard against PID reuse, priorities
 * and nice levels are bounded, each user has a burst limit of actions and a
 * cap on the threads and processes it holds grants for, and the process must
 * be in an active login session (root callers are exempt).  On a kernel
 * without SCHED_BVT the grant is what rtkit's is: SCHED_RR at the priority
 * asked, for a process whose RLIMIT_RTTIME is at most RTTimeUSecMax.
 *
 * The policy file, /etc/sched-bvt/rtkit.conf by default, holds "key =
 * value" lines; --dump-config prints the keys with the values in force.
 * See bvt-rtkit(8) and Documentation/scheduler/sched-bvt.rst.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <linux/sched.h>
#include <linux/sched/types.h>
#include <linux/sched_bvt.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>
#include <systemd/sd-login.h>

#include "../bvt_syscall.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define RK_NAME		"org.freedesktop.RealtimeKit1"
#define RK_PATH		"/org/freedesktop/RealtimeKit1"
#define RK_IFACE	"org.freedesktop.RealtimeKit1"
#define DEFAULT_CONFIG	"/etc/sched-bvt/rtkit.conf"

/* What the policy file sets; every number is a long long. */
struct config {
	long long warp;			/* W, ns */
	long long warp_limit;		/* L, ns; 0: unlimited */
	long long unwarp;		/* U, ns */
	long long weight;		/* 0: from nice */
	long long rttime_usec_max;	/* RTTimeUSecMax */
	long long max_realtime_priority; /* MaxRealtimePriority */
	long long min_nice_level;	/* MinNiceLevel */
	long long actions_burst_sec;
	long long actions_per_burst_max;
	long long threads_per_user_max;
	long long processes_per_user_max;
	long long users_max;
	bool require_active_session;
	bool fallback_rr;
};

/* The compiled-in defaults: see bvt-rtkit(8) for why these. */
static struct config cfg = {
	.warp = 5000000,
	.warp_limit = 3000000,
	.unwarp = 1000000,
	.weight = 0,
	.rttime_usec_max = 200000,
	.max_realtime_priority = 20,
	.min_nice_level = -15,
	.actions_burst_sec = 20,
	.actions_per_burst_max = 25,
	.threads_per_user_max = 25,
	.processes_per_user_max = 15,
	.users_max = 2048,
	.require_active_session = true,
	.fallback_rr = true,
};

enum key_type { KEY_DURATION, KEY_INT, KEY_BOOL };

static const struct config_key {
	const char *name;
	enum key_type type;
	long long *num;
	bool *flag;
	long long min, max;
} config_keys[] = {
	{ "warp", KEY_DURATION, &cfg.warp, NULL, 0, SCHED_BVT_WARP_MAX },
	{ "warp-limit", KEY_DURATION, &cfg.warp_limit, NULL, 0,
	  SCHED_BVT_TIME_MAX },
	{ "unwarp", KEY_DURATION, &cfg.unwarp, NULL, 0, SCHED_BVT_TIME_MAX },
	{ "weight", KEY_INT, &cfg.weight, NULL, 0, SCHED_BVT_WEIGHT_MAX },
	{ "rttime-usec-max", KEY_INT, &cfg.rttime_usec_max, NULL, 1,
	  LLONG_MAX },
	{ "max-realtime-priority", KEY_INT, &cfg.max_realtime_priority, NULL,
	  1, 98 },
	{ "min-nice-level", KEY_INT, &cfg.min_nice_level, NULL, -20, 19 },
	{ "actions-burst-sec", KEY_INT, &cfg.actions_burst_sec, NULL, 1,
	  INT_MAX },
	{ "actions-per-burst-max", KEY_INT, &cfg.actions_per_burst_max, NULL,
	  1, INT_MAX },
	{ "threads-per-user-max", KEY_INT, &cfg.threads_per_user_max, NULL,
	  1, INT_MAX },
	{ "processes-per-user-max", KEY_INT, &cfg.processes_per_user_max,
	  NULL, 1, INT_MAX },
	{ "users-max", KEY_INT, &cfg.users_max, NULL, 1, INT_MAX },
	{ "require-active-session", KEY_BOOL, NULL,
	  &cfg.require_active_session },
	{ "fallback-rr", KEY_BOOL, NULL, &cfg.fallback_rr },
};

/*
 * The threads granted something, by user and process, each known by its
 * id and start time (an id alone may be reused).  A thread is forgotten
 * when it dies or no longer has what was granted; a user when it has no
 * thread left and its burst is over.
 */
struct rk_thread {
	struct rk_thread *next;
	pid_t tid;
	unsigned long long start;
};

struct rk_process {
	struct rk_process *next;
	struct rk_thread *threads;
	pid_t pid;
	unsigned long long start;
};

struct rk_user {
	struct rk_user *next;
	struct rk_process *processes;
	uid_t uid;
	time_t burst_start;
	long long n_actions;
	long long n_processes;
	long long n_threads;
};

static struct rk_user *users;
static long long n_users, n_processes, n_threads;
static sd_event *event;

/* One method call being served. */
struct request {
	const char *method;
	sd_bus_error *error;
	uid_t uid;
	pid_t pid, tid;
	unsigned long long pid_start, tid_start;
	struct rk_user *user;
};

static void log_msg(const char *level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs(level, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

#define log_err(...)	log_msg(SD_ERR, __VA_ARGS__)
#define log_warn(...)	log_msg(SD_WARNING, __VA_ARGS__)
#define log_notice(...)	log_msg(SD_NOTICE, __VA_ARGS__)
#define log_info(...)	log_msg(SD_INFO, __VA_ARGS__)

/* 20000000 -> "20ms", the largest unit that divides it. */
static const char *duration(long long ns, char *buf, size_t len)
{
	if (ns && ns % 1000000000 == 0)
		snprintf(buf, len, "%llds", ns / 1000000000);
	else if (ns && ns % 1000000 == 0)
		snprintf(buf, len, "%lldms", ns / 1000000);
	else if (ns && ns % 1000 == 0)
		snprintf(buf, len, "%lldus", ns / 1000);
	else
		snprintf(buf, len, "%lldns", ns);
	return buf;
}

/* "20ms" -> 20000000; a bare number is ns.  False if it is not one. */
static bool parse_duration(const char *s, long long *ns)
{
	static const struct {
		const char *unit;
		long long mul;
	} units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	unsigned long long v;
	unsigned int i;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].unit)) {
			if (v > LLONG_MAX / units[i].mul)
				return false;
			*ns = v * units[i].mul;
			return true;
		}
	}
	return false;
}

static bool parse_bool(const char *s, bool *b)
{
	static const char * const yes[] = { "yes", "true", "on", "1" };
	static const char * const no[] = { "no", "false", "off", "0" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*b = !strcasecmp(s, yes[i]);
			return true;
		}
	}
	return false;
}

static char *strip(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static int set_key(const char *key, const char *val)
{
	const struct config_key *k;
	unsigned int i;
	long long v = 0;
	char *end;

	for (i = 0; i < ARRAY_SIZE(config_keys); i++)
		if (!strcmp(key, config_keys[i].name))
			break;
	if (i == ARRAY_SIZE(config_keys))
		return -ENOENT;
	k = &config_keys[i];
	switch (k->type) {
	case KEY_BOOL:
		return parse_bool(val, k->flag) ? 0 : -EINVAL;
	case KEY_DURATION:
		if (!parse_duration(val, &v))
			return -EINVAL;
		break;
	case KEY_INT:
		errno = 0;
		v = strtoll(val, &end, 10);
		if (errno || end == val || *end)
			return -EINVAL;
		break;
	}
	if (v < k->min || v > k->max)
		return -ERANGE;
	*k->num = v;
	return 0;
}

/*
 * Read the policy file: "key = value" lines, '#' starts a comment.  A file
 * that is not there leaves the defaults, unless it was named (@required).
 */
static int read_config(const char *path, bool required)
{
	char line[512];
	int n = 0, ret = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !required) {
			log_info("no %s: compiled-in defaults", path);
			return 0;
		}
		log_err("%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *key, *val, *eq;
		int r;

		n++;
		line[strcspn(line, "#\n")] = '\0';
		key = strip(line);
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			log_err("%s:%d: not a 'key = value' line", path, n);
			ret = -1;
			continue;
		}
		*eq = '\0';
		key = strip(key);
		val = strip(eq + 1);
		r = set_key(key, val);
		if (r == -ENOENT)
			log_err("%s:%d: unknown key '%s'", path, n, key);
		else if (r)
			log_err("%s:%d: bad value '%s' for %s%s", path, n, val,
				key, r == -ERANGE ? " (out of range)" : "");
		if (r)
			ret = -1;
	}
	fclose(f);
	if (cfg.warp_limit && cfg.warp_limit < (long long)SCHED_BVT_WARP_LIMIT_MIN) {
		log_err("%s: warp-limit must be 0 or at least 10us", path);
		ret = -1;
	}
	return ret;
}

static void dump_config(void)
{
	char buf[32];
	unsigned int i;

	printf("# bvt-rtkit policy (see bvt-rtkit(8)); durations take ns, us, ms or s\n");
	for (i = 0; i < ARRAY_SIZE(config_keys); i++) {
		const struct config_key *k = &config_keys[i];

		if (k->type == KEY_BOOL)
			printf("%s = %s\n", k->name, *k->flag ? "yes" : "no");
		else if (k->type == KEY_DURATION)
			printf("%s = %s\n", k->name,
			       duration(*k->num, buf, sizeof(buf)));
		else
			printf("%s = %lld\n", k->name, *k->num);
	}
}

/* Field 22 of /proc/PID[/task/TID]/stat: the start time (0 tid: PID's). */
static int read_start(pid_t pid, pid_t tid, unsigned long long *start)
{
	char path[96], buf[1024], *p, *end;
	int i, ret = -EIO;
	FILE *f;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (fgets(buf, sizeof(buf), f)) {
		/* The command may hold spaces and ')': field 3 follows the last. */
		p = strrchr(buf, ')');
		for (i = 3; p && i <= 22; i++)
			p = strchr(p + 1, ' ');
		if (p) {
			*start = strtoull(p + 1, &end, 10);
			if (end != p + 1)
				ret = 0;
		}
	}
	fclose(f);
	return ret;
}

/* The owner of /proc/PID: the process's effective uid. */
static int process_owner(pid_t pid, uid_t *uid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (stat(path, &st))
		return -errno;
	*uid = st.st_uid;
	return 0;
}

static int policy_of(pid_t tid)
{
	int policy = sched_getscheduler(tid);

	return policy < 0 ? policy : policy & ~SCHED_RESET_ON_FORK;
}

static bool granted_policy(int policy)
{
	return policy == SCHED_BVT || policy == SCHED_RR ||
	       policy == SCHED_FIFO;
}

/* Does @t still hold what was granted: SCHED_BVT/RR/FIFO or nice < 0? */
static bool thread_relevant(struct rk_process *p, struct rk_thread *t)
{
	unsigned long long start;
	int nice;

	if (read_start(p->pid, t->tid, &start) || start != t->start)
		return false;
	if (granted_policy(policy_of(t->tid)))
		return true;
	errno = 0;
	nice = getpriority(PRIO_PROCESS, t->tid);
	return !errno && nice < 0;
}

static bool in_burst(struct rk_user *u)
{
	return time(NULL) < u->burst_start + cfg.actions_burst_sec;
}

/* Forget dead and demoted threads, and the processes and users left empty. */
static void gc(void)
{
	struct rk_user **up = &users, *u;

	while ((u = *up)) {
		struct rk_process **pp = &u->processes, *p;

		while ((p = *pp)) {
			struct rk_thread **tp = &p->threads, *t;

			while ((t = *tp)) {
				if (thread_relevant(p, t)) {
					tp = &t->next;
					continue;
				}
				*tp = t->next;
				free(t);
				u->n_threads--;
				n_threads--;
			}
			if (p->threads) {
				pp = &p->next;
				continue;
			}
			*pp = p->next;
			free(p);
			u->n_processes--;
			n_processes--;
		}
		if (u->processes || in_burst(u)) {
			up = &u->next;
			continue;
		}
		*up = u->next;
		free(u);
		n_users--;
	}
}

static void notify_status(void)
{
	sd_notifyf(0, "STATUS=Supervising %lld threads of %lld processes of %lld users.",
		   n_threads, n_processes, n_users);
}

/* Refuse @r with D-Bus error @name: log it and set the reply. */
static int refuse(struct request *r, const char *name, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_notice("refused %s: thread %d of process %d for uid %d: %s",
		   r->method, r->tid, r->pid, (int)r->uid, msg);
	return sd_bus_error_set(r->error, name, msg);
}

/* The caller's effective uid and pid, from the bus. */
static int sender(sd_bus_message *m, uid_t *uid, pid_t *pid)
{
	sd_bus_creds *creds = NULL;
	int ret;

	ret = sd_bus_query_sender_creds(m, SD_BUS_CREDS_EUID | SD_BUS_CREDS_PID,
					&creds);
	if (ret >= 0)
		ret = sd_bus_creds_get_euid(creds, uid);
	if (ret >= 0 && pid)
		ret = sd_bus_creds_get_pid(creds, pid);
	sd_bus_creds_unref(creds);
	return ret;
}

/*
 * Who asks for what: the caller from the bus, the process (the caller's
 * without @with_pid) and its thread (0: its main thread), which must be a
 * thread of that process; their start times, and the caller's record.
 */
static int lookup(struct request *r, sd_bus_message *m, bool with_pid,
		  __u64 process, __u64 thread)
{
	struct rk_user *u;
	pid_t pid;
	int ret;

	r->pid = with_pid ? (pid_t)process : 0;
	r->tid = (pid_t)thread;
	r->uid = (uid_t)-1;
	ret = sender(m, &r->uid, with_pid ? NULL : &pid);
	if (ret < 0) {
		log_err("%s: the caller's credentials: %s", r->method,
			strerror(-ret));
		return sd_bus_error_set(r->error, SD_BUS_ERROR_ACCESS_DENIED,
					"cannot tell who the caller is");
	}
	if (!with_pid)
		r->pid = pid;
	else if (!process || process > INT_MAX)
		return refuse(r, SD_BUS_ERROR_INVALID_ARGS,
			      "no process %llu", (unsigned long long)process);
	if (thread > INT_MAX)
		return refuse(r, SD_BUS_ERROR_INVALID_ARGS,
			      "no thread %llu", (unsigned long long)thread);
	if (!thread)
		r->tid = r->pid;
	if (read_start(r->pid, 0, &r->pid_start))
		return refuse(r, SD_BUS_ERROR_INVALID_ARGS, "no process %d",
			      r->pid);
	if (read_start(r->pid, r->tid, &r->tid_start))
		return refuse(r, SD_BUS_ERROR_INVALID_ARGS,
			      "thread %d is not a thread of process %d",
			      r->tid, r->pid);

	gc();
	for (u = users; u; u = u->next)
		if (u->uid == r->uid)
			break;
	if (!u) {
		if (n_users >= cfg.users_max)
			return refuse(r, SD_BUS_ERROR_LIMITS_EXCEEDED,
				      "too many users (users-max %lld)",
				      cfg.users_max);
		u = calloc(1, sizeof(*u));
		if (!u)
			return sd_bus_error_set_errno(r->error, ENOMEM);
		u->uid = r->uid;
		u->burst_start = time(NULL);
		u->next = users;
		users = u;
		n_users++;
	}
	r->user = u;
	return 0;
}

static struct rk_process *find_process(struct request *r)
{
	struct rk_process *p;

	for (p = r->user->processes; p; p = p->next)
		if (p->pid == r->pid && p->start == r->pid_start)
			return p;
	return NULL;
}

static struct rk_thread *find_thread(struct rk_process *p, struct request *r)
{
	struct rk_thread *t;

	for (t = p ? p->threads : NULL; t; t = t->next)
		if (t->tid == r->tid && t->start == r->tid_start)
			return t;
	return NULL;
}

/* The caps on what a user holds, counted for a thread not yet held. */
static int check_caps(struct request *r)
{
	struct rk_process *p = find_process(r);

	if (find_thread(p, r))
		return 0;
	if (r->user->n_threads >= cfg.threads_per_user_max)
		return refuse(r, SD_BUS_ERROR_LIMITS_EXCEEDED,
			      "the user holds %lld threads (threads-per-user-max)",
			      r->user->n_threads);
	if (!p && r->user->n_processes >= cfg.processes_per_user_max)
		return refuse(r, SD_BUS_ERROR_LIMITS_EXCEEDED,
			      "the user holds %lld processes (processes-per-user-max)",
			      r->user->n_processes);
	return 0;
}

/* Remember a thread granted something. */
static int track(struct request *r)
{
	struct rk_process *p = find_process(r);
	struct rk_thread *t;

	if (find_thread(p, r))
		return 0;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->pid = r->pid;
		p->start = r->pid_start;
		p->next = r->user->processes;
		r->user->processes = p;
		r->user->n_processes++;
		n_processes++;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->tid = r->tid;
	t->start = r->tid_start;
	t->next = p->threads;
	p->threads = t;
	r->user->n_threads++;
	n_threads++;
	return 0;
}

/*
 * The target process must be in an active login session, or, when it is
 * in none (a desktop's programs run under the user's service manager,
 * outside the session's scope), its user must have one: as polkit judges
 * rtkit's actions.  Root may ask for any.
 */
static int check_session(struct request *r)
{
	char *session = NULL, *state = NULL;
	bool active;
	int ret;

	if (!cfg.require_active_session || r->uid == 0)
		return 0;
	if (sd_pid_get_session(r->pid, &session) >= 0) {
		active = sd_session_is_active(session) > 0;
		ret = active ? 0 :
			refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			       "session %s of process %d is not active",
			       session, r->pid);
		free(session);
		return ret;
	}
	active = sd_uid_get_state(r->uid, &state) >= 0 &&
		 !strcmp(state, "active");
	free(state);
	if (!active)
		return refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			      "process %d is in no login session, and uid %u has no active one",
			      r->pid, r->uid);
	return 0;
}

/* rtkit's burst limit: at most actions-per-burst-max per actions-burst-sec. */
static int check_burst(struct request *r)
{
	struct rk_user *u = r->user;

	if (!in_burst(u)) {
		u->burst_start = time(NULL);
		u->n_actions = 0;
	}
	if (u->n_actions >= cfg.actions_per_burst_max)
		return refuse(r, SD_BUS_ERROR_LIMITS_EXCEEDED,
			      "more than %lld actions in %lld s (actions-per-burst-max)",
			      cfg.actions_per_burst_max, cfg.actions_burst_sec);
	u->n_actions++;
	return 0;
}

/*
 * The caller still owns the process, and process and thread are the ones
 * looked up: checked before the change and again after it, so that a
 * process that exits and has its PID reused meanwhile gets nothing.
 */
static int verify(struct request *r)
{
	unsigned long long start;
	uid_t owner;

	if (process_owner(r->pid, &owner))
		return refuse(r, SD_BUS_ERROR_INVALID_ARGS, "no process %d",
			      r->pid);
	if (owner != r->uid)
		return refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			      "process %d is not the caller's (it is uid %u's)",
			      r->pid, owner);
	if (read_start(r->pid, 0, &start) || start != r->pid_start)
		return refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			      "process %d was replaced", r->pid);
	if (read_start(r->pid, r->tid, &start) || start != r->tid_start)
		return refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			      "thread %d was replaced", r->tid);
	return 0;
}

/* The request's parties, the caller's ownership first, as rtkit. */
static int identify(struct request *r, sd_bus_message *m, bool with_pid,
		    __u64 process, __u64 thread)
{
	int ret = lookup(r, m, with_pid, process, thread);

	return ret < 0 ? ret : verify(r);
}

/* What rtkit checks besides ownership, in its order. */
static int check_limits(struct request *r)
{
	int ret = check_caps(r);

	if (ret >= 0)
		ret = check_session(r);
	if (ret >= 0)
		ret = check_burst(r);
	return ret;
}

/*
 * While it checks and changes a thread the daemon runs SCHED_RR above every
 * priority it grants, as rtkit does, so that a thread it has already made
 * real-time (or warped) cannot hold it up between check and change.
 */
static void self_boost(bool on)
{
	struct sched_param sp = {
		.sched_priority = on ? cfg.max_realtime_priority + 1 : 0,
	};
	static bool warned;

	if (sched_setscheduler(0, on ? SCHED_RR | SCHED_RESET_ON_FORK :
			       SCHED_OTHER, &sp) && !warned) {
		log_warn("cannot set our own policy: %s", strerror(errno));
		warned = true;
	}
}

/* Back to SCHED_OTHER; a negative nice back to 0 with @nice. */
static int thread_reset(pid_t tid, bool nice)
{
	struct sched_param sp = { .sched_priority = 0 };
	int ret = 0, n;

	if (sched_setscheduler(tid, SCHED_OTHER, &sp))
		ret = -errno;
	errno = 0;
	n = getpriority(PRIO_PROCESS, tid);
	if (nice && !errno && n < 0 && setpriority(PRIO_PROCESS, tid, 0))
		ret = -errno;
	return ret;
}

static int set_bvt(pid_t tid)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = SCHED_BVT,
		.sched_flags = SCHED_FLAG_RESET_ON_FORK,
		.sched_bvt_weight = cfg.weight,
		.sched_bvt_flags = cfg.warp ? SCHED_BVT_FLAG_WARP : 0,
		.sched_bvt_warp = cfg.warp,
		.sched_bvt_warp_limit = cfg.warp_limit,
		.sched_bvt_unwarp = cfg.unwarp,
	};

	/* sched_nice applies too: keep the thread's own. */
	errno = 0;
	attr.sched_nice = getpriority(PRIO_PROCESS, tid);
	if (errno)
		return -errno;
	if (syscall(SYS_sched_setattr, tid, &attr, 0))
		return -errno;
	return 0;
}

/* RLIMIT_RTTIME's hard limit of @pid, from prlimit(2) or /proc/PID/limits. */
static int rttime_of(pid_t pid, unsigned long long *max)
{
	struct rlimit rl;
	char path[64], line[256], hard[32];
	int ret = -EIO;
	FILE *f;

	if (!prlimit(pid, RLIMIT_RTTIME, NULL, &rl)) {
		*max = rl.rlim_max;
		return 0;
	}
	if (errno != EPERM)
		return -errno;
	/* Without CAP_SYS_RESOURCE, as rtkit reads it. */
	snprintf(path, sizeof(path), "/proc/%d/limits", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Max realtime timeout", 20))
			continue;
		if (sscanf(line + 20, "%*s %31s", hard) == 1) {
			*max = strcmp(hard, "unlimited") ?
				strtoull(hard, NULL, 10) : RLIM_INFINITY;
			ret = 0;
		}
		break;
	}
	fclose(f);
	return ret;
}

/* rtkit's grant: SCHED_RR at @prio, for a process with RLIMIT_RTTIME set. */
static int set_rr(struct request *r, unsigned int prio)
{
	struct sched_param sp = { .sched_priority = prio };
	unsigned long long max = RLIM_INFINITY;
	int ret;

	ret = rttime_of(r->pid, &max);
	if (ret)
		return refuse(r, SD_BUS_ERROR_FAILED,
			      "RLIMIT_RTTIME of process %d: %s", r->pid,
			      strerror(-ret));
	if (max == RLIM_INFINITY)
		return refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			      "process %d has no RLIMIT_RTTIME (it must be at most %lld us for SCHED_RR)",
			      r->pid, cfg.rttime_usec_max);
	if (max > (unsigned long long)cfg.rttime_usec_max)
		return refuse(r, SD_BUS_ERROR_ACCESS_DENIED,
			      "RLIMIT_RTTIME of process %d is %llu us, above RTTimeUSecMax %lld",
			      r->pid, max, cfg.rttime_usec_max);
	if (sched_setscheduler(r->tid, SCHED_RR | SCHED_RESET_ON_FORK, &sp))
		return refuse(r, SD_BUS_ERROR_FAILED, "SCHED_RR: %s",
			      strerror(errno));
	return 0;
}

/*
 * After the change: undo it if the process or thread was replaced
 * meanwhile, track the thread (@track_it) for the limits and the resets,
 * log and answer.  @nice: the undo resets a negative nice too.
 */
static int keep_grant(sd_bus_message *m, struct request *r, bool track_it,
		      bool nice, const char *mode)
{
	int ret = verify(r);

	if (ret < 0) {
		thread_reset(r->tid, nice);
		return ret;
	}
	if (track_it && track(r)) {
		thread_reset(r->tid, nice);
		return sd_bus_error_set_errno(r->error, ENOMEM);
	}
	log_info("granted %s: thread %d of process %d of uid %u: %s, reset-on-fork",
		 r->method, r->tid, r->pid, r->uid, mode);
	notify_status();
	return sd_bus_reply_method_return(m, NULL);
}

static int make_realtime(sd_bus_message *m, sd_bus_error *error, bool with_pid)
{
	struct request r = {
		.method = with_pid ? "MakeThreadRealtimeWithPID" :
				     "MakeThreadRealtime",
		.error = error,
	};
	__u64 process = 0, thread;
	char w[32], l[32], u[32], mode[160];
	__u32 prio;
	int ret;

	if (with_pid)
		ret = sd_bus_message_read(m, "ttu", &process, &thread, &prio);
	else
		ret = sd_bus_message_read(m, "tu", &thread, &prio);
	if (ret < 0)
		return ret;
	ret = identify(&r, m, with_pid, process, thread);
	if (ret < 0)
		return ret;
	if (prio < 1 || prio > 99)
		return refuse(&r, SD_BUS_ERROR_INVALID_ARGS,
			      "priority %u is not a real-time priority (1..99)",
			      prio);
	if (prio > cfg.max_realtime_priority)
		return refuse(&r, SD_BUS_ERROR_ACCESS_DENIED,
			      "priority %u is above MaxRealtimePriority %lld",
			      prio, cfg.max_realtime_priority);
	ret = check_limits(&r);
	if (ret < 0)
		return ret;

	self_boost(true);
	ret = verify(&r);
	if (ret < 0)
		goto out;
	ret = set_bvt(r.tid);
	if (!ret) {
		snprintf(mode, sizeof(mode),
			 "SCHED_BVT warp %s limit %s unwarp %s weight %lld%s",
			 duration(cfg.warp, w, sizeof(w)),
			 cfg.warp_limit ? duration(cfg.warp_limit, l, sizeof(l)) :
					  "unlimited",
			 duration(cfg.unwarp, u, sizeof(u)), cfg.weight,
			 cfg.weight ? "" : " (from nice)");
	} else if ((ret == -EINVAL || ret == -E2BIG) && !sched_bvt_present()) {
		/* A kernel without the class: do what rtkit does. */
		if (!cfg.fallback_rr) {
			ret = refuse(&r, SD_BUS_ERROR_NOT_SUPPORTED,
				     "this kernel has no SCHED_BVT (and fallback-rr is off)");
			goto out;
		}
		ret = set_rr(&r, prio);
		if (ret < 0)
			goto out;
		snprintf(mode, sizeof(mode),
			 "SCHED_RR priority %u (fallback: no SCHED_BVT in this kernel)",
			 prio);
	} else {
		ret = refuse(&r, ret == -ESRCH ? SD_BUS_ERROR_INVALID_ARGS :
			     SD_BUS_ERROR_FAILED, "SCHED_BVT: %s",
			     strerror(-ret));
		goto out;
	}
	ret = keep_grant(m, &r, true, false, mode);
out:
	self_boost(false);
	return ret;
}

static int make_high_priority(sd_bus_message *m, sd_bus_error *error,
			      bool with_pid)
{
	struct request r = {
		.method = with_pid ? "MakeThreadHighPriorityWithPID" :
				     "MakeThreadHighPriority",
		.error = error,
	};
	struct sched_param sp = { .sched_priority = 0 };
	__u64 process = 0, thread;
	char mode[32];
	__s32 nice;
	int ret;

	if (with_pid)
		ret = sd_bus_message_read(m, "tti", &process, &thread, &nice);
	else
		ret = sd_bus_message_read(m, "ti", &thread, &nice);
	if (ret < 0)
		return ret;
	ret = identify(&r, m, with_pid, process, thread);
	if (ret < 0)
		return ret;
	if (nice < -20 || nice > 19)
		return refuse(&r, SD_BUS_ERROR_INVALID_ARGS,
			      "nice level %d is not one (-20..19)", nice);
	if (nice < cfg.min_nice_level)
		return refuse(&r, SD_BUS_ERROR_ACCESS_DENIED,
			      "nice level %d is below MinNiceLevel %lld", nice,
			      cfg.min_nice_level);
	ret = check_limits(&r);
	if (ret < 0)
		return ret;

	self_boost(true);
	ret = verify(&r);
	if (ret < 0)
		goto out;
	if (sched_setscheduler(r.tid, SCHED_OTHER | SCHED_RESET_ON_FORK, &sp) ||
	    setpriority(PRIO_PROCESS, r.tid, nice)) {
		ret = refuse(&r, errno == ESRCH ? SD_BUS_ERROR_INVALID_ARGS :
			     SD_BUS_ERROR_FAILED, "nice %d: %s", nice,
			     strerror(errno));
		goto out;
	}
	snprintf(mode, sizeof(mode), "SCHED_OTHER nice %d", nice);
	ret = keep_grant(m, &r, nice < 0, true, mode);
out:
	self_boost(false);
	return ret;
}

static int method_realtime(sd_bus_message *m, void *data, sd_bus_error *error)
{
	return make_realtime(m, error, false);
}

static int method_realtime_pid(sd_bus_message *m, void *data,
			       sd_bus_error *error)
{
	return make_realtime(m, error, true);
}

static int method_high(sd_bus_message *m, void *data, sd_bus_error *error)
{
	return make_high_priority(m, error, false);
}

static int method_high_pid(sd_bus_message *m, void *data,
			   sd_bus_error *error)
{
	return make_high_priority(m, error, true);
}

/* ResetKnown, ResetAll and Exit are root's (the bus policy says so too). */
static int require_root(sd_bus_message *m, const char *method,
			sd_bus_error *error)
{
	uid_t uid = (uid_t)-1;
	int ret;

	ret = sender(m, &uid, NULL);
	if (ret >= 0 && uid == 0)
		return 0;
	log_notice("refused %s for uid %d: only root may call it", method,
		   (int)uid);
	return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
				 "only root may call %s", method);
}

/* Demote the threads granted something that are still what was granted. */
static int method_reset_known(sd_bus_message *m, void *data,
			      sd_bus_error *error)
{
	struct rk_user *u;
	struct rk_process *p;
	struct rk_thread *t;
	unsigned int n = 0;
	int ret;

	ret = require_root(m, "ResetKnown", error);
	if (ret < 0)
		return ret;
	for (u = users; u; u = u->next) {
		for (p = u->processes; p; p = p->next) {
			for (t = p->threads; t; t = t->next) {
				struct request r = {
					.method = "ResetKnown",
					.uid = u->uid, .pid = p->pid,
					.tid = t->tid,
					.pid_start = p->start,
					.tid_start = t->start,
				};
				unsigned long long start;
				uid_t owner;

				if (process_owner(r.pid, &owner) ||
				    owner != r.uid ||
				    read_start(r.pid, 0, &start) ||
				    start != r.pid_start ||
				    read_start(r.pid, r.tid, &start) ||
				    start != r.tid_start)
					continue;
				if (!thread_reset(r.tid, true)) {
					log_info("ResetKnown: thread %d of process %d back to SCHED_OTHER",
						 r.tid, r.pid);
					n++;
				}
			}
		}
	}
	gc();
	log_notice("ResetKnown: %u threads demoted", n);
	notify_status();
	return sd_bus_reply_method_return(m, NULL);
}

static bool is_number(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return isdigit((unsigned char)*s) && !*end && !errno && *v > 0 &&
	       *v <= INT_MAX;
}

/*
 * rtkit's ResetAll: every SCHED_FIFO, SCHED_RR and, here, SCHED_BVT thread
 * of every process not owned by root (and not init or ourselves), whoever
 * granted it, back to SCHED_OTHER with a negative nice level back to 0.
 */
static int method_reset_all(sd_bus_message *m, void *data,
			    sd_bus_error *error)
{
	struct dirent *pde, *tde;
	unsigned int n = 0;
	DIR *pd, *td;
	int ret;

	ret = require_root(m, "ResetAll", error);
	if (ret < 0)
		return ret;
	pd = opendir("/proc");
	if (!pd)
		return sd_bus_error_set_errnof(error, errno, "/proc: %m");
	while ((pde = readdir(pd))) {
		char path[64];
		uid_t owner = 0;
		long pid, tid;

		if (!is_number(pde->d_name, &pid) || pid == 1 ||
		    pid == getpid())
			continue;
		if (process_owner(pid, &owner) || owner == 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		td = opendir(path);
		if (!td)
			continue;
		while ((tde = readdir(td))) {
			if (!is_number(tde->d_name, &tid) ||
			    !granted_policy(policy_of(tid)))
				continue;
			if (!thread_reset(tid, true)) {
				log_info("ResetAll: thread %ld of process %ld back to SCHED_OTHER",
					 tid, pid);
				n++;
			}
		}
		closedir(td);
	}
	closedir(pd);
	gc();
	log_notice("ResetAll: %u threads demoted", n);
	notify_status();
	return sd_bus_reply_method_return(m, NULL);
}

static int method_exit(sd_bus_message *m, void *data, sd_bus_error *error)
{
	int ret;

	ret = require_root(m, "Exit", error);
	if (ret < 0)
		return ret;
	log_notice("Exit called: exiting");
	ret = sd_bus_reply_method_return(m, NULL);
	sd_event_exit(event, 0);
	return ret;
}

static int get_property(sd_bus *bus, const char *path, const char *iface,
			const char *prop, sd_bus_message *reply, void *data,
			sd_bus_error *error)
{
	if (!strcmp(prop, "RTTimeUSecMax"))
		return sd_bus_message_append(reply, "x",
					     (int64_t)cfg.rttime_usec_max);
	if (!strcmp(prop, "MaxRealtimePriority"))
		return sd_bus_message_append(reply, "i",
					     (int32_t)cfg.max_realtime_priority);
	return sd_bus_message_append(reply, "i", (int32_t)cfg.min_nice_level);
}

/* Anyone may call: the checks are the methods'. */
#define RK_METHOD(name, in, names, handler)				\
	SD_BUS_METHOD_WITH_NAMES(name, in, names, "", SD_BUS_PARAM(),	\
				 handler, SD_BUS_VTABLE_UNPRIVILEGED)

static const sd_bus_vtable rk_vtable[] = {
	SD_BUS_VTABLE_START(0),
	RK_METHOD("MakeThreadRealtime", "tu",
		  SD_BUS_PARAM(thread) SD_BUS_PARAM(priority),
		  method_realtime),
	RK_METHOD("MakeThreadRealtimeWithPID", "ttu",
		  SD_BUS_PARAM(process) SD_BUS_PARAM(thread)
		  SD_BUS_PARAM(priority), method_realtime_pid),
	RK_METHOD("MakeThreadHighPriority", "ti",
		  SD_BUS_PARAM(thread) SD_BUS_PARAM(priority), method_high),
	RK_METHOD("MakeThreadHighPriorityWithPID", "tti",
		  SD_BUS_PARAM(process) SD_BUS_PARAM(thread)
		  SD_BUS_PARAM(priority), method_high_pid),
	RK_METHOD("ResetKnown", "", SD_BUS_PARAM(), method_reset_known),
	RK_METHOD("ResetAll", "", SD_BUS_PARAM(), method_reset_all),
	RK_METHOD("Exit", "", SD_BUS_PARAM(), method_exit),
	SD_BUS_PROPERTY("RTTimeUSecMax", "x", get_property, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("MaxRealtimePriority", "i", get_property, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("MinNiceLevel", "i", get_property, 0,
			SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_VTABLE_END
};

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: bvt-rtkit-daemon [-c|--config FILE] [--dump-config]\n"
		"Grants SCHED_BVT with warp for rtkit's D-Bus interface\n"
		"(" RK_NAME ") on the system bus (DBUS_SYSTEM_BUS_ADDRESS).\n"
		"  -c, --config FILE  policy file (default $BVT_RTKIT_CONFIG or "
		DEFAULT_CONFIG ")\n"
		"      --dump-config  print the policy in force and exit\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "dump-config", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	const char *config = getenv("BVT_RTKIT_CONFIG");
	bool required = config && *config, dump = false;
	sd_bus_slot *slot = NULL;
	sd_bus *bus = NULL;
	char w[32], l[32], u[32];
	sigset_t mask;
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:h", options, NULL)) != -1) {
		switch (c) {
		case 'c':
			config = optarg;
			required = true;
			break;
		case 'd':
			dump = true;
			break;
		case 'h':
			print_usage(stdout);
			return 0;
		default:
			print_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		print_usage(stderr);
		return 2;
	}
	if (!required)
		config = DEFAULT_CONFIG;
	if (read_config(config, required))
		return 1;
	if (dump) {
		dump_config();
		return 0;
	}

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	ret = sd_event_default(&event);
	if (ret >= 0)
		ret = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
	if (ret >= 0)
		ret = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
	if (ret < 0) {
		log_err("event loop: %s", strerror(-ret));
		return 1;
	}
	ret = sd_bus_open_system(&bus);
	if (ret < 0) {
		log_err("system bus: %s", strerror(-ret));
		return 1;
	}
	ret = sd_bus_add_object_vtable(bus, &slot, RK_PATH, RK_IFACE,
				       rk_vtable, NULL);
	if (ret >= 0)
		ret = sd_bus_attach_event(bus, event, 0);
	if (ret >= 0)
		ret = sd_bus_request_name(bus, RK_NAME, 0);
	if (ret < 0) {
		log_err("%s on the system bus: %s", RK_NAME, strerror(-ret));
		return 1;
	}

	if (sched_bvt_present())
		log_info("granting SCHED_BVT warp %s limit %s unwarp %s weight %lld (policy %s)",
			 duration(cfg.warp, w, sizeof(w)),
			 cfg.warp_limit ? duration(cfg.warp_limit, l, sizeof(l)) :
					  "unlimited",
			 duration(cfg.unwarp, u, sizeof(u)), cfg.weight, config);
	else
		log_warn("this kernel has no SCHED_BVT: %s (policy %s)",
			 cfg.fallback_rr ?
				"granting SCHED_RR as rtkit does" :
				"refusing real-time requests (fallback-rr = no)",
			 config);
	sd_notify(0, "READY=1");
	notify_status();

	ret = sd_event_loop(event);
	if (ret < 0)
		log_err("event loop: %s", strerror(-ret));
	sd_bus_slot_unref(slot);
	sd_bus_flush_close_unref(bus);
	sd_event_unref(event);
	return ret < 0;
}
