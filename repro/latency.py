# SPDX-License-Identifier: GPL-2.0
"""Wake-up latency against load: cyclictest under CPU hogs, in one boot.

cyclictest (rt-tests) runs one measurement thread per vCPU, unpinned,
each waking every 1 ms on an absolute timer and recording how late it
woke, under 0 to 64 stress-ng CPU hogs per vCPU.  The measured threads'
policies:

  other       SCHED_OTHER (EEVDF), the default slice
  other-1ms   SCHED_OTHER with a 1 ms slice (sched_runtime)
  fifo        SCHED_FIFO 80
  deadline    SCHED_DEADLINE, 0.5 ms every 1 ms
  bvt         SCHED_BVT, unwarped, the weight of nice -20
  bvt-warped  the same, warped: W 20 ms, L 1 ms, U 0
  bvt-paper, bvt-warped-paper
              the same two under the paper's wake-up rule (the wake-up
              granularity, kernel.sched_bvt_wakeup_granularity_ns, 0)

The hogs are SCHED_OTHER, except under the BVT policies, where they are
SCHED_BVT too: a BVT thread among fair-class hogs is ahead of all of them
by class, as SCHED_FIFO is, which says nothing of warp; among BVT hogs,
only warp puts it ahead.  Warp moves a thread back by W in virtual time,
not out of it: a measured thread uses 5-10 % of a vCPU under TCG, more
than the share of a weight of 1024 beside 16 or more hogs of 1024, and a
thread over its share runs ahead of the others in virtual time until W
no longer covers it (traced: 20 ms ahead at 64 hogs a vCPU, no better
than unwarped).  As the paper's real-time threads, the measured ones get
a weight for the share they use: nice -20's, 88761, more than 64 hogs'.
U is 0: blocking ends a warp, and a thread that wakes within U of that
runs unwarped until U has passed, so a thread woken every 1 ms needs a U
well under 1 ms (with rt.py's 5 ms its median at 4 hogs a vCPU was 10
times SCHED_FIFO's).

cyclictest sets its measurement threads' policy itself and knows neither
SCHED_BVT nor SCHED_DEADLINE: repro/latency_shim.c, preloaded, makes each
measurement thread apply ours instead (and checks it did).  Its main
thread is SCHED_FIFO 1: it sets up and collects the measurement threads,
and as SCHED_OTHER among SCHED_BVT hogs (the fair server's 5 %) it took
minutes to; it sleeps in between, waking every 10 ms.  The policies'
order rotates run by run; each (load, policy) cell records the median,
p99 and maximum of every sample of every thread.

    latency.py --out FILE --shim SO [--runs N] [--seconds S] [--loads L,..]
               [--policies P,..]
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402
import schedattr  # noqa: E402

OTHER = {"policy": "other"}
BVT = {"policy": "bvt"}
HEAVY = {"policy": "bvt", "weight": 88761}
# name: (measured threads' policy, hogs' policy)
POLICIES = {
    "other": (OTHER, OTHER),
    "other-1ms": ({"policy": "other", "runtime_ms": 1}, OTHER),
    "fifo": ({"policy": "fifo", "prio": 80}, OTHER),
    "deadline": ({"policy": "deadline", "runtime_ms": 0.5, "period_ms": 1},
                 OTHER),
    "bvt": (HEAVY, BVT),
    "bvt-warped": (dict(HEAVY, warp_ms=20, limit_ms=1), BVT),
    "bvt-paper": (HEAVY, BVT),
    "bvt-warped-paper": (dict(HEAVY, warp_ms=20, limit_ms=1), BVT),
}
# The class's sysctls a policy runs with, set around its cells.
SYSCTLS = {"bvt-paper": {"sched_bvt_wakeup_granularity_ns": 0},
           "bvt-warped-paper": {"sched_bvt_wakeup_granularity_ns": 0}}
MAIN = {"policy": "fifo", "prio": 1}  # cyclictest's main thread
LOADS = (0, 1, 2, 4, 8, 16, 32, 64)
HIST_US = 500000  # samples later than 0.5 s count as overflows


def attr_env(p):
    """LATENCY_ATTR for the shim: policy dict p's struct sched_attr."""
    a = schedattr.attr_of(p)
    fields = (a.sched_policy, a.sched_flags, a.sched_nice, a.sched_priority,
              a.sched_runtime, a.sched_deadline, a.sched_period,
              a.sched_bvt_weight, a.sched_bvt_flags, a.sched_bvt_warp,
              a.sched_bvt_warp_limit, a.sched_bvt_unwarp)
    return " ".join(str(f) for f in fields)


def group_pids(pgid):
    pids = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                if os.getpgid(int(d)) == pgid:
                    pids.append(int(d))
            except OSError:
                pass
    return pids


def group_size(pgid):
    return len(group_pids(pgid))


# stress-ng's parent forks its hogs at SCHED_FIFO 1 with reset-on-fork, so
# that each is born SCHED_OTHER and none slows the forks of the next: run
# among them, the parent's k-th fork waited for k hogs, n^2 / 2 forks' time
# in all, more than the 60 s a start was given for 128 hogs under TCG
# (3 s natively on the 2-core machine).
FORKER = {"policy": "fifo", "prio": 1, "reset_on_fork": True}
# No new hog for this long: stress-ng is stuck.
START_STALL_S = 60


