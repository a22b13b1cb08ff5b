#!/bin/bash
# shellcheck disable=SC2317 # functions run through poll and the EXIT trap
# The package under a real systemd: the .deb built from the committed tree
# is installed in a Debian 12 root, which systemd-nspawn boots; there the
# units are checked as a machine runs them: socket activation, Type=notify,
# the bounding set, reload (also of bad rules), power holds given back on
# stop, after a SIGKILL and after a crash of the whole machine, the PM QoS
# request, the exposure score, and a purge that leaves nothing.
#
# Prints TAP lines and ends with "N passed, N failed, N skipped". It skips
# only where this machine cannot run it: not root, no systemd-nspawn, no
# cgroup hierarchy, no network for a first debootstrap. The bootstrapped
# root is cached in /var/tmp (keyed by a hash of its package list), so a
# second run takes seconds; all else goes away on exit.
# Environment: SUITE (default bookworm).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
SUITE=${SUITE:-bookworm}
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
# Inside the container.
PROBE=/usr/local/bin/cpupolicy-probe
HOLDER=/usr/local/bin/cpupolicy-holder
PARKER=/usr/local/bin/cpupolicy-parker
RULES=/etc/cpupolicy/rules.d/50-systemd-test.rules
BROKEN=/etc/cpupolicy/rules.d/60-broken.rules
CONF=/etc/cpupolicy/cpupolicyd.conf
DROPIN=/etc/systemd/system/cpupolicyd.service.d/50-systemd-test.conf
FAKE=/var/lib/cpupolicy-fake/sys
GOVERNOR=$FAKE/devices/system/cpu/cpufreq/policy0/scaling_governor
CPU1=$FAKE/devices/system/cpu/cpu1/online
DMA=/dev/cpu_dma_latency
TAB=$'\t'

count=0
passed=0
failed=0
skipped=0
WORK=
BASE=
nspawn_pid=
leader=
cg_roots=()
cg_name=cpupolicy-systemd-test.$$
machine=cpupolicy-test-$$

ok() {
	count=$((count + 1))
	passed=$((passed + 1))
	echo "ok $count - $1"
}

not_ok() { # name, why (one or more lines)
	count=$((count + 1))
	failed=$((failed + 1))
	echo "not ok $count - $1"
	shift
	printf '%s\n' "$@" | sed 's/^/#   /'
}

skip() { # name, reason
	count=$((count + 1))
	skipped=$((skipped + 1))
	echo "ok $count - $1 # SKIP $2"
}

comment() {
	printf '%s\n' "$@" | sed 's/^/# /'
}

finish() {
	echo "1..$count"
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
	exit
}

# A stopped run (a timed-out CI job) says so and still cleans up: finish
# exits, and EXIT runs the cleanup.
trap 'not_ok "the run goes to its end" "stopped by a signal"; finish' INT TERM HUP

