#!/bin/bash
# Runs the tests (every part, or the parts or scripts named) and ends with
# "N passed, N failed, N skipped". Unit tests speak TAP (cmocka's
# CMOCKA_MESSAGE_OUTPUT=TAP), the integration and Windows scripts TAP of
# their own (tests/tap.sh; "# SKIP" marks a skipped one), each fuzz target
# and the format check count as one test. A program's plan (1..N) must
# match the results it printed: one that prints none, or other than its
# plan, fails. Every program runs under a time
# limit: one that hangs fails, and the run still ends with its summary.
#
#   run-tests.sh [PART...]      PART: unit, windows, integration, fuzz, style
#   run-tests.sh SCRIPT...
#
# Parts named: only those run, each once and in the order above (none
# named: all of them, as make test runs them; make check runs unit style).
# Scripts named (a path): only those run, counted the same way (one in a
# folder named windows as a Windows script, given WIN_BUILD).
# Environment: BUILD (build directory), FUZZ_SECONDS (per fuzz target),
# WIN_BUILD (the Windows build's directory, build-win: its tests run
# under Wine), SCRIPT_LIMIT (seconds a script may take), CPU1 (cpu1's
# online file; another only for the runner's own test), ONE_CPU=1 (the
# scripts named run confined to one CPU, as the 1-CPU pass runs them).
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
# the sanitizers), the probe for the exec filter (a daemon's start and
# stop).
UNIT_LIMIT=300
SCRIPT_LIMIT=${SCRIPT_LIMIT:-900}
PROBE_LIMIT=60
CPU1=${CPU1:-/sys/devices/system/cpu/cpu1/online}

# limited SECONDS COMMAND...: the command in its own process group, all of
# it killed at the limit (status 124), SIGKILL 10 s after SIGTERM.
limited() { timeout -k 10 "$@"; }

# A structural fault of one program's TAP output: one failure, with its
# reasons, beside the "not ok" lines it printed.
fault() { # suite, reasons
	failed=$((failed + 1))
	failures+=("$1: $2")
	echo "not ok - $1: $2"
}

# failure_lines FILE: each failed case of a TAP output, one line each,
# with the first lines of its diagnostics ("#   ..." after it) joined on,
# cut at 600 characters: the summary, the tail of a run that is all a
# reader may see, says why as well as what.
failure_lines() {
	awk 'function flush() { if (line != "") print substr(line, 1, 600); line = "" }
	/^not ok( |$)/ && !/# SKIP/ { flush(); line = $0; why = 0; next }
	line != "" && /^#   / && why < 3 { sub(/^#   /, ""); line = line (why++ ? " / " : " — ") $0; next }
	{ flush() }
	END { flush() }' "$1"
}

count_tap() { # suite, file with its output, exit status, time limit
	local suite=$1 out=$2 status=$3 ok notok skip results planned faults=
	# cmocka marks a skipped test "not ok N # SKIP NAME", the scripts "ok
	# N - NAME # SKIP WHY": a skip either way, neither a pass nor a failure.
	ok=$(grep -E '^ok( |$)' "$out" | grep -vc '# SKIP')
	skip=$(grep -E '^(not )?ok( |$)' "$out" | grep -c '# SKIP')
	notok=$(grep -E '^not ok( |$)' "$out" | grep -vc '# SKIP')
	results=$((ok + skip + notok))
	passed=$((passed + ok))
	skipped=$((skipped + skip))
	failed=$((failed + notok))
	while IFS= read -r line; do
		failures+=("$suite: ${line#not ok }")
	done < <(failure_lines "$out")
	# The plan says how many ran: a case that printed nothing, a script
	# that ended early, are missing from it. cmocka prints a plan per
	# group of tests: they add up.
	planned=$(sed -n 's/^1\.\.\([0-9][0-9]*\)\( .*\)\{0,1\}$/\1/p' "$out" |
		awk '{ n += $1 } END { if (NR) print n }')
	if [ "$results" -eq 0 ]; then
		faults="no result printed"
	elif [ -z "$planned" ]; then
		faults="no plan (1..N), $results results"
	elif [ "$planned" -ne "$results" ]; then
		faults="plan 1..$planned, but $results results"
	fi
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		faults="${faults:+$faults; }timed out after $4 s"
	# A crash or an early exit leaves no "not ok" line behind.
	elif [ "$status" -ne 0 ] && [ "$notok" -eq 0 ]; then
		faults="${faults:+$faults; }exited with status $status"
	fi
	[ -z "$faults" ] || fault "$suite" "$faults"
}

