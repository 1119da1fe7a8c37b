# SPDX-License-Identifier: GPL-2.0
"""The Rialto/NT paper's section 4 on SCHED_BVT's reservations, in one boot.

Traces (Figures 4-4, 4-5, 4-6 and 4-8): repro/rialto.c runs the figure's
threads for --seconds while trace-cmd records sched_switch on its CPUs
(trace clock CLOCK_MONOTONIC).  Each thread's run intervals give its
timeline over a window of the run, and, for each reserved thread, the
share of the sliding windows of its granted period (one every 0.25 ms)
in which it ran at least its granted amount (and 80 % of it: the TCG
margin of the selftests), and the least it got in one.

Micro-benchmarks, --runs times, the configurations of a run one after
the other: the switch cost of 10 threads on one CPU (Figure 4-1) in
SCHED_OTHER, SCHED_BVT, SCHED_BVT with reservations and SCHED_DEADLINE
(on CPU 0 alone, the other offline, so that SCHED_DEADLINE admits
its pinned threads); the time of
each of 64 reservations (Figure 4-2) on one CPU and on two; the end+begin
constraint loop (6 runs of 150); and, as references, getppid() and
sched_setattr() to SCHED_DEADLINE.

    rialto.py --rialto BIN --dir DIR --out FILE [--seconds S] [--runs N]
              [--window MS]
"""
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402

FIGS = ("4-4", "4-5", "4-6", "4-8")
CTXSW = ("other", "bvt", "rsv", "dl")
# trace-cmd's "prev_comm:prev_pid [prio] state ==> next_comm:next_pid [prio]"
SWITCH = re.compile(r"\[(\d+)\]\s+([\d.]+): sched_switch:\s+.*:(\d+) \[-?\d+\] "
                    r"\S+ ==> .*:(\d+) \[-?\d+\]")


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError("%s: %s" % (" ".join(cmd), out.stderr))
    return json.loads(out.stdout)


def intervals(report, tids):
    """Each thread's run intervals [from, to] (s) from trace-cmd report."""
    ran = {t: [] for t in tids}
    since = {}
    for line in report.splitlines():
        m = SWITCH.search(line)
        if not m:
            continue
        cpu, ts, prev, nxt = int(m[1]), float(m[2]), int(m[3]), int(m[4])
        if prev in ran and (cpu, prev) in since:
            ran[prev].append([since.pop((cpu, prev)), ts])
        if nxt in ran:
            since[(cpu, nxt)] = ts
    return ran


def ran_in(iv, a, b):
    return sum(max(0.0, min(y, b) - max(x, a)) for x, y in iv)


def windows(iv, t0, t1, amount, period):
    """Sliding windows of period (s) in [t0, t1], one every 0.25 ms: the
    shares holding amount and 80 % of it, and the least one held."""
    n = met = met80 = 0
    least = period
    w = t0
    # A pointer into the sorted intervals keeps this linear.
    lo = 0
    while w + period <= t1:
        while lo < len(iv) and iv[lo][1] <= w:
            lo += 1
        got = 0.0
        for x, y in iv[lo:]:
            if x >= w + period:
                break
            got += max(0.0, min(y, w + period) - max(x, w))
        n += 1
        met += got >= amount - 1e-6
        met80 += got >= 0.8 * amount
        least = min(least, got)
        w += 0.00025
    return {"windows": n, "met": round(met / max(n, 1), 4),
            "met80": round(met80 / max(n, 1), 4),
            "least_ms": round(least * 1e3, 3)}


