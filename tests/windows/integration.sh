#!/bin/bash
# The Windows integration test: cpupolicyd.exe and cpupolicyctl.exe need
# no DLL beyond Windows' own; cpupolicyd.exe under Wine with a rule for
# probe.exe (class high, every thread highest), the probe's own report of
# GetPriorityClass and each thread's GetThreadPriority (a thread it starts
# after a delay included), a same-named probe in another folder left
# alone, explain, status and reload over the pipe; a second daemon kept
# out by the lock in the state directory; a pipe name another program
# took, waited out; then the service:
# --install, sc query, sc start, a reload through the SCM, sc stop, net
# start and net stop, --uninstall. TAP on stdout (tests/tap.sh), closing
# with "N passed, N failed, N skipped".
#
#   integration.sh BUILD_DIR      (build-win: both .exe and probe.exe)
#
# Every wait has a deadline; whatever happens, the daemon is stopped, the
# service removed and the prefix's wineserver stopped at the end.
set -u
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh" "$@"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

DAEMON=$WINE_BUILD/cpupolicyd.exe
CTL=$WINE_BUILD/cpupolicyctl.exe
PROBE=$WINE_BUILD/probe.exe
WORK=$WINE_BUILD/itest
PIPE='\\.\pipe\cpupolicy-itest'
# The journal's folder must be writable by nobody else, all the way up:
# not under /tmp. C:\ is the prefix's own.
STATE='C:\cpupolicy-itest\state'
APPLY_LIMIT=${APPLY_LIMIT:-15} # s: the poll is 250 ms; Wine is slow to start


daemon_pid=
keep_pid=
hold_pid=
installed=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	[ -n "$hold_pid" ] && kill "$hold_pid" 2>/dev/null
	if [ -n "$installed" ]; then
		limited 60 wine "$DAEMON" --uninstall >/dev/null 2>&1
	fi
	[ -n "$keep_pid" ] && kill "$keep_pid" 2>/dev/null
	wine_stop
	rm -rf "$WORK" "$WINEPREFIX/drive_c/cpupolicy-itest"
	rm -f "$WINEPREFIX/drive_c/ProgramData/cpupolicy/rules.d/zz-itest-bad.rules"
}
trap cleanup EXIT

wine_ready
result $? "the Wine prefix is there" || {
	finish windows-integration
	exit
}
for f in "$DAEMON" "$CTL" "$PROBE"; do
	[ -x "$f" ] || {
		result 1 "$f is built"
		finish windows-integration
		exit
	}
done

# What the MSI ships runs on a bare Windows: nothing of the toolchain's
# (libwinpthread-1.dll, libgcc_s_seh-1.dll, ...) is needed at run time.
for f in "$DAEMON" "$CTL"; do
	dlls=$(x86_64-w64-mingw32-objdump -p "$f" |
		sed -n 's/^[[:space:]]*DLL Name: //p' | tr '\n' ' ')
	dlls=${dlls% }
	bad=
	for d in $dlls; do
		case ${d,,} in
		kernel32.dll | msvcrt.dll | advapi32.dll | user32.dll | gdi32.dll | \
			ws2_32.dll | shell32.dll | ole32.dll | oleaut32.dll | ntdll.dll | \
			bcrypt.dll | userenv.dll | powrprof.dll | iphlpapi.dll | \
			secur32.dll | api-ms-win-*.dll) ;;
		*) bad="$bad $d" ;;
		esac
	done
	[ -n "$dlls" ] && [ -z "$bad" ]
	ok=$?
	[ -z "$bad" ] || bad=" (not a Windows DLL:$bad)"
	result $ok "$(basename "$f") needs only Windows' own DLLs: ${dlls:-none found}$bad"
done
rm -rf "$WORK"
mkdir -p "$WORK/rules" "$WORK/a" "$WORK/b" "$WORK/keep"
cp "$PROBE" "$WORK/a/probe.exe"
cp "$PROBE" "$WORK/b/probe.exe"

