#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""AF_ALG checks for padlock-aes (standard library + cryptography_vectors).

Prints one line per result, which aes.sh turns into KTAP:
    RESULT pass|fail|skip <description> [# reason]
and "# ..." diagnostics.  Subcommands:
    select                    ours is the driver picked for each cra_name
    kat                       NIST CAVP vectors through our driver names
    diff N                    N random requests per mode, ours vs generic
    badinput                  wrong key/request/IV lengths
    bench NAME MODE N SIZES.. N requests per size: time and sim instructions (CSV)

With PADLOCK_AFALG_PIN=0 (aes.sh sets it where AF_ALG cannot bind a driver by
its driver name, Linux 7.3), "ours" is bound by its algorithm name
("cbc(aes)"), which select checks resolves to our driver, and the reference
of diff and badinput is a user-space AES (python3-cryptography) instead of
the kernel's generic driver.
"""

import errno
import glob
import mmap
import os
import random
import socket
import sys
import time

VEC = "/usr/lib/python3/dist-packages/cryptography_vectors/ciphers/AES"
BS = 16
OURS = {
    "ecb": "ecb-aes-padlock", "cbc": "cbc-aes-padlock",
    "ctr": "ctr-aes-padlock", "xts": "xts-aes-padlock",
    "cfb": "cfb-aes-padlock", "ofb": "ofb-aes-padlock",
    "cts": "cts-cbc-aes-padlock",
}
# the algorithm name of each mode: MODE(aes), but cts nests over cbc
NAMES = {m: f"{m}(aes)" for m in OURS}
NAMES["cts"] = "cts(cbc(aes))"
PIN = os.environ.get("PADLOCK_AFALG_PIN", "1") != "0"
USER_REF = "user-space AES (python3-cryptography)"


def ours(mode):
    """What to bind for our MODE driver: its driver name, or where AF_ALG
    cannot pin drivers, the algorithm name (ours has the top priority)."""
    return OURS[mode] if PIN else NAMES[mode]


RESTRICT = "/proc/sys/crypto/af_alg_restrict"


class Unrestricted:
    """For cts: Linux 7.3 lets AF_ALG bind only the algorithms of an
    allowlist (cbc(aes), ctr(aes), ecb(aes), xts(aes), ...; not
    cts(cbc(aes))) unless the sysctl crypto.af_alg_restrict is 0.  Within
    `with Unrestricted(mode)` it is 0 for cts; the old value comes back on
    exit.  Other modes, and kernels without the sysctl, are left alone."""

    def __init__(self, mode):
        self.mode, self.old = mode, None

    def __enter__(self):
        if self.mode != "cts":
            return self
        try:
            with open(RESTRICT) as f:
                old = f.read().strip()
            if old != "0":
                with open(RESTRICT, "w") as f:
                    f.write("0\n")
                self.old = old
                diag(f"cts: crypto.af_alg_restrict {old} -> 0 (AF_ALG's allowlist has no cts(cbc(aes)))")
        except OSError:
            pass
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            with open(RESTRICT, "w") as f:
                f.write(self.old + "\n")
        return False


def result(ok, desc, reason=None):
    if ok is None:
        print(f"RESULT skip {desc} # {reason}")
    else:
        print(f"RESULT {'pass' if ok else 'fail'} {desc}"
              + (f" # {reason}" if reason and not ok else ""))
    sys.stdout.flush()


def diag(msg):
    for line in str(msg).splitlines():
        print(f"# {line}")
    sys.stdout.flush()


def proc_crypto():
    """List of dicts, one per /proc/crypto entry."""
    algs, cur = [], {}
    with open("/proc/crypto") as f:
        for line in f:
            line = line.strip()
            if not line:
                if cur:
                    algs.append(cur)
                cur = {}
                continue
            k, _, v = line.partition(":")
            cur[k.strip()] = v.strip()
    if cur:
        algs.append(cur)
    return algs


def registered(driver):
    return any(a.get("driver") == driver for a in proc_crypto())


def generic_cipher():
    if not PIN:
        return USER_REF
    drivers = {a.get("driver") for a in proc_crypto()}
    for d in ("aes-generic", "aes-lib"):
        if d in drivers:
            return d
    # not instantiated yet: try to bind through AF_ALG
    for d in ("aes-generic", "aes-lib"):
        try:
            s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
            s.bind(("skcipher", f"ecb({d})"))
            s.close()
            return d
        except OSError:
            pass
    return None


def generic_name(mode, gen):
    if gen == USER_REF:
        return f"{mode} in {gen}"
    if mode == "xts":
        return f"xts(ecb({gen}))"
    if mode == "cts":
        return f"cts(cbc({gen}))"
    return f"{mode}({gen})"


class UserCipher:
    """The reference in user space, with the slice of a transform socket's
    interface that op_once() and the callers use."""

    def __init__(self, mode):
        try:
            from cryptography.hazmat.primitives.ciphers import (
                Cipher, algorithms, modes)
        except ImportError:     # a python3 other than Debian's first in PATH
            sys.path.append("/usr/lib/python3/dist-packages")
            from cryptography.hazmat.primitives.ciphers import (
                Cipher, algorithms, modes)
        self.mode, self.key = mode, None
        self.cipher, self.alg, self.modes = Cipher, algorithms.AES, modes

    def setsockopt(self, level, opt, key):
        self.key = bytes(key)

    def close(self):
        pass

    def _ecb(self, key, data, enc):
        c = self.cipher(self.alg(key), self.modes.ECB())
        ctx = c.encryptor() if enc else c.decryptor()
        return ctx.update(data) + ctx.finalize()

    def _xts(self, data, tweak, enc):
        """IEEE 1619 XTS with ciphertext stealing, from ECB (OpenSSL has
        no XTS-AES-192 and refuses key1 == key2; the kernel takes both)."""
        n = len(data)
        half = len(self.key) // 2
        k1, k2 = self.key[:half], self.key[half:]
        full, r = divmod(n, BS)
        t = int.from_bytes(self._ecb(k2, tweak, True), "little")
        ts = []
        for _ in range(full + 1):
            ts.append(t.to_bytes(BS, "little"))
            t <<= 1
            if t >> 128:
                t = (t & ((1 << 128) - 1)) ^ 0x87

        def blocks(buf, tw, e):
            x = bytes(a ^ b for a, b in zip(buf, tw))
            y = self._ecb(k1, x, e)
            return bytes(a ^ b for a, b in zip(y, tw))

        if not r:
            return blocks(data, b"".join(ts[:full]), enc)
        head = blocks(data[:(full - 1) * BS], b"".join(ts[:full - 1]), enc)
        last, tail = data[(full - 1) * BS:full * BS], data[full * BS:]
        # the last full block uses the tweak after it when decrypting
        cc = blocks(last, ts[full - 1] if enc else ts[full], enc)
        pp = tail + cc[r:]
        out = blocks(pp, ts[full] if enc else ts[full - 1], enc)
        return head + out + cc[:r]

    def _cts(self, data, iv, enc):
        """CBC-CS3 as Linux's cts template does it: one block is plain
        CBC; otherwise the last two ciphertext blocks trade places, the
        one that goes last cut to the tail's length (1 to 16 bytes).
        Returns the output and the IV the template leaves behind: the
        ciphertext block that ends where the tail starts."""
        n = len(data)
        if n == BS:
            out = self._cbc(data, iv, enc)
            return out, (out if enc else data)
        off = (n - 1) // BS * BS
        tail = n - off
        if enc:
            head = self._cbc(data[:off], iv, True)
            last = head[-BS:]
            cn = self._cbc(data[off:] + bytes(BS - tail), last, True)
            out = head[:-BS] + cn + last[:tail]
            return out, cn
        head = self._cbc(data[:off - BS], iv, False)
        prev = data[off - 2 * BS:off - BS] if off > BS else iv
        c, ct = data[off - BS:off], data[off:]
        d = self._ecb(self.key, c, False)
        pn = bytes(a ^ b for a, b in zip(d, ct))
        pm = self._cbc(ct + d[tail:], prev, False)
        return head + pm + pn, c

    def _cbc(self, data, iv, enc):
        if not data:
            return b""
        c = self.cipher(self.alg(self.key), self.modes.CBC(iv))
        ctx = c.encryptor() if enc else c.decryptor()
        return ctx.update(data) + ctx.finalize()

    def crypt(self, data, iv, enc):
        n, m = len(data), self.modes
        if self.mode in ("ecb", "cbc") and n % BS or self.mode in ("xts", "cts") and n < BS:
            raise OSError(errno.EINVAL, "length")
        if iv is not None and len(iv) != BS:
            raise OSError(errno.EINVAL, "IV length")
        if self.mode == "xts":
            return self._xts(bytes(data), iv, enc)
        if self.mode == "cts":
            return self._cts(bytes(data), iv, enc)[0]
        mode = {"ecb": lambda: m.ECB(), "cbc": lambda: m.CBC(iv),
                "ctr": lambda: m.CTR(iv), "cfb": lambda: m.CFB(iv),
                "ofb": lambda: m.OFB(iv)}[self.mode]()
        c = self.cipher(self.alg(self.key), mode)
        ctx = c.encryptor() if enc else c.decryptor()
        return ctx.update(bytes(data)) + ctx.finalize()


def ref_tfm(mode, gen):
    """The reference transform for MODE: the kernel's generic driver, or
    the user-space one."""
    if gen == USER_REF:
        return UserCipher(mode)
    return tfm(generic_name(mode, gen))


def ref_crypt(ref, mode, data, iv, enc, recv_sizes):
    """The reference's output for DATA, as one request, or for cts as the
    requests RECV_SIZES cuts it into (other modes chain seamlessly)."""
    if mode != "cts" or not recv_sizes:
        return op_once(ref, data, iv, enc)
    if not isinstance(ref, UserCipher):
        return op_pattern(ref, data, iv, enc, None, recv_sizes=recv_sizes)
    out, pos = b"", 0
    for n in recv_sizes:
        if n < BS:
            raise OSError(errno.EINVAL, "length")
        o, iv = ref._cts(bytes(data[pos:pos + n]), iv, enc)
        out += o
        pos += n
    return out


def tfm(name, key=None):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
    s.bind(("skcipher", name))
    if key is not None:
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
    return s


def op_once(t, data, iv, enc):
    """Plain one-shot request: sendmsg + recv."""
    if isinstance(t, UserCipher):
        return t.crypt(data, iv, enc)
    op, _ = t.accept()
    op.settimeout(30)
    try:
        opc = socket.ALG_OP_ENCRYPT if enc else socket.ALG_OP_DECRYPT
        kw = {"op": opc}
        if iv is not None:
            kw["iv"] = iv
        op.sendmsg_afalg([data], **kw)
        return recv_all(op, len(data))
    finally:
        op.close()


def recv_all(op, n):
    """Up to N bytes of a request's result, fewer if the socket ends."""
    out = b""
    while len(out) < n:
        chunk = op.recv(n - len(out))
        if not chunk:
            break
        out += chunk
    return out


def op_pattern(t, data, iv, enc, rng, pieces=1, use_splice=False, out_off=0,
               recv_sizes=None):
    """A request fed in pieces (MSG_MORE or splice) and read back into a
    page-aligned buffer at offset out_off, possibly with several recvs."""
    op, _ = t.accept()
    op.settimeout(30)
    n = len(data)
    buf = mmap.mmap(-1, max(n + out_off + 64, 4096) + 4096)
    try:
        opc = socket.ALG_OP_ENCRYPT if enc else socket.ALG_OP_DECRYPT
        kw = {"op": opc}
        if iv is not None:
            kw["iv"] = iv
        cuts = []
        if pieces > 1 and n > pieces:
            cuts = sorted(rng.sample(range(1, n), pieces - 1))
        bounds = [0] + cuts + [n]
        chunks = [data[bounds[i]:bounds[i + 1]] for i in range(len(bounds) - 1)]
        if use_splice and n:
            op.sendmsg_afalg([], flags=socket.MSG_MORE, **kw)
            r, w = os.pipe()
            try:
                for i, c in enumerate(chunks):
                    more = i < len(chunks) - 1
                    pos = 0
                    while pos < len(c):
                        part = c[pos:pos + 16384]
                        os.write(w, part)
                        last = not more and pos + len(part) == len(c)
                        done = 0
                        while done < len(part):
                            done += os.splice(r, op.fileno(), len(part) - done,
                                              flags=0 if last else os.SPLICE_F_MORE)
                        pos += len(part)
            finally:
                os.close(r)
                os.close(w)
        else:
            for i, c in enumerate(chunks):
                more = socket.MSG_MORE if i < len(chunks) - 1 else 0
                if i == 0:
                    op.sendmsg_afalg([c], flags=more, **kw)
                else:
                    op.sendmsg([c], [], more)
        sizes = recv_sizes or [n]
        got = 0
        mv = memoryview(buf)
        for want in sizes:
            end = got + want
            while got < end:
                k = op.recv_into(mv[out_off + got:out_off + end], end - got)
                if k <= 0:
                    raise OSError(errno.EIO, "short recv")
                got += k
        out = bytes(mv[out_off:out_off + n])
        mv.release()
        return out
    finally:
        op.close()
        buf.close()


# ---- select -------------------------------------------------------------

def cmd_select():
    algs = proc_crypto()
    names = ["aes", "ecb(aes)", "cbc(aes)", "ctr(aes)", "xts(aes)", "cts(cbc(aes))"]
    ours = {"aes": "aes-padlock"}
    ours.update({NAMES[m]: d for m, d in OURS.items()})
    for fb in ("cfb", "ofb"):
        if registered(OURS[fb]):
            names.append(f"{fb}(aes)")
    for name in names:
        drv = ours[name]
        mine = [a for a in algs if a.get("driver") == drv]
        if not mine:
            result(False, f"{drv} registered", "not in /proc/crypto")
            continue
        st = mine[0].get("selftest", "?")
        result(st == "passed", f"{drv} selftest passed", f"selftest: {st}")
        same = [a for a in algs if a.get("name") == name
                and a.get("selftest", "passed") == "passed"]
        if not same:
            result(False, f"{name}: highest priority is {drv}",
                   "no driver of it passed its self-test")
            continue
        best = max(same, key=lambda a: int(a.get("priority", "0")))
        others = ", ".join(f"{a['driver']}={a.get('priority')}" for a in same
                           if a is not best)
        result(best.get("driver") == drv,
               f"{name}: highest priority is {drv} ({best.get('priority')})",
               f"highest is {best.get('driver')} ({best.get('priority')}); others: {others}")
        if name == "aes":
            continue
        # bind the generic name and see our refcnt go up
        before = int(mine[0].get("refcnt", "0"))
        try:
            with Unrestricted("cts" if name.startswith("cts") else ""):
                t = tfm(name)
            klen = 32 if name.startswith("xts") else 16
            t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY,
                         bytes(range(1, klen + 1)))
            after = [int(a.get("refcnt", "0")) for a in proc_crypto()
                     if a.get("driver") == drv][0]
            t.close()
            result(after > before, f"bind {name} uses {drv}",
                   f"refcnt {before} -> {after}")
        except OSError as e:
            result(False, f"bind {name} uses {drv}", str(e))


