#!/bin/bash
# "make demo": set up, build, boot the patched kernel and show what
# SCHED_BVT does.
. "$(dirname "$0")/common.sh"

"$TOP/host/setup.sh"
"$TOP/host/prepare-tree.sh"
"$TOP/host/build.sh"
"$TOP/host/build-tests.sh"
BVT_ACCEL=${BVT_ACCEL:-$("$TOP/host/boot.sh" --probe)}
export BVT_ACCEL

dir=$BUILD/results/demo
rm -rf "$dir"
"$TOP/host/boot.sh" "${BVT_DEMO_CPUS:-2}" "$dir" 600 \
	"$TOP/host/guest-run.sh" "$dir" "$BUILD/selftests" demo ||
	die "the guest timed out; see $dir/console.log"
[ -f "$dir/finished" ] || die "the guest did not finish; see $dir/console.log"
step "measured in $(cat "$dir/uname") with $(cat "$dir/nproc") vCPUs ($(cat "$dir/accel"))"
cat "$dir/demo.txt"
