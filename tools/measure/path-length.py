#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Software path length per AF_ALG request (docs/performance.md).

Runs in a guest booted with `tools/testing/vm/run --icount`, where guest time is
executed instructions (1 ns each).  For each driver of ecb(aes) it sends N
one-shot encryptions of each size through one AF_ALG operation socket and
reads padlock-sim's cost file before and after:

  guest      guest time per request (perf_counter_ns: instructions)
  sim        the simulator's share: handler cycles of the traps plus
             traps * trap_overhead_cycles (the calibrated entry/exit path)
  path       guest - sim: what the request cost the driver, the kernel,
             AF_ALG and this Python loop (the same for every driver; the
             ecb(cipher_null) row shows that floor)

Drivers: ecb(cipher_null) (floor), the generic AES, ours (ecb-aes-padlock from
PADLOCK_KO_DIR) and the kernel's own padlock_aes (also ecb-aes-padlock, so
ours is unloaded first).  Usage (in the guest, as root):
  tools/measure/path-length.py [--count N] [--sizes 16,4096,65536] [--offset B]
Every driver gets the same buffers (page-aligned mmaps, B bytes in).
With PL_PERF=DIR (and perf in the guest) each timed loop is also profiled,
as tools/measure/path-length-ipsec.py does for its windows: DIR/LABEL-OP-SIZE
.self.txt, .children.txt and .graph.txt, one unit per request.
"""

import argparse
import mmap
import os
import socket
import subprocess
import sys
import time

SIM = "/sys/kernel/debug/padlock-sim"


def sh(*cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True).returncode == 0


def read_cost():
    """(traps, handler cycles, trap overhead) summed over the opcodes."""
    traps = cycles = over = 0
    try:
        with open(f"{SIM}/cost") as f:
            for line in f:
                w = line.split()
                if w[0] == "trap_overhead_cycles":
                    over = int(w[1])
                else:
                    traps += int(w[1])
                    cycles += int(w[2])
    except OSError:
        pass
    return traps, cycles, over


def _perf():
    """path-length-ipsec.py's perf helpers, when PL_PERF asks for profiles."""
    if not os.environ.get("PL_PERF"):
        return None
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "path_length_ipsec", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                          "path-length-ipsec.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    os.makedirs(os.environ["PL_PERF"], exist_ok=True)
    return mod


def drivers_of(cra_name):
    out, cur = [], {}
    with open("/proc/crypto") as f:
        for line in f.read().split("\n") + [""]:
            if not line.strip():
                if cur.get("name") == cra_name:
                    out.append(cur.get("driver"))
                cur = {}
                continue
            k, _, v = line.partition(":")
            cur[k.strip()] = v.strip()
    return out


def kprobe_hits():
    """Hit counts of the kprobe events defined in the guest (kprobe_profile):
    with them, each row also prints how often each probed function ran per
    request (the probes' own cost then lies inside the timed loop)."""
    hits = {}
    try:
        with open("/sys/kernel/tracing/kprobe_profile") as f:
            for line in f:
                w = line.split()
                hits[w[0]] = int(w[1])
    except OSError:
        pass
    return hits


BUFFERS = {}
OFFSET = 0