def trace_fig(args, fig):
    dat = os.path.join(args.dir, "fig%s.dat" % fig)
    trace = subprocess.Popen(
        ["trace-cmd", "record", "-q", "-C", "mono", "-o", dat,
         "-e", "sched:sched_switch", "-e", "sched_bvt:sched_bvt_rsv_slot"],
        stdout=subprocess.DEVNULL)
    time.sleep(2)  # trace-cmd is recording once its threads run
    res = run([args.rialto, "fig", fig, str(args.seconds)])
    trace.send_signal(signal.SIGINT)
    if trace.wait():
        raise RuntimeError("trace-cmd record failed")
    report = subprocess.run(["trace-cmd", "report", "-i", dat],
                            capture_output=True, text=True,
                            check=True).stdout
    os.unlink(dat)
    tids = [t["tid"] for t in res["threads"]]
    ran = intervals(report, tids)
    # Measured after a settling second, to the end.
    t0, t1 = res["t0"] + 1.0, res["t1"] - 0.05
    for t in res["threads"]:
        iv = ran[t["tid"]]
        t["cpu_share"] = round(ran_in(iv, t0, t1) / (t1 - t0), 4)
        if "granted_ms" in t:
            t.update(windows(iv, t0, t1, t["granted_ms"][0] / 1e3,
                             t["granted_ms"][1] / 1e3))
        # The timeline: the first --window ms after settling, ms from t0.
        t["timeline"] = [[round((max(x, t0) - t0) * 1e3, 3),
                          round((min(y, t0 + args.window / 1e3) - t0) * 1e3,
                                3)]
                         for x, y in iv
                         if y > t0 and x < t0 + args.window / 1e3]
    res["window_ms"] = args.window
    res["measured_s"] = round(t1 - t0, 3)
    return res


def set_online(cpu, online):
    with open("/sys/devices/system/cpu/cpu%d/online" % cpu, "w") as f:
        f.write("1" if online else "0")


def ctxsw(args, policy):
    """rialto ctxsw on CPU 0 alone, the others offline, as the paper's
    single-processor boot: SCHED_DEADLINE admits threads pinned to a CPU
    only if their root domain is that CPU (turning admission control off
    instead leaves the root domain's bandwidth accounting negative for the
    rest of the boot).  Every policy runs so, alike."""
    others = range(1, os.cpu_count())
    # A SCHED_DEADLINE task that left the class (rialto base) gives its
    # bandwidth back from a timer up to a period later; if that fires
    # for a task last on a CPU gone offline, 6.12 divides by its root
    # domain's count of active CPUs, 0 (inactive_task_timer(): a divide
    # error seen here).  Let those timers run first.
    time.sleep(1)
    for cpu in others:
        set_online(cpu, False)
    try:
        return run([args.rialto, "ctxsw", policy, str(min(args.seconds, 5))])
    finally:
        for cpu in others:
            set_online(cpu, True)


def dl_total_bw():
    """The bandwidth SCHED_DEADLINE has admitted, as each CPU's root domain
    counts it (SCHED_DEBUG's debugfs): what an EBUSY was measured
    against."""
    try:
        with open("/sys/kernel/debug/sched/debug") as f:
            return re.findall(r"^cpu#(\d+).*?dl_bw->total_bw\s*:\s*(-?\d+)",
                              f.read(), re.M | re.S)
    except OSError as e:
        return str(e)


