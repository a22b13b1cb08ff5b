#!/bin/bash
# The soak: everything at once for SOAK_SECONDS (20 in make test, minutes
# in make soak), against the real daemon and kernel, as root: exec storms,
# a rename flood, thread churn, PID reuse (pid_max lowered to 16384 for
# the run, so that PIDs wrap in seconds), children of managed processes
# that exec something unmatched, reloads, SIGKILL and restart of the
# daemon, and power holds taken and given back every second, on a fake
# sysfs tree of power knobs (every machine has one) and on cpu1 where it
# can go offline. Checked throughout and at the end: no unmatched process
# carries a raise for more than 100 ms in make soak, 1 s in make test (a
# sampler looks every 5 ms), no process carries a value its rule does not
# give, the daemon's descriptors and memory stay flat, holds were taken
# and every setting is back to its original, PIDs wrapped, no daemon
# crashed.
# Environment: SOAK_SECONDS; SOAK_DOC, a file to write the run's figures
# to as Markdown (make soak: docs/soak.md), with SOAK_COMMAND, the
# command it says made them.

# Its own mount namespace: cpu1's online file is bound into the fake tree,
# and the binding goes with the script, however it ends. Where / is no
# mount point (a chroot) its propagation cannot be made private: the soak
# runs without one, and cpu1 is not among the knobs held.
if [ -z "${SOAK_NAMESPACE:-}" ] && [ "$(id -u)" -eq 0 ] &&
	command -v unshare >/dev/null &&
	unshare -m --propagation private true 2>/dev/null; then
	SOAK_NAMESPACE=1 exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the soak needs root"
SOAK=${SOAK_SECONDS:-20}
RESTART_EVERY=$((SOAK / 5 > 2 ? SOAK / 5 : 2))
# A raise the sampler's looks saw for RAISE_LEAK_MS or more is a leak: it
# lasted that long at least. Looking every 5 ms, it sees one of 110 ms for
# 100 ms unless the machine delays its looks (the longest gap is
# reported). How soon a raise goes is a latency, for make soak to measure
# on a quiet machine: there the bound is 100 ms. Within make test, on a
# machine shared with others, the bound is what a daemon that never gives
# the raise back would exceed, and one that gives it back never: a child
# of a raising process lives 2 s, and a raise kept for half of that is
# not given back. The longest is reported either way.
RAISE_LOOK_MS=5
if [ -n "${SOAK_DOC:-}" ]; then RAISE_LEAK_MS=100; else RAISE_LEAK_MS=1000; fi
mkdir -p "$TMP/bin" "$TMP/other"
for name in managed raiser holder; do cp "$WORKER" "$TMP/bin/$name"; done
cp "$WORKER" "$TMP/other/plain"
PLAIN="$TMP/other/plain"

# PID reuse: a PID space of 16384 (half the kernel's default; systemd raises
# it to 4194304) wraps in seconds under the storms. Lowered, never below
# what runs, and put back at exit.
PID_MAX_FILE=/proc/sys/kernel/pid_max
SOAK_PID_MAX=16384
pid_max_original=$(cat "$PID_MAX_FILE")
if [ "$pid_max_original" -gt "$SOAK_PID_MAX" ] &&
	[ "$(ls -d /proc/[0-9]*/task/* | wc -l)" -lt $((SOAK_PID_MAX / 4)) ]; then
	at_exit "echo $pid_max_original >$PID_MAX_FILE"
	echo "$SOAK_PID_MAX" >"$PID_MAX_FILE"
fi
pid_max=$(cat "$PID_MAX_FILE")

# The power knobs, in a fake sysfs tree (the daemon's [paths] sysfs, and
# a dev without cpu_dma_latency, so that idle latency goes to each CPU's
# PM QoS file): every kind the holder rule holds, on any machine. Each
# CPU but cpu0 has an online file, offline at first, so that parking
# brings it online; cpu1's is the real one, bound in, where it can go
# offline.
FAKESYS="$TMP/sys"
CPUDIR="$FAKESYS/devices/system/cpu"
POLICY="$CPUDIR/cpufreq/policy0"
mkdir -p "$POLICY" "$FAKESYS/firmware/acpi" "$TMP/dev"
for f in online present possible; do cp "/sys/devices/system/cpu/$f" "$CPUDIR/$f"; done
for d in /sys/devices/system/cpu/cpu[0-9]*; do
	mkdir -p "$CPUDIR/${d##*/}/power"
	echo 0 >"$CPUDIR/${d##*/}/power/pm_qos_resume_latency_us"
	[ "${d##*/}" = cpu0 ] || echo 0 >"$CPUDIR/${d##*/}/online"
