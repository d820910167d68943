#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The long fuzzing campaign (make fuzz), in the debug VM (KASAN, lockdep,
# kmemleak): trinity over rds_doca's socket calls, then rds_fuzz over
# loopback, the copy engine and Soft-RoCE with its regression programs,
# then a kmemleak scan.  A slice of the same runs in make check.  Prints
# TAP and a closing "N passed, N failed" line.
#
#   tests/fuzz/campaign.sh [CALLS [SEED]]
#
# CALLS (default 1,000,000) is trinity's number of calls; rds_fuzz runs
# CALLS / 1000 seconds per transport, at least as many operations at the
# 1,200 to 2,400 a second it makes under KASAN.  SEED (random by default,
# printed first) serves both.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
calls=${1:-1000000}
seed=${2:-$(( (RANDOM << 15) | RANDOM ))}

scripts/install-deps.sh || exit 1
dbg=$(tests/vm/build-debug-kernel) || exit 1
dver=$(cat "$dbg/build/include/config/kernel.release")
make -s module KDIR="$dbg/build" || exit 1
fuzz_s=$(( calls / 1000 ))
echo "# trinity: $calls calls, rds_fuzz: 3 x $fuzz_s s, seed $seed," \
	"debug kernel $dver"
# trinity makes about 60 calls a second under KASAN and TCG; room to spare
timeout=$(( calls / 20 + 4 * fuzz_s + 1200 ))
tests/vm/run --kernel "$dbg/bzImage" --modules "$dbg/modules" --mem 3072 \
	--timeout "$timeout" --append pci=noacpi -- \
	tests/vm/debug-suite.sh \
	--trinity "--calls $calls --seed $seed --children 16" \
	--fuzz "--time $fuzz_s --seed $seed" \
	"build/$dver" trinity fuzz kmemleak