alive() { # PID: running, not a zombie
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# poll SECONDS CMD...: CMD until it succeeds, for at most SECONDS.
poll() {
	local end=$((SECONDS + $1))
	shift
	while :; do
		"$@" && return 0
		[ "$SECONDS" -ge "$end" ] && return 1
		sleep 0.2
	done
}

# ns CMD...: CMD in the booted container, with a clean environment and a
# deadline (NS_TIMEOUT seconds, default 60).
ns() {
	local t=${NS_TIMEOUT:-60}
	timeout -k 5 $((t + 10)) nsenter --target "$leader" --mount --uts \
		--ipc --net --pid -- /usr/bin/env -i \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LC_ALL=C.UTF-8 SYSTEMD_COLORS=0 SYSTEMD_PAGER= \
		timeout -k 5 "$t" "$@"
}

# ---- environment ----------------------------------------------------------

# Where systemd-nspawn --keep-unit makes its payload and supervisor
# cgroups: below a group of ours in each hierarchy, so that they are not
# left at the host's root and two runs do not share them.
cgroup_layout() {
	local t
	t=$(stat -fc %T /sys/fs/cgroup 2>/dev/null)
	if [ "$t" = cgroup2fs ]; then
		cg_roots=(/sys/fs/cgroup)
	elif [ "$(stat -fc %T /sys/fs/cgroup/systemd 2>/dev/null)" = cgroupfs ]; then
		cg_roots=(/sys/fs/cgroup/systemd)
		# Hybrid: the container's systemd gets cgroup v2, as on a
		# Debian 12 machine.
		if [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
			cg_roots+=(/sys/fs/cgroup/unified)
			export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1
		fi
	else
		return 1
	fi
}

# The pids in our cgroups: nothing but the container and its nspawn.
cgroup_pids() {
	local root
	for root in "${cg_roots[@]}"; do
		[ -d "$root/$cg_name" ] &&
			find "$root/$cg_name" -name cgroup.procs -exec cat {} + 2>/dev/null
	done
}

cgroup_empty() {
	[ -z "$(cgroup_pids)" ]
}

# Behind stop_container: whatever still runs in our cgroups is killed,
# then the cgroups go.
cgroup_cleanup() {
	local root pids
	pids=$(cgroup_pids)
	# shellcheck disable=SC2086 # one pid a word
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	poll 10 cgroup_empty || echo "# still running in our cgroups: $(cgroup_pids)"
	for root in "${cg_roots[@]}"; do
		[ -d "$root/$cg_name" ] &&
			find "$root/$cg_name" -depth -type d -exec rmdir {} + 2>/dev/null
	done
}

check_environment() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "systemd units in a container" "needs root"
		finish
	fi
	if ! command -v systemd-nspawn >/dev/null &&
		! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q \
			--no-install-recommends systemd-container >/dev/null 2>&1; then
		skip "systemd units in a container" "systemd-nspawn is missing and cannot be installed (Debian package systemd-container)"
		finish
	fi
	if ! cgroup_layout; then
		skip "systemd units in a container" "no cgroup2 or name=systemd hierarchy mounted under /sys/fs/cgroup"
		finish
	fi
}

# ---- the package and the root ---------------------------------------------

build_deb() {
	local log=$WORK/deb.log
	if ! (cd "$top" && timeout 1800 make -s deb BUILD="$WORK/build") \
		>"$log" 2>&1; then
		not_ok "make deb builds the package" "$(tail -n 20 "$log")"
		finish
	fi
	deb=$(find "$WORK/build/pkg" -maxdepth 1 -name "cpupolicy_*_$ARCH.deb" | head -n 1)
	if [ -z "$deb" ]; then
		not_ok "make deb builds the package" "no cpupolicy_*_$ARCH.deb in $WORK/build/pkg"
		finish
	fi
	ok "make deb builds $(basename "$deb") from the committed tree"
}

# The base root's packages: systemd and dbus to boot, and what the .deb
# depends on, so that dpkg -i needs no network.
base_packages() {
	{
		echo systemd
		echo dbus
		dpkg-deb -f "$deb" Depends | tr ',' '\n' |
			sed 's/|.*//; s/(.*)//; s/[[:space:]]//g'
	} | grep -v '^$' | sort -u
}

# This machine's Debian mirror, as in its apt sources (which stay as they
# are); empty: debootstrap's default.
mirror() {
	local m
	m=$(awk -v suite="$SUITE" 'BEGIN { RS = "" }
		$0 ~ "Suites:[^\n]*[[:space:]]" suite "([[:space:]]|$)" {
			for (i = 1; i <= NF; i++)
				if ($i == "URIs:") { print $(i + 1); exit }
		}' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[ -n "$m" ] || m=$(awk -v suite="$SUITE" '$1 == "deb" {
			for (i = 2; i < NF; i++) {
				if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; continue }
				if ($(i + 1) == suite) { print $i; exit }
				break
			}
		}' /etc/apt/sources.list 2>/dev/null | head -n 1)
	echo "$m"
}

make_base() {
	local pkgs key b m args log=$WORK/debootstrap.log start=$SECONDS
	pkgs=$(base_packages)
	key=$(printf '%s\n' "$SUITE" minbase "$pkgs" | sha256sum | cut -c1-16)
	BASE=/var/tmp/cpupolicy-systemd-$SUITE-$key.tar
	if [ -f "$BASE" ]; then
		ok "a Debian $SUITE root with systemd, dbus and the package's dependencies (cached: $BASE)"
		return 0
	fi
	if ! command -v debootstrap >/dev/null &&
		! DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q \
			--no-install-recommends debootstrap >/dev/null 2>&1; then
		not_ok "debootstrap" "debootstrap is missing and cannot be installed"
		finish
	fi
	b=$WORK/base
	args=(--variant=minbase --include="$(paste -sd, <<<"$pkgs")" "$SUITE" "$b")
	m=$(mirror)
	[ -n "$m" ] && args+=("$m")
	if ! timeout 1800 debootstrap "${args[@]}" >"$log" 2>&1; then
		if grep -qE "Failed getting release file|Couldn't download|Temporary failure resolving|Could not resolve" "$log"; then
			skip "a Debian $SUITE root" "no network to debootstrap: $(grep -m1 -E 'Failed|download|resolv' "$log")"
			finish
		fi
		not_ok "debootstrap --variant=minbase $SUITE" "$(tail -n 20 "$log")"
		finish
	fi
	rm -f "$b"/var/cache/apt/archives/*.deb
	if ! tar -C "$b" -cf "$BASE.$$" . || ! mv "$BASE.$$" "$BASE"; then
		not_ok "cache the base root" "cannot write $BASE"
		finish
	fi
	rm -rf --one-file-system "$b"
	ok "a Debian $SUITE root with systemd, dbus and the package's dependencies (debootstrap, $((SECONDS - start)) s; cached as $BASE)"
}

# nspawn GROUP SECONDS ARGS...: becomes systemd-nspawn (run it in a
# subshell) in our cgroup GROUP, without registering (no machined here)
# and in the cgroup it was started in; killed after SECONDS unless 0.
nspawn() {
	local group=$cg_name/$1 deadline=() root
	[ "$2" -gt 0 ] && deadline=(timeout -k 5 "$2")
	shift 2
	for root in "${cg_roots[@]}"; do
		mkdir -p "$root/$group" &&
			echo "$BASHPID" >"$root/$group/cgroup.procs" || exit 1
	done
	exec "${deadline[@]}" systemd-nspawn --register=no --keep-unit -q \
		-M "$machine" -D "$ROOT" "$@"
}

install_deb() {
	local log=$WORK/install.log
	ROOT=$WORK/root
	mkdir -p "$ROOT"
	if ! tar -C "$ROOT" -xf "$BASE"; then
		not_ok "unpack the base root" "tar -xf $BASE failed"
		finish
	fi
	# Not /tmp: the container gets a tmpfs there.
	mkdir -p "$ROOT/var/cache/cpupolicy-test"
	cp "$deb" "$ROOT/var/cache/cpupolicy-test/"
	if ! (nspawn install 300 --pipe \
		dpkg -i "/var/cache/cpupolicy-test/$(basename "$deb")") \
		</dev/null >"$log" 2>&1; then
		not_ok "dpkg -i in the container" "$(tail -n 20 "$log")"
		finish
	fi
	rm -rf "$ROOT/var/cache/cpupolicy-test"
	ok "dpkg -i installs it in the root (its postinst enables the units)"
}

# ---- booting and stopping -------------------------------------------------

# The container's PID 1: the child of systemd-nspawn that is PID 1 in its
# own namespace and runs systemd (before that, it is nspawn's helper).
find_leader() {
	local child
	read -r child _ 2>/dev/null <"/proc/$nspawn_pid/task/$nspawn_pid/children"
	[ -n "$child" ] || return 1
	[ "$(cat "/proc/$child/comm" 2>/dev/null)" = systemd ] || return 1
	awk '/^NSpid:/ { exit ($NF != 1) }' "/proc/$child/status" || return 1
	leader=$child
}

boot_state() {
	state=$(NS_TIMEOUT=120 ns systemctl is-system-running --wait 2>/dev/null)
	case $state in
	running | degraded) return 0 ;;
	esac
	return 1
}

boot() { # GROUP
	local bind=() end
	console=$WORK/console-$1.log
	# The node PM QoS requests go to; nspawn's /dev has none.
	[ -c "$DMA" ] && bind=(--bind="$DMA")
	# In the background, in a subshell that becomes systemd-nspawn. Its
	# default capabilities lack the exec filter's two, which the unit's
	# bounding set names: granted, so that the set is the unit's.
	nspawn "$1" 0 --console=read-only --capability=CAP_BPF,CAP_PERFMON \
		"${bind[@]}" -b </dev/null \
		>"$console" 2>&1 &
	nspawn_pid=$!
	leader=
	if ! poll 30 find_leader; then
		not_ok "the container boots" "no systemd as its PID 1 after 30 s; console:" \
			"$(tail -n 20 "$console")"
		finish
	fi
	# Until systemd listens, systemctl says "offline": try again.
	end=$((SECONDS + 120))
	state=
	until boot_state || [ "$SECONDS" -ge "$end" ]; do
		alive "$nspawn_pid" || break
		sleep 0.5
	done
	case $state in
	running)
		ok "the container boots: systemd $(ns systemctl --version | awk 'NR == 1 { print $2 }') is running"
		;;
	degraded)
		ok "the container boots: systemd is degraded (not our units)"
		comment "failed units:" "$(ns systemctl --failed --no-legend --plain)"
		;;
	*)
		not_ok "the container boots" "state '$state' after 120 s; jobs:" \
			"$(ns systemctl list-jobs --no-legend 2>&1 | head -n 20)" \
			"console:" "$(tail -n 20 "$console")"
		finish
		;;
	esac
}

nspawn_gone() {
	! alive "$nspawn_pid"
}

# Power off with a deadline (SIGRTMIN+4 asks systemd for it), then kill.
stop_container() {
	[ -n "$nspawn_pid" ] || return 0
	if alive "$nspawn_pid" && [ -n "$leader" ]; then
		kill -RTMIN+4 "$leader" 2>/dev/null
		poll 60 nspawn_gone
	fi
	if alive "$nspawn_pid"; then
		[ -n "$leader" ] && kill -KILL "$leader" 2>/dev/null
		poll 10 nspawn_gone || kill -KILL "$nspawn_pid"
	fi
	wait "$nspawn_pid" 2>/dev/null
	nspawn_pid=
	leader=
}

cleanup() {
	stop_container
	cgroup_cleanup
	[ -n "$BASE" ] && rm -f "$BASE.$$"
	if [ -n "$WORK" ]; then
		# Nothing is mounted on this side, but never delete through a
		# mount that somehow stayed, nor under a running container.
		if grep -q " $WORK/" /proc/mounts || ! cgroup_empty; then
			echo "# left $WORK: still mounted or in use"
		else
			rm -rf --one-file-system "$WORK"
		fi
	fi
}

# ---- helpers in the container ---------------------------------------------

prop() { # UNIT PROPERTY
	ns systemctl show -p "$2" --value "$1"
}

main_pid() {
	prop cpupolicyd.service MainPID
}

nice_of() { # PID (in the container)
	local stat
	stat=$(ns cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	# shellcheck disable=SC2086 # fields
	set -- $stat
	echo "${17}"
}

# start_probe UNIT EXE: a transient service running EXE (a copy of
# sleep); Type=exec, so that it runs the program once started.
start_probe() {
	ns systemd-run --quiet --collect -p Type=exec --unit="$1" "$2" 600 &&
		prop "$1.service" MainPID
}

# The service's log from a mark on: journal_mark, then journal_since.
journal_mark() {
	cursor=$(ns journalctl -q -n 1 --show-cursor -o cat 2>/dev/null |
		sed -n 's/^-- cursor: //p')
}

journal_since() {
	if [ -n "$cursor" ]; then
		ns journalctl -q --no-pager -u cpupolicyd --after-cursor="$cursor"
	else
		ns journalctl -q --no-pager -u cpupolicyd -b
	fi
}

# journal_wait PATTERN [SECONDS]: the unit's log (from the mark) gets a
# line matching PATTERN (grep -E), within SECONDS (default 5).
journal_wait() {
	poll "${2:-5}" journal_has "$1"
}

journal_has() { # PATTERN
	journal_since | grep -qE -- "$1"
}

fake() { # PATH below the fake sysfs, read from this side
	cat "$ROOT$1" 2>/dev/null
}

fake_is() { # PATH VALUE
	[ "$(fake "$1")" = "$2" ]
}

# The kernel's CPU latency limit: reading the node gives the aggregate of
# every PM QoS request (2000000000 when there is none).
qos_limit() {
	ns od -An -t d4 -N4 "$DMA" | tr -d ' '
}

# ---- the checks -----------------------------------------------------------

check_socket() {
	local enabled active listen
	enabled=$(ns systemctl is-enabled cpupolicyd.socket)
	active=$(ns systemctl is-active cpupolicyd.socket)
	listen=$(prop cpupolicyd.socket Listen | paste -sd ' ')
	if [ "$enabled" = enabled ] && [ "$active" = active ] &&
		[[ $listen == */run/cpupolicy/cpupolicyd.sock* ]]; then
		ok "cpupolicyd.socket is enabled and active after boot ($listen)"
	else
		not_ok "cpupolicyd.socket enabled and active" \
			"is-enabled: $enabled, is-active: $active, Listen: $listen"
	fi
}

