#!/bin/bash
# Restraint under Wine: cpupolicyd.exe with [restraint] enabled = true and
# no rule, a hog (probe.exe --hog, a spinning thread per CPU) lowered to
# the below normal class as its own GetPriorityClass reads it, listed as
# restrained by status --json and explain, and given the normal class
# back once it calms down; EcoQoS, which Wine refuses, said once in the
# log; and the pressure said to be the busy time alone, as Wine's process
# listing tells no thread's state (the ready threads are tested on the
# model: tests/unit/windows/test_model_restraint.c). TAP on stdout
# (tests/tap.sh), closing with "N passed, N failed, N skipped".
#
#   restraint.sh BUILD_DIR      (build-win: both .exe and probe.exe)
#
# Every wait has a deadline; whatever happens, the hog and the daemon are
# stopped and the prefix's wineserver with them.
set -u
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh" "$@"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

DAEMON=$WINE_BUILD/cpupolicyd.exe
CTL=$WINE_BUILD/cpupolicyctl.exe
PROBE=$WINE_BUILD/probe.exe
WORK=$WINE_BUILD/rtest
PIPE='\\.\pipe\cpupolicy-rtest'
STATE='C:\cpupolicy-rtest\state'
# s: a pass every 250 ms, qualified after 500 ms of pressure, which the
# tick looks for once a second; Wine is slow to start.
RESTRAIN_LIMIT=${RESTRAIN_LIMIT:-30}
# s: calm for 1 s after 1 s held, at the next pass.
RELEASE_LIMIT=${RELEASE_LIMIT:-20}

daemon_pid=
hog_pid=
cleanup() {
	[ -n "$hog_pid" ] && touch "$WORK/hog/stop" && sleep 0.5
	[ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	wine_stop
	rm -rf "$WORK" "$WINEPREFIX/drive_c/cpupolicy-rtest"
}
trap cleanup EXIT

wine_ready
result $? "the Wine prefix is there" || {
	finish windows-restraint
	exit
}
for f in "$DAEMON" "$CTL" "$PROBE"; do
	[ -x "$f" ] || {
		result 1 "$f is built"
		finish windows-restraint
		exit
	}
done
rm -rf "$WORK"
mkdir -p "$WORK/rules" "$WORK/hog"
cat >"$WORK/cpupolicyd.conf" <<EOF
[daemon]
rules_dirs = $(winpath "$WORK/rules")
socket = $PIPE
state_dir = $STATE
rescan_interval_ms = 0

[restraint]
enabled = true
calm_ms = 1000
hold_ms = 1000
EOF
CONF=$(winpath "$WORK/cpupolicyd.conf")
ctl() { wine_run 30 "$CTL" -c "$CONF" "$@" 2>&1; }
log() { tr -d '\r' <"$WORK/daemon.log"; }

timeout -k 5 300 wine "$DAEMON" -c "$CONF" </dev/null \
	>"$WORK/daemon.log" 2>&1 &
daemon_pid=$!
answers() { ctl status >/dev/null; }
wait_for 60 answers
result $? "the daemon answers on $PIPE" || {
	log | sed 's/^/# daemon: /'
	finish windows-restraint
	exit
}
out=$(ctl status)
echo "$out" | grep -q '^restraint: on'
result $? "status: restraint on" || echo "$out" | sed 's/^/# status: /'
log | grep -q "tells no thread's state (Wine): CPU pressure is the processors' busy time alone"
result $? "the daemon says Wine's listing tells no thread's state: the busy time alone is the pressure" ||
	log | sed 's/^/# daemon: /'

cpus=$(nproc)
timeout -k 5 200 wine "$PROBE" --hog "$(winpath "$WORK/hog")" "$cpus" \
	</dev/null >/dev/null 2>&1 &
hog_pid=$!
wait_for 60 test -f "$WORK/hog/ready"
result $? "the hog spins $cpus threads" || {
	finish windows-restraint
	exit
}

# report: the hog's own report (LF only).
report() {
	rm -f "$WORK/hog/report"
	touch "$WORK/hog/ask"
	wait_for 10 test -f "$WORK/hog/report" || return 1
	tr -d '\r' <"$WORK/hog/report"
}
class_is() { report | grep -qx "class $1"; }
rep=$(report)
echo "$rep" | sed 's/^/# hog: /'
hog=$(echo "$rep" | awk '$1 == "pid" { print $2 }')
echo "$rep" | grep -qx 'class 0x20'
result $? "the hog starts at the normal class (0x20)"

# BELOW_NORMAL_PRIORITY_CLASS is 0x4000.
start=$(date +%s)
wait_for "$RESTRAIN_LIMIT" class_is 0x4000
result $? "the hog is restrained: its class below normal (0x4000) within $RESTRAIN_LIMIT s (took $(($(date +%s) - start)) s)" ||
	log | sed 's/^/# daemon: /'
report | sed 's/^/# hog: /'
log | grep "restrained $hog " | sed 's/^/# daemon: /'
log | grep -q "restrained $hog (probe.exe): [0-9]*% of the CPUs for [0-9]* ms with the CPUs [0-9]*% contended"
result $? "the log says restrained $hog (probe.exe), with its share and the pressure"
out=$(ctl status --json)
echo "$out" | sed 's/^/# status --json: /'
echo "$out" | tr -d ' \n' | grep -q "\"restrained\":\[{\"pid\":$hog,\"name\":\"probe.exe\""
result $? "status --json lists the hog (pid $hog) as restrained"
out=$(ctl explain "$hog")
echo "$out" | grep -q 'restrained for [0-9]*s'
result $? "explain says the hog is restrained" || echo "$out" | sed 's/^/# explain: /'
# Wine's SetProcessInformation refuses ProcessPowerThrottling
# (ERROR_INVALID_FUNCTION): said once, the class lowered all the same.
log | grep 'efficiency_mode' | sed 's/^/# daemon: /'
n=$(log | grep -c "efficiency_mode refused for pid $hog (SetProcessInformation(ProcessPowerThrottling): error [0-9]*)")
result $((n != 1)) "EcoQoS refused by Wine: the warning once ($n), the class lowered"

touch "$WORK/hog/calm"
start=$(date +%s)
wait_for "$RELEASE_LIMIT" class_is 0x20
result $? "calm again, the hog gets the normal class back (0x20) within $RELEASE_LIMIT s (took $(($(date +%s) - start)) s)" ||
	log | sed 's/^/# daemon: /'
log | grep "released $hog " | sed 's/^/# daemon: /'
log | grep -q "released $hog (probe.exe) after [0-9]* ms: calm again"
result $? "the log says released $hog: calm again"
out=$(ctl status --json)
echo "$out" | tr -d ' \n' | grep -q '"restrained":\[\]'
result $? "status --json lists nothing restrained any more" ||
	echo "$out" | sed 's/^/# status --json: /'

finish windows-restraint
