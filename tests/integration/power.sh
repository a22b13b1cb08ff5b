#!/bin/bash
# Power holds on the real machine: CPU hotplug of cpu1. A parking = "off"
# hold brings an offline cpu1 online while its holder runs and takes it
# offline again when the holder exits; a daemon killed mid-hold leaves the
# journal, which the next start, or "cpupolicyctl restore", replays: only
# where a setting still has the daemon's value, only a journal of this
# boot, and only from a state directory no one but root may write.
# cpu1 is put back online at exit, whatever happened. Rescans are off: a
# hold begins at its holder's exec event and ends at its exit event, and
# the cases that say so check that no rescan ran meanwhile; held settings
# are read again on the daemon's tick, once a second.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || [ ! -w "$CPU1" ]; then
	skip_all "the power tests need root and a hot-pluggable cpu1"
fi
restore_cpu1_at_exit

cp "$WORKER" "$TMP/holder"
write_conf
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
scans=$(rescans_now)
start_holder
if by_events "$scans" 5 cpu1_is 1; then
	ok "parking off: an offline cpu1 comes online while the holder runs, from its exec event"
else
	not_ok "cpu1 online while held" "cpu1 is $(cpu1); rescans since: $rescanned"
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

scans=$(rescans_now)
stop_holder
if by_events "$scans" 5 cpu1_is 0 && journal_gone; then
	ok "the holder exits: cpu1 offline again, journal empty, from its exit event"
else
	not_ok "release" "cpu1 is $(cpu1); rescans since: $rescanned; journal: $(cat "$TMP/state/journal" 2>&1)"
fi

# Someone else takes cpu1 offline mid-hold: by default it is theirs. The
# daemon notices at its next tick (once a second), says so, and leaves it.
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

# Killed mid-hold, and meanwhile someone sets a held setting to a value of
# their own: the next start leaves theirs, says so, and restores the rest.
# Without /dev/cpu_dma_latency (a dev root without it) the idle latency cap
# of parking = "off" goes to the CPUs' pm_qos_resume_latency_us files.
QOS1=/sys/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us
if [ -w "$QOS1" ]; then
	qos1=$(cat "$QOS1")
	at_exit "echo $qos1 >$QOS1"
	mkdir -p "$TMP/nodev"
	write_conf
	printf '[paths]\ndev = %s\n' "$TMP/nodev" >>"$CONF"
	echo 0 >"$CPU1"
	start_daemon || { finish; exit 1; }
	start_holder
	need_cpu1 1 "online for the hold before the kill" &&
		wait_until 5 grep -q "^$QOS1	$qos1	20$" "$TMP/state/journal"
	kill_daemon
	stop_holder
	echo 100 >"$QOS1"
	mark=$(log_mark)
	start_daemon || { finish; exit 1; }
	said=$(log_since "$mark")
	if [ "$(cat "$QOS1")" = 100 ] && wait_cpu1 0 && journal_gone &&
		expect_contains "left: said" "$said" "$QOS1: someone else set 100 (the daemon set 20): left to them, $qos1 not restored"; then
		ok "the next start leaves a setting changed after the crash to whoever changed it, and restores the rest"
	else
		not_ok "changed after the crash" "$QOS1 is $(cat "$QOS1"), cpu1 $(cpu1); $said"
	fi
	stop_daemon
	echo "$qos1" >"$QOS1"
else
	skip "changed after the crash" "no writable $QOS1"
fi

# A journal that survived a power loss was written in another boot: the
# machine came up with its own settings, and replaying it would take cpu1
# offline. Neither the daemon nor cpupolicyctl restore does.
earlier_boot() {
	printf 'version\t2\nboot\t%s\n%s\t0\t1\n' \
		00000000-0000-4000-8000-000000000000 "$CPU1" >"$TMP/state/journal"
}
write_conf
echo 1 >"$CPU1"
earlier_boot
mark=$(log_mark)
start_daemon || { finish; exit 1; }
said=$(log_since "$mark")
if cpu1_is 1 && journal_gone &&
	expect_contains "earlier boot: said" "$said" "written in an earlier boot (boot ID 00000000-0000-4000-8000-000000000000, this boot is $(cat /proc/sys/kernel/random/boot_id)): its 1 settings are not restored"; then
	ok "a journal of an earlier boot is dropped at start: cpu1 stays online"
else
	not_ok "earlier boot at start" "cpu1 $(cpu1); $said"
fi
stop_daemon
echo 1 >"$CPU1"
earlier_boot
run "$CTL" -c "$CONF" restore
if [ "$status" -eq 0 ] && cpu1_is 1 && journal_gone &&
	expect_contains "restore: nothing" "$out" "nothing to restore" &&
	expect_contains "restore: earlier boot" "$err" "written in an earlier boot"; then
	ok "cpupolicyctl restore drops a journal of an earlier boot too"
else
	not_ok "earlier boot, restore" "exit $status, cpu1 $(cpu1); $out $err"
fi

# A state directory others may write: whoever can write there could plant
# a journal for root to "restore". The daemon refuses to start, and
# cpupolicyctl restore to restore, before either writes anything.
plant_open() {
	printf 'version\t2\nboot\t%s\n%s\t0\t1\n' \
		"$(cat /proc/sys/kernel/random/boot_id)" "$CPU1" >"$TMP/open/journal"
}
echo 1 >"$CPU1"
mkdir -m 0777 "$TMP/open"
plant_open
write_conf state_dir="$TMP/open"
refused="state directory $TMP/open refused: $TMP/open is writable by group or others (mode 0777)"
run timeout 10 "$DAEMON" -c "$CONF" -r "$RULES"
if [ "$status" -eq 1 ] && cpu1_is 1 &&
	expect_contains "open state dir: why" "$err" "$refused" &&
	expect_contains "open state dir: fatal" "$err" "not starting: the journal in $TMP/open is refused"; then
	ok "a state directory others may write: the daemon does not start, and cpu1 stays online"
else
	not_ok "open state dir, daemon" "exit $status, cpu1 $(cpu1); $err"
fi
echo 1 >"$CPU1"
plant_open
run "$CTL" -c "$CONF" restore
if [ "$status" -eq 1 ] && cpu1_is 1 &&
	expect_contains "open state dir: restore why" "$err" "$refused" &&
	expect_contains "open state dir: restore" "$err" "the journal in $TMP/open is refused (see above): nothing restored"; then
	ok "... and cpupolicyctl restore refuses it"
else
	not_ok "open state dir, restore" "exit $status, cpu1 $(cpu1); $out $err"
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
