#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: two VMs (tests/vm/pair, Soft-RoCE on each) exchange RDS
# messages, RDMA operations and atomics for SOAK_SECS seconds through
# about a thousand sockets, while the link flaps, the rxe device is
# deleted and added again and host b reloads rds_doca
# (tests/soak/soak-guest.sh on each host, rds_soak the traffic).  Then
# every message from a socket that stayed open to a socket that stayed
# open must have arrived once and in order, every RDMA operation must
# have ended well or been dropped, and connections, regions, pinned
# pages and unreclaimable slab must be back where they were.
#
# Environment:
#   SOAK_SECS     length of the run (default 600)
#   SOAK_KERNEL   debug (default: the KASAN, lockdep and kmemleak kernel
#                 of tests/vm/build-debug-kernel) or stock (Debian's 6.12)
#   SOAK_ARGS     more options for soak-guest.sh (e.g. "--rate 500")
#   SOAK_LOG_DIR  where to keep the log (default: a new temporary one)
#   RDSD_CACHE    as for tests/vm/run
#
# Prints TAP: the checks of both hosts (prefixed "a: " and "b: " by the
# pair), then its own, a summary line and "N passed, N failed".  Exits
# non-zero if anything failed or a kernel reported a problem.

set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$top" || exit 1
export RDSD_CACHE=${RDSD_CACHE:-$HOME/.cache/rds_doca}
secs=${SOAK_SECS:-600}
kernel=${SOAK_KERNEL:-debug}
logdir=${SOAK_LOG_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/rdsd-soak.XXXXXX")}
# shellcheck source=tests/tally.sh
. tests/tally.sh

finish() {
	echo "# log in $logdir/soak.log"
	echo "$passed passed, $failed failed"
	[[ $failed -eq 0 ]]
	exit
}

# step NAME COMMAND...: a check that COMMAND succeeds, its output kept.
step() {
	local name=$1

	shift
	if "$@" >"$logdir/$name.log" 2>&1; then
		ok "$name"
		return 0
	fi
	not_ok "$name"
	sed 's/^/# /' "$logdir/$name.log" | tail -n 30
	return 1
}

[[ $secs =~ ^[0-9]+$ && $secs -ge 60 ]] ||
	{ echo "SOAK_SECS must be a number of seconds, 60 or more" >&2; exit 2; }
mkdir -p "$logdir"
echo "TAP version 13"
echo "# soak: $secs s on the $kernel kernel"

case $kernel in
debug)
	step "debug kernel" tests/vm/build-debug-kernel || finish
	dbg=$(tests/vm/build-debug-kernel 2>/dev/null)
	ver=$(cat "$dbg/build/include/config/kernel.release")
	kdir=$dbg/build
	# pci=noacpi: the AML interpreter is too slow under KASAN and TCG
	vm_opts=(--kernel "$dbg/bzImage" --modules "$dbg/modules" --mem 3072
		 --append pci=noacpi)
	slab_tol=160	# KASAN's quarantine holds freed objects a while
	# Two debug VMs on two cores carry about 70 messages a second each
	# way: at the stock kernel's rates the backlog outlasts the drain
	rates=(--rate 40 --rdma-rate 8)
	;;
stock)
	# shellcheck source=/dev/null
	. "$RDSD_CACHE/kernels.env"
	ver=$KVER_612
	kdir=/usr/src/linux-headers-$ver
	vm_opts=(--kernel "$ver")
	slab_tol=32
	rates=()
	;;
*)
	echo "SOAK_KERNEL must be debug or stock" >&2
	exit 2
	;;
esac

step "build rds_doca for $ver" make -s module KDIR="$kdir" BUILD="build/$ver" || finish
step "build rdsctl" make -s -C tools/rdsctl || finish
step "build rds_soak" make -s -C tests/soak || finish

log=$logdir/soak.log
t0=$(date +%s)
# shellcheck disable=SC2086 # SOAK_ARGS: options, split on purpose
tests/vm/pair "${vm_opts[@]}" --timeout $((secs + 1800)) \
	--log-dir "$logdir/console" -- \
	tests/soak/soak-guest.sh --ko "build/$ver/rds_doca.ko" --secs "$secs" \
	--slab-tol "$slab_tol" "${rates[@]}" ${SOAK_ARGS:-} 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
echo "# the pair ran $(( $(date +%s) - t0 )) s"

# Each host's closing line, with its exit status as the pair reports it.
declare -A st=()
read -r 'st[a]' 'st[b]' < <(sed -nE \
	's/^pair: host a exited with status ([0-9]+), host b with status ([0-9]+)$/\1 \2/p' "$log")
for r in a b; do
	line=$(grep -E "^$r: [0-9]+ passed, [0-9]+ failed" "$log" | tail -n 1)
	if [[ -z $line ]]; then
		not_ok "host $r: no result line (exit status ${st[$r]:-?})"
		continue
	fi
	read -r p f < <(sed -E 's/^.: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "# host $r: $p passed, $f failed"
	if [[ ${st[$r]:-1} == 99 ]]; then
		echo "# host $r: the kernel reported a problem (see KERNEL PROBLEMS IN DMESG above)"
	elif [[ ${st[$r]:-1} != 0 && $f == 0 ]]; then
		not_ok "host $r: exit status ${st[$r]:-none} with no failed check"
	fi
done
# 1 is a host's failed checks, counted above; anything else is the VM's
if [[ ${st[a]:-} =~ ^[01]$ && ${st[b]:-} =~ ^[01]$ ]]; then
	ok "both VMs ran to their end, no kernel report on either host"
else
	not_ok "both VMs ran to their end, no kernel report on either host" \
		"(pair status $status, host a ${st[a]:-none}, host b ${st[b]:-none})"
fi

# The summary: both hosts' figures side by side.
fig() {	# fig ROLE KEY: a value of the host's soak-stats or soak-host line
	sed -nE "s/^$1: (# soak-stats|soak-host): .*\\b$2=(-?[0-9]+).*/\\2/p" "$log" |
		tail -n 1
}
sum() {
	local a b

	a=$(fig a "$1")
	b=$(fig b "$1")
	echo $(( ${a:-0} + ${b:-0} ))
}
echo "# soak summary: $secs s, $kernel kernel $ver," \
	"sockets $(fig a sockets)+$(fig b sockets);" \
	"messages sent $(sum sent) received $(sum received) lost $(sum lost)" \
	"dup $(sum dup) reordered $(sum reordered) corrupt $(sum corrupt)" \
	"held-back $(sum held_cong);" \
	"RDMA ops $(sum rdma_ops): success $(sum rdma_success)" \
	"dropped $(sum rdma_dropped) remote-error-stale $(sum rdma_stale)" \
	"bad $(sum rdma_bad), checked $(sum rdma_checked)+$(sum owner_checked)" \
	"wrong $(( $(sum rdma_wrong) + $(sum owner_wrong) ));" \
	"flaps $(sum flaps), rxe re-adds $(sum rxe_readds), reloads $(sum reloads)," \
	"GSI repairs $(sum gsi_repairs);" \
	"slab delta a $(fig a slab_delta_kb) KiB b $(fig b slab_delta_kb) KiB" \
	"(tolerance $slab_tol MiB), pinned delta a $(fig a pinned_delta) b $(fig b pinned_delta)," \
	"connections a $(fig a conns) b $(fig b conns)"
finish