def buffers(n):
    """The input and output of every request of size @n, the same for every
    driver: the AF_ALG walk steps at page boundaries of the output, so
    where the buffers lie decides how many steps a request takes, and
    buffers allocated afresh per driver make drivers differ by placement.
    Both start OFFSET bytes into a page (--offset)."""
    if n not in BUFFERS:
        pages = (OFFSET + n + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        src = mmap.mmap(-1, pages * mmap.PAGESIZE)
        dst = mmap.mmap(-1, pages * mmap.PAGESIZE)
        src[OFFSET:OFFSET + n] = os.urandom(n)
        BUFFERS[n] = (memoryview(src)[OFFSET:OFFSET + n],
                      memoryview(dst)[OFFSET:OFFSET + n])
    return BUFFERS[n]


def measure(label, name, key, sizes, count, dec=False):
    t = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    try:
        t.bind(("skcipher", name))
    except OSError as e:
        print(f"# {label}: cannot bind {name}: {e}")
        return
    t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
    op, _ = t.accept()
    opc = socket.ALG_OP_DECRYPT if dec else socket.ALG_OP_ENCRYPT
    for n in sizes:
        data, buf = buffers(n)

        def once():
            op.sendmsg_afalg([data], op=opc)
            got = 0
            view = memoryview(buf)
            while got < n:
                r = op.recv_into(view[got:])
                if r <= 0:
                    raise OSError("short read")
                got += r

        for _ in range(3):
            once()                  # warm up
        pm = _perf()
        pname = f"{label}-{'dec' if dec else 'enc'}-{n}"
        perf = pm.perf_start(pname) if pm else None
        if pm:
            pm.perf_control(perf, "enable")
        k0 = kprobe_hits()
        c0 = read_cost()
        t0 = time.perf_counter_ns()
        for _ in range(count):
            once()
        el = time.perf_counter_ns() - t0
        c1 = read_cost()
        k1 = kprobe_hits()
        if pm:
            pm.perf_stop(perf, pname, count)
        traps = c1[0] - c0[0]
        sim = (c1[1] - c0[1]) + traps * c1[2]
        print(f"{label:8} {name:24} {'dec' if dec else 'enc'} "
              f"{n:6} {count:5} {el / count:11.0f} "
              f"{sim / count:11.0f} {(el - sim) / count:11.0f} "
              f"{traps / count:7.2f}")
        for probe, hits in k1.items():
            print(f"#   {label} {n} {probe}: {(hits - k0.get(probe, 0)) / count:.2f} per request")
        sys.stdout.flush()
    op.close()
    t.close()


def both(label, name, key, sizes, a):
    if label not in a.rows:
        return
    measure(label, name, key, sizes, a.count)
    if a.decrypt:
        measure(label, name, key, sizes, a.count, dec=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--sizes", default="16,4096,65536")
    ap.add_argument("--decrypt", action="store_true",
                    help="also measure decryption")
    ap.add_argument("--rows", default="floor,generic,ours,in-tree",
                    help="which rows to measure")
    ap.add_argument("--offset", type=int, default=0,
                    help="bytes into a page where the buffers start")
    a = ap.parse_args()
    global OFFSET
    OFFSET = a.offset
    a.rows = a.rows.split(",")
    sizes = [int(s) for s in a.sizes.split(",")]
    key = bytes(range(16))
    kodir = os.environ.get("PADLOCK_KO_DIR", "")
    sim = "/sys/kernel/debug/padlock-sim"

    for m in ("af_alg", "algif_skcipher"):
        sh("modprobe", m)
    # the trap's entry/exit path: measured once by padlock-simtest
    if sh("insmod", f"{kodir}/padlock-simtest.ko") or \
            os.path.isdir("/sys/kernel/debug/padlock-simtest"):
        try:
            with open("/sys/kernel/debug/padlock-simtest/calibrate") as f:
                f.read()
        except OSError as e:
            print(f"# trap overhead not calibrated: {e}")
        sh("rmmod", "padlock_simtest")
    print(f"# kernel {os.uname().release}, profile "
          f"{os.environ.get('PADLOCK_PROFILE', '?')}, "
          f"icount {os.environ.get('PADLOCK_ICOUNT', '0')}, "
          f"trap_overhead_cycles {read_cost()[2]}")
    print(f"# {'what':8} {'driver':24} op  {'size':>6} {'reqs':>5} "
          f"{'guest_ns':>11} {'sim_ns':>11} {'path_ns':>11} "
          f"{'traps':>7}")

    if "floor" in a.rows:
        measure("floor", "ecb(cipher_null)", b"", sizes, a.count)
    gen = "ecb(aes-generic)"
    for d in drivers_of("ecb(aes)") + ["ecb(aes-generic)", "ecb(aes-lib)"]:
        if d and "generic" in d or d and "aes-lib" in d:
            gen = d
            break
    both("generic", gen, key, sizes, a)

    sh("rmmod", "padlock_aes")
    deps = subprocess.run(["modinfo", "-F", "depends",
                           f"{kodir}/padlock-aes.ko"],
                          stdout=subprocess.PIPE, text=True).stdout.strip()
    for d in filter(None, deps.split(",")):
        sh("modprobe", d)
    if sh("insmod", f"{kodir}/padlock-aes.ko"):
        both("ours", "ecb-aes-padlock", key, sizes, a)
        sh("rmmod", "padlock_aes")
    else:
        print("# ours: insmod padlock-aes.ko failed")

    # the in-tree driver keeps live values in rAX across xcrypt-ecb
    # (selftests/padlock/sim-intree.sh): no rAX clobber for it
    # (no simulator under --cpu-model qemu: the CPU executes the instructions)
    clobber = None
    if os.path.exists(f"{sim}/clobber"):
        with open(f"{sim}/clobber") as f:
            clobber = int(f.read())
        with open(f"{sim}/clobber", "w") as f:
            f.write(str(clobber & ~1))
    if sh("modprobe", "padlock_aes"):
        both("in-tree", "ecb-aes-padlock", key, sizes, a)
        sh("rmmod", "padlock_aes")
    else:
        print("# in-tree: modprobe padlock_aes failed")
    if clobber is not None:
        with open(f"{sim}/clobber", "w") as f:
            f.write(str(clobber))


if __name__ == "__main__":
    main()
