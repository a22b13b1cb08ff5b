#!/bin/bash
# Restraint against the real kernel, as root: four CPU hogs of an
# ordinary user on this machine's CPUs make PSI report pressure, and each
# is lowered to nice 10 and SCHED_BATCH within seconds; a hog of root's
# and one named as the config exempts stay as they were, and explain
# says why; a hog that calms down gets back what it had; a stop gives
# back the rest, and so does the start after a crash. The positive
# control is the user's hogs.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the restraint tests need root"
[ -r /proc/pressure/cpu ] && cat /proc/pressure/cpu >/dev/null 2>&1 ||
	skip_all "the kernel reports no CPU pressure (no PSI, or psi=0)"

USER_ID=4242
mkdir -p "$TMP/bin"
# The hogs are the static worker spinning (-w -20: waiting for a nice
# value no process has), under names of their own: another user may not
# be able to read the shared libraries here.
for name in hog pipewire keepme harder focus; do
	cp "$BUILD/helpers/worker-static" "$TMP/bin/$name"
done
chmod 755 "$TMP" "$TMP/bin"
cat >"$RULES/10-restrain.rules" <<EOF
rules = (
  { name = "keepme"; match = { exe = "$TMP/bin/keepme"; }; restrain = false; },
  { name = "harder"; match = { exe = "$TMP/bin/harder"; };
    restrain = { nice = 19; policy = "idle"; }; },
  { name = "focus"; match = { exe = "$TMP/bin/focus"; };
    foreground = { nice = -5; }; }
);
EOF

PEER="$BUILD/helpers/peer"
cp "$PEER" "$TMP/peer"
write_conf socket_group=nogroup
cat >>"$CONF" <<EOF
[restraint]
enabled = true
calm_ms = 500
hold_ms = 1000
EOF

# hog [AS_UID] [PROGRAM]: a process spinning on a CPU; its pid in $!.
hog() {
	local uid=${1:-$USER_ID} bin=${2:-$TMP/bin/hog}
	start setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$bin" -w -20 -T 600000
}

# restrained PID: nice 10 and SCHED_BATCH (3) on its thread.
restrained() { all_threads "$1" 10 3 1; }
untouched() { all_threads "$1" 0 0 1; }

# A system bus of the test's own, with the shipped policy for the
# foreground method: the daemon takes com.system76.Scheduler there.
BUS="unix:path=$TMP/bus.sock"
cat >"$TMP/bus.conf" <<EOF
<busconfig>
  <type>system</type>
  <listen>$BUS</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_destination="org.freedesktop.DBus"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
  </policy>
  <include>$SRCDIR/packaging/dbus/com.system76.Scheduler.conf</include>
</busconfig>
EOF
# The bus believes only users the system knows: the test's two are
# made for it, and removed at exit.
# test_user UID NAME: the account exists, made here if it must be.
test_user() {
	[ "$(getent passwd "$1" | cut -d: -f1)" = "$2" ] && return 0
	getent passwd "$1" >/dev/null && return 1
	useradd --no-create-home --uid "$1" --gid nogroup --shell /usr/sbin/nologin "$2" || return 1
	# Last of all: its processes are gone first.
	at_exit "pkill -KILL -u '$1'; sleep 0.2; userdel '$2' 2>/dev/null"
}
have_bus=
if command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null &&
	command -v useradd >/dev/null && test_user "$USER_ID" cpupolicy-t1 &&
	test_user 4243 cpupolicy-t2 &&
	setpriv --reuid="$USER_ID" --regid="$USER_ID" --clear-groups \
		/bin/true >/dev/null 2>&1; then
	start dbus-daemon --config-file="$TMP/bus.conf" --nofork --nosyslog
	wait_until 5 test -S "$TMP/bus.sock" && have_bus=1
fi

start_daemon DBUS_SYSTEM_BUS_ADDRESS="$BUS" || {
	finish
	exit 1
}

hogs=()
for i in 1 2 3 4; do
	hog
	hogs+=($!)
done
every_hog_restrained() {
	local p
	for p in "${hogs[@]}"; do
		restrained "$p" || return 1
	done
}
if wait_until 10 every_hog_restrained; then
	ok "four hogs of a user on $(nproc) CPUs: each lowered to nice 10, SCHED_BATCH"
else
	not_ok "hogs restrained" "$(for p in "${hogs[@]}"; do thread_prio "$p"; done); $(ctl status)"
