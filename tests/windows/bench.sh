#!/bin/bash
# make bench's Windows rows: cpupolicyd.exe under Wine (no ETW there: the
# poll, every events_poll_ms) with a rule raising probe.exe to class high;
# sequential starts of probe.exe --until-high, which looks at its own
# class every millisecond from its first line on and writes the
# milliseconds from its creation to the first look that found it high.
# Each start waits a random part of the poll's period first. Per run: p50
# and p90 of its starts, misses (not high within 3 s), the
# daemon's CPU time (its Wine process's utime + stime) per 1,000 starts;
# the rows are the medians of the runs, min-max in parentheses; that CPU
# includes the polls between starts. Also the daemon's CPU while it polls
# with nothing to do.
#
#   bench.sh BUILD_DIR [RUNS [STARTS [POLL_MS]]]
set -u
[ $# -ge 1 ] || {
	echo "usage: $0 BUILD_DIR [RUNS [STARTS [POLL_MS]]]" >&2
	exit 2
}
WINE_BUILD=$(cd "$1" && pwd)
RUNS=${2:-5}
STARTS=${3:-20}
POLL_MS=${4:-250}
. "$(dirname "$0")/wine.sh"

DAEMON=$WINE_BUILD/cpupolicyd.exe
CTL=$WINE_BUILD/cpupolicyctl.exe
WORK=$WINE_BUILD/bench
TICK=$(getconf CLK_TCK)

winpath() { printf 'Z:%s' "${1//\//\\}"; }
wait_for() {
	local until=$(($(date +%s) + $1))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$until" ] || return 1
		sleep 0.2
	done
}

daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	wine_stop
	rm -rf "$WORK" "$WINEPREFIX/drive_c/cpupolicy-bench"
}
trap cleanup EXIT

wine_ready >/dev/null || {
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
cat >"$WORK/cpupolicyd.conf" <<EOF
[daemon]
rules_dirs = $(winpath "$WORK/rules")
socket = \\\\.\\pipe\\cpupolicy-bench
state_dir = C:\\cpupolicy-bench\\state
rescan_interval_ms = 0
events_poll_ms = $POLL_MS
log_level = warning
EOF
CONF=$(winpath "$WORK/cpupolicyd.conf")
timeout -k 5 3600 wine "$DAEMON" -c "$CONF" </dev/null >"$WORK/daemon.log" \
	2>&1 &
daemon_pid=$!
answers() { limited 30 wine "$CTL" -c "$CONF" status >/dev/null 2>&1; }
if ! wait_for 60 answers; then
	echo "bench: the daemon did not start" >&2
	tr -d '\r' <"$WORK/daemon.log" >&2
	exit 1
fi
# The Wine process of cpupolicyd.exe is timeout's child.
wine_pid=$(pgrep -P "$daemon_pid" | head -1)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$wine_pid/stat"; }

# median of the numbers on stdin (one a line); pct P: the P-th percentile
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
pct() { sort -g | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; if (NR) print v[i] }'; }
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

idle0=$(cpu_ticks)
sleep 10
idle1=$(cpu_ticks)
idle_pct=$(awk -v t="$((idle1 - idle0))" -v hz="$TICK" 'BEGIN { printf "%.1f", t * 100 / hz / 10 }')

out=$WORK/out.txt
: >"$WORK/p50" && : >"$WORK/p90" && : >"$WORK/cpu" && : >"$WORK/miss"
for run in $(seq "$RUNS"); do
	: >"$WORK/run"
	misses=0
	c0=$(cpu_ticks)
	for _ in $(seq "$STARTS"); do
		# A start at any moment of the poll's period, as in life:
		# back-to-back starts would lock onto its phase.
		sleep "0.$(printf '%03d' $((RANDOM % POLL_MS % 1000)))"
		rm -f "$out"
		limited 30 wine "$WORK/probe.exe" --until-high "$(winpath "$out")" \
			3000 >/dev/null 2>&1
		v=$(tr -d '\r' <"$out" 2>/dev/null)
		case $v in
		'' | miss) misses=$((misses + 1)) ;;
		*) echo "$v" >>"$WORK/run" ;;
		esac
	done
	c1=$(cpu_ticks)
	median <"$WORK/run" >>"$WORK/p50"
	pct 90 <"$WORK/run" >>"$WORK/p90"
	awk -v t="$((c1 - c0))" -v hz="$TICK" -v n="$STARTS" \
		'BEGIN { printf "%.2f\n", t / hz * 1000 / n }' >>"$WORK/cpu"
	echo "$misses" >>"$WORK/miss"
	echo "# run $run: p50 $(tail -1 "$WORK/p50") ms, p90 $(tail -1 "$WORK/p90") ms, $misses misses, CPU $(tail -1 "$WORK/cpu") s per 1,000 starts" >&2
done

echo "Windows under Wine (no ETW: polling every $POLL_MS ms), start to class high:"
echo "$STARTS sequential starts per run, medians of $RUNS runs (min-max of the runs)"
echo
echo "| what | figure |"
echo "|---|---|"
echo "| start to applied, p50 | $(median <"$WORK/p50") ms ($(spread <"$WORK/p50")) |"
echo "| start to applied, p90 | $(median <"$WORK/p90") ms ($(spread <"$WORK/p90")) |"
echo "| starts missed (not high within 3 s) | $(awk '{ s += $1 } END { print s + 0 }' "$WORK/miss") of $((RUNS * STARTS)) |"
echo "| the daemon's CPU per 1,000 starts | $(median <"$WORK/cpu") s ($(spread <"$WORK/cpu")) |"
echo "| the daemon's CPU polling with nothing to do | $idle_pct % of a CPU |"
