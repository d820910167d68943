#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# perftest-bench.sh: the raw verbs bound beside RDS sockets.  Runs one
# perftest server/client pair on this host (ib_send_bw for "stream",
# ib_send_lat for "pingpong", ib_write_bw, ib_read_bw and ib_atomic_bw for
# "rdma-write", "rdma-read" and "atomic"), the client's QP on --saddr's GID, the
# server's on --daddr's, and reports the result like rds-bench does: one
# result line and one JSON line with the same field names, so that
# compare.sh can put the verbs numbers in the same table.  POSIX sh + awk;
# needs perftest, ibv_devinfo, iproute2 (rdma, ip, ss), timeout and
# stdbuf.  See --help and README.

set -u

usage() {
	cat <<'EOF'
Usage: perftest-bench.sh [OPTIONS] MODE

  stream      ib_send_bw: one RC QP streams SENDs of --size bytes from the
              client (--saddr) to the server (--daddr); msgs/s and MB/s as
              the client measures them (first post to last completion)
  pingpong    ib_send_lat: SEND ping-pong; perftest reports half of each
              round trip, this reports the round trip (2 x perftest's)
  rdma-write  ib_write_bw -s SIZE -t WINDOW: RDMA writes from the client
              into the server's buffer, WINDOW outstanding; ops/s, MB/s
  rdma-read   ib_read_bw -s SIZE -t WINDOW: RDMA reads, likewise
  atomic      ib_atomic_bw -A FETCH_AND_ADD -t WINDOW: 8-byte
              fetch-and-adds; ops/s
  probe       a 5-message ib_send_lat; exit 0 if verbs work between the
              two addresses

Options:
  --saddr A         client address: its QP uses this address's RoCE v2
                    GID (default --addr)
  --daddr A         server address, likewise (default --addr)
  -a, --addr A      both (there is no default: RDMA needs an address on
                    an RDMA device)
  -s, --size BYTES  1 .. 8m; suffixes k, m (default 64)
  -d, --duration S  aim for about S seconds of traffic (default 1.5)
  -n, --iters N     exactly N messages / round trips / operations
                    (overrides the above)
  -W, --window N    RDMA modes: perftest's -t (send queue depth: the
                    operations outstanding), like rds-bench --window
                    (default 16)
      --rates FILE  remember each cell's measured rate in FILE and size
                    later runs of that cell to --duration from it
  -e, --events      perftest -e: sleep on completion events instead of
                    busy polling the CQ
      --dev DEV     RDMA device (default: the device whose netdev holds
                    --daddr, from "rdma link")
      --port N      TCP port on which the server takes the client's QP
                    details (default 18515)
      --timeout S   seconds allowed beyond the expected run time (10)
  -j, --json FILE   append one JSON object per result to FILE
  -l, --label TEXT  free text stored with the result
  -h, --help        this help

Exit status: 0 ok, 1 the run failed, 2 bad usage, 4 not supported
(rdma-write with -e: ib_write_bw has no -e).
EOF
}

PROG=perftest-bench.sh

die_usage() {
	echo "$PROG: $*" >&2
	echo "Try '$PROG --help'." >&2
	exit 2
}

fail() {
	echo "$PROG: $*" >&2
	exit 1
}

is_uint() { case "$1" in ''|*[!0-9]*) return 1;; *) return 0;; esac; }
is_secs() {
	case "$1" in ''|.|*[!0-9.]*|*.*.*) return 1;; *) return 0;; esac
}
is_ipv4() {
	echo "$1" | grep -Eq '^([0-9]{1,3}\.){3}[0-9]{1,3}$'
}

# 64, 4k, 64K, 1m, 1M -> bytes; empty if malformed
to_bytes() {
	case "$1" in
	*[kK]) _n=${1%?}; _m=1024;;
	*[mM]) _n=${1%?}; _m=1048576;;
	*) _n=$1; _m=1;;
	esac
	is_uint "$_n" || return 0
	echo $((_n * _m))
}

