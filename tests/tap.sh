# TAP for every test script: the integration scripts (through
# tests/integration/lib.sh) and the Windows ones (tests/windows/*.sh). A
# line per case, and at the end the plan and "SUITE: N passed, N failed,
# N skipped"; tests/run-tests.sh counts the lines and holds them to the
# plan. It defines:
#
#   ok NAME                 a case that passed
#   not_ok NAME WHY         a case that failed; WHY shown as comments
#   skip NAME WHY           a case this machine cannot run, and why: neither
#                           a pass nor a failure, in every count
#   result STATUS NAME      ok when STATUS is 0, else not ok; returns STATUS
#   finish [SUITE]          the plan and the summary (SUITE: the script's
#                           name by default); true when no case failed
#   skip_all WHY            the whole script cannot run here: one skip, the
#                           plan, and exit 0
# shellcheck shell=bash
tap_count=0
tap_failed=0
tap_skipped=0

# tap_case_done: after each result; a suite's own (lib.sh's) forgets
# what one case found out, so that the next case's message never shows it.
tap_case_done() { :; }

ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $1"
	tap_case_done
}

not_ok() { # name, why
	tap_count=$((tap_count + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_count - $1"
	[ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/#   /'
	tap_case_done
}

skip() { # name, why
	tap_count=$((tap_count + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_count - $1 # SKIP $2"
	tap_case_done
}

result() { # status, name
	if [ "$1" -eq 0 ]; then
		ok "$2"
	else
		not_ok "$2"
	fi
	return "$1"
}

finish() { # [suite]
	echo "1..$tap_count"
	echo "${1:-$(basename "$0" .sh)}: $((tap_count - tap_failed - tap_skipped)) passed," \
		"$tap_failed failed, $tap_skipped skipped"
	[ "$tap_failed" -eq 0 ]
}

skip_all() { # why
	skip "$(basename "$0" .sh)" "$1"
	finish
	exit 0
}
