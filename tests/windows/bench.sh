#!/bin/bash
# make bench's Windows section of docs/benchmarks.md (Markdown, on
# stdout; progress on stderr): cpupolicyd.exe under Wine (no ETW there:
# the poll, every events_poll_ms) with a rule raising probe.exe to class
# high, once per poll interval; sequential starts of probe.exe
# --until-high, which looks at its own class every millisecond from its
# first line on and writes the milliseconds from its creation to the
# first look that found it high, or "miss" after its timeout. Each start
# waits a random part of the poll's period first. Per run: p50 and p90 of
# all its starts, a miss counted in them as the timeout and beside them;
# the CPU time of the daemon's Wine process and of wineserver, over the
# same window, per 1,000 starts (the polls between starts included). Then
# both while the daemon polls with nothing to do. Each cell is the median
# of the runs, their min-max in parentheses.
#
#   bench.sh BUILD_DIR [RUNS [STARTS [POLL_MS...]]]
set -u
WINE_USAGE='[RUNS [STARTS [POLL_MS...]]]'
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh" "$@"
RUNS=${2:-5}
STARTS=${3:-20}
shift $(($# < 3 ? $# : 3))
POLLS=("$@")
[ ${#POLLS[@]} -gt 0 ] || POLLS=(250)
for n in "$RUNS" "$STARTS" "${POLLS[@]}"; do
	case $n in
	'' | *[!0-9]* | 0*)
		echo "bench: not a whole number above 0: '$n'" >&2
		exit 2
		;;
	esac
done
TIMEOUT_MS=3000
IDLE_S=10
PER=1000
# 1000 -> 1,000, as the tables' prose writes counts.
commas() { echo "$1" | sed ':a; s/\B[0-9]\{3\}\>/,&/; ta'; }

DAEMON=$WINE_BUILD/cpupolicyd.exe
CTL=$WINE_BUILD/cpupolicyctl.exe
WORK=$WINE_BUILD/bench

daemon_pid=
stop_daemon() {
	[ -n "$daemon_pid" ] || return 0
	kill "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
}
cleanup() {
	stop_daemon
	wine_stop
	rm -rf "$WORK" "$WINEPREFIX/drive_c/cpupolicy-bench"
}
trap cleanup EXIT

wine_ready >&2 || {
	echo "bench: no Wine prefix" >&2
	exit 1
}
rm -rf "$WORK"
mkdir -p "$WORK/rules"
cp "$WINE_BUILD/probe.exe" "$WORK/probe.exe"
cat >"$WORK/rules/bench.rules" <<EOF
version = 1;
rules = (
  { name = "bench-high";
    match = { exe = "$(winpath "$WORK/probe.exe" | sed 's/\\/\\\\/g')"; };
    priority = { class = "high"; };
  }
);
EOF
CONF=$(winpath "$WORK/cpupolicyd.conf")

# CPU time of a process so far, in ns (schedstat: finer than the clock
# ticks of /proc/PID/stat); nothing when it is gone.
cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat" 2>/dev/null; }

# The wineserver of this prefix (others' prefixes have their own).
prefix_wineserver() {
	local pid
	for pid in $(pgrep -x 'wineserver|wineserver64'); do
		if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null |
			grep -qxF "WINEPREFIX=$WINEPREFIX"; then
			echo "$pid"
			return 0
		fi
	done
	return 1
}

start_daemon() { # poll_ms
	cat >"$WORK/cpupolicyd.conf" <<EOF
[daemon]
rules_dirs = $(winpath "$WORK/rules")
socket = \\\\.\\pipe\\cpupolicy-bench
state_dir = C:\\cpupolicy-bench\\state
rescan_interval_ms = 0
events_poll_ms = $1
log_level = warning
EOF
	timeout -k 5 3600 wine "$DAEMON" -c "$CONF" </dev/null \
		>"$WORK/daemon.log" 2>&1 &
	daemon_pid=$!
	if ! wait_for 60 answers; then
		echo "bench: the daemon did not start" >&2
		tr -d '\r' <"$WORK/daemon.log" >&2
		exit 1
	fi
	# The Wine process of cpupolicyd.exe is timeout's child.
	wine_pid=$(pgrep -P "$daemon_pid" | head -1)
	server_pid=$(prefix_wineserver)
	if [ -z "$wine_pid" ] || [ -z "$server_pid" ]; then
		echo "bench: no Wine process of the daemon, or no wineserver" >&2
		exit 1
	fi
}
answers() { limited 30 wine "$CTL" -c "$CONF" status >/dev/null 2>&1; }

# Both CPU times now, in cpu_d and cpu_s; the bench ends when either is
# gone: a figure of a process that restarted would be nonsense.
cpu_pair() {
	cpu_d=$(cpu_ns "$wine_pid")
	cpu_s=$(cpu_ns "$server_pid")
	if [ -z "$cpu_d" ] || [ -z "$cpu_s" ]; then
		echo "bench: the daemon or wineserver exited during the run" >&2
		exit 1
	fi
}

# pct P: the P-th percentile of the numbers on stdin, one a line.
pct() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; if (NR) print v[i] }'; }
# cell DECIMALS UNIT: "median UNIT (min–max)" of the numbers on stdin, the
# median alone when all runs agree; nothing at all without numbers.
cell() {
	sort -g | awk -v d="$1" -v u="$2" '
		{ v[NR] = $1 }
		END {
			if (!NR) exit
			m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			lo = sprintf("%.*f", d, v[1]); hi = sprintf("%.*f", d, v[NR])
			gap = u == "" ? "" : " "
			if (lo == hi) printf "%s%s%s", lo, gap, u
			else printf "%.*f%s%s (%s–%s)", d, m, gap, u, lo, hi
		}'
}
# ns over a window -> s per PER starts, or % of a CPU over IDLE_S
per_starts() { awk -v t="$1" -v n="$STARTS" -v per="$PER" 'BEGIN { printf "%.3f\n", t / 1e9 * per / n }'; }
idle_pct() { awk -v t="$1" -v s="$IDLE_S" 'BEGIN { printf "%.3f\n", t / 1e9 * 100 / s }'; }

out=$WORK/out.txt
rows=()

# One start of the probe: what it reported, "" when nothing.
probe_start() {
	rm -f "$out"
	limited 30 wine "$WORK/probe.exe" --until-high \
		"$(winpath "$out")" "$TIMEOUT_MS" >/dev/null 2>&1
	tr -d '\r' <"$out" 2>/dev/null
}
for poll in "${POLLS[@]}"; do
	echo "windows: polling every $poll ms" >&2
	start_daemon "$poll"
	dir=$WORK/poll-$poll
	mkdir -p "$dir"
	cpu_pair && d0=$cpu_d s0=$cpu_s
	sleep "$IDLE_S"
	cpu_pair && d1=$cpu_d s1=$cpu_s
	idle_pct $((d1 - d0)) >"$dir/idle-daemon"
	idle_pct $((s1 - s0)) >"$dir/idle-server"
	idle_pct $((d1 - d0 + s1 - s0)) >"$dir/idle-both"
	for run in $(seq "$RUNS"); do
		: >"$dir/run"
		misses=0
		cpu_pair && d0=$cpu_d s0=$cpu_s
		for _ in $(seq "$STARTS"); do
			# A start at any moment of the poll's period, as in
			# life: back-to-back starts would lock onto its phase.
			ms=$((RANDOM % poll))
			sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
			v=$(probe_start)
			# Wine now and then starts no program at all (no report,
			# not a miss): that start once more, counted in the
			# CPU figures (they only grow).
			if [ -z "$v" ]; then
				echo "windows: probe.exe reported nothing: once more" >&2
				v=$(probe_start)
			fi
			case $v in
			miss)
				misses=$((misses + 1))
				echo "$TIMEOUT_MS" >>"$dir/run"
				;;
			*[!0-9.]* | '')
				echo "bench: probe.exe reported '$v'" >&2
				exit 1
				;;
			*) echo "$v" >>"$dir/run" ;;
			esac
		done
		cpu_pair && d1=$cpu_d s1=$cpu_s
		pct 50 <"$dir/run" >>"$dir/p50"
		pct 90 <"$dir/run" >>"$dir/p90"
		echo "$misses" >>"$dir/miss"
		per_starts $((d1 - d0)) >>"$dir/cpu-daemon"
		per_starts $((s1 - s0)) >>"$dir/cpu-server"
		per_starts $((d1 - d0 + s1 - s0)) >>"$dir/cpu-both"
		echo "windows: $poll ms, run $run of $RUNS: p50 $(tail -1 "$dir/p50") ms, $misses misses" >&2
	done
	stop_daemon
	rows+=("| every $poll ms$([ "$poll" = 250 ] && echo ' (the default)') | $(cell 1 ms <"$dir/p50") | $(cell 1 ms <"$dir/p90") | $(cell 0 '' <"$dir/miss") of $STARTS | $(cell 2 s <"$dir/cpu-daemon") | $(cell 2 s <"$dir/cpu-server") | $(cell 2 s <"$dir/cpu-both") | $(cell 2 % <"$dir/idle-daemon") | $(cell 2 % <"$dir/idle-server") | $(cell 2 % <"$dir/idle-both") |")