# The rule names the first probe by its full path, as Windows shows it.
cat >"$WORK/rules/probe.rules" <<EOF
version = 1;
rules = (
  { name = "probe-high";
    match = { exe = "$(winpath "$WORK/a/probe.exe" | sed 's/\\/\\\\/g')"; };
    priority = { class = "high"; thread = "highest"; };
    power = { parking = "off"; plan = "high-performance"; };
  },
  { name = "lowprobe-below";
    match = { exe = "$(winpath "$WORK/a/lowprobe.exe" | sed 's/\\/\\\\/g')"; };
    priority = { class = "below-normal"; };
  }
);
EOF
cat >"$WORK/cpupolicyd.conf" <<EOF
[daemon]
rules_dirs = $(winpath "$WORK/rules")
socket = $PIPE
state_dir = $STATE
rescan_interval_ms = 0
EOF
CONF=$(winpath "$WORK/cpupolicyd.conf")

out=$(wine_run 60 "$DAEMON" -n -c "$CONF" 2>&1)
echo "$out" | grep -q '^configuration OK (2 rules in 1 files)'
result $? "cpupolicyd.exe -n accepts the config and the rule" ||
	echo "$out" | sed 's/^/# /'

ctl() { wine_run 30 "$CTL" -c "$CONF" "$@" 2>&1; }

# import prolasso through the Windows side of the seam: an output folder
# made, the file staged beside its place, read back and moved there, and
# nothing staged left; again over it, the same.
DATA=$(cd "$(dirname "$0")/../data/import" && pwd)
for pass in 1 2; do
	out=$(cd "$DATA" && wine_run 60 "$CTL" import prolasso \
		-o "$(winpath "$WORK/imported")" prolasso.ini 2>&1)
	diff -q "$DATA/prolasso.expected.rules" "$WORK/imported/50-prolasso.rules" \
		>/dev/null 2>&1 && [ "$(ls -A "$WORK/imported")" = 50-prolasso.rules ]
	result $? "import prolasso into a folder not there yet, pass $pass: the file as expected, nothing staged left" ||
		echo "$out" | sed 's/^/# /'
done

# The daemon in the foreground, as from a console.
timeout -k 5 300 wine "$DAEMON" -c "$CONF" </dev/null \
	>"$WORK/daemon.log" 2>&1 &
daemon_pid=$!
answers() { ctl status >/dev/null; }
wait_for 60 answers
result $? "the daemon answers on $PIPE (cpupolicyctl status)" || {
	tr -d '\r' <"$WORK/daemon.log" | sed 's/^/# daemon: /'
	finish windows-integration
	exit
}

# The probes: a.exe by the rule's path, b the same name elsewhere. Each
# starts its late thread 1.5 s after its start.
start_probe() { # folder
	rm -f "$WORK/$1/ready" "$WORK/$1/report" "$WORK/$1/ask" "$WORK/$1/stop"
	timeout -k 5 200 wine "$WORK/$1/probe.exe" "$(winpath "$WORK/$1")" \
		1500 </dev/null >/dev/null 2>&1 &
}
start_probe a
start_probe b
ready() { [ -f "$WORK/a/ready" ] && [ -f "$WORK/b/ready" ]; }
wait_for 60 ready
result $? "both probes run" || {
	finish windows-integration
	exit
}

# report FOLDER: asks the probe, prints its report (LF only).
report() {
	rm -f "$WORK/$1/report"
	touch "$WORK/$1/ask"
	wait_for 10 test -f "$WORK/$1/report" || return 1
	tr -d '\r' <"$WORK/$1/report"
}
# Class high (0x80), three threads, each at highest (2).
applied() {
	local r
	r=$(report a) || return 1
	echo "$r" | grep -qx 'class 0x80' &&
		echo "$r" | grep -qx 'threads 3' &&
		[ "$(echo "$r" | grep -c '^thread .* 2$')" -eq 3 ]
}
start=$(date +%s.%N)
wait_for "$APPLY_LIMIT" applied
ok=$?
secs=$(awk -v now="$(date +%s.%N)" -v start="$start" 'BEGIN { printf "%.3f", now - start }')
rep_a=$(report a)
echo "$rep_a" | sed 's/^/# a: /'
result $ok "the rule's probe: class high, every thread highest, the late one too (within ${APPLY_LIMIT} s; took $secs s)"
echo "$rep_a" | grep -qx 'thread late 2'
result $? "the thread started after the process got the policy as well"
# Wine 8's powrprof.dll has no value index calls: said once, and the rest
# of the rule applied (above).
n=$(tr -d '\r' <"$WORK/daemon.log" | grep -c 'power settings are not offered on this Windows')
result $((n != 1)) "power settings not offered by Wine: said once ($n), the rule's priority applied"

