#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# compare.sh: run the rds-bench matrix against two (or more) socket
# families, or raw verbs through perftest-bench.sh, and compare them.
# Meant to run as root on the machine (or VM) under test, with the modules
# already loaded.  POSIX sh + awk only.
#
#   compare.sh [OPTIONS] A_SPEC B_SPEC [C_SPEC ...]
#
# A spec is NAME:FAMILY[:TRANSPORT], e.g. doca:25, rds:21, rds-tcp:21:2,
# or NAME:perftest[:events].  See --help and README.

set -u

usage() {
	cat <<'EOF'
Usage: compare.sh [OPTIONS] A_SPEC B_SPEC [C_SPEC ...]

Runs {stream, pingpong} x {64, 4k, 64k, 1m} for every spec, interleaved
(A, B, C ... for every cell, every round), takes the median of each
number over the rounds and prints a table with the ratio A/B (and, with
more than two specs, every spec's medians).  The RDMA workloads
(rdma-write, rdma-read, atomic) and the request/response workload
(reqresp, as rds-stress runs it) run when --modes names them.

A spec is NAME:FAMILY[:TRANSPORT]: a name for the tables, the address
family number, and optionally an SO_RDS_TRANSPORT number; or
NAME:perftest[:events]: raw verbs with perftest-bench.sh (ib_send_bw for
stream, ib_send_lat for pingpong, ib_write_bw, ib_read_bw and
ib_atomic_bw for the RDMA workloads; "events" adds perftest's -e).  Up to
six specs.  Examples: doca:25  rds:21  rds-tcp:21:2  verbs:perftest

Options:
  --rounds N        rounds (default 3)
  --out DIR         where results go (default ./rds-compare-DATE-TIME)
  --bench PATH      rds-bench binary (default: next to this script; built
                    with make if missing and a compiler is present)
  --sizes "LIST"    message sizes (default "64 4k 64k 1m")
  --pp-sizes "LIST" message sizes of pingpong (default: --sizes)
  --modes "LIST"    workloads: stream pingpong rdma-write rdma-read atomic
                    reqresp (default "stream pingpong")
  --rdma-sizes "L"  sizes of rdma-write and rdma-read, and of the RDMA of
                    each reqresp transaction (default "64k"); atomic is
                    always 8 bytes
  --rr-size SIZE    reqresp: the request's size (default 4k)
  --window N        operations outstanding in the RDMA workloads, requests
                    in reqresp (rds-bench --window, perftest -t; default:
                    theirs, 16; reqresp 4)
  --duration S      measured seconds of a stream or RDMA run (default 1.5)
  --pp-duration S   measured seconds of a pingpong run (default 1.5)
  --warmup S        unmeasured seconds before each run (default 0.3)
  --threads N       stream senders / pingpong clients (default 1)
  --sockets N       sockets of every sender / client (rds-bench --sockets,
                    default 1); above 1, stream and pingpong only
  --addr A          local IPv4 address for both ends (default 127.0.0.1)
  --saddr A         address of the sending/client end (default --addr)
  --daddr A         address of the receiving/server end (default --addr)
  --timeout S       rds-bench --timeout (default 10)
  --bench-args "A"  extra arguments for every rds-bench run
  --perftest PATH   perftest-bench.sh (default: next to this script)
  --subject "NAMES" the specs under test, by name (default: all); the
                    others are references: a reference that fails (no
                    result, or bad messages) is run once more, and if it
                    fails again its run is reported as missing, not as a
                    failure; a reference that does not work at all is
                    left out of the measurements, also reported missing;
                    "none": every spec is a reference
  -h, --help        this help

perftest specs take --saddr/--daddr (an RDMA device must hold them),
--sizes, --duration and --timeout; they have no warm-up and run one QP
(--threads must be 1; with --sockets above 1 their cells are
"unsupported", without a run).  perftest has nothing like reqresp: its
reqresp cells are "unsupported", without a run.

Output in DIR: runs.jsonl (every run, with side/spec/round added),
summary.json (medians and ratios), summary.txt (the table), medians.tsv
(every spec's medians, one line per spec and cell), log.txt (everything
the runs printed) and, with gnuplot, ratios.png.  A run whose family or
transport has no RDMA (rds-bench exit status 4) counts as "unsupported",
not as a failure.
Exit status: 0 all runs of the specs under test ok, 1 some of them
failed or saw bad messages, 2 bad usage or a spec under test that does
not work.
EOF
}

die_usage() {
	echo "compare.sh: $*" >&2
	echo "Try 'compare.sh --help'." >&2
	exit 2
}

is_uint() { case "$1" in ''|*[!0-9]*) return 1;; *) return 0;; esac; }
is_secs() {
	case "$1" in ''|.|*[!0-9.]*|*.*.*) return 1;; *) return 0;; esac
}

