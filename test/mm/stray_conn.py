#!/usr/bin/env python3
"""stray_conn.py PATTERN MAGIC VERSION: connect to every TCP port on which a process whose
command line contains PATTERN listens, and send it what a stranger might: nothing, random
bytes, an HTTP request, a megabyte of zeros, an all-ones handshake, a well-formed mm
handshake carrying a wrong token (the job's secret), one with token 0, and a wrong token
followed by a plausible packet; plus one connection that stays open and silent until the
job ends. Loopback only. Prints one line per attempt: what was sent and how the process
answered (closed / open / bytes back). Exits 2 if it found no listening port."""
import os
import random
import socket
import struct
import sys
import time

pattern, magic, version = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3], 0)


def job_ports():
    """(pid, port) of every listening IPv4 TCP socket that only matching processes hold
    (a rank also holds sockets it inherited from the launcher, whose port is hydra's
    business, not mm's)."""
    inodes, others = {}, set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
            mine = bool(argv) and pattern.encode() in os.path.basename(argv[0])
            for fd in os.listdir("/proc/%s/fd" % pid):
                link = os.readlink("/proc/%s/fd/%s" % (pid, fd))
                if link.startswith("socket:["):
                    if mine:
                        inodes[link[8:-1]] = int(pid)
                    else:
                        others.add(link[8:-1])
        except OSError:
            continue
    inodes = {i: p for i, p in inodes.items() if i not in others}
    found = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == "0A" and inode in inodes:          # LISTEN
                found.append((inodes[inode], int(local.split(":")[1], 16)))
    return sorted(found)


def hello(token, gpid=0x1234567800000000):
    return struct.pack("=IHHQQ", magic, version, 1, gpid, token)


def attempt(port, name, data):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    if data is None:
        s.close()
        print("port %d: %-28s -> %s" % (port, name, "closed by us"), flush=True)
        return
    try:
        s.sendall(data)
        s.settimeout(1)
        try:
            back = s.recv(64)
            answer = "closed" if back == b"" else "%d bytes back" % len(back)
        except socket.timeout:
            answer = "open after 1 s"
        except ConnectionResetError:
            answer = "reset"
    except (BrokenPipeError, ConnectionResetError):
        answer = "reset while sending"
    finally:
        s.close()
    print("port %d: %-28s -> %s" % (port, name, answer), flush=True)


def main():
    ports = []
    deadline = time.time() + 30
    while time.time() < deadline:
        ports = job_ports()
        if ports:
            break
        time.sleep(0.2)
    if not ports:
        print("no listening port of a process matching %r" % pattern)
        return 2
    rng = random.Random(12345)
    silent = []
    for pid, port in ports:
        print("pid %d listens on %d" % (pid, port), flush=True)
        silent.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        cases = [
            ("connect and close", None),
            ("4 KiB of random bytes", bytes(rng.getrandbits(8) for _ in range(4096))),
            ("an HTTP request", b"GET / HTTP/1.0\r\nHost: x\r\n\r\n"),
            ("1 MiB of zeros", bytes(1 << 20)),
            ("24 bytes of 0xff", b"\xff" * 24),
            ("HELLO, wrong token", hello(rng.getrandbits(64) | 1)),
            ("HELLO, token 0", hello(0)),
            ("HELLO, wrong token + packet", hello(rng.getrandbits(64) | 1) + bytes(range(64)) * 16),
            ("half a HELLO", hello(7)[:10]),
        ]
        for name, data in cases:
            attempt(port, name, data)
    # the silent connections stay open while the job finishes
    time.sleep(1)
    for s in silent:
        s.close()
    return 0


sys.exit(main())
