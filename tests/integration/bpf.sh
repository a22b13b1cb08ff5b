#!/bin/bash
# The exec filter in the kernel (events = bpf), as root: a matching exec
# is applied (the filter's count of execs sent rises), an unmatched one
# never reaches the daemon (the filter's count of execs seen rises by
# what ran, its count sent and the daemon's of events received stay), a
# raised process's child that runs an unmatched program reaches it and
# loses its inherited raise, a lowered one's does not and keeps the
# lowering, a reload changes what the kernel lets through,
# a literal exe installed after the start is seen, name rules and exe
# globs pass; where the filter cannot load (no CAP_BPF, CAP_PERFMON and
# CAP_SYS_ADMIN) the daemon says why once and takes exec events from the
# proc connector; events = netlink and events = poll do without it.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the exec filter needs root to load"
why=$(bpf_why_not)
[ -z "$why" ] || skip_all "no exec filter here: $why"

mkdir -p "$TMP/bin" "$TMP/glob"
for name in match other named; do
	cp /bin/sleep "$TMP/bin/$name"
done
# A raising rule's program, and what its child runs: no rule names it.
cp "$WORKER" "$TMP/bin/raiser"
cp "$WORKER" "$TMP/bin/unnamed"
# A lowering rule's program: its children keep the lowering, unfollowed.
cp "$WORKER" "$TMP/bin/lowerer"
cp /bin/sleep "$TMP/glob/globbed"
# A rule's program that an upgrade replaces.
cp "$WORKER" "$TMP/bin/upgraded"
# Named as the name rule wants, as a file no exe rule names.
cp /bin/sleep "$TMP/bin/myname"

write_rules() { # exe of the first rule
	cat >"$RULES/10-bpf.rules" <<EOF2
rules = (
  { name = "exact"; match = { exe = "$1"; }; priority = { nice = 5; }; },
  { name = "late"; match = { exe = "$TMP/bin/late"; }; priority = { nice = 6; }; },
  { name = "globbed"; match = { exe = "$TMP/*/globbed"; }; priority = { nice = 7; }; },
  { name = "named"; match = { name = "myname"; user = 0; }; priority = { nice = 8; }; },
  { name = "upgraded"; match = { exe = "$TMP/bin/upgraded"; }; priority = { nice = 4; }; }
);
EOF2
}

# filter_number KEY: a count of the exec filter's in status --json
# (execs seen in the kernel, sent, lost); empty without a filter.
filter_number() {
	ctl status --json | grep -o '"exec_filter":{[^}]*}' |
		grep -o "\"$1\":[0-9]*" | cut -d: -f2
}
# filter_rose KEY FROM BY: the filter's count KEY is FROM + BY or more.
filter_rose() {
	local now
	now=$(filter_number "$1")
	[ -n "$now" ] && [ "$now" -ge $(($2 + $3)) ]
}

