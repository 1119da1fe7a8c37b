# SPDX-License-Identifier: GPL-2.0
"""Turn an experiment's results.json into table.md and PNG plots.

    report.py RESULTS_DIR

Runs on the host, in the project venv (matplotlib).  Every figure is a
median over the runs of a configuration, with the spread (min..max) when
there was more than one run.
"""
import json
import os
import re
import statistics
import subprocess
import sys

import procs


def spread(values, fmt):
    """'median' or 'median (min..max)' of values, each printed with fmt."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    med = fmt % statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return med
    return "%s (%s..%s)" % (med, fmt % min(values), fmt % max(values))


def about(res):
    """What ran where: experiment, kernel and its config, vCPUs and
    accelerator."""
    # Results from before the production kernel came from the test one.
    config = res.get("config", "test")
    return "%s: kernel %s (%s kernel), %d vCPU(s) (%s)" % (
        res["experiment"], res["kernel"], config.split(" (")[0],
        res["vcpus"], res.get("accel", "?"))


def by_config(res):
    out = {}
    for rec in res["runs_data"]:
        out.setdefault(rec["config"], []).append(rec)
    return out


def mpeg_grep_table(res):
    rows = [
        "| configuration | frames | late frames | max lateness (ms) "
        "| player CPU | grep MB/s | grep CPU |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, recs in by_config(res).items():
        pl = [r["player"] for r in recs if "player" in r]
        gr = [r["grep"] for r in recs if "grep" in r]
        rows.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            name,
            spread([p["frames"] for p in pl], "%d"),
            spread([p["late"] for p in pl], "%d"),
            spread([p["max_late_ms"] for p in pl], "%.1f"),
            spread([100 * p["cpu_share"] for p in pl], "%.1f %%"),
            spread([g["mb_per_s"] for g in gr], "%.1f"),
            spread([100 * g["cpu_share"] for g in gr], "%.1f %%")))
    return "\n".join(rows) + "\n" + mpeg_grep_target(res)


def mpeg_grep_target(res):
    """The warped player's late frames, and the CPU grep keeps beside it
    against what it gets alone minus the player's need (in vCPUs)."""
    configs = by_config(res)
    if not {"bvt-warp", "grep-alone-bvt", "player-alone"} <= set(configs):
        return ""

    def med(name, f):
        return statistics.median(f(r) for r in configs[name])

    n = res["vcpus"]
    alone = med("grep-alone-bvt", lambda r: r["grep"]["cpu_share"] * n)
    need = med("player-alone", lambda r: r["player"]["cpu_share"])
    warp = med("bvt-warp", lambda r: r["grep"]["cpu_share"] * n)
    late = max(r["player"]["late"] for r in configs["bvt-warp"])
    return ("\nBVT with warp: at most %d late frame(s) in %d run(s); grep "
            "keeps %.2f vCPUs of %.2f (alone) - %.2f (player's need) = "
            "%.0f %%\n" % (late, len(configs["bvt-warp"]), warp, alone,
                           need, 100 * warp / (alone - need)))


OVERHEAD_NAMES = {"other": "SCHED_OTHER", "bvt": "SCHED_BVT",
                  "bvt-paper": "BVT, paper's rule", "fifo": "SCHED_FIFO"}


def overhead_table(res):
    def rows_of(key, field, unit, fmt, ratios, fifo):
        present = {r["policy"] for r in res["runs_data"] if key in r}
        policies = [p for p in OVERHEAD_NAMES if p in present]
        vs = [(p, "other") for p in policies if p != "other"] + \
             [(p, "fifo") for p in policies if p.startswith("bvt")]
        head = "".join("| %s %s " % (OVERHEAD_NAMES[p], unit)
                       for p in policies) + "".join(
            "| %s / %s " % (OVERHEAD_NAMES[a].replace("SCHED_", ""),
                            OVERHEAD_NAMES[b].replace("SCHED_", ""))
            for a, b in vs)
        rows = ["| %s %s|" % ("benchmark" if key == "bench"
                              else "runnable threads", head),
                "|---" * (1 + len(policies) + len(vs)) + "|"]
        for group, ratio in ratios.items():
            t = {p: [r[field] for r in res["runs_data"]
                     if str(r.get(key)) == group and r["policy"] == p]
                 for p in policies}
            cells = [spread(t[p], fmt) for p in policies]
            for a, b in vs:
                r = (ratio if b == "other" else fifo.get(group, {})).get(a)
                cells.append("%.3f" % r if r else "-")
            rows.append("| %s | %s |" % (group, " | ".join(cells)))
        return rows

    rows = [about(res) + ", %d run(s) each, alternating\n" % res["runs"]]
    rows += rows_of("bench", "time_s", "(s)", "%.3f", res["ratio"],
                    res.get("ratio_fifo", {}))
    counted = [r for r in res["runs_data"] if "switches" in r]
    if counted:
        policies = [p for p in OVERHEAD_NAMES
                    if any(r["policy"] == p for r in counted)]
        rows += ["", "Context switches and reschedule IPIs of a run, "
                 "all CPUs, median (min..max).\n",
                 "| benchmark | " + " | ".join(
                     "%s switches | IPIs" % OVERHEAD_NAMES[p]
                     for p in policies) + " |",
                 "|---" * (1 + 2 * len(policies)) + "|"]
        for bench in dict.fromkeys(r["bench"] for r in counted):
            cells = []
            for p in policies:
                recs = [r for r in counted
                        if r["bench"] == bench and r["policy"] == p]
                cells += [spread([r["switches"] for r in recs], "%d"),
                          spread([r["res_ipis"] for r in recs], "%d")]
            rows.append("| %s | %s |" % (bench, " | ".join(cells)))
    if res.get("yield_ratio"):
        rows += ["", "Pick cost: N threads on one CPU calling sched_yield() "
                 "(a pick among N per call), time per call.\n"]
        rows += rows_of("threads", "us_per_yield", "(us)", "%.2f",
                        res["yield_ratio"], res.get("yield_ratio_fifo", {}))
    return "\n".join(rows) + "\n"


def task_cell(recs, task):
    """CPU share and dispatch latency (or late frames) of task in recs."""
    ts = [r["tasks"][task] for r in recs]
    cell = spread([100 * t["cpu_share"] for t in ts], "%.1f %%")
    if "late" in ts[0]:
        return cell + ", late " + spread([t["late"] for t in ts], "%d")
    lat = [t["lat_ms"] for t in ts if t.get("lat_ms")]
    if lat:
        cell += ", %s / %s ms" % (spread([x["median"] for x in lat], "%.2f"),
                                   spread([x["p99"] for x in lat], "%.1f"))
    return cell


