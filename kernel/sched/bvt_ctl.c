// SPDX-License-Identifier: GPL-2.0
/*
 * bvt_ctl(2): the system call of the SCHED_BVT mechanisms that a thread
 * asks for by name, CPU reservations and time constraints (bvt_rsv.c) and
 * QAS reservation sets (qas.c).  Each operation goes to its mechanism; one
 * that is not built in fails with EOPNOTSUPP.  Its structs are extensible
 * as sched_attr is: the first u32 is the size the caller knows, fields it
 * does not know are zero in, and out goes what it has room for.
 */
#include <linux/syscalls.h>
#include <linux/uaccess.h>

#ifdef CONFIG_SCHED_BVT_RSV
/* Read the caller's struct, of at least @min bytes, into @arg. */
static int bvt_ctl_copy_in(void *arg, size_t ksize, const void __user *uarg,
			   u32 *usize, u32 min)
{
	if (!uarg)
		return -EFAULT;
	if (get_user(*usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (*usize < min)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(arg, ksize, uarg, *usize);
}

/* Write @arg as far as the caller's struct, of @usize bytes, goes. */
static int bvt_ctl_copy_out(void __user *uarg, void *arg, u32 usize,
			    size_t ksize)
{
	u32 size = min_t(u32, usize, ksize);

	*(u32 *)arg = size;
	return copy_to_user(uarg, arg, size) ? -EFAULT : 0;
}
#endif /* CONFIG_SCHED_BVT_RSV */

SYSCALL_DEFINE4(bvt_ctl, unsigned int, op, pid_t, pid, void __user *, uarg,
		unsigned int, flags)
{
	if (flags || pid < 0)
		return -EINVAL;
	switch (op) {
	case BVT_CTL_RESERVE:
	case BVT_CTL_RELEASE:
	case BVT_CTL_GET_RSV:
		return bvt_ctl_rsv(op, pid, uarg);
	case BVT_CTL_TC_BEGIN:
	case BVT_CTL_TC_END:
		return bvt_ctl_tc(op, pid, uarg);
	case BVT_CTL_QAS_PERIOD ... BVT_CTL_QAS_GET:
		return bvt_ctl_qas(op, pid, uarg);
	}
	return -EINVAL;
}
