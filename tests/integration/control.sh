#!/bin/bash
# The control socket under pressure, as root: cpupolicyctl talks only to a
# server run by root, and never waits on one for good (one that accepts
# and never answers, one that never accepts); members of socket_group who
# hold every connection they can get do not keep root from an answer
# within a second, nor one member another.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the control tests need root"
command -v setpriv >/dev/null || skip_all "no setpriv here"

# The other users run static helpers copied into the test's directory and
# reach sockets by relative paths: they need nothing else of the machine.
chmod 711 "$TMP"
cp "$BUILD/helpers/peer" "$BUILD/helpers/mute" "$TMP/"
chmod 755 "$TMP/peer" "$TMP/mute"
mkdir "$TMP/nobody"
chown nobody "$TMP/nobody"

# mute_start OUT [-n] SOCKET: the never-answering server (as whoever runs
# it), until TERM; once it listens. Its pid in $mute_pid.
mute_start() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	mute_pid=$!
	track "$mute_pid"
	wait_until 10 grep -q '^listening' "$out"
}
mute_stop() { # its OUT says "received N" once it ended; $status stays
	local kept=$status
	kill -TERM "$mute_pid" 2>/dev/null
	wait_exit "$mute_pid" 10
	status=$kept
}

# A program of another user in the socket's place: nothing is sent to it.
mute_as_nobody() {
	cd "$TMP/nobody" &&
		exec setpriv --reuid=nobody --regid=nogroup --clear-groups \
			../mute fake.sock 60
}
mute_start "$TMP/nobody.out" mute_as_nobody
run timeout 10 "$CTL" -S "$TMP/nobody/fake.sock" reload
mute_stop
if expect_status "a server of uid nobody: refused" 2 &&
	expect_contains "a server of uid nobody: why" "$err" \
		"refusing to talk to $TMP/nobody/fake.sock: it is served by uid $(id -u nobody) (pid " &&
	expect_contains "a server of uid nobody: told nothing" \
		"$(cat "$TMP/nobody.out")" "received 0"; then
	ok "cpupolicyctl refuses a socket served by another user than root, and sends it nothing"
fi

# A server that accepts and never answers: cpupolicyctl gives up at its
# deadline, -t's or the default 10 s, and says so.
mute_start "$TMP/mute.out" "$TMP/mute" "$TMP/mute.sock" 60
run timeout 10 "$CTL" -t 1 -S "$TMP/mute.sock" status
expect_status "-t 1, no answer" 2 &&
	expect_contains "-t 1, no answer: why" "$err" \
		"no answer from cpupolicyd at $TMP/mute.sock within 1 s" &&
	ok "a server that accepts and never answers: cpupolicyctl -t 1 gives up and says so"
run timeout 30 "$CTL" -S "$TMP/mute.sock" status
expect_status "no answer, default deadline" 2 &&
	expect_contains "no answer, default deadline: why" "$err" \
		"no answer from cpupolicyd at $TMP/mute.sock within 10 s" &&
	ok "without -t it gives up after 10 s"
mute_stop

# A server that never accepts: the connect waits on its full backlog,
# until the deadline.
mute_start "$TMP/full.out" "$TMP/mute" -n "$TMP/full.sock" 60
run timeout 10 "$CTL" -t 1 -S "$TMP/full.sock" status
expect_status "-t 1, backlog full" 2 &&
	expect_contains "-t 1, backlog full: why" "$err" \
		"no answer from cpupolicyd at $TMP/full.sock within 1 s" &&
	ok "a server that never accepts: the connect ends at the deadline too"
mute_stop

run "$CTL" -t 0 status
expect_status "-t 0" 2 &&
	expect_contains "-t 0: why" "$err" "-t: '0' is not a number of seconds from 0.001 to 86400" &&
	ok "-t 0 is a usage error that says what -t takes"

# The daemon, with a group whose members may read status.
write_conf socket_group=nogroup log_level=debug
start_daemon || {
	finish
	exit 1
}

