#!/bin/bash
# The soak: everything at once for SOAK_SECONDS (20 in make test, minutes
# in make soak), against the real daemon and kernel, as root: exec storms,
# a rename flood, thread churn, PID reuse (a 32768-pid space wraps in
# seconds here), children of managed processes that exec something
# unmatched, reloads, SIGKILL and restart of the daemon, and cpu1 hotplug
# by power holds. Checked throughout and at the end: no process carries a
# value its rule does not give, the daemon's descriptors and memory stay
# flat, every system setting is back to its original, no daemon crashed.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the soak needs root"
SOAK=${SOAK_SECONDS:-20}
RESTART_EVERY=$((SOAK / 5 > 2 ? SOAK / 5 : 2))
mkdir -p "$TMP/bin" "$TMP/other"
for name in managed raiser holder; do cp "$WORKER" "$TMP/bin/$name"; done
cp "$WORKER" "$TMP/other/plain"
PLAIN="$TMP/other/plain"
hotplug=false
if [ -w "$CPU1" ]; then
	hotplug=true
	restore_cpu1_at_exit
	echo 0 >"$CPU1"
fi
cpu1_original=$($hotplug && cpu1)

rule_set() { # NICE of the managed rule
	cat >"$RULES/10-soak.rules" <<EOF
rules = (
  { name = "managed"; match = { exe = "$TMP/bin/managed"; };
    priority = { nice = $1; policy = "batch"; }; },
  { name = "raiser"; match = { exe = "$TMP/bin/raiser"; };
    priority = { nice = -3; }; },
  { name = "holder"; match = { exe = "$TMP/bin/holder"; };
    power = { parking = "off"; }; },
  { name = "named"; match = { name = "soak-named"; };
    priority = { nice = 6; }; }
);
EOF
}
rule_set 5
write_conf rescan_interval_ms=1000 log_level=warning
start_daemon || { finish; exit 1; }

end_at=$(($(lib_now_ms) + SOAK * 1000))
running_on() { [ "$(lib_now_ms)" -lt "$end_at" ]; }
activity() { # NAME COMMAND...: runs COMMAND again and again until the end
	local name=$1
	shift
	(
		trap - EXIT TERM INT
		while running_on; do "$@" >/dev/null 2>&1; done
	) &
	track $!
	activities+=($!)
}
activities=()

# Unmatched processes that must never carry a raise: one started at
# once, and children of a raising process that exec an unmatched program.
start "$PLAIN" -s $((SOAK + 30))
plain=$!
activity storm-managed sh -c "seq 100 | xargs -P 4 -I{} '$TMP/bin/managed' -s 0"
activity storm-plain sh -c "seq 100 | xargs -P 4 -I{} '$PLAIN' -s 0"
activity flood "$PLAIN" -R 2
activity churn "$TMP/bin/managed" -C 2
activity children "$TMP/bin/raiser" -F 50:"$PLAIN" -s 2
activity children "$TMP/bin/raiser" -F 500:"$PLAIN" -s 2
$hotplug && activity holders "$TMP/bin/holder" -s 1

# pids_of EXE: the processes running it.
pids_of() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(readlink "$d/exe" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"
	done
}
HZ=$(getconf CLK_TCK)
ticks_now() { awk -v hz="$HZ" '{ printf "%d", $1 * hz }' /proc/uptime; }
started_at() { awk '{ sub(/.*\) /, ""); print $20 }' /proc/"$1"/stat 2>/dev/null; }
# A child that forked while no daemon ran, or before it had seen its
# parent, is not followed: a restart forgets what it does not see (see
# cpupolicyd(8)). Those forked half a second into a daemon's life are.
instance_ticks=$(ticks_now)

