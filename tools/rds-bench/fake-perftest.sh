#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# fake-perftest.sh: stand-in for perftest's ib_send_bw, ib_send_lat,
# ib_write_bw, ib_read_bw and ib_atomic_bw and for the parts of
# ibv_devinfo and iproute2's rdma, ip and ss that perftest-bench.sh reads,
# used only by selftest.sh to exercise perftest-bench.sh, compare.sh and
# ib-compare.sh without an RDMA device.  Called through links named after
# the program it stands in for.  A server "listens" by leaving its port in
# $FAKE_PERFTEST_DIR/listen; the client prints perftest's result line and
# leaves $FAKE_PERFTEST_DIR/done, after which the server prints its own.
# Every client's command line is appended to $FAKE_PERFTEST_DIR/args.
#
# FAKE_PERFTEST selects a misbehaviour:
#   server-fails   the server fails after the transfer ("Can't produce a
#                  report", exit 1)
#   client-hangs   the server fails after the transfer and the client,
#                  its result printed, waits for it forever
#   fail-once      the first client fails without a result
#   fail           every client fails without a result
# Numbers: MsgRate 0.026540 Mpps (0.030000 with -e) for ib_send_bw;
# t_typical 88.62 us (1978.75 with -e) for ib_send_lat; MsgRate 0.000900
# Mpps for ib_write_bw, 0.000700 (0.000600 with -e) for
# ib_read_bw, 0.040000 (0.020000) for ib_atomic_bw.  Like perftest 4.5,
# ib_atomic_bw refuses -s and ib_write_bw -e.

set -u
D=${FAKE_PERFTEST_DIR:-${TMPDIR:-/tmp}}
HOW=${FAKE_PERFTEST:-}

case "$(basename "$0")" in
rdma)
	line="link fake0/1 state ACTIVE physical_state LINK_UP netdev d0"
	case "$*" in
	"link show"|"link show fake0/1") echo "$line";;
	"link show "*) exit 1;;
	*) echo "fake rdma: unsupported: $*" >&2; exit 1;;
	esac
	exit 0;;
ss)
	[ -f "$D/listen" ] && [ "$*" = "-Hltn sport = :$(cat "$D/listen")" ] &&
		echo "LISTEN 0      1            0.0.0.0:$(cat "$D/listen")       0.0.0.0:*"
	exit 0;;
ibv_devinfo)
	[ "$*" = "-v -d fake0" ] || { echo "fake ibv_devinfo: unsupported: $*" >&2; exit 1; }
	printf '\t\t\tGID[  0]:\t\tfe80::1, RoCE v2\n'
	printf '\t\t\tGID[  1]:\t\t::ffff:192.0.2.1, IB/RoCE v1\n'
	printf '\t\t\tGID[  2]:\t\t::ffff:192.0.2.1, RoCE v2\n'
	printf '\t\t\tGID[  3]:\t\t::ffff:192.0.2.2, RoCE v2\n'
	exit 0;;
ip)
	echo "2: d0    inet 192.0.2.1/24 scope global d0\\       valid_lft forever preferred_lft forever"
	echo "2: d0    inet 192.0.2.2/24 scope global secondary d0\\       valid_lft forever preferred_lft forever"
	exit 0;;
ib_send_bw|ib_send_lat|ib_write_bw|ib_read_bw|ib_atomic_bw) prog=$(basename "$0");;
*) echo "fake-perftest.sh: call me as ib_send_bw, ib_send_lat, ib_write_bw, ib_read_bw, ib_atomic_bw, ibv_devinfo, rdma, ip or ss" >&2; exit 2;;
esac

args="$*"
port=18515 size=2 iters=1000 ev=0 server="" gid=""
[ "$prog" = ib_atomic_bw ] && size=8
while [ $# -gt 0 ]; do
	case "$1" in
	-p) port=$2; shift 2;;
	-s)
		if [ "$prog" = ib_atomic_bw ]; then
			echo "Message size cannot be changed for Atomic tests"
			exit 1
		fi
		size=$2; shift 2;;
	-A) [ "$2" = FETCH_AND_ADD ] || { echo "fake $prog: -A $2" >&2; exit 1; }; shift 2;;
	-n) iters=$2; shift 2;;
	-e)
		if [ "$prog" = ib_write_bw ]; then
			echo " Events feature not available on WRITE verb"
			echo " Parser function exited with Error"
			exit 1
		fi
		ev=1; shift;;
	-x) gid=$2; shift 2;;
	-d|-t) shift 2;;
	-*) echo "fake $prog: unsupported option $1" >&2; exit 1;;
	*) server=$1; shift;;
	esac
done

result() {
	echo "---------------------------------------------------------------------------------------"
	if [ "$prog" != ib_send_lat ]; then
		echo " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]"
		awk -v s="$size" -v n="$iters" -v ev=$ev -v p="$prog" 'BEGIN {
			if (p == "ib_write_bw") r = 0.000900
			else if (p == "ib_read_bw") r = ev ? 0.000600 : 0.000700
			else if (p == "ib_atomic_bw") r = ev ? 0.020000 : 0.040000
			else r = ev ? 0.030000 : 0.026540
			printf " %-10d %-16d %-18.2f %-8.2f\t   %.6f\n", s, n, 0, r * 1e6 * s / 1048576, r }'
	else
		echo " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] "
		awk -v s="$size" -v n="$iters" -v ev=$ev 'BEGIN {
			t = ev ? 1978.75 : 88.62
			printf " %-7d %-13d %-14.2f %-12.2f %-8.2f\t       %-11.2f\t%-8.2f\t%-8.2f\t\t%.2f\n",
				s, n, t / 2, t * 40, t, t * 1.9, t * 3.6, t * 22, t * 31 }'
	fi
	echo "---------------------------------------------------------------------------------------"
}

# the RoCE v2 GIDs of the server's and the client's address
want=3
[ -n "$server" ] || want=2
if [ "$gid" != $want ]; then
	echo "fake $prog: GID index '$gid', want $want" >&2
	exit 1
fi

if [ -z "$server" ]; then
	echo "************************************"
	echo "* Waiting for client to connect... *"
	echo "************************************"
	rm -f "$D/done"
	echo "$port" > "$D/listen"
	n=0
	while [ ! -f "$D/done" ]; do
		n=$((n + 1))
		[ $n -le 200 ] || { rm -f "$D/listen"; echo "fake $prog: no client" >&2; exit 1; }
		sleep 0.1
	done
	rm -f "$D/listen" "$D/done"
	case "$HOW" in
	server-fails|client-hangs)
		echo " #bytes     #iterations"
		echo "Can't produce a report"
		exit 1;;
	esac
	result
	exit 0
fi

echo "$prog $args" >> "$D/args"
if [ ! -f "$D/listen" ] || [ "$(cat "$D/listen")" != "$port" ]; then
	echo "fake $prog: Couldn't connect to $server:$port" >&2
	exit 1
fi
if [ "$HOW" = fail ] || { [ "$HOW" = fail-once ] && [ ! -f "$D/failed-once" ]; }; then
	touch "$D/failed-once"
	echo "fake $prog: Failed to complete run_iter" >&2
	touch "$D/done"
	exit 17
fi
echo " local address: LID 0000 QPN 0x0011 PSN 0x1"
result
touch "$D/done"
if [ "$HOW" = client-hangs ]; then
	while :; do sleep 1; done
fi
exit 0
