#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDS between two hosts, over Soft-RoCE: runs on both hosts of a VM pair,
# the same command on each (tests/vm/pair sets RDSD_ROLE, RDSD_ADDR,
# RDSD_PEER and their IPv6 forms), each side checking what it sees:
#
#   roundtrip  an echo server and a client on each host, round trips of
#              0 bytes to 1 MiB and a pipelined burst, both ways at once
#   order      sequenced streams from many sockets and threads, both ways
#              at once (rds_order_test --role send / --role recv)
#   fanin      many sender sockets on a into one receiver on b
#   reload-a   a streams sequenced messages to b, stops after an
#              acknowledgement from b, closes, reloads its RDS module and
#              streams the rest; b's receiver, which stayed up, must get
#              every message once and in order
#   reload-b   the same with b reloading and a receiving
#   rdma       (doca, doca-tcp: Linux RDS refuses RDS_GET_MR on
#              Soft-RoCE, and RDMA over TCP)
#              a registers memory and hands b the cookies; b reads,
#              writes and applies atomics through them, then finds a
#              freed and a used-up cookie refused
#   rdma-cong  (doca, doca-tcp) each host sends the other messages behind RDMA
#              writes with RDS_RDMA_NOTIFY_ME into a region of the
#              other's, while it reads the other's messages slowly
#              through a small receive buffer: each port turns congested
#              and back while the same socket's operations complete, so
#              lockdep sees a send completion queue a notice and a
#              congestion change reach the IB transport, both at once
#
# Stages: "rds" runs them over Linux RDS (rds_rdma, family 21) as the
# reference, "doca" over rds_doca; "doca-tcp" over rds_doca's TCP
# transport (SO_RDS_TRANSPORT on every socket, the RDMA device beside
# it unused) and "rds-tcp" over Linux rds_tcp, the roundtrip, order,
# fan-in and reload tests, and for doca-tcp the RDMA tests (run in
# software by the region's owner) and rdsctl; "doca6" and "doca6-tcp"
# run doca's and doca-tcp's tests between the hosts' IPv6 addresses
# (RDSD_ADDR6, RDSD_PEER6; over RoCE, rdma_cm resolves their IPv6
# GIDs).  Output is TAP, the checks
# of the programs renumbered and prefixed; the last line is
# "N passed, N failed".
#
#	tests/vm/pair -- tests/userspace/cross_host.sh [options]

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BARRIER=$HERE/../vm/pair-barrier
XHOST=$HERE/rds_xhost_test
RDSCTL=$HERE/../../tools/rdsctl/rdsctl
ORDER=$HERE/rds_order_test
KO=build/$(uname -r)/rds_doca.ko
STAGES=()
MESSAGES=4000
SUITE_TIMEOUT=${SUITE_TIMEOUT:-300}
# shellcheck source=tests/userspace/tap.sh
. "$HERE/tap.sh"
# Ports of the tests (each also uses some above its own).
PORT_ECHO=5000
PORT_ORDER=6000
PORT_FANIN=6200
PORT_RELOAD_A=7000
PORT_RELOAD_B=7100
PORT_RDMA=7200
PORT_RDMA_CONG=7300