samples="$TMP/samples" # instance, seconds, fds, RSS in KiB
restarts=0
events=0
crashed=
instance=0
instance_since=$(lib_now_ms)
nice_set=5
leaked=
last_restart=$(lib_now_ms)
status_events() { # the running daemon's events so far
	ctl status --json 2>/dev/null | grep -o '"events_received":[0-9]*' | cut -d: -f2
}
while running_on; do
	sleep 1
	if ! running "$daemon_pid"; then
		crashed="instance $instance exited by itself: $(tail -n 5 "$DAEMON_LOG")"
		break
	fi
	echo "$instance $((($(lib_now_ms) - instance_since) / 1000)) $(ls /proc/"$daemon_pid"/fd | wc -l) $(awk '/^VmRSS/ { print $2 }' /proc/"$daemon_pid"/status)" >>"$samples"
	# Reloads: the managed rule's nice moves between 5 and 4.
	nice_set=$((9 - nice_set))
	rule_set "$nice_set"
	ctl reload >/dev/null 2>&1
	# Never a leaked raise on what no rule matches.
	for pid in $(pids_of "$PLAIN"); do
		t=$(started_at "$pid")
		[ -n "$t" ] && [ "$t" -ge $((instance_ticks + HZ / 2)) ] || continue
		n=$(nice_of "$pid")
		[ -n "$n" ] && [ "$n" -lt 0 ] && leaked="$leaked pid $pid nice $n;"
	done
	if [ $(($(lib_now_ms) - last_restart)) -ge $((RESTART_EVERY * 1000)) ] &&
		[ $(($(lib_now_ms) + 3000)) -lt "$end_at" ]; then
		events=$((events + $(status_events || echo 0)))
		kill_daemon
		start_daemon || { crashed="no restart: $(tail -n 5 "$DAEMON_LOG")"; break; }
		restarts=$((restarts + 1))
		instance=$((instance + 1))
		instance_since=$(lib_now_ms)
		instance_ticks=$(ticks_now)
		last_restart=$instance_since
	fi
done
events=$((events + $(status_events || echo 0)))
for a in "${activities[@]}"; do wait_exit "$a" 30 || kill -KILL "$a"; done
# The last children of the raisers end two seconds after their exec.
wait_until 5 eval '[ -z "$(pids_of "$PLAIN" | grep -vx "$plain")" ]'

if [ -z "$crashed" ] && ! grep -qE "AddressSanitizer|runtime error|LeakSanitizer" "$DAEMON_LOG"; then
	ok "no daemon crash: $restarts restarts by SIGKILL survived"
else
	not_ok "no daemon crash" "$crashed $(grep -E "AddressSanitizer|runtime error|LeakSanitizer" "$DAEMON_LOG" | head -n 3)"
fi
if [ -z "$leaked" ]; then
	ok "no unmatched process ever carried a raise, children of a raising process included"
else
	not_ok "a leaked raise" "$leaked"
fi

# Settled: every process of ours carries what its rule gives, no more.
rule_set 5
ctl reload >/dev/null
start "$TMP/bin/managed" -t 2 -s 30
late=$!
wait_until 5 all_threads "$late" 5 3 3
wrong=
for pid in $(pids_of "$TMP/bin/managed"); do
	all_threads "$pid" 5 3 "$(thread_prio "$pid" | wc -l)" ||
		wrong="$wrong $pid($(thread_prio "$pid" | tr '\n' ' '))"
done
for pid in $(pids_of "$PLAIN"); do
	all_threads "$pid" 0 0 "$(thread_prio "$pid" | wc -l)" ||
		wrong="$wrong $pid($(thread_prio "$pid" | tr '\n' ' '))"
done
if [ -z "$wrong" ]; then
	ok "at the end every process carries what its rule gives, and the others nothing"
else
	not_ok "values at the end" "$wrong"
fi

# Flat: in each daemon's life, descriptors and memory after the warm-up
# (its first two seconds) do not grow. Under AddressSanitizer freed memory
# waits in its quarantine, so RSS grows whatever the daemon does: there
# only descriptors count.
rss_slack=1024
case $BUILD in *build-san*) rss_slack=1000000000 ;; esac
growth=$(awk -v slack="$rss_slack" '$2 >= 2 {
	if (!($1 in fd0)) { fd0[$1] = $3; rss0[$1] = $4 }
	fd[$1] = $3; rss[$1] = $4
} END {
	for (i in fd) if (fd[i] > fd0[i] + 2 || rss[i] > rss0[i] + slack)
		printf "instance %s: fds %d to %d, RSS %d to %d KiB; ", i, fd0[i], fd[i], rss0[i], rss[i]
}' "$samples")
if [ -s "$samples" ] && [ -z "$growth" ]; then
	ok "descriptors and RSS flat after the warm-up ($(awk '$2 >= 2 { print $3, $4 }' "$samples" | sort -n | tail -n 1 | awk '{ print $1 " fds, " $2 " KiB at most" }'))"
else
	not_ok "flat descriptors and RSS" "$growth $(cat "$samples" 2>/dev/null | tail -n 5)"
fi

stop "$late" 5
stop "$plain" 5
if stop_daemon && ! { $hotplug && [ "$(cpu1)" != "$cpu1_original" ]; } &&
	[ ! -e "$TMP/state/journal" ]; then
	ok "every system setting back to its original at the stop (settings lost: 0)"
else
	not_ok "settings back" "cpu1 $($hotplug && cpu1) (was $cpu1_original); journal: $(cat "$TMP/state/journal" 2>&1)"
fi
echo "# soak: $SOAK s, $((events / SOAK)) events a second held, $restarts restarts, settings lost: 0 when the test above passed"

finish
