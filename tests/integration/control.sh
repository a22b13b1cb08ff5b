#!/bin/bash
# The control socket under pressure, as root: cpupolicyctl talks only to a
# server run by root, and never waits on one for good (one that accepts
# and never answers, one that never accepts).
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

finish
