#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""AF_ALG hash checks for padlock-sha (standard library only).

usage: sha_afalg.py COMMAND ALG DRIVER [ARGS]
  cavp ALG DRIVER MONTE_CHECKPOINTS   NIST CAVP Short/Long/Monte via DRIVER
  diff ALG DRIVER COUNT MAXLEN        random messages and update splits,
                                      mid-stream clones (export/import),
                                      against the generic driver
  hmac ALG DRIVER COUNT               the hmac driver DRIVER against Python's
                                      hmac and the kernel's own hmac(ALG):
                                      keys of every length class, empty and
                                      block-boundary messages, update splits,
                                      export/import mid-stream
  digests ALG DRIVER SIZE COUNT       COUNT digests of SIZE bytes (for the
                                      instruction counters); prints seconds
  quick ALG DRIVER COUNT MAXLEN       CAVP ShortMsg, then diff with COUNT
                                      messages (one short run, e.g. under a
                                      simulator knob)
  generic ALG                         print the generic driver's name

With PADLOCK_AFALG_PIN=0 (sha.sh sets it where AF_ALG cannot bind a driver
by its driver name, Linux 7.3), DRIVER is the algorithm name ("sha256"),
which sha.sh checks resolves to our driver, and the reference is Python's
hashlib / hmac instead of the kernel's generic driver.

