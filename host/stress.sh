#!/bin/bash
# "make stress [SECONDS=n]": build, then boot the kernel with 2 and with 4
# vCPUs (the 4-vCPU boot with its last CPU nohz_full, as make check) and
# run bvt_stress for SECONDS (default 60) in each; print its figures and
# "N passed, N failed", failing on any splat in the guest's dmesg.
. "$(dirname "$0")/common.sh"

seconds=${1:-60}
build_for_boot
results=$BUILD/results/stress
boot_guests "$results" $((seconds + 600)) stress "$seconds"
for dir in "$results"/*cpu; do
	grep -h '^# .*bvt_stress' "$dir/bvt_stress.tap" 2>/dev/null |
		sed "s/^# [^:]*:[0-9]*:run:/[$(basename "$dir")] /" >&2
done
step "results (full logs in $results)"
exec python3 "$TOP/host/results.py" "$results"/*cpu