done
echo 0 >"$POLICY/affected_cpus"
echo powersave >"$POLICY/scaling_governor"
echo "performance powersave" >"$POLICY/scaling_available_governors"
echo balance_power >"$POLICY/energy_performance_preference"
echo "default performance balance_performance balance_power power" \
	>"$POLICY/energy_performance_available_preferences"
echo 0 >"$CPUDIR/cpufreq/boost"
echo balanced >"$FAKESYS/firmware/acpi/platform_profile"
echo "low-power balanced performance" >"$FAKESYS/firmware/acpi/platform_profile_choices"
hotplug=false
if [ -w "$CPU1" ] && [ -n "${SOAK_NAMESPACE:-}" ] &&
	mount --bind "$CPU1" "$CPUDIR/cpu1/online"; then
	hotplug=true
	at_exit "umount '$CPUDIR/cpu1/online'"
	restore_cpu1_at_exit
	echo 0 >"$CPU1"
elif [ -w "$CPU1" ]; then
	echo "# no mount namespace of its own here: cpu1 is not among the knobs held"
fi
# The files the daemon writes, and what each holds before the run.
KNOBS=$(cd "$FAKESYS" && find . -type f \( -name online -path '*/cpu[0-9]*' -o \
	-name pm_qos_resume_latency_us -o -name scaling_governor -o \
	-name energy_performance_preference -o -name boost -o \
	-name platform_profile \) | sed 's|^\./||' | sort)
knob_values() { (cd "$FAKESYS" && for k in $KNOBS; do echo "$k $(cat "$k")"; done); }
knobs_original=$(knob_values)

rule_set() { # NICE of the managed rule
	cat >"$RULES/10-soak.rules" <<EOR
rules = (
  { name = "managed"; match = { exe = "$TMP/bin/managed"; };
    priority = { nice = $1; policy = "batch"; }; },
  { name = "raiser"; match = { exe = "$TMP/bin/raiser"; };
    priority = { nice = -3; }; },
  { name = "holder"; match = { exe = "$TMP/bin/holder"; };
    power = { parking = "off"; governor = "performance"; epp = "performance";
              profile = "performance"; turbo = true; }; },
  { name = "named"; match = { name = "soak-named"; };
    priority = { nice = 6; }; }
);
EOR
}
rule_set 5
write_conf rescan_interval_ms=1000 log_level=warning
printf '[paths]\nsysfs = %s\ndev = %s\n' "$FAKESYS" "$TMP/dev" >>"$CONF"

# Milliseconds since boot: the clock of the sampler and of process starts.
boot_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
instances="$TMP/instances" # each daemon's start and end, in boot_ms
start_daemon || { finish; exit 1; }
instance_start=$(boot_ms)
soak_started=$(date -u '+%Y-%m-%d %H:%M UTC')
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

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
# The sampler, niced up so that the storms do not delay its looks, is no
# program the rules know.
nice -n -10 "$BUILD/helpers/raisewatch" "$PLAIN" "$RAISE_LOOK_MS" $((SOAK + 60)) \
	>"$TMP/raises" &
raisewatch=$!
track "$raisewatch"
start "$PLAIN" -s $((SOAK + 30))
plain=$!
activity storm-managed sh -c "seq 100 | xargs -P 4 -I{} '$TMP/bin/managed' -s 0"
activity storm-plain sh -c "seq 100 | xargs -P 4 -I{} '$PLAIN' -s 0"
activity flood "$PLAIN" -R 2
activity churn "$TMP/bin/managed" -C 2
activity children "$TMP/bin/raiser" -F 50:"$PLAIN" -s 2
activity children "$TMP/bin/raiser" -F 500:"$PLAIN" -s 2
activity holders "$TMP/bin/holder" -s 1

# pids_of EXE: the processes running it.
pids_of() {
	local d
	for d in /proc/[0-9]*; do
		[ "$(readlink "$d/exe" 2>/dev/null)" = "$1" ] && echo "${d#/proc/}"
	done
}

