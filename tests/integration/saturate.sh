#!/bin/bash
# cpupolicyctl saturate on this machine, with each pathology made for
# real: an idle machine passes; a narrow affinity, an offline cpu1, busy
# competitors and a cgroup CPU quota are each found, with the efficiency
# they cost; --compare with class high shows the gain and its cost.
# cpu1 comes back online and the test cgroup goes away, whatever happens.
. "$(dirname "$0")/lib.sh"

V1=/sys/fs/cgroup/cpu
CG="cpupolicy-saturate-$$"
[ -w "$CPU1" ] && restore_cpu1_at_exit
# The test's cgroup goes away at exit; its processes are gone by then.
at_exit 'for dir in "$V1/$CG" "/sys/fs/cgroup/unified/$CG" "/sys/fs/cgroup/$CG"; do [ -d "$dir" ] && rmdir "$dir" 2>/dev/null; done'

sat() { "$CTL" saturate "$@"; }
efficiency() { grep -o '"efficiency":[0-9.]*' <<<"$1" | cut -d: -f2; }
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }
finding() { grep -q "\"kind\":\"$2\"" <<<"$1"; }

run sat --seconds 3 --json
e=$(efficiency "$out")
if [ "$status" -eq 0 ] && ! below "$e" 0.9; then
	ok "idle machine: efficiency $e, exit 0"
else
	not_ok "idle machine" "exit $status, efficiency $e; $err"
fi

run sat --seconds 2
expect_contains "text report" "$out" "efficiency:" &&
	expect_contains "text bars" "$out" "cpu1    [" &&
	expect_contains "text threads" "$out" "CPU time of each worker thread:" &&
	ok "text report: efficiency, a bar per CPU, CPU time per thread"

run taskset -c 0 "$CTL" saturate --seconds 2 --json
e=$(efficiency "$out")
if [ "$status" -eq 1 ] && below "$e" 0.6 && finding "$out" affinity &&
	grep -q 'may run only on CPUs 0 (1 of 2 online)' <<<"$out"; then
	ok "confined by taskset -c 0: affinity found, efficiency $e, exit 1"
else
	not_ok "taskset confinement" "exit $status, efficiency $e; $out"
fi

if [ -w "$CPU1" ] && [ "$(id -u)" -eq 0 ]; then
	echo 0 >"$CPU1"
	run sat --threads 2 --seconds 2 --json
	echo 1 >"$CPU1"
	e=$(efficiency "$out")
	if below "$e" 0.6 && finding "$out" offline-cpus &&
		grep -q 'CPUs 1 are offline (parked): 1 of 2 CPUs' <<<"$out" &&
		grep -q 'parking = \\"off\\"' <<<"$out"; then
		ok "cpu1 offline: parked CPU found, with parking off as the fix, efficiency $e"
	else
		not_ok "offline cpu1" "efficiency $e; $out"
	fi
else
	skip "offline cpu1" "needs root and cpu1 hotplug"
fi

competitors=()
for _ in 1 2; do
	start sh -c 'while :; do :; done'
	competitors+=($!)
done
sleep 0.2
run sat --seconds 2 --json
e=$(efficiency "$out")
if below "$e" 0.75 && finding "$out" contention &&
	grep -q "pid ${competitors[0]} (sh, nice 0)" <<<"$out"; then
	ok "two busy competitors: contention found, naming them, efficiency $e"
else
	not_ok "competitors" "efficiency $e; $out"
fi
for c in "${competitors[@]}"; do stop "$c" 5; done

if [ "$(id -u)" -eq 0 ]; then
	run sat --compare 'priority = { class = "high"; };' --background 2 \
		--probe --pairs 3 --seconds 1
	change=$(grep -o 'change B/A: *[-+][0-9.]*' <<<"$out" | grep -o '[-+][0-9.]*')
	if [ "$status" -eq 0 ] && below 20 "${change#+}" &&
		grep -q 'background (2 threads, normal priority): [0-9]* % of its rate alone with A, [0-9]* % with B' <<<"$out" &&
		grep -q 'probe (1 ms period, normal priority): A p99' <<<"$out"; then
		ok "--compare class high: $change % with the background's cost and the probe reported"
	else
		not_ok "--compare" "exit $status; $out $err"
	fi
else
	skip "--compare class high" "raising priority needs root"
fi

run sat --compare 'priority = { nice = 99; };'
expect_status "--compare bad body" 2 &&
	expect_contains "--compare error line" "$err" "--compare:1: error: priority.nice: 99 is out of range (-20..19)" &&
	ok "--compare validates its body like a rule"

run sat --threads 0
expect_status "bad --threads" 2 && ok "usage errors exit 2"

# A CPU quota of half a CPU through the cgroup cpu controller.
quota_test() { # DIR FILE VALUE LABEL
	local dir=$1
	mkdir "$dir" || return 1
	echo "$3" >"$dir/$2" || return 1
	run sh -c "echo \$\$ >'$dir/cgroup.procs' && exec '$CTL' saturate --seconds 2 --json"
	e=$(efficiency "$out")
	if below "$e" 0.5 && finding "$out" cpu-quota &&
		grep -q "limits CPU time to 0.50 CPUs" <<<"$out"; then
		ok "$4 CPU quota of 0.5: found, efficiency $e"
	else
		not_ok "$4 quota" "efficiency $e; $out $err"
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
