#!/bin/bash
# "make stress [SECONDS=n]": build, then boot the kernel with 2 and with 4
# vCPUs (the 4-vCPU boot with its last CPU nohz_full, as make check) and
# run bvt_stress for SECONDS (default 60) in each; print its figures and
# "N passed, N failed", failing on any splat in the guest's dmesg.
. "$(dirname "$0")/common.sh"

seconds=${1:-60}
"$TOP/host/setup.sh"
"$TOP/host/prepare-tree.sh"
"$TOP/host/build.sh"
"$TOP/host/build-tests.sh"
BVT_ACCEL=${BVT_ACCEL:-$("$TOP/host/boot.sh" --probe)}
export BVT_ACCEL

results=$BUILD/results/stress
rm -rf "$results"
mkdir -p "$results"
for cpus in ${BVT_CHECK_CPUS:-2 4}; do
	dir=$results/${cpus}cpu
	append=
	[ "$cpus" -ge 4 ] && append="nohz_full=$((cpus - 1))"
	BVT_APPEND=$append "$TOP/host/boot.sh" "$cpus" "$dir" \
		$((seconds + 600)) "$TOP/host/guest-run.sh" "$dir" \
		"$BUILD/selftests" stress "$seconds" || true
	grep -h '^# .*bvt_stress' "$dir/bvt_stress.tap" 2>/dev/null |
		sed "s/^# [^:]*:[0-9]*:run:/[${cpus}cpu] /" >&2
done
step "results (full logs in $results)"
exec python3 "$TOP/host/results.py" "$results"/*cpu
