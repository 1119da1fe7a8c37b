#!/bin/bash
# Reproduce one of the BVT paper's experiments in the patched kernel:
#
#   repro.sh EXPERIMENT [short|demo]
#
# boots the kernel once, runs every configuration of EXPERIMENT in that boot
# (repro/EXPERIMENT.py), and writes repro/results/EXPERIMENT[-short]/:
# results.json (raw, with kernel, its config, vCPUs and accelerator),
# table.md and PNG plots (repro/report.py).  "short" is a quick variant;
# "demo" the one-run cut "make demo" shows (latency and mpeg-grep only),
# written to $BUILD/demo/EXPERIMENT, outside the tracked results.
. "$(dirname "$0")/common.sh"

exp=${1:?usage: repro.sh EXPERIMENT [short]}
variant=${2:-}
script=$TOP/repro/${exp//-/_}.py
[ -f "$script" ] || die "no experiment $exp ($script)"

# The performance experiments time the production kernel (build.sh prod:
# no lockdep or other debug checks in the paths they time), rialto's
# micro-benchmarks among them; the others, and the programs' headers, use
# the test kernel.  KERNEL=prod or KERNEL=debug overrides.
case $exp in
overhead|pbs|latency|rialto|scx) kernel=${KERNEL:-prod} ;;
*) kernel=${KERNEL:-debug} ;;
esac
[ "$kernel" = prod ] || [ "$kernel" = debug ] || die "KERNEL=prod or debug"

"$TOP/host/setup.sh" repro
"$TOP/host/prepare-tree.sh"
"$TOP/host/build.sh"
"$TOP/host/build-tests.sh"
# The sched_ext schedulers, built against the test kernel's BTF.
[ "$exp" = scx ] && "$TOP/host/scx.sh" rust
if [ "$kernel" = prod ]; then
	"$TOP/host/build.sh" prod
	export BVT_KERNEL=$PROD_OBJ/arch/x86/boot/bzImage
fi

cpus=2
seconds=10 runs=3
[ "$variant" = short ] || [ "$variant" = demo ] && seconds=6 runs=1
guest=$BUILD/repro/guest-$exp

# The programs the experiments run, and a clip made from FFmpeg's test
# source (nothing is downloaded): 25 fps MPEG-2 at 352x288 (CIF), whose
# decoding needs 9 to 24 % of a vCPU under TCG: inside its fair share
# beside 6 greps on 2 vCPUs (29 %), so that lateness is a matter of latency.
mkdir -p "$BUILD/bin" "$BUILD/repro"
build_player
if [ ! "$BUILD/bin/task" -nt "$TOP/repro/task.c" ] ||
   [ ! "$BUILD/bin/task" -nt "$TOP/repro/clock.h" ]; then
	step "building the synthetic tasks"
	gcc -O2 -Wall -pthread -o "$BUILD/bin/task" "$TOP/repro/task.c" -lm
fi
if [ ! "$BUILD/bin/players" -nt "$TOP/repro/players.c" ] ||
   [ ! "$BUILD/bin/players" -nt "$TOP/tools/sched/coop_poll.h" ]; then
	step "building the adaptive players"
	gcc -O2 -Wall -pthread -isystem "$OBJ/usr/include" \
		-o "$BUILD/bin/players" "$TOP/repro/players.c" \
		$(pkg-config --cflags --libs libavformat libavcodec libavutil)
fi
if [ ! "$BUILD/bin/pbs_fig" -nt "$TOP/repro/pbs_fig.c" ] ||
   [ ! "$BUILD/bin/pbs_fig" -nt "$TOP/tools/testing/selftests/bvt/pbs_sim.h" ]; then
	step "building the PBS figures' workload"
	gcc -O2 -Wall -pthread -isystem "$OBJ/usr/include" \
		-o "$BUILD/bin/pbs_fig" "$TOP/repro/pbs_fig.c" -lm
fi
if [ ! "$BUILD/bin/work_cgi" -nt "$TOP/repro/work_cgi.c" ] ||
   [ ! "$BUILD/bin/work_cgi" -nt "$TOP/repro/clock.h" ]; then
	step "building the PBS Group B CGI program"
	# Static: the server forks and execs it once per request.
	gcc -O2 -Wall -static -o "$BUILD/bin/work_cgi" "$TOP/repro/work_cgi.c"
