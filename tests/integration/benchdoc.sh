#!/bin/bash
# The benchmarks' figures cannot drift: docs/benchmarks.md is whole, as
# make bench writes it (tests/bench/check-doc.sh, which make bench also
# runs on every new file), and README.md quotes none of it. Each way of
# breaking that is made on a copy, and the check must refuse it. No
# benchmark runs here.
. "$(dirname "$0")/lib.sh"

CHECK="$SRCDIR/tests/bench/check-doc.sh"
DOC="$SRCDIR/docs/benchmarks.md"
README="$SRCDIR/README.md"

[ -r "$DOC" ] || skip_all "no docs/benchmarks.md"

name="docs/benchmarks.md is whole and README.md quotes none of it"
run "$CHECK" "$DOC" "$README"
expect_status "$name" 0 && ok "$name"

# refused NAME WHY FILE-OF-DOC FILE-OF-README: the check must fail on
# them, and say WHY.
refused() {
	run "$CHECK" "$3" "$4"
	if [ "$status" -eq 1 ]; then
		expect_contains "$1" "$out" "$2" && ok "$1"
	else
		not_ok "$1" "status $status, expected 1; output: $out"
	fi
}

# A figure typed into the README's Benchmarks section again.
awk '{ print } /^## Benchmarks$/ { print ""; print "The policy lands 0.7 ms after exec." }' \
	"$README" >"$TMP/typed.md"
refused "a figure typed into README's Benchmarks section is refused" \
	"quotes figures of its own" "$DOC" "$TMP/typed.md"

# The section without its link.
sed 's|(docs/benchmarks\.md)|(elsewhere)|g' "$README" >"$TMP/nolink.md"
refused "a Benchmarks section without the link is refused" \
	"does not link docs/benchmarks.md" "$DOC" "$TMP/nolink.md"

# A row of the file copied into another part of the README (as the
# Windows figures once were).
row=$(grep -m 1 '^| 1 rule (defaults) |' "$DOC")
if [ -z "$row" ]; then
	not_ok "a copied row is refused" "no row \"1 rule (defaults)\" in $DOC"
else
	awk -v row="$row" '{ print } /^## Windows$/ { print ""; print "| run | x |"; print "|---|---|"; print row }' \
		"$README" >"$TMP/copied.md"
	refused "a row of docs/benchmarks.md copied into README is refused" \
		'repeats the row "1 rule (defaults)"' "$DOC" "$TMP/copied.md"
fi

# An empty cell, as a benchmark that measured nothing prints.
awk '!done && /^\| 1 rule \(defaults\) \|/ { sub(/\| [^|]* \|$/, "|  |"); done = 1 } { print }' \
	"$DOC" >"$TMP/empty.md"
refused "a table with an empty cell is refused" "an empty cell" \
	"$TMP/empty.md" "$README"

# A figure that is no number.
awk '!done && /^\| 1 rule \(defaults\) \|/ { sub(/\| [^|]* \|$/, "| -nan µs |"); done = 1 } { print }' \
	"$DOC" >"$TMP/nan.md"
refused "a cell of nan is refused" "a cell of no number" "$TMP/nan.md" \
	"$README"

# A section gone, as when a benchmark was dropped from make bench.
awk '/^## A rename flood$/ { skip = 1; next } /^## / { skip = 0 } !skip' \
	"$DOC" >"$TMP/nosection.md"
refused "a file without one of its sections is refused" \
	'no section "## A rename flood"' "$TMP/nosection.md" "$README"

# A file not written by make bench (no machine, no command).
grep -v '^| \(command\|kernel\) |' "$DOC" >"$TMP/nomachine.md"
refused "a file that does not say the machine and the command is refused" \
	"has no command" "$TMP/nomachine.md" "$README"

finish
