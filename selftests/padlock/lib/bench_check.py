#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate the JSON report of `padlock-bench all --quick`.

usage: bench_check.py REPORT.json PROC_CRYPTO_COPY [--expect-padlock]

Prints one line per problem and exits 1 when there is any; prints a short
summary and exits 0 otherwise.
"""
import json
import sys

SIZES = [16, 64, 256, 1024, 8192, 16384, 65536]
AFALG = [("ecb(aes)", 128), ("ecb(aes)", 256), ("cbc(aes)", 128), ("cbc(aes)", 256),
         ("ctr(aes)", 128), ("ctr(aes)", 256), ("xts(aes)", 256), ("xts(aes)", 512),
         ("sha1", 0), ("sha256", 0)]
DMCRYPT = [("aes-xts-plain64", 512), ("aes-cbc-essiv:sha256", 256)]
IPSEC = ["esp cbc(aes)+hmac(sha256)", "esp rfc3686(ctr(aes))+hmac(sha256)"]


def proc_drivers(path):
    drivers = set()
    with open(path) as f:
        for line in f:
            k, _, v = line.partition(":")
            if k.strip() == "driver":
                drivers.add(v.strip())
    return drivers


def main():
    report, proc = sys.argv[1], sys.argv[2]
    expect_padlock = "--expect-padlock" in sys.argv[3:]
    problems = []
    with open(report) as f:
        d = json.load(f)
    real = proc_drivers(proc)
    rows = d.get("rows", [])

    if d.get("complete") is not True:
        problems.append(f"the run did not complete: {d.get('error')}")
    for key in ("kernel", "cpu"):
        if not d.get(key):
            problems.append(f"report lacks '{key}'")

    groups = {}
    for r in rows:
        for key in ("kernel", "cpu", "algorithm", "driver", "priority"):
            if key not in r or r[key] in ("", None):
                problems.append(f"row without {key}: {r}")
        if r["driver"] not in real:
            problems.append(f"row driver {r['driver']!r} ({r['test']} {r['algorithm']}) "
                            "is not in /proc/crypto")
        if not isinstance(r.get("mbps_median"), (int, float)) or r["mbps_median"] <= 0:
            problems.append(f"row without a throughput: {r['test']} {r['algorithm']} "
                            f"{r['driver']} {r['op']} {r['size']}")
        groups.setdefault((r["test"], r["algorithm"], r["keybits"]), []).append(r)

    def drivers_of(g):
        return sorted({r["driver"] for r in g})

    # afalg: every algorithm, every driver, both directions, every size
    for alg, bits in AFALG:
        g = groups.get(("afalg", alg, bits))
        if not g:
            problems.append(f"afalg {alg} {bits}: no rows")
            continue
        ops = ["digest"] if bits == 0 else ["encrypt", "decrypt"]
        have = {(r["driver"], r["op"], r["size"]) for r in g}
        for drv in drivers_of(g):
            for op in ops:
                for s in SIZES:
                    if (drv, op, s) not in have:
                        problems.append(f"afalg {alg} {bits}: missing {drv} {op} {s}")
        if sum(1 for r in g if r["baseline"]) == 0:
            problems.append(f"afalg {alg} {bits}: no baseline row")
        # the correctness pre-check passed for every driver but the baseline
        for drv in drivers_of(g):
            if any(r["baseline"] for r in g if r["driver"] == drv):
                continue
            if not any(c["passed"] and c["test"] == "afalg" and c["algorithm"] == alg
                       and c["keybits"] == bits for c in d.get("checks", [])):
                problems.append(f"afalg {alg} {bits}: no passed check for {drv}")
    # dm-crypt: write/read at 4 KiB and 1 MiB, data verified
    for spec, bits in DMCRYPT:
        g = groups.get(("dmcrypt", spec, bits))
        if not g:
            problems.append(f"dmcrypt {spec}: no rows")
            continue
        have = {(r["driver"], r["op"], r["size"]) for r in g}
        for drv in drivers_of(g):
            for op in ("write", "read"):
                for s in (4096, 1048576):
                    if (drv, op, s) not in have:
                        problems.append(f"dmcrypt {spec}: missing {drv} {op} {s}")
        for r in g:
            if not r.get("verified"):
                problems.append(f"dmcrypt {spec} {r['driver']}: data not verified")
    # ipsec: tcp and udp for every driver, and ESP really carried the traffic
    for name in IPSEC:
        g = groups.get(("ipsec", name, 128))
        if not g:
            problems.append(f"ipsec {name}: no rows")
            continue
        for drv in drivers_of(g):
            ops = {r["op"] for r in g if r["driver"] == drv}
            if ops != {"tcp", "udp"}:
                problems.append(f"ipsec {name} {drv}: ops {sorted(ops)}")
        for r in g:
            if not r.get("esp_bytes"):
                problems.append(f"ipsec {name} {r['driver']}: no ESP bytes")
    if any(not c["passed"] for c in d.get("checks", [])):
        problems.append("a correctness check failed")

    padlock_rows = [r for r in rows if r["padlock"]]
    note = any("no PadLock driver" in n for n in d.get("notes", []))
    if expect_padlock:
        if not padlock_rows:
            problems.append("PadLock drivers were loaded but no row is a PadLock one")
        if not d.get("crossover"):
            problems.append("no crossover entry although PadLock drivers were measured")
    elif not padlock_rows and not note:
        problems.append("no PadLock driver and no note saying so")

    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"{len(rows)} rows, {len(d.get('checks', []))} checks, "
          f"{len(padlock_rows)} PadLock rows, path {d['meta'].get('afalg_path')}, "
          f"splice {d['meta'].get('afalg_splice')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