fi

# explains PID TEXT: explain PID says TEXT (each hog qualifies on its
# own time: waited for).
explains() { ctl explain "$1" | grep -qF "$2"; }
lists() { ctl status --json | grep -qF "{\"pid\":$1,"; }
if wait_until 5 lists "${hogs[0]}"; then
	ok "status --json lists the restrained hogs"
else
	not_ok "status --json lists the restrained" "$(ctl status --json)"
fi
if wait_until 5 explains "${hogs[0]}" "% of the CPUs, "; then
	ok "explain says a hog is restrained, and by what share"
else
	not_ok "explain says restrained" "$(ctl explain "${hogs[0]}")"
fi

# Root's hog and an exempt name's come once those are held: six hogs at
# nice 0 on two CPUs would each use under the default 15 %.
hog 0
root_hog=$!
hog "$USER_ID" "$TMP/bin/pipewire"
exempt_hog=$!
sleep 2
if untouched "$root_hog" && untouched "$exempt_hog"; then
	ok "root's hog and an exempt name's are left as they were"
else
	not_ok "root's and the exempt hog untouched" "$(thread_prio "$root_hog"); $(thread_prio "$exempt_hog")"
fi
if wait_until 10 explains "$root_hog" "not restrained: a process of root"; then
	ok "explain says why root's hog is not restrained"
else
	not_ok "explain of root's hog" "$(ctl explain "$root_hog")"
fi
if wait_until 10 explains "$exempt_hog" "exempt by name"; then
	ok "explain says why the exempt hog is not restrained"
else
	not_ok "explain of the exempt hog" "$(ctl explain "$exempt_hog")"
fi

# The rules' word: restrain = false, and settings of a rule's own.
{
	kill -KILL "$root_hog" "$exempt_hog"
	wait "$root_hog" "$exempt_hog"
} 2>/dev/null
hog "$USER_ID" "$TMP/bin/keepme"
kept=$!
hog "$USER_ID" "$TMP/bin/harder"
harder=$!
if wait_until 10 all_threads "$harder" 19 5 1; then
	ok "a rule's restrain = { nice = 19; policy = \"idle\"; } is what its hog gets"
else
	not_ok "a rule's own restrained settings" "$(thread_prio "$harder"); $(ctl explain "$harder")"
fi
if wait_until 10 explains "$kept" "rule 'keepme' says restrain = false" &&
	untouched "$kept"; then
	ok "a rule's restrain = false leaves its hog alone, and explain says so"
else
	not_ok "restrain = false" "$(thread_prio "$kept"); $(ctl explain "$kept")"
fi
{
	kill -KILL "$kept" "$harder"
	wait "$kept" "$harder"
} 2>/dev/null

# as_user UID REQUEST: the request from UID, a member of socket_group.
as_user() {
	run sh -c "cd '$TMP' && exec setpriv --reuid=$1 --regid=nogroup --clear-groups ./peer ctl.sock '$2'"
}

# Exempt: another user may not, the hog's own user may; then paused and
# resumed, by root. (A restrained hog that starved while the rule's
# hogs ran was released as calm: it is restrained again first.)
wait_until 10 restrained "${hogs[3]}"
as_user 4243 "restraint-exempt ${hogs[3]}"
if [ "$status" -eq 1 ] && expect_contains "another's exemption" "$err" \
	"permission denied: process ${hogs[3]} is not yours" &&
	restrained "${hogs[3]}"; then
	ok "restraint exempt of another user's process: refused, nothing changed"
else
	not_ok "another user's exemption refused" "status $status: $out $err; $(thread_prio "${hogs[3]}")"
fi
as_user "$USER_ID" "restraint-exempt ${hogs[3]}"
if [ "$status" -eq 0 ] && untouched "${hogs[3]}"; then
	ok "restraint exempt by the process's own user: given back at once"
else
	not_ok "own exemption" "status $status: $out $err; $(thread_prio "${hogs[3]}")"
fi
if explains "${hogs[3]}" "exempt by cpupolicyctl"; then
	ok "explain says the exempt process is exempt"
else
	not_ok "explain of the exempt" "$(ctl explain "${hogs[3]}")"
fi
run ctl restraint pause
pause_status=$status
every_hog_untouched() {
	local p
	for p in "${hogs[@]}"; do
		untouched "$p" || return 1
	done
}
if [ "$pause_status" -eq 0 ] && every_hog_untouched; then
	ok "restraint pause gives every restrained hog back"
