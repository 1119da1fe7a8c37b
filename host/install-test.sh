#!/bin/bash
# "make install-test": install the packages of "make deb" into a whole
# Debian system and boot it the way a user's machine boots, then take them
# out again.
#
#   install-test.sh
#
# A Debian image (SUITE=trixie, 13, whose own kernel is a 6.12 too; or
# bookworm) is made once with debootstrap, with systemd, GRUB for BIOS,
# initramfs-tools and the distribution's kernel, and cached in
# $BUILD/install.  Each run boots a copy-on-write overlay of it in QEMU
# without -kernel (firmware, GRUB, the kernel GRUB picks, systemd) three
# times:
#
#   install   the distribution kernel: dpkg -i the packages, whose hooks
#             make the initramfs and the GRUB entry; make that entry the
#             default as the README says;
#   test      the packaged kernel: the packaged selftests
#             (run_kselftest.sh), bvtctl, qas-admit --bench, a trace-cmd
#             trace, bvt-rtkit over the system bus, a player granted warp
#             by it beside greps; then apt-get remove the kernel package;
#   rollback  the distribution kernel again, and bvt-rtkit's SCHED_RR.
#
# A unit in the image runs the phase's script from a second disk and
# writes its results to the second serial port (the first is the console);
# this script reads and judges them.  CONFIG=prod (default) or distro
# picks the packages' kernel config, as "make deb" does; with distro, the
# image's own /boot/config-* with LOCALMODCONFIG from the image's modules.
. "$(dirname "$0")/common.sh"

SUITE=${SUITE:-trixie}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
# Bump when the image's recipe below changes: the cached image is rebuilt.
IMAGE_RECIPE=1
dir=$BUILD/install
base=$dir/$SUITE-$IMAGE_RECIPE.img
limit=${BVT_INSTALL_TIMEOUT:-1800}

[ "$(id -u)" = 0 ] || die "run as root: debootstrap and the image need it"
"$TOP/host/setup.sh" install
mkdir -p "$dir"

# qemu_boot NAME [QEMU ARGS]: boot the overlay with the payload disk of
# $dir/NAME; the console goes to NAME/console.log, the payload's results
# to NAME/results.log.
qemu_boot() {
	local name=$1 out=$dir/$1 start rc=0
	shift
	step "booting the image: $name (at most ${limit}s)"
	rm -f "$out/payload.img"
	mkfs.ext4 -q -L BVTPAYLOAD -d "$out/payload" "$out/payload.img" \
		$(( $(du -sm "$out/payload" | cut -f1) + 64 ))M
	start=$(date +%s)
	timeout --kill-after=10 "$limit" qemu-system-x86_64 \
		-machine pc -accel tcg,thread=multi -cpu max -smp 2 -m 2G \
		-drive file="$dir/overlay.qcow2",if=virtio,format=qcow2 \
		-drive file="$out/payload.img",if=virtio,format=raw,readonly=on \
		-serial file:"$out/console.log" -serial file:"$out/results.log" \
		-display none -monitor none -nic none -no-reboot "$@" \
		</dev/null >"$out/qemu.log" 2>&1 || rc=$?
	echo "guest ran $(( $(date +%s) - start )) s" >&2
	# The serial line ends its lines with CR LF.
	sed -i 's/\r$//' "$out/results.log"
	[ $rc = 0 ] || die "$name: QEMU exited $rc (124: out of time); see ${out#$TOP/}/console.log"
	grep -q "^PHASE $name done" "$out/results.log" && return 0
	grep -m5 -E 'BUG:|Oops|Kernel panic|RIP:' "$out/console.log" >&2
	die "$name: the payload did not finish; see ${out#$TOP/}/{results,console}.log"
}

# payload NAME: a fresh payload directory for the phase NAME, with the
# common shell functions; the caller adds run.sh's body.
payload() {
	local p=$dir/$1/payload
	rm -rf "${p%/payload}"
	mkdir -p "$p"
	cat >"$p/run.sh" <<EOF
#!/bin/bash
# The install test's $1 phase, run by bvt-payload.service.
PHASE=$1
P=\$(dirname "\$0")
EOF
	cat >>"$p/run.sh" <<'EOF'
result() {	# result NAME ok|fail DETAIL...
	echo "RESULT $*"
}
check() {	# check NAME COMMAND...: ok when COMMAND succeeds
	local name=$1
	shift
	if "$@" >/tmp/check.out 2>&1; then
		result "$name" ok
	else
		result "$name" fail "$(tail -5 /tmp/check.out | tr '\n' ' ')"
	fi
}
finish() {
	echo "--- kernel log (warnings)"
	journalctl -k -b --no-pager -o cat |
		grep -E 'WARNING:|BUG:|Oops|rcu_.*stall|hung task|possible (circular|recursive)' |
		sed 's/^/KERNEL /'
	echo "PHASE $PHASE done"
}
# An oops ends the boot at once (QEMU runs with -no-reboot), not at the
# time limit with the system half dead.
sysctl -q -w kernel.panic_on_oops=1 kernel.panic=1
echo "PHASE $PHASE start: $(uname -r)"
result kernel ok "$(uname -r)"
EOF
	chmod +x "$p/run.sh"
	echo "$p"
}

