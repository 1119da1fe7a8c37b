# SPDX-License-Identifier: GPL-2.0
"""The QAS paper's Table 1 on SCHED_BVT's quality-assuring reservations.

repro/qas_player.c plays an MPEG-2 clip with 7 B frames after each
reference frame: a period of 8 frame times is the reference frame (the
mandatory part) and its 7 B frames (optional parts, which a started frame
completes: non-preemptible).  Everything runs on the last CPU beside two
CPU-bound tasks (one SCHED_OTHER, one SCHED_BVT); the controller on CPU 0.

For each quality asked:

1. The player measures its frames' CPU times, --groups periods, with a
   set it gives itself that they fit in (the same kernel calls as when it
   plays), just before: under TCG the same code runs some percent faster
   or slower from one minute to the next.
2. qas-admit (non-preemptible parts, uniform periods, capacity 0.9)
   computes the B frames' reservation from those distributions, the
   mandatory part's being the worst reference frame and the worst B frame
   (a B frame that overran completes in the next period's mandatory part,
   as the paper's decoder did), and gives the player the set (--apply),
   restricted to its reserved time (the paper's loaded system); the player
   plays the same --groups periods with it.

Each row: the quality asked, the reservation, the model's prediction and
qas-admit's Monte-Carlo check of it, what the measured periods replayed
with that reservation give (the model without its assumption that a
period's B frames take independent, identically distributed times), and
the quality achieved: the share of B frames decoded (started in the part,
so completed), and of those decoded within their period; the share of
periods whose part the kernel ended where the rule says by the frames'
times as played; the mandatory parts late (the player's check and the
kernel's count) and overrun; and what the worst period would have
reserved.

    qas.py --player BIN --admit BIN --task BIN --clip FILE --dir DIR
           --out FILE [--groups N] [--qualities Q,...]
"""
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

QUALITIES = (0.95, 0.90, 0.80, 0.70, 0.60, 0.40, 0.20)
CAPACITY = 0.9
HOGS = ({"policy": "other"}, {"policy": "bvt"})


