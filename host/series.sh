#!/bin/bash
# Export the series as one "git format-patch" set into $BUILD/series: the
# glue patches of patches/series, with the commit groups of new files of
# patches/new-files among them where each says (the class before the glue,
# each mechanism after the glue it builds on), and its stage patches where
# they are listed.  It applies with "git am" to a clean 6.12 tree.  With
# "check", run checkpatch.pl --strict on it too;
# with "build", build each of its commits that changes the kernel, as a
# bisection would (the options of the mechanisms that come later do not
# exist yet there), and the selftests at each commit that adds some; with
# "boot" too, boot the kernel of each commit that adds selftests with two
# vCPUs and run every test there is at that point, KUnit's included (and
# before those, of each that links the class or changes its KUnit cases,
# to run KUnit's).
#
#   series.sh [check] [build] [boot]
#
# BVT_SERIES_FROM=n builds and boots from the n-th commit on, when the
# ones before it have not changed since they last passed.
. "$(dirname "$0")/common.sh"

work=$BUILD/series-tree
stage=$BUILD/series-stage
out=$BUILD/series
GIT=(git -C "$work" -c user.name="SCHED_BVT developers"
     -c user.email=sched-bvt@localhost)

step "exporting the series to $out"
"$TOP/host/prepare-tree.sh"
git -C "$SRC" worktree remove --force "$work" 2>/dev/null || rm -rf "$work"
git -C "$SRC" worktree prune
git -C "$SRC" worktree add -q --detach "$work" pristine

# The new files as the series starts from them: this tree's, with every
# stage patch taken back, the last first.  Each group's files are copied
# from here, and each stage patch applied here on its way.
# stage_patch <patch> [-R]: apply it to those files (-R: take it back).
stage_patch() {
	patch -d "$stage" -p1 ${2:-} -E -s -f --no-backup-if-mismatch \
		<"$TOP/patches/$1"
}

rm -rf "$stage"
mkdir -p "$stage"
"$TOP/host/new-files.sh" list | (cd "$TOP" && xargs cp --parents -t "$stage")
while read -r p; do
	stage_patch "$p" -R >"$stage.log" 2>&1 || {
		cat "$stage.log" >&2
		die "stage patch $p does not come off this tree's files"
	}
done < <("$TOP/host/new-files.sh" stages | tac)

# kernel/Kconfig.bvt@A,B: the file with only its entries A and B.
kconfig_cut() {
	awk -v keep=",$2," '
		/^(menu)?config / { on = index(keep, "," $2 ",") > 0; seen = 1 }
		!seen || on
	' "$TOP/$1"
}

# The new files of one group and the files its stage patch changes,
# committed with its message.
commit_group() {
	local msg=$1 f path paths=()
	shift
	for f in "$@"; do
		case $f in
		patch:*)
			f=${f#patch:}
			stage_patch "$f" || die "stage patch $f does not apply"
			mapfile -t -O "${#paths[@]}" paths < <(sed -n \
				's|^+++ b/\([^[:space:]]*\).*|\1|p' "$TOP/patches/$f")
			;;
		*) paths+=("$f") ;;
		esac
	done
	for f in "${paths[@]}"; do
		path=${f%%@*}
		mkdir -p "$(dirname "$work/$path")"
		if [ "$path" = "$f" ]; then
			cp "$stage/$path" "$work/$path"
		else
			kconfig_cut "$path" "${f#*@}" >"$work/$path"
		fi
		"${GIT[@]}" add -f "$path"
	done
	"${GIT[@]}" commit -q -F "$TOP/patches/$msg"
}

# The groups that go after glue patch $1 (- : before the first).
commit_groups_after() {
	local msg after paths
	while read -r msg after paths; do
		[ "$after" = "$1" ] || continue
		# shellcheck disable=SC2086
		commit_group "$msg" $paths
	done < <("$TOP/host/new-files.sh" groups)
}

commit_groups_after -
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	"${GIT[@]}" am -q "$TOP/patches/$p" || die "patch $p does not apply"
	commit_groups_after "${p%%-*}"
done <"$TOP/patches/series"
# It ends with every new file whole.
while read -r f; do
	cmp -s "$TOP/$f" "$work/$f" || die "the series ends with $f cut"
done < <("$TOP/host/new-files.sh" list)

rm -rf "$out"
"${GIT[@]}" format-patch -q --cover-letter -o "$out" pristine..HEAD
# The cover letter's subject and text: patches/msg/cover-letter.txt.
python3 - "$out/0000-cover-letter.patch" "$TOP/patches/msg/cover-letter.txt" <<'PY'
import sys
cover, msg = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
text = open(cover).read()
text = text.replace('*** SUBJECT HERE ***', msg[0], 1)
text = text.replace('*** BLURB HERE ***', msg[1].strip('\n'), 1)
open(cover, 'w').write(text)
PY
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
check=false build=false boot=false
for arg in "$@"; do
	case $arg in
	check) check=true ;;
	build) build=true ;;
	boot) build=true boot=true ;;
	*) die "usage: series.sh [check] [build] [boot]" ;;
	esac
done

if $check; then
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

