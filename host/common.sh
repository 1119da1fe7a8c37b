# Shared settings for the host-side scripts; sourced, not run.
# shellcheck shell=bash
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build}

# The kernel we build against: Debian's linux-source-6.12, pinned.  When
# Debian ships a newer 6.12.y, bump both values, run "make check" and commit.
KERNEL_DEB_VERSION=6.12.117-1~deb12u1
KERNEL_VERSION=6.12.117

SRC=$BUILD/linux			# patched source tree (a git repository)
OBJ=$BUILD/obj				# kernel build output (make O=)
PROD_OBJ=$BUILD/obj-prod		# the production kernel's (build.sh prod)
VENV=$BUILD/venv
VIRTME_NG_VERSION=1.42
MATPLOTLIB_VERSION=3.9.2
export PATH="$VENV/bin:$PATH"	# vng runs virtme-run from PATH

JOBS=${JOBS:-$(nproc)}

# The files the series adds, as this repository has them whole: every file
# under the kernel tree's top directories but the userspace kept beside the
# series (the man pages and bvt-rtkit, which "make deb" packages and the
# series does not post).
series_files() {
	git -C "$TOP" ls-files --cached --others --exclude-standard \
		--deduplicate -- Documentation include kernel tools |
		grep -v -E '^tools/sched/(man|rtkit)/' |
		while read -r f; do [ ! -e "$TOP/$f" ] || echo "$f"; done
}

step() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Build everything a boot needs, then boot_guests RESULTS LIMIT MODE [ARGS]:
# boot the kernel with each vCPU count of BVT_CHECK_CPUS (default 2 4) and
# run guest-run.sh MODE there, into RESULTS/<N>cpu.  A boot with 4 vCPUs or
# more makes its last CPU, where the one-CPU tests run, nohz_full: the tick
# stops there whenever the class lets it; and its CPUs pairs of SMT
# siblings, for core scheduling (bvt_core_test skips without them).
build_for_boot() {
	"$TOP/host/setup.sh"
	"$TOP/host/prepare-tree.sh"
	"$TOP/host/build.sh"
	"$TOP/host/build-tests.sh"
	"$TOP/host/scx.sh"
	BVT_ACCEL=${BVT_ACCEL:-$("$TOP/host/boot.sh" --probe)}
	export BVT_ACCEL
}

boot_guests() {
	local results=$1 limit=$2 cpus dir append smt
	shift 2
	rm -rf "$results"
	mkdir -p "$results"
	for cpus in ${BVT_CHECK_CPUS:-2 4}; do
		dir=$results/${cpus}cpu
		append= smt=
		if [ "$cpus" -ge 4 ]; then
			append="nohz_full=$((cpus - 1))" smt=1
		fi
		BVT_APPEND=$append BVT_SMT=$smt \
			"$TOP/host/boot.sh" "$cpus" "$dir" "$limit" \
			"$TOP/host/guest-run.sh" "$dir" "$BUILD/selftests" "$@" ||
			true
	done
}

# merge_fragments FRAGMENT...: make allnoconfig plus the fragments into
# $obj/.config, with the caller's $obj and MAKE (make -C $SRC O=$obj ...).
merge_fragments() {
	"${MAKE[@]}" -s allnoconfig >/dev/null
	KCONFIG_CONFIG="$obj/.config" "$SRC/scripts/kconfig/merge_config.sh" \
		-m -O "$obj" "$obj/.config" "$@" >/dev/null
}

# build_player: the video player of the mpeg/grep experiment (and of "make
# install-test"), repro/player.c, into $BUILD/bin/player.
build_player() {
	mkdir -p "$BUILD/bin"
	if [ ! "$BUILD/bin/player" -nt "$TOP/repro/player.c" ] ||
	   [ ! "$BUILD/bin/player" -nt "$TOP/repro/clock.h" ]; then
		step "building the player"
		gcc -O2 -Wall -o "$BUILD/bin/player" "$TOP/repro/player.c" \
			$(pkg-config --cflags --libs libavformat libavcodec libavutil)
	fi
}

# make_clip: print the path of its clip, made first if need be.
make_clip() {
	local clip=$BUILD/repro/clip-352x288.mpg
	mkdir -p "$BUILD/repro"
	if [ ! -f "$clip" ]; then
		step "making a 20 s MPEG-2 clip from FFmpeg's test source"
		ffmpeg -loglevel error -y -f lavfi -i testsrc2=size=352x288:rate=25 \
			-t 20 -c:v mpeg2video -b:v 4000k "$clip"
	fi
	echo "$clip"
}
