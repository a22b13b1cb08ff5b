#!/bin/bash
# cpupolicyctl metrics: Prometheus text exposition, with a daemon holding
# power settings (on a fake sysfs tree) and without one; checked by
# promtool where Debian's prometheus package is installed, and always by
# the parser below. Beside it in node_exporter's textfile directory, the
# scheduled check's own file: together they name no series twice, or the
# collector fails the scrape.
. "$(dirname "$0")/lib.sh"

# The exposition format: HELP and TYPE before a metric's samples, names
# and label sets well formed, values numbers, counters named *_total,
# every series once.
check_exposition() {
	awk '
	function fail(why) { print "line " NR ": " why ": " $0; bad = 1 }
	/^# HELP / { if ($3 !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) fail("bad name"); help[$3] = 1; next }
	/^# TYPE / {
		if ($3 in type) fail("second TYPE")
		if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/) fail("bad type")
		if ($4 == "counter" && $3 !~ /_total$/) fail("counter not *_total")
		type[$3] = $4; next
	}
	/^#/ { next }
	/^$/ { next }
	{
		if (match($0, /^[a-zA-Z_:][a-zA-Z0-9_:]*/) == 0) { fail("bad sample"); next }
		name = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
		# A histogram family writes NAME_bucket, NAME_sum, NAME_count.
		family = name
		if (!(family in type) && match(name, /_(bucket|sum|count)$/) &&
			type[substr(name, 1, RSTART - 1)] == "histogram")
			family = substr(name, 1, RSTART - 1)
		if (!(family in type)) fail("sample before its TYPE")
		if (!(family in help)) fail("sample without HELP")
		if (name ~ /_bucket$/ && family != name && rest !~ /le="/) fail("bucket without le")
		series = name
		if (rest ~ /^\{/) {
			if (match(rest, /^\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\]|\\.)*")*\}/) == 0) { fail("bad labels"); next }
			series = name substr(rest, 1, RLENGTH); rest = substr(rest, RLENGTH + 1)
		}
		if (rest !~ /^ ([-+]?[0-9.]+([eE][-+]?[0-9]+)?|NaN|[-+]Inf)( [0-9]+)?$/) fail("bad value")
		if (series in seen) fail("series twice")
		seen[series] = 1; samples++
	}
	END { if (!samples) { print "no samples"; bad = 1 } exit bad }'
}

run "$CTL" -S "$TMP/none.sock" metrics
if [ "$status" -eq 0 ] && grep -q '^cpupolicy_up 0$' <<<"$out" &&
	check_exposition <<<"$out" >"$TMP/why"; then
	ok "no daemon: cpupolicy_up 0, valid exposition"
else
	not_ok "metrics without a daemon" "$out $(cat "$TMP/why")"
fi

if [ "$(id -u)" -ne 0 ]; then
	skip "metrics of a running daemon" "needs root"
	finish
	exit 0
fi
mkdir -p "$TMP/sys/devices/system/cpu/cpufreq/policy0"
echo schedutil >"$TMP/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
echo "performance schedutil" >"$TMP/sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors"
# Strings the JSON must escape: the holder's name (a quote, a tab and a
# byte that is no UTF-8) and the dev root the idle latency is held in (a
# quote), with a cpu_dma_latency file for the daemon to hold open.
HOLDER=$TMP/ho\"l$'\t'd$'\xff'
DEV=$TMP/de\"v
mkdir -p "$DEV"
: >"$DEV/cpu_dma_latency"
cp "$BUILD/helpers/worker" "$HOLDER"
HOLDER_QUOTED=${HOLDER//\"/\\\"}
write_conf
cat >>"$CONF" <<C
[paths]
sysfs = $TMP/sys
dev = $DEV
C
cat >"$RULES/10.rules" <<C
rules = ( { name = "holder"; match = { exe = "$HOLDER_QUOTED"; };
            power = { governor = "performance"; idle_latency_us = 100; }; } );
C
start_daemon || { finish; exit 1; }
start "$HOLDER" -s 30
holder=$!
held() { [ "$(cat "$TMP/sys/devices/system/cpu/cpufreq/policy0/scaling_governor")" = performance ]; }
wait_until 5 held || not_ok "the hold" "the governor was not set"
# The textfile directory as the documentation lays it out: the scheduled
# check's file (the timer's command), and metrics' own, renamed into place.
TEXTDIR="$TMP/textfile"
mkdir -p "$TEXTDIR"
"$CTL" -c "$CONF" saturate --seconds 0.5 --threads 1 --if-idle 100 \
	--textfile "$TEXTDIR/cpupolicy_saturate.prom" >/dev/null
run "$CTL" -c "$CONF" metrics
if [ "$status" -eq 0 ] && check_exposition <<<"$out" >"$TMP/why" &&
	grep -q '^cpupolicy_up 1$' <<<"$out" &&
	grep -q '^cpupolicy_matches_total 1$' <<<"$out" &&
	grep -q '^cpupolicy_power_holds 1$' <<<"$out" &&
	grep -q "^cpupolicy_power_setting{path=\"$TMP/sys/devices/system/cpu/cpufreq/policy0/scaling_governor\",value=\"performance\",original=\"schedutil\"} 1$" <<<"$out" &&
	! grep -q 'cpupolicy_saturate_' <<<"$out"; then
	ok "a daemon holding a setting: counters, the hold, the setting, and none of the saturation check's series, which are its textfile's"
else
	not_ok "metrics of a daemon" "$out $(cat "$TMP/why")"
fi
printf '%s\n' "$out" >"$TEXTDIR/cpupolicy.prom"
# What node_exporter reads of the directory: every .prom file, as one
# exposition.
cat "$TEXTDIR"/*.prom >"$TMP/scraped"
if grep -q '^cpupolicy_up 1$' "$TMP/scraped" &&
	grep -q '^cpupolicy_saturate_efficiency [0-9.]*$' "$TMP/scraped" &&
	grep -q '^cpupolicy_saturate_skipped 0$' "$TMP/scraped" &&
	check_exposition <"$TMP/scraped" >"$TMP/why"; then
	ok "the textfile directory of metrics and the scheduled check: each series once, from one writer"
else
	not_ok "metrics beside the check's textfile" "$(cat "$TMP/why")"
fi
if command -v promtool >/dev/null; then
	run promtool check metrics <"$TMP/scraped"
	expect_status "promtool" 0 && ok "promtool check metrics accepts the directory's exposition"
else
	skip "promtool check metrics" "Debian's prometheus package is not installed"
fi
# The parser must catch what promtool would.
bad_ok=1
for bad in 'cpupolicy_x 1' $'# HELP a_total a\n# TYPE a_total counter\na_total one' \
	$'# HELP b b\n# TYPE b counter\nb 1' $'# HELP c c\n# TYPE c gauge\nc{l="x} 1'; do
	check_exposition <<<"$bad" >/dev/null && bad_ok=0
done
[ "$bad_ok" -eq 1 ] && ok "the parser rejects broken exposition" ||
	not_ok "parser" "accepted a broken one"
# json_check EXPRESSION: the JSON document on stdin is valid UTF-8 and
# valid JSON to a parser other than the one that wrote it, and the Python
# EXPRESSION on it (d) is true.
json_check() {
	python3 -c 'import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$1"
}
if command -v python3 >/dev/null; then
	run ctl status --json
	if json_check "d['holds'][0]['rule'] == 'holder' and
		{'path': '$DEV/cpu_dma_latency', 'value': '100',
		 'original': None, 'yielded': False} in d['settings']" <<<"$out"; then
		ok "status --json: a quote in a path held comes out escaped and parses back"
	else
		not_ok "status --json escaped" "$out"
	fi
	run ctl explain --json "$holder"
	if json_check "d['name'] == 'ho\"l\\td\\u00ff' and
		d['exe'] == '$TMP/ho\"l\\td\\u00ff'" <<<"$out"; then
		ok "explain --json: a process name with a quote, a tab and a byte of no UTF-8 comes out escaped and parses back"
	else
		not_ok "explain --json escaped" "$(od -c <<<"$out" | head -n 20)"
	fi
else
	skip "the JSON parsed back" "no python3 here"
fi
stop_daemon || not_ok "clean stop" "the daemon did not stop"
finish
