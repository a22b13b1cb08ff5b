#!/bin/bash
# cpupolicyctl saturate on this machine, with each pathology made for
# real: an idle machine passes; a narrow affinity, an offline cpu1 (with
# the default threads: one per CPU the machine has), busy competitors and
# a cgroup CPU quota are each found, with the efficiency they cost;
# --compare with class high shows the gain and its cost, in A B, B A
# order; the scheduled check skips a busy machine, and writes its
# textfile whole. cpu1 comes back online and the test cgroup goes away,
# whatever happens. Every figure expected is computed from this machine
# as sysfs shows it (CPUs online and present, cores and their hardware
# threads) and from the CPUs the script may use: the runner's 1-CPU pass
# confines it, and then the idle check must find that confinement.
. "$(dirname "$0")/lib.sh"

ONLINE=$(machine_online)
N_ONLINE=$(cpulist_count "$ONLINE")
N_PRESENT=$(cpulist_count "$(machine_present)")
CORES=$(machine_cores "$ONLINE")
ALLOWED=$(machine_allowed)
N_ALLOWED=$(cpulist_count "$ALLOWED")
FIRST=$(cpulist_expand "$ALLOWED" | head -n 1)
LAST=$(cpulist_expand "$ONLINE" | tail -n 1)
CPU0=$(cpulist_expand "$(machine_present)" | head -n 1)
read -r CPUSET_CG CPUSET_CPUS <<<"$(machine_cpuset)"
echo "# $N_ONLINE of $N_PRESENT CPUs online ($ONLINE) on $CORES cores; this script may use $ALLOWED${CPUSET_CG:+ (cpuset $CPUSET_CG: $CPUSET_CPUS)}"
# efficiency_bound PART WHOLE: the most efficiency a run may show when
# only PART of the WHOLE machine's one-thread rates can work, with room
# for the noise of a short run.
efficiency_bound() { fraction "$1" "$2" 0.1; }

V1=/sys/fs/cgroup/cpu
CG="cpupolicy-saturate-$$"
[ -w "$CPU1" ] && restore_cpu1_at_exit
# The test's cgroup goes away at exit; its processes are gone by then.
at_exit 'for dir in "$V1/$CG" "/sys/fs/cgroup/unified/$CG" "/sys/fs/cgroup/$CG"; do [ -d "$dir" ] && rmdir "$dir" 2>/dev/null; done'

