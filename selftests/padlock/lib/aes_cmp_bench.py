#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""AF_ALG workloads of aes-compare.sh, with the data placed the same way for
every driver and every run.

usage: aes_cmp_bench.py DRIVER MODE COUNT SIZE...

For each SIZE: COUNT one-shot encryptions through skcipher DRIVER (ecb or cbc,
AES-128).  The input is sent with sendmsg (the kernel copies it into pages of
its own); the output is received into a page-aligned buffer of this process,
which the kernel maps for the request.  Where the output lies decides how the
request is cut at page ends, so a buffer from the allocator (whose offset in
its page depends on the process's history) would give each driver a different
workload.  Prints "size,requests,us_per_request,xcrypt_instructions,aes_blocks"
from the CPU model's counters: padlock-sim's, or on the project's QEMU
(PADLOCK_CPU_MODEL=qemu) its counter MSRs through tools/testing/qemu/padlock-msr.
"""
import mmap
import os
import socket
import subprocess
import sys
import time

from aes_afalg import SIM, sim_reset


def counters():
    c = {}
    try:
        with open(f"{SIM}/counters") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = model_counters()
    for line in lines:
        k, v = line.split()[:2]
        c[k.rstrip(":")] = int(v)
    return c


def model_counters():
    """The QEMU model's counters, summed over the CPUs, as "NAME VALUE"
    lines under padlock-sim's names (its xcrypt_blocks are aes_blocks)."""
    if os.environ.get("PADLOCK_CPU_MODEL") != "qemu":
        return []
    msr = os.path.join(os.environ.get("PADLOCK_TOP", ""), "tools/testing/qemu/padlock-msr")
    try:
        out = subprocess.run([msr], capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    return [line.replace("xcrypt_blocks", "aes_blocks", 1) for line in out.splitlines()
            if len(line.split()) == 2]


def xcrypt(c):
    return sum(v for k, v in c.items() if k.startswith("xcrypt_"))


def one(tfm, src, dst, n, iv):
    op, _ = tfm.accept()
    op.settimeout(30)
    try:
        kw = {"op": socket.ALG_OP_ENCRYPT}
        if iv is not None:
            kw["iv"] = iv
        op.sendmsg_afalg([src[:n]], **kw)
        got = 0
        while got < n:
            r = op.recv_into(dst[got:n])
            if r <= 0:
                break
            got += r
        if got != n:
            raise OSError(f"short read: {got} of {n} bytes")
    finally:
        op.close()


def main():
    name, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sizes = [int(x) for x in sys.argv[4:]]
    tfm = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    tfm.bind(("skcipher", name))
    tfm.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, os.urandom(16))
    iv = None if mode == "ecb" else os.urandom(16)
    # anonymous mappings start on a page boundary
    size = max(sizes)
    src_map = mmap.mmap(-1, size)
    dst_map = mmap.mmap(-1, size)
    src, dst = memoryview(src_map), memoryview(dst_map)
    for n in sizes:
        src[:n] = os.urandom(n)
        one(tfm, src, dst, n, iv)       # warm up
        sim_reset()
        c0 = counters()
        t0 = time.perf_counter()
        for _ in range(count):
            one(tfm, src, dst, n, iv)
        el = time.perf_counter() - t0
        c1 = counters()
        print(f"{n},{count},{el / count * 1e6:.1f},{xcrypt(c1) - xcrypt(c0)},"
              f"{c1.get('aes_blocks', 0) - c0.get('aes_blocks', 0)}")
        sys.stdout.flush()
    src.release()
    dst.release()
    src_map.close()
    dst_map.close()
    tfm.close()


if __name__ == "__main__":
    main()
