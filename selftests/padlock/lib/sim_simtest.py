#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Client of padlock-simtest.ko (drivers/test/padlock-simtest.c) and a small,
independent Python model of AES/SHA key material, for the padlock-sim tests.

The request/result layouts mirror struct simtest_req / simtest_res."""
import os
import struct

EXEC = "/sys/kernel/debug/padlock-simtest/exec"
SIMDIR = "/sys/kernel/debug/padlock-sim"
MAGIC = 0x54534C50

OPS = ["xstore", "rep_xstore", "ecb", "cbc", "ctr", "cfb", "ofb",
       "sha1", "sha256", "sha384", "sha512", "f2_ecb", "montmul"]
F_EXPECT_FAULT, F_PAGE_END, F_UNMAPPED, F_IN_PLACE, F_RAX_IS_PTR = 1, 2, 4, 8, 16
# xsha only: rsi = NULL, rdi = NULL, rdi in an unmapped guard page
F_SHA_NULL_RSI, F_SHA_NULL_RDI, F_SHA_UNMAPPED_RDI = 256, 512, 1024
PARAMS = "/sys/module/padlock_sim/parameters"

REQ = struct.Struct("<4I3Q6I16s256s16s128s")
RES = struct.Struct("<2I8Q16s160s")
MASK64 = (1 << 64) - 1


def signed(v):
    return v - (1 << 64) if v & (1 << 63) else v


def execute(op, flags=0, rcx=0, rax=0, rdx=0, in_off=0, out_off=0, key_off=0,
            cw_off=0, iv_off=0, state_off=0, cword=b"", key=b"", iv=b"",
            state=b"", data=b""):
    req = REQ.pack(MAGIC, OPS.index(op), flags, len(data), rcx & MASK64,
                   rax & MASK64, rdx & MASK64, in_off, out_off, key_off,
                   cw_off, iv_off, state_off, cword, key, iv, state) + data
    fd = os.open(EXEC, os.O_RDWR)
    try:
        os.write(fd, req)
        os.lseek(fd, 0, 0)
        raw = b""
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            raw += chunk
    finally:
        os.close(fd)
    f = RES.unpack_from(raw)
    assert f[0] == MAGIC
    return {"faulted": f[1], "rsi_adv": signed(f[2]), "rdi_adv": signed(f[3]),
            "rcx": f[4], "rax": f[5], "rdx": f[6], "rbx_moved": signed(f[7]),
            "rax_minus_iv": signed(f[8]), "rax_minus_out": signed(f[9]),
            "iv": f[10], "state": f[11], "data": raw[RES.size:]}


def counters():
    out = {}
    with open(SIMDIR + "/counters") as f:
        for line in f:
            k, v = line.split()
            out[k] = int(v)
    return out


def knob(name, value=None):
    path = SIMDIR + "/" + name
    if value is None:
        with open(path) as f:
            return f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))


def param(name, value=None):
    """Read or set a padlock-sim module parameter (0644 ones)."""
    path = PARAMS + "/" + name
    if value is None:
        with open(path) as f:
            return f.read().strip()
    with open(path, "w") as f:
        f.write(str(value))


# ---- AES key material (our own, for KEYGEN=1 schedules and checks) ---------

def _xt(a):
    a <<= 1
    return (a ^ 0x11B) if a & 0x100 else a


def _mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = _xt(a)
        b >>= 1
    return r


def _make_sbox():
    inv = [0] * 256
    for a in range(1, 256):
        for b in range(1, 256):
            if _mul(a, b) == 1:
                inv[a] = b
                break
    sb = []
    for a in range(256):
        x = inv[a]
        s = x
        for i in range(1, 5):
            s ^= ((x << i) | (x >> (8 - i))) & 0xFF
        sb.append(s ^ 0x63)
    return sb


SBOX = _make_sbox()


def expand_key(key):
    """FIPS-197 key expansion: list of (rounds+1) 16-byte round keys."""
    nk = len(key) // 4
    rounds = nk + 6
    w = [list(key[4 * i:4 * i + 4]) for i in range(nk)]
    rcon = 1
    for i in range(nk, 4 * (rounds + 1)):
        t = list(w[i - 1])
        if i % nk == 0:
            t = t[1:] + t[:1]
            t = [SBOX[b] for b in t]
            t[0] ^= rcon
            rcon = _mul(rcon, 2)
        elif nk > 6 and i % nk == 4:
            t = [SBOX[b] for b in t]
        w.append([a ^ b for a, b in zip(w[i - nk], t)])
    return [bytes(sum(w[4 * r:4 * r + 4], [])) for r in range(rounds + 1)]


def _imc(col):
    a0, a1, a2, a3 = col
    return [_mul(a0, 14) ^ _mul(a1, 11) ^ _mul(a2, 13) ^ _mul(a3, 9),
            _mul(a0, 9) ^ _mul(a1, 14) ^ _mul(a2, 11) ^ _mul(a3, 13),
            _mul(a0, 13) ^ _mul(a1, 9) ^ _mul(a2, 14) ^ _mul(a3, 11),
            _mul(a0, 11) ^ _mul(a1, 13) ^ _mul(a2, 9) ^ _mul(a3, 14)]


def enc_schedule(key):
    return b"".join(expand_key(key)).ljust(256, b"\0")


def dec_schedule(key):
    """Equivalent inverse cipher schedule (as the kernel's key_dec)."""
    rk = expand_key(key)[::-1]
    out = [rk[0]]
    for r in rk[1:-1]:
        out.append(bytes(sum((_imc(r[4 * c:4 * c + 4]) for c in range(4)), [])))
    out.append(rk[-1])
    return b"".join(out).ljust(256, b"\0")


def cword(key_len, decrypt=False, keygen=None, extra=0):
    ksize = {16: 0, 24: 1, 32: 2}[key_len]
    if keygen is None:
        keygen = key_len != 16
    w = (10 + 2 * ksize) | (0x80 if keygen else 0) | (0x200 if decrypt else 0) | \
        (ksize << 10) | extra
    return struct.pack("<4I", w & 0xFFFFFFFF, 0, 0, 0)


# ---- CAVP file parsing --------------------------------------------------------

VEC = "/usr/lib/python3/dist-packages/cryptography_vectors"


def parse_rsp(path):
    """Yield (section, dict) for every record of a CAVP .rsp/.txt file."""
    section, rec = "", {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                if rec:
                    yield section, rec
                    rec = {}
                section = line.strip("[]")
            elif "=" in line and not line.startswith("#"):
                k, v = (x.strip() for x in line.split("=", 1))
                if k == "COUNT" and rec:
                    yield section, rec
                    rec = {}
                rec[k] = v
            elif not line and rec and "COUNT" not in rec:
                yield section, rec
                rec = {}
    if rec:
        yield section, rec