Prints '# ...' diagnostics and one summary line; exit 0 on success, 1 on
any mismatch, 2 on a setup problem, 4 when the kernel cannot route the
test to our driver (said in the summary line).
"""
import errno
import hashlib
import hmac
import mmap
import os
import random
import socket
import sys
import time

VEC = "/usr/lib/python3/dist-packages/cryptography_vectors/hashes"
DS = {"sha1": 20, "sha224": 28, "sha256": 32, "sha384": 48, "sha512": 64}
BS = {"sha1": 64, "sha224": 64, "sha256": 64, "sha384": 128, "sha512": 128}
PIN = os.environ.get("PADLOCK_AFALG_PIN", "1") != "0"
USER_REF = "hashlib:"     # + ALG: the reference in user space


def bind(name, key=None):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    s.bind(("hash", name))
    if key is not None:
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
    return s


class UserHasher:
    """The user-space reference: NAME is "hashlib:ALG" or
    "hmac(hashlib:ALG)"."""

    def __init__(self, name, key=None):
        is_hmac = name.startswith("hmac(")
        self.alg = (name[5:-1] if is_hmac else name)[len(USER_REF):]
        self.key = key if is_hmac else None

    def digest(self, msg):
        if self.key is not None:
            return hmac.new(self.key, msg, self.alg).digest()
        return hashlib.new(self.alg, msg).digest()

    def close(self):
        pass


class Hasher:
    """One tfm socket and a reusable op socket."""

    def __new__(cls, name, ds, key=None):
        if name.startswith(USER_REF) or name.startswith("hmac(" + USER_REF):
            return UserHasher(name, key)
        return super().__new__(cls)

    def __init__(self, name, ds, key=None):
        self.tfm = bind(name, key)
        self.op, _ = self.tfm.accept()
        self.ds = ds

    def digest(self, msg):
        self.op.sendmsg([msg], [], 0)
        return self.op.recv(self.ds)

    def stream(self, parts):
        """Hash parts as separate updates (MSG_MORE), return the digest."""
        for p in parts:
            self.op.sendmsg([p], [], socket.MSG_MORE)
        self.op.sendmsg([b""], [], 0)
        return self.op.recv(self.ds)

    def clone_midstream(self, rng, msg, bs):
        """Export/import mid-stream: accept() on the op socket clones the
        hash state; the clone finishes msg, the original a random tail
        instead.  Returns (clone's digest, original's digest, cut, tail)."""
        cut = rng.randint(0, len(msg))
        self.op.sendmsg([msg[:cut]], [], socket.MSG_MORE)
        clone, _ = self.op.accept()
        tail = rng.randbytes(rng.randint(0, 3 * bs))
        clone.sendmsg([msg[cut:]], [], 0)
        dc = clone.recv(self.ds)
        clone.close()
        self.op.sendmsg([tail], [], 0)
        return dc, self.op.recv(self.ds), cut, tail

    def close(self):
        self.op.close()
        self.tfm.close()


def generic_driver(alg):
    if not PIN:
        return USER_REF + alg
    drivers = []
    name = drv = None
    with open("/proc/crypto") as f:
        for line in f:
            k, _, v = line.partition(":")
            k, v = k.strip(), v.strip()
            if k == "name":
                name = v
            elif k == "driver":
                drv = v
                if name == alg:
                    drivers.append(drv)
    cands = ["%s-generic" % alg, "%s-lib" % alg]
    cands += [d for d in drivers if "padlock" not in d and d not in cands]
    for cand in cands:
        try:
            bind(cand).close()
            return cand
        except OSError:
            continue
    return None


def parse_rsp(path):
    recs, cur = [], {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("["):
                continue
            k, _, v = line.partition("=")
            k, v = k.strip(), v.strip()
            cur[k] = v
            if k == "MD":
                recs.append(cur)
                cur = {"Seed": cur.get("Seed")} if "Seed" in cur else {}
    return recs


def rsp_dir(alg):
    return "SHA1" if alg == "sha1" else "SHA2"


def cmd_cavp(alg, drv, checkpoints, kinds=("ShortMsg", "LongMsg")):
    ds = DS[alg]
    h = Hasher(drv, ds)
    n = bad = 0
    base = "%s/%s/%s" % (VEC, rsp_dir(alg), alg.upper())
    for kind in kinds:
        for r in parse_rsp(base + kind + ".rsp"):
            ln = int(r["Len"])
            msg = bytes.fromhex(r["Msg"])[: ln // 8]
            n += 1
            if h.digest(msg).hex() != r["MD"].lower():
                bad += 1
                print("# %s %s Len=%d mismatch" % (drv, kind, ln))
    # Monte Carlo (SHAVS 6.4): 1000 chained digests per checkpoint.
    with open(base + "Monte.rsp") as f:
        seed = None
        mds = []
        for line in f:
            if line.startswith("Seed"):
                seed = bytes.fromhex(line.split("=")[1].strip())
            elif line.startswith("MD"):
                mds.append(line.split("=")[1].strip().lower())
    for j in range(min(checkpoints, len(mds))):
        md = [seed, seed, seed]
        for _ in range(1000):
            m = h.digest(md[0] + md[1] + md[2])
            md = [md[1], md[2], m]
        seed = md[2]
        n += 1
        if seed.hex() != mds[j]:
            bad += 1
            print("# %s Monte checkpoint %d mismatch" % (drv, j))
            break
    h.close()
    print("%s: %d CAVP vectors (%s, %d Monte checkpoints), %d mismatches"
          % (drv, n, ", ".join(k[:-3] for k in kinds), min(checkpoints, len(mds)), bad))
    return 1 if bad else 0


def random_split(rng, msg, bs):
    """Split msg into updates: random sizes, 0-byte and one-block parts."""
    parts, i = [], 0
    while i < len(msg):
        c = rng.random()
        if c < 0.1:
            ln = 0
        elif c < 0.25:
            ln = bs
        elif c < 0.4:
            ln = rng.randint(1, bs - 1)
        else:
            ln = rng.randint(1, max(1, len(msg) // 3 + 1))
        parts.append(msg[i:i + ln])
        i += ln
    if rng.random() < 0.3:
        parts.append(b"")
    return parts


def rand_len(rng, maxlen, bs, big=0.2, long_run=False):
    """Mostly short messages (the edge cases), a fraction `big` up to maxlen;
    long runs keep most of the rest under 2 KiB."""
    c = rng.random()
    if c < big:
        return rng.randint(0, maxlen)
    c = rng.random()
    if c < 0.4:
        return rng.randint(0, 3 * bs)
    if c < 0.55:
        return rng.randint(0, 8) * bs
    if long_run and c < 0.9:
        return rng.randint(0, 2048)
    return rng.randint(0, min(maxlen, 16384))


def cmd_diff(alg, drv, count, maxlen, seed=None):
    ds, bs = DS[alg], BS[alg]
    gen = generic_driver(alg)
    if not gen:
        print("no generic %s driver" % alg)
        return 2
    seed = seed if seed is not None else int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    a, b = Hasher(drv, ds), Hasher(gen, ds)
    bad = clones = nbytes = 0
    # Long runs (100,000 messages) keep the total size bounded.
    # (about 2.5 KiB a message: 200 messages of up to 1 MiB, 10,000 up to
    # 16 KiB, the rest shorter)
    long_run = count > 1000
    big = 0.002 if long_run else 0.2
    for i in range(count):
        ln = rand_len(rng, maxlen, bs, big, long_run)
        msg = rng.randbytes(ln)
        nbytes += ln
        mode = rng.random()
        if mode < 0.3:
            da, db = a.digest(msg), b.digest(msg)
        elif mode < 0.8:
            da, db = a.stream(random_split(rng, msg, bs)), b.digest(msg)
        else:
            da, d2, cut, tail = a.clone_midstream(rng, msg, bs)
            db = b.digest(msg)
            clones += 1
            if d2 != b.digest(msg[:cut] + tail):
                bad += 1
                print("# clone original mismatch: len %d cut %d" % (ln, cut))
        if da != db:
            bad += 1
            print("# mismatch: len %d mode %.2f (seed %d, #%d)" % (ln, mode, seed, i))
    a.close()
    b.close()
    print("%s vs %s: %d messages (%d with export/import), %d bytes, %d mismatches, seed %d"
          % (drv, gen, count, clones, nbytes, bad, seed))
    return 1 if bad else 0


def hmac_generic(alg):
    """The kernel's own hmac(ALG), by driver name: the template over the
    generic hash (before 6.17) or the library driver (6.17 on)."""
    for cand in ("hmac(%s-generic)" % alg, "hmac-%s-lib" % alg, "hmac(%s-lib)" % alg):
        try:
            bind(cand, b"k").close()
            return cand
        except OSError:
            continue
    return None


def best_driver(name):
    """(driver, priority) of the highest-priority NAME in /proc/crypto."""
    best, prio = None, -1
    with open("/proc/crypto") as f:
        for blk in f.read().split("\n\n"):
            kv = {}
            for line in blk.splitlines():
                k, _, v = line.partition(":")
                kv[k.strip()] = v.strip()
            if kv.get("name") == name and int(kv.get("priority", -1)) > prio:
                best, prio = kv.get("driver"), int(kv.get("priority"))
    return best, prio


def hmac_ref(gen, alg, key, msg, ds):
    """(digest or None, errno or None) of the kernel's generic hmac, or of
    Python's hmac module when gen is None."""
    if gen is None:
        # AF_ALG copies the key into socket option memory (sock_kmalloc):
        # a key above net.core.optmem_max fails there, before any driver.
        with open("/proc/sys/net/core/optmem_max") as f:
            if len(key) > int(f.read()):
                return None, errno.ENOMEM
        return hmac.new(key, msg, alg).digest(), None
    try:
        h = Hasher(gen, ds, key)
    except OSError as e:
        return None, e.errno
    d = h.digest(msg)
    h.close()
    return d, None


