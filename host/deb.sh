#!/bin/bash
# Build installable Debian packages of the patched kernel and its tools,
# then check them:
#
#   deb.sh		(make deb)
#
# CONFIG=auto (default): the running machine's /boot/config-$(uname -r)
#   when there is one, otherwise the production fragment;
# CONFIG=distro: that /boot config, which must exist (BOOT_CONFIG=FILE:
#   another distribution config, e.g. the target machine's);
# CONFIG=prod: config/qemu.config + config/production.config, the
#   production kernel the experiments time: small, everything built in,
#   plus config/system.config, what a whole Debian system boots with.
# LOCALMODCONFIG=1 (with a /boot config): only the modules loaded now
#   (make localmodconfig; LSMOD=FILE: another machine's lsmod output),
#   which cuts the build from hours to tens of minutes on 2 cores, for a
#   kernel that only suits this machine.
#
# Writes to $BUILD/deb/: linux-image-*.deb, linux-headers-*.deb,
# linux-libc-dev_*.deb (make bindeb-pkg) and sched-bvt-tools_*.deb
# (bvtctl, qas-admit and the selftests).  Then checks what they hold,
# unpacks them into a throwaway root, and (production config) boots the
# packaged vmlinuz with the packaged tools' bvtctl and a selftest.
. "$(dirname "$0")/common.sh"

"$TOP/host/setup.sh" deb
"$TOP/host/prepare-tree.sh"

out=$BUILD/deb
distro=${BOOT_CONFIG:-/boot/config-$(uname -r)}
config=${CONFIG:-auto}
if [ "$config" = auto ]; then
	config=prod
	[ -f "$distro" ] && config=distro
fi
case $config in
distro)	[ -f "$distro" ] || die "CONFIG=distro: no $distro" ;;
prod)	;;
*)	die "CONFIG=auto, distro or prod" ;;
esac
obj=$out/obj-$config

cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
# LOCALVERSION= (set, empty): no "+" for the untagged source tree, so
# that the release is plainly 6.12.N-bvt.
MAKE=(make -C "$SRC" O="$obj" -j"$JOBS" CC="$cc" HOSTCC="$cc" LOCALVERSION=)

step "configuring the packaged kernel ($config config) in $obj"
# The object directory stays: an unchanged config rebuilds incrementally.
rm -rf "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes "$out/root" \
	"$out/tools-root" "$out/rtkit-root" "$out/guest"
mkdir -p "$obj"
if [ "$config" = distro ]; then
	cp "$distro" "$obj/.config"
	if [ "${LOCALMODCONFIG:-}" = 1 ]; then
		# LSMOD=FILE: another machine's lsmod output.
		if [ -n "${LSMOD:-}" ]; then
			cp "$LSMOD" "$out/lsmod"
		else
			lsmod >"$out/lsmod" ||
				die "LOCALMODCONFIG=1: no lsmod here (LSMOD=FILE gives one)"
		fi
		(yes '' || true) | "${MAKE[@]}" LSMOD="$out/lsmod" localmodconfig \
			>"$out/localmodconfig.log" 2>&1 ||
			die "localmodconfig failed; see $out/localmodconfig.log"
	fi
else
	merge_fragments "$TOP/config/qemu.config" "$TOP/config/production.config" \
		"$TOP/config/system.config"
fi
# The class on; a release of our own; no debug info (a distribution
# config's would make a linux-image-dbg package of gigabytes); and none
# of Debian's signing keys, which are not in the tree.
"$SRC/scripts/config" --file "$obj/.config" \
	-e SCHED_BVT --set-str LOCALVERSION -bvt -d LOCALVERSION_AUTO \
	-d DEBUG_INFO -d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 \
	-d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT -e DEBUG_INFO_NONE \
	--set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS ""
"${MAKE[@]}" -s olddefconfig >/dev/null
"${MAKE[@]}" -s syncconfig >/dev/null	# for kernelrelease
grep -qx CONFIG_SCHED_BVT=y "$obj/.config" ||
	die "CONFIG_SCHED_BVT=y did not stick (a dependency is off in $config config)"
krel=$("${MAKE[@]}" -s kernelrelease)
version=$krel-1+g$(git -C "$TOP" rev-parse --short HEAD)

