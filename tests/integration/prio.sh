#!/bin/bash
# Priority directions against the real kernel, as root: a lowering rule
# never raises what a process already has lower (nice, policy, I/O), a
# raising rule never lowers what is already higher (nice, realtime
# priority), on every thread; SCHED_RESET_ON_FORK survives a change of
# policy; explain says per setting what was kept and why. Each case has
# a positive control: a process started normally gets the rule's values.
# Rescans are off and every case checks that none ran: the values come
# from the exec and thread events, not from a scan of /proc.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the priority tests need root"

mkdir -p "$TMP/bin"
for name in compress batch raise rt; do
	cp "$WORKER" "$TMP/bin/$name"
done
# The compressors rule as shipped, a compilers-like batch rule, and two
# raising rules.
cat >"$RULES/10-prio.rules" <<EOF
rules = (
  { name = "compress";
    match = { exe = "$TMP/bin/compress"; };
    priority = { class = "below-normal"; io_class = "best-effort"; io_level = 7; };
  },
  { name = "batch";
    match = { exe = "$TMP/bin/batch"; };
    priority = { nice = 10; policy = "batch"; };
  },
  { name = "raise";
    match = { exe = "$TMP/bin/raise"; };
    priority = { nice = -5; };
  },
  { name = "rt";
    match = { exe = "$TMP/bin/rt"; };
    priority = { policy = "rr"; rt_priority = 10; };
  }
);
EOF
write_conf
start_daemon || {
	finish
	exit 1
}

# io_all PID TEXT: every thread's I/O priority, as ionice prints it.
io_all() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(ionice -p "${t##*/}" 2>/dev/null)" = "$2" ] || return 1
	done
}

# sched_all PID TEXT: every thread's policy, as chrt prints it.
sched_all() {
	local t
	for t in /proc/"$1"/task/*; do
		chrt -p "${t##*/}" 2>/dev/null | grep -q "policy: $2\$" || return 1
	done
}

# rt_of TID: "POLICY PRIORITY" as /proc/TID/stat holds them.
rt_of() { awk '{ sub(/.*\) /, ""); print $39, $38 }' /proc/"$1"/stat; }

# threads_are PID COUNT: the process has COUNT threads.
threads_are() { [ "$(ls /proc/"$1"/task | wc -l)" -eq "$2" ]; }

# managed PID: explain shows the process managed by its rule.
managed() {
	local said
	said=$(ctl explain "$1" 2>/dev/null) || return 1
	case $said in
	*"applies    not yet"*) return 1 ;;
	*"applies    "*) return 0 ;;
	esac
	return 1
}

# state PID: what a failure shows.
state() { thread_prio "$1"; ionice -p "$1"; chrt -p "$1"; }

# Lowered by the user below the rule on both settings: 2 threads at the
# start, 2 more later. A normal process started after them is the control:
# once it has the rule's values, the daemon has seen all of the first's
# events, which come in order.
scans=$(rescans_now)
start nice -n 19 ionice -c3 "$TMP/bin/compress" -t 1 -m 2 -a 200 -s 60
low=$!
wait_until 5 threads_are "$low" 4
start "$TMP/bin/compress" -t 2 -s 60
ctrl=$!
if wait_until 5 all_threads "$ctrl" 10 0 3 &&
	by_events "$scans" 5 io_all "$ctrl" "best-effort: prio 7"; then
	ok "control: a normal process gets the compressors rule (nice 10, best-effort 7) on every thread, from its events"
else
	not_ok "control: compressors rule applied" "$(state "$ctrl"); rescans since: $rescanned"
fi
# kept_on PID COUNT: explain shows COUNT threads each keeping its nice
# value: the daemon knows that many threads, the later ones from their
# events.
kept_on() {
	[ "$(ctl explain --json "$1" | grep -o '"kept":\[{"setting":"nice"' |
		wc -l)" -eq "$2" ]
}
if by_events "$scans" 5 managed "$low" && all_threads "$low" 19 0 4 &&
	io_all "$low" idle && wait_until 5 kept_on "$low" 4 &&
	no_rescan_since "$scans"; then
	ok "nice -n 19 ionice -c3 under the compressors rule: nice 19 and idle I/O kept on all 4 threads, 2 created later and known from their events"
else
	not_ok "a lowering rule never raises nice or I/O" "$(state "$low"); $(thread_prio "$low"); rescans since: $rescanned; $(ctl explain "$low")"
fi

run ctl explain "$low"
expect_contains "explain: nice kept" "$out" \
	"nice 19 kept (lower than the rule's 10: a lowering rule never raises)" &&
	expect_contains "explain: io kept" "$out" \
		"io idle kept (lower than the rule's best-effort/7: a lowering rule never raises)" &&
	ok "explain: what was kept per setting, and why"
run ctl explain --json "$low"
expect_contains "explain --json: kept" "$out" \
	"\"kept\":[{\"setting\":\"nice\",\"why\":\"nice 19 kept (lower than the rule's 10: a lowering rule never raises)\"}" &&
	ok "explain --json: what was kept per setting"
run ctl explain "$ctrl"
expect_not_contains "explain: nothing kept" "$out" " kept (" &&
	ok "explain: nothing kept where the rule applied"