ROUNDS=3
OUT=""
BENCH=""
SIZES="64 4k 64k 1m"
PP_SIZES=""
MODES="stream pingpong"
RDMA_SIZES="64k"
RR_SIZE=4k
WINDOW=""
DURATION=1.5
PP_DURATION=1.5
WARMUP=0.3
THREADS=1
SOCKETS=1
ADDR=127.0.0.1
SADDR=""
DADDR=""
TIMEOUT=10
BENCH_ARGS=""
PERFTEST=""
SPECS=""
SUBJECTS=""
NSPEC=0
MAXSPEC=6

while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) [ $# -ge 2 ] || die_usage "$1 needs a value"; ROUNDS=$2; shift 2;;
	--out) [ $# -ge 2 ] || die_usage "$1 needs a value"; OUT=$2; shift 2;;
	--bench) [ $# -ge 2 ] || die_usage "$1 needs a value"; BENCH=$2; shift 2;;
	--sizes) [ $# -ge 2 ] || die_usage "$1 needs a value"; SIZES=$2; shift 2;;
	--pp-sizes) [ $# -ge 2 ] || die_usage "$1 needs a value"; PP_SIZES=$2; shift 2;;
	--modes) [ $# -ge 2 ] || die_usage "$1 needs a value"; MODES=$2; shift 2;;
	--rdma-sizes) [ $# -ge 2 ] || die_usage "$1 needs a value"; RDMA_SIZES=$2; shift 2;;
	--rr-size) [ $# -ge 2 ] || die_usage "$1 needs a value"; RR_SIZE=$2; shift 2;;
	--window) [ $# -ge 2 ] || die_usage "$1 needs a value"; WINDOW=$2; shift 2;;
	--duration) [ $# -ge 2 ] || die_usage "$1 needs a value"; DURATION=$2; shift 2;;
	--pp-duration) [ $# -ge 2 ] || die_usage "$1 needs a value"; PP_DURATION=$2; shift 2;;
	--warmup) [ $# -ge 2 ] || die_usage "$1 needs a value"; WARMUP=$2; shift 2;;
	--threads) [ $# -ge 2 ] || die_usage "$1 needs a value"; THREADS=$2; shift 2;;
	--sockets) [ $# -ge 2 ] || die_usage "$1 needs a value"; SOCKETS=$2; shift 2;;
	--addr) [ $# -ge 2 ] || die_usage "$1 needs a value"; ADDR=$2; shift 2;;
	--saddr) [ $# -ge 2 ] || die_usage "$1 needs a value"; SADDR=$2; shift 2;;
	--daddr) [ $# -ge 2 ] || die_usage "$1 needs a value"; DADDR=$2; shift 2;;
	--timeout) [ $# -ge 2 ] || die_usage "$1 needs a value"; TIMEOUT=$2; shift 2;;
	--bench-args) [ $# -ge 2 ] || die_usage "$1 needs a value"; BENCH_ARGS=$2; shift 2;;
	--perftest) [ $# -ge 2 ] || die_usage "$1 needs a value"; PERFTEST=$2; shift 2;;
	--subject) [ $# -ge 2 ] || die_usage "$1 needs a value"; SUBJECTS=$2; shift 2;;
	-h|--help) usage; exit 0;;
	--) shift; break;;
	-*) die_usage "unknown option '$1'";;
	*)
		NSPEC=$((NSPEC + 1))
		[ $NSPEC -le $MAXSPEC ] || die_usage "too many specs: '$1' (at most $MAXSPEC)"
		SPECS="$SPECS $1"
		shift;;
	esac
done
while [ $# -gt 0 ]; do
	NSPEC=$((NSPEC + 1))
	[ $NSPEC -le $MAXSPEC ] || die_usage "too many specs: '$1' (at most $MAXSPEC)"
	SPECS="$SPECS $1"
	shift
done
[ $NSPEC -ge 2 ] || die_usage "expected at least two specs (A_SPEC B_SPEC), e.g. doca:25 rds:21"

if ! is_uint "$ROUNDS" || [ "$ROUNDS" -lt 1 ]; then die_usage "invalid --rounds '$ROUNDS'"; fi
if ! is_uint "$THREADS" || [ "$THREADS" -lt 1 ]; then die_usage "invalid --threads '$THREADS'"; fi
if ! is_uint "$SOCKETS" || [ "$SOCKETS" -lt 1 ] || [ "$SOCKETS" -gt 64 ]; then
	die_usage "invalid --sockets '$SOCKETS': expected 1..64"
fi
for v in "$DURATION" "$PP_DURATION" "$WARMUP" "$TIMEOUT"; do
	is_secs "$v" || die_usage "invalid number of seconds '$v'"
done
for m in $MODES; do
	case "$m" in stream|pingpong|rdma-write|rdma-read|atomic|reqresp) ;; *) die_usage "unknown workload '$m'";; esac
	# rds-bench refuses it: the other workloads run one socket a thread
	case "$m" in stream|pingpong) ;; *)
		[ "$SOCKETS" -eq 1 ] || die_usage "--sockets $SOCKETS: only stream and pingpong run more than one socket per thread, not $m";;
	esac
