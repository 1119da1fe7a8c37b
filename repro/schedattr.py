# SPDX-License-Identifier: GPL-2.0
"""sched_setattr(2) from Python, for every policy the experiments compare.

A policy is a dict, e.g. {"policy": "bvt", "warp_ms": 20}; apply(pid, p)
sets it on pid (0: the caller).  Keys: policy (other, fifo, rr, deadline,
bvt), nice, prio (fifo, rr), runtime_ms/deadline_ms/period_ms (deadline; runtime_ms
alone on "other" is 6.12's custom slice), weight, warp_ms, limit_ms,
unwarp_ms, reserved (bvt), reset_on_fork (any).
"""
import ctypes
import os

SYS_SCHED_SETATTR = 314  # x86_64
SCHED_OTHER, SCHED_FIFO, SCHED_RR, SCHED_DEADLINE, SCHED_BVT = 0, 1, 2, 6, 8
SCHED_BVT_FLAG_WARP, SCHED_BVT_FLAG_RESERVED = 0x1, 0x2
SCHED_FLAG_RESET_ON_FORK = 0x1
MS = 1000000


class SchedAttr(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_uint32),
        ("sched_policy", ctypes.c_uint32),
        ("sched_flags", ctypes.c_uint64),
        ("sched_nice", ctypes.c_int32),
        ("sched_priority", ctypes.c_uint32),
        ("sched_runtime", ctypes.c_uint64),
        ("sched_deadline", ctypes.c_uint64),
        ("sched_period", ctypes.c_uint64),
        ("sched_util_min", ctypes.c_uint32),
        ("sched_util_max", ctypes.c_uint32),
        ("sched_bvt_weight", ctypes.c_uint32),
        ("sched_bvt_flags", ctypes.c_uint32),
        ("sched_bvt_warp", ctypes.c_int64),
        ("sched_bvt_warp_limit", ctypes.c_uint64),
        ("sched_bvt_unwarp", ctypes.c_uint64),
    ]


assert ctypes.sizeof(SchedAttr) == 88  # SCHED_ATTR_SIZE_VER2

_libc = ctypes.CDLL(None, use_errno=True)


def attr_of(p):
    """The struct sched_attr for policy dict p."""
    a = SchedAttr(size=ctypes.sizeof(SchedAttr))
    kind = p.get("policy", "other")
    a.sched_nice = p.get("nice", 0)
    if p.get("reset_on_fork"):
        a.sched_flags |= SCHED_FLAG_RESET_ON_FORK
    if kind == "other":
        a.sched_policy = SCHED_OTHER
        a.sched_runtime = int(p.get("runtime_ms", 0) * MS)
    elif kind in ("fifo", "rr"):
        a.sched_policy = SCHED_FIFO if kind == "fifo" else SCHED_RR
        a.sched_priority = p.get("prio", 50)
        a.sched_nice = 0
    elif kind == "deadline":
        a.sched_policy = SCHED_DEADLINE
        a.sched_runtime = int(p["runtime_ms"] * MS)
        a.sched_deadline = int(p.get("deadline_ms", p["period_ms"]) * MS)
        a.sched_period = int(p["period_ms"] * MS)
        a.sched_nice = 0
    elif kind == "bvt":
        a.sched_policy = SCHED_BVT
        a.sched_bvt_weight = p.get("weight", 0)
        if p.get("warp_ms"):
            a.sched_bvt_flags |= SCHED_BVT_FLAG_WARP
            a.sched_bvt_warp = int(p["warp_ms"] * MS)
            a.sched_bvt_warp_limit = int(p.get("limit_ms", 0) * MS)
            a.sched_bvt_unwarp = int(p.get("unwarp_ms", 0) * MS)
        if p.get("reserved"):
            a.sched_bvt_flags |= SCHED_BVT_FLAG_RESERVED
    else:
        raise ValueError("unknown policy %r" % kind)
    return a


def apply(pid, p):
    """Set policy dict p on pid; raises OSError with the kernel's errno."""
    a = attr_of(p)
    if _libc.syscall(SYS_SCHED_SETATTR, pid, ctypes.byref(a), 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "sched_setattr(%s): %s" % (p, os.strerror(err)))


def preexec(p):
    """A subprocess preexec_fn that puts the child under policy dict p."""
    return lambda: apply(0, p)
