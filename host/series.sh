#!/bin/bash
# The series is patches/series: "git format-patch" files in patches/ that
# "git am" applies to a clean 6.12 tree, in the order a reviewer reads
# them.  For the files it adds (kernel/sched/bvt.c, the uapi header, the
# selftests, the rst: series_files in common.sh), this tree's whole files
# are what is edited, and "make series" puts a change to them into the
# series: git-absorb gives each hunk to the commit that last touched its
# lines.  What the series does to existing kernel files, and how it is cut
# into commits, is edited as git commits on the series' own branch.
# host/README.md has the procedures.
#
#   series.sh update   put this tree's changes into the series and write it
#                      ("make series"); STEP='<subject>' names the commit
#                      for the hunks git-absorb cannot place
#   series.sh edit     the series as branch bvt-series of build/series-tree,
#                      with this tree's changes to its files staged
#   series.sh write    write patches/ and this tree's files of the series
#                      from that branch, its fixup! commits squashed
#   series.sh verify   patches/ applies to a clean tree and ends with this
#                      tree's files, byte for byte
#   series.sh check    checkpatch.pl --strict on patches/
#   series.sh touched  compile what each step the last change to patches/
#                      touched compiles (the first BVT_SERIES_TOUCHED, 3)
#   series.sh post     the series with a cover letter in build/series
#   series.sh build    build each step, as a bisection would
#   series.sh boot     build and boot each step that adds selftests
#
# BVT_SERIES_FROM=n builds and boots from the n-th commit on, when the
# ones before it have not changed since they last passed;
# BVT_SERIES_ONLY='n m' builds the kernel of those commits alone, and
# boots each that changes the selftests.
. "$(dirname "$0")/common.sh"

tree=$BUILD/series-tree
steps=$BUILD/series-steps
GIT=(git -C "$tree" -c core.abbrev=12 -c diff.noprefix=false
     -c diff.mnemonicPrefix=false -c diff.renames=true)

# A fresh worktree $1 of $SRC at $2 (a branch made there with -b).
new_worktree() {
	git -C "$SRC" worktree remove --force "$1" 2>/dev/null || rm -rf "$1"
	git -C "$SRC" worktree prune
	git -C "$SRC" worktree add -q "${@:3}" "$1" "$2"
}

# The files the series adds at commit $1 of $SRC.
added_at() {
	git -C "$SRC" diff --name-only --diff-filter=A pristine "$1"
}

# build/series-tree: the series of patches/ as branch bvt-series, with this
# tree's files of the series over it, staged.  git-absorb takes only the
# commits of the one who runs it: the series' author is made that here.
cmd_edit() {
	"$TOP/host/prepare-tree.sh"
	git -C "$SRC" config user.name "SCHED_BVT developers"
	git -C "$SRC" config user.email sched-bvt@localhost
	new_worktree "$tree" master -B bvt-series
	local f mine
	mine=$(series_files | sort)
	while read -r f; do
		mkdir -p "$(dirname "$tree/$f")"
		cp "$TOP/$f" "$tree/$f"
		"${GIT[@]}" add -f -- "$f"
	done <<<"$mine"
	added_at master | sort | comm -23 - <(echo "$mine") |
		while read -r f; do "${GIT[@]}" rm -q -- "$f"; done
	"${GIT[@]}" status --short
}

# Each staged hunk into the commit that last touched its lines, the rest
# into the commit named by STEP, or stop and say how to name one.
cmd_absorb() {
	local target
	"${GIT[@]}" diff --cached --quiet && return
	GIT_SEQUENCE_EDITOR=: "${GIT[@]}" absorb --base pristine --and-rebase \
		>"$BUILD/absorb.log" 2>&1 || {
		cat "$BUILD/absorb.log" >&2
		die "git-absorb or its rebase failed in $tree (a change that conflicts with a later commit: host/README.md says what to do)"
	}
	# The rebase stashes what git-absorb left, and gives it back unstaged.
	"${GIT[@]}" add -u
	"${GIT[@]}" diff --cached --quiet && return
	if [ -z "${STEP:-}" ]; then
		"${GIT[@]}" diff --cached --stat >&2
		die "git-absorb cannot tell which commit these hunks belong to (new lines beside no others, a file added or removed):
  name it, with its subject or a part of it: make series STEP='sched/bvt: Add ...'
  or place them by hand in $tree: git commit --fixup=<commit>, then host/series.sh write"
	fi
	target=$("${GIT[@]}" log --format='%H %s' pristine..HEAD |
		grep -F -- "$STEP" | cut -d' ' -f1)
	[ "$(wc -w <<<"$target")" = 1 ] ||
		die "STEP='$STEP' names $(wc -w <<<"$target") commits of the series, not one"
	"${GIT[@]}" commit -q --fixup="$target"
}