fi
if [ ! "$BUILD/bin/rialto" -nt "$TOP/repro/rialto.c" ] ||
   [ ! "$BUILD/bin/rialto" -nt "$TOP/repro/clock.h" ]; then
	step "building the Rialto/NT workloads"
	gcc -O2 -Wall -pthread -isystem "$OBJ/usr/include" \
		-o "$BUILD/bin/rialto" "$TOP/repro/rialto.c"
fi
if [ ! "$BUILD/bin/qas_player" -nt "$TOP/repro/qas_player.c" ] ||
   [ ! "$BUILD/bin/qas_player" -nt "$TOP/repro/clock.h" ] ||
   [ ! "$BUILD/bin/qas_player" -nt "$TOP/tools/sched/qas.h" ]; then
	step "building the QAS player"
	gcc -O2 -Wall -isystem "$OBJ/usr/include" \
		-o "$BUILD/bin/qas_player" "$TOP/repro/qas_player.c" \
		$(pkg-config --cflags --libs libavformat libavcodec libavutil)
fi
clip=$(make_clip)
# The adaptive players' layers: intra-only QCIF frames, any of which
# decodes alone.
iclip=$BUILD/repro/clip-176x144-intra.mpg
if [ ! -f "$iclip" ]; then
	step "making an 8 s intra-only MPEG-2 clip from FFmpeg's test source"
	ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=176x144:rate=25 \
		-t 8 -c:v mpeg2video -g 1 -q:v 3 "$iclip"
fi
# The QAS player's: 7 B frames after each I or P frame (open GOPs of 16
# frames, no scene cuts), 50 fps, a constant quantizer: a period of 8
# frames is 160 ms.  64 s: more than the 250 periods played.
bclip=$BUILD/repro/clip-352x288-b7.mpg
if [ ! -f "$bclip" ]; then
	step "making a 64 s MPEG-2 clip with B frames from FFmpeg's test source"
	ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=352x288:rate=50 \
		-t 64 -c:v mpeg2video -q:v 4 -g 16 -bf 7 \
		-sc_threshold 1000000000 "$bclip"
fi
player=(--player "$BUILD/bin/player" --clip "$clip")
case $exp in
mpeg-grep)
	# The grep side reads the kernel's own sources.
	args=("${player[@]}" --tree "$SRC/kernel" --copy "$guest"
	      --seconds "$seconds")
	# The demo: 8 greps, whose fair share (22 %) is close to the
	# player's need, and the policies that then part.
	[ "$variant" = demo ] && args+=(--greps 8
		--configs player-alone,bvt-warp,eevdf,fifo,deadline) ;;
rt)	args=(--task "$BUILD/bin/task" "${player[@]}" --seconds "$seconds") ;;
overhead)
	# Under TCG one run of the pipe varies by +-30 %: take medians.
	args=(--task "$BUILD/bin/task")
	runs=$([ "$variant" = short ] && echo 3 || echo 7) ;;
vtime)	args=("${player[@]}" --source "$TOP/repro/task.c" --dir "$guest") ;;
web)	args=(--task "$BUILD/bin/task" --seconds "$seconds") ;;
deadlines)
	# One vCPU: SCHED_DEADLINE refuses a task pinned to part of its
	# root domain, and the paper's comparison is on one CPU.  28 cells.
	cpus=1 seconds=$((seconds / 2)) runs=$((runs > 1 ? 2 : 1))
	args=(--task "$BUILD/bin/task" --seconds "$seconds") ;;
coop)
	# N = 1..12 players (6 saturate the vCPUs) under 5 configurations:
	# 35 cells of 6 s a run (15 minutes for 3 runs).  The short variant:
	# 1, 6 and 10 players, one run.
	args=(--players "$BUILD/bin/players" --clip "$iclip" --copy "$guest"
	      --seconds 6)
	[ "$variant" = short ] && args+=(--counts 1,6,10) ;;
pbs)
	# Figures 2 and 3 at full scale (12 s each), EEVDF and 4 alphas:
	# 10 cells, 2 minutes a run; then the pick cost, 20 cells of 2 s.
	# The short variant scales the figures' time by 1/5.
	args=(--fig "$BUILD/bin/pbs_fig" --task "$BUILD/bin/task")
	[ "$variant" = short ] && args+=(--scale 5) ;;
