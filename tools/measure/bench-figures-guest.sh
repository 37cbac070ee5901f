#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Inside the VM of tools/measure/bench-figures: the generic AES driver measured by
# cryptsetup benchmark, kcapi-speed and padlock-bench, interleaved in rounds.
# Raw results go to $1; tools/measure/bench-figures makes the table from them.
#
# usage: tools/measure/bench-figures-guest.sh OUTDIR ROUNDS
set -u
out=$1 rounds=$2
cd "$PADLOCK_TOP" || exit 1
bench=tools/padlock-bench/padlock-bench
mkdir -p "$out"
rm -f "$out"/cs-* "$out"/pb* "$out"/ks-* "$out"/method-* "$out"/setup-* "$out"/guest.txt
info() { echo "$*" >> "$out/guest.txt"; }

# name driver module priority type, one line per /proc/crypto entry
crypto_list() {
	awk -v RS= -F'\n' '{
		n = d = m = p = t = ""
		for (i = 1; i <= NF; i++) {
			k = $i; sub(/[ \t]*:.*/, "", k)
			v = $i; sub(/^[^:]*: ?/, "", v)
			if (k == "name") n = v; else if (k == "driver") d = v
			else if (k == "module") m = v; else if (k == "priority") p = v
			else if (k == "type") t = v
		}
		print n, d, m, p, t
	}' /proc/crypto
}

info "kernel=$(uname -r)"
info "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
info "guest_loadavg_before=$(cut -d' ' -f1-3 /proc/loadavg)"
info "cryptsetup=$(cryptsetup --version 2>&1 | head -n1)"
info "kcapi_speed=$(tools/measure/kcapi-speed --source 2>&1)"

# cryptsetup benchmark cannot pin a driver: it binds "xts(aes)" and
# "cbc(aes)", so the kernel's highest-priority driver must be the generic
# one.  Keep every other AES module (AES-NI on QEMU's "max" CPU; the kernel
# asks for crypto-aes while it builds xts(aes)) from loading, through a
# modprobe.d file in /run (the guest's / is the host's, read-only), and
# unload those already loaded.
conf=/run/modprobe.d/padlock-bench-figures.conf
mkdir -p /run/modprobe.d
blocked=
for a in crypto-aes 'crypto-ecb(aes)' 'crypto-cbc(aes)' 'crypto-ctr(aes)' 'crypto-xts(aes)'; do
	for m in $(modprobe -R "$a" 2> /dev/null); do
		case "$m" in *generic*|*_lib|libaes) continue ;; esac
		case " $blocked " in *" $m "*) continue ;; esac
		blocked="$blocked $m"
		printf 'blacklist %s\ninstall %s /bin/false\n' "$m" "$m" >> "$conf"
	done