# patches/ and this tree's files of the series from branch bvt-series.
cmd_write() {
	local p f
	if [[ $("${GIT[@]}" log --format=%s pristine..bvt-series) == *'fixup! '* ]]; then
		GIT_SEQUENCE_EDITOR=: "${GIT[@]}" rebase -q -i --autosquash pristine ||
			die "squashing the fixup! commits in $tree conflicts: resolve it there (git rebase --continue), then host/series.sh write"
	fi
	"${GIT[@]}" diff --quiet HEAD ||
		die "$tree has changes that are not committed: commit them (git commit --fixup=<commit>), then host/series.sh write"
	rm -f "$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch
	"${GIT[@]}" format-patch -q --zero-commit --no-signature -N \
		-o "$TOP/patches" pristine..bvt-series
	# The blob names of the series' own files change in every later patch
	# that touches a file when one changes, and git am needs none of them
	# (a 3-way "git am -3" needs those of the kernel's files).
	OWN=$(added_at bvt-series) python3 - \
		"$TOP"/patches/[0-9][0-9][0-9][0-9]-*.patch <<'PY'
import os, sys
own = set(os.environ['OWN'].split())
for name in sys.argv[1:]:
    out, skip = [], False
    for line in open(name).read().split('\n'):
        if line.startswith('diff --git a/'):
            skip = line.split(' b/', 1)[1] in own
        elif skip and line.startswith('index '):
            skip = False
            continue
        out.append(line)
    open(name, 'w').write('\n'.join(out))
PY
	{
		echo "# The SCHED_BVT series, in the order \"git am\" applies it: written by"
		echo "# \"make series\" (host/series.sh), not by hand."
		(cd "$TOP/patches" && ls [0-9][0-9][0-9][0-9]-*.patch)
	} >"$TOP/patches/series"
	for f in $(added_at bvt-series); do
		cmp -s "$tree/$f" "$TOP/$f" && continue
		mkdir -p "$(dirname "$TOP/$f")"
		cp "$tree/$f" "$TOP/$f"
		echo "  updated $f" >&2
	done
	echo "series: $(grep -vc '^#' "$TOP/patches/series") patches written to patches/ (git add -A patches)" >&2
}

# patches/ applies with "git am" to a clean tree (prepare-tree.sh does it)
# and ends with this tree's files of the series, byte for byte, and with
# no other new file.
cmd_verify() {
	local f bad=0
	step "the series applies and ends with this tree's files"
	"$TOP/host/prepare-tree.sh" 2>/dev/null
	diff <(cd "$TOP/patches" && ls [0-9][0-9][0-9][0-9]-*.patch) \
	     <(grep -v '^#' "$TOP/patches/series") >&2 ||
		die "patches/series does not list the patches of patches/"
	diff <(added_at master | sort) <(series_files | sort) >&2 || {
		echo "(<: a file the series adds and this tree has not; >: one it has and the series does not add)" >&2
		bad=1
	}
	for f in $(added_at master); do
		[ -e "$TOP/$f" ] || continue
		if ! git -C "$SRC" cat-file blob "master:$f" | cmp -s - "$TOP/$f"; then
			echo "the series ends with another $f than this tree's" >&2
			bad=1
		fi
	done
	[ "$bad" = 0 ] ||
		die "the series and this tree differ: \"make series\" writes the series from the tree (host/README.md)"
	echo "series: $(grep -vc '^#' "$TOP/patches/series") patches, the same files as this tree" >&2
}