# ---- kat ------------------------------------------------------------------

def parse_rsp(path):
    """Yield (direction, dict) for each vector of a CAVP .rsp/.txt file."""
    direction = "ENCRYPT"
    cur = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                if line.strip("[]") in ("ENCRYPT", "DECRYPT"):
                    direction = line.strip("[]")
                continue
            if not line or line.startswith("#"):
                if cur:
                    yield direction, cur
                    cur = {}
                continue
            if "=" in line:
                k, _, v = line.partition("=")
                cur[k.strip().upper()] = v.strip()
    if cur:
        yield direction, cur


def kat_files(mode):
    if mode in ("ecb", "cbc"):
        return sorted(glob.glob(f"{VEC}/{mode.upper()}/*.rsp"))
    if mode == "ctr":
        return sorted(glob.glob(f"{VEC}/CTR/*.txt"))
    if mode == "xts":
        return sorted(glob.glob(f"{VEC}/XTS/tweak-128hexstr/*.rsp"))
    if mode == "cfb":
        return sorted(glob.glob(f"{VEC}/CFB/CFB128*.rsp"))
    if mode == "ofb":
        return sorted(glob.glob(f"{VEC}/OFB/*.rsp"))
    return []


def cmd_kat():
    if not os.path.isdir(VEC):
        result(None, "NIST CAVP vectors", "cryptography_vectors not installed")
        return
    for mode in ("ecb", "cbc", "ctr", "xts", "cfb", "ofb"):
        drv = OURS[mode]
        if not registered(drv):
            if mode in ("cfb", "ofb"):
                result(None, f"CAVP {mode}", f"{drv} not registered on this kernel")
            else:
                result(False, f"CAVP {mode}", f"{drv} not registered")
            continue
        t = tfm(ours(mode))
        bysize = {}
        for path in kat_files(mode):
            for direction, v in parse_rsp(path):
                if "KEY" not in v:
                    continue
                if mode == "xts":
                    if int(v.get("DATAUNITLEN", "0")) % 8:
                        continue
                    iv = bytes.fromhex(v["I"])
                else:
                    iv = bytes.fromhex(v["IV"]) if "IV" in v else None
                key = bytes.fromhex(v["KEY"])
                pt = bytes.fromhex(v["PLAINTEXT"] if "PLAINTEXT" in v else v["PT"])
                ct = bytes.fromhex(v["CIPHERTEXT"] if "CIPHERTEXT" in v else v["CT"])
                bits = len(key) * 8 // (2 if mode == "xts" else 1)
                st = bysize.setdefault(bits, [0, 0, []])
                t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
                if direction == "ENCRYPT":
                    got, want = op_once(t, pt, iv, True), ct
                else:
                    got, want = op_once(t, ct, iv, False), pt
                if got == want:
                    st[0] += 1
                else:
                    st[1] += 1
                    if len(st[2]) < 3:
                        st[2].append(f"{os.path.basename(path)} {direction} "
                                     f"COUNT={v.get('COUNT')}: got {got.hex()} want {want.hex()}")
        t.close()
        for bits in sorted(bysize):
            ok, bad, why = bysize[bits]
            if bad:
                diag("\n".join(why))
            result(bad == 0 and ok > 0, f"CAVP {mode} AES-{bits}: {ok} vectors",
                   f"{bad} of {ok + bad} wrong")


