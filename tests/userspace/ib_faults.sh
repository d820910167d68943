#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault tests of an RDS transport over Soft-RoCE on one host.  While
# rds_stream_test streams sequenced messages from one address of an rxe
# device to another, the path between them is broken and restored, a few
# times per kind of fault:
#
#   rxe:  the rxe device is deleted and added back
#   link: the rxe device's network interface is taken down and up
#
# in that order by default, each in a stream of its own; the connections
# stay up from one to the next.  Each stream checks that no message accepted by sendmsg() was lost,
# duplicated or reordered, and that a receive blocked while the path is
# down times out as it should (see rds_stream_test.c).
#
# Expects what run.sh's IB stages set up: the rxe device on a dummy
# interface carrying both addresses, and the RDS module loaded.  Run as
# root in a disposable VM.  Output is TAP, closing with "N passed,
# N failed".
#
# usage: tests/userspace/ib_faults.sh [options]   (see usage below)

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$HERE/tap.sh"

FAMILY=
IMPL=doca
NETDEV=d0
DEV=rxe0
TYPE=rxe
ADDR=192.0.2.1
PEER=192.0.2.2
ADDR6=
PEER6=
RESETS=3
MESSAGES=50000
DOWN_MS=2000
TIMEOUT=400
FAULTS=(rxe link)

usage() {
	cat <<EOF
usage: ${0##*/} [--family N] [--impl doca|rds] [--netdev IF] [--dev RXE]
       [--type rxe|siw]
       [--addr A] [--peer B] [--resets N] [--messages N] [--down-ms MS]
       [--timeout S] [--fault link|rxe]...
  --family N    socket family (default: rds_doca's, else 21)
  --impl        expected behaviour, doca (default) or rds
  --netdev IF   network interface of the rxe device (default $NETDEV)
  --dev RXE     the rxe device (default $DEV)
  --type T      its type: rxe (Soft-RoCE, default) or siw (Soft-iWARP)
  --addr A      senders' address (default $ADDR)
  --peer B      receivers' address (default $PEER)
  --addr6 A6, --peer6 B6  stream between these IPv6 addresses instead
                (checks named rxe6 and link6); the interface must keep
                its addresses while down (keep_addr_on_down)
  --resets N    faults per stream (default $RESETS)
  --messages N  messages per stream (default $MESSAGES)
  --down-ms MS  how long the path stays broken (default $DOWN_MS)
  --timeout S   limit of each stream (default $TIMEOUT)
  --fault KIND  run only the named faults (repeatable; default: rxe link)
EOF
}

faults=()
while [[ $# -gt 0 ]]; do
	case $1 in
	--family)	FAMILY=${2?}; shift ;;
	--impl)		IMPL=${2?}; shift ;;
	--netdev)	NETDEV=${2?}; shift ;;
	--dev)		DEV=${2?}; shift ;;
	--type)		TYPE=${2?}; shift ;;
	--addr)		ADDR=${2?}; shift ;;
	--peer)		PEER=${2?}; shift ;;
	--addr6)	ADDR6=${2?}; shift ;;
	--peer6)	PEER6=${2?}; shift ;;
	--resets)	RESETS=${2?}; shift ;;
	--messages)	MESSAGES=${2?}; shift ;;
	--down-ms)	DOWN_MS=${2?}; shift ;;
	--timeout)	TIMEOUT=${2?}; shift ;;
	--fault)	faults+=("${2?}"); shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done
[[ ${#faults[@]} -gt 0 ]] && FAULTS=("${faults[@]}")
[[ -z $ADDR6 && -z $PEER6 || -n $ADDR6 && -n $PEER6 ]] ||
	{ usage >&2; exit 2; }
if [[ -z $FAMILY ]]; then
	FAMILY=$(cat /sys/module/rds_doca/parameters/family 2>/dev/null ||
		 echo 21)
fi

rxe_active() {
	rdma link show "$DEV/1" 2>/dev/null |
		grep -q "state ACTIVE .*netdev $NETDEV"
}

# check_active WHEN: the rxe port is (again) active, within ten seconds.
check_active() {
	for _ in $(seq 50); do
		rxe_active && break
		sleep 0.2
	done
	check "$(status rxe_active)" "$DEV is ACTIVE on $NETDEV $1" \
		"$(rdma link show 2>&1)"
}

# stream KIND DOWN UP: a stream broken RESETS times by DOWN, repaired by UP.
stream() {
	local v6=()

	[[ -z $ADDR6 ]] ||
		v6=(--ipv6 --addr6 "$ADDR6" --peer6 "$PEER6" --transport6 ib)
	run_suite "$1${ADDR6:+6}" "$HERE/rds_stream_test" --family "$FAMILY" \
		--impl "$IMPL" --addr "$ADDR" --peer "$PEER" --transport ib \
		"${v6[@]}" \
		--messages "$MESSAGES" --resets "$RESETS" \
		--down-ms "$DOWN_MS" --timeout "$TIMEOUT" \
		--down "$2" --up "$3"
}

echo "# fault tests on $(uname -r): family $FAMILY, $DEV on $NETDEV," \
     "${ADDR6:-$ADDR} -> ${PEER6:-$PEER}"
make -s -C "$HERE" rds_stream_test >/dev/null ||
	check 1 "build rds_stream_test"
check_active "before the faults" || { tap_finish; exit 1; }

for f in "${FAULTS[@]}"; do
	case $f in
	rxe)
		stream rxe "rdma link delete $DEV" \
			"rdma link add $DEV type $TYPE netdev $NETDEV"
		check_active "after the device faults"
		;;
	link)
		stream link "ip link set $NETDEV down" "ip link set $NETDEV up"
		check_active "after the link faults"
		;;
	*)
		check 1 "known fault '$f'"
		;;
	esac
done

tap_finish
