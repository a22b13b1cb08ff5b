# Shared by the integration scripts: TAP output and assertions, the one
# cleanup trap, waits that always end, and the daemon's start and stop.
# Each script sources this, runs its cases, and ends with "finish".
# Environment: BUILD (build directory), SRCDIR (the source tree).
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD="$SRCDIR/$BUILD" ;; esac
CTL="$BUILD/cpupolicyctl"
DAEMON="$BUILD/cpupolicyd"
WORKER="$BUILD/helpers/worker"
CPU1=/sys/devices/system/cpu/cpu1/online
TMP=$(mktemp -d)
# The test's files, as the daemon and the tests' own processes see them.
CONF="$TMP/test.conf"
RULES="$TMP/rules"
SOCK="$TMP/ctl.sock"
DAEMON_LOG="$TMP/daemon.log"
mkdir -p "$RULES" "$TMP/state"
daemon_pid=

## Cleanup: one trap for every script.

lib_at_exit=()
lib_tracked=()
lib_cpu1=

# at_exit COMMAND: run at exit (last registered first), whatever happened.
at_exit() { lib_at_exit+=("$1"); }

# track PID...: processes killed at exit.
track() { lib_tracked+=("$@"); }

# restore_cpu1_at_exit: the test changes cpu1; it is online again at exit.
restore_cpu1_at_exit() { lib_cpu1=$(cat "$CPU1"); }

lib_cleanup() {
	local i
	for ((i = ${#lib_at_exit[@]} - 1; i >= 0; i--)); do
		eval "${lib_at_exit[i]}"
	done
	[ -n "$daemon_pid" ] && kill -KILL "$daemon_pid" 2>/dev/null
	for i in "${lib_tracked[@]}"; do
		kill -KILL "$i" 2>/dev/null
	done
	for i in "${lib_tracked[@]}" $daemon_pid; do
		wait_exit "$i" 5 2>/dev/null
	done
	[ -n "$lib_cpu1" ] && echo 1 >"$CPU1"
	rm -rf "$TMP"
}
trap lib_cleanup EXIT
# A signal ends the script through its EXIT trap.
trap 'exit 143' TERM
trap 'exit 130' INT

## TAP: ok, not_ok, skip, result, finish, skip_all.

# shellcheck source=tests/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
# A case's message names $rescanned (no_rescan_since sets it): where the
# case failed before it asked, it says so, never an earlier case's count.
tap_case_done() { rescanned="not counted: the case failed before it asked"; }
tap_case_done

## Assertions.

# run CMD...: sets $status, $out (stdout) and $err (stderr).
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	status=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

expect_status() { # name, wanted status (after run)
	if [ "$status" -eq "$2" ]; then
		return 0
	fi
	not_ok "$1" "exit status $status, expected $2; stdout: $out; stderr: $err"
	return 1
}

expect_contains() { # name, haystack, needle
	case $2 in
	*"$3"*) return 0 ;;
	esac
	not_ok "$1" "expected to find '$3' in: $2"
	return 1
}

expect_not_contains() { # name, haystack, needle
	case $2 in
	*"$3"*)
		not_ok "$1" "did not expect '$3' in: $2"
		return 1
		;;
	esac
	return 0
}

## Waits, each with a deadline.

lib_now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	echo $((t / 1000))
}

# wait_until SECONDS COMMAND...: polls until the command succeeds; false
# when the deadline passes first.
wait_until() {
	local end
	end=$(($(lib_now_ms) + $(awk -v s="$1" 'BEGIN { printf "%d", s * 1000 }')))
	shift
	for (( ; ; )); do
		"$@" && return 0
		[ "$(lib_now_ms)" -ge "$end" ] && return 1
		sleep 0.02
	done
}

# running PID: the process exists and has not exited (a zombie has).
running() {
	local state
	state=$(awk '{ sub(/.*\) /, ""); print $1 }' /proc/"$1"/stat 2>/dev/null)
	[ -n "$state" ] && [ "$state" != Z ]
}

