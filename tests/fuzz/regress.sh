#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside a VM: the regression programs of what rds_fuzz found
# (tests/fuzz/regress_*.c), each as nobody, over the one-host Soft-RoCE
# topology of tests/userspace/run.sh; rds_doca must unload afterwards.
# Kernel reports fail the run through the VM harness.  Prints TAP and a
# closing "N passed, N failed" line.
#
#   tests/fuzz/regress.sh --ko PATH
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/userspace/tap.sh
. tests/userspace/tap.sh
# shellcheck source=tests/fuzz/lib.sh
. tests/fuzz/lib.sh

KO=
while [ $# -gt 0 ]; do
	case $1 in
	--ko) KO=${2-}; shift 2 ;;
	*) echo "usage: ${0##*/} --ko PATH" >&2; exit 2 ;;
	esac
done
[ -n "$KO" ] || { echo "${0##*/}: --ko is required" >&2; exit 2; }

# Each program and its arguments; a new one goes here.  The stray
# connection attempts of regress_ib_conn_memory hold the user's share of
# attempts for a minute: it goes last.  The programs of IDLE run first,
# on a module that reaps connections after conn_idle_secs=$IDLE (the
# others would see a reaped connection's peer reset mid-check).
IDLE=2
IDLE_REGRESS=(
	"regress_ib_idle_conns --addr $IB_ADDR --peer $IB_PEER --idle $IDLE"
)
REGRESS=(
	"regress_ib_rdma_port0 --addr $IB_ADDR --peer $IB_PEER"
	"regress_ib_conn_memory --addr $IB_ADDR --net 203.0.113.0 --count 126"
)

progs=()
for r in "${IDLE_REGRESS[@]}" "${REGRESS[@]}"; do
	progs+=("${r%% *}")
done
out=$(make -s -C tests/fuzz "${progs[@]}" 2>&1)
check $? "regress: build the programs" "$out" || { tap_finish; exit; }
rxe_setup regress || { tap_finish; exit; }
SUITE_TIMEOUT=120

# run_all PROGRAM...: each, as nobody
run_all() {
	local r cmd

	for r in "$@"; do
		read -ra cmd <<<"$r"
		run_suite "${cmd[0]}" setpriv --reuid=65534 --regid=65534 \
			--clear-groups -- "$PWD/tests/fuzz/${cmd[0]}" \
			"${cmd[@]:1}"
	done
}

if load_doca regress conn_idle_secs=$IDLE; then
	run_all "${IDLE_REGRESS[@]}"
	out=$(unload rds_doca 30)
	check $? "regress: rmmod rds_doca after the idle programs" "$out"
fi
load_doca regress || { tap_finish; exit; }
run_all "${REGRESS[@]}"
# a socket closed with messages queued to peers that do not answer stays
# until the first attempt to reach them fails (rdma_cm gives up after
# about 75 s), and with it the module
t0=$SECONDS
out=$(unload rds_doca 150)
check $? "regress: rmmod rds_doca afterwards ($((SECONDS - t0)) s)" "$out"
rxe_teardown >/dev/null
tap_finish
