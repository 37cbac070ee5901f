#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Validate the JSON report of `padlock-bench all --quick` (or of one of its
tests: --tests names those the run measured, default all three).

usage: bench_check.py REPORT.json PROC_CRYPTO_COPY [--expect-padlock]
                      [--tests afalg,dmcrypt,ipsec]
       bench_check.py REPORT.json --projection --csv REPORT.csv --text STDOUT.txt
                      [--part afalg|window|all]

With --projection, the projected rows only, from the same run's JSON, CSV
and printed output: under padlock-sim every AF_ALG row with the simulator's cost
has a projected figure equal (within 0.5 %) to what tools/measure/project.py's
functions compute from the same CSV row, and the output shows the
"projected on" rows and the projected crossover; without the simulator,
nothing projected.  The dm-crypt and IPsec rows: under --icount each has a
projected figure equal to project.py's, PadLock's above the baseline's, and
an IPsec row with PadLock's HMAC has both xcrypt and xsha in its window;
without --icount none is projected and the output says why.

Prints one line per problem and exits 1 when there is any; prints a short
summary and exits 0 otherwise.
"""
import csv
import json
import os
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


def import_project():
    """tools/measure/project.py of the checkout, as a module"""
    top = os.environ.get("PADLOCK_TOP") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
    sys.path.insert(0, os.path.join(top, "tools", "measure"))
    import project          # noqa: E402 (tools/ is not a package)
    return project


def check_projection(d, csv_path, text_path, problems, part="all"):
    """the projected rows against tools/measure/project.py; returns a summary.
    part: afalg (the AF_ALG rows), window (dm-crypt and IPsec) or all"""
    with open(text_path) as f:
        text = f.read()
    with open(csv_path) as f:
        crows = list(csv.DictReader(f))
    jrows = [r for r in d.get("rows", []) if r["test"] == "afalg"]
    p = d.get("projection")
    if not d.get("sim_profile"):
        # real hardware (or no simulator): measurements only
        if p is not None:
            problems.append(f"a projection without padlock-sim: {p}")
        if any("projected_mbps" in r for r in d.get("rows", [])):
            problems.append("JSON rows have projected_mbps without padlock-sim")
        if any(r.get("projected_mbps") for r in crows):
            problems.append("CSV rows have projected_mbps without padlock-sim")
        if "projected on" in text or "projected" in text.lower():
            problems.append("the output mentions a projection without padlock-sim")
        return "no simulator: nothing projected"

    project = import_project()
    prof = d["sim_profile"].split()[0]
    model = p["model"] if p else project.MODEL
    cpus, _ = project.load_model(model)
    irq = cpus.pop("measurement", {}).get("irq_share", 0)
    sect = project.load_profiles(model).get(prof)
    if sect is None or sect not in cpus:
        # no model of this profile: nothing projected, and the output says why
        if p is not None:
            problems.append(f"profile {prof} has no model in {model} but padlock-bench "
                            f"projected onto {p.get('cpu')}")
        if "nothing is projected" not in text:
            problems.append(f"profile {prof}: no note that nothing is projected")
        return f"profile {prof}: no model, nothing projected"
    if p is None:
        problems.append(f"padlock-sim profile {prof} ([{sect}] in {model}): no projection "
                        "in the JSON report")
        return "no projection"
    cpu = cpus[sect]
    if p.get("cpu") != sect:
        problems.append(f"projected onto [{p.get('cpu')}], project.py picks [{sect}] "
                        f"for profile {prof}")
    icount = all(r.get("sim_icount") == "1" for r in crows if r.get("sim_ops"))
    label = (f"projected on {sect} at {cpu['clock_mhz'] / 1000:g} GHz (model"
             f"{'' if icount else '; not --icount'})")
    if p.get("label") != label:
        problems.append(f"projection label {p.get('label')!r}, expected {label!r}")

    if part == "window":
        return check_window(d, csv_path, text, project, cpu, irq, p, problems)

    # every AF_ALG row with the simulator's cost: a figure, equal to project.py's;
    # none (n/a) only where project.py's cycles are not positive, which needs
    # host-time readings (not --icount)
    n = worst = na = 0
    for r in project.bench_rows(csv_path, irq):
        what = f"{r['algorithm']} {r['keybits']} {r['op']} {r['driver']} {r['size']}"
        c = project.bench_project(cpu, r)
        want = project.mbps(cpu, r["size"], c) if c else None
        got = float(r["projected_mbps"]) if r.get("projected_mbps") else None
        n += 1
        if c is not None and c <= 0:
            na += 1
            if got is not None:
                problems.append(f"afalg {what}: projected {got} MB/s, tools/measure/project.py's "
                                f"cycles are {c:.6g} (not a time)")
            if icount:
                problems.append(f"afalg {what}: under --icount the projected cycles are "
                                f"{c:.6g}, not positive")
            continue
        if got is None:
            problems.append(f"afalg {what}: no projected figure" +
                            ("" if want else " (tools/measure/project.py has no model for it either)"))
        elif want is None:
            problems.append(f"afalg {what}: projected {got} MB/s, tools/measure/project.py: no model")
        elif abs(got - want) > 0.005 * abs(want):
            problems.append(f"afalg {what}: projected {got} MB/s, tools/measure/project.py "
                            f"{want:.6g} MB/s")
        else:
            worst = max(worst, abs(got - want) / abs(want))
    sim_rows = [r for r in jrows if r.get("sim")]
    if not n or not sim_rows:
        problems.append("under padlock-sim no AF_ALG row carries the simulator's cost")
    if len(sim_rows) != n:
        problems.append(f"{len(sim_rows)} JSON rows with sim data, {n} in the CSV")
    for r in sim_rows:
        if "projected_mbps" not in r or r.get("projected_cpu") != sect:
            problems.append(f"JSON row without a projection: {r['algorithm']} {r['keybits']} "
                            f"{r['op']} {r['driver']} {r['size']}")
    jn = sum(isinstance(r.get("projected_mbps"), (int, float)) for r in sim_rows)
    if jn != n - na:
        problems.append(f"{jn} JSON rows with a projected figure, {n - na} expected")
    # the text: a projected row under the driver rows, and the projected crossover
    nlabel = sum(1 for ln in text.splitlines() if ln.strip().startswith(label))
    drivers = {(r["test"], r["algorithm"], r["keybits"], r["op"], r["driver"])
               for r in d.get("rows", []) if r.get("sim")}
    if nlabel != len(drivers):
        problems.append(f"{nlabel} '{label}' rows in the output, {len(drivers)} drivers "
                        "with the simulator's cost")
    head = f"crossover (AF_ALG, {label}):"
    block = text.partition("\n" + head)[2].split("\n\n")[0].splitlines()[1:]
    xo = [x for x in d.get("crossover", []) if x["test"] == "afalg"]
    if head not in text:
        problems.append(f"no '{head}' block in the output")
    elif len(block) != len(xo) or not all(" vs " in ln for ln in block):
        problems.append(f"projected crossover block: {len(block)} lines, {len(xo)} "
                        "AF_ALG crossover entries")
    for x in xo:
        if "projected_from_size" not in x:
            problems.append(f"crossover {x['algorithm']} {x['keybits']} {x['op']}: "
                            "no projected_from_size")
    wsum = "" if part == "afalg" else \
        "; " + check_window(d, csv_path, text, project, cpu, irq, p, problems)
    return (f"{n - na} of {n} rows projected on [{sect}] ({na} n/a: not positive, not "
            f"--icount), largest difference to tools/measure/project.py {worst * 100:.3f} %, "
            f"{len(block)} projected crossover lines{wsum}")


def check_window(d, csv_path, text, project, cpu, irq, p, problems):
    """the dm-crypt and IPsec rows' projection; returns a summary"""
    rows = [r for r in d.get("rows", []) if r["test"] in ("dmcrypt", "ipsec")]
    if not rows:
        return "no dm-crypt or IPsec rows"
    names = {"dmcrypt": "dm-crypt", "ipsec": "IPsec"}
    tests = sorted({r["test"] for r in rows})
    if not p.get("icount"):
        # not instruction-exact: nothing projected, and the output says why
        if p.get("dmcrypt_ipsec") is not False or not p.get("dmcrypt_ipsec_why"):
            problems.append("without --icount the JSON projection does not say that dm-crypt "
                            f"and IPsec are not projected, and why: {p}")
        for r in rows:
            if r.get("sim") or r.get("projected_mbps") is not None:
                problems.append(f"{r['test']} {r['algorithm']} {r['driver']} {r['op']}: "
                                "projected (or a window recorded) without --icount")
        for t in tests:
            if f"Under padlock-sim {names[t]} is not projected onto the simulated CPU" \
                    not in text:
                problems.append(f"without --icount no note why {names[t]} is not projected")
        return "not --icount: dm-crypt and IPsec not projected, the reason stated"
    if p.get("dmcrypt_ipsec") is not True:
        problems.append(f"under --icount the JSON projection has dmcrypt_ipsec "
                        f"{p.get('dmcrypt_ipsec')!r}")
    for t in tests:
        if f"per {'fio I/O' if t == 'dmcrypt' else 'ESP packet'}, the machine's busy guest " \
                "instructions" not in text:
            problems.append(f"no note above the {names[t]} tables saying what the projected "
                            "rows are")
    want = {}
    for r in project.window_rows(csv_path, irq):
        key = (r["test"], r["algorithm"], r["keybits"], r["op"], r["driver"], r["size"])
        want[key] = (project.window_project(cpu, r), r)
    n = worst = 0
    got = {}
    for r in rows:
        key = (r["test"], r["algorithm"], r["keybits"], r["op"], r["driver"], r["size"])
        what = " ".join(str(k) for k in key)
        g = r.get("projected_mbps")
        if not r.get("sim"):
            problems.append(f"{what}: no window of the simulator under --icount")
            continue
        if key not in want:
            problems.append(f"{what}: not in the CSV's window rows")
            continue
        w = want[key][0]
        n += 1
        if not isinstance(g, (int, float)):
            problems.append(f"{what}: no projected figure (tools/measure/project.py: {w})")
        elif w is None:
            problems.append(f"{what}: projected {g} MB/s, tools/measure/project.py: none")
        elif abs(g - w) > 0.005 * abs(w):
            problems.append(f"{what}: projected {g} MB/s, tools/measure/project.py {w:.6g} MB/s")
        else:
            worst = max(worst, abs(g - w) / abs(w))
            got[key] = (g, r)
        # PadLock's HMAC with PadLock's cipher: both engine classes ran
        cls = r["sim"].get("classes", "")
        if r["test"] == "ipsec" and r["padlock"] and \
                "hmac-sha256-padlock" in r.get("esp_transform", "") and \
                not ("xcrypt-" in cls and "xsha256" in cls):
            problems.append(f"{what}: PadLock's cipher and HMAC, but the window's "
                            f"instructions are {cls!r}")
    # the model prices the engine far below the software AES and SHA: PadLock's
    # projected row above the baseline's, at every size of every table
    ratios = {}
    for key, (g, r) in got.items():
        if not r["padlock"]:
            continue
        base = [v for k, v in got.items() if k[:4] == key[:4] and k[5] == key[5] and
                v[1]["baseline"]]
        if not base:
            continue
        ratio = g / base[0][0]
        ratios.setdefault(key[0], []).append(ratio)
        if ratio <= 1:
            problems.append(f"{' '.join(str(k) for k in key)}: projected {g:.6g} MB/s, not "
                            f"above the baseline {base[0][1]['driver']}'s {base[0][0]:.6g}")
    for t in tests:
        if t not in ratios and any(r["padlock"] for r in rows if r["test"] == t):
            problems.append(f"{names[t]}: no PadLock row projected beside a baseline row")
    return (f"{n} dm-crypt/IPsec rows projected, largest difference to project.py "
            f"{worst * 100:.3f} %, PadLock over the baseline " +
            ", ".join(f"{names[t]} {min(v):.2f}x..{max(v):.2f}x" for t, v in sorted(ratios.items())))


