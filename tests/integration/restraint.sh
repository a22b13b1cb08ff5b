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
for name in pipewire keepme harder; do
	cp /bin/dash "$TMP/bin/$name"
done
chmod 755 "$TMP" "$TMP/bin"
cat >"$RULES/10-restrain.rules" <<EOF
rules = (
  { name = "keepme"; match = { exe = "$TMP/bin/keepme"; }; restrain = false; },
  { name = "harder"; match = { exe = "$TMP/bin/harder"; };
    restrain = { nice = 19; policy = "idle"; }; }
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
	local uid=${1:-$USER_ID} sh=${2:-/bin/dash}
	start setpriv --reuid "$uid" --regid "$uid" --clear-groups \
		"$sh" -c 'while :; do :; done'
}

# restrained PID: nice 10 and SCHED_BATCH (3) on its thread.
restrained() { all_threads "$1" 10 3 1; }
untouched() { all_threads "$1" 0 0 1; }

start_daemon || {
	finish
	exit 1
}

hogs=()
for i in 1 2 3 4; do
	hog
	hogs+=($!)
done
hog 0
root_hog=$!
hog "$USER_ID" "$TMP/bin/pipewire"
exempt_hog=$!

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

run ctl status --json
expect_contains "status --json lists the restrained" "$out" \
	"\"pid\":${hogs[0]}," && ok "status --json lists the restrained hogs"
run ctl explain "${hogs[0]}"
expect_contains "explain says restrained" "$out" "restrained for" &&
	ok "explain says a hog is restrained, and by what share"

if untouched "$root_hog" && untouched "$exempt_hog"; then
	ok "root's hog and an exempt name's are left as they were"
else
	not_ok "root's and the exempt hog untouched" "$(thread_prio "$root_hog"); $(thread_prio "$exempt_hog")"
fi
run ctl explain "$root_hog"
expect_contains "explain of root's hog" "$out" \
	"not restrained: a process of root" &&
	ok "explain says why root's hog is not restrained"
run ctl explain "$exempt_hog"
expect_contains "explain of the exempt hog" "$out" "exempt by name" &&
	ok "explain says why the exempt hog is not restrained"

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
# It qualifies on its own time: explain says so once it has.
kept_explained() { ctl explain "$kept" | grep -q "rule 'keepme' says restrain = false"; }
if wait_until 10 kept_explained && untouched "$kept"; then
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
run ctl explain "${hogs[3]}"
expect_contains "explain of the exempt" "$out" "exempt by cpupolicyctl" &&
	ok "explain says the exempt process is exempt"
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
if wait_until 10 every_other_restrained; then
	kill_daemon
	sed -i 's/^enabled = true/enabled = false/' "$CONF"
	start_daemon
	if every_other_untouched; then
		ok "after a crash, the next start gives back what the killed daemon held"
	else
		not_ok "restraints of a killed daemon given back" "$(for p in "${hogs[@]}"; do thread_prio "$p"; done); $(tail -5 "$DAEMON_LOG")"
	fi
	stop_daemon
else
	not_ok "restrained again for the crash case" "$(ctl status)"
fi
finish
