#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# selftest.sh [RDS_BENCH [FAKE_SO]]: checks of rds-bench that need no RDS
# module.  Command-line handling and error reporting run against the real
# kernel; the end-to-end runs use fake-rds.so (an LD_PRELOAD stand-in that
# maps made-up families, 250 and 251, to AF_UNIX datagram sockets) to
# exercise the processes, port exchange, stop handling, message checks,
# JSON output, the RDMA modes and reqresp (fake-rds.so runs the
# operations), compare.sh and scaling.sh, and fake-perftest.sh (standing in
# for perftest, rdma and ip) to exercise perftest-bench.sh and
# ib-compare.sh; bench-vm.sh only as far as it goes without root.
# Prints TAP; ends with "N passed, N failed".

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${1:-$HERE/rds-bench}
FAKE=${2:-$HERE/fake-rds.so}
FAM=250
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $*"; }
nok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $*"; }

# expect RC DESCRIPTION -- command...   (output in $T/out)
expect() {
	want=$1 what=$2
	shift 3
	"$@" >"$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$what"; else nok "$what (rc $rc, want $want)"; sed 's/^/# /' "$T/out" | head -5; fi
}
# grep_out PATTERN DESCRIPTION
grep_out() {
	if grep -q -- "$1" "$T/out"; then ok "$2"; else nok "$2 (no '$1')"; sed 's/^/# /' "$T/out" | head -5; fi
}

[ -x "$B" ] || { echo "not ok 1 - no binary $B"; echo "0 passed, 1 failed"; exit 1; }

# --- command line ------------------------------------------------------
expect 0 "--help" -- "$B" --help
grep_out "Usage: rds-bench" "--help prints usage"
for bad in "" "bogus" "stream pingpong" "--size 4x stream" "--size 65m stream" \
	   "--size 0 stream" "--family abc stream" "--family 0 stream" \
	   "--family 256 stream" "--duration 0 stream" "--duration -1 stream" \
	   "--warmup x stream" "--count 0 stream" "--threads 0 stream" \
	   "--threads 65 stream" "--addr 1.2.3 stream" "--saddr ::1 stream" \
	   "--transport -1 stream" "--timeout 0 stream" "--sndbuf 10 stream" \
	   "--sndbuf 32k --size 64k stream" "--bogus stream" "-z stream" \
	   "stream --size" "rdma" "--window 0 rdma-write" \
	   "--window 4097 rdma-read" "--window x atomic" "--size 16 atomic" \
	   "--size 2m rdma-write" "--size 2m reqresp" "--size 15 reqresp" \
	   "--ack-size 15 reqresp" \
	   "--ack-size 2m reqresp" "--rdma-size 0 reqresp" "--rdma-size 2m reqresp" \
	   "--rr-op send reqresp" "reqresp --rr-op" "--sndbuf 1k --ack-size 4k reqresp" \
	   "--sockets 0 stream" "--sockets 65 stream" "--sockets x pingpong" \
	   "--sockets 2 reqresp" "--sockets 2 rdma-write" "--sockets 2 atomic" \
	   "--sockets 2 probe" "--busy-poll 1000001 pingpong" \
	   "--busy-poll -1 pingpong" "--busy-poll x stream" \
	   "--zerocopy pingpong" "--zerocopy reqresp"; do
	# shellcheck disable=SC2086
	expect 2 "rejects: '$bad'" -- "$B" $bad
	grep_out "Try 'rds-bench --help'" "explains: '$bad'"
done
for good in "64" "4k" "64K" "1m" "1M" "4KiB" "1048576"; do
	# usage is fine, so this gets as far as socket() on an unused family
	expect 1 "accepts --size $good" -- "$B" --family $FAM --size "$good" probe
done
for good in "rdma-write" "--size 1m rdma-read" "--window 4096 atomic" "--size 8 atomic" \
	    "reqresp" "--size 16 --ack-size 16 --rdma-size 1 reqresp" \
	    "--rr-op read --notify --rdma-size 1m reqresp" "--sockets 64 stream" \
	    "--sockets 1 reqresp" "--sockets 2 --threads 3 pingpong" \
	    "--size 64m --sndbuf 64m --rcvbuf 128m stream" \
	    "--size 2m --sndbuf 2m pingpong"; do
	# shellcheck disable=SC2086
	expect 1 "accepts '$good'" -- "$B" --family $FAM $good
done

# --- no such family: clear message, exit 1 -------------------------------
expect 1 "family without module" -- "$B" --family $FAM stream
grep_out "Address family not supported" "reports EAFNOSUPPORT"
grep_out "load it first" "says what to do"

# --- end to end over the stand-in ---------------------------------------
if [ ! -f "$FAKE" ]; then
	nok "no $FAKE (make fake-rds.so)"
	echo "$pass passed, $fail failed"
	exit 1
fi
DROP=0
run() { LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM FAKE_RDS_DROP=$DROP "$B" --family $FAM "$@"; }
J=$T/r.jsonl

expect 0 "probe" -- run probe
grep_out "probe    fam 250 ok" "probe line"
expect 0 "probe 1m" -- run probe --size 1m

expect 0 "stream" -- run stream -d 0.3 -w 0.1 --json "$J" --label 'a "quoted" label'
grep_out "msgs/s" "stream line"
grep_out "^stream   fam 250 size 64      thr 1  *[0-9][0-9]* msgs/s" "stream line: one socket, no socket count"
expect 0 "stream 4 senders, verify" -- run stream -d 0.3 -w 0.1 -t 4 -s 4k --verify --json "$J"
expect 0 "stream inproc" -- run stream -d 0.3 -w 0.1 -t 2 --inproc --json "$J"
expect 0 "stream blocking" -- run stream -d 0.3 -w 0.1 -t 2 --blocking --json "$J"
expect 0 "stream 1m" -- run stream -d 0.3 -w 0.1 -s 1m --json "$J"
expect 0 "stream 7 bytes" -- run stream -d 0.3 -w 0 -s 7
expect 0 "stream count" -- run stream -n 5000 -w 0 --json "$J"
grep_out "rx 5000 msgs" "count honoured"
expect 0 "stream window" -- run stream -d 0.3 -w 0.1 -t 2 --max-inflight-msgs 8
if grep -q "window [1-9]" "$T/out"; then ok "window engages"; else nok "window engages"; fi
expect 0 "pingpong" -- run pingpong -d 0.3 -w 0.1 --json "$J"
grep_out "rt/s" "pingpong line"
expect 0 "pingpong 3 clients inproc" -- run pingpong -d 0.3 -w 0.1 -t 3 --inproc --json "$J"
expect 0 "pingpong 1m blocking" -- run pingpong -d 0.3 -w 0.1 -s 1m --blocking
expect 0 "pingpong count" -- run pingpong -n 500 -w 0
grep_out "n 500 in" "pingpong count honoured"
if grep -q "socks" "$T/out"; then nok "pingpong line: one socket, no socket count"; else ok "pingpong line: one socket, no socket count"; fi