# hold UID N: UID (in socket_group) holds N connections that never send a
# word, until the round ends (end_round); "held N", then "open K" (those
# the daemon kept), in $TMP/hold.UID.
holders=()
start_round() {
	rm -f "$TMP/go" "$TMP"/hold.*
	mkfifo -m 644 "$TMP/go"
	exec 9<>"$TMP/go"
	holders=()
}
hold() {
	(cd "$TMP" && exec setpriv --reuid="$1" --regid=nogroup \
		--clear-groups ./peer ctl.sock --hold "$2") \
		<"$TMP/go" >"$TMP/hold.$1" 2>&1 9>&- &
	track $!
	holders+=("$1:$!")
}
all_held() {
	local h
	for h in "${holders[@]}"; do
		grep -qs '^held' "$TMP/hold.${h%%:*}" || return 1
	done
}
# end_round: the holders' standard input ends; each says how many of its
# connections are still open. Sets $opens ("UID:K ...") and $open_total.
end_round() {
	local h k
	exec 9>&-
	opens=
	open_total=0
	for h in "${holders[@]}"; do
		wait_exit "${h#*:}" 10
		k=$(sed -n 's/^open //p' "$TMP/hold.${h%%:*}")
		opens+="${h%%:*}:${k:-?} "
		open_total=$((open_total + ${k:-99}))
	done
}
# most_open: the largest count of one holder.
most_open() { tr ' ' '\n' <<<"$opens" | cut -s -d: -f2 | sort -n | tail -n 1; }

# One member takes as many connections as it can get: root is answered
# at once all the same, and so is another member.
mark=$(log_mark)
start_round
hold 60001 40
if ! wait_until 10 all_held; then
	not_ok "a member holding 40 connections" "$(cat "$TMP"/hold.*)"
fi
run timeout 1 "$CTL" -S "$SOCK" status
expect_status "root's status while one member holds its every connection" 0 &&
	expect_contains "root's status" "$out" "rules:" &&
	ok "root's status is answered within a second while a member of socket_group holds 40 connections"
run timeout 1 "$CTL" -S "$SOCK" reload
expect_status "root's reload while one member holds its every connection" 0 &&
	expect_contains "root's reload" "$out" "reloaded:" &&
	ok "so is root's reload"
run sh -c "cd '$TMP' && exec timeout 1 setpriv --reuid=60002 --regid=nogroup --clear-groups ./peer ctl.sock status"
expect_status "another member's status" 0 &&
	expect_contains "another member's status" "$out" "rules:" &&
	ok "another member's status is answered too: one user holds 4 connections at most"
end_round
if [ "$(most_open)" -le 4 ] &&
	log_since "$mark" | grep -q "control: the oldest connection of uid 60001 (pid [0-9]*) closed: one user may hold 4 at once"; then
	ok "the member kept 4 of its 40 connections at most (open: $opens), and the log says why the others were closed"
else
	not_ok "one member's share" "open: $opens; log: $(log_since "$mark" | grep control:)"
fi

# Five members, each as many as it can get: root is still answered, the
# members hold 12 at most together.
start_round
for u in 60001 60002 60003 60004 60005; do
	hold "$u" 16
done
if ! wait_until 10 all_held; then
	not_ok "five members holding connections" "$(cat "$TMP"/hold.*)"
fi
run timeout 1 "$CTL" -S "$SOCK" status
expect_status "root's status with every slot held" 0 &&
	expect_contains "root's status with every slot held" "$out" "rules:" &&
	ok "root's status is answered within a second while five members hold every slot they can get"
run timeout 1 "$CTL" -S "$SOCK" reload
expect_status "root's reload with every slot held" 0 &&
	ok "so is root's reload"
end_round
if [ "$open_total" -le 12 ] && [ "$(most_open)" -le 4 ]; then
	ok "the members kept 12 connections at most together, 4 each (open: $opens)"
else
	not_ok "the members' shares" "open: $opens"
fi

# Root's own idle clients in every slot: the longest-connected makes room.
mark=$(log_mark)
start_round
hold 0 20
if ! wait_until 10 all_held; then
	not_ok "root holding connections" "$(cat "$TMP"/hold.*)"
fi
run timeout 1 "$CTL" -S "$SOCK" status
expect_status "root's status with its own clients in every slot" 0 &&
	ok "root's status is answered while root's own idle clients hold every slot"
end_round

# Those clients hung up before they asked anything: their own affair, a
# debug line, not a warning.
hung_up() { log_since "$mark" | grep -q "control: uid 0 (pid [0-9]*) hung up while reading its request"; }
if wait_until 5 hung_up &&
	! log_since "$mark" | grep -q "control: .* dropped: cannot go on"; then
	ok "clients that hung up before their request are a debug line, not a warning"
else
	not_ok "clients that hung up" "$(log_since "$mark" | grep 'control: ')"
fi

stop_daemon
finish