# The series to post, with a cover letter (patches/cover-letter.txt: its
# subject, a blank line, its text), into build/series.
cmd_post() {
	local out=$BUILD/series
	"$TOP/host/prepare-tree.sh" 2>/dev/null
	rm -rf "$out"
	git -C "$SRC" -c core.abbrev=12 format-patch -q --cover-letter \
		--no-signature -o "$out" pristine..master
	python3 - "$out/0000-cover-letter.patch" "$TOP/patches/cover-letter.txt" <<'PY'
import sys
cover, msg = sys.argv[1], open(sys.argv[2]).read().split('\n', 1)
text = open(cover).read()
text = text.replace('*** SUBJECT HERE ***', msg[0], 1)
text = text.replace('*** BLURB HERE ***', msg[1].strip('\n'), 1)
open(cover, 'w').write(text)
PY
	echo "series: $out" >&2
}

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
cmd_check() {
	local found
	step "checkpatch.pl --strict"
	found=$(for p in $(grep -v '^#' "$TOP/patches/series"); do
		"$SRC/scripts/checkpatch.pl" --strict --no-tree --terse \
			--showfile --ignore FILE_PATH_CHANGES,AVOID_BUG \
			"$TOP/patches/$p"
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
}

# The steps' builds: in worktree build/series-steps, at the commits of
# $SRC's master, into build/obj-series.
steps_setup() {
	local cc=gcc
	"$TOP/host/prepare-tree.sh" 2>/dev/null
	[ -d "$steps" ] || new_worktree "$steps" master --detach
	obj=$BUILD/obj-series
	command -v ccache >/dev/null && cc="ccache gcc"
	MAKE=(make -C "$steps" O="$obj" -j"$JOBS" CC="$cc" HOSTCC="$cc" -s)
	SGIT=(git -C "$steps")
	mkdir -p "$obj"
}

# The kernel as commit $2 has it, configured as the test kernel; with
# targets after $3, only those.
build_kernel() {
	local what=${4:+"${*:4}"}
	step "building $1: $3${what:+ ($what)}"
	"${SGIT[@]}" checkout -q "$2"
	merge_fragments "$TOP/config/qemu.config" "$TOP/config/debug.config"
	"${MAKE[@]}" olddefconfig >/dev/null
	if ! "${MAKE[@]}" "${@:4}" >"$obj/step.log" 2>&1; then
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
	"${SGIT[@]}" checkout -q "$2"
	"${MAKE[@]}" headers >/dev/null
	rm -rf "$obj/selftests"
	mkdir -p "$obj/selftests"
	make -C "$steps/tools/testing/selftests/bvt" -s \
		OUTPUT="$obj/selftests" KHDR_INCLUDES="-isystem $obj/usr/include" \
		all >"$obj/step.log" 2>&1 || {
		tail -30 "$obj/step.log" >&2
		die "$1 ($3): the selftests do not build"
	}
	echo "  $(cd "$obj/selftests" && echo *)" >&2
}

# The objects that compile what commit $1 changes: the class's unit for
# its files and headers (once the series links it), core.c beside it for
# headers, each other C file's own or the build_*.c unit's that includes
# it; none for documentation, tools, Kconfig and the syscall tables, which
# the units of the class and the test kernel's build cover.
step_objects() {
	local f
	for f in $("${SGIT[@]}" diff --name-only "$1^" "$1"); do
		case $f in
		kernel/sched/*.h|include/*.h|include/*/*.h|include/*/*/*.h)
			echo kernel/sched/build_bvt.o kernel/sched/core.o ;;
		kernel/sched/bvt*.c|kernel/sched/coop_poll.c|kernel/sched/pbs.c|kernel/sched/qas.c|kernel/Kconfig.bvt|kernel/sched/Makefile)
			echo kernel/sched/build_bvt.o ;;
		kernel/sched/*.c)
			unit_of "$1" "$f" ;;
		kernel/*.c|kernel/*/*.c|fs/*.c|mm/*.c)
			echo "${f%.c}.o" ;;
		esac
	done | tr ' ' '\n' | sort -u | while read -r o; do
		"${SGIT[@]}" cat-file -e "$1:${o%.o}.c" 2>/dev/null || continue
		# The class builds once the series links it.
		[ "$o" != kernel/sched/build_bvt.o ] || linked "$1" || continue
		echo "$o"
	done
}

# The object that compiles kernel/sched file $2 at commit $1: the
# build_*.c unit that includes it (debug.c is compiled as part of
# build_utility.o, rt.c of build_policy.o), else its own.
unit_of() {
	local unit
	unit=$("${SGIT[@]}" grep -l -E "^# *include \"${2##*/}\"" "$1" -- \
		'kernel/sched/build_*.c' | head -1 || true)
	unit=${unit#"$1:"}
	echo "${unit:-$2}" | sed 's/\.c$/.o/'
}

