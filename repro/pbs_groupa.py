# SPDX-License-Identifier: GPL-2.0
"""The PBS paper's Group A (section 4.2.1), time-scaled: eight users on one
CPU (the last), each thinking for an exponential time (mean 25 s in the
paper) and then running a computation of 3 s in six segments with 10 ms
sleeps between them (repro/task.c, mode users).  Every time is divided by
--scale (20: 150 ms tasks, 0.5 ms sleeps, 1.25 s think time), and each
configuration runs for 1200 s / scale after a ramp-up of 400 s / scale
(the paper's), the tasks begun in it counted.

Per configuration: the mean response time and its standard deviation,
and the mean additional delay (response time less the task's CPU time),
under EEVDF (SCHED_OTHER), SCHED_RR and PBS for each alpha and beta
(+inf, -3, 0) in one boot (pbs_sweep.py: the stock policies once before
each beta's sweep).

    pbs_groupa.py --task BIN [--scale S] [--alphas a,b] [--betas b,c]
                  [--runs N] [--out FILE]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pbs_sweep  # noqa: E402
import procs  # noqa: E402

USERS = 8
TASK_MS, SEGS, GAP_MS, THINK_MS = 3000, 6, 10, 25000
MEASURE_S, RAMP_S = 1200, 400
ALPHAS = ["0.1", "0.25", "0.5", "1", "2", "4"]
BETAS = ["+inf", "-3", "0"]


def run(args, policy):
    s = args.scale
    cmd = [args.task, "users", str((MEASURE_S + RAMP_S) / s), str(USERS),
           str(TASK_MS / s), str(SEGS), str(GAP_MS / s), str(THINK_MS / s),
           str(RAMP_S / s)]
    res = procs.go([procs.start(cmd, policy, {os.cpu_count() - 1})])[0]
    res["delay_ms"] = res["mean_ms"] - TASK_MS / s
    return res


def main():
    ap = procs.arguments()
    ap.add_argument("--task", required=True)
    ap.add_argument("--scale", type=float, default=20)
    ap.add_argument("--alphas", default=",".join(ALPHAS))
    ap.add_argument("--betas", default=",".join(BETAS))
    args = ap.parse_args()

    procs.controller()
    result = procs.new_result("pbs-groupa", scale=args.scale, runs=args.runs,
                              users=USERS, task_ms=TASK_MS / args.scale,
                              think_ms=THINK_MS / args.scale,
                              measure_s=MEASURE_S / args.scale)
    pbs_sweep.sweep(result, args, lambda policy: run(args, policy))
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