check_status() {
	local out state sub result restarts status_text
	out=$(ns cpupolicyctl status 2>&1)
	state=$(prop cpupolicyd.service ActiveState)
	sub=$(prop cpupolicyd.service SubState)
	result=$(prop cpupolicyd.service Result)
	restarts=$(prop cpupolicyd.service NRestarts)
	# STATUS= comes through the notify socket with READY=1.
	status_text=$(prop cpupolicyd.service StatusText)
	if [[ $out == "cpupolicyd "*", pid "* ]] && [ "$state" = active ] &&
		[ "$sub" = running ] && [ "$result" = success ] &&
		[ "$restarts" = 0 ] && [[ $status_text == *" rules in "* ]]; then
		ok "the first cpupolicyctl status answers; cpupolicyd.service is active (running, success, ready: '$status_text')"
	else
		not_ok "cpupolicyctl status and the service" "status: $out" \
			"ActiveState=$state SubState=$sub Result=$result NRestarts=$restarts StatusText=$status_text" \
			"$(ns journalctl -q --no-pager -b -u cpupolicyd | tail -n 10)"
	fi
}

check_caps() {
	local pid bnd eff
	pid=$(main_pid)
	bnd=$(ns grep '^CapBnd:' "/proc/$pid/status" | cut -f2)
	eff=$(ns grep '^CapEff:' "/proc/$pid/status" | cut -f2)
	# The unit's CapabilityBoundingSet; without CAP_SETPCAP the daemon
	# leaves the bounding set as it is and cuts only its other sets: the
	# exec filter's CAP_BPF and CAP_PERFMON (bits 39, 38) are gone from
	# what it holds once it runs.
	if [ "$bnd" = 000000c000880000 ] && [ -n "$eff" ] &&
		[ $((0x$eff & ~0x880000)) -eq 0 ]; then
		ok "the daemon's CapBnd is 000000c000880000 (CAP_SYS_NICE CAP_SYS_PTRACE CAP_BPF CAP_PERFMON), as cpupolicyd(8) says; CapEff $eff within CAP_SYS_NICE CAP_SYS_PTRACE"
	else
		not_ok "bounding set" "pid $pid: CapBnd '$bnd', CapEff '$eff'"
	fi
}