# wait_exit PID SECONDS: waits for a child of this shell to exit and sets
# $status to its exit status; false (status 124) when it still runs at the
# deadline.
wait_exit() {
	status=124
	wait_until "$2" eval "! running $1" || return 1
	wait "$1" 2>/dev/null
	status=$?
	return 0
}

# stop PID [SECONDS]: SIGTERM, then SIGKILL if it has not exited in time
# (default 10 s). False when it had to be killed.
stop() {
	kill -TERM "$1" 2>/dev/null
	wait_exit "$1" "${2:-10}" && return 0
	kill -KILL "$1" 2>/dev/null
	wait_exit "$1" 5
	return 1
}

## Process state.

# nice_of TID: a thread's (or a process's) nice value.
nice_of() { awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$1"/stat 2>/dev/null; }

# thread_prio PID: "TID NICE POLICY" per thread (policy 3 = SCHED_BATCH).
thread_prio() {
	local t
	for t in /proc/"$1"/task/*; do
		awk -v t="${t##*/}" '{ sub(/.*\) /, ""); print t, $17, $39 }' \
			"$t/stat" 2>/dev/null
	done
}

# all_threads PID NICE POLICY COUNT: COUNT threads, each at NICE and POLICY.
all_threads() {
	[ "$(thread_prio "$1" | awk -v n="$2" -v p="$3" '$2 == n && $3 == p' |
		wc -l)" -eq "$4" ] && [ "$(thread_prio "$1" | wc -l)" -eq "$4" ]
}

# nice_is PID NICE: the process's main thread has that nice value.
nice_is() { [ "$(nice_of "$1")" = "$2" ]; }

cpu1() { cat "$CPU1"; }
cpu1_is() { [ "$(cpu1)" = "$1" ]; }
# wait_cpu1 VALUE [SECONDS]: cpu1's online state becomes VALUE in time.
wait_cpu1() { wait_until "${2:-5}" cpu1_is "$1"; }
# need_cpu1 VALUE WHAT: as wait_cpu1, and a failure when it does not.
need_cpu1() {
	wait_cpu1 "$1" && return 0
	not_ok "$2" "cpu1 is $(cpu1), not $1"
	return 1
}

## The machine, as sysfs and the kernel show it to this script: what a
## figure that depends on the hardware is computed from.

SYSCPU=/sys/devices/system/cpu

# cpulist_expand LIST: the CPUs of a list as the kernel writes them
# ("0-3,8"), one a line.
cpulist_expand() {
	awk -v list="$1" 'BEGIN {
		n = split(list, part, ",")
		for (i = 1; i <= n; i++) {
			if (split(part[i], r, "-") == 2)
				for (c = r[1] + 0; c <= r[2] + 0; c++) print c
			else if (part[i] != "")
				print part[i] + 0
		}
	}'
}

# cpulist_format: CPUs on stdin, one a line, as a list written the way
# the kernel and hwloc write one ("0-3,8").
cpulist_format() {
	sort -nu | awk '
	function range() { return first == last ? first : first "-" last }
	NR == 1 { first = last = $1; next }
	$1 == last + 1 { last = $1; next }
	{ out = out sep range(); sep = ","; first = last = $1 }
	END { if (NR) print out sep range() }'
}

cpulist_count() { cpulist_expand "$1" | wc -l; }

# cpulist_and A B, cpulist_minus A B: the CPUs of list A also in list B,
# or not in it, as a list.
cpulist_and() { cpulist_expand "$1" | grep -xF -f <(cpulist_expand "$2"; echo x) | cpulist_format; }
cpulist_minus() { cpulist_expand "$1" | grep -vxF -f <(cpulist_expand "$2"; echo x) | cpulist_format; }

machine_online() { cat "$SYSCPU/online"; }
machine_present() { cat "$SYSCPU/present"; }

# machine_allowed: the online CPUs this script may run on: its affinity,
# which its cpuset bounds (and the runner's 1-CPU pass narrows).
machine_allowed() {
	cpulist_and "$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/$$/status)" \
		"$(machine_online)"
}

