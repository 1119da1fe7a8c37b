# SPDX-License-Identifier: GPL-2.0
"""The sweep of the PBS paper's Groups A and B (pbs_groupa.py,
pbs_groupb.py): the stock policies, then PBS for every alpha, for each
beta in turn, in one boot.  As in the paper, one run per (alpha, beta)
and repeated runs of the stock policies: one before each beta's sweep,
whose spread over the boot shows what a PBS cell's difference from them
is worth.  The class's tunables are put back afterwards.

    sweep(result, args, run)

run(policy) runs one configuration under a policy dict (schedattr.py)
and returns its record; args has alphas, betas (comma-separated) and runs.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

STOCK = [("eevdf", {"policy": "other"}), ("rr", {"policy": "rr", "prio": 1})]
KNOBS = ["sched_bvt_be_mode", "sched_bvt_pbs_alpha", "sched_bvt_pbs_beta",
         "sched_bvt_pbs_switch_ns"]


def sweep(result, args, run):
    saved = {k: procs.read_sysctl(k) for k in KNOBS}
    try:
        # As in the paper's experiments: no current-thread bonus.
        procs.write_sysctl("sched_bvt_pbs_switch_ns", 0)
        for r in range(args.runs):
            for i, beta in enumerate(args.betas.split(",")):
                procs.write_sysctl("sched_bvt_be_mode", "bvt")
                for config, policy in STOCK:
                    rec = run(policy)
                    rec.update(config=config, run=r, repeat=i)
                    procs.record(result, rec)
                procs.write_sysctl("sched_bvt_be_mode", "pbs")
                procs.write_sysctl("sched_bvt_pbs_beta", beta)
                for alpha in args.alphas.split(","):
                    procs.write_sysctl("sched_bvt_pbs_alpha", alpha)
                    rec = run({"policy": "bvt"})
                    rec.update(config="pbs", alpha=alpha, beta=beta, run=r)
                    procs.record(result, rec)
    finally:
        for k in reversed(KNOBS):
            procs.write_sysctl(k, saved[k])