def rt_table(res):
    rows = [about(res) + ", every task on one CPU, %s s per configuration, "
            "%d run(s)\n" % (res["seconds"], res["runs"]),
            "Each cell: CPU share, then dispatch latency median / p99 "
            "(players: frames later than one frame time).\n"]
    scenarios = {}
    for rec in res["runs_data"]:
        scenarios.setdefault(rec["scenario"], {}).setdefault(
            rec["config"], []).append(rec)
    for scenario, configs in scenarios.items():
        tasks = list(next(iter(configs.values()))[0]["tasks"])
        rows += ["", "**%s**\n" % scenario,
                 "| configuration | " + " | ".join(tasks) + " |",
                 "|---" * (len(tasks) + 1) + "|"]
        for config, recs in configs.items():
            rows.append("| %s | %s |" % (config, " | ".join(
                task_cell(recs, t) for t in tasks)))
    rows += ["", rt_targets(scenarios.get("int-cont-rt", {}))]
    return "\n".join(rows) + "\n"


def rt_targets(configs):
    """The warped periodic task's median dispatch latency against FIFO's
    and EEVDF's (the targets: at most 1.5x FIFO, at most EEVDF / 5)."""
    med = {c: statistics.median(r["tasks"]["rt"]["lat_ms"]["median"]
                                for r in recs)
           for c, recs in configs.items()}
    if not {"bvt", "fifo", "eevdf"} <= set(med):
        return ""
    return ("rt median dispatch latency: BVT warped %.3f ms, SCHED_FIFO "
            "%.3f ms (BVT/FIFO %.2f), EEVDF %.3f ms (BVT/EEVDF %.2f)\n" % (
                med["bvt"], med["fifo"], med["bvt"] / med["fifo"],
                med["eevdf"], med["bvt"] / med["eevdf"]))


def header(res):
    return about(res) + (", %s s per configuration, %d run(s), %d greps "
                         "over %s MB (%s)\n\n" % (
                             res["seconds"], res["runs"], res["greps"],
                             res["tree_mb"], res.get("tree_fs", "?")))


def mpeg_grep_plots(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = by_config(res)
    # 1. Every frame's lateness over time, first run of each configuration.
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for name in ("bvt-warp", "bvt", "eevdf", "eevdf-nice-10", "fifo",
                 "deadline"):
        recs = [r for r in configs.get(name, []) if "lateness_ms" in r]
        if recs:
            lat = recs[0]["lateness_ms"]
            fps = recs[0]["player"]["fps"]
            ax.plot([i / fps for i in range(len(lat))], lat, lw=0.8,
                    label=name)
    ax.axhline(1000 / 25, color="grey", ls="--", lw=0.8,
               label="one frame time")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("frame lateness (ms)")
    ax.set_title("Player frame lateness beside %d greps" % res["greps"])
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "lateness.png"), dpi=110)
    plt.close(fig)

    # 2. Late frames and grep throughput per configuration.
    names = [n for n in configs if any("player" in r for r in configs[n])
             and any("grep" in r for r in configs[n])]
    late = [statistics.median(r["player"]["late"] for r in configs[n])
            for n in names]
    mbs = [statistics.median(r["grep"]["mb_per_s"] for r in configs[n])
           for n in names]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.barh(names, late, color="tab:red")
    a1.set_xlabel("frames later than one frame time")
    a2.barh(names, mbs, color="tab:blue")
    a2.set_xlabel("grep throughput (MB/s)")
    a2.set_yticklabels([])
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "late-and-throughput.png"), dpi=110)
    plt.close(fig)


def web_table(res):
    rows = [about(res) + ", %d workers, %d requests/s (4 of 5 short: 2 ms, "
            "1 of 5 long: 20 ms), beside a CPU-bound task, %s s, %d run(s)\n"
            % (res["workers"], res["rate"], res["seconds"], res["runs"]),
            "| configuration | short: median / p99 (ms) "
            "| long: median / p99 (ms) | CPU-bound task |",
            "|---|---|---|---|"]
    for name, recs in by_config(res).items():
        rows.append("| %s | %s / %s | %s / %s | %s |" % (
            name,
            spread([r["short_ms"]["median"] for r in recs], "%.1f"),
            spread([r["short_ms"]["p99"] for r in recs], "%.1f"),
            spread([r["long_ms"]["median"] for r in recs], "%.1f"),
            spread([r["long_ms"]["p99"] for r in recs], "%.1f"),
            spread([100 * r["cont_share"] for r in recs], "%.1f %%")))
    return "\n".join(rows) + "\n"


def deadlines_table(res):
    rows = [about(res) + ", %d instances and a nice-19 batch task, %s s per "
            "cell, %d run(s); deadlines met (refused SCHED_DEADLINE requests "
            "in brackets)\n" % (res["instances"], res["seconds"],
                                 res["runs"])]
    def column(r):
        if r["config"] == "deadline":
            return "deadline (%s)" % r["error"]
        return r["config"]

    cols = []
    for r in res["runs_data"]:
        if column(r) not in cols:
            cols.append(column(r))
    rows += ["| contention (need) | " + " | ".join(cols) + " |",
             "|---" * (len(cols) + 1) + "|"]
    for level, need in res["contention"].items():
        cells = []
        for col in cols:
            recs = [r for r in res["runs_data"]
                    if r["contention"] == level and column(r) == col]
            cell = spread([100 * r["met_fraction"] for r in recs], "%.0f %%")
            if col.startswith("deadline"):
                cell += " (%s)" % spread([r["denied"] for r in recs], "%d")
            cells.append(cell)
        rows.append("| %s (%.0f %%) | %s |" % (level, 100 * need,
                                              " | ".join(cells)))
    return "\n".join(rows) + "\n"


PICK = re.compile(r"\s(\d+\.\d+): sched_bvt_pick:\s+comm=(\S+) pid=(\d+) "
                  r"avt=(\d+) evt=(\d+) svt=(\d+)")


VTIME_WINDOW_S = 0.2