samples="$TMP/samples" # instance, seconds, fds, RSS in KiB
holds="$TMP/holds"     # holder PIDs seen holding, one a line
held="$TMP/held"       # the settings seen held, one a line
restarts=0
events=0
crashed=
instance=0
instance_since=$(lib_now_ms)
nice_set=5
last_restart=$(lib_now_ms)
wraps=0
last_pid=$BASHPID
# status_sample: the running daemon's events so far in $status_events;
# the holds and settings it holds now into $holds and $held.
status_sample() {
	local json
	json=$(ctl status --json 2>/dev/null)
	status_events=$(grep -o '"events_received":[0-9]*' <<<"$json" | cut -d: -f2)
	grep -o '{"pid":[0-9]*,"rule":"holder"' <<<"$json" | cut -d'"' -f3 |
		tr -d ':,' >>"$holds"
	grep -o '"settings":\[.*' <<<"$json" | grep -o '"path":"[^"]*"' |
		cut -d'"' -f4 >>"$held"
}
while running_on; do
	sleep 1
	if ! running "$daemon_pid"; then
		crashed="instance $instance exited by itself: $(tail -n 5 "$DAEMON_LOG")"
		break
	fi
	echo "$instance $((($(lib_now_ms) - instance_since) / 1000)) $(ls /proc/"$daemon_pid"/fd | wc -l) $(awk '/^VmRSS/ { print $2 }' /proc/"$daemon_pid"/status)" >>"$samples"
	status_sample
	# A new PID below the last: the PID space wrapped.
	pid=$(sh -c 'echo $$')
	[ "$pid" -lt "$last_pid" ] && wraps=$((wraps + 1))
	last_pid=$pid
	# Reloads: the managed rule's nice moves between 5 and 4.
	nice_set=$((9 - nice_set))
	rule_set "$nice_set"
	ctl reload >/dev/null 2>&1
	if [ $(($(lib_now_ms) - last_restart)) -ge $((RESTART_EVERY * 1000)) ] &&
		[ $(($(lib_now_ms) + 3000)) -lt "$end_at" ]; then
		events=$((events + ${status_events:-0}))
		echo "$instance_start $(boot_ms)" >>"$instances"
		kill_daemon
		start_daemon || { crashed="no restart: $(tail -n 5 "$DAEMON_LOG")"; break; }
		instance_start=$(boot_ms)
		restarts=$((restarts + 1))
		instance=$((instance + 1))
		instance_since=$(lib_now_ms)
		last_restart=$instance_since
	fi
done
status_sample
events=$((events + ${status_events:-0}))
for a in "${activities[@]}"; do wait_exit "$a" 30 || kill -KILL "$a"; done
# The last children of the raisers end two seconds after their exec.
wait_until 5 eval '[ -z "$(pids_of "$PLAIN" | grep -vx "$plain")" ]'
kill -TERM "$raisewatch"
wait_exit "$raisewatch" 10 || kill -KILL "$raisewatch"
echo "$instance_start $(boot_ms)" >>"$instances"

if [ -z "$crashed" ] && ! grep -qE "AddressSanitizer|runtime error|LeakSanitizer" "$DAEMON_LOG"; then
	ok "no daemon crash: $restarts restarts by SIGKILL survived"
else
	not_ok "no daemon crash" "$crashed $(grep -E "AddressSanitizer|runtime error|LeakSanitizer" "$DAEMON_LOG" | head -n 3)"
fi

