#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""AF_ALG known-answer checks of a named crypto driver (used by
sim-intree.sh for the kernel's own padlock drivers under padlock-sim).

usage: sim_afalg.py skcipher DRIVER   (ecb/cbc AES, SP 800-38A vectors)
       sim_afalg.py hash DRIVER ALG   (sha1/sha256: FIPS 180 + random vs hashlib)
Exit 0 when every answer is right; prints what was wrong otherwise."""
import hashlib
import os
import socket
import sys

# NIST SP 800-38A F.1.1/F.1.5 (ECB) and F.2.1/F.2.5 (CBC)
PT = bytes.fromhex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
                   "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710")
K128 = bytes.fromhex("2b7e151628aed2a6abf7158809cf4f3c")
K256 = bytes.fromhex("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
IV = bytes.fromhex("000102030405060708090a0b0c0d0e0f")
CT = {
    ("ecb", 16): "3ad77bb40d7a3660a89ecaf32466ef97f5d3d58503b9699de785895a96fdbaaf"
                 "43b1cd7f598ece23881b00e3ed0306887b0c785e27e8ad3f8223207104725dd4",
    ("ecb", 32): "f3eed1bdb5d2a03c064b5a7e3db181f8591ccb10d410ed26dc5ba74a31362870"
                 "b6ed21b99ca6f4f9f153e7b1beafed1d23304b7a39f9f3ff067d8d8f9e24ecc7",
    ("cbc", 16): "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
                 "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7",
    ("cbc", 32): "f58c4c04d6e5f1ba779eabfb5f7bfbd69cfc4e967edb808d679f777bc6702c7d"
                 "39f23369a9d9bacfa530e26304231461b2eb05e2c39be9fcda6c19078c6a9d1b",
}


def skcipher(driver):
    mode = "cbc" if "cbc" in driver else "ecb"
    bad = []
    for key in (K128, K256):
        for decrypt in (False, True):
            s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
            s.bind(("skcipher", driver))
            s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
            op, _ = s.accept()
            src = bytes.fromhex(CT[(mode, len(key))]) if decrypt else PT
            want = PT if decrypt else bytes.fromhex(CT[(mode, len(key))])
            kw = {"iv": IV} if mode == "cbc" else {}
            op.sendmsg_afalg([src], op=socket.ALG_OP_DECRYPT if decrypt
                             else socket.ALG_OP_ENCRYPT, **kw)
            got = op.recv(len(src))
            if got != want:
                bad.append(f"{driver} key{8 * len(key)} {'dec' if decrypt else 'enc'}: "
                           f"{got.hex()}")
            op.close()
            s.close()
    # a larger request in several sends: round trip through the driver
    key = os.urandom(24)
    data = os.urandom(4096 + 48)
    outs = []
    for decrypt in (False, True):
        s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
        s.bind(("skcipher", driver))
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        op, _ = s.accept()
        src = outs[0] if decrypt else data
        kw = {"iv": IV} if mode == "cbc" else {}
        op.sendmsg_afalg([src], op=socket.ALG_OP_DECRYPT if decrypt
                         else socket.ALG_OP_ENCRYPT, **kw)
        outs.append(op.recv(len(src)))
        op.close()
        s.close()
    if outs[1] != data:
        bad.append(f"{driver}: 192-bit 4144-byte round trip differs")
    return bad


def hash_(driver, alg):
    bad = []
    msgs = [b"", b"abc", b"a" * 55, b"a" * 56, b"a" * 64, b"x" * 1000,
            os.urandom(5000)]
    for m in msgs:
        s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
        s.bind(("hash", driver))
        op, _ = s.accept()
        if m:
            # two sends: update + final
            op.send(m[:len(m) // 2], socket.MSG_MORE)
            op.send(m[len(m) // 2:])
        else:
            op.send(b"")
        got = op.recv(64)
        want = hashlib.new(alg, m).digest()
        if got != want:
            bad.append(f"{driver} len {len(m)}: {got.hex()} != {want.hex()}")
        op.close()
        s.close()
    return bad


def main():
    try:
        if sys.argv[1] == "skcipher":
            bad = skcipher(sys.argv[2])
        else:
            bad = hash_(sys.argv[2], sys.argv[3])
    except OSError as e:
        print(f"AF_ALG error: {e}")
        return 1
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