def main_projection(report, args):
    opt = {k: args[i + 1] for i, k in enumerate(args[:-1])
           if k in ("--csv", "--text", "--part")}
    if "--csv" not in opt or "--text" not in opt:
        sys.exit("--projection needs --csv FILE and --text FILE")
    if opt.get("--part", "all") not in ("afalg", "window", "all"):
        sys.exit("--part is afalg, window or all")
    problems = []
    with open(report) as f:
        d = json.load(f)
    summary = check_projection(d, opt["--csv"], opt["--text"], problems,
                               opt.get("--part", "all"))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(summary)
    return 0


def main():
    if "--projection" in sys.argv[2:]:
        return main_projection(sys.argv[1], sys.argv[2:])
    report, proc = sys.argv[1], sys.argv[2]
    expect_padlock = "--expect-padlock" in sys.argv[3:]
    tests = {"afalg", "dmcrypt", "ipsec"}
    if "--tests" in sys.argv[3:-1]:
        tests = set(sys.argv[sys.argv.index("--tests") + 1].split(","))
        if not tests or tests - {"afalg", "dmcrypt", "ipsec"}:
            sys.exit("--tests is a comma-separated list of afalg, dmcrypt and ipsec")
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
    for alg, bits in AFALG if "afalg" in tests else []:
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
    for spec, bits in DMCRYPT if "dmcrypt" in tests else []:
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
    for name in IPSEC if "ipsec" in tests else []:
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
            # the SA's transform: the pinned cipher, and the HMAC that goes
            # with it (PadLock's with PadLock, none of PadLock's with the
            # baseline cipher)
            esp = r.get("esp_transform", "")
            if r["driver"] not in esp:
                problems.append(f"ipsec {name} {r['driver']}: the SAs got {esp!r}")
            if r["baseline"] and "padlock" in esp:
                problems.append(f"ipsec {name} baseline {r['driver']}: PadLock in {esp!r}")
            if r["padlock"] and "hmac-sha256-padlock" in real \
                    and "hmac-sha256-padlock" not in esp:
                problems.append(f"ipsec {name} {r['driver']}: HMAC not on PadLock in {esp!r}")
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
