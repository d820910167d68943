#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside a VM (make bench), in one boot:
#  1. loopback: rds_doca beside Linux RDS on 127.0.0.1 (compare.sh),
#     messages and RDMA (Linux RDS has no RDMA there: "unsupported");
#  2. scaling: loopback stream of 64-byte messages from 1, 2, 4 and 16
#     senders with 1 and 64 sockets each (scaling.sh), and every family's
#     msgs/s at 2 senders over 1;
#  3. IB: Soft-RoCE (rxe) on a dummy interface holding 192.0.2.1 and
#     192.0.2.2; rds_doca over IB, Linux RDS over rds_rdma and raw verbs
#     (perftest) on that device, interleaved (ib-compare.sh): messages,
#     and RDMA write, read and fetch-and-add against ib_write_bw,
#     ib_read_bw and ib_atomic_bw; then rds-stress's transaction
#     (compare.sh --modes reqresp) for rds_doca against rds_rdma, and
#     RDMA write, read and fetch-and-add over rds_doca's TCP transport
#     (run in software by the owner) against its IB transport, between
#     the same two addresses (in tcp-rdma/);
#  4. the copy engine: loopback streaming and RDMA with every copy on the
#     test DMA provider (rdsd_test_dma.ko) against the CPU
#     (dma-compare.sh);
#  5. TCP: two network namespaces joined by a veth pair, 198.51.100.1 and
#     198.51.100.2; rds_doca's TCP transport against Linux rds_tcp
#     (compare.sh --netns-*): messages.  On one host Linux RDS would use
#     its loopback transport, so the ends live in two namespaces.
# Results go to $RDSD_BENCH_OUT (default build/bench-<date>), in loopback/,
# scaling/, ib/, ib-reqresp/ and dma/.  RDSD_BENCH_ROUNDS (3) and
# RDSD_BENCH_DURATION (1.5 s per run) set the length, RDSD_BENCH_IB_SIZES
# ("64 4k 64k 1m") the stream sizes of the IB part and RDSD_BENCH_MTU
# (1500 or 9000) the MTU of its interface, which rxe's IB MTU follows
# (1024 or 4096); RDSD_BENCH_SCALING=0 skips the scaling part,
# RDSD_BENCH_IB=0 the IB part, RDSD_BENCH_RDMA=0 the RDMA workloads of
# every part (reqresp included), RDSD_BENCH_WINDOW (16) sets the operations
# they keep outstanding; RDSD_BENCH_DMA=0 skips the copy engine part
# (dma-compare.sh with the test DMA provider, in dma/), RDSD_BENCH_TCP=0
# the TCP part (in tcp/).
# Only rds_doca is under test: a run of a reference (Linux RDS, rds_rdma,
# perftest) that fails is retried once, then shown as missing; the exit
# status is non-zero only when rds_doca fails or delivers bad data.
set -euo pipefail
# settings first: a wrong one stops the run before anything is loaded
mtu=${RDSD_BENCH_MTU:-1500}
case $mtu in
1500|9000) ;;
*) echo "bench-vm.sh: RDSD_BENCH_MTU=$mtu: expected 1500 or 9000" >&2; exit 2;;
esac
ko=${1:-build/$(uname -r)/rds_doca.ko}
cd "$(dirname "$0")/../.."
out=${RDSD_BENCH_OUT:-build/bench-$(date +%Y%m%d-%H%M%S)}
rounds=${RDSD_BENCH_ROUNDS:-3}
dur=${RDSD_BENCH_DURATION:-1.5}
len=(--rounds "$rounds" --duration "$dur" --pp-duration "$dur")
rdma_modes="rdma-write rdma-read atomic"
[[ ${RDSD_BENCH_RDMA:-1} == 1 ]] || rdma_modes=""
window=${RDSD_BENCH_WINDOW:-16}
mkdir -p "$out"
rc=0

modprobe rdma_cm		# rds_doca's IB transport uses it
insmod "$ko"
modprobe rds
family=$(cat /sys/module/rds_doca/parameters/family)
echo "# loopback: rds_doca on family $family, Linux RDS on family 21, 127.0.0.1"
tools/rds-bench/compare.sh "${len[@]}" --out "$out/loopback" \
	--modes "stream pingpong $rdma_modes" --window "$window" \
	--subject rds_doca \
	"rds_doca:$family" "linux-rds:21" || rc=$?

# how sending scales with senders (2 vCPUs: 2 against 1 is the figure),
# and whether more sockets per sender change it
if [[ ${RDSD_BENCH_SCALING:-1} == 1 ]]; then
	echo
	echo "# scaling: stream 64 B, 1 to 16 senders, 1 and 64 sockets each, 127.0.0.1"
	tools/rds-bench/scaling.sh --rounds "$rounds" --duration "$dur" \
		--threads "1 2 4 16" --sockets "1 64" --size 64 \
		--out "$out/scaling" --subject rds_doca \
		"rds_doca:$family" "linux-rds:21" || { r=$?; ((r > rc)) && rc=$r; }
fi