single() { # name, command...
	local name=$1 log status
	shift
	log=$(mktemp)
	"$@" >"$log" 2>&1
	status=$?
	if [ "$status" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok - $name"
	else
		failed=$((failed + 1))
		case $status in
		124 | 137) failures+=("$name: timed out") ;;
		*) failures+=("$name") ;;
		esac
		echo "not ok - $name"
		sed 's/^/#   /' "$log" | tail -n 40
	fi
	rm -f "$log"
}

# A script killed at its limit had no time for its own trap: cpu1 back
# online, and a failure.
check_cpu1() { # suite
	if [ -w "$CPU1" ] && [ "$(cat "$CPU1")" = 0 ]; then
		echo 1 >"$CPU1"
		fault "$1" "left cpu1 offline"
	fi
}

# A persistent wineserver (wine_persist: wineserver -p) leaves the
# script's process group, so the limit does not end it: the prefix's
# wineserver stopped after each Windows script, and a failure when one
# still ran.
stop_wineserver() { # suite
	[ -d "$WIN_BUILD" ] || return 0
	(
		WINE_BUILD=$(cd "$WIN_BUILD" && pwd)
		# shellcheck source=tests/windows/wine.sh
		. tests/windows/wine.sh
		limited "$SERVER_LIMIT" wineserver -k 2>/dev/null || exit 1
		wine_stop
		exit 0
	) && fault "$1" "left its wineserver running (stopped now)"
}

# run_counted SUITE AFTER COMMAND...: COMMAND under the script limit, its
# output shown with SUITE before each line, counted; then AFTER SUITE
# (check_cpu1 or stop_wineserver).
run_counted() {
	local suite=$1 after=$2 out status
	shift 2
	out=$(mktemp)
	limited "$SCRIPT_LIMIT" "$@" >"$out" 2>&1
	status=$?
	sed "s|^|$suite: |" "$out"
	count_tap "$suite" "$out" "$status" "$SCRIPT_LIMIT"
	"$after" "$suite"
	rm -f "$out"
}

## The 1-CPU pass: the hardware-dependent scripts once more, confined to
## one CPU, so that what they compute from the machine is tried on a
## smaller one too. A cgroup cpuset of the first CPU online (cgroup v2,
## else v1's cpuset hierarchy), made here and removed at exit; where
## neither can be made, taskset -c, an affinity (which a script may
## widen again; a cpuset it cannot).

ONE_CPU_SCRIPTS="saturate metrics"
one_cpu_dir=
one_cpu_enabled=

# one_cpu_v2: a v2 hierarchy with the cpuset controller, given to its
# children (enabled here where it was not, and taken back at exit).
one_cpu_v2() {
	local root
	for root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		grep -qw cpuset "$root/cgroup.controllers" 2>/dev/null || continue
		if ! grep -qw cpuset "$root/cgroup.subtree_control"; then
			echo +cpuset >"$root/cgroup.subtree_control" 2>/dev/null ||
				continue
			one_cpu_enabled=$root
		fi
		echo "$root"
		return 0
	done
	return 1
}