else
	not_ok "pause" "status $pause_status; $(for p in "${hogs[@]}"; do thread_prio "$p"; done)"
fi
run ctl restraint resume
if [ "$status" -eq 0 ] && wait_until 10 restrained "${hogs[1]}" &&
	untouched "${hogs[3]}"; then
	ok "restraint resume: hogs restrained again, the exempt one still not"
else
	not_ok "resume" "status $status; $(for p in "${hogs[@]}"; do thread_prio "$p"; done)"
fi

# The group the hogs are weighed in. The test's hogs share its session,
# and the test is not restrained: their autogroup is left as it is. A hog
# in a session of its own has its autogroup lowered with it (its nice
# would count only against itself), and given back at its release; so
# does a hog in a cgroup of its own, by the cgroup's weight.
autogroup_nice() { sed -n 's/.* nice //p' "/proc/$1/autogroup" 2>/dev/null; }
autogroup_is() { [ "$(autogroup_nice "$1")" = "$2" ]; }
# autogroup_left PID: its autogroup at nice 0, or it is in the root's
# (sessions never made by setsid, as a container's: the file is empty).
autogroup_left() {
	[ -d "/proc/$1" ] && case $(autogroup_nice "$1") in "" | 0) ;; *) false ;; esac
}
# solo_hog: a hog of the user in a session of its own; its pid in $!.
solo_hog() {
	start setsid setpriv --reuid "$USER_ID" --regid "$USER_ID" --clear-groups \
		"$TMP/bin/hog" -w -20 -T 600000
}
have_autogroup=
[ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)" = 1 ] &&
	grep -Eq '^[0-9]+:(cpu,cpuacct|cpu|):/$' /proc/self/cgroup &&
	have_autogroup=1
if [ -z "$have_autogroup" ]; then
	skip "a session's autogroup lowered with its hogs" "autogroup is off here, or the test runs in a cpu cgroup"
	skip "the autogroup given back at the release" "autogroup is off here, or the test runs in a cpu cgroup"
else
	solo_hog
	solo=$!
	if wait_until 10 restrained "$solo" && wait_until 5 autogroup_is "$solo" 10 &&
		autogroup_left "${hogs[1]}" &&
		ctl status --json | grep -qF "\"group\":\"$(cut -d' ' -f1 "/proc/$solo/autogroup")\",\"group_kind\":\"autogroup\""; then
		ok "a hog alone in its session: its autogroup lowered to nice 10 with it, and status --json says so; the test's session's left at 0"
	else
		not_ok "autogroup lowered" "solo $(autogroup_nice "$solo"), shared $(autogroup_nice "${hogs[1]}"); $(thread_prio "$solo"); $(grep -i autogroup "$DAEMON_LOG" | tail -3)"
	fi
	# At once, or at the next pass where Linux took an autogroup write
	# in the last 100 ms.
	ctl restraint exempt "$solo" >/dev/null
	if untouched "$solo" && wait_until 2 autogroup_is "$solo" 0; then
		ok "released (exempt): the autogroup back at nice 0 with the hog"
	else
		not_ok "autogroup given back" "$(autogroup_nice "$solo"); $(thread_prio "$solo"); $(grep -i autogroup "$DAEMON_LOG" | tail -3)"
	fi
	{
		kill -KILL "$solo"
		wait "$solo"
	} 2>/dev/null
fi

# cgroup_dir: a cpu cgroup of the test's own (v1 cpu.shares, or v2
# cpu.weight where the root gives its children the cpu controller).
cgroup_dir= cgroup_file= cgroup_lowered=
if [ -w /sys/fs/cgroup/cpu/cpu.shares ] || [ -w /sys/fs/cgroup/cpu,cpuacct/cpu.shares ]; then
	cgroup_dir=$(ls -d /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpu 2>/dev/null | head -n 1)/cpupolicy-test.$$
	cgroup_file=cpu.shares cgroup_lowered=110
elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	cgroup_dir=/sys/fs/cgroup/cpupolicy-test.$$
	cgroup_file=cpu.weight cgroup_lowered=11
