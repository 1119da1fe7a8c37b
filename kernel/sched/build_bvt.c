// SPDX-License-Identifier: GPL-2.0
/*
 * SCHED_BVT and the mechanisms on it, built as one unit, as build_policy.c
 * builds rt.c and deadline.c: the mechanisms use the class's small static
 * helpers (a thread's entity, the walks up its levels, the queue of a
 * level), which the class's own hot paths want inlined, while the class
 * calls a mechanism only through the ops of its levels and the hooks that
 * bvt.h declares, empty when the mechanism's option is off.
 */
#include "bvt.c"
#include "bvt_ctl.c"

#ifdef CONFIG_SCHED_BVT_COOP
#include "coop_poll.c"
#endif

#ifdef CONFIG_SCHED_BVT_PBS
#include "pbs.c"
#endif

#ifdef CONFIG_SCHED_BVT_RSV
#include "bvt_rsv.c"
#endif

#ifdef CONFIG_SCHED_BVT_QAS
#include "qas.c"
#endif

#ifdef CONFIG_SCHED_BVT_KUNIT_TEST
#include "bvt_test.c"
#endif
