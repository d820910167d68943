#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What an IB connection costs, and how fast connections come up: rds-conns
# over Soft-RoCE on a dummy interface, for each module build given and
# for Linux RDS (rds_rdma), in one boot.  Run as root inside a VM with
# nothing else running (tests/vm/run):
#
#   tools/rds-bench/conns.sh [--hubs K] [--peers M] [--ref-peers M]
#                            [--msgs N] [--ref-msgs N] [--size S]
#                            [--settle SEC] [--reap-wait SEC]
#                            NAME=path/to/rds_doca.ko[:PEERS] ...
#
# K hub addresses (192.0.2.10 on) times M peer addresses (198.51.100.1
# on, at most 250) make K x M connections, both ends here.  Each build is
# loaded with conn_idle_secs=30 so that --reap-wait can see its connections
# reaped; Linux RDS keeps its connections, and runs with --ref-peers
# (default M), as its rings may not fit memory for as many, and
# --ref-msgs (default N; its rings do not grow, 0 skips traffic); a build
# given with :PEERS runs with that many peers.  Prints
# rds-conns' lines for each, then a summary table.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CONNS=$HERE/rds-conns
hubs=4 peers=250 ref_peers='' msgs=64 ref_msgs='' size=16384 settle=10
reap_wait=60
builds=()

while [ $# -gt 0 ]; do
	case $1 in
	--hubs) hubs=$2; shift 2 ;;
	--peers) peers=$2; shift 2 ;;
	--ref-peers) ref_peers=$2; shift 2 ;;
	--msgs) msgs=$2; shift 2 ;;
	--ref-msgs) ref_msgs=$2; shift 2 ;;
	--settle) settle=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--reap-wait) reap_wait=$2; shift 2 ;;
	*=*) builds+=("$1"); shift ;;
	*) echo "conns.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
ref_peers=${ref_peers:-$peers}
ref_msgs=${ref_msgs:-$msgs}
if [ "$peers" -gt 250 ] || [ "$ref_peers" -gt 250 ]; then
	echo "conns.sh: at most 250 peers" >&2
	exit 2
fi
[ -x "$CONNS" ] || { echo "conns.sh: build $CONNS first" >&2; exit 2; }

modprobe -a rdma_rxe rdma_cm ib_core
modprobe dummy
ip link add d0 type dummy
ip link set d0 up
for ((i = 0; i < hubs; i++)); do
	ip addr add "192.0.2.$((10 + i))/32" dev d0
done
for ((i = 1; i <= peers || i <= ref_peers; i++)); do
	ip addr add "198.51.100.$i/32" dev d0
done
rdma link add rxe0 type rxe netdev d0
echo "# rxe0 on d0: $hubs hub and $((peers > ref_peers ? peers : ref_peers)) peer addresses"

results=()
run() {	# name family peers msgs [reap-wait]
	local out json
	echo "## $1: $hubs hubs x $3 peers"
	out=$("$CONNS" --family "$2" --hub 192.0.2.10 --hubs "$hubs" \
		--peer 198.51.100.1 --peers "$3" --msgs "$4" --size "$size" \
		--settle "$settle" --reap-wait "${5:-0}") || {
		echo "$out"
		return 1
	}
	echo "$out"
	json=$(tail -n 1 <<<"$out")
	results+=("$1 $json")
}

for b in "${builds[@]}"; do
	name=${b%%=*} ko=${b#*=} n=$peers
	if [[ $ko == *:* ]]; then
		n=${ko##*:} ko=${ko%:*}
	fi
	insmod "$ko" conn_idle_secs=30
	family=$(cat /sys/module/rds_doca/parameters/family)
	run "$name" "$family" "$n" "$msgs" "$reap_wait"
	rmmod rds_doca
	sleep 10	# what the device frees after its queue pairs
done
modprobe -a rds rds_rdma
run linux 21 "$ref_peers" "$ref_msgs"
# rds_rdma stays: its unload waits minutes for its work after this many

echo "# summary (KiB per connection, both ends on this host)"
printf '%-10s %6s %10s %10s %10s %10s\n' build conns "set-up/s" idle busy reaped
for r in "${results[@]}"; do
	name=${r%% *} json=${r#* }
	python3 -c '
import json, sys
j = json.loads(sys.argv[2])
reaped = "%.1f" % j["reaped_kib"] if j["reap_left"] >= 0 else "-"
print("%-10s %6d %10.1f %10.1f %10.1f %10s" % (sys.argv[1], j["conns"],
      j["setup_per_s"], j["idle_kib"], j["busy_kib"], reaped))
' "$name" "$json"
done
