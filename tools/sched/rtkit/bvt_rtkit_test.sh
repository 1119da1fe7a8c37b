#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bvt-rtkit answers rtkit's D-Bus interface on a private system bus: an
# unprivileged user's thread that asks for real-time gets SCHED_BVT with the
# policy file's warp (SCHED_RR at the priority asked, as rtkit grants it, on
# a kernel without SCHED_BVT), the properties read back, and what rtkit
# refuses is refused (a priority above MaxRealtimePriority, a nice level
# below MinNiceLevel, another user's process, a thread of another process,
# the 26th action of a burst, a thread above the per-user cap, a process
# outside an active login session), leaving the thread's policy alone;
# ResetKnown and ResetAll demote, Exit is root's.
#
# Needs root, dbus-daemon, busctl and setpriv; python3 for the parameters
# read with sched_getattr(2).  The daemon is $BVT_RTKIT, else the one next
# to this script, in tools/sched/rtkit, next to $BVTCTL, in PATH or in
# /usr/libexec; its D-Bus policy $BVT_RTKIT_BUSCONF, else the one built next
# to it, else the installed one.

DIR=$(dirname "$(readlink -f "$0")")
# The kselftest TAP helpers: $KTAP_HELPERS, else next to an installed
# selftests directory.
. "${KTAP_HELPERS:-$DIR/../kselftest/ktap_helpers.sh}"

NAME=org.freedesktop.RealtimeKit1
OBJ=/org/freedesktop/RealtimeKit1
# Three users other than root, that dbus-daemon knows (it looks up their
# groups): nobody, and two that run nothing.
NOBODY=$(id -u nobody 2>/dev/null || echo 65534)
mapfile -t OTHERS < <(getent passwd | awk -F: -v n="$NOBODY" \
	'$3 > 0 && $3 != n { print $3 }' | while read -r u; do
		pgrep -U "$u" >/dev/null || echo "$u"
	done | head -2)
BURSTER=${OTHERS[0]}	# the user that uses up its burst
CAPPED=${OTHERS[1]}	# the user that reaches the thread cap

find_daemon() {
	local d

	for d in "$DIR/bvt-rtkit-daemon" \
		 ${BVTCTL:+"$(dirname "$BVTCTL")/bvt-rtkit-daemon"} \
		 "$(command -v bvt-rtkit-daemon)" /usr/libexec/bvt-rtkit-daemon; do
		[ -x "$d" ] && echo "$d" && return
	done
}
BVT_RTKIT=${BVT_RTKIT:-$(find_daemon)}
BUSCONF=${BVT_RTKIT_BUSCONF:-$(dirname "${BVT_RTKIT:-.}")/$NAME.conf}
[ -e "$BUSCONF" ] || BUSCONF=/usr/share/dbus-1/system.d/$NAME.conf
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
DBUS_SEND=$(command -v dbus-send)

ktap_print_header
for tool in dbus-daemon busctl setpriv prlimit; do
	if ! command -v $tool >/dev/null; then
		ktap_skip_all "no $tool"
		exit "$KSFT_SKIP"
	fi
done
if [ -z "$CAPPED" ]; then
	ktap_skip_all "no two users other than root and nobody in passwd"
	exit "$KSFT_SKIP"
elif [ "$(id -u)" != 0 ]; then
	ktap_skip_all "must be run as root"
	exit "$KSFT_SKIP"
elif [ ! -x "$BVT_RTKIT" ]; then
	ktap_skip_all "no bvt-rtkit-daemon (set BVT_RTKIT)"
	exit "$KSFT_SKIP"
elif [ ! -e "$BUSCONF" ]; then
	ktap_skip_all "no $NAME.conf (set BVT_RTKIT_BUSCONF)"
	exit "$KSFT_SKIP"
fi

# What a grant is on this kernel: SCHED_BVT (8), or rtkit's SCHED_RR (2).
if [ -e /proc/sys/kernel/sched_bvt_allowance_ns ]; then
	MODE=bvt GRANTED=8
else
	MODE=rr GRANTED=2
fi
ktap_set_plan 24
ktap_print_msg "kernel $(uname -r): grants are $([ $MODE = bvt ] && echo SCHED_BVT || echo "SCHED_RR (no SCHED_BVT)")"