done
if ! is_uint "${RR_SIZE%[kKmM]}"; then
	die_usage "invalid --rr-size '$RR_SIZE': expected bytes, optionally with k or m (4k)"
fi
if [ -n "$WINDOW" ] && { ! is_uint "$WINDOW" || [ "$WINDOW" -lt 1 ]; }; then
	die_usage "invalid --window '$WINDOW'"
fi
[ -n "$SIZES" ] || die_usage "--sizes is empty"
[ -n "$RDMA_SIZES" ] || die_usage "--rdma-sizes is empty"
[ -n "$PP_SIZES" ] || PP_SIZES=$SIZES
[ -n "$SADDR" ] || SADDR=$ADDR
[ -n "$DADDR" ] || DADDR=$ADDR

# sizes of workload $1
sizes_of() {
	case "$1" in
	pingpong) echo "$PP_SIZES";;
	rdma-write|rdma-read|reqresp) echo "$RDMA_SIZES";;
	atomic) echo 8;;
	*) echo "$SIZES";;
	esac
}

# bytes of a size such as 64, 4k or 1m (the table's labels)
bytes_of() {
	case "$1" in
	*[kK]) echo $((${1%?} * 1024));;
	*[mM]) echo $((${1%?} * 1048576));;
	*) echo "$1";;
	esac
}

# spec -> NAME FAMILY TRANSPORT (TRANSPORT may be empty), or
# NAME perftest [events]
parse_spec() {
	_s=$1
	_name=${_s%%:*}
	_rest=${_s#*:}
	[ "$_rest" != "$_s" ] || die_usage "invalid spec '$_s': expected NAME:FAMILY[:TRANSPORT]"
	_fam=${_rest%%:*}
	_tr=""
	[ "$_fam" = "$_rest" ] || _tr=${_rest#*:}
	[ -n "$_name" ] || die_usage "invalid spec '$_s': empty name"
	case "$_name" in *[!A-Za-z0-9_.+-]*) die_usage "invalid spec '$_s': name may use letters, digits, _ . + -";; esac
	if [ "$_fam" = perftest ]; then
		case "$_tr" in
		''|events) echo "$_name perftest $_tr"; return 0;;
		*) die_usage "invalid spec '$_s': expected NAME:perftest or NAME:perftest:events";;
		esac
	fi
	if ! is_uint "$_fam" || [ "$_fam" -lt 1 ] || [ "$_fam" -gt 255 ]; then
		die_usage "invalid spec '$_s': family must be a number 1..255"
	fi
	[ -z "$_tr" ] || is_uint "$_tr" || die_usage "invalid spec '$_s': transport must be a number"
	echo "$_name $_fam $_tr"
}

# Spec i (1..NSPEC) is side L_i (A, B, C ...) with SPEC_i, NAME_i, FAM_i
# (a family number or "perftest") and TR_i (a transport number, "events"
# or empty).  Word splitting is wanted below: specs contain no blanks.
LETTERS="A B C D E F"
i=0
NAMES=" "
HAVE_PERFTEST=0
for s in $SPECS; do
	i=$((i + 1))
	p=$(parse_spec "$s") || exit 2
	# shellcheck disable=SC2086
	set -- $p
	case "$NAMES" in *" $1 "*) die_usage "two specs are named '$1': names must differ";; esac
	NAMES="$NAMES$1 "
	# shellcheck disable=SC2086
	eval "SPEC_$i=\$s NAME_$i=\$1 FAM_$i=\$2 TR_$i=\${3:-} L_$i=$(echo $LETTERS | cut -d' ' -f$i)"
	[ "$2" = perftest ] && HAVE_PERFTEST=1
done
if [ $HAVE_PERFTEST = 1 ] && [ "$THREADS" -ne 1 ]; then
	die_usage "perftest specs run one QP: --threads must be 1"
fi
A_SPEC=$SPEC_1
B_SPEC=$SPEC_2
for n in $SUBJECTS; do
	[ "$n" != none ] || continue
	case "$NAMES" in *" $n "*) ;; *) die_usage "--subject names '$n', which no spec is named";; esac
done

# sv VAR I: the value of VAR_I (e.g. sv SPEC 2)
sv() { eval "printf '%s' \"\$${1}_$2\""; }

# is_subject I: spec I is under test (not a reference)
is_subject() {
	[ -z "$SUBJECTS" ] && return 0
	case " $SUBJECTS " in *" $(sv NAME "$1") "*) return 0;; esac
	return 1
}

HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "$BENCH" ]; then
	BENCH=$HERE/rds-bench
	if [ ! -x "$BENCH" ]; then
		if command -v make >/dev/null 2>&1 && command -v cc >/dev/null 2>&1; then
			echo "compare.sh: building rds-bench" >&2
			make -C "$HERE" >/dev/null || { echo "compare.sh: build failed" >&2; exit 2; }
		fi
	fi
