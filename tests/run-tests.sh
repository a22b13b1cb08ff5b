#!/bin/bash
# Runs every test and ends with "N passed, N failed, N skipped". Unit tests
# speak TAP (cmocka's CMOCKA_MESSAGE_OUTPUT=TAP), integration scripts print
# TAP lines of their own ("# SKIP" marks a skipped one), each fuzz target
# and the format check count as one test. Every program runs under a time
# limit: one that hangs fails, and the run still ends with its summary.
# Environment: BUILD (build directory), FUZZ_SECONDS (per fuzz target),
# WIN_BUILD (the Windows build's directory, build-win: its tests run
# under Wine).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
BUILD=${BUILD:-build}
WIN_BUILD=${WIN_BUILD:-build-win}
FUZZ_SECONDS=${FUZZ_SECONDS:-5}
export BUILD SRCDIR="$top"
# Under SAN=1: a leak fails the program, except libconfig's own (see there).
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
passed=0
failed=0
skipped=0
failures=()
# Seconds each program may take: a unit test (test_knobs forks and syncs
# a journal at each of its crash points: slow on a busy disk), an
# integration script (the slowest takes about a minute here, several under
# the sanitizers).
UNIT_LIMIT=300
SCRIPT_LIMIT=900
CPU1=/sys/devices/system/cpu/cpu1/online

# limited SECONDS COMMAND...: the command in its own process group, all of
# it killed at the limit (status 124), SIGKILL 10 s after SIGTERM.
limited() { timeout -k 10 "$@"; }

count_tap() { # suite, file with its output, exit status, time limit
	local suite=$1 out=$2 status=$3 ok notok skip
	# cmocka marks a skipped test "not ok N # SKIP", the scripts "ok N -
	# NAME # SKIP WHY": a skip either way, neither a pass nor a failure.
	ok=$(grep -E '^ok ' "$out" | grep -vc '# SKIP')
	skip=$(grep -E '^(not )?ok ' "$out" | grep -c '# SKIP')
	notok=$(grep -E '^not ok ' "$out" | grep -vc '# SKIP')
	passed=$((passed + ok))
	skipped=$((skipped + skip))
	failed=$((failed + notok))
	while IFS= read -r line; do
		failures+=("$suite: ${line#not ok }")
	done < <(grep -E '^not ok ' "$out" | grep -v '# SKIP')
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		failed=$((failed + 1))
		failures+=("$suite: timed out after $4 s")
		echo "not ok - $suite: timed out after $4 s"
	# A crash or an early exit leaves no "not ok" line behind.
	elif [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
		failed=$((failed + 1))
		failures+=("$suite: exited with status $status")
	fi
}

single() { # name, command...
	local name=$1 log
	shift
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		echo "ok - $name"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "not ok - $name"
		sed 's/^/#   /' "$log" | tail -n 40
	fi
	rm -f "$log"
}

echo "# unit tests"
for t in "$BUILD"/tests/test_*; do
	case $t in *.d) continue ;; esac
	out=$(mktemp)
	CMOCKA_MESSAGE_OUTPUT=TAP limited "$UNIT_LIMIT" "$t" >"$out" 2>&1
	status=$?
	grep -vE '^(1\.\.|# )' "$out" | sed "s|^|$(basename "$t"): |"
	count_tap "$(basename "$t")" "$out" "$status" "$UNIT_LIMIT"
	rm -f "$out"
done

# The Windows suite under Wine (tests/windows/): its unit tests, and its
# integration test where there is one. Each script speaks TAP of its own.
echo "# windows tests"
win_units=("$WIN_BUILD"/tests/test_*.exe)
if [ -f "${win_units[0]}" ]; then
	out=$(mktemp)
	limited "$SCRIPT_LIMIT" tests/windows/run-units.sh "$WIN_BUILD" \
		"${win_units[@]}" >"$out" 2>&1
	status=$?
	grep -vE '^1\.\.' "$out" | sed "s|^|windows-units: |"
	count_tap windows-units "$out" "$status" "$SCRIPT_LIMIT"
	rm -f "$out"
else
	failed=$((failed + 1))
	failures+=("windows-units: no test built in $WIN_BUILD/tests")
	echo "not ok - windows-units: no test built in $WIN_BUILD/tests"
fi
# The daemon and the installer under Wine, and the saturation check there.
for s in integration msi saturate; do
	[ -f "tests/windows/$s.sh" ] || continue
	out=$(mktemp)
	limited "$SCRIPT_LIMIT" bash "tests/windows/$s.sh" "$WIN_BUILD" \
		>"$out" 2>&1
	status=$?
	grep -vE '^1\.\.' "$out" | sed "s|^|windows-$s: |"
	count_tap "windows-$s" "$out" "$status" "$SCRIPT_LIMIT"
	rm -f "$out"
done

echo "# integration tests"
for t in tests/integration/*.sh; do
	[ "$(basename "$t")" = lib.sh ] && continue
	out=$(mktemp)
	limited "$SCRIPT_LIMIT" bash "$t" >"$out" 2>&1
	status=$?
	sed "s|^|$(basename "$t" .sh): |" "$out"
	count_tap "$(basename "$t" .sh)" "$out" "$status" "$SCRIPT_LIMIT"
	# A script killed at its limit had no time for its own trap.
	if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 0 ]; then
		echo 1 >"$CPU1"
		failed=$((failed + 1))
		failures+=("$(basename "$t" .sh): left cpu1 offline")
	fi
	rm -f "$out"
done

# The daemon's scripts ran with events = auto: the BPF exec filter where
# it loads. Then once more with the proc connector alone (events =
# netlink), so that each source this machine has is tested. Where the
# filter cannot load (a build root without the capabilities, a kernel
# without BTF) the first pass was the proc connector's: a skip, with the
# daemon's reason.
echo "# integration tests of the daemon, events = netlink"
SOURCE_SCRIPTS="daemon exe lifetime metrics prio power"
why=$(bash -c '. tests/integration/lib.sh; bpf_why_not' 2>&1)
if [ -n "$why" ]; then
	skipped=$((skipped + 1))
	echo "ok - daemon tests with events = netlink # SKIP the first pass had no exec filter to compare: $why"
else
	for name in $SOURCE_SCRIPTS; do
		out=$(mktemp)
		CPUPOLICY_TEST_EVENTS=netlink limited "$SCRIPT_LIMIT" \
			bash "tests/integration/$name.sh" >"$out" 2>&1
		status=$?
		sed "s|^|$name[netlink]: |" "$out"
		count_tap "$name[netlink]" "$out" "$status" "$SCRIPT_LIMIT"
		if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 0 ]; then
			echo 1 >"$CPU1"
			failed=$((failed + 1))
			failures+=("$name[netlink]: left cpu1 offline")
		fi
		rm -f "$out"
	done
fi

echo "# fuzz targets, ${FUZZ_SECONDS}s each"
for f in "$BUILD"/fuzz/fuzz_*; do
	[ -x "$f" ] && [ -f "$f" ] || continue
	single "fuzz $(basename "$f")" limited $((FUZZ_SECONDS + 60)) \
		tests/fuzz/run-fuzz.sh "$f" "$FUZZ_SECONDS"
done

echo "# style"
single "clang-format clean" limited 120 make --no-print-directory -s format-check

for f in "${failures[@]}"; do
	echo "FAILED: $f"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
