#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# scaling.sh: how stream throughput follows the number of senders, and of
# sockets per sender, for two or more socket families: one compare.sh run
# per (sockets, threads) pair, then every family's medians side by side
# and its msgs/s at 2 senders over 1.  Meant to run as root with the
# modules loaded, like compare.sh.  POSIX sh + awk.  See --help and README.

set -u

usage() {
	cat <<'EOF'
Usage: scaling.sh [OPTIONS] A_SPEC B_SPEC [C_SPEC ...]

Runs compare.sh's stream workload at one size for every pair of --sockets
and --threads (the families interleaved within each pair; the pairs one
after the other, threads varying fastest, so that 1 and 2 senders run
close together), then prints the median msgs/s of every spec for every
pair and, for every spec, msgs/s at 2 senders divided by msgs/s at 1
sender, both with 1 socket each ("2 senders vs 1").  Specs as compare.sh's
(NAME:FAMILY[:TRANSPORT]; perftest specs are refused: one QP, one sender).

Options:
  --threads "LIST"  senders (default "1 2 4 16")
  --sockets "LIST"  sockets per sender (default "1 64")
  --size SIZE       message size (default 64)
  --rounds N        rounds of every pair (default 3)
  --duration S, --warmup S, --timeout S, --addr A, --bench PATH,
  --subject "NAMES"
                    passed to compare.sh
  --out DIR         where results go (default ./rds-scaling-DATE-TIME)
  -h, --help        this help

Output in DIR: tT-sS/ for every pair (what compare.sh writes there),
scaling.tsv (threads, sockets, spec, msgs_per_s, mb_per_s, runs,
spread_pct: the medians), scaling.json (the same, and "two_vs_one", the
ratio of every spec) and scaling.txt (the table).  Exit status: the
worst of compare.sh's (0 every run of the specs under test ok, 1 some
failed or saw bad messages, 2 bad usage or a spec under test that does
not work; a 2 stops at once).
EOF
}

die_usage() {
	echo "scaling.sh: $*" >&2
	echo "Try 'scaling.sh --help'." >&2
	exit 2
}

is_uint() { case "$1" in ''|*[!0-9]*) return 1;; *) return 0;; esac; }

THREADS="1 2 4 16"
SOCKETS="1 64"
SIZE=64
ROUNDS=3
OUT=""
PASS=""
SUBJECT=""
SPECS=""
NSPEC=0

while [ $# -gt 0 ]; do
	case "$1" in
	-h|--help) usage; exit 0;;
	--threads|--sockets|--size|--rounds|--out|--duration|--warmup|--timeout|\
	--addr|--bench|--subject)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		case "$2" in *[[:space:]]*)
			case "$1" in --threads|--sockets|--subject) ;; *)
				die_usage "$1 '$2': no blanks";;
			esac;;
		esac
		case "$1" in
		--threads) THREADS=$2;;
		--sockets) SOCKETS=$2;;
		--size) SIZE=$2;;
		--rounds) ROUNDS=$2;;
		--out) OUT=$2;;
		--subject) SUBJECT=$2;;
		*) PASS="$PASS $1 $2";;
		esac
		shift 2;;
	-*) die_usage "unknown option '$1'";;
	*)
		case "$1" in
		*:perftest|*:perftest:*) die_usage "'$1': perftest runs one QP, it has no senders to add";;
		esac
		SPECS="$SPECS $1"
		NSPEC=$((NSPEC + 1))
		shift;;
	esac
done
[ $NSPEC -ge 2 ] || die_usage "expected at least two specs (A_SPEC B_SPEC), e.g. doca:25 rds:21"
[ -n "$THREADS" ] || die_usage "--threads is empty"
[ -n "$SOCKETS" ] || die_usage "--sockets is empty"
for t in $THREADS; do
	if ! is_uint "$t" || [ "$t" -lt 1 ] || [ "$t" -gt 64 ]; then die_usage "invalid --threads entry '$t': expected 1..64"; fi
done
for s in $SOCKETS; do
	if ! is_uint "$s" || [ "$s" -lt 1 ] || [ "$s" -gt 64 ]; then die_usage "invalid --sockets entry '$s': expected 1..64"; fi
done
if ! is_uint "$ROUNDS" || [ "$ROUNDS" -lt 1 ]; then die_usage "invalid --rounds '$ROUNDS'"; fi

HERE=$(cd "$(dirname "$0")" && pwd)
[ -n "$OUT" ] || OUT=./rds-scaling-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT" || { echo "scaling.sh: cannot create $OUT" >&2; exit 2; }
TSV=$OUT/scaling.tsv
CPUS=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo '?')