# one_cpu_setup: the cpuset for the pass, its directory in $one_cpu_dir
# (empty: taskset); the CPU in $one_cpu.
one_cpu_setup() {
	local root dir
	one_cpu=$(sed 's/[-,].*//' /sys/devices/system/cpu/online)
	if root=$(one_cpu_v2); then
		dir="$root/cpupolicy-1cpu-$$"
		mkdir "$dir" 2>/dev/null && echo "$one_cpu" >"$dir/cpuset.cpus" &&
			one_cpu_dir=$dir && return 0
		rmdir "$dir" 2>/dev/null
	fi
	root=/sys/fs/cgroup/cpuset
	dir="$root/cpupolicy-1cpu-$$"
	if [ -f "$root/cpuset.cpus" ] && mkdir "$dir" 2>/dev/null; then
		# v1 takes no task before it has memory nodes.
		if echo "$one_cpu" >"$dir/cpuset.cpus" &&
			cat "$root/cpuset.mems" >"$dir/cpuset.mems"; then
			one_cpu_dir=$dir
			return 0
		fi
		rmdir "$dir" 2>/dev/null
	fi
	one_cpu_dir=
}

one_cpu_cleanup() {
	[ -n "$one_cpu_dir" ] && rmdir "$one_cpu_dir" 2>/dev/null
	[ -n "$one_cpu_enabled" ] &&
		echo -cpuset >"$one_cpu_enabled/cgroup.subtree_control" 2>/dev/null
	one_cpu_dir=
	one_cpu_enabled=
}

# run_one_cpu SCRIPT...: each script as run_counted runs it, confined,
# its results named NAME[1cpu].
run_one_cpu() {
	local t confine
	one_cpu_setup
	# A command, not a function: the time limit runs it.
	if [ -n "$one_cpu_dir" ]; then
		confine=(bash -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"'
			one_cpu "$one_cpu_dir")
	else
		confine=(taskset -c "$one_cpu")
	fi
	trap one_cpu_cleanup EXIT
	echo "# confined to CPU $one_cpu: ${one_cpu_dir:-taskset -c $one_cpu (no cpuset could be made)}"
	for t in "$@"; do
		run_counted "$(basename "$t" .sh)[1cpu]" check_cpu1 \
			"${confine[@]}" bash "$t"
	done
	one_cpu_cleanup
	trap - EXIT
}

summary() {
	for f in "${failures[@]}"; do
		echo "FAILED: $f"
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}

## The parts, each run by run_PART.

PARTS="unit windows integration fuzz style"

# cmocka's messages on a failure ("# 0x1 != 0x2", "# FILE:LINE: error:
# Failure!") follow its "not ok" line: indented as a script's reasons
# are, so that the log and the summary say what failed. Its "# ok -
# GROUP" lines are not reasons.
cmocka_reasons() {
	awk '/^not ok( |$)/ { reason = 1; print; next }
	reason && /^# / && !/^# (not )?ok - / { sub(/^# /, "#   "); print; next }
	{ reason = 0; print }'
}

run_unit() {
	local t out status
	echo "# unit tests"
	for t in "$BUILD"/tests/test_*; do
		case $t in *.d) continue ;; esac
		out=$(mktemp)
		CMOCKA_MESSAGE_OUTPUT=TAP limited "$UNIT_LIMIT" "$t" 2>&1 |
			cmocka_reasons >"$out"
		status=${PIPESTATUS[0]}
		grep -vE '^(1\.\.|# [^ ])' "$out" | sed "s|^|$(basename "$t"): |"
		count_tap "$(basename "$t")" "$out" "$status" "$UNIT_LIMIT"
		rm -f "$out"
	done
}

# The Windows suite under Wine (tests/windows/): its unit tests, and its
# integration test where there is one. Each script speaks TAP of its own.
run_windows() {
	local win_units s
	echo "# windows tests"
	win_units=("$WIN_BUILD"/tests/test_*.exe)
	if [ -f "${win_units[0]}" ]; then
		run_counted windows-units stop_wineserver \
			tests/windows/run-units.sh "$WIN_BUILD" "${win_units[@]}"
	else
		fault windows-units "no test built in $WIN_BUILD/tests"
	fi
	# The daemon and the installer under Wine, the saturation check
	# there, paths beyond ASCII, and restraint.
	for s in integration msi saturate names restraint; do
		[ -f "tests/windows/$s.sh" ] || continue
		run_counted "windows-$s" stop_wineserver \
			bash "tests/windows/$s.sh" "$WIN_BUILD"
	done
}

