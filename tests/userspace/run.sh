#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the RDS socket selftests against rds_doca and against the in-tree
# net/rds.  Meant to run as root on a disposable machine (a VM): it loads
# and unloads rds, rds_doca and their dependencies.
#
#   1. doca:     an unprivileged socket() must not load rds_doca; "make
#                install" of the module, modprobe, "make uninstall"
#                (tests/install/install_test.sh); then
#                insmod rds_doca.ko (its own family), run the suites
#                (rds_api_test, rds_order_test, rds_rdma_test for RDMA
#                and atomics, rds_bounds_test for what an unprivileged
#                user can make it queue, rdsctl_test.py for the
#                control plane, and trace_test.sh for the trace events)
#   2. conflict: with rds.ko holding AF_RDS, insmod rds_doca.ko family=21
#                must fail, with an explanation in the kernel log
#   3. rds:      the suites against rds.ko (loopback transport only)
#   4. dropin:   rds_doca.ko family=21 in place of rds.ko, the suites,
#                and Linux's counter names (tests/compat, which also
#                runs in doca, rds, ib and rds-ib: counters and the
#                type of service ioctls)
#   5. dma:      rds_doca with every copy on a software DMA engine
#                (rdsd_test_dma.ko, thresholds 0): the suites, then the
#                order test and the RDMA tests that copy data under each
#                fault the engine can inject (failed descriptors, failed
#                preparation, slow and reversed completions), then the
#                engine released at run time and the provider unloaded
#   6. conns:    rds_doca with max_conns=1000 conn_idle_secs=2: uid 65534
#                floods 4000 loopback peers (rds_conn_flood_test); the
#                limit refuses with EADDRNOTAVAIL and every connection is
#                freed once idle
#
# "The suites" run twice: between IPv4 addresses, then (STAGE-api6 and
# so on, --ipv6) between IPv6 ones: ::1 on loopback, two IPv6 addresses
# of the device or dummy interface over IB, iWARP and TCP; the tests of
# one family's addresses run once, in the first.
#
# and, when named with --stage, over Soft-RoCE: an rxe device on a dummy
# interface that carries two addresses, the suites run between them.
#
#   7. ib:        rds_doca (its own family) over its IB transport; a
#                 hostile peer (rds_hostile_peer) sends it crafted frames
#                 from IPv4 and IPv6 addresses of its own; after a last
#                 RDMA exchange rds_doca must unload within 5 s of its
#                 last socket closing
#   8. ib-faults: rds_doca while the link and the rxe device go away and
#                 come back under a stream of messages (ib_faults.sh),
#                 between the IPv4 and again the IPv6 addresses;
#                 then rds_doca must unload with its connections up
#   9. rds-ib:    the in-tree rds_rdma (family 21), the reference
#
# and over TCP, when named:
#
#  10. tcp:       the same two addresses on a dummy interface without an
#                 RDMA device: the api, order, RDMA and bounds suites
#                 over the TCP transport, a hostile peer
#                 (tcp_hostile_test.py, from IPv4 and IPv6 addresses),
#                 five unprivileged users' attempts to addresses nobody
#                 answers (tcp_attempts_test.py), then
#                 two namespaces joined by a veth pair talking as two
#                 hosts (rds_xhost_test's echo, ping, stream and RDMA,
#                 and a stream across a link flap and a dropped
#                 connection); last, reloaded with max_conns=1000
#                 conn_idle_secs=2, an unprivileged user's 256
#                 type-of-service lanes to one peer (rds_conn_flood_test)
#
# and, when named: 11. dkms: make dkms-install (DKMS builds rds_doca for
# the running kernel: minutes under TCG), modprobe, rdsctl, the demo,
# make dkms-remove, nothing left (tests/install/install_test.sh --dkms);
# make check names it for the 6.12 VM.
#
# and, when named: 12. iw: the IB transport over Soft-iWARP (siw, which
# Debian's kernels leave out and the debug kernel builds): a siw device
# on a dummy interface with the two addresses; rdsctl shows it as iwarp
# without atomics; the api, order, RDMA (every atomic refused with
# EOPNOTSUPP) and bounds suites, the compat programs, the trace events,
# the hostile peer, the device and link faults and a last RDMA exchange
# run between the addresses.  make check names it for the debug VM.
#
# Output is TAP; every module operation is a check, and the suites'
# checks are renumbered and prefixed with their stage.  The last line is
# "N passed, N failed"; the exit status is non-zero if anything failed.
#
# usage: tests/userspace/run.sh [--ko PATH] [--stage NAME|all]...

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/userspace/tap.sh
. "$HERE/tap.sh"

KO=build/$(uname -r)/rds_doca.ko
STAGES=()
DEFAULT_STAGES=(doca conflict rds dropin dma conns)
ALL_STAGES=(doca conflict rds dropin dma conns ib ib-faults rds-ib tcp dkms iw)
ORDER_ARGS=${ORDER_ARGS:-}
FAULTS_ARGS=${FAULTS_ARGS:-}

# The one-host RoCE topology: both addresses on one rxe device.
IB_NETDEV=d0
IB_DEV=rxe0
IB_ADDR=192.0.2.1
IB_PEER=192.0.2.2
# shellcheck source=tests/userspace/rxe.sh
. "$HERE/rxe.sh"
IB_ARGS=(--addr "$IB_ADDR" --peer "$IB_PEER" --transport ib)
# and two IPv6 addresses there, for the IPv6 tests of rds_doca
IB_ADDR6=2001:db8:1::1
IB_PEER6=2001:db8:1::2
IB6_ARGS=(--addr6 "$IB_ADDR6" --peer6 "$IB_PEER6" --transport6 ib)
# and fe80::1 and fe80::2, for the link-local test of rds_api_test
IB_LINK_LOCAL=1

# The TCP topology: the same two addresses on a dummy interface without
# an RDMA device, so the TCP transport serves them; and two namespaces
# joined by a veth pair, one address each.  TCP_DEAD_NET/24 and
# TCP_DEAD_NET6/64 are routed to the dummy interface, which drops
# everything: nobody answers there.
TCP_NETDEV=t0
TCP_ADDR=192.0.2.1
TCP_PEER=192.0.2.2
TCP_DEAD_NET=203.0.113.0
TCP_DEAD_NET6=2001:db8:ff::
TCP_ARGS=(--addr "$TCP_ADDR" --peer "$TCP_PEER" --transport tcp)
TCP_ADDR6=2001:db8:2::1
TCP_PEER6=2001:db8:2::2
TCP6_ARGS=(--addr6 "$TCP_ADDR6" --peer6 "$TCP_PEER6" --transport6 tcp)
NS_A=rdsd-a
NS_B=rdsd-b
NS_ADDR_A=198.51.100.1
NS_ADDR_B=198.51.100.2
NS_ADDR6_A=2001:db8:3::1
NS_ADDR6_B=2001:db8:3::2

