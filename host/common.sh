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
VENV=$BUILD/venv
VIRTME_NG_VERSION=1.42
MATPLOTLIB_VERSION=3.9.2
export PATH="$VENV/bin:$PATH"	# vng runs virtme-run from PATH

JOBS=${JOBS:-$(nproc)}

step() { printf '\n==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
