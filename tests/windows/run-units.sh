#!/bin/bash
# Runs the unit tests built for Windows under Wine, headless, each under a
# time limit: TAP on stdout (a line per test, as cmocka's TAP output
# gives them, and one for a program that fails to run or runs out of
# time), closing with "N passed, N failed".
#
#   run-units.sh BUILD_DIR TEST.exe...
#
# The programs run from the source tree (SRCDIR, for the data files some
# read); a program that prints no test, exits non-zero or runs out of
# time fails.
set -u
[ $# -ge 2 ] || {
	echo "usage: $0 BUILD_DIR TEST.exe..." >&2
	exit 2
}
WINE_BUILD=$(cd "$1" && pwd)
shift
# Seconds for one test program (the slowest takes a few under Wine).
UNIT_LIMIT=${UNIT_LIMIT:-120}
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh"
trap wine_stop EXIT

tests=0
failed=0
skipped=0
result() { # ok(0|1) description [output file]
	tests=$((tests + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tests - $2"
	else
		echo "not ok $tests - $2"
		failed=$((failed + 1))
		[ -n "${3:-}" ] && sed 's/^/# /' "$3"
	fi
}

if ! wine_ready; then
	result 1 "wineboot --init made the Wine prefix"
	echo "1..$tests"
	echo "windows-units: 0 passed, $failed failed"
	exit 1
fi

wine_persist
start=$(date +%s)
out=$WINE_BUILD/tests/unit.out
# cmocka's TAP, per test: renumbered into this script's one plan, each
# named after its program.
export CMOCKA_MESSAGE_OUTPUT=TAP
for exe in "$@"; do
	name=$(basename "$exe" .exe)
	t0=$(date +%s%N)
	# Wine's console writes CR LF, on stdout and stderr alike.
	wine_run "$UNIT_LIMIT" "$exe" >"$out.raw" 2>&1
	rc=$?
	tr -d '\r' <"$out.raw" >"$out"
	ms=$((($(date +%s%N) - t0) / 1000000))
	n=0
	bad=0
	while IFS= read -r line; do
		case $line in
		"ok "* | "not ok "*)
			not=${line%%ok *}
			rest=${line#*ok }
			rest=${rest#* }
			rest=${rest#- }
			tests=$((tests + 1))
			n=$((n + 1))
			echo "${not}ok $tests - $name: $rest"
			case $line in
			*"# SKIP"*) skipped=$((skipped + 1)) ;;
			"not ok "*)
				failed=$((failed + 1))
				bad=$((bad + 1))
				;;
			esac
			;;
		esac
	done <"$out"
	case $rc in
	0) [ "$n" -gt 0 ] || result 1 "$name: printed no tests" "$out" ;;
	124 | 137) result 1 "$name: finished within $UNIT_LIMIT s" "$out" ;;
	*)
		if [ "$bad" -gt 0 ]; then
			grep -vE '^((not )?ok |1\.\.)' "$out" | sed 's/^/# /'
		else
			result 1 "$name: exited with status $rc" "$out"
		fi
		;;
	esac
	echo "# $name: $n tests in $ms ms"
done
echo "# $# test programs under Wine in $(($(date +%s) - start)) s"
echo "1..$tests"
echo "windows-units: $((tests - failed - skipped)) passed, $failed failed," \
	"$skipped skipped"
[ "$failed" -eq 0 ]
