#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# ab.sh: interleaved A/B of two (or more) builds of rds_doca in one boot.
#
#   ab.sh [OPTIONS] NAME=MODULE.ko NAME=MODULE.ko [...]
#
# Every round loads each build in turn (rmmod, insmod), runs every cell
# with rds-bench, and unloads it; the order of the builds is reversed in
# every other round, so a drift of the machine's speed during the run
# favours neither.  References (--ref NAME:FAMILY[:TRANSPORT], Linux RDS for
# example) run once a round, with whatever build is not loaded.  The
# table gives each cell's median over the rounds; and, since the
# machine's speed drifts between rounds far more than between two runs
# in a row, every comparison pairs the runs of one round: each build's
# run divided by the first build's run of the same round, the median of
# those ratios, and the rounds in which the build did better; the same
# median of per-round ratios against each reference.  Run as root, in the machine
# or VM under test, with the modules the builds need (rdma_cm) and the
# references' modules loaded.  See README ("A/B of builds").

set -u

usage() {
	cat <<'EOF'
Usage: ab.sh [OPTIONS] NAME=MODULE.ko NAME=MODULE.ko [...]

Options:
  --rounds N        rounds (default 5)
  --cells "LIST"    cells, each MODE:SIZE[:ARG,ARG...]: an rds-bench mode,
                    a message size and extra rds-bench arguments separated
                    by commas (default "pingpong:64 stream:64 stream:64k")
  --duration S      measured seconds of each run (default 2)
  --warmup S        unmeasured seconds before each run (default 0.3)
  --saddr A         address of the sending/client end (default 127.0.0.1)
  --daddr A         address of the receiving/server end (default 127.0.0.1)
  --ref SPEC        a reference, NAME:FAMILY[:TRANSPORT]; repeatable
  --params "ARGS"   module parameters for every insmod
  --bench-args "A"  extra arguments for every rds-bench run
  --bench PATH      rds-bench binary (default: next to this script)
  --out DIR         results (default ./rds-ab-DATE-TIME): runs.tsv (round,
                    name, cell, rate), summary.txt, log.txt
  -h, --help        this help

The rate of a cell is rds-bench's headline figure: messages/s (stream),
round trips/s (pingpong), operations/s (RDMA modes) or transactions/s
(reqresp).  Exit status: 0, 1 if a build's run failed, 2 bad usage.
EOF
}

die_usage() {
	echo "ab.sh: $*" >&2
	echo "Try 'ab.sh --help'." >&2
	exit 2
}

ROUNDS=5
CELLS="pingpong:64 stream:64 stream:64k"
DURATION=2
WARMUP=0.3
SADDR=127.0.0.1
DADDR=127.0.0.1
REFS=()
PARAMS=""
BENCH_ARGS=""
BENCH=""
OUT=""
NAMES=()
KOS=()

while (($#)); do
	case "$1" in
	--rounds|--cells|--duration|--warmup|--saddr|--daddr|--ref|--params|\
	--bench-args|--bench|--out)
		(($# >= 2)) || die_usage "$1 needs a value";;&
	--rounds) ROUNDS=$2; shift 2;;
	--cells) CELLS=$2; shift 2;;
	--duration) DURATION=$2; shift 2;;
	--warmup) WARMUP=$2; shift 2;;
	--saddr) SADDR=$2; shift 2;;
	--daddr) DADDR=$2; shift 2;;
	--ref) REFS+=("$2"); shift 2;;
	--params) PARAMS=$2; shift 2;;
	--bench-args) BENCH_ARGS=$2; shift 2;;
	--bench) BENCH=$2; shift 2;;
	--out) OUT=$2; shift 2;;
	-h|--help) usage; exit 0;;
	-*) die_usage "unknown option '$1'";;
	*=*)
		NAMES+=("${1%%=*}")
		KOS+=("${1#*=}")
		shift;;
	*) die_usage "expected NAME=MODULE.ko, not '$1'";;
	esac
done

