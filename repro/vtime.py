# SPDX-License-Identifier: GPL-2.0
"""The paper's virtual time picture: a warped video player against a
compilation on one CPU, traced with trace-cmd (sched_bvt events and
sched_switch), so that each thread's actual (A) and effective (E) virtual
time can be drawn against real time.  Keeps trace.dat (it opens in
KernelShark) and writes trace.txt (trace-cmd report) and --out;
report.py draws vtime.png from trace.txt.

    vtime.py --player BIN --clip FILE --source FILE.c --dir DIR
             --out FILE [--seconds S]
"""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import procs  # noqa: E402
import schedattr  # noqa: E402

PLAYER = {"policy": "bvt", "warp_ms": 20, "limit_ms": 40, "unwarp_ms": 10}
COMPILE = {"policy": "bvt"}


def main():
    ap = procs.arguments(seconds=2)	# --runs is ignored: one trace
    ap.add_argument("--player", required=True)
    ap.add_argument("--clip", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()

    cpu = os.cpu_count() - 1
    procs.controller()
    player = procs.start([args.player, args.clip, str(args.seconds), "wait"],
                         PLAYER, {cpu})
    dat = os.path.join(args.dir, "trace.dat")
    trace = subprocess.Popen(
        ["trace-cmd", "record", "-q", "-M", "%x" % (1 << cpu), "-o", dat,
         "-e", "sched_bvt", "-e", "sched:sched_switch"],
        stdout=subprocess.DEVNULL)
    time.sleep(2)  # trace-cmd is recording once its threads run

    def compile_setup():
        os.setsid()
        os.sched_setaffinity(0, {cpu})
        schedattr.apply(0, COMPILE)

    # The compilation: gcc -O2 on one file, again and again.
    cc = subprocess.Popen(
        ["sh", "-c", "while :; do gcc -O2 -c -o /tmp/vtime.o %s; done"
         % args.source], preexec_fn=compile_setup)
    time.sleep(0.5)
    res = procs.go([player])[0]
    os.killpg(cc.pid, signal.SIGKILL)
    cc.wait()
    trace.send_signal(signal.SIGINT)
    if trace.wait():
        raise RuntimeError("trace-cmd record failed")
    with open(os.path.join(args.dir, "trace.txt"), "w") as f:
        subprocess.run(["trace-cmd", "report", "-i", dat], stdout=f,
                       check=True)
    res.pop("lateness_ms")
    result = procs.new_result("vtime", cpu=cpu, seconds=args.seconds,
                              player_policy=PLAYER, compile_policy=COMPILE)
    procs.record(result, res)
    result["player"] = res
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