# --sockets: every sender (client) spreads over several sockets
SJ=$T/sockets.jsonl
expect 0 "stream, 2 senders x 4 sockets" -- run stream -d 0.3 -w 0.1 -t 2 --sockets 4 --json "$SJ"
grep_out "^stream   fam 250 size 64      thr 2  socks 4  *[0-9][0-9]* msgs/s" "stream line gives the sockets"
grep_out "bad len 0 data 0 seq 0" "... every socket's sequence checks out"
# sent() FILE N: N sockets sent, each sender's in turn (counts within one)
sent() {
	awk -v want="$2" 'NF == 2 { n++; if (min == "" || $2 < min) min = $2; if ($2 > max) max = $2 }
		END { exit !(n == want && min > 0 && max - min <= 1) }' "$1"
}
rm -f "$T/sent"
expect 0 "stream, 1 sender x 4 sockets" -- env FAKE_RDS_SENT="$T/sent" LD_PRELOAD="$FAKE" \
	FAKE_RDS_FAMILY=$FAM "$B" --family $FAM stream -d 0.3 -w 0.1 --sockets 4
if sent "$T/sent" 4; then ok "... the sender sends on its 4 sockets in turn"; else nok "... the sender sends on its 4 sockets in turn"; sed 's/^/# /' "$T/sent"; fi
rm -f "$T/sent"
expect 0 "stream, 3 senders x 5 sockets, inproc" -- env FAKE_RDS_SENT="$T/sent" LD_PRELOAD="$FAKE" \
	FAKE_RDS_FAMILY=$FAM "$B" --family $FAM stream -d 0.3 -w 0.1 -t 3 --sockets 5 --inproc
if [ "$(awk '$2 > 0' "$T/sent" | wc -l)" -eq 15 ]; then ok "... all 15 sockets sent"; else nok "... all 15 sockets sent"; sed 's/^/# /' "$T/sent"; fi
expect 0 "stream, 64 sockets, --verify, inproc" -- run stream -d 0.3 -w 0.1 --sockets 64 -s 4k \
	--verify --inproc --json "$SJ"
grep_out "thr 1  socks 64 .* bad len 0 data 0 seq 0" "... with every byte checked"
rm -f "$T/sent"
expect 0 "pingpong, 3 sockets" -- env FAKE_RDS_SENT="$T/sent" LD_PRELOAD="$FAKE" FAKE_RDS_FAMILY=$FAM \
	"$B" --family $FAM pingpong -d 0.3 -w 0.1 --sockets 3 --json "$SJ"
grep_out "^pingpong fam 250 size 64      thr 1  socks 3  *[0-9][0-9]* rt/s   p50 " "pingpong line gives the sockets"
grep_out "lost 0, stale 0, bad 0," "... and every echo came"
if [ "$(awk '$2 > 100' "$T/sent" | wc -l)" -eq 4 ]; then
	ok "... the client pings on its 3 sockets, the server echoes on its one"
else
	nok "... the client pings on its 3 sockets, the server echoes on its one"; sed 's/^/# /' "$T/sent"
fi
rm -f "$T/zc.json"
expect 0 "stream --zerocopy, 2 senders x 2 sockets, verify" -- run stream -n 3000 -w 0 -t 2 --sockets 2 \
	-s 16k --zerocopy --verify --json "$T/zc.json"
if grep -q '"zerocopy":true,' "$T/zc.json" && grep -q '"zerocopy":false,' "$SJ"; then
	ok "... the JSON records --zerocopy"
else
	nok "... the JSON records --zerocopy"
fi
rm -f "$T/bp.json"
expect 0 "pingpong --busy-poll 0" -- run pingpong -n 50 -w 0 --busy-poll 0 --json "$T/bp.json"
if grep -q '"busy_poll_us":0,' "$T/bp.json" && grep -q '"busy_poll_us":-1,' "$SJ"; then
	ok "... the JSON records SO_BUSY_POLL, and -1 when it was left alone"
else
	nok "... the JSON records SO_BUSY_POLL, and -1 when it was left alone"
fi
expect 0 "pingpong count, 2 clients x 3 sockets, inproc" -- run pingpong -n 600 -w 0 -t 2 --sockets 3 --inproc
grep_out "n 1200 in" "... --count round trips per client, over its sockets"
DROP=500
expect 3 "stream with losses over 5 sockets exits 3" -- run stream -d 0.3 -w 0.1 -t 2 --sockets 5
grep_out "sequence [1-9]" "... reported as sequence errors"
DROP=300
expect 3 "pingpong with losses over 3 sockets exits 3" -- run pingpong -d 0.5 -w 0.1 --timeout 0.05 --sockets 3
grep_out "lost [1-9]" "... lost echoes reported"
DROP=1
expect 1 "pingpong over 3 sockets: no echo" -- run pingpong -d 0.3 --timeout 1 --sockets 3
grep_out "client 0, socket [0-2]: no echo within 1.0 s" "... says which socket"
DROP=0
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [(x["mode"], x["threads"], x["sockets"]) for x in r] == [("stream", 2, 4), ("stream", 1, 64), ("pingpong", 1, 3)]
for x in r:
    assert x["ok"] is True and x["msgs_per_s"] > 0
assert r[0]["seq_errors"] == r[1]["seq_errors"] == r[1]["bad_data"] == 0
assert r[2]["lost"] == 0 and 0 < r[2]["rtt_p50_us"] <= r[2]["rtt_p99_us"] and r[2]["rt_per_s"] > 0
' "$SJ"; then ok "--sockets JSON content"; else nok "--sockets JSON content"; fi
fi
# open files: the soft limit is raised as far as needed, the hard one is not
# shellcheck disable=SC3045 # dash and bash have ulimit -H
hard=$(ulimit -Hn)
if [ "$hard" = unlimited ] || [ "$hard" -ge 200 ]; then
	expect 0 "--sockets above the soft open-file limit: raised" -- sh -c 'ulimit -S -n 64 && exec "$@"' sh \
		env LD_PRELOAD="$FAKE" FAKE_RDS_FAMILY=$FAM "$B" --family $FAM stream -d 0.2 -w 0.05 -t 2 --sockets 64
else
	ok "# SKIP hard open-file limit below 200"
fi
expect 1 "--sockets above the hard open-file limit: refused" -- sh -c 'ulimit -n 64 && exec "$@"' sh \
	env LD_PRELOAD="$FAKE" FAKE_RDS_FAMILY=$FAM "$B" --family $FAM stream -d 0.2 -t 2 --sockets 64