def vtime_plot(res, outdir):
    """A and E of the player and the compiler at each of their dispatches
    (sched_bvt_pick in trace.txt), against real time, over a window of
    VTIME_WINDOW_S in the middle of the run: over the whole run the 20 ms
    warp is too small to see."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    text = os.path.join(outdir, "trace.txt")
    if not os.path.exists(text):	# only trace.dat is committed
        with open(text, "w") as f:
            subprocess.run(["trace-cmd", "report", "-i",
                            os.path.join(outdir, "trace.dat")],
                           stdout=f, check=True)
    picks = {}
    with open(text) as f:
        for line in f:
            m = PICK.search(line)
            if m:
                t, comm, _, avt, evt, _ = m.groups()
                who = "player" if comm == "player" else "compile"
                picks.setdefault(who, []).append(
                    (float(t), int(avt), int(evt)))
    every = sorted(p for pts in picks.values() for p in pts)
    t0 = every[len(every) // 2][0] - VTIME_WINDOW_S / 2
    shown = {who: [p for p in pts if t0 <= p[0] < t0 + VTIME_WINDOW_S]
             for who, pts in picks.items()}
    v0 = min(a for pts in shown.values() for _, a, _ in pts)
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for who, color in (("player", "tab:red"), ("compile", "tab:blue")):
        pts = shown.get(who, [])
        ts = [(t - t0) * 1e3 for t, _, _ in pts]
        ax.step(ts, [(a - v0) / 1e6 for _, a, _ in pts], where="post",
                color=color, lw=0.9, label=who + " A")
        ax.plot(ts, [(e - v0) / 1e6 for _, _, e in pts], "o", ms=3,
                color=color, label=who + " E (at dispatch)")
    ax.set_xlabel("real time (ms), a %.0f ms window in the middle of the run"
                  % (VTIME_WINDOW_S * 1e3))
    ax.set_ylabel("virtual time (ms)")
    ax.set_title("Warped player (W %s ms) against gcc on one CPU"
                 % res["player_policy"]["warp_ms"])
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "vtime.png"), dpi=110)
    plt.close(fig)
    return ("vtime: kernel %s, %s s, player %s frames, %s late; %d picks "
            "traced (trace.dat opens in KernelShark)\n" % (
                res["kernel"], res["seconds"], res["player"]["frames"],
                res["player"]["late"], len(every)))


COOP_CONFIGS = ("bvt", "bvt-1ms", "eevdf", "eevdf-1ms", "coop")


def coop_cells(res):
    """config -> N -> the records of every run."""
    out = {}
    for rec in res["runs_data"]:
        out.setdefault(rec["config"], {}).setdefault(
            rec["players"], []).append(rec)
    return out


def coop_median(recs, get):
    values = [get(r) for r in recs]
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


COOP_METRICS = (
    ("tardiness mean (ms)", lambda r: r["tardiness"]["mean"], "%.2f"),
    ("tardiness p99 (ms)", lambda r: r["tardiness"]["p99"], "%.1f"),
    ("context switches/s", lambda r: r["ctxt_per_s"], "%.0f"),
    ("throughput (%)", lambda r: r["throughput_pct"], "%.1f"),
    ("frames shown (%)", lambda r: r["shown_pct"], "%.1f"),
    ("layers wasted (%): decoded, but too late for their frame",
     lambda r: 100 * r["layers_late"] /
     max(1, r["layers_late"] + r["layers_in_time"]), "%.1f"),
)


def coop_table(res):
    cells = coop_cells(res)
    counts = sorted({n for c in cells.values() for n in c})
    configs = [c for c in COOP_CONFIGS if c in cells]
    rows = [about(res) + ", %s s per cell, %d run(s); a layer %.3f ms of "
            "CPU, %d layers a frame at %d fps: %d players saturate the "
            "vCPUs\n" % (res["seconds"], res["runs"], res["layer_cpu_ms"],
                         res["layers"], res["fps"], res["saturate"])]
    for title, get, fmt in COOP_METRICS:
        rows += ["", "**%s**, median (min..max) over the runs" % title, "",
                 "| players | " + " | ".join(configs) + " |",
                 "|---|" + "---|" * len(configs)]
        for n in counts:
            rows.append("| %d | " % n + " | ".join(
                spread([get(r) for r in cells[c].get(n, [])], fmt)
                for c in configs) + " |")
    policed = sum(r["policed"] for c in cells.get("coop", {}).values()
                  for r in c)
    rows += ["", "coop_poll members policed, all cells: %d" % policed]
    return "\n".join(rows) + "\n" + coop_targets(res, cells, counts)


def coop_targets(res, cells, counts):
    """The issue's targets at the count that overloads the vCPUs ~1.7x."""
    want = round(1.7 * res["saturate"])
    n = min(counts, key=lambda c: abs(c - want))
    coop = cells.get("coop", {}).get(n)
    if not coop:
        return ""
    rows = ["", "**Targets at %d players (%.2fx the saturating count)**: "
            "coop against each; the talk: tardiness 4.3 -> 0.9 ms, "
            "9430 -> 4766 cs/s, throughput 87 -> 95 %%" %
            (n, n / res["saturate"]), "",
            "| against | tardiness ratio (<= 0.25) | cs ratio (<= 0.5) "
            "| throughput gain (>= +5 points) |", "|---|---|---|---|"]
    t = coop_median(coop, COOP_METRICS[0][1])
    cs = coop_median(coop, COOP_METRICS[2][1])
    tp = coop_median(coop, COOP_METRICS[3][1])
    for c in COOP_CONFIGS[:-1]:
        other = cells.get(c, {}).get(n)
        if not other:
            continue
        ot = coop_median(other, COOP_METRICS[0][1])
        ocs = coop_median(other, COOP_METRICS[2][1])
        otp = coop_median(other, COOP_METRICS[3][1])
        rows.append("| %s | %.2f (%.2f / %.2f ms) | %.2f (%.0f / %.0f) "
                    "| %+.1f (%.1f / %.1f %%) |" % (
                        c, t / ot if ot else float("nan"), t, ot,
                        cs / ocs, cs, ocs, tp - otp, tp, otp))
    return "\n".join(rows) + "\n"


def coop_plots(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = coop_cells(res)
    configs = [c for c in COOP_CONFIGS if c in cells]
    metrics = [COOP_METRICS[0], COOP_METRICS[2], COOP_METRICS[3]]
    fig, axes = plt.subplots(1, 3, figsize=(14, 4))
    for ax, (title, get, _) in zip(axes, metrics):
        for c in configs:
            counts = sorted(cells[c])
            ax.plot(counts, [coop_median(cells[c][n], get) for n in counts],
                    marker="o", label=c)
        ax.axvline(res["saturate"], color="grey", ls="--", lw=0.8)
        ax.set_xlabel("players")
        ax.set_title(title)
    axes[0].legend(fontsize=8)
    fig.suptitle("Adaptive players, %d vCPUs (%s); dashed: saturation" % (
        res["vcpus"], res.get("accel", "?")))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "players.png"), dpi=110)
    plt.close(fig)