def hmac_msg_len(rng, bs, i, long_run):
    """Empty, block boundaries (and one byte either side), short, long."""
    c = i % 8
    if c == 0:
        return 0
    if c == 1:
        return rng.randint(1, 8) * bs
    if c == 2:
        return rng.randint(1, 8) * bs + rng.choice([-1, 1])
    return rand_len(rng, 1 << 20 if long_run else 20000, bs, 0.02, long_run)


def cmd_hmac(alg, drv, count):
    """DRIVER is the hmac driver to test (hmac-ALG-padlock, or hmac(ALG)
    where AF_ALG cannot pin one: it must resolve to ours).  COUNT messages
    under keys of every length class, each hashed in one go, in random
    update splits or with a clone (export/import) mid-stream, compared with
    Python's hmac module and, where AF_ALG pins drivers, with the kernel's
    own hmac."""
    ds, bs = DS[alg], BS[alg]
    gen = hmac_generic(alg) if PIN else None
    if PIN and not gen:
        print("no generic hmac(%s) driver" % alg)
        return 2
    if not PIN:
        bind("hmac(%s)" % alg, b"k").close()
        best, prio = best_driver("hmac(%s)" % alg)
        if best != "hmac-%s-padlock" % alg:
            print("hmac(%s) resolves to %s (priority %d), not hmac-%s-padlock" % (alg, best, prio, alg))
            return 1
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    long_run = count > 2000
    fixed = [0, 1, bs - 1, bs, bs + 1, 1024]
    bad = n = clones = splits = nkeys = 0
    while n < count:
        klen = fixed[nkeys] if nkeys < len(fixed) else rng.choice(fixed + [rng.randint(2, 300)])
        key = rng.randbytes(klen)
        nkeys += 1
        try:
            h = Hasher(drv, ds, key)
        except OSError as e:
            print("# setkey of a %d-byte key: %s" % (klen, e))
            bad += 1
            n += 1
            continue
        for _ in range(min(8, count - n)):
            msg = rng.randbytes(hmac_msg_len(rng, bs, n, long_run))
            want = hmac.new(key, msg, alg).digest()
            mode = rng.random()
            if mode < 0.3:
                got = h.digest(msg)
            elif mode < 0.7:
                got = h.stream(random_split(rng, msg, bs))
                splits += 1
            else:
                got, d2, cut, tail = h.clone_midstream(rng, msg, bs)
                if d2 != hmac.new(key, msg[:cut] + tail, alg).digest():
                    bad += 1
                    print("# clone original mismatch: key %d, len %d cut %d" % (klen, len(msg), cut))
                clones += 1
            if got != want:
                bad += 1
                print("# mismatch: key %d bytes, msg %d bytes, mode %.2f (seed %d)"
                      % (klen, len(msg), mode, seed))
            elif gen and rng.random() < 0.25:
                ref, _ = hmac_ref(gen, alg, key, msg, ds)
                if ref != want:
                    bad += 1
                    print("# %s disagrees with Python: key %d, msg %d" % (gen, klen, len(msg)))
            n += 1
        h.close()
    # A 1 MiB key: AF_ALG refuses it before any driver (optmem_max); the
    # same error as the reference, whatever it is.
    key = rng.randbytes(1 << 20)
    want, werr = hmac_ref(gen, alg, key, b"abc", ds)
    try:
        h = Hasher(drv, ds, key)
        got, gerr = h.digest(b"abc"), None
        h.close()
    except OSError as e:
        got, gerr = None, e.errno
    if got != want or gerr != werr:
        bad += 1
        print("# 1 MiB key: ours %s/%s, reference %s/%s" % (got and got.hex()[:16], gerr,
                                                          want and want.hex()[:16], werr))
    print("%s vs Python hmac%s: %d messages, %d keys (0, 1, bs-1, bs, bs+1, 1 KiB, random, 1 MiB), "
          "%d split, %d with export/import, %d mismatches, seed %d"
          % (drv, " and " + gen if gen else "", n, nkeys + 1, splits, clones, bad, seed))
    return 1 if bad else 0


