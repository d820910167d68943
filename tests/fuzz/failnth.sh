#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run inside the debug VM, as root: rds_failnth, the injected-failure
# walker (tests/fuzz/rds_failnth.c), over one transport.  Loads rdma_cm and
# rds_doca (conn_idle_secs=1, so that the walker can have a connection set
# up afresh over IB/RoCE), sets up Soft-RoCE for --transport ib as
# tests/userspace/run.sh does, points the fault attributes at rds_doca,
# runs the walker, puts the attributes back, and unloads the module, which
# must go: a failure that leaked a reference would keep it.  Kernel
# reports fail the run through the VM harness; run
# tests/vm/kmemleak-check.sh afterwards for leaks.  Prints TAP and a
# closing "N passed, N failed" line.
#
#   tests/fuzz/failnth.sh --ko PATH [--transport loop|ib] [--page-alloc[=ORDER]]
#                         [--vmalloc] [--fault-verbose N] [WALKER OPTION...]
#
# The fault attributes in /sys/kernel/debug (failslab, fail_page_alloc,
# fail_usercopy) are set so that /proc/thread-self/fail-nth counts only
# sites under rds_doca's own frames:
#
#  - require-start/require-end: the module's text (its executable
#    sections, from the .ko's section sizes and the load addresses in
#    /sys/module/rds_doca/sections), stacktrace-depth 32 (the most);
#  - reject-start/reject-end: __vmalloc_node_range(), whose failures print
#    warn_alloc()'s "vmalloc error" with a call trace, which the harness
#    takes for a kernel problem.  A kvmalloc() is not affected: only one
#    site fails per call, its kmalloc(), and the vmalloc() it falls back
#    to is never the one.  --vmalloc lifts that (then run the VM with
#    --no-dmesg-check);
#  - failslab/ignore-gfp-wait N: GFP_KERNEL allocations count too;
#  - fail_page_alloc: left out (its filter matches nothing), since a
#    failed page allocation without __GFP_NOWARN prints "page allocation
#    failure" with a call trace.  --page-alloc[=ORDER] walks page
#    allocations of at least ORDER pages (default 0) too, with
#    ignore-gfp-wait N; for manual runs under --no-dmesg-check.  (The
#    module's own page allocations try __GFP_NOWARN first and fall back,
#    so the walks of these paths printed no report either way.);
#  - verbose 0 (--fault-verbose 1 logs a line per injected failure, 2 a
#    stack trace too, except for __GFP_NOWARN allocations, which the
#    kernel never logs: to find the site of one case, e.g.
#    tests/vm/run --no-dmesg-check ... -- tests/fuzz/failnth.sh --ko PATH
#    --fault-verbose 2 --path send --call 5 --nth 3).
#
# WALKER OPTIONs go to rds_failnth: --path, --call, --nth, --cap,
# --filter, --addr, --peer (see rds_failnth --help).  The walker is built
# into build/fuzz/rds_failnth (tests/fuzz/failnth.mk), or FAILNTH_BIN.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# the walk over IB takes a minute or two under KASAN and TCG
: "${SUITE_TIMEOUT:=1500}"
# shellcheck source=tests/userspace/tap.sh
. tests/userspace/tap.sh

DBG=/sys/kernel/debug
ATTRS=(failslab fail_page_alloc fail_usercopy)
FILES=(require-start require-end reject-start reject-end stacktrace-depth
       verbose verbose_ratelimit_burst ignore-gfp-wait min-order)
# shellcheck source=tests/userspace/rxe.sh
. tests/userspace/rxe.sh
BIN=${FAILNTH_BIN:-$PWD/build/fuzz/rds_failnth}

ko=
transport=loop
page_alloc=
vmalloc=0
verbose=0
walker=()

usage() {
	cat >&2 <<EOF
usage: ${0##*/} --ko PATH [--transport loop|ib] [--page-alloc[=ORDER]]
         [--vmalloc] [--fault-verbose N] [WALKER OPTION...]
  (see the top of $0; WALKER OPTIONs: rds_failnth --help)
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--ko) ko=${2?--ko needs a path}; shift 2 ;;
	--transport) transport=${2?--transport needs loop or ib}; shift 2 ;;
	--page-alloc) page_alloc=0; shift ;;
	--page-alloc=*) page_alloc=${1#*=}; shift ;;
	--vmalloc) vmalloc=1; shift ;;
	--fault-verbose) verbose=${2?--fault-verbose needs 0, 1 or 2}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) walker+=("$1"); shift ;;
	esac
