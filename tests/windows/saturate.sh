#!/bin/bash
# The saturation check under Wine, for real: cpupolicyctl.exe saturate on
# this machine's CPUs. Confined to one CPU (taskset -c 0: Wine gives the
# Windows process that affinity) it must read about half of what the
# machine can do, exit 1 and name the affinity; on an idle machine it
# must read at least 90 % and exit 0. TAP on stdout (tests/tap.sh),
# closing with "N passed, N failed, N skipped".
#
#   saturate.sh BUILD_DIR      (build-win: cpupolicyctl.exe)
#
# The idle run needs an idle machine: when other work took the CPUs (the
# check's own contention finding says so) it is tried again, up to
# IDLE_TRIES times within IDLE_DEADLINE seconds, and then skipped with
# the reason rather than failed. Every run has a time limit; the prefix's
# wineserver is stopped at the end.
set -u
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh" "$@"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

CTL=$WINE_BUILD/cpupolicyctl.exe
SECONDS_RUN=${SECONDS_RUN:-3}
RUN_LIMIT=${RUN_LIMIT:-120}
IDLE_TRIES=${IDLE_TRIES:-4}
IDLE_DEADLINE=${IDLE_DEADLINE:-300}
CPUS=$(nproc)

OUT=$WINE_BUILD/saturate-test.out
# Into a file, never $(...): the Wine services a first run starts keep
# its stdout open for as long as the wineserver lives.
run_ctl() { # SECONDS [taskset ARGS --] : the check's report in $OUT
	local secs=$1
	shift
	limited "$secs" "$@" wine "$CTL" saturate --seconds "$SECONDS_RUN" \
		>"$OUT" 2>&1
}
cleanup() {
	wine_stop
	rm -f "$OUT"
}
trap cleanup EXIT

# The efficiency the report gives, as a whole number of percent.
efficiency() { sed -n 's/^  efficiency: *\([0-9.]*\) %.*/\1/p' | cut -d. -f1; }

wine_ready
result $? "the Wine prefix is there" || {
	finish windows-saturate
	exit
}
[ -x "$CTL" ] || {
	result 1 "$CTL is built"
	finish windows-saturate
	exit
}
# One wineserver for every run, started without the affinity below (it
# would keep it for the processes it serves).
wine_persist

# Idle: >= 90 % and exit 0; another try while the CPUs are taken.
until=$(($(date +%s) + IDLE_DEADLINE))
try=0
while :; do
	try=$((try + 1))
	run_ctl "$RUN_LIMIT"
	rc=$?
	out=$(tr -d '\r' <"$OUT")
	eff=$(echo "$out" | efficiency)
	[ "$rc" -eq 0 ] && [ "${eff:-0}" -ge 90 ] && break
	busy=$(echo "$out" | grep -c '^  - contention:')
	[ "$busy" -gt 0 ] && [ "$try" -lt "$IDLE_TRIES" ] &&
		[ "$(date +%s)" -lt "$until" ] || break
	echo "# idle run $try: ${eff:-?} % with other work on the CPUs; again"
	sleep 5
done
if [ "$rc" -eq 0 ] && [ "${eff:-0}" -ge 90 ]; then
	result 0 "idle: saturate reads ${eff} % (>= 90 %) and exits 0 (try $try)"
elif [ "${busy:-0}" -gt 0 ]; then
	echo "$out" | sed 's/^/# /'
	skip "idle: saturate reads >= 90 % and exits 0" \
		"the machine was busy in all $try tries (${eff:-?} %, contention)"
else
	echo "$out" | sed 's/^/# /'
	result 1 "idle: saturate reads >= 90 % and exits 0 (${eff:-?} %, exit $rc)"
fi
echo "$out" | grep -q '^CPU time during the run'
result $? "the report has the per-CPU bars"

# --compare: B's workers are a process of their own, so that its class,
# thread level and EcoQoS are theirs, not the probe's or the
# background's; the report says what each arm's workers ran at.
limited "$RUN_LIMIT" wine "$CTL" saturate --seconds 0.3 --pairs 2 --json \
	--compare 'priority = { class = "below-normal"; thread = "lowest"; };' \
	--background 1 --probe >"$OUT" 2>&1
rc=$?
out=$(tr -d '\r' <"$OUT")
[ "$rc" -eq 0 ]
result $? "--compare class and thread runs (exit $rc)" ||
	echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '"priority_a":"class normal, thread normal"'
result $? "--compare: A's workers at class normal, thread normal"
echo "$out" | grep -q '"priority_b":"class below-normal, thread lowest"'
result $? "--compare: B's workers at class below-normal, thread lowest" ||
	echo "$out" | sed 's/^/# /'
echo "$out" | grep -q '"background_b":[0-9.]*,' &&
	echo "$out" | grep -q '"probe_b":{"p99_us":[0-9.]*,"p999_us":'
result $? "--compare: the background's rate and the probe's lateness"
limited "$RUN_LIMIT" wine "$CTL" saturate --worker 12345 >"$OUT" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "is not a mapping of cpupolicyctl's" "$OUT"
result $? "--worker with a handle not handed down: exit 2 (exit $rc)"

# Confined to CPU 0: about 1/CPUS of the machine, exit 1, the affinity.
if [ "$CPUS" -lt 2 ]; then
	skip "confined to CPU 0" "one CPU: nothing to confine"
	finish windows-saturate
	exit
fi
run_ctl "$RUN_LIMIT" taskset -c 0
rc=$?
out=$(tr -d '\r' <"$OUT")
eff=$(echo "$out" | efficiency)
want=$((100 / CPUS))
[ "$rc" -eq 1 ]
result $? "confined: saturate exits 1 (exit $rc)" || echo "$out" | sed 's/^/# /'
[ -n "$eff" ] && [ "$eff" -ge $((want - 20)) ] && [ "$eff" -le $((want + 20)) ]
result $? "confined: saturate reads about $want % (${eff:-?} %)"
echo "$out" | grep -q '^  - affinity: the threads may run only on CPUs 0 '
result $? "confined: the finding names the affinity" ||
	echo "$out" | sed 's/^/# /'
echo "$out" | grep -A1 '^  - affinity:' | grep -q 'fix: a rule for the workload: placement'
result $? "confined: the affinity finding gives the rule that fixes it"
finish windows-saturate
