// SPDX-License-Identifier: GPL-2.0
/*
 * qas-admit: the reservation times of quality-assuring scheduling (QAS,
 * Hamann et al., RTSS 2001, section 4) for tasks whose execution times
 * are given as measured distributions, for the quality asked of each.
 *
 *   qas-admit [-v CLASSES] [-s PERIODS] [-c CAPACITY] SPEC
 *   qas-admit [...] --apply TID SPEC       give the one task's set to TID
 *   qas-admit [...] SPEC -- COMMAND...     run COMMAND with it
 *   qas-admit --bench                      the paper's Table 5/6 case
 *
 * With --apply or a command, --restrict keeps the thread to its reserved
 * time (SCHED_BVT_QAS_RESTRICT).  The set has no signal: the kernel takes
 * one only from the thread itself, and exec drops it; the thread sees its
 * part and period with BVT_CTL_QAS_GET.
 *
 * SPEC has one task per line ('#' starts a comment):
 *
 *   task NAME period=T parts=C quality=Q [preempt=0|1] [w=W] [x=DIST] y=DIST
 *
 * T and W are times (ns, or with us, ms, s); C the number of optional
 * parts a period; Q in [0, 1]; X the mandatory part's and Y one optional
 * part's execution time; W the mandatory part's worst case (the maximum
 * of X if not given; X is W if not given).  A DIST is @FILE (one sample
 * a line, ns), const:TIME, or normal:MEAN,SD,MAX (a normal distribution
 * cut at 0 and MAX).  preempt=1 (the default) is the CPU: an optional
 * part is cut off when the reservation or the period ends, and succeeds
 * only if it completes; preempt=0 is a resource such as a disk: a part
 * started before either end completes (the paper's section 4.3).
 *
 * The optional parts get priorities by Quality Monotonic Scheduling: the
 * higher the quality asked, the higher; all below every mandatory part.
 * Uniform periods are computed analytically (section 4.3: the number of
 * parts started, from the distributions of the mandatory parts and of the
 * optional jobs of higher priority, by convolution; 4.4.1 for
 * preemptible parts), on CLASSES classes of the period (default 10000),
 * with FFT convolutions: O(v log v) each, where the paper's were O(v^2).
 * Other periods are simulated, and each reservation found by binary search
 * from the q-quantile of its parts' total time (section 4.4.3); harmonic
 * periods try both QMS orders of section 4.4.2 (by quality; by period,
 * then quality) and keep the one that admits.  -s simulates PERIODS
 * periods (default 20000) to check what the model predicts.  CAPACITY
 * (default 1) is the part of each period the tasks may use: 0.9 leaves
 * the idle reservation of a plan its 10 %.
 */
#define _GNU_SOURCE
#include <complex.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/sched/types.h>

#include "qas.h"

#ifndef SCHED_BVT
#define SCHED_BVT	8
#endif

#define MAX_TASKS	32
#define EPS		0.000000001	/* of a class, or a ratio of periods */
#define TINY		0.000000000001	/* of a probability */

/* A measured distribution: its samples, ns. */
struct samples {
	double *v;
	int n;
	double max;
};

struct task {
	char name[32];
	double period;		/* ns */
	int parts;
	double quality;
	bool preempt;
	double w;		/* worst case of the mandatory part, ns */
	struct samples x, y;
	/* out */
	int prio;		/* 0 first */
	double r;		/* reservation of the optional parts, ns */
	double predicted;	/* quality the model gives for r */
	double simulated;
};

static struct task tasks[MAX_TASKS];
static int nr_tasks;
static int classes = 10000;
static long sim_periods = 20000;
static double capacity = 1.0;

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "qas-admit: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(2);
}

/* A time: ns, or with a unit. */
static double parse_time(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		die("bad time: %s", s);
	if (!strncmp(end, "us", 2))
		return v * 1e3;
	if (!strncmp(end, "ms", 2))
		return v * 1e6;
	if (*end == 's')
		return v * 1e9;
	return v;
}

static void add_sample(struct samples *s, double v)
{
	if (!(s->n & (s->n - 1))) {
		s->v = realloc(s->v, sizeof(*s->v) * (s->n ? 2 * s->n : 1));
		if (!s->v)
			die("%s", "out of memory");
	}
	s->v[s->n++] = v;
	if (v > s->max)
		s->max = v;
}

