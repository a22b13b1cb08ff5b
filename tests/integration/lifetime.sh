#!/bin/bash
# A raise never outlives its match, against the real kernel, as root:
# children that exec something no rule matches, an exec from a thread
# other than the main one, threads created after the match, a reload that
# drops the rule, a main thread that ends before the others, each from
# process events alone (rescans off, and none may run meanwhile); and
# what only a rescan can catch: events lost in an overflow, a move to
# another cgroup (which no event reports) at the periodic rescan, CPU
# hotplug seen by rescans.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the daemon tests need root"

mkdir -p "$TMP/bin" "$TMP/other"
for name in raised lowered placed failing holder; do
	cp "$WORKER" "$TMP/bin/$name"
done
cp "$WORKER" "$TMP/other/plain"
cp "$WORKER" "$TMP/other/changer"
PLAIN="$TMP/other/plain"
rules_raised() { # the raising rule, and one that lowers for contrast
	cat >"$RULES/10-test.rules" <<EOF
rules = (
  { name = "raised"; match = { exe = "$TMP/bin/raised"; };
    priority = { nice = -6; policy = "batch"; io_class = "best-effort"; io_level = 1; }; },
  { name = "lowered"; match = { exe = "$TMP/bin/lowered"; };
    priority = { nice = 5; }; }
);
EOF
}
rules_raised
write_conf
start_daemon || { finish; exit 1; }

# prio_of TID: "NICE POLICY IO" (policy 3 = SCHED_BATCH; io as ionice says).
prio_of() {
	echo "$(nice_of "$1") $(awk '{ sub(/.*\) /, ""); print $39 }' /proc/"$1"/stat 2>/dev/null) $(ionice -p "$1" 2>/dev/null | tr -d ' ')"
}
prio_is() { [ "$(prio_of "$1")" = "$2" ]; }
RAISED="-6 3 best-effort:prio1"
PLAINPRIO="0 0 none:prio0"
# child_of PID: its child's pid, once it has one.
child_of() { cat /proc/"$1"/task/"$1"/children 2>/dev/null | awk '{ print $1 }'; }
has_child() { [ -n "$(child_of "$1")" ]; }

# A managed process forks; the child execs a program no rule matches: it
# gets back what it would have had without the parent's rule.
scans=$(rescans_now)
start "$TMP/bin/raised" -F 500:"$PLAIN" -s 30
w=$!
if wait_until 5 prio_is "$w" "$RAISED" && wait_until 5 has_child "$w"; then
	child=$(child_of "$w")
	track "$child"
	if wait_until 5 eval '[ "$(readlink /proc/$child/exe)" = "$PLAIN" ]' &&
		by_events "$scans" 5 prio_is "$child" "$PLAINPRIO"; then
		ok "a child of a managed process that execs an unmatched program gets its parent's original back (nice, policy, I/O)"
	else
		not_ok "the child's raise undone at its exec" "child $child: $(prio_of "$child") ($(readlink /proc/$child/exe)); rescans since: $rescanned"
	fi
else
	not_ok "the child's raise undone at its exec" "parent: $(prio_of "$w"); child: $(child_of "$w")"
fi

# The same child exec'ing a program of another rule: that rule over the
# parent's original, which is also what a reload dropping it restores.
scans=$(rescans_now)
start "$TMP/bin/raised" -F 500:"$TMP/bin/lowered" -s 30
w=$!
if wait_until 5 has_child "$w"; then
	child=$(child_of "$w")
	track "$child"
	if by_events "$scans" 5 prio_is "$child" "5 0 none:prio0"; then
		cat >"$RULES/10-test.rules" <<EOF
rules = ( { name = "raised"; match = { exe = "$TMP/bin/raised"; };
            priority = { nice = -6; policy = "batch"; io_class = "best-effort"; io_level = 1; }; } );
EOF
		run ctl reload
		if [ "$status" -eq 0 ] && wait_until 5 prio_is "$child" "$PLAINPRIO"; then
			ok "a child exec'ing another rule's program: that rule laid over the parent's original, which a reload dropping it brings back"
		else
			not_ok "another rule for the child" "reload $status $err; child: $(prio_of "$child")"
		fi
	else
		not_ok "another rule for the child" "child: $(prio_of "$child"); rescans since: $rescanned"
	fi
