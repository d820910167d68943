#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rds_doca's trace events (events/rds_doca/ in tracefs): every one is
# defined, its format names no unresolved enum, and a connection, a
# message and RDMA operations produce theirs, with the right addresses.
# The events are read through a tracing instance of the test's own, so
# the global buffer is left alone.
#
# Over loopback (the default) two fresh 127/8 addresses make a new
# connection.  Over IB (--transport ib with --addr and --peer, on the
# same host) the connection --addr -> --peer is brought up, then dropped
# with rdsctl, so that it goes down and comes up again under the trace.
# With --ipv6 there, A and B are IPv6 addresses.
#
# usage: trace_test.sh --family N [--addr A --peer B --transport ib [--ipv6]]

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$HERE/tap.sh"

STREAM=$HERE/rds_stream_test
RDMA=$HERE/rds_rdma_test
RDSCTL=$HERE/../../tools/rdsctl/rdsctl
FAMILY=
ADDR=
PEER=
TRANSPORT=loop
V6=
RDMA_ARGS=()

usage() {
	echo "usage: ${0##*/} --family N [--addr A --peer B --transport ib [--ipv6]]"
	echo "       [--rdma-arg ARG]...  (given to rds_rdma_test)"
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--family)	FAMILY=${2?}; shift ;;
	--addr)		ADDR=${2?}; shift ;;
	--peer)		PEER=${2?}; shift ;;
	--transport)	TRANSPORT=${2?}; shift ;;
	--ipv6)		V6=1 ;;
	--rdma-arg)	RDMA_ARGS+=("${2?}"); shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done
if [[ -z $FAMILY || ($TRANSPORT == ib && (-z $ADDR || -z $PEER)) ||
      ($TRANSPORT != ib && $TRANSPORT != loop) ||
      ($V6 && $TRANSPORT != ib) ]]; then
	usage >&2
	exit 2
fi
if [[ $TRANSPORT == loop ]]; then
	# a pair no earlier test used: its connection is new
	net=127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1))
	ADDR=$net.1
	PEER=$net.2
	ARGS=(--addr "$ADDR" --peer "$PEER")
	TNAME=loopback
elif [[ $V6 ]]; then
	ARGS=(--ipv6 --addr6 "$ADDR" --peer6 "$PEER" --transport6 ib)
	TNAME=ib
else
	ARGS=(--addr "$ADDR" --peer "$PEER" --transport ib)
	TNAME=ib
fi

EVENTS=(rdsd_conn_up rdsd_conn_down rdsd_conn_requeue rdsd_conn_reset
	rdsd_ib_cm_event rdsd_ib_reject rdsd_op_post rdsd_op_complete
	rdsd_mr_request rdsd_mr_answer rdsd_mr_answered rdsd_mr_revoke
	rdsd_mr_revoked rdsd_dma_submit rdsd_dma_complete)

# lacks PATTERN TEXT: succeeds if no line of TEXT matches PATTERN
lacks() { ! grep -q "$1" <<<"$2"; }

T=/sys/kernel/tracing
[[ -d $T/events ]] || T=/sys/kernel/debug/tracing
check "$(status test -d "$T/events/rds_doca")" \
	"events/rds_doca is in tracefs ($T)" || { tap_finish; exit; }
for e in "${EVENTS[@]}"; do
	f=$T/events/rds_doca/$e/format
	check "$(status test -r "$f")" "event $e is defined" || continue
	# TRACE_DEFINE_ENUM turns the names into numbers for user tools
	check "$(status lacks 'RDSD_\|RDS_RDMA_' "$(cat "$f")")" \
		"$e: its format names no unresolved enum" \
		"$(grep 'print fmt' "$f")"
done

I=$T/instances/rds_doca_trace_test.$$
# An instance takes its options from the top level's when it is made.
# Without record-cmd, enabling its events patches rds_doca's text only:
# with it, the first enabled event hooks sched_switch, which patches the
# scheduler while every CPU runs it, and multi-threaded TCG (QEMU 7.2)
# may then execute a stale int3 there ("Oops: int3" in __schedule).  The
# top level gets its setting back before our events are enabled; the
# checks below read no task names.
cmd=$(cat "$T/options/record-cmd")
echo 0 > "$T/options/record-cmd"
check "$(status grep -qx 0 "$T/options/record-cmd")" \
	"record-cmd off for the instance to be made"
