"""Run a command the way the unit's RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 would: a seccomp filter.

`python tests/sandbox.py CMD ARGS...`: socket() of any other family (netlink, packet) fails with
EAFNOSUPPORT, as under systemd; the filter holds across exec, so CMD and its children live with it.
"""
from __future__ import annotations

import ctypes
import os
import platform
import struct
import sys

# audit architecture and socket()'s syscall number
ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
ALLOWED = (1, 2, 10)  # AF_UNIX, AF_INET, AF_INET6
EAFNOSUPPORT = 97
LD, JEQ, RET = 0x20, 0x15, 0x06      # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K
ALLOW, ERRNO = 0x7FFF0000, 0x00050000


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def supported() -> bool:
    return sys.platform == "linux" and platform.machine() in ARCHES


def restrict_address_families(allowed=ALLOWED) -> None:
    arch, nr = ARCHES[platform.machine()]
    n = len(allowed)
    insns = [(LD, 0, 0, 4), (JEQ, 1, 0, arch), (RET, 0, 0, ALLOW),
             (LD, 0, 0, 0), (JEQ, 0, n + 2, nr),
             (LD, 0, 0, 16)]                       # args[0]: the address family
    insns += [(JEQ, n - k, 0, family) for k, family in enumerate(allowed)]
    insns += [(RET, 0, 0, ERRNO | EAFNOSUPPORT), (RET, 0, 0, ALLOW)]
    raw = ctypes.create_string_buffer(b"".join(struct.pack("HBBI", *i) for i in insns))
    prog = _Prog(len(insns), ctypes.cast(raw, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(38, 1, 0, 0, 0) != 0:                                  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if libc.prctl(22, 2, ctypes.byref(prog), 0, 0) != 0:                  # PR_SET_SECCOMP, FILTER
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")


if __name__ == "__main__":
    restrict_address_families()
    os.execvp(sys.argv[1], sys.argv[1:])