MODE=""
SADDR=""
DADDR=""
ADDR=""
SIZE=64
SIZE_SET=0
WINDOW=16
DURATION=1.5
ITERS=""
RATES=""
EVENTS=0
DEV=""
PORT=18515
TIMEOUT=10
JSON=""
LABEL=""

while [ $# -gt 0 ]; do
	case "$1" in
	--saddr|--daddr|-a|--addr|-s|--size|-d|--duration|-n|--iters|--rates|\
	--dev|--port|--timeout|-j|--json|-l|--label|-W|--window)
		[ $# -ge 2 ] || die_usage "$1 needs a value"
		case "$1" in
		--saddr) SADDR=$2;;
		--daddr) DADDR=$2;;
		-a|--addr) ADDR=$2;;
		-s|--size) SIZE=$2; SIZE_SET=1;;
		-W|--window) WINDOW=$2;;
		-d|--duration) DURATION=$2;;
		-n|--iters) ITERS=$2;;
		--rates) RATES=$2;;
		--dev) DEV=$2;;
		--port) PORT=$2;;
		--timeout) TIMEOUT=$2;;
		-j|--json) JSON=$2;;
		-l|--label) LABEL=$2;;
		esac
		shift 2;;
	-e|--events) EVENTS=1; shift;;
	-h|--help) usage; exit 0;;
	-*) die_usage "unknown option '$1'";;
	stream|pingpong|probe|rdma-write|rdma-read|atomic)
		[ -z "$MODE" ] || die_usage "more than one mode: '$MODE' and '$1'"
		MODE=$1; shift;;
	*) die_usage "unknown mode '$1' (stream, pingpong, rdma-write, rdma-read, atomic or probe)";;
	esac
done

[ -n "$MODE" ] || die_usage "no mode given (stream, pingpong, rdma-write, rdma-read, atomic or probe)"
[ -n "$SADDR" ] || SADDR=$ADDR
[ -n "$DADDR" ] || DADDR=$ADDR
if [ -z "$SADDR" ] || [ -z "$DADDR" ]; then
	die_usage "give --addr, or --saddr and --daddr"
fi
for a in "$SADDR" "$DADDR"; do
	is_ipv4 "$a" || die_usage "invalid IPv4 address '$a'"
done
case "$MODE" in
rdma-write|rdma-read) [ $SIZE_SET = 1 ] || SIZE=64k;;
atomic)
	# ib_atomic_bw works on 8-byte words and takes no -s
	[ $SIZE_SET = 0 ] || [ "$(to_bytes "$SIZE")" = 8 ] ||
		die_usage "atomic works on 8-byte words: --size '$SIZE' is not 8"
	SIZE=8;;
esac
BYTES=$(to_bytes "$SIZE")
if [ -z "$BYTES" ] || [ "$BYTES" -lt 1 ] || [ "$BYTES" -gt 8388608 ]; then
	die_usage "invalid --size '$SIZE': expected 1..8m bytes (64, 4k, 64k, 1m)"
fi
if ! is_uint "$WINDOW" || [ "$WINDOW" -lt 1 ] || [ "$WINDOW" -gt 4096 ]; then
	die_usage "invalid --window '$WINDOW': expected 1..4096"
fi
if ! is_secs "$DURATION" || ! awk -v d="$DURATION" 'BEGIN { exit !(d > 0) }'; then
	die_usage "invalid --duration '$DURATION'"
fi
if [ -n "$ITERS" ] && { ! is_uint "$ITERS" || [ "$ITERS" -lt 5 ]; }; then
	die_usage "invalid --iters '$ITERS': perftest needs at least 5"
fi
if ! is_uint "$PORT" || [ "$PORT" -lt 1 ] || [ "$PORT" -gt 65535 ]; then
	die_usage "invalid --port '$PORT'"
fi
is_secs "$TIMEOUT" || die_usage "invalid --timeout '$TIMEOUT'"