build_image() {
	local root=$dir/rootfs img=$base.tmp
	step "making a Debian $SUITE system with debootstrap in ${root#$TOP/}"
	rm -rf "$root" "$img"
	debootstrap --include=systemd-sysv,udev,dbus,libpam-systemd,kmod,initramfs-tools,zstd,linux-image-amd64,grub-pc,trace-cmd,procps \
		"$SUITE" "$root" "$MIRROR" >"$dir/debootstrap.log" 2>&1 || {
		tail -20 "$dir/debootstrap.log" >&2
		die "debootstrap failed; see $dir/debootstrap.log"
	}
	echo bvt-test >"$root/etc/hostname"
	echo "LABEL=bvt-root / ext4 errors=remount-ro 0 1" >"$root/etc/fstab"
	echo "deb $MIRROR $SUITE main" >"$root/etc/apt/sources.list"
	chroot "$root" passwd -qd root
	cat >>"$root/etc/default/grub" <<'EOF'

# make install-test: the menu and the kernel's console on the first
# serial port.
GRUB_TIMEOUT=1
GRUB_TERMINAL=serial
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_CMDLINE_LINUX="console=ttyS0,115200n8"
EOF
	cat >"$root/usr/local/sbin/bvt-payload" <<'EOF'
#!/bin/sh
# Run the install test's phase from the disk labelled BVTPAYLOAD.
for i in $(seq 60); do
	[ -e /dev/disk/by-label/BVTPAYLOAD ] && break
	sleep 1
done
mkdir -p /run/payload
mount -r LABEL=BVTPAYLOAD /run/payload || exit 1
exec /run/payload/run.sh
EOF
	chmod +x "$root/usr/local/sbin/bvt-payload"
	cat >"$root/etc/systemd/system/bvt-payload.service" <<'EOF'
[Unit]
Description=make install-test: run this boot's phase, then power off
After=multi-user.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/bvt-payload
StandardOutput=file:/dev/ttyS1
StandardError=inherit
TimeoutStartSec=1500

[Install]
WantedBy=multi-user.target
EOF
	chroot "$root" systemctl enable -q bvt-payload.service
	chroot "$root" apt-get clean

	step "writing the image: ext4 in a partition, GRUB installed from its first boot"
	mkfs.ext4 -q -L bvt-root -d "$root" "$dir/root.ext4" 6G
	truncate -s 6145M "$img"
	echo "start=2048,type=83,bootable" | sfdisk -q "$img"
	dd if="$dir/root.ext4" of="$img" bs=1M seek=1 conv=notrunc,sparse status=none
	rm -f "$dir/root.ext4"
	qemu-img create -q -f qcow2 -b "$img" -F raw "$dir/overlay.qcow2"

	# The first boot, with -kernel: grub-install and update-grub in the
	# system itself, with its udev and disks, as the installer does.
	local p
	p=$(payload setup)
	cat >>"$p/run.sh" <<'EOF'
check grub-install grub-install --target=i386-pc /dev/vda
check update-grub update-grub
finish
EOF
	qemu_boot setup -kernel "$root/vmlinuz" -initrd "$root/initrd.img" \
		-append "root=LABEL=bvt-root ro console=ttyS0,115200n8"
	judge setup
	qemu-img commit -q "$dir/overlay.qcow2"
	rm -f "$dir/overlay.qcow2"
	mv "$img" "$base"
	rm -rf "$root"
}

# judge NAME: every RESULT line of the phase ok, and no kernel warning.
judge() {
	local out=$dir/$1/results.log
	grep -E '^RESULT ' "$out" | sed "s/^RESULT /  $1: /" >&2
	grep -E '^KERNEL ' "$out" >&2 && die "$1: the kernel warned; see $out"
	grep -qE '^RESULT [^ ]+ fail' "$out" && die "$1: a check failed; see $out"
	return 0
}

# distro_inputs: the image's own kernel config, and the modules its
# kernel loads at boot (the install phase of a CONFIG=prod run records
# them), for CONFIG=distro.
distro_inputs() {
	local loop
	[ -s "$dir/$SUITE-lsmod" ] ||
		die "CONFIG=distro: no $dir/$SUITE-lsmod yet: run make install-test (CONFIG=prod) once first"
	loop=$(losetup -f --show -r -o $((2048 * 512)) "$base")
	debugfs -R "ls /boot" "$loop" 2>/dev/null | tr -s ' ' '\n' |
		grep -m1 '^config-' >"$dir/config-name" || true
	debugfs -R "dump /boot/$(cat "$dir/config-name") $dir/$SUITE-config" \
		"$loop" >/dev/null 2>&1 || true
	losetup -d "$loop"
	[ -s "$dir/$SUITE-config" ] || die "no /boot/config-* in $base"
}

