# SPDX-License-Identifier: GPL-2.0
"""Scheduler overhead: SCHED_BVT against SCHED_OTHER, in one boot.

Runs "perf bench sched pipe" (two tasks ping-ponging over a pipe: a
context switch per message) and rt-tests' hackbench (groups of senders
and receivers over sockets) with every task in SCHED_OTHER or in
SCHED_BVT, alternating the two policies run by run, and reports each
one's time and the BVT/OTHER ratio of the medians.

    overhead.py --out FILE [--runs N]
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedattr  # noqa: E402

POLICIES = {"other": {"policy": "other"}, "bvt": {"policy": "bvt"}}
BENCHES = {
    # name: (command, regex for the time in seconds)
    "pipe": (["perf", "bench", "sched", "pipe", "-l", "5000"],
             r"Total time:\s+([\d.]+) \[sec\]"),
    "hackbench": (["hackbench", "-g", "4", "-l", "25", "-s", "100"],
                  r"Time:\s+([\d.]+)"),
}


def run_bench(name, policy):
    cmd, pattern = BENCHES[name]
    out = subprocess.run(cmd, capture_output=True, text=True,
                         preexec_fn=schedattr.preexec(POLICIES[policy]))
    m = re.search(pattern, out.stdout + out.stderr)
    if out.returncode or not m:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd),
                                              out.stdout + out.stderr))
    return float(m.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()

    # The controller outranks what it measures; children get a policy each.
    schedattr.apply(0, {"policy": "fifo", "prio": 90})
    result = {"experiment": "overhead", "kernel": platform.release(),
              "vcpus": os.cpu_count(), "runs": args.runs, "runs_data": []}
    for run in range(args.runs):
        for bench in BENCHES:
            for policy in POLICIES:
                t = run_bench(bench, policy)
                rec = {"bench": bench, "policy": policy, "run": run,
                       "time_s": t}
                result["runs_data"].append(rec)
                print(json.dumps(rec), flush=True)
    result["ratio"] = {}
    for bench in BENCHES:
        med = {p: statistics.median(r["time_s"] for r in result["runs_data"]
                                    if r["bench"] == bench
                                    and r["policy"] == p)
               for p in POLICIES}
        result["ratio"][bench] = round(med["bvt"] / med["other"], 4)
    print(json.dumps(result["ratio"]))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
