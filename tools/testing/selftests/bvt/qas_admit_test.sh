#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# qas-admit computes QAS reservation times: small cases worked out by
# hand (a fixed part time, the period's end, a two-valued distribution,
# non-preemptible parts), refusals, and the model's predictions against
# its own Monte-Carlo simulation for uniform and harmonic periods; and the
# set it gives a command it starts and a running thread.

DIR=$(dirname "$(readlink -f "$0")")
. "$DIR/../kselftest/ktap_helpers.sh"
# The source tree's build, or the installed one (sched-bvt-tools).
QAS_ADMIT=${QAS_ADMIT:-$DIR/../../../sched/qas-admit}
[ -x "$QAS_ADMIT" ] || QAS_ADMIT=$(command -v qas-admit || echo "$QAS_ADMIT")

ktap_print_header
if [ ! -x "$QAS_ADMIT" ]; then
	ktap_skip_all "no qas-admit at $QAS_ADMIT"
	exit 4
fi
ktap_set_plan 10

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# field TASK COLUMN: a column of qas-admit's line for TASK (4: quality,
# 7: optional_ms, 8: predicted, 9: simulated).
field() {
	awk -v t="$1" -v c="$2" '$1 == t { print $c }' "$tmp/out"
}

# near VALUE WANT TOLERANCE: |VALUE - WANT| <= TOLERANCE.
near() {
	awk -v a="$1" -v b="$2" -v d="$3" \
		'BEGIN { x = a - b; exit !(a != "" && x <= d && -x <= d) }'
}

# check DESCRIPTION SPEC ARGS... -- CONDITION...: run qas-admit on SPEC.
run() {
	local desc=$1 spec=$2
	shift 2
	printf '%s\n' "$spec" >"$tmp/spec"
	"$QAS_ADMIT" -v 1000 -s 20000 "$tmp/spec" >"$tmp/out" 2>&1
	echo $? >"$tmp/rc"
	while read -r line; do ktap_print_msg "$desc: $line"; done <"$tmp/out"
}

result() {
	if "$@"; then ktap_test_pass "$desc"; else ktap_test_fail "$desc"; fi
}

# Four parts of exactly 2 ms, half of them asked: 4 ms, if each part must
# end within the reservation (preemptible), and just over 2 ms if a part
# only has to start within it (non-preemptible: 2 ms and one class).
desc="preemptible: two of four 2 ms parts take 4 ms"
run "$desc" "task a period=10ms parts=4 quality=0.5 y=const:2ms"
result near "$(field a 7)" 4.000 0.0005
desc="non-preemptible: the second part starts within 2.01 ms"
run "$desc" "task a period=10ms parts=4 quality=0.5 preempt=0 y=const:2ms"
result near "$(field a 7)" 2.010 0.0005

# 7 ms of mandatory work leaves room for one 2 ms part of four: a quality
# of 0.5 cannot be had, and is refused (exit status 1).
desc="the period's end: 0.5 refused after 7 ms of mandatory work"
run "$desc" "task a period=10ms parts=4 quality=0.5 x=const:7ms y=const:2ms"
result test "$(cat "$tmp/rc")" = 1
desc="the period's end: 0.25 admitted after it"
run "$desc" "task a period=10ms parts=4 quality=0.25 x=const:7ms y=const:2ms"
result near "$(field a 7)" 2.000 0.0005

# A part of 1 or 3 ms, evenly: half of them need 1 ms, three quarters all
# of 3 ms, and then every part completes.
printf '1000000\n3000000\n' >"$tmp/y"
desc="two values: 0.5 takes 1 ms"
run "$desc" "task a period=10ms parts=1 quality=0.5 y=@$tmp/y"
result near "$(field a 7)" 1.000 0.0005
desc="two values: 0.75 takes 3 ms and gives 1"
run "$desc" "task a period=10ms parts=1 quality=0.75 y=@$tmp/y"
result near "$(field a 8)" 1.000 0.0001