else
	not_ok "another rule for the child" "no child of $w"
fi
rules_raised
ctl reload >/dev/null

# An exec from a thread other than the main one: the kernel reports the
# main thread's exit first; the process lives on and runs a program no
# rule matches, which undoes the raise.
scans=$(rescans_now)
start "$TMP/bin/raised" -t 1 -E 500:"$PLAIN" -s 30
w=$!
if wait_until 5 prio_is "$w" "$RAISED" &&
	wait_until 5 eval '[ "$(readlink /proc/$w/exe)" = "$PLAIN" ]' &&
	by_events "$scans" 5 prio_is "$w" "$PLAINPRIO"; then
	ok "an exec from another thread than the main one is an exec, not an exit: the raise is undone"
else
	not_ok "exec from a thread" "$(prio_of "$w") ($(readlink /proc/$w/exe)); rescans since: $rescanned; $(grep "pid $w" "$DAEMON_LOG")"
fi

# Threads created after the match inherit the raise; their original is
# the process's, which a reload dropping the rule brings back.
start "$TMP/bin/raised" -t 1 -m 2 -a 500 -s 30
w=$!
if wait_until 5 all_threads "$w" -6 3 4; then
	cat >"$RULES/10-test.rules" <<EOF
rules = ( { name = "lowered"; match = { exe = "$TMP/bin/lowered"; }; priority = { nice = 5; }; } );
EOF
	run ctl reload
	if wait_until 5 all_threads "$w" 0 0 4; then
		ok "threads created after the match get the process's original back when a reload drops the rule"
	else
		not_ok "later threads restored" "$(thread_prio "$w")"
	fi
else
	not_ok "later threads raised" "$(thread_prio "$w")"
fi
rules_raised
ctl reload >/dev/null

# A restore where a thread changed one of the applied values itself puts
# back the others.
start "$TMP/bin/raised" -s 30
w=$!
if wait_until 5 prio_is "$w" "$RAISED"; then
	renice -n 2 -p "$w" >/dev/null
	cat >"$RULES/10-test.rules" <<EOF
rules = ( { name = "lowered"; match = { exe = "$TMP/bin/lowered"; }; priority = { nice = 5; }; } );
EOF
	run ctl reload
	if wait_until 5 prio_is "$w" "2 0 none:prio0"; then
		ok "a restore puts back policy and I/O, and leaves the nice value someone changed"
	else
		not_ok "a partial restore" "$(prio_of "$w")"
	fi
else
	not_ok "a partial restore" "not raised: $(prio_of "$w")"
fi
rules_raised
ctl reload >/dev/null

# Rescans catch what events miss. The daemon is stopped, a burst of execs
# fills its 4 KiB queue, and then: a managed process execs an unmatched
# program, an unmatched process execs a matching one, a process moves
# into the cgroup a rule names, a process takes the user a rule names.
# Their events are lost; the rescan the overflow brings must find them.
stop_daemon
CG=/sys/fs/cgroup/unified/cpupolicy-lifetime-$$
[ -d /sys/fs/cgroup/unified ] || CG=/sys/fs/cgroup/cpupolicy-lifetime-$$
rules_raised
cat >"$RULES/20-lost.rules" <<EOF
rules = (
  { name = "moved"; match = { exe = "$TMP/other/changer"; cgroup = "/cpupolicy-lifetime-*"; };
    priority = { nice = 4; }; },
  { name = "nobody"; match = { exe = "$TMP/other/changer"; user = "nobody"; };
    priority = { nice = 3; }; }
);
EOF
# They run before the daemon starts: its first scan has seen each of
# them, so only a rescan that looks again can notice the change.
start "$TMP/bin/raised" -S "$PLAIN" -s 30
managed=$!
start "$PLAIN" -S "$TMP/bin/raised" -s 30
unmanaged=$!
start "$TMP/other/changer" -s 30
mover=$!
start "$TMP/other/changer" -U "$(id -u nobody)" -s 30
changer=$!
# The queue is the proc connector's, which the storm below floods with
# its execs (the exec filter would send none of them).
write_conf event_buffer_kb=4 events=netlink
start_daemon || { finish; exit 1; }
if mkdir "$CG" 2>/dev/null; then
	at_exit "rmdir '$CG' 2>/dev/null"
