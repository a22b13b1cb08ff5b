#!/bin/bash
# The Grafana dashboard beside the alerting rules
# (packaging/grafana/cpupolicy.json): a dashboard model with a Prometheus
# data source variable and a machine variable; every panel's PromQL parsed
# by promtool (as recording rules: Grafana is not in Debian); every series
# it names one of the two writers' in a real run: cpupolicyctl metrics
# beside a daemon, or a scheduled check's own textfile; counters read only
# through rate, irate or increase, gauges never; and every series either
# writes shown on some panel.
. "$(dirname "$0")/lib.sh"

DASHBOARD="$SRCDIR/packaging/grafana/cpupolicy.json"
command -v jq >/dev/null || skip_all "jq is not installed (make deps)"

# The model: a current schema, the two variables, every query on the
# chosen data source, panel ids unique, a query in every panel; each
# line printed is a check that failed.
run jq -r '
	def vars(f): [.templating.list[] | select(f)] | length == 1;
	def panels: .panels[] | select(.type != "row");
	(select(.schemaVersion < 39) |
		"schemaVersion \(.schemaVersion): below 39, that of Grafana 11"),
	(select(vars(.name == "datasource" and .type == "datasource" and
		.query == "prometheus") | not) |
		"no datasource variable of type prometheus"),
	(select(vars(.name == "instance" and .type == "query" and
		.datasource.uid == "${datasource}" and
		(.definition | test("^label_values\\(.*, *instance\\)$")) and
		.query.query == .definition) | not) |
		"no instance variable of label_values(..., instance)"),
	(panels | select([.datasource.uid, .targets[].datasource.uid] |
		all(. == "${datasource}") | not) |
		"panel \(.id) (\(.title)): not on ${datasource}"),
	(panels | select((.targets | length > 0) and
		all(.targets[]; .expr | length > 0) | not) |
		"panel \(.id) (\(.title)): without a query"),
	([.panels[].id] | group_by(.)[] | select(length > 1) |
		"panel id \(.[0]) given \(length) times")' "$DASHBOARD"
[ "$status" -eq 0 ] && [ -z "$out" ] &&
	ok "the dashboard: schema $(jq .schemaVersion "$DASHBOARD"), datasource and instance variables, every panel queries \${datasource}" ||
	not_ok "dashboard model" "$out $err"

# Each query as PromQL: Grafana's variables replaced by values of their
# kind, each named after its panel and query, the machine variable's
# series selector among them.
queries() {
	jq -r '
	def promql: gsub("\\$\\{?instance\\}?"; ".+") |
		gsub("\\$\\{?__rate_interval\\}?"; "5m") |
		gsub("\\$\\{?__interval\\}?"; "1m") |
		gsub("\\$\\{?__range\\}?"; "1d");
	def slug: ascii_downcase | gsub("[^a-z0-9]+"; "_") | gsub("^_|_$"; "");
	(.panels[] | select(.type != "row") | . as $p | .targets[] |
		"dashboard:p\($p.id)_\($p.title | slug):\(.refId)\t\(.expr | promql | @json)"),
	(.templating.list[] | select(.name == "instance") |
		"dashboard:variable_instance\t\(.definition |
			capture("^label_values\\((?<s>.*), *instance\\)$").s | @json)")
	' "$DASHBOARD"
}
queries >"$TMP/queries"
count=$(wc -l <"$TMP/queries")

if ! command -v promtool >/dev/null; then
	skip "promtool check rules on the dashboard's queries" "Debian's prometheus package is not installed"
else
	{
		printf 'groups:\n  - name: dashboard\n    rules:\n'
		while IFS=$'\t' read -r name expr; do
			printf '      - record: %s\n        expr: %s\n' "$name" "$expr"
		done <"$TMP/queries"
	} >"$TMP/dashboard.rules.yml"
	left=$(cut -f2 "$TMP/queries" | grep '\$')
	run promtool check rules "$TMP/dashboard.rules.yml"
	if [ -n "$left" ]; then
		not_ok "dashboard variables" "a variable without a stand-in: $left"
	elif expect_status "promtool check rules" 0 &&
		expect_contains "rules found" "$out" "SUCCESS: $count rules found"; then
		ok "promtool check rules: the $count queries of the dashboard parse"
	fi
fi

# What the two writers write, in a real run: metrics of a daemon up (with
# the exec filter where it loads here), and a scheduled check's textfile,
# the result and the decision.
if [ "$(id -u)" -ne 0 ]; then
	skip "the dashboard's series are those metrics and the check write" "needs root, for a daemon"
	finish
	exit 0
fi
write_conf
start_daemon || { finish; exit 1; }
"$CTL" -c "$CONF" saturate --seconds 0.5 --threads 1 --if-idle 100 \
	--textfile "$TMP/check.prom" >/dev/null