usage() {
	cat <<EOF
usage: ${0##*/} [--ko PATH] [--stage rds|doca]... [--messages N]
  --ko PATH     rds_doca module (default: build/\$(uname -r)/rds_doca.ko)
  --stage NAME  run only the named stages (repeatable; default: rds doca;
                also doca-tcp, rds-tcp, and doca6, doca6-tcp: rds_doca
                between the hosts' IPv6 addresses)
  --messages N  messages per direction of the order test (default $MESSAGES);
                the fan-in sends N/2, the reload tests N/8
Runs inside a VM pair: tests/vm/pair -- ${0##*/} ...
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--ko)		KO=${2?--ko needs a path}; shift ;;
	--stage)	STAGES+=("${2?--stage needs a name}"); shift ;;
	--messages)	MESSAGES=${2?--messages needs a number}; shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done
[[ ${#STAGES[@]} -gt 0 ]] || STAGES=(rds doca)
[[ $MESSAGES =~ ^[0-9]+$ && $MESSAGES -ge 16 ]] || { usage >&2; exit 2; }

ROLE=${RDSD_ROLE:-}
ADDR=${RDSD_ADDR:-}
PEER=${RDSD_PEER:-}
ADDR6=${RDSD_ADDR6:-}
PEER6=${RDSD_PEER6:-}
if [[ -z $ROLE || -z $ADDR || -z $PEER || -z ${RDSD_PAIR_DIR:-} ]]; then
	echo "${0##*/}: run me on both hosts of tests/vm/pair" >&2
	exit 2
fi

tmp=$(mktemp -d)
declare -A pid=() cmd=()

loaded() { [[ -d /sys/module/$1 ]]; }

# unload MODULE...: as run.sh does, give closed sockets a moment to go.
unload() {
	local m out

	for m in "$@"; do
		for _ in $(seq 20); do
			loaded "$m" || break
			out=$(rmmod "$m" 2>&1) && break
			sleep 0.5
		done
		if loaded "$m"; then
			echo "$out"
			return 1
		fi
	done
}

# The modules of a stage, in unload order.
stage_modules() {
	case $1 in
	rds)		echo rds_rdma rds ;;
	rds-tcp)	echo rds_tcp rds ;;
	doca*)		echo rds_doca ;;
	esac
}

load_stage_module() {
	case $1 in
	rds)		modprobe rds_rdma ;;
	rds-tcp)	modprobe rds_tcp ;;
	doca*)		modprobe rdma_cm && insmod "$KO" ;;
	esac
}

# sync NAME: meet the peer (tests/vm/pair-barrier); a check if it fails.
sync_peer() {
	local out

	out=$("$BARRIER" "$stage-$1" 2>&1) && return 0
	check 1 "$stage: the peer reached $1" "$out"
	return 1
}

# start NAME COMMAND...: run a TAP program in the background.
start() {
	local name=$1

	shift
	cmd[$name]="$*"
	timeout -k 10 "$SUITE_TIMEOUT" "$@" >"$tmp/$name.log" 2>&1 &
	pid[$name]=$!
}

# wait_ready NAME: until the program said it is ready, or ended.
wait_ready() {
	until grep -qE '^# (receivers )?ready$' "$tmp/$1.log" 2>/dev/null; do
		kill -0 "${pid[$1]}" 2>/dev/null || return 1
		sleep 0.2
	done
}

# fold NAME: wait for the program, then take its checks into ours,
# renumbered and prefixed with the stage and NAME.  It must end with a
# closing line that agrees with its checks, and exit 0 only if none failed.
# (tap.sh's run_suite does the same for a program in the foreground; the
# programs here run in the background, both ends at once.)
fold() {
	local name=$1 rc=0 line p=0 f=0 closing=''

	wait "${pid[$name]}" || rc=$?
	unset "pid[$name]"
	diag "$stage: $name: ${cmd[$name]}"
	while IFS= read -r line; do
		if [[ $line =~ ^(not )?ok\ [0-9]+\ -\ (.*)$ ]]; then
			if [[ -z ${BASH_REMATCH[1]} ]]; then
				p=$((p + 1))
				check 0 "$stage: $name: ${BASH_REMATCH[2]}"
			else
				f=$((f + 1))
				check 1 "$stage: $name: ${BASH_REMATCH[2]}"
			fi
		elif [[ $line =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]]; then
			closing=$line
		else
			printf '%s\n' "$line"
		fi
	done <"$tmp/$name.log"
	if [[ $closing != "$p passed, $f failed" ]]; then
		check 1 "$stage: $name: ran to a closing line that matches its checks" \
			"closing line: '$closing', counted $p passed, $f failed," \
			"exit status $rc (124: killed after ${SUITE_TIMEOUT}s)"
	elif [[ $f == 0 && $rc != 0 || $f != 0 && $rc == 0 ]]; then
		check 1 "$stage: $name: exit status $rc agrees with its checks"
	fi
}

