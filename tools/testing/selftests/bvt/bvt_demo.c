// SPDX-License-Identifier: GPL-2.0
/*
 * What SCHED_BVT does, in one screen, measured next to EEVDF in the same
 * boot: two CPU-bound threads on one CPU with weights 1 and 3 get 25 % and
 * 75 % of it; and a thread that wakes every 10 ms to run for 1 ms, next to
 * two CPU-bound threads, is dispatched at once when it warps.
 *
 * Usage: bvt_demo [seconds]
 */
#include "bvt_util.h"

#include <sys/sysinfo.h>

static void show(const char *title, struct hog *hogs,
		 const char * const *names,
		 const double *ideal, unsigned int ms)
{
	int i;

	if (run_hogs(hogs, 2, ms)) {
		printf("%s: could not set up the threads: %s\n", title,
		       strerror(hogs[0].err ?: hogs[1].err));
		exit(1);
	}
	printf("%s\n", title);
	for (i = 0; i < 2; i++)
		printf("  %-28s %6.3f s CPU   share %5.1f %%   ideal %5.1f %%\n",
		       names[i], hogs[i].cpu_s, 100 * hog_share(hogs, 2, i),
		       100 * ideal[i]);
}

static void show_periodic(const char *title, struct sched_attr attr,
			  struct sched_attr hog_attr, int cpu)
{
	struct periodic pr = {
		.attr = attr, .cpu = cpu, .periods = 100,
		.period_ms = 10, .run_ms = 1,
	};
	double delay = periodic_among_hogs(&pr, 2, hog_attr);

	if (pr.err) {
		printf("%s: could not set up the threads: %s\n", title,
		       strerror(pr.err));
		exit(1);
	}
	printf("  %-40s %7.3f ms\n", title, delay);
}

int main(int argc, char **argv)
{
	unsigned int ms = argc > 1 ? atof(argv[1]) * 1000 : 2000;
	int cpu = get_nprocs() - 1;
	struct hog bvt[2] = {
		{ .attr = bvt_attr(1024, 0), .cpu = cpu },
		{ .attr = bvt_attr(3072, 0), .cpu = cpu },
	};
	struct hog eevdf[2] = {
		{ .attr = other_attr(0), .cpu = cpu },
		{ .attr = other_attr(-5), .cpu = cpu },	/* weight 3121 */
	};
	static const char * const bvt_names[] = {
		"SCHED_BVT weight 1024", "SCHED_BVT weight 3072",
	};
	static const char * const eevdf_names[] = {
		"SCHED_OTHER nice 0 (1024)", "SCHED_OTHER nice -5 (3121)",
	};
	const double bvt_ideal[] = { 0.25, 0.75 };
	const double eevdf_ideal[] = { 1024 / 4145.0, 3121 / 4145.0 };

	if (become_controller()) {
		perror("sched_setscheduler(SCHED_FIFO) for the controller");
		return 1;
	}
	printf("Two CPU-bound threads on CPU %d for %.1f s each run:\n\n", cpu,
	       ms / 1000.0);
	show("Borrowed Virtual Time (SCHED_BVT), weights 1:3", bvt, bvt_names,
	     bvt_ideal, ms);
	show("EEVDF (SCHED_OTHER), nice 0 and -5", eevdf, eevdf_names,
	     eevdf_ideal, ms);

	printf("\nA thread that wakes every 10 ms and runs 1 ms, next to two CPU-bound\n"
	       "threads on CPU %d, 100 periods: median delay from its wake-up time\n"
	       "to running\n", cpu);
	show_periodic("SCHED_OTHER (EEVDF), all nice 0", other_attr(0),
		      other_attr(0), cpu);
	show_periodic("SCHED_BVT, no warp", bvt_attr(0, 0), bvt_attr(0, 0), cpu);
	show_periodic("SCHED_BVT, warp 20 ms, L 5 ms, U 5 ms",
		      bvt_warp_attr(20 * NSEC_PER_MSEC, 5 * NSEC_PER_MSEC,
				    5 * NSEC_PER_MSEC),
		      bvt_attr(0, 0), cpu);
	return 0;
}