case "$MODE" in
stream) TOOL=ib_send_bw;;
rdma-write) TOOL=ib_write_bw;;
rdma-read) TOOL=ib_read_bw;;
atomic) TOOL=ib_atomic_bw;;
*) TOOL=ib_send_lat;;
esac
for c in "$TOOL" ibv_devinfo rdma ip ss timeout stdbuf; do
	command -v "$c" >/dev/null 2>&1 || fail "$c not found (perftest, ibverbs-utils, iproute2 and coreutils are needed)"
done

# The RDMA device whose netdev carries the server address.
if [ -z "$DEV" ]; then
	ifc=$(ip -o -4 addr show 2>/dev/null | awk -v a="$DADDR" '{ split($4, p, "/") } p[1] == a { print $2; exit }')
	[ -n "$ifc" ] || fail "no interface holds $DADDR"
	DEV=$(rdma link show 2>/dev/null | awk -v i="$ifc" '$1 == "link" { for (k = 2; k < NF; k++) if ($k == "netdev" && $(k + 1) == i) { sub("/.*", "", $2); print $2; exit } }')
	[ -n "$DEV" ] || fail "no RDMA device on $ifc (holding $DADDR): e.g. rdma link add rxe0 type rxe netdev $ifc"
fi
state=$(rdma link show "$DEV/1" 2>/dev/null | awk '{ for (k = 1; k < NF; k++) if ($k == "state") { print $(k + 1); exit } }')
[ "$state" = ACTIVE ] || fail "RDMA device $DEV port 1 is not ACTIVE (state '${state:-unknown}')"

# perftest's ib_write_bw has no -e ("Events feature not available on
# WRITE verb"): say so like rds-bench does for a family without RDMA, a
# result line and a JSON line with "supported":false, exit status 4.
if [ "$MODE" = rdma-write ] && [ $EVENTS = 1 ]; then
	why="ib_write_bw has no -e (perftest: Events feature not available on WRITE verb)"
	printf '%-10s verbs %-14s size %-7d unsupported: %s\n' "$MODE" "$TOOL -e" "$BYTES" "$why"
	if [ -n "$JSON" ]; then
		printf '{"tool":"perftest","time":%d,"label":"%s","mode":"%s","program":"%s","events":true,"dev":"%s","saddr":"%s","daddr":"%s","size":%d,"threads":1,"window":%d,"ok":false,"supported":false,"reason":"%s"}\n' \
			"$(date +%s)" "$(printf '%s' "$LABEL" | sed 's/[\\"]/\\&/g')" "$MODE" "$TOOL" "$DEV" "$SADDR" "$DADDR" "$BYTES" "$WINDOW" "$why" >> "$JSON" ||
			fail "could not write $JSON"
	fi
	exit 4
fi

# How many iterations: exactly --iters; else the cell's last measured rate
# (from --rates) times --duration; else a first guess, which is about
# right for Soft-RoCE in an emulated guest and short on real hardware
# (later runs then size themselves from the rate measured).
KEY="$MODE $BYTES $EVENTS"
if [ "$MODE" = probe ]; then
	# connectivity only: no -e, which has its own troubles on rxe (below)
	ITERS=5
	BYTES=64
	EVENTS=0
elif [ -z "$ITERS" ]; then
	rate=""
	[ -n "$RATES" ] && [ -r "$RATES" ] &&
		rate=$(awk -v k="$KEY" '$1 " " $2 " " $3 == k { r = $4 } END { print r }' "$RATES")
	if [ -z "$rate" ]; then
		if [ "$MODE" != pingpong ]; then
			rate=$(awk -v b="$BYTES" 'BEGIN { r = 2e7 / b; print (r > 20000 ? 20000 : r) }')
		elif [ $EVENTS = 1 ]; then
			rate=500
		else
			rate=5000
		fi
	fi
	# perftest keeps two timestamps per iteration: at most 2M (32 MB)
	ITERS=$(awk -v r="$rate" -v d="$DURATION" 'BEGIN {
		n = int(r * d + 0.5); if (n < 5) n = 5; if (n > 2000000) n = 2000000; print n }')
fi