write_rules() { # extra rules (libconfig), after the probe's
	cat >"$ROOT$RULES" <<EOF
version = 1;
rules = (
  { name = "probe";
    match = { exe = "$PROBE"; };
    priority = { nice = 7; };
  }$1
);
EOF
}

check_reload() {
	local out status
	cp "$ROOT/bin/sleep" "$ROOT$PROBE"
	write_rules ""
	journal_mark
	out=$(ns systemctl reload cpupolicyd 2>&1)
	status=$?
	if [ "$status" -eq 0 ] && journal_wait "rules reloaded: [0-9]+ rules in [0-9]+ files"; then
		ok "systemctl reload cpupolicyd reloads: \"$(journal_since | grep -oE 'rules reloaded: .*' | tail -n 1)\""
	else
		not_ok "systemctl reload" "exit $status: $out" "$(journal_since)"
	fi
}

# probe_nice UNIT WANT: a probe started now gets nice WANT within 5 s
# (polled: see check_events).
probe_nice() {
	probe_pid=$(start_probe "$1" "$PROBE") || return 1
	poll 5 nice_is "$probe_pid" "$2"
}

nice_is() { # PID WANT
	[ "$(nice_of "$1")" = "$2" ]
}

check_probe() {
	if probe_nice cpupolicy-probe-1 7; then
		ok "a process started from a rule gets its policy: nice 7 within 5 s"
	else
		not_ok "rule applied" "probe pid '$probe_pid' has nice '$(nice_of "$probe_pid")', not 7" \
			"$(ns journalctl -q --no-pager -b -u cpupolicyd | tail -n 10)"
	fi
	ns systemctl stop cpupolicy-probe-1 >/dev/null 2>&1
}