grep_out "128 sockets and about 32 other files need an open-file limit of 160, above RLIMIT_NOFILE's 64" \
	"... and says why"

# RDMA modes: the stand-in runs the operations in the target process
RJ=$T/rdma.jsonl
expect 0 "rdma-write" -- run rdma-write -d 0.3 -w 0.1 --json "$RJ"
grep_out "rdma-write fam 250 size 65536   thr 1  win 16 .* ops/s .* MB/s" "rdma-write line, 64k by default"
grep_out "bad len 0 data 0 seq 0" "rdma-write: region and carriers check out"
expect 0 "rdma-read, 2 initiators, 4k" -- run rdma-read -d 0.3 -w 0.1 -t 2 -s 4k --json "$RJ"
grep_out "bad len 0 data 0 seq 0" "rdma-read: the data read is the target's"
expect 0 "atomic, 3 initiators inproc" -- run atomic -d 0.3 -w 0.1 -t 3 --inproc --window 4 --json "$RJ"
grep_out "atomic .* size 8 .* win 4 " "atomic line"
grep_out "bad len 0 data 0 seq 0" "atomic: the word counts every fetch-and-add"
expect 0 "atomic count, window 1" -- run atomic -n 700 -w 0 -W 1 --json "$RJ"
grep_out "n 700 in" "atomic count honoured"
expect 0 "atomic --silent" -- run atomic -d 0.3 -w 0.1 --silent --json "$RJ"
grep_out "carriers 0, .*bad len 0 data 0 seq 0" "atomic --silent: no carrier, the word counts every fetch-and-add"
expect 0 "rdma-write --silent" -- run rdma-write -d 0.3 -w 0.1 -s 4k --silent
grep_out "carriers 0, .*bad len 0 data 0 seq 0" "rdma-write --silent: no carrier, the region holds the pattern"
expect 0 "rdma-write blocking" -- run rdma-write -d 0.3 -w 0 -s 1k --blocking
DROP=0
expect 4 "no RDMA: exit 4" -- env FAKE_RDS_NO_RDMA=$FAM LD_PRELOAD="$FAKE" FAKE_RDS_FAMILY=$FAM \
	"$B" --family $FAM rdma-read -d 0.3 --json "$RJ"
grep_out "rdma-read  fam 250 size 65536   unsupported: setsockopt(SOL_RDS, RDS_GET_MR, 65536 bytes): Operation not supported" \
	"says unsupported, and why"
if grep -q "target end" "$T/out"; then nok "unsupported is not reported as a failure"; else ok "unsupported is not reported as a failure"; fi
expect 1 "a failed operation fails the run" -- env FAKE_RDS_RDMA_FAIL=20 LD_PRELOAD="$FAKE" \
	FAKE_RDS_FAMILY=$FAM "$B" --family $FAM atomic -d 0.3
grep_out "operation [0-9]* completed with status 1 (RDS_RDMA_REMOTE_ERROR)" "names the status"
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [x["mode"] for x in r] == ["rdma-write", "rdma-read", "atomic", "atomic", "atomic", "rdma-read"]
for x in r[:5]:
    assert x["ok"] is True and x["supported"] is True and x["ops"] > 0 and x["ops_per_s"] > 0
    assert x["completed"] == x["issued"] >= x["ops"] and x["carriers"] <= x["issued"]
    assert abs(x["mb_per_s"] - x["ops_per_s"] * x["size"] / 1e6) < 1e-3 * x["mb_per_s"]
assert r[0]["size"] == 65536 and r[0]["window"] == 16 and r[1]["threads"] == 2
assert r[2]["size"] == 8 and r[2]["window"] == 4 and r[3]["ops"] == 700
assert r[4]["carriers"] == 0 and r[4]["ops"] > 0
u = r[5]
assert u["ok"] is False and u["supported"] is False and "EOPNOTSUPP" not in u["reason"]
assert u["reason"].startswith("setsockopt(SOL_RDS, RDS_GET_MR, 65536 bytes): Operation not supported")
' "$RJ"; then ok "RDMA JSON content"; else nok "RDMA JSON content"; fi
fi

# reqresp: requests map a buffer, each response RDMAs it (in the client)
QJ=$T/rr.jsonl
expect 0 "reqresp" -- run reqresp -d 0.3 -w 0.1 --json "$QJ"
grep_out "reqresp    fam 250 size 4096    thr 1  win 4    write 65536 .* tx/s .* MB/s   p50 " \
	"reqresp line: 4k requests, window 4, 64k RDMA writes by default"
grep_out "stale 0, bad len 0 data 0 seq 0 rdma 0, rdma failed 0" "reqresp: requests and responses check out"
expect 0 "reqresp --verify, 2 clients" -- run reqresp -d 0.3 -w 0.1 -t 2 --verify --json "$QJ"
grep_out "bad len 0 data 0 seq 0 rdma 0, rdma failed 0" "reqresp --verify: every write brought its request's bytes"
expect 0 "reqresp --rr-op read --verify, inproc" -- run reqresp -d 0.3 -w 0.1 --rr-op read --verify \
	--inproc --rdma-size 4k --json "$QJ"
grep_out "win 4    read  4096 .*bad len 0 data 0 seq 0 rdma 0, rdma failed 0" \
	"reqresp --verify: every read fetched the client's bytes"
expect 0 "reqresp count, window 1, --notify" -- run reqresp -n 300 -w 0 -W 1 --notify --ack-size 16 \
	--size 16 --json "$QJ"
