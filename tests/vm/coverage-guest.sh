#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run inside the debug VM for make coverage: the debug suite against a
# module built with GCOV_PROFILE, then the module's coverage data (kept by
# the kernel across unloads and reloads) copied to OUT_DIR, a directory
# shared writable with the host.  Ends with the suite's "N passed,
# N failed" line.
#
#   tests/vm/coverage-guest.sh BUILD_DIR OUT_DIR
set -uo pipefail
dir=${1:?usage: coverage-guest.sh BUILD_DIR OUT_DIR}
out=${2:?usage: coverage-guest.sh BUILD_DIR OUT_DIR}
cd "$(dirname "$0")/../.." || exit 1

tests/vm/debug-suite.sh "$dir" all | tee /run/coverage-suite.log
st=${PIPESTATUS[0]}
n=0
while IFS= read -r -d '' f; do
	cat "$f" >"$out/${f##*/}" && n=$((n + 1))
done < <(find /sys/kernel/debug/gcov -path "*/net/rds_doca/*.gcda" -print0)
echo "# coverage: $n data files copied to $out"
exit "$st"
