#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The whole test run behind `make check`: install what is missing, build the
# module for every Debian kernel with W=1 and sparse (a warning fails), build
# the programs, then run the userspace suites inside VMs.  Every stage
# prints TAP; the run ends with one "N passed, N failed" line summing all
# of them and exits non-zero if anything failed.
#
# Environment: RDSD_CACHE (default ~/.cache/rds_doca), RDSD_KERNELS (stock
# kernels whose VMs run the suite, default "6.12 6.1"), RDSD_DEBUG=0 (skip
# the debug kernel), RDSD_PAIR=0 (skip the two-host suite), RDSD_FULL=1
# (make check-full: every suite on every kernel, the two-host suites on
# each, the debug kernel's fuzzing slices; see below for what make check
# leaves out).

set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
export RDSD_CACHE=${RDSD_CACHE:-$HOME/.cache/rds_doca}
kernels=${RDSD_KERNELS:-6.12 6.1}
logdir=$(mktemp -d "${TMPDIR:-/tmp}/rdsd-check.XXXXXX")
# shellcheck source=tests/tally.sh
. tests/tally.sh

# Run "$@", logging to $logdir/$name.log; a check named $name.
step() {
	local name=$1 t=$SECONDS
	shift
	if "$@" >"$logdir/$name.log" 2>&1; then
		ok "$name"
		echo "# $name: $((SECONDS - t)) s"
		return 0
	fi
	not_ok "$name"
	sed 's/^/# /' "$logdir/$name.log" | tail -n 40
	return 1
}

# A build must not print a single compiler or sparse warning.
build_clean() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 || return 1
	! grep -E 'warning:|error:' "$log"
}

# The cross-host suite in two VMs: pair_suite NAME MODULE-DIR MESSAGES
# STAGES [tests/vm/pair options...], STAGES of cross_host.sh: rds and
# rds-tcp (Linux RDS, the reference), doca and doca-tcp.
pair_suite() {
	local name=$1 dir=$2 messages=$3 s log stages=()

	for s in $4; do
		stages+=(--stage "$s")
	done
	shift 4
	[ "${RDSD_PAIR:-1}" = 1 ] || return 0
	log=$logdir/pair-$(tr -c 'A-Za-z0-9.\n' - <<<"$name").log
	echo "# two hosts: $name"
	tests/vm/pair "$@" -- tests/userspace/cross_host.sh "${stages[@]}" \
		--ko "$dir/rds_doca.ko" --messages "$messages" 2>&1 | tee "$log"
	count_pair "$name" "$log" "${PIPESTATUS[0]}"
}

start=$(date +%s)
echo "TAP version 13"

full=${RDSD_FULL:-0}
step deps scripts/install-deps.sh || { tally_finish; exit 1; }
# shellcheck source=/dev/null
. "$RDSD_CACHE/kernels.env"

# The debug kernel builds while the stock kernels' suites run, on what CPU
# they leave idle (SCHED_IDLE: it never takes a core from a VM); built
# once per source version and config, then cached.
dbg_pid=
if [ "${RDSD_DEBUG:-1}" = 1 ]; then
	dbg_t0=$(date +%s)
	chrt --idle 0 ionice -c 3 tests/vm/build-debug-kernel \
		>"$logdir/debug-kernel.out" 2>"$logdir/debug-kernel.log" &
	dbg_pid=$!
	# an interrupted run stops it; the next one goes on from its objects
	trap '[ -n "$dbg_pid" ] && kill "$dbg_pid" 2>/dev/null' EXIT
fi

for v in "$KVER_612" "$KVER_61"; do
	step "build module for $v (W=1, sparse)" \
		build_clean "$logdir/build-$v.out" \
		make -s module KDIR="/usr/src/linux-headers-$v" W=1 C=1
done
step "build userspace programs" make -s tools tests
# DKMS builds the module from the sources it is given, for both kernels
# (make check-dkms runs the whole cycle in a VM: minutes of TCG)
step "DKMS builds the module for $KVER_612 and $KVER_61" \
	tests/install/dkms_build.sh "$KVER_612" "$KVER_61"

# rds_doca and Linux RDS, the reference, never share a boot: a fault left
# behind by one can then be neither charged to the other nor hidden by it.
# The first kernel runs every stage and the reference; the others what
# meets their kernel's own code (sockets, connections, the verbs and
# Soft-RoCE), not drop-in mode or the copy engine again, and (but in
# make check-full) neither the tracepoints nor rdsctl's suites, whose
# code does not differ between kernels, nor the two-host suite, which
# make check runs on the first kernel only.
DOCA_STAGES="--stage doca --stage dropin --stage dma --stage conns --stage ib --stage ib-faults --stage tcp"
DOCA_STAGES_MORE="--stage doca --stage conns --stage ib --stage ib-faults --stage tcp"
SKIP_MORE="doca-trace ib-trace ib-trace6 doca-rdsctl ib-rdsctl"
REF_STAGES="--stage conflict --stage rds --stage rds-ib"
first=${kernels%% *}
[ "$full" = 1 ] && SKIP_MORE=

