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
# BVT_COMPILE_ONLY=1 builds a variant without what only booting needs
# (config/buildonly.config), into build/obj-<variant>-compile: make check's
# build checks, half the time of a cold build.
. "$(dirname "$0")/common.sh"

variant=${1:-bvt}
fragments=("$TOP/config/qemu.config" "$TOP/config/debug.config")
obj=$OBJ
case $variant in
bvt)	fragments+=("$TOP/config/scx.config") ;;
nobvt|nocoop|nopbs|norsv|noqas|nomech)
	fragments+=("$TOP/config/$variant.config")
	obj=$BUILD/obj-$variant
	if [ "${BVT_COMPILE_ONLY:-}" = 1 ]; then
		fragments+=("$TOP/config/buildonly.config")
		obj=$obj-compile
	fi ;;
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
