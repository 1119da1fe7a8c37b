# SPDX-License-Identifier: GPL-2.0
"""Scheduler overhead: SCHED_BVT against SCHED_OTHER, in one boot.

Runs "perf bench sched pipe" (two tasks ping-ponging over a pipe on one
CPU: a context switch per message), rt-tests' hackbench and "perf bench
sched messaging" (groups of senders and receivers over sockets) with every
task in SCHED_OTHER, SCHED_BVT, SCHED_BVT with the paper's wake-up rule
(sched_bvt_wakeup_granularity_ns 0: "bvt-paper") or SCHED_FIFO,
alternating the policies run by run, and reports each one's time and its
ratios to SCHED_OTHER's and SCHED_FIFO's (the median of the runs' ratios),
and the context switches and reschedule IPIs of each run, system-wide.
SCHED_FIFO is the reference for what any class other than the fair one
costs: the core picks from the fair class alone by a fast path that skips
the other classes.

With --task (repro/task.c), it also measures the cost of a pick as the
runnable count grows: N threads (10 to 1000) on one CPU calling
sched_yield(), each call a pick among N, and reports the time per call.

    overhead.py --out FILE [--runs N] [--task BIN]
"""
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402
import schedattr  # noqa: E402

POLICIES = {"other": {"policy": "other"}, "bvt": {"policy": "bvt"},
            "bvt-paper": {"policy": "bvt"},
            "fifo": {"policy": "fifo", "prio": 1}}
# The class's sysctls a policy runs with, set around its runs.
SYSCTLS = {"bvt-paper": {"sched_bvt_wakeup_granularity_ns": 0}}
BENCHES = {
    # name: (command, regex for the time in seconds, pinned to one CPU).
    # The pipe pair is pinned: unpinned, where the two tasks run (one CPU
    # or two, with an IPI per message: costly under TCG) decides the time,
    # not the cost of a switch.
    "pipe": (["perf", "bench", "sched", "pipe", "-l", "5000"],
             r"Total time:\s+([\d.]+) \[sec\]", True),
    "hackbench": (["hackbench", "-g", "4", "-l", "25", "-s", "100"],
                  r"Time:\s+([\d.]+)", False),
    # perf's own hackbench: 4 groups of 20 senders and 20 receivers over
    # sockets, 25 messages each.
    "messaging": (["perf", "bench", "sched", "messaging", "-g", "4", "-l",
                   "25"], r"Total time:\s+([\d.]+) \[sec\]", False),
}


def counters():
    """Context switches and reschedule IPIs so far, all CPUs."""
    with open("/proc/stat") as f:
        ctxt = next(int(line.split()[1]) for line in f
                    if line.startswith("ctxt "))
    with open("/proc/interrupts") as f:
        res = next(sum(int(x) for x in line.split()[1:]
                       if x.isdigit())
                   for line in f if line.split()[0] == "RES:")
    return ctxt, res


def run_bench(name, policy):
    """The time of one run of bench name, its context switches and IPIs."""
    cmd, pattern, pinned = BENCHES[name]

    def setup():
        if pinned:
            os.sched_setaffinity(0, {os.cpu_count() - 1})
        schedattr.apply(0, POLICIES[policy])

    with procs.sysctls(SYSCTLS.get(policy, {})):
        ctxt, res = counters()
        out = subprocess.run(cmd, capture_output=True, text=True,
                             preexec_fn=setup)
        ctxt2, res2 = counters()
    m = re.search(pattern, out.stdout + out.stderr)
    if out.returncode or not m:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd),
                                              out.stdout + out.stderr))
    return float(m.group(1)), ctxt2 - ctxt, res2 - res


YIELD_THREADS = (10, 100, 1000)
YIELD_SECONDS = 2


def run_yield(task, threads, policy):
    """Time per sched_yield() (us) of threads threads on the last CPU."""
    with procs.sysctls(SYSCTLS.get(policy, {})):
        p = procs.start([task, "yield", str(YIELD_SECONDS), str(threads)],
                        POLICIES[policy], {os.cpu_count() - 1})
        res = procs.go([p])[0]
    return 1e6 * res["wall_s"] / res["n"]


def main():
    ap = procs.arguments(runs=5)
    ap.add_argument("--task")
    args = ap.parse_args()

    # The controller outranks what it measures; children get a policy each.
    schedattr.apply(0, {"policy": "fifo", "prio": 90})
    result = procs.new_result("overhead", runs=args.runs)
    for run in range(args.runs):
        for bench in BENCHES:
            for policy in POLICIES:
                t, ctxt, ipis = run_bench(bench, policy)
                rec = {"bench": bench, "policy": policy, "run": run,
                       "time_s": t, "switches": ctxt, "res_ipis": ipis}
                procs.record(result, rec)
        for threads in YIELD_THREADS if args.task else ():
            # A yield wakes nothing up: the wake-up rule has no part in it.
            for policy in ("other", "bvt", "fifo"):
                rec = {"threads": threads, "policy": policy, "run": run,
                       "us_per_yield": run_yield(args.task, threads, policy)}
                procs.record(result, rec)
    benches = [r for r in result["runs_data"] if "bench" in r]
    yields = [r for r in result["runs_data"] if "threads" in r]
    result["ratio"] = procs.median_ratios(benches, "bench", "policy",
                                          "time_s", "other")
    result["yield_ratio"] = procs.median_ratios(yields, "threads", "policy",
                                                "us_per_yield", "other")
    # What a non-fair class costs is not BVT's to remove; what it adds is.
    result["ratio_fifo"] = procs.median_ratios(benches, "bench", "policy",
                                               "time_s", "fifo")
    result["yield_ratio_fifo"] = procs.median_ratios(
        yields, "threads", "policy", "us_per_yield", "fifo")
    print(json.dumps([result["ratio"], result["yield_ratio"],
                      result["ratio_fifo"], result["yield_ratio_fifo"]]))
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