else
	CG=
fi
if wait_until 5 prio_is "$managed" "$RAISED"; then
	scans=$(rescans_now)
	kill -STOP "$daemon_pid"
	seq 3000 | xargs -P 32 -I{} true
	kill -USR1 "$managed" "$unmanaged"
	kill -USR2 "$changer"
	[ -n "$CG" ] && echo "$mover" >"$CG/cgroup.procs"
	seq 500 | xargs -P 32 -I{} true
	kill -CONT "$daemon_pid"
	if wait_until 5 eval '[ "$(readlink /proc/$managed/exe)" = "$PLAIN" ]' &&
		wait_until 5 prio_is "$managed" "$PLAINPRIO"; then
		ok "lost events: a managed process that exec'd an unmatched program is matched again at the rescan (raise undone)"
	else
		not_ok "rescan: managed process exec'd" "$(prio_of "$managed") ($(readlink /proc/$managed/exe))"
	fi
	if wait_until 5 prio_is "$unmanaged" "$RAISED"; then
		ok "lost events: an unmatched process that exec'd a matching program is found at the rescan"
	else
		not_ok "rescan: ignored process exec'd" "$(prio_of "$unmanaged") ($(readlink /proc/$unmanaged/exe))"
	fi
	if wait_until 5 nice_is "$changer" 3; then
		ok "lost events: a process that took the user a rule names is matched at the rescan"
	else
		not_ok "rescan: uid change" "nice $(nice_of "$changer"), uid $(awk '/^Uid/ { print $3 }' /proc/$changer/status)"
	fi
	if [ -z "$CG" ]; then
		skip "lost events: a move to another cgroup" "no cgroup to create here"
	elif wait_until 5 nice_is "$mover" 4; then
		ok "lost events: a process moved into the cgroup a rule names is matched at the rescan"
	else
		not_ok "rescan: cgroup move" "nice $(nice_of "$mover"); $(cat /proc/$mover/cgroup)"
	fi
	run ctl status --json
	expect_contains "the events were lost" "$out" '"overflows":' &&
		expect_not_contains "the events were lost" "$out" '"overflows":0' &&
		if [ "$(rescans_since "$scans")" -gt 0 ]; then
			ok "... and the events were really lost (the kernel reported an overflow), and rescanned for"
		else
			not_ok "the events were lost" "an overflow, and no rescan"
		fi
	[ -n "$CG" ] && echo "$mover" >"$(dirname "$CG")/cgroup.procs"
else
	not_ok "lost events" "the managed process was not raised: $(prio_of "$managed")"
fi
stop_daemon

# The periodic rescan. A move to another cgroup is no process event: only
# a scan of /proc finds a process moved into the cgroup a rule names. With
# rescans off, nothing does, for more than a tick; with
# rescan_interval_ms = 200 the next rescan does, and the rescans come at
# that interval (no more often: fewer on a busy machine).
if [ -z "$CG" ]; then
	skip "the periodic rescan" "no cgroup to create here"
