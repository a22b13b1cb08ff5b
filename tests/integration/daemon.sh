#!/bin/bash
# cpupolicyd against the real kernel, as root: priority and placement on
# every thread (also threads created later), exe that cannot be faked,
# reload, explain, restart after SIGKILL, an exec storm, capabilities.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	ok "daemon tests need root # SKIP"
	finish
	exit 0
fi

WORKER="$BUILD/helpers/worker"
daemon_pid=
workers=()

cleanup() {
	[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
	for w in "${workers[@]}"; do
		kill -KILL "$w" 2>/dev/null
		wait "$w" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

mkdir -p "$TMP/bin" "$TMP/other" "$TMP/rules" "$TMP/state"
cp "$WORKER" "$TMP/bin/worker"
cp "$WORKER" "$TMP/bin/placed"
cp "$WORKER" "$TMP/other/worker"
SOCK="$TMP/ctl.sock"
cat >"$TMP/test.conf" <<EOF
[daemon]
socket = $SOCK
state_dir = $TMP/state
rescan_interval_ms = 1000
log_level = info
EOF
cat >"$TMP/rules/10-test.rules" <<EOF
rules = (
  { name = "worker";
    match = { exe = "$TMP/bin/worker"; };
    priority = { nice = 7; policy = "batch"; io_class = "idle"; };
  },
  { name = "placed";
    match = { exe = "$TMP/bin/placed"; };
    placement = { spread = "package"; };
  }
);
EOF

ctl() { "$CTL" -S "$SOCK" "$@"; }

# start_daemon [ENV=VALUE...]: runs the daemon, waits for its socket.
start_daemon() {
	env "$@" "$DAEMON" -c "$TMP/test.conf" -r "$TMP/rules" \
		>>"$TMP/daemon.log" 2>&1 &
	daemon_pid=$!
	for _ in $(seq 100); do
		ctl status >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "# daemon did not come up:"
	sed 's/^/#   /' "$TMP/daemon.log"
	return 1
}

stop_daemon() {
	kill -TERM "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
}

# thread_prio PID: "TID NICE POLICY" per thread (policy 3 = SCHED_BATCH).
thread_prio() {
	for t in /proc/"$1"/task/*; do
		awk -v t="${t##*/}" '{ sub(/.*\) /, ""); print t, $17, $39 }' \
			"$t/stat"
	done
}

# wait_until SECONDS COMMAND...: polls until the command succeeds.
wait_until() {
	local limit=$(($1 * 20))
	shift
	for _ in $(seq "$limit"); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

all_threads_nice() { # PID NICE COUNT
	[ "$(thread_prio "$1" | awk -v n="$2" '$2 == n && $3 == 3' | wc -l)" -eq "$3" ]
}

# The machine's topology seen by the daemon: two packages of one CPU each,
# so that "spread" has something to deal over on this 2-CPU machine.
start_daemon HWLOC_SYNTHETIC="pack:2 pu:1" || { finish; exit 1; }

"$TMP/bin/worker" -t 3 -m 2 -a 300 -s 10 &
w=$!
workers+=("$w")
if wait_until 5 all_threads_nice "$w" 7 6; then
	bad=0
	for t in /proc/"$w"/task/*; do
		io=$(ionice -p "${t##*/}")
		[ "$io" = idle ] || bad=1
	done
	[ $bad -eq 0 ] && ok "exe match: nice, batch and idle I/O on all 6 threads, 2 of them created later" ||
		not_ok "exe match: idle I/O on every thread" "$(for t in /proc/$w/task/*; do ionice -p ${t##*/}; done)"
else
	not_ok "exe match: nice 7 batch on all 6 threads" "$(thread_prio "$w")"
fi

run grep "pid $w $TMP/bin/worker: rule worker" "$TMP/daemon.log"
expect_status "decision logged" 0 &&
	expect_contains "decision line" "$out" "rule worker ($TMP/rules/10-test.rules:2): nice 7 batch, io idle" &&
	ok "one readable log line per decision (pid, exe, rule, what)"

# A process named like the rule's binary, with argv[0] its path, is not it.
(exec -a "$TMP/bin/worker" "$TMP/other/worker" -n worker -t 2 -s 10) &
f=$!
workers+=("$f")
sleep 0.5
if [ "$(thread_prio "$f" | awk '$2 != 0 || $3 != 0' | wc -l)" -eq 0 ] &&
	[ "$(cat /proc/$f/comm)" = worker ]; then
	ok "a look-alike (same name and argv[0], other exe) gets nothing"
else
	not_ok "look-alike untouched" "$(thread_prio "$f")"
fi

"$TMP/bin/placed" -t 3 -s 10 &
p=$!
workers+=("$p")
placed_ok() {
	[ "$(cat /proc/"$p"/task/*/status | grep -c '^Cpus_allowed_list:[[:space:]]*0$')" -eq 2 ] &&
		[ "$(cat /proc/"$p"/task/*/status | grep -c '^Cpus_allowed_list:[[:space:]]*1$')" -eq 2 ]
}
if wait_until 5 placed_ok; then
	ok "spread: 4 threads dealt 2 and 2 over the two packages (Cpus_allowed_list)"
else
	not_ok "spread visible in Cpus_allowed_list" "$(grep Cpus_allowed_list /proc/$p/task/*/status)"
fi

run ctl explain "$w"
expect_status "explain: exit 0" 0 &&
	expect_contains "explain: exe" "$out" "exe        $TMP/bin/worker" &&
	expect_contains "explain: rule" "$out" "rule worker ($TMP/rules/10-test.rules:2)" &&
	expect_contains "explain: why" "$out" "why        exe '$TMP/bin/worker' matches '$TMP/bin/worker'" &&
	expect_contains "explain: applied" "$out" "applies    nice 7 batch, io idle" &&
	expect_contains "explain: thread state" "$out" "nice 7 batch, io idle" &&
	expect_contains "explain: set by the rule" "$out" "set by the rule" &&
	ok "explain PID: facts, rule, why, what was applied, each thread's state"

run ctl explain "$f"
expect_status "explain look-alike" 0 &&
	expect_contains "explain: no rule" "$out" "no rule matches" &&
	ok "explain says why no rule matched"

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

run ctl status --json
expect_status "status --json" 0 &&
	expect_contains "status json" "$out" "\"events\":\"netlink\"" &&
	ok "status --json"

# Someone else renices a thread the rule set: it is left alone.
tid=$(ls /proc/"$w"/task | tail -n 1)
renice -n 3 -p "$tid" >/dev/null
sleep 1.5 # a rescan
if [ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w"/task/"$tid"/stat)" = 3 ] &&
	grep -q "tid $tid .*priority changed by someone else after rule worker set it: left alone" "$TMP/daemon.log"; then
	ok "a thread reniced by someone else is left alone, and it is logged"
else
	not_ok "left alone" "$(grep "tid $tid" "$TMP/daemon.log")"
fi

# With respect_changes = false the next rescan sets it again.
stop_daemon
echo "respect_changes = false" >>"$TMP/test.conf"
start_daemon || { finish; exit 1; }
renice -n 2 -p "$tid" >/dev/null
reasserted() { [ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w"/task/"$tid"/stat)" = 7 ]; }
if wait_until 5 reasserted; then
	ok "respect_changes = false: a changed thread is set again at the next rescan"
else
	not_ok "respect_changes = false" "$(thread_prio "$w")"
fi
sed -i '/^respect_changes/d' "$TMP/test.conf"

# Reload with a broken file keeps the old rules.
cat >"$TMP/rules/20-broken.rules" <<'EOF'
rules = ( { name = "broken"; match = { exe = "relative"; }; } );
EOF
run ctl reload
expect_status "broken reload: exit 1" 1 &&
	expect_contains "broken reload: file:line" "$err" "$TMP/rules/20-broken.rules:1: error: match.exe: 'relative' is not an absolute path" &&
	expect_contains "broken reload: old rules" "$err" "the previous rules stay in force" &&
	ok "reload with a broken file fails with file:line errors"
"$TMP/bin/worker" -s 10 &
w2=$!
workers+=("$w2")
wait_until 5 all_threads_nice "$w2" 7 1 &&
	ok "after a failed reload the old rules still apply" ||
	not_ok "old rules after failed reload" "$(thread_prio "$w2")"

# A good reload: re-evaluates managed processes (worker now gets nice 9).
rm "$TMP/rules/20-broken.rules"
sed -i 's/nice = 7/nice = 9/' "$TMP/rules/10-test.rules"
run ctl reload
expect_status "reload: exit 0" 0 &&
	expect_contains "reload message" "$out" "reloaded: 2 rules in 1 files" &&
	wait_until 5 all_threads_nice "$w2" 9 1 &&
	ok "reload is atomic and re-evaluates processes already managed"

kill -HUP "$daemon_pid"
sleep 0.3
grep -q "rules reloaded" "$TMP/daemon.log" && ok "SIGHUP reloads" ||
	not_ok "SIGHUP reloads" "no 'rules reloaded' in the log"

# Killed with SIGKILL, restarted: picks up what runs.
kill -KILL "$daemon_pid"
wait "$daemon_pid" 2>/dev/null
daemon_pid=
"$TMP/bin/worker" -t 2 -s 10 &
w3=$!
workers+=("$w3")
sleep 0.3
start_daemon || { finish; exit 1; }
wait_until 5 all_threads_nice "$w3" 9 3 &&
	ok "after SIGKILL and restart, running processes are picked up" ||
	not_ok "restart picks up" "$(thread_prio "$w3")"

# Exec storm: every process waits (up to 5 s) for its own nice value.
storm=3000
seq "$storm" | xargs -P 64 -I{} "$TMP/bin/worker" -w 9 -T 5000 \
	>"$TMP/storm.out" 2>&1
failed=$?
run ctl status --json
if [ "$failed" -eq 0 ]; then
	ok "exec storm: all $storm short processes got their policy ($(grep -o '"overflows":[0-9]*' <<<"$out"))"
else
	not_ok "exec storm" "xargs status $failed; $(grep -c . "$TMP/storm.out") lines of output"
fi

# The same with a small queue and the daemon stopped for half a second in
# the middle: events are lost, the daemon rescans at once, and still no
# process goes without its policy.
stop_daemon
# No periodic rescans: only the one the overflow triggers can save them.
sed -i 's/^rescan_interval_ms = 1000/rescan_interval_ms = 0/' "$TMP/test.conf"
echo "event_buffer_kb = 4" >>"$TMP/test.conf"
start_daemon || { finish; exit 1; }
(seq "$storm" | xargs -P 64 -I{} "$TMP/bin/worker" -w 9 -T 5000 \
	>"$TMP/storm.out" 2>&1) &
storm_pid=$!
sleep 0.3
kill -STOP "$daemon_pid"
sleep 0.5
kill -CONT "$daemon_pid"
wait "$storm_pid"
failed=$?
run ctl status --json
overflows=$(grep -o '"overflows":[0-9]*' <<<"$out" | cut -d: -f2)
if [ "$failed" -eq 0 ] && [ "${overflows:-0}" -gt 0 ]; then
	ok "exec storm through a 4 KiB queue: $overflows overflows, rescans, no process missed"
else
	not_ok "storm with overflows" "xargs status $failed, overflows ${overflows:-none}"
fi
sed -i '/^event_buffer_kb/d; s/^rescan_interval_ms = 0/rescan_interval_ms = 1000/' \
	"$TMP/test.conf"

# Privileges: kept capabilities follow the rules. CAP_SYS_NICE is bit 23,
# CAP_SYS_PTRACE bit 19.
capeff() { awk '/^CapEff/ { print $2 }' /proc/"$daemon_pid"/status; }
[ "$(capeff)" = 0000000000880000 ] &&
	ok "exe rules setting priority: CapEff is CAP_SYS_NICE + CAP_SYS_PTRACE" ||
	not_ok "CapEff with exe rules" "$(capeff)"
stop_daemon
mv "$TMP/rules/10-test.rules" "$TMP/10-test.rules.off"
cat >"$TMP/rules/10-name.rules" <<'EOF'
rules = ( { name = "by-name"; match = { name = "no-such-proc"; }; priority = { nice = 5; }; } );
EOF
start_daemon || { finish; exit 1; }
[ "$(capeff)" = 0000000000800000 ] &&
	ok "name-only rule lowering priority: CapEff is CAP_SYS_NICE alone" ||
	not_ok "CapEff with a name rule" "$(capeff)"
grep -q '^CapBnd:[[:space:]]*0000000000800000' /proc/"$daemon_pid"/status &&
	ok "the bounding set is cut too" || not_ok "CapBnd" "$(grep CapBnd /proc/$daemon_pid/status)"

# A reload that would need a capability given up is refused.
mv "$TMP/10-test.rules.off" "$TMP/rules/10-test.rules"
run ctl reload
expect_status "reload needing more caps" 1 &&
	expect_contains "reload needs ptrace" "$err" "the new rules need cap_sys_ptrace, which cpupolicyd gave up at start" &&
	ok "a reload needing a dropped capability is refused, old rules kept"
rm "$TMP/rules/10-test.rules"

# A rename into a matching name is seen (COMM event).
cat >"$TMP/rules/10-name.rules" <<'EOF'
rules = ( { name = "by-name"; match = { name = "renamed-x"; }; priority = { nice = 5; }; } );
EOF
ctl reload >/dev/null
"$TMP/bin/worker" -n renamed-x -r 200 -s 10 &
w4=$!
workers+=("$w4")
renamed_ok() { [ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w4"/stat)" = 5 ]; }
wait_until 5 renamed_ok && ok "a process renamed to match a name rule gets it" ||
	not_ok "rename" "$(thread_prio "$w4")"

# Permission: the socket's group may read, not reload.
stop_daemon
sed -i "s/^log_level = info/log_level = info\nsocket_group = nogroup/" "$TMP/test.conf"
chmod 711 "$TMP" # the socket's own mode and group decide, not its directory
start_daemon || { finish; exit 1; }
run setpriv --reuid=nobody --regid=nogroup --clear-groups "$CTL" -S "$SOCK" status
expect_status "group member: status" 0 && ok "a member of socket_group may read status"
run setpriv --reuid=nobody --regid=daemon --groups=nogroup "$CTL" -S "$SOCK" status
expect_status "supplementary member: status" 0 &&
	ok "a supplementary member of socket_group may read status too"
run setpriv --reuid=nobody --regid=nogroup --clear-groups "$CTL" -S "$SOCK" reload
expect_status "group member: reload" 1 &&
	expect_contains "permission denied" "$err" "permission denied" &&
	ok "reload by a non-root user: permission denied"

# apply: refused while a daemon runs; without one, it applies once.
run "$CTL" -c "$TMP/test.conf" apply "$TMP/rules"
expect_status "apply refused" 1 &&
	expect_contains "apply refused: why" "$err" "cpupolicyd is running" &&
	ok "apply refuses while a daemon runs"
stop_daemon
"$TMP/bin/worker" -n renamed-x -t 1 -s 10 &
w5=$!
workers+=("$w5")
sleep 0.2
run "$CTL" -c "$TMP/test.conf" apply "$TMP/rules"
expect_status "apply: exit 0" 0 &&
	expect_contains "apply summary" "$out" "processes matched one of 1 rules" &&
	[ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w5"/task/*/stat | sort -u)" = 5 ] &&
	ok "apply without a daemon sets the rules on running processes" ||
	not_ok "apply without daemon" "$(thread_prio "$w5")"

# Without the proc connector (outside the initial network namespace) the
# daemon says so once and polls.
if unshare -n true 2>/dev/null; then
	env unshare -n "$DAEMON" -c "$TMP/test.conf" -r "$TMP/rules" \
		>"$TMP/poll.log" 2>&1 &
	daemon_pid=$!
	"$TMP/bin/worker" -n renamed-x -s 10 &
	w6=$!
	workers+=("$w6")
	polled() { [ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w6"/stat)" = 5 ]; }
	if wait_until 5 polled && [ "$(grep -c 'polling /proc every second' "$TMP/poll.log")" -eq 1 ]; then
		ok "no proc connector: polls /proc, and says so once"
	else
		not_ok "polling fallback" "$(cat "$TMP/poll.log")"
	fi
	kill -TERM "$daemon_pid"
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
else
	ok "polling fallback (skipped: no network namespaces) # SKIP"
fi

# Socket activation as systemd does it (cpupolicyd.socket): the control
# socket and a proc connector socket passed in, the daemon itself in a
# network namespace of its own (PrivateNetwork=yes), readiness and status
# sent to NOTIFY_SOCKET.
stop_daemon 2>/dev/null
"$BUILD/helpers/activate" "$TMP/passed.sock" "$TMP/notify" "$DAEMON" \
	-c "$TMP/test.conf" -r "$TMP/rules" >"$TMP/activate.out" 2>"$TMP/activate.err" &
activator=$!
"$TMP/bin/worker" -n renamed-x -s 10 &
w7=$!
workers+=("$w7")
activated() { [ "$(awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$w7"/stat)" = 5 ]; }
run wait_until 5 activated
if [ "$status" -eq 0 ] && grep -q "notify: READY=1 STATUS=1 rules in 1 files" "$TMP/activate.out" &&
	grep -q "events from the proc connector" "$TMP/activate.err" &&
	! grep -q "polling" "$TMP/activate.err" &&
	"$CTL" -S "$TMP/passed.sock" status >/dev/null; then
	ok "socket-activated in a private network namespace: events flow, READY=1 sent, the passed control socket answers"
else
	not_ok "socket activation" "$(cat "$TMP/activate.out" "$TMP/activate.err")"
fi
pkill -TERM -P "$activator"
wait "$activator" 2>/dev/null
grep -q "notify: STOPPING=1" "$TMP/activate.out" && [ -S "$TMP/passed.sock" ] &&
	ok "stopping: STOPPING=1 sent, the service manager's socket left in place" ||
	not_ok "stopping under activation" "$(cat "$TMP/activate.out")"

finish
