#!/bin/bash
# Exe is a file identity: a process matches an exe rule only when it runs
# the file the rule's path names in the daemon's mount namespace. Another
# file under that name gets nothing: a bind mount in a private mount
# namespace (as root, and as an unprivileged user in a user namespace of
# its own), a container's root (pivot_root, or a chroot into a root moved
# over /), a deleted file of another filesystem; explain says it is
# another file. Each of those has its positive control: the genuine file
# run the same way (the same namespaces, bound or placed where the copy
# would be, as a hard link) gets its rule, from its exec event. A FUSE
# server under that name that stops answering does not stall the daemon.
# The genuine binary matches, run by root or by another user, and so does
# one an upgrade replaced while it ran. A program that only takes the name
# of tuned or power-profiles-daemon does not make the daemon give up its
# power settings.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip_all "needs root (the daemon, mount namespaces)"
fi
STATIC="$BUILD/helpers/worker-static"
for f in "$STATIC" "$BUILD/helpers/fakeexe" "$BUILD/helpers/stallfs"; do
	[ -x "$f" ] || skip_all "$f is not built (make $f)"
done

# The other user reaches nothing but this directory, and only by relative
# paths (the root directory may be 0700, as in some build roots).
chmod 711 "$TMP"
cd "$TMP" || exit 1
cp "$BUILD/helpers/fakeexe" fakeexe
cp "$STATIC" genuine
cp "$STATIC" other
cp "$STATIC" app
mkdir -p "root$TMP" "twinroot$TMP" dir
cp "$STATIC" "root$TMP/genuine"
# The genuine file itself under other names, for the positive controls.
ln genuine twin
ln genuine "twinroot$TMP/genuine"
cp "$STATIC" dir/app
chmod -R a+rX "$TMP"
NOBODY=$(id -u nobody):$(id -g nobody)

gov=$TMP/sys/devices/system/cpu/cpufreq/policy0
mkdir -p "$gov"
echo schedutil >"$gov/scaling_governor"
echo "performance schedutil" >"$gov/scaling_available_governors"
echo balance_power >"$gov/energy_performance_preference"
echo "default performance balance_power" >"$gov/energy_performance_available_preferences"
write_conf
cat >>"$CONF" <<EOF
[paths]
sysfs = $TMP/sys
EOF
cat >"$RULES/10-exe.rules" <<EOF
rules = (
  { name = "genuine"; match = { exe = "$TMP/genuine"; };
    priority = { nice = -5; }; },
  { name = "upgraded"; match = { exe = "$TMP/app"; };
    priority = { nice = -4; }; },
  { name = "hidden"; match = { exe = "$TMP/dir/app"; };
    priority = { nice = -3; }; },
  { name = "holder"; match = { exe = "$TMP/holder"; user = "root"; };
    power = { governor = "performance"; epp = "performance"; }; }
);
EOF
start_daemon || {
	finish
	exit 1
}

exe_is() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$2" ]; }
comm_is() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; }

# settled: the daemon has handled every exec so far. Events come in order:
# once a genuine start after them has its nice value, they were seen.
settled() {
	local marker ok=0
	start ./genuine -s 30
	marker=$!
	wait_until 5 nice_is "$marker" -5 || ok=1
	stop "$marker" 5
	return $ok
}

# impostor PID NAME PATH [COMM [keep]]: the process runs its last program
# (named COMM, default genuine), the daemon has seen its exec, and it did
# not get the rule; what "explain" says of it in $why; stopped unless
# "keep". faked=1 when its exe link says PATH: in a chroot the kernel shows
# the path from the namespace's own root instead, and the name is not
# faked at all (a skip).
impostor() {
	local pid=$1 seen
	shift
	why=
	faked=0
	if ! wait_until 5 comm_is "$pid" "${3:-genuine}"; then
		not_ok "$1" "it does not run: $(readlink "/proc/$pid/exe" 2>&1)"
		return
	fi
	if ! settled; then
		not_ok "$1" "the genuine marker did not get its nice value"
		return
	fi
	seen=$(readlink "/proc/$pid/exe")
	run ctl explain "$pid"
	why=$out
	if ! nice_is "$pid" 0; then
		not_ok "$1" "nice $(nice_of "$pid"); explain: $why"
	elif [ "$seen" != "$2" ]; then
		skip "$1" "its exe is $seen here, not $2 (the tests run in a chroot): the name is not faked"
	else
		faked=1
		ok "$1"
	fi
	[ -n "${4:-}" ] || stop "$pid" 5
}