else
	# moved_in PID: into the rule's cgroup, once the daemon knows it runs
	# (its exec event seen: the daemon followed its start).
	moved_in() {
		wait_until 5 eval '[ "$(readlink /proc/$1/exe)" = "$TMP/other/changer" ]'
		echo "$1" >"$CG/cgroup.procs"
	}
	write_conf
	start_daemon || { finish; exit 1; }
	start "$TMP/other/changer" -s 30
	unseen=$!
	scans=$(rescans_now)
	moved_in "$unseen"
	sleep 1.5 # more than a tick
	if nice_is "$unseen" 0 && no_rescan_since "$scans"; then
		ok "rescans off: a process moved into the cgroup a rule names stays unmatched (no event reports the move)"
	else
		not_ok "a cgroup move without rescans" "nice $(nice_of "$unseen"); rescans since: $rescanned"
	fi
	stop_daemon
	write_conf rescan_interval_ms=200
	start_daemon || { finish; exit 1; }
	start "$TMP/other/changer" -s 30
	mover=$!
	scans=$(rescans_now)
	moved_in "$mover"
	if wait_until 5 nice_is "$mover" 4 && [ "$(rescans_since "$scans")" -gt 0 ]; then
		ok "the periodic rescan finds a process moved into the cgroup a rule names"
	else
		not_ok "the periodic rescan finds a cgroup move" "nice $(nice_of "$mover"); rescans since: $(rescans_since "$scans"); $(cat /proc/$mover/cgroup)"
	fi
	scans=$(rescans_now)
	since=$(lib_now_ms)
	wait_until 5 eval '[ "$(rescans_since "$scans")" -ge 5 ]'
	count=$(rescans_since "$scans")
	ms=$(($(lib_now_ms) - since))
	if [ "${count:-0}" -ge 5 ] && [ "$count" -le $((ms / 200 + 2)) ]; then
		ok "rescan_interval_ms = 200: $count rescans in $ms ms"
	else
		not_ok "rescans at the interval" "${count:-no} rescans in $ms ms"
	fi
	echo "$unseen" >"$(dirname "$CG")/cgroup.procs"
	echo "$mover" >"$(dirname "$CG")/cgroup.procs"
	stop_daemon
fi

# A write the kernel refuses is not someone else's change, on any cgroup
# layout: a thread in a cpuset of its own, narrower than its process's, is
# refused an affinity outside it (sched_setaffinity: EINVAL), though the
# process's cpuset, within which the daemon plans, allows it. cgroup v1
# puts a thread apart by its tid in "tasks"; v2 in a threaded subtree, by
# "cgroup.threads". The process exists before the rule, so that the
# thread is in its cpuset before the first write. The refusal is said
# once, recorded as not taken, and not tried again at every rescan (every
# 200 ms here, several while the case waits), while the main thread
# takes the placement.
ONLINE=$(machine_online)
NARROW=$(cpulist_expand "$ONLINE" | head -n 1)
WIDE_ONLY=$(cpulist_minus "$ONLINE" "$NARROW")
# refusal_cpuset: $narrow_cg, a cpuset of $NARROW alone for the thread
# (its tid goes to $narrow_cg/$thread_file), and $wide_cg, where the
# process goes first (empty: where it is); false where neither v1 nor v2
# has a cpuset to make.
refusal_cpuset() {
	local v1=/sys/fs/cgroup/cpuset root top="cpupolicy-lifetime-$$"
	if [ -f "$v1/cpuset.cpus" ] && mkdir "$v1/$top" 2>/dev/null; then
		at_exit "rmdir '$v1/$top'"
		narrow_cg="$v1/$top" wide_cg= thread_file=tasks
		echo "$NARROW" >"$narrow_cg/cpuset.cpus" &&
			cat "$v1/cpuset.mems" >"$narrow_cg/cpuset.mems"
		return
	fi
	for root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
		grep -qw cpuset "$root/cgroup.controllers" 2>/dev/null && break
		root=
	done
	[ -n "$root" ] || return 1
	if ! grep -qw cpuset "$root/cgroup.subtree_control"; then
		echo +cpuset >"$root/cgroup.subtree_control" || return 1
		at_exit "echo -cpuset >'$root/cgroup.subtree_control' 2>/dev/null"
	fi
	mkdir "$root/$top" || return 1
	at_exit "rmdir '$root/$top/wide' '$root/$top/narrow' '$root/$top'"
	mkdir "$root/$top/wide" "$root/$top/narrow" &&
		echo +cpuset >"$root/$top/cgroup.subtree_control" &&
		echo threaded >"$root/$top/wide/cgroup.type" &&
		echo threaded >"$root/$top/narrow/cgroup.type" &&
		echo "$NARROW" >"$root/$top/narrow/cpuset.cpus" || return 1
	narrow_cg="$root/$top/narrow" wide_cg="$root/$top/wide" thread_file=cgroup.threads
}
if [ -z "$WIDE_ONLY" ]; then
	skip "an affinity the kernel refuses" "one CPU online: no CPU outside a cpuset to ask for"
