# shellcheck shell=bash
# The install test's desktop checks, sourced by its phases (after result,
# check, P and MODE: bvt under the packaged kernel, rr under the
# distribution's): bvt-rtkit, from the sched-bvt-rtkit package, answers
# rtkit's D-Bus interface on the system bus, started by D-Bus activation;
# a desktop user's thread gets what it asks for, and what rtkit refuses is
# refused, for the reason rtkit gives.  Under the packaged kernel, a video
# player granted warp that way keeps its frames beside 8 greps.

RK=(org.freedesktop.RealtimeKit1 /org/freedesktop/RealtimeKit1
    org.freedesktop.RealtimeKit1)
id alice >/dev/null 2>&1 || useradd -m alice
id bob >/dev/null 2>&1 || useradd -m bob

policy_of() {	# policy_of TID: its policy number
	sed -n 's/^policy *: *//p' "/proc/$1/sched"
}

as_user() {	# as_user USER COMMAND...: exec'd as USER, no session
	local user=$1
	shift
	setpriv --reuid="$user" --regid="$user" --init-groups -- "$@"
}

ask() {		# ask USER PID [PRIO]: USER asks for PID's main thread
	as_user "$1" busctl call "${RK[@]}" MakeThreadRealtimeWithPID ttu \
		"$2" "$2" "${3:-10}"
}

# refused REASON USER PID [PRIO]: refused, and for REASON by the
# daemon's log (the caller is told only the D-Bus error, as by rtkit).
refused() {
	local reason=$1 i
	shift
	ask "$@" >/dev/null 2>&1 && return 1
	for i in $(seq 20); do
		journalctl -u bvt-rtkit.service -n 1 --no-pager -o cat |
			grep -q -- "$reason" && return 0
		sleep 0.1
	done
	return 1
}

# alice logs in as a desktop user does: a login session of logind's (her
# own, through PAM), which her programs' requests count on.  Her
# processes here run in it or, as a desktop's do under her service
# manager, beside it.
systemd-run --quiet --uid=alice -p PAMName=login --unit=desk-login sleep 1200
for i in $(seq 50); do
	loginctl show-user alice -p State --value 2>/dev/null | grep -qx active && break
	sleep 0.2
done
check login-session-active sh -c "loginctl show-user alice -p State --value | grep -qx active"

granted=$([ "$MODE" = bvt ] && echo 8 || echo 2)
check rtkit-property sh -c "busctl get-property ${RK[*]} MaxRealtimePriority | grep -qx 'i 20'"
check rtkit-activated systemctl is-active -q bvt-rtkit.service

# A sleeping process of alice's, with RLIMIT_RTTIME (which rtkit's
# SCHED_RR needs), and one of bob's, who has no session.
prlimit --rttime=200000 setpriv --reuid=alice --regid=alice --init-groups sleep 1200 &
apid=$!
setpriv --reuid=bob --regid=bob --init-groups sleep 1200 &
bpid=$!
sleep 0.5
check rtkit-refuses-priority refused "above MaxRealtimePriority" alice "$apid" 99
check rtkit-policy-kept test "$(policy_of "$apid")" = 0
check rtkit-refuses-other-user refused "not the caller's" bob "$apid"
check rtkit-refuses-no-session refused "no active one" bob "$bpid"
check rtkit-policy-kept-2 test "$(policy_of "$bpid")" = 0
check rtkit-grants ask alice "$apid"
check rtkit-granted-policy test "$(policy_of "$apid")" = "$granted"
kill "$apid" "$bpid"
wait "$apid" "$bpid" 2>/dev/null

# play NAME: the player, as alice, beside 8 greps of bob's; with NAME
# granted it asks bvt-rtkit for its decoding thread, as PipeWire asks for
# its threads (the player decodes on its main thread).
play() {
	local out=/tmp/player-$1.out i grep_pids=()
	rm -f /tmp/go "$out"
	mkfifo -m 600 /tmp/go
	# setpriv execs the player: $! is its pid.
	LD_LIBRARY_PATH=$P/lib setpriv --reuid=alice --regid=alice \
		--init-groups -- "$P/player" "$P/clip.mpg" 6 wait </tmp/go >"$out" &
	pid=$!
	exec 3>/tmp/go
	for i in $(seq 600); do
		grep -q ready "$out" && break
		sleep 0.1
	done
	[ "$1" = granted ] && ask alice "$pid" >/dev/null
	echo "PLAYER $1 policy $(policy_of "$pid")"
	for i in $(seq 8); do
		setpriv --reuid=bob --regid=bob --init-groups -- \
			sh -c 'while :; do grep -rc zzzz /dev/shm/tree >/dev/null; done' &
		grep_pids+=($!)
	done
	sleep 2
	echo go >&3
	exec 3>&-
	wait "$pid"
	kill "${grep_pids[@]}"
	wait "${grep_pids[@]}" 2>/dev/null
	pkill -u bob grep
	late=$(grep -o '"late": [0-9]*' "$out" | grep -o '[0-9]*$')
	frames=$(grep -o '"frames": [0-9]*' "$out" | grep -o '[0-9]*$')
	echo "PLAYER $1 late ${late:-?} of ${frames:-?} frames"
}

if [ "$MODE" = bvt ] && [ -x "$P/player" ]; then
	cp -r "$P/tree" /dev/shm/tree
	play ungranted
	ungranted_late=$late
	play granted
	# TCG sometimes stops the whole guest, both vCPUs at once with no
	# timer interrupt on either, for over 100 ms: the frame due in the
	# stall and the next are late whatever the policy.
	if [ -n "$late" ] && [ "${frames:-0}" -ge 100 ] && [ "$late" -le 3 ]; then
		result player-granted ok "$late late of $frames (not granted: $ungranted_late)"
	else
		result player-granted fail "${late:-?} late of ${frames:-?} (not granted: $ungranted_late)"
	fi
	rm -rf /dev/shm/tree
fi
journalctl -b -u bvt-rtkit.service --no-pager -o cat | sed 's/^/RTKIT /'
systemctl stop desk-login