grep_out "n 300 in" "reqresp count honoured"
grep_out "responses \([0-9]*\), notices \1," "reqresp --notify: a notice for every response"
# rrenv VAR=VALUE [OPTIONS]: a reqresp run with one more setting of the stand-in
rrenv() {
	_e=$1
	shift
	env "$_e" LD_PRELOAD="$FAKE" FAKE_RDS_FAMILY=$FAM "$B" --family $FAM reqresp -d 0.3 -w 0.1 "$@"
}
expect 3 "reqresp --verify: a damaged write is found" -- rrenv FAKE_RDS_RDMA_CORRUPT=40 --verify
grep_out "rdma 1, rdma failed 0" "... counted as one bad RDMA"
grep_out "WARNING: wrong data: a client's buffer" "... and named"
expect 3 "reqresp --verify: a damaged read is found" -- rrenv FAKE_RDS_RDMA_CORRUPT=40 --verify --rr-op read
grep_out "rdma 1, rdma failed 0" "... counted as one bad RDMA"
expect 3 "reqresp --verify: a write that did not happen is found" -- rrenv FAKE_RDS_RDMA_FAIL=40 --verify
grep_out "rdma 1, rdma failed 1" "... and its failure counted"
expect 3 "reqresp --notify: a failed write is counted" -- rrenv FAKE_RDS_RDMA_FAIL=40 --notify
grep_out "completed with status 1 (RDS_RDMA_REMOTE_ERROR)" "... and named"
expect 4 "reqresp without RDMA: exit 4" -- rrenv FAKE_RDS_NO_RDMA=$FAM --json "$QJ"
grep_out "reqresp    fam 250 size 4096    unsupported: client 0: sendmsg(4096 bytes, RDS_CMSG_RDMA_MAP of 65536): Operation not supported" \
	"says unsupported, and why"
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [(x["mode"], x["rr_op"]) for x in r] == [("reqresp", "write")] * 2 + [("reqresp", "read")] + [("reqresp", "write")] * 2
for x in r[:4]:
    assert x["ok"] is True and x["supported"] is True and x["transactions"] > 0 and x["tx_per_s"] > 0
    assert x["completed"] == x["issued"] == x["requests"] == x["responses"] >= x["transactions"]
    assert abs(x["mb_per_s"] - x["tx_per_s"] * x["rdma_size"] / 1e6) < 1e-3 * x["mb_per_s"]
    assert 0 < x["rtt_p50_us"] <= x["rtt_p99_us"] <= x["rtt_p999_us"] <= x["rtt_max_us"]
    assert x["bad_len"] == x["bad_data"] == x["rdma_bad"] == x["rdma_failed"] == x["no_cookie"] == 0
    assert x["notices"] == (x["responses"] if x["notify"] else 0)
assert r[0]["size"] == 4096 and r[0]["window"] == 4 and r[0]["rdma_size"] == 65536 and r[0]["ack_size"] == 64
assert r[0]["notify"] is False and r[1]["verify"] is True and r[1]["notify"] is True and r[1]["threads"] == 2
assert r[2]["rdma_size"] == 4096 and r[2]["inproc"] is True
assert r[3]["transactions"] == 300 and r[3]["window"] == 1 and r[3]["size"] == 16 and r[3]["ack_size"] == 16
u = r[4]
assert u["ok"] is False and u["supported"] is False and u["rdma_size"] == 65536 and "RDS_CMSG_RDMA_MAP" in u["reason"]
' "$QJ"; then ok "reqresp JSON content"; else nok "reqresp JSON content"; fi
fi

# losses are detected, and nothing hangs
DROP=500
expect 3 "stream with losses exits 3" -- run stream -d 0.3 -w 0.1
grep_out "sequence [1-9]" "losses reported as sequence errors"
DROP=300
expect 3 "pingpong with losses exits 3" -- run pingpong -d 0.5 -w 0.1 --timeout 0.05
grep_out "lost [1-9]" "lost echoes reported"
start=$(date +%s)
DROP=1
expect 1 "stream: nothing arrives" -- run stream -d 0.3 --timeout 1
grep_out "no message arrived" "says nothing arrived"
expect 1 "pingpong: no echo" -- run pingpong -d 0.3 --timeout 1
grep_out "no echo" "says no echo"
expect 1 "probe: nothing arrives" -- run probe --timeout 1
DROP=0
end=$(date +%s)
if [ $((end - start)) -le 15 ]; then ok "failures end promptly"; else nok "failures took $((end - start)) s"; fi

# JSON: one object per result line, parseable
n=$(wc -l < "$J")
if [ "$n" -eq 8 ]; then ok "8 JSON lines"; else nok "JSON lines: $n, want 8"; fi
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert rows[0]["label"] == "a \"quoted\" label"
for r in rows:
    assert r["tool"] == "rds-bench" and r["family"] == 250 and r["ok"] is True
    assert r["sockets"] == 1
    if r["mode"] == "stream":
        assert r["msgs"] > 0 and r["msgs_per_s"] > 0 and r["seq_errors"] == 0
    else:
        assert r["round_trips"] > 0 and r["rtt_p50_us"] <= r["rtt_p99_us"] <= r["rtt_p999_us"] <= r["rtt_max_us"]
' "$J"; then ok "JSON content"; else nok "JSON content"; fi
fi

# compare.sh end to end (tiny matrix) and its refusals
expect 2 "compare.sh: one spec" -- "$HERE/compare.sh" a:$FAM
expect 2 "compare.sh: bad spec" -- "$HERE/compare.sh" a:x b:21
expect 2 "compare.sh: family missing" -- "$HERE/compare.sh" --out "$T/c0" a:$FAM b:249
grep_out "does not work" "compare.sh says which family fails"
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM expect 0 "compare.sh runs" -- \
	"$HERE/compare.sh" --bench "$B" --rounds 2 --sizes "64 4k" --duration 0.2 \
	--pp-duration 0.2 --warmup 0.05 --out "$T/c1" x:$FAM y:$FAM
grep_out "stream     4k" "compare.sh table"
if [ -s "$T/c1/summary.json" ] && [ "$(wc -l < "$T/c1/runs.jsonl")" -eq 16 ]; then
	ok "compare.sh output files"
else
	nok "compare.sh output files"
fi
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
assert len(s["results"]) == 4
for r in s["results"]:
    assert r["ratio"] > 0 and r["a"]["runs"] == 2 and r["b"]["runs"] == 2
' "$T/c1/summary.json"; then ok "summary.json content"; else nok "summary.json content"; fi
fi

# compare.sh with the RDMA workloads, one family without RDMA
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM,251 FAKE_RDS_NO_RDMA=251 expect 0 "compare.sh RDMA workloads" -- \
	"$HERE/compare.sh" --bench "$B" --rounds 2 --modes "rdma-write atomic" --rdma-sizes 4k \
	--window 8 --duration 0.2 --warmup 0.05 --out "$T/c2" x:$FAM y:251
grep_out "rdma-write 4k .* (unsupported: B)" "compare.sh marks the unsupported cells"
grep_out "4 of 8 runs unsupported" "compare.sh counts unsupported runs, not as failures"
if [ "$(grep -c '"window":8' "$T/c2/runs.jsonl")" -eq 8 ] &&
   awk -F '\t' 'NR > 1 && $2 == "y:251" && ($5 != 0 || $13 != 2) { bad = 1 } END { exit bad }' "$T/c2/medians.tsv"; then
	ok "compare.sh passes --window; medians.tsv counts unsupported runs"
else
	nok "compare.sh passes --window; medians.tsv counts unsupported runs"
fi

# compare.sh with reqresp: a cell per RDMA size, requests of --rr-size
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM,251 expect 0 "compare.sh reqresp" -- \
	"$HERE/compare.sh" --bench "$B" --rounds 2 --modes reqresp --rdma-sizes "4k 64k" --rr-size 1k \
	--window 2 --duration 0.2 --warmup 0.05 --out "$T/c5" x:$FAM y:251