# Three tasks in one period, and three in harmonic periods: what the
# model predicts, the simulation achieves, within 0.02, and at least the
# quality asked (by the simulation, for the harmonic ones, within 0.01).
desc="uniform periods: predicted as simulated"
run "$desc" "task a period=40ms parts=4 quality=0.9 x=normal:4ms,1ms,8ms y=normal:2ms,0.6ms,5ms
task b period=40ms parts=3 quality=0.7 x=normal:3ms,1ms,6ms y=normal:3ms,1ms,7ms
task c period=40ms parts=2 quality=0.4 preempt=1 y=normal:4ms,2ms,10ms"
ok=true
for t in a b c; do
	near "$(field $t 8)" "$(field $t 9)" 0.02 || ok=false
	near "$(field $t 9)" "$(field $t 4)" 0.02 || ok=false
done
result $ok
desc="harmonic periods: simulated quality as asked"
run "$desc" "task a period=20ms parts=2 quality=0.9 x=normal:2ms,0.5ms,4ms y=normal:2ms,0.6ms,5ms
task b period=40ms parts=3 quality=0.7 x=normal:3ms,1ms,6ms y=normal:3ms,1ms,7ms
task c period=80ms parts=2 quality=0.5 y=normal:5ms,2ms,12ms"
ok=true
for t in a b c; do
	near "$(field $t 9)" "$(field $t 4)" 0.01 ||
		awk -v a="$(field $t 9)" -v b="$(field $t 4)" 'BEGIN { exit !(a >= b) }' ||
		ok=false
done
result $ok

# sched FILE NAME: the value of NAME in a /proc/PID/sched copy.
sched() {
	awk -F: -v n="$2" '{ gsub(/ /, "", $1) } $1 == n { gsub(/ /, "", $2); print $2 }' "$1"
}

# Giving a set takes CAP_SYS_NICE.
if [ "$(id -u)" != 0 ]; then
	ktap_test_skip "-- COMMAND: not root"
	ktap_test_skip "--apply TID: not root"
	ktap_finished
	exit
fi

# The set it gives: SCHED_BVT, 40 ms periods, the mandatory part (w, the
# worst case of x) and the optional parts' one reservation; restricted to
# them (flags 1) if asked.
printf '%s\n' "task a period=40ms parts=2 quality=0.5 x=const:3ms y=const:2ms" \
	>"$tmp/spec"
desc="-- COMMAND: the command runs in SCHED_BVT with the set"
"$QAS_ADMIT" -v 1000 -s 0 --restrict "$tmp/spec" -- cat /proc/self/sched \
	>"$tmp/out" 2>&1
# A kernel without QAS sets (CONFIG_SCHED_BVT_QAS=n) refuses to give one.
if grep -q "giving the set: Operation not supported" "$tmp/out"; then
	ktap_test_skip "-- COMMAND: no QAS sets in this kernel"
	ktap_test_skip "--apply TID: no QAS sets in this kernel"
	ktap_finished
	exit
fi
while read -r line; do ktap_print_msg "$desc: $line"; done \
	< <(grep -e admitted -e '^a ' -e policy -e bvt.qas "$tmp/out")
result test "$(grep -c '; admitted' "$tmp/out")" = 1 -a \
	"$(sched "$tmp/out" policy)" = 8 -a \
	"$(sched "$tmp/out" bvt.qas.period)" = 40.000000 -a \
	"$(sched "$tmp/out" bvt.qas.flags)" = 1 -a \
	"$(sched "$tmp/out" bvt.qas.nr_parts)" = 2

desc="--apply TID: a running thread gets the set"
sleep 600 &
pid=$!
"$QAS_ADMIT" -v 1000 -s 0 --apply $pid "$tmp/spec" >"$tmp/out" 2>&1
rc=$?
cp "/proc/$pid/sched" "$tmp/sched"
kill $pid
wait $pid 2>/dev/null
ktap_print_msg "$desc: exit $rc, $(grep bvt.qas.nr_parts "$tmp/sched")"
result test $rc = 0 -a "$(sched "$tmp/sched" policy)" = 8 -a \
	"$(sched "$tmp/sched" bvt.qas.flags)" = 0 -a \
	"$(sched "$tmp/sched" bvt.qas.nr_parts)" = 2

ktap_finished
