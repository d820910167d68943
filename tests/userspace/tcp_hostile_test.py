#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile peer of the TCP transport (TAP).

Speaks the transport's protocol itself, from plain TCP sockets bound to
addresses of its own, to rds_doca's listener on --addr:--port.  Each
case is a new TCP connection:

  - hellos that are not of this protocol (magic, version, reserved
    bytes, incarnation 0, no paths, max_msg below 1 MiB) and silence: the
    module closes the socket, and counts each bad hello once in
    recv_proto_error;
  - a valid hello: the module answers with its own, then delivers a
    DATA frame to the bound socket it names and acknowledges it;
  - after a valid hello, frames that break the rules (a DATA frame that
    is not one whole message, longer than 64 MiB; a region message; an ack of a message never sent; garbage):
    the module closes the socket, counts one recv_proto_error, and
    delivers nothing of it;
  - operations on a region of a bound socket (RDMA_REQ): a write, a
    read and a fetch-add are run and answered (RDMA_RESP) with their
    status, data and old value; a guessed cookie, a range past the end
    and another port are answered RDS_RDMA_REMOTE_ERROR and counted in
    rdma_refused, the region untouched; requests that break the rules
    (numbering, kind, lengths, operands, reserved bytes, an answer to
    nothing) and reads past the window reset the connection;
  - a socket with a type of service talks over a TCP connection with
    that IP TOS byte;
  - a message sent again with a number already delivered is dropped and
    counted (recv_drop_old_seq), and the connection goes on;
  - RDS_INFO_TCP_SOCKETS and RDS6_INFO_TCP_SOCKETS list that connection
    with its addresses and TCP ports, and the bytes of a frame still to
    come while half a header and then half a payload are in;
  - 80 silent connections at once: 64 wait for their hello, the rest are
    closed at once and counted in conn_limit.

After every case two rds_doca sockets on --addr and --peer exchange a
message.  A and B may be IPv4 or IPv6 addresses; the peer speaks from
addresses of the same family (192.0.2.100-159, 2001:db8:2::100-13b).

usage: tcp_hostile_test.py --family N --addr A --peer B --netdev DEV
                           [--port P] [--rdsctl PATH]