grep_out "workload   size         A tx/s     A MB/s        B tx/s     B MB/s      A/B" "compare.sh: a tx/s table"
grep_out "^reqresp    64k  *[0-9][0-9]* .* [0-9]*\.[0-9][0-9]  *[0-9]*%$" "compare.sh: a reqresp cell with its ratio"
if [ "$(grep -c '"mode":"reqresp".*"size":1024,.*"window":2,.*"rr_op":"write"' "$T/c5/runs.jsonl")" -eq 8 ]; then
	ok "compare.sh passes --rr-size and --window to reqresp"
else
	nok "compare.sh passes --rr-size and --window to reqresp"
fi
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
c = {(r["mode"], r["size"]): r for r in s["results"]}
assert sorted(c) == [("reqresp", 4096), ("reqresp", 65536)]
for r in c.values():
    assert r["ratio"] > 0 and r["a"]["runs"] == 2 and r["b"]["runs"] == 2
    assert abs(r["ratio"] - r["a"]["tx_per_s"] / r["b"]["tx_per_s"]) < 1e-2 * r["ratio"]
    assert r["a"]["rtt_p50_us"] > 0 and r["b"]["rtt_p99_us"] >= r["b"]["rtt_p50_us"]
' "$T/c5/summary.json"; then ok "compare.sh reqresp summary.json"; else nok "compare.sh reqresp summary.json"; fi
fi
expect 2 "compare.sh: bad --rr-size" -- "$HERE/compare.sh" --rr-size 4x x:$FAM y:251

# --local/--peer: the sending end binds one address and sends to the other
expect 0 "--local/--peer" -- run probe --local 192.0.2.2 --peer 192.0.2.1
grep_out "192.0.2.2:[0-9]* -> 192.0.2.1:" "probe binds --local and sends to --peer"

# --- perftest-bench.sh over fake-perftest.sh ----------------------------
P=$HERE/perftest-bench.sh
FB=$T/bin
FD=$T/fp
mkdir -p "$FB" "$FD"
for n in ib_send_bw ib_send_lat ib_write_bw ib_read_bw ib_atomic_bw ibv_devinfo rdma ip ss; do
	ln -s "$HERE/fake-perftest.sh" "$FB/$n"
done
HOW=""
pt() { PATH=$FB:$PATH FAKE_PERFTEST_DIR=$FD FAKE_PERFTEST=$HOW "$P" "$@"; }
IBA="--saddr 192.0.2.2 --daddr 192.0.2.1"
for bad in "" "bogus" "--addr 192.0.2.1" "--addr 192.0.2.1 stream pingpong" \
	   "stream" "--addr 1.2.3 stream" "--addr 192.0.2.1 --size 0 stream" \
	   "--addr 192.0.2.1 --size 9m stream" "--addr 192.0.2.1 --iters 4 stream" \
	   "--addr 192.0.2.1 --duration 0 stream" "--addr 192.0.2.1 --port 0 stream" \
	   "--addr 192.0.2.1 --bogus stream" "--addr 192.0.2.1 stream --size" \
	   "--addr 192.0.2.1 --size 16 atomic" "--addr 192.0.2.1 --window 0 rdma-write"; do
	# shellcheck disable=SC2086
	expect 2 "perftest-bench.sh rejects: '$bad'" -- pt $bad
	grep_out "Try 'perftest-bench.sh --help'" "perftest-bench.sh explains: '$bad'"
done
expect 1 "perftest-bench.sh: address on no RDMA device" -- pt --addr 203.0.113.99 probe
grep_out "no interface holds 203.0.113.99" "says which address has no device"
# shellcheck disable=SC2086
expect 0 "perftest-bench.sh probe" -- pt $IBA probe
grep_out "probe    perftest ok: fake0, 192.0.2.2 -> 192.0.2.1" "probe line"
PJ=$T/p.jsonl
# shellcheck disable=SC2086
expect 0 "perftest stream" -- pt $IBA -s 64k -n 500 --json "$PJ" stream
grep_out "ib_send_bw  *size 65536 .* msgs/s .* MB/s" "perftest stream line"
# shellcheck disable=SC2086
expect 0 "perftest stream -e" -- pt $IBA -s 64 -n 500 --events --json "$PJ" stream
grep_out "ib_send_bw -e" "perftest stream line says -e"
# shellcheck disable=SC2086
expect 0 "perftest pingpong" -- pt $IBA -n 2000 --json "$PJ" pingpong
grep_out "p50 177.2 " "pingpong reports the round trip, 2 x t_typical"
# shellcheck disable=SC2086
expect 0 "perftest sized by guess" -- pt $IBA -s 4k -d 2 --rates "$T/rates" --json "$PJ" stream
# shellcheck disable=SC2086
expect 0 "perftest sized by --rates" -- pt $IBA -s 4k -d 2 --rates "$T/rates" --json "$PJ" stream
grep_out "| 53080 msgs" "iterations = last rate x --duration (26540/s x 2 s)"
if [ "$(wc -l < "$T/rates")" -eq 1 ]; then ok "one rate per cell"; else nok "one rate per cell"; fi
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 5
assert r[0]["tool"] == "perftest" and r[0]["program"] == "ib_send_bw" and r[0]["events"] is False
assert r[0]["msgs_per_s"] == 26540 and abs(r[0]["mb_per_s"] - 26540 * 65536 / 1e6) < 0.01
assert r[0]["iters"] == 500 and r[0]["ok"] is True and r[0]["dev"] == "fake0"
assert r[1]["events"] is True and r[1]["msgs_per_s"] == 30000
assert r[2]["mode"] == "pingpong" and r[2]["program"] == "ib_send_lat"
assert r[2]["rtt_p50_us"] == 177.24 and r[2]["perftest_t_typical_us"] == 88.62
assert abs(r[2]["rt_per_s"] / (1e6 / (2 * 88.62 * 1.9)) - 1) < 1e-3
assert r[2]["rtt_p50_us"] <= r[2]["rtt_p99_us"] <= r[2]["rtt_p999_us"] <= r[2]["rtt_max_us"]
assert r[3]["iters"] == 9766 and r[4]["iters"] == 53080  # 2e7 / 4096 x 2 s, then 26540 x 2 s
' "$PJ"; then ok "perftest JSON content"; else nok "perftest JSON content"; fi
fi
PR=$T/pr.jsonl
: > "$FD/args"
# shellcheck disable=SC2086
expect 0 "perftest rdma-write" -- pt $IBA -n 300 --json "$PR" rdma-write
grep_out "rdma-write verbs ib_write_bw .* size 65536 .* win 16 .* 900 ops/s *58.98 MB/s" "ib_write_bw line, 64k by default"
# shellcheck disable=SC2086
expect 0 "perftest rdma-read -e" -- pt $IBA -n 300 -s 4k --window 32 --events --json "$PR" rdma-read
grep_out "ib_read_bw -e .* size 4096 .* win 32" "ib_read_bw line"
# shellcheck disable=SC2086
expect 0 "perftest atomic" -- pt $IBA -n 300 --json "$PR" atomic
grep_out "ib_atomic_bw .* size 8 .* 40000 ops/s" "ib_atomic_bw line"
# shellcheck disable=SC2086
expect 4 "perftest rdma-write -e: unsupported" -- pt $IBA -n 300 --events --json "$PR" -l 'a "q" \x' rdma-write
grep_out "rdma-write verbs ib_write_bw -e .* unsupported: ib_write_bw has no -e" "says ib_write_bw has no -e"
if grep -q "^ib_write_bw -d fake0 -p 18515 -s 65536 -n 300 -t 16 -x 3 192.0.2.1$" "$FD/args" &&
   grep -q "^ib_read_bw -d fake0 -p 18515 -s 4096 -n 300 -t 32 -e -x 3 192.0.2.1$" "$FD/args" &&
   grep -q "^ib_atomic_bw -d fake0 -p 18515 -n 300 -A FETCH_AND_ADD -t 16 -x 3 192.0.2.1$" "$FD/args"; then
	ok "perftest RDMA options: -s, -t window, -A FETCH_AND_ADD, no -s for atomic"
