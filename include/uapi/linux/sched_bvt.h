/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * SCHED_BVT: Borrowed Virtual Time scheduling.
 *
 * The policy number, SCHED_BVT, is in <linux/sched.h>.  A thread's BVT
 * parameters travel in the SCHED_ATTR_SIZE_VER2 tail of struct sched_attr
 * (<linux/sched/types.h>):
 *
 *  @sched_bvt_weight:     share of the CPU relative to the other BVT threads,
 *                         SCHED_BVT_WEIGHT_MIN..SCHED_BVT_WEIGHT_MAX; 0 takes
 *                         it from sched_nice with the kernel's nice-to-weight
 *                         table (nice 0 is 1024), and follows later nice(2)
 *                         changes.
 *  @sched_bvt_flags:      SCHED_BVT_FLAG_*.  SCHED_BVT_FLAG_RESERVED puts the
 *                         thread in the reserved-effort (root) level instead
 *                         of the best-effort level: it needs CAP_SYS_NICE and
 *                         an explicit weight, and fails with EBUSY when the
 *                         reserved-effort threads' total weight would exceed
 *                         the share that kernel.sched_bvt_re_share_pct allows.
 *  @sched_bvt_warp:       W, how far a warped thread is moved back in virtual
 *                         time: nanoseconds as seen by a weight-1024 thread,
 *                         0..SCHED_BVT_WARP_MAX.
 *  @sched_bvt_warp_limit: L, nanoseconds of real time a thread may run warped
 *                         before it loses its warp; 0 is unlimited, otherwise
 *                         SCHED_BVT_WARP_LIMIT_MIN..SCHED_BVT_TIME_MAX.
 *  @sched_bvt_unwarp:     U, nanoseconds of real time a thread must wait after
 *                         its warp ended before it may warp again,
 *                         0..SCHED_BVT_TIME_MAX.
 *
 * Callers passing an older, shorter struct sched_attr get all of these as 0:
 * weight from nice, no warp.  See Documentation/scheduler/sched-bvt.rst.
 */
#ifndef _UAPI_LINUX_SCHED_BVT_H
#define _UAPI_LINUX_SCHED_BVT_H

/* sched_bvt_flags */
#define SCHED_BVT_FLAG_WARP		0x01	/* warp enabled */
#define SCHED_BVT_FLAG_RESERVED		0x02	/* in the reserved-effort level */
#define SCHED_BVT_FLAGS_ALL		(SCHED_BVT_FLAG_WARP | \
					 SCHED_BVT_FLAG_RESERVED)

/* sched_bvt_weight */
#define SCHED_BVT_WEIGHT_NICE		0	/* derive from sched_nice */
#define SCHED_BVT_WEIGHT_MIN		1
#define SCHED_BVT_WEIGHT_DEFAULT	1024	/* weight of nice 0 */
#define SCHED_BVT_WEIGHT_MAX		88761	/* weight of nice -20 */

/* sched_bvt_warp, sched_bvt_warp_limit, sched_bvt_unwarp (nanoseconds) */
#define SCHED_BVT_WARP_MAX		10000000000LL	/* 10 s */
#define SCHED_BVT_WARP_LIMIT_MIN	10000ULL	/* 10 us */
#define SCHED_BVT_TIME_MAX		10000000000ULL	/* 10 s */

/*
 * sigaction(2) sa_flags: the thread a signal for this handler goes to runs
 * warped, with its own W, L and U, from the wake-up the signal causes until
 * it next blocks, even without SCHED_BVT_FLAG_WARP (it needs a non-zero W).
 * The bit is free on every architecture (see <asm-generic/signal-defs.h>);
 * a kernel without SCHED_BVT clears it, which sigaction() with
 * SA_UNSUPPORTED lets a program see.
 */
#define SA_BVT_WARP			0x00001000

#endif /* _UAPI_LINUX_SCHED_BVT_H */
