#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instantiate crypto API algorithms through AF_ALG, one after the other.

usage: afalg_build.py [--timeout SECONDS] TYPE:NAME ...

TYPE is skcipher, hash or aead.  Each NAME is bound once (which makes the
kernel build the template instance and run its self-test) before the next
is tried; a bind that times out is repeated until SECONDS (default 900)
have passed.  One line per name says how long it took; the exit status is
1 if one could not be built.

Why: a caller of the crypto API waits at most 60 s for an instance to be
built and tested (crypto_larval_wait), and on a kernel with the randomized
self-tests (CONFIG_CRYPTO_MANAGER_EXTRA_TESTS) under KASAN and software
emulation one first use of authenc(hmac(sha256),cbc(aes)) builds and tests
the generic reference (hmac, cbc, authenc over the generic drivers) inside
that wait.  Building the pieces leaves first keeps every wait short; a
test larval that did time out is dropped by the kernel, and its instance
then answers ELIBBAD until it is freed, which is reported as such.
"""
import errno
import socket
import sys
import time

RETRY = {errno.ETIMEDOUT, errno.EAGAIN, errno.EINTR}


def build(typ, name, deadline):
    t0 = time.monotonic()
    while True:
        try:
            s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
            try:
                s.bind((typ, name))
            finally:
                s.close()
            return None, time.monotonic() - t0
        except OSError as e:
            if e.errno not in RETRY or time.monotonic() > deadline:
                return e, time.monotonic() - t0
            time.sleep(1)


def main(argv):
    timeout = 900
    if len(argv) > 1 and argv[0] == "--timeout":
        timeout = int(argv[1])
        argv = argv[2:]
    if not argv:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    deadline = time.monotonic() + timeout
    rc = 0
    for arg in argv:
        typ, _, name = arg.partition(":")
        err, took = build(typ, name, deadline)
        if err is None:
            print(f"{typ} {name}: instantiated in {took:.1f} s")
        else:
            why = "its self-test was abandoned after a 60 s wait (ELIBBAD)" \
                if err.errno == errno.ELIBBAD else err.strerror
            print(f"{typ} {name}: not instantiated after {took:.1f} s: {why}")
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
