#!/bin/bash
# cpupolicyd against the real kernel, as root: priority and placement on
# every thread (placement also on threads created later, which inherit
# their creator's mask, not the slot the spread deals them), exe that
# cannot be faked,
# reload, explain, restart after SIGKILL, an exec storm, capabilities,
# the control socket's permissions, polling and socket activation.
# Periodic rescans are off unless a case is about them: what the events
# alone must do is tested without the safety net that would hide them,
# and each such case checks that no rescan ran meanwhile.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the daemon tests need root"

mkdir -p "$TMP/bin" "$TMP/other"
cp "$WORKER" "$TMP/bin/worker"
cp "$WORKER" "$TMP/bin/placed"
cp "$WORKER" "$TMP/other/worker"
write_conf
rules_file() { # NICE: the two rules of most cases
	cat >"$RULES/10-test.rules" <<EOF
rules = (
  { name = "worker";
    match = { exe = "$TMP/bin/worker"; };
    priority = { nice = $1; policy = "batch"; io_class = "idle"; };
  },
  { name = "placed";
    match = { exe = "$TMP/bin/placed"; };
    placement = { spread = "package"; };
  }
);
EOF
}
rules_file 7

# The machine's topology seen by the daemon: two packages of one CPU each,
# so that "spread" has something to deal over on this 2-CPU machine.
start_daemon HWLOC_SYNTHETIC="pack:2 pu:1" || { finish; exit 1; }

scans=$(rescans_now)
start "$TMP/bin/worker" -t 3 -m 2 -a 300 -s 30
w=$!
io_idle() { # PID: every thread in the idle I/O class
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(ionice -p "${t##*/}")" = idle ] || return 1
	done
}
if by_events "$scans" 5 all_threads "$w" 7 3 6 && io_idle "$w"; then
	ok "exe match, from the exec event: nice 7, batch and idle I/O on all 6 threads"
else
	not_ok "exe match: nice 7 batch idle on all 6 threads" "$(thread_prio "$w"); rescans since: $rescanned"
fi

run grep "pid $w $TMP/bin/worker: rule worker" "$DAEMON_LOG"
expect_status "decision logged" 0 &&
	expect_contains "decision line" "$out" "rule worker ($RULES/10-test.rules:2): nice 7 batch, io idle" &&
	ok "one readable log line per decision (pid, exe, rule, what)"

# A process named like the rule's binary, with argv[0] its path, is not
# it. Events come in order: once a process started after it has its
# policy, the daemon has seen the look-alike's exec too.
scans=$(rescans_now)
(exec -a "$TMP/bin/worker" "$TMP/other/worker" -n worker -t 2 -s 30) &
f=$!
track "$f"
start "$TMP/bin/worker" -s 30
sentinel=$!
if by_events "$scans" 5 all_threads "$sentinel" 7 3 1 &&
	[ "$(thread_prio "$f" | awk '$2 != 0 || $3 != 0' | wc -l)" -eq 0 ] &&
	[ "$(cat /proc/$f/comm)" = worker ]; then
	ok "a look-alike (same name and argv[0], other exe) gets nothing"
else
	not_ok "look-alike untouched" "look-alike: $(thread_prio "$f"); started after it: $(thread_prio "$sentinel")"
fi

# Spread deals the threads round-robin over the packages: 4 at the exec,
# then 2 the main thread creates later, which inherit its mask (one
# package); only their thread events can deal the second of them to the
# other package, so a daemon that missed them shows 4 and 2.
scans=$(rescans_now)
start "$TMP/bin/placed" -t 3 -m 2 -a 300 -s 30
p=$!
on_cpu() { # CPU: how many of $p's threads may run there alone
	cat /proc/"$p"/task/*/status | grep -c "^Cpus_allowed_list:[[:space:]]*$1\$"
}
placed_ok() {
	[ "$(ls /proc/"$p"/task | wc -l)" -eq 6 ] &&
		[ "$(on_cpu 0)" -eq 3 ] && [ "$(on_cpu 1)" -eq 3 ]
}
if by_events "$scans" 5 placed_ok; then
	ok "spread: 6 threads, 2 of them created later, dealt 3 and 3 over the two packages from their events (Cpus_allowed_list)"
else
	not_ok "spread visible in Cpus_allowed_list" "$(grep Cpus_allowed_list /proc/$p/task/*/status); rescans since: $rescanned"
