#!/bin/bash
# Build the selftests (and the demo) against the patched kernel's uapi
# headers into $BUILD/selftests, and bvtctl into $BUILD/bin; the guest runs
# them from there.
. "$(dirname "$0")/common.sh"

step "building selftests in $BUILD/selftests"
make -C "$SRC" O="$OBJ" -s headers
mkdir -p "$BUILD/selftests"
make -C "$SRC/tools/testing/selftests/bvt" -s \
	OUTPUT="$BUILD/selftests" KHDR_INCLUDES="-isystem $OBJ/usr/include" \
	all "$BUILD/selftests/bvt_demo" "$BUILD/selftests/bvt_stress"
mkdir -p "$BUILD/bin"
make -C "$SRC/tools/sched" -s OUTPUT="$BUILD/bin/" \
	KHDR_INCLUDES="-isystem $OBJ/usr/include"
# cyclictest's policy shim, for make demo's latency harness (run once by
# make check too).
if [ ! "$BUILD/bin/latency_shim.so" -nt "$TOP/repro/latency_shim.c" ]; then
	gcc -O2 -Wall -shared -fPIC -isystem "$OBJ/usr/include" \
		-o "$BUILD/bin/latency_shim.so" "$TOP/repro/latency_shim.c"
fi
# bvt-rtkit, the RealtimeKit1 service, and its D-Bus and systemd files.
make -C "$TOP/tools/sched/rtkit" -s OUTPUT="$BUILD/bin/" \
	KHDR_INCLUDES="-isystem $OBJ/usr/include"
