#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fill the data segment of a LUKS2 aes-xts-plain64 image from a plain
file system image, in user space, so that building a disk image needs no
dm-crypt (and no kernel module) on the build machine.

usage: luks-encrypt.py LUKS_IMAGE VOLUME_KEY_FILE FS_IMAGE

LUKS_IMAGE was made by `cryptsetup luksFormat --type luks2 --cipher
aes-xts-plain64 --sector-size S --volume-key-file VOLUME_KEY_FILE`; its data
segment starts at the offset luksDump reports (read here from the LUKS2
JSON).  dm-crypt encrypts each S-byte sector with AES-XTS under the volume
key and the tweak plain64(n): n is the sector's number in 512-byte units
from the segment start (LUKS2 never sets iv_large_sectors), as a 64-bit
little-endian integer padded with zeros to 16 bytes.  Only the file
system image's data extents are written (SEEK_DATA/SEEK_HOLE): ext4 never
reads a block it did not write.
"""
import json
import os
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes


def luks2_segment(path):
    with open(path, "rb") as f:
        hdr = f.read(4096)
        if hdr[:6] != b"LUKS\xba\xbe" or int.from_bytes(hdr[6:8], "big") != 2:
            sys.exit(f"{path}: not a LUKS2 header")
        hdr_size = int.from_bytes(hdr[8:16], "big")
        f.seek(4096)
        meta = json.loads(f.read(hdr_size - 4096).rstrip(b"\0"))
    seg = meta["segments"]["0"]
    if seg["encryption"] != "aes-xts-plain64":
        sys.exit(f"{path}: segment cipher {seg['encryption']}, want aes-xts-plain64")
    return int(seg["offset"]), int(seg["sector_size"])


def extents(fd, size):
    pos = 0
    while pos < size:
        try:
            start = os.lseek(fd, pos, os.SEEK_DATA)
        except OSError:
            return
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end
        pos = end


def main():
    luks, vk_file, fs = sys.argv[1:4]
    offset, ssize = luks2_segment(luks)
    key = open(vk_file, "rb").read()
    aes = algorithms.AES(key)
    fsize = os.path.getsize(fs)
    if fsize % ssize:
        sys.exit(f"{fs}: size not a multiple of the {ssize}-byte sector")
    src = os.open(fs, os.O_RDONLY)
    dst = os.open(luks, os.O_WRONLY)
    if os.fstat(dst).st_size < offset + fsize:
        os.ftruncate(dst, offset + fsize)
    done = 0
    for start, end in extents(src, fsize):
        start -= start % ssize
        end += -end % ssize
        pos = start
        while pos < end:
            n = min(end - pos, 1 << 20)
            buf = os.pread(src, n, pos)
            out = bytearray(len(buf))
            for o in range(0, len(buf), ssize):
                tweak = ((pos + o) // 512).to_bytes(16, "little")
                enc = Cipher(aes, modes.XTS(tweak)).encryptor()
                out[o:o + ssize] = enc.update(buf[o:o + ssize]) + enc.finalize()
            os.pwrite(dst, out, offset + pos)
            pos += n
            done += n
    os.close(src)
    os.close(dst)
    print(f"luks-encrypt: {done >> 20} MiB of {fsize >> 20} MiB written "
          f"(sector {ssize}, data offset {offset})")


if __name__ == "__main__":
    main()
