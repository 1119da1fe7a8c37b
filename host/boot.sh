#!/bin/bash
# Boot the built kernel under QEMU (virtme-ng, the host's userspace over 9p)
# and run a command in it.  OUTDIR is writable from the guest; the console
# goes to OUTDIR/console.log.  Exit status 124 if the guest ran out of time.
#
#   boot.sh CPUS OUTDIR TIMEOUT_S COMMAND...
#   boot.sh --probe		print the accelerator to use: kvm or tcg
#
# BVT_ACCEL=kvm or BVT_ACCEL=tcg forces the accelerator.  Otherwise KVM is
# tried with a short boot (nested KVM can hang at "Decompressing Linux")
# and TCG used when that fails.  BVT_APPEND adds to the kernel
# command line; BVT_SMT=1 makes the CPUs pairs of SMT siblings;
# BVT_KERNEL boots another bzImage (build/obj-nobvt's, say).
. "$(dirname "$0")/common.sh"

kernel=${BVT_KERNEL:-$OBJ/arch/x86/boot/bzImage}
[ -f "$kernel" ] || die "no kernel at $kernel: run host/build.sh"

# run_vng ACCEL CPUS DIR LIMIT COMMAND
run_vng() {
	local accel=$1 cpus=$2 dir=$3 limit=$4 cmd=$5
	local flags=(--force-9p)
	[ "$accel" = tcg ] && flags+=(--disable-kvm)
	[ "${BVT_SMT:-}" ] &&
		flags+=(--qemu-opts "-smp $cpus,sockets=1,cores=$((cpus / 2)),threads=2")
	# </dev/null: QEMU must never read the caller's terminal.
	timeout --kill-after=10 "$limit" vng --run "$kernel" "${flags[@]}" \
		--cpus "$cpus" --memory 2G --rwdir "$dir" \
		--append "log_buf_len=4M ${BVT_APPEND:-}" --verbose --exec "$cmd" \
		</dev/null >"$dir/console.log" 2>&1
}

probe() {
	local dir rc=1
	[ -w /dev/kvm ] || { echo tcg; return; }
	step "probing KVM with a short boot (30 s at most)"
	dir=$(mktemp -d)
	run_vng kvm 1 "$dir" 30 "touch $dir/ok" || true
	[ -f "$dir/ok" ] && rc=0
	rm -rf "$dir"
	if [ $rc = 0 ]; then echo kvm; else echo tcg; fi
}

if [ "$1" = --probe ]; then
	probe
	exit 0
fi

cpus=$1 out=$2 limit=$3
shift 3
mkdir -p "$out"
accel=${BVT_ACCEL:-$(probe)}
echo "$accel" >"$out/accel"
step "booting the kernel with $cpus vCPUs under ${accel^^} (at most ${limit}s)"
start=$(date +%s)
rc=0
run_vng "$accel" "$cpus" "$out" "$limit" "$*" || rc=$?
echo "guest ran $(( $(date +%s) - start )) s" >&2
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "guest timed out after ${limit}s" >&2
	exit 124
fi
exit 0