fi

run ctl explain "$w"
expect_status "explain: exit 0" 0 &&
	expect_contains "explain: exe" "$out" "exe        $TMP/bin/worker" &&
	expect_contains "explain: rule" "$out" "rule worker ($RULES/10-test.rules:2)" &&
	expect_contains "explain: why" "$out" "why        exe '$TMP/bin/worker' matches '$TMP/bin/worker'" &&
	expect_contains "explain: applied" "$out" "applies    nice 7 batch, io idle" &&
	expect_contains "explain: thread state" "$out" "nice 7 batch, io idle" &&
	expect_contains "explain: set by the rule" "$out" "set by the rule" &&
	ok "explain PID: facts, rule, why, what was applied, each thread's state"

run ctl explain "$f"
expect_status "explain look-alike" 0 &&
	expect_contains "explain: no rule" "$out" "no rule matches" &&
	ok "explain says why no rule matched"

# A name chosen to fake a line of the report, or to send an escape
# sequence to the terminal: shown escaped.
start "$TMP/other/worker" -n $'x\nrule y\e[2J' -s 30
hostile=$!
wait_until 2 eval '[ "$(head -c 1 /proc/$hostile/comm)" = x ]'
run ctl explain "$hostile"
if expect_status "explain escapes: exit 0" 0 &&
	expect_contains "explain escapes" "$out" 'name       x\x0arule y\x1b[2J' &&
	expect_not_contains "explain escapes" "$out" $'\e'; then
	ok "explain's text shows control characters of a process's name escaped"
fi
# A C1 control (CSI, U+009B) and a right-to-left override (U+202E), which
# make a terminal show another name than the process has.
start "$TMP/other/worker" -n $'c1\xc2\x9b2J\xe2\x80\xaeexe' -s 30
c1=$!
wait_until 2 eval '[ "$(head -c 2 /proc/$c1/comm)" = c1 ]'
run ctl explain "$c1"
if expect_status "explain escapes C1 and bidi: exit 0" 0 &&
	expect_contains "explain escapes C1 and bidi" "$out" \
	'name       c1\xc2\x9b2J\xe2\x80\xaeexe' &&
	expect_not_contains "explain: no CSI" "$out" $'\xc2\x9b'; then
	ok "explain's text shows a C1 control and a right-to-left override escaped"
fi

run ctl explain --json "$w"
expect_status "explain --json" 0 &&
	expect_contains "json rule" "$out" "\"rule\":\"worker\"" &&
	expect_contains "json threads" "$out" "\"threads\":[{\"tid\":" &&
	expect_contains "json nice" "$out" "\"nice\":7,\"policy\":\"batch\"" &&
	ok "explain --json"

run ctl status
expect_status "status" 0 &&
	expect_contains "status: rules" "$out" "rules:    2 rules in 1 files" &&
	expect_contains "status: managed" "$out" "managed:  " &&
	expect_contains "status: counters" "$out" "execs " &&
	ok "status shows rules, managed processes and counters"

# Process events from the kernel: the proc connector, with the exec
# filter where it loads (events = auto or bpf).
run ctl status --json
if expect_status "status --json" 0; then
	if grep -Eq '"events":"(netlink|bpf)"' <<<"$out"; then
		ok "status --json"
	else
		not_ok "status --json" "no \"events\":\"netlink\" or \"bpf\" in: $out"
	fi
fi

# A reload with one broken file changes nothing, not even what the good
# files of the new set say (nice 8): a process started afterwards still
# gets nice 7.
rules_file 8
cat >"$RULES/20-broken.rules" <<'EOF'
rules = ( { name = "broken"; match = { exe = "relative"; }; } );
EOF
run ctl reload
expect_status "broken reload: exit 1" 1 &&
	expect_contains "broken reload: file:line" "$err" "$RULES/20-broken.rules:1: error: match.exe: 'relative' is not an absolute path" &&
	expect_contains "broken reload: old rules" "$err" "the previous rules stay in force" &&
	ok "reload with a broken file fails with file:line errors"
