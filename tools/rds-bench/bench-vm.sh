#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside a VM (make bench): load rds_doca beside Linux RDS and compare
# the two on the loopback transport with compare.sh, in one boot,
# interleaved.  Results go to $RDSD_BENCH_OUT (default build/bench-<date>).
set -euo pipefail
ko=${1:-build/$(uname -r)/rds_doca.ko}
cd "$(dirname "$0")/../.."
out=${RDSD_BENCH_OUT:-build/bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
insmod "$ko"
modprobe rds
family=$(cat /sys/module/rds_doca/parameters/family)
echo "# rds_doca on family $family, Linux RDS on family 21, loopback 127.0.0.1"
tools/rds-bench/compare.sh --rounds "${RDSD_BENCH_ROUNDS:-3}" --out "$out" \
	"rds_doca:$family" "linux-rds:21"
rmmod rds_doca
rmmod rds
