#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fscrypt v2 policies through the ioctls, for routing.sh.

  fscrypt_v2.py MNT DIR    add a random 64-byte v2 master key to the
                           filesystem at MNT and print its identifier (hex);
                           then set a v2 policy with that key on the empty
                           directory DIR: AES-256-XTS contents, AES-256-CTS
                           filenames

The fscrypt ioctls are the kernel's UAPI (<linux/fscrypt.h>), called with
fcntl.ioctl, so that no fscrypt tool needs to be installed.
"""
import fcntl
import os
import struct
import sys

# <linux/fscrypt.h>
FS_IOC_SET_ENCRYPTION_POLICY = 0x800C6613      # _IOR('f', 19, 12 bytes)
FS_IOC_ADD_ENCRYPTION_KEY = 0xC0506617         # _IOWR('f', 23, 80 bytes)
FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER = 2
FSCRYPT_POLICY_V2 = 2
FSCRYPT_MODE_AES_256_XTS = 1
FSCRYPT_MODE_AES_256_CTS = 4
FSCRYPT_POLICY_FLAGS_PAD_32 = 0x03


def dir_ioctl(path, req, arg):
    """ioctl REQ on the directory PATH; ARG (a bytearray) is updated."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.ioctl(fd, req, arg)
    finally:
        os.close(fd)


def key_spec(ident=b""):
    """struct fscrypt_key_specifier: type, reserved, 32-byte union."""
    return struct.pack("<II32s", FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER, 0, ident)


def fscrypt_add_key(mnt):
    raw = os.urandom(64)
    # struct fscrypt_add_key_arg: key_spec, raw_size, key_id, 8 reserved, raw[]
    arg = bytearray(key_spec() + struct.pack("<II32x", len(raw), 0) + raw)
    dir_ioctl(mnt, FS_IOC_ADD_ENCRYPTION_KEY, arg)
    return bytes(arg[8:24]).hex()


def fscrypt_set_policy(path, ident):
    # struct fscrypt_policy_v2: version, contents, filenames, flags,
    # log2_data_unit_size (0: the filesystem's block size), 3 reserved,
    # master_key_identifier[16]
    pol = struct.pack("<BBBBB3x16s", FSCRYPT_POLICY_V2, FSCRYPT_MODE_AES_256_XTS,
                      FSCRYPT_MODE_AES_256_CTS, FSCRYPT_POLICY_FLAGS_PAD_32, 0,
                      bytes.fromhex(ident))
    dir_ioctl(path, FS_IOC_SET_ENCRYPTION_POLICY, bytearray(pol))


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip())
        return 2
    try:
        ident = fscrypt_add_key(argv[1])
        print(ident, flush=True)
        fscrypt_set_policy(argv[2], ident)
    except OSError as e:
        print(f"{e.strerror or e}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