start "$TMP/bin/worker" -s 30
w2=$!
if wait_until 5 all_threads "$w2" 7 3 1 && all_threads "$w" 7 3 6; then
	ok "a failed reload is atomic: the old rules stay whole (nice 7), nothing of the new set applies (nice 8)"
else
	not_ok "old rules after a failed reload" "new: $(thread_prio "$w2"); running: $(thread_prio "$w")"
fi

# A good reload matches the processes already managed again: with no
# rescans and no new exec, only the reload can move them to nice 8.
rm "$RULES/20-broken.rules"
run ctl reload
expect_status "reload: exit 0" 0 &&
	expect_contains "reload message" "$out" "reloaded: 2 rules in 1 files" &&
	if wait_until 5 all_threads "$w2" 8 3 1 && wait_until 5 all_threads "$w" 8 3 6; then
		ok "a reload re-evaluates processes already managed (nice 7 to 8 on every thread)"
	else
		not_ok "reload re-evaluates" "$(thread_prio "$w2"); $(thread_prio "$w")"
	fi

# A rule file others may write fails a reload as a broken one does, the
# reply naming it with the fix; the rules in force stay (nice 8).
cat >"$RULES/30-open.rules" <<EOF
rules = ( { name = "open"; match = { exe = "$TMP/other/worker"; };
  priority = { nice = -5; }; } );
EOF
chmod 0666 "$RULES/30-open.rules"
rules_file 9
run ctl reload
expect_status "reload of a file others may write: exit 1" 1 &&
	expect_contains "reload of a file others may write: why" "$err" \
		"$RULES/30-open.rules: error: writable by group root and others (fix: chmod go-w $RULES/30-open.rules)" &&
	expect_contains "reload of a file others may write: old rules" "$err" "the previous rules stay in force" &&
	ok "reload with a rule file others may write fails, says why and the fix"
start "$TMP/other/worker" -s 30
o=$!
start "$TMP/bin/worker" -s 30
w4=$!
if wait_until 5 all_threads "$w4" 8 3 1 && [ "$(nice_of "$o")" = 0 ]; then
	ok "after it, the old rules stay whole: nice 8, and nothing of the refused file (nice 0)"
else
	not_ok "old rules after a refused file" "kept: $(thread_prio "$w4"); refused: $(thread_prio "$o")"
fi
kill "$o" "$w4" 2>/dev/null
rm "$RULES/30-open.rules"

# SIGHUP: the log line must be a new one, and the new rule must apply.
rules_file 9
mark=$(log_mark)
kill -HUP "$daemon_pid"
if wait_until 5 all_threads "$w2" 9 3 1 && log_since "$mark" | grep -q "rules reloaded"; then
	ok "SIGHUP reloads (logged, and nice 8 to 9)"
else
	not_ok "SIGHUP reloads" "$(thread_prio "$w2"); log since: $(log_since "$mark")"
fi

# Killed with SIGKILL, restarted: the scan at start picks up what runs.
kill_daemon
start "$TMP/bin/worker" -t 2 -s 30
w3=$!
wait_until 2 eval '[ "$(thread_prio "$w3" | wc -l)" -eq 3 ]'
start_daemon || { finish; exit 1; }
if wait_until 5 all_threads "$w3" 9 3 3; then
	ok "after SIGKILL and restart, running processes are picked up"
else
	not_ok "restart picks up" "$(thread_prio "$w3")"
fi

# Someone else renices a thread the rule set: no event says so, the next
# periodic rescan sees it and leaves it alone, and says so. These two are
# the periodic rescan's own cases: each needs a rescan after the change.
stop_daemon
write_conf rescan_interval_ms=200
start_daemon || { finish; exit 1; }
wait_until 5 all_threads "$w3" 9 3 3
tid=$(ls /proc/"$w3"/task | tail -n 1)
scans=$(rescans_now)
renice -n 3 -p "$tid" >/dev/null
if wait_until 5 grep -q "tid $tid .*priority changed by someone else after rule worker set it: left alone" "$DAEMON_LOG" &&
	[ "$(rescans_since "$scans")" -gt 0 ] && sleep 0.5 && nice_is "$tid" 3; then
	ok "a thread reniced by someone else is left alone at the next rescan, and it is logged"
