#!/bin/bash
# Restraint under Wine: cpupolicyd.exe with [restraint] enabled = true and
# no rule, a hog (probe.exe --hog, a spinning thread per CPU) lowered to
# the below normal class as its own GetPriorityClass reads it, listed as
# restrained by status --json and explain, and given the normal class
# back once it calms down; EcoQoS, which Wine refuses, said once in the
# log; and the pressure said to be the busy time alone, as Wine's process
# listing tells no thread's state (the ready threads are tested on the
# model: tests/unit/windows/test_model_restraint.c). Then the per-user
# agent: a second hog (probe.exe --hog-window), restrained while it has
# no window, makes a window of its own the foreground window; cpupolicyctl
# agent, running in the background, tells the daemon, which gives the hog
# its normal class back, says so in explain and its log; and agent --once
# says what it told. Windows need a display driver, and the tests run
# with no X display (wine.sh): Wine's null driver for the prefix while
# the script runs. TAP on stdout (tests/tap.sh), closing with "N passed,
# N failed, N skipped".
#
#   restraint.sh BUILD_DIR      (build-win: both .exe and probe.exe)
#
# Every wait has a deadline; whatever happens, the hogs, the agent and the
# daemon are stopped, the prefix's display driver set back, and the
# prefix's wineserver stopped with them.
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
# s: the window hog's window made the foreground; the agent started
# under Wine, its look (every 250 ms) and its word to the daemon.
FOREGROUND_LIMIT=${FOREGROUND_LIMIT:-20}
# The prefix's display driver ("Graphics" under HKCU\Software\Wine\Drivers):
# null while the script runs (windows made and kept by the wineserver, no
# X display needed), then what it was.
DRIVERS='HKCU\Software\Wine\Drivers'

daemon_pid=
hog_pid=
whog_pid=
agent_pid=
graphics=
cleanup() {
	[ -n "$agent_pid" ] && kill "$agent_pid" 2>/dev/null
	[ -n "$whog_pid" ] && touch "$WORK/whog/stop"
	[ -n "$hog_pid" ] && touch "$WORK/hog/stop"
	[ -n "$hog_pid$whog_pid" ] && sleep 0.5
	[ -n "$whog_pid" ] && kill "$whog_pid" 2>/dev/null
	[ -n "$hog_pid" ] && kill "$hog_pid" 2>/dev/null
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	case $graphics in
	'') ;;
	none) limited 60 wine reg delete "$DRIVERS" /v Graphics /f >/dev/null 2>&1 ;;
	*) limited 60 wine reg add "$DRIVERS" /v Graphics /d "$graphics" /f >/dev/null 2>&1 ;;
	esac
	wine_stop
	rm -rf "$WORK" "$WINEPREFIX/drive_c/cpupolicy-rtest"
}
trap cleanup EXIT

wine_ready
result $? "the Wine prefix is there" || {
	finish windows-restraint
	exit
}
# Before any program of the script's makes the desktop, which loads the
# driver.
graphics=$(limited 60 wine reg query "$DRIVERS" /v Graphics 2>/dev/null |
	tr -d '\r' | awk '$1 == "Graphics" { print $3 }')
graphics=${graphics:-none}
limited 60 wine reg add "$DRIVERS" /v Graphics /d null /f >/dev/null 2>&1
result $? "Wine's null display driver for the prefix (it was: $graphics)"
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
# The agent's word is a debug line.
log_level = debug

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
log | grep -v '^cpupolicyd: debug: ' | grep 'efficiency_mode' | sed 's/^/# daemon: /'
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

# The per-user agent, and a hog the user looks at. Restrained first, as
# any hog; then the agent (in the background, as the Run key starts it
# at logon) sees its window come to the foreground and tells the daemon.
mkdir -p "$WORK/whog"
timeout -k 5 200 wine "$PROBE" --hog-window "$(winpath "$WORK/whog")" "$cpus" \
	</dev/null >"$WORK/whog.out" 2>&1 &