# The two ends of a test run the same program with these in common.
common() {
	printf '%s\n' --family "$family" --impl "$impl" --addr "$ADDR" \
		--peer "$PEER"
	[[ -z $v6 ]] ||
		printf '%s\n' --ipv6 --addr6 "$ADDR6" --peer6 "$PEER6"
	[[ -z $transport ]] ||
		printf '%s\n' --transport "$transport" --force-transport
	[[ -z $transport || -z $v6 ]] || printf '%s\n' --transport6 "$transport"
}

test_roundtrip() {
	local -a c

	mapfile -t c < <(common)
	start echo "$XHOST" "${c[@]}" --mode echo --port "$PORT_ECHO"
	wait_ready echo
	sync_peer roundtrip || return
	start ping "$XHOST" "${c[@]}" --mode ping --port "$PORT_ECHO"
	fold ping
	fold echo
}

test_rdma() {
	local -a c

	mapfile -t c < <(common)
	if [[ $ROLE == a ]]; then
		start rdma-owner "$XHOST" "${c[@]}" --mode rdma-owner \
			--port "$PORT_RDMA"
		wait_ready rdma-owner
		sync_peer rdma || return
		fold rdma-owner
	else
		sync_peer rdma || return
		start rdma-user "$XHOST" "${c[@]}" --mode rdma-user \
			--port "$PORT_RDMA"
		fold rdma-user
	fi
}

test_rdma_cong() {
	local -a c

	mapfile -t c < <(common)
	start rdma-cong "$XHOST" "${c[@]}" --mode rdma-cong \
		--port "$PORT_RDMA_CONG" --count "$MESSAGES"
	wait_ready rdma-cong
	sync_peer rdma-cong || return
	fold rdma-cong
}

# test_ctl: each host pings the other's kernel with rdsctl (over IB, the
# address's own transport), and shows the connection of the stage's
# transport between them.
test_ctl() {
	local out rc

	sync_peer ctl || return
	out=$("$RDSCTL" ping "$peer" -I "$addr" -c 3 -W 10 2>&1)
	rc=$?
	check "$(status test "$rc" = 0 -a "$(grep -c 'reply from' <<<"$out")" = 3)" \
		"$stage: rdsctl ping $peer: 3 replies" "exit $rc: $out"
	out=$("$RDSCTL" -j conn show peer "$peer" state up 2>&1)
	check "$(status python3 -c '
import json, sys
t = sys.argv[2]
c = [x for x in json.loads(sys.argv[1]) if x["transport"] == t]
sys.exit(not (len(c) == 1 and
              c[0]["tx_msgs"] > 0 and (t != "ib" or c[0]["qpn"] > 0)))' \
		"$out" "${transport:-ib}")" \
		"$stage: rdsctl shows the connection to $peer up, over ${transport:-ib}" \
		"$out"
	sync_peer ctl-done
}

# order_test NAME RECEIVING-ROLES PORT ARGS...: rds_order_test's first
# phase split over the hosts; receivers on the roles named.
order_test() {
	local name=$1 recv_roles=$2 port=$3
	local -a c

	shift 3

	mapfile -t c < <(common)
	c+=(--port "$port" --idle-timeout 60 "$@")
	if [[ $recv_roles == *$ROLE* ]]; then
		start "$name-recv" "$ORDER" "${c[@]}" --role recv
		wait_ready "$name-recv"
	fi
	sync_peer "$name" || return
	if [[ $recv_roles == *$RDSD_PEER_ROLE* ]]; then
		start "$name-send" "$ORDER" "${c[@]}" --role send
		fold "$name-send"
	fi
	[[ $recv_roles != *$ROLE* ]] || fold "$name-recv"
}