# SCHED_IDLE is lower than batch: it stays, the nice value is lowered.
# Each case below starts its process, waits for its threads, then starts
# the control, whose values say the daemon has seen the threads.
scans=$(rescans_now)
start chrt -i 0 "$TMP/bin/batch" -t 2 -s 60
idle=$!
wait_until 5 threads_are "$idle" 3
start "$TMP/bin/batch" -t 2 -s 60
ctrl=$!
if by_events "$scans" 5 all_threads "$ctrl" 10 3 3; then
	ok "control: a normal process gets the batch rule (nice 10, SCHED_BATCH)"
else
	not_ok "control: batch rule applied" "$(state "$ctrl"); rescans since: $rescanned"
fi
if by_events "$scans" 5 managed "$idle" && all_threads "$idle" 10 5 3; then
	ok "chrt -i 0 under a batch rule: SCHED_IDLE kept, nice lowered to 10, on all 3 threads"
else
	not_ok "SCHED_IDLE stays under a batch rule" "$(thread_prio "$idle"); rescans since: $rescanned"
fi
run ctl explain "$idle"
expect_contains "explain: policy kept" "$out" \
	"policy idle kept (lower than the rule's batch: a lowering rule never raises)" &&
	ok "explain: the policy kept"

# A raising rule does not lower what is higher already.
scans=$(rescans_now)
start nice -n -10 "$TMP/bin/raise" -t 2 -s 60
high=$!
wait_until 5 threads_are "$high" 3
start nice -n 5 "$TMP/bin/raise" -t 2 -s 60
ctrl=$!
if by_events "$scans" 5 all_threads "$ctrl" -5 0 3; then
	ok "control: a raising rule (nice -5) raises a process at nice 5"
else
	not_ok "control: raising rule applied" "$(state "$ctrl"); rescans since: $rescanned"
fi
if by_events "$scans" 5 managed "$high" && all_threads "$high" -10 0 3; then
	ok "nice -n -10 under a raising rule (nice -5): nice -10 kept on all 3 threads"
else
	not_ok "a raising rule never lowers nice" "$(thread_prio "$high"); rescans since: $rescanned"
fi
run ctl explain "$high"
expect_contains "explain: raising kept" "$out" \
	"nice -10 kept (higher than the rule's -5: a raising rule never lowers)" &&
	ok "explain: a raising rule's setting kept"

# A realtime priority above the rule's stays; the control goes to rr 10.
scans=$(rescans_now)
start chrt -f 20 "$TMP/bin/rt" -t 1 -s 60
rt=$!
wait_until 5 threads_are "$rt" 2
start "$TMP/bin/rt" -t 1 -s 60
ctrl=$!
rt_all() { # PID "POLICY PRIORITY"
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(rt_of "${t##*/}")" = "$2" ] || return 1
	done
}
if by_events "$scans" 5 rt_all "$ctrl" "2 10"; then
	ok "control: a realtime rule sets SCHED_RR 10"
else
	not_ok "control: realtime rule applied" "$(state "$ctrl"); rescans since: $rescanned"
fi
if by_events "$scans" 5 managed "$rt" && rt_all "$rt" "1 20"; then
	ok "chrt -f 20 under a rule of rr 10: SCHED_FIFO 20 kept on both threads"
else
	not_ok "a raising rule never lowers a realtime priority" "$(state "$rt"); rescans since: $rescanned"
fi
run ctl explain "$rt"
expect_contains "explain: realtime kept" "$out" \
	"policy fifo 20 kept (higher than the rule's rr 10: a raising rule never lowers)" &&
	ok "explain: the realtime priority kept"

# SCHED_RESET_ON_FORK stays when the policy changes: from SCHED_OTHER to
# the rule's batch, and from SCHED_FIFO down to it.
scans=$(rescans_now)
start chrt -R -o 0 "$TMP/bin/batch" -s 60
reset=$!
start chrt -R -f 10 "$TMP/bin/batch" -s 60
reset_rt=$!
if by_events "$scans" 5 sched_all "$reset" "SCHED_BATCH|SCHED_RESET_ON_FORK"; then
	ok "chrt -R under a batch rule: SCHED_BATCH with SCHED_RESET_ON_FORK kept"
else
	not_ok "SCHED_RESET_ON_FORK kept" "$(state "$reset"); rescans since: $rescanned"
fi
if by_events "$scans" 5 sched_all "$reset_rt" "SCHED_BATCH|SCHED_RESET_ON_FORK"; then
	ok "chrt -R -f 10 under a batch rule: lowered to SCHED_BATCH, SCHED_RESET_ON_FORK kept"
else
	not_ok "SCHED_RESET_ON_FORK kept from realtime" "$(state "$reset_rt"); rescans since: $rescanned"
fi

# No rule for them after a reload: each thread gets back what it had, the
# flag too.
sed -i "s|exe = \"$TMP/bin/batch\"|exe = \"$TMP/bin/none\"|" "$RULES/10-prio.rules"
run ctl reload
expect_status "reload" 0 &&
	if wait_until 5 sched_all "$reset" "SCHED_OTHER|SCHED_RESET_ON_FORK" &&
		wait_until 5 sched_all "$reset_rt" "SCHED_FIFO|SCHED_RESET_ON_FORK"; then
		ok "matched no more: the original policies come back with SCHED_RESET_ON_FORK"
	else
		not_ok "restored with SCHED_RESET_ON_FORK" "$(state "$reset"); $(state "$reset_rt")"
	fi
finish