Run as root, rds_doca loaded, A and B on DEV without an RDMA device.
"""

import argparse
import ctypes
import fcntl
import os
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
import rdsctl_test  # noqa: E402
from rdsctl_test import Tap, RdsSock, rdsctl_json, counters_of, \
    run_main, is6, TCP_INFO, TCP6_INFO, PAGE  # noqa: E402

T = Tap()

MAGIC = 0x52445344
VERSION = 6
DATA, ACK, CONG, PING, PONG, MR_REQ = 1, 2, 3, 4, 5, 6
RDMA_REQ, RDMA_RESP = 10, 11
SIOCRDSSETTOS = 0x89E0
OP_READ, OP_WRITE, OP_FADD = 0, 1, 2
RDS_RDMA_SUCCESS, RDS_RDMA_REMOTE_ERROR = 0, 1
F_ACK_REQ, F_ACK_VALID, F_LAST_FRAG = 0x1, 0x2, 0x4
HDR = struct.Struct(">IBBHQQIIHHIHH4sQII")
HELLO = struct.Struct(">IBBHIIQQQBB6s")
REQ = struct.Struct(">QQQIBBH4Q")
RESP = struct.Struct(">QQB15s")
# addresses the hostile peer speaks from, one per case, on --netdev
HOSTILE = [f"192.0.2.{n}" for n in range(100, 160)]
HOSTILE6 = [f"2001:db8:2::{n:x}" for n in range(0x100, 0x13c)]
RDS_PORT = 4300
INCARNATION = 0x1234567890ABCDEF


def hello(magic=MAGIC, version=VERSION, tos=0, flags=0,
          max_msg=1 << 20, reserved1=0, inc=INCARNATION, peer_inc=0,
          rx_next=0, path=0, paths=1, reserved=bytes(6)):
    return HELLO.pack(magic, version, tos, flags, max_msg, reserved1,
                      inc, peer_inc, rx_next, path, paths, reserved)


def frame(ftype, payload=b"", flags=0, seq=0, ack=0, length=None,
          frag_off=0, frag_len=None, sport=0, dport=0, cookie=0, key=0):
    length = len(payload) if length is None else length
    frag_len = len(payload) if frag_len is None else frag_len
    return HDR.pack(MAGIC, VERSION, ftype, flags, seq, ack, length,
                    frag_off, sport, dport, frag_len, 0, 0, bytes(4),
                    cookie, key, 0) + payload


def data(payload, seq, sport, dport=RDS_PORT, flags=F_LAST_FRAG, **kw):
    return frame(DATA, payload, flags=flags, seq=seq, sport=sport,
                 dport=dport, **kw)


def req(rid, cookie, off, nbytes, kind, payload=b"", args=(0, 0, 0, 0),
        reserved=0, sport=999, dport=RDS_PORT, length=None):
    """An RDMA_REQ frame: a descriptor, then @payload."""
    raddr = (cookie >> 32) + off
    body = REQ.pack(rid, cookie, raddr, nbytes, kind, reserved, 0,
                    *args) + payload
    return frame(RDMA_REQ, body, sport=sport, dport=dport, length=length,
                 frag_len=length)


class Peer:
    """One TCP connection of the hostile peer."""

    def __init__(self, src, addr, port):
        self.s = socket.socket(socket.AF_INET6 if ":" in src else
                               socket.AF_INET, socket.SOCK_STREAM)
        self.s.bind((src, 0))
        self.s.settimeout(10)
        self.s.connect((addr, port))
        self.buf = b""

    def send(self, b):
        self.s.sendall(b)

    def read(self, n, timeout=10.0):
        """@n bytes, or None if the module closed first or was silent."""
        end = time.time() + timeout
        while len(self.buf) < n:
            left = end - time.time()
            if left <= 0:
                return None
            self.s.settimeout(left)
            try:
                b = self.s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                return None
            if not b:
                return None
            self.buf += b
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def closed(self, timeout=15.0):
        """Did the module close the connection (EOF or reset) in time?"""
        end = time.time() + timeout
        while time.time() < end:
            self.s.settimeout(max(end - time.time(), 0.01))
            try:
                b = self.s.recv(65536)
            except socket.timeout:
                return False
            except ConnectionResetError:
                return True
            if not b:
                return True
        return False

    def close(self):
        self.s.close()


def counter(name):
    return counters_of(rdsctl_json("stats", "show")).get(name, 0)


def legit_exchange(family, addr, peer, what):
    """Two sockets of the module, on the two addresses, still talk."""
    a = RdsSock(family, addr, 0)
    b = RdsSock(family, peer, RDS_PORT + 1)
    try:
        a.send(b"still here", peer, RDS_PORT + 1)
        T.eq(b.recv(10), b"still here",
             f"{what}: the module's own sockets still exchange a message")
    finally:
        a.close()
        b.close()


def tos_lane(args):
    """A type of service gets a TCP connection of its own, with that IP
    TOS byte, and the peer's hello names it."""
    a = RdsSock(args.family, args.addr, 0)
    b = RdsSock(args.family, args.peer, RDS_PORT + 2)
    try:
        fcntl.ioctl(a.fd, SIOCRDSSETTOS, struct.pack("B", 0xb8))
        a.send(b"on lane 0xb8", args.peer, RDS_PORT + 2)
        T.eq(b.recv(10), b"on lane 0xb8",
             "a socket with TOS 0xb8 (DSCP 46): its message arrives")
        out = subprocess.run(["ss", "-tnH", "--tos", "state", "established",
                              f"( sport = :{args.port} or "
                              f"dport = :{args.port} )"],
                             capture_output=True, text=True,
                             check=False).stdout
        out = "\n".join(ln for ln in out.splitlines()
                        if args.addr in ln and args.peer in ln)
        # ss shows an IPv6 socket's traffic class as tclass
        T.ok(("tclass:0xb8" if is6(args.addr) else "tos:0xb8") in out,
             "... over a TCP connection whose IP TOS byte (IPv6 traffic "
             "class) is 0xb8", out)
    finally:
        a.close()
        b.close()


def refused_hello(args, src, h, what):
    before = counter("recv_proto_error")
    p = Peer(src, args.addr, args.port)
    p.send(h)
    T.ok(p.closed(), f"{what}: the module closes the socket")
    p.close()
    T.eq(counter("recv_proto_error") - before, 1,
         f"{what}: counted once in recv_proto_error")


def answered(args, src, inc=INCARNATION, rx_next=0):
    """A connection whose valid hello the module answered, or None."""
    p = Peer(src, args.addr, args.port)
    p.send(hello(inc=inc, rx_next=rx_next))
    h = p.read(HELLO.size)
    if h is None:
        p.close()
        return None, None
    return p, HELLO.unpack(h)