# The same name in another folder: a poll or two later, still untouched.
sleep 1
rep_b=$(report b)
echo "$rep_b" | sed 's/^/# b: /'
echo "$rep_b" | grep -qx 'class 0x20' &&
	[ "$(echo "$rep_b" | grep -c '^thread .* 0$')" -eq 3 ]
result $? "a same-named probe in another folder is untouched (normal, every thread normal)"

pid_a=$(echo "$rep_a" | awk '$1 == "pid" { print $2 }')
pid_b=$(echo "$rep_b" | awk '$1 == "pid" { print $2 }')
out=$(ctl explain "$pid_a")
rc=$?
echo "$out" | sed 's/^/# explain a: /'
[ $rc -eq 0 ] && echo "$out" | grep -q '^rule probe-high'
result $? "explain over the pipe names the rule for the probe (pid $pid_a)"
out=$(ctl explain "$pid_b")
echo "$out" | grep -q 'no rule'
result $? "explain says no rule for the same-named probe elsewhere (pid $pid_b)" ||
	echo "$out" | sed 's/^/# explain b: /'
out=$(ctl status)
echo "$out" | grep -q '^managed: *1 processes'
result $? "status over the pipe: one process managed" ||
	echo "$out" | sed 's/^/# status: /'
# The rules raise other processes' priority: SeDebugPrivilege enabled,
# SeChangeNotifyPrivilege kept, nothing else left in the token.
dpid=$(ctl status | sed -n 's/^cpupolicyd .*, pid \([0-9]*\),.*/\1/p')
out=$(wine_run 30 "$PROBE" --privileges "$dpid" 2>&1)
echo "$out" | sed 's/^/# privileges: /'
[ "$(echo "$out" | sort | tr '\n' ' ')" = "SeChangeNotifyPrivilege enabled SeDebugPrivilege enabled " ]
result $? "the daemon's token: SeDebugPrivilege and SeChangeNotifyPrivilege, every other privilege removed"
out=$(ctl reload)
echo "$out" | grep -q '^reloaded: 2 rules in 1 files'
result $? "reload over the pipe" || echo "$out" | sed 's/^/# reload: /'
# -S takes the pipe's short name as well.
out=$(wine_run 30 "$CTL" -S cpupolicy-itest status 2>&1)
echo "$out" | grep -q '^cpupolicyd '
result $? "cpupolicyctl -S cpupolicy-itest (a pipe's short name)"

# The lowering rule names a literal file name: its class is in Image File
# Execution Options, for Windows to give at creation.
IFEO='HKLM\Software\Microsoft\Windows NT\CurrentVersion\Image File Execution Options\lowprobe.exe\PerfOptions'
perf() { wine_run 30 reg query "$IFEO" 2>/dev/null; }
perf | grep -q 'CpuPriorityClass.*REG_DWORD.*0x5'
result $? "PerfOptions CpuPriorityClass 5 written for lowprobe.exe" ||
	perf | sed 's/^/# reg: /'

touch "$WORK/a/stop" "$WORK/b/stop"
# Killed, as a crash would: the value stays until the next start.
kill "$daemon_pid" 2>/dev/null
wait "$daemon_pid" 2>/dev/null
daemon_pid=
perf | grep -q 'CpuPriorityClass'
result $? "after a crash the value is still there"
rm "$WORK/rules/probe.rules"
timeout -k 5 300 wine "$DAEMON" -c "$CONF" </dev/null \
	>"$WORK/daemon2.log" 2>&1 &