fi
if [ -n "$cgroup_dir" ] && mkdir "$cgroup_dir" 2>/dev/null; then
	at_exit "rmdir '$cgroup_dir'"
	cgroup_default=$(cat "$cgroup_dir/$cgroup_file")
	cgroup_is() { [ "$(cat "$cgroup_dir/$cgroup_file")" = "$1" ]; }
	hog
	boxed=$!
	echo "$boxed" >"$cgroup_dir/cgroup.procs"
	if wait_until 10 restrained "$boxed" && wait_until 5 cgroup_is "$cgroup_lowered"; then
		ok "a hog in a cgroup of its own: $cgroup_file lowered from $cgroup_default to $cgroup_lowered"
	else
		not_ok "cgroup lowered" "$cgroup_file $(cat "$cgroup_dir/$cgroup_file"); $(thread_prio "$boxed")"
	fi
	ctl restraint exempt "$boxed" >/dev/null
	if cgroup_is "$cgroup_default"; then
		ok "released: $cgroup_file back at $cgroup_default"
	else
		not_ok "cgroup given back" "$(cat "$cgroup_dir/$cgroup_file")"
	fi
	{
		kill -KILL "$boxed"
		wait_exit "$boxed" 5
	} 2>/dev/null
else
	skip "a cgroup of its own lowered with its hog" "no cpu cgroup can be made here"
	skip "the cgroup given back at the release" "no cpu cgroup can be made here"
fi

# The foreground, declared over D-Bus as the desktops' extensions do:
# by the process's own user it is given back and left alone; by another
# user it is refused.
# declare UID PID: SetForegroundProcess(PID) from UID.
declare_fg() {
	run setpriv --reuid="$1" --regid="$1" --clear-groups \
		env DBUS_SYSTEM_BUS_ADDRESS="$BUS" dbus-send --system \
		--print-reply --dest=com.system76.Scheduler \
		/com/system76/Scheduler \
		com.system76.Scheduler.SetForegroundProcess "uint32:$2"
}
if [ -z "$have_bus" ]; then
	skip "the foreground declared over D-Bus" "no dbus-daemon, dbus-send or useradd here, uid $USER_ID is taken, or it cannot run dbus-send"
	skip "another user's foreground refused" "no dbus-daemon, dbus-send or useradd here, uid $USER_ID is taken, or it cannot run dbus-send"
	skip "a rule's foreground settings" "no dbus-daemon, dbus-send or useradd here, uid $USER_ID is taken, or it cannot run dbus-send"
	skip "foreground settings given back" "no dbus-daemon, dbus-send or useradd here, uid $USER_ID is taken, or it cannot run dbus-send"
else
	hog
	fg=$!
	wait_until 10 restrained "$fg"
	declare_fg "$USER_ID" "$fg"
	if [ "$status" -eq 0 ] && untouched "$fg" &&
		wait_until 5 explains "$fg" "in the foreground (declared over D-Bus)"; then
		ok "SetForegroundProcess by its own user: the hog is given back, and explain says foreground"
	else
		not_ok "foreground over D-Bus" "status $status: $out $err; $(thread_prio "$fg"); $(ctl explain "$fg" | grep restraint)"
	fi
	declare_fg 4243 "${hogs[1]}"
	if [ "$status" -ne 0 ] && expect_contains "another's foreground" "$err" \
		"process ${hogs[1]} is not yours" && restrained "${hogs[1]}"; then
		ok "SetForegroundProcess of another user's process: refused, nothing changed"
	else
		not_ok "another user's foreground refused" "status $status: $out $err; $(thread_prio "${hogs[1]}")"
	fi
	# A rule's foreground = { nice = -5; }: its process gets it while it
	# is the foreground, and back what it had when another one is.
	hog "$USER_ID" "$TMP/bin/focus"
	focus=$!
	wait_until 10 restrained "$focus"
	declare_fg "$USER_ID" "$focus"
	if [ "$status" -eq 0 ] && all_threads "$focus" -5 0 1 &&
		grep -q "process $focus gets rule 'focus''s foreground settings" "$DAEMON_LOG"; then
		ok "a rule's foreground = { nice = -5; }: its hog declared foreground is given back its restraint, then nice -5"
	else
		not_ok "a rule's foreground settings" "status $status: $out $err; $(thread_prio "$focus"); $(tail -3 "$DAEMON_LOG")"
	fi
	declare_fg "$USER_ID" "$fg"
	# Given back nice 0; a hog again, it may be restrained at once.
	if [ "$status" -eq 0 ] && { untouched "$focus" || restrained "$focus"; }; then
		ok "another process of its user's declared foreground: the rule's foreground settings given back"
	else
		not_ok "foreground settings given back" "status $status: $out $err; $(thread_prio "$focus")"
	fi
	{
		kill -KILL "$focus"
		wait "$focus"
	} 2>/dev/null
	{
		kill -KILL "$fg"
		wait "$fg"
	} 2>/dev/null
