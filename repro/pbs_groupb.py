# SPDX-License-Identifier: GPL-2.0
"""The PBS paper's Group B (section 4.2.2), time-scaled: a web server
(Debian's lighttpd, one process, pinned to the last CPU) runs a CGI
program per request (repro/work_cgi.c) that computes for the request's
size in ms of CPU time; 30 clients on CPU 0 (task http) each think for an
exponential time (the paper's 10 s divided by --scale, 1.25 by default)
and then ask for a size drawn from Pareto(1.2), one connection per
request.

The paper gives no load.  Here a CGI process costs the server about 40
ms of CPU of its own under TCG (fork, exec, exit), so sizes start at
XM_MS = 40 ms (capped at CAP_MS, mean 171 ms): the Pareto part, not the
fixed cost, makes most of a request's time, as the paper's "processing
time proportional to the file size" did.  (From 10 ms, tried first, the
fixed cost made requests nearly alike, and SCHED_RR, which runs such
requests one after the other, beat EEVDF and every PBS cell.)  With 8 s
of think time the server's CPU is about 3/4 busy.  Each configuration
runs --measure s (90) after a ramp-up of --ramp s (20).  The connections
are to a Unix socket, not TCP on 127.0.0.1: the guest kernel has no
TCP/IP (config/qemu.config), and HTTP over either is the same to the
server.  The CGI processes inherit the server's policy.

Per configuration: mean response time and its standard deviation, for
all requests and for the small ones (size below the distribution's mean,
as the paper's Fig. 8(b)), and the server CPU's load, under EEVDF
(SCHED_OTHER), SCHED_RR and PBS for each alpha and beta in one boot
(pbs_sweep.py: the stock policies once before each beta's sweep).

    pbs_groupb.py --task BIN --cgi BIN --copy DIR [--scale S] [--measure S]
                  [--ramp S] [--alphas a,b] [--betas b,c] [--runs N]
                  [--out FILE]
"""
import os
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pbs_sweep  # noqa: E402
import procs  # noqa: E402
import schedattr  # noqa: E402

CLIENTS, THINK_MS, XM_MS, CAP_MS = 30, 10000, 40, 2000
ALPHAS = ["0.5", "1", "2", "4", "8"]
BETAS = ["+inf", "-3", "0"]
CONF = """server.modules = ("mod_cgi")
server.document-root = "{root}"
server.bind = "{root}/http.sock"
server.errorlog = "{root}/error.log"
cgi.assign = (".cgi" => "")
"""


def start_server(root, policy):
    """lighttpd on the last CPU under policy, once it accepts."""
    def setup():
        os.sched_setaffinity(0, {os.cpu_count() - 1})
        schedattr.apply(0, policy)

    server = subprocess.Popen(
        ["lighttpd", "-D", "-f", root + "/lighttpd.conf"], preexec_fn=setup)
    for _ in range(100):
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(root + "/http.sock")
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("lighttpd did not start; see %s/error.log" % root)


def cpu_s(pid):
    """pid's CPU time and its waited-for children's (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def run(args, root, policy):
    s = args.scale
    server = start_server(root, policy)
    try:
        client = procs.start(
            [args.task, "http", str(args.measure + args.ramp), str(CLIENTS),
             str(THINK_MS / s), str(XM_MS), str(CAP_MS), str(args.ramp),
             root + "/http.sock"], {"policy": "other"}, {0})
        cpu0, t0 = cpu_s(server.pid), time.monotonic()
        res = procs.go([client])[0]
        res["server_load"] = round((cpu_s(server.pid) - cpu0) /
                                   (time.monotonic() - t0), 3)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait()
    return res


def main():
    ap = procs.arguments()
    ap.add_argument("--task", required=True)
    ap.add_argument("--cgi", required=True)
    ap.add_argument("--copy", required=True)
    ap.add_argument("--scale", type=float, default=1.25)
    ap.add_argument("--measure", type=float, default=90)
    ap.add_argument("--ramp", type=float, default=20)
    ap.add_argument("--alphas", default=",".join(ALPHAS))
    ap.add_argument("--betas", default=",".join(BETAS))
    args = ap.parse_args()

    procs.controller()
    # The document root on tmpfs: work.cgi is executed once per request.
    root = os.path.dirname(procs.tmpfs_copy(args.cgi, args.copy))
    os.rename(os.path.join(root, os.path.basename(args.cgi)),
              os.path.join(root, "work.cgi"))
    with open(os.path.join(root, "lighttpd.conf"), "w") as f:
        f.write(CONF.format(root=root))

    result = procs.new_result("pbs-groupb", scale=args.scale, runs=args.runs,
                              clients=CLIENTS, think_ms=THINK_MS / args.scale,
                              xm_ms=XM_MS, cap_ms=CAP_MS,
                              measure_s=args.measure, ramp_s=args.ramp)
    pbs_sweep.sweep(result, args, lambda policy: run(args, root, policy))
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
