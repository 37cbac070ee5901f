#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Run the padlock-migrate guest in qemu-system-x86_64 on a VIA Nano model:
'plain' without a migration, 'migrate' with one while the guest waits
between its two XCRYPTs (stop, migrate to a file, quit; a new QEMU
restores it, cont).  The guest passes when its second XCRYPT, without a
key reload, still uses the key the first one loaded.

usage: migrate.py QEMU_SYSTEM FIRMWARE_DIR WORK_DIR plain|migrate"""
import os, socket, subprocess, sys, time

QEMU, FW, D = sys.argv[1:4]
CPU = ('qemu64,vendor=CentaurHauls,family=6,model=15,stepping=3,+xstore,'
       '+xstore-en,+xcrypt,+xcrypt-en,+ace2,+ace2-en,+phe,+phe-en,'
       'padlock-strict=on')


def args(tag, extra):
    return [QEMU, '-M', 'q35', '-accel', 'tcg', '-cpu', CPU, '-m', '64',
            '-display', 'none', '-nodefaults', '-L', FW,
            '-chardev', 'file,id=output,path=%s/out-%s.txt' % (D, tag),
            '-device', 'isa-debugcon,chardev=output',
            '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x4',
            '-chardev', 'socket,id=ser,path=%s/ser-%s.sock,server=on,wait=off' % (D, tag),
            '-serial', 'chardev:ser',
            '-monitor', 'unix:%s/mon-%s.sock,server=on,wait=off' % (D, tag),
            '-kernel', D + '/padlock-migrate'] + extra


def connect(path):
    for _ in range(200):
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(path)
            return s
        except OSError:
            time.sleep(0.1)
    raise SystemExit('no socket ' + path)


def hmp(s, cmd):
    s.sendall(cmd.encode() + b'\n')
    buf = b''
    s.settimeout(60)
    while not buf.rstrip().endswith(b'(qemu)'):
        data = s.recv(4096)
        if not data:        # QEMU closed the monitor (quit)
            break
        buf += data
    return buf.decode(errors='replace')


def wait_text(path, text, secs=120):
    end = time.time() + secs
    while time.time() < end:
        if os.path.exists(path) and text in open(path).read():
            return True
        time.sleep(0.2)
    return False


def start(tag, extra=()):
    for f in ('out-%s.txt', 'ser-%s.sock', 'mon-%s.sock'):
        try:
            os.unlink(D + '/' + f % tag)
        except FileNotFoundError:
            pass
    p = subprocess.Popen(args(tag, list(extra)))
    mon = connect('%s/mon-%s.sock' % (D, tag))
    hmp(mon, '')
    return p, mon


def finish(p, mon, tag):
    ser = connect('%s/ser-%s.sock' % (D, tag))
    ser.sendall(b'x')
    ok = wait_text('%s/out-%s.txt' % (D, tag), 'PASS', 60)
    out = open('%s/out-%s.txt' % (D, tag)).read()
    try:
        hmp(mon, 'quit')
    except OSError:
        pass
    p.wait(30)
    return ok, out


def main(mode):
    t0 = time.time()
    p, mon = start('src')
    if not wait_text(D + '/out-src.txt', 'READY'):
        raise SystemExit('guest never said READY')
    if mode == 'plain':
        ok, out = finish(p, mon, 'src')
    else:
        hmp(mon, 'stop')
        st = D + '/state.bin'
        hmp(mon, 'migrate "exec:cat > %s"' % st)
        while 'completed' not in hmp(mon, 'info migrate'):
            time.sleep(0.2)
        hmp(mon, 'quit')
        p.wait(30)
        print('saved %d bytes' % os.path.getsize(st))
        p, mon = start('dst', ['-incoming', 'exec:cat %s' % st])
        while True:
            s = hmp(mon, 'info status')
            if 'inmigrate' not in s:
                break
            time.sleep(0.2)
        print(s.strip().splitlines()[-2] if len(s.strip().splitlines()) > 1 else s)
        hmp(mon, 'cont')
        ok, out = finish(p, mon, 'dst')
    print(out.strip())
    print('%s: %s (%.1f s)' % (mode, 'PASS' if ok else 'FAIL', time.time() - t0))
    return 0 if ok else 1


sys.exit(main(sys.argv[4]))