elif ! refusal_cpuset; then
	skip "an affinity the kernel refuses" "no cpuset can be made here (cgroup v1 or v2)"
else
	cat >"$RULES/10-test.rules" <<EOF
rules = ( { name = "other"; match = { exe = "$PLAIN"; }; priority = { nice = 1; }; } );
EOF
	rm -f "$RULES/20-lost.rules"
	write_conf rescan_interval_ms=200
	start_daemon || { finish; exit 1; }
	start "$TMP/bin/failing" -t 1 -s 30
	w=$!
	two_threads() { [ "$(ls /proc/$w/task | wc -l)" -eq 2 ]; }
	wait_until 5 two_threads
	tid=$(ls /proc/$w/task | grep -vx "$w")
	{ [ -z "$wide_cg" ] || echo "$w" >"$wide_cg/cgroup.procs"; } &&
		echo "$tid" >"$narrow_cg/$thread_file"
	cat >"$RULES/10-test.rules" <<EOF
rules = ( { name = "failing"; match = { exe = "$TMP/bin/failing"; };
            placement = { cpus = "$WIDE_ONLY"; }; } );
EOF
	mark=$(log_mark)
	run ctl reload
	placed() { [ "$(taskset -pc "$w" | sed 's/.*: //')" = "$WIDE_ONLY" ]; }
	wait_until 5 placed
	scans=$(rescans_now)
	wait_until 5 eval '[ "$(rescans_since "$scans")" -ge 5 ]'
	rescanned=$(rescans_since "$scans")
	said=$(log_since "$mark" | grep "pid $w tid $tid ")
	refused=$(grep -c "cannot set placement of rule failing" <<<"$said")
	if [ "$refused" -eq 1 ] && [ "${rescanned:-0}" -ge 5 ] && placed &&
		[ "$(taskset -pc "$tid" | sed 's/.*: //')" = "$NARROW" ] &&
		! grep -q "tried again" <<<"$said" &&
		! log_since "$mark" | grep -q "pid $w .*changed by someone else"; then
		ok "an affinity the kernel refuses (EINVAL, a thread's own cpuset) is said once in $rescanned rescans, not tried again, not taken for someone else's change; the main thread is placed"
	else
		not_ok "an affinity the kernel refuses" "said $refused times in ${rescanned:-no} rescans; main thread $(taskset -pc "$w"), thread $(taskset -pc "$tid"); $(log_since "$mark" | grep "pid $w")"
	fi
	stop "$w" 5
	stop_daemon
fi

# A write the kernel refuses is not someone else's change: SCHED_FIFO in a
# cgroup without realtime time (cpu.rt_runtime_us 0) fails with EPERM. It
# is said once, recorded as not taken, and not tried again every rescan.
RT=/sys/fs/cgroup/cpu
if [ -w "$RT/cpu.rt_runtime_us" ] && mkdir "$RT/cpupolicy-lifetime-$$" 2>/dev/null; then
	at_exit "rmdir '$RT/cpupolicy-lifetime-$$' 2>/dev/null"
	cat >"$RULES/10-test.rules" <<EOF
rules = ( { name = "failing"; match = { exe = "$TMP/bin/failing"; };
            priority = { policy = "fifo"; rt_priority = 5; nice = 3; }; } );
EOF
	rm -f "$RULES/20-lost.rules"
	write_conf rescan_interval_ms=200
	start_daemon || { finish; exit 1; }
	(echo "$BASHPID" >"$RT/cpupolicy-lifetime-$$/cgroup.procs" &&
		exec "$TMP/bin/failing" -s 30) &
	w=$!
	track "$w"
	sleep 1.5 # several rescans
	refused=$(grep -c "pid $w tid $w .*cannot set priority of rule failing" "$DAEMON_LOG")
	if [ "$refused" -eq 1 ] &&
		! grep -q "pid $w .*changed by someone else" "$DAEMON_LOG"; then
		ok "a write the kernel refuses (EPERM) is said once, and not taken for someone else's change"
	else
		not_ok "a refused write" "said $refused times; $(grep "pid $w" "$DAEMON_LOG")"
	fi
	stop "$w" 5
	echo $$ >"$RT/cgroup.procs"
	stop_daemon