# A PID namespace gets no process events from the kernel (the proc
# connector refuses it), whatever capabilities: the daemon polls and says
# why, and that reason must not send an admin after CAP_NET_ADMIN.
check_events() {
	local log
	log=$(ns journalctl -q --no-pager -b -u cpupolicyd)
	if grep -q "PID namespace" <<<"$log" && ! grep -q "before Linux 6.6" <<<"$log"; then
		ok "no process events in a PID namespace: the journal says so (and not 'before Linux 6.6')"
	else
		not_ok "the reason events are refused" \
			"wanted 'PID namespace' and no 'before Linux 6.6' in:" \
			"$(grep -iE 'events|polling' <<<"$log")"
	fi
}

check_broken_reload() {
	local out status state
	cat >"$ROOT$BROKEN" <<EOF
version = 1;
rules = ( { name = "broken"; match = { exe = "relative"; }; priority = { nice = 3; }; } );
EOF
	journal_mark
	out=$(ns systemctl reload cpupolicyd 2>&1)
	status=$?
	state=$(prop cpupolicyd.service ActiveState)
	if [ "$status" -ne 0 ] && [ "$state" = active ] &&
		journal_wait "$BROKEN:[0-9]+: error: "; then
		ok "a broken rule file: systemctl reload fails (exit $status), the journal has \"$(journal_since | grep -oE "$BROKEN:[0-9]+: error: .*" | head -n 1)\", the service stays active"
	else
		not_ok "broken reload" "exit $status, ActiveState=$state: $out" "$(journal_since)"
	fi
	if probe_nice cpupolicy-probe-2 7; then
		ok "the old rules stay in force: a probe started after the failed reload gets nice 7"
	else
		not_ok "old rules kept" "probe pid '$probe_pid' has nice '$(nice_of "$probe_pid")'"
	fi
	ns systemctl stop cpupolicy-probe-2 >/dev/null 2>&1
	rm -f "$ROOT$BROKEN"
}

check_exposure() {
	local out score
	out=$(ns systemd-analyze security cpupolicyd.service 2>&1)
	score=$(grep -o 'exposure level for cpupolicyd.service: [0-9.]*' <<<"$out" | awk '{ print $NF }')
	comment "online exposure: ${score:-none}"
	if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then
		ok "systemd-analyze security (online, the running service): exposure $score (at most 1.5)"
	else
		not_ok "online exposure" "score '$score'" "$(grep '✗' <<<"$out")"
	fi
}

