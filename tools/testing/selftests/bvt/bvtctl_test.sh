#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bvtctl runs a command with SCHED_BVT parameters, in either level, shows
# and changes them on a running pid, and answers bad input, a missing
# privilege and a full reserved-effort level with an error message and a
# non-zero exit status.

DIR=$(dirname "$(readlink -f "$0")")
. "$DIR/../kselftest/ktap_helpers.sh"
# The source tree's build, or the installed one (sched-bvt-tools).
BVTCTL=${BVTCTL:-$DIR/../../../sched/bvtctl}
[ -x "$BVTCTL" ] || BVTCTL=$(command -v bvtctl || echo "$BVTCTL")

ktap_print_header
if [ ! -x "$BVTCTL" ]; then
	ktap_skip_all "no bvtctl at $BVTCTL"
	exit 4
fi
ktap_set_plan 10

# expect DESCRIPTION PATTERN COMMAND...: COMMAND's output matches PATTERN.
expect() {
	local desc=$1 pattern=$2 out
	shift 2
	out=$("$@" 2>&1)
	ktap_print_msg "$desc: $out"
	case "$out" in
	$pattern) ktap_test_pass "$desc" ;;
	*) ktap_test_fail "$desc" ;;
	esac
}

expect "runs a command with the given parameters" \
	"pid *: SCHED_BVT weight 2048 best-effort nice 0 warp 20ms (on) limit 5ms unwarp 50ms" \
	"$BVTCTL" --weight 2048 --warp 20ms --limit 5ms --unwarp 50ms -- \
	sh -c 'exec "$0" -p $$' "$BVTCTL"

sleep 60 &
pid=$!
"$BVTCTL" --weight 512 --warp 2ms -p "$pid" >/dev/null
"$BVTCTL" --nice 3 --no-warp -p "$pid" >/dev/null
want="weight 512 best-effort nice 3 warp 2ms (off) limit unlimited unwarp 0ns"
expect "changes only what is given on a pid" "pid $pid: SCHED_BVT $want" \
	"$BVTCTL" -p "$pid"
kill "$pid"

expect "runs a command in the reserved-effort level" \
	"pid *: SCHED_BVT weight 1024 reserved-effort nice 0 *" \
	"$BVTCTL" --reserved --weight 1024 -- sh -c 'exec "$0" -p $$' "$BVTCTL"

expect "a reservation that does not fit fails with EBUSY" \
	"bvtctl: sched_setattr: Device or resource busy*" \
	"$BVTCTL" --reserved --weight 88761 true

expect "refuses a duration without a known unit" \
	"bvtctl: bad value '20xs' for -W*" \
	"$BVTCTL" --warp 20xs true

expect "refuses a weight out of range" \
	"bvtctl: bad value '88762' for -w*" \
	"$BVTCTL" --weight 88762 true

# The best-effort level's mode and PBS tunables, restored at the end.
if [ -e /proc/sys/kernel/sched_bvt_be_mode ]; then
	saved=$("$BVTCTL" --level)
	knobs="alpha 0.500 beta -3.000 switch 2ms epsilon 0.100 select sampled"
	expect "sets and shows the best-effort level's PBS mode" \
		"best-effort level: mode pbs $knobs" \
		"$BVTCTL" --level --mode pbs --alpha 0.5 --beta -3 --switch 2ms \
		--epsilon 0.1 --select sampled

	expect "refuses an alpha out of its range" \
		"bvtctl: --alpha 1000: Invalid argument (out of its range)" \
		"$BVTCTL" --level --alpha 1000

	expect "changes only the level knobs given" \
		"best-effort level: mode bvt $knobs" \
		"$BVTCTL" --level --mode bvt
	set -- $saved
	"$BVTCTL" --level --mode "$4" --alpha "$6" --beta "$8" --switch "${10}" \
		--epsilon "${12}" --select "${14}" >/dev/null
else
	for t in "sets and shows the best-effort level's PBS mode" \
		"refuses an alpha out of its range" \
		"changes only the level knobs given"; do
		ktap_test_skip "$t (no PBS: CONFIG_SCHED_BVT_PBS=n)"
	done
fi

if command -v setpriv >/dev/null; then
	expect "an unprivileged raise fails with EPERM" \
		"bvtctl: sched_setattr: Operation not permitted*" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$BVTCTL" --weight 4096 true
else
	ktap_test_skip "an unprivileged raise fails with EPERM (no setpriv)"
fi

ktap_finished