for k in $kernels; do
	case $k in
	6.12) v=$KVER_612 ;;
	6.1) v=$KVER_61 ;;
	*) v=$k ;;
	esac
	parts="doca reference" doca_stages=$DOCA_STAGES skip=
	if [ "$k" != "$first" ]; then
		parts=doca doca_stages=$DOCA_STAGES_MORE skip=$SKIP_MORE
	fi
	for part in $parts; do
		vm_stages=$doca_stages
		[ "$part" = reference ] && vm_stages=$REF_STAGES
		log=$logdir/vm-$k-$part.log
		echo "# userspace suites ($part) in a VM running Debian's $v"
		t0=$(date +%s)
		# shellcheck disable=SC2086
		tests/vm/run --kernel "$v" --timeout 2400 -- \
			env SKIP_SUITES="$skip" \
			tests/userspace/run.sh --ko "build/$v/rds_doca.ko" $vm_stages \
			2>&1 | tee "$log"
		count_suite "stock $k VM ($part)" "$log" "${PIPESTATUS[0]}"
		echo "# stock $k VM ($part): $(( $(date +%s) - t0 )) s"
	done
	[ "$k" = "$first" ] || [ "$full" = 1 ] || continue
	t0=$(date +%s)
	pair_suite "stock $k VM pair" "build/$v" 4000 \
		"doca doca-tcp doca6 doca6-tcp" \
		--kernel "$v" --timeout 900
	# Linux RDS across hosts, the reference: once is enough
	if [ "$k" = "$first" ] && [ "$full" = 1 ]; then
		pair_suite "stock $k VM pair (reference)" "build/$v" 4000 \
			"rds rds-tcp" --kernel "$v" --timeout 900
	fi
	echo "# stock $k VM pairs: $(( $(date +%s) - t0 )) s"
done

# The debug kernel: KUnit, then the userspace suites under KASAN, lockdep
# and kmemleak (tests/vm/debug-suite.sh says which; all of them, with
# the fuzzing slices, in make check-full).
if [ -n "$dbg_pid" ]; then
	echo "# debug kernel (cached in $RDSD_CACHE/debug-kernel)"
	t0=$(date +%s)
	wait "$dbg_pid"
	st=$?
	dbg_pid=
	if [ "$st" = 0 ] && dbg=$(cat "$logdir/debug-kernel.out") &&
	   [ -f "$dbg/done" ]; then
		ok "debug kernel ($(( t0 - dbg_t0 )) s beside the stock suites, then $(( $(date +%s) - t0 )) s)"
		dver=$(cat "$dbg/build/include/config/kernel.release")
		dsuite=
		[ "$full" = 1 ] && dsuite=all
		if step "build module and KUnit suites for $dver (W=1, sparse)" \
			build_clean "$logdir/build-$dver.out" \
			make -s module KDIR="$dbg/build" W=1 C=1; then
			log=$logdir/vm-debug.log
			t0=$(date +%s)
			# pci=noacpi: the AML interpreter is too slow under
			# KASAN and TCG to route PCI interrupts in time
			# shellcheck disable=SC2086
			tests/vm/run --kernel "$dbg/bzImage" --modules "$dbg/modules" \
				--mem 3072 --timeout 3000 --append pci=noacpi -- \
				tests/vm/debug-suite.sh "build/$dver" $dsuite \
				2>&1 | tee "$log"
			count_suite "debug VM" "$log" "${PIPESTATUS[0]}"
			echo "# debug VM: $(( $(date +%s) - t0 )) s"
			if [ "$full" = 1 ]; then
				t0=$(date +%s)
				# rds_doca only: reloading rds_rdma with a
				# peer connecting makes lockdep report Linux
				# RDS (rds_ib_laddr_check() in the rdma_cm
				# handler)
				pair_suite "debug VM pair" "build/$dver" 1000 doca \
					--kernel "$dbg/bzImage" \
					--modules "$dbg/modules" --mem 3072 \
					--timeout 1800 --append pci=noacpi
				echo "# debug VM pair: $(( $(date +%s) - t0 )) s"
			fi
		fi
	else
		not_ok "debug kernel build"
		sed 's/^/# /' "$logdir/debug-kernel.log" | tail -n 40
	fi
fi

echo "# logs in $logdir; wall time $(( $(date +%s) - start )) s"
tally_finish