done
[[ -n $ko ]] || { usage; exit 2; }
case $transport in
loop|ib) ;;
*) usage; exit 2 ;;
esac

loaded() { [[ -d /sys/module/$1 ]]; }

# unload MODULE: rmmod, retried for 10 s (sockets go after an RCU grace
# period, idle connections after conn_idle_secs).
unload() {
	local out

	for _ in $(seq 20); do
		loaded "$1" || return 0
		out=$(rmmod "$1" 2>&1) && return 0
		sleep 0.5
	done
	echo "$out (refcnt $(cat "/sys/module/$1/refcnt" 2>/dev/null))"
	return 1
}

# The first and last byte past rds_doca's text, as "0xLO 0xHI": every
# executable section of the .ko but the init ones, where the module
# loader put it.
module_text() {
	local name size addr lo='' hi='' s e

	while read -r name size; do
		[[ -r /sys/module/rds_doca/sections/$name ]] || continue
		addr=$(<"/sys/module/rds_doca/sections/$name")
		s=$((addr))
		e=$((s + 16#$size))
		(( s == 0 )) && continue
		if [[ -z $lo ]] || (( s < lo )); then lo=$s; fi
		if [[ -z $hi ]] || (( e > hi )); then hi=$e; fi
	done < <(readelf -SW "$ko" | sed -n 's/^ *\[ *[0-9]*\] //p' |
		 awk '$7 ~ /X/ && $1 !~ /^\.init/ { print $1, $5 }')
	[[ -n $lo ]] || return 1
	printf '0x%x 0x%x\n' "$lo" "$hi"
}

# Every rds_doca function in /proc/kallsyms lies in [$1, $2).
kallsyms_within() {
	local lo=$1 hi=$2 a out=0

	while read -r a; do
		(( 16#$a >= lo && 16#$a < hi )) || { out=1; echo "$a outside"; }
	done < <(awk '$4 == "[rds_doca]" && ($2 == "t" || $2 == "T") { print $1 }' \
		 /proc/kallsyms)
	return $out
}

# __vmalloc_node_range(): "0xSTART 0xEND", its address and the next
# symbol's.
vmalloc_text() {
	local a n

	a=$(awk '$3 == "__vmalloc_node_range_noprof" ||
		 $3 == "__vmalloc_node_range" { print $1; exit }' /proc/kallsyms)
	[[ -n $a && $a != 0000000000000000 ]] || return 1
	n=$(awk -v a="$a" '($1 "") > (a "") { print $1 }' /proc/kallsyms |
		sort | head -n 1)
	[[ -n $n ]] || return 1
	echo "0x$a 0x$n"
}

declare -A saved=()

save_attrs() {
	local a f

	for a in "${ATTRS[@]}"; do
		for f in "${FILES[@]}"; do
			[[ -e $DBG/$a/$f ]] && saved[$a/$f]=$(<"$DBG/$a/$f")
		done
	done
}

restore_attrs() {
	local k rc=0

	for k in "${!saved[@]}"; do
		echo "${saved[$k]}" 2>/dev/null >"$DBG/$k" || rc=1
	done
	saved=()
	return $rc
}

# set_attrs LO HI: the settings described at the top.
set_attrs() {
	local lo=$1 hi=$2 a rs=0 re=0 r

	if [[ $vmalloc == 0 ]]; then
		r=$(vmalloc_text) || { echo "__vmalloc_node_range not in /proc/kallsyms"; return 1; }
		read -r rs re <<<"$r"
	fi
	for a in "${ATTRS[@]}"; do
		if [[ $a == fail_page_alloc && -z $page_alloc ]]; then
			# a range nothing lies in: never fails
			echo 0 >"$DBG/$a/require-start" &&
			echo 0 >"$DBG/$a/require-end" &&
			echo 0 >"$DBG/$a/stacktrace-depth" || return 1
		else
			echo "$lo" >"$DBG/$a/require-start" &&
			echo "$hi" >"$DBG/$a/require-end" &&
			echo "$rs" >"$DBG/$a/reject-start" &&
			echo "$re" >"$DBG/$a/reject-end" &&
			echo 32 >"$DBG/$a/stacktrace-depth" || return 1
		fi
		echo "$verbose" >"$DBG/$a/verbose" || return 1
		# every injected failure is logged, not 10 in 5 s
		if [[ $verbose != 0 ]]; then
			echo 100000 >"$DBG/$a/verbose_ratelimit_burst" ||
				return 1
		fi
	done
	echo N >"$DBG/failslab/ignore-gfp-wait" || return 1
	if [[ -n $page_alloc ]]; then
		echo N >"$DBG/fail_page_alloc/ignore-gfp-wait" &&
		echo "$page_alloc" >"$DBG/fail_page_alloc/min-order" || return 1
	fi
}

cleanup() {
	restore_attrs
	loaded rds_doca && unload rds_doca >/dev/null
	[[ $transport == ib ]] && rxe_teardown >/dev/null
}

# ---------------------------------------------------------------------------

diag "failnth: $transport, module $ko, kernel $(uname -r)"
[[ -n $page_alloc ]] && diag "failnth: page allocations of order >= $page_alloc walked too: expect \"page allocation failure\" reports"
[[ $vmalloc == 1 ]] && diag "failnth: vmalloc() internals walked too: expect \"vmalloc error\" reports"

check "$(status test -w /proc/thread-self/fail-nth)" \
	"failnth: /proc/thread-self/fail-nth exists (CONFIG_FAULT_INJECTION)" ||
	{ tap_finish; exit; }
check "$(status test -w "$DBG/failslab/require-start" -a \
	-w "$DBG/fail_usercopy/require-start" -a \
	-w "$DBG/fail_page_alloc/min-order")" \
	"failnth: failslab, fail_usercopy, fail_page_alloc with stack filters in $DBG" ||
	{ tap_finish; exit; }
out=$(make -s -f tests/fuzz/failnth.mk FAILNTH_BIN="$BIN" 2>&1)
check $? "failnth: build rds_failnth" "$out" || { tap_finish; exit; }

for m in rds_doca rds_rdma rds_tcp rds; do
	if loaded "$m"; then
		out=$(unload "$m")
		check $? "failnth: unload $m, left loaded before the run" "$out"
	fi
done
trap cleanup EXIT
if [[ $transport == ib ]]; then
	rxe_setup failnth || { tap_finish; exit; }
fi
out=$({ modprobe rdma_cm && insmod "$ko" conn_idle_secs=1; } 2>&1)
check $? "failnth: insmod $ko conn_idle_secs=1" "$out" || { tap_finish; exit; }

range=$(module_text)
check $? "failnth: rds_doca's text from /sys/module/rds_doca/sections" \
	"$(readelf -SW "$ko" 2>&1 | head -n 5)" || { tap_finish; exit; }
read -r lo hi <<<"$range"
out=$(kallsyms_within "$lo" "$hi")
check $? "failnth: every rds_doca function in /proc/kallsyms lies in [$lo, $hi)" \
	"$out"
save_attrs
out=$(set_attrs "$lo" "$hi" 2>&1)
check $? "failnth: fault attributes filter on rds_doca's text, failslab ignore-gfp-wait N, verbose $verbose" \
	"$out" || { tap_finish; exit; }

args=(--transport "$transport")
[[ $transport == ib ]] && args+=(--addr "$IB_ADDR" --peer "$IB_PEER")
t0=$SECONDS
run_suite "failnth-$transport" "$BIN" "${args[@]}" "${walker[@]}"
diag "failnth: the walk over $transport took $((SECONDS - t0)) s"

out=$(restore_attrs 2>&1)
check $? "failnth: fault attributes restored" "$out"
out=$(unload rds_doca)
check $? "failnth: rmmod rds_doca: no reference left behind" "$out"
if [[ $transport == ib ]]; then
	out=$(rxe_teardown)
	check $? "failnth: remove $IB_DEV and $IB_NETDEV" "$out"
fi
trap - EXIT
tap_finish
