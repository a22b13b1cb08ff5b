#!/bin/bash
# tests/run-tests.sh counts what ran, on scripts made for it: a plan its
# results do not match, a script that prints no result or no plan, one
# that ends early, each fail; a skip is counted a skip, in the runner's
# summary and in a script's own (tests/tap.sh, for the integration and the
# Windows scripts alike); a Windows script killed at its limit leaves no
# wineserver behind.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/t" "$TMP/windows" "$TMP/win/wine"
# cpu1's online file as the runner sees it: a file of the test's, so that
# the runner never turns the machine's cpu1 on while another test has it
# off.
echo 1 >"$TMP/cpu1"

# fixture NAME TEXT: a script for the runner, $TMP/t/NAME.sh (or
# $TMP/windows/NAME.sh for NAME windows/...).
fixture() {
	case $1 in
	windows/*) printf '%s\n' "$2" >"$TMP/$1.sh" ;;
	*) printf '%s\n' "$2" >"$TMP/t/$1.sh" ;;
	esac
}

# runner [ENV=VALUE...] SCRIPT...: the runner on those scripts alone (their
# paths under $TMP); its status in $status, output in $out, the summary
# (its last line) in $summary.
runner() {
	local envs=()
	while [ $# -gt 0 ] && [ "${1#*=}" != "$1" ]; do
		envs+=("$1")
		shift
	done
	run timeout -k 10 120 env CPU1="$TMP/cpu1" WIN_BUILD="$TMP/win" \
		"${envs[@]}" "$SRCDIR/tests/run-tests.sh" "${@/#/$TMP/}"
	summary=$(tail -n 1 <<<"$out")
}

# expect_run NAME STATUS SUMMARY [FAILED...]: the runner's status and
# summary as given, and a FAILED line for each.
expect_run() {
	local name=$1 want=$2 sum=$3 f
	shift 3
	if [ "$status" -ne "$want" ] || [ "$summary" != "$sum" ]; then
		not_ok "$name" "status $status (expected $want), summary '$summary' (expected '$sum'):
$out"
		return 1
	fi
	for f in "$@"; do
		# The failure's diagnostics may follow it on its line, after " — ".
		awk -v want="FAILED: $f" '$0 == want || index($0, want " — ") == 1 { found = 1 }
			END { exit !found }' <<<"$out" && continue
		not_ok "$name" "no line 'FAILED: $f' in:
$out"
		return 1
	done
	ok "$name"
}

fixture short 'for i in 1 2 3 4; do echo "ok $i - case $i"; done
echo "1..5"'
runner t/short.sh
expect_run "a plan of 5 with 4 results: the 4 pass, the script fails" 1 \
	"4 passed, 1 failed, 0 skipped" "short: plan 1..5, but 4 results"

fixture silent 'exit 0'
runner t/silent.sh
expect_run "a script that prints nothing and exits 0 fails" 1 \
	"0 passed, 1 failed, 0 skipped" "silent: no result printed"

fixture unplanned 'echo "ok 1 - a"
echo "ok 2 - b"'
runner t/unplanned.sh
expect_run "results without a plan: the script fails" 1 \
	"2 passed, 1 failed, 0 skipped" "unplanned: no plan (1..N), 2 results"

fixture over 'echo "1..1"
echo "ok 1 - a"
echo "ok 2 - b"'
runner t/over.sh
expect_run "more results than the plan says: the script fails" 1 \
	"2 passed, 1 failed, 0 skipped" "over: plan 1..1, but 2 results"

fixture early 'echo "ok 1 - a"
exit 3'
runner t/early.sh
expect_run "a script that ends early, with no not ok, fails, saying its status" 1 \
	"1 passed, 1 failed, 0 skipped" \
	"early: no plan (1..N), 1 results; exited with status 3"

# Through the helpers every script uses: lib.sh's, and tests/tap.sh as
# the Windows scripts source it. A skip is not a pass, in any count.
fixture planned ". \"\$SRCDIR/tests/integration/lib.sh\"
ok a
skip b 'not here'
not_ok c 'it broke'
finish"
runner t/planned.sh
expect_run "lib.sh's ok, skip and not_ok: one each" 1 \
	"1 passed, 1 failed, 1 skipped" "planned: 3 - c"
expect_contains "the script's own summary" "$out" \
	"planned: planned: 1 passed, 1 failed, 1 skipped" &&
	ok "the script's own summary: 1 passed, 1 failed, 1 skipped"

fixture skipped_all ". \"\$SRCDIR/tests/integration/lib.sh\"
skip_all 'nothing to run here'"
runner t/skipped_all.sh
expect_run "skip_all: one skip, no pass, no failure" 0 \
	"0 passed, 0 failed, 1 skipped"

fixture windows/skips ". \"\$SRCDIR/tests/tap.sh\"
result 0 a
skip b 'not under Wine'
finish windows-skips"
runner windows/skips.sh
expect_run "a Windows script's skip: a skip in the runner's count" 0 \
	"1 passed, 0 failed, 1 skipped"
expect_contains "a Windows script's own summary" "$out" \
	"windows-skips: windows-skips: 1 passed, 0 failed, 1 skipped" &&
	ok "a Windows script's own summary counts its skip as a skip"

# One TAP helper: no script defines one of its own.
own=$(grep -lE '^[[:space:]]*(ok|not_ok|skip|skip_all|result|finish)\(\)' \
	"$SRCDIR"/tests/integration/*.sh "$SRCDIR"/tests/windows/*.sh)
if [ -z "$own" ]; then
	ok "every integration and Windows script takes its TAP from tests/tap.sh"
else
	not_ok "one TAP helper" "defining a TAP function of their own: $own"
fi

# A Windows script killed at its limit, after making its wineserver
# persistent: the wineserver is stopped after it, and said to have
# been left. TERM ignored, as by a script stuck where no trap runs.
wineservers() { # the live wineservers of the test's prefix
	local p
	for p in $(pgrep wineserver); do
		running "$p" || continue
		case $(readlink "/proc/$p/cwd" 2>/dev/null) in
		"$TMP/win/"*) echo "$p" ;;
		esac
	done
}
if ! command -v wineserver >/dev/null; then
	skip "a Windows script killed at its limit leaves no wineserver" "no Wine here"
else
	at_exit 'kill -KILL $(wineservers) 2>/dev/null'
	fixture windows/persist ". \"\$SRCDIR/tests/tap.sh\"
WINE_BUILD=\$1
. \"\$SRCDIR/tests/windows/wine.sh\"
trap '' TERM
wine_persist
ok 'a wineserver for good'
sleep 600"
	runner SCRIPT_LIMIT=2 windows/persist.sh
	expect_run "a Windows script that runs out of time fails, and its wineserver is said to be left" 1 \
		"1 passed, 2 failed, 0 skipped" \
		"windows-persist: no plan (1..N), 1 results; timed out after 2 s" \
		"windows-persist: left its wineserver running (stopped now)"
	left=$(wineservers)
	if [ -z "$left" ]; then
		ok "its persistent wineserver does not outlive it"
	else
		not_ok "its persistent wineserver does not outlive it" \
			"still running: $(ps -o pid,args -p "$(tr "\n" , <<<"$left")")"
	fi
fi

# An event case that fails before it asks about rescans still prints its
# result, and names no count of an earlier case.
fixture unasked '. "$SRCDIR/tests/integration/lib.sh"
if by_events "$(rescans_now)" 1 true; then ok "an earlier case"; else ok "an earlier case"; fi
if wait_until 1 false && by_events 0 1 true; then
	ok "a case"
else
	not_ok "a case" "rescans since: $rescanned"
fi
finish'
runner t/unasked.sh
expect_run "an event case failing before it asks about rescans prints its failure" 1 \
	"1 passed, 1 failed, 0 skipped" "unasked: 2 - a case" &&
	if grep -qF "#   rescans since: not counted: the case failed before it asked" <<<"$out"; then
		ok "its message says the rescans were not counted"
	else
		not_ok "its message says the rescans were not counted" "$out"
	fi &&
	if grep -qxF "FAILED: unasked: 2 - a case — rescans since: not counted: the case failed before it asked" <<<"$out"; then
		ok "the summary's FAILED line carries the failure's diagnostics"
	else
		not_ok "the summary's FAILED line carries the failure's diagnostics" "$out"
	fi

# Parts by name: each runs alone, and the others not at all. The unit
# part on a build of one fake test, the style part on the tree.
mkdir -p "$TMP/build/tests"
printf '#!/bin/sh\necho "1..1"\necho "ok 1 - fake"\n' >"$TMP/build/tests/test_fake"
chmod +x "$TMP/build/tests/test_fake"

# parts [ENV=VALUE...] PART...: the runner on those parts, on the fake
# build; as runner, its status, output and summary.
parts() {
	run timeout -k 10 120 env CPU1="$TMP/cpu1" WIN_BUILD="$TMP/win" \
		BUILD="$TMP/build" "$SRCDIR/tests/run-tests.sh" "$@"
	summary=$(tail -n 1 <<<"$out")
}

# ran_only NAME HEADER...: the output has the part headers given and none
# of the others'.
ran_only() {
	local name=$1 h w want extra=
	shift
	for h in "# unit tests" "# windows tests" "# integration tests" \
		"# fuzz targets" "# style"; do
		want=no
		for w in "$@"; do [ "$w" = "$h" ] && want=yes; done
		if grep -q "^$h" <<<"$out"; then
			[ $want = yes ] || extra="$extra '$h'"
		elif [ $want = yes ]; then
			extra="$extra no '$h'"
		fi
	done
	if [ -z "$extra" ]; then
		ok "$name"
	else
		not_ok "$name" "parts run wrong:$extra in:
$out"
	fi
}

parts unit
expect_run "run-tests.sh unit: the unit tests alone" 0 \
	"1 passed, 0 failed, 0 skipped"
ran_only "run-tests.sh unit runs no other part" "# unit tests"

parts style
ran_only "run-tests.sh style runs the format check alone" "# style"
if [ "$(grep -cE '^(not )?ok( |$)' <<<"$out")" = 1 ] &&
	grep -qE '^(not )?ok - clang-format clean$' <<<"$out"; then
	ok "run-tests.sh style counts one: the format check"
else
	not_ok "run-tests.sh style counts one: the format check" "$out"
fi

parts style unit
ran_only "run-tests.sh style unit runs those two" "# unit tests" "# style"
if [ "$(grep -n '^# unit tests' <<<"$out" | cut -d: -f1)" -lt \
	"$(grep -n '^# style' <<<"$out" | cut -d: -f1)" ]; then
	ok "parts run in the runner's order, not the order named"
else
	not_ok "parts run in the runner's order, not the order named" "$out"
fi

parts units
if [ "$status" -eq 2 ] && [ -z "$out" ] &&
	grep -qF "no part named 'units' (the parts: unit windows integration fuzz style" <<<"$err"; then
	ok "an unknown part fails before anything runs, naming the parts"
else
	not_ok "an unknown part fails before anything runs, naming the parts" \
		"status $status, stdout: $out, stderr: $err"
fi

parts unit "$TMP/t/short.sh"
if [ "$status" -eq 2 ] && [ -z "$out" ] &&
	grep -qF "name parts or scripts, not both" <<<"$err"; then
	ok "parts and scripts together fail before anything runs"
else
	not_ok "parts and scripts together fail before anything runs" \
		"status $status, stdout: $out, stderr: $err"
fi

# A script that leaves cpu1 offline: back online, and a failure.
fixture cpu1 'echo 0 >"$CPU1"
echo "ok 1 - cpu1 off"
echo "1..1"'
runner t/cpu1.sh
expect_run "a script that leaves cpu1 offline fails" 1 \
	"1 passed, 1 failed, 0 skipped" "cpu1: left cpu1 offline"
if [ "$(cat "$TMP/cpu1")" = 1 ]; then
	ok "the runner puts cpu1 back online"
else
	not_ok "the runner puts cpu1 back online" "it reads $(cat "$TMP/cpu1")"
fi

finish
