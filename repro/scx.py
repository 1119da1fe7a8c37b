# SPDX-License-Identifier: GPL-2.0
"""SCHED_BVT beside the sched_ext schedulers a user would load instead,
all in one boot.

Each part runs the workload of an experiment under its stock and BVT
configurations and under each sched_ext scheduler, which runs every
SCHED_NORMAL task (the workload's threads are plain SCHED_OTHER there);
a scheduler is loaded for its cells of a run and unloaded after them:

  mpeg-grep  the player beside 6 greps (mpeg_grep.py): bvt-warp, eevdf,
             fifo, deadline, each scheduler, and bvt-warp+scx_lavd (the
             player warped in SCHED_BVT, the greps under scx_lavd)
  latency    cyclictest under N CPU hogs a vCPU (latency.py): fifo,
             bvt-warped (among BVT hogs), other, and each scheduler
  coop       the talk's adaptive players (coop.py): coop, eevdf, bvt, and
             each scheduler
  overhead   hackbench, messaging, pipe (overhead.py): other, fifo, bvt,
             and each scheduler

A cell whose scheduler was gone by its end (its watchdog or an error
ejected it) is recorded with "scx_ejected" and is not a result.

    scx.py --build DIR --player BIN --clip FILE --tree DIR --players BIN
           --iclip FILE --shim SO [--copy DIR] [--parts a,b]
           [--schedulers a,b] [--loads N,..] [--counts N,..]
           [--seconds S] [--runs N] [--out FILE]
"""
import json
import os
import subprocess
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coop  # noqa: E402
import latency  # noqa: E402
import mpeg_grep  # noqa: E402
import overhead  # noqa: E402
import procs  # noqa: E402
import schedattr  # noqa: E402

SCHEDULERS = ("scx_lavd", "scx_bpfland", "scx_simple")
PARTS = ("mpeg-grep", "latency", "coop", "overhead")
OTHER = {"policy": "other"}
# The warped player beside greps that sched_ext runs.
mpeg_grep.CONFIGS["bvt-warp-greps-other"] = (
    mpeg_grep.CONFIGS["bvt-warp"][0], OTHER)


class Part:
    """One part's records, and the scheduler's log."""

    def __init__(self, args, name, result):
        self.args, self.name = args, name
        self.res = result["parts"].setdefault(name, {"runs_data": []})
        self.log = os.path.join(args.copy or "/tmp", "scx-%s.log" % name)

    def add(self, rec, run, config, info=None):
        rec.update(info or {}, run=run, config=config)
        procs.record(self.res, rec)

    def under(self, scheduler, cells):
        """Run cells() (a list of (record, config)) with scheduler loaded,
        and return each record with whether the scheduler stayed; if it
        did not load, one record that says so."""
        try:
            with procs.scx_loaded(scheduler, self.args.build,
                                  self.log) as info:
                done = cells()
        except procs.ScxLoadError as e:
            print(e, flush=True)
            return [({"scx_failed": str(e)}, scheduler, {})]
        return [(rec, config, info) for rec, config in done]


def mpeg_part(args, part, run):
    m = types.SimpleNamespace(player=args.player, clip=args.clip,
                              tree=args.tree, tree_bytes=args.tree_bytes,
                              seconds=args.seconds, greps=6)
    if run == 0:
        rec = mpeg_grep.run_config("player-alone", m, 0.1)
        args.player_need_s = rec["player"]["cpu_share"]
        part.add(rec, run, "player-alone")
    for name in ("bvt-warp", "eevdf", "fifo", "deadline"):
        part.add(mpeg_grep.run_config(name, m, args.player_need_s), run,
                 name)
    for s in args.schedulers:
        for rec, config, info in part.under(s, lambda: [
                (mpeg_grep.run_config("eevdf", m, 0), s)]):
            part.add(rec, run, config, info)
    if "scx_lavd" in args.schedulers:
        for rec, config, info in part.under("scx_lavd", lambda: [
                (mpeg_grep.run_config("bvt-warp-greps-other", m, 0),
                 "bvt-warp+scx_lavd")]):
            part.add(rec, run, config, info)


def latency_cells(args, load, names):
    """cyclictest under load hogs a vCPU for each latency.POLICIES name
    (grouped by the hogs' policy), or "other" labelled with a scheduler."""
    out = []
    for hog in (latency.OTHER, latency.BVT):
        group = [n for n in names
                 if latency.POLICIES.get(n, (None, latency.OTHER))[1] is hog]
        if not group:
            continue
        hogs = latency.start_hogs(load * os.cpu_count(), hog) \
            if load else None
        try:
            for name in group:
                pol = latency.POLICIES.get(name, (OTHER,))[0]
                rec = {"load": load, "policy": name}
                rec.update(latency.measure(args.shim, pol, args.lat_seconds))
                out.append((rec, name))
        finally:
            if hogs:
                latency.stop_hogs(hogs)
    return out


