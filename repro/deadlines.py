# SPDX-License-Identifier: GPL-2.0
"""The paper's deadline comparison: jobs that need C of CPU by a deadline
D, at four levels of contention, with CPU-need predictions exact or off
(+, -, mixed; up to 40 %), in one boot.  Four instances of task.c's dl
mode and one CPU-bound batch task (nice 19) share the last CPU.

  deadline    each job asks SCHED_DEADLINE for its predicted need by D,
              plus 1 ms for its own system overhead (task.c's
              DL_ALLOWANCE_MS); a refused request counts as a missed
              deadline; the batch task is SCHED_OTHER
  bvt-diff    every task SCHED_BVT, the instances warped 10/20/30/40 ms
              (differentiated, no prediction used), the batch task not
  bvt         every task SCHED_BVT, no warp (weighted round robin)
  eevdf       every task SCHED_OTHER

Reports the fraction of deadlines met per configuration.

    deadlines.py --task BIN [--seconds S] [--runs N] [--out FILE]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

INSTANCES = 4
# contention -> the CPU the instances need together, of one CPU
CONTENTION = {"low": 0.4, "medium": 0.7, "high": 0.9, "hopeless": 1.2}
ERRORS = ("exact", "+", "-", "mixed")
# configuration -> (policy of every task, warp of instance i in ms; < 0:
# ask SCHED_DEADLINE)
CONFIGS = {
    "deadline": ({"policy": "other"}, lambda i: -1),
    "bvt-diff": ({"policy": "bvt"}, lambda i: 10 * (i + 1)),
    "bvt": ({"policy": "bvt"}, lambda i: 0),
    "eevdf": ({"policy": "other"}, lambda i: 0),
}


def run(config, contention, err, args):
    policy, warp = CONFIGS[config]
    cpu = {os.cpu_count() - 1}
    load = CONTENTION[contention] / INSTANCES
    started = [procs.start([args.task, "dl", str(args.seconds), str(load),
                            err, str(warp(i))], policy, cpu)
               for i in range(INSTANCES)]
    started.append(procs.start([args.task, "cont", str(args.seconds)],
                               dict(policy, nice=19), cpu))
    res = procs.go(started)
    jobs = sum(r["jobs"] for r in res[:-1])
    met = sum(r["met"] for r in res[:-1])
    return {"config": config, "contention": contention, "error": err,
            "jobs": jobs, "met": met,
            "denied": sum(r["denied"] for r in res[:-1]),
            "met_fraction": round(met / jobs, 4) if jobs else None,
            "cont_share": round(res[-1]["cpu_s"] / args.seconds, 4)}


def main():
    ap = procs.arguments(seconds=5)
    ap.add_argument("--task", required=True)
    ap.add_argument("--errors", default=",".join(ERRORS))
    args = ap.parse_args()

    procs.controller()
    result = procs.new_result("deadlines", seconds=args.seconds,
                              runs=args.runs, instances=INSTANCES,
                              contention=CONTENTION)
    for r in range(args.runs):
        for contention in CONTENTION:
            for err in args.errors.split(","):
                for config in CONFIGS:
                    if err != "exact" and config != "deadline":
                        continue  # only SCHED_DEADLINE uses predictions
                    rec = run(config, contention, err, args)
                    rec["run"] = r
                    procs.record(result, rec)
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
