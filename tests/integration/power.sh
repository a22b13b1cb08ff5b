#!/bin/bash
# Power holds on the real machine: CPU hotplug of cpu1. A parking = "off"
# hold brings an offline cpu1 online while its holder runs and takes it
# offline again when the holder exits; a daemon killed mid-hold leaves the
# journal, which the next start, or "cpupolicyctl restore", replays.
# cpu1 is put back online at exit, whatever happened.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || [ ! -w "$CPU1" ]; then
	skip_all "the power tests need root and a hot-pluggable cpu1"
fi
restore_cpu1_at_exit

cp "$WORKER" "$TMP/holder"
write_conf rescan_interval_ms=500
cat >"$RULES/10-power.rules" <<EOF
rules = ( { name = "holder"; match = { exe = "$TMP/holder"; };
            power = { parking = "off"; }; } );
EOF

start_holder() {
	start "$TMP/holder" -s 60
	holder=$!
}
stop_holder() { stop "$holder" 5; }
journal_has() { grep -q "^$CPU1	$1	$2$" "$TMP/state/journal" 2>/dev/null; }
journal_gone() { [ ! -e "$TMP/state/journal" ]; }

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
if journal_has 0 1; then
	ok "the original is in the journal while held"
else
	not_ok "journal while held" "$(cat "$TMP/state/journal" 2>&1)"
fi

# A second daemon on the same config must not "restore" what the first
# one holds: it refuses to start before it touches anything.
run timeout 10 "$DAEMON" -c "$CONF" -r "$RULES"
if [ "$status" -eq 1 ] && cpu1_is 1 && journal_has 0 1 &&
	expect_contains "second daemon" "$err" "another cpupolicyd answers"; then
	ok "a second daemon refuses to start and leaves the first one's holds alone"
else
	not_ok "second daemon" "exit $status, cpu1 $(cpu1); $err"
fi

stop_holder
if wait_cpu1 0 && journal_gone; then
	ok "the holder exits: cpu1 offline again, journal empty"
else
	not_ok "release" "cpu1 is $(cpu1); journal: $(cat "$TMP/state/journal" 2>&1)"
fi

# Someone else takes cpu1 offline mid-hold: by default it is theirs. The
# daemon notices at its next rescan (every 500 ms here), says so, and
# leaves it.
start_holder
if wait_cpu1 1; then
	echo 0 >"$CPU1"
	if wait_until 5 grep -q "$CPU1: changed by someone else to 0 while held at 1" "$DAEMON_LOG" &&
		sleep 1 && cpu1_is 0; then
		ok "a held setting changed by someone else is logged and left to them"
	else
		not_ok "don't fight" "cpu1 is $(cpu1); $(tail -n 3 "$DAEMON_LOG")"
	fi
else
	not_ok "don't fight" "cpu1 did not come online for the hold"
fi
stop_holder
need_cpu1 0 "the holder's exit after someone else's change"

# SIGKILL mid-hold: the journal survives. The holder still runs when the
# next daemon starts: that one must first put back the original (0),
# then take the hold anew with the true original, so that cpu1 goes
# offline when the holder exits. Holding before replaying would record 1
# as the original and leave cpu1 online for good.
start_holder
need_cpu1 1 "online for the hold before the kill"
kill_daemon
if cpu1_is 1 && journal_has 0 1; then
	ok "killed mid-hold: cpu1 still online, the journal holds its original"
else
	not_ok "after SIGKILL" "cpu1 is $(cpu1); $(cat "$TMP/state/journal" 2>&1)"
fi
mark=$(log_mark)
start_daemon || { finish; exit 1; }
replayed=$(log_since "$mark" | grep -n "restored 1 settings an earlier run left changed" | cut -d: -f1)
held=$(log_since "$mark" | grep -n "rule holder" | head -n 1 | cut -d: -f1)
if wait_cpu1 1 && journal_has 0 1 && [ -n "$replayed" ] && [ -n "$held" ] &&
	[ "$replayed" -lt "$held" ]; then
	ok "the next start restores the journal before anything else, then holds again with the true original"
else
	not_ok "restore at start, before the hold" "cpu1 $(cpu1); journal $(cat "$TMP/state/journal" 2>&1); log: $(log_since "$mark")"
fi
stop_holder
if wait_cpu1 0 && journal_gone; then
	ok "... and the holder's exit then takes cpu1 offline again"
else
	not_ok "release after a replay" "cpu1 is $(cpu1)"
fi