class Player:
    """The player, in one process, on the test CPU beside the hogs."""

    def __init__(self, args):
        cpu = {os.cpu_count() - 1}
        self.p = procs.start([args.player, args.clip, str(args.groups)],
                             {"policy": "other"}, cpus=cpu)
        self.hogs = [procs.start([args.task, "cont", "3600"], h, cpus=cpu)
                     for h in HOGS]
        for h in self.hogs:
            h.stdin.write("go\n")
            h.stdin.flush()

    def run(self, command):
        self.p.stdin.write(command + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError("the player failed to %s" % command)
        return json.loads(line)

    def stop(self):
        for h in self.hogs:
            h.kill()
            h.wait()
        self.p.stdin.close()
        self.p.wait(timeout=60)


def admit(args, text, pid):
    """qas-admit --apply of the spec text: r (ms), predicted, simulated."""
    spec = os.path.join(args.dir, "spec")
    with open(spec, "w") as f:
        f.write(text)
    out = subprocess.run(
        [args.admit, "-c", str(CAPACITY), "-s", "20000", "--restrict",
         "--apply", str(pid), spec], capture_output=True, text=True)
    pre = out.stdout.splitlines()
    if out.returncode:
        raise RuntimeError("qas-admit: %s%s" % (out.stdout, out.stderr))
    for line in pre:
        f = line.split()
        if f and f[0] == "mpeg":
            return float(f[6]), float(f[7]), float(f[8])
    raise RuntimeError("qas-admit said: %s" % "".join(pre))


def describe(v):
    return {"median_ms": round(statistics.median(v) / 1e6, 3),
            "mean_ms": round(statistics.mean(v) / 1e6, 3),
            "sd_ms": round(statistics.pstdev(v) / 1e6, 3),
            "max_ms": round(max(v) / 1e6, 3), "n": len(v)}


def by_position(y, nb):
    """The median of the B frames decoded at each place of a period, ms."""
    return [round(statistics.median([v for v in y[k::nb] if v] or [0]) / 1e6,
                  3) for k in range(nb)]


def replayed(periods, r_ns):
    """The quality the measured periods, replayed, give with r: a B frame
    starts while the frames before it in its period took less than r."""
    started = 0
    for p in periods:
        used = 0
        for k, v in enumerate(p):
            if k and used >= r_ns:
                break
            started += 1
            used += v
    return started / (len(periods) * len(periods[0]))


def measure(args, player):
    """The distributions, measured as the player plays, and qas-admit's
    spec of them (%g: the quality)."""
    m = player.run("measure")
    if m["dropped"] or m["ref_late"] or m["mand_overruns"] or m["lost"]:
        raise RuntimeError("measuring, frames did not fit: %s" % {
            k: m[k] for k in ("dropped", "ref_late", "mand_overruns",
                              "lost")})
    nb, fps = m["b_frames"], m["fps"]
    period = (nb + 1) / fps
    x, y = m["x_ns"], m["y_ns"]
    for name, v in (("x", x), ("y", y)):
        with open(os.path.join(args.dir, name), "w") as f:
            f.write("".join("%d\n" % s for s in v))
    periods = [y[i:i + nb] for i in range(0, len(y) - nb + 1, nb)]
    totals = [sum(p) for p in periods]
    w = max(x) + max(y)
    spec = ("task mpeg period=%dns parts=%d quality=%%g preempt=0 "
            "w=%dns x=@%s y=@%s\n" %
            (round(period * 1e9), nb, w, os.path.join(args.dir, "x"),
             os.path.join(args.dir, "y")))
    summary = {
        "period_ms": round(period * 1e3, 3), "b_frames": nb,
        "x": describe(x), "y": describe(y), "y_per_period": describe(totals),
        # Were the B frames of a period independent, as the model assumes,
        # their total's SD would be sqrt(nb) times one frame's.
        "sd_total_vs_independent": round(
            statistics.pstdev(totals) /
            (statistics.pstdev(y) * nb ** 0.5), 3),
        "y_by_position_ms": by_position(y, nb),
        "mandatory_ms": round(w / 1e6, 3),
        "worst_case_optional_ms": round(nb * max(y) / 1e6, 3)}
    return {"b_frames": nb, "periods": periods, "spec": spec,
            "summary": summary}


def cut_as_ruled(y, nb, r_ns):
    """Did the kernel end each played period's optional part where the
    rule says, by the times the frames took as played?  A frame starts
    only while those before it took less than r ("late" if one started
    after), and none is left unstarted while they took less ("early").
    The share of periods as ruled, and the misses' median distance from r
    (ms).  (The last frame decoded of a period, if the part ended in it,
    includes its wait: that only makes "early" rarer.)"""
    ok, late, early = 0, [], []
    for i in range(0, len(y) - nb + 1, nb):
        p = y[i:i + nb]
        n = sum(1 for v in p if v)
        if not n:
            continue
        if sum(p[:n - 1]) >= r_ns:
            late.append(sum(p[:n - 1]) - r_ns)
        elif n < nb and sum(p[:n]) < r_ns:
            early.append(r_ns - sum(p[:n]))
        else:
            ok += 1
    n_p = ok + len(late) + len(early)

    def med(v):
        return round(statistics.median(v) / 1e6, 3) if v else None
    return {"share": round(ok / max(n_p, 1), 4), "late": len(late),
            "late_by_ms": med(late), "early": len(early),
            "early_by_ms": med(early)}


def row(args, player, q):
    """Measure, admit for quality q, play: Table 1's row for q."""
    m = measure(args, player)
    r_ms, predicted, simulated = admit(args, m["spec"] % q, player.p.pid)
    res = player.run("play")
    nb = m["b_frames"]
    total = res["periods"] * nb
    rec = {"quality": q, "measured": m["summary"], "reservation_ms": r_ms,
           "predicted": predicted, "simulated": simulated,
           "replayed": round(replayed(m["periods"], r_ms * 1e6), 4),
           "achieved": round(res["decoded"] / total, 4),
           "cut_as_ruled": cut_as_ruled(res["y_ns"], nb, r_ms * 1e6),
           "achieved_in_time": round(
               (res["decoded"] - res["b_late"]) / total, 4)}
    rec.update({k: res[k] for k in (
        "periods", "decoded", "b_late", "dropped", "ref_late",
        "mand_overruns", "lost", "cpu_s", "nr_periods", "nr_overruns",
        "nr_period_ends", "nr_mandatory_misses", "per_period")})
    rec["x_play"] = describe(res["x_ns"])
    rec["y_play_by_position_ms"] = by_position(res["y_ns"], nb)
    return rec


def main():
    ap = procs.arguments(runs=1)
    ap.add_argument("--player", required=True)
    ap.add_argument("--admit", required=True)
    ap.add_argument("--task", required=True)
    ap.add_argument("--clip", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--groups", type=int, default=250)
    ap.add_argument("--qualities", default=",".join(map(str, QUALITIES)))
    args = ap.parse_args()

    procs.controller()
    args.clip = procs.tmpfs_copy(args.clip, args.dir)
    result = procs.new_result("qas", groups=args.groups, capacity=CAPACITY)
    player = Player(args)
    try:
        for q in (float(s) for s in args.qualities.split(",")):
            procs.record(result, row(args, player, q))
    finally:
        player.stop()
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
