#!/bin/bash
# "make configs [CONFIGS='nocoop nopbs norsv noqas']": build the kernel with
# each mechanism of the class off in turn (config/<variant>.config), boot
# each with 2 vCPUs and run every selftest and KUnit case there: the tests
# of the mechanism that is off must skip, every other one pass.  Prints
# "N passed, N failed" over all of them.
. "$(dirname "$0")/common.sh"

configs=${1:-nocoop nopbs norsv noqas}
build_for_boot
results=$BUILD/results/configs
rm -rf "$results"
for variant in $configs; do
	"$TOP/host/build.sh" "$variant"
	mkdir -p "$results/$variant"
	BVT_KERNEL=$BUILD/obj-$variant/arch/x86/boot/bzImage \
		"$TOP/host/boot.sh" 2 "$results/$variant" 1200 \
		"$TOP/host/guest-run.sh" "$results/$variant" "$BUILD/selftests" \
		check || true
done
step "results (full logs in $results)"
exec python3 "$TOP/host/results.py" "$results"/*
