#!/usr/bin/env python3
"""Count the results of a test run and print 'N passed, N failed'.

Each argument is a directory written by one boot (host/guest-run.sh) or by
the host checks.  What counts as one test:
  - each kselftest case (TAP "ok"/"not ok" lines of a tests' *.tap output;
    cases a crashed binary never reported count as failed);
  - each KUnit case (KTAP in the guest's dmesg);
  - per boot: the guest finished in time, and its dmesg has no splat;
  - each line "ok NAME" / "not ok NAME" of a host.results file.
Exit status 1 if anything failed.
"""
import pathlib
import re
import sys

SPLAT = re.compile(r"WARNING:|BUG:|Oops|Call Trace:|INFO: task .* blocked|"
                   r"possible (circular|recursive) locking|"
                   r"inconsistent lock state|soft lockup|hard LOCKUP|"
                   r"rcu: INFO|self-detected stall|Kernel panic")
TAP = re.compile(r"^(not )?ok (\d+) (.*?)(?: # (SKIP|skip).*)?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
DMESG_PREFIX = re.compile(r"^\[\s*\d+\.\d+\] ")
KUNIT_CASE = re.compile(r"^    (not )?ok \d+ (\S+)")

counts = {"passed": 0, "failed": 0, "skipped": 0}
# Why each failed kselftest case failed, printed again above the count so
# that the tail of a CI log says it.
why = []
WHY = re.compile(r":Expected |Test terminated|Assertion|timeout")


def report(ok, name, skip=False):
    key = "skipped" if skip else ("passed" if ok else "failed")
    counts[key] += 1
    print(f"{'SKIP' if skip else 'PASS' if ok else 'FAIL'}  {name}")


def kselftest(tap_file, tag):
    binary = tap_file.stem
    lines = tap_file.read_text(errors="replace").splitlines()
    plan, seen, failed, case = None, 0, 0, []
    for line in lines:
        if line.startswith("#  RUN"):
            case = []
        case.append(line)
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
        m = TAP.match(line)
        if m:
            seen += 1
            failed += bool(m.group(1))
            report(not m.group(1), f"{tag} {binary}: {m.group(3)}",
                   skip=bool(m.group(4)))
            if m.group(1):
                lines_why = [c for c in case if WHY.search(c)] or case[-8:]
                why.append((f"{tag} {binary}: {m.group(3)}", lines_why[:8]))
    for i in range(seen, plan or 0):
        failed += 1
        report(False, f"{tag} {binary}: case {i + 1} never reported")
    rc_file = tap_file.with_suffix(".rc")
    rc = rc_file.read_text().strip() if rc_file.exists() else "missing"
    if plan is None or (rc != "0" and not failed):
        report(False, f"{tag} {binary}: exit status {rc}, plan {plan}")


def kunit(dmesg, tag):
    found = 0
    for line in dmesg:
        m = KUNIT_CASE.match(DMESG_PREFIX.sub("", line))
        if m:
            found += 1
            report(not m.group(1), f"{tag} kunit: {m.group(2)}")
    if not found:
        report(False, f"{tag} kunit: no KUnit results in dmesg")


def boot(d):
    tag = f"[{d.name}]"
    finished = (d / "finished").exists()
    report(finished, f"{tag} guest finished in time")
    dmesg_file = d / "dmesg.txt"
    # Without the guest's own dmesg, read what reached the console.
    src = dmesg_file if dmesg_file.exists() else d / "console.log"
    dmesg = src.read_text(errors="replace").splitlines() if src.exists() else []
    splats = [line for line in dmesg if SPLAT.search(line)]
    for line in splats[:20]:
        print(f"      {line}")
    report(bool(dmesg) and not splats, f"{tag} dmesg has no WARNING/BUG/lockdep report")
    kunit(dmesg, tag)
    for tap in sorted(d.glob("*.tap")):
        kselftest(tap, tag)


def host(f):
    for line in f.read_text().splitlines():
        m = re.match(r"^(not )?ok (.*)$", line)
        if m:
            report(not m.group(1), f"[host] {m.group(2)}")


times = None
args = sys.argv[1:]
if args[:1] == ["--times"]:
    times = pathlib.Path(args[1])
    args = args[2:]
for arg in args:
    p = pathlib.Path(arg)
    if p.is_file():
        host(p)
    else:
        boot(p)

if why:
    print("why the failed cases failed:")
for name, lines_why in why:
    print(f"  {name}")
    for c in lines_why:
        print(f"      {c}")

# Where the run's time went, just above the count, which is what a CI
# excerpt keeps.
if times and times.is_file():
    laps = [l.split() for l in times.read_text().splitlines() if l.strip()]
    print("time: " + ", ".join(f"{name} {sec} s" for name, sec in laps))

line = f"{counts['passed']} passed, {counts['failed']} failed"
if counts["skipped"]:
    line += f", {counts['skipped']} skipped"
print(line)
sys.exit(1 if counts["failed"] else 0)
