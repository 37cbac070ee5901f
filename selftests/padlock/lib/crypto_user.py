#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Set a crypto driver's priority through crypto_user (NETLINK_CRYPTO,
CRYPTO_MSG_UPDATEALG), the way padlock-bench switches the driver ESP uses.
The kernel drops every template instance built on the driver, so the next
user builds its transform afresh.

usage: crypto_user.py DRIVER PRIORITY [DRIVER PRIORITY ...]
Exit status 0, or 1 with the kernel's error on standard error.
"""
import os
import socket
import struct
import sys

NETLINK_CRYPTO = 21
CRYPTO_MSG_UPDATEALG = 0x12
CRYPTOCFGA_PRIORITY_VAL = 1
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLMSG_ERROR = 0x2


def update_priority(sock, seq, driver, prio):
    # struct crypto_user_alg: name, driver name, module name (64 bytes
    # each), then type, mask, refcnt and flags (u32 each)
    alg = struct.pack('64s64s64sIIII', b'', driver.encode(), b'', 0, 0, 0, 0)
    attr = struct.pack('HHI', 8, CRYPTOCFGA_PRIORITY_VAL, prio)
    body = alg + attr
    hdr = struct.pack('IHHII', 16 + len(body), CRYPTO_MSG_UPDATEALG,
                      NLM_F_REQUEST | NLM_F_ACK, seq, 0)
    sock.send(hdr + body)
    reply = sock.recv(4096)
    _, mtype, _, _, _ = struct.unpack_from('IHHII', reply)
    if mtype != NLMSG_ERROR:
        raise OSError(0, f'unexpected netlink reply type {mtype}')
    err = struct.unpack_from('i', reply, 16)[0]
    if err:
        raise OSError(-err, os.strerror(-err))


def main():
    args = sys.argv[1:]
    if not args or len(args) % 2:
        sys.exit(__doc__)
    try:
        sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_CRYPTO)
    except OSError as e:
        sys.exit(f'crypto_user: no NETLINK_CRYPTO socket ({e.strerror}): modprobe crypto_user')
    with sock:
        for seq, i in enumerate(range(0, len(args), 2), 1):
            try:
                update_priority(sock, seq, args[i], int(args[i + 1]))
            except OSError as e:
                sys.exit(f'crypto_user: priority of {args[i]}: {e.strerror}')


if __name__ == '__main__':
    main()