fi
[ -x "$BENCH" ] || { echo "compare.sh: no rds-bench binary at $BENCH (run make in $HERE, or pass --bench)" >&2; exit 2; }
[ -n "$PERFTEST" ] || PERFTEST=$HERE/perftest-bench.sh
if [ $HAVE_PERFTEST = 1 ] && [ ! -x "$PERFTEST" ]; then
	echo "compare.sh: no perftest-bench.sh at $PERFTEST (pass --perftest)" >&2
	exit 2
fi

[ -n "$OUT" ] || OUT=./rds-compare-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT" || { echo "compare.sh: cannot create $OUT" >&2; exit 2; }
RUNS=$OUT/runs.jsonl
LOG=$OUT/log.txt
TMPJ=$OUT/.run.json
RATES=$OUT/.perftest-rates
: > "$RUNS"
: > "$LOG"
rm -f "$RATES"

# Program and arguments of spec i (everything but workload and size).
i=1
while [ $i -le $NSPEC ]; do
	fam=$(sv FAM $i)
	tr=$(sv TR $i)
	if [ "$fam" = perftest ]; then
		a="--timeout $TIMEOUT --rates $RATES"
		[ "$tr" = events ] && a="$a --events"
		eval "PROG_$i=\$PERFTEST ARGS_$i=\$a"
	else
		a="--family $fam"
		[ -n "$tr" ] && a="$a --transport $tr"
		eval "PROG_$i=\$BENCH ARGS_$i=\$a"
	fi
	i=$((i + 1))
done

all=""
i=1
while [ $i -le $NSPEC ]; do
	all="$all${all:+, }$(sv L $i) = $(sv SPEC $i)"
	i=$((i + 1))
done
echo "rds-bench comparison: $all"
if [ "$SADDR" = "$DADDR" ]; then where="addr $SADDR"; else where="$SADDR -> $DADDR"; fi
socks=""
[ "$SOCKETS" -eq 1 ] || socks=", sockets $SOCKETS"
echo "  kernel $(uname -r), $(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?') cpus, $where, rounds $ROUNDS, threads $THREADS$socks"
if [ -r /sys/module/rds_doca/parameters/family ]; then
	echo "  rds_doca loaded, family $(cat /sys/module/rds_doca/parameters/family)"
fi
[ -d /sys/module/rds ] && echo "  rds loaded$( [ -d /sys/module/rds_tcp ] && echo ', rds_tcp loaded')$( [ -d /sys/module/rds_rdma ] && echo ', rds_rdma loaded')"
if [ "$FAM_1" = "$FAM_2" ] && [ "$TR_1" = "$TR_2" ]; then
	echo "compare.sh: WARNING: A and B are the same family ($FAM_1): this compares it with itself" >&2
fi

# Every spec under test must work before anything is measured; a
# reference that does not work, twice, is left out (MISSING_i).
bad=""
i=1
while [ $i -le $NSPEC ]; do
	side=$(sv L $i) spec=$(sv SPEC $i) prog=$(sv PROG $i) args=$(sv ARGS $i) fam=$(sv FAM $i)
	eval "MISSING_$i=0"
	tries=1
	is_subject $i || tries=2
	while :; do
		# shellcheck disable=SC2086
		out=$("$prog" probe $args $BENCH_ARGS --saddr "$SADDR" --daddr "$DADDR" --timeout "$TIMEOUT" 2>&1) && break
		tries=$((tries - 1))
		[ $tries -gt 0 ] || break
		echo "compare.sh: reference $side ($spec) does not work, trying once more" >&2
	done
	if [ $tries -gt 0 ]; then
		echo "  $side ($spec): $out" | sed 's/^  \(.\) (\([^)]*\)): probe *\(fam [0-9]*\|perftest\) ok:/  \1 (\2): works,/'
	elif ! is_subject $i; then
		echo "compare.sh: reference $side ($spec) does not work, left out (its cells are missing):" >&2
		echo "$out" | sed 's/^/    /' >&2
		eval "MISSING_$i=1"
	else
		echo "compare.sh: $side ($spec) does not work:" >&2
		echo "$out" | sed 's/^/    /' >&2
		if [ "$fam" = perftest ]; then bad="$bad verbs"; else bad="$bad family"; fi
	fi
	i=$((i + 1))
done
case "$bad" in *family*)
	echo "compare.sh: load the modules first (rds_doca: insmod rds_doca.ko; Linux RDS: modprobe rds rds_tcp, or rds_rdma for RDMA addresses) and check the family numbers and addresses" >&2;;
esac
case "$bad" in *verbs*)
	echo "compare.sh: perftest specs need perftest and an ACTIVE RDMA device holding $DADDR and $SADDR (e.g. rdma link add rxe0 type rxe netdev IFACE)" >&2;;
esac
[ -z "$bad" ] || exit 2

ncells=0
for m in $MODES; do for s in $(sizes_of "$m"); do ncells=$((ncells + 1)); done; done
total=$((ncells * NSPEC * ROUNDS))
n=0
failed=0
flagged=0
unsupported=0
missing=0

