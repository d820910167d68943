#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside a VM: rds_fuzz (tests/fuzz/rds_fuzz.sh) over the loopback
# transport, over it again with every copy on the tests' software DMA
# engine, over Soft-RoCE, then the regression programs of what it found
# (tests/fuzz/regress.sh), each stage loading and unloading rds_doca.
# Kernel reports fail the run through the VM harness.  Prints TAP and a
# closing "N passed, N failed" line.
#
#   tests/fuzz/suite.sh --ko PATH [--time S] [--ops N] [--seed N]
#       [--no-regress]
#
# --time bounds each stage (default 120 s); --ops, when given, ends each
# stage after N operations per thread (rds_fuzz.sh runs 8 threads), if
# --time has not ended it first.  The seed (random by default) is printed
# first and serves every stage.  --no-regress leaves the regression
# programs out.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/userspace/tap.sh
. tests/userspace/tap.sh

ko=
time_s=120
ops=()
regress=1
seed=$(( (RANDOM << 15) | RANDOM ))
while [ $# -gt 0 ]; do
	case $1 in
	--ko) ko=${2-}; shift 2 ;;
	--time) time_s=${2-}; shift 2 ;;
	--ops) ops=(--ops "${2-}"); shift 2 ;;
	--seed) seed=${2-}; shift 2 ;;
	--no-regress) regress=0; shift ;;
	*) echo "usage: ${0##*/} --ko PATH [--time S] [--ops N] [--seed N]" \
		"[--no-regress]" >&2
	   exit 2 ;;
	esac
done
[ -n "$ko" ] || { echo "${0##*/}: --ko is required" >&2; exit 2; }

what="$time_s s per stage"
[ ${#ops[@]} -gt 0 ] && what+=", at most ${ops[1]} operations per thread"
diag "rds_fuzz suite: seed $seed, $what"
SUITE_TIMEOUT=$((time_s + 600))
run_suite fuzz-loop tests/fuzz/rds_fuzz.sh --ko "$ko" --transport loop \
	--time "$time_s" --seed "$seed" "${ops[@]}"
run_suite fuzz-dma tests/fuzz/rds_fuzz.sh --ko "$ko" --transport loop \
	--time "$time_s" --seed "$seed" --dma "${ops[@]}"
run_suite fuzz-ib tests/fuzz/rds_fuzz.sh --ko "$ko" --transport ib \
	--time "$time_s" --seed "$seed" "${ops[@]}"
[ "$regress" = 1 ] && run_suite regress tests/fuzz/regress.sh --ko "$ko"
tap_finish