else
	not_ok "left alone" "nice $(nice_of "$tid"); rescans since: $(rescans_since "$scans"); $(grep "tid $tid" "$DAEMON_LOG")"
fi

# With respect_changes = false the next rescan sets it again.
stop_daemon
write_conf rescan_interval_ms=200 respect_changes=false
start_daemon || { finish; exit 1; }
scans=$(rescans_now)
renice -n 2 -p "$tid" >/dev/null
if wait_until 5 nice_is "$tid" 9 && [ "$(rescans_since "$scans")" -gt 0 ]; then
	ok "respect_changes = false: a changed thread is set again at the next rescan"
else
	not_ok "respect_changes = false" "$(thread_prio "$w3"); rescans since: $(rescans_since "$scans")"
fi
stop_daemon
write_conf
start_daemon || { finish; exit 1; }

# Exec storm: every process waits (up to 5 s) for its own nice value.
storm=3000
storm() {
	seq "$storm" | xargs -P 64 -I{} "$TMP/bin/worker" -w 9 -T 5000 \
		>"$TMP/storm.out" 2>&1
}
# No rescan may run but for events the kernel reports lost (a daemon
# slowed down by the sanitizers may not keep up with 8 MiB of them).
scans=$(rescans_now)
overflows=$(json_number overflows)
run storm
failed=$status
overflows=$(($(json_number overflows) - overflows))
said="no rescan"
[ "$overflows" -eq 0 ] || said="$overflows overflows, answered by a rescan"
if [ "$failed" -eq 0 ] && { [ "$overflows" -gt 0 ] || no_rescan_since "$scans"; }; then
	ok "exec storm: all $storm short processes got their policy from events ($said)"
else
	not_ok "exec storm" "xargs status $failed; $(grep -c . "$TMP/storm.out") lines of output; rescans since: $rescanned"
fi

# The same with a small queue and the daemon stopped for half a second in
# the middle: events are lost, the daemon rescans at once, and still no
# process goes without its policy. There are no periodic rescans: only
# the one the overflow triggers can save them. The queue is the proc
# connector's: with the exec filter it carries none of the storm.
stop_daemon
write_conf event_buffer_kb=4 events=netlink
start_daemon || { finish; exit 1; }
scans=$(rescans_now)
storm &
storm_pid=$!
track "$storm_pid"
sleep 0.3
kill -STOP "$daemon_pid"
sleep 0.5
kill -CONT "$daemon_pid"
wait_exit "$storm_pid" 120
failed=$status
run ctl status --json
overflows=$(grep -o '"overflows":[0-9]*' <<<"$out" | cut -d: -f2)
rescanned=$(rescans_since "$scans")
if [ "$failed" -eq 0 ] && [ "${overflows:-0}" -gt 0 ] && [ "${rescanned:-0}" -gt 0 ]; then
	ok "exec storm through a 4 KiB queue: $overflows overflows, $rescanned rescans, no process missed"
else
	not_ok "storm with overflows" "xargs status $failed, overflows ${overflows:-none}, rescans since: $rescanned"
fi
write_conf

# Privileges: kept capabilities follow the rules. CAP_SYS_NICE is bit 23,
# CAP_SYS_PTRACE bit 19.
capeff() { awk '/^CapEff/ { print $2 }' /proc/"$daemon_pid"/status; }
[ "$(capeff)" = 0000000000880000 ] &&
	ok "exe rules setting priority: CapEff is CAP_SYS_NICE + CAP_SYS_PTRACE" ||
	not_ok "CapEff with exe rules" "$(capeff)"
stop_daemon
mv "$RULES/10-test.rules" "$TMP/10-test.rules.off"
# A thread level alone sets nice too (on Linux).
cat >"$RULES/10-name.rules" <<'EOF'
rules = ( { name = "by-name"; match = { name = "no-such-proc"; }; priority = { thread = "lowest"; }; } );
EOF
start_daemon || { finish; exit 1; }
[ "$(capeff)" = 0000000000800000 ] &&
	ok "name-only rule lowering priority (thread lowest): CapEff is CAP_SYS_NICE alone" ||
	not_ok "CapEff with a name rule" "$(capeff)"