run_one() { # spec-index mode size round
	_side=$(sv L "$1") _spec=$(sv SPEC "$1") _prog=$(sv PROG "$1") _args=$(sv ARGS "$1") _fam=$(sv FAM "$1")
	_mode=$2 _size=$3 _round=$4
	n=$((n + 1))
	if [ "$_mode" = pingpong ]; then _dur=$PP_DURATION; else _dur=$DURATION; fi
	_win=""
	case "$_mode" in rdma-*|atomic|reqresp) [ -z "$WINDOW" ] || _win="--window $WINDOW";; esac
	# a reqresp cell is its RDMA size; every request is --rr-size
	_sz="--size $_size"
	[ "$_mode" = reqresp ] && _sz="--size $RR_SIZE --rdma-size $_size"
	rm -f "$TMPJ"
	echo "### $_side $_spec $_mode $_size round $_round" >> "$LOG"
	if [ "$_fam" = perftest ]; then
		_more=""
	else
		_more="--warmup $WARMUP --threads $THREADS --sockets $SOCKETS --timeout $TIMEOUT $BENCH_ARGS"
	fi
	if [ "$_fam" = perftest ] && [ "$_mode" = reqresp ]; then
		# nothing in perftest maps memory per message: no run, and
		# the result rds-bench gives a family without RDMA
		_line="reqresp    perftest unsupported: perftest has no request/response workload"
		printf '{"tool":"compare.sh","label":"%s","mode":"reqresp","size":%s,"rdma_size":%s,"ok":false,"supported":false,"reason":"%s"}\n' \
			"$_side $_spec r$_round" "$(bytes_of "$RR_SIZE")" "$(bytes_of "$_size")" \
			"perftest has no request/response workload" > "$TMPJ"
		_rc=4
	elif [ "$_fam" = perftest ] && [ "$SOCKETS" -gt 1 ]; then
		# one QP, one connection: nothing to spread over sockets
		_line=$(printf '%-10s perftest unsupported: perftest runs one QP (no --sockets)' "$_mode")
		printf '{"tool":"compare.sh","label":"%s","mode":"%s","size":%s,"sockets":%s,"ok":false,"supported":false,"reason":"%s"}\n' \
			"$_side $_spec r$_round" "$_mode" "$(bytes_of "$_size")" "$SOCKETS" \
			"perftest runs one QP (no --sockets)" > "$TMPJ"
		_rc=4
	else
		# shellcheck disable=SC2086
		_line=$("$_prog" "$_mode" $_args --saddr "$SADDR" --daddr "$DADDR" \
			$_sz --duration "$_dur" --json "$TMPJ" \
			--label "$_side $_spec r$_round" $_win $_more 2>>"$LOG")
		_rc=$?
	fi
	[ -n "$_line" ] && echo "$_line" >> "$LOG"
	echo "rc=$_rc" >> "$LOG"
	_what=$(printf '[%3d/%d] r%d %-10s %-4s %s' "$n" "$total" "$_round" "$_mode" "$_size" "$_side")
	if [ -s "$TMPJ" ]; then
		case "$_mode" in
		stream)
			_v=$(sed -n 's/.*"msgs_per_s":\([0-9.e+-]*\).*"mb_per_s":\([0-9.e+-]*\).*/\1 msgs\/s \2 MB\/s/p' "$TMPJ");;
		pingpong)
			_v=$(sed -n 's/.*"rt_per_s":\([0-9.e+-]*\).*"rtt_p50_us":\([0-9.e+-]*\).*/\1 rt\/s p50 \2 us/p' "$TMPJ");;
		reqresp)
			_v=$(sed -n 's/.*"tx_per_s":\([0-9.e+-]*\).*"mb_per_s":\([0-9.e+-]*\).*"rtt_p50_us":\([0-9.e+-]*\).*/\1 tx\/s \2 MB\/s p50 \3 us/p' "$TMPJ");;
		*)
			_v=$(sed -n 's/.*"ops_per_s":\([0-9.e+-]*\).*"mb_per_s":\([0-9.e+-]*\).*/\1 ops\/s \2 MB\/s/p' "$TMPJ");;
		esac
		if grep -q '"supported":false' "$TMPJ"; then
			_outcome=unsupported
			echo "$_what ($_spec): unsupported: $(sed -n 's/.*"reason":"\(.*\)"}$/\1/p' "$TMPJ")"
		elif [ $_rc -ne 0 ]; then
			_outcome=flagged
			echo "$_what ($_spec): $_v  [bad messages, see $LOG]"
		else
			_outcome=ok
			echo "$_what ($_spec): $_v"
		fi
		# a reference's bad run is not kept: it is run again or missing
		if [ $_outcome != flagged ] || is_subject "$1"; then
			sed "s/^{/{\"side\":\"$_side\",\"spec\":\"$_spec\",\"round\":$_round,\"rc\":$_rc,/" "$TMPJ" >> "$RUNS"
		fi
	else
		_outcome=failed
		echo "$_what ($_spec): FAILED (rc $_rc): $(grep -v '^rds-bench: WARNING\|^ \{4\}' "$LOG" | tail -2 | head -1)"
	fi
}

