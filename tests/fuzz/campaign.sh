#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The long fuzzing campaign (make fuzz): trinity over rds_doca's socket
# calls in the debug VM (KASAN, lockdep, kmemleak), then a kmemleak scan.
# A slice of the same runs in make check.  Prints TAP and a closing
# "N passed, N failed" line.
#
#   tests/fuzz/campaign.sh [CALLS [SEED]]
#
# CALLS defaults to 1,000,000; SEED to a random one, printed first.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
calls=${1:-1000000}
seed=${2:-$(( (RANDOM << 15) | RANDOM ))}

scripts/install-deps.sh || exit 1
dbg=$(tests/vm/build-debug-kernel) || exit 1
dver=$(cat "$dbg/build/include/config/kernel.release")
make -s module KDIR="$dbg/build" || exit 1
echo "# trinity: $calls calls, seed $seed, debug kernel $dver"
# about 60 calls a second under KASAN and TCG, and room to spare
timeout=$(( calls / 20 + 600 ))
tests/vm/run --kernel "$dbg/bzImage" --modules "$dbg/modules" --mem 3072 \
	--timeout "$timeout" --append pci=noacpi -- \
	tests/vm/debug-suite.sh \
	--trinity "--calls $calls --seed $seed --children 16" \
	"build/$dver" trinity kmemleak