if ! check "$(status mkdir "$I")" "a tracing instance of our own"; then
	echo "$cmd" > "$T/options/record-cmd"
	tap_finish
	exit
fi
echo "$cmd" > "$T/options/record-cmd"
trap 'echo 0 > "$I/events/rds_doca/enable"; rmdir "$I"' EXIT
echo 1 > "$I/events/rds_doca/enable"
check "$(status grep -q 1 "$I/events/rds_doca/rdsd_conn_up/enable")" \
	"the events are enabled"

if [[ $TRANSPORT == ib ]]; then
	# up first (a message crossed it), then dropped: it goes down and
	# comes up again under the trace
	out=$("$STREAM" --probe --family "$FAMILY" --impl doca "${ARGS[@]}" 2>&1)
	check $? "the connection $ADDR -> $PEER is up" "$out"
	out=$("$RDSCTL" conn drop peer "$PEER" laddr "$ADDR" transport ib 2>&1)
	check $? "rdsctl conn drop peer $PEER laddr $ADDR" "$out"
fi

out=$("$STREAM" --probe --family "$FAMILY" --impl doca "${ARGS[@]}" 2>&1)
check $? "a socket on $ADDR and one on $PEER exchange messages" "$out"
out=$("$RDMA" --family "$FAMILY" --impl doca "${ARGS[@]}" \
	"${RDMA_ARGS[@]}" --filter rdma_write_read 2>&1)
check $? "rds_rdma_test rdma_write_read passes" "$(grep -v '^ok' <<<"$out")"
out=$("$RDMA" --family "$FAMILY" --impl doca "${ARGS[@]}" \
	"${RDMA_ARGS[@]}" --filter remote_errors 2>&1)
check $? "rds_rdma_test remote_errors passes" "$(grep -v '^ok' <<<"$out")"
echo 0 > "$I/events/rds_doca/enable"
trace=$(cat "$I/trace")

# saw NAME REGEX: the trace has an event NAME whose text matches REGEX
saw() {
	check "$(status grep -qE " $1: $2" <<<"$trace")" \
		"trace: $1 ${2:+($2)}" \
		"$(grep -c 'rdsd_' <<<"$trace") rds_doca events in the trace:" \
		"$(grep 'rdsd_' <<<"$trace" | head -n 20)"
}

a=${ADDR//./\\.}
p=${PEER//./\\.}
saw rdsd_conn_up "$a->$p $TNAME state=up"
saw rdsd_op_post "write cookie=0x[0-9a-f]+ "
saw rdsd_op_post "read cookie=0x[0-9a-f]+ "
saw rdsd_op_complete "write .* status=success"
saw rdsd_op_complete "read .* status=success"
saw rdsd_op_complete ".* status=remote_error"
if [[ $TRANSPORT == ib ]]; then
	saw rdsd_conn_reset "$a->$p ib why=dropped_by_admin"
	saw rdsd_conn_down "$a->$p ib state=connecting"
	saw rdsd_ib_cm_event "($a->$p|$p->$a) event=\"address resolved\""
	saw rdsd_ib_cm_event "($a->$p|$p->$a) event=\"established\""
	saw rdsd_mr_request ".* cookie=0x[0-9a-f]+ port=[1-9][0-9]* granted=0"
	saw rdsd_mr_answer ".* cookie=0x[0-9a-f]+ port=[1-9][0-9]* granted=1"
	saw rdsd_mr_answer ".* cookie=0x[0-9a-f]+ port=[1-9][0-9]* granted=0"
	saw rdsd_mr_answered ".* cookie=0x[0-9a-f]+ port=[1-9][0-9]* granted=1"
	saw rdsd_mr_answered ".* cookie=0x[0-9a-f]+ port=[1-9][0-9]* granted=0"
	saw rdsd_mr_revoke ".* cookie=0x[0-9a-f]+ port=0 granted=0"
	saw rdsd_mr_revoked ".* cookie=0x[0-9a-f]+ port=0 granted=0"
else
	# loopback asks nobody: cookies resolve in the same kernel
	check "$(status lacks ' rdsd_mr_' "$trace")" \
		"trace: no cookie resolution over loopback"
fi

tap_finish