step "building linux-image-$krel ($JOBS jobs)"
start=$(date +%s)
"${MAKE[@]}" -s KDEB_PKGVERSION="$version" bindeb-pkg >"$out/build.log" 2>&1 || {
	tail -30 "$out/build.log" >&2
	die "bindeb-pkg failed; see $out/build.log"
}
echo "built in $(( $(date +%s) - start )) s" >&2

step "building sched-bvt-tools"
stage=$out/tools-root
"${MAKE[@]}" -s headers
mkdir -p "$stage/usr/bin" "$stage/DEBIAN"
make -C "$SRC/tools/sched" -s OUTPUT="$stage/usr/bin/" \
	KHDR_INCLUDES="-isystem $obj/usr/include"
tests=$stage/usr/lib/sched-bvt/selftests
make -C "$SRC/tools/testing/selftests" -s TARGETS=bvt \
	KHDR_INCLUDES="-isystem $obj/usr/include" O="$out/selftests" \
	INSTALL_PATH="$tests" install >/dev/null
doc=$stage/usr/share/doc/sched-bvt-tools
mkdir -p "$doc"
cp "$TOP/Documentation/scheduler/sched-bvt.rst" "$doc/"
# install_man ROOT PAGE...: into ROOT/usr/share/man/manN, compressed.
install_man() {
	local root=$1 page sect
	shift
	for page in "$@"; do
		sect=${page##*.}
		install -D -m644 "$TOP/tools/sched/man/$page" \
			"$root/usr/share/man/man$sect/$page"
		gzip -9nf "$root/usr/share/man/man$sect/$page"
	done
}
install_man "$stage" bvtctl.8 qas-admit.8 coop_poll.2 bvt_ctl.2 sched_bvt.7
cat >"$stage/DEBIAN/control" <<EOF
Package: sched-bvt-tools
Version: $version
Architecture: $(dpkg --print-architecture)
Maintainer: SCHED_BVT developers <sched-bvt@localhost>
Depends: libc6
Recommends: linux-image-$krel
Section: admin
Priority: optional
Description: SCHED_BVT tools and selftests
 bvtctl runs a command under SCHED_BVT or changes a thread's BVT
 parameters (weight, warp, limit, unwarp, reservation); qas-admit admits
 a QAS task set and gives each task its reservation.  The kselftests in
 /usr/lib/sched-bvt/selftests check the class on the running kernel
 (run_kselftest.sh there, as root).
EOF
dpkg-deb --root-owner-group -Zxz --build "$stage" \
	"$out/sched-bvt-tools_${version}_$(dpkg --print-architecture).deb" >/dev/null

step "building sched-bvt-rtkit"
# A package of its own: it takes rtkit's D-Bus name and files, and a
# machine that wants bvtctl need not give up rtkit for it.
rstage=$out/rtkit-root
mkdir -p "$rstage/DEBIAN"
mkdir -p "$out/rtkit-build"
make -C "$TOP/tools/sched/rtkit" -s OUTPUT="$out/rtkit-build/" \
	KHDR_INCLUDES="-isystem $obj/usr/include" DESTDIR="$rstage" install
rm -rf "$rstage/usr/share/man"
install_man "$rstage" bvt-rtkit.8
echo /etc/sched-bvt/rtkit.conf >"$rstage/DEBIAN/conffiles"
cat >"$rstage/DEBIAN/control" <<EOF
Package: sched-bvt-rtkit
Version: $version
Architecture: $(dpkg --print-architecture)
Maintainer: SCHED_BVT developers <sched-bvt@localhost>
Depends: libc6, libsystemd0, dbus
Recommends: linux-image-$krel
Provides: rtkit
Conflicts: rtkit
Replaces: rtkit
Section: admin
Priority: optional
Description: RealtimeKit D-Bus service granting SCHED_BVT warp
 bvt-rtkit answers rtkit's D-Bus interface, org.freedesktop.RealtimeKit1,
 with the checks and limits rtkit makes, so that PipeWire, PulseAudio and
 the other programs that ask rtkit for real-time scheduling get SCHED_BVT
 with warp instead (the policy in /etc/sched-bvt/rtkit.conf), or SCHED_RR
 as from rtkit on a kernel without the class.  Started by D-Bus activation.
EOF
for script in postinst postrm; do
	printf '%s\n' '#!/bin/sh' 'set -e' \
		'[ -d /run/systemd/system ] || exit 0' \
		'systemctl daemon-reload || true' \
		'case "$1" in remove|purge) systemctl stop bvt-rtkit.service || true ;; esac' \
		>"$rstage/DEBIAN/$script"
	chmod 755 "$rstage/DEBIAN/$script"
done
dpkg-deb --root-owner-group -Zxz --build "$rstage" \
	"$out/sched-bvt-rtkit_${version}_$(dpkg --print-architecture).deb" >/dev/null

step "checking the packages"
image=$(ls "$out"/linux-image-"$krel"_*.deb)
tools=$(ls "$out"/sched-bvt-tools_*.deb)
rtkit=$(ls "$out"/sched-bvt-rtkit_*.deb)
ls -l "$out"/*.deb
dpkg-deb -I "$image" | grep -E "Package|Version|Installed-Size" >&2
root=$out/root
for deb in "$image" "$tools" "$rtkit"; do
	dpkg-deb -x "$deb" "$root"
done
for f in "boot/vmlinuz-$krel" "boot/System.map-$krel" "boot/config-$krel" \
	 usr/bin/bvtctl usr/bin/qas-admit \
	 usr/lib/sched-bvt/selftests/run_kselftest.sh \
	 usr/lib/sched-bvt/selftests/bvt/bvt_share_test \
	 usr/lib/sched-bvt/selftests/bvt/qas_admit_test.sh \
	 usr/share/man/man8/bvtctl.8.gz usr/share/man/man7/sched_bvt.7.gz \
	 usr/libexec/bvt-rtkit-daemon lib/systemd/system/bvt-rtkit.service \
	 usr/share/dbus-1/system.d/org.freedesktop.RealtimeKit1.conf \
	 usr/share/dbus-1/system-services/org.freedesktop.RealtimeKit1.service \
	 etc/sched-bvt/rtkit.conf usr/share/man/man8/bvt-rtkit.8.gz; do
	[ -e "$root/$f" ] || die "$f is not in the packages"
done
grep -qx CONFIG_SCHED_BVT=y "$root/boot/config-$krel" ||
	die "the packaged config has no CONFIG_SCHED_BVT=y"

if [ "$config" != prod ]; then
	step "not booting: a $config kernel needs its modules and an initramfs;"
	echo "install the packages on the machine itself (README)" >&2
	exit 0
fi
step "booting the packaged vmlinuz-$krel with the packaged tools"
guest=$out/guest
mkdir -p "$guest"
cat >"$guest/run.sh" <<EOF
#!/bin/bash
# In the guest: the release the package named, bvtctl and a selftest from
# the tools package.
uname -r >"$guest/uname"
"$root/usr/bin/bvtctl" --weight 2048 -- cat /proc/self/sched |
	grep -E "^policy|bvt.params.weight" >"$guest/bvtctl"
cd "$root/usr/lib/sched-bvt/selftests/bvt" &&
	{ ./bvt_attr_test && PATH=$root/usr/bin:\$PATH ./bvtctl_test.sh; } \
	>"$guest/selftest" 2>&1
echo \$? >"$guest/selftest.rc"
EOF
chmod +x "$guest/run.sh"
BVT_KERNEL=$root/boot/vmlinuz-$krel "$TOP/host/boot.sh" 2 "$guest" 900 \
	"$guest/run.sh"
[ "$(cat "$guest/uname" 2>/dev/null)" = "$krel" ] ||
	die "the packaged kernel did not boot as $krel; see $guest/console.log"
grep -Eq "^policy +: +8$" "$guest/bvtctl" &&
	grep -Eq "^bvt.params.weight +: +2048$" "$guest/bvtctl" ||
	die "bvtctl from the package did not set SCHED_BVT: $(cat "$guest/bvtctl")"
grep -E "^# Totals|^# PASSED|^# FAILED" "$guest/selftest" >&2
[ "$(cat "$guest/selftest.rc")" = 0 ] ||
	die "the packaged selftests failed under the packaged kernel; see $guest/selftest"
step "packages in ${out#$TOP/}: $(cd "$out" && ls *.deb | tr '\n' ' ')"