pbs-groupa)
	# The paper's Group A, time-scaled by 1/20: 24 cells of 80 s (32
	# minutes), one run per (alpha, beta) as the paper, the stock
	# policies 3 times.  The short variant: 1/40, alpha 0.25, 1, 4 (15
	# cells, 10 minutes).
	args=(--task "$BUILD/bin/task")
	runs=1
	[ "$variant" = short ] && args+=(--scale 40 --alphas 0.25,1,4) ;;
pbs-groupb)
	# The paper's Group B (lighttpd and a CGI program): 21 cells of 110 s
	# (about 40 minutes), one run per (alpha, beta) as the paper, the
	# stock policies 3 times.  The short variant: 30 s after 10 s,
	# alpha 1 and 8, beta +inf and 0 (8 cells, 6 minutes).
	args=(--task "$BUILD/bin/task" --cgi "$BUILD/bin/work_cgi" --copy "$guest")
	runs=1
	[ "$variant" = short ] &&
		args+=(--measure 30 --ramp 10 --alphas 1,8 --betas +inf,0) ;;
rialto)
	# Figures 4-4, 4-5, 4-6 and 4-8 traced for 10 s each (6 s short),
	# then the micro-benchmarks 3 times (once short): 5 minutes.
	args=(--rialto "$BUILD/bin/rialto" --dir "$guest") ;;
qas)
	# Table 1: 7 qualities, each measured for 250 periods of 160 ms
	# (40 s) and played for as many: 10 minutes (100 periods short: 5).
	runs=1
	args=(--player "$BUILD/bin/qas_player" --admit "$BUILD/bin/qas-admit"
	      --task "$BUILD/bin/task" --clip "$bclip" --dir "$guest")
	[ "$variant" = short ] && args+=(--groups 100) ;;
latency)
	# cyclictest under 0..64 hogs a vCPU, 8 policies: 64 cells of 4 s,
	# 3 runs (21 minutes).  The short variant: 0, 4 and 64 hogs, 2 s,
	# one run.
	args=(--shim "$BUILD/bin/latency_shim.so")
	seconds=4
	[ "$variant" = short ] && args+=(--loads 0,4,64) seconds=2
	# The demo: idle and 64 hogs a vCPU, EEVDF, FIFO and warped BVT.
	[ "$variant" = demo ] && seconds=2 &&
		args+=(--loads 0,64 --policies other,fifo,bvt-warped)
	args+=(--seconds "$seconds") ;;
scx)
	# The four workloads under their stock and BVT configurations and
	# under scx_lavd, scx_bpfland and scx_simple: about 35 minutes for
	# 3 runs.  The short variant: 1 run, 0, 4 and 64 hogs, 6 players.
	args=(--build "$BUILD" "${player[@]}" --tree "$SRC/kernel"
	      --players "$BUILD/bin/players" --iclip "$iclip"
	      --shim "$BUILD/bin/latency_shim.so" --copy "$guest"
	      --seconds "$seconds")
	[ "$variant" = short ] && args+=(--loads 0,4,64 --counts 6) ;;
*)	args=() ;;
esac

out=$TOP/repro/results/$exp${variant:+-$variant}
[ "$variant" = demo ] && out=$BUILD/demo/$exp
mkdir -p "$out"
rm -rf "$guest"
mkdir -p "$guest"
"$TOP/host/boot.sh" "$cpus" "$guest" 3600 \
	python3 "$script" "${args[@]}" --runs "$runs" --out "$guest/results.json" || true
[ -f "$guest/results.json" ] || {
	tail -40 "$guest/console.log" >&2
	die "the experiment did not finish; see $guest/console.log"
}
for f in trace.dat trace.txt; do
	if [ -f "$guest/$f" ]; then cp "$guest/$f" "$out/"; fi
done
python3 - "$guest/results.json" "$(cat "$guest/accel")" "$out/results.json" \
	"$kernel" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
res["accel"] = sys.argv[2]
res["config"] = {"prod": "production (config/qemu.config, production.config)",
                 "debug": "test (config/qemu.config, debug.config)"}[sys.argv[4]]
json.dump(res, open(sys.argv[3], "w"), indent=1)
EOF
"$VENV/bin/python" "$TOP/repro/report.py" "$out"
step "results in ${out#$TOP/}: results.json, table.md, *.png"
