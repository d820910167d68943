#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One host of the soak test (tests/soak/soak.sh starts it on both hosts of
# tests/vm/pair): load rds_doca, run rds_soak for --secs seconds while
# the link flaps, the Soft-RoCE device goes and comes back and host b
# reloads the module, then drain, check what arrived against the peer's
# ledger, and check that connections, registrations, pinned pages and
# unreclaimable slab are back where they were.
#
# Events, seconds after the start (both hosts count from one barrier):
#
#   link flap       every --flap-every s (30): ip link set NIC down, up
#                   a few seconds later; odd ones on a, even ones on b
#   rxe re-add      at 45 s and every --rxe-every s (120) after:
#                   rdma link delete rxe0, rdma link add rxe0 again;
#                   alternately on a and b
#   module reload   at 75 s and every --reload-every s (180) after, on
#                   b: close its sockets, rmmod, insmod, open them again
#
# Soft-RoCE moves a queue pair whose packet it cannot route to the error
# state, its GSI queue pair (connection manager messages) included, and
# nothing brings that one back: a connection manager retry that falls in
# a flap's down time leaves the device unable to make connections for
# good (see rdsd_ib_path_usable()).  A device would not do that, so after
# each flap the GSI queue pair's state is read (rdma resource show qp
# lqpn 1); if it is ERR, the device is re-added as a repair, counted in
# gsi_repairs, not as an event.
#
# No two events of one host fall in the same second; a host runs its
# events one after the other, so a slow one delays the next (flaps more
# than half a period late are left out).  Output is TAP, the generator's
# checks folded in; the last line is "N passed, N failed".  A "soak-host:"
# line gives the events and the deltas for the summary.
#
#	tests/vm/pair -- tests/soak/soak-guest.sh --ko PATH [options]

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BARRIER=$TOP/tests/vm/pair-barrier
SOAK=$HERE/rds_soak
RDSCTL=$TOP/tools/rdsctl/rdsctl
KMEMLEAK=$TOP/tests/vm/kmemleak-check.sh
# shellcheck source=tests/userspace/tap.sh
. "$TOP/tests/userspace/tap.sh"

KO=build/$(uname -r)/rds_doca.ko
SECS=600
SOCKETS=512
RATE=300
RDMA_RATE=40
DRAIN=180
IDLE=5
SLAB_TOL_MB=32
FLAP_EVERY=30
FLAP_DOWN=3
RXE_EVERY=120
RELOAD_EVERY=180
PORT_BASE=20000

usage() {
	cat <<EOF
usage: ${0##*/} --ko PATH [--secs S] [--sockets N] [--rate MSGS/S]
          [--rdma-rate OPS/S] [--drain S] [--idle S] [--slab-tol MB]
          [--flap-every S] [--rxe-every S] [--reload-every S]
  --ko PATH       rds_doca module (default build/\$(uname -r)/rds_doca.ko)
  --secs S        length of the run (default $SECS)
  --sockets N     sockets per host (default $SOCKETS)
  --rate N        messages a second per host (default $RATE)
  --rdma-rate N   RDMA operations a second per host (default $RDMA_RATE)
  --drain S       longest wait for what is missing at the end ($DRAIN)
  --idle S        the module's conn_idle_secs (default $IDLE)
  --slab-tol MB   tolerated growth of SUnreclaim (default $SLAB_TOL_MB)
Runs inside a VM pair: tests/vm/pair -- ${0##*/} ...
EOF
}

num() {
	[[ ${2:-} =~ ^[0-9]+$ ]] || { echo "$1 needs a number" >&2; exit 2; }
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--ko)		KO=${2?--ko needs a path}; shift ;;
	--secs)		num "$1" "${2:-}"; SECS=$2; shift ;;
	--sockets)	num "$1" "${2:-}"; SOCKETS=$2; shift ;;
	--rate)		num "$1" "${2:-}"; RATE=$2; shift ;;
	--rdma-rate)	num "$1" "${2:-}"; RDMA_RATE=$2; shift ;;
	--drain)	num "$1" "${2:-}"; DRAIN=$2; shift ;;
	--idle)		num "$1" "${2:-}"; IDLE=$2; shift ;;
	--slab-tol)	num "$1" "${2:-}"; SLAB_TOL_MB=$2; shift ;;
	--flap-every)	num "$1" "${2:-}"; FLAP_EVERY=$2; shift ;;
	--rxe-every)	num "$1" "${2:-}"; RXE_EVERY=$2; shift ;;
	--reload-every)	num "$1" "${2:-}"; RELOAD_EVERY=$2; shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done

