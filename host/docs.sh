#!/bin/bash
# Build the scheduler documentation of the patched tree with the kernel's
# own Sphinx setup (make htmldocs SPHINXDIRS=scheduler, Debian's Sphinx)
# into $BUILD/htmldocs, and fail on any warning about sched-bvt.rst or
# its entry in Documentation/scheduler/index.rst; then lint the manual
# pages of tools/sched/man, when there are some.
#
#   docs.sh
#
# Built alone, the scheduler directory leaves three references of stock
# files (sched-bwc.rst, sched-util-clamp.rst) to labels of
# admin-guide/cgroup-v2.rst undefined: those, and any other warning
# located in another stock file, are shown but do not fail the check.
# BVT_NO_PREPARE=1 takes $SRC as it is (say, while a kernel build runs
# from it) and only copies sched-bvt.rst in, instead of running
# prepare-tree.sh.
. "$(dirname "$0")/common.sh"

"$TOP/host/setup.sh" docs
rst=Documentation/scheduler/sched-bvt.rst
if [ "${BVT_NO_PREPARE:-}" = 1 ]; then
	[ -d "$SRC/Documentation/scheduler" ] ||
		die "no $SRC: run host/prepare-tree.sh first"
	cmp -s "$TOP/$rst" "$SRC/$rst" || cp "$TOP/$rst" "$SRC/$rst"
else
	"$TOP/host/prepare-tree.sh"
fi

out=$BUILD/htmldocs
html=$out/Documentation/output/scheduler
log=$out/htmldocs.log
# From scratch: Sphinx warns only about the documents it reads again.
rm -rf "$out/Documentation/output/scheduler" \
	"$out/Documentation/output/.doctrees/scheduler"
mkdir -p "$out"
step "building Documentation/scheduler into $html"
start=$(date +%s)
# Debian's Sphinx and python3, also for the helper scripts that the
# docs build runs through "#!/usr/bin/env python3" (ynl-gen-rst.py needs
# python3-yaml): a python3 of pyenv or a virtualenv first on PATH has
# neither Sphinx nor, on a fresh machine, yaml.
PATH=/usr/bin:/bin:$PATH make -C "$SRC" O="$out" \
	SPHINXBUILD=/usr/bin/sphinx-build PYTHON3=/usr/bin/python3 \
	SPHINXDIRS=scheduler htmldocs >"$log" 2>&1 || {
	tail -30 "$log" >&2
	die "make htmldocs failed; see $log"
}
echo "built in $(( $(date +%s) - start )) s" >&2

# Sphinx's messages: "FILE:LINE: WARNING: ..." or, for the whole build,
# "WARNING: ...".  Ours are those of sched-bvt.rst, of the index that
# links it, and those without a file.
fail=0
while IFS= read -r line; do
	case "$line" in
	*/sched-bvt.rst:*|*/sched-bvt.rst\ *|*/scheduler/index.rst:*|\
	WARNING:*|ERROR:*|CRITICAL:*|SEVERE:*)
		echo "$line" >&2; fail=1 ;;
	*)	echo "ignored (stock file): $line" >&2 ;;
	esac
done < <(grep -E '(WARNING|ERROR|CRITICAL|SEVERE):' "$log" || true)
[ -f "$html/sched-bvt.html" ] || { echo "no $html/sched-bvt.html" >&2; fail=1; }
grep -q 'href="sched-bvt.html"' "$html/index.html" 2>/dev/null ||
	{ echo "the scheduler index does not link sched-bvt.html" >&2; fail=1; }
[ "$fail" = 0 ] || die "Sphinx warns about sched-bvt.rst; see $log"
echo "ok $rst: no warnings, linked from the scheduler index ($html/index.html)" >&2

lint=$TOP/tools/sched/man/lint.sh
if [ -x "$lint" ]; then
	step "linting the manual pages in tools/sched/man"
	"$lint" || die "tools/sched/man/lint.sh failed"
	echo "ok tools/sched/man: lint.sh is clean" >&2
fi