# Does commit $1 build the class?
linked() {
	"${SGIT[@]}" grep -q build_bvt "$1" -- kernel/sched/Makefile
}

# Boot the kernel built at commit $1 and run the selftests in $3 (none
# before the series adds them: then KUnit's alone), as "make check"
# does but without what the tree adds around the series (bvt-rtkit, the
# demo, sched_ext), into $BUILD/results/series/$1.
boot_step() {
	local dir=$BUILD/results/series/$1 boot=$BUILD/series-boot
	step "booting $1 with two vCPUs and running its tests: $2"
	rm -rf "$dir" "$boot"
	mkdir -p "$dir" "$boot"
	cp -r "$3" "$boot/selftests"
	cp "$obj/arch/x86/boot/bzImage" "$boot/bzImage"
	BVT_KERNEL=$boot/bzImage "$TOP/host/boot.sh" 2 "$dir" 1500 \
		"$TOP/host/guest-run.sh" "$dir" "$boot/selftests" series || true
	python3 "$TOP/host/results.py" "$dir" >"$dir/summary" 2>&1 || true
	echo "  $1: $(tail -1 "$dir/summary")" >&2
	summaries+=("$1 $2: $(tail -1 "$dir/summary")")
}

# Each commit that touches more than documentation, tools and MAINTAINERS
# builds, with the test kernel's configuration, in one object tree; each
# that adds selftests builds them.  Before the series adds selftests, the
# commit that links the class and each that changes its KUnit cases
# boots to run those.
cmd_build() {
	local boot=$1 n=0 c subject files tests kernel kunit only
	steps_setup
	summaries=()
	if $boot; then
		"$TOP/host/setup.sh"
		BVT_ACCEL=${BVT_ACCEL:-$("$TOP/host/boot.sh" --probe)}
		export BVT_ACCEL
	fi
	for c in $("${SGIT[@]}" rev-list --reverse pristine..master); do
		n=$((n + 1))
		[ "$n" -ge "${BVT_SERIES_FROM:-1}" ] || continue
		only=false
		if [ -n "${BVT_SERIES_ONLY:-}" ]; then
			grep -qw "$n" <<<"$BVT_SERIES_ONLY" || continue
			only=true
		fi
		subject=$("${SGIT[@]}" log -1 --format=%s "$c")
		files=$("${SGIT[@]}" diff --name-only "$c^" "$c")
		tests=false kernel=$only kunit=false
		grep -q '^tools/testing/selftests/bvt/' <<<"$files" && tests=true
		if grep -qE '^kernel/sched/(Makefile|bvt_test.c)$' <<<"$files" &&
		   ! "${SGIT[@]}" cat-file -e "$c:tools/testing/selftests/bvt" \
			2>/dev/null && linked "$c"; then
			kunit=true
		fi
		grep -qvE '^(Documentation/|tools/|MAINTAINERS$)' <<<"$files" &&
			kernel=true
		if ! $kernel && ! $tests; then
			echo "  $n $subject: nothing to build" >&2
			continue
		fi
		if $kernel; then build_kernel "$n" "$c" "$subject" bzImage; fi
		if $tests; then build_selftests "$n" "$c" "$subject"; fi
		if $boot && $tests; then
			boot_step "$n" "$subject" "$obj/selftests"
		elif $boot && $kunit; then
			rm -rf "$obj/no-selftests"
			mkdir -p "$obj/no-selftests"
			boot_step "$n" "$subject" "$obj/no-selftests"
		fi
	done
	echo "series: every step builds"
	if $boot; then
		printf '%s\n' "${summaries[@]}"
		! grep -q ' [1-9][0-9]* failed' < <(printf '%s\n' "${summaries[@]}")
	fi
}