done

cat <<EOF
## Windows under Wine

\`cpupolicyd.exe\` under Wine, which has no ETW, so the daemon polls (a
Toolhelp snapshot every \`events_poll_ms\`), with a rule raising
\`probe.exe\` to class high (\`tests/windows/bench.sh\`). $STARTS
sequential starts per run, $RUNS runs per poll interval, each start after
a wait of a random part of the interval; \`probe.exe --until-high\` looks
at its own class every millisecond from its first line on and reports the
milliseconds from its creation to the first look that found it high.
Percentiles are over all starts, a miss (not high within $TIMEOUT_MS ms)
counted in them as that timeout and in the misses column (misses per run).
Under Wine much of a program's system work is done by wineserver, so CPU
is given for both, over the same window: the daemon's Wine process and
wineserver (\`/proc/PID/schedstat\`), per $(commas $PER) starts with the polls
between them included (wineserver's share there also serves the probes'
own starts and their looks at their class); then with nothing to do, over
$IDLE_S s, in % of a CPU, where nothing but the daemon's polls keeps
wineserver busy. Each cell is the median of the runs, their min–max in
parentheses. ETW, which a real Windows has, cannot be measured here:
\`check.ps1\` prints it on a real machine.

| poll interval | start to class high, p50 | p90 | misses | the daemon's CPU per $(commas $PER) starts | wineserver's | both | with nothing to do: the daemon | wineserver | both |
|---|---|---|---|---|---|---|---|---|---|
EOF
printf '%s\n' "${rows[@]}"
echo
