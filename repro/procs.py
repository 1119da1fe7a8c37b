# SPDX-License-Identifier: GPL-2.0
"""Start measured programs that say "ready", let them go together, and
collect the JSON object each prints (repro/player.c, repro/task.c).

    procs = [start([...], policy, cpus={1}), ...]
    results = go(procs)

and the controller's own set-up, arguments and result file (controller,
arguments, new_result, record, save), the same for every experiment;
tmpfs_copy, for what a program reads, kept off 9p; and median_ratios, for
timings compared with a reference measured in the same run; read_sysctl
and write_sysctl, for the class's tunables under /proc/sys/kernel; and
scx_loaded, for a configuration run under a sched_ext scheduler.
"""
import argparse
import contextlib
import json
import os
import platform
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedattr  # noqa: E402


def start(cmd, policy, cpus=None):
    """Start cmd under policy dict policy (on cpus, if given) and wait
    until it has loaded and says "ready"."""
    def setup():
        if cpus:
            os.sched_setaffinity(0, cpus)
        schedattr.apply(0, policy)

    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, preexec_fn=setup)
    if p.stdout.readline().strip() != "ready":
        raise RuntimeError("%s failed to start" % " ".join(cmd))
    return p


def go(procs):
    """Let every started program go, then wait for each one's result."""
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.close()
    results = []
    for p in procs:
        out = p.stdout.read()
        if p.wait():
            raise RuntimeError("%s failed" % " ".join(p.args))
        results.append(json.loads(out))
    return results


def fstype(path):
    """The type of the file system path is on (/proc/mounts)."""
    best, kind = "", "?"
    path = os.path.realpath(path)
    with open("/proc/mounts") as f:
        for line in f:
            _, mnt, typ = line.split()[:3]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) \
                    and len(mnt) >= len(best):
                best, kind = mnt, typ
    return kind


def tmpfs_copy(tree, base):
    """Copy tree (a directory or a file) into a tmpfs under base, mounting
    one if base is not on tmpfs."""
    where = os.path.join(base, "tmpfs")
    os.makedirs(where, exist_ok=True)
    if fstype(where) != "tmpfs":
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1g", "tmpfs",
                        where], check=True)
    copy = os.path.join(where, os.path.basename(tree))
    subprocess.run(["rm", "-rf", copy], check=True)
    subprocess.run(["cp", "-r", tree, copy], check=True)
    return copy


def controller():
    """Put the calling controller on CPU 0 at SCHED_FIFO 90: it outranks
    what it measures and stays off the CPU the tasks are pinned to."""
    os.sched_setaffinity(0, {0})
    schedattr.apply(0, {"policy": "fifo", "prio": 90})


def arguments(seconds=10, runs=1):
    """The arguments host/repro.sh gives every experiment: where the
    result goes, how long each configuration runs, and how many times;
    each experiment adds its own."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--seconds", type=float, default=seconds)
    ap.add_argument("--runs", type=int, default=runs)
    return ap


def new_result(experiment, **fields):
    """The JSON result of an experiment: what ran where, and the runs."""
    res = {"experiment": experiment, "kernel": platform.release(),
           "vcpus": os.cpu_count()}
    res.update(fields)
    res["runs_data"] = []
    return res


def record(result, rec):
    """Add one configuration's record to result and show it."""
    result["runs_data"].append(rec)
    print(json.dumps(rec), flush=True)


def save(result, path):
    if path:
        with open(path, "w") as f:
            json.dump(result, f)


def median_ratios(records, group, config, value, ref):
    """For each value of the records' group field (a benchmark, a thread
    count): each config's value over ref's in the same run, the median
    over the runs.  Under TCG the times drift during a boot, and a run's
    configurations, measured one after the other, drift together.  A
    value of None (not measured) pairs with nothing."""
    out = {}
    for g in sorted({r[group] for r in records}, key=str):
        runs = {}
        for r in records:
            if r[group] == g and r[value] is not None:
                runs.setdefault(r["run"], {})[r[config]] = r[value]
        configs = []
        for t in runs.values():
            configs += [c for c in t if c != ref and c not in configs]
        out[str(g)] = {}
        for c in configs:
            ratios = [t[c] / t[ref] for t in runs.values()
                      if c in t and t.get(ref)]
            if ratios:
                out[str(g)][c] = round(statistics.median(ratios), 4)
    return out


def read_sysctl(name):
    """kernel.NAME, as text."""
    with open("/proc/sys/kernel/" + name) as f:
        return f.read().strip()


def write_sysctl(name, value):
    with open("/proc/sys/kernel/" + name, "w") as f:
        f.write(str(value))


@contextlib.contextmanager
def sysctls(values):
    """Set the class's tunables in values (name: value) for a with block,
    and put back what they were."""
    old = {name: read_sysctl(name) for name in values}
    try:
        for name, value in values.items():
            write_sysctl(name, value)
        yield
    finally:
        for name, value in old.items():
            write_sysctl(name, value)


SCX_STATE = "/sys/kernel/sched_ext/state"
# Where host/scx.sh puts the kernel's examples and cargo the Rust ones.
SCX_DIRS = ("scx/bin", "scx-rust/bin")


def scx_state():
    """sched_ext's state ("enabled", "disabled", ...), None without it."""
    try:
        with open(SCX_STATE) as f:
            return f.read().strip()
    except OSError:
        return None


def scx_path(name, build):
    """The binary of sched_ext scheduler name under build, or None."""
    for d in SCX_DIRS:
        path = os.path.join(build, d, name)
        if os.access(path, os.X_OK):
            return path
    return None


class ScxLoadError(RuntimeError):
    """A sched_ext scheduler that did not load."""


def _wait_scx(state, seconds):
    end = time.monotonic() + seconds
    while scx_state() != state:
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@contextlib.contextmanager
def scx_loaded(name, build, log):
    """Run a with block under sched_ext scheduler name (None: none), started
    as a plain SCHED_OTHER process with its output in log.  Yields a dict
    that says, after the block, whether the scheduler stayed loaded to its
    end ("scx_ejected": its watchdog or an error ended it, and the run is
    not a result)."""
    info = {}
    if name is None:
        yield info
        return
    path = scx_path(name, build)
    if path is None or scx_state() != "disabled":
        raise RuntimeError("sched_ext scheduler %s: not built, or sched_ext "
                           "busy or missing (state %s)" % (name, scx_state()))
    out = open(log, "a")
    p = subprocess.Popen([path], stdout=out, stderr=subprocess.STDOUT,
                         preexec_fn=lambda: schedattr.apply(
                             0, {"policy": "other"}))
    try:
        # Loading runs the BPF verifier: seconds under TCG.
        if not _wait_scx("enabled", 120):
            raise ScxLoadError("%s did not load (see %s)" % (name, log))
        info["scx"] = name
        yield info
    finally:
        info["scx_ejected"] = scx_state() != "enabled"
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        out.close()
        _wait_scx("disabled", 30)