/* Samples of a normal distribution cut at 0 and @max, by Box-Muller. */
static void normal_samples(struct samples *s, double mean, double sd,
			   double max, unsigned int *seed)
{
	double u, v, z;
	int i;

	for (i = 0; i < 200000; i++) {
		u = (rand_r(seed) + 1.0) / (RAND_MAX + 2.0);
		v = (rand_r(seed) + 1.0) / (RAND_MAX + 2.0);
		z = mean + sd * sqrt(-2 * log(u)) * cos(2 * M_PI * v);
		add_sample(s, z < 0 ? 0 : z > max ? max : z);
	}
}

static void parse_dist(struct samples *s, const char *spec)
{
	unsigned int seed = 1;
	char line[128];
	FILE *f;

	memset(s, 0, sizeof(*s));
	if (spec[0] == '@') {
		f = fopen(spec + 1, "r");
		if (!f)
			die("cannot read %s", spec + 1);
		while (fgets(line, sizeof(line), f))
			if (line[0] != '#' && line[0] != '\n')
				add_sample(s, strtod(line, NULL));
		fclose(f);
	} else if (!strncmp(spec, "const:", 6)) {
		add_sample(s, parse_time(spec + 6));
	} else if (!strncmp(spec, "normal:", 7)) {
		const char *a = spec + 7, *b = strchr(a, ','), *c;

		c = b ? strchr(b + 1, ',') : NULL;
		if (!c)
			die("bad distribution: %s", spec);
		normal_samples(s, parse_time(a), parse_time(b + 1),
			       parse_time(c + 1), &seed);
	} else {
		die("bad distribution: %s", spec);
	}
	if (!s->n)
		die("empty distribution: %s", spec);
}

static void parse_spec(const char *path)
{
	char line[1024], *tok, *save;
	struct task *t;
	FILE *f = fopen(path, "r");

	if (!f)
		die("cannot read %s", path);
	while (fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \t\n", &save);
		if (!tok || tok[0] == '#')
			continue;
		if (strcmp(tok, "task"))
			die("not a task: %s", tok);
		if (nr_tasks == MAX_TASKS)
			die("%s", "too many tasks");
		t = &tasks[nr_tasks++];
		memset(t, 0, sizeof(*t));
		t->preempt = true;
		t->w = -1;
		tok = strtok_r(NULL, " \t\n", &save);
		snprintf(t->name, sizeof(t->name), "%s", tok ? tok : "?");
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			char *val = strchr(tok, '=');

			if (!val)
				die("bad field: %s", tok);
			*val++ = 0;
			if (!strcmp(tok, "period"))
				t->period = parse_time(val);
			else if (!strcmp(tok, "parts"))
				t->parts = atoi(val);
			else if (!strcmp(tok, "quality"))
				t->quality = atof(val);
			else if (!strcmp(tok, "preempt"))
				t->preempt = atoi(val);
			else if (!strcmp(tok, "w"))
				t->w = parse_time(val);
			else if (!strcmp(tok, "x"))
				parse_dist(&t->x, val);
			else if (!strcmp(tok, "y"))
				parse_dist(&t->y, val);
			else
				die("unknown field: %s", tok);
		}
		if (t->period <= 0 || t->parts < 1 || !t->y.n ||
		    t->quality < 0 || t->quality > 1)
			die("task %s needs period, parts, quality in [0, 1], y",
			    t->name);
		if (!t->x.n)
			add_sample(&t->x, t->w > 0 ? t->w : 0);
		if (t->w < 0)
			t->w = t->x.max;
	}
	fclose(f);
	if (!nr_tasks)
		die("no task in %s", path);
}

/*
 * Distributions on the grid: d[i] is the probability of i classes, for
 * i < v, and d[v] that of v or more (the period is over).
 */
static int v;			/* classes a period */
static double delta;		/* ns a class */

static double *dist_new(void)
{
	double *d = calloc(v + 1, sizeof(*d));

	if (!d)
		die("%s", "out of memory");
	return d;
}

/* @s on the grid, each sample rounded up to a whole class. */
static double *dist_of(const struct samples *s)
{
	double *d = dist_new();
	long c;
	int i;

	for (i = 0; i < s->n; i++) {
		c = (long)ceil(s->v[i] / delta - EPS);
		d[c < v ? c : v] += 1.0 / s->n;
	}
	return d;
}

