#!/bin/bash
# Runs the unit tests built for Windows under Wine, headless, each under a
# time limit: TAP on stdout (tests/tap.sh: a line per test, as cmocka's TAP
# output gives them, and one for a program that fails to run, runs out of
# time or prints other than its plan), closing with "N passed, N failed,
# N skipped".
#
#   run-units.sh BUILD_DIR TEST.exe...
#
# The programs run from the source tree (SRCDIR, for the data files some
# read); a program that prints no test, fewer or more tests than its plans
# add up to, exits non-zero or runs out of time fails.
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
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
trap wine_stop EXIT

if ! wine_ready; then
	not_ok "wineboot --init made the Wine prefix"
	finish windows-units
	exit
fi

wine_persist
start=$(date +%s)
out=$WINE_BUILD/tests/unit.out
# cmocka's TAP, per test: renumbered into this script's one plan, each
# named after its program. cmocka prints a plan per group of tests, and
# marks a skip "not ok N # SKIP NAME".
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
	planned=0
	failing= # a failed test's name, until its messages have been read
	why=
	while IFS= read -r line; do
		# cmocka's messages on a failure follow its "not ok" line (not
		# its "# ok - GROUP" lines): they go with it, so that the summary
		# says what failed.
		if [ -n "$failing" ] && [ "${line#\# }" != "$line" ] &&
			[ "${line#\# *ok - }" = "$line" ]; then
			why=${why:+$why$'\n'}${line#\# }
			continue
		fi
		[ -z "$failing" ] || not_ok "$failing" "$why"
		failing=
		why=
		case $line in
		1..[0-9]*)
			p=${line#1..}
			planned=$((planned + ${p%%[!0-9]*}))
			;;
		"ok "* | "not ok "*)
			rest=${line#*ok }
			rest=${rest#* }
			n=$((n + 1))
			case $line in
			*"# SKIP"*) skip "$name: ${rest#*# SKIP }" "the test skipped itself here" ;;
			"not ok "*)
				failing="$name: ${rest#- }"
				bad=$((bad + 1))
				;;
			*) ok "$name: ${rest#- }" ;;
			esac
			;;
		esac
	done <"$out"
	[ -z "$failing" ] || not_ok "$failing" "$why"
	case $rc in
	0)
		if [ "$n" -eq 0 ]; then
			not_ok "$name: printed no tests" "$(cat "$out")"
		elif [ "$n" -ne "$planned" ]; then
			not_ok "$name: printed $n tests, its plans say $planned" "$(cat "$out")"
		fi
		;;
	124 | 137) not_ok "$name: finished within $UNIT_LIMIT s" "$(cat "$out")" ;;
	*)
		[ "$bad" -gt 0 ] ||
			not_ok "$name: exited with status $rc" "$(cat "$out")"
		;;
	esac
	echo "# $name: $n tests in $ms ms"
done
echo "# $# test programs under Wine in $(($(date +%s) - start)) s"
finish windows-units