else
	nok "perftest RDMA options"; sed 's/^/# /' "$FD/args"
fi
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert [x["program"] for x in r] == ["ib_write_bw", "ib_read_bw", "ib_atomic_bw", "ib_write_bw"]
assert r[3]["supported"] is False and r[3]["ok"] is False and r[3]["events"] is True
assert r[3]["label"] == "a \"q\" \\x" and "no -e" in r[3]["reason"]
assert r[0]["mode"] == "rdma-write" and r[0]["ops_per_s"] == 900 and r[0]["window"] == 16
assert abs(r[0]["mb_per_s"] - 900 * 65536 / 1e6) < 0.01 and r[0]["supported"] is True
assert r[1]["events"] is True and r[1]["window"] == 32 and r[1]["size"] == 4096
assert r[2]["size"] == 8 and r[2]["ops_per_s"] == 40000
' "$PR"; then ok "perftest RDMA JSON content"; else nok "perftest RDMA JSON content"; fi
fi
HOW=server-fails
# shellcheck disable=SC2086
expect 0 "server failing after the client's result" -- pt $IBA -n 100 stream
grep_out "note: ib_send_bw exit status client 0, server 1" "notes the server's failure"
HOW=client-hangs
start=$(date +%s)
# shellcheck disable=SC2086
expect 0 "client waiting for a failed server" -- pt $IBA -n 100 pingpong
end=$(date +%s)
if [ $((end - start)) -le 8 ]; then ok "stuck client stopped after its result"; else nok "stuck client took $((end - start)) s"; fi
HOW="fail-once"
rm -f "$FD/failed-once"
# shellcheck disable=SC2086
expect 0 "failed run tried again" -- pt $IBA -n 100 stream
grep_out "trying once more" "says it tries again"
HOW=fail
# shellcheck disable=SC2086
expect 1 "failing client" -- pt $IBA -n 100 stream
grep_out "Failed to complete run_iter" "shows what the client said"
HOW=""

# perftest has no reqresp: its cells say unsupported, and nothing fails
: > "$FD/args"
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM PATH=$FB:$PATH FAKE_PERFTEST_DIR=$FD expect 0 \
	"compare.sh reqresp against perftest" -- "$HERE/compare.sh" --bench "$B" --rounds 1 \
	--modes reqresp --duration 0.2 --warmup 0.05 --saddr 192.0.2.2 --daddr 192.0.2.1 \
	--out "$T/c6" x:$FAM v:perftest
grep_out "^reqresp    64k  *[0-9][0-9]* .* -  *-  *-  .* (unsupported: B)" "the perftest cell is unsupported"
grep_out "1 of 2 runs unsupported" "... counted as such, not as a failure"
if grep -q '"spec":"v:perftest".*"supported":false,"reason":"perftest has no request/response workload"' "$T/c6/runs.jsonl" &&
   ! grep -q "^ib_\(write\|read\|send\)_bw" "$FD/args"; then
	ok "... without running perftest"
else
	nok "... without running perftest"
fi

# --sockets reaches every rds-bench run; perftest's cells are unsupported
: > "$FD/args"
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM PATH=$FB:$PATH FAKE_PERFTEST_DIR=$FD expect 0 \
	"compare.sh --sockets 3 against perftest" -- "$HERE/compare.sh" --bench "$B" --rounds 1 \
	--sizes 64 --sockets 3 --duration 0.2 --pp-duration 0.2 --warmup 0.05 \
	--saddr 192.0.2.2 --daddr 192.0.2.1 --out "$T/c7" x:$FAM v:perftest
grep_out "threads 1, sockets 3$" "compare.sh names the sockets"
grep_out "^stream     64  *[0-9][0-9]* .* -  *-  *-  .* (unsupported: B)" "the perftest stream cell is unsupported"
grep_out "^pingpong   64  *[0-9][0-9]* .* -  *-  *-  .* (unsupported: B)" "the perftest pingpong cell is unsupported"
grep_out "2 of 4 runs unsupported" "... counted as such, not as failures"
if [ "$(grep -c '"spec":"x:[0-9]*".*"sockets":3,' "$T/c7/runs.jsonl")" -eq 2 ] &&
   [ "$(grep -c '"spec":"v:perftest".*"sockets":3,.*"supported":false,"reason":"perftest runs one QP (no --sockets)"' "$T/c7/runs.jsonl")" -eq 2 ] &&
   grep -q '"threads":1,"sockets":3,' "$T/c7/summary.json" &&
   [ "$(grep -c "^ib_send" "$FD/args")" -eq 1 ] && grep -q "^ib_send_lat .*-n 5 " "$FD/args"; then
	ok "... rds-bench ran with --sockets 3, perftest only for its probe"
else
	nok "... rds-bench ran with --sockets 3, perftest only for its probe"; sed 's/^/# /' "$FD/args"
fi
expect 2 "compare.sh: --sockets 0" -- "$HERE/compare.sh" --sockets 0 x:$FAM y:251
expect 2 "compare.sh: --sockets 65" -- "$HERE/compare.sh" --sockets 65 x:$FAM y:251
expect 2 "compare.sh: --sockets 2 with reqresp" -- "$HERE/compare.sh" --sockets 2 --modes "stream reqresp" x:$FAM y:251
grep_out "only stream and pingpong run more than one socket per thread, not reqresp" "... says why"