done
trap 'rm -f "$conf"' EXIT
info "blocked=${blocked# }"
removed=
for m in $(crypto_list | awk '($1 == "aes" || $1 ~ /^(ecb|cbc|ctr|xts)\(aes\)$/) &&
		$2 !~ /-(generic|lib)$/ && $2 !~ /\(/ && $3 != "kernel" { print $3 }' | sort -u); do
	if modprobe -r "$m" 2>> "$out/guest.txt"; then
		removed="$removed $m"
	fi
done
info "unloaded=${removed# }"
left=$(crypto_list | awk '($1 == "aes" || $1 ~ /^(cbc|xts)\(aes\)$/) && $2 !~ /-(generic|lib)$/ && $2 !~ /\(/ { printf "%s(%s) ", $2, $3 }')
info "other_aes_drivers_left=${left% }"

# the pins: the generic cipher under the mode template, or the mode's own
# -lib driver (Linux 7)
gen=$(crypto_list | awk '$1 == "aes" && $5 == "cipher" && $2 ~ /-(generic|lib)$/ { print $2; exit }')
if [ -z "$gen" ]; then
	info "error=no generic AES cipher (aes-generic or aes-lib) in /proc/crypto"
	exit 1
fi
cbc="cbc($gen)" xts="xts(ecb($gen))"
crypto_list | awk '$2 == "cbc-aes-lib" { f = 1 } END { exit !f }' && cbc=cbc-aes-lib
crypto_list | awk '$2 == "xts-aes-lib" { f = 1 } END { exit !f }' && xts=xts-aes-lib
info "pin_cbc=$cbc"
info "pin_xts=$xts"

ks=$(tools/measure/kcapi-speed --path 2>/dev/null)
# warm-up, not recorded: the first use loads the template modules (xts, ecb,
# algif_skcipher) and builds the instances, which takes seconds under TCG
echo "bench-figures: warm-up ($(cut -d' ' -f1-3 /proc/loadavg))"
cryptsetup benchmark --cipher aes-xts --key-size 512 > /dev/null 2>&1
cryptsetup benchmark --cipher aes-cbc --key-size 256 > /dev/null 2>&1
if [ -n "$ks" ]; then
	# kcapi-speed's only generic XTS test binds "xts(aes-generic)"
	"$ks" -r -s -t 1 -c "AES(G) XTS(G) 256" > "$out/ks-xts.txt" 2>&1
fi
# Each tool's run sits next to the other tool's run of the same cipher, so
# that a pair sees about the same load.
pb() {
	"$bench" afalg --path sendmsg --runs 1 --time 1000 "$@"
}
# cryptsetup's loop shape against padlock-bench's, in one small Python
# program, so that the one difference in method that matters can be seen:
# cryptsetup opens a new AF_ALG socket (bind, setkey, accept) for every 1 MiB
# pass and encrypts in place; padlock-bench keeps one socket.  Prints
# "MODE KEYBITS OP MiB/s-new-socket-per-MiB MiB/s-one-socket", 0.7 s each.
afalg_method() {
	python3 - <<'PY'
import os, socket, time
K, MIB, T = 65536, 1 << 20, 0.7
for name, keylen in (('xts', 64), ('cbc', 32)):
    key, iv = os.urandom(keylen), os.urandom(16)

    def opsock():
        s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET, 0)
        s.bind(('skcipher', f'{name}(aes)'))
        s.setsockopt(socket.SOL_ALG, socket.ALG_SET_KEY, key)
        return s, s.accept()[0]

    def one(op, enc, src, dst):
        op.sendmsg_afalg([src], op=socket.ALG_OP_ENCRYPT if enc else socket.ALG_OP_DECRYPT, iv=iv)
        if op.recv_into(dst, len(dst)) != len(dst):
            raise SystemExit('short AF_ALG read')

    for enc in (1, 0):
        mv = memoryview(bytearray(MIB))
        done, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < T:
            s, op = opsock()
            for off in range(0, MIB, K):
                one(op, enc, mv[off:off + K], mv[off:off + K])
            op.close()
            s.close()
            done += MIB
        per_pass = done / (time.monotonic() - t0) / MIB
        s, op = opsock()
        src, dst = memoryview(bytearray(os.urandom(K))), memoryview(bytearray(K))
        one(op, enc, src, dst)
        done, t0 = 0, time.monotonic()
        while time.monotonic() - t0 < T:
            one(op, enc, src, dst)
            done += K
        one_sock = done / (time.monotonic() - t0) / MIB
        op.close()
        s.close()
        print(name, keylen * 8, 'encrypt' if enc else 'decrypt', f'{per_pass:.3f}', f'{one_sock:.3f}')
PY
}
for r in $(seq 1 "$rounds"); do
	echo "bench-figures: round $r of $rounds ($(cut -d' ' -f1-3 /proc/loadavg))"
	cryptsetup benchmark --cipher aes-xts --key-size 512 > "$out/cs-xts-$r.txt" 2>&1
	pb --driver "$xts" --sizes 65536 --json "$out/pb64-xts-$r.json" > "$out/pb64-xts-$r.txt" 2>&1
	cryptsetup benchmark --cipher aes-cbc --key-size 256 > "$out/cs-cbc-$r.txt" 2>&1
	pb --driver "$cbc" --sizes 65536 --json "$out/pb64-cbc-$r.json" > "$out/pb64-cbc-$r.txt" 2>&1
	afalg_method > "$out/method-$r.txt" 2>&1
	if [ -n "$ks" ]; then
		# one 16-byte block, sendmsg, 1 s per direction
		"$ks" -r -s -t 1 -b 1 -c "AES(G) CBC(G) 128" > "$out/ks-$r.txt" 2>&1
		"$ks" -r -s -t 1 -b 1 -c "AES(G) CBC(G) 256" >> "$out/ks-$r.txt" 2>&1
	fi
	pb --driver "$cbc" --driver "$xts" --sizes 16 --json "$out/pb16-$r.json" > "$out/pb16-$r.txt" 2>&1
done

# which instances the kernel built and used: with no other driver left,
# these are what cryptsetup's "cbc(aes)"/"xts(aes)" resolved to
info "cbc_aes_drivers=$(crypto_list | awk '$1 == "cbc(aes)" { printf "%s/prio %s ", $2, $4 }')"
info "xts_aes_drivers=$(crypto_list | awk '$1 == "xts(aes)" { printf "%s/prio %s ", $2, $4 }')"
info "guest_loadavg_after=$(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