def bad_frame(args, src, fr, what, rx):
    p, h = answered(args, src)
    if not T.ok(p is not None, f"{what}: the module answers the hello"):
        return
    before = counter("recv_proto_error")
    p.send(fr)
    T.ok(p.closed(), f"{what}: the module closes the socket")
    p.close()
    T.eq(counter("recv_proto_error") - before, 1,
         f"{what}: counted once in recv_proto_error")
    T.ok(rx.recv(0.5) is None, f"{what}: nothing of it is delivered")


def next_resp(p):
    """The next RDMA_RESP (descriptor, data), skipping other frames."""
    while True:
        h = p.read(HDR.size)
        if h is None:
            return None, None
        h = HDR.unpack(h)
        body = p.read(h[10]) if h[10] else b""
        if h[2] == RDMA_RESP:
            return RESP.unpack(body[:RESP.size]), body[RESP.size:]


def rdma_cases(args, src, rx):
    """Operations from the hostile peer on a region of @rx."""
    cookie, buf = rx.get_mr(2 * PAGE)
    base = (ctypes.addressof(buf) + PAGE - 1) & ~(PAGE - 1)
    mem = (ctypes.c_char * (2 * PAGE)).from_address(base)
    mem[0:8] = struct.pack("=Q", 41)

    p, _ = answered(args, next(src))
    if not T.ok(p is not None, "operations: the module answers the hello"):
        return
    ops = []
    p.send(req(1, cookie, 100, 16, OP_WRITE, b"written from afar"[:16]))
    ops.append(next_resp(p))
    p.send(req(2, cookie, 100, 16, OP_READ))
    ops.append(next_resp(p))
    p.send(req(3, cookie, 0, 8, OP_FADD, args=(1, 0, 0, 0)))
    ops.append(next_resp(p))
    T.ok(ops[0][0] is not None and ops[0][0][:3] ==
         (1, 0, RDS_RDMA_SUCCESS) and ops[0][1] == b"",
         "a write: answered, id 1, success, no data", f"{ops[0]}")
    T.eq(bytes(mem[100:116]), b"written from afar"[:16],
         "... its data is in the region")
    T.ok(ops[1][0] is not None and ops[1][0][:3] ==
         (2, 0, RDS_RDMA_SUCCESS) and ops[1][1] == b"written from afar"[:16],
         "a read: answered, id 2, with the region's 16 bytes", f"{ops[1]}")
    T.ok(ops[2][0] is not None and ops[2][0][:3] ==
         (3, 41, RDS_RDMA_SUCCESS),
         "a fetch-add: answered, id 3, with the old value", f"{ops[2]}")
    T.eq(struct.unpack("=Q", bytes(mem[0:8]))[0], 42,
         "... and the word went up by one")

    # refusals: answered, counted, the connection goes on
    before = counter("rdma_refused")
    p.send(req(4, cookie ^ (1 << 40), 0, 16, OP_WRITE, b"x" * 16))
    r4 = next_resp(p)
    p.send(req(5, cookie, 2 * PAGE - 8, 16, OP_READ))
    r5 = next_resp(p)
    p.send(req(6, cookie, 0, 8, OP_WRITE, b"y" * 8, dport=RDS_PORT + 7))
    r6 = next_resp(p)
    T.ok([r[0][:3] if r[0] else None for r in (r4, r5, r6)] ==
         [(4, 0, RDS_RDMA_REMOTE_ERROR), (5, 0, RDS_RDMA_REMOTE_ERROR),
          (6, 0, RDS_RDMA_REMOTE_ERROR)] and r5[1] == b"",
         "a guessed cookie, a range past the end, another port: "
         "each answered RDS_RDMA_REMOTE_ERROR, nothing read",
         f"{r4} {r5} {r6}")
    T.eq(counter("rdma_refused") - before, 3,
         "... each counted in rdma_refused")
    T.ok(bytes(mem[0:8]) == struct.pack("=Q", 42) and
         b"x" not in bytes(mem[:]) and b"y" not in bytes(mem[:]),
         "... and the region is untouched")
    p.send(data(b"after the refusals", seq=0, sport=999))
    T.eq(rx.recv(10), b"after the refusals",
         "... the connection goes on: a message is delivered")
    p.close()

    # requests that break the rules reset the connection
    for fr, what in [
            (req(2, cookie, 0, 8, OP_READ), "a first request numbered 2"),
            (req(1, cookie, 0, 8, 9), "a request of kind 9"),
            (req(1, cookie, 0, 8, OP_READ, b"z" * 8),
             "a read request carrying data"),
            (req(1, cookie, 0, 16, OP_FADD), "a fetch-add of 16 bytes"),
            (req(1, cookie, 0, 8, OP_READ, args=(1, 0, 0, 0)),
             "a read with operands"),
            (req(1, cookie, 0, 8, OP_READ, reserved=1),
             "a request with a reserved byte set"),
            (req(1, cookie, 0, 8, OP_WRITE, b"w" * 7, length=64 + 7),
             "a write request shorter than its length"),
            (frame(RDMA_RESP, RESP.pack(1, 0, 0, bytes(15))),
             "an answer to nothing asked"),
            (req(1, cookie, 0, 0, OP_READ), "a read of 0 bytes"),
            (req(1, cookie, 0, (1 << 20) + 1, OP_READ),
             "a read over 1 MiB")]:
        bad_frame(args, next(src), fr, what, rx)

    # reads past the window, their answers not read: reset
    big, _ = rx.get_mr(1 << 20)
    p, _ = answered(args, next(src))
    if T.ok(p is not None, "read window: the module answers the hello"):
        before = counter("recv_proto_error")
        p.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        try:
            for i in range(24):
                p.send(req(i + 1, big, 0, 1 << 20, OP_READ))
        except OSError:
            pass
        T.ok(p.closed(timeout=30),
             "24 reads of 1 MiB, no answer read: the module closes the "
             "socket (4 MiB of reads may wait for their answers)")
        p.close()
        T.eq(counter("recv_proto_error") - before, 1,
             "... counted once in recv_proto_error")
    rx.free_mr(big)
    rx.free_mr(cookie)