# --- scaling.sh: a compare.sh run per (sockets, threads) ---------------
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM,251 expect 0 "scaling.sh" -- "$HERE/scaling.sh" \
	--bench "$B" --threads "1 2" --sockets "1 3" --rounds 1 --duration 0.2 --warmup 0.05 \
	--out "$T/s1" --subject x x:$FAM y:251
grep_out "^threads sockets  *x  *y$" "scaling.sh table, a column per spec"
grep_out "^      2       3  *[0-9][0-9]*  *[0-9][0-9]*$" "... a row per pair"
grep_out "^2 senders vs 1 (1 socket each) on [0-9?]* cpus: x [0-9]*\.[0-9][0-9], y [0-9]*\.[0-9][0-9]$" \
	"scaling.sh: 2 senders vs 1 for every spec"
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
d = sys.argv[1]
s = json.load(open(d + "/scaling.json"))
c = {(x["threads"], x["sockets"], x["spec"]): x for x in s["cells"]}
assert len(c) == 8 and all(x["msgs_per_s"] > 0 and x["runs"] == 1 for x in c.values())
# compare.sh medians.tsv: side spec mode size runs bad_runs rate ...
med = {}
for t in (1, 2):
    for k in (1, 3):
        r = [json.loads(l) for l in open("%s/t%d-s%d/runs.jsonl" % (d, t, k))]
        assert len(r) == 2 and all(x["threads"] == t and x["sockets"] == k and x["size"] == 64 for x in r)
        for l in list(open("%s/t%d-s%d/medians.tsv" % (d, t, k)))[1:]:
            f = l.split("\t")
            med[(t, k, f[1])] = float(f[6])
assert sorted(med) == sorted(c)
for key, x in c.items():
    assert abs(x["msgs_per_s"] - med[key]) < 1e-3 * med[key]
for n, spec in (("x", "x:250"), ("y", "y:251")):
    want = med[(2, 1, spec)] / med[(1, 1, spec)]
    assert abs(s["two_vs_one"][n] - want) < 1e-3 * want
' "$T/s1"; then ok "scaling.sh: every pair run as asked, the ratio of its medians"; else nok "scaling.sh: every pair run as asked, the ratio of its medians"; fi
fi
expect 2 "scaling.sh: one spec" -- "$HERE/scaling.sh" x:$FAM
expect 2 "scaling.sh: a perftest spec" -- "$HERE/scaling.sh" x:$FAM v:perftest
expect 2 "scaling.sh: --sockets 65" -- "$HERE/scaling.sh" --sockets "1 65" x:$FAM y:251
expect 2 "scaling.sh: a spec that does not work stops it" -- "$HERE/scaling.sh" --bench "$B" \
	--threads "1 2" --out "$T/s2" x:249 y:248
if [ ! -d "$T/s2/t2-s1" ]; then ok "... at once"; else nok "... at once"; fi

# --- ib-compare.sh: four specs through compare.sh ----------------------
# like Soft-RoCE: Linux RDS (250) has no RDMA on it
NORDMA=250
ib() {
	LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=250,251 FAKE_RDS_NO_RDMA=$NORDMA PATH=$FB:$PATH \
		FAKE_PERFTEST_DIR=$FD FAKE_PERFTEST=$HOW "$HERE/ib-compare.sh" --rounds 2 --sizes "64 64k" \
		--duration 0.2 --pp-duration 0.2 --warmup 0.05 --rds-family 250 "$@"
}
expect 0 "ib-compare.sh" -- ib --doca-family 251 --out "$T/ib1"
grep_out "A = rds_doca-ib:251, B = rds_rdma:250, C = verbs:perftest, D = verbs-e:perftest:events" "ib-compare.sh runs four specs"
grep_out "64 B stream msgs/s, rds_doca / rds_rdma" "ib-compare.sh target table"
grep_out "^rdma-write 64k   MB/s  .* unsupp\. .* 58.98   (58.98 / unsupp.)" "ib-compare.sh RDMA write row"
grep_out "^atomic     8     ops/s .* unsupp\. .* 40000   (40000 / 20000)" "ib-compare.sh atomic row"
# the stand-in's own rate depends on the machine's load: the verdict must
# follow the ratio printed, whichever it is
if awk '/fetch-and-add ops\/s, rds_doca \/ ib_atomic_bw/ {
		# name, ratio, ">= 0.8", verdict, maybe "(spread N%)"
		sub(/.*ib_atomic_bw */, ""); v = $1; verdict = $4
		ok = (v >= 0.8 && verdict == "met") || (v < 0.8 && verdict == "missed")
		found = 1
	} END { exit !(found && ok) }' "$T/out"; then
	ok "ib-compare.sh atomic target: the verdict follows the ratio"
else
	nok "ib-compare.sh atomic target: the verdict follows the ratio"
	grep "fetch-and-add" "$T/out" | sed 's/^/# /'
fi
if [ "$(wc -l < "$T/ib1/runs.jsonl")" -eq 48 ] && [ -s "$T/ib1/ib-summary.txt" ]; then
	ok "ib-compare.sh output files"
else
	nok "ib-compare.sh output files"
fi
expect 0 "ib-compare.sh without rds_doca over IB" -- ib --doca-family 252 --out "$T/ib2"
grep_out "rds_doca over IB is not measured" "says rds_doca is left out"
grep_out "not measured$" "targets not measured"
NORDMA=250,251
expect 0 "ib-compare.sh, rds_doca without RDMA" -- ib --doca-family 251 --out "$T/ib3" \
	--rounds 1 --sizes 64 --rdma-modes "rdma-read atomic"
grep_out "^rdma-read  64k   MB/s *unsupp\. *unsupp\." "RDMA rows say unsupp. for both families"
grep_out "64 KiB RDMA read MB/s, rds_doca / ib_read_bw .* unsupported$" "RDMA targets: unsupported"
grep_out "64 KiB RDMA write MB/s, rds_doca / ib_write_bw .* not measured$" "a workload left out: not measured"
NORDMA=250
if command -v python3 >/dev/null 2>&1; then
	if python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))