grep -q '^CapBnd:[[:space:]]*0000000000800000' /proc/"$daemon_pid"/status &&
	ok "the bounding set is cut too" || not_ok "CapBnd" "$(grep CapBnd /proc/$daemon_pid/status)"

# A reload that would need a capability given up is refused.
mv "$TMP/10-test.rules.off" "$RULES/10-test.rules"
run ctl reload
expect_status "reload needing more caps" 1 &&
	expect_contains "reload needs ptrace" "$err" "the new rules need cap_sys_ptrace, which cpupolicyd gave up at start" &&
	ok "a reload needing a dropped capability is refused, old rules kept"
rm "$RULES/10-test.rules"

# A rename into a matching name is seen (COMM event; no rescans).
cat >"$RULES/10-name.rules" <<'EOF'
rules = ( { name = "by-name"; match = { name = "renamed-x"; }; priority = { nice = 5; }; } );
EOF
ctl reload >/dev/null
scans=$(rescans_now)
start "$TMP/bin/worker" -n renamed-x -r 200 -s 30
w4=$!
if by_events "$scans" 5 nice_is "$w4" 5; then
	ok "a process renamed to match a name rule gets it, from the rename event"
else
	not_ok "rename" "$(thread_prio "$w4"); rescans since: $rescanned"
fi

# A rename flood: past a thousand renames a second the daemon stops asking
# for them and leaves them to a rescan a second later, which still finds
# a process renamed into a rule's name meanwhile.
start "$TMP/bin/worker" -R 4
flood=$!
sleep 0.5
start "$TMP/bin/worker" -n renamed-x -r 500 -s 30
w8=$!
if wait_until 5 nice_is "$w8" 5 &&
	grep -q "more than 1000 renames or changes of ids a second: left to a rescan" "$DAEMON_LOG"; then
	ok "a rename flood is left to a rescan a second later, which finds the process renamed meanwhile"
else
	not_ok "rename flood" "nice $(nice_of "$w8"); $(tail -n 3 "$DAEMON_LOG")"
fi
stop "$flood" 5

# Before Linux 6.6 the kernel cannot filter, and sends every rename
# whatever it is asked (CPUPOLICY_EVENTS_UNFILTERED makes this kernel do
# so): past a thousand a second the daemon does not read process events
# for the rest of the second, so that it reads a small part of a flood,
# and rescans for the events lost once a second at most, though a 4 KiB
# queue overflows all the time; a process renamed meanwhile is still
# found by the rescan.
stop_daemon
write_conf event_buffer_kb=4
start_daemon CPUPOLICY_EVENTS_UNFILTERED=1 || { finish; exit 1; }
received=$(json_number events_received)
rescans=$(json_number rescans)
since=$(lib_now_ms)
"$TMP/bin/worker" -R 3 >"$TMP/flood.count" &
flood=$!
track "$flood"
sleep 0.5
start "$TMP/bin/worker" -n renamed-x -r 500 -s 30
w9=$!
wait_until 5 nice_is "$w9" 5
renamed=$?
wait_exit "$flood" 20
count=$(cat "$TMP/flood.count")
received=$(($(json_number events_received) - received))
rescans=$(($(json_number rescans) - rescans))
seconds=$((($(lib_now_ms) - since) / 1000 + 1))
if [ "$renamed" -eq 0 ] && [ "${count:-0}" -gt 0 ] &&
	[ "$received" -lt $((count / 4)) ] &&
	[ "$rescans" -le $((2 * seconds + 2)) ] &&
	grep -q "this kernel cannot filter process events: none are read meanwhile" "$DAEMON_LOG"; then
	ok "a rename flood the kernel cannot filter is read in part ($received events of $count renames) and rescanned for once a second at most ($rescans rescans in $seconds s)"
else
	not_ok "unfiltered rename flood" "nice $(nice_of "$w9"); $received events read of $count renames; $rescans rescans in $seconds s; $(tail -n 3 "$DAEMON_LOG")"
fi
stop "$w9" 5

