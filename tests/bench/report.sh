#!/bin/bash
# make bench: runs every benchmark and writes what they print, with the
# machine, the date and the command, to OUTPUT (docs/benchmarks.md): no
# figure in it is typed by hand. The file is replaced only by a whole run
# whose every table is filled (check-doc.sh); a run that fails leaves the
# old one in place. Progress goes to stderr.
#
#   report.sh OUTPUT
#
# Environment (the Makefile sets it): BUILD, WIN_BUILD, BENCH_RUNS,
# BENCH_STARTS, BENCH_RULES_RUNS, BENCH_COMPARE_STARTS,
# BENCH_RESTRAINT_RUNS, BENCH_RESTRAINT_SECONDS, WIN_BENCH_STARTS,
# WIN_BENCH_POLLS (poll intervals in ms), ANANICY_SAMPLE, AND (Debian's
# and, for the comparison; empty: not measured), BENCH_COMMAND (the
# command to name in the file).
set -u
[ $# -eq 1 ] || {
	echo "usage: $0 OUTPUT" >&2
	exit 2
}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
BUILD=${BUILD:-build}
WIN_BUILD=${WIN_BUILD:-build-win}
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX") && body=$(mktemp) || exit 1
trap 'rm -f "$tmp" "$body"' EXIT

# shellcheck source=tests/rundoc.sh
. "$top/tests/rundoc.sh"

started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# run NAME CMD...: the benchmark's Markdown into the file; any failure
# ends the run.
run() {
	local name=$1
	shift
	echo "bench: $name" >&2
	if ! "$@" >>"$body"; then
		echo "bench: $name failed; $out is left as it was" >&2
		exit 1
	fi
}

run rules "$BUILD/bench/bench_rules" -r "${BENCH_RULES_RUNS:-7}" \
	"$BUILD/cpupolicyctl"
run import "$BUILD/bench/bench_import" -r "${BENCH_RULES_RUNS:-7}" \
	-s "${ANANICY_SAMPLE:-$top/../shared/ananicy-sample}" \
	"$BUILD/cpupolicyctl"
run exec "$BUILD/bench/bench_exec" -r "${BENCH_RUNS:-5}" -R "$top/rules" \
	-c "${BENCH_COMPARE_STARTS:-20}" ${AND:+-A "$AND"} \
	-s "$BUILD/helpers/worker-static" "$BUILD/cpupolicyd" \
	"$BUILD/helpers/worker" "${BENCH_STARTS:-1000}"
# In a session of its own: the frame task's, where the hogs of the
# same-session rows start.
run restraint setsid -w "$BUILD/bench/bench_restraint" \
	-r "${BENCH_RESTRAINT_RUNS:-3}" -s "${BENCH_RESTRAINT_SECONDS:-7}" \
	${AND:+-A "$AND"} "$BUILD/cpupolicyd" "$BUILD/helpers/worker-static"
# shellcheck disable=SC2086 # the poll intervals, one word each
run windows "$top/tests/windows/bench.sh" "$WIN_BUILD" "${BENCH_RUNS:-5}" \
	"${WIN_BENCH_STARTS:-40}" ${WIN_BENCH_POLLS:-250 50}

{
	echo "# Benchmarks"
	echo
	echo "Written by \`make bench\` from the run below; nothing in this file is"
	echo "typed by hand, so change the benchmarks (\`tests/bench/\`,"
	echo "\`tests/windows/bench.sh\`), not this file. Every figure is the median of"
	echo "several runs, with the min–max of those runs in parentheses (the"
	echo "median alone when every run gave it). A busy machine shows in the load"
	echo "average and in wide min–max ranges."
	echo
	rundoc_machine "$started to $(date -u '+%H:%M UTC')" \
		"${BENCH_COMMAND:-make bench}"
	echo "| Debian | $(cat /etc/debian_version 2>/dev/null || echo none) |"
	echo "| Wine | $(wine --version 2>/dev/null || echo none) |"
	deb=$(ls "${AND%/usr/sbin/and}"/and_*.deb 2>/dev/null | head -n 1)
	[ -n "${AND:-}" ] && [ -n "$deb" ] &&
		echo "| and | $(dpkg-deb -f "$deb" Version), Debian's package |"
	rundoc_load "$load_start"
	echo
	cat "$body"
} >"$tmp"

rundoc_replace bench "$top/tests/bench/check-doc.sh" "$tmp" "$out"