((${#NAMES[@]} >= 2)) || die_usage "expected at least two builds"
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die_usage "invalid --rounds '$ROUNDS'"
for n in "${NAMES[@]}"; do
	[[ $n =~ ^[A-Za-z0-9_.+-]+$ ]] || die_usage "invalid name '$n'"
done
for ko in "${KOS[@]}"; do
	[[ -r $ko ]] || die_usage "no module at '$ko'"
done
for r in "${REFS[@]}"; do
	[[ $r =~ ^[A-Za-z0-9_.+-]+:[0-9]+(:[0-9]+)?$ ]] ||
		die_usage "invalid reference '$r': expected NAME:FAMILY[:TRANSPORT]"
done
for c in $CELLS; do
	[[ $c =~ ^[a-z-]+:[0-9]+[km]?(:.*)?$ ]] ||
		die_usage "invalid cell '$c': expected MODE:SIZE[:ARG,ARG...]"
done

here=$(cd "$(dirname "$0")" && pwd)
[[ -n $BENCH ]] || BENCH=$here/rds-bench
[[ -x $BENCH ]] || die_usage "no rds-bench at $BENCH (run make in $here)"
[[ -n $OUT ]] || OUT=./rds-ab-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT" || exit 2
RUNS=$OUT/runs.tsv
LOG=$OUT/log.txt
: > "$RUNS"
: > "$LOG"
failed=0

# run NAME FAMILY TRANSPORT CELL ROUND: one rds-bench run, one line of runs.tsv
run() {
	local name=$1 fam=$2 tr=$3 cell=$4 round=$5 mode size extra json rate key
	local -a args
	mode=${cell%%:*}
	size=${cell#*:}
	extra=""
	if [[ $size == *:* ]]; then
		extra=${size#*:}
		size=${size%%:*}
	fi
	args=(--family "$fam" --saddr "$SADDR" --daddr "$DADDR" --size "$size"
	      --duration "$DURATION" --warmup "$WARMUP")
	[[ -n $tr ]] && args+=(--transport "$tr")
	# shellcheck disable=SC2206 # extra arguments split on purpose
	args+=(${extra//,/ } $BENCH_ARGS)
	json=$OUT/.run.json
	rm -f "$json"
	{
		echo "### r$round $name $cell"
		"$BENCH" "$mode" "${args[@]}" --json "$json" 2>&1
		echo "rc=$?"
	} >> "$LOG"
	rate=""
	for key in tx_per_s rt_per_s ops_per_s msgs_per_s; do
		[[ -z $rate ]] || break
		rate=$(sed -n "s/.*\"$key\":\([0-9.e+-]*\).*/\1/p" "$json" \
			2>/dev/null | head -1)
	done
	if [[ -z $rate ]]; then
		echo "ab.sh: r$round $name $cell: no result (see $LOG)" >&2
		return 1
	fi
	printf '%s\t%s\t%s\t%s\n' "$round" "$name" "$cell" "$rate" >> "$RUNS"
	printf 'r%-2s %-12s %-24s %s\n' "$round" "$name" "$cell" "$rate"
}

load() { # KO
	if [[ -d /sys/module/rds_doca ]]; then
		rmmod rds_doca || return 1
	fi
	# shellcheck disable=SC2086 # module parameters split on purpose
	insmod "$1" $PARAMS
}

echo "ab.sh: builds ${NAMES[*]}, references ${REFS[*]:-none}, $ROUNDS rounds, cells $CELLS"
echo "  kernel $(uname -r), $(nproc) cpus, $SADDR -> $DADDR, $DURATION s a run"
for ((r = 1; r <= ROUNDS; r++)); do
	order=("${!NAMES[@]}")
	if ((r % 2 == 0)); then
		mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
	fi
	for ref in "${REFS[@]}"; do
		IFS=: read -r rn rf rt <<< "$ref"
		for c in $CELLS; do
			run "$rn" "$rf" "${rt:-}" "$c" "$r" || true
		done
	done
	for i in "${order[@]}"; do
		if ! load "${KOS[$i]}"; then
			echo "ab.sh: cannot load ${KOS[$i]}" >&2
			exit 1
		fi
		fam=$(cat /sys/module/rds_doca/parameters/family)
		for c in $CELLS; do
			run "${NAMES[$i]}" "$fam" "" "$c" "$r" || failed=1
		done
	done
done
rmmod rds_doca 2>/dev/null
rm -f "$OUT/.run.json"

refnames=""
for ref in "${REFS[@]}"; do refnames="$refnames ${ref%%:*}"; done
awk -F '\t' -v builds="${NAMES[*]}" -v refs="$refnames" -v cells="$CELLS" '
function median(s,    n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (!n)
		return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$2, $3] = v[$2, $3] " " $4; by[$1, $2, $3] = $4; if ($1 > nr) nr = $1 }
END {
	nb = split(builds, b, " ")
	nf = split(refs, f, " ")
	nc = split(cells, c, " ")
	printf "%-24s", "cell"
	for (i = 1; i <= nb; i++)
		printf " %12s", b[i]
	for (i = 2; i <= nb; i++)
		printf "  %s/%s wins", b[i], b[1]
	for (k = 1; k <= nf; k++)
		for (i = 1; i <= nb; i++)
			printf "  %s/%s", b[i], f[k]
	printf "\n"
	for (j = 1; j <= nc; j++) {
		printf "%-24s", c[j]
		for (i = 1; i <= nb; i++) {
			m[i] = median(v[b[i], c[j]])
			printf " %12.0f", m[i]
		}
		for (i = 2; i <= nb; i++) {
			w = 0; n = 0; q = ""
			for (r = 1; r <= nr; r++)
				if (((r, b[i], c[j]) in by) && by[r, b[1], c[j]] > 0) {
					n++
					q = q " " by[r, b[i], c[j]] / by[r, b[1], c[j]]
					if (by[r, b[i], c[j]] + 0 > by[r, b[1], c[j]] + 0)
						w++
				}
			printf "  %5.2f %d/%d", n ? median(q) : 0, w, n
		}
		for (k = 1; k <= nf; k++)
			for (i = 1; i <= nb; i++) {
				q = ""
				for (r = 1; r <= nr; r++)
					if (((r, b[i], c[j]) in by) && by[r, f[k], c[j]] > 0)
						q = q " " by[r, b[i], c[j]] / by[r, f[k], c[j]]
				printf "  %5.2f", q != "" ? median(q) : 0
			}
		printf "\n"
	}
}' "$RUNS" | tee "$OUT/summary.txt"
echo "results: $OUT (runs.tsv, summary.txt, log.txt)"
exit $failed
