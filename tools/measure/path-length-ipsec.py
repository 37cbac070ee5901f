#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest time and simulator's share per IPsec packet.

Called by tools/measure/path-length-dmcrypt-ipsec.sh once the ESP SAs between the
network namespaces pl-a (10.77.1.1) and pl-b (10.77.1.2) are up.  This
process enters pl-a and sends UDP datagrams of SIZE bytes of payload to
pl-b, where a receiver (a child in pl-b) reads them; the loop is timed
from the first send to the receiver's report that it has read them all.
On the one-vCPU icount guest each packet is encrypted once (pl-a's
output) and decrypted once (pl-b's input) inside that window.

  path-length-ipsec.py LABEL DRIVER COUNT SIZE
prints one line: LABEL DRIVER dir size count guest/pkt idle/pkt sim/pkt
path/pkt traps/pkt (guest instructions under --icount; idle = guest time
minus the time tasks ran, /proc/schedstat; path = guest - idle - sim).

With PL_PERF=DIR in the environment it also records a perf profile of the
timed window (every PL_PERF_PERIOD guest instructions, default 10,000, all
CPUs, call chains) and writes its reports, made while the row's modules are
still loaded so that their symbols resolve, to DIR/ipsec-LABEL.{self,children,graph}.txt
(the window then also holds perf's own work: read the profile, not the row).
  path-length-ipsec.py --perf-report DATA OUT UNITS
writes those reports for a perf.data file (the dm-crypt windows of
path-length-dmcrypt-ipsec.sh).  Each starts with "# units N period P": a
symbol's samples x P / N are its guest instructions per unit.
"""

import ctypes
import importlib.util
import os
import socket
import subprocess
import sys
import time

CLONE_NEWNET = 0x40000000
WARM = 8
PORT = 5001

RECEIVER = r"""
import socket, sys
n = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 1 << 23)    # SO_RCVBUFFORCE
s.bind(("10.77.1.2", %d))
s.settimeout(120)    # a profiled run (PL_PERF) starts perf after the warm-up
print("ready", flush=True)
buf = bytearray(65536)
got = 0
try:
    while got < n:
        s.recv_into(buf)
        got += 1
        if got == %d:
            print("warm", flush=True)
except OSError:
    pass
print("done", got, flush=True)
sys.stdin.readline()    # exit only after the parent's last reading
""" % (PORT, WARM)


def _path_length():
    """tools/measure/path-length.py as a module (its name has a hyphen)."""
    spec = importlib.util.spec_from_file_location(
        "path_length", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "path-length.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


PL = _path_length()


def read_cost():
    """The simulator's cost (tools/measure/path-length.py) and the busy time."""
    traps, cycles, over = PL.read_cost()
    busy = 0
    with open("/proc/schedstat") as f:
        for line in f:
            if line.startswith("cpu"):
                busy += int(line.split()[7])
    return traps, cycles, over, busy


def perf_start(name):
    """perf record of every CPU into /tmp/pl-NAME.data, or None.  It starts
    disabled, and perf_control(p, "enable") turns it on through its control
    FIFO once it runs, so that its own start-up stays out of the window."""
    if not os.environ.get("PL_PERF"):
        return None
    ctl, ack = "/tmp/pl-ctl", "/tmp/pl-ack"
    for f in (ctl, ack):
        if os.path.exists(f):
            os.unlink(f)
        os.mkfifo(f)
    p = subprocess.Popen(["perf", "record", "-q", "-a", "-g", "-e", "cpu-clock",
                          "-c", os.environ.get("PL_PERF_PERIOD", "10000"),
                          "-D", "-1", "--control", f"fifo:{ctl},{ack}",
                          "-o", f"/tmp/pl-{name}.data"])
    p.ctl = open(ctl, "w")
    p.ack = open(ack)
    return p


def perf_control(p, cmd):
    if p is None:
        return
    p.ctl.write(cmd + "\n")
    p.ctl.flush()
    p.ack.readline()


def perf_report(data, out, units):
    """The reports of a perf.data file, per symbol: self and children."""
    period = os.environ.get("PL_PERF_PERIOD", "10000")
    for kind, flag in (("self", "--no-children"), ("children", "--children")):
        r = subprocess.run(["perf", "report", "-i", data, flag, "-n", "--sort",
                            "sym", "--stdio", "-g", "none"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        with open(f"{out}.{kind}.txt", "w") as f:
            f.write(f"# units {units} period {period}\n")
            f.writelines(line + "\n" for line in r.stdout.splitlines()
                         if line.strip() and not line.startswith("#"))
    # the call chains into each symbol above 1 % of the samples
    with open(f"{out}.graph.txt", "w") as f:
        subprocess.run(["perf", "report", "-i", data, "--no-children",
                        "--sort", "sym", "--stdio", "--percent-limit", "1",
                        "-g", "caller,0.5,callee,function,percent"],
                       stdout=f, stderr=subprocess.DEVNULL, text=True)


def perf_stop(p, name, units):
    if p is None:
        return
    perf_control(p, "disable")
    p.ctl.close()
    p.ack.close()
    p.send_signal(2)
    p.wait()
    for f in ("/tmp/pl-ctl", "/tmp/pl-ack"):
        os.unlink(f)
    perf_report(f"/tmp/pl-{name}.data",
                os.path.join(os.environ["PL_PERF"], name), units)


def main():
    if sys.argv[1] == "--perf-report":
        perf_report(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    label, driver, count, size = sys.argv[1], sys.argv[2], \
        int(sys.argv[3]), int(sys.argv[4])
    # before the receiver: the receiver's time-out does not wait for it
    perf = perf_start(f"ipsec-{label}")
    rx = subprocess.Popen(["ip", "netns", "exec", "pl-b", "python3", "-c",
                           RECEIVER, str(WARM + count)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True)
    if rx.stdout.readline().strip() != "ready":
        sys.exit(f"# {label}: receiver did not start")
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open("/var/run/netns/pl-a", os.O_RDONLY)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        sys.exit(f"# {label}: setns pl-a: {os.strerror(ctypes.get_errno())}")
    os.close(fd)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect(("10.77.1.2", PORT))
    data = os.urandom(size)
    for _ in range(WARM):           # ARP, SA and route lookups, caches
        s.send(data)
    if rx.stdout.readline().strip() != "warm":
        sys.exit(f"# {label}: warm-up packets lost")
    # a short sleep makes this task leave the CPU, so that schedstat has
    # accounted its run time up to here (it does so when a task departs);
    # the receiver waits for our last reading before it exits
    perf_control(perf, "enable")
    time.sleep(0.001)
    c0 = read_cost()
    t0 = time.perf_counter_ns()
    for _ in range(count):
        s.send(data)
    done = rx.stdout.readline().split()
    el = time.perf_counter_ns() - t0
    time.sleep(0.001)
    c1 = read_cost()
    perf_stop(perf, f"ipsec-{label}", count)
    rx.stdin.close()
    rx.wait()
    got = int(done[1]) - WARM if len(done) > 1 else -1
    traps = c1[0] - c0[0]
    sim = (c1[1] - c0[1]) + traps * c1[2]
    idle = el - (c1[3] - c0[3])
    note = "" if got == count else f"  # LOST: received {got} of {count}"
    print(f"ipsec   {label:10} {driver:40} both  {size:6} {count:5} "
          f"{el / count:11.0f} {idle / count:9.0f} {sim / count:11.0f} "
          f"{(el - idle - sim) / count:11.0f} "
          f"{traps / count:7.2f}{note}", flush=True)


if __name__ == "__main__":
    main()