def tcp_sockets(rx, v6=False):
    """RDS_INFO_TCP_SOCKETS (RDS6_: @v6), its entry size checked."""
    ent, each = rdsctl_test.tcp_sockets(rx, v6)
    T.eq(each, (TCP6_INFO if v6 else TCP_INFO).size,
         f"{'RDS6' if v6 else 'RDS'}_INFO_TCP_SOCKETS: entries of "
         f"{each} bytes")
    return ent


def wait_rem(rx, me, want, what):
    """Wait (5 s at most) for @me's entry to show (hdr_rem, data_rem)."""
    ent = None
    for _ in range(50):
        ent = [e for e in tcp_sockets(rx, is6(me)) if e[2] == me]
        if ent and ent[0][4:] == want:
            break
        time.sleep(0.1)
    T.ok(bool(ent) and ent[0][4:] == want, what, f"{ent}")


def info_case(args, rx, me, p):
    """The listing of the hostile peer's connection, while a frame is
    half in."""
    lport = p.s.getsockname()[1]
    for v6 in (False, True):
        ent = [e for e in tcp_sockets(rx, v6) if e[2] == me]
        if is6(me) and not v6:
            T.eq(ent, [], "RDS_INFO_TCP_SOCKETS does not list an IPv6 "
                 "connection")
            continue
        T.ok(len(ent) == 1 and ent[0][:4] ==
             (args.addr, args.port, me, lport),
             f"{'RDS6' if v6 else 'RDS'}_INFO_TCP_SOCKETS lists the "
             "connection: addresses, the listener's port and the peer's",
             f"{ent}")
    fr = data(b"0123456789", seq=2, sport=999)
    p.send(fr[:20])
    wait_rem(rx, me, (HDR.size - 20, 0),
             "20 bytes of a header in: hdr_rem is the rest of it")
    p.send(fr[20:HDR.size + 3])
    wait_rem(rx, me, (0, 7),
             "the header and 3 of 10 payload bytes in: data_rem is 7")
    p.send(fr[HDR.size + 3:])
    T.eq(rx.recv(10), b"0123456789", "... and the rest completes it")
    wait_rem(rx, me, (0, 0), "between frames nothing is owed")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", type=int, required=True)
    ap.add_argument("--addr", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--netdev", required=True)
    ap.add_argument("--port", type=int, default=18636)
    ap.add_argument("--rdsctl", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)),
        "../../tools/rdsctl/rdsctl"))
    args = ap.parse_args()
    rdsctl_test.RDSCTL = os.path.normpath(args.rdsctl)

    hostile, plen, opts = HOSTILE, 32, ""
    if is6(args.addr):
        hostile, plen, opts = HOSTILE6, 128, " nodad"
    subprocess.run(["ip", "-batch", "-"], check=True, text=True,
                   input="".join(f"addr add {a}/{plen} dev {args.netdev}"
                                 f"{opts}\n" for a in hostile))
    src = iter(hostile)
    rx = RdsSock(args.family, args.addr, RDS_PORT)
    try:
        for h, what in [
                (hello(magic=0x52445345), "hello with a wrong magic"),
                (hello(version=4), "hello of version 4"),
                (hello(reserved1=1), "hello with its reserved word set"),
                (hello(reserved=b"\0\0\0\0\0\x01"),
                 "hello with its last reserved byte set"),
                (hello(flags=1), "hello with a flag"),
                (hello(inc=0), "hello of incarnation 0"),
                (hello(paths=0), "hello of 0 paths"),
                (hello(path=8), "hello of path 8"),
                (hello(max_msg=65536), "hello taking 64 KiB messages"),
                (b"\xff" * HELLO.size, "48 bytes of garbage")]:
            refused_hello(args, next(src), h, what)
        legit_exchange(args.family, args.addr, args.peer, "bad hellos")

        p = Peer(next(src), args.addr, args.port)
        p.send(hello()[:20])
        T.ok(p.closed(timeout=30),
             "half a hello, then silence: closed at the deadline")
        p.close()

        # a valid hello, a message, its ack
        me = next(src)
        p, h = answered(args, me)
        if T.ok(p is not None, "a valid hello is answered"):
            T.ok(h[0] == MAGIC and h[1] == VERSION and h[6] != 0 and
                 h[9] == 0 and h[10] >= 1,
                 "... with a hello of this protocol", f"{h}")
            p.send(data(b"hello from outside", seq=0, sport=999,
                        flags=F_LAST_FRAG | F_ACK_REQ))
            T.eq(rx.recv(10), b"hello from outside",
                 "a DATA frame is delivered to the port it names")
            ack = None
            while ack is None:
                f = p.read(HDR.size)
                if f is None:
                    break
                f = HDR.unpack(f)
                if f[10]:
                    p.read(f[10])
                if f[3] & F_ACK_VALID:
                    ack = f[5]
            T.eq(ack, 0, "the module acknowledges it")
            # the same number again: dropped, the connection goes on
            before = counter("recv_drop_old_seq")
            p.send(data(b"again", seq=0, sport=999))
            p.send(data(b"the next one", seq=1, sport=999))
            T.eq(rx.recv(10), b"the next one",
                 "a message sent again is not delivered; the next is")
            T.eq(counter("recv_drop_old_seq") - before, 1,
                 "... and the old one counted in recv_drop_old_seq")
            info_case(args, rx, me, p)
            p.close()

        for fr, what in [
                (data(b"x" * 100, seq=0, sport=999, length=200,
                      frag_len=100, flags=0),
                 "a DATA frame with half a message"),
                (data(b"", seq=0, sport=999, length=(64 << 20) + 1,
                      frag_len=(64 << 20) + 1),
                 "a DATA frame of 64 MiB + 1"),
                (frame(MR_REQ, sport=999, dport=RDS_PORT, cookie=1),
                 "a region request"),
                (frame(ACK, flags=F_ACK_VALID, ack=1000),
                 "an ack of a message never sent"),
                (b"\x00" * HDR.size, "64 bytes of zeros"),
                (frame(99), "a frame of type 99")]:
            bad_frame(args, next(src), fr, what, rx)
        legit_exchange(args.family, args.addr, args.peer, "bad frames")

        rdma_cases(args, src, rx)
        legit_exchange(args.family, args.addr, args.peer, "operations")
        tos_lane(args)

        # a flood of silent connections from one address
        flood_src = next(src)
        before = counter("conn_limit")
        peers = [Peer(flood_src, args.addr, args.port) for _ in range(80)]
        time.sleep(3)
        closed = 0
        for q in peers:
            q.s.setblocking(False)
            try:
                closed += q.s.recv(1) == b""
            except BlockingIOError:
                pass
            except ConnectionResetError:
                closed += 1
        T.ok(closed >= 16,
             "80 silent connections: at least 16 are closed at once",
             f"{closed} closed")
        T.ok(counter("conn_limit") - before >= 16,
             "... counted in conn_limit")
        for q in peers:
            q.close()
        legit_exchange(args.family, args.addr, args.peer, "flood")
    finally:
        rx.close()
    return T.close()


if __name__ == "__main__":
    run_main(main, T)
