#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside the debug VM: load rds_doca and its KUnit module, read every
# suite's KTAP results from debugfs and report each test case (each
# parameter of a table-driven case) as one TAP line.  Ends with
# "N passed, N failed".
#
#   tests/kunit/run.sh [BUILD_DIR]   (default build/$(uname -r))
set -uo pipefail

dir=${1:-build/$(uname -r)}
cd "$(dirname "$0")/../.."
passed=0
failed=0
n=0

result() {	# ok|not ok, description
	n=$((n + 1))
	if [ "$1" = ok ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
	echo "$1 $n - $2"
}

finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

if insmod "$dir/rds_doca.ko"; then
	result ok "kunit: insmod rds_doca.ko"
else
	result "not ok" "kunit: insmod rds_doca.ko"
	finish
fi
if insmod "$dir/rds_doca_kunit.ko"; then
	result ok "kunit: insmod rds_doca_kunit.ko"
else
	result "not ok" "kunit: insmod rds_doca_kunit.ko"
	rmmod rds_doca
	finish
fi

suites=0
for f in /sys/kernel/debug/kunit/rds_doca_*/results; do
	[ -r "$f" ] || continue
	suites=$((suites + 1))
	suite=$(basename "$(dirname "$f")")
	# Leaf results: a case without parameters, or each parameter of one.
	# A line "ok N name" at some depth is a leaf unless the lines just
	# before it, at a deeper indentation, were its own subtests.
	while IFS=$'\t' read -r status name; do
		result "$status" "$suite: $name"
	done < <(awk '
		{ match($0, /^ */); depth = RLENGTH; line = substr($0, depth + 1) }
		line ~ /^(not )?ok [0-9]+ / {
			st = (line ~ /^not ok/) ? "not ok" : "ok"
			sub(/^(not )?ok [0-9]+ /, "", line)
			if (depth > 0 && !(depth in has_children))
				printf "%s\t%s\n", st, line
			delete has_children[depth]
			has_children[depth - 4] = 1
			next
		}' "$f")
done
[ "$suites" -gt 0 ] && result ok "kunit: $suites suites found" ||
	result "not ok" "kunit: no rds_doca suite in debugfs"

grep -h "^# .*: pass:" /sys/kernel/debug/kunit/rds_doca_*/results 2>/dev/null | sed 's/^/# /'
rmmod rds_doca_kunit && result ok "kunit: rmmod rds_doca_kunit" ||
	result "not ok" "kunit: rmmod rds_doca_kunit"
rmmod rds_doca && result ok "kunit: rmmod rds_doca" ||
	result "not ok" "kunit: rmmod rds_doca"
finish