# The scripts of tests/integration, then the daemon's once more with the
# proc connector alone, then the hardware's on one CPU.
run_integration() {
	local t
	echo "# integration tests"
	for t in tests/integration/*.sh; do
		[ "$(basename "$t")" = lib.sh ] && continue
		run_counted "$(basename "$t" .sh)" check_cpu1 bash "$t"
	done
	run_netlink_pass
	echo "# integration tests of the hardware, confined to one CPU"
	run_one_cpu $(printf 'tests/integration/%s.sh ' $ONE_CPU_SCRIPTS)
}

# The daemon's scripts ran with events = auto: the BPF exec filter where
# it loads. Then once more with the proc connector alone (events =
# netlink), so that each source this machine has is tested. Where the
# filter cannot load (a build root without the capabilities, a kernel
# without BTF) the first pass was the proc connector's: a skip, with the
# daemon's reason. The probe starts a daemon of its own: under a limit
# too, and where it does not end, the netlink pass runs all the same.
SOURCE_SCRIPTS="daemon exe lifetime metrics prio power"
run_netlink_pass() {
	local why name
	echo "# integration tests of the daemon, events = netlink"
	why=$(limited "$PROBE_LIMIT" bash -c '. tests/integration/lib.sh; bpf_why_not' 2>&1)
	case $? in
	0) ;;
	124 | 137)
		fault bpf_why_not "the exec filter's probe timed out after $PROBE_LIMIT s"
		why=
		;;
	*)
		fault bpf_why_not "the exec filter's probe failed: $why"
		why=
		;;
	esac
	if [ -n "$why" ]; then
		skipped=$((skipped + 1))
		echo "ok - daemon tests with events = netlink # SKIP the first pass had no exec filter to compare: $why"
		return
	fi
	for name in $SOURCE_SCRIPTS; do
		run_counted "${name}[netlink]" check_cpu1 \
			env CPUPOLICY_TEST_EVENTS=netlink bash "tests/integration/$name.sh"
	done
}

run_fuzz() {
	local f
	echo "# fuzz targets, ${FUZZ_SECONDS}s each"
	for f in "$BUILD"/fuzz/fuzz_*; do
		[ -x "$f" ] && [ -f "$f" ] || continue
		single "fuzz $(basename "$f")" limited $((FUZZ_SECONDS + 60)) \
			tests/fuzz/run-fuzz.sh "$f" "$FUZZ_SECONDS"
	done
}

run_style() {
	echo "# style"
	single "clang-format clean" limited 120 \
		make --no-print-directory -s format-check
}

# Scripts named: each as make test runs it (one in a folder named windows
# as a Windows script).
run_scripts() {
	local t
	for t in "$@"; do
		case $t in
		*/windows/*)
			run_counted "windows-$(basename "$t" .sh)" stop_wineserver \
				bash "$t" "$WIN_BUILD"
			;;
		*) run_counted "$(basename "$t" .sh)" check_cpu1 bash "$t" ;;
		esac
	done
}

## What the arguments name: parts or scripts, never both. A word that is
## neither a part nor a path is a mistake, said before anything runs.

parts=()
scripts=()
for a in "$@"; do
	case " $PARTS " in
	*" $a "*) parts+=("$a") ;;
	*)
		if [ "${a#*/}" = "$a" ] && [ ! -f "$a" ]; then
			echo "run-tests.sh: no part named '$a' (the parts: $PARTS; a script is named by its path)" >&2
			exit 2
		fi
		scripts+=("$a")
		;;
	esac
done
if [ ${#parts[@]} -gt 0 ] && [ ${#scripts[@]} -gt 0 ]; then
	echo "run-tests.sh: name parts or scripts, not both" >&2
	exit 2
fi

if [ ${#scripts[@]} -gt 0 ] && [ "${ONE_CPU:-}" = 1 ]; then
	run_one_cpu "${scripts[@]}"
elif [ ${#scripts[@]} -gt 0 ]; then
	run_scripts "${scripts[@]}"
else
	# In the order of PARTS, each once, whatever order they were named in.
	for part in $PARTS; do
		case " ${parts[*]:-$PARTS} " in *" $part "*) "run_$part" ;; esac
	done
fi
summary
