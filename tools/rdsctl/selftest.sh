#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# selftest.sh [RDSCTL]: checks of rdsctl that need no rds_doca module:
# help and version, command line errors (exit 2; for dma set, with their
# message) and, when the module is not loaded, the exit status 3 and
# message of every object.
# Prints TAP; ends with "N passed, N failed"; exits non-zero on a failure.

set -u
HERE=$(cd "$(dirname "$0")" && pwd)
R=${1:-$HERE/rdsctl}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
NOT_LOADED="rds_doca module not loaded (modprobe rds_doca)"

ok() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $*"; }
nok() { fail=$((fail + 1)); echo "not ok $((pass + fail)) - $*"; }
skip() { pass=$((pass + 1)); echo "ok $((pass + fail)) - $* # SKIP"; }
show() { sed 's/^/# /' "$T/out" "$T/err" | head -5; }

# run ARGS...: run rdsctl, output in $T/out and $T/err, status in $rc
run() {
	"$R" "$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# expect RC ARGS...
expect() {
	want=$1
	shift
	run "$@"
	if [ "$rc" -eq "$want" ]; then
		ok "rdsctl $* exits $want"
	else
		nok "rdsctl $* exits $want (got $rc)"
		show
	fi
}

# usage ARGS...: a command line error: exit 2, a message and a usage line
usage() {
	run "$@"
	if [ "$rc" -eq 2 ] && [ ! -s "$T/out" ] &&
	   grep -q '^rdsctl: ' "$T/err" && grep -q '^Usage: ' "$T/err"; then
		ok "rdsctl $* is a usage error"
	else
		nok "rdsctl $* is a usage error (rc $rc)"
		show
	fi
}

# says TEXT ARGS...: a usage error whose message has TEXT
says() {
	text=$1
	shift
	usage "$@"
	if grep -qF -- "$text" "$T/err"; then
		ok "rdsctl $* says \"$text\""
	else
		nok "rdsctl $* says \"$text\""
		show
	fi
}

# absent ARGS...: exit 3 and exactly the message, nothing on stdout
absent() {
	if [ -d /sys/module/rds_doca ]; then
		skip "rdsctl $*: module is loaded"
		return
	fi
	run "$@"
	if [ "$rc" -eq 3 ] && [ ! -s "$T/out" ] &&
	   [ "$(cat "$T/err")" = "$NOT_LOADED" ]; then
		ok "rdsctl $*: module not loaded"
	else
		nok "rdsctl $*: module not loaded (rc $rc)"
		show
	fi
}

[ -x "$R" ] || { echo "not ok 1 - no binary $R"; echo "0 passed, 1 failed"; exit 1; }

expect 0 -h
grep -q '^Usage: rdsctl' "$T/out" && ok "-h prints the usage" ||
	nok "-h prints the usage"
grep -q '^ *rdsctl dma set ' "$T/out" && ok "-h shows dma set" ||
	nok "-h shows dma set"
expect 0 --help
expect 0 -V
grep -Eq '^rdsctl [0-9]+\.[0-9]+' "$T/out" && ok "-V prints a version" ||
	nok "-V prints a version"
expect 0 --version

usage
usage bogus
usage s			# sock or stats
usage m			# mr or monitor
usage -x conn
usage --bogus conn
usage --json=1 conn
usage conn bogus
usage conn show peer
usage conn show peer 10.0.0
usage conn show laddr 300.0.0.1
usage conn state sideways
usage conn show bogus 1
usage conn drop
usage conn drop laddr 192.0.2.1
usage conn drop peer 192.0.2.1 state up
usage sock show port 70000
usage sock show port -1
usage sock show addr x
usage mr show sock abc
usage mr show sock 4294967296
usage dev show name
usage dev show index 1
usage stats bogus
usage stats reset now
usage info now
usage monitor now
usage d			# dev or dma
usage dma s			# show or set
usage dma bogus
usage dma show now
says "dma set: one of mode, send-min, recv-min, rdma-min is required" \
	dma set
says 'dma set: unknown argument "bogus"' dma set bogus 1
says 'dma set: unknown argument "min"' dma set mode auto min 1
says 'dma set: ambiguous argument "r"' dma set r 1
says "dma set: mode needs a value" dma set mode
says "dma set: mode must be auto or off" dma set mode fast
says "dma set: mode must be auto or off" dma set mode 1
says "dma set: send-min needs a value" dma set send-min
says 'dma set: send-min: invalid byte count "-1"' dma set send-min -1
says 'dma set: send-min: invalid byte count "4294967296"' \
	dma set send-min 4294967296
says 'dma set: recv-min: invalid byte count "4194304k"' \
	dma set recv-min 4194304k
says 'dma set: rdma-min: invalid byte count "4096m"' dma set rdma-min 4096m
says 'dma set: send-min: invalid byte count "0x10"' dma set send-min 0x10
says 'dma set: send-min: invalid byte count "1g"' dma set send-min 1g
says 'dma set: send-min: invalid byte count "1kb"' dma set send-min 1kb
says 'dma set: send-min: invalid byte count "+1"' dma set send-min +1
says 'dma set: send-min: invalid byte count ""' dma set send-min ""
says 'dma set: send-min: invalid byte count "k"' dma set send-min k
usage dma set mode auto send-min
usage ping
usage ping -c 0 127.0.0.1
usage ping -c x 127.0.0.1
usage ping -i -1 127.0.0.1
usage ping -W 0 127.0.0.1
usage ping -I bogus 127.0.0.1
usage ping -q 127.0.0.1
usage ping -c
usage ping 127.0.0.1 127.0.0.2

absent conn
absent conn show
absent conn list
absent co sh
absent conn show peer 192.0.2.2 state up
absent -j conn show
absent -p -d conn
absent conn drop peer 192.0.2.2
absent sock
absent sock show port 4000
absent mr
absent mr show sock 1
absent dev
absent dev show name rxe0
absent stats
absent stats show
absent stats reset
absent -j stats
absent info
absent -j info
absent dma
absent dma show
absent -j dma
absent -p dma list
absent dma set mode auto
absent dma set mode off
absent dma set send-min 0
absent dma set send-min 4294967295 recv-min 4194303k rdma-min 4095m
absent dma set mode auto send-min 64k recv-min 64K rdma-min 1M
absent dm se mo off re 16k
absent monitor
absent -j monitor
absent ping 127.0.0.1
absent ping -c 1 -W 0.1 127.0.0.1

echo "1..$((pass + fail))"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
