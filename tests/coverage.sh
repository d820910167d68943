#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make coverage: build the module with GCOV_PROFILE for the debug kernel
# (which has GCOV_KERNEL), run the debug suite (KUnit, the userspace
# suites, the fuzzers) in the debug VM, and report the line and function
# coverage of each file of net/rds_doca/ with lcov.  The HTML report lands
# in build/coverage/html/, the list of lines never run, by file and
# function, in build/coverage/uncovered.txt.
#
# Targets: 85% of lines overall, and no file below 70%.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

scripts/install-deps.sh || exit 1
dbg=$(tests/vm/build-debug-kernel) || exit 1
b=build/coverage
make -s module KDIR="$dbg/build" BUILD="$b" RDSD_GCOV=y || exit 1
rm -rf "$b/gcda" "$b/html"
mkdir -p "$b/gcda"
find "$b/net/rds_doca" -name '*.gcda' -delete
tests/vm/run --kernel "$dbg/bzImage" --modules "$dbg/modules" --mem 3072 \
	--timeout 3600 --append pci=noacpi --rw "$PWD/$b/gcda" -- \
	tests/vm/coverage-guest.sh "$b" "$PWD/$b/gcda"
st=$?
cp "$b"/gcda/*.gcda "$b/net/rds_doca/" || { echo "no coverage data" >&2; exit 1; }
lcov -q --capture --directory "$b/net/rds_doca" \
	--output-file "$b/rds_doca.info" || exit 1
# only the module's own sources, not the kernel headers they include
lcov -q --extract "$b/rds_doca.info" '*/net/rds_doca/*.c' \
	--output-file "$b/rds_doca.info" || exit 1
genhtml -q --output-directory "$b/html" "$b/rds_doca.info" >/dev/null
echo "# coverage per file (lcov --list):"
lcov --list "$b/rds_doca.info" | sed 's/^/# /'
lcov --summary "$b/rds_doca.info" 2>&1 | sed 's/^/# /'
python3 - "$b/rds_doca.info" "$b/uncovered.txt" <<'PY'
import sys
files = {}
cur = None
src = {}
fns = {}
missed = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith('SF:'):
        cur = line[3:].rsplit('/', 1)[-1]
        files[cur] = [0, 0]
        src[cur] = line[3:]
        fns[cur] = []
        missed[cur] = []
    elif line.startswith('FN:'):
        n, name = line[3:].split(',', 1)
        fns[cur].append((int(n), name))
    elif line.startswith('DA:'):
        n, hits = line[3:].split(',')[:2]
        if hits == '0':
            missed[cur].append(int(n))
    elif line.startswith('LH:'):
        files[cur][0] = int(line[3:])
    elif line.startswith('LF:'):
        files[cur][1] = int(line[3:])
# every line never run, in runs of neighbouring lines, with the function
# it is in and its first line of source
with open(sys.argv[2], 'w') as out:
    for f in sorted(missed):
        try:
            text = open(src[f]).read().split('\n')
        except OSError:
            text = []
        runs = []
        for n in sorted(missed[f]):
            if runs and n - runs[-1][1] <= 2:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        out.write(f"{f}: {len(missed[f])} lines not run\n")
        for lo, hi in runs:
            fn = max((x for x in fns[f] if x[0] <= lo), default=(0, '?'))[1]
            first = text[lo - 1].strip() if lo <= len(text) else ''
            where = f"{lo}" if lo == hi else f"{lo}-{hi}"
            out.write(f"  {where:>9}  {fn}: {first}\n")
hit = sum(h for h, _ in files.values())
total = sum(t for _, t in files.values())
low = sorted(f for f, (h, t) in files.items() if t and 100 * h < 70 * t)
pct = 100.0 * hit / total if total else 0
print(f"# coverage: {pct:.1f}% of {total} lines; target 85%: "
      f"{'met' if pct >= 85 else 'not met'}; files below 70%: "
      f"{', '.join(low) if low else 'none'}")
print(f"# lines not run, by file and function: {sys.argv[2]}")
PY
exit "$st"
