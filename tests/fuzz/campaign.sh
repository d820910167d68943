#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The long fuzzing campaign (make fuzz), in the debug VM (KASAN, lockdep,
# kmemleak): trinity over rds_doca's socket calls, then rds_fuzz over
# loopback, the copy engine and Soft-RoCE with its regression programs,
# then a kmemleak scan; then rds_fuzz over Soft-RoCE between two debug
# VMs.  A slice of the same runs in make check.  Prints TAP and a closing
# "N passed, N failed" line.
#
#   tests/fuzz/campaign.sh [CALLS [SEED]]
#
# CALLS (default 1,000,000) is trinity's number of calls and rds_fuzz's
# number of operations per transport (CALLS / 8 for each of its 8
# threads).  SEED (random by default, printed first) serves both.  Under
# KASAN and TCG trinity makes about 400 calls a second with 64 children
# (its children mostly wait in calls that block, and with 16 of them the
# VM is two thirds idle at 200 calls a second; 256 make only 250) and
# rds_fuzz 1,200 to 2,400 operations (850 a host between two VMs), so the
# default campaign takes about 85 minutes.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
calls=${1:-1000000}
seed=${2:-$(( (RANDOM << 15) | RANDOM ))}

scripts/install-deps.sh || exit 1
dbg=$(tests/vm/build-debug-kernel) || exit 1
dver=$(cat "$dbg/build/include/config/kernel.release")
make -s module KDIR="$dbg/build" || exit 1
fuzz_ops=$(( (calls + 7) / 8 ))
# bounds far past the rates above: a stage that reaches one has hung
fuzz_s=$(( calls / 200 + 60 ))
echo "# trinity: $calls calls, rds_fuzz: 3 x $((fuzz_ops * 8)) operations," \
	"seed $seed, debug kernel $dver"
timeout=$(( calls / 20 + 3 * fuzz_s + 1800 ))
# shellcheck source=tests/tally.sh
. tests/tally.sh
log=$(mktemp)
trap 'rm -f "$log" "$log".[ab]' EXIT
tests/vm/run --kernel "$dbg/bzImage" --modules "$dbg/modules" --mem 3072 \
	--timeout "$timeout" --append pci=noacpi -- \
	tests/vm/debug-suite.sh \
	--trinity "--calls $calls --seed $seed --children 64" \
	--fuzz "--ops $fuzz_ops --time $fuzz_s --seed $seed" \
	"build/$dver" trinity fuzz kmemleak 2>&1 | tee "$log"
count_suite "debug VM" "$log" "${PIPESTATUS[0]}"

# then over IB between two hosts, each fuzzing towards the other with half
# the operations (host b with the seed plus one)
echo "# rds_fuzz between two hosts: 2 x $((fuzz_ops * 4)) operations"
tests/vm/pair --kernel "$dbg/bzImage" --modules "$dbg/modules" --mem 3072 \
	--timeout "$((fuzz_s + 1200))" --append pci=noacpi -- \
	tests/fuzz/rds_fuzz.sh --ko "build/$dver/rds_doca.ko" \
	--transport pair --ops "$(( (fuzz_ops + 1) / 2 ))" --time "$fuzz_s" \
	--seed "$seed" 2>&1 | tee "$log"
count_pair "VM pair" "$log" "${PIPESTATUS[0]}"

tally_finish
