#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside a VM: rds_fuzz (tests/fuzz/rds_fuzz.c), rds_doca's own
# structured fuzzer, as nobody, over one of
#
#   loop  the loopback transport, 127.0.0.1 and 127.0.0.2 (default)
#   ib    Soft-RoCE in this VM: an rxe device on a dummy interface that
#         carries 192.0.2.1 and 192.0.2.2, as tests/userspace/run.sh
#         sets it up
#   pair  the two hosts of tests/vm/pair, RDSD_ADDR and RDSD_PEER over
#         the rxe device tests/vm/pair-guest made; host b fuzzes with
#         the seed plus one
#
# The module is loaded with its default family (--family picks another)
# and must unload afterwards.  Kernel reports fail the run through the VM
# harness.  Prints TAP and a closing "N passed, N failed" line.
#
#   tests/fuzz/rds_fuzz.sh --ko PATH [--transport loop|ib|pair] [--ops N]
#       [--seed N] [--time S] [--threads N] [--procs N] [--family N]
#       [--dma] [-- RDS_FUZZ_OPTIONS...]
#
# --dma loads the software DMA engine of the tests (rdsd_test_dma.ko,
# next to the module) first and rds_doca with every copy on it.
# --ops is per thread (default 1000000), --time bounds the fuzzing
# (default 120 s).  A run is reproduced by its seed, printed first, with
# the same options; tests/fuzz/README tells how to minimise one.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/userspace/tap.sh
. tests/userspace/tap.sh
# shellcheck source=tests/fuzz/lib.sh
. tests/fuzz/lib.sh

ko=
transport=loop
ops=1000000
seed=$(( (RANDOM << 15) | RANDOM ))
time_s=120
threads=4
procs=2
family=
dma=0
extra=()

usage() {
	echo "usage: ${0##*/} --ko PATH [--transport loop|ib|pair] [--ops N]" \
		"[--seed N] [--time S] [--threads N] [--procs N] [--family N]" \
		"[--dma] [-- RDS_FUZZ_OPTIONS...]" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--ko) ko=${2-}; shift 2 ;;
	--transport) transport=${2-}; shift 2 ;;
	--ops) ops=${2-}; shift 2 ;;
	--seed) seed=${2-}; shift 2 ;;
	--time) time_s=${2-}; shift 2 ;;
	--threads) threads=${2-}; shift 2 ;;
	--procs) procs=${2-}; shift 2 ;;
	--family) family=${2-}; shift 2 ;;
	--dma) dma=1; shift ;;
	--) shift; extra=("$@"); break ;;
	*) usage ;;
	esac
done
[ -n "$ko" ] || { echo "${0##*/}: --ko is required" >&2; exit 2; }
for v in "$ops" "$seed" "$time_s" "$threads" "$procs" ${family:+"$family"}; do
	[[ $v =~ ^[0-9]+$ ]] || usage
done

case $transport in
loop) addr=127.0.0.1; peer=127.0.0.2 ;;
ib) addr=$IB_ADDR; peer=$IB_PEER ;;
pair)
	addr=${RDSD_ADDR:-}; peer=${RDSD_PEER:-}
	if [ -z "$addr" ] || [ -z "$peer" ]; then
		echo "${0##*/}: --transport pair runs under tests/vm/pair" >&2
		exit 2
	fi
	[ "${RDSD_ROLE:-}" = b ] && seed=$((seed + 1)) ;;
*) usage ;;
esac

