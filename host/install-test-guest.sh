# shellcheck shell=bash
# The install test's "test" phase, in the installed system booted by GRUB
# into the packaged kernel (host/install-test.sh appends this to the
# phase's run.sh, after result, check, finish, P and KREL).

check packaged-kernel test "$(uname -r)" = "$KREL"

# bvtctl from the tools package sets the policy and the weight.
bvtctl --weight 2048 -- cat /proc/self/sched >/tmp/bvtctl.out 2>&1
check bvtctl grep -Eq '^policy +: +8$' /tmp/bvtctl.out
check bvtctl-weight grep -Eq '^bvt.params.weight +: +2048$' /tmp/bvtctl.out

# The packaged selftests, as the package's description says to run them.
ksft_start=$(date +%s)
(cd /usr/lib/sched-bvt/selftests && ./run_kselftest.sh) >/tmp/ksft.log 2>&1
ksft_ok=$(grep -Ec '^ok [0-9]+ selftests: bvt: [^#]*$' /tmp/ksft.log)
ksft_skip=$(grep -Ec '^ok [0-9]+ selftests: bvt: .*# SKIP' /tmp/ksft.log)
ksft_fail=$(grep -Ec '^not ok [0-9]+ selftests: bvt' /tmp/ksft.log)
grep -E '^(not )?ok [0-9]+ selftests' /tmp/ksft.log | sed 's/^/KSFT /'
if [ "$ksft_fail" = 0 ] && [ "$ksft_ok" -ge 10 ]; then
	result selftests ok "$ksft_ok passed, $ksft_skip skipped, $(( $(date +%s) - ksft_start )) s"
else
	result selftests fail "$ksft_ok passed, $ksft_fail failed, $ksft_skip skipped"
	# What each failed case printed, from its RUN line to its FAIL.
	awk '/^# +#  RUN / { n = 0 } { buf[n++] = $0 }
	     /^# +# +FAIL / { for (i = 0; i < n; i++) print buf[i] }' \
		/tmp/ksft.log | head -80
fi

# qas-admit's benchmark: the paper's four streams, at every class count.
qas-admit --bench >/tmp/qas.out 2>&1
check qas-admit-bench test "$(grep -Ec '^ +[0-9]+ ' /tmp/qas.out)" = 7
sed 's/^/QAS /' /tmp/qas.out

# A short trace of a warped thread beside a hog, with trace-cmd.
trace-cmd record -q -e sched_bvt -o /tmp/bvt.dat -- \
	bvtctl --warp 5ms --limit 10ms -- \
	sh -c 'bvtctl -- sh -c "i=0; while [ \$i -lt 30000 ]; do i=\$((i+1)); done" &
	       for i in $(seq 50); do sleep 0.01; done; wait' >/dev/null 2>&1
trace-cmd report -i /tmp/bvt.dat 2>/dev/null >/tmp/bvt.txt
events=$(grep -c 'sched_bvt_' /tmp/bvt.txt)
kinds=$(grep -o 'sched_bvt_[a-z_]*' /tmp/bvt.txt | sort -u | tr '\n' ' ')
if [ "$events" -gt 0 ]; then
	result trace-cmd ok "$events sched_bvt events: $kinds"
else
	result trace-cmd fail "no sched_bvt event in the trace"
fi

. "$P/desktop.sh"

# The rollback, as the README says: remove the kernel package.
check apt-get-remove apt-get remove -y "linux-image-$KREL"
check kernel-removed test ! -e "/boot/vmlinuz-$KREL"
check update-grub-ran sh -c "! grep -q 'vmlinuz-$KREL ' /boot/grub/grub.cfg"
finish