# The kernel as commit $2 has it.
build_kernel() {
	step "building $1: $3"
	"${GIT[@]}" checkout -q "$2"
	merge_fragments "$TOP/config/qemu.config" "$TOP/config/debug.config"
	"${MAKE[@]}" olddefconfig >/dev/null
	if ! "${MAKE[@]}" bzImage >"$obj/step.log" 2>&1; then
		tail -30 "$obj/step.log" >&2
		die "$1 ($3) does not build"
	fi
	grep -E 'warning:|error:' "$obj/step.log" | grep -v maple_tree >&2 || true
	echo "  $(grep -o '^CONFIG_SCHED_BVT[A-Z_]*=y' "$obj/.config" |
		   tr '\n' ' ')" >&2
}

# The selftests as commit $2 has them, against its uapi headers.
build_selftests() {
	step "building the selftests of $1: $3"
	"${GIT[@]}" checkout -q "$2"
	"${MAKE[@]}" headers >/dev/null
	rm -rf "$obj/selftests"
	mkdir -p "$obj/selftests"
	make -C "$work/tools/testing/selftests/bvt" -s \
		OUTPUT="$obj/selftests" KHDR_INCLUDES="-isystem $obj/usr/include" \
		all >"$obj/step.log" 2>&1 || {
		tail -30 "$obj/step.log" >&2
		die "$1 ($3): the selftests do not build"
	}
	echo "  $(cd "$obj/selftests" && echo *)" >&2
}

# Boot the kernel built at commit $1 and run the selftests in $3 (none
# before the series adds them: then KUnit's alone), as "make check"
# does, into $BUILD/results/series/$1.
boot_step() {
	local dir=$BUILD/results/series/$1 boot=$BUILD/series-boot
	step "booting $1 with two vCPUs and running its tests: $2"
	rm -rf "$dir" "$boot"
	mkdir -p "$dir" "$boot"
	cp -r "$3" "$boot/selftests"
	cp "$obj/arch/x86/boot/bzImage" "$boot/bzImage"
	BVT_KERNEL=$boot/bzImage "$TOP/host/boot.sh" 2 "$dir" 1500 \
		"$TOP/host/guest-run.sh" "$dir" "$boot/selftests" check || true
	python3 "$TOP/host/results.py" "$dir" >"$dir/summary" 2>&1 || true
	echo "  $1: $(tail -1 "$dir/summary")" >&2
	summaries+=("$1 $2: $(tail -1 "$dir/summary")")
}

# Each commit that touches more than documentation, tools and MAINTAINERS
# builds, with the test kernel's configuration, in one object tree; each
# that adds selftests builds them.  Before the series adds selftests, the
# commit that links the class and each that changes its KUnit cases
# boots to run those.
if $build; then
	obj=$BUILD/obj-series
	cc=gcc
	command -v ccache >/dev/null && cc="ccache gcc"
	MAKE=(make -C "$work" O="$obj" -j"$JOBS" CC="$cc" HOSTCC="$cc" -s)
	mkdir -p "$obj"
	summaries=()
	if $boot; then
		"$TOP/host/setup.sh"
		BVT_ACCEL=${BVT_ACCEL:-$("$TOP/host/boot.sh" --probe)}
		export BVT_ACCEL
	fi
	head=$("${GIT[@]}" rev-parse HEAD)
	n=0
	for c in $("${GIT[@]}" rev-list --reverse pristine..HEAD); do
		n=$((n + 1))
		[ "$n" -ge "${BVT_SERIES_FROM:-1}" ] || continue
		subject=$("${GIT[@]}" log -1 --format=%s "$c")
		files=$("${GIT[@]}" diff --name-only "$c^" "$c")
		tests=false kernel=false kunit=false
		grep -q '^tools/testing/selftests/bvt/' <<<"$files" && tests=true
		if grep -qE '^kernel/sched/(Makefile|bvt_test.c)$' <<<"$files" &&
		   ! "${GIT[@]}" cat-file -e "$c:tools/testing/selftests/bvt" \
			2>/dev/null &&
		   "${GIT[@]}" grep -q build_bvt "$c" -- kernel/sched/Makefile; then
			kunit=true
		fi
		grep -qvE '^(Documentation/|tools/|MAINTAINERS$)' <<<"$files" &&
			kernel=true
		if ! $kernel && ! $tests; then
			echo "  $n $subject: nothing to build" >&2
			continue
		fi
		if $kernel; then build_kernel "$n" "$c" "$subject"; fi
		if $tests; then build_selftests "$n" "$c" "$subject"; fi
		if $boot && $tests; then
			boot_step "$n" "$subject" "$obj/selftests"
		elif $boot && $kunit; then
			rm -rf "$obj/no-selftests"
			mkdir -p "$obj/no-selftests"
			boot_step "$n" "$subject" "$obj/no-selftests"
		fi
	done
	"${GIT[@]}" checkout -q "$head"
	echo "series: every step builds"
	if $boot; then
		printf '%s\n' "${summaries[@]}"
		! grep -q ' [1-9][0-9]* failed' < <(printf '%s\n' "${summaries[@]}")
	fi
fi
