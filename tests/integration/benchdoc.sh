#!/bin/bash
# The benchmarks' figures cannot drift: docs/benchmarks.md is whole, as
# make bench writes it (tests/bench/check-doc.sh, which make bench also
# runs on every new file), and no other page quotes it: HACKING.md's
# Benchmarks section says what make bench measures with a link and no
# figure, and no row of the file is copied into HACKING.md, README.md or
# a guide of docs/. Each way of breaking that is made on a copy, and the
# check must refuse it. No benchmark runs here.
. "$(dirname "$0")/lib.sh"

CHECK="$SRCDIR/tests/bench/check-doc.sh"
DOC="$SRCDIR/docs/benchmarks.md"
# The page with the Benchmarks section and the soak's paragraph, and the
# others, which must not copy a row of the figures either.
PROSE="$SRCDIR/HACKING.md"
OTHERS=("$SRCDIR/README.md")
for f in "$SRCDIR"/docs/*.md; do
	case $f in */benchmarks.md | */soak.md) ;; *) OTHERS+=("$f") ;; esac
done

[ -r "$DOC" ] || skip_all "no docs/benchmarks.md"
SOAK_CHECK="$SRCDIR/tests/soak/check-doc.sh"
SOAK_DOC="$SRCDIR/docs/soak.md"

name="docs/benchmarks.md is whole and no other page quotes it"
run "$CHECK" "$DOC" "$PROSE" "${OTHERS[@]}"
expect_status "$name" 0 && ok "$name"

# refused NAME WHY FILE-OF-DOC FILE-OF-PROSE [OTHER...]: the check must
# fail on them, and say WHY.
refused() {
	run "$CHECK" "${@:3}"
	if [ "$status" -eq 1 ]; then
		expect_contains "$1" "$out" "$2" && ok "$1"
	else
		not_ok "$1" "status $status, expected 1; output: $out"
	fi
}

# A figure typed into the Benchmarks section again.
awk '{ print } /^## Benchmarks$/ { print ""; print "The policy lands 0.7 ms after exec." }' \
	"$PROSE" >"$TMP/typed.md"
refused "a figure typed into HACKING.md's Benchmarks section is refused" \
	"quotes figures of its own" "$DOC" "$TMP/typed.md"

# The section without its link.
sed 's|(docs/benchmarks\.md)|(elsewhere)|g' "$PROSE" >"$TMP/nolink.md"
refused "a Benchmarks section without the link is refused" \
	"does not link docs/benchmarks.md" "$DOC" "$TMP/nolink.md"

# A row of the file copied into the README or a guide (as the Windows
# figures once were).
row=$(grep -m 1 '^| 1 rule (defaults) |' "$DOC")
if [ -z "$row" ]; then
	not_ok "a copied row is refused" "no row \"1 rule (defaults)\" in $DOC"
else
	for page in "$SRCDIR/README.md" "$SRCDIR/docs/windows.md"; do
		base=$(basename "$page")
		awk -v row="$row" '{ print } END { print ""; print "| run | x |"; print "|---|---|"; print row }' \
			"$page" >"$TMP/copied-$base"
		refused "a row of docs/benchmarks.md copied into $base is refused" \
			'repeats the row "1 rule (defaults)"' "$DOC" "$PROSE" "$TMP/copied-$base"
	done
fi

# An empty cell, as a benchmark that measured nothing prints.
awk '!done && /^\| 1 rule \(defaults\) \|/ { sub(/\| [^|]* \|$/, "|  |"); done = 1 } { print }' \
	"$DOC" >"$TMP/empty.md"
refused "a table with an empty cell is refused" "an empty cell" \
	"$TMP/empty.md" "$PROSE"

# A figure that is no number.
awk '!done && /^\| 1 rule \(defaults\) \|/ { sub(/\| [^|]* \|$/, "| -nan µs |"); done = 1 } { print }' \
	"$DOC" >"$TMP/nan.md"
refused "a cell of nan is refused" "a cell of no number" "$TMP/nan.md" \
	"$PROSE"

# A section gone, as when a benchmark was dropped from make bench.
awk '/^## A rename flood$/ { skip = 1; next } /^## / { skip = 0 } !skip' \
	"$DOC" >"$TMP/nosection.md"
refused "a file without one of its sections is refused" \
	'no section "## A rename flood"' "$TMP/nosection.md" "$PROSE"

# A file not written by make bench (no machine, no command).
grep -v '^| \(command\|kernel\) |' "$DOC" >"$TMP/nomachine.md"
refused "a file that does not say the machine and the command is refused" \
	"has no command" "$TMP/nomachine.md" "$PROSE"

# The soak's figures, the same way: docs/soak.md as make soak writes it,
# and HACKING.md's paragraph on make soak links it and quotes none of it.
if [ -r "$SOAK_DOC" ]; then
	name="docs/soak.md is whole and HACKING.md quotes none of it"
	run "$SOAK_CHECK" "$SOAK_DOC" "$PROSE"
	expect_status "$name" 0 && ok "$name"
	soak_refused() { # NAME WHY DOC PROSE
		run "$SOAK_CHECK" "$3" "$4"
		if [ "$status" -eq 1 ]; then
			expect_contains "$1" "$out" "$2" && ok "$1"
		else
			not_ok "$1" "status $status, expected 1; output: $out"
		fi
	}
	awk '{ print } /^`make soak` runs/ { print "and RSS flat (12 descriptors, 3.8 MiB at most)." }' \
		"$PROSE" >"$TMP/soaktyped.md"
	soak_refused "a soak figure typed into HACKING.md is refused" \
		"the soak's paragraph quotes figures of its own" "$SOAK_DOC" "$TMP/soaktyped.md"
	sed 's|(docs/soak\.md)|(elsewhere)|g' "$PROSE" >"$TMP/soaknolink.md"
	soak_refused "the soak's paragraph without the link is refused" \
		"does not link docs/soak.md" "$SOAK_DOC" "$TMP/soaknolink.md"
	grep -v '^| PIDs wrapped |' "$SOAK_DOC" >"$TMP/soaknowrap.md"
	soak_refused "a soak page without a figure is refused" \
		'no figure "PIDs wrapped"' "$TMP/soaknowrap.md" "$PROSE"
	sed 's/^| settings lost | .*/| settings lost | none |/' "$SOAK_DOC" >"$TMP/soaknone.md"
	soak_refused "a soak figure that is no number is refused" \
		'the figure "settings lost" is no number' "$TMP/soaknone.md" "$PROSE"
	grep -v '^| command |' "$SOAK_DOC" >"$TMP/soaknocmd.md"
	soak_refused "a soak page that does not say the command is refused" \
		"has no command" "$TMP/soaknocmd.md" "$PROSE"
else
	skip "docs/soak.md is whole" "no docs/soak.md: make soak writes it"
fi

finish