# run_cell spec-index mode size round: a run of a spec under test counts
# as it comes; a reference's failed run is retried once, then missing.
run_cell() {
	if [ "$(sv MISSING "$1")" = 1 ]; then
		n=$((n + 1))
		missing=$((missing + 1))
		printf '[%3d/%d] r%d %-10s %-4s %s (%s): missing (does not work)\n' \
			"$n" "$total" "$4" "$2" "$3" "$(sv L "$1")" "$(sv SPEC "$1")"
		return
	fi
	run_one "$@"
	if ! is_subject "$1"; then
		case $_outcome in
		failed|flagged)
			n=$((n - 1))
			echo "    (reference $(sv SPEC "$1"): once more)"
			run_one "$@";;
		esac
		case $_outcome in
		failed|flagged)
			missing=$((missing + 1))
			echo "    (reference $(sv SPEC "$1"): failed twice, reported missing)"
			return;;
		esac
	fi
	case $_outcome in
	unsupported) unsupported=$((unsupported + 1));;
	flagged) flagged=$((flagged + 1));;
	failed) failed=$((failed + 1));;
	esac
}

r=1
while [ $r -le "$ROUNDS" ]; do
	for m in $MODES; do
		for s in $(sizes_of "$m"); do
			i=1
			while [ $i -le $NSPEC ]; do
				run_cell $i "$m" "$s" $r
				i=$((i + 1))
			done
		done
	done
	r=$((r + 1))
done
rm -f "$TMPJ" "$RATES"

# ---------------------------------------------------------------------
# Medians and ratios.  Every JSON line is flat, one object per line.

awk -v specs="$SPECS" -v rounds="$ROUNDS" -v threads="$THREADS" -v sockets="$SOCKETS" \
    -v modes="$MODES" -v sizes="$SIZES" -v ppsizes="$PP_SIZES" -v rdmasizes="$RDMA_SIZES" \
    -v sumtxt="$OUT/summary.txt" -v sumjson="$OUT/summary.json" \
    -v tsv="$OUT/medians.tsv" -v dat="$OUT/ratios.dat" '