# A rename flood that began before the daemon: the kernel's answer to the
# daemon's filter is queued behind it and may be dropped with it; asked
# again, it comes, and the kernel filters from then on — no rule asks for
# renames here, so next to none arrive. Taken for a kernel that cannot
# filter, the daemon would read every rename for good.
stop_daemon
mv "$RULES/10-name.rules" "$TMP/10-name.rules.off"
write_conf
start "$TMP/bin/worker" -R 8
flood=$!
sleep 0.5
start_daemon || { finish; exit 1; }
received=$(json_number events_received)
sleep 1
received=$(($(json_number events_received) - received))
if [ "$received" -lt 1000 ]; then
	ok "a rename flood under way when the daemon starts is still filtered by the kernel ($received events in a second)"
else
	not_ok "filter asked for during a flood" "$received events in a second; $(tail -n 3 "$DAEMON_LOG")"
fi
stop "$flood" 5
stop_daemon
mv "$TMP/10-name.rules.off" "$RULES/10-name.rules"
start_daemon || { finish; exit 1; }

# Permission: the socket's group may read, not reload. The other user
# runs a static client copied into the test's directory, given the socket
# by a relative path: it needs nothing else of the machine.
stop_daemon
write_conf socket_group=nogroup
chmod 711 "$TMP" # the socket's own mode and group decide, not its directory
cp "$BUILD/helpers/peer" "$TMP/peer"
chmod 755 "$TMP/peer"
start_daemon || { finish; exit 1; }
as() { # GROUP-OPTIONS... -- REQUEST
	(cd "$TMP" && setpriv --reuid=nobody "$@")
}
run as --regid=nogroup --clear-groups ./peer ctl.sock status
expect_status "group member: status" 0 &&
	expect_contains "group member: the status" "$out" "rules:" &&
	ok "a member of socket_group may read status"
run as --regid=daemon --groups=nogroup ./peer ctl.sock status
expect_status "supplementary member: status" 0 &&
	ok "a supplementary member of socket_group may read status too"
run as --regid=daemon --groups="$(seq -s, 2000 2100),$(getent group nogroup | cut -d: -f3)" ./peer ctl.sock status
expect_status "many groups: status" 0 &&
	ok "a member of socket_group through its 102nd supplementary group may read status"
run as --regid=daemon --clear-groups ./peer ctl.sock status
expect_status "not a member: status" 2 &&
	ok "a user outside socket_group cannot connect at all"
run as --regid=nogroup --clear-groups ./peer ctl.sock reload
expect_status "group member: reload" 1 &&
	expect_contains "permission denied" "$err" "permission denied" &&
	ok "reload by a non-root user: permission denied"

# apply: refused while a daemon runs; without one, it applies once.
run "$CTL" -c "$CONF" apply "$RULES"
expect_status "apply refused" 1 &&
	expect_contains "apply refused: why" "$err" "cpupolicyd is running" &&
	ok "apply refuses while a daemon runs"
stop_daemon
start "$TMP/bin/worker" -n renamed-x -t 1 -s 30
w5=$!
wait_until 2 eval '[ "$(cat /proc/$w5/comm)" = renamed-x ] && [ "$(thread_prio "$w5" | wc -l)" -eq 2 ]'
run "$CTL" -c "$CONF" apply "$RULES"
expect_status "apply: exit 0" 0 &&
	expect_contains "apply summary" "$out" "processes matched one of 1 rules" &&
	[ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w5"/task/*/stat | sort -u)" = 5 ] &&
	ok "apply without a daemon sets the rules on running processes" ||
	not_ok "apply without daemon" "$(thread_prio "$w5")"

# Signals at start wait for the loop: with 20,000 rules to read, a TERM
# sent while they load stops the daemon cleanly, and a HUP reloads.
awk 'BEGIN { print "rules = ("; for (i = 0; i < 20000; i++)
	printf "{ name = \"r%d\"; match = { exe = \"/opt/x%d\"; }; priority = { nice = 1; }; }%s\n", i, i, i < 19999 ? "," : ""
	print ");" }' >"$RULES/50-many.rules"
