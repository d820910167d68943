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
tools/rds-demo/rds-demo
rmmod rds_doca
echo "# module unloaded"
