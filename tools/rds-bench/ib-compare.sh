#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# ib-compare.sh: rds_doca over InfiniBand/RoCE against Linux RDS over the
# same device (rds_rdma) and against raw verbs (perftest), interleaved in
# one compare.sh run: messages (stream, pingpong) and RDMA (write, read,
# fetch-and-add), then one table with the ratios the IB transport's
# targets are stated in.  Meant to run as root on a host (or VM) with an
# RDMA device holding two local addresses, modules loaded.  POSIX sh + awk.
# See --help and README.

set -u

usage() {
	cat <<'EOF'
Usage: ib-compare.sh [OPTIONS]

Measures, interleaved (every cell, every round, in this order):
  rds_doca-ib  rds-bench on rds_doca's family, --saddr -> --daddr
               (left out, with the reason, if rds_doca cannot bind them)
  rds_rdma     rds-bench on Linux RDS (family 21) over rds_rdma
  verbs        perftest ib_send_bw / ib_send_lat, busy polling, and
               ib_write_bw / ib_read_bw / ib_atomic_bw for the RDMA
               workloads
  verbs-e      the same with -e (sleeping on completion events)
over the workloads stream, pingpong, rdma-write, rdma-read and atomic;
then prints one table: the medians, the verbs bound (the better of verbs
and verbs-e) and the ratios doca/rdma, doca/verbs and rdma/verbs, and
the targets with their verdicts.  A socket family whose transport has no
RDMA shows "unsupp." in the RDMA rows (rds_rdma on Soft-RoCE refuses
RDS_GET_MR).

Options:
  --saddr A          sending/client address (default 192.0.2.2)
  --daddr A          receiving/server address (default 192.0.2.1)
  --doca-family N    rds_doca's family (default: its module parameter,
                     else 25)
  --rds-family N     Linux RDS's family (default 21)
  --rounds N         rounds (default 3)
  --out DIR          where results go (default ./rds-ib-compare-DATE-TIME)
  --sizes "LIST"     stream sizes (default "64 4k 64k 1m")
  --pp-sizes "LIST"  pingpong sizes (default "64")
  --rdma-modes "L"   RDMA workloads (default "rdma-write rdma-read
                     atomic"; "none" for none)
  --rdma-sizes "L"   sizes of rdma-write and rdma-read (default "64k")
  --window N         RDMA operations outstanding: rds-bench --window and
                     perftest -t (default 16)
  --duration S, --pp-duration S, --warmup S, --timeout S
                     passed to compare.sh
  -h, --help         this help

Output in DIR: everything compare.sh writes (runs.jsonl, medians.tsv,
summary.json, summary.txt, log.txt) plus ib-summary.txt (the table) and
ib-summary.json.  Only rds_doca is under test: a run of rds_rdma or
perftest that fails is run once more and, failing again, shown as
missing ("-", marked *) without failing the comparison.  Exit status:
compare.sh's (0 every rds_doca run ok, 1 some failed or saw bad
messages, 2 bad usage or rds_doca does not work).
EOF
}

die_usage() {
	echo "ib-compare.sh: $*" >&2
	echo "Try 'ib-compare.sh --help'." >&2
	exit 2
}

is_uint() { case "$1" in ''|*[!0-9]*) return 1;; *) return 0;; esac; }

SADDR=192.0.2.2
DADDR=192.0.2.1
DOCA_FAM=""
RDS_FAM=21
ROUNDS=3
OUT=""
SIZES="64 4k 64k 1m"
PP_SIZES="64"
RDMA_MODES="rdma-write rdma-read atomic"
RDMA_SIZES="64k"
WINDOW=16
PASS=""

while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0;;
	--saddr|--daddr|--doca-family|--rds-family|--rounds|--out|--sizes|\
	--pp-sizes|--rdma-modes|--rdma-sizes|--window|--duration|--pp-duration|\
	--warmup|--timeout)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		case "$1" in
		--saddr) SADDR=$2;;
		--daddr) DADDR=$2;;
		--doca-family) DOCA_FAM=$2;;
		--rds-family) RDS_FAM=$2;;
		--rounds) ROUNDS=$2;;
		--out) OUT=$2;;
		--sizes) SIZES=$2;;
		--pp-sizes) PP_SIZES=$2;;
		--rdma-modes) RDMA_MODES=$2;;
		--rdma-sizes) RDMA_SIZES=$2;;
		--window) WINDOW=$2;;
		*) PASS="$PASS $1 $2";;
		esac
		shift 2;;
	*) die_usage "unknown argument '$1'";;
	esac
done