TMP=$(mktemp -d /tmp/bvt_rtkit.XXXXXX)
chmod 755 "$TMP"
PIDS=()
BUS_PID= DAEMON_PID=
cleanup() {
	[ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null
	[ -n "$BUS_PID" ] && kill "$BUS_PID" 2>/dev/null
	[ ${#PIDS[@]} -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# A bus like the system bus (its default policy), with the daemon's policy.
cat >"$TMP/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path=$TMP/system_bus_socket</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus"
           send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <include>$BUSCONF</include>
</busconfig>
EOF
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$TMP/system_bus_socket

# The policy, with values other than the defaults so that reading it shows.
WARP=7000000 LIMIT=2000000 UNWARP=1500000 WEIGHT=2048
write_policy() {
	cat >"$TMP/rtkit.conf" <<EOF
# bvt_rtkit_test.sh
warp = 7ms
warp-limit = 2ms
unwarp = 1500us
weight = $WEIGHT
rttime-usec-max = 150000
max-realtime-priority = 10
min-nice-level = -12
actions-burst-sec = 600
actions-per-burst-max = 25
threads-per-user-max = 4
require-active-session = $1
EOF
}

# as UID COMMAND...: run COMMAND as UID (0: as we are).
as() {
	local uid=$1

	shift
	if [ "$uid" = 0 ]; then
		"$@"
	else
		setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"
	fi
}

# start_daemon: the daemon on the bus, until it owns the name.
start_daemon() {
	"$BVT_RTKIT" --config "$TMP/rtkit.conf" 2>>"$TMP/daemon.log" &
	DAEMON_PID=$!
	for _ in $(seq 100); do
		busctl --system status "$NAME" >/dev/null 2>&1 && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}

# rk UID METHOD SIGNATURE ARG...: call METHOD as UID with busctl; prints
# its output and fails as it does.
rk() {
	local uid=$1 method=$2

	shift 2
	as "$uid" busctl --system -- call "$NAME" "$OBJ" "$NAME" "$method" "$@" 2>&1
}

# rk_err UID METHOD SIGNATURE ARG...: the same, through dbus-send where there
# is one, which prints the error's name: "Error NAME: message".
rk_err() {
	local uid=$1 method=$2 sig=$3 args=() i

	[ -n "$DBUS_SEND" ] || { rk "$@"; return; }
	shift 3
	for ((i = 0; i < ${#sig}; i++)); do
		case ${sig:i:1} in
		t) args+=("uint64:$1") ;;
		u) args+=("uint32:$1") ;;
		i) args+=("int32:$1") ;;
		esac
		shift
	done
	as "$uid" "$DBUS_SEND" --system --print-reply --dest="$NAME" "$OBJ" \
		"$NAME.$method" "${args[@]}" 2>&1
}

# refused DESC ERROR PATTERN UID METHOD SIG ARG...: the call fails with
# ERROR (where dbus-send shows it) and a message matching PATTERN.
refused() {
	local desc=$1 err=$2 pattern=$3 out

	shift 3
	out=$(rk_err "$@") && { ktap_print_msg "$desc: granted: $out"; return 1; }
	ktap_print_msg "$desc: $out"
	# busctl shows AccessDenied as "Access denied", whatever its message.
	if [ -z "$DBUS_SEND" ] && [ "$err" = AccessDenied ]; then
		pattern="*Access denied*"
	fi
	[ -z "$DBUS_SEND" ] || [[ $out == *"$err"* ]] || return 1
	# shellcheck disable=SC2053
	[[ $out == $pattern ]]
}

# The policy of thread TID, from /proc/TID/sched (or /proc/TID/stat).
policy() {
	local p

	p=$(awk '$1 == "policy" { print $3 }' "/proc/$1/sched" 2>/dev/null)
	[ -n "$p" ] || p=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $39 }')
	echo "$p"
}

# A field of /proc/TID/sched: bvt.params.weight, bvt.params.flags.
sched_field() {
	awk -v f="$2" '$1 == f { print $3 }' "/proc/$1/sched" 2>/dev/null
}

nice_of() {
	sed 's/.*) //' "/proc/$1/stat" | awk '{ print $17 }'
}

# sched_getattr(2) of TID: "policy=P flags=F nice=N prio=R weight=W
# bvtflags=B warp=W limit=L unwarp=U".
getattr() {
	[ -n "$PY" ] || return 1
	"$PY" - "$1" <<'EOF'
import ctypes, os, struct, sys
nr = {'x86_64': 315, 'aarch64': 275, 'riscv64': 275, 'loongarch64': 275,
      'i686': 352, 'armv7l': 381, 's390x': 346, 'ppc64le': 356}
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(88)
if libc.syscall(ctypes.c_long(nr[os.uname().machine]),
                ctypes.c_long(int(sys.argv[1])), buf, ctypes.c_uint(88),
                ctypes.c_uint(0)):
    sys.exit('sched_getattr: ' + os.strerror(ctypes.get_errno()))
(size, policy, flags, nice, prio, _, _, _, _, _, weight, bflags, warp, limit,
 unwarp) = struct.unpack('=IIQiIQQQIIIIqQQ', buf.raw)
print(f'policy={policy} flags={flags} nice={nice} prio={prio} '
      f'weight={weight} bvtflags={bflags} warp={warp} limit={limit} '
      f'unwarp={unwarp}')
EOF
}

# sleeper UID: a sleeping process of UID; its pid in $SLEEPER.  On a kernel
# without SCHED_BVT it has the RLIMIT_RTTIME rtkit asks for (RTTIME=no:
# none), set before it changes its uid.
sleeper() {
	local rttime=()

	if [ "$MODE" = rr ] && [ "${RTTIME:-yes}" = yes ]; then
		rttime=(prlimit --rttime=100000:100000)
	fi
	if [ "$1" = 0 ]; then
		"${rttime[@]}" sleep 600 &
	else
		"${rttime[@]}" setpriv --reuid="$1" --regid="$1" --clear-groups \
			sleep 600 &
	fi
	SLEEPER=$!
	PIDS+=("$SLEEPER")
	# Asleep, as UID: what the daemon will see.
	for _ in $(seq 100); do
		[ "$(stat -c %u "/proc/$SLEEPER")" = "$1" ] &&
			[ "$(cat "/proc/$SLEEPER/comm")" = sleep ] && return
		sleep 0.05
	done
}

# check DESC COMMAND...: a test that passes if COMMAND does.
check() {
	local desc=$1

	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

write_policy no
dbus-daemon --config-file="$TMP/bus.conf" --nofork --nopidfile \
	2>"$TMP/bus.log" &
BUS_PID=$!
for _ in $(seq 100); do
	[ -S "$TMP/system_bus_socket" ] && break
	sleep 0.1
done
if ! start_daemon; then
	ktap_print_msg "$(cat "$TMP/bus.log" "$TMP/daemon.log")"
	ktap_test_fail "the daemon owns $NAME on the bus"
	ktap_exit_fail_msg "no daemon"
fi
ktap_test_pass "the daemon owns $NAME on the bus"

# Everyone may read the properties: the policy file's values.
props() {
	local p out=

	for p in RTTimeUSecMax MaxRealtimePriority MinNiceLevel; do
		out+="$(as $NOBODY busctl --system get-property "$NAME" "$OBJ" \
			"$NAME" $p 2>&1);"
	done
	ktap_print_msg "properties: $out"
	[ "$out" = "x 150000;i 10;i -12;" ]
}
check "the properties read back the policy file's values" props

# 1. A grant, asked for by the thread's owner.
granted_params() {
	local tid=$1 attr

	attr=$(getattr "$tid") || return 1
	ktap_print_msg "thread $tid: $attr; /proc: weight $(sched_field "$tid" bvt.params.weight) flags $(sched_field "$tid" bvt.params.flags)"
	if [ $MODE = bvt ]; then
		[ "$attr" = "policy=8 flags=1 nice=0 prio=0 weight=$WEIGHT bvtflags=1 warp=$WARP limit=$LIMIT unwarp=$UNWARP" ] &&
		[ "$(sched_field "$tid" bvt.params.weight)" = "$WEIGHT" ] &&
		[ "$(sched_field "$tid" bvt.params.flags)" = 1 ]
	else
		[ "$attr" = "policy=2 flags=1 nice=0 prio=5 weight=0 bvtflags=0 warp=0 limit=0 unwarp=0" ]
	fi
}
sleeper $NOBODY
A=$SLEEPER
out=$(rk $NOBODY MakeThreadRealtimeWithPID ttu "$A" "$A" 5)
ktap_print_msg "MakeThreadRealtimeWithPID($A, $A, 5) as $NOBODY: ${out:-ok}; policy $(policy "$A")"
check "an unprivileged user's thread gets policy $GRANTED" \
	test "$(policy "$A")" = $GRANTED
if [ -n "$PY" ]; then
	check "with the policy file's parameters, reset-on-fork" \
		granted_params "$A"
else
	ktap_test_skip "with the policy file's parameters (no python3)"
fi

# 2. A thread other than the main one, of a process of two threads.
if [ -n "$PY" ]; then
	rttime=()
	[ $MODE = rr ] && rttime=(prlimit --rttime=100000:100000)
	"${rttime[@]}" setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		"$PY" -c '
import threading, time
t = threading.Thread(target=time.sleep, args=(600,), daemon=True)
t.start()
print(t.native_id, flush=True)
time.sleep(600)' >"$TMP/thread" &
	T=$!
	PIDS+=("$T")
	for _ in $(seq 50); do
		[ -s "$TMP/thread" ] && break
		sleep 0.1
	done
	T2=$(cat "$TMP/thread")
	out=$(rk $NOBODY MakeThreadRealtimeWithPID ttu "$T" "$T2" 3)
	ktap_print_msg "thread $T2 of $T: ${out:-ok}; policy $(policy "$T2"), main thread $(policy "$T")"
	check "a second thread gets it, and only it" \
		test "$(policy "$T2")/$(policy "$T")" = "$GRANTED/0"
else
	ktap_test_skip "a second thread gets it, and only it (no python3)"
fi

# 3. Refusals, each leaving the thread's policy alone.
sleeper $NOBODY
B=$SLEEPER
check "a priority above MaxRealtimePriority is refused" \
	refused "priority 11" AccessDenied "*priority 11 is above MaxRealtimePriority 10*" \
	$NOBODY MakeThreadRealtimeWithPID ttu "$B" "$B" 11
check "and leaves the thread's policy alone" test "$(policy "$B")" = 0
check "priority 0 is refused" \
	refused "priority 0" InvalidArgs "*not a real-time priority*" \
	$NOBODY MakeThreadRealtimeWithPID ttu "$B" "$B" 0

sleeper 0
ROOTS=$SLEEPER
check "another user's thread is refused" \
	refused "root's process" AccessDenied "*is not the caller's*" \
	$NOBODY MakeThreadRealtimeWithPID ttu "$ROOTS" "$ROOTS" 5
check "and keeps its policy" test "$(policy "$ROOTS")" = 0

check "a thread of another process is refused" \
	refused "thread of another" InvalidArgs "*thread $B is not a thread of process $A*" \
	$NOBODY MakeThreadRealtimeWithPID ttu "$A" "$B" 5
check "MakeThreadRealtime is for the caller's own process" \
	refused "MakeThreadRealtime" InvalidArgs "*thread $B is not a thread of process*" \
	$NOBODY MakeThreadRealtime tu "$B" 5

# 4. High priority: a nice level, no lower than MinNiceLevel.
out=$(rk $NOBODY MakeThreadHighPriorityWithPID tti "$B" "$B" -7)
ktap_print_msg "MakeThreadHighPriorityWithPID($B, $B, -7): ${out:-ok}; nice $(nice_of "$B") policy $(policy "$B")"
check "MakeThreadHighPriority sets the nice level" \
	test "$(nice_of "$B")/$(policy "$B")" = "-7/0"
check "a nice level below MinNiceLevel is refused" \
	refused "nice -13" AccessDenied "*nice level -13 is below MinNiceLevel -12*" \
	$NOBODY MakeThreadHighPriorityWithPID tti "$B" "$B" -13

# 5. RLIMIT_RTTIME: what SCHED_RR needs, and SCHED_BVT does not.
RTTIME=no sleeper $NOBODY
C=$SLEEPER
if [ $MODE = rr ]; then
	check "SCHED_RR fallback: a process without RLIMIT_RTTIME is refused" \
		refused "no RLIMIT_RTTIME" AccessDenied "*has no RLIMIT_RTTIME*" \
		$NOBODY MakeThreadRealtimeWithPID ttu "$C" "$C" 5
else
	out=$(rk $NOBODY MakeThreadRealtimeWithPID ttu "$C" "$C" 5)
	ktap_print_msg "without RLIMIT_RTTIME: ${out:-ok}; policy $(policy "$C")"
	check "SCHED_BVT needs no RLIMIT_RTTIME" test "$(policy "$C")" = 8
fi

# 6. The burst limit: 25 actions in a burst, the 26th refused (a burst of
# 600 s here: 25 calls can take more than 20 s under TCG).
burst() {
	local i out

	sleeper $BURSTER
	for i in $(seq 25); do
		out=$(rk $BURSTER MakeThreadRealtimeWithPID ttu "$SLEEPER" "$SLEEPER" 5) || {
			ktap_print_msg "action $i refused: $out"
			return 1
		}
	done
	refused "action 26" LimitsExceeded "*more than 25 actions in 600 s*" \
		$BURSTER MakeThreadRealtimeWithPID ttu "$SLEEPER" "$SLEEPER" 5
}
check "the burst limit refuses the 26th action of a burst" burst

# 7. The thread cap (threads-per-user-max = 4), of threads still granted.
CAPPED_PIDS=()
cap() {
	local i out

	for i in 1 2 3 4 5; do
		sleeper $CAPPED
		CAPPED_PIDS+=("$SLEEPER")
	done
	for i in 0 1 2 3; do
		out=$(rk $CAPPED MakeThreadRealtimeWithPID ttu "${CAPPED_PIDS[i]}" "${CAPPED_PIDS[i]}" 5) || {
			ktap_print_msg "thread $i refused: $out"
			return 1
		}
	done
	refused "a fifth thread" LimitsExceeded "*holds 4 threads (threads-per-user-max)*" \
		$CAPPED MakeThreadRealtimeWithPID ttu "${CAPPED_PIDS[4]}" "${CAPPED_PIDS[4]}" 5 &&
	test "$(policy "${CAPPED_PIDS[4]}")" = 0
}
check "the thread cap refuses a fifth thread, whose policy stays" cap
kill "${CAPPED_PIDS[0]}"
wait "${CAPPED_PIDS[0]}" 2>/dev/null
out=$(rk $CAPPED MakeThreadRealtimeWithPID ttu "${CAPPED_PIDS[4]}" "${CAPPED_PIDS[4]}" 5)
ktap_print_msg "after one exited: ${out:-ok}; policy $(policy "${CAPPED_PIDS[4]}")"
check "a thread that exited leaves room under the cap" \
	test "$(policy "${CAPPED_PIDS[4]}")" = $GRANTED

# 8. Root's methods.
check "Exit is refused to an unprivileged user" \
	refused "Exit" AccessDenied "*" $NOBODY Exit ""

demoted() {
	local t bad=

	for t in "$@"; do
		[ "$(policy "$t")" = 0 ] && [ "$(nice_of "$t")" -ge 0 ] ||
			bad+=" $t:$(policy "$t")/$(nice_of "$t")"
	done
	ktap_print_msg "ResetKnown: ${out:-ok};${bad:- all demoted}"
	[ -z "$bad" ]
}
known=("$A" "$B" "${CAPPED_PIDS[@]:1}")
[ -n "$PY" ] && known+=("$T2")
[ $MODE = bvt ] && known+=("$C")
out=$(rk 0 ResetKnown "")
check "ResetKnown returns the granted threads to policy 0" demoted "${known[@]}"

sleeper $NOBODY
D=$SLEEPER
rk $NOBODY MakeThreadRealtimeWithPID ttu "$D" "$D" 5 >/dev/null
before=$(policy "$D")
out=$(rk 0 ResetAll "")
ktap_print_msg "ResetAll: ${out:-ok}; policy $before -> $(policy "$D")"
check "ResetAll returns a granted thread to policy 0" \
	test "$before/$(policy "$D")" = "$GRANTED/0"

gone() {
	local i

	for i in $(seq 50); do
		kill -0 "$DAEMON_PID" 2>/dev/null || return 0
		sleep 0.1
	done
	return 1
}
out=$(rk 0 Exit "")
ktap_print_msg "Exit: ${out:-ok}"
check "Exit as root ends the daemon" gone
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=

# 9. require-active-session = yes: there is no logind session here.
write_policy yes
if start_daemon; then
	sleeper $NOBODY
	E=$SLEEPER
	check "outside an active session an unprivileged caller is refused" \
		refused "no session" AccessDenied "*in no login session*" \
		$NOBODY MakeThreadRealtimeWithPID ttu "$E" "$E" 5
	# Root's process is in no session either; root must own it, as
	# every caller must.
	sleeper 0
	F=$SLEEPER
	out=$(rk 0 MakeThreadRealtimeWithPID ttu "$F" "$F" 5)
	ktap_print_msg "as root: ${out:-ok}; policy $(policy "$F")"
	check "root is exempt from the session check" \
		test "$(policy "$F")" = $GRANTED
else
	ktap_test_fail "outside an active session an unprivileged caller is refused"
	ktap_test_fail "root is exempt from the session check"
fi

ktap_print_msg "daemon log:"
sed 's/^/# /' "$TMP/daemon.log"
ktap_finished