whog_pid=$!
wait_for 60 test -f "$WORK/whog/ready"
result $? "the window hog spins $cpus threads, with no window yet" || {
	finish windows-restraint
	exit
}
# wreport: the window hog's report (LF only).
wreport() {
	rm -f "$WORK/whog/report"
	touch "$WORK/whog/ask"
	wait_for 10 test -f "$WORK/whog/report" || return 1
	tr -d '\r' <"$WORK/whog/report"
}
wclass_is() { wreport | grep -qx "class $1"; }
rep=$(wreport)
echo "$rep" | sed 's/^/# window hog: /'
whog=$(echo "$rep" | awk '$1 == "pid" { print $2 }')
echo "$rep" | grep -qx 'foreground no'
result $? "the window hog (pid $whog) is not in the foreground: it has no window"
start=$(date +%s)
wait_for "$RESTRAIN_LIMIT" wclass_is 0x4000
result $? "the window hog is restrained while it has no window: below normal (0x4000) within $RESTRAIN_LIMIT s (took $(($(date +%s) - start)) s)" ||
	log | grep -v '^cpupolicyd: debug: ' | sed 's/^/# daemon: /'

# With no window in the foreground, the agent has nothing to tell (its
# stderr, Wine's CR LF and all).
out=$(
	set -o pipefail
	ctl agent --once --verbose | tr -d '\r'
)
status=$?
[ "$status" -eq 1 ] && echo "$out" | grep -qx 'cpupolicyctl agent: no window is in the foreground'
result $? "agent --once with no foreground window says so, and fails (status $status)" ||
	echo "$out" | sed 's/^/# agent: /'

timeout -k 5 200 wine "$CTL" -c "$CONF" agent --verbose </dev/null \
	>"$WORK/agent.log" 2>&1 &
agent_pid=$!
touch "$WORK/whog/window"
wfront() { wreport | grep -qx 'foreground yes'; }
start=$(date +%s)
if ! wait_for "$FOREGROUND_LIMIT" wfront; then
	rep=$(wreport)
	why=$(tr -d '\r' <"$WORK/whog.out")
	if [ -n "$why" ]; then
		why="Wine made the hog no window (no display driver gives it one): $why"
	elif [ -n "$rep" ]; then
		why="Wine's GetForegroundWindow is not the hog's window it made the foreground (SetForegroundWindow): $(echo "$rep" | grep '^foreground')"
	else
		why="the window hog answered no report"
	fi
	for what in "the hog's window in the foreground" \
		"the agent's foreground: the hog's normal class back (0x20)" \
		"explain says the hog is in the foreground, declared over cpupolicyctl agent" \
		"the daemon's log shows the agent's word and the release" \
		"the agent in the background says the daemon took the hog" \
		"agent --once tells the daemon the hog's window"; do
		skip "$what" "$why"
	done
	finish windows-restraint
	exit
fi
ok "the hog's window in the foreground (GetForegroundWindow, as the hog reads it; took $(($(date +%s) - start)) s)"
wait_for "$FOREGROUND_LIMIT" wclass_is 0x20
result $? "the agent's foreground: the hog's normal class back (0x20) within $FOREGROUND_LIMIT s (took $(($(date +%s) - start)) s)" || {
	tr -d '\r' <"$WORK/agent.log" | sed 's/^/# agent: /'
	log | grep -v '^cpupolicyd: debug: ' | sed 's/^/# daemon: /'
}
wreport | sed 's/^/# window hog: /'
out=$(ctl explain "$whog")
echo "$out" | grep -q 'not restrained: in the foreground (declared over cpupolicyctl agent)'
result $? "explain says the hog is in the foreground, declared over cpupolicyctl agent" ||
	echo "$out" | sed 's/^/# explain: /'
log | grep "cpupolicyctl agent: \|released $whog " | sed 's/^/# daemon: /'
log | grep -q "cpupolicyctl agent: process $whog of uid [0-9]* is in the foreground" &&
	log | grep -q "released $whog (probe.exe) after [0-9]* ms: it is in the foreground"
result $? "the daemon's log shows the agent's word and the release"
tr -d '\r' <"$WORK/agent.log" | sed 's/^/# agent: /'
tr -d '\r' <"$WORK/agent.log" | grep -qx "cpupolicyctl agent: $whog is in the foreground"
result $? "the agent in the background says the daemon took $whog"

out=$(
	set -o pipefail
	ctl agent --once --verbose | tr -d '\r'
)
status=$?
[ "$status" -eq 0 ] && echo "$out" | grep -qx "cpupolicyctl agent: $whog is in the foreground"
result $? "agent --once tells the daemon the hog's window (status $status)" ||
	echo "$out" | sed 's/^/# agent: /'

finish windows-restraint
