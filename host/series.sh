#!/bin/bash
# Export the series as one "git format-patch" set into $BUILD/series: the
# new files first, in the commit groups of patches/new-files, then the glue
# patches of patches/series.  It applies with "git am" to a clean 6.12 tree.
# With "check", run checkpatch.pl --strict on it too.
. "$(dirname "$0")/common.sh"

work=$BUILD/series-tree
out=$BUILD/series
GIT=(git -C "$work" -c user.name="SCHED_BVT developers"
     -c user.email=sched-bvt@localhost)

step "exporting the series to $out"
"$TOP/host/prepare-tree.sh"
git -C "$SRC" worktree remove --force "$work" 2>/dev/null || rm -rf "$work"
git -C "$SRC" worktree prune
git -C "$SRC" worktree add -q --detach "$work" pristine

while read -r msg paths; do
	for f in $paths; do
		mkdir -p "$(dirname "$work/$f")"
		cp "$TOP/$f" "$work/$f"
		"${GIT[@]}" add -f "$f"
	done
	"${GIT[@]}" commit -q -F "$TOP/patches/$msg"
done < <("$TOP/host/new-files.sh" groups)
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	"${GIT[@]}" am -q "$TOP/patches/$p" || die "patch $p does not apply"
done <"$TOP/patches/series"

rm -rf "$out"
"${GIT[@]}" format-patch -q --cover-letter -o "$out" pristine..HEAD
ls "$out"

# checkpatch.pl --strict must find nothing but what is listed here, with
# the reason:
#  - FILE_PATH_CHANGES: the new files come first in the series and the
#    MAINTAINERS entry for them in a later patch;
#  - AVOID_BUG: the class-order assertions in sched_init() are BUG_ON()s
#    like their neighbours, checking what the linker did;
#  - a SPACING check on the "*(__bvt_sched_class)" line of the linker
#    script, which checkpatch reads as C;
#  - the layout checks (alignment, lines ending in '(') of the trace event
#    header, which follows the TRACE_EVENT() layout of its neighbours;
#  - ENOSYS in tools/sched: there the wrappers say with it that the running
#    kernel lacks the system call, which is what it means.
if [ "${1:-}" = check ]; then
	step "checkpatch.pl --strict"
	found=$(for p in "$out"/0*.patch; do
		case "$p" in *0000-cover-letter.patch) continue ;; esac
		"$work/scripts/checkpatch.pl" --strict --no-tree --terse \
			--showfile --ignore FILE_PATH_CHANGES,AVOID_BUG "$p"
	done | grep -E ': (ERROR|WARNING|CHECK):' |
		grep -v '^include/asm-generic/vmlinux.lds.h:[0-9]*: CHECK: spaces preferred around that' |
		grep -v -E '^include/trace/events/sched_bvt.h:[0-9]*: CHECK: (Alignment should match open parenthesis|Lines should not end with a)' |
		grep -v -E '^tools/sched/[^:]*:[0-9]*: WARNING: ENOSYS means' ||
		true)
	if [ -n "$found" ]; then
		echo "$found"
		exit 1
	fi
	echo "checkpatch: clean"
fi
