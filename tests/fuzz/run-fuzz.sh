#!/bin/sh
# Runs one libFuzzer target for SECONDS, seeded with the shipped files and
# test data; new inputs go to a corpus under the build directory.
# usage: run-fuzz.sh BINARY SECONDS
set -eu
bin=$1
seconds=$2
name=$(basename "$bin")
top=$(cd "$(dirname "$0")/../.." && pwd)
corpus="$(dirname "$bin")/corpus-$name"
seeds="$(dirname "$bin")/seeds-$name"
mkdir -p "$corpus" "$seeds"
case $name in
fuzz_rules)
	for f in "$top"/rules/*.rules "$top"/rules/examples/*.rules \
		"$top"/tests/data/golden/*.rules "$top"/tests/data/precedence/*/*.rules; do
		[ -f "$f" ] && cp "$f" "$seeds/"
	done
	dict="$top/tests/fuzz/rules.dict"
	;;
fuzz_conf)
	cp "$top"/conf/*.conf "$seeds/"
	dict="$top/tests/fuzz/conf.dict"
	;;
*)
	dict=
	;;
esac
if [ -d "$top/tests/fuzz/seeds/$name" ]; then
	cp "$top/tests/fuzz/seeds/$name"/* "$seeds/"
fi
export LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0"
set -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
	-print_final_stats=0 -artifact_prefix="$(dirname "$bin")/"
[ -n "$dict" ] && [ -f "$dict" ] && set -- "$@" -dict="$dict"
"$bin" "$@" "$corpus" "$seeds" 2>"$corpus.log" || {
	tail -n 40 "$corpus.log" >&2
	exit 1
}
grep -E '^Done [0-9]+ runs' "$corpus.log" | tail -n 1 || true