fi

# The foreground from the per-user agent: it reads the X display's active
# window (an Xvfb of the test's own, a window made active as a window
# manager does it) and tells the daemon the real pid of the client that
# made it, as that user: a foreground hog is given back; a window that
# names another process in _NET_WM_PID is not believed; another user's
# window is refused by the daemon.
XACTIVE="$BUILD/helpers/xactive"
have_x=
if command -v Xvfb >/dev/null && [ -x "$XACTIVE" ]; then
	start Xvfb -displayfd 3 -ac -nolisten tcp 3>"$TMP/display" 2>/dev/null
	if wait_until 10 test -s "$TMP/display" &&
		DISPLAY=":$(cat "$TMP/display")" setpriv --reuid="$USER_ID" \
			--regid="$USER_ID" --clear-groups "$XACTIVE" 0 >/dev/null 2>&1; then
		have_x=1
		export DISPLAY=":$(cat "$TMP/display")"
	fi
fi
# window UID [ARGS]: an active window of UID's; its pid in $!, up when
# it said so.
window() {
	local uid=$1
	shift
	rm -f "$TMP/window"
	setpriv --reuid="$uid" --regid="$uid" --clear-groups \
		"$XACTIVE" "$@" 600 >"$TMP/window" &
	track $!
	wait_until 5 test -s "$TMP/window"
}
agent() {
	run sh -c "cd '$TMP' && exec setpriv --reuid=$1 --regid=nogroup --clear-groups '$CTL' -S '$SOCK' agent --once --verbose"
}
if [ -z "$have_x" ]; then
	for what in "the agent's foreground given back" "a window's lying _NET_WM_PID not believed" "another user's window refused"; do
		skip "$what" "no Xvfb here, or uid $USER_ID cannot run an X client"
	done
else
	window "$USER_ID" -s
	xfg=$!
	wait_until 10 restrained "$xfg"
	agent "$USER_ID"
	if [ "$status" -eq 0 ] && untouched "$xfg" &&
		wait_until 5 explains "$xfg" "in the foreground (declared over cpupolicyctl agent)"; then
		ok "cpupolicyctl agent: the active window's hog is given back, and explain says who declared it"
	else
		not_ok "agent's foreground" "status $status: $out $err; $(thread_prio "$xfg"); $(ctl explain "$xfg" | grep restraint)"
	fi
	kill -KILL "$xfg" 2>/dev/null
	wait_until 10 restrained "${hogs[2]}"
	window "$USER_ID" -p "${hogs[2]}"
	liar=$!
	agent "$USER_ID"
	if [ "$status" -eq 0 ] && expect_contains "the real client" "$out" "$liar is in the foreground" &&
		restrained "${hogs[2]}"; then
		ok "a window whose _NET_WM_PID names a hog: the agent tells the X client's real pid, the hog stays restrained"
	else
		not_ok "lying _NET_WM_PID" "status $status: $out $err; $(thread_prio "${hogs[2]}")"
	fi
	kill -KILL "$liar" 2>/dev/null
	window 4243
	other=$!
	agent "$USER_ID"
	if [ "$status" -eq 1 ] && expect_contains "another's window" "$err" "process $other is not yours"; then
		ok "another user's window: the daemon refuses the agent's word"
	else
		not_ok "another user's window" "status $status: $out $err"
	fi
	kill -KILL "$other" 2>/dev/null
fi

# GNOME's focus: Mutter marks the focused app's cgroup (its scope)
# user.xdg.inactive-since = -1, and a time once it lost the focus.
# Believed on a cgroup of the hog's own user, which only it (and root)
# may mark; not on another user's.
v2_root=
for r in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	[ -f "$r/cgroup.controllers" ] && v2_root=$r && break
done
app=$v2_root/cpupolicy-test-app.$$.scope
# mark VALUE: VALUE on the app's cgroup, as its owner could write it
# (the daemon believes the owner's cgroup, whoever wrote the mark).
mark() { setfattr -n user.xdg.inactive-since -v "$1" "$app"; }
if [ -z "$v2_root" ] || ! command -v setfattr >/dev/null || ! mkdir "$app" 2>/dev/null; then
	skip "GNOME's focus mark exempts" "no cgroup v2 hierarchy the test may write, or no setfattr"
	skip "GNOME's focus mark lost and found" "no cgroup v2 hierarchy the test may write, or no setfattr"
	skip "another user's focus mark" "no cgroup v2 hierarchy the test may write, or no setfattr"