def start_hogs(n, policy):
    """n stress-ng CPU hogs on every vCPU, each then put under policy dict
    policy; waits until all of them run."""
    cpus = set(range(os.cpu_count()))

    def setup():
        os.sched_setaffinity(0, cpus)
        schedattr.apply(0, FORKER)

    p = subprocess.Popen(["stress-ng", "--cpu", str(n), "--cpu-method",
                          "int64", "--quiet", "--temp-path",
                          tempfile.gettempdir()], preexec_fn=setup,
                         start_new_session=True)
    seen, since = 0, time.monotonic()
    while True:
        pids = group_pids(p.pid)
        if len(pids) >= n + 1:
            break
        if len(pids) > seen:
            seen, since = len(pids), time.monotonic()
        if time.monotonic() - since > START_STALL_S or p.poll() is not None:
            os.killpg(p.pid, signal.SIGKILL)
            raise RuntimeError("stress-ng did not start %d hogs (%d ran)"
                               % (n, max(seen - 1, 0)))
        time.sleep(0.2)
    for pid in pids:
        if pid != p.pid:
            schedattr.apply(pid, policy)
    return p


def stop_hogs(p):
    os.killpg(p.pid, signal.SIGTERM)
    p.wait()
    while group_size(p.pid):
        time.sleep(0.1)


def percentile(hist, total, q):
    """The q-quantile (us) of a histogram {us: count} of total samples;
    None when it falls among the overflows."""
    rank = q * (total - 1)
    seen = 0
    for us in sorted(hist):
        seen += hist[us]
        if seen > rank:
            return us
    return None


def measure(shim, policy, seconds):
    """One cyclictest run with its measurement threads under policy dict
    policy: the pooled histogram's statistics."""
    ncpu = os.cpu_count()
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False).name
    env = dict(os.environ, LD_PRELOAD=shim, LATENCY_ATTR=attr_env(policy))

    def setup():
        os.sched_setaffinity(0, set(range(ncpu)))
        schedattr.apply(0, MAIN)

    cmd = ["cyclictest", "-t", str(ncpu), "-i", "1000", "-D", str(seconds),
           "-q", "-m", "-p", "80", "--policy", "fifo", "-h", str(HIST_US),
           "--histfile=/dev/null", "--json=" + out]
    r = subprocess.run(cmd, env=env, preexec_fn=setup, capture_output=True,
                       text=True)
    applied = r.stderr.count("latency_shim: ")
    if r.returncode or applied != ncpu or "policy %d" % \
            schedattr.attr_of(policy).sched_policy not in r.stderr:
        raise RuntimeError("cyclictest under %s failed (%d threads set): %s"
                           % (policy, applied, r.stdout + r.stderr))
    with open(out) as f:
        # A thread without samples has an average of "nan".
        res = json.loads(re.sub(r"-?nan\b", "null", f.read()))
    os.unlink(out)
    hist, total, worst = {}, 0, 0
    for t in res["thread"].values():
        for us, n in t["histogram"].items():
            hist[int(us)] = hist.get(int(us), 0) + n
        total += t["cycles"]
        worst = max(worst, t["max"] or 0)
    inside = sum(hist.values())
    mean = sum(us * n for us, n in hist.items()) / max(inside, 1)
    return {"samples": total, "overflows": total - inside,
            "median_us": percentile(hist, total, 0.5),
            "p99_us": percentile(hist, total, 0.99), "max_us": worst,
            "mean_us": round(mean, 1)}


def main():
    ap = procs.arguments(seconds=4, runs=3)
    ap.add_argument("--shim", required=True)
    ap.add_argument("--loads", default=",".join(map(str, LOADS)))
    ap.add_argument("--policies", default=",".join(POLICIES))
    args = ap.parse_args()
    loads = [int(x) for x in args.loads.split(",")]
    names = args.policies.split(",")
    unknown = set(names) - set(POLICIES)
    if unknown:
        ap.error("unknown policies: %s" % ", ".join(sorted(unknown)))
    seconds = max(1, int(args.seconds))

    procs.controller()
    ncpu = os.cpu_count()
    result = procs.new_result("latency", runs=args.runs, seconds=seconds,
                              loads=loads, policies={
                                  k: POLICIES[k][0] for k in names})
    for run in range(args.runs):
        order = names[run % len(names):] + names[:run % len(names)]
        for load in loads:
            # Policies grouped by the hogs' policy: one set of hogs each.
            for hog in (OTHER, BVT):
                group = [n for n in order if POLICIES[n][1] is hog]
                hogs = start_hogs(load * ncpu, hog) if load else None
                try:
                    for name in group:
                        rec = {"load": load, "policy": name, "run": run}
                        with procs.sysctls(SYSCTLS.get(name, {})):
                            rec.update(measure(args.shim, POLICIES[name][0],
                                               seconds))
                        procs.record(result, rec)
                finally:
                    if hogs:
                        stop_hogs(hogs)
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
