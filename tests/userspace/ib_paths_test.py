#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Several paths (queue pairs) between two addresses over IB (TAP).

With rds_doca loaded with ib_paths=N (N > 1), one socket's first message
brings path 0 up, and the two ends agree on N paths.  Then senders bound
to ports that pick different paths (the kernel's pick is reproduced here:
hash_32() of the port, scaled to N) send sequenced messages to one
receiver, interleaved.  Checked: every message arrives exactly once and
in order per sender; "rdsctl -j conn show" lists one connection per path
between the two addresses, each carrying the messages of its senders;
and a socket that first sent on path 0, before the paths were agreed,
moves to its own path once nothing it sent is unacknowledged, without
losing the order.

usage: ib_paths_test.py --family N --addr A --peer B --paths N
                        [--rdsctl PATH]
Run as root, with rds_doca loaded with ib_paths=N.
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
from rdsctl_test import Tap, RdsSock, run_main  # noqa: E402

T = Tap()
MSGS = 200


def path_of(port, npaths):
    """The path a socket bound to @port takes: rdsd_conn_path_pick()."""
    if npaths <= 1:
        return 0
    h = (port * 0x61C88647) & 0xFFFFFFFF	# hash_32(port, 32)
    return (h * npaths) >> 32			# reciprocal_scale()


def ports_for_paths(npaths, base=40000):
    """One port picking each path, from @base up."""
    found = {}
    port = base
    while len(found) < npaths and port < 65000:
        found.setdefault(path_of(port, npaths), port)
        port += 1
    return [found[p] for p in range(npaths)]


def conns(rdsctl, addr, peer):
    out = subprocess.run([rdsctl, "-j", "conn", "show", "peer", peer],
                         capture_output=True, text=True, timeout=60,
                         check=True).stdout
    # type of service 0: other suites' lanes may still be up
    return [c for c in json.loads(out)
            if c.get("laddr") == addr and c.get("transport") == "ib" and
            c.get("tos") == 0]


def exchange(senders, rx, peer, port, msgs, chunk=25):
    """@msgs sequenced messages of each sender to @rx, interleaved, in
    chunks the receive buffer holds; what @rx got from each sender."""
    got = [[] for _ in senders]
    for first in range(0, msgs, chunk):
        last = min(first + chunk, msgs)
        for seq in range(first, last):
            for i, s in enumerate(senders):
                s.send(b"%d:%d" % (i, seq), peer, port)
        for _ in range((last - first) * len(senders)):
            m = rx.recv(timeout=30)
            if m is None:
                return got
            i, seq = (int(x) for x in m.split(b":"))
            got[i].append(seq)
    return got


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", type=int, required=True)
    ap.add_argument("--addr", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--paths", type=int, required=True)
    ap.add_argument("--rdsctl", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)),
        "../../tools/rdsctl/rdsctl"))
    a = ap.parse_args()
    n = a.paths
    rport = 39000

    rx = RdsSock(a.family, a.peer, rport)
    # first: a socket sends before the paths are agreed, so on path 0,
    # from a port that picks another path
    early_port = next(p for p in range(41000, 42000) if path_of(p, n))
    early = RdsSock(a.family, a.addr, early_port)
    early.send(b"0:0", a.peer, rport)
    m = rx.recv(timeout=60)
    T.ok(m == b"0:0", "the first message brings path 0 up", repr(m))
    c = conns(a.rdsctl, a.addr, a.peer)
    T.eq(sorted(x.get("path") for x in c), [0],
         "one connection, path 0, before anything else is sent")

    ports = ports_for_paths(n)
    T.eq(len(ports), n, f"a port for each of the {n} paths")
    senders = [RdsSock(a.family, a.addr, p) for p in ports]
    got = exchange(senders, rx, a.peer, rport, MSGS)
    for i, g in enumerate(got):
        T.ok(g == list(range(MSGS)),
             f"sender on path {i}: {MSGS} messages, once each, in order",
             f"got {len(g)}, first out of order at "
             f"{next((k for k, v in enumerate(g) if v != k), None)}")

    c = conns(a.rdsctl, a.addr, a.peer)
    by_path = {x.get("path"): x for x in c}
    T.eq(sorted(by_path), list(range(n)),
         f"rdsctl lists one connection per path, 0..{n - 1}")
    for p in range(n):
        x = by_path.get(p, {})
        T.ok(x.get("state") == "up", f"path {p} is up", x)
        T.ok(x.get("tx_msgs", 0) >= MSGS,
             f"path {p} carried its sender's {MSGS} messages",
             f"tx_msgs {x.get('tx_msgs')}")
    back = conns(a.rdsctl, a.peer, a.addr)
    T.eq(sorted(x.get("path") for x in back), list(range(n)),
         "the other end has the same paths")

    # the early socket: its first message is acknowledged by now, so
    # its next ones take its own path, in order after the first
    want = path_of(early_port, n)
    before = by_path.get(want, {}).get("tx_msgs", 0)
    got = exchange([early], rx, a.peer, rport, MSGS)[0]
    T.ok(got == [k for k in range(MSGS)],
         "the early socket's next messages arrive in order", got[:8])
    after = {x.get("path"): x for x in conns(a.rdsctl, a.addr, a.peer)}
    T.ok(after.get(want, {}).get("tx_msgs", 0) >= before + MSGS,
         f"... on its own path ({want}), not path 0",
         f"tx_msgs of path {want}: {before} -> "
         f"{after.get(want, {}).get('tx_msgs')}")

    for s in [rx, early, *senders]:
        s.close()
    return T.close()


if __name__ == "__main__":
    run_main(main, T)
