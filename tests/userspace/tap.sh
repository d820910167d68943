# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# TAP for the selftest scripts (sourced by run.sh and ib_faults.sh).
#
# check records one check; run_suite runs a TAP program and folds its
# checks into ours, renumbered and prefixed with a stage name.  The
# counts live in N, PASSED and FAILED; tap_finish prints the closing line
# "N passed, N failed" and returns 0 only if nothing failed and something
# passed.  SUITE_TIMEOUT (seconds) bounds each run_suite; SKIP_SUITES
# (glob patterns of stage names) leaves suites out of a run that covers
# their code elsewhere, saying so and counting nothing.

N=0
PASSED=0
FAILED=0
SUITE_TIMEOUT=${SUITE_TIMEOUT:-600}

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

# status COMMAND...: print COMMAND's exit status (for check).
status() { "$@"; echo $?; }

# suite_skipped STAGE: SKIP_SUITES names STAGE (says so).
suite_skipped() {
	local pat pats=()

	# split on blanks, no globbing: the patterns match stage names only
	read -ra pats <<<"${SKIP_SUITES:-}"
	for pat in "${pats[@]}"; do
		# shellcheck disable=SC2053
		if [[ $1 == $pat ]]; then
			diag "$1: not run here (SKIP_SUITES)"
			return 0
		fi
	done
	return 1
}

# run_suite STAGE COMMAND...: run a TAP suite, renumber and prefix its
# checks, fold its counts into ours.  Two checks of our own: that it
# reached its closing line, and that its exit status agrees with it.
run_suite() {
	local stage=$1 counts rc n p f closed cp cf t0=$SECONDS

	shift
	suite_skipped "$stage" && return 0
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
	diag "$stage: $((SECONDS - t0)) s"
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

tap_finish() {
	echo "$PASSED passed, $FAILED failed"
	[[ $FAILED -eq 0 && $PASSED -gt 0 ]]
}