assert a["rds_doca_measured"] is True and a["dev"] == "fake0"
c = {(x["mode"], x["size"]): x for x in a["cells"]}
assert len(c) == 6
s = c[("stream", 64)]
assert s["metric"] == "msgs_per_s" and s["verbs_poll"] == 26540 and s["verbs_events"] == 30000
assert s["verbs_bound"] == 30000 and s["rds_doca_ib"] > 0 and s["rds_rdma"] > 0
assert abs(s["doca_over_rdma"] - s["rds_doca_ib"] / s["rds_rdma"]) < 1e-3 * s["doca_over_rdma"]
assert c[("stream", 65536)]["metric"] == "mb_per_s"
p = c[("pingpong", 64)]
assert p["metric"] == "rtt_p50_us" and p["verbs_bound"] == 177.24 and p["verbs_events"] == 3957.5
t = {x["name"]: x for x in a["targets"]}
assert len(t) == 7
w = c[("rdma-write", 65536)]
assert w["metric"] == "mb_per_s" and w["rds_rdma"] is None and w["unsupported"] == ["rds_rdma", "verbs-e"]
assert w["verbs_bound"] == 58.9824 and w["verbs_events"] is None and w["rds_doca_ib"] > 0
assert abs(t["rdma_write_64k_doca_over_verbs"]["value"] - w["rds_doca_ib"] / 58.9824) < 1e-3 * w["doca_over_verbs"]
at = c[("atomic", 8)]
assert at["metric"] == "ops_per_s" and at["verbs_bound"] == 40000 and at["verbs_events"] == 20000
assert t["atomic_doca_over_verbs"]["target"] == 0.8 and t["rdma_read_64k_doca_over_verbs"]["target"] == 1.0
for x in t.values():
    assert x["verdict"] == ("met" if (x["value"] >= x["target"] if x["op"] == ">=" else x["value"] <= x["target"]) else "missed")
assert abs(t["pingpong_64_doca_rtt_over_verbs"]["value"] - p["rds_doca_ib"] / p["verbs_poll"]) < 1e-3 * t["pingpong_64_doca_rtt_over_verbs"]["value"]
assert t["stream_64_doca_over_rdma"]["target"] == 2.5 and all("spread_pct" in x for x in t.values())
b = json.load(open(sys.argv[2]))
assert b["rds_doca_measured"] is False
assert all(x["value"] is None and x["verdict"] == "not measured" for x in b["targets"])
assert all(x["rds_doca_ib"] is None for x in b["cells"])
assert all(x["rds_rdma"] > 0 for x in b["cells"] if x["mode"] in ("stream", "pingpong"))
assert all(x["rds_rdma"] is None for x in b["cells"] if x["mode"] not in ("stream", "pingpong"))
d = json.load(open(sys.argv[3]))
u = {x["name"]: x["verdict"] for x in d["targets"]}
assert u["rdma_read_64k_doca_over_verbs"] == "unsupported" and u["atomic_doca_over_verbs"] == "unsupported"
assert u["rdma_write_64k_doca_over_verbs"] == "not measured"
assert [x["unsupported"] for x in d["cells"] if x["mode"] == "atomic"] == [["rds_doca-ib", "rds_rdma"]]
' "$T/ib1/ib-summary.json" "$T/ib2/ib-summary.json" "$T/ib3/ib-summary.json"; then ok "ib-summary.json content"; else nok "ib-summary.json content"; fi
fi

# --- references that fail: retried once, then missing; never a failure ---
rm -f "$FD/failed-once"
HOW="fail-once"
expect 0 "ib-compare.sh: a perftest run failing once" -- ib --doca-family 251 \
	--out "$T/ib4" --rounds 1 --sizes 64 --rdma-modes none
grep_out "once more" "... is run once more"
if ! grep -q "reference runs missing" "$T/out" && [ "$(grep -c '"spec":"verbs:perftest"' "$T/ib4/runs.jsonl")" -eq 2 ]; then
	ok "... and counts: nothing missing"
else
	nok "... and counts: nothing missing"
fi
HOW=fail
expect 0 "ib-compare.sh: perftest failing every time does not fail the run" -- \
	ib --doca-family 251 --out "$T/ib5" --rounds 1 --sizes 64 --rdma-modes none
grep_out "reference C (verbs:perftest) does not work, left out" "... the reference is left out"
grep_out "reference runs missing" "... and reported missing"
grep_out "^stream     64    msgs/s .* -  *(-\\* / -\\*)" "... shown as -* in the table"
HOW=""
# bad messages fail the run only from the spec under test
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM FAKE_RDS_DROP=3 expect 1 "compare.sh: the subject loses messages: failure" -- \
	"$HERE/compare.sh" --bench "$B" --rounds 1 --sizes 64 --modes stream --duration 0.2 \
	--warmup 0.05 --out "$T/c3" --subject x x:$FAM y:$FAM
grep_out "bad messages" "... says so"
LD_PRELOAD=$FAKE FAKE_RDS_FAMILY=$FAM FAKE_RDS_DROP=3 expect 0 "compare.sh: only references lose messages: no failure" -- \
	"$HERE/compare.sh" --bench "$B" --rounds 1 --sizes 64 --modes stream --duration 0.2 \
	--warmup 0.05 --out "$T/c4" --subject none x:$FAM y:$FAM
grep_out "2 of 2 reference runs missing" "... both reported missing after a retry"
expect 2 "compare.sh: --subject must name a spec" -- "$HERE/compare.sh" --subject z x:$FAM y:$FAM

# --- bench-vm.sh, as far as it goes without root ------------------------
# Every tool that would change the system is a stub that logs and fails,
# so nothing is loaded even if a check below fails (or runs as root).
if command -v bash >/dev/null 2>&1; then
	if bash -n "$HERE/bench-vm.sh"; then ok "bench-vm.sh: bash -n"; else nok "bench-vm.sh: bash -n"; fi
	VB=$T/vmbin
	mkdir -p "$VB"
	for n in modprobe insmod rmmod ip rdma; do
		printf '#!/bin/sh\necho "%s $*" >> "%s/vm-called"\nexit 1\n' "$n" "$T" > "$VB/$n"
		chmod +x "$VB/$n"
	done
	vm() { PATH=$VB:$PATH RDSD_BENCH_OUT=$T/bo RDSD_BENCH_MTU=$1 bash "$HERE/bench-vm.sh" "$T/none.ko"; }
	expect 2 "bench-vm.sh: RDSD_BENCH_MTU=1234 refused" -- vm 1234
	grep_out "RDSD_BENCH_MTU=1234: expected 1500 or 9000" "... and says why"
	if [ ! -e "$T/vm-called" ] && [ ! -e "$T/bo" ]; then
		ok "... before anything runs"
	else
		nok "... before anything runs"
	fi
	expect 1 "bench-vm.sh: RDSD_BENCH_MTU=9000 accepted" -- vm 9000
	if [ "$(head -n 1 "$T/vm-called" 2>/dev/null)" = "modprobe rdma_cm" ]; then
		ok "... it goes on to load the modules (stubbed)"
	else
		nok "... it goes on to load the modules (stubbed)"
	fi
else
	ok "# SKIP no bash for bench-vm.sh"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