daemon_pid=$!
gone() { ! perf | grep -q 'CpuPriorityClass'; }
wait_for 60 answers && wait_for 10 gone
result $? "the next start, without the rule, takes it away (its record says what was written)"

# A second daemon on the same state directory does not start, whatever
# pipe it is given: the first holds the lock there.
cat >"$WORK/second.conf" <<EOF
[daemon]
rules_dirs = $(winpath "$WORK/rules")
socket = $PIPE-second
state_dir = $STATE
rescan_interval_ms = 0
EOF
out=$(wine_run 30 "$DAEMON" -c "$(winpath "$WORK/second.conf")" 2>&1)
rc=$?
echo "$out" | sed 's/^/# second daemon: /'
[ $rc -eq 1 ] && echo "$out" | grep -qF "not starting: another cpupolicyd runs (it holds $STATE\cpupolicyd.lock)"
result $? "a second daemon on the same state directory, on another pipe, does not start: the first holds the lock"
kill "$daemon_pid" 2>/dev/null
wait "$daemon_pid" 2>/dev/null
daemon_pid=

# A program that took the pipe's name before the daemon started (as a
# user may during a restart or an upgrade): the daemon says who holds
# it, runs on, and serves on the name once it is free. cpupolicyctl does
# not wait on the program for good.
mkdir -p "$WORK/hold"
timeout -k 5 200 wine "$PROBE" --hold-pipe "$PIPE" "$(winpath "$WORK/hold")" \
	</dev/null >/dev/null 2>&1 &
hold_pid=$!
wait_for 60 test -f "$WORK/hold/ready"
result $? "a program holds $PIPE"
timeout -k 5 300 wine "$DAEMON" -c "$CONF" </dev/null \
	>"$WORK/daemon3.log" 2>&1 &
daemon_pid=$!
held_said() {
	tr -d '\r' <"$WORK/daemon3.log" 2>/dev/null |
		grep -q "is held by pid [0-9]* (.*probe.exe.*): the daemon serves nobody there until it lets go"
}
wait_for 60 held_said
result $? "the daemon says who holds the pipe's name: its pid and program" ||
	tr -d '\r' <"$WORK/daemon3.log" | sed 's/^/# daemon: /'
tr -d '\r' <"$WORK/daemon3.log" | grep "is held by" | sed 's/^/# daemon: /'
out=$(wine_run 30 "$CTL" -c "$CONF" -t 2 status 2>&1)
rc=$?
echo "$out" | sed 's/^/# status: /'
[ $rc -eq 2 ] && echo "$out" | grep -q "no answer from cpupolicyd at .* within 2 s"
result $? "cpupolicyctl -t 2 gives up on the program that does not answer"
kill -0 "$daemon_pid" 2>/dev/null
result $? "the daemon runs on meanwhile"
touch "$WORK/hold/stop"
wait "$hold_pid" 2>/dev/null
hold_pid=
free_said() { tr -d '\r' <"$WORK/daemon3.log" | grep -q "is free: serving on it"; }
wait_for 60 answers && free_said
result $? "once the name is free the daemon serves on it, and says so" ||
	tr -d '\r' <"$WORK/daemon3.log" | sed 's/^/# daemon: /'
kill "$daemon_pid" 2>/dev/null
wait "$daemon_pid" 2>/dev/null
daemon_pid=

# The service. Wine stops its services with the last other program of
# the prefix: a probe keeps the prefix up meanwhile.
rm -f "$WORK/keep/ready"
timeout -k 5 200 wine "$WORK/a/probe.exe" "$(winpath "$WORK/keep")" 100000 \
	</dev/null >/dev/null 2>&1 &
keep_pid=$!
wait_for 60 test -f "$WORK/keep/ready"
result $? "a program keeps the prefix up"

