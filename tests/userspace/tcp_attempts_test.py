#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Connection attempts over TCP that unprivileged users make (TAP).

Documentation/rds_doca.rst, "Limits": at most 16 of one user's
connection attempts, and 64 of all users, wait for a peer's answer at
once; the rest wait for their turn, counted in conn_attempt_wait.

Five users (uid 65534 down to 65530), each in a process of its own with
one socket bound to --addr, send one message to each of 40 addresses of
--net, a /24 routed to a device that drops everything (a dummy): nobody
answers, and every attempt holds a TCP socket until it is abandoned.
While they wait, RDS_INFO_TCP_SOCKETS (read by root) lists the attempts
towards --net: never more than 16 for the addresses one user sent to,
never more than 64 in all, and more than one user's at once (one
user's flood does not keep the others out).  conn_attempt_wait grew.
Once the users' processes are gone, their attempts end (a closed
socket's messages go with the next attempt that fails or finds no
place).  Afterwards two sockets on --addr and --peer still exchange a
message.

usage: tcp_attempts_test.py --family N --addr A --peer B --net 203.0.113.0
Run as root, rds_doca loaded, A and B local addresses without an RDMA
device, --net/24 routed to a dummy device.
"""

import argparse
import ipaddress
import os
import signal
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# pylint: disable=wrong-import-position
from rdsctl_test import Tap, RdsSock, run_main, tcp_sockets  # noqa: E402

T = Tap()

USERS = [65534 - i for i in range(5)]
PER_USER = 40			# addresses each user sends to
USER_MAX, ALL_MAX = 16, 64	# RDSD_USER_ATTEMPTS, RDSD_MAX_ATTEMPTS
RDS_INFO_COUNTERS = 10000
COUNTER = struct.Struct("=32sQ")
SAMPLES = 20


def counter(sock, name):
    raw, each = sock.info(RDS_INFO_COUNTERS)
    for i in range(len(raw) // each):
        n, v = COUNTER.unpack_from(raw, i * each)
        if n.rstrip(b"\0").decode() == name:
            return v
    return None


def flood(uid, family, addr, targets, ready_w):
    """Child: become @uid, send one message to each of @targets, then
    hold the socket until killed."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    s = RdsSock(family, addr, 0)
    sent = 0
    for t in targets:
        try:
            s.send(b"anyone?", t, 4000)
            sent += 1
        except OSError:
            pass
    os.write(ready_w, bytes([min(sent, 255)]))
    signal.pause()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--family", type=int, required=True)
    ap.add_argument("--addr", required=True)
    ap.add_argument("--peer", required=True)
    ap.add_argument("--net", default="203.0.113.0")
    args = ap.parse_args()

    base = int(ipaddress.IPv4Address(args.net)) & ~0xff
    user_targets = {
        uid: [str(ipaddress.IPv4Address(base + 1 + i * PER_USER + j))
              for j in range(PER_USER)]
        for i, uid in enumerate(USERS)}
    owner = {t: uid for uid, ts in user_targets.items() for t in ts}

    root = RdsSock(args.family, args.addr, 0)
    wait0 = counter(root, "conn_attempt_wait")
    kids = []
    try:
        for uid in USERS:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                try:
                    flood(uid, args.family, args.addr, user_targets[uid], w)
                finally:
                    os._exit(1)
            os.close(w)
            kids.append(pid)
            sent = os.read(r, 1)
            os.close(r)
            T.eq(sent and sent[0], PER_USER,
                 f"uid {uid} queues one message to each of {PER_USER} "
                 "addresses nobody answers")

        worst_user, worst_all = 0, 0
        for _ in range(SAMPLES):
            per = dict.fromkeys(USERS, 0)
            for e in tcp_sockets(root)[0]:
                if e[0] == args.addr and e[2] in owner:
                    per[owner[e[2]]] += 1
            worst_user = max(worst_user, max(per.values()))
            worst_all = max(worst_all, sum(per.values()))
            time.sleep(0.25)
        print(f"# attempts waiting, sampled {SAMPLES} times: at most "
              f"{worst_user} of one user, {worst_all} in all")
        T.ok(worst_user <= USER_MAX,
             f"no user ever has more than {USER_MAX} attempts waiting",
             f"at most {worst_user}")
        T.ok(worst_all <= ALL_MAX,
             f"all users together never more than {ALL_MAX}",
             f"at most {worst_all}")
        T.ok(worst_all > USER_MAX,
             "one user's flood does not keep the others from attempts",
             f"at most {worst_all} at once")
        wait1 = counter(root, "conn_attempt_wait")
        T.ok(wait0 is not None and wait1 is not None and wait1 > wait0,
             "attempts beyond the limits waited, counted in "
             "conn_attempt_wait", f"{wait0} -> {wait1}")
    finally:
        for pid in kids:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)

    # a closed socket's messages go with the next attempt that fails (one
    # is abandoned after 15 s) or finds no place; then nothing is tried
    left = None
    for _ in range(240):
        left = [e for e in tcp_sockets(root)[0] if e[2] in owner]
        if not left:
            break
        time.sleep(0.5)
    T.ok(not left, "once the users' sockets are closed their attempts end",
         f"{len(left)} left after 2 minutes")
    root.close()

    a = RdsSock(args.family, args.addr, 0)
    b = RdsSock(args.family, args.peer, 4301)
    try:
        a.send(b"still here", args.peer, 4301)
        T.eq(b.recv(10), b"still here",
             "two sockets still exchange a message over TCP")
    finally:
        a.close()
        b.close()
    return T.close()


if __name__ == "__main__":
    run_main(main, T)