sat() { "$CTL" saturate "$@"; }
efficiency() { grep -o '"efficiency":[0-9.]*' <<<"$1" | cut -d: -f2; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
finding() { grep -q "\"kind\":\"$2\"" <<<"$1"; }

# busy_loops COUNT: COUNT shell loops that keep a CPU busy each, their
# pids in $competitors; they inherit what confines the script.
busy_loops() {
	local i
	competitors=()
	for ((i = 0; i < $1; i++)); do
		start sh -c 'while :; do :; done'
		competitors+=($!)
	done
	sleep 0.2
}

# named_one: the report names one of the competitors.
named_one() {
	local c
	for c in "${competitors[@]}"; do
		grep -q "pid $c (sh, nice 0)" <<<"$out" && return 0
	done
	return 1
}

# confinement_found: what confines the script to $ALLOWED is found: its
# affinity, and its cpuset where that is what narrows it.
confinement_found() {
	finding "$out" affinity &&
		grep -q "may run only on CPUs $ALLOWED ($N_ALLOWED of $N_ONLINE online)" <<<"$out" || return 1
	if [ -n "$CPUSET_CG" ] &&
		[ -n "$(cpulist_minus "$ONLINE" "$CPUSET_CPUS")" ]; then
		finding "$out" cpuset &&
			grep -q "the cpuset of cgroup $CPUSET_CG allows only CPUs $CPUSET_CPUS" <<<"$out"
	else
		! finding "$out" cpuset
	fi
}

# Idle: >= 90 % and exit 0. The machine is shared: when other work took
# the CPUs (the check's own contention finding says so) it is tried again,
# up to 4 times within 120 s, and then skipped with the reason rather than
# failed; below 90 % without contention is a failure. Confined to fewer
# CPUs than are online (the runner's 1-CPU pass), the machine is one the
# script cannot use all of, and the check must say so instead: exit 1,
# the confinement found, the efficiency no more than the CPUs allowed
# can give.
if [ "$N_ALLOWED" -lt "$N_ONLINE" ]; then
	bound=$(efficiency_bound "$N_ALLOWED" "$CORES")
	run sat --seconds 3 --json
	e=$(efficiency "$out")
	if [ "$status" -eq 1 ] && below "$e" "$bound" && confinement_found; then
		ok "confined to CPUs $ALLOWED of $ONLINE: the confinement found, efficiency $e (at most $bound), exit 1"
	else
		not_ok "confined machine" "exit $status, efficiency $e (at most $bound); $out $err"
	fi
else
	until=$(($(date +%s) + 120))
	for try in 1 2 3 4; do
		run sat --seconds 3 --json
		e=$(efficiency "$out")
		[ "$status" -eq 0 ] && ! below "$e" 0.9 && break
		finding "$out" contention && [ "$try" -lt 4 ] &&
			[ "$(date +%s)" -lt "$until" ] || break
		echo "# idle run $try: efficiency $e with other work on the CPUs; again"
		sleep 5
	done
	if [ "$status" -eq 0 ] && ! below "$e" 0.9; then
		ok "idle machine: efficiency $e, exit 0 (try $try)"
	elif finding "$out" contention; then
		skip "idle machine" "the machine was busy in all $try tries (efficiency $e, contention)"
	else
		not_ok "idle machine" "exit $status, efficiency $e; $out $err"
	fi
fi

# The text: a bar for the last CPU online, the first core with its
# hardware threads as sysfs lists them, and SMT as this machine has it
# (measured on a core whose threads the script may all use, else the
# assumed yield).
if machine_smt; then
	smt_text='SMT yield: *[-+][0-9.]* %, (measured on the core of CPUs|assumed)'
else
	smt_text='SMT: {20}none: one hardware thread a core'
fi
run sat --seconds 2
expect_contains "text report" "$out" "efficiency:" &&
	expect_contains "text bars" "$out" "$(printf '    cpu%-4d [' "$LAST")" &&
	expect_contains "text threads" "$out" "CPU time of each worker thread:" &&
	expect_contains "text cores" "$out" "$(printf '  core 0    CPUs %-10s ' "$(machine_siblings "$CPU0")")" &&
	{ grep -qE "^  $smt_text" <<<"$out" || not_ok "text SMT" "no /$smt_text/ in: $out"; } &&
	expect_contains "text clock" "$out" "M units/s of wall-clock time over" &&
	expect_contains "text evidence" "$out" "M per CPU second, on a CPU" &&
	ok "text report: both rates on the wall clock with CPU time beside them, a bar per CPU, a line per core, CPU time per thread"

# One CPU of those online: what the others could have done is missed.
if [ "$N_ONLINE" -ge 2 ]; then
	bound=$(efficiency_bound 1 "$CORES")
	run taskset -c "$FIRST" "$CTL" saturate --seconds 2 --json
	e=$(efficiency "$out")
	if [ "$status" -eq 1 ] && below "$e" "$bound" && finding "$out" affinity &&
		grep -q "may run only on CPUs $FIRST (1 of $N_ONLINE online)" <<<"$out"; then
		ok "confined by taskset -c $FIRST: affinity found, efficiency $e (at most $bound), exit 1"
	else
		not_ok "taskset confinement" "exit $status, efficiency $e (at most $bound); $out"
	fi
else
	skip "taskset confinement" "one CPU online: nothing to confine it from"
fi

# cpu1 offline: the capacity lost is what it gave, a core or an SMT
# sibling's share, out of every CPU present. Either way the efficiency is
# at most the larger of the cores and the hardware threads still online
# over those present (each CPU counted once: an SMT yield lies between);
# where that loss alone takes it below the check's 90 %, exit 1.
if [ -w "$CPU1" ] && [ "$(id -u)" -eq 0 ] && [ "$(cpu1)" = 1 ] &&
	[ "$ALLOWED" != 1 ]; then
	PRESENT=$(machine_present)
	LEFT=$(cpulist_minus "$ONLINE" 1)
	PARKED=$(cpulist_minus "$PRESENT" "$LEFT")
	N_LEFT=$(cpulist_count "$LEFT")
	bound=$(awk -v c="$(fraction "$(machine_cores "$LEFT")" "$(machine_cores "$PRESENT")")" \
		-v t="$(fraction "$N_LEFT" "$N_PRESENT")" \
		'BEGIN { printf "%.4f", (c > t ? c : t) + 0.1 }')
	want_status=1
	below "$bound" 0.9 || want_status=any
	# No --threads: one thread per CPU the machine has, parked or not.
	echo 0 >"$CPU1"
	run sat --seconds 2 --json
	echo 1 >"$CPU1"
	e=$(efficiency "$out")
	if { [ "$want_status" = any ] || [ "$status" -eq 1 ]; } &&
		below "$e" "$bound" && finding "$out" offline-cpus &&
		grep -q "\"threads\":$N_PRESENT," <<<"$out" &&
		grep -q "CPUs $PARKED are offline (parked): $N_LEFT of $N_PRESENT CPUs" <<<"$out" &&
		grep -q 'parking = \\"off\\"' <<<"$out" &&
		! finding "$out" more-threads-than-cpus; then
		ok "cpu1 offline, default threads: $N_PRESENT threads, efficiency $e (at most $bound), exit $status (wanted $want_status), parked CPU found with parking off as the fix"
	else
		not_ok "offline cpu1" "exit $status (wanted $want_status), efficiency $e (at most $bound); $out"
	fi
	echo 0 >"$CPU1"
	run sat --threads 1 --seconds 1 --json
	echo 1 >"$CPU1"
	grep -q '"threads":1,' <<<"$out" && finding "$out" offline-cpus &&
		ok "cpu1 offline, --threads 1: the count given wins, the parked CPU still found" ||
		not_ok "offline cpu1 --threads 1" "$out"
else
	skip "offline cpu1" "needs root, cpu1 online and its hotplug, and a CPU besides it to run on"
	skip "offline cpu1 --threads 1" "needs root, cpu1 online and its hotplug, and a CPU besides it to run on"
fi

# Two busy loops for each CPU the script may use: every step shares its
# CPU with them, on the same clock, so the one thread alone has at most
# N/(2N+1) of a CPU (2/5 with two CPUs), which the report says.
busy_loops $((2 * N_ALLOWED))
run sat --seconds 2 --json
e=$(efficiency "$out")
if finding "$out" contention && finding "$out" baseline-shared && named_one &&
	grep -q 'the one thread alone was on a CPU [0-9]* % of its' <<<"$out"; then
	ok "${#competitors[@]} busy competitors: contention found, naming one, and the baseline's shared CPU said (efficiency $e)"
else
	not_ok "competitors" "efficiency $e; $out"
fi
for c in "${competitors[@]}"; do stop "$c" 5; done

# A background thread for each CPU the script may use: the workers share
# every CPU with it at normal priority, and class high takes it back.
if [ "$(id -u)" -eq 0 ]; then
	run sat --compare 'priority = { class = "high"; };' --background "$N_ALLOWED" \
		--probe --pairs 2 --seconds 1
	change=$(grep -o 'change B/A: *[-+][0-9.]*' <<<"$out" | grep -o '[-+][0-9.]*')
	if [ "$status" -eq 0 ] && below 20 "${change#+}" &&
		grep -q 'order A B, B A, ...: A first in 1, B first in 1' <<<"$out" &&
		grep -q 'throughput A: .* M units/s (geometric mean of 2 trials)' <<<"$out" &&
		grep -q 'mean of the log ratios, t 12.706 with 1 df' <<<"$out" &&
		grep -q "workers' priority: A nice 0 other, io from nice; B nice -10 other" <<<"$out" &&
		grep -qE "background \($N_ALLOWED threads?, normal priority\): [0-9]* % of its rate alone with A, [0-9]* % with B" <<<"$out" &&
		grep -q 'probe (1 ms period, normal priority): A p99 .* (pooled over the trials; worst trial.s p99: A [0-9]* us, B [0-9]* us)' <<<"$out"; then
		ok "--compare class high: $change % with the background's cost and the probe reported"
	else
		not_ok "--compare" "exit $status; $out $err"
	fi
else
	skip "--compare class high" "raising priority needs root"
fi

run sat --compare 'priority = { nice = 5; };' --pairs 3
expect_status "--pairs 3" 2 &&
	expect_contains "--pairs 3 says why" "$err" "--pairs: 3 is odd: A goes first in half the pairs" &&
	ok "--compare refuses an odd number of pairs: the order would favour A"

run sat --compare 'priority = { nice = 99; };'
expect_status "--compare bad body" 2 &&
	expect_contains "--compare error line" "$err" "--compare:1: error: priority.nice: 99 is out of range (-20..19)" &&
	ok "--compare validates its body like a rule"

run sat --threads 0
expect_status "bad --threads" 2 &&
	expect_contains "bad --threads says why" "$err" "--threads: '0' is not a whole number from 1 to 1024" &&
	ok "usage errors exit 2, saying what is wrong"

# The scheduled check: its own state directory and textfile directory.
write_conf
TEXTDIR="$TMP/textfile"
PROM="$TEXTDIR/cpupolicy_saturate.prom"
mkdir -p "$TEXTDIR"
csat() { "$CTL" -c "$CONF" saturate "$@"; }
promcheck() { command -v promtool >/dev/null || return 0; promtool check metrics <"$1" >/dev/null 2>&1; }

run csat --if-idle 100 --seconds 1 --textfile "$PROM" --json
if [ -f "$PROM" ] && grep -q '^cpupolicy_saturate_skipped 0$' "$PROM" &&
	grep -q '^cpupolicy_saturate_efficiency [0-9.]*$' "$PROM" &&
	grep -q '^cpupolicy_saturate_finding{kind="offline-cpus"} [01]$' "$PROM" &&
	grep -q "^cpupolicy_saturate_core_use{core=\"0\",cpus=\"$(machine_siblings "$CPU0")\"} [0-9.]*\$" "$PROM" &&
	[ -z "$(ls "$TEXTDIR" | grep -v '^cpupolicy_saturate.prom$')" ] && promcheck "$PROM"; then
	ok "--if-idle 100 runs and writes the textfile: the result, per core and per finding, and skipped 0; nothing else left in the directory"
else
	not_ok "textfile of a check" "exit $status; $(ls "$TEXTDIR"); $(cat "$PROM" 2>&1) $err"
fi

# A busy loop for each CPU the script may use keeps that share of the
# online CPUs busy: the limit is half of it.
busy_loops "$N_ALLOWED"
limit=$((50 * N_ALLOWED / N_ONLINE))
[ "$limit" -ge 1 ] || limit=1
run csat --if-idle "$limit" --seconds 1 --textfile "$PROM"
if [ "$status" -eq 0 ] && [ -z "$out" ] &&
	grep -q "saturate skipped: the machine was [0-9]* % busy over 2 s, above the --if-idle limit of $limit %" <<<"$err" &&
	grep -q '^cpupolicy_saturate_skipped 1$' "$PROM" &&
	grep -q "^cpupolicy_saturate_attempt_idle_limit $(fraction "$limit" 100)\$" "$PROM" &&
	grep -q '^cpupolicy_saturate_efficiency [0-9.]*$' "$PROM" && promcheck "$PROM"; then
	ok "--if-idle $limit with $N_ALLOWED busy loops: skipped, said, exit 0; the textfile keeps the last result and says skipped 1"
else
	not_ok "--if-idle skip" "exit $status; $out; $err; $(cat "$PROM" 2>&1)"
fi
for c in "${competitors[@]}"; do stop "$c" 5; done

run csat --seconds 1 --textfile "$TMP/nowhere/x.prom"
expect_status "textfile in a missing directory" 2 &&
	expect_contains "textfile error" "$err" "cannot write $TMP/nowhere/x.prom: No such file or directory" &&
	ok "a textfile that cannot be written: said, exit 2"

run csat --smt-yield 30 --seconds 1 --json
if machine_smt; then
	grep -q '"smt":{"source":"given","yield":0.3000' <<<"$out" &&
		ok "SMT here: the yield --smt-yield gives is the one used" ||
		not_ok "smt yield given" "$out"
else
	grep -q '"smt":{"source":"none","yield":0.0000}' <<<"$out" &&
		ok "no SMT here: no yield, whatever --smt-yield says" ||
		not_ok "smt on a machine without" "$out"
fi


# A CPU quota of half a CPU through the cgroup cpu controller.
quota_test() { # DIR FILE VALUE LABEL
	local dir=$1
	mkdir "$dir" || return 1
	echo "$3" >"$dir/$2" || return 1
	run sh -c "echo \$\$ >'$dir/cgroup.procs' && exec '$CTL' saturate --seconds 2 --json"
	e=$(efficiency "$out")
	# The baseline runs under the same quota: half a CPU for one thread
	# and for all of them, which is one thread's rate of the capacity,
	# at least one a core: 0.5 with two, and the check fails; with one
	# core nothing is lost to see.
	local bound want_status=1
	bound=$(efficiency_bound 1 "$CORES")
	below "$bound" 0.9 || want_status=any
	if below "$e" "$bound" && finding "$out" cpu-quota &&
		{ [ "$want_status" = any ] || [ "$status" -eq 1 ]; } &&
		grep -q "limits CPU time to 0.50 CPUs" <<<"$out"; then
		ok "$4 CPU quota of 0.5: found, efficiency $e (at most $bound), exit $status (wanted $want_status)"
	else
		not_ok "$4 quota" "exit $status (wanted $want_status), efficiency $e (at most $bound); $out $err"
	fi
}
if [ "$(id -u)" -eq 0 ] && [ -w "$V1/cpu.cfs_quota_us" ]; then
	quota_test "$V1/$CG" cpu.cfs_quota_us 50000 "cgroup v1"
else
	skip "cgroup v1 CPU quota" "no writable cpu controller here"
fi
v2=
for root in /sys/fs/cgroup /sys/fs/cgroup/unified; do
	grep -qw cpu "$root/cgroup.controllers" 2>/dev/null && v2=$root && break
done
if [ "$(id -u)" -eq 0 ] && [ -n "$v2" ] && grep -qw cpu "$v2/cgroup.subtree_control" 2>/dev/null; then
	quota_test "$v2/$CG" cpu.max "50000 100000" "cgroup v2"
else
	skip "cgroup v2 CPU quota" "the cpu controller is not on a v2 hierarchy here"
fi

finish
