#!/bin/bash
# "make demo": set up, build, boot the patched kernel and show, in two
# short runs, what SCHED_BVT does that the stock policies do not:
#
#   - wake-up latency (cyclictest) idle and under 64 CPU hogs a vCPU:
#     EEVDF's median grows tens of times over SCHED_FIFO's, a warped BVT
#     thread's stays at SCHED_FIFO's, while BVT still shares the CPU by
#     weight (its hogs are SCHED_BVT threads too);
#   - a video player beside 8 parallel greps, whose fair share is close
#     to the player's need: how far behind its frames fall under each
#     policy (EEVDF's up to tens of ms, late once the need reaches the
#     share; the warped player's not at all).
#
# Both in the test kernel, one run each; the tables and plots go to
# build/demo/, never to the tracked repro/results/.
. "$(dirname "$0")/common.sh"

KERNEL=debug "$TOP/host/repro.sh" latency demo
KERNEL=debug "$TOP/host/repro.sh" mpeg-grep demo
for exp in latency mpeg-grep; do
	step "$exp (build/demo/$exp)"
	cat "$BUILD/demo/$exp/table.md"
	ls "$BUILD/demo/$exp"/*.png
done