# perftest's ib_send_lat with -e and a send queue of one (its default)
# overflows the send CQ on rxe ("rxe_cq_post: queue full") and hangs; a
# depth of 4 avoids that.  Latency runs use 4 with and without -e, so that
# -e is the only difference; it does not change the ping-pong itself
# (one message in flight).
# The GID index of an address: its RoCE v2 entry, else any.
gid_index() {
	ibv_devinfo -v -d "$DEV" 2>/dev/null | awk -v a="::ffff:$1," '
		/GID\[ *[0-9]+\]:/ {
			for (k = 1; k <= NF && $k != a; k++)
				;
			if (k > NF)
				next
			i = $0; sub(/.*GID\[ */, "", i); sub(/\].*/, "", i)
			if ($0 ~ /RoCE v2/) { print i; found = 1; exit }
			if (any == "") any = i
		}
		END { if (!found && any != "") print any }'
}
SGID=$(gid_index "$DADDR")
CGID=$(gid_index "$SADDR")
[ -n "$SGID" ] || fail "no GID for $DADDR on $DEV (ibv_devinfo -v -d $DEV)"
[ -n "$CGID" ] || fail "no GID for $SADDR on $DEV (ibv_devinfo -v -d $DEV)"

# The QPs are connected from the GIDs (-x), the details exchanged over
# TCP; not with rdma_cm (-R): the librdmacm path of perftest 4.5-0.17 now
# and then fails its first connection on a new rxe device and then
# crashes with a general protection fault.
# The RDMA tests keep --window operations outstanding (-t, the send
# queue depth), as rds-bench's RDMA modes do; ib_atomic_bw has a fixed
# size of 8 bytes and refuses -s.
case "$MODE" in
atomic) ARGS="-d $DEV -p $PORT -n $ITERS -A FETCH_AND_ADD -t $WINDOW";;
rdma-*) ARGS="-d $DEV -p $PORT -s $BYTES -n $ITERS -t $WINDOW";;
*) ARGS="-d $DEV -p $PORT -s $BYTES -n $ITERS";;
esac
[ "$TOOL" = ib_send_lat ] && ARGS="$ARGS -t 4"
[ $EVENTS = 1 ] && ARGS="$ARGS -e"

# Allowed wall time: the expected run, four times over, plus --timeout.
LIMIT=$(awk -v d="$DURATION" -v t="$TIMEOUT" 'BEGIN { printf "%d", 4 * d + t + 5 }')

TMP=$(mktemp -d "${TMPDIR:-/tmp}/perftest-bench.XXXXXX") || fail "mktemp failed"
SPID=""
CPID=""
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	[ -n "$CPID" ] && kill "$CPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

listening() {
	[ -n "$(ss -Hltn "sport = :$PORT" 2>/dev/null)" ]
}

# The result line follows perftest's " #bytes" header:
#   ib_send_bw, ib_write_bw, ib_read_bw, ib_atomic_bw:
#                bytes iterations BW-peak BW-average MsgRate
#                (MB/sec = 2^20 bytes per second, MsgRate in Mpps)
#   ib_send_lat: bytes iterations t_min t_max t_typical t_avg t_stdev
#                99% 99.9%   (usec, each half a round trip)
result_of() {
	awk -v b="$BYTES" '/^ *#bytes/ { hdr = 1; next } hdr && $1 == b && $2 ~ /^[0-9]+$/ { print; exit }' "$1"
}

