#!/bin/bash
# Open the trace of the virtual time experiment (make repro EXP=vtime) in
# KernelShark under Xvfb and save a screenshot of its window:
#
#   kernelshark.sh [TRACE.dat [PNG]]
#
# (default repro/results/vtime/trace.dat, and kernelshark.png beside it).
# A KernelShark session, written from the trace, opens 150 ms around the
# first warp: the CPU that ran it and task plots of the warped thread and
# of the SCHED_BVT thread picked most besides it, marker A on the
# sched_bvt_warp_start, and the list filtered to the sched_bvt events (the
# graph keeps every event).  setup.sh installs Debian's kernelshark and
# Xvfb for it; the same session, without the screenshot:
# kernelshark -s SESSION.json (see below).
. "$(dirname "$0")/common.sh"

trace=$(realpath "${1:-$TOP/repro/results/vtime/trace.dat}")
png=$(realpath -m "${2:-$(dirname "$trace")/kernelshark.png}")
[ -f "$trace" ] || die "no $trace: run make repro EXP=vtime"
"$TOP/host/setup.sh" kernelshark

# From "trace-cmd report": the first sched_bvt_warp_start, its index among
# all events (KernelShark's "#"), how many sched_bvt events come before it
# (its row in the filtered list), and the thread most often picked besides
# the warped one.
read -r row before t cpu warped other < <(
	trace-cmd report -t -i "$trace" 2>/dev/null | awk '
	match($0, /\[[0-9]+\] +[0-9]+\.[0-9]+: [a-z0-9_]+:/) {
		split(substr($0, RSTART, RLENGTH), f, /[][ :]+/)
		cpu = f[2] + 0; ts = f[3]; ev = f[4]
		pid = $0; sub(/.* pid=/, "", pid); sub(/ .*/, "", pid)
		if (ev == "sched_bvt_warp_start" && row == "") {
			row = n; t = ts; wcpu = cpu; warped = pid
		}
		if (ev == "sched_bvt_pick") picks[pid]++
		if (ev ~ /^sched_bvt_/ && row == "") before++
		n++
	}
	END {
		if (row == "") exit 1
		for (p in picks)
			if (p != warped && picks[p] > max) { max = picks[p]; other = p }
		print row, before + 0, t, wcpu, warped, other
	}')
[ -n "${row:-}" ] || die "no sched_bvt_warp_start event in $trace"
ns() { awk -v s="$1" -v d="$2" 'BEGIN { printf "%.0f", (s + d) * 1e9 }'; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# KernelShark's cache directory: its settings (no warning about running
# as root) and where it would save its last session.
printf '[General]\nnoRootWarn=true\n' >"$tmp/setting.ini"
top=$(( before > 3 ? before - 3 : 0 ))
cat >"$tmp/session.json" <<EOF
{
  "type": "kshark.config.session",
  "MainWindow": [1600, 1000],
  "Splitter": [480, 400],
  "Model": {
    "type": "kshark.config.model",
    "range": [$(ns "$t" -0.010), $(ns "$t" 0.140)],
    "bins": 1400
  },
  "data streams": [
    {
      "type": "kshark.config.stream",
      "stream id": 0,
      "data": {
        "type": "kshark.config.data",
        "file": "$trace",
        "name": "top buffer",
        "time": $(stat -c %Y "$trace")
      },
      "filters": {
        "type": "kshark.config.filter",
        "show event filter": [
          "sched_bvt/sched_bvt_pick",
          "sched_bvt/sched_bvt_warp_start",
          "sched_bvt/sched_bvt_warp_end",
          "sched_bvt/sched_bvt_warp_deferred",
          "sched_bvt/sched_bvt_migrate",
          "sched_bvt/sched_bvt_level"
        ],
        "filter mask": 1
      },
      "plugins": {
        "type": "kshark.config.plugins",
        "registered": [
          ["kvm_combo", false],
          ["missed_events", true],
          ["sched_events", true]
        ]
      },
      "CPUPlots": [$cpu],
      "TaskPlots": [$warped${other:+, $other}]
    }
  ],
  "ComboPlots": [],
  "Markers": {
    "type": "kshark.config.markers",
    "markA": {"isSet": true, "row": $row},
    "markB": {"isSet": false},
    "Active": "A"
  },
  "ViewTop": $top,
  "ColorScheme": 0.75,
  "User Plugins": {"type": "kshark.config.plugins", "obj. files": []}
}
EOF
[ -z "${KEEP_SESSION:-}" ] || cp "$tmp/session.json" "$KEEP_SESSION"

step "KernelShark on ${trace#$TOP/} (CPU $cpu, tasks $warped${other:+ $other}) -> ${png#$TOP/}"
# In the virtual X server: start KernelShark, wait for its window, then
# until two screenshots a second apart are the same (loaded and drawn).
cat >"$tmp/shot.sh" <<'EOF'
#!/bin/bash
tmp=$1 png=$2
KS_USER_CACHE_DIR=$tmp XDG_RUNTIME_DIR=$tmp \
	kernelshark -s "$tmp/session.json" >"$tmp/kernelshark.log" 2>&1 &
ks=$!
ok=
for _ in $(seq 60); do
	sleep 1
	kill -0 "$ks" 2>/dev/null || break
	xwininfo -root -tree | grep -q '"Kernel Shark' || continue
	import -window root "$tmp/b.png"
	if [ -f "$tmp/a.png" ] && cmp -s "$tmp/a.png" "$tmp/b.png"; then
		ok=1
		break
	fi
	mv "$tmp/b.png" "$tmp/a.png"
done
kill "$ks" 2>/dev/null
[ -n "$ok" ] || { cat "$tmp/kernelshark.log" >&2; exit 1; }
cp "$tmp/b.png" "$png"
EOF
chmod 700 "$tmp" && chmod +x "$tmp/shot.sh"
xvfb-run -a -s '-screen 0 1600x1000x24' "$tmp/shot.sh" "$tmp" "$png" ||
	die "KernelShark did not show the trace"
grep -v XDG_RUNTIME_DIR "$tmp/kernelshark.log" >&2 || true
echo "wrote $png" >&2