# Killed mid-hold, and a rule file broken before the next start: the
# daemon refuses the rules, but puts back what the journal holds first.
start_holder
need_cpu1 1 "online for the hold before the kill with broken rules"
kill_daemon
stop_holder
echo 'rules = ( { name = "broken"; match = { exe = "relative"; }; } );' >"$RULES/20-broken.rules"
run timeout 30 "$DAEMON" -c "$CONF" -r "$RULES"
rm "$RULES/20-broken.rules"
if [ "$status" -eq 1 ] && expect_contains "broken rules at start" "$err" "20-broken.rules:1: error:" &&
	cpu1_is 0 && journal_gone; then
	ok "a broken rule file after a crash: the start fails, but the journal is replayed first"
else
	not_ok "replay before rules" "exit $status, cpu1 $(cpu1); journal $(cat "$TMP/state/journal" 2>&1)"
fi
start_daemon || { finish; exit 1; }

run "$CTL" -c "$CONF" restore
expect_status "restore refused" 1 &&
	expect_contains "restore refused: why" "$err" "cpupolicyd is running" &&
	ok "cpupolicyctl restore is refused while a daemon holds the settings"

# Killed again; this time cpupolicyctl restore, without a daemon.
start_holder
need_cpu1 1 "online for the hold before the second kill"
kill_daemon
stop_holder
run "$CTL" -c "$CONF" restore
if [ "$status" -eq 0 ] && expect_contains "restore output" "$out" "restored 1 settings" &&
	cpu1_is 0 && journal_gone; then
	ok "cpupolicyctl restore without a daemon puts cpu1 back offline"
else
	not_ok "ctl restore" "exit $status, cpu1 is $(cpu1); $out $err"
fi
run "$CTL" -c "$CONF" restore
expect_contains "restore again" "$out" "nothing to restore" &&
	ok "nothing is restored twice"

# A base policy in the config: held from start to stop.
cat >>"$CONF" <<EOF
[power]
min_online = 100
EOF
start_daemon || { finish; exit 1; }
if wait_cpu1 1; then
	ok "the config's base policy (min_online = 100) applies at start"
else
	not_ok "base policy" "cpu1 is $(cpu1)"
fi
if stop_daemon && cpu1_is 0; then
	ok "... and is undone at a clean stop"
else
	not_ok "base policy undone" "cpu1 is $(cpu1)"
fi

# reassert = true: a changed setting is set again.
echo "reassert = true" >>"$CONF"
start_daemon || { finish; exit 1; }
if wait_cpu1 1; then
	echo 0 >"$CPU1"
	if wait_until 5 grep -q "$CPU1: changed by someone else to 0 while held at 1" "$DAEMON_LOG" &&
		wait_cpu1 1; then
		ok "reassert = true: a setting changed by someone else is set again"
	else
		not_ok "reassert" "cpu1 is $(cpu1)"
	fi
else
	not_ok "reassert" "cpu1 did not come online for the base policy"
fi
if stop_daemon && cpu1_is 0; then
	ok "stopped: cpu1 back to its original"
else
	not_ok "stop after reassert" "cpu1 is $(cpu1)"
fi

# A knob the daemon may not write (a read-only file in a fake sysfs; the
# daemon keeps no CAP_DAC_OVERRIDE): a clear line, no crash, no journal.
mkdir -p "$TMP/fakesys/firmware/acpi"
echo balanced >"$TMP/fakesys/firmware/acpi/platform_profile"
echo "low-power balanced performance" >"$TMP/fakesys/firmware/acpi/platform_profile_choices"
chmod 444 "$TMP/fakesys/firmware/acpi/platform_profile"
write_conf
cat >>"$CONF" <<EOF
[paths]
sysfs = $TMP/fakesys
EOF
cat >"$RULES/10-power.rules" <<EOF
rules = ( { name = "holder"; match = { exe = "$TMP/holder"; };
            power = { profile = "performance"; }; } );
EOF
start_daemon || { finish; exit 1; }
start_holder
if wait_until 5 grep -q "platform_profile: cannot set performance: Permission denied" "$DAEMON_LOG" &&
	run ctl status && [ "$status" -eq 0 ] && journal_gone &&
	[ "$(cat "$TMP/fakesys/firmware/acpi/platform_profile")" = balanced ]; then
	ok "a read-only setting: a clear error, the daemon runs on, no journal"
else
	not_ok "read-only setting" "$(tail -n 5 "$DAEMON_LOG")"
fi
stop_holder
stop_daemon

finish
