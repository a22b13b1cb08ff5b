#!/bin/bash
# saturate --compare --restraint against the real daemon, as root: with
# restraint on, a short run completes and prints both arms, the arm with
# restraint on misses no more frames than the paused one (the hogs run in
# the frame task's session, its autogroup: paused, they take most of the
# CPUs from it), and restraint is on again afterwards; without a daemon,
# and with restraint off, it refuses with a non-zero exit.
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" -eq 0 ] || skip_all "the daemon and its restraint need root"
[ -r /proc/pressure/cpu ] && cat /proc/pressure/cpu >/dev/null 2>&1 ||
	skip_all "the kernel reports no CPU pressure (no PSI, or psi=0)"
command -v useradd >/dev/null || skip_all "no useradd to make the hogs' user"

USER_ID=4260
USER_NAME=cpupolicy-sr
if [ "$(getent passwd "$USER_ID" | cut -d: -f1)" != "$USER_NAME" ]; then
	getent passwd "$USER_ID" >/dev/null && skip_all "uid $USER_ID is taken"
	useradd --no-create-home --uid "$USER_ID" --gid nogroup \
		--shell /usr/sbin/nologin "$USER_NAME" ||
		skip_all "cannot make the hogs' user"
	at_exit "pkill -KILL -u '$USER_ID'; sleep 0.2; userdel '$USER_NAME' 2>/dev/null"
fi

# Without a daemon: a clear refusal.
run ctl saturate --compare --restraint --pairs 1 --seconds 3 --user "$USER_NAME"
if [ "$status" -ne 0 ] && grep -q "none answers" <<<"$out$err"; then
	ok "no daemon: refused, exit $status"
else
	not_ok "no daemon: refused" "exit $status: $out $err"
fi

# Restraint off: refused too.
write_conf
start_daemon || {
	finish
	exit 1
}
run ctl saturate --compare --restraint --pairs 1 --seconds 3 --user "$USER_NAME"
if [ "$status" -ne 0 ] && grep -q "restraint is off" <<<"$out$err"; then
	ok "restraint off: refused, exit $status"
else
	not_ok "restraint off: refused" "exit $status: $out $err"
fi
stop_daemon

write_conf
cat >>"$CONF" <<EOC
[restraint]
enabled = true
EOC
start_daemon || {
	finish
	exit 1
}

# The measured runs are sessions of their own, the frame task's and its
# hogs' (one autogroup), as a game's and a build's started in its
# terminal; the daemon is not in it, as a service is not.
sr() { setsid -w "$CTL" -S "$SOCK" saturate --compare --restraint "$@"; }

# Nobody is a system account, whose processes restraint leaves alone.
run ctl saturate --compare --restraint --pairs 1 --seconds 3 --user nobody
if [ "$status" -ne 0 ] && grep -q "system account" <<<"$err"; then
	ok "hogs as nobody: refused, restraint would not lower them"
else
	not_ok "hogs as nobody: refused" "exit $status: $out $err"
fi

run sr --pairs 1 --seconds 6 --user "$USER_NAME"
echo "$out" | sed 's/^/# /'
[ -n "$err" ] && echo "$err" | sed 's/^/# stderr: /'
if [ "$status" -eq 0 ] && grep -q "restraint paused" <<<"$out" &&
	grep -q "^  frames missed .* A .* B " <<<"$out"; then
	ok "a pair of 6 s trials completes and reports both arms"
else
	not_ok "a short run completes" "exit $status: $out $err"
fi
# The medians of the one pair: A's frames missed, B's.
missed=$(sed -n 's/^  frames missed *A *\([0-9.]*\) %, B *\([0-9.]*\) %.*/\1 \2/p' <<<"$out")
read -r miss_a miss_b <<<"$missed"
if [ -n "$miss_a" ] && awk -v a="$miss_a" -v b="$miss_b" 'BEGIN { exit !(b <= a) }'; then
	ok "restraint on misses no more frames than paused ($miss_b % against $miss_a %)"
else
	not_ok "restraint on misses no more frames" "A '$miss_a' B '$miss_b': $out"
fi
if grep -q "the frame task was never restrained" <<<"$out"; then
	ok "the frame task (root's) was never restrained"
else
	not_ok "the frame task was never restrained" "$out"
fi
st=$(ctl status)
if grep -q "^restraint: on" <<<"$st"; then
	ok "restraint is on again afterwards"
else
	not_ok "restraint is on again afterwards" "$st"
fi

# hogs_left: the hogs' user's processes that still run (not zombies).
hogs_left() { ps -o pid=,stat=,comm= -u "$USER_ID" | awk '$2 !~ /^Z/'; }

# --json: one object with both arms.
run sr --pairs 1 --seconds 3 --user "$USER_NAME" --json
if [ "$status" -eq 0 ] && grep -q '"compare":"restraint"' <<<"$out" &&
	grep -q '"missed_pct":{"a":' <<<"$out"; then
	ok "--json reports both arms"
else
	not_ok "--json reports both arms" "exit $status: $out $err"
fi
if [ -z "$(hogs_left)" ]; then
	ok "no hog outlives the runs"
else
	not_ok "no hog outlives the runs" "$(hogs_left)"
fi

# SIGTERM in the middle of the paused arm: restraint is resumed.
setsid -w "$CTL" -S "$SOCK" saturate --compare --restraint --pairs 1 \
	--seconds 6 --user "$USER_NAME" >/dev/null 2>&1 &
run_pid=$!
track "$run_pid"
paused() { ctl status | grep -q "^restraint: paused"; }
if wait_until 10 paused; then
	sleep 1.5
	kill -TERM "$run_pid"
	wait_exit "$run_pid" 10
	st=$(ctl status)
	if grep -q "^restraint: on" <<<"$st" && [ -z "$(hogs_left)" ]; then
		ok "SIGTERM in the paused arm: restraint on again, the hogs gone"
	else
		not_ok "SIGTERM: restraint on again, the hogs gone" "$st; $(hogs_left)"
	fi
else
	not_ok "SIGTERM: restraint on again" "the run never paused restraint: $(ctl status)"
fi

finish
