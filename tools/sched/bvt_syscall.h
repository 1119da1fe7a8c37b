/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The system calls of SCHED_BVT, coop_poll(2) and bvt_ctl(2), for the
 * programs of tools/sched: their numbers, and whether the running kernel
 * has them.  The numbers are the ones free in Linux 6.12, which the series
 * is for; from 6.13 on, 463 and 464 are setxattrat(2) and getxattrat(2).
 * A program built here and run on a kernel without the class must not
 * call them: sched_bvt_present() says whether it may.  See
 * Documentation/scheduler/sched-bvt.rst, "System call numbers".
 */
#ifndef _TOOLS_SCHED_BVT_SYSCALL_H
#define _TOOLS_SCHED_BVT_SYSCALL_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Alpha's table is offset by 110 from the generic one. */
#ifdef __alpha__
#define SCHED_BVT_NR_BASE	573
#else
#define SCHED_BVT_NR_BASE	463
#endif
#ifndef __NR_coop_poll
#define __NR_coop_poll	SCHED_BVT_NR_BASE
#endif
#ifndef __NR_bvt_ctl
#define __NR_bvt_ctl	(SCHED_BVT_NR_BASE + 1)
#endif

/* Every kernel with the class has its sysctls. */
#define SCHED_BVT_SYSCTL	"/proc/sys/kernel/sched_bvt_allowance_ns"

/*
 * Does the running kernel have SCHED_BVT, and so these calls at these
 * numbers?  Looked at once.  If not, errno is ENOSYS.  Where /proc/sys is
 * not mounted or is masked (some containers), the class is not seen
 * there either: such a program says ENOSYS.
 */
static inline int sched_bvt_present(void)
{
	static int present = -1;

	if (present < 0)
		present = !access(SCHED_BVT_SYSCTL, F_OK);
	if (!present)
		errno = ENOSYS;
	return present;
}

#endif /* _TOOLS_SCHED_BVT_SYSCALL_H */