# medians.tsv: side spec mode size runs bad_runs rate mb_per_s rtt_p50_us
# rtt_p99_us spread_pct size_label unsupported
printf 'threads\tsockets\tspec\tmsgs_per_s\tmb_per_s\truns\tspread_pct\n' > "$TSV"
rc=0
for s in $SOCKETS; do
	for t in $THREADS; do
		d=$OUT/t$t-s$s
		echo
		echo "## stream $SIZE: threads $t, sockets $s"
		# shellcheck disable=SC2086 # PASS and SPECS hold no blanks
		"$HERE/compare.sh" --rounds "$ROUNDS" --out "$d" --modes stream \
			--sizes "$SIZE" --threads "$t" --sockets "$s" \
			--subject "$SUBJECT" $PASS $SPECS
		r=$?
		[ $r -ne 2 ] || exit 2
		[ $r -le $rc ] || rc=$r
		if [ -s "$d/medians.tsv" ]; then
			awk -F '\t' -v t="$t" -v s="$s" 'NR > 1 && $3 == "stream" {
				print t "\t" s "\t" $2 "\t" $7 "\t" $8 "\t" $5 "\t" $11 }' \
				"$d/medians.tsv" >> "$TSV"
		fi
	done
done

echo
awk -F '\t' -v specs="$SPECS" -v threads="$THREADS" -v sockets="$SOCKETS" \
    -v size="$SIZE" -v rounds="$ROUNDS" -v cpus="$CPUS" \
    -v txt="$OUT/scaling.txt" -v js="$OUT/scaling.json" '
function say(s) { print s; print s > txt }
function num(x, fmt) { return x == "" ? "-" : sprintf(fmt, x) }
function jnum(x) { return x == "" ? "null" : sprintf("%.6g", x) }
function name(spec) { sub(/:.*/, "", spec); return spec }
NR > 1 {
	k = $1 SUBSEP $2 SUBSEP $3
	# a cell without a run (a reference left out) has no rate
	if ($6 > 0 && $4 != "") RATE[k] = $4
	if ($6 > 0 && $5 != "") MB[k] = $5
	RUNS[k] = $6; SPR[k] = $7
}
END {
	ns = split(specs, S, " ")
	nt = split(threads, T, " ")
	nk = split(sockets, K, " ")
	printf "" > txt
	say(sprintf("stream, size %s: msgs/s, medians of %d rounds, %s cpus", size, rounds, cpus))
	h = sprintf("%7s %7s", "threads", "sockets")
	for (i = 1; i <= ns; i++) h = h sprintf(" %14s", name(S[i]))
	say(h)
	printf "{\"size\":\"%s\",\"rounds\":%d,\"cpus\":\"%s\",\"cells\":[", size, rounds, cpus > js
	first = 1
	for (b = 1; b <= nk; b++) {
		for (a = 1; a <= nt; a++) {
			l = sprintf("%7d %7d", T[a], K[b])
			for (i = 1; i <= ns; i++) {
				k = T[a] SUBSEP K[b] SUBSEP S[i]
				l = l sprintf(" %14s", num(RATE[k], "%.0f") (RUNS[k] != "" && RUNS[k] < rounds ? "*" : ""))
				printf "%s\n{\"threads\":%d,\"sockets\":%d,\"spec\":\"%s\",\"msgs_per_s\":%s,\"mb_per_s\":%s,\"runs\":%d,\"spread_pct\":%s}",
					(first ? "" : ","), T[a], K[b], S[i], jnum(RATE[k]), jnum(MB[k]), RUNS[k] + 0,
					jnum(SPR[k]) > js
				first = 0
			}
			say(l)
		}
	}
	printf "\n],\"two_vs_one\":{" > js
	l = ""
	for (i = 1; i <= ns; i++) {
		one = RATE[1 SUBSEP 1 SUBSEP S[i]]
		two = RATE[2 SUBSEP 1 SUBSEP S[i]]
		r = (one != "" && two != "" && one > 0) ? two / one : ""
		l = l (i > 1 ? ", " : "") name(S[i]) " " num(r, "%.2f")
		printf "%s\"%s\":%s", (i > 1 ? "," : ""), name(S[i]), jnum(r) > js
	}
	print "}}" > js
	say("")
	say("2 senders vs 1 (1 socket each) on " cpus " cpus: " l)
	say("(msgs/s of the median at 2 senders over that at 1; - where a cell was")
	say("not measured; * some runs missing.  Every pair ran in its own")
	say("compare.sh, in tT-sS/.)")
}' "$TSV"
echo "results: $OUT (scaling.txt, scaling.json, scaling.tsv, tT-sS/)"
exit "$rc"