# Wait up to $2 tenths of a second for process $1 to end; kill it if it
# does not.
reap() {
	_n=0
	while kill -0 "$1" 2>/dev/null && [ $_n -lt "$2" ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	kill "$1" 2>/dev/null
}

# One server/client pair.  Returns 0 with the client's result line in
# $TMP/result, or 1 with the reason in $TMP/why.  The numbers are the
# client's: once it has printed them, a server that failed afterwards (a
# perftest that cannot calibrate its clock on a busy emulated host says
# "Can't produce a report") only costs a note.  Both run line-buffered
# so that their output survives a kill.
run_pair() {
	: > "$TMP/server"
	: > "$TMP/client"
	if listening; then
		echo "something already listens on TCP port $PORT (--port)" > "$TMP/why"
		return 1
	fi
	# shellcheck disable=SC2086
	timeout -k 2 "$LIMIT" stdbuf -oL "$TOOL" $ARGS -x "$SGID" >"$TMP/server" 2>&1 &
	SPID=$!
	_n=0
	until listening; do
		if ! kill -0 "$SPID" 2>/dev/null || [ $_n -ge 100 ]; then
			reap "$SPID" 0
			wait "$SPID"
			SPID=""
			{ echo "$TOOL server did not listen on port $PORT within 10 s; it said:"
			  grep -v '^ *$' "$TMP/server" | tail -n 5 | sed 's/^/      /'; } > "$TMP/why"
			return 1
		fi
		_n=$((_n + 1))
		sleep 0.1
	done

	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	timeout -k 2 "$LIMIT" stdbuf -oL "$TOOL" $ARGS -x "$CGID" "$DADDR" >"$TMP/client" 2>&1 &
	CPID=$!
	# A client that has its result but whose server is gone may wait
	# for it forever: 3 s, then it is stopped.
	_grace=""
	while kill -0 "$CPID" 2>/dev/null; do
		if [ -z "$_grace" ] && ! kill -0 "$SPID" 2>/dev/null &&
		   [ -n "$(result_of "$TMP/client")" ]; then
			_grace=30
		fi
		if [ -n "$_grace" ]; then
			_grace=$((_grace - 1))
			[ "$_grace" -gt 0 ] || kill "$CPID" 2>/dev/null
		fi
		sleep 0.1
	done
	wait "$CPID"
	_crc=$?
	CPID=""
	t1=$(date +%s.%N)
	reap "$SPID" 30
	wait "$SPID"
	_src=$?
	SPID=""

	result_of "$TMP/client" > "$TMP/result"
	if [ -s "$TMP/result" ]; then
		if [ $_crc -ne 0 ] || [ $_src -ne 0 ]; then
			echo "$PROG: note: $TOOL exit status client $_crc, server $_src after the client's result; server: $(grep -v '^ *$' "$TMP/server" | tail -n 1)" >&2
		fi
		return 0
	fi
	{ echo "$TOOL failed (exit status: client $_crc, server $_src$( [ $_crc -eq 124 ] && echo ", client timed out after $LIMIT s"))"
	  echo "    client said:"
	  grep -v '^ *$' "$TMP/client" | tail -n 5 | sed 's/^/      /'
	  echo "    server said:"
	  grep -v '^ *$' "$TMP/server" | tail -n 3 | sed 's/^/      /'; } > "$TMP/why"
	return 1
}

# One more try after a failure: perftest's clock calibration fails now
# and then on a busy emulated host.
if ! run_pair; then
	echo "$PROG: $(cat "$TMP/why")" >&2
	echo "$PROG: trying once more" >&2
	run_pair || { echo "$PROG: $(cat "$TMP/why")" >&2; exit 1; }
fi
res=$(cat "$TMP/result")
if [ "$MODE" = probe ]; then
	echo "probe    perftest ok: $DEV, $SADDR -> $DADDR:$PORT, $TOOL 64 bytes"
	exit 0
fi

ev=false
[ $EVENTS = 1 ] && ev=true
echo "$res" | awk -v mode="$MODE" -v tool="$TOOL" -v ev="$ev" -v dev="$DEV" \
    -v saddr="$SADDR" -v daddr="$DADDR" -v dur="$DURATION" \
    -v t0="$t0" -v t1="$t1" -v label="$LABEL" -v json="$JSON" \
    -v rates="$RATES" -v key="$KEY" -v window="$WINDOW" '
function jstr(s) {
	gsub(/\\/, "\\\\", s)
	gsub(/"/, "\\\"", s)
	gsub(/\t/, "\\t", s)
	return "\"" s "\""
}
{
	size = $1; iters = $2
	head = sprintf("{\"tool\":\"perftest\",\"time\":%d,\"label\":%s,\"mode\":\"%s\",\"program\":\"%s\",\"events\":%s,\"dev\":\"%s\",\"saddr\":\"%s\",\"daddr\":\"%s\",\"size\":%d,\"threads\":1,\"duration_s\":%.3f,\"iters\":%d,\"ok\":true,\"elapsed_s\":%.3f",
		int(t1), jstr(label), mode, tool, ev, dev, saddr, daddr, size, dur, iters, t1 - t0)
	flag = ev == "true" ? " -e" : ""
	if (mode != "pingpong") {
		# MsgRate has six decimals of Mpps, BW two of MiB/s: take
		# whichever carries more digits
		mib = $4 + 0; mpps = $5 + 0
		if (mpps >= 0.01) {
			rate = mpps * 1e6
			mbps = rate * size / 1e6
		} else {
			mbps = mib * 1048576 / 1e6
			rate = mbps * 1e6 / size
		}
		if (mode == "stream") {
			printf "stream   verbs %-11s size %-7d %12.0f msgs/s %10.2f MB/s | %d msgs, perftest: BW average %.2f MiB/s, MsgRate %.6f Mpps\n",
				tool flag, size, rate, mbps, iters, mib, mpps
			line = sprintf("%s,\"msgs\":%d,\"bytes\":%.0f,\"msgs_per_s\":%.3f,\"mb_per_s\":%.4f,\"perftest_bw_avg_mib_s\":%s,\"perftest_msg_rate_mpps\":%s}",
				head, iters, iters * size, rate, mbps, $4, $5)
		} else {
			printf "%-10s verbs %-14s size %-7d win %-4d %12.0f ops/s %10.2f MB/s | %d ops, perftest: BW average %.2f MiB/s, MsgRate %.6f Mpps\n",
				mode, tool flag, size, window, rate, mbps, iters, mib, mpps
			line = sprintf("%s,\"supported\":true,\"window\":%d,\"ops\":%d,\"bytes\":%.0f,\"ops_per_s\":%.3f,\"mb_per_s\":%.4f,\"perftest_bw_avg_mib_s\":%s,\"perftest_msg_rate_mpps\":%s}",
				head, window, iters, iters * size, rate, mbps, $4, $5)
		}
	} else {
		# perftest: every value is (time between two posts) / 2
		p99 = NF >= 8 ? 2 * $8 : 0
		p999 = NF >= 9 ? 2 * $9 : 0
		rate = $6 > 0 ? 1e6 / (2 * $6) : 0
		printf "pingpong verbs %-11s size %-7d %12.0f rt/s   p50 %.1f p99 %.1f p999 %.1f us | n %d, RTT = 2 x perftest: t_typical %s t_avg %s us\n",
			tool flag, size, rate, 2 * $5, p99, p999, iters, $5, $6
		line = sprintf("%s,\"round_trips\":%d,\"rt_per_s\":%.3f,\"msgs_per_s\":%.3f,\"mb_per_s\":%.4f,\"rtt_p50_us\":%.3f,\"rtt_p99_us\":%.3f,\"rtt_p999_us\":%.3f,\"rtt_min_us\":%.3f,\"rtt_mean_us\":%.3f,\"rtt_max_us\":%.3f,\"perftest_t_typical_us\":%s,\"perftest_t_avg_us\":%s}",
			head, iters, rate, rate, rate * size / 1e6, 2 * $5, p99, p999, 2 * $3, 2 * $6, 2 * $4, $5, $6)
	}
	if (json != "")
		print line >> json
	if (rates != "")
		print key, rate > (rates ".new")
}' || fail "could not write the result"

# Keep one rate per cell: the newest.
if [ -n "$RATES" ] && [ -f "$RATES.new" ]; then
	{ [ -f "$RATES" ] && awk -v k="$KEY" '$1 " " $2 " " $3 != k' "$RATES"; cat "$RATES.new"; } > "$RATES.tmp" &&
		mv "$RATES.tmp" "$RATES"
	rm -f "$RATES.new"
fi
exit 0