if [ -z "$DOCA_FAM" ]; then
	DOCA_FAM=$(cat /sys/module/rds_doca/parameters/family 2>/dev/null) || DOCA_FAM=25
fi
for f in "$DOCA_FAM" "$RDS_FAM"; do
	if ! is_uint "$f" || [ "$f" -lt 1 ] || [ "$f" -gt 255 ]; then
		die_usage "invalid family '$f'"
	fi
done
[ "$DOCA_FAM" != "$RDS_FAM" ] ||
	die_usage "rds_doca and Linux RDS both on family $RDS_FAM: load rds_doca on its own family to compare"
if ! is_uint "$ROUNDS" || [ "$ROUNDS" -lt 1 ]; then die_usage "invalid --rounds '$ROUNDS'"; fi
if ! is_uint "$WINDOW" || [ "$WINDOW" -lt 1 ]; then die_usage "invalid --window '$WINDOW'"; fi
[ "$RDMA_MODES" != none ] || RDMA_MODES=""
for m in $RDMA_MODES; do
	case "$m" in rdma-write|rdma-read|atomic) ;; *) die_usage "unknown RDMA workload '$m'";; esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
BENCH=$HERE/rds-bench
[ -x "$BENCH" ] || { echo "ib-compare.sh: no $BENCH (run make in $HERE)" >&2; exit 2; }
[ -n "$OUT" ] || OUT=./rds-ib-compare-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT" || { echo "ib-compare.sh: cannot create $OUT" >&2; exit 2; }

# rds_doca over IB is measured only if it can bind these addresses: before
# its IB transport it has only loopback and bind() fails (EADDRNOTAVAIL).
DOCA_SPEC="rds_doca-ib:$DOCA_FAM"
DOCA_NOTE=""
if ! why=$("$BENCH" probe --family "$DOCA_FAM" --saddr "$SADDR" --daddr "$DADDR" --timeout 5 2>&1); then
	DOCA_NOTE=$(echo "$why" | grep -v '^rds-bench: WARNING' | head -n 1)
	echo "ib-compare.sh: rds_doca over IB is not measured: $DOCA_NOTE"
	DOCA_SPEC=""
fi

# Only rds_doca is under test: a failed reference run (rds_rdma,
# perftest) is retried once, then missing; it does not fail the run.
SUBJECT=${DOCA_SPEC%%:*}
# shellcheck disable=SC2086 # PASS is option/value pairs without blanks
"$HERE/compare.sh" --rounds "$ROUNDS" --out "$OUT" --saddr "$SADDR" \
	--subject "${SUBJECT:-none}" \
	--daddr "$DADDR" --sizes "$SIZES" --pp-sizes "$PP_SIZES" \
	--modes "stream pingpong $RDMA_MODES" --rdma-sizes "$RDMA_SIZES" \
	--window "$WINDOW" $PASS \
	$DOCA_SPEC "rds_rdma:$RDS_FAM" verbs:perftest verbs-e:perftest:events
rc=$?
[ $rc -ne 2 ] || exit 2
[ -s "$OUT/medians.tsv" ] || { echo "ib-compare.sh: no $OUT/medians.tsv" >&2; exit "$rc"; }

dev=$(sed -n 's/.*"dev":"\([^"]*\)".*/\1/p' "$OUT/runs.jsonl" | head -n 1)
echo
awk -F '\t' -v rounds="$ROUNDS" -v saddr="$SADDR" -v daddr="$DADDR" -v dev="${dev:-?}" -v window="$WINDOW" \
    -v docanote="$DOCA_NOTE" -v txt="$OUT/ib-summary.txt" \
    -v js="$OUT/ib-summary.json" '
