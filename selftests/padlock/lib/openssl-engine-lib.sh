# SPDX-License-Identifier: GPL-2.0
# OpenSSL's padlock engine (engines-3/padlock.so) under padlock-sim's
# user-mode emulation: the set-up shared by sim-openssl.sh and
# tools/measure/openssl-speed-icount.sh; the cipher comparison also for
# qemu-openssl.sh (the project's QEMU, which needs no set-up).  Source it;
# SIM is the simulator's debugfs directory.
#
#   openssl_engine_so               the engine's path (empty if none)
#   openssl_engine_cpuid SIM SO     provide CPUID leaves 0xC0000000/1 at the
#                                   engine's CPUID sites; prints how many
#   openssl_engine_cpuid_sites SO   those sites: "OFFSET LEAF" lines
#   openssl_engine_popf SIM SO      watch the engine's separate key reloads;
#                                   prints how many (-1 without objdump)
#   openssl_engine_compare TMP      every cipher of the engine against
#                                   OpenSSL's software path (ktap_report lines)

openssl_engine_so() {
	local edir
	edir=$(openssl version -e 2>/dev/null | sed -n 's/^ENGINESDIR: "\(.*\)"$/\1/p')
	[ -n "$edir" ] && [ -r "$edir/padlock.so" ] && echo "$edir/padlock.so"
}

# The engine decides from CPUID leaf 0xC0000001, which QEMU's software CPU
# hides.  Its CPUID sites: the instruction right after each
# "mov $0xc000000N, %eax; [push %ebx;] cpuid" (b8 imm32 [53] 0f a2; the
# push is the 32-bit engine's), as file offsets; the simulator's debugfs
# user_cpuid replaces the results there with the profile's leaves.
openssl_engine_cpuid_sites() {
	python3 - "$1" <<'EOF'
import re
import sys

data = open(sys.argv[1], "rb").read()
for leaf in (0xC0000000, 0xC0000001):
    pat = re.escape(b"\xb8" + leaf.to_bytes(4, "little")) + rb"\x53?\x0f\xa2"
    for m in re.finditer(pat, data):
        print(f"{m.end():#x} {leaf:#x}")
EOF
}

openssl_engine_cpuid() {
	local sim=$1 so=$2 sites off leaf n=0
	sites=$(openssl_engine_cpuid_sites "$so")
	while read -r off leaf; do
		[ -n "$off" ] || continue
		if echo "$so $off $leaf" > "$sim/user_cpuid"; then
			n=$((n + 1))
		else
			echo "user_cpuid: $so $off $leaf refused" >&2
		fi
	done <<< "$sites"
	echo "$n"
}

