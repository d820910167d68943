#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Run inside a VM: load the module, run the demo, unload.
set -euo pipefail
ko=${1:-build/$(uname -r)/rds_doca.ko}
cd "$(dirname "$0")/../.."
echo "# modprobe rdma_cm; insmod $ko"
modprobe rdma_cm	# the IB/RoCE transport is built on it
insmod "$ko"
echo "# family in use: $(cat /sys/module/rds_doca/parameters/family)"
echo "# over the loopback transport"
tools/rds-demo/rds-demo
echo
echo "# over Soft-RoCE: rxe0 on a dummy interface with two addresses"
modprobe rdma_rxe
ip link add d0 type dummy
ip addr add 192.0.2.1/24 dev d0
ip addr add 192.0.2.2/24 dev d0
ip link set d0 up
rdma link add rxe0 type rxe netdev d0
# before closing its sockets, the demo shows them with rdsctl
RDS_DEMO_SHOW='for o in conn sock stats; do echo "# rdsctl $o show"; tools/rdsctl/rdsctl $o show || exit 1; done' \
	tools/rds-demo/rds-demo 192.0.2.1 192.0.2.2
rdma link delete rxe0
ip link delete d0
rmmod rds_doca
echo "# module unloaded"