def pbs_pick_table(res):
    """Time per sched_yield() among N threads, and the ratio to EEVDF."""
    recs = [r for r in res["runs_data"] if "pick" in r]
    if not recs:
        return ""
    configs = []
    for r in recs:
        if r["pick"] not in configs:
            configs.append(r["pick"])
    rows = ["", "Cost of a pick: time per sched_yield() among N threads on "
            "one CPU (us, median and min..max over the runs; in brackets "
            "the median ratio to EEVDF in the same run)\n",
            "| threads | " + " | ".join(configs) + " |",
            "|---|" + "---|" * len(configs)]
    for n in sorted({r["threads"] for r in recs}):
        cells = []
        for c in configs:
            cell = spread([r["us_per_yield"] for r in recs
                           if r["threads"] == n and r["pick"] == c], "%.1f")
            ratio = res.get("pick_ratio", {}).get(str(n), {}).get(c)
            if ratio:
                cell += " [%.2fx]" % ratio
            cells.append(cell)
        rows.append("| %d | %s |" % (n, " | ".join(cells)))
    return "\n".join(rows) + "\n"


def pbs_label(rec):
    return "PBS alpha=%s" % rec["alpha"] if rec["config"] == "pbs" else \
        "EEVDF (SCHED_OTHER)"


def pbs_groups(res, fig):
    """fig's records by configuration, in the order they ran."""
    out = {}
    for rec in res["runs_data"]:
        if rec.get("fig") == fig:
            out.setdefault(pbs_label(rec), []).append(rec)
    return out


def pbs_table(res):
    scale = res["scale"]
    rows = [about(res) + ", times scaled by 1/%g, %d run(s)\n" % (
        scale, res["runs"]),
        "Figure 2: completion time of each thread (s, as in the paper: "
        "scaled back), measured (median, min..max) and simulated\n",
        "| configuration | thread 1 | thread 2 | thread 3 | thread 4 |",
        "|---|---|---|---|---|"]
    for label, recs in pbs_groups(res, "fig2").items():
        cells = []
        for i in range(4):
            meas = [r["threads"][i]["done_ms"] * scale / 1e3 for r in recs]
            sim = recs[0]["threads"][i]["sim_done_ms"]
            cell = spread(meas, "%.2f")
            if sim > 0:
                cell += " / %.2f" % (sim * scale / 1e3)
            cells.append(cell)
        rows.append("| %s | %s |" % (label, " | ".join(cells)))
    rows += ["", "Figure 3: each thread's share of the CPU in the last "
             "second (scaled), measured (median)\n",
             "| configuration | " + " | ".join(
                 "thread %d" % (i + 1) for i in range(5)) + " |",
             "|---|---|---|---|---|---|"]
    for label, recs in pbs_groups(res, "fig3").items():
        shares = [[] for _ in range(5)]
        for r in recs:
            m = r["measured"]
            back = max(1, int(1000 / scale / res["sample_ms"]))
            a, b = m[-1 - back], m[-1]
            total = sum(b[1:]) - sum(a[1:])
            for i in range(5):
                shares[i].append(100 * (b[i + 1] - a[i + 1]) / total)
        rows.append("| %s | %s |" % (label, " | ".join(
            spread(v, "%.0f %%") for v in shares)))
    return "\n".join(rows) + "\n" + pbs_pick_table(res)


def pbs_stack(ax, samples, n, scale, title):
    """The paper's plot: each thread's share of the CPU over time, stacked."""
    t = [s[0] * scale / 1e3 for s in samples[1:]]
    shares = []
    for i in range(n):
        row = []
        for a, b in zip(samples, samples[1:]):
            dt = b[0] - a[0]
            row.append((b[i + 1] - a[i + 1]) / dt if dt > 0 else 0)
        shares.append(row)
    ax.stackplot(t, shares, labels=["thread %d" % (i + 1) for i in range(n)],
                 step="pre")
    ax.set_ylim(0, 1.05)
    ax.set_xlim(0, 12)
    ax.set_title(title, fontsize=9)


def pbs_plots(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for fig in ["fig2", "fig3"]:
        groups = pbs_groups(res, fig)
        n = len(next(iter(groups.values()))[0]["threads"])
        f, axes = plt.subplots(len(groups), 2, figsize=(10, 2.2 * len(groups)),
                               squeeze=False)
        for row, (label, recs) in enumerate(groups.items()):
            rec = recs[0]
            pbs_stack(axes[row][0], rec["measured"], n, res["scale"],
                      label + ": measured")
            if "simulated" in rec:
                pbs_stack(axes[row][1], rec["simulated"], n, res["scale"],
                          label + ": simulated")
            else:
                axes[row][1].axis("off")
        axes[0][0].legend(fontsize=7, loc="upper right")
        for ax in axes[-1]:
            ax.set_xlabel("time (s, scaled back)")
        f.suptitle("PBS %s: CPU share per 50 ms window, %s" % (
            fig.replace("fig", "Figure "), res.get("accel", "?")))
        f.tight_layout()
        f.savefig(os.path.join(outdir, "pbs-%s.png" % fig), dpi=100)
        plt.close(f)


def pbs_cells(recs):
    """Group A's and B's records by configuration, in the order run:
    eevdf, rr, then "PBS beta B alpha A"."""
    cells = {}
    for r in recs:
        key = r["config"] if r["config"] != "pbs" else \
            "PBS beta %s alpha %s" % (r["beta"], r["alpha"])
        cells.setdefault(key, []).append(r)
    return cells


def groupa_table(res):
    """Group A: mean response time (sd) and mean additional delay per
    configuration, and each PBS cell's delay against the stock policies'."""
    recs = res["runs_data"]
    stock = {}
    for c in ("eevdf", "rr"):
        v = [r["delay_ms"] for r in recs if r["config"] == c]
        if v:
            stock[c] = statistics.median(v)
    best = min(stock.values()) if stock else None
    rows = [about(res) + ", times scaled by 1/%g: %d users, tasks of %.0f ms "
            "in 6 segments, think %.0f ms, %.0f s measured, %d run(s)\n" % (
                res["scale"], res["users"], res["task_ms"], res["think_ms"],
                res["measure_s"], res["runs"]),
            "| configuration | tasks | mean response (ms) | sd (ms) "
            "| mean additional delay (ms) | vs the better stock policy |",
            "|---|---|---|---|---|---|"]
    for key, rs in pbs_cells(recs).items():
        delay = statistics.median(r["delay_ms"] for r in rs)
        rel = "%+.0f %%" % (100 * (delay / best - 1)) if best else "-"
        rows.append("| %s | %s | %s | %s | %s | %s |" % (
            key, spread([r["n"] for r in rs], "%d"),
            spread([r["mean_ms"] for r in rs], "%.0f"),
            spread([r["sd_ms"] for r in rs], "%.0f"),
            spread([r["delay_ms"] for r in rs], "%.0f"),
            rel if key.startswith("PBS") else ""))
    return "\n".join(rows) + "\n"


def pbs_curves(ax, recs, value):
    """The median of value against alpha, a line per beta, and the stock
    policies' as horizontal lines (Figures 7 and 8)."""
    for beta in sorted({r["beta"] for r in recs if r["config"] == "pbs"}):
        alphas = sorted({float(r["alpha"]) for r in recs
                         if r.get("beta") == beta})
        ys = [statistics.median(r[value] for r in recs
                                if r.get("beta") == beta and
                                float(r["alpha"]) == a) for a in alphas]
        ax.plot(alphas, ys, marker="o", label="PBS beta %s" % beta)
    for c, ls in (("eevdf", "--"), ("rr", ":")):
        v = [r[value] for r in recs if r["config"] == c]
        if v:
            ax.axhline(statistics.median(v), ls=ls, color="grey",
                       label=c.upper() if c == "rr" else "EEVDF")
    ax.set_xscale("log")
    ax.set_xlabel("alpha")


def groupa_plot(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    pbs_curves(ax, res["runs_data"], "mean_ms")
    ax.set_ylabel("mean response time (ms)")
    ax.set_title("PBS Group A (Figure 7), scaled by 1/%g, %s" % (
        res["scale"], res.get("accel", "?")))
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "groupa.png"), dpi=110)
    plt.close(fig)