# ---- diff -----------------------------------------------------------------

# Request lengths: short ones (the partial blocks, the stealing and the
# fetch-size edges), page-sized ones and large ones beyond 64 KiB.  Short
# runs (make check) weight the large ones heavily; long runs (100,000
# requests) keep the same ranges with weights that bound the total bytes
# (about 3 KiB a request: 1 % beyond 64 KiB is still 1,000 requests).
LEN_WEIGHTS_SHORT = (0.3, 0.6, 0.85)
LEN_WEIGHTS_LONG = (0.5, 0.95, 0.99)


# cts: a block and up to a page, a quarter of them at the edges (one
# block, two, one or two bytes more or less than whole blocks).
CTS_EDGES = (16, 17, 31, 32, 33, 47, 48, 49, 64, 65, 4095, 4096)


def rand_len(rng, mode, weights=LEN_WEIGHTS_SHORT):
    if mode == "cts":
        if rng.random() < 0.25:
            return rng.choice(CTS_EDGES)
        return rng.randrange(BS, 4097)
    r = rng.random()
    if r < weights[0]:
        n = rng.randrange(0, 64)
    elif r < weights[1]:
        n = rng.randrange(0, 4097)
    elif r < weights[2]:
        n = rng.randrange(4096, 65536)
    else:
        n = rng.randrange(65536, 65536 + 8192)
    if mode in ("ecb", "cbc"):
        n -= n % BS
    if mode == "xts" and n < BS:
        n = BS + rng.randrange(0, 40)
    return n