# explained_other NAME: what explain said of the impostor ($why) is that
# it runs another file than the rule's path names: the file identity
# turned it away, not its path.
explained_other() {
	[ "$faked" = 1 ] || return 0
	expect_contains "$1" "$why" "but the process runs another file than $TMP/genuine" &&
		expect_contains "$1" "$why" "exe        $TMP/genuine (another file than this path names)" &&
		expect_contains "$1" "$why" "rule genuine (" &&
		ok "$1"
}

# genuine_through NAME FAKEEXE-ARGS...: the genuine file run through the
# same path as an impostor gets its rule, from its exec event: a daemon
# that turned away every process in such namespaces, or every process
# whose exe link passes through another mount, fails this.
genuine_through() {
	local name=$1 scans pid
	shift
	scans=$(rescans_now)
	start ./fakeexe "$@"
	pid=$!
	if by_events "$scans" 5 nice_is "$pid" -5 && exe_is "$pid" "$TMP/genuine"; then
		ok "$name"
	else
		not_ok "$name" "nice $(nice_of "$pid"), exe $(readlink "/proc/$pid/exe" 2>&1); rescans since: $rescanned; $(ctl explain "$pid" 2>&1)"
	fi
	stop "$pid" 5
}

# The positive controls: the genuine binary, by root and by another user.
scans=$(rescans_now)
start ./genuine -s 30
pid=$!
if by_events "$scans" 5 nice_is "$pid" -5; then
	ok "the genuine binary gets its rule, from its exec event"
else
	not_ok "the genuine binary gets its rule" "nice $(nice_of "$pid"); rescans since: $rescanned"
fi
run ctl explain "$pid"
expect_contains "explain of the genuine" "$out" "why        exe '$TMP/genuine' matches '$TMP/genuine'" &&
	expect_not_contains "explain of the genuine: no note" "$out" "another file" &&
	ok "explain: the genuine binary matches, with no note on its file"
stop "$pid" 5
scans=$(rescans_now)
start ./fakeexe -u "$NOBODY" ./genuine -s 30
pid=$!
if by_events "$scans" 5 nice_is "$pid" -5 &&
	[ "$(awk '/^Uid:/ { print $3 }' "/proc/$pid/status")" = "${NOBODY%:*}" ]; then
	ok "the genuine binary run by another user gets its rule"
else
	not_ok "another user's genuine binary" "nice $(nice_of "$pid"); rescans since: $rescanned"
fi
stop "$pid" 5

# A private mount namespace needs a root directory that is a mount point,
# which a chroot's is not: there the cases that need one are skipped.
no_ns=
unshare -m --propagation private true 2>/dev/null ||
	no_ns="a private mount namespace cannot be made here (the root directory is not a mount point: the tests run in a chroot)"

# Root in a private mount namespace: another file bind-mounted over the
# rule's path. /proc/PID/exe says "$TMP/genuine".
if [ -n "$no_ns" ]; then
	skip "a bind mount over the path in another mount namespace (root)" "$no_ns"
else
	genuine_through "control: the genuine file bind-mounted over its own path in another mount namespace (root) gets its rule" \
		-b twin:genuine ./genuine -s 30
	start ./fakeexe -b other:genuine ./genuine -s 30
	pid=$!
	impostor "$pid" "a bind mount over the path in another mount namespace (root) gets nothing" "$TMP/genuine" genuine keep
	explained_other "explain: the exe is another file than its path names (a near miss)"
	run ctl explain --json "$pid"
	[ "$faked" = 1 ] && expect_contains "explain --json" "$out" '"exe_file":"other"' &&
		ok "explain --json: exe_file other"
	stop "$pid" 5
fi