else
	chown "$USER_ID" "$app"
	hog
	focused=$!
	at_exit "kill -KILL $focused 2>/dev/null; wait_exit $focused 5; rmdir '$app'"
	echo "$focused" >"$app/cgroup.procs"
	if mark -1 && wait_until 10 explains "$focused" "GNOME's user.xdg.inactive-since" &&
		untouched "$focused"; then
		ok "a hog in the app cgroup GNOME marks focused (user.xdg.inactive-since -1): not restrained, and explain says why"
	else
		not_ok "GNOME's focus mark" "$(getfattr -d "$app" 2>&1); $(thread_prio "$focused"); $(ctl explain "$focused")"
	fi
	mark 1764900000000000
	if wait_until 10 restrained "$focused" && mark -1 &&
		wait_until 5 untouched "$focused"; then
		ok "the app loses the focus: its hog restrained; the focus back: given back at the next pass"
	else
		not_ok "GNOME's focus lost and found" "$(thread_prio "$focused"); $(ctl explain "$focused")"
	fi
	mark 1764900000000000
	wait_until 10 restrained "$focused"
	chown 4243 "$app"
	mark -1
	sleep 1.5
	if restrained "$focused" && ! explains "$focused" "GNOME"; then
		ok "another user's cgroup marked focused: the hog in it stays restrained"
	else
		not_ok "another user's focus mark" "$(thread_prio "$focused"); $(ctl explain "$focused")"
	fi
	{
		kill -KILL "$focused"
		wait "$focused"
	} 2>/dev/null
fi

# A hog that stops using the CPU is calm: given back after the hold.
kill -STOP "${hogs[0]}"
if wait_until 10 untouched "${hogs[0]}"; then
	ok "a hog calm for calm_ms, held hold_ms: nice 0 and SCHED_OTHER again"
else
	not_ok "calm hog released" "$(thread_prio "${hogs[0]}"); $(ctl status)"
fi
kill -CONT "${hogs[0]}"

# A stop gives back what it holds.
every_other_restrained() {
	local p
	for p in "${hogs[@]:1:2}"; do
		restrained "$p" || return 1
	done
}
wait_until 10 every_other_restrained
stop_daemon
every_other_untouched() {
	local p
	for p in "${hogs[@]:1:2}"; do
		untouched "$p" || return 1
	done
}
if every_other_untouched; then
	ok "the daemon's stop gives every restrained hog back what it had"
else
	not_ok "released at stop" "$(for p in "${hogs[@]}"; do thread_prio "$p"; done)"
fi

# A daemon killed while it holds restraints: its next start gives them
# back, with restraint off by then (else it would restrain them again).
start_daemon || {
	finish
	exit 1
}
# With a session's autogroup among what it held, where there is one.
crash_solo=
if [ -n "$have_autogroup" ]; then
	solo_hog
	crash_solo=$!
fi
solo_lowered() { [ -z "$crash_solo" ] || autogroup_is "$crash_solo" 10; }
solo_given_back() { [ -z "$crash_solo" ] || autogroup_is "$crash_solo" 0; }
if wait_until 10 every_other_restrained && wait_until 10 solo_lowered; then
	kill_daemon
	sed -i 's/^enabled = true/enabled = false/' "$CONF"
	start_daemon
	if every_other_untouched && solo_given_back; then
		ok "after a crash, the next start gives back what the killed daemon held${crash_solo:+, an autogroup too}"
	else
		not_ok "restraints of a killed daemon given back" "$(for p in "${hogs[@]}"; do thread_prio "$p"; done); autogroup ${crash_solo:+$(autogroup_nice "$crash_solo")}; $(tail -5 "$DAEMON_LOG")"
	fi
	stop_daemon
else
	not_ok "restrained again for the crash case" "$(ctl status)"
fi
# The hogs end here, quietly, before the test's accounts go.
{
	kill -KILL "${lib_tracked[@]}"
	for p in "${lib_tracked[@]}"; do
		wait_exit "$p" 5
	done
} 2>/dev/null
finish
