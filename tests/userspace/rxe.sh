# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The software RDMA device of the one-VM IB stages: device IB_DEV of
# type IB_TYPE (rxe, Soft-RoCE; or siw, Soft-iWARP) on a dummy interface
# IB_NETDEV with the addresses IB_ADDR and IB_PEER, IB_ADDR6 and
# IB_PEER6 if set, and fe80::1 and fe80::2 if IB_LINK_LOCAL is 1, which it
# keeps while down (keep_addr_on_down: the
# link faults would take the IPv6 ones away).  Sourced after tap.sh (rxe_setup records checks); the
# caller may set the names first.

IB_TYPE=${IB_TYPE:-rxe}
IB_NETDEV=${IB_NETDEV:-d0}
IB_DEV=${IB_DEV:-rxe0}
IB_ADDR=${IB_ADDR:-192.0.2.1}
IB_PEER=${IB_PEER:-192.0.2.2}

rxe_active() {
	rdma link show "$IB_DEV/1" 2>/dev/null |
		grep -q "state ACTIVE .*netdev $IB_NETDEV"
}

# Remove the rxe device and the dummy interface, if they are there.
rxe_teardown() {
	local rc=0

	if [[ -e /sys/class/infiniband/$IB_DEV ]]; then
		rdma link delete "$IB_DEV" 2>&1 || rc=1
	fi
	if ip link show "$IB_NETDEV" >/dev/null 2>&1; then
		ip link delete "$IB_NETDEV" 2>&1 || rc=1
	fi
	return $rc
}

# rxe_setup STAGE: the IB_TYPE device on a dummy interface with both
# addresses, its port active.
rxe_setup() {
	local stage=$1 out mod=rdma_rxe

	[[ $IB_TYPE == siw ]] && mod=siw
	rxe_teardown >/dev/null
	out=$({ modprobe "$mod" &&
		ip link add "$IB_NETDEV" type dummy &&
		ip addr add "$IB_ADDR/24" dev "$IB_NETDEV" &&
		ip addr add "$IB_PEER/24" dev "$IB_NETDEV" &&
		{ [[ -z ${IB_ADDR6:-} ]] ||
		  ip -6 addr add "$IB_ADDR6/64" dev "$IB_NETDEV" nodad; } &&
		{ [[ -z ${IB_PEER6:-} ]] ||
		  ip -6 addr add "$IB_PEER6/64" dev "$IB_NETDEV" nodad; } &&
		{ [[ ${IB_LINK_LOCAL:-0} == 0 ]] ||
		  { ip -6 addr add fe80::1/64 dev "$IB_NETDEV" nodad &&
		    ip -6 addr add fe80::2/64 dev "$IB_NETDEV" nodad; }; } &&
		sysctl -qw "net.ipv6.conf.$IB_NETDEV.keep_addr_on_down=1" &&
		ip link set "$IB_NETDEV" up &&
		rdma link add "$IB_DEV" type "$IB_TYPE" netdev "$IB_NETDEV"; } 2>&1)
	check $? "$stage: $IB_TYPE device $IB_DEV on dummy $IB_NETDEV with $IB_ADDR and $IB_PEER" \
		"$out" || return 1
	for _ in $(seq 50); do
		rxe_active && break
		sleep 0.2
	done
	check "$(status rxe_active)" "$stage: $IB_DEV port is ACTIVE" \
		"$(rdma link show 2>&1)"
}