def rand_iv(rng, mode):
    if mode == "ecb":
        return None
    iv = bytearray(os.urandom(16))
    if mode == "ctr":
        r = rng.random()
        if r < 0.2:      # low 16 bits about to wrap
            iv[14:16] = (0x10000 - rng.randrange(1, 40)).to_bytes(2, "big")
        elif r < 0.3:    # carry through 32 bits and more
            iv[12:16] = (0x100000000 - rng.randrange(1, 40)).to_bytes(4, "big")
        elif r < 0.35:   # the whole 128-bit counter wraps
            iv[:] = (2 ** 128 - rng.randrange(1, 40)).to_bytes(16, "big")
    return bytes(iv)


def cmd_diff(count, seed=None):
    seed = seed if seed is not None else int.from_bytes(os.urandom(4), "big")
    diag(f"diff seed {seed}")
    rng = random.Random(seed)
    gen = generic_cipher()
    if not gen:
        result(None, "differential", "no aes-generic/aes-lib driver")
        return
    diag(f"generic cipher: {gen}")
    for mode in ("ecb", "cbc", "ctr", "xts", "cts", "cfb", "ofb"):
        drv = OURS[mode]
        if not registered(drv):
            if mode in ("cfb", "ofb"):
                result(None, f"diff {mode}", f"{drv} not registered on this kernel")
            else:
                result(False, f"diff {mode}", f"{drv} not registered")
            continue
        try:
            with Unrestricted(mode):
                ref = ref_tfm(mode, gen)
        except OSError as e:
            result(None, f"diff {mode}", f"{generic_name(mode, gen)}: {e}")
            continue
        try:
            with Unrestricted(mode):
                mine = tfm(ours(mode))
        except OSError as e:
            ref.close()
            result(False, f"diff {mode}", f"bind {ours(mode)}: {e}")
            continue
        stats = {"req": 0, "bytes": 0, "mismatch": 0, "err": 0,
                 "split": 0, "splice": 0, "misaligned": 0, "chained": 0}
        bad = []
        t0 = time.time()
        weights = LEN_WEIGHTS_LONG if count > 1000 else LEN_WEIGHTS_SHORT
        for i in range(count):
            klen = rng.choice((16, 24, 32))
            if mode == "xts":
                k1 = os.urandom(klen)
                key = k1 + os.urandom(klen)
            else:
                key = os.urandom(klen)
            n = rand_len(rng, mode, weights)
            data = os.urandom(n)
            iv = rand_iv(rng, mode)
            enc = rng.random() < 0.5
            ref.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
            mine.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
            pieces = rng.choice((1, 1, 2, 3, 7)) if n > 8 else 1
            use_splice = rng.random() < 0.25
            off = rng.randrange(0, 16)
            recv_sizes = None
            if mode in ("cbc", "ctr", "cfb", "ofb") and n >= 3 * BS and rng.random() < 0.3:
                # several requests on one op socket: the IV chains
                a = rng.randrange(1, n // BS) * BS
                recv_sizes = [a, n - a]
                stats["chained"] += 1
            elif mode == "cts" and n >= 2 * BS and rng.random() < 0.3:
                # two cts requests on one op socket, each with its own
                # stealing, the second on the IV the first left behind
                a = rng.randrange(1, n // BS) * BS
                recv_sizes = [a, n - a]
                stats["chained"] += 1
            try:
                want = ref_crypt(ref, mode, data, iv, enc, recv_sizes)
                want_err = None
            except OSError as e:
                want, want_err = None, e.errno
            stats["split"] += pieces > 1
            stats["splice"] += use_splice
            stats["misaligned"] += off != 0
            try:
                got = op_pattern(mine, data, iv, enc, rng, pieces, use_splice,
                                 off, recv_sizes)
                got_err = None
            except OSError as e:
                got, got_err = None, e.errno
            stats["req"] += 1
            stats["bytes"] += n
            if got != want or got_err != want_err:
                stats["mismatch"] += 1
                if len(bad) < 3:
                    bad.append(f"mode {mode} enc={enc} klen={klen} len={n} pieces={pieces} "
                               f"splice={use_splice} off={off} recvs={recv_sizes} "
                               f"iv={iv.hex() if iv else None} err ours={got_err} ref={want_err}")
        mine.close()
        ref.close()
        took = time.time() - t0
        diag(f"diff {mode}: {stats['req']} requests, {stats['bytes']} bytes, "
             f"{stats['split']} split, {stats['splice']} spliced, "
             f"{stats['misaligned']} misaligned dst, {stats['chained']} chained, "
             f"{stats['mismatch']} mismatches, {took:.1f}s")
        if bad:
            diag("\n".join(bad))
        result(stats["mismatch"] == 0 and stats["req"] == count,
               f"diff {mode} vs {generic_name(mode, gen)}: {stats['req']} requests, "
               f"{stats['mismatch']} mismatches", f"seed {seed}")


# ---- bad input ---------------------------------------------------------------

def expect_errno(fn, want=errno.EINVAL):
    try:
        fn()
    except OSError as e:
        return e.errno == want, f"errno {e.errno}"
    return False, "no error"


def cmd_badinput():
    for mode in ("ecb", "cbc", "ctr", "xts", "cts"):
        drv = OURS[mode]
        try:
            with Unrestricted(mode):
                t = tfm(ours(mode))
        except OSError as e:
            result(False, f"{drv} bad input", f"bind {ours(mode)}: {e}")
            continue
        kunit = 2 if mode == "xts" else 1
        for klen in (0, 15, 17, 33) + ((40,) if mode == "xts" else (8,)):
            ok, why = expect_errno(lambda: t.setsockopt(
                socket.SOL_ALG, socket.ALG_SET_KEY, b"\x01" * klen))
            result(ok, f"{drv} key length {klen} -> EINVAL", why)
        key = os.urandom(16 * kunit)
        t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        iv = None if mode == "ecb" else os.urandom(16)
        lens = {"ecb": (1, 15, 17), "cbc": (1, 15, 17), "xts": (1, 15), "cts": (1, 15),
                "ctr": ()}[mode]
        for n in lens:
            op, _ = t.accept()
            op.settimeout(10)
            buf = mmap.mmap(-1, 4096)
            buf.write(b"\xa5" * 4096)
            kw = {"op": socket.ALG_OP_ENCRYPT}
            if iv is not None:
                kw["iv"] = iv
            try:
                op.sendmsg_afalg([os.urandom(n)], **kw)
                ok, why = expect_errno(lambda: op.recv_into(memoryview(buf)[:n], n))
            except OSError as e:
                ok, why = e.errno == errno.EINVAL, f"sendmsg errno {e.errno}"
            untouched = bytes(buf[:4096]) == b"\xa5" * 4096
            op.close()
            buf.close()
            result(ok and untouched, f"{drv} length {n} -> EINVAL, output untouched",
                   f"{why}, untouched={untouched}")
        if iv is not None:
            op, _ = t.accept()
            ok, why = expect_errno(lambda: op.sendmsg_afalg(
                [b"\0" * 32], op=socket.ALG_OP_ENCRYPT, iv=b"\0" * 8))
            op.close()
            result(ok, f"{drv} 8-byte IV -> EINVAL", why)
        # the transform still works, with the key set before the errors
        data = os.urandom(64)
        try:
            c = op_once(t, data, iv, True)
            p = op_once(t, c, iv, False)
            result(p == data and c != data, f"{drv} usable after the errors")
        except OSError as e:
            result(False, f"{drv} usable after the errors", str(e))
        t.close()
    # xts with key1 == key2: must behave like the generic xts (or, without
    # AF_ALG driver names, like the XTS definition)
    gen = generic_cipher()
    if gen:
        k = os.urandom(16) * 2
        res = []
        for t in (tfm(ours("xts")), ref_tfm("xts", gen)):
            try:
                t.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, k)
                res.append(op_once(t, b"\x11" * 32, b"\0" * 16, True).hex())
            except OSError as e:
                res.append(f"errno {e.errno}")
            t.close()
        result(res[0] == res[1], f"xts key1 == key2 handled like {generic_name('xts', gen)}",
               f"ours {res[0]} reference {res[1]}")


# ---- bench ----------------------------------------------------------------

SIM = "/sys/kernel/debug/padlock-sim"


def sim_xcrypt():
    try:
        with open(f"{SIM}/counters") as f:
            return sum(int(line.split()[1]) for line in f
                       if line.startswith("xcrypt_"))
    except OSError:
        return -1


def sim_reset():
    try:
        with open(f"{SIM}/reset", "w") as f:
            f.write("1\n")
    except OSError:
        pass


def cmd_bench(name, mode, count, sizes):
    """For each size: count one-shot encryptions through driver NAME.
    Prints 'size,requests,us_per_request,xcrypt_instructions'."""
    klen = 32 if mode == "xts" else 16
    t = tfm(name, os.urandom(klen))
    iv = None if mode == "ecb" else os.urandom(16)
    for n in sizes:
        data = os.urandom(n)
        op_once(t, data, iv, True)          # warm up (instantiation)
        sim_reset()
        x0 = sim_xcrypt()
        t0 = time.perf_counter()
        for _ in range(count):
            op_once(t, data, iv, True)
        el = time.perf_counter() - t0
        x1 = sim_xcrypt()
        print(f"{n},{count},{el / count * 1e6:.1f},{x1 - x0}")
        sys.stdout.flush()
    t.close()


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "select":
        cmd_select()
    elif cmd == "kat":
        cmd_kat()
    elif cmd == "diff":
        cmd_diff(int(sys.argv[2]) if len(sys.argv) > 2 else 50,
                 int(sys.argv[3]) if len(sys.argv) > 3 else None)
    elif cmd == "badinput":
        cmd_badinput()
    elif cmd == "bench":
        cmd_bench(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                  [int(x) for x in sys.argv[5:]])
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
