# SPDX-License-Identifier: GPL-2.0
"""The PBS paper's Group B (section 4.2.2), time-scaled: a web server
(Debian's lighttpd, one process, pinned to the last CPU) runs a CGI
program per request (repro/work_cgi.c) that computes for the request's
size in ms of CPU time; 30 clients on CPU 0 (task http) each think for an
exponential time (the paper's 10 s divided by --scale, 3 by default) and
then ask for a size drawn from Pareto(1.2), one connection per request.

The paper gives no load; here the sizes are XM_MS and up, capped at
CAP_MS (mean 43 ms), and a CGI process costs the server about 40 ms of
CPU of its own under TCG (fork, exec, exit), so that the server's CPU is
about 3/4 busy; think time is scaled by 3 rather than Group A's 20 so
that it is.  Each configuration runs --measure s (60) after a ramp-up of
--ramp s (15).  The connections are to a Unix socket, not TCP on
127.0.0.1: the guest kernel has no TCP/IP (config/qemu.config), and HTTP
over either is the same to the server.  The CGI processes inherit the
server's policy.

Per configuration: mean response time and its standard deviation, for
all requests and for the small ones (size below the distribution's mean,
as the paper's Fig. 8(b)), and the server CPU's load, under EEVDF
(SCHED_OTHER), SCHED_RR and PBS for each alpha and beta in one boot.
As in the paper, one run per (alpha, beta) and repeated runs of the stock
policies (one before each beta's sweep), whose spread shows how much a
cell's difference from them can be noise.

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
import procs  # noqa: E402
import schedattr  # noqa: E402

CLIENTS, THINK_MS, XM_MS, CAP_MS = 30, 10000, 10, 2000
ALPHAS = ["0.25", "0.5", "1", "2", "4", "8"]
BETAS = ["+inf", "-3", "0"]
KNOBS = ["sched_bvt_be_mode", "sched_bvt_pbs_alpha", "sched_bvt_pbs_beta",
         "sched_bvt_pbs_switch_ns"]
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
    ap.add_argument("--scale", type=float, default=3)
    ap.add_argument("--measure", type=float, default=60)
    ap.add_argument("--ramp", type=float, default=15)
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

    saved = {k: procs.read_sysctl(k) for k in KNOBS}
    result = procs.new_result("pbs-groupb", scale=args.scale, runs=args.runs,
                              clients=CLIENTS, think_ms=THINK_MS / args.scale,
                              xm_ms=XM_MS, cap_ms=CAP_MS,
                              measure_s=args.measure, ramp_s=args.ramp)
    try:
        # As in Group A: no current-thread bonus.
        procs.write_sysctl("sched_bvt_pbs_switch_ns", 0)
        for r in range(args.runs):
            for i, beta in enumerate(args.betas.split(",")):
                # The stock policies before each beta's sweep: as many
                # runs of them as betas, spread over the boot.
                procs.write_sysctl("sched_bvt_be_mode", "bvt")
                for config, policy in [("eevdf", {"policy": "other"}),
                                       ("rr", {"policy": "rr", "prio": 1})]:
                    rec = run(args, root, policy)
                    rec.update(config=config, run=r, repeat=i)
                    procs.record(result, rec)
                procs.write_sysctl("sched_bvt_be_mode", "pbs")
                procs.write_sysctl("sched_bvt_pbs_beta", beta)
                for alpha in args.alphas.split(","):
                    procs.write_sysctl("sched_bvt_pbs_alpha", alpha)
                    rec = run(args, root, {"policy": "bvt"})
                    rec.update(config="pbs", alpha=alpha, beta=beta, run=r)
                    procs.record(result, rec)
    finally:
        for k in reversed(KNOBS):
            procs.write_sysctl(k, saved[k])
    procs.save(result, args.out)


if __name__ == "__main__":
    main()