: >"$TMP/start.log"
"$DAEMON" -c "$CONF" -r "$RULES" >"$TMP/start.log" 2>&1 &
early=$!
sleep 0.05
kill -TERM "$early"
if wait_exit "$early" 30 && [ "$status" -eq 0 ] &&
	grep -q "signal 15: stopping" "$TMP/start.log" && [ ! -e "$SOCK" ]; then
	ok "a TERM during the start stops the daemon cleanly once it is up (exit 0, socket removed)"
else
	not_ok "TERM at start" "exit $status; $(cat "$TMP/start.log")"
fi
mark=$(log_mark)
"$DAEMON" -c "$CONF" -r "$RULES" >>"$DAEMON_LOG" 2>&1 &
daemon_pid=$!
sleep 0.05
kill -HUP "$daemon_pid"
if wait_until 30 eval 'log_since "$mark" | grep -q "rules reloaded"' && running "$daemon_pid"; then
	ok "a HUP during the start is a reload once it is up, not the end of the daemon"
else
	not_ok "HUP at start" "$(log_since "$mark")"
fi
stop_daemon
rm "$RULES/50-many.rules"

# A control socket that cannot be made: a line that says so, exit 1.
touch "$TMP/not-a-dir"
run "$DAEMON" -c "$CONF" -r "$RULES" -S "$TMP/not-a-dir/ctl.sock"
expect_status "no control socket" 1 &&
	expect_contains "no control socket: why" "$err" "not starting: no control socket on $TMP/not-a-dir/ctl.sock" &&
	ok "no control socket: it says so and exits 1"

# Without the proc connector (outside the initial network namespace) the
# daemon says why once, and polls: a process started once it answers is
# found by a scan.
if unshare -n true 2>/dev/null; then
	: >"$TMP/poll.log"
	unshare -n "$DAEMON" -c "$CONF" -r "$RULES" >"$TMP/poll.log" 2>&1 &
	daemon_pid=$!
	wait_until 10 ctl status >/dev/null 2>&1
	scans=$(rescans_now)
	start "$TMP/bin/worker" -n renamed-x -s 30
	w6=$!
	if wait_until 5 nice_is "$w6" 5 && [ "$(rescans_since "$scans")" -gt 0 ] &&
		ctl status --json | grep -q '"events":"polling"' &&
		[ "$(grep -c 'polling /proc every second' "$TMP/poll.log")" -eq 1 ] &&
		grep -q "exists only in the initial network namespace" "$TMP/poll.log"; then
		ok "no proc connector: polls /proc, and says why once"
	else
		not_ok "polling fallback" "$(cat "$TMP/poll.log")"
	fi
	stop_daemon
else
	skip "polling fallback" "no network namespaces here"
fi

# Socket activation as systemd does it (cpupolicyd.socket): the control
# socket and a proc connector socket passed in, the daemon itself in a
# network namespace of its own (PrivateNetwork=yes), readiness and status
# sent to NOTIFY_SOCKET; SIGTERM to the activator stops the daemon as the
# service manager would.
"$BUILD/helpers/activate" "$TMP/passed.sock" "$TMP/notify" "$DAEMON" \
	-c "$CONF" -r "$RULES" >"$TMP/activate.out" 2>"$TMP/activate.err" &
activator=$!
track "$activator"
start "$TMP/bin/worker" -n renamed-x -s 30
w7=$!
if wait_until 5 nice_is "$w7" 5 &&
	wait_until 5 grep -q "notify: READY=1 STATUS=1 rules in 1 files" "$TMP/activate.out" &&
	grep -q "events from .*the proc connector" "$TMP/activate.err" &&
	! grep -q "polling" "$TMP/activate.err" &&
	"$CTL" -S "$TMP/passed.sock" status >/dev/null; then
	ok "socket-activated in a private network namespace: events flow, READY=1 sent, the passed control socket answers"
else
	not_ok "socket activation" "$(cat "$TMP/activate.out" "$TMP/activate.err")"
fi
if stop "$activator" 10 && [ "$status" -eq 0 ] &&
	grep -q "notify: STOPPING=1" "$TMP/activate.out" && [ -S "$TMP/passed.sock" ]; then
	ok "stopping: STOPPING=1 sent, the service manager's socket left in place"
else
	not_ok "stopping under activation" "exit $status; $(cat "$TMP/activate.out")"
fi

finish
