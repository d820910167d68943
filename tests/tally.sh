# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# The tally of a run made of VM boots (sourced by check.sh,
# fuzz/campaign.sh and soak/soak.sh): checks of its own (ok, not_ok) and the closing
# "N passed, N failed" lines of the suites it ran (count_suite for one
# VM's log, count_pair for both hosts of tests/vm/pair), summed in
# passed and failed.  failures keeps what failed, for a summary at the
# end where a reader of the run's tail sees it.

passed=0
failed=0
n=0
failures=()

ok() {
	n=$((n + 1)); passed=$((passed + 1))
	echo "ok $n - $*"
}

not_ok() {
	n=$((n + 1)); failed=$((failed + 1))
	echo "not ok $n - $*"
	failures+=("not ok $n - $*")
}

# Keep a suite's failed checks and the VM's verdict for the closing summary.
note_failures() {
	local name=$1 log=$2 l

	while IFS= read -r l; do
		failures+=("$name: $l")
	done < <(grep -E '^([A-Za-z]+: )?(not ok |vm: )' "$log" | head -n 20)
}

# Add the closing "N passed, N failed" line of a suite's output to ours.
count_suite() {
	local name=$1 log=$2 status=$3 line p f
	line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		not_ok "$name: no result line (exit status $status)"
		note_failures "$name" "$log"
		return
	fi
	p=$(sed -E 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "# $name: $p passed, $f failed"
	if [ "$f" -ne 0 ] || [ "$status" -ne 0 ]; then
		note_failures "$name" "$log"
	fi
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		not_ok "$name: exit status $status"
	fi
}

# Sum the closing lines of both hosts of a VM pair (prefixed "a: " and
# "b: " by tests/vm/pair), each with its host's exit status as the pair
# reports it; without that report, the pair's status must be 0.
count_pair() {
	local name=$1 log=$2 status=$3 st_a='' st_b=''

	read -r st_a st_b < <(sed -nE \
		's/^pair: host a exited with status ([0-9]+), host b with status ([0-9]+)$/\1 \2/p' \
		"$log")
	grep '^a: ' "$log" >"$log.a"
	count_suite "$name, host a" "$log.a" "${st_a:-0}"
	grep '^b: ' "$log" >"$log.b"
	count_suite "$name, host b" "$log.b" "${st_b:-0}"
	if [ -z "$st_a" ] && [ "$status" -ne 0 ]; then
		not_ok "$name: exit status $status"
	fi
}

# The closing summary: what failed, then "N passed, N failed"; returns 0
# only if nothing failed.
tally_finish() {
	if [ "${#failures[@]}" -ne 0 ]; then
		echo "# what failed:"
		printf '#   %s\n' "${failures[@]}"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}
