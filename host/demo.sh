#!/bin/bash
# "make demo": set up, build, boot the patched kernel and show what
# SCHED_BVT does: the short variant of the paper's mpeg/grep experiment
# (a video player beside parallel greps under BVT, EEVDF, FIFO and
# SCHED_DEADLINE, measured in one boot), ending with its table.
exec "$(dirname "$0")/repro.sh" mpeg-grep short
