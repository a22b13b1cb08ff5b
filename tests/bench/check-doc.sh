#!/bin/bash
# Checks that the benchmarks' figures cannot drift: docs/benchmarks.md is
# what make bench wrote (its head, every section, every table filled),
# and no other page quotes it: PROSE.md, the page whose "## Benchmarks"
# section says what make bench measures (HACKING.md), holds a link there
# and no figure, and no table row of PROSE.md or of any OTHER.md (the
# README, the guides) repeats one of the file's.
# Prints each problem; exits 1 when there is one.
#
#   check-doc.sh BENCHMARKS.md [PROSE.md [OTHER.md...]]
set -u
[ $# -ge 1 ] || {
	echo "usage: $0 BENCHMARKS.md [PROSE.md [OTHER.md...]]" >&2
	exit 2
}
doc=$1
prose=${2:-}
shift $(($# < 2 ? $# : 2))
others=("$@")
# shellcheck source=tests/rundoc.sh
. "$(dirname "$0")/../rundoc.sh"
rundoc_check_head "$doc" Benchmarks bench

# The sections make bench writes, each with a table or a line saying
# why it was not measured.
SECTIONS=(
	"## Rules"
	"## Imports"
	"## Exec to applied"
	"## Exec events: the proc connector and the exec filter"
	"## Compared with and, which renices by polling"
	"## A rename flood"
	"## Windows under Wine"
)

for s in "${SECTIONS[@]}"; do
	body=$(awk -v s="$s" '$0 == s { on = 1; next } /^## / { on = 0 } on' "$doc")
	if ! grep -qxF "$s" "$doc"; then
		problem "$doc: no section \"$s\""
	elif ! grep -qE '^\|---' <<<"$body" && ! grep -q '^Not measured' <<<"$body"; then
		problem "$doc: \"$s\" has neither a table nor a reason it was not measured"
	fi
done

# Every table: as many cells in each row as in its head, none empty or
# not a number (nan, inf, "(null)"), at least one row; beyond its first
# column (the row's name) each cell starts with a figure, or is "—"
# where the column does not apply to the row.
awk -v doc="$doc" '
	function cells(line, out,   n, i) {
		sub(/^\| */, "", line); sub(/ *\|$/, "", line)
		n = split(line, out, / *\| */)
		return n
	}
	function bad(msg) { print doc ":" NR ": " msg; status = 1 }
	/^\|/ {
		n = cells($0, c)
		if (!intable) { intable = 1; head = n; rows = -1; title = c[1]; machine = (title == "machine") }
		rows++
		if (rows == 0) next
		if ($0 ~ /^\|---/) next
		if (n != head) bad("a row of " n " cells in a table of " head)
		for (i = 1; i <= n; i++) {
			if (c[i] == "") bad("an empty cell")
			else if (c[i] ~ /(^|[^a-z])(-?nan|inf|\(null\))([^a-z]|$)/) bad("a cell of no number: " c[i])
			else if (i > 1 && c[i] != "—" && c[i] !~ /^[0-9]/ && !machine) bad("a cell that does not start with a figure: " c[i])
		}
		next
	}
	intable { if (rows < 2) bad("a table without rows"); intable = 0 }
	END { if (intable && rows < 2) bad("a table without rows"); exit status }
' "$doc" || problems=$((problems + 1))

if [ -n "$prose" ]; then
	# The section's lines, each after its line number in the page.
	section=$(awk '/^## Benchmarks$/ { on = 1; print NR ":" $0; next } /^## / { on = 0 } on { print NR ":" $0 }' "$prose")
	if [ -z "$section" ]; then
		problem "$prose: no \"## Benchmarks\" section"
	else
		# A figure: a number with a unit, a percentage, or a table.
		rundoc_check_prose "$prose" "the Benchmarks section" "$section" \
			docs/benchmarks.md \
			'[0-9]([0-9.,]*)[[:space:]]*(ms|µs|us|ns|s|MiB|MB|KiB|GiB|%)([^[:alnum:]]|$)|^[0-9]+:\|'
	fi
	# No table row of the pages repeats one of the file's (its first
	# cell): a copied row is a figure that will drift.
	labels=$(awk '/^\| / && !/^\|---/ { l = $0; sub(/^\| */, "", l); sub(/ *\|.*/, "", l); print l }' "$doc" |
		grep -vxE 'run|what|rules, kernel|poll interval|machine|CPU|CPUs|kernel|date|command|tree|load average.*|Debian' | sort -u)
	for page in "$prose" "${others[@]}"; do
		while IFS= read -r label; do
			[ -n "$label" ] || continue
			hit=$(grep -nF "| $label |" "$page" | head -n 1)
			[ -z "$hit" ] || problem "$page:${hit%%:*}: repeats the row \"$label\" of $doc"
		done <<<"$labels"
	done
fi

[ "$problems" -eq 0 ]
