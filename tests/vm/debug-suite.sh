#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside the debug VM (KASAN, lockdep, kmemleak).  Kernel reports in
# dmesg fail the run through the VM harness.  Ends with one "N passed,
# N failed" line.
#
#   tests/vm/debug-suite.sh [--trinity "OPTIONS"] [--fuzz "OPTIONS"]
#                           BUILD_DIR [all | STAGE...]
#
# STAGE: kunit, userspace, regress, trinity, fuzz, failnth, kmemleak.
#
# By default (what make check runs): the KUnit suites, the userspace
# suites that reach each part of the module once (below), the regression
# programs of what the fuzzers found, then a kmemleak scan.  "all" (make
# check-full, make coverage) runs every userspace suite the debug kernel
# takes, a slice of trinity, a slice of the structured fuzzer (with the
# regression programs) and the fail-nth walk over both transports.  The
# OPTIONS go to tests/fuzz/trinity.sh (e.g. --calls N --seed N) and
# tests/fuzz/suite.sh (e.g. --time S --seed N).
set -uo pipefail
trinity_opts="--calls 20000 --children 64"
fuzz_opts="--time 20"
while [ $# -gt 0 ]; do
	case $1 in
	--trinity) trinity_opts=$2; shift 2 ;;
	--fuzz) fuzz_opts=$2; shift 2 ;;
	*) break ;;
	esac
done
dir=${1:?usage: debug-suite.sh [--trinity OPTIONS] [--fuzz OPTIONS] BUILD_DIR [all | STAGE...]}
shift
full=0
stages=${*:-kunit userspace regress kmemleak}
if [ "$stages" = all ]; then
	full=1
	stages="kunit userspace trinity fuzz failnth kmemleak"
fi
cd "$(dirname "$0")/../.." || exit 1
passed=0
failed=0

stage() {	# name, command...
	local name=$1 out line p f st t0=$SECONDS
	shift
	[[ " $stages " == *" $name "* ]] || return 0
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	st=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "not ok - $name: no result line (exit status $st)"
		failed=$((failed + 1))
		return
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$st" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $name: exit status $st"
		failed=$((failed + 1))
	fi
	echo "# $name: $p passed, $f failed, $((SECONDS - t0)) s"
}

stage kunit tests/kunit/run.sh "$dir"
# rds_doca's userspace stages: the reference stages (conflict, rds,
# rds-ib) load Linux RDS, which the stock kernels check in boots of their
# own, so that nothing it leaves behind is charged to rds_doca here;
# drop-in mode, whose code is the doca stage's, is left to them too
# under KASAN the order test's 100,000 messages take minutes per stage;
# 10,000 cover the same paths (the ring and window wrap many times)
export ORDER_ARGS=${ORDER_ARGS:---messages 10000}
# installing and autoloading are the stock kernels' checks: under KASAN
# they are minutes of depmod and make, and no module code
export INSTALL_TESTS=${INSTALL_TESTS:-0}
if [ "$full" = 0 ]; then
	# What make check leaves to the stock kernels, which run all of it:
	# rdsctl and the tracepoints; on the copy engine, the api suite
	# (its copies are the rdma suite's, which runs, as do the engine's
	# failures and the fallback to the CPU) and the order, bounds and
	# timing variants; the 64 MiB message (16 MiB takes the same
	# paths); the fault campaigns' length (10,000 messages, three
	# faults each, still cross every reset path); and over IPv6 the
	# order and bounds suites and the device faults (the api and rdma
	# suites' IPv6 passes take every address path of the module, the
	# IPv4 faults every reset path).
	export SKIP_SUITES=${SKIP_SUITES-"doca-trace ib-trace ib-trace6 doca-rdsctl ib-rdsctl dma-api dma-order dma-bounds dma-sync-event dma-prep-* dma-slow-* dma-reorder-* dma-off-* *-order6 *-bounds6 ib-faults6"}
	export SKIP_TESTS=${SKIP_TESTS-send_largest}
	export FAULTS_ARGS=${FAULTS_ARGS:---messages 10000}
fi
# iw: Soft-iWARP, which only this kernel builds
stage userspace tests/userspace/run.sh --ko "$dir/rds_doca.ko" \
	--stage doca --stage dma --stage conns --stage ib \
	--stage ib-faults --stage tcp --stage iw
# the regression programs alone (the fuzz stage runs them after its own)
stage regress tests/fuzz/regress.sh --ko "$dir/rds_doca.ko"
# trinity over the socket calls, as nobody, with the module in drop-in
# mode; its seed, printed first, reproduces a run
# shellcheck disable=SC2086
stage trinity tests/fuzz/trinity.sh --ko "$dir/rds_doca.ko" $trinity_opts
# rds_fuzz over loopback, the copy engine and Soft-RoCE, then the
# regression programs of what it found; its seed is printed first too
# shellcheck disable=SC2086
stage fuzz tests/fuzz/suite.sh --ko "$dir/rds_doca.ko" $fuzz_opts
# fail-nth over every allocation and user copy under rds_doca's frames
stage failnth tests/fuzz/failnth.sh --ko "$dir/rds_doca.ko" --transport loop
stage failnth tests/fuzz/failnth.sh --ko "$dir/rds_doca.ko" --transport ib
stage kmemleak tests/vm/kmemleak-check.sh
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
