#!/bin/bash
# Nothing the tests and the build wait on waits for good: start_daemon
# and wait_until on a daemon that accepts and never answers end (each
# cpupolicyctl gives up at its deadline), and make's apt-get, its fetch of
# the Windows build's source packages and its build of one of them end at
# STEP_LIMIT when the mirror or the configure script hangs. Each is run
# under an outer limit: without its own deadline it would reach that one.
. "$(dirname "$0")/lib.sh"

MUTE="$BUILD/helpers/mute"
[ -x "$MUTE" ] || skip_all "$MUTE is not built (make $MUTE)"

# in_child SECONDS SCRIPT ARGS...: SCRIPT in a shell of its own that
# sourced lib.sh, under an outer limit; the result as run sets it.
in_child() {
	local secs=$1
	shift
	run timeout -k 5 "$secs" bash -c ". \"\$SRCDIR/tests/integration/lib.sh\"; $1" \
		_ "${@:2}"
}
export SRCDIR BUILD

# In the daemon's place: a server on the config's socket that accepts
# every connection and never answers.
cat >"$TMP/mute-daemon" <<EOF
#!/bin/sh
exec "$MUTE" "\$(sed -n 's/^socket = //p' "\$2")" 60
EOF
chmod 755 "$TMP/mute-daemon"
in_child 60 'DAEMON=$1; write_conf; start_daemon' "$TMP/mute-daemon"
if [ "$status" -eq 1 ]; then
	ok "start_daemon on a daemon that never answers gives up (its wait on cpupolicyctl status ends)"
else
	not_ok "start_daemon on a daemon that never answers gives up" \
		"status $status (124: still waiting after 60 s); $out $err"
fi

start "$MUTE" "$SOCK" 60 >"$TMP/mute.out"
wait_until 10 grep -q '^listening' "$TMP/mute.out"
in_child 60 'SOCK=$1; wait_until 2 ctl status' "$SOCK"
if [ "$status" -eq 1 ]; then
	ok "wait_until 2 ctl status on a server that never answers ends, false"
else
	not_ok "wait_until 2 ctl status on a server that never answers ends" \
		"status $status (124: still waiting after 60 s); $out $err"
fi

# make's steps, with an apt-get and a configure script that hang. Make
# is started afresh: nothing of a make that runs this test.
mkdir -p "$TMP/bin"
printf '#!/bin/sh\nexec sleep 600\n' >"$TMP/bin/apt-get"
chmod 755 "$TMP/bin/apt-get"
step() { # TARGET VAR=VALUE...: make TARGET with the hung apt-get, STEP_LIMIT=2
	local target=$1
	shift
	run timeout -k 5 60 env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		PATH="$TMP/bin:$PATH" make --no-print-directory -C "$SRCDIR" \
		STEP_LIMIT=2 "$@" "$target"
}
# expect_step NAME WHAT: make failed, saying that WHAT did not end.
expect_step() {
	if [ "$status" -ne 0 ] && [ "$status" -ne 124 ] &&
		expect_contains "$1" "$err" "$2: no end within 2 s (STEP_LIMIT)"; then
		ok "$1"
	elif [ "$status" -eq 0 ] || [ "$status" -eq 124 ]; then
		not_ok "$1" "make's status $status (124: still waiting after 60 s); $err"
	fi
}

step windows-packages WIN_DEB_PACKAGES=cpupolicy-test-no-such-package
expect_step "make: an apt-get update that hangs fails the install at STEP_LIMIT" \
	"apt-get update"

WB="$TMP/wb"
src=libconfig-1.5-0.4
wb_vars=(WIN_BUILD="$WB" WIN_PREFIX="$WB/deps" WIN_DEB_PACKAGES=)
if [ -r /usr/share/keyrings/debian-archive-keyring.gpg ]; then
	step "$WB/stamp/src-$src" "${wb_vars[@]}"
	expect_step "make: a fetch of the source packages that hangs fails at STEP_LIMIT" \
		fetch-sources
else
	skip "make: a fetch that hangs fails at STEP_LIMIT" \
		"no debian-archive-keyring: the fetch stops before it asks the mirror"
fi

mkdir -p "$WB/stamp" "$WB/src/$src"
printf '#!/bin/sh\nexec sleep 600\n' >"$WB/src/$src/configure"
chmod 755 "$WB/src/$src/configure"
touch "$WB/stamp/src-$src"
step "$WB/stamp/$src" "${wb_vars[@]}"
expect_step "make: a library's configure script that hangs fails its build at STEP_LIMIT" \
	"build-dep libconfig"
[ ! -e "$WB/stamp/$src" ]
result $? "the library that did not build has no stamp"

finish
