#!/bin/bash
# "make check": set up, build, boot the kernel with 2 and with 4 vCPUs and
# run every selftest and KUnit case in it, check the series with
# checkpatch.pl and that the kernel builds with SCHED_BVT off, then print
# "N passed, N failed".  Exit status non-zero on any failure.
. "$(dirname "$0")/common.sh"

t0=$(date +%s)
"$TOP/host/setup.sh"
"$TOP/host/prepare-tree.sh"
"$TOP/host/build.sh"
"$TOP/host/build-tests.sh"
BVT_ACCEL=${BVT_ACCEL:-$("$TOP/host/boot.sh" --probe)}
export BVT_ACCEL

results=$BUILD/results/check
rm -rf "$results"
mkdir -p "$results"
# The 4-CPU boot makes its last CPU, where the one-CPU tests run,
# nohz_full: the tick stops there whenever the class lets it.
for cpus in ${BVT_CHECK_CPUS:-2 4}; do
	dir=$results/${cpus}cpu
	append=
	[ "$cpus" -ge 4 ] && append="nohz_full=$((cpus - 1))"
	BVT_APPEND=$append "$TOP/host/boot.sh" "$cpus" "$dir" 1200 \
		"$TOP/host/guest-run.sh" "$dir" "$BUILD/selftests" check || true
done

host=$results/host.results
if "$TOP/host/series.sh" check >"$results/checkpatch.log" 2>&1; then
	echo "ok checkpatch.pl --strict is clean on the exported series" >>"$host"
else
	cat "$results/checkpatch.log" >&2
	echo "not ok checkpatch.pl --strict is clean on the exported series" >>"$host"
fi
if [ "${BVT_SKIP_NOBVT:-}" != 1 ]; then
	if "$TOP/host/build.sh" nobvt >"$results/nobvt.log" 2>&1; then
		echo "ok the kernel builds with CONFIG_SCHED_BVT=n" >>"$host"
	else
		tail -30 "$results/nobvt.log" >&2
		echo "not ok the kernel builds with CONFIG_SCHED_BVT=n" >>"$host"
	fi
fi

step "results (full logs in $results; total $(( $(date +%s) - t0 )) s)"
exec python3 "$TOP/host/results.py" "$results"/*cpu "$host"
