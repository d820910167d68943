#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside the debug VM after the suites: scan for leaks (twice: an
# object is reported only once it stayed unreferenced over two scans),
# print every report, and fail if one names rds_doca.  Prints TAP and a
# closing "N passed, N failed" line.
set -uo pipefail
k=/sys/kernel/debug/kmemleak
if [ ! -w "$k" ]; then
	echo "not ok 1 - kmemleak: $k not available"
	echo "0 passed, 1 failed"
	exit 1
fi
echo scan >"$k"
sleep 1
echo scan >"$k"
report=$(cat "$k")
if [ -n "$report" ]; then
	echo "# kmemleak report:"
	sed 's/^/# /' <<<"$report" | head -n 200
fi
if grep -q 'rds_doca\|rdsd_' <<<"$report"; then
	echo "not ok 1 - kmemleak: leaks attributed to rds_doca"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "ok 1 - kmemleak: no leak attributed to rds_doca"
echo "1 passed, 0 failed"
