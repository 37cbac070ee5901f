#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Patches 0006 and 0007 through AF_ALG: the crypto library's AES modes,
bound by the driver names of their crypto-API wrappers (ecb-aes-lib,
cbc-aes-lib, cts-cbc-aes-lib, ctr-aes-lib, xts-aes-lib), against a
user-space AES (python3-cryptography).  Run by lib-aes.sh in a guest of the
project's QEMU (the AES counters come from tools/testing/qemu/padlock-msr).

Per mode, COUNT random requests: AES-128, -192 and -256 keys, 1 to 17
blocks (CTR and CTS also with a partial last block), encryption and
decryption; the source spliced in so that it ends at a page end (where a
prefetch past the last block would read into the next page) or sent with
sendmsg, the result read back at offset 0, at an odd offset or ending at a
page end; for CTR counters whose low 16 bits are 0xfffe or 0xffff and the
all-ones counter, so that requests cross the engine's 16-bit counter wrap
and the 128-bit one.  Prints one line per mode:

    MODE REQUESTS WRONG XCRYPT-ECB XCRYPT-CBC XCRYPT-CTR VIOLATIONS OVERREAD-PAGES

the counters being what the emulated CPU counted meanwhile.

usage: lib_aes.py COUNT [SEED]
"""

import os
import random
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(top, "selftests", "padlock", "lib"))
import aes_afalg as af  # noqa: E402

MSR = os.path.join(top, "tools", "testing", "qemu", "padlock-msr")
COUNTERS = ("xcrypt_ecb", "xcrypt_cbc", "xcrypt_ctr", "violations", "overread_pages")
DRIVERS = {"ecb": "ecb-aes-lib", "cbc": "cbc-aes-lib", "cts": "cts-cbc-aes-lib",
           "ctr": "ctr-aes-lib", "xts": "xts-aes-lib"}
BS = 16


def counters():
    out = subprocess.run([MSR] + list(COUNTERS), capture_output=True,
                         text=True, check=True).stdout
    vals = dict(line.split() for line in out.splitlines())
    return [int(vals[c]) for c in COUNTERS]


def request(rng, mode):
    """Key, IV, data and offset of the read-back buffer for one request."""
    klen = rng.choice((16, 24, 32))
    if mode == "xts":
        klen *= 2
        while True:
            key = rng.randbytes(klen)
            if key[:klen // 2] != key[klen // 2:]:
                break
    else:
        key = rng.randbytes(klen)
    blocks = rng.randint(1, 17)
    n = blocks * BS
    if mode in ("ctr", "xts") and rng.random() < 0.3:
        n += rng.randint(1, BS - 1)
    if mode == "cts" and blocks > 1 and rng.random() < 0.5:
        n -= rng.randint(1, BS - 1)
    iv = None if mode == "ecb" else rng.randbytes(BS)
    if mode == "ctr":
        edge = rng.choice((None, 0xfffe, 0xffff, "ones"))
        if edge == "ones":
            iv = b"\xff" * BS
        elif edge is not None:
            iv = iv[:BS - 2] + edge.to_bytes(2, "big")
    out_off = rng.choice((0, 0, 1, 4096 - n, None))
    return key, iv, rng.randbytes(n), out_off


def op_page_end(t, data, iv, enc):
    """One request whose source ends at a page end: the data written to a
    pipe behind padding that fills the pipe's page up to it, the padding
    read out again, and the data spliced into the request (AF_ALG takes
    spliced pages by reference)."""
    op, _ = t.accept()
    op.settimeout(30)
    n = len(data)
    try:
        kw = {"op": af.socket.ALG_OP_ENCRYPT if enc else af.socket.ALG_OP_DECRYPT}
        if iv is not None:
            kw["iv"] = iv
        op.sendmsg_afalg([], flags=af.socket.MSG_MORE, **kw)
        r, w = os.pipe()
        try:
            pad = 4096 - n
            os.write(w, bytes(pad) + data)
            got = 0
            while got < pad:
                got += len(os.read(r, pad - got))
            done = 0
            while done < n:
                done += os.splice(r, op.fileno(), n - done)
        finally:
            os.close(r)
            os.close(w)
        return af.recv_all(op, n)
    finally:
        op.close()


def run_mode(rng, mode, count):
    ours = af.tfm(DRIVERS[mode])
    ref = af.UserCipher(mode)
    wrong = 0
    before = counters()
    for i in range(count):
        key, iv, data, out_off = request(rng, mode)
        enc = rng.random() < 0.5
        ours.setsockopt(af.socket.SOL_ALG, af.socket.ALG_SET_KEY, key)
        ref.setsockopt(None, None, key)
        if out_off is None:
            got = op_page_end(ours, data, iv, enc)
        else:
            got = af.op_pattern(ours, data, iv, enc, rng, out_off=out_off)
        want = ref.crypt(data, iv, enc)
        if got != want:
            wrong += 1
            if wrong <= 3:
                print(f"# {mode} request {i}: wrong output: {'enc' if enc else 'dec'} "
                      f"key {len(key)} bytes, {len(data)} bytes, "
                      f"{'source ending at a page end' if out_off is None else f'read back at offset {out_off}'}, "
                      f"iv {iv.hex() if iv else '-'}", flush=True)
    after = counters()
    ours.close()
    delta = [b - a for a, b in zip(before, after)]
    print(mode, count, wrong, *delta, flush=True)
    return wrong


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(1 << 32)
    print(f"# seed {seed}, {count} requests per mode", flush=True)
    rng = random.Random(seed)
    for mode in ("ecb", "cbc", "cts", "ctr", "xts"):
        run_mode(rng, mode, count)


if __name__ == "__main__":
    main()