def main():
    ap = procs.arguments(seconds=10, runs=3)
    ap.add_argument("--rialto", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--window", type=float, default=400)
    args = ap.parse_args()

    procs.controller()
    result = procs.new_result("rialto", seconds=args.seconds)
    result["figs"] = {}
    for fig in FIGS:
        result["figs"][fig] = trace_fig(args, fig)
        print(json.dumps({"fig": fig, "threads": [
            {k: v for k, v in t.items() if k != "timeline"}
            for t in result["figs"][fig]["threads"]]}), flush=True)
    for r in range(args.runs):
        for policy in CTXSW:
            rec = ctxsw(args, policy)
            rec.update(run=r, bench="ctxsw")
            procs.record(result, rec)
        for cpus in (1, 2):
            rec = run([args.rialto, "acquire", str(cpus)])
            rec.update(run=r, bench="acquire")
            procs.record(result, rec)
        rec = run([args.rialto, "tcloop", "6", "150"])
        rec.update(run=r, bench="tcloop")
        procs.record(result, rec)
    # The references last: after a SCHED_DEADLINE task has come and gone
    # (sched_setattr() to it and back), 6.12 refuses to take a CPU offline
    # (EBUSY), and a CPU that ctxsw takes offline then broke the deadline
    # class's inactive timer (a divide error): ctxsw runs before any.
    for r in range(args.runs):
        try:
            rec = run([args.rialto, "base"])
        except RuntimeError as e:
            raise RuntimeError("%s; SCHED_DEADLINE's total_bw by CPU: %s"
                               % (e, dl_total_bw())) from e
        rec.update(run=r, bench="base")
        procs.record(result, rec)
    summarize(result)
    print(json.dumps(result["summary"]), flush=True)
    procs.save(result, args.out)


def summarize(result):
    """Medians over the runs, and ratios to the same run's references."""
    recs = result["runs_data"]
    base = {r["run"]: r for r in recs if r["bench"] == "base"}
    med = statistics.median
    s = {}
    sw = {p: [r for r in recs if r["bench"] == "ctxsw" and r["policy"] == p]
          for p in CTXSW}
    s["switch_us"] = {p: {"min": med(r["switch_us"]["min"] for r in v),
                          "median": med(r["switch_us"]["median"] for r in v),
                          "n": med(r["switch_us"]["n"] for r in v)}
                      for p, v in sw.items() if v}
    for ref in ("other", "dl"):
        s["switch_vs_" + ref] = {
            p: round(med(a["switch_us"]["median"] / b["switch_us"]["median"]
                         for a, b in zip(sw[p], sw[ref])), 3)
            for p in CTXSW if p != ref}
    for cpus in (1, 2):
        acq = [r for r in recs if r["bench"] == "acquire" and
               r["cpus"] == cpus]
        per_n = [med(r["reserve"][i]["us"] for r in acq)
                 for i in range(len(acq[0]["reserve"]))]
        errs = sum(1 for r in acq for x in r["reserve"] if x["errno"])
        worst = max(range(len(per_n)), key=lambda i: per_n[i])
        s["acquire_%dcpu" % cpus] = {
            "us": [round(x, 1) for x in per_n], "max_us": round(max(per_n), 1),
            "max_at": worst + 1, "errors": errs,
            "max_vs_getppid": round(med(
                max(x["us"] for x in r["reserve"]) /
                base[r["run"]]["getppid_us"]["median"] for r in acq), 1),
            "max_vs_setattr_dl": round(med(
                max(x["us"] for x in r["reserve"]) /
                base[r["run"]]["setattr_dl_us"]["median"] for r in acq), 2)}
    tc = [r for r in recs if r["bench"] == "tcloop"]
    medians = [x["us"]["median"] for r in tc for x in r["runs"]]
    s["tcloop_us"] = {
        "median_of_runs": round(med(medians), 2),
        "min": round(min(x["us"]["min"] for r in tc for x in r["runs"]), 2),
        "max": round(max(x["us"]["max"] for r in tc for x in r["runs"]), 2),
        "vs_getppid": round(med(
            x["us"]["median"] / base[r["run"]]["getppid_us"]["median"]
            for r in tc for x in r["runs"]), 1),
        "vs_setattr_dl": round(med(
            x["us"]["median"] / base[r["run"]]["setattr_dl_us"]["median"]
            for r in tc for x in r["runs"]), 2)}
    s["base_us"] = {k: med(b[k]["median"] for b in base.values())
                    for k in ("getppid_us", "setattr_dl_us",
                              "setattr_bvt_us")}
    s["base_us"]["setattr_retries"] = sum(b.get("setattr_retries", 0)
                                          for b in base.values())
    result["summary"] = s


if __name__ == "__main__":
    main()