# machine_siblings CPU: the hardware threads of CPU's core (itself alone
# where sysfs does not say, as for a CPU offline).
machine_siblings() {
	cat "$SYSCPU/cpu$1/topology/thread_siblings_list" 2>/dev/null || echo "$1"
}

# machine_cores LIST: how many cores the CPUs of LIST are on.
machine_cores() {
	local c
	for c in $(cpulist_expand "$1"); do
		machine_siblings "$c"
	done | sort -u | wc -l
}

# machine_smt: a core of this machine has more than one hardware thread
# online.
machine_smt() {
	local c
	for c in $(cpulist_expand "$(machine_online)"); do
		[ "$(cpulist_count "$(machine_siblings "$c")")" -gt 1 ] && return 0
	done
	return 1
}

# machine_cpuset: "CGROUP CPUS", this script's cpuset and the CPUs it
# allows, where cgroup v1 (cpuset hierarchy), v2 or the hybrid layout
# has one; empty where none is readable.
machine_cpuset() {
	local cg file cpus
	cg=$(cat /proc/$$/cpuset 2>/dev/null) || return 0
	for file in "/sys/fs/cgroup/cpuset${cg%/}/cpuset.effective_cpus" \
		"/sys/fs/cgroup${cg%/}/cpuset.cpus.effective" \
		"/sys/fs/cgroup/unified${cg%/}/cpuset.cpus.effective"; do
		# cgroup files say size 0: read, and see.
		cpus=$(cat "$file" 2>/dev/null) && [ -n "$cpus" ] &&
			echo "$cg $cpus" && return 0
	done
}

# fraction A B [PLUS]: A / B (+ PLUS), to four places.
fraction() { awk -v a="$1" -v b="$2" -v p="${3:-0}" 'BEGIN { printf "%.4f", a / b + p }'; }

## The daemon.

ctl() { "$CTL" -S "$SOCK" "$@"; }

# write_conf [KEY=VALUE...]: the test's config, its [daemon] section with
# the tests' defaults (socket, state directory, no periodic rescans, one
# line per decision, events from CPUPOLICY_TEST_EVENTS when set: the
# second pass of tests/run-tests.sh) and the given keys on top. Further
# sections are appended by the caller.
write_conf() {
	local -A keys=([socket]="$SOCK" [state_dir]="$TMP/state"
		[rescan_interval_ms]=0 [log_level]=info)
	[ -n "${CPUPOLICY_TEST_EVENTS:-}" ] &&
		keys[events]=$CPUPOLICY_TEST_EVENTS
	local kv k
	for kv in "$@"; do
		keys[${kv%%=*}]=${kv#*=}
	done
	{
		echo "[daemon]"
		for k in "${!keys[@]}"; do
			echo "$k = ${keys[$k]}"
		done
	} >"$CONF"
}

# start_daemon [ENV=VALUE...]: runs the daemon on the test's config and
# rules, waits until it answers on its socket, and checks that its events
# come from the source the pass names (see events_wanted): a pass meant
# for one source must not go by on another, nor on polling.
start_daemon() {
	local got
	env "$@" "$DAEMON" -c "$CONF" -r "$RULES" >>"$DAEMON_LOG" 2>&1 &
	daemon_pid=$!
	if ! wait_until 10 ctl status >/dev/null 2>&1; then
		echo "# the daemon did not answer within 10 s:"
		sed 's/^/#   /' "$DAEMON_LOG"
		return 1
	fi
	events_wanted
	got=$(ctl status --json | grep -o '"events":"[a-z]*"' | cut -d'"' -f4)
	[ "$got" = "$events_want" ] && return 0
	echo "# the daemon's events come from '${got:-nothing}', not '$events_want' as this pass wants:"
	sed 's/^/#   /' "$DAEMON_LOG"
	return 1
}

# events_wanted: sets $events_want to the source status --json must name
# for the config: poll is "polling", netlink and bpf themselves (the
# second pass of tests/run-tests.sh sets netlink); auto, the default, is
# "bpf" where the exec filter loads here (asked once a script), else
# "netlink".
events_wanted() {
	events_want=$(sed -n 's/^events = //p' "$CONF" | tail -n 1)
	case ${events_want:-auto} in
	poll) events_want=polling ;;
	netlink | bpf) ;;
	*)
		if [ -z "${lib_bpf_why+set}" ]; then
			lib_bpf_why=$(bpf_why_not)
			[ -z "$lib_bpf_why" ] ||
				echo "# events = auto, and no exec filter here: $lib_bpf_why"
		fi
		events_want=bpf
		[ -z "$lib_bpf_why" ] || events_want=netlink
		;;
	esac
}