# The patch-ids of the patches of patches/ at revision $1 of this
# repository (none: its working tree).
patch_ids() {
	local p
	if [ -z "$1" ]; then
		for p in $(grep -v '^#' "$TOP/patches/series"); do
			git patch-id --stable <"$TOP/patches/$p"
		done
	else
		for p in $(git -C "$TOP" show "$1:patches/series" 2>/dev/null |
			   grep -v '^#'); do
			git -C "$TOP" show "$1:patches/$p" | git patch-id --stable
		done
	fi | cut -d' ' -f1
}

# The steps whose patch the last change to patches/ made or changed (one
# not yet committed, or else the last commit that changed patches/):
# those that change the kernel compile what they change (the class where
# the series first links it, for a change before), those that change the
# selftests build them, the first BVT_SERIES_TOUCHED of them; the full
# build of every step is "series.sh build".
cmd_touched() {
	local ref last c n=0 done=0 subject id objs files tests unlinked=false
	local max=${BVT_SERIES_TOUCHED:-3}
	steps_setup
	if git -C "$TOP" diff --quiet HEAD -- patches &&
	   [ -z "$(git -C "$TOP" ls-files --others -- patches)" ]; then
		last=$(git -C "$TOP" log -1 --format=%H -- patches)
		ref=$last^
	else
		ref=HEAD
	fi
	declare -A old
	for id in $(patch_ids "$ref"); do old[$id]=1; done
	for c in $("${SGIT[@]}" rev-list --reverse pristine..master); do
		n=$((n + 1))
		subject=$("${SGIT[@]}" log -1 --format=%s "$c")
		# A change to the class before the series links it compiles
		# where it first does.
		if $unlinked && linked "$c"; then
			unlinked=false
			build_kernel "$n" "$c" "$subject" kernel/sched/build_bvt.o
		fi
		id=$("${SGIT[@]}" show "$c" | git patch-id --stable | cut -d' ' -f1)
		[ -z "${old[$id]:-}" ] || continue
		files=$("${SGIT[@]}" diff --name-only "$c^" "$c")
		if ! linked "$c" && grep -qE \
			'^(kernel/sched/(bvt|coop_poll|pbs|qas)|include/)' <<<"$files"; then
			unlinked=true
		fi
		tests=false
		grep -q '^tools/testing/selftests/bvt/' <<<"$files" && tests=true
		mapfile -t objs < <(step_objects "$c")
		! $tests && [ ${#objs[@]} = 0 ] && continue
		if [ "$done" -ge "$max" ]; then
			echo "  $n $subject: changed, left to host/series.sh build" >&2
			continue
		fi
		done=$((done + 1))
		[ ${#objs[@]} = 0 ] || build_kernel "$n" "$c" "$subject" "${objs[@]}"
		if $tests; then build_selftests "$n" "$c" "$subject"; fi
	done
	echo "series: $done changed steps compile (against $ref)"
}

[ $# -gt 0 ] || set -- update
for arg in "$@"; do
	case $arg in
	update)
		cmd_edit >/dev/null
		cmd_absorb
		cmd_write
		cmd_verify
		;;
	edit) cmd_edit ;;
	write) cmd_write; cmd_verify ;;
	verify) cmd_verify ;;
	check) cmd_check ;;
	touched) cmd_touched ;;
	post) cmd_post ;;
	build) cmd_build false ;;
	boot) cmd_build true ;;
	*) die "usage: series.sh [update|edit|write|verify|check|touched|post|build|boot]..." ;;
	esac
done
