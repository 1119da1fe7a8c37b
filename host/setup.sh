#!/bin/bash
# Install what the build, the guest and the tests need: Debian packages and a
# project-local virtualenv with virtme-ng.  Skips whatever is already there.
# "setup.sh repro" also installs what the paper's experiments need (FFmpeg
# and its libraries, lighttpd, matplotlib), which "make check" does not;
# "setup.sh deb" what "make bindeb-pkg" needs besides the build's;
# "setup.sh docs" what host/docs.sh needs: Debian's Sphinx (with Graphviz,
# which the kernel's Sphinx setup asks for) and mandoc and groff for
# tools/sched/man/lint.sh;
# "setup.sh install" what host/install-test.sh needs: the "deb" packages,
# debootstrap, GRUB's BIOS images, the disk tools, and FFmpeg's libraries
# for the player it runs in the image; "setup.sh kernelshark" what
# host/kernelshark.sh needs.
. "$(dirname "$0")/common.sh"

PACKAGES=(
	"linux-source-6.12=$KERNEL_DEB_VERSION"
	build-essential bc bison flex libelf-dev libssl-dev dwarves cpio kmod patch
	xz-utils ccache git git-absorb python3-venv
	qemu-system-x86 busybox-static
	rt-tests trace-cmd linux-perf stress-ng
	clang-19 zlib1g-dev
	libsystemd-dev dbus-daemon systemd
)
[ "${1:-}" = repro ] &&
	PACKAGES+=(ffmpeg libavcodec-dev libavformat-dev libavutil-dev pkg-config
		   lighttpd)
[ "${1:-}" = deb ] || [ "${1:-}" = install ] &&
	PACKAGES+=(dpkg-dev debhelper rsync)
[ "${1:-}" = install ] &&
	PACKAGES+=(debootstrap grub-pc-bin qemu-utils e2fsprogs fdisk ffmpeg
		   libavcodec-dev libavformat-dev libavutil-dev pkg-config)
[ "${1:-}" = kernelshark ] &&
	PACKAGES+=(kernelshark xvfb xauth x11-utils imagemagick)
[ "${1:-}" = docs ] &&
	PACKAGES+=(python3-sphinx python3-yaml graphviz mandoc groff-base)

missing=()
for p in "${PACKAGES[@]}"; do
	name=${p%%=*}
	want=${p#*=}
	have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	"install ok installed "*)
		[ "$want" = "$p" ] || [ "${have##* }" = "$want" ] || missing+=("$p") ;;
	*)	missing+=("$p") ;;
	esac
done

mkdir -p "$BUILD"
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "run as root to install: ${missing[*]}"
	step "installing Debian packages: ${missing[*]}"
	apt-get update -q >/dev/null
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends "${missing[@]}" >"$BUILD/apt.log" 2>&1; then
		tail -20 "$BUILD/apt.log" >&2
		die "apt-get install failed (pinned linux-source-6.12=$KERNEL_DEB_VERSION gone? see host/common.sh)"
	fi
	# The experiments start lighttpd in the guest; the host's own
	# service, which Debian enables on install, is not wanted.
	if [[ " ${missing[*]} " = *" lighttpd "* ]] && command -v systemctl >/dev/null; then
		systemctl disable --now lighttpd >/dev/null 2>&1 || true
	fi
fi

if [ ! -x "$VENV/bin/vng" ] ||
   [ "$("$VENV/bin/vng" --version 2>/dev/null)" != "virtme-ng $VIRTME_NG_VERSION" ]; then
	step "creating $VENV with virtme-ng $VIRTME_NG_VERSION"
	mkdir -p "$BUILD"
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install -q "virtme-ng==$VIRTME_NG_VERSION"
fi
if [ "${1:-}" = repro ] && ! "$VENV/bin/python" -c 'import matplotlib' 2>/dev/null; then
	step "installing matplotlib $MATPLOTLIB_VERSION into $VENV"
	"$VENV/bin/pip" install -q "matplotlib==$MATPLOTLIB_VERSION"
fi