def cmd_digests(alg, drv, size, count):
    h = Hasher(drv, DS[alg])
    # Page-aligned: the message's alignment decides how the kernel splits
    # it into chunks (and so the instruction count); a bytes object's
    # alignment depends on the process's heap, i.e. on argv.
    buf = mmap.mmap(-1, size)
    buf[:] = os.urandom(size)
    msg = memoryview(buf)
    t = time.monotonic()
    for _ in range(count):
        h.digest(msg)
    el = time.monotonic() - t
    h.close()
    print("%.6f" % el)
    return 0


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    cmd, alg = argv[0], argv[1]
    try:
        if cmd == "generic":
            g = generic_driver(alg)
            print(g or "")
            return 0 if g else 2
        drv = argv[2]
        if cmd == "cavp":
            return cmd_cavp(alg, drv, int(argv[3]))
        if cmd == "diff":
            return cmd_diff(alg, drv, int(argv[3]), int(argv[4]))
        if cmd == "hmac":
            return cmd_hmac(alg, drv, int(argv[3]))
        if cmd == "quick":
            rc = cmd_cavp(alg, drv, 0, ("ShortMsg",))
            return max(rc, cmd_diff(alg, drv, int(argv[3]), int(argv[4])))
        if cmd == "digests":
            return cmd_digests(alg, drv, int(argv[3]), int(argv[4]))
    except OSError as e:
        print("AF_ALG error: %s" % e)
        return 2
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
