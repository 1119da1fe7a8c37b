#!/bin/bash
# Runs inside the guest: the demo or every selftest, with results written to
# OUTDIR for the host to read.
#
#   guest-run.sh OUTDIR BINDIR demo|check|stress [SECONDS]
#
# BINDIR is $BUILD/selftests: bvtctl ($BUILD/bin) and the kernel tree with
# the shell tests ($BUILD/linux) are found beside it.
set -u
out=$1 bin=$2 mode=$3
build=$(cd "$bin/.." && pwd)
export BVTCTL=$build/bin/bvtctl QAS_ADMIT=$build/bin/qas-admit

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

case "$mode" in
demo)
	"$bin/bvt_demo" 2>&1 | tee "$out/demo.txt"
	;;
check)
	# A step of the series (host/series.sh boot) has fewer of them.
	for t in "$bin"/bvt_*_test "$build"/linux/tools/testing/selftests/bvt/*_test.sh; do
		[ -e "$t" ] || continue
		name=$(basename "$t" .sh)
		echo "running $name" >&2
		timeout 300 "$t" >"$out/$name.tap" 2>&1
		echo $? >"$out/$name.rc"
	done
	# Last: it takes CPUs offline and flips the sysctls while it runs.
	[ -e "$bin/bvt_stress" ] && stress 30
	;;
stress)
	stress "${4:-20}"
	;;
esac

dmesg >"$out/dmesg.txt"
touch "$out/finished"