def groupb_table(res):
    """Group B: mean response time (sd) of all requests and of the small
    ones per configuration, each PBS cell's against the better stock
    policy's, and the server CPU's load."""
    recs = res["runs_data"]
    best = {}
    for v in ("mean_ms", "small_mean_ms"):
        m = [statistics.median(r[v] for r in recs if r["config"] == c)
             for c in ("eevdf", "rr") if any(r["config"] == c for r in recs)]
        best[v] = min(m) if m else None
    rows = [about(res) + ": %d clients, think %.0f ms (the paper's 10 s "
            "over %g), CGI work Pareto(1.2) from %g ms capped at %g ms, "
            "%.0f s measured after %.0f s, %d run(s)\n" % (
                res["clients"], res["think_ms"], res["scale"], res["xm_ms"],
                res["cap_ms"], res["measure_s"], res["ramp_s"], res["runs"]),
            "| configuration | requests | mean response (ms) | sd (ms) "
            "| vs the better stock policy | small requests: mean (ms) "
            "| vs the better stock policy | server load |",
            "|---|---|---|---|---|---|---|---|"]
    for key, rs in pbs_cells(recs).items():
        rel = {}
        for v in best:
            m = statistics.median(r[v] for r in rs)
            rel[v] = "%+.0f %%" % (100 * (m / best[v] - 1)) \
                if best[v] and key.startswith("PBS") else ""
        rows.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            key, spread([r["n"] for r in rs], "%d"),
            spread([r["mean_ms"] for r in rs], "%.0f"),
            spread([r["sd_ms"] for r in rs], "%.0f"), rel["mean_ms"],
            spread([r["small_mean_ms"] for r in rs], "%.0f"),
            rel["small_mean_ms"],
            spread([r["server_load"] for r in rs], "%.2f")))
    return "\n".join(rows) + "\n"


def groupb_plot(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, value, what in ((axes[0], "mean_ms", "(a) all requests"),
                            (axes[1], "small_mean_ms",
                             "(b) requests below the mean size")):
        pbs_curves(ax, res["runs_data"], value)
        ax.set_ylabel("mean response time (ms)")
        ax.set_title(what, fontsize=10)
    axes[0].legend(fontsize=8)
    fig.suptitle("PBS Group B (Figure 8): lighttpd + CGI, think time over "
                 "%g, %s" % (res["scale"], res.get("accel", "?")))
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "groupb.png"), dpi=110)
    plt.close(fig)


FIG_TITLES = {
    "4-4": "Figure 4-4: 1 CPU, 3 reservations, 1 warped competitor",
    "4-5": "Figure 4-5: as 4-4, R1 adds a constraint (2 of the next 10 ms) "
           "after each 2 ms it runs",
    "4-6": "Figure 4-6: 1 CPU, 3 reservations, no competitor",
    "4-8": "Figure 4-8: 2 CPUs, doubled amounts, 2 warped competitors",
}


def rialto_table(res):
    """Rialto/NT: each figure's grants and how they were kept, then the
    micro-benchmarks against the references of the same boot."""
    rows = [about(res) + ": traces of %g s each (measured after 1 s), "
            "micro-benchmarks %d run(s)\n" % (res["seconds"],
                                              len(res["runs_data"]) and
                                              1 + max(r["run"] for r in
                                                      res["runs_data"])),
            "| figure | thread | asked (ms) | granted (ms) | CPU "
            "| CPU share | windows with the amount | with 80 % of it "
            "| least in a window (ms) |",
            "|---|---|---|---|---|---|---|---|---|"]
    for name, fig in res["figs"].items():
        for t in fig["threads"]:
            asked = granted = cpu = met = met80 = least = ""
            if "granted_ms" in t:
                asked = "%g/%g" % tuple(t["asked_ms"])
                granted = "%.3g/%.3g" % tuple(t["granted_ms"])
                cpu = str(t["cpu"])
                met = "%.1f %%" % (100 * t["met"])
                met80 = "%.1f %%" % (100 * t["met80"])
                least = "%.2f" % t["least_ms"]
            if "tc_begun" in t:
                asked += " + constraints: %d begun, %d accepted, %d met" % (
                    t["tc_begun"], t["tc_accepted"], t["tc_met"])
                if "tc_near" in t:
                    asked += " (%d more within 0.5 ms)" % t["tc_near"]
            rows.append("| %s | %s | %s | %s | %s | %.3f | %s | %s | %s |" % (
                name, t["name"], asked, granted, cpu, t["cpu_share"], met,
                met80, least))
    s = res["summary"]
    rows += ["", "Switch cost, 10 CPU-bound threads on one CPU (Figure 4-1; "
             "median over the runs of each run's median, us):", "",
             "| policy | switches | min | median | vs SCHED_OTHER "
             "| vs SCHED_DEADLINE |", "|---|---|---|---|---|---|"]
    names = {"other": "SCHED_OTHER", "bvt": "SCHED_BVT",
             "rsv": "SCHED_BVT, 2..18 of 128 ms reserved",
             "dl": "SCHED_DEADLINE, 2..18 of 128 ms"}
    for p, v in s["switch_us"].items():
        rows.append("| %s | %d | %.1f | %.1f | %s | %s |" % (
            names[p], v["n"], v["min"], v["median"],
            s["switch_vs_other"].get(p, "1"), s["switch_vs_dl"].get(p, "1")))
    b = s["base_us"]
    rows += ["", "References (us, median): getppid() %.2f, sched_setattr() "
             "to SCHED_DEADLINE %.1f, to SCHED_BVT %.1f; calls refused "
             "(EBUSY) and tried again: %d." % (
                 b["getppid_us"], b["setattr_dl_us"], b["setattr_bvt_us"],
                 b.get("setattr_retries", 0)),
             "", "| operation | time (us) | x getppid() "
             "| x setattr(SCHED_DEADLINE) |", "|---|---|---|---|"]
    for cpus in (1, 2):
        a = s["acquire_%dcpu" % cpus]
        rows.append("| reservation, the slowest of 64 (the %d-th), %d CPU(s)"
                    "%s | %.1f | %.1f | %.2f |" % (
                        a["max_at"], cpus,
                        ", %d refused" % a["errors"] if a["errors"] else "",
                        a["max_us"], a["max_vs_getppid"],
                        a["max_vs_setattr_dl"]))
    t = s["tcloop_us"]
    rows.append("| end+begin constraint (median of 6 x 150; min %.1f, max "
                "%.1f) | %.1f | %.1f | %.2f |" % (
                    t["min"], t["max"], t["median_of_runs"], t["vs_getppid"],
                    t["vs_setattr_dl"]))
    return "\n".join(rows) + "\n"