# The same as an unprivileged user, with a user namespace of its own (what
# "unshare -rm" gives), where the kernel allows it.
run ./fakeexe -u "$NOBODY" -U ./genuine -s 0
if [ "$status" -eq 77 ]; then
	why="the kernel refuses this user a user namespace here (disabled, or the tests run in a chroot): $err"
	skip "an unprivileged user's own namespaces" "$why"
elif [ "$status" -ne 0 ]; then
	not_ok "an unprivileged user namespace" "exit $status: $err"
else
	genuine_through "control: the genuine binary run by an unprivileged user in its own user and mount namespaces gets its rule" \
		-u "$NOBODY" -U ./genuine -s 30
	genuine_through "control: the genuine file bind-mounted over its path by an unprivileged user in its own namespaces gets its rule" \
		-u "$NOBODY" -U -b twin:genuine ./genuine -s 30
	start ./fakeexe -u "$NOBODY" -U -b other:genuine ./genuine -s 30
	impostor $! "a bind mount by an unprivileged user in its own namespaces gets nothing" "$TMP/genuine"
	explained_other "explain: the unprivileged user's bind mount runs another file"
	genuine_through "control: an unprivileged user's container root (pivot_root) holding the genuine file under its path gets its rule" \
		-u "$NOBODY" -U -r twinroot "$TMP/genuine" -s 30
	start ./fakeexe -u "$NOBODY" -U -r root "$TMP/genuine" -s 30
	impostor $! "a container root of an unprivileged user (pivot_root) gets nothing" "$TMP/genuine"
	explained_other "explain: the unprivileged user's container runs another file"
	genuine_through "control: an unprivileged user's chroot into a root moved over / holding the genuine file gets its rule" \
		-u "$NOBODY" -U -M twinroot "$TMP/genuine" -s 30
	start ./fakeexe -u "$NOBODY" -U -M root "$TMP/genuine" -s 30
	impostor $! "an unprivileged user's chroot into a root moved over /, a copy under the same path, gets nothing" "$TMP/genuine"
	explained_other "explain: the unprivileged user's chroot runs another file"
fi

# A container's root as root: the same path inside it names another file,
# and the kernel shows that path as it is inside, whether the root was
# entered by pivot_root or by a chroot into it once moved over / (as
# switch_root does, and container runtimes that cannot pivot). A plain
# chroot cannot fake the name: the kernel shows its path from the
# daemon's root.
if [ -n "$no_ns" ]; then
	skip "a container root with a copy under the same path" "$no_ns"
else
	genuine_through "control: a container root (pivot_root) holding the genuine file under its path gets its rule" \
		-r twinroot "$TMP/genuine" -s 30
	start ./fakeexe -r root "$TMP/genuine" -s 30
	impostor $! "a container root (pivot_root) with a copy under the same path gets nothing" "$TMP/genuine"
	explained_other "explain: the container runs another file"
	genuine_through "control: a chroot into a root moved over / holding the genuine file under its path gets its rule" \
		-M twinroot "$TMP/genuine" -s 30
	start ./fakeexe -M root "$TMP/genuine" -s 30
	impostor $! "a chroot into a root moved over /, a copy under the same path, gets nothing" "$TMP/genuine"
	explained_other "explain: the chroot runs another file"
fi

# An upgrade replaces the binary while it runs (a new file renamed over
# the path): the older version still matches, at a reload too.
start ./app -s 30
pid=$!
if wait_until 5 nice_is "$pid" -4; then
	cp other app.new && mv -f app.new app
	run ctl reload
	run ctl explain "$pid"
	if ! nice_is "$pid" -4; then
		not_ok "a binary replaced by an upgrade while it runs keeps its rule" "nice $(nice_of "$pid"); $out"
	elif expect_contains "replaced: rule" "$out" "rule upgraded (" &&
		expect_contains "replaced: why" "$out" "the process runs an older version of it, replaced since" &&
		expect_contains "replaced: note" "$out" "(an older version, replaced since)"; then
		ok "a binary replaced by an upgrade while it runs keeps its rule"
	fi
else
	not_ok "the upgraded binary gets its rule" "nice $(nice_of "$pid")"
fi
stop "$pid" 5

# Another filesystem over the rule's directory in a private namespace, and
# the file deleted once it runs: "$TMP/dir/app (deleted)" is no older
# version of the daemon's $TMP/dir/app.
if [ -n "$no_ns" ]; then
	skip "a file of another filesystem over the path's directory" "$no_ns"