else
	skip "a write the kernel refuses" "no cgroup with realtime group scheduling here"
fi

# CPU hotplug and cpusets change what the kernel reports of a thread's
# affinity, without anyone changing it: neither is someone else's change.
# No event says a CPU went offline: the rescans (every 200 ms here) are
# what reads the narrowed affinity, so the case waits for some of them
# while cpu1 is offline.
if [ ! -w "$CPU1" ]; then
	skip "placement and hotplug" "cpu1 cannot be taken offline here"
	finish
	exit
fi
restore_cpu1_at_exit
placement_rule() { # CPUS
	cat >"$RULES/10-test.rules" <<EOF
rules = (
  { name = "placed"; match = { exe = "$TMP/bin/placed"; }; placement = { cpus = "$1"; }; },
  { name = "holder"; match = { exe = "$TMP/bin/holder"; }; power = { parking = "off"; }; }
);
EOF
}
placement_rule 0-1
rm -f "$RULES/20-lost.rules"
write_conf rescan_interval_ms=200
start_daemon || { finish; exit 1; }
start "$TMP/bin/placed" -t 1 -s 60
w=$!
affinity() { grep Cpus_allowed_list /proc/"$1"/task/*/status | awk '{ print $2 }' | sort -u | tr '\n' ' '; }
affinity_is() { [ "$(affinity "$1")" = "$2 " ]; }
wait_until 5 grep -q "pid $w .*rule placed" "$DAEMON_LOG"
echo 0 >"$CPU1"
scans=$(rescans_now)
wait_until 5 eval '[ "$(rescans_since "$scans")" -ge 3 ]'
rescanned=$(rescans_since "$scans")
narrowed=$(taskset -pc "$w" | sed 's/.*: //')
echo 1 >"$CPU1"
placement_rule 1
run ctl reload
if [ "$narrowed" != 0 ]; then
	skip "a CPU going offline is not someone else's change" "the kernel reports the affinity $narrowed with cpu1 offline: nothing narrowed to mistake"
elif [ "${rescanned:-0}" -lt 3 ]; then
	not_ok "placement across hotplug" "${rescanned:-no} rescans while cpu1 was offline"
elif ! grep -q "pid $w .*changed by someone else" "$DAEMON_LOG" &&
	wait_until 5 affinity_is "$w" 1; then
	ok "a CPU going offline is not someone else's change: $rescanned rescans saw the narrowed affinity, the thread keeps its placement, and a new rule moves it"
else
	not_ok "placement across hotplug" "affinity $(affinity "$w"); $(grep "pid $w" "$DAEMON_LOG")"
fi
stop_daemon

# The main thread ends first (pthread_exit) while another thread works:
# the process keeps its hold (every CPU online) until its last thread
# ends. Both are exit events: rescans off, and none may run.
write_conf
start_daemon || { finish; exit 1; }
echo 0 >"$CPU1"
scans=$(rescans_now)
start "$TMP/bin/holder" -X 500 -s 3
holder=$!
leader_gone() { [ "$(awk '{ sub(/.*\) /, ""); print $1 }' /proc/$holder/stat)" = Z ]; }
if by_events "$scans" 5 cpu1_is 1 && wait_until 5 leader_gone && sleep 0.5 &&
	cpu1_is 1 && no_rescan_since "$scans"; then
	ok "the main thread's pthread_exit is not the process's exit: the power hold stays"
else
	not_ok "pthread_exit of the main thread" "cpu1 $(cpu1); rescans since: $rescanned; $(grep "pid $holder" "$DAEMON_LOG")"
fi
if wait_exit "$holder" 10 && by_events "$scans" 5 cpu1_is 0; then
	ok "... until its last thread ends, from its exit event"
else
	not_ok "the hold after the process ended" "cpu1 $(cpu1); rescans since: $rescanned"
fi
stop_daemon

finish