out=$(wine_run 60 "$DAEMON" --install 2>&1)
rc=$?
echo "$out" | sed 's/^/# install: /'
[ $rc -eq 0 ] && installed=1
result $rc "cpupolicyd.exe --install"
query() { wine_run 30 sc query cpupolicyd 2>&1; }
state_is() { query | grep -q "STATE *: *[0-9]* *$1"; }
query | grep -q 'WIN32_OWN_PROCESS'
result $? "sc query cpupolicyd: an own-process service"
log=$WINEPREFIX/drive_c/ProgramData/cpupolicy/cpupolicyd.log
lines=$(wc -l <"$log" 2>/dev/null || echo 0)
wine_run 60 sc start cpupolicyd >/dev/null 2>&1
wait_for 30 state_is RUNNING
result $? "sc start cpupolicyd: RUNNING"
default_answers() { wine_run 30 "$CTL" status 2>&1 | grep -q '^cpupolicyd '; }
wait_for 30 default_answers
result $? "the service answers on \\\\.\\pipe\\cpupolicy"
new_log() { tail -n +"$((lines + 1))" "$log" | tr -d '\r'; }
logged() { new_log | grep -q "$1"; }
wait_for 10 logged 'cpupolicyd 0.1.0'
result $? "the service logs to %ProgramData%\\cpupolicy\\cpupolicyd.log"
# Wine's sc.exe has no "control": the probe sends it.
out=$(wine_run 30 "$PROBE" --control cpupolicyd 8 2>&1)
if echo "$out" | grep -q 'error 1052'; then
	# ERROR_INVALID_SERVICE_CONTROL from services.exe itself.
	skip "SERVICE_CONTROL_PARAMCHANGE reloads the rules" \
		"Wine's services.exe refuses the control (1052)"
else
	wait_for 20 logged 'rules reloaded'
	result $? "SERVICE_CONTROL_PARAMCHANGE reloads the rules"
fi
lines2=$(wc -l <"$log")
wine_run 30 "$PROBE" --control cpupolicyd 128 >/dev/null 2>&1
reloaded_again() { tail -n +"$((lines2 + 1))" "$log" | grep -q 'rules reloaded'; }
wait_for 20 reloaded_again
result $? "the service's own control 128 reloads the rules"
wine_run 60 sc stop cpupolicyd >/dev/null 2>&1
wait_for 30 state_is STOPPED
result $? "sc stop cpupolicyd: STOPPED"
wait_for 10 logged 'stopped'
result $? "the service stopped cleanly (its log says so)"
wine_run 60 net start cpupolicyd >/dev/null 2>&1
wait_for 30 state_is RUNNING
result $? "net start cpupolicyd"
wine_run 60 net stop cpupolicyd >/dev/null 2>&1
wait_for 30 state_is STOPPED
result $? "net stop cpupolicyd"
# A broken rule file: the service stops with its own error code, and its
# log says why.
bad=$WINEPREFIX/drive_c/ProgramData/cpupolicy/rules.d/zz-itest-bad.rules
echo 'version = 1; rules = ( { name = "x"; bogus = 1; } );' >"$bad"
wine_run 60 sc start cpupolicyd >/dev/null 2>&1
# Both at once: the exit code is set while the state may still be
# STOP_PENDING.
stopped_failing() {
	query | grep -q 'SERVICE_EXIT_CODE *: *1 ' && state_is STOPPED
}
wait_for 30 stopped_failing
result $? "a broken rule file: the service stops, SERVICE_EXIT_CODE 1"
wait_for 10 logged "zz-itest-bad.rules:1: error: unknown key 'bogus'"
result $? "its log names the file, the line and the error"
rm -f "$bad"
new_log | sed 's/^/# service log: /' | grep -v 'cannot list' | head -20

out=$(wine_run 60 "$DAEMON" --uninstall 2>&1)
rc=$?
echo "$out" | sed 's/^/# uninstall: /'
[ $rc -eq 0 ] && installed=
result $rc "cpupolicyd.exe --uninstall"
! query | grep -q 'WIN32_OWN_PROCESS'
result $? "sc query cpupolicyd: no such service any more"
! wine_run 30 reg query 'HKLM\Software\cpupolicy' >/dev/null 2>&1
result $? "no registry key of the daemon's left behind"

finish windows-integration