# applied NAME NICE: a start of TMP/bin/NAME (or a path) gets NICE; with
# the filter, it sent that exec (its count sent rose).
applied() {
	local path=$1 sent
	case $path in /*) ;; *) path="$TMP/bin/$1" ;; esac
	sent=$(filter_number sent)
	start "$path" 30
	local pid=$!
	wait_until 5 nice_is "$pid" "$2" &&
		{ [ -z "$sent" ] || filter_rose sent "$sent" 1; }
	local got=$? # wait_exit sets status
	kill "$pid" 2>/dev/null
	wait_exit "$pid" 5
	return $got
}

pinned=$(find /sys/fs/bpf -mindepth 1 2>/dev/null | sort)
# A rule of a literal exe alone, and nothing managed: nothing is asked of
# the proc connector (no renames or changes of ids, which a name or user
# rule would want, no forks or exits, no execs: the filter has them), and
# no exec of /bin/true passes the filter. The filter sees them all (its
# count of execs rises by 200 at least), sends none, and the daemon
# receives nothing.
cat >"$RULES/10-bpf.rules" <<EOF2
rules = ( { name = "raiser"; match = { exe = "$TMP/bin/raiser"; }; priority = { nice = -2; }; },
  { name = "lowerer"; match = { exe = "$TMP/bin/lowerer"; }; priority = { nice = 4; }; } );
EOF2
write_conf events=bpf log_level=debug
start_daemon || {
	finish
	exit 1
}
received=$(json_number events_received)
execs=$(filter_number execs)
sent=$(filter_number sent)
for i in $(seq 200); do /bin/true; done
wait_until 5 filter_rose execs "$execs" 200
now_execs=$(filter_number execs)
now_received=$(json_number events_received)
now_sent=$(filter_number sent)
if [ "$now_execs" -ge $((execs + 200)) ] && [ "$now_sent" -eq "$sent" ] &&
	[ "$now_received" -eq "$received" ]; then
	ok "200 unmatched execs, seen by the filter ($((now_execs - execs)) execs), do not wake the daemon"
else
	not_ok "200 unmatched execs do not wake the daemon" \
		"filter execs $execs -> $now_execs, sent $sent -> $now_sent, daemon received $received -> $now_received"
fi

# child_of PID: its child's pid, once it has one.
child_of() { awk '{ print $1 }' /proc/"$1"/task/"$1"/children 2>/dev/null; }
runs_unnamed() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$TMP/bin/unnamed" ]; }
# forked_child NAME NICE: starts TMP/bin/NAME, which forks 1.5 s later a
# child that runs the unmatched program; once NAME has NICE (and before
# the fork), $sent is the filter's count of execs sent. Sets $parent and
# $child; fails when the parent did not get NICE in time or the child did
# not run the program. forked_why says what was seen.
forked_child() {
	start "$TMP/bin/$1" -F 1500:"$TMP/bin/unnamed" -s 30
	parent=$!
	child=
	parent_seen=false
	wait_until 5 nice_is "$parent" "$2" && sent=$(filter_number sent) &&
		[ -z "$(child_of "$parent")" ] || return 1
	parent_seen=true
	wait_until 5 eval '[ -n "$(child_of "$parent")" ]'
	child=$(child_of "$parent")
	[ -n "$child" ] && track "$child"
	[ -n "$child" ] && wait_until 5 runs_unnamed "$child"
}
forked_why() {
	if $parent_seen; then
		echo "child ${child:-none}: nice $(nice_of "$child"), exe $(readlink "/proc/$child/exe" 2>&1); sent $sent -> $(filter_number sent)"
	else
		echo "the parent: nice $(nice_of "$parent"), child $(child_of "$parent") before the count was read"
	fi
}

# A managed process forks; its child runs a program no rule names. The
# filter follows the managed process and its children, so that exec
# reaches the daemon (sent rises, though no rule could match it), which
# undoes the raise the child inherited. Rescans are off, and none runs.
scans=$(rescans_now)
if forked_child raiser -2 &&
	by_events "$scans" 5 nice_is "$child" 0 && filter_rose sent "$sent" 1; then
	ok "a managed process's child that runs an unmatched program: its exec is sent, its raise undone"
else
	not_ok "a managed process's child that runs an unmatched program" \
		"$(forked_why); rescans since: ${rescanned:-not counted}"
fi
stop "$parent" 5

# A process a lowering rule matched forks the same way: the filter does
# not follow its children (the kernel has run the child's exec once it
# runs the other program: its count sent is final then), and the child
# keeps the lowering, as under nice(1).
if forked_child lowerer 4 && [ "$(filter_number sent)" -eq "$sent" ] &&
	sleep 0.5 && nice_is "$child" 4; then
	ok "a lowered process's child that runs an unmatched program: its exec is not sent, it keeps the lowering"
else
	not_ok "a lowered process's child that runs an unmatched program" "$(forked_why)"
fi
stop "$parent" 5
stop_daemon

write_rules "$TMP/bin/match"
start_daemon || {
	finish
	exit 1
}
run ctl status
expect_contains "status names the filter" "$out" "events:   bpf" &&
	expect_contains "status counts the filter's execs" "$out" "execs seen in the kernel" &&
	ok "status names the filter and its counts"

# Nothing pinned: the maps live with the daemon's descriptors alone.
if [ "$(find /sys/fs/bpf -mindepth 1 2>/dev/null | sort)" = "$pinned" ]; then
	ok "nothing of the filter is pinned in bpffs"
else
	not_ok "nothing of the filter is pinned in bpffs" "$(find /sys/fs/bpf -mindepth 1)"
fi
# Loaded before the drop: none of the capabilities it took is kept.
capeff=$(awk '/^CapEff/ { print $2 }' /proc/"$daemon_pid"/status)
if [ $((0x$capeff & (1 << 38 | 1 << 39 | 1 << 21))) -eq 0 ]; then
	ok "CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN are not kept after loading"
else
	not_ok "capabilities dropped after loading" "CapEff $capeff"
fi

if applied match 5; then ok "a literal exe is applied"; else
	not_ok "a literal exe is applied" "$(ctl status)"; fi
# The kernel's device number (super_block.s_dev) told in stat()'s terms.
want="file $(stat -c '%Hd:%Ld inode %i' "$TMP/bin/match"), a literal exe's file"
if grep -q "exec filter: pid [0-9]*, $want" "$DAEMON_LOG"; then
	ok "the filter's device and inode are stat()'s"
else
	not_ok "the filter's device and inode are stat()'s" \
		"no '$want' in: $(grep 'exec filter:' "$DAEMON_LOG")"
fi
# Where the sent execs' time went: each step counted, the worst at least
# the median, in status, its JSON and the metrics' histogram.
latency=$(ctl status --json | grep -o '"latency_us":{.*}}}')
wake_count=$(grep -o '"wake":{"count":[0-9]*' <<<"$latency" | grep -o '[0-9]*$')
work=$(grep -o '"work":{[^}]*}' <<<"$latency")
work_p50=$(grep -o '"p50":[0-9]*' <<<"$work" | cut -d: -f2)
work_max=$(grep -o '"max":[0-9]*' <<<"$work" | cut -d: -f2)
metric=$(ctl metrics | grep '^cpupolicy_exec_filter_latency_seconds_count{phase="queue"}')
if [ "${wake_count:-0}" -ge 1 ] && [ "${work_max:-0}" -ge "${work_p50:-1}" ] &&
	[ "${metric##* }" -ge 1 ] 2>/dev/null &&
	ctl status | grep -q "exec to policy, us (p50 p99 max): wake [0-9]"; then
	ok "status and metrics say where a sent exec's time went"
else
	not_ok "status and metrics say where a sent exec's time went" \
		"latency: $latency; metric: $metric"
fi
if applied "$TMP/glob/globbed" 7; then ok "an exe glob by its basename"; else
	not_ok "an exe glob by its basename" "$(ctl status)"; fi
if applied myname 8; then ok "a name rule by its exact name"; else
	not_ok "a name rule by its exact name" "$(ctl status)"; fi

# A literal exe no file has at the start: its basename stands in, then
# its inode once the tick sees the file.
cp /bin/sleep "$TMP/bin/late"
if applied late 6; then ok "a literal exe installed after the start"; else
	not_ok "a literal exe installed after the start" "$(ctl status)"; fi
# An upgrade: a new file (a new inode) under the same name.
sleep 1.2
cp /bin/sleep "$TMP/bin/late.new" && mv "$TMP/bin/late.new" "$TMP/bin/late"
if applied late 6; then ok "a literal exe replaced by an upgrade"; else
	not_ok "a literal exe replaced by an upgrade" "$(ctl status)"; fi

# An upgrade renames a new file over a rule's program and starts it at
# once (rescans off; the periodic look may be a second away): the watch
# of its directory gives the filter the new file before the start, whose
# exec is then sent as any (the filter's line for its pid), and the
# probe has its nice value. Waits on the watch's line (5 s at most), and
# says how long it took.
# upgrade_starts NAME PATH NICE: a new PATH renamed over it, then run.
upgrade_starts() {
	local mark before pid line upgraded=$2
	mark=$(log_mark)
	cp "$WORKER" "$2.new"
	before=$(lib_now_ms)
	mv -f "$2.new" "$2"
	if ! wait_until 5 eval 'log_since "$mark" | grep -q "exec filter: $upgraded is another file now"'; then
		not_ok "$1" "no watch line: $(log_since "$mark" | grep 'exec filter: /')"
		return
	fi
	echo "# $1: the filter followed in $(($(lib_now_ms) - before)) ms"
	"$2" -w "$3" -T 5000 &
	pid=$!
	wait_exit "$pid" 10
	line="exec filter: pid $pid, file .* inode $(stat -c %i "$2"), a literal exe's file"
	if [ "$status" = 0 ] && log_since "$mark" | grep -q "$line" &&
		! log_since "$mark" | grep -q "a file a rule names changed"; then
		ok "$1"
	else
		not_ok "$1" "probe $status; $(log_since "$mark" | grep 'exec filter\|changed')"
	fi
}
upgrade_starts "an upgrade started at once: its policy at exec" \
	"$TMP/bin/upgraded" 4

# A reload moves the rule to another file: the kernel lets the new one
# through, and no longer the old one.
write_rules "$TMP/bin/other"
run ctl reload
expect_status "reload" 0 && ok "reload"
execs=$(filter_number execs)
sent=$(filter_number sent)
start "$TMP/bin/match" 30
pid=$!
if wait_until 5 eval '[ "$(readlink /proc/$pid/exe)" = "$TMP/bin/match" ]' &&
	filter_rose execs "$execs" 1 && [ "$(nice_of "$pid")" = 0 ] &&
	[ "$(filter_number sent)" -eq "$sent" ]; then
	ok "after a reload the old exe is not sent"
else
	not_ok "after a reload the old exe is not sent" \
		"nice $(nice_of "$pid"), execs $execs -> $(filter_number execs), sent $sent -> $(filter_number sent)"
fi
kill "$pid"
if applied other 5; then ok "after a reload the new exe is applied"; else
	not_ok "after a reload the new exe is applied" "$(ctl status)"; fi
run ctl metrics
expect_contains "metrics count the filter" "$out" "cpupolicy_exec_filter_sent_total" &&
	ok "metrics count the filter"
stop_daemon

# The map of followed processes full (filter_follow_max at its least, 16):
# a raised process with more children alive than that; a child the map
# had no room for runs a program no rule matches, and still gets back at
# its exec what it inherited (every exec goes to the daemon meanwhile,
# said once). Its children gone, the filter judges execs again.
cp /bin/bash "$TMP/bin/spawner"
cp /bin/sleep "$TMP/bin/idle"
cp "$WORKER" "$TMP/bin/probe"
cat >"$RULES/10-bpf.rules" <<EOF2
rules = (
  { name = "spawner"; match = { exe = "$TMP/bin/spawner"; }; priority = { nice = -3; }; }
);
EOF2
# Raised first (a deadline of 5 s), then 24 children sleeping, then the
# probe, which waits (5 s at most) for its nice value to be 0 again.
cat >"$TMP/spawn.sh" <<EOF2
for i in \$(seq 500); do
	read -r stat </proc/\$\$/stat
	set -- \$stat
	[ "\${19}" = -3 ] && break
	sleep 0.01
done
[ "\${19}" = -3 ] || { echo "never raised" >"$TMP/probe.status"; exit 1; }
for i in \$(seq 24); do
	"$TMP/bin/idle" 30 &
	echo \$! >>"$TMP/idle.pids"
done
"$TMP/bin/probe" -w 0 -T 5000
echo \$? >"$TMP/probe.status"
wait
EOF2
write_conf events=bpf log_level=debug filter_follow_max=16
start_daemon || {
	finish
	exit 1
}
mark=$(log_mark)
start "$TMP/bin/spawner" "$TMP/spawn.sh"
wait_until 10 test -s "$TMP/probe.status"
for pid in $(cat "$TMP/idle.pids" 2>/dev/null); do track "$pid"; done
if [ "$(cat "$TMP/probe.status" 2>/dev/null)" = 0 ]; then
	ok "a child the full map could not follow: its raise undone at its exec"
else
	not_ok "a child the full map could not follow: its raise undone at its exec" \
		"probe: $(cat "$TMP/probe.status" 2>/dev/null); $(ctl status)"
fi
if ctl status | grep -q "no room for more: every exec is sent" &&
	wait_until 5 eval 'log_since "$mark" | grep -q "had no room to follow a process"' &&
	[ "$(log_since "$mark" | grep -c 'had no room to follow a process')" = 1 ]; then
	ok "the full map: said once, and in status"
else
	not_ok "the full map: said once, and in status" \
		"$(ctl status; log_since "$mark" | grep 'no room')"
fi
for pid in $(cat "$TMP/idle.pids"); do kill "$pid" 2>/dev/null; done
if wait_until 5 eval 'log_since "$mark" | grep -q "has room again"' &&
	! ctl status | grep -q "no room for more"; then
	execs=$(filter_number execs)
	sent=$(filter_number sent)
	for i in $(seq 50); do /bin/true; done
	if filter_rose execs "$execs" 50 && [ "$(filter_number sent)" -eq "$sent" ]; then
		ok "room again: the filter judges execs again (50 seen, none sent)"
	else
		not_ok "room again: the filter judges execs again" \
			"execs $execs -> $(filter_number execs), sent $sent -> $(filter_number sent)"
	fi
else
	not_ok "room again: the filter judges execs again" \
		"$(ctl status; log_since "$mark" | grep 'room')"
fi
stop_daemon
write_rules "$TMP/bin/other"

# Forty name globs and forty exe globs by their ends: more than the
# kernel once had slots for, and still judged there (the plan does not
# send every exec): unmatched execs are not sent, and a start that one
# glob of each kind matches, deep in the set, gets its rule.
{
	echo "rules = ("
	for i in $(seq -w 1 40); do
		echo "  { name = \"start$i\"; match = { name = \"gl$i-*\"; }; priority = { nice = 3; }; },"
		echo "  { name = \"end$i\"; match = { exe = \"$TMP/glob/*-e$i\"; }; priority = { nice = 6; }; },"
	done
	echo "  { name = \"last\"; match = { exe = \"$TMP/bin/other\"; }; }"
	echo ");"
} >"$RULES/10-bpf.rules"
cp "$WORKER" "$TMP/bin/gl37-x"
cp "$WORKER" "$TMP/glob/tool-e33"
write_conf events=bpf
start_daemon || {
	finish
	exit 1
}
sent=$(filter_number sent)
for i in $(seq 100); do /bin/true; done
if ctl status --json | grep -q '"all":false' &&
	[ "$(filter_number sent)" -eq "$sent" ] &&
	applied "$TMP/bin/gl37-x" 3 && applied "$TMP/glob/tool-e33" 6; then
	ok "80 globs by their literal start or end: judged in the kernel (100 unmatched execs not sent), and a start that each kind matches gets its rule"
else
	not_ok "80 globs by their literal start or end" "$(ctl status --json | grep -o '"exec_filter":{[^}]*}'); sent $sent before the unmatched execs"
fi
stop_daemon
write_rules "$TMP/bin/other"

# Exe globs that say nothing of the basename (/opt/vendor/*), judged in
# the kernel by the directory they lie under: the exec's dentries are
# walked up, across mounts, whatever path the exec was asked by. A start
# of a program there gets its rule, one in a filesystem mounted below
# it too, and one started through a link to it; unmatched execs are not
# sent. A directory not there yet has the nearest one above it stand in
# (so a start under it is sent), and its own key once it is made.
mkdir -p "$TMP/vendor/sub" "$TMP/link"
cp "$WORKER" "$TMP/vendor/tool"
if mount -t tmpfs -o size=16m cpupolicy-test "$TMP/vendor/sub"; then
	at_exit "umount '$TMP/vendor/sub'"
	cp "$WORKER" "$TMP/vendor/sub/deep"
fi
ln -s "$TMP/vendor" "$TMP/link/v"
cat >"$RULES/10-bpf.rules" <<EOF2
rules = (
  { name = "vendor"; match = { exe = "$TMP/vendor/*"; }; priority = { nice = 9; }; },
  { name = "later"; match = { exe = "$TMP/later/*"; }; priority = { nice = 2; }; }
);
EOF2
write_conf events=bpf log_level=debug
start_daemon || {
	finish
	exit 1
}
# sent_by PATH: whether a start of PATH (it exits at once) was sent.
sent_by() {
	local sent
	sent=$(filter_number sent)
	"$1" -s 0
	filter_rose sent "$sent" 1
}
sent=$(filter_number sent)
for i in $(seq 100); do /bin/true; done
if ctl status --json | grep -q '"all":false' &&
	[ "$(filter_number sent)" -eq "$sent" ] &&
	applied "$TMP/vendor/tool" 9; then
	ok "an exe glob by its directory: judged in the kernel (100 unmatched execs not sent), a start under it gets its rule"
else
	not_ok "an exe glob by its directory" "$(ctl status --json | grep -o '"exec_filter":{[^}]*}'); sent $sent before the unmatched execs"
fi
if [ -x "$TMP/vendor/sub/deep" ] && applied "$TMP/vendor/sub/deep" 9; then
	ok "an exe glob by its directory: across a mount below it"
else
	not_ok "an exe glob by its directory: across a mount below it" "$(ctl status)"
fi
if applied "$TMP/link/v/tool" 9; then
	ok "an exe glob by its directory: a start through a link to it"
else
	not_ok "an exe glob by its directory: a start through a link to it" "$(ctl status)"
fi
if sent_by "$TMP/bin/upgraded"; then
	ok "a directory not there yet: the one above it stands in (a start beside it is sent)"
else
	not_ok "a directory not there yet: the one above it stands in" "$(ctl status --json | grep -o '"exec_filter":{[^}]*}')"
fi
mark=$(log_mark)
mkdir "$TMP/later"
cp "$WORKER" "$TMP/later/app"
if wait_until 5 eval 'log_since "$mark" | grep -q "exec filter: $TMP/later is there now"' &&
	applied "$TMP/later/app" 2 && ! sent_by "$TMP/bin/upgraded"; then
	ok "a directory made later: its own key (a start in it gets its rule, one beside it is not sent)"
else
	not_ok "a directory made later: its own key" "$(log_since "$mark" | grep 'exec filter')"
fi
stop_daemon
write_rules "$TMP/bin/other"

# The ring full: the daemon stopped while 3,000 short processes a rule
# matches run (their execs, some 170 KiB of records, in a ring of
# 64 KiB), then one that stays, whose exec may find no room either. The
# kernel counts the records it dropped; the daemon sees the count at its
# next tick and rescans (rescans are off: only that one runs), and the
# one that stays has its policy.
write_conf events=bpf
start_daemon || {
	finish
	exit 1
}
scans=$(rescans_now)
lost=$(filter_number lost)
kill -STOP "$daemon_pid"
seq 3000 | xargs -P 8 -I{} "$TMP/bin/upgraded" -s 0
start "$TMP/bin/upgraded" -s 30
stays=$!
kill -CONT "$daemon_pid"
if wait_until 5 nice_is "$stays" 4 && [ "$(filter_number lost)" -gt "$lost" ] &&
	[ "$(rescans_since "$scans")" -gt 0 ]; then
	ok "the ring full: the records lost are counted and rescanned for, and a start among them has its policy ($(($(filter_number lost) - lost)) lost)"
else
	not_ok "the ring full" "nice $(nice_of "$stays"), lost $lost -> $(filter_number lost), rescans since: $(rescans_since "$scans")"
fi
stop "$stays" 5
stop_daemon

# Without the capabilities to load it: said once, the proc connector.
mark=$(log_mark)
capsh --drop=cap_bpf,cap_perfmon,cap_sys_admin -- -c \
	"exec '$DAEMON' -c '$CONF' -r '$RULES'" >>"$DAEMON_LOG" 2>&1 &
daemon_pid=$!
if wait_until 10 ctl status >/dev/null 2>&1; then
	run ctl status
	log=$(log_since "$mark")
	expect_contains "without CAP_BPF: netlink" "$out" "events:   netlink" &&
		expect_contains "without CAP_BPF: why" "$log" "takes CAP_BPF and CAP_PERFMON" &&
		ok "without CAP_BPF: the proc connector, and why"
	if applied other 5; then ok "without CAP_BPF: applied"; else
		not_ok "without CAP_BPF: applied" "$(ctl status)"; fi
	[ "$(grep -c 'no exec filter' <<<"$log")" = 1 ] &&
		ok "without CAP_BPF: said once" ||
		not_ok "without CAP_BPF: said once" "$log"
else
	not_ok "without CAP_BPF: the daemon starts" "$(log_since "$mark")"
fi
stop_daemon

# The filter as a build machine without the kernel's BTF makes it, from
# vmlinux-min.h: it loads, and judges a literal exe and an exe glob.
write_rules "$TMP/bin/other"
write_conf events=bpf
daemon_normal=$DAEMON
DAEMON="$BUILD/tests/cpupolicyd-minbtf"
if start_daemon; then
	if applied other 5 && applied "$TMP/glob/globbed" 7; then
		ok "vmlinux-min.h: the filter loads and judges"
	else
		not_ok "vmlinux-min.h: the filter loads and judges" "$(ctl status)"
	fi
else
	not_ok "vmlinux-min.h: the filter loads" "$(cat "$DAEMON_LOG")"
fi
stop_daemon
DAEMON=$daemon_normal

write_conf events=netlink
start_daemon || exit 1
run ctl status
expect_contains "events = netlink" "$out" "events:   netlink" &&
	expect_not_contains "events = netlink: no filter" "$out" "filter:" &&
	ok "events = netlink: the proc connector alone"
applied other 5 && ok "events = netlink: applied" ||
	not_ok "events = netlink: applied" "$(ctl status)"
stop_daemon

write_conf events=poll
start_daemon || exit 1
run ctl status
expect_contains "events = poll" "$out" "polling /proc (events = poll)" &&
	ok "events = poll: rescans only"
applied other 5 && ok "events = poll: applied by a rescan" ||
	not_ok "events = poll: applied by a rescan" "$(ctl status)"
stop_daemon

finish