function say(s) { print s; print s > txt }
function num(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
# a cell of column c: its value, "unsupp." if every run of it said the
# family has no RDMA there
function cellv(c, mode, size, fmt,    k, v) {
	k = c SUBSEP mode SUBSEP size
	v = val(c, mode, size)
	if (v == "" && UNS[k] > 0) return "unsupp."
	return num(v, fmt) flag(c, mode, size)
}
function unsup(c, mode, size) { return UNS[c SUBSEP mode SUBSEP size] > 0 && val(c, mode, size) == "" }
function jnum(x) { return x == "" ? "null" : sprintf("%.6g", x) }
function ratio(x, y) { return (x != "" && y != "" && y > 0) ? x / y : "" }
# the value shown for column c of a cell: msgs/s for small stream
# messages and operations/s for atomic, MB/s for the rest, the p50 round
# trip for pingpong
function val(c, mode, size,    k) {
	k = c SUBSEP mode SUBSEP size
	if (!(k in RUNS) || RUNS[k] == 0) return ""
	if (mode == "pingpong") return P50[k]
	return size < 1024 ? RATE[k] : MB[k]
}
function flag(c, mode, size,    k) {
	k = c SUBSEP mode SUBSEP size
	if (!(k in RUNS)) return ""
	if (BAD[k] > 0) return "!"
	return RUNS[k] + UNS[k] < rounds ? "*" : ""
}
# better of two: higher throughput, lower round trip
function best(a, b, lower) {
	if (a == "") return b
	if (b == "") return a
	if (lower) return a < b ? a : b
	return a > b ? a : b
}
function verdict(v, op, t, uns) {
	if (v == "" && uns) return "unsupported"
	if (v == "") return "not measured"
	if (op == ">=") return v >= t ? "met" : "missed"
	return v <= t ? "met" : "missed"
}
# medians.tsv: side spec mode size runs bad_runs rate mb_per_s rtt_p50_us
# rtt_p99_us spread_pct size_label unsupported; cells in the order measured
NR > 1 {
	name = $2; sub(/:.*/, "", name)
	k = name SUBSEP $3 SUBSEP $4
	RUNS[k] = $5; BAD[k] = $6; RATE[k] = $7; MB[k] = $8; P50[k] = $9; UNS[k] = $13 + 0
	SPR[k] = $11 + 0
	if (!(($3, $4) in seen)) {
		seen[$3, $4] = 1
		ncell++
		CMODE[ncell] = $3; CSIZE[ncell] = $4; CLABEL[ncell] = $12
	}
}
END {
	printf "" > txt
	say(sprintf("IB transport on %s, %s -> %s: medians of %d rounds, interleaved", dev, saddr, daddr, rounds))
	if (docanote != "")
		say("rds_doca-ib not measured: " docanote)
	say("")
	say(sprintf("%-10s %-5s %-10s %12s %12s %12s %-23s %9s %10s %10s %7s", "workload", "size", "metric",
		"rds_doca-ib", "rds_rdma", "verbs-bound", "  (poll / -e)", "doca/rdma", "doca/verbs", "rdma/verbs", "spread"))
	printf "{\"rounds\":%d,\"dev\":\"%s\",\"saddr\":\"%s\",\"daddr\":\"%s\",\"rds_doca_measured\":%s,\"cells\":[",
		rounds, dev, saddr, daddr, (docanote == "" ? "true" : "false") > js
	first = 1
	for (ci = 1; ci <= ncell; ci++) {
		mode = CMODE[ci]
		size = CSIZE[ci] + 0
		lower = mode == "pingpong"
		unit = mode == "stream" ? "msgs" : "ops"
		metric = lower ? "RTT p50 us" : size < 1024 ? unit "/s" : "MB/s"
		jmetric = lower ? "rtt_p50_us" : size < 1024 ? unit "_per_s" : "mb_per_s"
		fmt = lower ? "%.1f" : size < 1024 ? "%.0f" : "%.2f"
		d = val("rds_doca-ib", mode, size); r = val("rds_rdma", mode, size)
		vp = val("verbs", mode, size); ve = val("verbs-e", mode, size)
		vb = best(vp, ve, lower)
		V[mode, size, "doca"] = d; V[mode, size, "rdma"] = r; V[mode, size, "verbs"] = vb
		V[mode, size, "verbs-poll"] = vp
		dr = ratio(d, r); dv = ratio(d, vb); rv = ratio(r, vb)
		U[mode, size] = unsup("rds_doca-ib", mode, size)
		# the noisiest column of the cell: (max - min) / median of rounds
		spr = 0
		split("rds_doca-ib rds_rdma verbs verbs-e", CN, " ")
		for (cn = 1; cn <= 4; cn++)
			if (SPR[CN[cn] SUBSEP mode SUBSEP size] > spr)
				spr = SPR[CN[cn] SUBSEP mode SUBSEP size]
		if (spr > 20)
			noisy = 1
		CSPR[mode, size] = spr
		say(sprintf("%-10s %-5s %-10s %12s %12s %12s %-23s %9s %10s %10s %6.0f%%", mode, CLABEL[ci], metric,
			cellv("rds_doca-ib", mode, size, fmt), cellv("rds_rdma", mode, size, fmt),
			num(vb, fmt), "  (" cellv("verbs", mode, size, fmt) " / " cellv("verbs-e", mode, size, fmt) ")",
			num(dr, "%.2f"), num(dv, "%.2f"), num(rv, "%.2f"), spr))
		ul = ""
		split("rds_doca-ib rds_rdma verbs verbs-e", CN, " ")
		for (cn = 1; cn <= 4; cn++)
			if (unsup(CN[cn], mode, size))
				ul = ul (ul == "" ? "" : ",") "\"" CN[cn] "\""
		printf "%s\n{\"mode\":\"%s\",\"size\":%d,\"metric\":\"%s\",\"rds_doca_ib\":%s,\"rds_rdma\":%s,\"verbs_poll\":%s,\"verbs_events\":%s,\"verbs_bound\":%s,\"doca_over_rdma\":%s,\"doca_over_verbs\":%s,\"rdma_over_verbs\":%s,\"unsupported\":[%s]}",
			(first ? "" : ","), mode, size, jmetric, jnum(d), jnum(r), jnum(vp), jnum(ve), jnum(vb),
			jnum(dr), jnum(dv), jnum(rv), ul > js
		first = 0
	}
	printf "\n],\"targets\":[" > js
	say("")
	say(sprintf("%-52s %8s %8s  %s", "target", "measured", "wanted", "verdict"))
	nt = 0
	T[++nt] = "64 B stream msgs/s, rds_doca / rds_rdma|stream|64|rdma|>=|2.5|stream_64_doca_over_rdma"
	T[++nt] = "64 KiB stream MB/s, rds_doca / rds_rdma|stream|65536|rdma|>=|1.3|stream_64k_doca_over_rdma"
	T[++nt] = "64 KiB stream MB/s, rds_doca / verbs bound|stream|65536|verbs|>=|1.0|stream_64k_doca_over_verbs"
	T[++nt] = "64 B RTT p50, rds_doca / ib_send_lat (polling)|pingpong|64|verbs-poll|<=|2.0|pingpong_64_doca_rtt_over_verbs"
	T[++nt] = "64 KiB RDMA write MB/s, rds_doca / ib_write_bw|rdma-write|65536|verbs|>=|1.0|rdma_write_64k_doca_over_verbs"
	T[++nt] = "64 KiB RDMA read MB/s, rds_doca / ib_read_bw|rdma-read|65536|verbs|>=|1.0|rdma_read_64k_doca_over_verbs"
	T[++nt] = "fetch-and-add ops/s, rds_doca / ib_atomic_bw|atomic|8|verbs|>=|0.8|atomic_doca_over_verbs"
	for (t = 1; t <= nt; t++) {
		split(T[t], f, "|")
		v = ratio(V[f[2], f[3], "doca"], V[f[2], f[3], f[4]])
		vd = verdict(v, f[5], f[6] + 0, U[f[2], f[3]])
		spr = CSPR[f[2], f[3]] + 0
		say(sprintf("%-52s %8s %8s  %s%s", f[1], num(v, "%.2f"), f[5] " " f[6], vd,
			(v != "" && spr > 20 ? sprintf(" (spread %.0f%%)", spr) : "")))
		printf "%s\n{\"name\":\"%s\",\"value\":%s,\"op\":\"%s\",\"target\":%s,\"verdict\":\"%s\",\"spread_pct\":%.1f}",
			(t > 1 ? "," : ""), f[7], jnum(v), f[5], f[6], vd, spr > js
	}
	print "\n]}" > js
	say("")
	say("verbs-bound: the better of perftest without and with -e (higher msgs/s")
	say("or MB/s, lower RTT); the RTT target compares with ib_send_lat polling")
	say("only.  RTT = 2 x ib_send_lat t_typical: perftest reports")
	say("half of each round trip.  MB = 1e6 bytes (perftest MB/sec = 2^20 B/s,")
	say("converted).  Ratios of RTT: below 1 = rds_doca is faster.  Marks:")
	say("* some runs missing (a reference run that failed twice counts as")
	say("missing), ! some runs saw bad messages.  RDMA rows: both")
	say("rds-bench and perftest (ib_write_bw, ib_read_bw, ib_atomic_bw -A")
	say("FETCH_AND_ADD) keep " window " operations outstanding (perftest -t " window ");")
	say("the operations of rds-bench ride on 8-byte messages and complete with")
	say("RDS_CMSG_RDMA_STATUS notices.  unsupp.: no RDMA on that transport, or")
	say("no -e in ib_write_bw.  spread: (max - min) / median of the rounds, of")
	say("the noisiest column.  Per-run data in runs.jsonl, every median in")
	say("medians.tsv.")
	if (noisy)
		say("note: some cells vary by more than 20% between rounds; consider --rounds 5 (make bench: RDSD_BENCH_ROUNDS=5)")
}' "$OUT/medians.tsv"
echo "results: $OUT (ib-summary.txt, ib-summary.json, runs.jsonl, medians.tsv, log.txt)"
exit "$rc"
