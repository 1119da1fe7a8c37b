# SPDX-License-Identifier: GPL-2.0
"""The coop_poll talk's players: N adaptive video players (repro/players.c)
under each configuration, N from one to twice the count that saturates
the vCPUs, all in one boot.

  bvt        players as plain best-effort SCHED_BVT threads (fair share)
  bvt-1ms    the same with the allowance C at 1 ms, the talk's fair-share
             scheduler with a 1 ms period
  eevdf      players as SCHED_OTHER threads
  eevdf-1ms  SCHED_OTHER with a 1 ms slice (sched_attr.sched_runtime)
  coop       best-effort SCHED_BVT threads that call coop_poll(), with
             a minimum slice of 5 ms: a layer's cost varies by half
             again under TCG, and by several times when the host
             deschedules the vCPU (which the guest charges to the thread)

First a player decodes flat out for two seconds, to learn the CPU time of
a layer (one intra-only frame of the clip) under this accelerator; the
number of layers a frame may have is then set so that SATURATE players at
full quality need every vCPU, as 6 players saturated the talk's machine.

Per configuration and N: every display event's dispatch tardiness (how
late the player runs after the frame's deadline: mean, p99), the system's
context switches per second, the frames shown, and the throughput: layers
decoded in time per second, as a percentage of what the players could
decode in time, the lesser of what they ask (N * L * fps) and what the
vCPUs decode flat out (vCPUs / layer CPU time).

    coop.py --players BIN --clip FILE [--copy DIR] [--counts 1,2,...]
            [--seconds S] [--runs N] [--configs a,b] [--out FILE]
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

SATURATE = 6
FPS = 25
BVT = {"policy": "bvt"}
# config -> (policy, players' mode, sysctls for the cell)
CONFIGS = {
    "bvt": (BVT, "plain", {}),
    "bvt-1ms": (BVT, "plain", {"sched_bvt_allowance_ns": 1000000}),
    "eevdf": ({"policy": "other"}, "plain", {}),
    "eevdf-1ms": ({"policy": "other", "runtime_ms": 1}, "plain", {}),
    "coop": (BVT, "coop", {"sched_bvt_coop_min_slice_ns": 5000000}),
}
SYSCTLS = ["sched_bvt_allowance_ns", "sched_bvt_coop_period_ns",
           "sched_bvt_coop_min_slice_ns", "sched_bvt_coop_penalty_ns"]


def players(args, n, layers, mode, policy, seconds):
    cmd = [args.players, args.clip, str(seconds), str(n), str(layers), mode,
           str(FPS)]
    return procs.go([procs.start(cmd, policy)])[0]


def percentile(values, p):
    values = sorted(values)
    if not values:
        return None
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def summary(res, n, layers, layer_ms, vcpus):
    tard = res.pop("tardiness_ms")
    asked = n * layers * FPS
    capacity = vcpus / (layer_ms / 1e3)
    res["tardiness"] = {
        "mean": round(statistics.mean(tard), 3) if tard else None,
        "p50": percentile(tard, 50),
        "p99": percentile(tard, 99),
        "max": max(tard) if tard else None,
    }
    res["shown_pct"] = round(100 * res["frames_shown"] /
                             max(1, res["frames_due"]), 2)
    res["throughput_pct"] = round(100 * res["layers_in_time"] /
                                  res["seconds"] / min(asked, capacity), 2)
    return res


def main():
    ap = procs.arguments()
    ap.add_argument("--players", required=True)
    ap.add_argument("--clip", required=True)
    ap.add_argument("--counts", default="1,2,4,6,8,10,12")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--copy", help="read the clip from a copy in a tmpfs "
                    "under this directory, not over 9p")
    args = ap.parse_args()

    procs.controller()
    if args.copy:
        args.clip = procs.tmpfs_copy(args.clip, args.copy)
    vcpus = os.cpu_count()
    cal = players(args, 1, 1, "calibrate", {"policy": "other"}, 2)
    layer_ms = cal["layer_cpu_ms"]
    layers = max(1, round(vcpus * 1000 / FPS / (SATURATE * layer_ms)))
    sysctls = {}
    for name in SYSCTLS:
        try:
            with open("/proc/sys/kernel/" + name) as f:
                sysctls[name] = int(f.read())
        except FileNotFoundError:
            pass
    result = procs.new_result("coop", seconds=args.seconds, runs=args.runs,
                              fps=FPS, saturate=SATURATE, layers=layers,
                              layer_cpu_ms=layer_ms, sysctls=sysctls)
    print("a layer: %.3f ms of CPU; %d layers a frame" % (layer_ms, layers),
          flush=True)
    for r in range(args.runs):
        for n in [int(c) for c in args.counts.split(",")]:
            for config in args.configs.split(","):
                policy, mode, cell = CONFIGS[config]
                for name, value in cell.items():
                    procs.write_sysctl(name, value)
                try:
                    res = players(args, n, layers, mode, policy,
                                  args.seconds)
                finally:
                    for name in cell:
                        procs.write_sysctl(name, sysctls[name])
                rec = summary(res, n, layers, layer_ms, vcpus)
                rec.update(config=config, run=r)
                procs.record(result, rec)
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
