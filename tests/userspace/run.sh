#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the RDS socket selftests against rds_doca and against the in-tree
# net/rds.  Meant to run as root on a disposable machine (a VM): it loads
# and unloads rds, rds_doca and their dependencies.
#
#   1. doca:     insmod rds_doca.ko (its own family), run both suites
#   2. conflict: with rds.ko holding AF_RDS, insmod rds_doca.ko family=21
#                must fail, with an explanation in the kernel log
#   3. rds:      the suites against rds.ko (loopback transport only)
#   4. dropin:   rds_doca.ko family=21 in place of rds.ko, both suites
#
# Output is TAP; every module operation is a check, and the suites'
# checks are renumbered and prefixed with their stage.  The last line is
# "N passed, N failed"; the exit status is non-zero if anything failed.
#
# usage: tests/userspace/run.sh [--ko PATH] [--stage NAME]...

set -u

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KO=build/$(uname -r)/rds_doca.ko
STAGES=()
SUITE_TIMEOUT=${SUITE_TIMEOUT:-900}
ORDER_ARGS=${ORDER_ARGS:-}

usage() {
	cat <<EOF
usage: ${0##*/} [--ko PATH] [--stage doca|conflict|rds|dropin]...
  --ko PATH     rds_doca module (default: build/\$(uname -r)/rds_doca.ko)
  --stage NAME  run only the named stages (repeatable; default: all)
environment: SUITE_TIMEOUT (seconds per suite, default 900),
             ORDER_ARGS (extra rds_order_test arguments)
EOF
}

while [[ $# -gt 0 ]]; do
	case $1 in
	--ko)		KO=${2?--ko needs a path}; shift ;;
	--stage)	STAGES+=("${2?--stage needs a name}"); shift ;;
	-h|--help)	usage; exit 0 ;;
	*)		usage >&2; exit 2 ;;
	esac
	shift
done

N=0
PASSED=0
FAILED=0

# check STATUS NAME [DIAG...]: record one check; STATUS 0 is a pass.
check() {
	local status=$1 name=$2 line

	shift 2
	N=$((N + 1))
	if [[ $status == 0 ]]; then
		PASSED=$((PASSED + 1))
		echo "ok $N - $name"
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N - $name"
		for line in "$@"; do
			printf '%s\n' "$line" | sed 's/^/# /'
		done
	fi
	return "$status"
}

diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

want_stage() {
	local s

	[[ ${#STAGES[@]} -eq 0 ]] && return 0
	for s in "${STAGES[@]}"; do
		[[ $s == "$1" ]] && return 0
	done
	return 1
}

loaded() { [[ -d /sys/module/$1 ]]; }

# status COMMAND...: print COMMAND's exit status (for check).
status() { "$@"; echo $?; }

no_other_transport() { ! loaded rds_tcp && ! loaded rds_rdma; }

# Unload a module; sockets are freed after an RCU grace period, so the
# module may stay busy for a moment after the last test exits.
unload() {
	local out

	for _ in $(seq 20); do
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

# run_suite STAGE COMMAND...: run a TAP suite, renumber and prefix its
# checks, fold its counts into ours.  Two checks of our own: that it
# reached its closing line, and that its exit status agrees with it.
run_suite() {
	local stage=$1 counts rc n p f closed cp cf

	shift
	counts=$(mktemp)
	diag "$stage: $*"
	timeout -k 10 "$SUITE_TIMEOUT" "$@" 2>&1 |
		awk -v stage="$stage" -v n="$N" -v counts="$counts" '
		BEGIN { p = 0; f = 0; closed = 0; cp = -1; cf = -1 }
		/^(not )?ok [0-9]+ - / {
			good = ($1 == "ok")
			sub(/^(not )?ok [0-9]+ - /, "")
			n++
			if (good)
				p++
			else
				f++
			printf "%sok %d - %s: %s\n", good ? "" : "not ", n,
			       stage, $0
			fflush()
			next
		}
		/^[0-9]+ passed, [0-9]+ failed$/ {
			closed = 1; cp = $1; cf = $3
			print "# " stage ": " $0
			fflush()
			next
		}
		{ print; fflush() }
		END { print n, p, f, closed, cp, cf > counts }'
	rc=${PIPESTATUS[0]}
	read -r n p f closed cp cf < "$counts"
	rm -f "$counts"
	N=$n
	PASSED=$((PASSED + p))
	FAILED=$((FAILED + f))

	if [[ $closed != 1 ]]; then
		check 1 "$stage: suite ran to its closing line" \
			"exit status $rc (124/137: timed out after ${SUITE_TIMEOUT}s)"
		return
	fi
	if [[ $cp != "$p" || $cf != "$f" ]]; then
		check 1 "$stage: closing line matches the checks" \
			"closing line $cp/$cf, counted $p/$f"
		return
	fi
	if [[ $f -eq 0 && $rc -eq 0 && $p -gt 0 ]] ||
	   [[ $f -ne 0 && $rc -ne 0 ]]; then
		check 0 "$stage: suite completed, exit status $rc matches its results"
	else
		check 1 "$stage: suite completed, exit status $rc matches its results" \
			"exit status disagrees with $p passed, $f failed"
	fi
}

# ---------------------------------------------------------------------------

echo "# rds selftests on $(uname -r), module $KO"

if ! make -s -C "$HERE" >/tmp/rds-selftests-build.log 2>&1; then
	check 1 "build the test programs" "$(tail -20 /tmp/rds-selftests-build.log)"
	echo "$PASSED passed, $FAILED failed"
	exit 1
fi
API=$HERE/rds_api_test
ORDER=$HERE/rds_order_test

# Start from a clean slate.
for m in rds_doca rds_rdma rds_tcp rds; do
	if loaded "$m"; then
		out=$(unload "$m")
		check $? "setup: unload $m left loaded before the run" "$out"
	fi
done

have_ko=0
[[ -f $KO ]] && have_ko=1

# 1. rds_doca under its own family number
if want_stage doca; then
	if check $((1 - have_ko)) "doca: module $KO exists"; then
		out=$(insmod "$KO" 2>&1)
		if check $? "doca: insmod rds_doca.ko" "$out"; then
			fam=$(family_param)
			check "$(status test "$fam" = 25)" \
				"doca: default family is 25 (AF_INET_OFFLOAD)" \
				"family parameter: '${fam}'"
			check "$(status eval '! loaded rds')" \
				"doca: rds.ko was not pulled in"
			run_suite doca-api "$API" --family "${fam:-25}" \
				--impl doca
			# shellcheck disable=SC2086
			run_suite doca-order "$ORDER" --family "${fam:-25}" \
				--impl doca $ORDER_ARGS
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
			out=$(insmod "$KO" family=21 2>&1)
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
		run_suite rds-api "$API" --family 21 --impl rds
		# shellcheck disable=SC2086
		run_suite rds-order "$ORDER" --family 21 --impl rds $ORDER_ARGS
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
		out=$(insmod "$KO" family=21 2>&1)
		if check $? "dropin: insmod rds_doca.ko family=21" "$out"; then
			fam=$(family_param)
			check "$(status test "$fam" = 21)" \
				"dropin: family parameter reads 21" \
				"family parameter: '${fam}'"
			run_suite dropin-api "$API" --family 21 --impl doca
			# shellcheck disable=SC2086
			run_suite dropin-order "$ORDER" --family 21 --impl doca \
				$ORDER_ARGS
			out=$(unload rds_doca)
			check $? "dropin: rmmod rds_doca" "$out"
		fi
	fi
fi

echo "$PASSED passed, $FAILED failed"
[[ $FAILED -eq 0 && $PASSED -gt 0 ]]
