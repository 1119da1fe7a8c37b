#!/bin/bash
# "make check": set up, build, boot the kernel with 2 and with 4 vCPUs and
# run every selftest and KUnit case in it, check that the series ends with
# this tree's files, checkpatch.pl on it and that the steps the last change
# to it touched compile, and that the kernel builds with SCHED_BVT off and with
# every mechanism of the class off (compile-only configurations without
# the guest's drivers; make configs boots each mechanism off), that the
# rst builds with Sphinx and the man pages lint clean, then print
# "N passed, N failed".  Exit status non-zero on any failure.
. "$(dirname "$0")/common.sh"

t0=$(date +%s) t=$t0
times=$BUILD/results/check.times
# lap PHASE: the seconds since the last lap, for the summary's time line.
lap() {
	local now
	now=$(date +%s)
	echo "$1 $((now - t))" >>"$times"
	t=$now
}
results=$BUILD/results/check
build_for_boot
mkdir -p "$BUILD/results"
: >"$times"
lap setup+build
boot_guests "$results" 1200 check
lap guests

host=$results/host.results
series_case() {
	local what=$1 log=$results/series-$2.log
	if "$TOP/host/series.sh" "$2" >"$log" 2>&1; then
		echo "ok $what" >>"$host"
	else
		tail -30 "$log" >&2
		echo "not ok $what" >>"$host"
	fi
}
series_case "the series applies with git am and ends with this tree's files" verify
series_case "checkpatch.pl --strict is clean on the series" check
series_case "what each step the last change to the series touched compiles" touched
lap series
if "$TOP/host/docs.sh" >"$results/docs.log" 2>&1; then
	echo "ok sched-bvt.rst builds with Sphinx without warnings; the man pages lint clean" >>"$host"
else
	cat "$results/docs.log" >&2
	echo "not ok sched-bvt.rst builds with Sphinx without warnings; the man pages lint clean" >>"$host"
fi
lap docs
if [ "${BVT_SKIP_NOBVT:-}" != 1 ]; then
	if BVT_COMPILE_ONLY=1 "$TOP/host/build.sh" nobvt >"$results/nobvt.log" 2>&1; then
		echo "ok the kernel builds with CONFIG_SCHED_BVT=n" >>"$host"
	else
		tail -30 "$results/nobvt.log" >&2
		echo "not ok the kernel builds with CONFIG_SCHED_BVT=n" >>"$host"
	fi
	lap nobvt
	if BVT_COMPILE_ONLY=1 "$TOP/host/build.sh" nomech >"$results/nomech.log" 2>&1; then
		echo "ok the kernel builds with every mechanism of the class off" >>"$host"
	else
		tail -30 "$results/nomech.log" >&2
		echo "not ok the kernel builds with every mechanism of the class off" >>"$host"
	fi
	lap nomech
fi
echo "total $(($(date +%s) - t0))" >>"$times"

step "results (full logs in $results)"
exec python3 "$TOP/host/results.py" --times "$times" "$results"/*cpu "$host"
