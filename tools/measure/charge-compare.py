#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The QEMU model's charged engine time against tools/measure/project.py.

Three padlock-bench --csv files of the same AF_ALG requests, all under
--icount (tools/measure/charge-check.sh makes them):

  --sim      run under padlock-sim: project.py --bench projects each row
             (software path at the model's cpi, plus the engine's cycles)
  --plain    run on the project's QEMU without charging: guest time is the
             software path, 1 ns per instruction (the PadLock instruction
             itself counts as one)
  --charged  the same on the project's QEMU with --charge CPU: the guest
             clock also advances by the engine's modelled time

Per request, for each PadLock row (the generic rows, with no engine, show
what charging leaves alone):

  engine     charged - plain, in ns: the engine time QEMU charged, against
             project.py's engine cycles at the model's clock
  projection plain * cpi / clock + (charged - plain) against project.py's
             projection of the simulator's row (the paths differ by what
             each model's PadLock instruction costs in guest code)
  guest      the charged run's own figure (what padlock-bench in the guest
             prints: the software path at 1 ns per instruction, not at the
             model's cpi and clock)
"""

import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import project  # noqa: E402  (tools/measure/project.py)


def key(r):
    return (r["algorithm"], int(r["keybits"] or 0), r["op"], r["driver"],
            int(r["size"]))


def afalg(path):
    with open(path) as f:
        return {key(r): r for r in csv.DictReader(f) if r["test"] == "afalg"}


def ns_per_request(r):
    """guest ns per request from the row's median MB/s (10^6 bytes/s)"""
    return int(r["size"]) * 1000.0 / float(r["mbps_median"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cpu", required=True, help="section of cpu-models.conf")
    ap.add_argument("--sim", required=True)
    ap.add_argument("--plain", required=True)
    ap.add_argument("--charged", required=True)
    a = ap.parse_args()

    cpus, _ = project.load_model(project.MODEL)
    irq = cpus.pop("measurement", {}).get("irq_share", 0)
    cpu = cpus[a.cpu]
    clock, cpi = cpu["clock_mhz"], cpu["cpi"]
    sim = {key(r): r for r in project.bench_rows(a.sim, irq)}
    plain, charged = afalg(a.plain), afalg(a.charged)

    print(f"# charged engine time on [{a.cpu}] ({clock:g} MHz, cpi {cpi:g}) against "
          "project.py, ns per request")
    print(f"# {'algorithm':16} {'bits':>4} {'op':7} {'driver':22} {'size':>6} {'plain':>9} "
          f"{'charged':>9} {'engine':>9} {'proj.py':>9} {'diff':>7} "
          f"{'projection':>10} {'proj.py':>9} {'diff':>7} {'guest':>9}")
    worst = 0.0
    for k in sorted(charged, key=lambda k: (k[3], k[0], k[2], k[4])):
        if k not in plain:
            continue
        c, p = charged[k], plain[k]
        t1, t0 = ns_per_request(c), ns_per_request(p)
        eng = t1 - t0
        mine = t0 * cpi * 1000 / clock + eng
        s = sim.get(k)
        line = (f"  {k[0]:16} {k[1]:4d} {k[2]:7} {k[3]:22} {k[4]:6d} {t0:9.0f} {t1:9.0f} "
                f"{eng:9.1f}")
        if c["padlock"] == "1" and s is not None:
            cyc = project.bench_project(cpu, s)
            if cyc is None:
                print(line + "  (no model for this row)")
                continue
            e_proj = (cyc - s["m"]["path"] * cpi) * 1000 / clock
            t_proj = cyc * 1000 / clock
            de = 100 * (eng - e_proj) / e_proj if e_proj else 0.0
            dt = 100 * (mine - t_proj) / t_proj
            worst = max(worst, abs(de))
            line += (f" {e_proj:9.1f} {de:+6.1f}% {mine:10.0f} {t_proj:9.0f} "
                     f"{dt:+6.1f}% {t1:9.0f}")
        else:
            line += f" {'-':>9} {'-':>7} {mine:10.0f}"
        print(line)
    print(f"# largest engine-time difference on a PadLock row: {worst:.1f} %")


if __name__ == "__main__":
    main()