# bpf_why_not: empty when the exec filter loads here (the daemon says so
# on a config of its own), else the daemon's reason, for a skip.
bpf_why_not() {
	local dir
	dir=$(mktemp -d)
	mkdir -p "$dir/rules" "$dir/state"
	chmod 700 "$dir/state"
	printf '[daemon]\nsocket = %s\nstate_dir = %s\nevents = bpf\nrescan_interval_ms = 0\n' \
		"$dir/s" "$dir/state" >"$dir/conf"
	"$DAEMON" -c "$dir/conf" -r "$dir/rules" >"$dir/log" 2>&1 &
	local pid=$!
	wait_until 10 "$CTL" -S "$dir/s" status >/dev/null 2>&1
	if ! "$CTL" -S "$dir/s" status 2>/dev/null | grep -q '^events:   bpf'; then
		sed -n 's/.*no exec filter: \(.*\); exec events.*/\1/p' "$dir/log" |
			head -n 1 | grep . || echo "the daemon did not start"
	fi
	stop "$pid" 10
	rm -rf "$dir"
}

# stop_daemon: SIGTERM, and it must exit within 10 s.
stop_daemon() {
	local pid=$daemon_pid
	daemon_pid=
	[ -n "$pid" ] || return 0
	stop "$pid" 10 && return 0
	echo "# the daemon did not stop within 10 s: killed"
	return 1
}

# kill_daemon: SIGKILL, as a crash would.
kill_daemon() {
	kill -KILL "$daemon_pid" 2>/dev/null
	wait_exit "$daemon_pid" 5
	daemon_pid=
}

# json_number KEY: a number of status --json.
json_number() { ctl status --json | grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2; }

# rescans_now: how often the daemon has scanned /proc so far: at start,
# at each reload, for lost events, every rescan_interval_ms, and every
# second while it polls.
rescans_now() { json_number rescans; }

# rescans_since COUNT: how often the daemon scanned /proc since
# rescans_now said COUNT (empty when it does not answer).
rescans_since() {
	local now
	now=$(rescans_now)
	[ -n "$now" ] && [ -n "$1" ] && echo $((now - $1))
}

# no_rescan_since COUNT: the daemon has not scanned /proc since
# rescans_now said COUNT, so that what it did meanwhile it did on process
# events alone. Else $rescanned says how often, and the daemon's last
# lines on scans (of the whole log: they may be older).
no_rescan_since() {
	rescanned=$(rescans_since "$1")
	[ "$rescanned" = 0 ] && return 0
	rescanned="${rescanned:-unknown (no status)}; the log's last lines on scans: $(grep -E 'rescan|polling' "$DAEMON_LOG" | tail -n 2 | tr '\n' ' ')"
	return 1
}

# by_events COUNT SECONDS COMMAND...: wait_until SECONDS COMMAND, and no
# rescan since rescans_now said COUNT: the state waited for came from
# process events, which a daemon that polls, or lost them, would reach
# by a scan. Take COUNT before the action that makes the events.
by_events() {
	local count=$1 got
	shift
	wait_until "$@"
	got=$?
	no_rescan_since "$count" || return 1
	return $got
}

# log_mark: where the daemon's log ends now; log_since MARK: what the
# daemon wrote after it.
log_mark() { wc -c <"$DAEMON_LOG" 2>/dev/null || echo 0; }
log_since() { tail -c +$(($1 + 1)) "$DAEMON_LOG"; }

# start PROGRAM ARGS...: a tracked background process; its pid in $!.
start() {
	"$@" &
	track $!
}
