#!/bin/bash
# Configure and build the kernel: allnoconfig + config/qemu.config (the small
# QEMU guest, with SCHED_BVT) + config/debug.config (lockdep and friends).
# "build.sh nobvt" builds the same configuration with SCHED_BVT off into a
# separate directory, to show the series compiles away; "build.sh nocoop"
# (nopbs, norsv, noqas) with one mechanism off, "build.sh nomech" with all
# of them off, each into build/obj-<variant>; "build.sh prod"
# the production kernel (config/production.config instead of the debug
# options) into $PROD_OBJ, for the performance experiments.  The test and
# the production kernels have sched_ext too (config/scx.config).
# BVT_COMPILE_ONLY=1 builds a variant for make check's build checks only,
# into build/obj-<variant>-compile: nobvt without what only booting needs
# (config/buildonly.config), half the time of a cold build; a mechanism
# variant as the test kernel with that mechanism off, from a copy of the
# test kernel's objects, so that only what the mechanism's option reaches
# compiles again (no header that most files include names one).
. "$(dirname "$0")/common.sh"

variant=${1:-bvt}
fragments=("$TOP/config/qemu.config" "$TOP/config/debug.config")
obj=$OBJ seed=
case $variant in
bvt)	fragments+=("$TOP/config/scx.config") ;;
nobvt|nocoop|nopbs|norsv|noqas|nomech)
	obj=$BUILD/obj-$variant
	if [ "${BVT_COMPILE_ONLY:-}" = 1 ]; then
		obj=$obj-compile
		case $variant in
		nobvt) fragments+=("$TOP/config/buildonly.config") ;;
		*) fragments+=("$TOP/config/scx.config") seed=$OBJ ;;
		esac
	fi
	fragments+=("$TOP/config/$variant.config") ;;
prod)	fragments=("$TOP/config/qemu.config" "$TOP/config/production.config"
		   "$TOP/config/scx.config")
	obj=$PROD_OBJ ;;
*)	die "usage: build.sh [bvt|nobvt|prod|nocoop|nopbs|norsv|noqas|nomech]" ;;
esac

cc=gcc
if command -v ccache >/dev/null; then
	cc="ccache gcc"
	ccache -M 5G >/dev/null
fi
MAKE=(make -C "$SRC" O="$obj" -j"$JOBS" CC="$cc" HOSTCC="$cc" -s)

# Reconfigure only when a fragment changed: a fresh .config bumps the
# timestamps that drive the incremental build.
mkdir -p "$obj"
cfgstamp=$( (cat "${fragments[@]}"; git -C "$SRC" rev-parse "HEAD^{tree}") | sha1sum | cut -c1-40)
if [ "$(cat "$obj/.bvt-config-stamp" 2>/dev/null)" != "$cfgstamp" ]; then
	if [ "$seed" ]; then
		[ -f "$seed/vmlinux" ] || die "no test kernel in $seed: run host/build.sh"
		step "copying the test kernel's objects to $obj"
		rm -rf "$obj"
		cp -a "$seed" "$obj"
	fi
	step "configuring $variant kernel in $obj"
	merge_fragments "${fragments[@]}"
	"${MAKE[@]}" olddefconfig >/dev/null
	# Every option we asked for (the last fragment to name it wins) must
	# have survived olddefconfig.
	cat "${fragments[@]}" |
	sed -nE 's/^(CONFIG_[A-Z0-9_]+)=.*/\1 &/p; s/^# (CONFIG_[A-Z0-9_]+) is not set/\1 &/p' |
	awk '{ key = $1; sub(/^[^ ]+ /, ""); want[key] = $0 } END { for (k in want) print want[k] }' |
	while read -r line; do
		case "$line" in
		"# "*) ! grep -q "^${line:2:-11}=" "$obj/.config" ;;
		*) grep -qxF -- "$line" "$obj/.config" ;;
		esac || die "config: '$line' did not stick"
	done
	echo "$cfgstamp" >"$obj/.bvt-config-stamp"
fi

step "building $variant kernel ($JOBS jobs; a clean build takes ~10 minutes)"
start=$(date +%s)
"${MAKE[@]}" bzImage
echo "built $obj/arch/x86/boot/bzImage in $(( $(date +%s) - start )) s" >&2