def rialto_plots(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for name, fig in res["figs"].items():
        threads = fig["threads"]
        f, ax = plt.subplots(figsize=(10, 0.5 + 0.45 * len(threads)))
        for i, t in enumerate(threads):
            y = len(threads) - 1 - i
            ax.broken_barh([(a, b - a) for a, b in t["timeline"]],
                           (y - 0.35, 0.7),
                           color="C0" if t["name"][0] == "R" else "C7")
        ax.set_yticks(range(len(threads)))
        ax.set_yticklabels([
            "%s %s" % (t["name"], "%.3g/%.3g ms" % tuple(t["granted_ms"])
                       if "granted_ms" in t else "competitor")
            for t in reversed(threads)], fontsize=8)
        ax.set_xlim(0, fig["window_ms"])
        ax.set_xlabel("ms")
        ax.set_title(FIG_TITLES[name] + " (%s)" % res.get("accel", "?"),
                     fontsize=9)
        f.tight_layout()
        f.savefig(os.path.join(outdir, "fig%s.png" % name), dpi=110)
        plt.close(f)
    s = res["summary"]
    f, ax = plt.subplots(figsize=(6, 3.5))
    for cpus in (1, 2):
        us = s["acquire_%dcpu" % cpus]["us"]
        ax.plot(range(1, len(us) + 1), us, label="%d CPU(s)" % cpus)
    ax.axhline(s["base_us"]["setattr_dl_us"], color="C7", ls="--",
               label="sched_setattr(SCHED_DEADLINE)")
    ax.set_xlabel("reservation number")
    ax.set_ylabel("us (median over the runs)")
    ax.set_title("Figure 4-2: time to make the n-th reservation (%s)"
                 % res.get("accel", "?"), fontsize=9)
    ax.legend(fontsize=8)
    f.tight_layout()
    f.savefig(os.path.join(outdir, "fig4-2.png"), dpi=110)
    plt.close(f)


def qas_table(res):
    """QAS Table 1: quality asked, reservation, predicted and achieved;
    the mandatory parts; what the worst case would have reserved."""
    recs = res["runs_data"]
    m0 = recs[0]["measured"]
    nb = m0["b_frames"]
    rows = [about(res) + ": %d periods of %g ms a row (a reference frame "
            "and %d B frames), measured just before, beside a SCHED_OTHER "
            "and a SCHED_BVT CPU hog, restricted to the reserved time\n" % (
                res["groups"], m0["period_ms"], nb),
            "| requested quality | reservation for the B frames (ms) "
            "| predicted | simulated | replayed | achieved "
            "| achieved - requested | cut as ruled "
            "| decoded within the period "
            "| mandatory late (player / kernel) | mandatory overruns "
            "| mandatory part (ms) "
            "| B frames' reservation vs the worst period's |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in recs:
        m = r["measured"]
        cut = r.get("cut_as_ruled")
        rows.append("| %.2f | %.2f | %.4f | %.4f | %.4f | %.4f | %+.1f pp "
                    "| %s | %.4f | %d / %d | %s | %.2f | %.0f %% |" % (
                        r["quality"], r["reservation_ms"], r["predicted"],
                        r["simulated"], r["replayed"], r["achieved"],
                        100 * (r["achieved"] - r["quality"]),
                        "-" if cut is None else "%.1f %%" % (
                            100 * cut["share"]),
                        r["achieved_in_time"], r["ref_late"],
                        r["nr_mandatory_misses"],
                        r.get("mand_overruns", "-"), m["mandatory_ms"],
                        100 * r["reservation_ms"] /
                        m["y_per_period"]["max_ms"]))
    rows += ["", "The measurement before each row (CPU time, ms): reference "
             "frame median and max; B frame median, SD and max; the %d B "
             "frames of a period, median and max, and their SD against that "
             "of independent frames; B frames by their place in the period "
             "(median); and as played (the last one decoded of a period "
             "includes its wait):" % nb, "",
             "| requested quality | reference | B frame | B frames of a "
             "period | SD vs independent | by place | by place, played |",
             "|---|---|---|---|---|---|---|"]
    for r in recs:
        m = r["measured"]
        rows.append("| %.2f | %.2f, %.2f | %.2f, %.2f, %.2f | %.2f, %.2f "
                    "| %.2f | %s | %s |" % (
                        r["quality"], m["x"]["median_ms"], m["x"]["max_ms"],
                        m["y"]["median_ms"], m["y"]["sd_ms"],
                        m["y"]["max_ms"], m["y_per_period"]["median_ms"],
                        m["y_per_period"]["max_ms"],
                        m["sd_total_vs_independent"],
                        " ".join("%.2f" % v for v in m["y_by_position_ms"]),
                        " ".join("%.2f" % v for v in
                                 r["y_play_by_position_ms"])))
    worst = [r["measured"]["y_per_period"]["max_ms"] for r in recs]
    mand = [r["measured"]["mandatory_ms"] for r in recs]
    rows += ["", "Worst case: the B frames of the worst period measured took "
             "%.2f ms (median of the rows; %d times the worst B frame: %.2f "
             "ms); reserved, with the mandatory part, %.1f %% of the CPU."
             % (statistics.median(worst), nb, statistics.median(
                 r["measured"]["worst_case_optional_ms"] for r in recs),
                 100 * (statistics.median(worst) + statistics.median(mand)) /
                 m0["period_ms"])]
    return "\n".join(rows) + "\n"


LATENCY_POLICIES = ("other", "other-1ms", "fifo", "deadline", "bvt",
                    "bvt-warped", "bvt-paper", "bvt-warped-paper")


def latency_cells(res):
    """{(load, policy): [records of the runs]}"""
    cells = {}
    for r in res["runs_data"]:
        cells.setdefault((r["load"], r["policy"]), []).append(r)
    return cells


def latency_floor(cells, loads, policy, key):
    """The first load at which policy's key leaves the floor (more than
    twice SCHED_FIFO's at the same load: under TCG the host's scheduling
    of the vCPUs raises every policy's p99 as soon as they are busy), and
    the factor there and at the heaviest load."""
    def med(load, p):
        v = [r[key] for r in cells.get((load, p), [])]
        return statistics.median(v) if v and None not in v else None

    def times(load):
        v, ref = med(load, policy), med(load, "fifo")
        return "x%.1f" % (v / ref) if v and ref else "x?"

    what = key.replace("_us", "")
    for load in loads:
        v, ref = med(load, policy), med(load, "fifo")
        if ref and (v is None or v > 2 * ref):
            return "%s from %d hogs/vCPU (%s SCHED_FIFO's), %s at %d" % (
                what, load, times(load), times(loads[-1]), loads[-1])
    return "%s within 2x SCHED_FIFO's at every load" % what


def latency_table(res):
    cells = latency_cells(res)
    loads = res["loads"]
    pols = [p for p in LATENCY_POLICIES if any(k[1] == p for k in cells)]
    warped = [p for p in pols if p.startswith("bvt-warped")]
    rows = [about(res) + ", cyclictest -t %d -i 1000 (us), %d s per cell, "
            "%d run(s), policies rotating; hogs: stress-ng --cpu, "
            "SCHED_OTHER (SCHED_BVT under the bvt policies)\n" % (
                res["vcpus"], res["seconds"], res["runs"])]
    for key, what in (("median_us", "Median"), ("p99_us", "p99")):
        rows += ["%s wake-up latency (us), median over the runs "
                 "(min..max):\n" % what,
                 "| hogs/vCPU | " + " | ".join(pols) + "".join(
                     " | %s / fifo" % w for w in warped) + " |",
                 "|---" * (len(pols) + len(warped) + 1) + "|"]
        ratios = procs.median_ratios(res["runs_data"], "load", "policy",
                                     key, "fifo")
        for load in loads:
            rs = [ratios.get(str(load), {}).get(w) for w in warped]
            rows.append("| %d | %s | %s |" % (load, " | ".join(
                spread([r[key] for r in cells.get((load, p), [])], "%d")
                for p in pols), " | ".join(
                    "%.2f" % r if r else "-" for r in rs)))
        rows.append("")
    worst = [r for r in res["runs_data"] if r["overflows"]]
    rows.append("Samples later than 0.5 s: %d in %d cell(s).\n" % (
        sum(r["overflows"] for r in worst), len(worst)))
    for p in [p for p in ("other", "other-1ms") if p in pols]:
        rows.append("- %s leaves the floor: %s; %s" % (
            p, latency_floor(cells, loads, p, "median_us"),
            latency_floor(cells, loads, p, "p99_us")))
    return "\n".join(rows) + "\n"


def latency_plots(res, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = latency_cells(res)
    loads = res["loads"]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for ax, key, what in zip(axes, ("median_us", "p99_us"),
                             ("median", "p99")):
        for p in LATENCY_POLICIES:
            xs, ys = [], []
            for load in loads:
                v = [r[key] for r in cells.get((load, p), [])
                     if r[key] is not None]
                if v:
                    xs.append(load)
                    ys.append(statistics.median(v))
            if xs:
                ax.plot(xs, ys, marker="o", label=p,
                        linestyle="--" if p.endswith("-paper") else "-")
        ax.set_xscale("symlog", linthresh=1)
        ax.set_yscale("log")
        ax.set_xticks(loads)
        ax.set_xticklabels([str(x) for x in loads])
        ax.set_xlabel("CPU hogs per vCPU")
        ax.set_ylabel("%s wake-up latency (us)" % what)
        ax.set_title("cyclictest %s, %s" % (what, res.get("accel", "?")))
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "latency.png"), dpi=110)
    plt.close(fig)


def scx_configs(recs, first):
    """The configurations of recs, first the ones in first, in order."""
    seen = list(dict.fromkeys(r["config"] for r in recs))
    return [c for c in first if c in seen] + [c for c in seen
                                              if c not in first]


def scx_results(part):
    """A part's records that are results: none whose scheduler left."""
    return [r for r in part["runs_data"]
            if not r.get("scx_ejected") and not r.get("scx_failed")]


def scx_mpeg(part):
    recs = scx_results(part)
    rows = ["| configuration | late frames | max lateness (ms) "
            "| player CPU | grep MB/s |", "|---|---|---|---|---|"]
    for c in scx_configs(recs, ["bvt-warp", "bvt-warp+scx_lavd"]):
        rs = [r for r in recs if r["config"] == c and "player" in r]
        gr = [r["grep"] for r in rs if "grep" in r]
        rows.append("| %s | %s | %s | %s | %s |" % (
            c, spread([r["player"]["late"] for r in rs], "%d"),
            spread([r["player"]["max_late_ms"] for r in rs], "%.1f"),
            spread([100 * r["player"]["cpu_share"] for r in rs], "%.1f %%"),
            spread([g["mb_per_s"] for g in gr], "%.1f")))
    return rows


def scx_latency(part, schedulers):
    recs = scx_results(part)
    configs = scx_configs(recs, ["bvt-warped", "fifo"])
    loads = sorted({r["load"] for r in recs})
    rows = []
    for key, what in (("median_us", "median"), ("p99_us", "p99")):
        rows += ["", "cyclictest %s wake-up latency (us), median over the "
                 "runs (min..max); last column: warped BVT over the best "
                 "sched_ext scheduler of the cell\n" % what,
                 "| hogs/vCPU | " + " | ".join(configs) +
                 " | bvt-warped / best scx |",
                 "|---" * (len(configs) + 2) + "|"]
        for load in loads:
            cell = {c: [r[key] for r in recs
                        if r["load"] == load and r["config"] == c
                        and r[key] is not None] for c in configs}
            best = [statistics.median(cell[s]) for s in schedulers
                    if cell.get(s)]
            warped = cell.get("bvt-warped")
            ratio = "%.2f" % (statistics.median(warped) / min(best)) \
                if warped and best and min(best) else "-"
            rows.append("| %d | %s | %s |" % (load, " | ".join(
                spread(cell[c], "%d") for c in configs), ratio))
    return rows


def scx_coop(part):
    recs = scx_results(part)
    configs = scx_configs(recs, ["coop", "bvt", "eevdf"])
    counts = sorted({r["players"] for r in recs})
    rows = []
    for title, get, fmt in COOP_METRICS[:4]:
        rows += ["", "**%s**, median (min..max) over the runs" % title, "",
                 "| players | " + " | ".join(configs) + " |",
                 "|---|" + "---|" * len(configs)]
        for n in counts:
            rows.append("| %d | " % n + " | ".join(
                spread([get(r) for r in recs
                        if r["config"] == c and r["players"] == n], fmt)
                for c in configs) + " |")
    return rows


def scx_overhead(part):
    recs = scx_results(part)
    configs = scx_configs(recs, ["other", "fifo", "bvt"])
    ratios = procs.median_ratios(recs, "bench", "config", "time_s", "other")
    rows = ["| benchmark | " + " | ".join("%s (s)" % c for c in configs) +
            "".join(" | %s / other" % c for c in configs[1:]) + " |",
            "|---" * (2 * len(configs)) + "|"]
    for bench in dict.fromkeys(r["bench"] for r in recs):
        rows.append("| %s | %s | %s |" % (bench, " | ".join(
            spread([r["time_s"] for r in recs
                    if r["bench"] == bench and r["config"] == c], "%.3f")
            for c in configs), " | ".join(
                "%.3f" % ratios.get(bench, {}).get(c, float("nan"))
                for c in configs[1:])))
    return rows


def scx_table(res):
    parts = res["parts"]
    rows = [about(res) + "; sched_ext schedulers %s, %d run(s)\n" % (
        ", ".join(res["schedulers"]), res["runs"])]
    ejected = ["%s %s run %d" % (name, r["config"], r["run"])
               for name, part in parts.items() for r in part["runs_data"]
               if r.get("scx_ejected")]
    failed = ["%s %s run %d" % (name, r["config"], r["run"])
              for name, part in parts.items() for r in part["runs_data"]
              if r.get("scx_failed")]
    rows.append("Cells whose scheduler was ejected (not results): %s\n" %
                (", ".join(ejected) or "none"))
    rows.append("Cells whose scheduler did not load: %s\n" %
                (", ".join(failed) or "none"))
    titles = {"mpeg-grep": "mpeg-grep: the player beside 6 greps, %s s" %
              res["seconds"], "latency": "latency: cyclictest under CPU hogs",
              "coop": "coop: the talk's adaptive players",
              "overhead": "overhead: time of a run"}
    for name, part in parts.items():
        rows += ["", "## " + titles[name], ""]
        if name == "mpeg-grep":
            rows += scx_mpeg(part)
        elif name == "latency":
            rows += scx_latency(part, res["schedulers"])
        elif name == "coop":
            rows += scx_coop(part)
        else:
            rows += scx_overhead(part)
    return "\n".join(rows) + "\n"


def scx_plots(res, outdir):
    """Wake-up latency against load beside the sched_ext schedulers, and
    the coop players' tardiness against their number."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    parts = res["parts"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    lat = scx_results(parts.get("latency", {"runs_data": []}))
    for ax, key, what in zip(axes[:2], ("median_us", "p99_us"),
                             ("median", "p99")):
        for c in scx_configs(lat, ["bvt-warped", "fifo", "other"]):
            pts = {}
            for r in lat:
                if r["config"] == c and r[key] is not None:
                    pts.setdefault(r["load"], []).append(r[key])
            xs = sorted(pts)
            ax.plot(xs, [statistics.median(pts[x]) for x in xs], marker="o",
                    label=c, linestyle="--" if c.startswith("scx") else "-")
        ax.set_xscale("symlog", linthresh=1)
        ax.set_yscale("log")
        ax.set_xlabel("CPU hogs per vCPU")
        ax.set_ylabel("%s wake-up latency (us)" % what)
        ax.set_title("cyclictest %s, %s" % (what, res.get("accel", "?")))
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8)
    coop = scx_results(parts.get("coop", {"runs_data": []}))
    ax = axes[2]
    for c in scx_configs(coop, ["coop", "bvt", "eevdf"]):
        pts = {}
        for r in coop:
            if r["config"] == c and r["tardiness"]["mean"] is not None:
                pts.setdefault(r["players"], []).append(
                    r["tardiness"]["mean"])
        xs = sorted(pts)
        ax.plot(xs, [statistics.median(pts[x]) for x in xs], marker="o",
                label=c, linestyle="--" if c.startswith("scx") else "-")
    ax.set_xlabel("players")
    ax.set_ylabel("mean dispatch tardiness (ms)")
    ax.set_title("coop players, %s" % res.get("accel", "?"))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "scx.png"), dpi=110)
    plt.close(fig)


def main():
    outdir = sys.argv[1]
    with open(os.path.join(outdir, "results.json")) as f:
        res = json.load(f)
    if res["experiment"] == "vtime":
        print(vtime_plot(res, outdir))
        return
    if res["experiment"] == "overhead":
        table = overhead_table(res)
    elif res["experiment"] == "rt":
        table = rt_table(res)
    elif res["experiment"] == "web":
        table = web_table(res)
    elif res["experiment"] == "deadlines":
        table = deadlines_table(res)
    elif res["experiment"] == "coop":
        table = coop_table(res)
    elif res["experiment"] == "pbs":
        table = pbs_table(res)
    elif res["experiment"] == "pbs-groupa":
        table = groupa_table(res)
    elif res["experiment"] == "pbs-groupb":
        table = groupb_table(res)
    elif res["experiment"] == "rialto":
        table = rialto_table(res)
    elif res["experiment"] == "qas":
        table = qas_table(res)
    elif res["experiment"] == "latency":
        table = latency_table(res)
    elif res["experiment"] == "scx":
        table = scx_table(res)
    else:
        table = header(res) + mpeg_grep_table(res)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(table)
    print(table)
    if res["experiment"] == "mpeg-grep":
        mpeg_grep_plots(res, outdir)
    if res["experiment"] == "coop":
        coop_plots(res, outdir)
    if res["experiment"] == "pbs":
        pbs_plots(res, outdir)
    if res["experiment"] == "pbs-groupa":
        groupa_plot(res, outdir)
    if res["experiment"] == "pbs-groupb":
        groupb_plot(res, outdir)
    if res["experiment"] == "rialto":
        rialto_plots(res, outdir)
    if res["experiment"] == "latency":
        latency_plots(res, outdir)
    if res["experiment"] == "scx":
        scx_plots(res, outdir)


if __name__ == "__main__":
    main()
