#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# selftest.sh [RDS_BENCH [FAKE_SO]]: checks of rds-bench that need no RDS
# module.  Command-line handling and error reporting run against the real
# kernel; the end-to-end runs use fake-rds.so (an LD_PRELOAD stand-in that
# maps a made-up family, 250, to AF_UNIX datagram sockets) to exercise the
# processes, port exchange, stop handling, message checks, JSON output and
# compare.sh.  Ends with "N passed, N failed".

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
B=${1:-$HERE/rds-bench}
FAKE=${2:-$HERE/fake-rds.so}
FAM=250
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
nok() { fail=$((fail + 1)); echo "FAIL $*"; }

# expect RC DESCRIPTION -- command...   (output in $T/out)
expect() {
	want=$1 what=$2
	shift 3
	"$@" >"$T/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then ok "$what"; else nok "$what (rc $rc, want $want)"; sed 's/^/     /' "$T/out" | head -5; fi
}
# grep_out PATTERN DESCRIPTION
grep_out() {
	if grep -q -- "$1" "$T/out"; then ok "$2"; else nok "$2 (no '$1')"; sed 's/^/     /' "$T/out" | head -5; fi
}

[ -x "$B" ] || { echo "no binary $B"; echo "0 passed, 1 failed"; exit 1; }

# --- command line ------------------------------------------------------
expect 0 "--help" -- "$B" --help
grep_out "Usage: rds-bench" "--help prints usage"
for bad in "" "bogus" "stream pingpong" "--size 4x stream" "--size 2m stream" \
	   "--size 0 stream" "--family abc stream" "--family 0 stream" \
	   "--family 256 stream" "--duration 0 stream" "--duration -1 stream" \
	   "--warmup x stream" "--count 0 stream" "--threads 0 stream" \
	   "--threads 65 stream" "--addr 1.2.3 stream" "--saddr ::1 stream" \
	   "--transport -1 stream" "--timeout 0 stream" "--sndbuf 10 stream" \
	   "--sndbuf 32k --size 64k stream" "--bogus stream" "-z stream" \
	   "stream --size"; do
	# shellcheck disable=SC2086
	expect 2 "rejects: '$bad'" -- "$B" $bad
	grep_out "Try 'rds-bench --help'" "explains: '$bad'"
done
for good in "64" "4k" "64K" "1m" "1M" "4KiB" "1048576"; do
	# usage is fine, so this gets as far as socket() on an unused family
	expect 1 "accepts --size $good" -- "$B" --family $FAM --size "$good" probe
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
grep_out "stream    4k" "compare.sh table"
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
