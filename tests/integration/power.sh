#!/bin/bash
# Power holds on the real machine: CPU hotplug of cpu1. A parking = "off"
# hold brings an offline cpu1 online while its holder runs and takes it
# offline again when the holder exits; a daemon killed mid-hold leaves the
# journal, which the next start, or "cpupolicyctl restore", replays.
# cpu1 is put back online on exit, whatever happened.
. "$(dirname "$0")/lib.sh"

CPU1=/sys/devices/system/cpu/cpu1/online
if [ "$(id -u)" -ne 0 ] || [ ! -w "$CPU1" ]; then
	ok "power tests need root and a hot-pluggable cpu1 # SKIP"
	finish
	exit 0
fi

daemon_pid=
holders=()
cleanup() {
	[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
	for h in "${holders[@]}"; do
		kill -KILL "$h" 2>/dev/null
		wait "$h" 2>/dev/null
	done
	echo 1 >"$CPU1"
	rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/rules" "$TMP/state"
cp "$BUILD/helpers/worker" "$TMP/holder"
SOCK="$TMP/ctl.sock"
cat >"$TMP/test.conf" <<EOF
[daemon]
socket = $SOCK
state_dir = $TMP/state
rescan_interval_ms = 500
EOF
cat >"$TMP/rules/10-power.rules" <<EOF
rules = ( { name = "holder"; match = { exe = "$TMP/holder"; };
            power = { parking = "off"; }; } );
EOF

ctl() { "$CTL" -S "$SOCK" "$@"; }
start_daemon() {
	"$DAEMON" -c "$TMP/test.conf" -r "$TMP/rules" >>"$TMP/daemon.log" 2>&1 &
	daemon_pid=$!
	for _ in $(seq 100); do
		ctl status >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	sed 's/^/#   /' "$TMP/daemon.log"
	return 1
}
stop_daemon() {
	kill -TERM "$daemon_pid"
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
}
cpu1() { cat "$CPU1"; }
wait_cpu1() { # VALUE
	for _ in $(seq 60); do
		[ "$(cpu1)" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}
start_holder() {
	"$TMP/holder" -s 30 &
	holder=$!
	holders+=("$holder")
}
stop_holder() {
	kill -TERM "$holder"
	wait "$holder" 2>/dev/null
}

echo 0 >"$CPU1"
start_daemon || { finish; exit 1; }
start_holder
if wait_cpu1 1; then
	ok "parking off: an offline cpu1 comes online while the holder runs"
else
	not_ok "cpu1 online while held" "cpu1 is $(cpu1)"
fi

run ctl status
expect_contains "status: hold" "$out" "hold     pid $holder, rule holder: every CPU online" &&
	expect_contains "status: setting" "$out" "setting  $CPU1 = 1 (original 0)" &&
	ok "status lists the hold, its holder, the setting and its original"
run ctl explain "$holder"
expect_contains "explain: holds" "$out" "holds      every CPU online" &&
	ok "explain shows the holds a process keeps"
grep -q "^$CPU1	0	1$" "$TMP/state/journal" &&
	ok "the original is in the journal while held" ||
	not_ok "journal while held" "$(cat "$TMP/state/journal" 2>&1)"

# A second daemon on the same config must not "restore" what the first
# one holds: it refuses to start before it touches anything.
run "$DAEMON" -c "$TMP/test.conf" -r "$TMP/rules"
if [ "$status" -eq 1 ] && [ "$(cpu1)" = 1 ] &&
	grep -q "^$CPU1	0	1$" "$TMP/state/journal" &&
	expect_contains "second daemon" "$err" "another cpupolicyd answers"; then
	ok "a second daemon refuses to start and leaves the first one's holds alone"
else
	not_ok "second daemon" "exit $status, cpu1 $(cpu1); $err"
fi

stop_holder
if wait_cpu1 0 && [ ! -e "$TMP/state/journal" ]; then
	ok "the holder exits: cpu1 offline again, journal empty"
else
	not_ok "release" "cpu1 is $(cpu1); journal: $(cat "$TMP/state/journal" 2>&1)"
fi

# Someone else takes cpu1 offline mid-hold: by default it is theirs.
start_holder
wait_cpu1 1
echo 0 >"$CPU1"
sleep 1.5
if [ "$(cpu1)" = 0 ] && grep -q "$CPU1: changed by someone else to 0 while held at 1" "$TMP/daemon.log"; then
	ok "a held setting changed by someone else is logged and left to them"
else
	not_ok "don't fight" "cpu1 is $(cpu1)"
fi
stop_holder

# SIGKILL mid-hold: the journal survives, the next start restores.
start_holder
wait_cpu1 1
kill -KILL "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=
stop_holder
if [ "$(cpu1)" = 1 ] && grep -q "^$CPU1	0	1$" "$TMP/state/journal"; then
	ok "killed mid-hold: cpu1 still online, the journal holds its original"
else
	not_ok "after SIGKILL" "cpu1 is $(cpu1)"
fi
start_daemon || { finish; exit 1; }
if [ "$(cpu1)" = 0 ] && [ ! -e "$TMP/state/journal" ] &&
	grep -q "restored 1 settings an earlier run left changed" "$TMP/daemon.log"; then
	ok "the next start restores cpu1 before anything else"
else
	not_ok "restore at start" "cpu1 is $(cpu1)"
fi

run "$CTL" -c "$TMP/test.conf" restore
expect_status "restore refused" 1 &&
	expect_contains "restore refused: why" "$err" "cpupolicyd is running" &&
	ok "cpupolicyctl restore is refused while a daemon holds the settings"

# Killed again; this time cpupolicyctl restore, without a daemon.
start_holder
wait_cpu1 1
kill -KILL "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=
stop_holder
run "$CTL" -c "$TMP/test.conf" restore
expect_status "restore: exit 0" 0 &&
	expect_contains "restore output" "$out" "restored 1 settings" &&
	[ "$(cpu1)" = 0 ] && [ ! -e "$TMP/state/journal" ] &&
	ok "cpupolicyctl restore without a daemon puts cpu1 back offline" ||
	not_ok "ctl restore" "cpu1 is $(cpu1)"
run "$CTL" -c "$TMP/test.conf" restore
expect_contains "restore again" "$out" "nothing to restore" &&
	ok "nothing is restored twice"

# A base policy in the config: held from start to stop.
cat >>"$TMP/test.conf" <<EOF
[power]
min_online = 100
EOF
start_daemon || { finish; exit 1; }
wait_cpu1 1 && ok "the config's base policy (min_online = 100) applies at start" ||
	not_ok "base policy" "cpu1 is $(cpu1)"
stop_daemon
[ "$(cpu1)" = 0 ] && ok "... and is undone at a clean stop" ||
	not_ok "base policy undone" "cpu1 is $(cpu1)"

# reassert = true: a changed setting is set again.
echo "reassert = true" >>"$TMP/test.conf"
start_daemon || { finish; exit 1; }
wait_cpu1 1
echo 0 >"$CPU1"
wait_cpu1 1 && ok "reassert = true: a setting changed by someone else is set again" ||
	not_ok "reassert" "cpu1 is $(cpu1)"
stop_daemon
[ "$(cpu1)" = 0 ] && ok "stopped: cpu1 back to its original" ||
	not_ok "stop after reassert" "cpu1 is $(cpu1)"

# A knob the daemon may not write (a read-only file in a fake sysfs; the
# daemon keeps no CAP_DAC_OVERRIDE): a clear line, no crash, no journal.
mkdir -p "$TMP/fakesys/firmware/acpi"
echo balanced >"$TMP/fakesys/firmware/acpi/platform_profile"
echo "low-power balanced performance" >"$TMP/fakesys/firmware/acpi/platform_profile_choices"
chmod 444 "$TMP/fakesys/firmware/acpi/platform_profile"
cat >"$TMP/test.conf" <<EOF
[daemon]
socket = $SOCK
state_dir = $TMP/state
[paths]
sysfs = $TMP/fakesys
EOF
cat >"$TMP/rules/10-power.rules" <<EOF
rules = ( { name = "holder"; match = { exe = "$TMP/holder"; };
            power = { profile = "performance"; }; } );
EOF
start_daemon || { finish; exit 1; }
start_holder
sleep 0.5
run ctl status
if grep -q "platform_profile: cannot set performance: Permission denied" "$TMP/daemon.log" &&
	[ "$status" -eq 0 ] && [ ! -e "$TMP/state/journal" ] &&
	[ "$(cat "$TMP/fakesys/firmware/acpi/platform_profile")" = balanced ]; then
	ok "a read-only setting: a clear error, the daemon runs on, no journal"
else
	not_ok "read-only setting" "$(tail -n 5 "$TMP/daemon.log")"
fi
stop_holder
stop_daemon

finish