# the copy engine: a software DMA_MEMCPY provider, engine against CPU
dma_ko=$(dirname "$ko")/rdsd_test_dma.ko
if [[ ${RDSD_BENCH_DMA:-1} == 1 && -f $dma_ko ]]; then
	insmod "$dma_ko"
	echo
	echo "# copy engine: rdsd_test_dma against the CPU, loopback"
	tools/rds-bench/dma-compare.sh --rounds "$rounds" --duration "$dur" \
		--out "$out/dma" || { r=$?; ((r > rc)) && rc=$r; }
	tools/rdsctl/rdsctl dma set mode off
	rmmod rdsd_test_dma
fi

# TCP between two namespaces: each end in its own, both modules in each
if [[ ${RDSD_BENCH_TCP:-1} == 1 ]]; then
	modprobe rds_tcp
	ip netns add rdsd-bench-a
	ip netns add rdsd-bench-b
	ip link add rbva netns rdsd-bench-a type veth peer name rbvb netns rdsd-bench-b
	ip -n rdsd-bench-a addr add 198.51.100.1/24 dev rbva
	ip -n rdsd-bench-b addr add 198.51.100.2/24 dev rbvb
	ip -n rdsd-bench-a link set rbva up
	ip -n rdsd-bench-b link set rbvb up
	echo
	echo "# TCP: rds_doca on family $family (TCP transport), rds_tcp on family 21, two namespaces over veth"
	tools/rds-bench/compare.sh "${len[@]}" --out "$out/tcp" \
		--modes "stream pingpong" --sizes "64 4k 64k 1m" \
		--saddr 198.51.100.1 --daddr 198.51.100.2 --subject rds_doca-tcp \
		--bench-args "--netns-active rdsd-bench-a --netns-passive rdsd-bench-b" \
		"rds_doca-tcp:$family" "rds_tcp:21" || { r=$?; ((r > rc)) && rc=$r; }
	ip netns delete rdsd-bench-a
	ip netns delete rdsd-bench-b
fi

if [[ ${RDSD_BENCH_IB:-1} == 1 ]]; then
	modprobe rds_rdma
	modprobe rdma_rxe
	modprobe dummy
	ip link add d0 type dummy
	# rxe takes its IB MTU from the netdev's: 1024 at 1500, 4096 at 9000
	ip link set d0 mtu "$mtu"
	ip link set d0 up
	ip addr add 192.0.2.1/24 dev d0
	ip addr add 192.0.2.2/24 dev d0
	rdma link add rxe0 type rxe netdev d0
	# only informative: no tool's output format is relied on
	ib_mtu=$(ibv_devinfo -d rxe0 2>/dev/null |
		sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p' |
		head -n 1) || true
	echo
	echo "# IB: rxe0 on d0 (MTU $mtu, IB MTU ${ib_mtu:-unknown}); rds_doca on family $family, rds_rdma on family 21, perftest"
	tools/rds-bench/ib-compare.sh "${len[@]}" --out "$out/ib" \
		--sizes "${RDSD_BENCH_IB_SIZES:-64 4k 64k 1m}" \
		--rdma-modes "${rdma_modes:-none}" --window "$window" \
		--saddr 192.0.2.2 --daddr 192.0.2.1 || { r=$?; ((r > rc)) && rc=$r; }
	# RDMA over TCP, the owner's kernel running each operation, against
	# the device, between the same two addresses
	if [[ -n $rdma_modes ]]; then
		echo
		echo "# RDMA over TCP: rds_doca's TCP transport (SO_RDS_TRANSPORT) against its IB transport on rxe0"
		tools/rds-bench/compare.sh "${len[@]}" --out "$out/tcp-rdma" \
			--modes "$rdma_modes" --window "$window" \
			--saddr 192.0.2.2 --daddr 192.0.2.1 \
			--subject rds_doca-tcp \
			"rds_doca-tcp:$family:2" "rds_doca-ib:$family:0" ||
			{ r=$?; ((r > rc)) && rc=$r; }
	fi
	# rds-stress's transaction; like ib-compare.sh, rds_doca is left out
	# (not failed) when it cannot bind the addresses
	if [[ -n $rdma_modes ]]; then
		echo
		echo "# IB reqresp: rds_doca on family $family, rds_rdma on family 21"
		if why=$(tools/rds-bench/rds-bench probe --family "$family" \
			 --saddr 192.0.2.2 --daddr 192.0.2.1 --timeout 5 2>&1); then
			tools/rds-bench/compare.sh "${len[@]}" --out "$out/ib-reqresp" \
				--modes reqresp --rr-size 4k --rdma-sizes 64k --window 4 \
				--saddr 192.0.2.2 --daddr 192.0.2.1 --subject rds_doca \
				"rds_doca:$family" "rds_rdma:21" || { r=$?; ((r > rc)) && rc=$r; }
		else
			echo "rds_doca over IB is not measured: $(echo "$why" | grep -v '^rds-bench: WARNING' | head -n 1)"
		fi
	fi
	rmmod rds_doca
	rdma link delete rxe0
	ip link delete d0
	rmmod rds_rdma
else
	rmmod rds_doca
fi
if lsmod | grep -q '^rds_tcp '; then
	rmmod rds_tcp
fi
rmmod rds
exit "$rc"