rerun="tests/fuzz/rds_fuzz.sh --ko $ko --transport $transport --ops $ops"
rerun+=" --seed $seed --time $time_s --threads $threads --procs $procs"
[ -n "$family" ] && rerun+=" --family $family"
[ "$dma" = 1 ] && rerun+=" --dma"
[ ${#extra[@]} -gt 0 ] && rerun+=" -- ${extra[*]}"
[ "$transport" = pair ] && [ "${RDSD_ROLE:-}" = b ] &&
	rerun+=" (host b: seed $((seed - 1)) given)"
diag "rds_fuzz: seed $seed, $transport ($addr, $peer), kernel $(uname -r)"
diag "rerun in a VM: $rerun"

out=$(make -s -C tests/fuzz rds_fuzz 2>&1)
check $? "rds_fuzz: build the fuzzer" "$out" || { tap_finish; exit; }
if [ "$transport" = ib ]; then
	rxe_setup rds_fuzz || { tap_finish; exit; }
fi
KO=$ko
params=(${family:+"family=$family"})
if [ "$dma" = 1 ]; then
	out=$(insmod "$(dirname "$ko")/rdsd_test_dma.ko" 2>&1)
	check $? "rds_fuzz: insmod rdsd_test_dma.ko" "$out" ||
		{ tap_finish; exit; }
	params+=(dma_send_min=0 dma_recv_min=0 dma_rdma_min=0)
fi
load_doca rds_fuzz "${params[@]}" || { tap_finish; exit; }
if [ "$transport" = pair ]; then
	check "$(status tests/vm/pair-barrier fuzz-loaded 120)" \
		"rds_fuzz: the peer loaded rds_doca too"
fi

# nobody needs a directory of its own to run in
work=$(mktemp -d)
chmod 0755 "$work"
args=(--addr "$addr" --peer "$peer" --seed "$seed" --ops "$ops"
      --time "$time_s" --threads "$threads" --procs "$procs")
[ -n "$family" ] && args+=(--family "$family")
# the fuzzer stops itself after --time; past this it is hung
SUITE_TIMEOUT=$((time_s + 180))
run_suite fuzz setpriv --reuid=65534 --regid=65534 --clear-groups -- \
	env -C "$work" "$PWD/tests/fuzz/rds_fuzz" "${args[@]}" "${extra[@]}"
rm -rf "$work"

if [ "$transport" = pair ]; then
	check "$(status tests/vm/pair-barrier fuzz-done "$SUITE_TIMEOUT")" \
		"rds_fuzz: the peer finished fuzzing"
fi
# what the module said, addresses and long numbers folded, most frequent
# first
msgs=$(dmesg | sed -n 's/^\[[ 0-9.]*\] rds_doca: //p' |
	sed -E 's/[0-9]+(\.[0-9]+){3}/A/g; s/[0-9]{4,}/N/g' | sort |
	uniq -c | sort -rn | head -n 15)
[ -n "$msgs" ] && diag "rds_doca's kernel messages:" "$msgs"
if [ -x tools/rdsctl/rdsctl ]; then
	diag "rds_doca counters after the run (non-zero):"
	tools/rdsctl/rdsctl stats 2>&1 | awk '$2 != 0' | column -c 78 |
		sed 's/^/#   /'
fi
# everything the fuzzer's sockets, regions and connections held is given
# back; a socket closed with messages queued to an address nobody answers
# stays until the attempt to reach it fails (rdma_cm gives up after about
# 75 s)
out=$(unload rds_doca 150)
if ! check $? "rds_fuzz: rmmod rds_doca afterwards" "$out"; then
	diag "module refcnt $(cat /sys/module/rds_doca/refcnt 2>&1)"
	if [ -x tools/rdsctl/rdsctl ]; then
		for what in sock conn mr; do
			diag "rdsctl $what:" \
				"$(tools/rdsctl/rdsctl $what 2>&1 | head -n 20)"
		done
	fi
	diag "processes of uid 65534:" \
		"$(ps -u 65534 -o pid,stat,wchan:32,comm 2>&1 | head -n 20)"
	# slow, or never?
	t0=$SECONDS
	for _ in $(seq 120); do
		sleep 1
		rmmod rds_doca 2>/dev/null && break
	done
	if loaded rds_doca; then
		diag "rds_doca still loaded $((SECONDS - t0)) s later"
	else
		diag "rds_doca unloaded $((SECONDS - t0)) s later"
	fi
fi
if [ "$dma" = 1 ]; then
	out=$(unload rdsd_test_dma)
	check $? "rds_fuzz: rmmod rdsd_test_dma afterwards" "$out"
fi
[ "$transport" = ib ] && rxe_teardown >/dev/null
tap_finish