"$CTL" -c "$CONF" metrics >"$TMP/metrics.prom"
stop_daemon || not_ok "clean stop" "the daemon did not stop"
# name TYPE, of the metric families in each file and in both.
families() { awk '$1 == "#" && $2 == "TYPE" { print $3, $4 }' "$1" | sort -u; }
families "$TMP/metrics.prom" >"$TMP/written.metrics"
families "$TMP/check.prom" >"$TMP/written.check"
sort -u "$TMP/written.metrics" "$TMP/written.check" >"$TMP/written"

# Each series a query names, with the function applied to it right away
# ("-" stands for none of either: read joins runs of tabs): the query
# without its strings, label matchers, ranges and grouping labels, less
# what calls or keywords name; a __name__ matcher's alternatives are
# series too.
jq -Rr '
	def keyword: IN("and", "or", "unless", "bool", "offset", "atan2",
		"inf", "nan");
	split("\t") as [$name, $json] | ($json | fromjson) as $q |
	([$q | scan("__name__=~?\"([^\"]*)\"") | .[0] | split("|")[] |
		{f: "-", s: .}] +
	[$q | gsub("\"([^\"\\\\]|\\\\.)*\""; "\"\"") |
		gsub("\\{[^}]*\\}"; " ") | gsub("\\[[^\\]]*\\]"; " ") |
		gsub("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)"; " ") |
		scan("(?:([a-z_]+)\\s*\\(\\s*)?(?<![A-Za-z0-9_:.])([A-Za-z_:][A-Za-z0-9_:]*)(?![A-Za-z0-9_:]|\\s*\\()") |
		{f: (.[0] // "-"), s: .[1]} | select(.s | keyword | not)]) |
	if length == 0 then "\($name)\t-\t-" else .[] | "\($name)\t\(.f)\t\(.s)" end
' "$TMP/queries" >"$TMP/uses"

filter=$(grep -c '^cpupolicy_exec_filter_' "$TMP/written")
bad=
unseen=
while IFS=$'\t' read -r name func series; do
	type=$(awk -v s="$series" '$1 == s { print $2 }' "$TMP/written")
	# A histogram's buckets, sum and count are counters of its family.
	if [ -z "$type" ] && [[ $series =~ ^(.*)_(bucket|sum|count)$ ]] &&
		[ "$(awk -v s="${BASH_REMATCH[1]}" '$1 == s { print $2 }' "$TMP/written")" = histogram ]; then
		type=counter
	fi
	if [ "$series" = - ]; then
		bad="$bad"$'\n'"$name: names no series"
	elif [ -z "$type" ] && [ "$filter" -eq 0 ] &&
		[[ $series == cpupolicy_exec_filter_* ]]; then
		unseen="$unseen $series"
	elif [ -z "$type" ]; then
		bad="$bad"$'\n'"$name: $series is not a series cpupolicyctl metrics or the check's textfile writes"
	elif [ "$type" = counter ] && [[ ! $func =~ ^(rate|irate|increase)$ ]]; then
		bad="$bad"$'\n'"$name: the counter $series read without rate, irate or increase"
	elif [ "$type" != counter ] && [[ $func =~ ^(rate|irate|increase)$ ]]; then
		bad="$bad"$'\n'"$name: $func of the $type $series"
	fi
done <"$TMP/uses"
[ -s "$TMP/written.metrics" ] && [ -s "$TMP/written.check" ] &&
	[ -s "$TMP/uses" ] && [ -z "$bad" ] &&
	ok "every series the dashboard's $count queries name is one metrics or the check's textfile writes; counters through rate or increase, gauges as they are" ||
	not_ok "the dashboard's series" "${bad#$'\n'}"
if [ -n "$unseen" ]; then
	skip "the exec filter's series are among those metrics writes" \
		"no exec filter here ($events_want events):$(tr ' ' '\n' <<<"$unseen" | sort -u | paste -sd' ')"
fi

missing=
while read -r series kind; do
	if [ "$kind" = histogram ]; then
		grep -Eq $'\t'"${series}_(bucket|sum|count)"'$' "$TMP/uses" ||
			missing="$missing $series"
	else
		grep -q $'\t'"$series"'$' "$TMP/uses" || missing="$missing $series"
	fi
done <"$TMP/written"
[ -s "$TMP/written" ] && [ -z "$missing" ] &&
	ok "every series metrics ($(wc -l <"$TMP/written.metrics")) and the check's textfile ($(wc -l <"$TMP/written.check")) write is on a panel" ||
	not_ok "series without a panel" "missing:$missing"

# One writer a family: the two files lie in one textfile directory.
both=$(cut -d' ' -f1 "$TMP/written.metrics" "$TMP/written.check" | sort | uniq -d)
[ -s "$TMP/written" ] && [ -z "$both" ] &&
	ok "no series is written both by metrics and by the check" ||
	not_ok "series of two writers" "$(paste -sd' ' <<<"$both")"
finish
