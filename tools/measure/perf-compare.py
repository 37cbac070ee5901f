#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where two profiled windows differ, in guest instructions per unit.

Reads two reports written by tools/measure/path-length-ipsec.py under
PL_PERF (NAME.self.txt or NAME.children.txt: "# units N period P", then
perf's per-symbol lines with sample counts) and prints, per symbol, its
guest instructions per unit (packet or sector) in A and in B and B - A,
largest differences first.  Under --icount a sample every P ns is a sample
every P guest instructions while the vCPU runs.

  perf-compare.py A.self.txt B.self.txt [--match REGEX] [--top N]
"""

import argparse
import re

LINE = re.compile(r"\s*[\d.]+%\s+(?:[\d.]+%\s+)?(\d+)\s+\[(.)\]\s+(\S+)")


def load(path):
    per = {}
    units = period = 1
    with open(path) as f:
        for line in f:
            if line.startswith("# units"):
                w = line.split()
                units, period = int(w[2]), int(w[4])
                continue
            m = LINE.match(line)
            if m:
                per[m.group(3)] = per.get(m.group(3), 0) + int(m.group(1))
    return {k: v * period / units for k, v in per.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--match", help="only symbols matching this regex")
    ap.add_argument("--top", type=int, default=40)
    a = ap.parse_args()
    x, y = load(a.a), load(a.b)
    keys = set(x) | set(y)
    if a.match:
        keys = {k for k in keys if re.search(a.match, k)}
    rows = sorted(keys, key=lambda k: -abs(y.get(k, 0) - x.get(k, 0)))
    print(f"# {'symbol':44} {'A':>10} {'B':>10} {'B - A':>10}  (instructions per unit)")
    for k in rows[:a.top]:
        print(f"{k:46} {x.get(k, 0):10.0f} {y.get(k, 0):10.0f} "
              f"{y.get(k, 0) - x.get(k, 0):10.0f}")
    print(f"# {'total':44} {sum(x.values()):10.0f} {sum(y.values()):10.0f} "
          f"{sum(y.values()) - sum(x.values()):10.0f}")


if __name__ == "__main__":
    main()