# The scheduled saturation check: its timer shipped disabled; its service
# started by hand under its own hardening (a drop-in that always runs it,
# for a second) measures, and writes node_exporter's textfile.
SAT_DROPIN=/etc/systemd/system/cpupolicy-saturate.service.d/50-systemd-test.conf
TEXTFILE=/var/lib/prometheus/node-exporter/cpupolicy_saturate.prom
check_saturate() {
	local enabled status log
	enabled=$(ns systemctl is-enabled cpupolicy-saturate.timer)
	mkdir -p "$ROOT${TEXTFILE%/*}" "$ROOT${SAT_DROPIN%/*}"
	printf '%s\n' '[Service]' 'ExecStart=' \
		'ExecStart=/usr/bin/cpupolicyctl saturate --if-idle 100 --seconds 1 --textfile ${TEXTFILE_DIR}/cpupolicy_saturate.prom' \
		>"$ROOT$SAT_DROPIN"
	ns systemctl daemon-reload
	NS_TIMEOUT=120 ns systemctl start cpupolicy-saturate.service >/dev/null 2>&1
	status=$(prop cpupolicy-saturate.service ExecMainStatus)
	log=$(ns journalctl -q --no-pager -b -u cpupolicy-saturate -o cat)
	# 0 or 1: what the check measured on this shared machine; 2 or a
	# signal would be the sandbox getting in its way.
	if [ "$enabled" = disabled ] && { [ "$status" = 0 ] || [ "$status" = 1 ]; } &&
		grep -q '^cpupolicy_saturate_skipped 0$' "$ROOT$TEXTFILE" &&
		grep -q '^cpupolicy_saturate_efficiency [0-9.]*$' "$ROOT$TEXTFILE" &&
		[ "$(stat -c %a "$ROOT$TEXTFILE")" = 644 ] &&
		grep -q 'M units/s of wall-clock time' <<<"$log"; then
		ok "cpupolicy-saturate.timer is disabled; its service runs the check under its hardening (exit $status) and writes the textfile, mode 644"
	else
		not_ok "the scheduled saturation check" "is-enabled: $enabled, exit '$status'" \
			"$(ls -l "$ROOT${TEXTFILE%/*}" 2>&1)" "$(tail -n 20 <<<"$log")"
	fi
	if [ -n "$ROOT" ]; then
		rm -rf "$ROOT${SAT_DROPIN%/*}" "$ROOT/var/lib/prometheus"
	fi
	ns systemctl daemon-reload
}

# Power holds on knobs the container cannot write in /sys: a fake tree
# named by [paths] sysfs, and a drop-in that lets the service write it.
setup_fake() {
	local cpu out
	for cpu in 0 1; do
		mkdir -p "$ROOT$FAKE/devices/system/cpu/cpu$cpu/power"
		echo 0 >"$ROOT$FAKE/devices/system/cpu/cpu$cpu/power/pm_qos_resume_latency_us"
	done
	echo 0 >"$ROOT$CPU1"
	mkdir -p "$(dirname "$ROOT$GOVERNOR")"
	echo schedutil >"$ROOT$GOVERNOR"
	echo "performance schedutil powersave" >"$(dirname "$ROOT$GOVERNOR")/scaling_available_governors"
	cp "$ROOT$CONF" "$WORK/cpupolicyd.conf.orig"
	# The shipped config names the real root in a comment: the fake one
	# takes its place.
	sed -i "s|^#\{0,1\}sysfs = /sys\$|sysfs = $FAKE|" "$ROOT$CONF"
	mkdir -p "$(dirname "$ROOT$DROPIN")"
	printf '[Service]\nReadWritePaths=%s\n' "${FAKE%/sys}" >"$ROOT$DROPIN"
	cp "$ROOT/bin/sleep" "$ROOT$HOLDER"
	cp "$ROOT/bin/sleep" "$ROOT$PARKER"
	write_rules ",
  { name = \"holder\";
    match = { exe = \"$HOLDER\"; };
    power = { governor = \"performance\"; };
  },
  { name = \"parker\";
    match = { exe = \"$PARKER\"; };
    power = { parking = \"off\"; };
  }"
	journal_mark
	ns systemctl daemon-reload
	out=$(ns systemctl restart cpupolicyd 2>&1)
	if grep -q "^sysfs = $FAKE\$" "$ROOT$CONF" &&
		[ "$(prop cpupolicyd.service ActiveState)" = active ] &&
		[[ $(prop cpupolicyd.service ReadWritePaths) == *"${FAKE%/sys}"* ]] &&
		journal_wait "cpupolicyd [0-9.]+: 7 rules in 4 files"; then
		ok "a fake sysfs tree ([paths] sysfs) and a drop-in with ReadWritePaths for it: the service restarts on them"
	else
		not_ok "fake sysfs set-up" "$out" "$(journal_since)"
		return 1
	fi
}

state_journal() { # the daemon's journal of originals, from this side
	cat "$ROOT/var/lib/cpupolicy/journal" 2>/dev/null
}

check_hold_and_stop() {
	start_probe cpupolicy-holder "$HOLDER" >/dev/null
	if poll 5 fake_is "$GOVERNOR" performance &&
		grep -qx "$GOVERNOR${TAB}schedutil${TAB}performance" <<<"$(state_journal)"; then
		ok "a power hold under the unit: the governor is performance while the holder runs, its original journaled"
	else
		not_ok "power hold" "governor '$(fake "$GOVERNOR")', journal: $(state_journal)" \
			"$(ns journalctl -q --no-pager -b -u cpupolicyd | tail -n 10)"
	fi
	journal_mark
	# (systemctl warns that the socket can start it again: it is meant to.)
	ns systemctl stop cpupolicyd 2>/dev/null
	if fake_is "$GOVERNOR" schedutil && [ -z "$(state_journal)" ]; then
		ok "systemctl stop cpupolicyd gives the original back (schedutil) and leaves the journal empty"
	else
		not_ok "restore on stop" "governor '$(fake "$GOVERNOR")', journal: $(state_journal)" "$(journal_since)"
	fi
	ns systemctl start cpupolicyd
	if poll 5 fake_is "$GOVERNOR" performance; then
		ok "systemctl start: the holder still runs and is held again"
	else
		not_ok "hold after start" "governor '$(fake "$GOVERNOR")'" "$(journal_since)"
	fi
}

restarted() { # OLD_MAIN_PID: a new daemon runs; sets $after
	after=$(main_pid)
	[ "$after" != 0 ] && [ "$after" != "$1" ] &&
		[ "$(prop cpupolicyd.service ActiveState)" = active ]
}

# A killed daemon: ExecStopPost (cpupolicyctl restore --force) puts the
# journaled original back, then Restart=on-failure starts a daemon that
# holds again for the holder that still runs.
check_kill() {
	local before after
	before=$(main_pid)
	journal_mark
	ns systemctl kill -s KILL cpupolicyd
	after=
	poll 10 restarted "$before"
	# The new daemon finds the original back, and takes it again.
	if [ -n "$after" ] && [ "$after" != "$before" ] && [ "$after" != 0 ] &&
		journal_wait "cpupolicyctl.*: restored 1 settings" &&
		journal_wait "$GOVERNOR: performance \(was schedutil\)" &&
		poll 5 fake_is "$GOVERNOR" performance; then
		ok "systemctl kill -s KILL mid-hold: ExecStopPost restores (\"restored 1 settings\"), Restart= starts a new daemon, which finds schedutil back and holds again"
	else
		not_ok "SIGKILL mid-hold" "main pid $before -> '$after', governor '$(fake "$GOVERNOR")'" \
			"$(journal_since)"
	fi
}

# The whole machine goes down mid-hold (its PID 1 killed: nothing runs
# ExecStopPost): the next boot's daemon restores before anything else.
check_crash() {
	kill -KILL "$leader"
	if ! poll 30 nspawn_gone; then
		not_ok "crash" "systemd-nspawn still runs 30 s after its PID 1 was killed"
		finish
	fi
	wait "$nspawn_pid" 2>/dev/null
	nspawn_pid=
	if fake_is "$GOVERNOR" performance &&
		grep -qx "$GOVERNOR${TAB}schedutil${TAB}performance" <<<"$(state_journal)"; then
		ok "a crash of the machine mid-hold (the container's PID 1 killed) leaves the setting changed and journaled"
	else
		not_ok "after the crash" "governor '$(fake "$GOVERNOR")', journal: $(state_journal)"
	fi
	boot boot2
	cursor=
	if journal_wait "restored 1 settings an earlier run left changed" 10 &&
		fake_is "$GOVERNOR" schedutil && [ -z "$(state_journal)" ]; then
		ok "the next boot's daemon restores it first: \"restored 1 settings an earlier run left changed\", schedutil again"
	else
		not_ok "restore at boot" "governor '$(fake "$GOVERNOR")', journal: $(state_journal)" "$(journal_since)"
	fi
}

status_has() { # TEXT: cpupolicyctl status shows it
	[[ $(ns cpupolicyctl status) == *"$1"* ]]
}

status_lacks() { # TEXT
	! status_has "$1"
}

# parking = "off": every CPU online and a PM QoS request on the device,
# as cpupolicyd(8) says (the unit binds it into its private /dev).
check_parking() {
	local before limit status dma_fd per_cpu
	before=
	[ -c "$DMA" ] && before=$(qos_limit)
	start_probe cpupolicy-parker "$PARKER" >/dev/null
	poll 5 status_has "rule parker"
	status=$(ns cpupolicyctl status)
	per_cpu=$(fake "$FAKE/devices/system/cpu/cpu1/power/pm_qos_resume_latency_us")
	if [ -c "$DMA" ]; then
		limit=$(qos_limit)
		dma_fd=$(ns find "/proc/$(main_pid)/fd" -lname "$DMA" | head -n 1)
		if fake_is "$CPU1" 1 && [[ $status == *"setting  $DMA = 20 us (held open"* ]] &&
			[ -n "$dma_fd" ] && [ "$limit" -le 20 ] && [ "$per_cpu" = 0 ]; then
			ok "parking = \"off\": cpu1 online, and a PM QoS request held open on $DMA (the kernel's limit $limit us, $before before)"
		else
			not_ok "parking off" "cpu1 online '$(fake "$CPU1")', limit '$limit', fd '$dma_fd', per-CPU file '$per_cpu'" \
				"$status"
		fi
	else
		comment "this machine has no $DMA: the per-CPU resume latency files instead"
		if fake_is "$CPU1" 1 && [ "$per_cpu" = 20 ]; then
			ok "parking = \"off\": cpu1 online, 20 us in the per-CPU pm_qos_resume_latency_us files"
		else
			not_ok "parking off" "cpu1 online '$(fake "$CPU1")', per-CPU file '$per_cpu'" "$status"
		fi
	fi
	ns systemctl stop cpupolicy-parker
	if poll 5 fake_is "$CPU1" 0 &&
		poll 5 status_lacks "rule parker" &&
		{ [ ! -c "$DMA" ] || [ "$(qos_limit)" -gt 20 ] || [ "${before:-0}" -le 20 ]; }; then
		ok "the holder exits: cpu1 offline again, the PM QoS request gone"
	else
		not_ok "parking released" "cpu1 online '$(fake "$CPU1")', limit '$(qos_limit 2>/dev/null)'" \
			"$(ns cpupolicyctl status)"
	fi
}

# As an admin would: own files away first, then the purge.
check_purge() {
	local files left out status f
	ns systemctl stop cpupolicy-holder >/dev/null 2>&1
	rm -f "$ROOT$RULES" "$ROOT$DROPIN" "$ROOT$PROBE" "$ROOT$HOLDER" "$ROOT$PARKER"
	rmdir "$(dirname "$ROOT$DROPIN")"
	rm -rf "$ROOT${FAKE%/sys}"
	cp "$WORK/cpupolicyd.conf.orig" "$ROOT$CONF"
	ns systemctl daemon-reload
	out=$(ns dpkg --purge cpupolicy 2>&1)
	status=$?
	files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$')
	# shellcheck disable=SC2086,SC2016 # one path a word; sh expands
	left=$(ns sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && echo "$f"; done' sh \
		$files /etc/cpupolicy /var/lib/cpupolicy /run/cpupolicy \
		/usr/share/cpupolicy /usr/share/doc/cpupolicy \
		/etc/systemd/system/multi-user.target.wants/cpupolicyd.service \
		/etc/systemd/system/sockets.target.wants/cpupolicyd.socket \
		/etc/systemd/system/timers.target.wants/cpupolicy-saturate.timer)
	left="$left$(ns find /var/lib/systemd -name 'cpupolicy*' 2>/dev/null)"
	for f in cpupolicyd.service cpupolicyd.socket; do
		[ "$(prop "$f" LoadState)" = not-found ] || left="$left $f: $(prop "$f" LoadState)/$(prop "$f" ActiveState)"
	done
	if [ "$status" -eq 0 ] && [ -z "$left" ] && ! ns dpkg -s cpupolicy >/dev/null 2>&1; then
		ok "dpkg --purge cpupolicy leaves nothing: no files, state, enablement or units"
	else
		not_ok "purge" "exit $status: $out" "left: $left"
	fi
}

check_poweroff() {
	kill -RTMIN+4 "$leader"
	if poll 60 nspawn_gone; then
		ok "the container powers off within 60 s"
	else
		not_ok "poweroff" "systemd-nspawn still runs 60 s after SIGRTMIN+4; console:" \
			"$(tail -n 10 "$console")"
	fi
	stop_container
}

main() {
	check_environment
	WORK=$(mktemp -d /var/tmp/cpupolicy-systemd.XXXXXX)
	trap cleanup EXIT
	build_deb
	make_base
	install_deb
	boot boot1
	check_socket
	check_status
	check_caps
	check_reload
	check_probe
	check_events
	check_broken_reload
	check_exposure
	check_saturate
	if setup_fake; then
		check_hold_and_stop
		check_kill
		check_crash
		check_parking
	fi
	check_purge
	check_poweroff
	finish
}

main "$@"