# The engine's key reloads: "pushf; popf" pairs (instruction boundaries as
# objdump decodes them) that are not right before an xcrypt, so that the
# simulator sees EFLAGS bit 30 cleared (debugfs user_popf, at the
# instruction after the pair).  Under QEMU the engine always reads bit 30
# as clear (it cannot be set), skips the popf of its context check and
# expects a reload: the site after that pair (also reached when the popf
# is skipped) gives the simulator the reload the engine counts on.  Each
# site is a uprobe: two traps per hit that the simulator's cost file does
# not see.
openssl_engine_popf() {
	local sim=$1 so=$2 pairs off np=0
	if ! command -v objdump > /dev/null; then
		echo -1
		return
	fi
	pairs=$(objdump -d --no-show-raw-insn "$so" 2>/dev/null | python3 -c '
import re
import struct
import sys

# file offset of a virtual address, from the ELF program headers
elf = open(sys.argv[1], "rb").read()
is64 = elf[4] == 2
phoff, phentsize, phnum = (struct.unpack_from("<Q", elf, 32)[0], *struct.unpack_from("<HH", elf, 54)) \
    if is64 else (struct.unpack_from("<I", elf, 28)[0], *struct.unpack_from("<HH", elf, 42))
segs = []
for i in range(phnum):
    o = phoff + i * phentsize
    if is64:
        typ, _, off, vaddr, _, filesz = struct.unpack_from("<IIQQQQ", elf, o)
    else:
        typ, off, vaddr, _, filesz = struct.unpack_from("<IIIII", elf, o)
    if typ == 1:
        segs.append((vaddr, off, filesz))
insns = []
for line in sys.stdin:
    m = re.match(r"\s*([0-9a-f]+):\s+(\S+)", line)
    if m:
        insns.append((int(m.group(1), 16), m.group(2)))
for (a, x), (_, y) in zip(insns, insns[1:]):
    if x.startswith("pushf") and y.startswith("popf"):
        for vaddr, off, filesz in segs:
            if vaddr <= a < vaddr + filesz:
                print(hex(a + 2 - vaddr + off))
' "$so")
	for off in $pairs; do
		echo "$so $off" > "$sim/user_popf" && np=$((np + 1))
	done
	echo "$np"
}

# openssl_engine_compare TMP: every cipher the engine offers (AES-128/192/256
# in ECB, CBC, CFB, OFB, CTR) through "openssl enc -engine padlock" against
# OpenSSL's software path, both directions, on a message that is not a
# multiple of the block size; one "PASS DESC" or "FAIL DESC | WHY" line per
# cipher (ktap_report reads them).  TMP is an empty scratch directory.
openssl_engine_compare() {
	local tmp=$1 bits key iv mode line c
	local -a ciphers
	# not a multiple of 16: the padding of ECB/CBC, a partial block in the others
	head -c 4101 /dev/urandom > "$tmp/plain"
	for bits in 128 192 256; do
		key=$(head -c $((bits / 8)) /dev/urandom | od -An -tx1 | tr -d ' \n')
		iv=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
		for mode in ecb cbc cfb ofb ctr; do
			ciphers+=("aes-$bits-$mode $key $iv")
		done
	done
	# OpenSSL's software path, all ciphers in one process when Debian's
	# python3-cryptography (OpenSSL underneath) is there: each openssl run
	# costs seconds under software emulation
	printf '%s\n' "${ciphers[@]}" > "$tmp/list"
	/usr/bin/python3 - "$tmp" 2> /dev/null <<'EOF2' || rm -f "$tmp"/sw.*
import sys
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

tmp = sys.argv[1]
plain = open(f"{tmp}/plain", "rb").read()
for line in open(f"{tmp}/list"):
    c, key, iv = line.split()
    mode = c.split("-")[2]
    key, iv = bytes.fromhex(key), bytes.fromhex(iv)
    m = {"ecb": lambda: modes.ECB(), "cbc": lambda: modes.CBC(iv),
         "cfb": lambda: modes.CFB(iv), "ofb": lambda: modes.OFB(iv),
         "ctr": lambda: modes.CTR(iv)}[mode]()
    data = plain
    if mode in ("ecb", "cbc"):
        p = padding.PKCS7(128).padder()
        data = p.update(plain) + p.finalize()
    e = Cipher(algorithms.AES(key), m).encryptor()
    open(f"{tmp}/sw.{c}", "wb").write(e.update(data) + e.finalize())
EOF2
	# One cipher: the engine's encryption against the software one, and its
	# decryption where it is a different operation (ECB, CBC, CFB; OFB and CTR
	# decrypt by encrypting).  Two at a time: each openssl run costs seconds
	# under software emulation.
	one_cipher() {
		local c=$1 key=$2 iv=$3 mode=${1##*-} err= args
		args=(-K "$key")
		[ "$mode" = ecb ] || args+=(-iv "$iv")
		if [ ! -e "$tmp/sw.$c" ]; then
			openssl enc -"$c" -e "${args[@]}" -in "$tmp/plain" \
				-out "$tmp/sw.$c" > /dev/null 2>&1 ||
				err="software encryption failed"
		fi
		[ -z "$err" ] && { openssl enc -engine padlock -"$c" -e "${args[@]}" \
			-in "$tmp/plain" -out "$tmp/pl.$c" > "$tmp/log.$c" 2>&1 ||
			err="engine encryption failed: $(tail -n 2 "$tmp/log.$c" | tr '\n' ' ')"; }
		[ -z "$err" ] && { cmp -s "$tmp/sw.$c" "$tmp/pl.$c" ||
			err="engine ciphertext differs from the software one"; }
		case $mode in ecb|cbc|cfb)
			[ -z "$err" ] && { openssl enc -engine padlock -"$c" -d "${args[@]}" \
				-in "$tmp/sw.$c" -out "$tmp/dec.$c" > "$tmp/log.$c" 2>&1 ||
				err="engine decryption failed: $(tail -n 2 "$tmp/log.$c" | tr '\n' ' ')"; }
			[ -z "$err" ] && { cmp -s "$tmp/plain" "$tmp/dec.$c" ||
				err="engine decryption differs from the plaintext"; } ;;
		esac
		if [ -z "$err" ]; then
			echo "PASS $c: engine = software" > "$tmp/res.$c"
		else
			echo "FAIL $c: engine = software | $err" > "$tmp/res.$c"
		fi
	}
	export -f one_cipher
	export tmp

	printf '%s\n' "${ciphers[@]}" | xargs -P 2 -L 1 bash -c 'one_cipher "$@"' _
	for line in "${ciphers[@]}"; do
		read -r c _ <<< "$line"
		cat "$tmp/res.$c" 2>/dev/null || echo "FAIL $c: engine = software | no result"
	done
}
