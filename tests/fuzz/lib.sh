# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the guest scripts of tests/fuzz share, sourced after
# tests/userspace/tap.sh from the top of the tree: loading and unloading
# rds_doca, and the one-host Soft-RoCE topology of tests/userspace/run.sh
# (tests/userspace/rxe.sh: an rxe device on a dummy interface that carries
# both addresses).

# shellcheck source=tests/userspace/rxe.sh
. tests/userspace/rxe.sh

loaded() { [ -d "/sys/module/$1" ]; }

# unload MODULE [SECONDS]: sockets are freed after an RCU grace period and
# IB connections are taken down by work items, so retry for SECONDS (20).
unload() {
	local out i n=$((${2:-20} * 2))

	for i in $(seq "$n"); do
		loaded "$1" || return 0
		out=$(rmmod "$1" 2>&1) && return 0
		[ "$i" = "$n" ] || sleep 0.5
	done
	echo "$out"
	return 1
}

# load_doca STAGE [PARAM...]: rdma_cm, then rds_doca ($KO); two checks.
load_doca() {
	local stage=$1 out

	shift
	if loaded rds_doca; then
		out=$(unload rds_doca)
		check $? "$stage: unload rds_doca left loaded before" "$out"
	fi
	check "$(status modprobe -q rdma_cm)" "$stage: rdma_cm loaded"
	out=$(insmod "$KO" "$@" 2>&1)
	check $? "$stage: insmod $KO${*:+ $*}" "$out"
}
