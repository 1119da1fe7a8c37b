# SPDX-License-Identifier: GPL-2.0
"""A web server's short and long requests under BVT warp and EEVDF, in
one boot: task.c's web mode (a generator on CPU 0, worker threads on the
last CPU, four short requests of 2 ms for each long one of 20 ms, Poisson
arrivals at RATE/s, 70 % of a CPU at the default rate) beside a CPU-bound
task on the workers' CPU.  Under bvt, a worker warps while it serves a
short request, so short requests overtake long ones; under eevdf and
bvt-nowarp every worker is alike.  Reports response times by kind.

    web.py --task BIN [--seconds S] [--runs N] [--out FILE]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

WORKERS, RATE = 8, 125
# configuration -> (server policy, warp of a short request in ms)
CONFIGS = {
    "bvt": ({"policy": "bvt"}, 20),
    "bvt-nowarp": ({"policy": "bvt"}, 0),
    "eevdf": ({"policy": "other"}, 0),
}


def run(config, args):
    policy, warp = CONFIGS[config]
    cpu = {os.cpu_count() - 1}
    server = procs.start([args.task, "web", str(args.seconds), str(WORKERS),
                          str(RATE), str(warp)], policy)
    cont = procs.start([args.task, "cont", str(args.seconds)], policy, cpu)
    res, hog = procs.go([server, cont])
    return {"config": config, "policy": policy, "short_warp_ms": warp,
            "requests": res["n"], "short_ms": res["short_ms"],
            "long_ms": res["long_ms"],
            "cont_share": round(hog["cpu_s"] / args.seconds, 4)}


def main():
    ap = procs.arguments()
    ap.add_argument("--task", required=True)
    args = ap.parse_args()

    procs.controller()
    result = procs.new_result("web", seconds=args.seconds, runs=args.runs,
                              workers=WORKERS, rate=RATE)
    for r in range(args.runs):
        for config in CONFIGS:
            rec = run(config, args)
            rec["run"] = r
            procs.record(result, rec)
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
