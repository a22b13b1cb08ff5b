# TAP for the Windows test scripts: each case a line, and at the end the
# plan and "SUITE: N passed, N failed". Source it after wine.sh; it
# defines:
#
#   result OK DESCRIPTION   a case: OK 0 passes; returns OK
#   skip DESCRIPTION REASON a case this machine cannot run, and why
#   finish SUITE            the plan and the summary; exits 0 when none
#                           failed, else 1
# shellcheck shell=bash
tests=0
failed=0
result() {
	tests=$((tests + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tests - $2"
	else
		echo "not ok $tests - $2"
		failed=$((failed + 1))
	fi
	return "$1"
}
skip() {
	tests=$((tests + 1))
	echo "ok $tests - $1 # SKIP $2"
}
finish() {
	echo "1..$tests"
	echo "$1: $((tests - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