/* An FFT of @n (a power of 2) points, in place; @inv: the inverse. */
static void fft(complex double *a, int n, bool inv)
{
	complex double w, wn, u, t;
	int i, j, k, len;

	for (i = 1, j = 0; i < n; i++) {
		int bit = n >> 1;

		for (; j & bit; bit >>= 1)
			j ^= bit;
		j ^= bit;
		if (i < j) {
			t = a[i];
			a[i] = a[j];
			a[j] = t;
		}
	}
	for (len = 2; len <= n; len <<= 1) {
		wn = cexp((inv ? 2 : -2) * M_PI * I / len);
		for (i = 0; i < n; i += len) {
			w = 1;
			for (k = 0; k < len / 2; k++) {
				u = a[i + k];
				t = w * a[i + k + len / 2];
				a[i + k] = u + t;
				a[i + k + len / 2] = u - t;
				w *= wn;
			}
		}
	}
	if (inv)
		for (i = 0; i < n; i++)
			a[i] /= n;
}

/* @a + @b, independent, into @out (which may be either): O(v log v). */
static void convolve(double *out, const double *a, const double *b)
{
	static complex double *fa, *fb;
	static int n, for_v;
	double sum = 0, mass;
	int i;

	if (for_v != v) {
		for (n = 1; n < 2 * v; n <<= 1)
			;
		for_v = v;
		free(fa);
		free(fb);
		fa = malloc(sizeof(*fa) * n);
		fb = malloc(sizeof(*fb) * n);
		if (!fa || !fb)
			die("%s", "out of memory");
	}
	/* Either may be part of a distribution: what it holds in all. */
	for (mass = 0, i = 0; i <= v; i++)
		mass += a[i];
	for (sum = 0, i = 0; i <= v; i++)
		sum += b[i];
	mass *= sum;
	sum = 0;
	for (i = 0; i < n; i++) {
		fa[i] = i < v ? a[i] : 0;
		fb[i] = i < v ? b[i] : 0;
	}
	fft(fa, n, false);
	fft(fb, n, false);
	for (i = 0; i < n; i++)
		fa[i] *= fb[i];
	fft(fa, n, true);
	for (i = 0; i < v; i++) {
		out[i] = creal(fa[i]) > TINY ? creal(fa[i]) : 0;
		sum += out[i];
	}
	/* Whatever reaches v, or either part's own overflow, is past it. */
	out[v] = sum < mass ? mass - sum : 0;
}