ROLE=${RDSD_ROLE:-}
ADDR=${RDSD_ADDR:-}
PEER=${RDSD_PEER:-}
NIC=${RDSD_NETDEV:-}
DEV=${RDSD_RDMA_DEV:-rxe0}
if [[ -z $ROLE || -z $ADDR || -z $PEER || -z $NIC || -z ${RDSD_PAIR_DIR:-} ]]; then
	echo "${0##*/}: run me on both hosts of tests/vm/pair" >&2
	exit 2
fi

tmp=$(mktemp -d)
log=$tmp/soak.log
soak_pid=
tail_pid=
ctl=
flaps=0
rxe_readds=0
reloads=0
gsi_repairs=0
event_fail=0

# ---- measurements ----

slab_kb() { awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo; }

# Pages pinned with FOLL_PIN (RDMA regions and operations) right now.
pinned() {
	awk '/^nr_foll_pin_acquired / { a = $2 } /^nr_foll_pin_released / { r = $2 }
	     END { print a - r }' /proc/vmstat
}

# count OBJECT: how many the module shows (rdsctl -j OBJECT show), -1 if
# it cannot tell.
count() {
	"$RDSCTL" -j "$1" show 2>/dev/null |
		python3 -c 'import json, sys; print(len(json.load(sys.stdin)))' \
		2>/dev/null || echo -1
}

loaded() { [[ -d /sys/module/rds_doca ]]; }

load() {
	modprobe rdma_cm && insmod "$KO" conn_idle_secs="$IDLE"
}

# unload [SECONDS]: rmmod until it works (closed sockets hold the module
# until their connections let go of their messages).
unload() {
	local deadline=$((SECONDS + ${1:-120})) out

	while loaded; do
		out=$(rmmod rds_doca 2>&1) && return 0
		if ((SECONDS >= deadline)); then
			echo "$out"
			return 1
		fi
		sleep 1
	done
}

rxe_active() {
	rdma link show "$DEV/1" 2>/dev/null | grep -q 'state ACTIVE'
}

wait_active() {
	local i

	for ((i = 0; i < 300; i++)); do
		rxe_active && return 0
		sleep 0.1
	done
	return 1
}

# The connections, for the log.
show_conns() {
	"$RDSCTL" -d conn show 2>&1 | sed 's/^/#   /'
}

# ---- the generator ----

# cmd COMMAND [TIMEOUT]: send it to rds_soak, wait for its "# ack".
cmd() {
	local c=$1 n deadline=$((SECONDS + ${2:-300}))

	[[ -n $ctl ]] || return 1
	n=$(grep -cxF "# ack $c" "$log")
	echo "$c" >&"$ctl" || return 1
	while (($(grep -cxF "# ack $c" "$log") <= n)); do
		kill -0 "$soak_pid" 2>/dev/null || return 1
		((SECONDS < deadline)) || return 1
		sleep 0.2
	done
}

start_soak() {
	mkfifo "$tmp/ctl" || return 1
	"$SOAK" --addr "$ADDR" --peer "$PEER" --role "$ROLE" \
		--sockets "$SOCKETS" --port-base "$PORT_BASE" --rate "$RATE" \
		--rdma-rate "$RDMA_RATE" --drain "$DRAIN" \
		--ledger "$RDSD_PAIR_DIR/ledger.$ROLE" <"$tmp/ctl" >"$log" 2>&1 &
	soak_pid=$!
	exec {ctl}>"$tmp/ctl"
	# its diagnostics as they come (tail ends with it: a process left
	# behind would hold the console's pipe open)
	tail -n +1 --pid="$soak_pid" -f "$log" 2>/dev/null | grep --line-buffered '^# ' |
		sed -u 's/^# /# rds_soak: /' &
	tail_pid=$!
	until grep -qx '# ready' "$log"; do
		kill -0 "$soak_pid" 2>/dev/null || return 1
		sleep 0.2
	done
}

