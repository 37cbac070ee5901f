#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Project measured path lengths onto PadLock silicon.

The measurement (under `tools/testing/vm/run --icount`, where guest time counts
executed instructions) gives, per call, the guest instructions, the
simulator's share (padlock-sim's cost file: handler cycles + traps times the
calibrated trap entry/exit path) and the number of PadLock instructions.
The model (tools/padlock-bench/cpu-models.conf) turns that into time on a
CPU:

  cycles per call = path * cpi
                  + instructions * xcrypt_start + blocks * <mode>_block
  path = guest instructions - simulator's share

Input: the CSV of tools/measure/openssl-speed-icount.sh
  impl,mode,size,ops,guest_ns,traps,handler_cycles,trap_overhead_cycles
  [,popf_seen,violations,classes,cpu_ns]
(impl: software, padlock = OpenSSL's engine, provider = provider/; with
cpu_ns and two runs of a cell, a row's time is its process's CPU time less
the process's start-up, process_constants())

  tools/measure/project.py --measured M.csv [--cpu c3,c7-1000] # projected MB/s
  tools/measure/project.py --measured M.csv --fit              # solve the [fitted]
  tools/measure/project.py --measured M.csv --validate         # against [published]
  tools/measure/project.py --measured M.csv --speed [--cpu nano]
      # provider against engine, software and [published], cell by cell
  tools/measure/project.py --profile-cpu PROFILE               # its model section

or the CSV of padlock-bench run under padlock-sim (its afalg rows carry the
simulator's cost-file deltas around the timed repetitions):

  tools/measure/project.py --bench report.csv [--cpu SECTION] [--headline]

projects every AF_ALG row onto the simulated CPU (the profile's section,
[profiles] in the model) and prints it under the measured row, with the
crossover request size from the projection.  Kernel drivers: no
engine_call_adjust (that is for OpenSSL-engine measurements only).
Then the dm-crypt and IPsec rows (padlock-bench records them under --icount
only), each a window around one fio or iperf3 run less the window of the same
command for a single I/O or write: the whole machine's busy guest
instructions minus the simulator's share, per request (fio I/O, ESP packet),
plus the engine's cycles for every PadLock instruction of the window from
the simulator's counters (xcrypt and xsha together), in MB/s of disk I/O and
Mbit/s of iperf3 payload carried by ESP.
"""

import argparse
import configparser
import csv
import math
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(TOP, "tools", "padlock-bench", "cpu-models.conf")
KEYBITS_SCALE = {128: 1.0, 192: 1.2, 256: 1.4}


def load_model(path):
    cp = configparser.ConfigParser(comment_prefixes=("#",),
                                   inline_comment_prefixes=None)
    cp.read(path)
    cpus = {}
    published = []
    for s in cp.sections():
        if s == "published":
            for k, v in cp.items(s):
                # cpu.impl.mode.size = kB/s (1000 bytes)
                cpu, impl, mode, size = k.split(".")
                published.append((cpu, impl, mode, int(size), float(v)))
            continue
        if s == "profiles":
            continue            # padlock-sim profile -> CPU section: load_profiles()
        d = {"name": cp.get(s, "name", fallback=s)}
        for k, v in cp.items(s):
            if k != "name":
                d[k] = float(v)
        cpus[s] = d
    return cpus, published


def load_profiles(path):
    """{padlock-sim profile name: CPU section} from the [profiles] section"""
    cp = configparser.ConfigParser(comment_prefixes=("#",),
                                   inline_comment_prefixes=None)
    cp.read(path)
    return dict(cp.items("profiles")) if cp.has_section("profiles") else {}


def load_measured(paths, uprobe, irq=0.0):
    """{(impl, mode, size): per-call figures}; a later file's rows win"""
    rows = {}
    for path in paths:
        with open(path) as f:
            lines = [ln for ln in f
                     if ln.startswith(("impl,", "software,", "padlock,", "provider,"))]
        load_rows(csv.DictReader(lines), rows, uprobe, irq)
    return rows


def load_rows(reader, rows, uprobe, irq):
    runs = [r for r in reader if not int(r.get("violations") or 0)]
    # (the simulator refused an instruction: not a measurement)
    const = process_constants(runs)
    for r in runs:
        popf = int(r.get("popf_seen") or 0)
        ops = int(r["ops"])
        # speed stops at its alarm, after exactly the requested whole
        # seconds of guest time; it prints the time it read with 10 ms
        # resolution (0.3 % of a 3 s run, ~2,500 instructions per 8 KiB call)
        ns = int(r["guest_ns"])
        whole = round(ns / 1e9) * 1e9
        guest = (whole if whole and abs(ns - whole) <= 0.02 * whole else ns) / ops
        # the process's own cost outside the timed loop (start-up: OpenSSL's
        # DRBG, key generation), when measured
        c = const.get((r["impl"], r["mode"]), {})
        traps = int(r["traps"]) - c.get("traps", 0)
        sim = (int(r["handler_cycles"]) - c.get("handler", 0) +
               traps * int(r["trap_overhead_cycles"]) + popf * uprobe) / ops
        if "path" in c:
            # the process's CPU time less the simulator's share and less
            # its start-up's: the whole loop, however late the alarm that
            # ended it came
            guest = (path_total(r) - c["path"]) / ops + sim
        kinds = class_counts(r.get("classes") or "", 1)
        kinds = {k: (v - c.get(k, 0)) / ops for k, v in kinds.items()}
        size = int(r["size"])
        rows[(r["impl"], r["mode"], size)] = {
            # irq: the guest's own interrupts (timer ticks) that fell into
            # the simulator's time, a fixed share of it: not the driver's
            "guest": guest, "sim": sim, "path": guest - sim * (1 + irq),
            "insns": traps / ops, "blocks": math.ceil(size / 16),
            # a digest per call: whole 64-byte blocks with the padding
            "bytes": (size + 8) // 64 * 64 + 64, "ops": ops,
            "classes": kinds}
    return rows


def path_total(r):
    """the CPU time of a run's process less the simulator's share: its
    software path, start-up included.  Not the CPU time itself: the
    simulator's handler time per call depends on the data (the buffer that
    speed encrypts in place again and again), the path does not"""
    return (int(r["cpu_ns"]) - int(r["handler_cycles"]) -
            int(r["traps"]) * int(r["trap_overhead_cycles"]))


def process_constants(runs):
    """{(impl, mode): the simulator's cost outside the timed loop}.

    The cost file is read around the whole `openssl speed` process, whose
    start-up may run PadLock instructions too (OpenSSL's DRBG seeding
    through a padlock cipher, key generation): a fixed cost per process,
    which spread over the calls of a large size is more than the call's
    whole path.  Two runs of the same cell of different lengths (N1 and N2
    calls) solve it: constant = reading1 - N1 x (reading2 - reading1) /
    (N2 - N1), per cost-file figure and opcode class, and for the process's
    software path (path_total()): its start-up and exit."""
    out = {}
    cells = {}
    for r in runs:
        cells.setdefault((r["impl"], r["mode"], r["size"]), []).append(r)
    for (impl, mode, _), g in cells.items():
        if len(g) < 2 or (impl, mode) in out:
            continue
        r1, r2 = sorted(g, key=lambda r: int(r["ops"]))[:2]
        n1, n2 = int(r1["ops"]), int(r2["ops"])
        if n2 <= n1:
            continue

        def const(a, b):
            return a - n1 * (b - a) / (n2 - n1)
        c = {"traps": const(int(r1["traps"]), int(r2["traps"])),
             "handler": const(int(r1["handler_cycles"]), int(r2["handler_cycles"]))}
        if r1.get("cpu_ns") and r2.get("cpu_ns"):
            c["path"] = const(path_total(r1), path_total(r2))
        k1 = class_counts(r1.get("classes") or "", 1)
        k2 = class_counts(r2.get("classes") or "", 1)
        for k in set(k1) | set(k2):
            c[k] = const(k1.get(k, 0), k2.get(k, 0))
        out[(impl, mode)] = c
    return out


def class_counts(text, ops):
    """{opcode class: traps per call} of a "xcrypt-ecb:1754 ..." column"""
    out = {}
    for item in text.split():
        name, _, n = item.rpartition(":")
        out[name] = int(n) / ops
    return out


def engine_mode(m):
    """the row's PadLock mode by its busiest opcode class (xcrypt-ecb: ecb,
    xsha256: xsha256), or None: no PadLock instruction ran"""
    best = max(((n, c) for c, n in m.get("classes", {}).items()
                if c.startswith("xcrypt-") or c.startswith("xsha")), default=None)
    if best is None or best[0] < 0.5:
        return None
    c = best[1]
    return c[len("xcrypt-"):] if c.startswith("xcrypt-") else c


def cycles(cpu, impl, mode, m, bits=128, engine=True):
    """Projected cycles per call of one measured row on one CPU model.

    mode: an xcrypt mode (ecb, cbc, ...), or xsha1/xsha256 with m["bytes"]
    the bytes the engine hashes; engine=False for kernel drivers."""
    c = m["path"] * cpu["cpi"]
    if impl == "provider":
        # this project's OpenSSL provider: the engine's terms, priced by
        # the mode the simulator saw it use (GCM: xcrypt-ctr or -ecb; SHA-256:
        # xsha256), the OpenSSL-engine adjustment where it was fitted
        # (ECB and CBC calls of OpenSSL's speed loop, section 5)
        run = engine_mode(m)
        if run is None:
            return c
        return cycles(cpu, "padlock", run, m, bits,
                      engine and run in ("ecb", "cbc") and mode in ("ecb", "cbc"))
    if impl == "padlock" and mode.startswith("xsha"):
        per = cpu.get(f"{mode}_byte")
        if not per or "xsha_start" not in cpu:
            return None
        c += m["insns"] * cpu["xsha_start"] + m["bytes"] * per
    elif impl == "padlock":
        per = cpu.get(f"{mode}_block")
        if per is None:
            return None
        # engine_call_adjust: see cpu-models.conf (OpenSSL-engine rows)
        adj = cpu.get("engine_call_adjust", 0) if engine else 0
        c += m["insns"] * (cpu["xcrypt_start"] + adj)
        c += m["blocks"] * per * KEYBITS_SCALE[bits]
    return c


def mbps(cpu, size, cyc):
    return size * cpu["clock_mhz"] * 1e6 / cyc / 1e6


def cmd_project(cpus, meas, names):
    print("# projected throughput (MB/s, 10^6 bytes/s) from measured path "
          "lengths: a MODEL, not a measurement")
    print(f"# {'cpu':9} {'impl':8} {'mode':4} {'size':>6} {'path':>9} "
          f"{'insns':>5} {'cycles':>10} {'MB/s':>9}")
    for name in names:
        cpu = cpus[name]
        for (impl, mode, size), m in sorted(meas.items()):
            c = cycles(cpu, impl, mode, m)
            if c is None:
                continue
            print(f"  {name:9} {impl:8} {mode:4} {size:6d} {m['path']:9.0f} "
                  f"{m['insns']:5.2f} {c:10.0f} {mbps(cpu, size, c):9.2f}")
        # the crossover: the smallest measured size where PadLock wins
        for mode in sorted({k[1] for k in meas}):
            sizes = sorted(k[2] for k in meas if k[0] == "padlock" and k[1] == mode)
            win = [n for n in sizes if ("software", mode, n) in meas and
                   cycles(cpu, "padlock", mode, meas[("padlock", mode, n)]) is not None and
                   cycles(cpu, "padlock", mode, meas[("padlock", mode, n)]) <
                   cycles(cpu, "software", mode, meas[("software", mode, n)])]
            print(f"  {name:9} {mode}: PadLock faster from "
                  f"{win[0] if win else 'never'} bytes (of {sizes})")


# ---- padlock-bench's CSV (--bench) ------------------------------------------

def size_str(n):
    if n >= 1024 and n % 1024 == 0:
        return f"{n // 1024} KiB"
    return f"{n} B"


def bench_engine(r):
    """(mode, trap count) of the row's busiest PadLock opcode class, or None"""
    best = None
    for item in (r.get("sim_classes") or "").split():
        name, _, n = item.rpartition(":")
        if name.startswith("xcrypt-"):
            mode = name[len("xcrypt-"):]
        elif name in ("xsha1", "xsha256"):
            mode = name
        else:
            continue
        if best is None or int(n) > best[1]:
            best = (mode, int(n))
    return best


def bench_rows(path, irq):
    """padlock-bench's afalg rows that carry the simulator's cost deltas"""
    out = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["test"] != "afalg" or not r.get("sim_ops"):
                continue
            ops = float(r["sim_ops"])
            traps = int(r["sim_traps"])
            size = int(r["size"])
            guest = float(r["sim_ns"]) / ops
            sim = (int(r["sim_handler_cycles"]) +
                   traps * int(r["sim_trap_overhead_cycles"])) / ops
            m = {"guest": guest, "sim": sim, "path": guest - sim * (1 + irq),
                 "insns": traps / ops, "blocks": math.ceil(size / 16),
                 # SHA-1/-2 pad to whole 64-byte blocks (8-byte length + 0x80)
                 "bytes": (size + 8) // 64 * 64 + 64}
            r["m"] = m
            r["size"] = size
            r["keybits"] = int(r["keybits"] or 0)
            out.append(r)
    return out


def window_rows(path, irq):
    """padlock-bench's dmcrypt and ipsec rows that carry a window's figures"""
    out = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r["test"] not in ("dmcrypt", "ipsec") or not r.get("sim_ops"):
                continue
            ops = float(r["sim_ops"])
            traps = int(r["sim_traps"])
            sim = (int(r["sim_handler_cycles"]) +
                   traps * int(r["sim_trap_overhead_cycles"])) / ops
            r["m"] = {"path": float(r["sim_ns"]) / ops - sim * (1 + irq),
                      "bytes": float(r["sim_bytes"]) / ops}
            r["size"] = int(r["size"])
            r["keybits"] = int(r["keybits"] or 0)
            out.append(r)
    return out


def window_engine(cpu, r):
    """engine cycles of every PadLock instruction of a dm-crypt or IPsec window
    (None: no model).  The simulator counts AES blocks and hashed bytes for
    all modes together: priced at the slowest mode and hash that ran; the RNG
    (xstore) is not the workload's."""
    xtraps = straps = 0
    blk = byte = 0.0
    for item in (r.get("sim_classes") or "").split():
        name, _, n = item.rpartition(":")
        if name in ("xstore", "rep-xstore"):
            continue
        if name.startswith("xcrypt-"):
            per = cpu.get(f"{name[len('xcrypt-'):]}_block")
            if per is None:
                return None
            xtraps += int(n)
            blk = max(blk, per)
        elif name in ("xsha1", "xsha256"):
            per = cpu.get(f"{name}_byte")
            if not per:
                return None
            straps += int(n)
            byte = max(byte, per)
        else:
            return None
    if (xtraps and "xcrypt_start" not in cpu) or (straps and "xsha_start" not in cpu):
        return None
    bits = r["keybits"]
    if r["algorithm"].startswith("aes-xts"):
        bits //= 2                  # two keys; the data key's rounds count
    return (xtraps * cpu.get("xcrypt_start", 0) +
            int(r["sim_aes_blocks"]) * blk * KEYBITS_SCALE.get(bits, 1.0) +
            straps * cpu.get("xsha_start", 0) + int(r["sim_sha_bytes"]) * byte)


def window_project(cpu, r):
    """projected MB/s of one dm-crypt or IPsec row; None: no model, or the
    cycles are not positive (not a time)"""
    e = window_engine(cpu, r)
    if e is None:
        return None
    c = r["m"]["path"] * cpu["cpi"] + e / float(r["sim_ops"])
    return r["m"]["bytes"] * cpu["clock_mhz"] / c if c > 0 else None


def bench_project(cpu, r):
    """projected cycles per request of one padlock-bench row (None: no model)"""
    m = r["m"]
    if r["padlock"] != "1":
        return cycles(cpu, "software", "", m)
    eng = bench_engine(r)
    if eng is None:
        return None
    mode = eng[0]
    bits = r["keybits"]
    if r["algorithm"].startswith("xts("):
        bits //= 2                  # two keys; the data key's rounds count
        m = dict(m, blocks=m["blocks"] + 1)     # + the tweak's encryption
    return cycles(cpu, "padlock", mode, m, bits if bits in KEYBITS_SCALE else 128,
                  engine=False)


def bench_tables(rows, project, plabel, headline, scale=1.0):
    """the tables of one test: measured and projected rows per driver, speed-up
    over the baseline (headline: projected rows only); the projected crossover
    lines.  project(r) gives a row's projected MB/s or None; scale turns MB/s
    into the unit shown."""
    groups = {}
    for r in rows:
        groups.setdefault((r["algorithm"], r["keybits"], r["op"]), []).append(r)
    xovers = []
    for (alg, bits, op), g in groups.items():
        if headline and op == "decrypt":
            continue
        sizes = sorted({r["size"] for r in g})
        drivers = []
        for r in g:
            if r["driver"] not in drivers:
                drivers.append(r["driver"])
        by = {(r["driver"], r["size"]): r for r in g}
        title = f"{alg}{f' {bits}-bit' if bits else ''} {op}"
        w = 46
        print(f"\n{title:{w}}" + "".join(f"{size_str(n):>10}" for n in sizes))
        proj = {}
        for d in drivers:
            for n in sizes:
                r = by.get((d, n))
                p = project(r) if r else None
                proj[(d, n)] = None if p is None else p * scale
            cells = "".join(
                f"{proj[(d, n)]:10.{2 if proj[(d, n)] < 10 else 1}f}"
                if proj[(d, n)] is not None else f"{'no model':>10}" for n in sizes)
            if headline:
                print(f"  {d:{w - 2}}{cells}")
                continue
            print(f"  {d}")
            print(f"    {'measured (guest time)':{w - 4}}" + "".join(
                f"{float(by[(d, n)]['mbps_median']) * scale:10.2f}" if (d, n) in by else
                f"{'-':>10}" for n in sizes))
            print(f"    {plabel:{w - 4}}{cells}")
        base = [d for d in drivers if by.get((d, sizes[0]), {}).get("baseline") == "1"]
        for d in drivers:
            if not headline or not base or d == base[0]:
                continue
            print(f"  {'speed-up vs ' + base[0]:{w - 2}}" + "".join(
                f"{proj[(d, n)] / proj[(base[0], n)]:9.2f}x"
                if proj[(d, n)] and proj.get((base[0], n)) else f"{'-':>10}"
                for n in sizes))
        for d in drivers:
            if not base or d == base[0] or by[(d, sizes[0])]["padlock"] != "1":
                continue
            frm = None
            for n in reversed(sizes):
                p, b = proj.get((d, n)), proj.get((base[0], n))
                if p is None or b is None or p <= b:
                    break
                frm = n
            if any(proj[(d, n)] is None for n in sizes):
                what = "no model"
            elif frm is None:
                what = "never (not at the largest size tested)"
            else:
                what = f"from {size_str(frm)}" + (" (every size tested)"
                                                   if frm == sizes[0] else "")
            xovers.append(f"  {title}: {d} vs {base[0]}: {what}")
    return xovers


def cmd_bench(cpus, profiles, path, irq, cpu_name, headline):
    rows = bench_rows(path, irq)
    wrows = window_rows(path, irq)
    if not rows and not wrows:
        sys.exit(f"{path}: no rows with the simulator's cost (padlock-bench "
                 "--csv FILE, run under padlock-sim)")
    first = (rows or wrows)[0]
    prof = (first.get("sim_profile") or "").split()
    prof = prof[0] if prof else "?"
    if cpu_name is None:
        cpu_name = profiles.get(prof)
        if cpu_name is None or cpu_name not in cpus:
            print(f"padlock-sim profile {prof}: no model for profile {prof} in "
                  f"{os.path.relpath(MODEL, TOP)} (--cpu SECTION projects onto one)")
            return
    if cpu_name not in cpus:
        sys.exit(f"no CPU '{cpu_name}' in the model: {', '.join(cpus)}")
    cpu = cpus[cpu_name]
    clock = f"{cpu['clock_mhz'] / 1000:g} GHz"
    if profiles.get(prof) != cpu_name:
        print(f"note: --cpu {cpu_name} is not the simulated CPU (profile {prof}): the "
              "software paths were measured on another profile's code")
    icount = all(r.get("sim_icount") == "1" for r in rows + wrows)
    label = "(model)" if icount else \
        "(model; guest time not instruction-exact: run under --icount)"
    plabel = f"projected on {cpu_name} at {clock} " + ("(model)" if icount else "(model; not --icount)")
    if rows:
        print(f"AF_ALG projected on {cpu['name']} at {clock} {label}")
        print(f"  measured under padlock-sim profile {prof} (kernel {first['kernel']}); "
              f"model {os.path.relpath(MODEL, TOP)} [{cpu_name}]")
        print("  measured: MB/s of guest time; under --icount 1 MB/s = one byte per 1,000 "
              "guest instructions, the PadLock rows timing the simulator")
        print(f"  projected: the same request's software path (guest time minus the "
              f"simulator's share) at {cpu['cpi']:g} cycles per instruction plus the "
              f"engine's modelled cycles, at {clock}; MB = 10^6 bytes")

        def afalg(r):
            c = bench_project(cpu, r)
            return None if c is None else mbps(cpu, r["size"], c)
        xovers = bench_tables(rows, afalg, plabel, headline)
        print(f"\ncrossover (AF_ALG, projected on {cpu_name} {label}): smallest "
              "request size from which the PadLock driver beats the baseline")
        print("\n".join(xovers))
    for test, what, unit, scale in (
            ("dmcrypt", "dm-crypt", "MB/s of disk I/O (fio on a RAM disk, direct I/O; "
             "4 KiB random, 1 MiB sequential)", 1.0),
            ("ipsec", "IPsec", "Mbit/s of iperf3 payload carried by ESP (transport mode "
             "over veth; tcp, udp)", 8.0)):
        g = [r for r in wrows if r["test"] == test]
        if not g:
            continue
        print(f"\n{what} projected on {cpu['name']} at {clock} {label}: {unit}")
        if not headline:
            print(f"  projected: per {'fio I/O' if test == 'dmcrypt' else 'ESP packet'}, the "
                  "machine's busy guest instructions minus the simulator's share at "
                  f"{cpu['cpi']:g} cycles per instruction, plus the engine's modelled cycles "
                  "for every PadLock instruction that ran (xcrypt and xsha)")
        bench_tables(g, lambda r: window_project(cpu, r), plabel, headline, scale)


def cmd_brief(cpus, profiles, path, speed, irq):
    """make demo's screen: per test, one line per algorithm (and operation),
    the baseline driver's projected figure -> the PadLock driver's, on the
    simulated profile's CPU; then openssl speed's software -> provider from
    the CSV of tools/measure/openssl-speed-icount.sh (speed, or None)"""
    rows = bench_rows(path, irq) if path else []
    wrows = window_rows(path, irq) if path else []
    first = (rows or wrows or [{}])[0]
    prof = ((first.get("sim_profile") or "").split() or ["?"])[0]
    name = profiles.get(prof)
    if name not in cpus:
        print(f"padlock-sim profile {prof}: no model in {os.path.relpath(MODEL, TOP)}")
        return
    cpu = cpus[name]
    if not all(r.get("sim_icount") == "1" for r in rows + wrows):
        print("not run under --icount: no projection")
        return
    print(f"PROJECTED onto a {cpu['name']}: a MODEL, not a measurement.  The software\n"
          "path counted in guest instructions, less the simulator's share, plus the engine's "
          "cycles\n"
          f"from {os.path.relpath(MODEL, TOP)} [{name}] (docs/performance.md 5, 6).\n"
          "Each cell: the generic driver -> the PadLock driver.")

    def num(v):
        return "-" if v is None else f"{v:.{2 if v < 10 else 1 if v < 1000 else 0}f}"

    def size(n):
        return f"{n // 1048576} MiB" if n >= 1048576 and n % 1048576 == 0 else size_str(n)

    def table(title, g, project, rowkey, colkey, colname, rowname):
        cols = sorted({colkey(r) for r in g})
        keys = []
        for r in g:
            if rowkey(r) not in keys:
                keys.append(rowkey(r))
        print(f"{title:36}" + "".join(f"{colname(c):>17}" for c in cols))
        for k in keys:
            line = f"  {rowname(k):34}"
            for c in cols:
                here = [r for r in g if rowkey(r) == k and colkey(r) == c]
                b = next((r for r in here if r["baseline"] == "1"), None)
                p = next((r for r in here if r["padlock"] == "1" and r["baseline"] != "1"), None)
                pair = num(project(b) if b else None) + " -> " + num(project(p) if p else None)
                line += f"{pair:>17}"
            print(line)

    def bits(k):
        return f" {k[1]}-bit" if k[1] else ""

    def afalg(r):
        c = bench_project(cpu, r)
        return None if c is None else mbps(cpu, r["size"], c)
    g = [r for r in rows if r["op"] != "decrypt"]
    if g:
        table("AF_ALG encrypt or digest, MB/s", g, afalg,
              lambda r: (r["algorithm"], r["keybits"]), lambda r: r["size"],
              size, lambda k: f"{k[0]}{bits(k)}")
    g = [r for r in wrows if r["test"] == "dmcrypt"]
    if g:
        table("dm-crypt/LUKS (fio), MB/s", g, lambda r: window_project(cpu, r),
              lambda r: (r["algorithm"], r["keybits"], r["op"]), lambda r: r["size"],
              lambda n: size(n) + (" random" if n <= 4096 else " seq."),
              lambda k: f"{k[0]}{bits(k)} {k[2]}")
    g = [r for r in wrows if r["test"] == "ipsec"]
    if g:
        table("IPsec ESP, AES+HMAC, Mbit/s", g,
              lambda r: (lambda v: None if v is None else v * 8)(window_project(cpu, r)),
              lambda r: (r["algorithm"].removeprefix("esp "), r["keybits"]),
              lambda r: (r["op"], r["size"]), lambda c: f"{c[0]} {size(c[1])}",
              lambda k: k[0])
    if speed:
        meas = load_measured([speed], 0, 0.0)
        time_shares(meas)
        sizes = sorted({k[2] for k in meas})
        print(f"{'openssl speed -evp, MB/s':36}" + "".join(f"{size(n):>17}" for n in sizes))
        for mode in sorted({k[1] for k in meas}, key=lambda m: (m.startswith("sha"), m)):
            proj = {}
            for (i, m_, n), m in meas.items():
                if m_ == mode:
                    c = cycles(cpu, i, mode, m)
                    proj[(i, n)] = mbps(cpu, n, c) if c else None
            alg = mode if mode.startswith("sha") else "aes-128-" + mode
            print(f"  {alg + ' (default -> padlock)':34}" + "".join(
                f"{num(proj.get(('software', n))) + ' -> ' + num(proj.get(('provider', n))):>17}"
                for n in sizes))


def published_cycles(cpu, size, kbps):
    """cycles per call of a published kB/s figure (OpenSSL: 1 kB = 1000 B)"""
    return size * cpu["clock_mhz"] * 1e6 / (kbps * 1000)


def cmd_fit(cpus, pub, meas, small):
    """Solve the [fitted] constants of the c3 section from the fit rows."""
    c3 = cpus["c3"]
    p = {(i, m, n): v for cpu, i, m, n, v in pub if cpu == "c3"}
    # cpi: software ECB, 8 KiB
    n = 8192
    cpi = published_cycles(c3, n, p[("software", "ecb", n)]) / \
        meas[("software", "ecb", n)]["path"]
    print(f"cpi = {cpi:.4f}   (software ecb {n} B)")
    # start, ecb_block: PadLock ECB, 16 B and 8 KiB
    eq = []
    for n in (small, 8192):
        m = meas[("padlock", "ecb", n)]
        rest = published_cycles(c3, n, p[("padlock", "ecb", n)]) - m["path"] * cpi
        eq.append((m["insns"], m["blocks"], rest))
    (a1, b1, r1), (a2, b2, r2) = eq
    det = a1 * b2 - a2 * b1
    start = (r1 * b2 - r2 * b1) / det
    ecb = (a1 * r2 - a2 * r1) / det
    print(f"xcrypt_start + engine_call_adjust = {start:.2f}   ecb_block = {ecb:.3f}"
          f"   (padlock ecb {small} B and 8192 B)")
    print(f"engine_call_adjust = {start - c3['xcrypt_start']:.2f}   (with the "
          f"assumed xcrypt_start {c3['xcrypt_start']:g})")
    n = 8192
    m = meas[("padlock", "cbc", n)]
    cbc = (published_cycles(c3, n, p[("padlock", "cbc", n)]) - m["path"] * cpi -
           m["insns"] * start) / m["blocks"]
    print(f"cbc_block = {cbc:.3f}   (padlock cbc {n} B)")


def cmd_validate(cpus, pub, meas, fitted):
    print("| CPU | impl | mode | size | published MB/s | projected MB/s | error | |")
    print("|---|---|---|---:|---:|---:|---:|---|")
    errs = []
    for cpu_name, impl, mode, n, kbps in pub:
        if cpu_name not in cpus:
            continue
        cpu = cpus[cpu_name]
        m = meas.get((impl, mode, n))
        note = "fitted" if f"{cpu_name}.{impl}.{mode}.{n}" in fitted else "check"
        if impl == "xsha256":
            # no measured path: the [fitted] start + per-byte line itself
            c = cpu["xsha_start"] + n * cpu["xsha256_byte"]
        elif m is None:
            # not measured at that size (C7's published figure is for large
            # buffers): the largest measured size of the same row
            sizes = [k[2] for k in meas if k[:2] == (impl, mode)]
            if not sizes:
                continue        # not measured at all (e.g. no software rows)
            big = max(sizes)
            m = meas[(impl, mode, big)]
            c = cycles(cpu, impl, mode, m) * n / big
            note += f" (from {big} B)"
        else:
            c = cycles(cpu, impl, mode, m)
        proj = mbps(cpu, n, c)
        pubm = kbps / 1000
        err = (proj - pubm) / pubm * 100
        if note.startswith("check"):
            errs.append(abs(err))
        print(f"| {cpu_name} | {impl} | {mode} | {n} | {pubm:,.2f} | {proj:,.2f} | "
              f"{err:+.1f} % | {note} |")
    if errs:
        errs.sort()
        print(f"\nchecked (not fitted) figures: {len(errs)}, |error| median "
              f"{errs[len(errs) // 2]:.1f} %, max {errs[-1]:.1f} %, within 25 %: "
              f"{sum(e <= 25 for e in errs)}/{len(errs)}")


def time_shares(meas):
    """Per impl and mode: the share of the simulator's time that shows up
    in the path (least squares of path against simulator's share over the
    measured sizes), removed from the rows in place.  The PadLock code
    paths measured here (ECB, CBC, SHA-256; not GCM, whose GHASH is
    software per byte) do the same per call at every size (aligned
    buffers), so what grows with the call's duration is not the caller's: the guest's timer ticks and kernel work that land beside
    a handler running 1.7 ms per 16 KiB call, 190 times its time on
    silicon.  [measurement] irq_share is the same correction with one
    constant, fitted on the engine's ECB rows of one run."""
    out = {}
    for key in sorted({k[:2] for k in meas}):
        if key[0] == "software" or key[1] == "gcm":
            continue        # no simulator, or software work per byte (GHASH)
        pts = [(m["sim"], m["path"]) for k, m in meas.items() if k[:2] == key]
        if len(pts) < 3:
            continue
        n = len(pts)
        mx = sum(x for x, _ in pts) / n
        my = sum(y for _, y in pts) / n
        sxx = sum((x - mx) ** 2 for x, _ in pts)
        b = sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else 0.0
        b = max(b, 0.0)
        out[key] = b
        for k, m in meas.items():
            if k[:2] == key:
                m["path"] -= b * m["sim"]
    return out


def cmd_speed(cpus, pub, meas, name):
    """openssl speed through the provider against the engine, OpenSSL's
    software and the published table, cell by cell, on one CPU model"""
    cpu = cpus[name]
    p = {(i, m, n): v / 1000 for c, i, m, n, v in pub if c == name}
    label = {"software": "software", "padlock": "engine", "provider": "provider"}
    for mode in sorted({k[1] for k in meas}):
        impls = [i for i in ("software", "padlock", "provider")
                 if any(k[:2] == (i, mode) for k in meas)]
        sizes = sorted({k[2] for k in meas if k[1] == mode})
        pubs = [i for i in ("software", "padlock") if any((i, mode, n) in p for n in sizes)]
        print(f"\n{name} ({cpu['name']}), {mode}: MB/s (10^6 B/s) projected; "
              "path = guest instructions per call less the simulator's share")
        head = ["size"]
        for i in pubs:
            head.append(f"published {label[i]}")
        for i in impls:
            head += [f"{label[i]} path", f"{label[i]} MB/s"]
            if i in pubs:
                head.append(f"{label[i]} vs published")
        if "provider" in impls:
            head += ["provider runs"]
            if "padlock" in pubs:
                head.append("provider vs published")
            for i in ("padlock", "software"):
                if i in impls:
                    head.append(f"provider / {label[i]}")
        print("| " + " | ".join(head) + " |")
        print("|" + "---:|" * len(head))
        for n in sizes:
            row = [str(n)]
            proj = {}
            for i in pubs:
                row.append(f"{p[(i, mode, n)]:,.2f}" if (i, mode, n) in p else "-")
            for i in impls:
                m = meas.get((i, mode, n))
                c = cycles(cpu, i, mode, m) if m else None
                proj[i] = mbps(cpu, n, c) if c else None
                row += [f"{m['path']:,.0f}" if m else "-",
                        f"{proj[i]:,.2f}" if proj[i] else "-"]
                if i in pubs:
                    row.append(f"{(proj[i] / p[(i, mode, n)] - 1) * 100:+.1f} %"
                               if proj[i] and (i, mode, n) in p else "-")
            if "provider" in impls:
                m = meas.get(("provider", mode, n))
                run = " ".join(f"{c}:{v:.2f}" for c, v in sorted(m["classes"].items())
                               if round(v, 2)) if m else ""
                row.append(run or "software")
                if "padlock" in pubs:
                    q = p.get(("padlock", mode, n))
                    row.append(f"{(proj['provider'] / q - 1) * 100:+.1f} %"
                               if proj["provider"] and q else "-")
                for i in ("padlock", "software"):
                    if i in impls:
                        row.append(f"{proj['provider'] / proj[i]:.2f}x"
                                   if proj["provider"] and proj[i] else "-")
            print("| " + " | ".join(row) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default=MODEL)
    ap.add_argument("--bench", metavar="CSV",
                    help="padlock-bench's --csv output, run under padlock-sim")
    ap.add_argument("--headline", action="store_true",
                    help="with --bench: the projected rows only, encrypt and digest")
    ap.add_argument("--brief", action="store_true",
                    help="with --bench (and --measured): make demo's screen, the "
                    "baseline's projected figure -> PadLock's, one line each")
    ap.add_argument("--measured", action="append",
                    help="CSV of tools/measure/openssl-speed-icount.sh (repeatable: "
                    "a later file's rows replace an earlier one's)")
    ap.add_argument("--uprobe-cost", type=float, default=0,
                    help="guest instructions of one user_popf uprobe hit, "
                    "counted in the simulator's share (default 0)")
    ap.add_argument("--irq-share", type=float, default=None,
                    help="guest interrupt instructions per instruction of "
                    "simulation (default: [measurement] irq_share of the model)")
    ap.add_argument("--cpu", default=None, help="CPU sections, comma-separated "
                    "(default c3; with --bench the simulated profile's)")
    ap.add_argument("--profile-cpu", metavar="PROFILE",
                    help="print the model's CPU section for a padlock-sim profile "
                    "([profiles]) and exit; exit status 1 if it has none")
    ap.add_argument("--fit", action="store_true")
    ap.add_argument("--validate", action="store_true")
    ap.add_argument("--speed", action="store_true",
                    help="with --measured: the provider against the engine, "
                    "software and the published figures, cell by cell (--cpu: "
                    "one CPU, default c3)")
    ap.add_argument("--fit-small", type=int, default=64,
                    help="the small PadLock ECB row of the fit (default 64: "
                    "the published 16-byte call costs more cycles than the "
                    "64-byte one, which no per-call + per-block model can be)")
    a = ap.parse_args()
    cpus, pub = load_model(a.model)
    irq = cpus.pop("measurement", {}).get("irq_share", 0)
    if a.irq_share is not None:
        irq = a.irq_share
    if a.profile_cpu:
        cpu = load_profiles(a.model).get(a.profile_cpu)
        if cpu is None:
            sys.exit(1)
        print(cpu)
        return
    if a.brief:
        cmd_brief(cpus, load_profiles(a.model), a.bench, (a.measured or [None])[-1], irq)
        return
    if a.bench:
        cmd_bench(cpus, load_profiles(a.model), a.bench, irq, a.cpu, a.headline)
        return
    if not a.measured:
        ap.error("--measured or --bench is required")
    if a.fit:
        raw = load_measured(a.measured, a.uprobe_cost)
        e16, e8k = raw[("padlock", "ecb", a.fit_small)], raw[("padlock", "ecb", 8192)]
        irq = (e8k["path"] - e16["path"]) / (e8k["sim"] - e16["sim"])
        print(f"irq_share = {irq:.6f}   (padlock ecb {a.fit_small} B and 8192 B: path growth "
              "per instruction of simulation)")
    meas = load_measured(a.measured, a.uprobe_cost, irq)
    fitted = {"c3.software.ecb.8192", f"c3.padlock.ecb.{a.fit_small}", "c3.padlock.ecb.8192",
              "c3.padlock.cbc.8192", "kx7000.xsha256.sha256.64",
              "kx7000.xsha256.sha256.16384"}
    if a.fit:
        cmd_fit(cpus, pub, meas, a.fit_small)
    elif a.validate:
        cmd_validate(cpus, pub, meas, fitted)
    elif a.speed:
        meas = load_measured(a.measured, a.uprobe_cost, 0.0)
        shares = time_shares(meas)
        print("# per-time share removed from each impl and mode's path (least squares of "
              "path against the simulator's share over the sizes): " +
              (", ".join(f"{i} {m} {b * 100:.4f} %" for (i, m), b in sorted(shares.items()))
               or "none (PadLock ECB, CBC or SHA rows at three sizes or more needed)"))
        for n in (a.cpu or "c3").split(","):
            if n not in cpus:
                sys.exit(f"no CPU '{n}' in {a.model}: {', '.join(cpus)}")
            cmd_speed(cpus, pub, meas, n)
    else:
        names = (a.cpu or "c3").split(",")
        for n in names:
            if n not in cpus:
                sys.exit(f"no CPU '{n}' in {a.model}: {', '.join(cpus)}")
        cmd_project(cpus, meas, names)


if __name__ == "__main__":
    main()