/* The least r (classes) at which @eval(r) >= @target; v + 1 if none. */
static int least_r(double (*eval)(int r, void *arg), void *arg, double target)
{
	int lo = 0, hi = v + 1, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (eval(mid, arg) >= target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * One task's optional job in a period of uniform length: its parts'
 * sums S_k (S_0 = 0), the distribution of when the job may start (B: the
 * mandatory parts and the optional jobs above it), and for the expected
 * number of parts that succeed with a reservation of r classes,
 * prefix sums that make it O(parts) for each r.
 */
struct job {
	const struct task *t;
	double **s;		/* s[k], k = 0..parts */
	double *b_cdf;		/* P(B <= i) */
	double **gain;		/* gain[k][r]: P(part k+1 succeeds | r) */
};

/*
 * Non-preemptible (section 4.3): part k starts, and so succeeds, if the
 * k - 1 before it ended before r and before the period's end:
 * P(S_{k-1} < r and B + S_{k-1} < v).  Preemptible (4.4.1): it succeeds if
 * it ends by both: P(S_k <= r and B + S_k <= v).
 */
static void job_gains(struct job *j)
{
	int k, i, c = j->t->parts;
	const double *s;
	double acc;

	j->gain = calloc(c, sizeof(*j->gain));
	for (k = 0; k < c; k++) {
		j->gain[k] = calloc(v + 2, sizeof(double));
		s = j->t->preempt ? j->s[k + 1] : j->s[k];
		acc = 0;
		for (i = 0; i <= v; i++) {
			/* gain[k][r] sums the classes below r (non-preemptible) */
			if (j->t->preempt) {
				if (i < v)
					acc += s[i] * j->b_cdf[v - i];
				j->gain[k][i] = acc;
			} else {
				j->gain[k][i] = acc;
				if (i < v)
					acc += s[i] * j->b_cdf[v - 1 - i];
			}
		}
		j->gain[k][v + 1] = acc;
	}
}

/* The expected fraction of the parts that succeed with r classes. */
static double job_quality(int r, void *arg)
{
	struct job *j = arg;
	double sum = 0;
	int k;

	for (k = 0; k < j->t->parts; k++)
		sum += j->gain[k][r > v + 1 ? v + 1 : r];
	return sum / j->t->parts;
}

/*
 * The time the optional job takes from its start, U, with r classes: for
 * preemptible parts min(S_c, r) (the period's end cuts B + U, which lands
 * in the overflow class); for non-preemptible ones the paper's mixture
 * (Eq. 7-8) of S_k given that part k + 1 was not started for the
 * reservation, weighted by the probability that k parts were started.
 */
static double *job_time(struct job *j, int r)
{
	int c = j->t->parts, k, i;
	double *u = dist_new(), *tmp = dist_new(), *y = j->s[1];
	double w, mass;

	if (j->t->preempt) {
		for (i = 0; i <= v; i++)
			u[i < r ? i : (r < v ? r : v)] += j->s[c][i];
		free(tmp);
		return u;
	}
	/* P(A = 0): not even the first part started. */
	u[0] += 1 - j->gain[0][r];
	for (k = 1; k <= c; k++) {
		w = j->gain[k - 1][r] - (k < c ? j->gain[k][r] : 0);
		if (w <= 0)
			continue;
		/* S_k with S_{k-1} < r, and for k < c, S_k >= r. */
		for (i = 0; i <= v; i++)
			tmp[i] = i < r && i < v ? j->s[k - 1][i] : 0;
		convolve(tmp, tmp, y);
		for (mass = 0, i = 0; i <= v; i++) {
			if (k < c && i < r)
				tmp[i] = 0;
			mass += tmp[i];
		}
		for (i = 0; mass > 0 && i <= v; i++)
			u[i] += w * tmp[i] / mass;
	}
	free(tmp);
	return u;
}

/* QMS: a higher quality first; for equal ones, the shorter period. */
static int qms_cmp(const void *a, const void *b)
{
	const struct task *x = *(struct task * const *)a;
	const struct task *y = *(struct task * const *)b;

	if (x->quality != y->quality)
		return x->quality > y->quality ? -1 : 1;
	return (x->period > y->period) - (x->period < y->period);
}

/* By period, then QMS: the second order section 4.4.2 tries. */
static int rm_qms_cmp(const void *a, const void *b)
{
	const struct task *x = *(struct task * const *)a;
	const struct task *y = *(struct task * const *)b;

	if (x->period != y->period)
		return x->period < y->period ? -1 : 1;
	return qms_cmp(a, b);
}

/* Uniform periods: sections 4.3 and 4.4.1.  Returns 0 if all are met. */
static int admit_uniform(struct task **order)
{
	double *b, *x, *u, acc;
	struct job j;
	int i, k, r, ret = 0;

	v = classes;
	delta = order[0]->period * capacity / v;
	b = dist_new();
	/* The mandatory parts come first: B starts as their sum. */
	b[0] = 1;
	for (i = 0; i < nr_tasks; i++) {
		x = dist_of(&order[i]->x);
		convolve(b, b, x);
		free(x);
	}
	for (i = 0; i < nr_tasks; i++) {
		memset(&j, 0, sizeof(j));
		j.t = order[i];
		j.s = calloc(j.t->parts + 1, sizeof(*j.s));
		j.s[0] = dist_new();
		j.s[0][0] = 1;
		j.s[1] = dist_of(&j.t->y);
		for (k = 2; k <= j.t->parts; k++) {
			j.s[k] = dist_new();
			convolve(j.s[k], j.s[k - 1], j.s[1]);
		}
		j.b_cdf = dist_new();
		for (acc = 0, k = 0; k <= v; k++)
			j.b_cdf[k] = acc += b[k];
		job_gains(&j);
		r = least_r(job_quality, &j, j.t->quality - TINY);
		if (r > v) {
			ret = -1;
			r = v;
		}
		order[i]->r = r * delta;
		order[i]->predicted = job_quality(r, &j);
		u = job_time(&j, r);
		convolve(b, b, u);
		free(u);
		for (k = 0; k <= j.t->parts; k++)
			free(j.s[k]);
		for (k = 0; k < j.t->parts; k++)
			free(j.gain[k]);
		free(j.s);
		free(j.gain);
		free(j.b_cdf);
	}
	free(b);
	return ret;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double sample(const struct samples *s, unsigned int *seed)
{
	return s->v[rand_r(seed) % s->n];
}

/*
 * Simulate @periods periods of the longest period: one CPU, fixed
 * priorities (the mandatory parts by period, above the optional jobs in
 * @order), each task released at its period's start, its optional parts
 * started while the job has reservation and period left.  A preemptible
 * part succeeds if it completes before both end; a non-preemptible one
 * succeeds once started, and what it runs past the period's end is not
 * carried into the next (as the model takes periods one at a time).
 * Sets each task's simulated quality; returns the number of mandatory
 * parts that missed.
 */
static long simulate(struct task **order, long periods, unsigned int seed)
{
	struct state {
		double next, end, mand, part, used;
		long done, started, total;
	} st[MAX_TASKS] = { };
	double now = 0, horizon = 0, until, run;
	long misses = 0;
	int i, cur;

	for (i = 0; i < nr_tasks; i++)
		if (order[i]->period > horizon)
			horizon = order[i]->period;
	horizon *= periods;
	while (now < horizon) {
		/* Releases due: a new period for each. */
		for (i = 0; i < nr_tasks; i++) {
			struct state *s = &st[i];

			if (s->next > now)
				continue;
			if (s->mand > 0)
				misses++;
			s->end = s->next + order[i]->period * capacity;
			s->next += order[i]->period;
			s->mand = sample(&order[i]->x, &seed);
			s->part = 0;
			s->used = 0;
			s->started = 0;
			s->total += order[i]->parts;
		}
		until = horizon;
		for (i = 0; i < nr_tasks; i++)
			if (st[i].next < until)
				until = st[i].next;
		/* Mandatory parts first, the shortest period first. */
		for (cur = -1, i = 0; i < nr_tasks; i++)
			if (st[i].mand > 0 && now < st[i].end &&
			    (cur < 0 || order[i]->period < order[cur]->period))
				cur = i;
		if (cur >= 0) {
			run = fmin(st[cur].mand, fmin(until, st[cur].end) - now);
			st[cur].mand -= run;
			now += run;
			continue;
		}
		for (cur = -1, i = 0; i < nr_tasks && cur < 0; i++) {
			struct state *s = &st[i];

			if (s->mand > 0 || now >= s->end)
				continue;
			while (s->part <= 0 && s->started < order[i]->parts &&
			       s->used < order[i]->r) {
				s->part = sample(&order[i]->y, &seed);
				s->started++;
				/*
				 * Non-preemptible: started is done (4.3); a
				 * part of no time is done at once.
				 */
				if (!order[i]->preempt || s->part <= 0)
					s->done++;
			}
			if (s->part > 0)
				cur = i;
		}
		if (cur < 0) {
			now = until;
			continue;
		}
		run = fmin(st[cur].part, fmin(until, st[cur].end) - now);
		if (order[cur]->preempt)
			run = fmin(run, order[cur]->r - st[cur].used);
		st[cur].part -= run;
		st[cur].used += run;
		now += run;
		if (st[cur].part <= 0) {
			if (order[cur]->preempt)
				st[cur].done++;
		} else if (order[cur]->preempt &&
			   (st[cur].used >= order[cur]->r ||
			    now >= st[cur].end)) {
			/* Cut off: it failed, and no part follows. */
			st[cur].part = 0;
			st[cur].started = order[cur]->parts;
		}
	}
	for (i = 0; i < nr_tasks; i++)
		order[i]->simulated = st[i].total ?
				      (double)st[i].done / st[i].total : 0;
	return misses;
}

/*
 * Arbitrary periods (section 4.4.3): by simulation, each reservation
 * found by binary search, in priority order (a reservation changes the
 * quality of the tasks below it only), from the q-quantile of its parts'
 * total time up to the period.
 */
static int admit_simulated(struct task **order)
{
	long sim = sim_periods / 4 > 2000 ? sim_periods / 4 : 2000;
	unsigned int seed = 7;
	double lo, hi, *tot;
	int i, k, p, n = 4001, iter;

	for (i = 0; i < nr_tasks; i++)
		order[i]->r = 0;
	for (i = 0; i < nr_tasks; i++) {
		tot = malloc(sizeof(*tot) * n);
		if (!tot)
			die("%s", "out of memory");
		for (k = 0; k < n; k++)
			for (tot[k] = 0, p = 0; p < order[i]->parts; p++)
				tot[k] += sample(&order[i]->y, &seed);
		qsort(tot, n, sizeof(*tot), cmp_double);
		lo = fmin(tot[(int)(order[i]->quality * (n - 1))],
			  order[i]->period) / 2;
		free(tot);
		hi = order[i]->period * capacity;
		for (iter = 0; iter < 24; iter++) {
			order[i]->r = (lo + hi) / 2;
			simulate(order, sim, 1);
			if (order[i]->simulated >= order[i]->quality)
				hi = order[i]->r;
			else
				lo = order[i]->r;
		}
		order[i]->r = hi;
		simulate(order, sim, 1);
		order[i]->predicted = order[i]->simulated;
		if (order[i]->simulated < order[i]->quality)
			return -1;
	}
	return 0;
}

static bool periods_uniform(void)
{
	int i;

	for (i = 1; i < nr_tasks; i++)
		if (tasks[i].period != tasks[0].period)
			return false;
	return true;
}

static bool periods_harmonic(void)
{
	double a, b;
	int i, j;

	for (i = 0; i < nr_tasks; i++) {
		for (j = 0; j < nr_tasks; j++) {
			a = fmin(tasks[i].period, tasks[j].period);
			b = fmax(tasks[i].period, tasks[j].period);
			if (fabs(b / a - round(b / a)) > EPS)
				return false;
		}
	}
	return true;
}

/* Priorities, reservations, predictions: 0 if every task is admitted. */
static int admit(struct task **order, const char **method)
{
	double mand = 0;
	int i, ret;

	for (i = 0; i < nr_tasks; i++) {
		order[i] = &tasks[i];
		mand += tasks[i].w / tasks[i].period;
	}
	/* Section 4.3: the mandatory parts must fit, at their worst case. */
	if (mand > capacity) {
		*method = "mandatory parts do not fit";
		return -1;
	}
	qsort(order, nr_tasks, sizeof(*order), qms_cmp);
	if (periods_uniform()) {
		*method = "uniform periods, analytic";
		ret = admit_uniform(order);
	} else {
		for (i = 0; i < nr_tasks; i++)
			if (!tasks[i].preempt)
				die("%s", "non-preemptible parts need uniform periods");
		*method = "arbitrary periods, simulated";
		ret = admit_simulated(order);
		if (ret && periods_harmonic()) {
			*method = "harmonic periods, simulated, by period then QMS";
			qsort(order, nr_tasks, sizeof(*order), rm_qms_cmp);
			ret = admit_simulated(order);
		} else if (periods_harmonic()) {
			*method = "harmonic periods, simulated, QMS";
		}
	}
	for (i = 0; i < nr_tasks; i++)
		order[i]->prio = i;
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print(struct task **order, const char *method, int ret)
{
	int i;

	printf("# %s; %d classes a period; %s\n", method, classes,
	       ret ? "NOT admitted" : "admitted");
	printf("# %-14s %10s %5s %7s %5s %12s %12s %9s %9s\n", "task",
	       "period_ms", "parts", "quality", "prio", "mandatory_ms",
	       "optional_ms", "predicted", "simulated");
	for (i = 0; i < nr_tasks; i++)
		printf("%-16s %10.3f %5d %7.4f %5d %12.3f %12.3f %9.4f %9.4f\n",
		       order[i]->name, order[i]->period / 1e6, order[i]->parts,
		       order[i]->quality, order[i]->prio, order[i]->w / 1e6,
		       order[i]->r / 1e6, order[i]->predicted,
		       order[i]->simulated);
}

/*
 * Give thread @tid the set of the one task: SCHED_BVT, its period, its
 * mandatory part (if any) and its optional parts' reservation.
 */
static int apply(pid_t tid, const struct task *t, unsigned int flags)
{
	struct sched_attr attr = {
		.size = sizeof(attr), .sched_policy = SCHED_BVT,
	};

	if (syscall(SYS_sched_setattr, tid, &attr, 0) ||
	    qas_set_period_of(tid, (__u64)t->period, flags, 0) < 0 ||
	    (t->w > 0 && qas_reserve_time_of(tid, (__u64)ceil(t->w), 0, 1,
					     NULL) < 0) ||
	    (t->r > 0 && qas_reserve_time_of(tid, (__u64)ceil(t->r), 0, 0,
					     NULL) < 0)) {
		perror("qas-admit: giving the set");
		return -1;
	}
	return 0;
}

/*
 * The paper's Table 5 and 6 case: four streams of 64 KB disk reads, 500 ms
 * periods, request times of mean 13.2 ms, SD 2.6 ms, at most 33.2 ms,
 * non-preemptible, optional parts only.
 */
static int bench(void)
{
	static const int parts[] = { 20, 10, 5, 10 };
	static const double q[] = { 0.95, 0.90, 0.85, 0.50 };
	static const int vs[] = { 500, 1000, 2500, 5000, 10000, 25000, 50000 };
	struct task *order[MAX_TASKS];
	unsigned int seed = 1;
	const char *method;
	struct samples y = { };
	double t0;
	int i, k, ret;

	normal_samples(&y, 13.2e6, 2.6e6, 33.2e6, &seed);
	nr_tasks = 4;
	printf("# classes  seconds  r1_ms   q1     r2_ms   q2     r3_ms   q3     r4_ms   q4\n");
	for (k = 0; k < 7; k++) {
		for (i = 0; i < 4; i++) {
			memset(&tasks[i], 0, sizeof(tasks[i]));
			snprintf(tasks[i].name, sizeof(tasks[i].name), "stream%d",
				 i + 1);
			tasks[i].period = 500e6;
			tasks[i].parts = parts[i];
			tasks[i].quality = q[i];
			tasks[i].y = y;
			add_sample(&tasks[i].x, 0);
		}
		classes = vs[k];
		t0 = now_s();
		ret = admit(order, &method);
		t0 = now_s() - t0;
		simulate(order, sim_periods, 3);
		printf("%9d %8.3f", classes, t0);
		for (i = 0; i < 4; i++)
			printf(" %7.2f %6.4f", tasks[i].r / 1e6,
			       tasks[i].simulated);
		printf("%s\n", ret ? "  NOT admitted" : "");
		for (i = 0; i < 4; i++)
			free(tasks[i].x.v);
		fflush(stdout);
	}
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"qas-admit [-v CLASSES] [-s PERIODS] [-c CAPACITY] [--restrict]\n"
		"          [--apply TID] SPEC [-- COMMAND...]\n"
		"qas-admit --bench\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct task *order[MAX_TASKS];
	const char *spec = NULL, *method;
	pid_t tid = 0;
	unsigned int flags = 0;
	int i, ret;
	char **cmd = NULL;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--bench")) {
			return bench();
		} else if (!strcmp(argv[i], "-v") && i + 1 < argc) {
			classes = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-s") && i + 1 < argc) {
			sim_periods = atol(argv[++i]);
		} else if (!strcmp(argv[i], "-c") && i + 1 < argc) {
			capacity = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--apply") && i + 1 < argc) {
			tid = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--restrict")) {
			flags |= SCHED_BVT_QAS_RESTRICT;
		} else if (!strcmp(argv[i], "--")) {
			cmd = argv + i + 1;
			break;
		} else if (argv[i][0] == '-' || spec) {
			usage();
		} else {
			spec = argv[i];
		}
	}
	if (!spec || classes < 10 || classes > 10000000 || capacity <= 0 ||
	    capacity > 1 || (cmd && !*cmd) || (flags && !tid && !cmd))
		usage();
	parse_spec(spec);
	ret = admit(order, &method);
	if (sim_periods)
		simulate(order, sim_periods, 3);
	print(order, method, ret);
	if (ret)
		return 1;
	if ((tid || cmd) && nr_tasks != 1)
		die("%s", "--apply and a command take a spec of one task");
	if (tid)
		return apply(tid, &tasks[0], flags) ? 1 : 0;
	if (cmd) {
		if (apply(0, &tasks[0], flags))
			return 1;
		/* The table must not be lost in the buffer exec drops. */
		fflush(stdout);
		execvp(cmd[0], cmd);
		perror("qas-admit: exec");
		return 127;
	}
	return 0;
}
