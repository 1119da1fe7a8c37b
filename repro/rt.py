# SPDX-License-Identifier: GPL-2.0
"""The paper's int / cont / rt tables, rt-failure, and two players + int,
run inside the booted kernel on one CPU, under each policy configuration
in turn, all in one boot.

  int   short bursts (5 ms) after a random think time (20..60 ms)
  cont  computes without pause
  rt    wakes every 10 ms and computes 1 ms; in rt-failure it falls into
        an infinite loop after 0.5 s
  player, twice: repro/player.c on the clip, if --player is given

Every task is pinned to the last CPU; the controller runs on another one.
Prints (and writes with --out) one JSON object with a record per
scenario, configuration and run: each task's CPU share and dispatch
latency (see task.c).

    rt.py --task BIN [--player BIN --clip FILE] [--seconds S] [--runs N]
          [--scenarios a,b] [--configs a,b] [--out FILE]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

OTHER = {"policy": "other"}
# The paper's parameters in spirit: rt warps far (W 20 ms) but only for
# L 5 ms at a time and not again within U 5 ms, which its 1 ms runs never
# reach; int warps a little; cont never does.
BVT_RT = {"policy": "bvt", "warp_ms": 20, "limit_ms": 5, "unwarp_ms": 5}
BVT_INT = {"policy": "bvt", "warp_ms": 10, "limit_ms": 20}
BVT_PLAYER = {"policy": "bvt", "warp_ms": 20, "limit_ms": 40,
              "unwarp_ms": 10}
BVT = {"policy": "bvt"}
FIFO = {"policy": "fifo", "prio": 50}

# scenario -> task names
SCENARIOS = {
    "int-cont-rt": ["int", "cont", "rt"],
    "rt-failure": ["int", "cont", "rt-fail"],
    "players-int": ["player1", "player2", "int"],
}
# configuration -> task name -> policy (tasks not named: OTHER)
CONFIGS = {
    "bvt": {"int": BVT_INT, "cont": BVT, "rt": BVT_RT, "rt-fail": BVT_RT,
            "player1": BVT_PLAYER, "player2": BVT_PLAYER},
    "bvt-nowarp": {"int": BVT, "cont": BVT, "rt": BVT, "rt-fail": BVT,
                   "player1": BVT, "player2": BVT},
    "eevdf": {},
    "fifo": {"rt": FIFO, "rt-fail": FIFO,
             "player1": FIFO, "player2": FIFO},
}


def command(task, args):
    s = str(args.seconds)
    if task == "int":
        return [args.task, "int", s, "5", "40"]
    if task == "cont":
        return [args.task, "cont", s]
    if task == "rt":
        return [args.task, "rt", s, "10", "1"]
    if task == "rt-fail":
        return [args.task, "rt", s, "10", "1", "0.5"]
    return [args.player, args.clip, s, "wait"]


def run(scenario, config, args):
    cpu = {os.cpu_count() - 1}
    started = []
    for task in SCENARIOS[scenario]:
        policy = CONFIGS[config].get(task, OTHER)
        started.append(procs.start(command(task, args), policy, cpu))
    rec = {"scenario": scenario, "config": config, "tasks": {}}
    for task, res in zip(SCENARIOS[scenario], procs.go(started)):
        res.pop("lateness_ms", None)
        res["cpu_share"] = round(res["cpu_s"] / args.seconds, 4)
        res["policy"] = CONFIGS[config].get(task, OTHER)
        rec["tasks"][task] = res
    return rec


def main():
    ap = procs.arguments()
    ap.add_argument("--task", required=True)
    ap.add_argument("--player")
    ap.add_argument("--clip")
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--configs", default=",".join(CONFIGS))
    args = ap.parse_args()

    procs.controller()
    scenarios = [s for s in args.scenarios.split(",")
                 if args.player or s != "players-int"]
    result = procs.new_result("rt", seconds=args.seconds, runs=args.runs)
    for r in range(args.runs):
        for scenario in scenarios:
            for config in args.configs.split(","):
                rec = run(scenario, config, args)
                rec["run"] = r
                procs.record(result, rec)
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