# reload_test NAME RELOADING-ROLE PORT: the sender's host reloads its
# module halfway through a stream.
reload_test() {
	local name=$1 who=$2 port=$3 n k out
	local -a c

	n=$((MESSAGES / 8))
	k=$((n / 2))
	mapfile -t c < <(common)
	if [[ $ROLE != "$who" ]]; then
		start "$name-recv" "$XHOST" "${c[@]}" --mode stream-recv \
			--port "$port" --sport $((port + 2)) --count "$n" \
			--ack-at "$k"
		wait_ready "$name-recv"
		sync_peer "$name" || return
		fold "$name-recv"
		return
	fi
	c+=(--port $((port + 2)) --dport "$port")
	sync_peer "$name" || return
	start "$name-send" "$XHOST" "${c[@]}" --mode stream-send \
		--from 0 --to "$k"
	fold "$name-send"
	# shellcheck disable=SC2046 # a list of module names
	out=$(unload $(stage_modules "$stage") 2>&1)
	check $? "$stage: $name: unload the module with the peer connected" \
		"$out" || return
	out=$(load_stage_module "$stage" 2>&1)
	check $? "$stage: $name: load it again" "$out" || return
	start "$name-resend" "$XHOST" "${c[@]}" --mode stream-send \
		--from "$k" --to "$n"
	fold "$name-resend"
}

# timed COMMAND...: run it, then say how long it took.
timed() {
	local t0=$SECONDS

	"$@"
	diag "$stage: ${*:1:2} took $((SECONDS - t0)) s"
}

run_stage() {
	local out

	transport='' v6='' addr=$ADDR peer=$PEER
	case $stage in
	rds)		family=21 impl=rds ;;
	rds-tcp)	family=21 impl=rds transport=tcp ;;
	doca)		family='' impl=doca ;;
	doca-tcp)	family='' impl=doca transport=tcp ;;
	doca6)		family='' impl=doca v6=1 ;;
	doca6-tcp)	family='' impl=doca transport=tcp v6=1 ;;
	*)		check 1 "unknown stage $stage"; return ;;
	esac
	if [[ -n $v6 ]]; then
		addr=$ADDR6 peer=$PEER6
		if [[ -z $addr || -z $peer ]]; then
			check 1 "$stage: IPv6 addresses (RDSD_ADDR6, RDSD_PEER6)"
			return
		fi
	fi
	diag "stage $stage on host $ROLE ($addr), peer $peer"
	if [[ $stage == doca* && ! -f $KO ]]; then
		check 1 "doca: module $KO exists"
		sync_peer loaded
		return
	fi
	out=$(load_stage_module "$stage" 2>&1)
	if ! check $? "$stage: load the module" "$out"; then
		sync_peer loaded
		return
	fi
	[[ -n $family ]] || family=$(cat /sys/module/rds_doca/parameters/family)
	sync_peer loaded || return

	timed test_roundtrip
	timed order_test order ab "$PORT_ORDER" --messages "$MESSAGES"
	timed order_test fanin b "$PORT_FANIN" --messages $((MESSAGES / 2)) \
		--senders 32 --threads 1 --receivers 1
	timed reload_test reload-a a "$PORT_RELOAD_A"
	timed reload_test reload-b b "$PORT_RELOAD_B"
	[[ $stage != doca* ]] || timed test_rdma
	[[ $stage != doca* ]] || timed test_rdma_cong
	[[ $stage != doca* ]] || timed test_ctl

	sync_peer end || return
	# shellcheck disable=SC2046 # a list of module names
	out=$(unload $(stage_modules "$stage") 2>&1)
	check $? "$stage: unload the module" "$out"
}

echo "# cross-host RDS tests on host $ROLE, $(uname -r)"
for m in rds_doca rds_rdma rds_tcp rds; do
	if loaded "$m"; then
		out=$(unload "$m")
		check $? "setup: unload $m" "$out"
	fi
done
if make -q -s -C "$HERE" rds_order_test rds_xhost_test 2>/dev/null; then
	for stage in "${STAGES[@]}"; do
		run_stage
		# shellcheck disable=SC2046 # a list of module names
		unload $(stage_modules "$stage") >/dev/null 2>&1
	done
else
	check 1 "the test programs are built and current" \
		"run 'make tests' on the host first"
fi
for name in "${!pid[@]}"; do
	kill "${pid[$name]}" 2>/dev/null
done
rm -rf "$tmp"
tap_finish
