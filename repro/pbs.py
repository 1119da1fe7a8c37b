# SPDX-License-Identifier: GPL-2.0
"""The PBS paper's Figures 2 and 3, measured in the booted kernel as its
Figure 4 measured Figure 2: CPU-bound threads on one CPU (the last),
their CPU time sampled every 50 ms by a SCHED_FIFO thread on CPU 0
(repro/pbs_fig.c), beside the reference simulation of PBS
(tools/testing/selftests/bvt/pbs_sim.h) sampled the same way.

  fig2   four threads arriving at 0, 1, 3 and 5 s needing 4.5, 2.5, 3
         and 2 s of CPU
  fig3   a persistent thread, and four more arriving at 2.5, 3, 3.5 and
         4 s, all running to the end (12 s)

for alpha = 0.01, 0.4, 1 and 100 in PBS mode (beta = 0: a thread's session
starts when it arrives; no current-thread bonus, as in the paper's
experiments), and the same threads as SCHED_OTHER (EEVDF) for comparison.
--scale divides every time (the short variant: 5).

With --task (repro/task.c), the cost of a pick as the runnable count
grows: N threads (10 to 1000) on one CPU calling sched_yield(), each call
a pick among N, under EEVDF, BVT, and PBS with the exact and the sampled
selection (the exact one samples beyond 64 threads); the time per call
and its ratio to EEVDF's in the same run (median over the runs).

    pbs.py --fig BIN [--task BIN] [--scale S] [--alphas a,b] [--runs N]
           [--out FILE]
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

ALPHAS = ["0.01", "0.4", "1", "100"]
KNOBS = ["sched_bvt_be_mode", "sched_bvt_pbs_alpha", "sched_bvt_pbs_beta",
         "sched_bvt_pbs_switch_ns", "sched_bvt_pbs_select"]
YIELD_THREADS = (10, 30, 60, 100, 1000)
YIELD_SECONDS = 2
# config -> (policy, best-effort level mode, PBS selection)
PICK_CONFIGS = {
    "eevdf": ({"policy": "other"}, "bvt", "exact"),
    "bvt": ({"policy": "bvt"}, "bvt", "exact"),
    "pbs-exact": ({"policy": "bvt"}, "pbs", "exact"),
    "pbs-sampled": ({"policy": "bvt"}, "pbs", "sampled"),
}


def run(args, fig, policy, alpha):
    cpu = os.cpu_count() - 1
    cmd = [args.fig, fig, str(args.scale), str(cpu), policy]
    if alpha:
        cmd.append(alpha)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def run_yield(task, threads, policy):
    """Time per sched_yield() (us) of threads threads on the last CPU."""
    p = procs.start([task, "yield", str(YIELD_SECONDS), str(threads)],
                    policy, {os.cpu_count() - 1})
    res = procs.go([p])[0]
    return 1e6 * res["wall_s"] / res["n"]


def pick_costs(args, result, r):
    for threads in YIELD_THREADS:
        for config, (policy, mode, select) in PICK_CONFIGS.items():
            procs.write_sysctl("sched_bvt_be_mode", mode)
            procs.write_sysctl("sched_bvt_pbs_select", select)
            rec = {"pick": config, "threads": threads, "run": r,
                   "us_per_yield": run_yield(args.task, threads, policy)}
            procs.record(result, rec)


def main():
    ap = procs.arguments()
    ap.add_argument("--fig", required=True)
    ap.add_argument("--scale", type=float, default=1)
    ap.add_argument("--alphas", default=",".join(ALPHAS))
    ap.add_argument("--task")
    args = ap.parse_args()

    procs.controller()
    saved = {k: procs.read_sysctl(k) for k in KNOBS}
    result = procs.new_result("pbs", scale=args.scale, runs=args.runs,
                              sample_ms=50)
    try:
        procs.write_sysctl("sched_bvt_pbs_beta", "0")
        procs.write_sysctl("sched_bvt_pbs_switch_ns", 0)
        for r in range(args.runs):
            for fig in ["fig2", "fig3"]:
                procs.write_sysctl("sched_bvt_be_mode", "bvt")
                rec = run(args, fig, "other", None)
                rec.update(fig=fig, config="eevdf", run=r)
                procs.record(result, rec)
                procs.write_sysctl("sched_bvt_be_mode", "pbs")
                for alpha in args.alphas.split(","):
                    procs.write_sysctl("sched_bvt_pbs_alpha", alpha)
                    rec = run(args, fig, "bvt", alpha)
                    rec.update(fig=fig, config="pbs", alpha=alpha, run=r)
                    procs.record(result, rec)
            if args.task:
                procs.write_sysctl("sched_bvt_pbs_alpha", "1")
                pick_costs(args, result, r)
    finally:
        for k in reversed(KNOBS):
            procs.write_sysctl(k, saved[k])
    picks = [r for r in result["runs_data"] if "pick" in r]
    result["pick_ratio"] = procs.median_ratios(picks, "threads", "pick",
                                               "us_per_yield", "eevdf")
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