def latency_part(args, part, run):
    for load in args.loads:
        for rec, name in latency_cells(args, load,
                                       ["fifo", "bvt-warped", "other"]):
            part.add(rec, run, name)
    for s in args.schedulers:
        for rec, config, info in part.under(s, lambda: [
                c for load in args.loads
                for c in latency_cells(args, load, [s])]):
            part.add(rec, run, config, info)


def coop_cells(args, configs, label=None):
    out = []
    for n in args.counts:
        for config in configs:
            policy, mode, cell = coop.CONFIGS[config]
            with procs.sysctls(cell):
                res = coop.players(args.coop, n, args.layers, mode, policy,
                                   args.seconds)
            rec = coop.summary(res, n, args.layers, args.layer_ms,
                               os.cpu_count())
            out.append((rec, label or config))
    return out


def coop_part(args, part, run):
    if run == 0:
        cal = coop.players(args.coop, 1, 1, "calibrate", OTHER, 2)
        args.layer_ms = cal["layer_cpu_ms"]
        args.layers = max(1, round(os.cpu_count() * 1000 / coop.FPS /
                                   (coop.SATURATE * args.layer_ms)))
        part.res.update(layers=args.layers, layer_cpu_ms=args.layer_ms,
                        fps=coop.FPS, saturate=coop.SATURATE)
    for rec, config in coop_cells(args, ["coop", "eevdf", "bvt"]):
        part.add(rec, run, config)
    for s in args.schedulers:
        for rec, config, info in part.under(s, lambda: coop_cells(
                args, ["eevdf"], s)):
            part.add(rec, run, config, info)


def overhead_cells(label, policy):
    out = []
    for bench in overhead.BENCHES:
        t, ctxt, ipis = overhead.run_bench(bench, policy)
        out.append(({"bench": bench, "policy": label, "time_s": t,
                     "switches": ctxt, "res_ipis": ipis}, label))
    return out


def overhead_part(args, part, run):
    for policy in ("other", "fifo", "bvt"):
        for rec, config in overhead_cells(policy, policy):
            part.add(rec, run, config)
    for s in args.schedulers:
        for rec, config, info in part.under(s, lambda: overhead_cells(
                s, "other")):
            part.add(rec, run, config, info)


RUNNERS = {"mpeg-grep": mpeg_part, "latency": latency_part,
           "coop": coop_part, "overhead": overhead_part}


def main():
    ap = procs.arguments(runs=3)
    ap.add_argument("--build", required=True)
    ap.add_argument("--player", required=True)
    ap.add_argument("--clip", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--players", required=True)
    ap.add_argument("--iclip", required=True)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--copy", default="/tmp")
    ap.add_argument("--parts", default=",".join(PARTS))
    ap.add_argument("--schedulers", default=",".join(SCHEDULERS))
    ap.add_argument("--loads", default="0,1,4,16,64")
    ap.add_argument("--counts", default="1,6,10")
    args = ap.parse_args()
    args.schedulers = [s for s in args.schedulers.split(",") if s]
    args.loads = [int(x) for x in args.loads.split(",")]
    args.counts = [int(x) for x in args.counts.split(",")]
    args.lat_seconds = 4
    missing = [s for s in args.schedulers
               if not procs.scx_path(s, args.build)]
    if missing or procs.scx_state() is None:
        raise RuntimeError("no sched_ext, or schedulers not built: %s"
                           % ", ".join(missing))

    # The controller outranks everything it measures, unpinned: the
    # children inherit its affinity (SCHED_DEADLINE needs every CPU).
    schedattr.apply(0, {"policy": "fifo", "prio": 90})
    args.tree = procs.tmpfs_copy(args.tree, args.copy)
    args.clip = procs.tmpfs_copy(args.clip, args.copy)
    args.tree_bytes = mpeg_grep.tree_bytes(args.tree)
    args.coop = types.SimpleNamespace(
        players=args.players, clip=procs.tmpfs_copy(args.iclip, args.copy))
    # Warm the page cache so that every configuration reads the same way.
    subprocess.run(mpeg_grep.GREP + [args.tree], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    result = procs.new_result("scx", runs=args.runs, seconds=args.seconds,
                              schedulers=args.schedulers, loads=args.loads,
                              counts=args.counts, parts={})
    for run in range(args.runs):
        for name in args.parts.split(","):
            RUNNERS[name](args, Part(args, name, result), run)
            procs.save(result, args.out)
    ejected = [r for p in result["parts"].values() for r in p["runs_data"]
               if r.get("scx_ejected")]
    print(json.dumps({"ejected_cells": len(ejected)}))
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