function field(line, key,    re, v) {
	re = "\"" key "\":"
	if (!match(line, re))
		return ""
	v = substr(line, RSTART + RLENGTH)
	if (substr(v, 1, 1) == "\"") {
		v = substr(v, 2)
		return substr(v, 1, index(v, "\"") - 1)
	}
	if (!match(v, /^[^,}]+/))
		return ""
	return substr(v, 1, RLENGTH)
}
function sizekey(s,    n, u) {
	n = s + 0
	u = tolower(substr(s, length(s)))
	if (u == "k") n *= 1024
	else if (u == "m") n *= 1048576
	return n
}
# median of the space-separated list
function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	if (n == 0) return ""
	for (i = 2; i <= n; i++) {
		t = a[i] + 0
		for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
		a[j + 1] = t
	}
	if (n % 2) return a[(n + 1) / 2] + 0
	return (a[n / 2] + a[n / 2 + 1]) / 2
}
function spread(list,    a, n, i, lo, hi, md) {
	n = split(list, a, " ")
	if (n < 2) return 0
	lo = hi = a[1] + 0
	for (i = 2; i <= n; i++) { if (a[i] + 0 < lo) lo = a[i] + 0; if (a[i] + 0 > hi) hi = a[i] + 0 }
	md = median(list)
	return md > 0 ? (hi - lo) / md * 100 : 0
}
function add(k, v) { vals[k] = (k in vals) ? vals[k] " " v : v; cnt[k]++ }
function ratio(x, y) { return (x != "" && y != "" && y > 0) ? sprintf("%.3f", x / y) : "" }
function num(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
function jnum(x) { return x == "" ? "null" : sprintf("%.6g", x) }
function tnum(x) { return x == "" ? "" : sprintf("%.10g", x) }
{
	side = field($0, "side"); mode = field($0, "mode")
	# a reqresp cell is its RDMA size (the requests are all --rr-size)
	size = field($0, mode == "reqresp" ? "rdma_size" : "size")
	k = side SUBSEP mode SUBSEP size
	if (field($0, "supported") == "false") {	# no RDMA there
		unsup[k]++
		next
	}
	if (field($0, "ok") != "true") bad[k]++
	if (mode == "stream") {
		add(k SUBSEP "rate", field($0, "msgs_per_s"))
		add(k SUBSEP "mb", field($0, "mb_per_s"))
		add(k SUBSEP "retry", field($0, "enobufs") + field($0, "eagain"))
	} else if (mode == "pingpong") {
		add(k SUBSEP "rate", field($0, "rt_per_s"))
		add(k SUBSEP "mb", field($0, "mb_per_s"))
		add(k SUBSEP "p50", field($0, "rtt_p50_us"))
		add(k SUBSEP "p99", field($0, "rtt_p99_us"))
	} else if (mode == "reqresp") {
		add(k SUBSEP "rate", field($0, "tx_per_s"))
		add(k SUBSEP "mb", field($0, "mb_per_s"))
		add(k SUBSEP "p50", field($0, "rtt_p50_us"))
		add(k SUBSEP "p99", field($0, "rtt_p99_us"))
		add(k SUBSEP "retry", field($0, "enobufs") + field($0, "eagain"))
	} else {
		add(k SUBSEP "rate", field($0, "ops_per_s"))
		add(k SUBSEP "mb", field($0, "mb_per_s"))
		add(k SUBSEP "retry", field($0, "enobufs") + field($0, "eagain"))
	}
}
END {
	nm = split(modes, M, " ")
	nsd = split(specs, SPEC, " ")
	split("A B C D E F", LET, " ")
	A = SPEC[1]; B = SPEC[2]
	printf "{\"a\":\"%s\",\"b\":\"%s\",\"specs\":{", A, B > sumjson
	for (sd = 1; sd <= nsd; sd++)
		printf "%s\"%s\":\"%s\"", (sd > 1 ? "," : ""), tolower(LET[sd]), SPEC[sd] > sumjson
	print "},\"rounds\":" rounds ",\"threads\":" threads ",\"sockets\":" sockets ",\"results\":[" > sumjson
	print "side\tspec\tmode\tsize\truns\tbad_runs\trate\tmb_per_s\trtt_p50_us\trtt_p99_us\tspread_pct\tsize_label\tunsupported" > tsv
	first = 1; noisy = 0; ndat = 0; every = ""
	for (mi = 1; mi <= nm; mi++) {
		mode = M[mi]
		pp = mode == "pingpong"
		unit = mode == "stream" ? "msgs/s" : pp ? "rt/s" : mode == "reqresp" ? "tx/s" : "ops/s"
		ns = split(pp ? ppsizes : mode == "stream" ? sizes : mode == "atomic" ? "8" : rdmasizes, S, " ")
		txt = ""
		if (!pp) {
			hdr = sprintf("%-10s %-5s %13s %10s %13s %10s %8s %7s", "workload", "size",
				"A " unit, "A MB/s", "B " unit, "B MB/s", "A/B", "spread")
		} else {
			hdr = sprintf("%-10s %-5s %11s %9s %9s %11s %9s %9s %8s %8s %7s", "workload", "size",
				"A rt/s", "A p50us", "A p99us", "B rt/s", "B p50us", "B p99us", "A/B", "p50 B/A", "spread")
		}
		out = hdr "\n"
		for (si = 1; si <= ns; si++) {
			size = sizekey(S[si])
			for (sd = 1; sd <= nsd; sd++) {
				side = LET[sd]
				k = side SUBSEP mode SUBSEP size
				R[side] = median(vals[k SUBSEP "rate"])
				MB[side] = median(vals[k SUBSEP "mb"])
				P50[side] = median(vals[k SUBSEP "p50"])
				P99[side] = median(vals[k SUBSEP "p99"])
				RT[side] = median(vals[k SUBSEP "retry"])
				SP[side] = spread(vals[k SUBSEP "rate"])
				N[side] = cnt[k SUBSEP "rate"] + 0
				BAD[side] = bad[k] + 0
				UNS[side] = unsup[k] + 0
				if (SP[side] > 20) noisy = 1
				printf "%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f\t%s\t%d\n", side, SPEC[sd], mode, size,
					N[side], BAD[side], tnum(R[side]), tnum(MB[side]), tnum(P50[side]), tnum(P99[side]), SP[side], S[si], UNS[side] > tsv
				if (nsd > 2)
					every = every sprintf("%-10s %-5s %-28s %12s %-6s %9s %9s %9s %8.0f%%%s\n", mode, S[si],
						side " " SPEC[sd], num(R[side], "%.0f"), unit,
						num(MB[side], "%.2f"), num(P50[side], "%.1f"), num(P99[side], "%.1f"), SP[side],
						(UNS[side] ? " (unsupported)" : N[side] < rounds ? " (runs missing)" : BAD[side] ? " (bad messages)" : ""))
			}
			rat = ratio(R["A"], R["B"])
			# the noisier of A and B: (max - min) / median over rounds
			spr = sprintf("%6.0f%%", SP["A"] > SP["B"] ? SP["A"] : SP["B"])
			mark = ""
			if (UNS["A"] || UNS["B"])
				mark = " (unsupported: " (UNS["A"] ? "A" : "") (UNS["A"] && UNS["B"] ? ", " : "") (UNS["B"] ? "B" : "") ")"
			else if (N["A"] < rounds || N["B"] < rounds)
				mark = " (runs missing)"
			if (BAD["A"] || BAD["B"]) mark = mark " (bad messages)"
			if (!pp) {
				out = out sprintf("%-10s %-5s %13s %10s %13s %10s %8s %7s%s\n", mode, S[si],
					num(R["A"], "%.0f"), num(MB["A"], "%.2f"),
					num(R["B"], "%.0f"), num(MB["B"], "%.2f"),
					rat == "" ? "-" : sprintf("%.2f", rat), spr, mark)
			} else {
				out = out sprintf("%-10s %-5s %11s %9s %9s %11s %9s %9s %8s %8s %7s%s\n", mode, S[si],
					num(R["A"], "%.0f"), num(P50["A"], "%.1f"), num(P99["A"], "%.1f"),
					num(R["B"], "%.0f"), num(P50["B"], "%.1f"), num(P99["B"], "%.1f"),
					rat == "" ? "-" : sprintf("%.2f", rat),
					ratio(P50["B"], P50["A"]) == "" ? "-" : sprintf("%.2f", ratio(P50["B"], P50["A"])), spr, mark)
			}
			if (rat != "") {
				printf "%s-%s %s\n", mode, S[si], rat > dat
				ndat++
			}
			printf "%s{\"mode\":\"%s\",\"size\":%d,\"ratio\":%s", first ? "" : ",\n", mode, size, rat == "" ? "null" : rat > sumjson
			first = 0
			for (sd = 1; sd <= nsd; sd++) {
				side = LET[sd]
				printf ",\"%s\":{\"runs\":%d,\"bad_runs\":%d,\"unsupported_runs\":%d,\"%s\":%s,\"mb_per_s\":%s,\"spread_pct\":%.1f", tolower(side), N[side], BAD[side], UNS[side], mode == "stream" ? "msgs_per_s" : pp ? "rt_per_s" : mode == "reqresp" ? "tx_per_s" : "ops_per_s", jnum(R[side]), jnum(MB[side]), SP[side] > sumjson
				if (!pp)
					printf ",\"retries\":%s", jnum(RT[side]) > sumjson
				if (pp || mode == "reqresp")
					printf ",\"rtt_p50_us\":%s,\"rtt_p99_us\":%s", jnum(P50[side]), jnum(P99[side]) > sumjson
				printf "}" > sumjson
			}
			printf "}" > sumjson
		}
		print out > sumtxt
		printf "%s\n", out
	}
	print "\n]}" > sumjson
	note = "A = " A ", B = " B "; medians of " rounds " rounds; A/B = ratio of the median msgs/s (stream), round trips/s (pingpong), operations/s (RDMA) or transactions/s (reqresp): above 1 means A is faster; p50 B/A above 1 means A has the lower latency; spread = (max - min) / median of the rounds, the noisier of A and B."
	print note > sumtxt
	print note
	if (every != "") {
		every = sprintf("\nEvery spec (medians):\n%-10s %-5s %-28s %19s %9s %9s %9s %9s\n", "workload", "size", "spec",
			"rate", "MB/s", "p50us", "p99us", "spread") every
		print every > sumtxt
		print every
	}
	if (noisy) {
		print "note: some cells vary by more than 20% between rounds (spread); consider --rounds 5 (make bench: RDSD_BENCH_ROUNDS=5)" > sumtxt
		print "note: some cells vary by more than 20% between rounds (spread); consider --rounds 5 (make bench: RDSD_BENCH_ROUNDS=5)"
	}
	if (!ndat) printf "" > dat
}' "$RUNS"

if command -v gnuplot >/dev/null 2>&1 && [ -s "$OUT/ratios.dat" ]; then
	# room above the tallest bar for its label, and 1.0 always in view
	YMAX=$(awk 'BEGIN { m = 1 } $2 + 0 > m { m = $2 + 0 } END { printf "%.3f", m * 1.15 }' "$OUT/ratios.dat")
	gnuplot <<EOF 2>>"$LOG" && echo "chart: $OUT/ratios.png" || echo "compare.sh: gnuplot failed (see $LOG)" >&2
set terminal png size 1000,560
set output '$OUT/ratios.png'
set title "rds-bench: throughput ratio A/B (A = $A_SPEC, B = $B_SPEC; median of $ROUNDS rounds)" noenhanced
set ylabel 'A / B  (msgs/s or round trips/s)'
set style data histograms
set style fill solid 0.7 border -1
set boxwidth 0.7
set grid ytics
set yrange [0:$YMAX]
set xtics rotate by -30 noenhanced
set key off
set offsets 0.5, 0.5, 0, 0
plot '$OUT/ratios.dat' using 2:xtic(1) lc rgb '#3a6ea5', \\
     '' using 0:2:(sprintf('%.2f', \$2)) with labels offset 0,0.8 notitle, \\
     1 with lines lc rgb '#c03030' lw 2
EOF
fi

echo "results: $OUT (runs.jsonl, summary.json, summary.txt, medians.tsv, log.txt)"
if [ $unsupported -gt 0 ]; then
	echo "compare.sh: $unsupported of $total runs unsupported (no RDMA on that family or transport, or nothing like it in perftest; not counted as failures)"
fi
if [ $missing -gt 0 ]; then
	echo "compare.sh: $missing of $total reference runs missing: they failed twice or the reference did not work (not counted as failures; details in $LOG)"
fi
if [ $failed -gt 0 ] || [ $flagged -gt 0 ]; then
	echo "compare.sh: $failed of $total runs failed, $flagged saw bad messages (details in $LOG)" >&2
	exit 1
fi
exit 0