# Leaked raises: a raise the sampler saw for RAISE_LEAK_MS or more, on a
# process started half a second or more into a daemon's life (one forked
# while no daemon ran, or before it had seen its parent, is not
# followed: a restart forgets what it does not see, see cpupolicyd(8)),
# counted up to that daemon's end.
read -r looks look_gap < <(awk '$1 == "samples" { print $2, $4 }' "$TMP/raises")
raises_seen=$(grep -c '^raise ' "$TMP/raises")
leaked=$(awk -v min="$RAISE_LEAK_MS" 'FNR == NR { s[++n] = $1; e[n] = $2; next }
$1 == "raise" {
	for (k = 1; k <= n; k++) {
		if ($3 < s[k] + 500 || $3 >= e[k]) continue
		last = $7 < e[k] ? $7 : e[k]
		if (last - $6 > longest) longest = last - $6
		if (last - $6 >= min)
			printf "pid %s nice %s policy %s for %d ms (started %d ms into daemon %d, seen from %d ms); ", $2, $4, $5, last - $6, $3 - s[k], k - 1, $6 - s[k]
		break
	}
}
END { print "longest " longest + 0 }' "$instances" "$TMP/raises")
raise_longest=${leaked##*longest }
leaked=${leaked%longest *}
if [ -z "${looks:-}" ] || [ "$looks" -lt $((SOAK * 1000 / 10)) ]; then
	not_ok "the sampler looked every 10 ms at most" "$(tail -n 3 "$TMP/raises")"
elif [ -z "$leaked" ]; then
	ok "no unmatched process carried a raise for $RAISE_LEAK_MS ms, children of a raising process included ($looks looks, the longest gap $look_gap ms; $raises_seen raises seen, the longest for $raise_longest ms)"
else
	not_ok "a leaked raise" "$leaked"
fi

# PID reuse happened: PIDs wrapped during the run.
if [ "$wraps" -gt 0 ]; then
	ok "PIDs wrapped $wraps times (pid_max $pid_max)"
else
	not_ok "PIDs wrapped" "they never did in $SOAK s: pid_max is $pid_max (was $pid_max_original)"
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
fds_max=$(awk '$2 >= 2 { print $3 }' "$samples" | sort -n | tail -n 1)
rss_max=$(awk '$2 >= 2 { print $4 }' "$samples" | sort -n | tail -n 1)
if [ -s "$samples" ] && [ -z "$growth" ]; then
	ok "descriptors and RSS flat after the warm-up (${fds_max:-?} fds, ${rss_max:-?} KiB at most)"
else
	not_ok "flat descriptors and RSS" "$growth $(tail -n 5 "$samples" 2>/dev/null)"
fi

# Holds: taken during the run, on every knob of the fake tree.
holds_taken=$(sort -u "$holds" | grep -c .)
knobs_held=0
knobs_never=
for k in $KNOBS; do
	if grep -qxF "$FAKESYS/$k" "$held"; then
		knobs_held=$((knobs_held + 1))
	else
		knobs_never="$knobs_never $k"
	fi
done
if [ "$holds_taken" -gt 0 ] && [ -z "$knobs_never" ]; then
	ok "power holds taken by $holds_taken holders, on all $knobs_held knobs$($hotplug && echo ", cpu1's real online file among them")"
else
	not_ok "power holds taken" "holders seen holding: $holds_taken; knobs never held:${knobs_never:- none}"
fi

stop "$late" 5
stop "$plain" 5
stopped=true
stop_daemon || stopped=false
knobs_now=$(knob_values)
lost=$(diff <(echo "$knobs_original") <(echo "$knobs_now") | grep -c '^<')
if $stopped && [ "$holds_taken" -gt 0 ] && [ "$lost" -eq 0 ] &&
	[ ! -e "$TMP/state/journal" ]; then
	ok "every setting back to its original at the stop ($(grep -c . <<<"$KNOBS") knobs; settings lost: 0)"
else
	not_ok "settings back" "stopped: $stopped; holds taken: $holds_taken; changed (before, after): $(diff <(echo "$knobs_original") <(echo "$knobs_now") | grep '^[<>]' | tr '\n' ' '); journal: $(cat "$TMP/state/journal" 2>&1)"
fi
events_per_s=$((events / SOAK))
echo "# soak: $SOAK s, $events_per_s events a second held, $restarts restarts, ${fds_max:-?} fds and ${rss_max:-?} KiB at most, PIDs wrapped $wraps times (pid_max $pid_max), $holds_taken holds taken, settings lost: $lost"

finish
soak_status=$?
# The figures, for the page make soak writes (tests/soak/report.sh).
if [ -n "${SOAK_DOC:-}" ]; then
	cat >"$TMP/figures" <<EOR
started $soak_started
load_start $load_start
seconds $SOAK
events_per_s $events_per_s
restarts $restarts
fds_max ${fds_max:-none}
rss_max_kib ${rss_max:-none}
pid_max $pid_max
pid_max_original $pid_max_original
wraps $wraps
holds_taken $holds_taken
knobs ${knobs_held}
cpu1 $hotplug
settings_lost $lost
looks ${looks:-0}
look_gap_ms ${look_gap:-none}
raises_seen $raises_seen
raise_longest_ms $raise_longest
passed $((tap_count - tap_failed - tap_skipped))
failed $tap_failed
EOR
	SRCDIR="$SRCDIR" "$SRCDIR/tests/soak/report.sh" "$TMP/figures" "$SOAK_DOC" ||
		soak_status=1
fi
exit "$soak_status"
