# SPDX-License-Identifier: GPL-2.0
"""Turn an experiment's results.json into table.md and PNG plots.

    report.py RESULTS_DIR

Runs on the host, in the project venv (matplotlib).  Every figure is a
median over the runs of a configuration, with the spread (min..max) when
there was more than one run.
"""
import json
import os
import statistics
import sys


def spread(values, fmt):
    """'median' or 'median (min..max)' of values, each printed with fmt."""
    values = [v for v in values if v is not None]
    if not values:
        return "-"
    med = fmt % statistics.median(values)
    if len(values) == 1 or min(values) == max(values):
        return med
    return "%s (%s..%s)" % (med, fmt % min(values), fmt % max(values))


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
    return "\n".join(rows) + "\n"


def overhead_table(res):
    rows = ["%s: kernel %s, %d vCPUs (%s), %d run(s) each, alternating\n"
            % (res["experiment"], res["kernel"], res["vcpus"],
               res.get("accel", "?"), res["runs"]),
            "| benchmark | SCHED_OTHER (s) | SCHED_BVT (s) | BVT / OTHER |",
            "|---|---|---|---|"]
    for bench, ratio in res["ratio"].items():
        t = {p: [r["time_s"] for r in res["runs_data"]
                 if r["bench"] == bench and r["policy"] == p]
             for p in ("other", "bvt")}
        rows.append("| %s | %s | %s | %.3f |" % (
            bench, spread(t["other"], "%.3f"), spread(t["bvt"], "%.3f"),
            ratio))
    return "\n".join(rows) + "\n"


def header(res):
    return ("%s: kernel %s, %d vCPUs (%s), %s s per configuration, "
            "%d run(s), %d greps over %s MB (%s)\n\n" % (
                res["experiment"], res["kernel"], res["vcpus"],
                res.get("accel", "?"), res["seconds"], res["runs"],
                res["greps"], res["tree_mb"], res.get("tree_fs", "?")))


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


def main():
    outdir = sys.argv[1]
    with open(os.path.join(outdir, "results.json")) as f:
        res = json.load(f)
    if res["experiment"] == "overhead":
        table = overhead_table(res)
    else:
        table = header(res) + mpeg_grep_table(res)
    with open(os.path.join(outdir, "table.md"), "w") as f:
        f.write(table)
    print(table)
    if res["experiment"] == "mpeg-grep":
        mpeg_grep_plots(res, outdir)


if __name__ == "__main__":
    main()
