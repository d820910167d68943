#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# dma-compare.sh: rds_doca's copies through a DMA engine against the same
# copies by the CPU, interleaved in one boot.  Loopback streaming of large
# messages (sendmsg and recvmsg copies) and loopback RDMA write and read
# (copies between the two processes' pinned pages), each run once with
# the engine ("engine": mode auto, every threshold 0) and once without
# ("cpu": mode off), round after round.  Prints, per workload, the median
# of each and the ratio engine/cpu, and the copy counters of one engine
# run to show where the bytes went.
#
# Meant to run as root in a VM with rds_doca loaded and a DMA_MEMCPY
# provider present (tests/dma/rdsd_test_dma.ko on machines without DMA
# hardware).  Leaves the settings as it found them.
#
# usage: dma-compare.sh [--rounds N] [--duration S] [--sizes "LIST"]
#                       [--rdma-sizes "LIST"] [--out DIR]

set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bench=$here/rds-bench
rdsctl=$here/../rdsctl/rdsctl
rounds=3
dur=1.5
sizes="16k 64k 256k 1m"
rdma_sizes="64k 1m"
out=rds-dma-compare-$(date +%Y%m%d-%H%M%S)

while [[ $# -gt 0 ]]; do
	case $1 in
	--rounds)	rounds=$2; shift ;;
	--duration)	dur=$2; shift ;;
	--sizes)	sizes=$2; shift ;;
	--rdma-sizes)	rdma_sizes=$2; shift ;;
	--out)		out=$2; shift ;;
	-h|--help)	sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*)		echo "dma-compare.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
	shift
done

family=$(cat /sys/module/rds_doca/parameters/family)
mkdir -p "$out"
runs=$out/runs.jsonl
: >"$runs"

# the settings to restore
saved=$("$rdsctl" -j dma show)
restore() {
	python3 - "$saved" <<'EOF' | xargs "$rdsctl" dma set
import json, sys
s = json.loads(sys.argv[1])
print("mode", s["dma_mode"], "send-min", s["dma_send_min"],
      "recv-min", s["dma_recv_min"], "rdma-min", s["dma_rdma_min"])
EOF
}
trap restore EXIT

"$rdsctl" dma set mode auto send-min 0 recv-min 0 rdma-min 0
if ! "$rdsctl" dma show | grep -qE '^dma +engine'; then
	echo "dma-compare.sh: no DMA_MEMCPY channel: load a provider" >&2
	"$rdsctl" dma show >&2
	exit 1
fi
echo "# rds_doca family $family, engine: $("$rdsctl" -j dma show)"

# run PATH MODE SIZE: one rds-bench run, labelled with the path
run() {
	local path=$1 mode=$2 size=$3

	if [[ $path == engine ]]; then
		"$rdsctl" dma set mode auto
	else
		"$rdsctl" dma set mode off
	fi
	"$bench" -f "$family" -s "$size" -d "$dur" -w 0.3 -j "$runs" \
		-l "$path" "$mode" >>"$out/log.txt" 2>&1 ||
		echo "# $path $mode $size failed (see $out/log.txt)"
}

for r in $(seq "$rounds"); do
	echo "# round $r of $rounds"
	for s in $sizes; do
		run engine stream "$s"
		run cpu stream "$s"
	done
	for m in rdma-write rdma-read; do
		for s in $rdma_sizes; do
			run engine "$m" "$s"
			run cpu "$m" "$s"
		done
	done
done

# where one engine run's bytes went
"$rdsctl" dma set mode auto
"$rdsctl" stats reset
"$bench" -f "$family" -s 256k -d "$dur" -j "$out/counters-run.jsonl" \
	stream >>"$out/log.txt" 2>&1
"$rdsctl" -j stats show >"$out/counters.json"

python3 - "$runs" "$out/counters.json" <<'EOF' | tee "$out/summary.txt"
import json, statistics, sys
from collections import defaultdict

cells = defaultdict(list)
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("ok"):
        cells[(r["mode"], r["size"], r["label"])].append(r["mb_per_s"])

def size(n):
    return f"{n >> 20}m" if n >= 1 << 20 else f"{n >> 10}k"

print(f"{'workload':<12} {'size':>5} {'engine MB/s':>12} {'cpu MB/s':>10} "
      f"{'engine/cpu':>10}")
for mode, sz in sorted({(m, s) for m, s, _ in cells},
                       key=lambda k: (k[0] != "stream", k[0], k[1])):
    e = cells.get((mode, sz, "engine"))
    c = cells.get((mode, sz, "cpu"))
    me = statistics.median(e) if e else float("nan")
    mc = statistics.median(c) if c else float("nan")
    ratio = me / mc if e and c and mc else float("nan")
    print(f"{mode:<12} {size(sz):>5} {me:>12.2f} {mc:>10.2f} {ratio:>10.2f}")
print()
print("copy counters of one 256k stream run with the engine:")
for name, value in json.load(open(sys.argv[2]))["counters"].items():
    if name.startswith("copy_") and value:
        print(f"  {name} {value}")
EOF