# Fold rds_soak's checks into ours, with a check that it ran to its end.
fold_soak() {
	local rc=0 line p=0 f=0 closing=''

	[[ -z $ctl ]] || exec {ctl}>&-
	ctl=
	wait "$soak_pid" || rc=$?
	wait "$tail_pid"
	tail_pid=
	while IFS= read -r line; do
		if [[ $line =~ ^(not )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			if [[ -z ${BASH_REMATCH[1]} ]]; then
				p=$((p + 1))
				check 0 "rds_soak: ${BASH_REMATCH[2]}"
			else
				f=$((f + 1))
				check 1 "rds_soak: ${BASH_REMATCH[2]}"
			fi
		elif [[ $line =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
			closing=$line
		elif [[ $line == "# soak-stats: "* ]]; then
			printf '%s\n' "$line"
		fi
	done <"$log"
	if [[ $closing != "$p passed, $f failed" ]] ||
	   { [[ $f == 0 ]] && [[ $rc != 0 ]]; } ||
	   { [[ $f != 0 ]] && [[ $rc == 0 ]]; }; then
		check 1 "rds_soak ran to a closing line that matches its checks" \
			"closing line '$closing', counted $p passed, $f failed, exit status $rc"
	fi
}

# ---- events ----

flap() {
	local out t0=$SECONDS

	flaps=$((flaps + 1))
	out=$({ ip link set dev "$NIC" down && sleep "$FLAP_DOWN" &&
		ip link set dev "$NIC" up; } 2>&1)
	wait_active || out+=" $DEV not ACTIVE 30 s after the link came up"
	check "$(status test -z "$out")" \
		"flap $flaps: $NIC down for ${FLAP_DOWN} s and up, $DEV ACTIVE again ($((SECONDS - t0)) s)" \
		"$out" || event_fail=$((event_fail + 1))
	gsi_repair
}

# The state of the device's GSI queue pair (RTS when it works).
gsi_state() {
	rdma resource show qp link "$DEV/1" lqpn 1 2>/dev/null |
		sed -nE 's/.* state ([A-Z]+) .*/\1/p'
}

# Re-add the device if a flap left its GSI queue pair in the error state.
gsi_repair() {
	local out state

	state=$(gsi_state)
	[[ $state == ERR ]] || return 0
	gsi_repairs=$((gsi_repairs + 1))
	diag "$DEV's GSI queue pair is in state $state after the flap: re-adding $DEV (repair $gsi_repairs)"
	out=$(readd_dev)
	check "$(status test -z "$out")" \
		"GSI repair $gsi_repairs: $DEV re-added, regions registered again" \
		"$out" || event_fail=$((event_fail + 1))
}

# Delete the rxe device, add it again, have rds_soak register its regions
# again; prints what went wrong.
readd_dev() {
	local out

	out=$({ timeout 180 rdma link delete "$DEV" && sleep 2 &&
		rdma link add "$DEV" type rxe netdev "$NIC"; } 2>&1)
	wait_active || out+=" $DEV not ACTIVE 30 s after it was added"
	cmd rereg || out+=" rds_soak did not register its regions again"
	printf '%s' "$out"
}

rxe_readd() {
	local out t0=$SECONDS

	rxe_readds=$((rxe_readds + 1))
	out=$(readd_dev)
	check "$(status test -z "$out")" \
		"rxe re-add $rxe_readds: $DEV deleted and added on $NIC, regions registered again ($((SECONDS - t0)) s)" \
		"$out" || event_fail=$((event_fail + 1))
}

reload() {
	local out='' t0=$SECONDS t1

	reloads=$((reloads + 1))
	cmd pause || out="rds_soak did not close its sockets"
	t1=$SECONDS
	out+=$(unload 240 2>&1) || out+=" (rmmod still failing after 240 s)"
	out+=$(load 2>&1) || out+=" (insmod failed)"
	cmd resume || out+=" rds_soak did not open its sockets again"
	check "$(status test -z "$out")" \
		"reload $reloads: sockets closed, rds_doca unloaded ($((SECONDS - t1)) s after the close), loaded, sockets open again ($((SECONDS - t0)) s)" \
		"$out" || event_fail=$((event_fail + 1))
}

# This host's events, "SECOND NAME" a line, in time order.
schedule() {
	local t n=1 m=0

	for ((t = FLAP_EVERY; t < SECS; t += FLAP_EVERY, n++)); do
		if (( n % 2 )); then [[ $ROLE == a ]] && echo "$t flap"
		else [[ $ROLE == b ]] && echo "$t flap"; fi
	done
	for ((t = 45; t < SECS; t += RXE_EVERY, m++)); do
		if (( m % 2 )); then [[ $ROLE == b ]] && echo "$t rxe_readd"
		else [[ $ROLE == a ]] && echo "$t rxe_readd"; fi
	done
	if [[ $ROLE == b ]]; then
		for ((t = 75; t < SECS; t += RELOAD_EVERY)); do
			echo "$t reload"
		done
	fi
}

run_events() {
	local t ev t0=$SECONDS

	while read -r t ev; do
		while ((SECONDS - t0 < t)); do
			sleep 0.5
		done
		# a flap that an earlier event held up is left out
		if [[ $ev == flap ]] && ((SECONDS - t0 > t + FLAP_EVERY / 2)); then
			diag "t=$((SECONDS - t0)) s: flap of t=$t s left out (late)"
			continue
		fi
		diag "t=$((SECONDS - t0)) s: $ev"
		"$ev"
		show_conns
	done < <(schedule | sort -n)
	while ((SECONDS - t0 < SECS)); do
		sleep 0.5
	done
}

cleanup() {
	[[ -z $ctl ]] || exec {ctl}>&-
	[[ -z $soak_pid ]] || kill "$soak_pid" 2>/dev/null
	[[ -z $tail_pid ]] || kill "$tail_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

# ---- the run ----

echo "# soak on host $ROLE ($ADDR, $NIC, $DEV), $(uname -r), $SECS s"
if loaded; then
	out=$(unload 60)
	check $? "setup: unload rds_doca" "$out"
fi
out=$(load 2>&1)
if ! check $? "load $KO conn_idle_secs=$IDLE" "$out"; then
	"$BARRIER" soak-loaded
	tap_finish
	exit
fi
sleep 1
sync
echo 3 >/proc/sys/vm/drop_caches
slab0=$(slab_kb)
pinned0=$(pinned)
conns0=$(count conn)
diag "baseline: SUnreclaim $slab0 KiB, $pinned0 pinned pages, $conns0 connections"
"$BARRIER" soak-loaded 600 || { check 1 "the peer loaded rds_doca"; tap_finish; exit; }

if ! start_soak; then
	check 1 "rds_soak bound its sockets" "$(tail -n 20 "$log")"
	"$BARRIER" soak-ready
	tap_finish
	exit
fi
"$BARRIER" soak-ready 600 || check 1 "the peer's rds_soak is ready"
cmd go
t_start=$SECONDS
run_events
diag "run over after $((SECONDS - t_start)) s: stop sending"
show_conns
cmd stop 120 || check 1 "rds_soak stopped and wrote its ledger"
"$BARRIER" soak-stopped 900 || check 1 "the peer stopped sending"
cmd "check $RDSD_PAIR_DIR/ledger.$RDSD_PEER_ROLE" $((DRAIN + 300)) ||
	check 1 "rds_soak checked the peer's ledger"
fold_soak
# both hosts' sockets closed before the connections may go idle
"$BARRIER" soak-checked 900 || check 1 "the peer finished its checks"

# Back to where it started, once idle connections are reaped: the count
# must stay there for three idle periods (the peer's reaper may make
# this end connect again once).
t0=$SECONDS
since=$SECONDS
seen=
while (( SECONDS - t0 < IDLE * 6 + 180 )); do
	conns=$(count conn)
	[[ $conns == "${seen##* }" ]] || seen+=" $conns"
	[[ $conns == "$conns0" ]] || since=$SECONDS
	(( SECONDS - since >= IDLE * 3 )) && break
	sleep 1
done
show_conns
check "$(status test "$conns" = "$conns0")" \
	"connections back to $conns0 for $((IDLE * 3)) s (now $conns, $((SECONDS - t0)) s after the sockets closed; counts seen:$seen)" \
	"$("$RDSCTL" conn show 2>&1)"
diag "the module's last kernel messages:"
dmesg | grep -E 'rds_doca|rxe' | tail -n 30 | sed 's/^/#   /'
diag "the module's counters:"
"$RDSCTL" stats show 2>&1 | grep -v ' 0$' | sed 's/^/#   /'
mrs=$(count mr)
check "$(status test "$mrs" = 0)" "no registered region left ($mrs)" \
	"$("$RDSCTL" mr show 2>&1)"
sleep 2
sync
echo 3 >/proc/sys/vm/drop_caches
slab=$(slab_kb)
pins=$(pinned)
slab_delta=$((slab - slab0))
pinned_delta=$((pins - pinned0))
check "$(status test "$pinned_delta" -eq 0)" \
	"pinned pages back to $pinned0 (now $pins)"
check "$(status test "$slab_delta" -le $((SLAB_TOL_MB * 1024)))" \
	"SUnreclaim within $SLAB_TOL_MB MiB of $slab0 KiB (now $slab KiB, $slab_delta KiB more)"
out=$(unload 120)
check $? "unload rds_doca at the end" "$out"
check "$(status test "$event_fail" = 0)" "every event went through ($event_fail failed)"
if [[ -w /sys/kernel/debug/kmemleak ]]; then
	run_suite kmemleak "$KMEMLEAK"
fi
echo "soak-host: role=$ROLE flaps=$flaps rxe_readds=$rxe_readds reloads=$reloads gsi_repairs=$gsi_repairs" \
	"slab_delta_kb=$slab_delta pinned_delta=$pinned_delta conns=$conns" \
	"conns0=$conns0 sockets=$SOCKETS"
tap_finish
