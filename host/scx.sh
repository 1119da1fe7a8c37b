#!/bin/bash
# Build the sched_ext schedulers that the coexistence tests and the
# experiments load, into $BUILD/scx/bin: the kernel's examples
# (tools/sched_ext: scx_simple, scx_qmap and scx_central; scx_flatcg
# needs the cgroup support the guest leaves out) with Debian's clang-19,
# against the BTF of our own vmlinux (the test kernel's,
# else the production kernel's: the schedulers are CO-RE, so either serves
# both).  Incremental: a rebuilt kernel regenerates vmlinux.h and the BPF
# objects, nothing else.
. "$(dirname "$0")/common.sh"

out=$BUILD/scx
vmlinux=
for v in "$OBJ/vmlinux" "$PROD_OBJ/vmlinux"; do
	[ -e "$v" ] && { vmlinux=$v; break; }
done
[ -n "$vmlinux" ] || die "no vmlinux to take the BTF from: build the kernel first"
command -v clang-19 >/dev/null || die "clang-19 missing: run host/setup.sh"

step "building the sched_ext examples in $out (BTF of $vmlinux)"
mkdir -p "$out"
make -C "$SRC/tools/sched_ext" -s -j"$JOBS" O="$out" CLANG=clang-19 \
	VMLINUX_BTF="$vmlinux" scx_simple scx_qmap scx_central \
	>"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log" >&2; die "tools/sched_ext did not build"; }
mkdir -p "$out/bin"
cp "$out/build/bin/"scx_* "$out/bin/"

# "scx.sh rust": also scx_lavd and scx_bpfland from crates.io, built with
# cargo (rustup's: Debian 12's is too old for them) into
# $BUILD/scx-rust/bin.  scx_bpfland 1.0.18 is the last release whose CI
# tested 6.12; scx_lavd 1.0.19 is too, but from 1.0.12 on it shortens the
# slice of another CPU's running task through a pointer that the 6.12
# verifier lets it read only ("only read is supported": it does not
# load), and 1.0.10 kicks that CPU instead.  Their build compiles libbpf
# and their BPF programs with clang-19 and generates bindings with bindgen
# (LIBCLANG_PATH).
[ "${1:-}" = rust ] || exit 0
SCX_RUST=("scx_lavd 1.0.10" "scx_bpfland 1.0.18")
command -v cargo >/dev/null || die "cargo missing: install Rust with rustup"
for c in "${SCX_RUST[@]}"; do
	set -- $c
	if [ "$("$BUILD/scx-rust/bin/$1" --version 2>/dev/null | grep -o "$2")" = "$2" ]; then
		continue
	fi
	step "building $1 $2 with cargo (about 5 minutes)"
	BPF_CLANG=clang-19 LIBCLANG_PATH=/usr/lib/llvm-19/lib \
	CARGO_TARGET_DIR=$BUILD/scx-rust/target \
		cargo install -q --locked --root "$BUILD/scx-rust" "$1" \
		--version "$2" >"$BUILD/scx-rust/$1.log" 2>&1 ||
		{ tail -30 "$BUILD/scx-rust/$1.log" >&2; die "$1 did not build"; }
done
