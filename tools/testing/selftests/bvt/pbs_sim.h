/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reference simulation of PBS (Feng, Misra, Rubenstein): one CPU, time
 * in quanta of 1 ms, and in each quantum the arrived, unfinished task with
 * the largest T / S^alpha runs, T its time since arrival and S the service
 * it had.  A task that has not run (S = 0) comes before every task that
 * has, the oldest first; T < S counts as T = S.  No current-task bonus.
 * Used by bvt_pbs_test and by the reproductions of the paper's Fig. 2
 * and 3 (repro/).
 */
#ifndef PBS_SIM_H
#define PBS_SIM_H

#include <math.h>
#include <stdbool.h>

#define PBS_SIM_MAX	16

struct pbs_sim_task {
	double arrive_ms, demand_ms;	/* in */
	double done_ms;			/* out: completion time */
	double ran_ms;			/* private */
};

/*
 * Run @n tasks to completion at @alpha.  @ran, if not NULL, gets for
 * every quantum q the task that ran in it (or -1), for q < @max_q.
 */
static inline void pbs_sim(struct pbs_sim_task *t, int n, double alpha,
			   int *ran, int max_q)
{
	int left = n, q, i, best;
	double now, p, best_p, age, best_age;
	bool best_new;

	for (i = 0; i < n; i++) {
		t[i].ran_ms = 0;
		t[i].done_ms = -1;
	}
	for (q = 0; left; q++) {
		now = q;
		best = -1;
		best_p = 0;
		best_age = 0;
		best_new = false;
		for (i = 0; i < n; i++) {
			if (t[i].arrive_ms > now || t[i].done_ms >= 0)
				continue;
			age = now - t[i].arrive_ms;
			if (t[i].ran_ms == 0) {
				/* infinite p: the oldest of those first */
				if (!best_new || age > best_age) {
					best = i;
					best_new = true;
					best_age = age;
				}
				continue;
			}
			if (best_new)
				continue;
			if (age < t[i].ran_ms)
				age = t[i].ran_ms;
			p = log2(age) - alpha * log2(t[i].ran_ms);
			if (best < 0 || p > best_p) {
				best = i;
				best_p = p;
			}
		}
		if (ran && q < max_q)
			ran[q] = best;
		if (best < 0)
			continue;
		t[best].ran_ms += 1;
		if (t[best].ran_ms >= t[best].demand_ms) {
			t[best].done_ms = now + 1;
			left--;
		}
	}
}

#endif /* PBS_SIM_H */