usage() {
	cat <<EOF
usage: ${0##*/} [--ko PATH] [--stage NAME]...
  --ko PATH     rds_doca module (default: build/\$(uname -r)/rds_doca.ko)
  --stage NAME  run only the named stages (repeatable): doca, conflict,
                rds, dropin, dma, conns (these six by default), ib,
                ib-faults, rds-ib, tcp, dkms, iw;
                all: every one of them
environment: SUITE_TIMEOUT (seconds per suite, default 600),
             ORDER_ARGS (extra rds_order_test arguments),
             INSTALL_TESTS=0 (skip the doca stage's install checks),
             FAULTS_ARGS (extra ib_faults.sh arguments)
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--ko)		KO=${2?--ko needs a path}; shift ;;
	--stage)
		if [[ ${2?--stage needs a name} == all ]]; then
			STAGES+=("${ALL_STAGES[@]}")
		else
			STAGES+=("$2")
		fi
		shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done

[[ ${#STAGES[@]} -eq 0 ]] && STAGES=("${DEFAULT_STAGES[@]}")
for s in "${STAGES[@]}"; do
	case $s in
	doca|conflict|rds|dropin|dma|conns|ib|ib-faults|rds-ib|tcp|dkms|iw) ;;
	*) echo "${0##*/}: unknown stage '$s'" >&2; usage >&2; exit 2 ;;
	esac
done

want_stage() {
	local s

	for s in "${STAGES[@]}"; do
		[[ $s == "$1" ]] && return 0
	done
	return 1
}

loaded() { [[ -d /sys/module/$1 ]]; }

no_other_transport() { ! loaded rds_tcp && ! loaded rds_rdma; }

# unload MODULE [SECONDS]: unload a module, retrying for up to SECONDS
# (default 10); sockets are freed after an RCU grace period, so the
# module may stay busy for a moment after the last test exits.
unload() {
	local out

	for _ in $(seq $((${2:-10} * 2))); do
		loaded "$1" || return 0
		out=$(rmmod "$1" 2>&1) && return 0
		sleep 0.5
	done
	echo "$out"
	return 1
}

family_param() {
	cat /sys/module/rds_doca/parameters/family 2>/dev/null
}

# rdma_last STAGE FAMILY: a last RDMA exchange over IB, both ways, whose
# sockets then close: 100 messages each way, every other one of 2 KiB
# (sent in its operation's chain, behind an RDMA write), the last too.
rdma_last() {
	local stage=$1 fam=$2 log pid rc=0

	suite_skipped "$stage-rdma-last" && return 0
	log=$(mktemp)
	"$XHOST" --family "$fam" --impl doca --addr "$IB_PEER" \
		--peer "$IB_ADDR" --transport ib --mode rdma-cong --port 7300 \
		--count 100 >"$log" 2>&1 &
	pid=$!
	run_suite "$stage-rdma-last" "$XHOST" --family "$fam" --impl doca \
		"${IB_ARGS[@]}" --mode rdma-cong --port 7300 --count 100
	wait "$pid" || rc=$?
	check "$rc" "$stage-rdma-last: the other end ($IB_PEER) passed" \
		"$(grep -v '^ok' "$log")"
	rm -f "$log"
}

# suites STAGE FAMILY IMPL TRANSPORT: rds_api_test, rds_order_test and,
# for rds_doca, rds_rdma_test, rds_bounds_test and the sync event
# example, expecting the behaviour of IMPL (doca or rds), over loopback
# (loop) or between the two addresses of the rxe device (ib) or siw
# device (iw: no atomics, so no sync event example, which uses them);
# then the same suites over IPv6: ::1 on loopback, the device's two
# IPv6 addresses over IB and iWARP (rds_doca only: DIFFERENCES.txt (h)).
suites() {
	local stage=$1 fam=$2 impl=$3 transport=$4 addrs=() order=() rdma=()
	local v6=() fams=("") ll=()

	# Soft-iWARP: no atomics, fast registrations of 256 pages, and 16
	# regions for a read's sink
	[[ $transport == iw ]] &&
		rdma=(--no-atomics --mr-pages "$(iw_frwr)" --read-sinks 16)
	if [[ $transport == ib || $transport == iw ]]; then
		addrs=("${IB_ARGS[@]}")
		# DIFFERENCES.txt (h): net/rds over IB between two local
		# addresses stalls once a receiver has been congested
		[[ $impl == rds ]] && order=(--rcvbuf $((64 << 20)))
		# the IPv6 tests between the device's IPv6 addresses, and
		# over RoCE between two link-local ones
		[[ $impl == doca ]] && v6=("${IB6_ARGS[@]}") && fams+=(6)
		[[ $impl == doca && $transport == ib ]] &&
			ll=(--link-local "$IB_NETDEV")
	elif [[ $stage != dropin && $stage != dma ]]; then
		# drop-in mode and the copy engine have no address paths of
		# their own: the doca stage's IPv6 pass covers them
		fams+=(6)
	fi
	for f in "${fams[@]}"; do
		suites_of "$stage" "$fam" "$impl" "$transport" "$f" \
			"${addrs[@]}" "${v6[@]}"
	done
	[[ $impl == doca ]] || return 0
	if [[ $transport == iw ]]; then
		:
	elif [[ $transport == ib ]]; then
		run_suite "$stage-sync-event" "$SYNC_EVENT" \
			--family "$fam" --addr "$IB_ADDR" --peer "$IB_PEER"
	else
		run_suite "$stage-sync-event" "$SYNC_EVENT" --family "$fam"
	fi
}

# suites_of STAGE FAMILY IMPL TRANSPORT [6] ADDRESS-OPTION...: the suites
# of suites() over IPv4, or over IPv6 (--ipv6) with 6; their checks are
# named STAGE-api, STAGE-api6 and so on.  Uses suites()'s order, rdma
# and ll (the api suite's).
suites_of() {
	local stage=$1 fam=$2 impl=$3 transport=$4 v=$5 ip=()

	shift 5
	[[ $v == 6 ]] && ip=(--ipv6)
	run_suite "$stage-api$v" "$API" --family "$fam" --impl "$impl" \
		"${ip[@]}" "$@" "${ll[@]}"
	# shellcheck disable=SC2086
	run_suite "$stage-order$v" "$ORDER" --family "$fam" --impl "$impl" \
		"${ip[@]}" "$@" "${order[@]}" $ORDER_ARGS
	# RDMA and atomics: rds_doca's, over loopback and over IB (net/rds
	# has no RDMA on its loopback transport and refuses RDS_GET_MR on
	# Soft-RoCE); against net/rds over loopback, the argument checks
	# that come before its EOPNOTSUPP (DIFFERENCES.txt (k))
	if [[ $impl == rds && $transport == loop ]]; then
		run_suite "$stage-rdma-args$v" "$RDMA" --family "$fam" \
			--impl rds "${ip[@]}"
	fi
	if [[ $impl == doca ]]; then
		run_suite "$stage-rdma$v" "$RDMA" --family "$fam" --impl doca \
			"${ip[@]}" "$@" "${rdma[@]}"
		run_suite "$stage-bounds$v" "$BOUNDS" --family "$fam" \
			--impl doca "${ip[@]}" "$@"
	fi
}

# probe STAGE FAMILY IMPL: a socket binds to each rxe address and they
# exchange a message; fails (returns 1) if any of that failed.
probe() {
	local failed=$FAILED

	run_suite "$1-probe" "$STREAM" --probe --family "$2" --impl "$3" \
		"${IB_ARGS[@]}"
	[[ $FAILED == "$failed" ]] && return 0
	diag "$1: nothing more to run: the probe failed"
	return 1
}

# insmod_doca [PARAM...]: load rds_doca and, first, the rdma_cm its IB
# transport needs (insmod resolves no dependencies).
insmod_doca() {
	modprobe rdma_cm 2>&1 && insmod "$KO" "$@" 2>&1
}

# ---------------------------------------------------------------------------

echo "# rds selftests on $(uname -r), module $KO"

if ! { make -s -C "$HERE" && make -s -C "$HERE/../compat"; } \
	>/tmp/rds-selftests-build.log 2>&1; then
	check 1 "build the test programs" "$(tail -20 /tmp/rds-selftests-build.log)"
	tap_finish
	exit 1
fi
API=$HERE/rds_api_test
RDMA=$HERE/rds_rdma_test
XHOST=$HERE/rds_xhost_test
BOUNDS=$HERE/rds_bounds_test
CONN_FLOOD=$HERE/rds_conn_flood_test
SYNC_EVENT=$HERE/../../tools/rds-demo/rds-sync-event
ORDER=$HERE/rds_order_test
CTL=$HERE/rdsctl_test.py
RDSCTL=$HERE/../../tools/rdsctl/rdsctl
TRACE=$HERE/trace_test.sh
TEST_DMA_KO=$(dirname "$KO")/rdsd_test_dma.ko
TEST_DMA=/sys/module/rdsd_test_dma/parameters
DISCOVER=$HERE/rds_discover
STREAM=$HERE/rds_stream_test
HOSTILE=$HERE/rds_hostile_peer
COMPAT=$HERE/../compat/rds_compat_test

# Start from a clean slate.
for m in rds_doca rds_rdma rds_tcp rds; do
	if loaded "$m"; then
		out=$(unload "$m")
		check $? "setup: unload $m left loaded before the run" "$out"
	fi
done

have_ko=0
[[ -f $KO ]] && have_ko=1

# sysctl_files STAGE FAMILY: historic tools find rds_doca through
# /proc/sys/net/rds while rds.ko is not loaded, never while it is.
sysctl_files() {
	local stage=$1 fam=$2 out

	check "$(status test "$(cat /proc/sys/net/rds_doca/pf_rds)" = "$fam")" \
		"$stage: /proc/sys/net/rds_doca/pf_rds holds $fam"
	check "$(status test "$(cat /proc/sys/net/rds_doca/sol_rds)" = 276)" \
		"$stage: /proc/sys/net/rds_doca/sol_rds holds 276"
	run_suite "$stage-discover" "$DISCOVER" --expect-family "$fam"
	out=$(modprobe rds 2>&1)
	if check $? "$stage: modprobe rds beside rds_doca" "$out"; then
		check "$(status test ! -e /proc/sys/net/rds/pf_rds)" \
			"$stage: with rds.ko loaded, /proc/sys/net/rds/pf_rds is gone" \
			"$(cat /proc/sys/net/rds/pf_rds 2>&1)"
		run_suite "$stage-discover-rds" "$DISCOVER" --expect-family 21 \
			--source fallback
		out=$(unload rds)
		check $? "$stage: rmmod rds" "$out"
		check "$(status test "$(cat /proc/sys/net/rds/pf_rds 2>&1)" = "$fam")" \
			"$stage: without rds.ko, /proc/sys/net/rds/pf_rds is back"
	fi
}

# no_autoload STAGE: with rds_doca installed in the module tree (so that
# an alias would find it) and not loaded, an unprivileged socket(25, ...)
# fails with EAFNOSUPPORT and loads nothing: the module has no net-pf
# alias, an administrator loads it.
no_autoload() {
	local stage=$1 dir out

	dir=/lib/modules/$(uname -r)/updates/rds-selftest
	out=$({ mkdir -p "$dir" && cp "$KO" "$dir/rds_doca.ko" &&
		depmod -a; } 2>&1)
	if check $? "$stage: rds_doca.ko installed in the module tree" "$out"; then
		out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			/usr/bin/python3 -c '
import errno, socket, sys
try:
    socket.socket(25, socket.SOCK_SEQPACKET, 0)
except OSError as e:
    print(errno.errorcode.get(e.errno, e.errno))
    sys.exit(e.errno != errno.EAFNOSUPPORT)
print("socket() succeeded")
sys.exit(1)' 2>&1)
		check $? "$stage: unprivileged socket(25, SOCK_SEQPACKET, 0) -> EAFNOSUPPORT" \
			"$out"
		check "$(status eval '! loaded rds_doca')" \
			"$stage: ... and rds_doca stays unloaded" \
			"$(lsmod | grep rds)"
		loaded rds_doca && unload rds_doca >/dev/null
	fi
	rm -rf "$dir"
	depmod -a
}

# param_refused STAGE PARAM=VALUE WHY: loading with the parameter fails,
# leaves nothing loaded, and the kernel log says WHY
param_refused() {
	local stage=$1 param=$2 why=$3 out rc

	out=$(insmod_doca "$param")
	rc=$?
	check "$(status test $rc -ne 0)" "$stage: insmod $param is refused" \
		"$out"
	check "$(status eval "! loaded rds_doca")" \
		"$stage: ... and rds_doca stays unloaded"
	check "$(status eval "dmesg | tail -n 20 | grep -qF '$why'")" \
		"$stage: ... the kernel log says $why"
}

# max_msg_size: outside 1..64 MiB the load is refused, saying why; 64 MiB
# itself is taken
max_msg_size_param() {
	local v out

	for v in 0 67108865; do
		param_refused doca max_msg_size=$v \
			"max_msg_size=$v is out of range"
	done
	out=$(insmod_doca max_msg_size=67108864)
	if check $? "doca: insmod max_msg_size=67108864 (64 MiB)" "$out"; then
		v=$(cat /sys/module/rds_doca/parameters/max_msg_size 2>/dev/null)
		check "$(status test "$v" = 67108864)" \
			"doca: ... the parameter reads 67108864" "read '$v'"
		out=$(unload rds_doca)
		check $? "doca: rmmod rds_doca" "$out"
	fi
}

# ib_paths: outside 1..8 the load is refused, saying why; with 2, two
# queue pairs between the two addresses carry the senders that pick them
ib_paths_param() {
	local v out fam

	for v in 0 9; do
		param_refused ib ib_paths=$v \
			"ib_paths=$v: the count of paths is 1..8"
	done
	out=$(insmod_doca ib_paths=2)
	if check $? "ib: insmod rds_doca.ko ib_paths=2" "$out"; then
		fam=$(family_param)
		run_suite ib-paths "$HERE/ib_paths_test.py" --family "$fam" \
			--addr "$IB_ADDR" --peer "$IB_PEER" --paths 2 \
			--rdsctl "$RDSCTL"
		out=$(unload rds_doca 5)
		check $? "ib: rmmod rds_doca ib_paths=2" "$out"
	fi
}

# 1. rds_doca under its own family number
if want_stage doca; then
	if check $((1 - have_ko)) "doca: module $KO exists"; then
		# an unprivileged socket() loads nothing; make install,
		# modprobe, the demo, make uninstall (INSTALL_TESTS=0: not
		# again, where a stock kernel ran them already)
		if [[ ${INSTALL_TESTS:-1} == 1 ]]; then
			no_autoload doca
			run_suite doca-install \
				"$HERE/../install/install_test.sh" --ko "$KO"
		fi
		max_msg_size_param
		out=$(insmod_doca)
		if check $? "doca: insmod rds_doca.ko" "$out"; then
			fam=$(family_param)
			check "$(status test "$fam" = 25)" \
				"doca: default family is 25 (AF_INET_OFFLOAD)" \
				"family parameter: '${fam}'"
			check "$(status eval '! loaded rds')" \
				"doca: rds.ko was not pulled in"
			suites doca "${fam:-25}" doca loop
			run_suite doca-compat "$COMPAT" --family "${fam:-25}" \
				--impl doca
			run_suite doca-rdsctl "$CTL" --family "${fam:-25}"
			run_suite doca-trace "$TRACE" --family "${fam:-25}"
			sysctl_files doca "${fam:-25}"
			out=$(unload rds_doca)
			check $? "doca: rmmod rds_doca" "$out"
		fi
	fi
fi

# 2. family=21 while rds.ko owns AF_RDS
if want_stage conflict; then
	if check $((1 - have_ko)) "conflict: module $KO exists"; then
		out=$(modprobe rds 2>&1)
		if check $? "conflict: modprobe rds" "$out"; then
			tag="rds-selftest-$$-$RANDOM"
			echo "$tag" > /dev/kmsg
			out=$(insmod_doca family=21)
			rc=$?
			check "$(status test "$rc" != 0)" \
				"conflict: insmod rds_doca.ko family=21 fails while rds.ko is loaded" \
				"insmod succeeded: $out"
			check "$(status eval '! loaded rds_doca')" \
				"conflict: rds_doca is not left loaded"
			loaded rds_doca && unload rds_doca >/dev/null
			# the kernel log after our tag, rds_doca's lines
			klog=$(dmesg | sed -n "/$tag/,\$p" | grep -i 'rds_doca')
			check "$(status grep -qiE 'family|21|AF_RDS' <<<"$klog")" \
				"conflict: the kernel log names the family in use" \
				"rds_doca lines in dmesg: ${klog:-none}"
			check "$(status loaded rds)" \
				"conflict: rds.ko is still loaded"
		fi
	fi
fi

# 3. the in-tree net/rds, loopback transport only
if want_stage rds; then
	if ! loaded rds; then
		out=$(modprobe rds 2>&1)
		check $? "rds: modprobe rds" "$out"
	fi
	if loaded rds; then
		check "$(status no_other_transport)" \
			"rds: only the loopback transport (no rds_tcp, rds_rdma)" \
			"$(lsmod | grep '^rds')"
		suites rds 21 rds loop
		run_suite rds-compat "$COMPAT" --family 21 --impl rds \
			--linux-names
		check "$(status no_other_transport)" \
			"rds: the suites loaded no other transport" \
			"$(lsmod | grep '^rds')"
		out=$(unload rds)
		check $? "rds: rmmod rds" "$out"
	fi
fi

# 4. rds_doca as AF_RDS: unmodified AF_RDS programs
if want_stage dropin; then
	if loaded rds; then
		out=$(unload rds)
		check $? "dropin: rmmod rds" "$out"
	fi
	if check $((1 - have_ko)) "dropin: module $KO exists"; then
		out=$(insmod_doca family=21)
		if check $? "dropin: insmod rds_doca.ko family=21" "$out"; then
			fam=$(family_param)
			check "$(status test "$fam" = 21)" \
				"dropin: family parameter reads 21" \
				"family parameter: '${fam}'"
			suites dropin 21 doca loop
			# Linux's counter names, as rds-info -c shows them
			run_suite dropin-compat "$COMPAT" --family 21 \
				--impl doca --linux-names
			run_suite dropin-discover "$DISCOVER" --expect-family 21
			out=$(unload rds_doca)
			check $? "dropin: rmmod rds_doca" "$out"
		fi
	fi
fi

# counter NAME: one of rds_doca's counters in this namespace
counter() {
	"$RDSCTL" -j stats show |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["counters"].get(sys.argv[1], -1))' "$1"
}

# dma_fault STAGE PARAM VALUE WHAT: the order test and the RDMA tests that
# copy data while the test engine injects PARAM=VALUE; every copy must
# still be whole.
dma_fault() {
	local stage=$1 param=$2 value=$3 what=$4 out

	out=$({ echo "$value" > "$TEST_DMA/$param"; } 2>&1)
	check $? "$stage: engine fault $param=$value ($what)" "$out"
	run_suite "$stage-order" "$ORDER" --family "$fam" --impl doca \
		--messages 1000 --max-size 131072
	# the tests whose operations copy data; refusals copy nothing
	run_suite "$stage-rdma" "$RDMA" --family "$fam" --impl doca \
		--filter rdma_,atomic_,mrlist_,life_
	echo 0 > "$TEST_DMA/$param"
}

# 5. every copy through a DMA engine, with and without faults
if want_stage dma; then
	if check $((1 - have_ko)) "dma: module $KO exists" &&
	   check "$(status test -f "$TEST_DMA_KO")" \
		"dma: test engine $TEST_DMA_KO exists"; then
		out=$(insmod "$TEST_DMA_KO" 2>&1)
		check $? "dma: insmod rdsd_test_dma.ko" "$out"
		out=$(insmod_doca dma_send_min=0 dma_recv_min=0 dma_rdma_min=0)
		if check $? "dma: insmod rds_doca.ko, every copy to the engine" "$out"; then
			fam=$(family_param)
			info=$("$RDSCTL" info 2>&1)
			check "$(status grep -qE '^dma +engine' <<<"$info")" \
				"dma: rdsctl info: the engine is in use" "$info"
			# every copy goes through a software engine: fewer
			# messages cover its paths
			saved=$ORDER_ARGS
			ORDER_ARGS="$ORDER_ARGS --messages 20000"
			suites dma "$fam" doca loop
			ORDER_ARGS=$saved
			# without iov_iter_extract_pages() (before 6.3) user
			# pages cannot be pinned: recvmsg stays on the CPU
			engine_dirs="send recv rdma"
			[[ $(printf '%s\n' 6.3 "$(uname -r)" | sort -V |
			     head -n 1) == 6.3 ]] || engine_dirs="send rdma"
			for c in $engine_dirs; do
				n=$(counter "copy_${c}_engine_bytes")
				check "$(status test "${n:-0}" -gt 0)" \
					"dma: $c copies went through the engine" \
					"copy_${c}_engine_bytes: $n"
				diag "dma: copy_${c}_engine: $(counter "copy_${c}_engine_ops") ops, $n bytes"
			done
			if [[ $engine_dirs != *recv* ]]; then
				n=$(counter copy_recv_engine_ops)
				check "$(status test "$n" = 0)" \
					"dma: before 6.3, recvmsg copies stay on the CPU" \
					"copy_recv_engine_ops: $n"
			fi
			n=$(cat "$TEST_DMA/stat_bytes")
			check "$(status test "${n:-0}" -gt 0)" \
				"dma: the test engine copied bytes" "stat_bytes: $n"
			n=$(counter copy_send_fallback_ops)
			check "$(status test "$n" = 0)" \
				"dma: no fallback without a fault" "copy_send_fallback_ops: $n"

			dma_fault dma-fail fail_every 3 "every third descriptor fails half copied"
			n=$(counter copy_send_fallback_ops)
			m=$(counter copy_rdma_fallback_ops)
			check "$(status test "$n" -gt 0 -a "$m" -gt 0)" \
				"dma: failed descriptors fell back to the CPU" \
				"copy_send_fallback_ops $n, copy_rdma_fallback_ops $m"
			dma_fault dma-prep fail_prep 4 "every fourth preparation fails"
			dma_fault dma-slow delay_us 100 "each completion 100 us late"
			dma_fault dma-reorder reorder 1 "completions in reverse order"
			diag "dma: test engine: $(cat "$TEST_DMA/stat_copies") copies," \
			     "$(cat "$TEST_DMA/stat_failed") failed," \
			     "$(cat "$TEST_DMA/stat_prep_failed") refused"

			# released at run time: the provider can go
			out=$(rmmod rdsd_test_dma 2>&1)
			check "$(status test $? != 0)" \
				"dma: the engine's provider is held while in use" "$out"
			out=$("$RDSCTL" dma set mode off 2>&1)
			check $? "dma: rdsctl dma set mode off" "$out"
			out=$(unload rdsd_test_dma)
			check $? "dma: rmmod rdsd_test_dma once released" "$out"
			if ! suite_skipped dma-off-order; then
				before=$(counter copy_send_engine_ops)
				run_suite dma-off-order "$ORDER" --family "$fam" \
					--impl doca --messages 20000
				n=$(counter copy_send_engine_ops)
				check "$(status test "$n" = "$before")" \
					"dma: mode off, no copy reaches an engine" \
					"copy_send_engine_ops $before -> $n"
			fi
			out=$(insmod "$TEST_DMA_KO" 2>&1) &&
				out=$("$RDSCTL" dma set mode auto 2>&1)
			check $? "dma: a provider loaded again is taken" "$out"
			info=$("$RDSCTL" info 2>&1)
			check "$(status grep -qE '^dma +engine' <<<"$info")" \
				"dma: rdsctl info: the engine is in use again" "$info"
			out=$(unload rds_doca)
			check $? "dma: rmmod rds_doca" "$out"
		fi
		out=$(unload rdsd_test_dma)
		check $? "dma: rmmod rdsd_test_dma" "$out"
	fi
fi

# 6. connections an unprivileged user makes: limited, freed when idle
if want_stage conns; then
	if check $((1 - have_ko)) "conns: module $KO exists"; then
		out=$(insmod_doca max_conns=1000 conn_idle_secs=2)
		if check $? "conns: insmod rds_doca.ko max_conns=1000 conn_idle_secs=2" "$out"; then
			fam=$(family_param)
			run_suite conns-flood "$CONN_FLOOD" --family "${fam:-25}" \
				--impl doca
			out=$(unload rds_doca)
			check $? "conns: rmmod rds_doca" "$out"
		fi
	fi
fi

# 7. rds_doca over its IB transport
if want_stage ib; then
	if check $((1 - have_ko)) "ib: module $KO exists" && rxe_setup ib; then
		out=$(insmod_doca)
		if check $? "ib: insmod rds_doca.ko" "$out"; then
			fam=$(family_param)
			if probe ib "$fam" doca; then
				suites ib "$fam" doca ib
				run_suite ib-compat "$COMPAT" --family "$fam" \
					--impl doca "${IB_ARGS[@]}"
				run_suite ib-rdsctl "$CTL" --family "$fam" \
					"${IB_ARGS[@]}" "${IB6_ARGS[@]}" \
					--netdev "$IB_NETDEV" --ibdev "$IB_DEV"
				run_suite ib-trace "$TRACE" --family "$fam" \
					"${IB_ARGS[@]}"
				run_suite ib-trace6 "$TRACE" --family "$fam" \
					--addr "$IB_ADDR6" --peer "$IB_PEER6" \
					--transport ib --ipv6
				# last but one: each of its addresses is left
				# with an idle connection of the module to itself
				run_suite ib-hostile "$HOSTILE" --family "$fam" \
					--impl doca "${IB_ARGS[@]}" \
					--netdev "$IB_NETDEV" --rdsctl "$RDSCTL"
				run_suite ib-hostile6 "$HOSTILE" --family "$fam" \
					--impl doca --ipv6 "${IB6_ARGS[@]}" \
					--netdev "$IB_NETDEV" --rdsctl "$RDSCTL"
				rdma_last ib "$fam"
			fi
			# finished operations hold their sockets, and so the
			# module, only until their sends are retired, which
			# takes no later traffic
			t0=$(date +%s%N)
			out=$(unload rds_doca 5)
			rc=$?
			diag "ib: rmmod rds_doca done $(( ($(date +%s%N) - t0) / 1000000 )) ms after the last socket closed"
			check $rc "ib: rmmod rds_doca within 5 s of the last socket closing" \
				"$out"
		fi
		ib_paths_param
	fi
	out=$(rxe_teardown)
	check $? "ib: remove $IB_DEV and $IB_NETDEV" "$out"
fi

# 8. rds_doca across link and device faults
if want_stage ib-faults; then
	if check $((1 - have_ko)) "ib-faults: module $KO exists" &&
	   rxe_setup ib-faults; then
		out=$(insmod_doca)
		if check $? "ib-faults: insmod rds_doca.ko" "$out"; then
			fam=$(family_param)
			if probe ib-faults "$fam" doca; then
				# shellcheck disable=SC2086
				run_suite ib-faults "$HERE/ib_faults.sh" \
					--family "$fam" --impl doca \
					--netdev "$IB_NETDEV" --dev "$IB_DEV" \
					--addr "$IB_ADDR" --peer "$IB_PEER" \
					$FAULTS_ARGS
				# and between the device's IPv6 addresses
				# shellcheck disable=SC2086
				run_suite ib-faults6 "$HERE/ib_faults.sh" \
					--family "$fam" --impl doca \
					--netdev "$IB_NETDEV" --dev "$IB_DEV" \
					--addr6 "$IB_ADDR6" --peer6 "$IB_PEER6" \
					$FAULTS_ARGS
			fi
			# the connections of the last stream are still up
			out=$(unload rds_doca)
			check $? "ib-faults: rmmod rds_doca with its connections up" \
				"$out"
		fi
	fi
	out=$(rxe_teardown)
	check $? "ib-faults: remove $IB_DEV and $IB_NETDEV" "$out"
	if loaded rds_doca; then
		out=$(unload rds_doca)
		diag "ib-faults: without $IB_DEV, rmmod rds_doca:" \
		     "${out:-succeeds}"
	fi
fi

# tcp_teardown: remove the TCP stage's interfaces and namespaces.
tcp_teardown() {
	local rc=0

	if ip link show "$TCP_NETDEV" >/dev/null 2>&1; then
		ip link delete "$TCP_NETDEV" 2>&1 || rc=1
	fi
	for ns in "$NS_A" "$NS_B"; do
		if ip netns list | grep -qw "$ns"; then
			ip netns delete "$ns" 2>&1 || rc=1
		fi
	done
	return $rc
}

# tcp_setup STAGE: the dummy interface with both addresses, no RDMA
# device on it; two namespaces, each with one end of a veth pair.
tcp_setup() {
	local out

	tcp_teardown >/dev/null
	out=$({ modprobe dummy &&
		ip link add "$TCP_NETDEV" type dummy &&
		ip addr add "$TCP_ADDR/24" dev "$TCP_NETDEV" &&
		ip addr add "$TCP_PEER/24" dev "$TCP_NETDEV" &&
		ip -6 addr add "$TCP_ADDR6/64" dev "$TCP_NETDEV" nodad &&
		ip -6 addr add "$TCP_PEER6/64" dev "$TCP_NETDEV" nodad &&
		ip -6 addr add fe80::1/64 dev "$TCP_NETDEV" nodad &&
		ip -6 addr add fe80::2/64 dev "$TCP_NETDEV" nodad &&
		ip link set "$TCP_NETDEV" up &&
		ip route add "$TCP_DEAD_NET/24" dev "$TCP_NETDEV" &&
		ip -6 route add "$TCP_DEAD_NET6/64" dev "$TCP_NETDEV" &&
		ip netns add "$NS_A" && ip netns add "$NS_B" &&
		ip -n "$NS_A" link add v0 type veth peer name v1 netns "$NS_B" &&
		ip -n "$NS_A" addr add "$NS_ADDR_A/24" dev v0 &&
		ip -n "$NS_B" addr add "$NS_ADDR_B/24" dev v1 &&
		ip netns exec "$NS_A" sysctl -qw \
			net.ipv6.conf.v0.keep_addr_on_down=1 &&
		ip netns exec "$NS_B" sysctl -qw \
			net.ipv6.conf.v1.keep_addr_on_down=1 &&
		ip -n "$NS_A" -6 addr add "$NS_ADDR6_A/64" dev v0 nodad &&
		ip -n "$NS_B" -6 addr add "$NS_ADDR6_B/64" dev v1 nodad &&
		ip -n "$NS_A" link set v0 up && ip -n "$NS_A" link set lo up &&
		ip -n "$NS_B" link set v1 up && ip -n "$NS_B" link set lo up; } 2>&1)
	check $? "$1: dummy $TCP_NETDEV with $TCP_ADDR, $TCP_PEER, $TCP_ADDR6, $TCP_PEER6, fe80::1 and fe80::2, $TCP_DEAD_NET/24 and $TCP_DEAD_NET6/64 routed to it; namespaces $NS_A ($NS_ADDR_A, $NS_ADDR6_A) and $NS_B ($NS_ADDR_B, $NS_ADDR6_B) on a veth pair" \
		"$out"
}

# log_ready LOG PID: until the program writing LOG said "# ready", or
# ended, or 10 s passed.
log_ready() {
	for _ in $(seq 100); do
		grep -q '^# ready$' "$1" && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# netns_pair STAGE FAMILY [6]: an echo server in one namespace, round
# trips of 0 bytes to 1 MiB and a pipelined burst from the other, then a
# sequenced stream; the two namespaces talk over TCP as two hosts would,
# between their IPv4 addresses, or with 6 their IPv6 ones (checks named
# STAGE-netns6-...).
netns_pair() {
	local stage=$1-netns${3:-} fam=$2 log pid spid rc=0 c out a b
	local in_a in_b

	suite_skipped "$stage" && return 0
	c=(--family "$fam" --impl doca --transport tcp)
	in_a=(--addr "$NS_ADDR_A" --peer "$NS_ADDR_B")
	in_b=(--addr "$NS_ADDR_B" --peer "$NS_ADDR_A")
	a=$NS_ADDR_A b=$NS_ADDR_B
	if [[ ${3:-} == 6 ]]; then
		c+=(--ipv6 --transport6 tcp)
		in_a+=(--addr6 "$NS_ADDR6_A" --peer6 "$NS_ADDR6_B")
		in_b+=(--addr6 "$NS_ADDR6_B" --peer6 "$NS_ADDR6_A")
		a=$NS_ADDR6_A b=$NS_ADDR6_B
	fi
	log=$(mktemp)
	ip netns exec "$NS_B" "$XHOST" "${c[@]}" "${in_b[@]}" \
		--mode echo --port 5000 >"$log" 2>&1 &
	pid=$!
	log_ready "$log" "$pid"
	run_suite "$stage-ping" ip netns exec "$NS_A" "$XHOST" \
		"${c[@]}" "${in_a[@]}" --mode ping --port 5000
	wait "$pid" || rc=$?
	check "$rc" "$stage: the echo server in $NS_B passed" \
		"$(grep -v '^ok' "$log")"

	ip netns exec "$NS_B" "$XHOST" "${c[@]}" "${in_b[@]}" \
		--mode stream-recv --port 6000 \
		--sport 6002 --count 2000 >"$log" 2>&1 &
	pid=$!
	log_ready "$log" "$pid"
	run_suite "$stage-stream" ip netns exec "$NS_A" "$XHOST" \
		"${c[@]}" "${in_a[@]}" \
		--mode stream-send --port 6002 --dport 6000 --from 0 --to 2000
	rc=0
	wait "$pid" || rc=$?
	check "$rc" "$stage: the stream's receiver in $NS_B got every message once, in order" \
		"$(grep -v '^ok' "$log")"

	# RDMA and atomics between the namespaces: reads, writes and
	# atomics through cookies the owner in $NS_B hands over, a used-up
	# and a freed cookie refused
	ip netns exec "$NS_B" "$XHOST" "${c[@]}" "${in_b[@]}" \
		--mode rdma-owner --port 7200 >"$log" 2>&1 &
	pid=$!
	log_ready "$log" "$pid"
	run_suite "$stage-rdma" ip netns exec "$NS_A" "$XHOST" \
		"${c[@]}" "${in_a[@]}" --mode rdma-user --port 7200
	rc=0
	wait "$pid" || rc=$?
	check "$rc" "$stage-rdma: the region's owner in $NS_B passed" \
		"$(grep -v '^ok' "$log")"

	# faults under a stream: the link goes down and up, then the
	# connection is dropped again and again (resets: the unacknowledged
	# are sent again); how many came mid-stream is only reported
	ip netns exec "$NS_B" "$XHOST" "${c[@]}" "${in_b[@]}" \
		--mode stream-recv --port 6100 \
		--sport 6102 --count 30000 >"$log" 2>&1 &
	pid=$!
	log_ready "$log" "$pid"
	ip netns exec "$NS_A" "$XHOST" "${c[@]}" "${in_a[@]}" \
		--mode stream-send --port 6102 --dport 6100 --from 0 \
		--to 30000 >"$log.send" 2>&1 &
	spid=$!
	sleep 0.3
	ip -n "$NS_A" link set v0 down
	sleep 1
	ip -n "$NS_A" link set v0 up
	# drops until the stream ends (one at least): resets mid-stream
	for _ in $(seq 20); do
		ip netns exec "$NS_A" "$RDSCTL" conn drop peer "$b" \
			laddr "$a" transport tcp >/dev/null 2>&1
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	rc=0
	wait "$spid" || rc=$?
	check "$rc" "$stage-faults: the sender in $NS_A sent 30000 messages across a link flap and dropped connections" \
		"$(grep -v '^ok' "$log.send")"
	rc=0
	wait "$pid" || rc=$?
	check "$rc" "$stage-faults: its receiver in $NS_B got every message once, in order" \
		"$(grep -v '^ok' "$log")"
	diag "$stage-faults: $(ip netns exec "$NS_A" "$RDSCTL" -j conn show \
	      peer "$b" 2>&1 | grep -o '"connects":[0-9]*' | head -n 1)"
	rm -f "$log" "$log.send"
}

# 9. the in-tree rds_rdma over the same device, the reference
if want_stage rds-ib; then
	if rxe_setup rds-ib; then
		out=$(modprobe rds_rdma 2>&1)
		if check $? "rds-ib: modprobe rds_rdma" "$out"; then
			if probe rds-ib 21 rds; then
				suites rds-ib 21 rds ib
				run_suite rds-ib-compat "$COMPAT" --family 21 \
					--impl rds --linux-names "${IB_ARGS[@]}"
			fi
			# DIFFERENCES.txt (i): each bind() that failed with
			# EADDRINUSE left a reference on rds_rdma
			if ! out=$(unload rds_rdma && unload rds); then
				diag "rds-ib: rds_rdma stays loaded" \
				     "($(cat /sys/module/rds_rdma/refcnt)" \
				     "references): $out"
			fi
		fi
	fi
	out=$(rxe_teardown)
	check $? "rds-ib: remove $IB_DEV and $IB_NETDEV" "$out"
fi

# 10. rds_doca over its TCP transport: two addresses of one namespace,
# then two namespaces
if want_stage tcp; then
	if check $((1 - have_ko)) "tcp: module $KO exists" && tcp_setup tcp; then
		out=$(insmod_doca)
		if check $? "tcp: insmod rds_doca.ko" "$out"; then
			fam=$(family_param)
			run_suite tcp-probe "$STREAM" --probe --family "$fam" \
				--impl doca "${TCP_ARGS[@]}"
			for v in "" 6; do
				ip=()
				[[ $v == 6 ]] && ip=(--ipv6)
				run_suite "tcp-api$v" "$API" --family "$fam" \
					--impl doca "${ip[@]}" "${TCP_ARGS[@]}" \
					"${TCP6_ARGS[@]}" \
					--link-local "$TCP_NETDEV"
				# shellcheck disable=SC2086
				run_suite "tcp-order$v" "$ORDER" --family "$fam" \
					--impl doca "${ip[@]}" "${TCP_ARGS[@]}" \
					"${TCP6_ARGS[@]}" $ORDER_ARGS
				run_suite "tcp-rdma$v" "$RDMA" --family "$fam" \
					--impl doca "${ip[@]}" "${TCP_ARGS[@]}" \
					"${TCP6_ARGS[@]}"
				run_suite "tcp-bounds$v" "$BOUNDS" --family "$fam" \
					--impl doca "${ip[@]}" "${TCP_ARGS[@]}" \
					"${TCP6_ARGS[@]}"
			done
			run_suite tcp-hostile "$HERE/tcp_hostile_test.py" \
				--family "$fam" --addr "$TCP_ADDR" \
				--peer "$TCP_PEER" --netdev "$TCP_NETDEV" \
				--rdsctl "$RDSCTL"
			run_suite tcp-hostile6 "$HERE/tcp_hostile_test.py" \
				--family "$fam" --addr "$TCP_ADDR6" \
				--peer "$TCP_PEER6" --netdev "$TCP_NETDEV" \
				--rdsctl "$RDSCTL"
			run_suite tcp-attempts "$HERE/tcp_attempts_test.py" \
				--family "$fam" --addr "$TCP_ADDR" \
				--peer "$TCP_PEER" --net "$TCP_DEAD_NET"
			netns_pair tcp "$fam"
			netns_pair tcp "$fam" 6
			out=$(unload rds_doca 5)
			check $? "tcp: rmmod rds_doca within 5 s of the last socket closing" \
				"$out"
		fi
		# an unprivileged user's type-of-service lanes: bounded and
		# reaped as any connection (a short conn_idle_secs to see it)
		out=$(insmod_doca max_conns=1000 conn_idle_secs=2)
		if check $? "tcp: insmod rds_doca.ko max_conns=1000 conn_idle_secs=2" \
			"$out"; then
			run_suite tcp-tos-flood "$CONN_FLOOD" \
				--family "$(family_param)" --impl doca \
				"${TCP_ARGS[@]}"
			out=$(unload rds_doca 5)
			check $? "tcp: rmmod rds_doca after the lane flood" "$out"
		fi
	fi
	out=$(tcp_teardown)
	check $? "tcp: remove $TCP_NETDEV, $NS_A and $NS_B" "$out"
fi

# 11. the module through DKMS, built in the guest
if want_stage dkms; then
	run_suite dkms "$HERE/../install/install_test.sh" --ko "$KO" --dkms
fi

# iw_frwr: the pages one registration maps on the siw device.
iw_frwr() {
	"$RDSCTL" -j dev show name "$IB_DEV" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print((d[0] if isinstance(d, list) else d)["frwr_depth"])'
}

# iw_dev STAGE: rdsctl shows the siw device as iWARP, without atomics.
iw_dev() {
	local out

	out=$("$RDSCTL" -j dev show name "$IB_DEV" 2>&1)
	check "$(status python3 -c '
import json, sys
d = json.loads(sys.argv[1])
d = d[0] if isinstance(d, list) else d
sys.exit(not (d["protocol"] == "iwarp" and d["atomic_cap"] == "none" and
	      "atomic" not in d["caps"] and "rdma-read" in d["caps"]))
' "$out")" "$1: rdsctl dev show: $IB_DEV is iwarp, atomic_cap none, no atomic cap" \
		"$out"
}

# 12. rds_doca over Soft-iWARP
if want_stage iw; then
	IB_TYPE=siw
	IB_DEV=siw0
	if check $((1 - have_ko)) "iw: module $KO exists" && rxe_setup iw; then
		out=$(insmod_doca)
		if check $? "iw: insmod rds_doca.ko" "$out"; then
			fam=$(family_param)
			if probe iw "$fam" doca; then
				iw_dev iw
				suites iw "$fam" doca iw
				run_suite iw-compat "$COMPAT" --family "$fam" \
					--impl doca "${IB_ARGS[@]}"
				run_suite iw-trace "$TRACE" --family "$fam" \
					"${IB_ARGS[@]}" --rdma-arg --no-atomics \
					--rdma-arg --mr-pages \
					--rdma-arg "$(iw_frwr)"
				run_suite iw-trace6 "$TRACE" --family "$fam" \
					--addr "$IB_ADDR6" --peer "$IB_PEER6" \
					--transport ib --ipv6 \
					--rdma-arg --no-atomics \
					--rdma-arg --mr-pages \
					--rdma-arg "$(iw_frwr)"
				run_suite iw-hostile "$HOSTILE" --family "$fam" \
					--impl doca "${IB_ARGS[@]}" \
					--netdev "$IB_NETDEV" --rdsctl "$RDSCTL"
				run_suite iw-hostile6 "$HOSTILE" --family "$fam" \
					--impl doca --ipv6 "${IB6_ARGS[@]}" \
					--netdev "$IB_NETDEV" --rdsctl "$RDSCTL"
				# shellcheck disable=SC2086
				run_suite iw-faults "$HERE/ib_faults.sh" \
					--family "$fam" --impl doca \
					--netdev "$IB_NETDEV" --dev "$IB_DEV" \
					--type siw --addr "$IB_ADDR" \
					--peer "$IB_PEER" $FAULTS_ARGS
				rdma_last iw "$fam"
			fi
			out=$(unload rds_doca 5)
			check $? "iw: rmmod rds_doca within 5 s of the last socket closing" \
				"$out"
		fi
	fi
	out=$(rxe_teardown)
	check $? "iw: remove $IB_DEV and $IB_NETDEV" "$out"
	IB_TYPE=rxe
	IB_DEV=rxe0
fi

tap_finish