[ -f "$base" ] || build_image
[ "${1:-}" = image ] && exit 0

# The packages: "make deb"'s for this commit, built when missing.
config=${CONFIG:-prod}
sha=$(git -C "$TOP" rev-parse --short HEAD)
debs=$BUILD/deb
if ! ls "$debs"/sched-bvt-tools_*+g"${sha}"_*.deb >/dev/null 2>&1 ||
   [ "$(cat "$debs/config" 2>/dev/null)" != "$config" ]; then
	case $config in
	prod)	CONFIG=prod "$TOP/host/deb.sh" ;;
	distro)	distro_inputs
		CONFIG=distro BOOT_CONFIG=$dir/$SUITE-config \
			LOCALMODCONFIG=1 LSMOD=$dir/$SUITE-lsmod "$TOP/host/deb.sh" ;;
	*)	die "CONFIG=prod or distro" ;;
	esac
	echo "$config" >"$debs/config"
fi
image=$(ls "$debs"/linux-image-*_*+g"${sha}"_*.deb | grep -v -- -dbg_)
krel=$(dpkg-deb -f "$image" Package)
krel=${krel#linux-image-}
pkgs=("$image" "$debs"/sched-bvt-*_*+g"${sha}"_*.deb)

build_player
clip=$(make_clip)

rm -f "$dir/overlay.qcow2"
qemu-img create -q -f qcow2 -b "$base" -F raw "$dir/overlay.qcow2"
start=$(date +%s)

p=$(payload install)
mkdir -p "$p/debs"
cp "${pkgs[@]}" "$p/debs/"
echo "KREL=$krel" >>"$p/run.sh"
cat >>"$p/run.sh" <<'EOF'
check dpkg-i dpkg -i "$P"/debs/*.deb
check initramfs test -s "/boot/initrd.img-$KREL"
check grub-entry grep -q "vmlinuz-$KREL " /boot/grub/grub.cfg
# The distribution's own 6.12 sorts after ours: make ours the default, as
# the README tells.
sed -i 's/^GRUB_DEFAULT=.*/GRUB_DEFAULT=saved/' /etc/default/grub
check update-grub update-grub
check grub-set-default grub-set-default \
	"Advanced options for Debian GNU/Linux>Debian GNU/Linux, with Linux $KREL"
lsmod | sed 's/^/LSMOD /'
finish
EOF
qemu_boot install
judge install
# What the distribution kernel loads, for CONFIG=distro's localmodconfig.
sed -n 's/^LSMOD //p' "$dir/install/results.log" >"$dir/$SUITE-lsmod"
distro_krel=$(sed -n 's/^RESULT kernel ok //p' "$dir/install/results.log")

p=$(payload test)
printf 'KREL=%s\nMODE=bvt\n' "$krel" >>"$p/run.sh"
cat "$TOP/host/install-test-guest.sh" >>"$p/run.sh"
cp "$TOP/host/install-test-desktop.sh" "$p/desktop.sh"
# The player, with the FFmpeg libraries it was built with here (the
# image's C library serves it), its clip, and a tree for the greps.
cp "$BUILD/bin/player" "$p/player"
cp "$clip" "$p/clip.mpg"
mkdir -p "$p/lib"
ldd "$BUILD/bin/player" | awk '$3 ~ /^\// { print $3 }' |
	grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' |
	xargs cp -L -t "$p/lib"
cp -r "$SRC/kernel" "$p/tree"
qemu_boot test
judge test

p=$(payload rollback)
printf 'KREL=%s\nDISTRO=%s\nMODE=rr\n' "$krel" "$distro_krel" >>"$p/run.sh"
cp "$TOP/host/install-test-desktop.sh" "$p/desktop.sh"
cat >>"$p/run.sh" <<'EOF'
check distro-kernel test "$(uname -r)" = "$DISTRO"
check kernel-gone test ! -e "/boot/vmlinuz-$KREL"
check no-grub-entry sh -c "! grep -q 'vmlinuz-$KREL ' /boot/grub/grub.cfg"
# The tools stay: bvtctl says the kernel has no SCHED_BVT, plainly;
# bvt-rtkit grants SCHED_RR, as rtkit would.
check bvtctl-refused sh -c "! bvtctl -- true 2>/tmp/bvtctl.err && grep -q . /tmp/bvtctl.err"
. "$P/desktop.sh"
finish
EOF
qemu_boot rollback
judge rollback
step "make install-test passed: $krel installed, booted, tested and removed in $(( $(date +%s) - start )) s"
