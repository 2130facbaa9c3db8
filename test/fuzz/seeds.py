#!/usr/bin/env python3
"""Seed inputs for the fuzz targets of test/fuzz: one valid example of each format the
decoders read (and a few near misses), so that libFuzzer starts from inputs that get past
the first checks. Usage: seeds.py OUTDIR (writes OUTDIR/TARGET/seed-N)."""
import os
import struct
import sys

out = sys.argv[1]
seeds = {t: [] for t in ("envelope", "names", "dynproc", "tcp_card", "ib_card", "rma_op")}

# mm_pkt_t: version, kind, reserved, context_id, rank, tag, data_sz, sreq, rreq (+ limit)
for kind in range(1, 12):
    for sz in (0, 8, 65536, 1 << 47):
        seeds["envelope"].append(struct.pack("<BBHIiiQQQQ", 1, kind, 0, 7, 1, 5, sz, 3, 1, 65536))

gpid = b"00000001000000a3"
descr = gpid + b"/tcp/00000000deadbeef:4242:10.0.0.1,127.0.0.1/shm/x"
secret = b"-0123456789abcdef:"
seeds["names"] += [descr + b"\0", gpid + b"\0", b"mmport:12" + secret + descr + b"\0",
                   b"mmport:0" + secret + gpid + b"\0", b"mmport:2147483648" + secret + gpid,
                   b"mmport:12-0123456789abcde:" + gpid + b"\0", b"mmport:12:" + descr + b"\0"]
req = (struct.pack("<IIQ", 0x6d6d706f, 7, 0x0123456789abcdef) + descr +
       b"\0" * (1024 - len(descr)))
reply_ok = struct.pack("<IIi", 0x6d6d706f, 9, 0)
seeds["dynproc"] += [b"\0" + req, b"\1" + reply_ok, b"\1" + struct.pack("<IIi", 0x6d6d706f, 0, 2), b"\2" + descr + b"\0" + gpid + b"\0",
                     b"\0" + req[:100], b"\1" + struct.pack("<IIi", 0x6d6d706f, 0, 1)]
seeds["tcp_card"] += [b"00000000deadbeef:4242:10.0.0.1,127.0.0.1", b"1:0:", b"x:65536:1.2.3.4",
                      b"00000000deadbeef:4242:" + b",".join([b"10.0.0.%d" % i for i in range(12)])]
seeds["ib_card"] += [b"00000000deadbeef:4242:169.254.3.7", b"00000000deadbeef:0:1.2.3.4",
                     b"00000000deadbeef:4242:10.0.0.1,10.0.0.2", b"0000000deadbeef:1:1.2.3.4"]

# mm_rma_hdr_t: op, nseg, disp, count, target_type, basic, acc_op, flags, data_len, result_len
def rma(op, segs, disp, count, ttype, basic, data, result_len, flags=0):
    h = struct.pack("<IIqqiiiIQQ", op, len(segs), disp, count, ttype, basic, 0x58000003, flags,
                    len(data), result_len)
    return h + b"".join(struct.pack("<qqQQ", *s) for s in segs) + data

vec = [(0, 16, 8, 4), (100, -8, 4, 3)]
seeds["rma_op"] += [
    rma(1, [], 0, 4, 2, 0, b"\1" * 16, 0),              # put of 4 ints
    rma(2, [], 3, 2, 4, 0, b"", 24),                    # get of 2 pairs
    rma(3, [], 0, 2, 3, 3, b"\2" * 16, 0),              # accumulate of 2 doubles
    rma(4, [], 0, 1, 3, 3, b"\2" * 8, 8),               # fetch_and_op
    rma(5, [], 0, 1, 2, 2, b"\3" * 8, 4),               # compare_and_swap
    rma(6, [], 0, 2, 2, 2, b"\4" * 16, 8),              # rmw2
    rma(1, vec, 0, 1, 0, 0, b"\5" * 44, 0),             # put into a footprint
    rma(3, [(0, 8, 8, 4)], 0, 1, 0, 3, b"\6" * 32, 0),  # accumulate into a vector
    rma(4, [(8, 24, 8, 2)], 0, 1, 0, 3, b"\6" * 16, 16, 1),
    rma(2, [(-64, 16, 4, 8)], 10, 1, 0, 2, b"", 32),
]
for t, items in seeds.items():
    os.makedirs(os.path.join(out, t), exist_ok=True)
    for i, b in enumerate(items):
        with open(os.path.join(out, t, "seed-%d" % i), "wb") as f:
            f.write(b)