else
	unshare -m --propagation private sh -c \
		'mount -t tmpfs none dir && cp other dir/app &&
		{ ./dir/app -s 30 & echo $! >hidden.pid; wait; }' &
	track $!
	wait_until 5 test -s hidden.pid
	pid=$(cat hidden.pid 2>/dev/null)
	track "$pid"
	impostor "$pid" "a file of another filesystem over the path's directory gets nothing" "$TMP/dir/app" app keep
	if [ "$faked" = 1 ]; then
		nsenter -t "$pid" -m rm "$TMP/dir/app"
		run ctl reload
		run ctl explain "$pid"
		if ! exe_is "$pid" "$TMP/dir/app (deleted)"; then
			not_ok "a deleted file of another filesystem under the path" "exe $(readlink "/proc/$pid/exe" 2>&1)"
		elif ! nice_is "$pid" 0; then
			not_ok "a deleted file of another filesystem under the path gets nothing" "nice $(nice_of "$pid"); $out"
		elif expect_contains "deleted: why" "$out" "runs a deleted file that is no older version of $TMP/dir/app"; then
			ok "a deleted file of another filesystem under the path gets nothing"
		fi
	fi
	kill "$pid" 2>/dev/null
fi

# A FUSE server of its own over the rule's directory, which stops answering
# once its program runs: the daemon checks the program's file with the
# attributes it has, so it asks the server nothing and keeps serving. A
# stat that asked (the file's attributes are never valid for long) would
# wait for good.
fused() { grep -q " $TMP/dir [^-]* - fuse" "/proc/$1/mountinfo" 2>/dev/null; }
if [ ! -c /dev/fuse ]; then
	skip "a FUSE server that stops answering" "no /dev/fuse here"
elif [ -n "$no_ns" ]; then
	skip "a FUSE server that stops answering" "$no_ns"
else
	unshare -m --propagation private "$BUILD/helpers/stallfs" dir other &
	sfs=$!
	track "$sfs"
	pid=
	if wait_until 5 fused "$sfs"; then
		nsenter -t "$sfs" -m "$TMP/dir/app" -s 30 &
		pid=$!
		track "$pid"
	fi
	if [ -z "$pid" ] || ! wait_until 5 comm_is "$pid" app || ! settled; then
		not_ok "a FUSE server that stops answering" "it does not run: $(tail -n 3 "$DAEMON_LOG")"
	else
		kill -USR1 "$sfs"
		run timeout 10 "$CTL" -S "$SOCK" explain "$pid"
		if [ "$status" -eq 0 ] && nice_is "$pid" 0 && settled; then
			ok "a FUSE server that stops answering does not stall the daemon"
		else
			not_ok "a FUSE server that stops answering does not stall the daemon" "explain: exit $status; $err"
		fi
	fi
	kill "$pid" "$sfs" 2>/dev/null
fi

# Programs that only take the names of the power managers: the daemon
# does not give them its power settings.
cp "$STATIC" tuned
cp "$STATIC" power-profiles-daemon
cp "$STATIC" holder
start ./tuned -s 30
tuned=$!
start ./power-profiles-daemon -s 30
ppd=$!
wait_until 5 comm_is "$tuned" tuned
wait_until 5 comm_is "$ppd" power-profiles-
mark=$(log_mark)
start ./holder -s 30
holder=$!
held() {
	[ "$(cat "$gov/scaling_governor")" = performance ] &&
		[ "$(cat "$gov/energy_performance_preference")" = performance ]
}
if wait_until 5 held; then
	ok "a program named tuned or power-profiles-daemon that is not them takes no setting from the daemon"
else
	not_ok "look-alike power managers" "governor $(cat "$gov/scaling_governor"), epp $(cat "$gov/energy_performance_preference"); $(log_since "$mark")"
fi
expect_not_contains "no refusal logged" "$(log_since "$mark")" "refused" &&
	ok "no power key refused for a look-alike"
stop "$holder" 5

stop_daemon || not_ok "daemon stop" "$(tail -n 5 "$DAEMON_LOG")"
finish
