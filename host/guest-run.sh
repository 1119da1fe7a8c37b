#!/bin/bash
# Runs inside the guest: the demo or every selftest, with results written to
# OUTDIR for the host to read.
#
#   guest-run.sh OUTDIR BINDIR demo|check|series|stress [SECONDS]
#
# BINDIR is $BUILD/selftests: bvtctl ($BUILD/bin) and the kernel tree with
# the shell tests ($BUILD/linux) are found beside it.
set -u
out=$1 bin=$2 mode=$3
build=$(cd "$bin/.." && pwd)
export BVTCTL=$build/bin/bvtctl QAS_ADMIT=$build/bin/qas-admit
export BVT_SCX_DIR=$build/scx/bin
top=$(cd "$(dirname "$0")/.." && pwd)
export BVT_RTKIT=$build/bin/bvt-rtkit-daemon
export KTAP_HELPERS=$build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
uname -r >"$out/uname"
nproc >"$out/nproc"

# bvt_stress for $1 seconds.
stress() {
	echo "running bvt_stress for $1 s" >&2
	# An offline write under its strong threads can take two minutes
	# (sched-bvt.rst, "Fair tasks"), and its end waits for the last one.
	BVT_STRESS_SECONDS=$1 timeout $(($1 + 420)) "$bin/bvt_stress" \
		>"$out/bvt_stress.tap" 2>&1
	echo $? >"$out/bvt_stress.rc"
}

# The selftests named, each into $out/$prefix<name>.tap.
run_tests() {
	local prefix=$1 t name
	shift
	for t in "$@"; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		echo "running $prefix$name" >&2
		timeout 300 "$t" >"$out/$prefix$name.tap" 2>&1
		echo $? >"$out/$prefix$name.rc"
	done
}

# make demo's latency harness at its heaviest load, one short cell of each
# of its policies, into demo_latency.tap: a demo that cannot start its
# hogs on a slower machine fails here first.
demo_latency() {
	local json=$out/demo_latency.json rc

	echo "running the demo's latency harness at 64 hogs a vCPU" >&2
	timeout 900 python3 "$top/repro/latency.py" \
		--shim "$build/bin/latency_shim.so" --loads 64 \
		--policies other,fifo,bvt-warped --seconds 1 --runs 1 \
		--out "$json" >"$out/demo_latency.log" 2>&1
	rc=$?
	{
		echo "1..1"
		if [ $rc = 0 ] && python3 -c 'import json, sys
sys.exit(len(json.load(open(sys.argv[1]))["runs_data"]) != 3)' "$json"; then
			echo "ok 1 make demo's latency cells at 64 hogs a vCPU finish"
		else
			echo "not ok 1 make demo's latency cells at 64 hogs a vCPU finish (exit $rc)"
			tail -5 "$out/demo_latency.log" | sed 's/^/# /'
		fi
	} >"$out/demo_latency.tap"
	echo 0 >"$out/demo_latency.rc"
}

# Every selftest again while scx_simple runs every SCHED_NORMAL task (but
# bvt_scx_test, which loads schedulers itself), into scx_simple+<name>.tap,
# and whether it stayed loaded throughout into scx_simple.tap.
scx_pass() {
	local pid state t tests=()

	[ -x "$BVT_SCX_DIR/scx_simple" ] && [ -e /sys/kernel/sched_ext/state ] ||
		return 0
	for t in "$bin"/bvt_*_test "$build"/linux/tools/testing/selftests/bvt/*_test.sh; do
		[ "$(basename "$t")" = bvt_scx_test ] || tests+=("$t")
	done
	echo "loading scx_simple" >&2
	"$BVT_SCX_DIR/scx_simple" >"$out/scx_simple.log" 2>&1 &
	pid=$!
	for _ in $(seq 600); do
		[ "$(cat /sys/kernel/sched_ext/state)" = enabled ] && break
		sleep 0.1
	done
	state=$(cat /sys/kernel/sched_ext/state)
	[ "$state" = enabled ] && run_tests scx_simple+ "${tests[@]}"
	state=$(cat /sys/kernel/sched_ext/state)
	kill -INT "$pid"
	wait "$pid"
	{
		echo "1..1"
		if [ "$state" = enabled ]; then
			echo "ok 1 scx_simple stayed loaded through every selftest"
		else
			echo "not ok 1 scx_simple stayed loaded through every selftest (state $state)"
		fi
	} >"$out/scx_simple.tap"
	echo 0 >"$out/scx_simple.rc"
}

case "$mode" in
demo)
	"$bin/bvt_demo" 2>&1 | tee "$out/demo.txt"
	;;
check)
	run_tests "" "$bin"/bvt_*_test "$build"/linux/tools/testing/selftests/bvt/*_test.sh
	# bvt-rtkit, not part of the kernel's series, on a private bus.
	run_tests "" "$top/tools/sched/rtkit/bvt_rtkit_test.sh"
	# Once, in the first boot.
	[ "$(nproc)" = 2 ] && demo_latency
	[ "$(nproc)" = 2 ] && scx_pass
	# Last: it takes CPUs offline and flips the sysctls while it runs.
	[ -e "$bin/bvt_stress" ] && stress 30
	;;
series)
	# A step of the series (host/series.sh boot): its own selftests, with
	# none of what the tree around the series adds (bvt-rtkit, the demo,
	# sched_ext's schedulers).
	run_tests "" "$bin"/bvt_*_test
	[ -e "$bin/bvt_stress" ] && stress 30
	;;
stress)
	stress "${4:-20}"
	;;
esac

dmesg >"$out/dmesg.txt"
touch "$out/finished"
