#!/bin/bash
# Checks that the soak's figures cannot drift: docs/soak.md is what make
# soak wrote (its head, its machine, every figure filled), and PROSE.md,
# the page whose paragraph says what make soak runs (HACKING.md), quotes
# none of it (the paragraph links the file and states no figure). Prints
# each problem; exits 1 when there is one.
#
#   check-doc.sh SOAK.md [PROSE.md]
set -u
[ $# -ge 1 ] && [ $# -le 2 ] || {
	echo "usage: $0 SOAK.md [PROSE.md]" >&2
	exit 2
}
doc=$1
prose=${2:-}
# shellcheck source=tests/rundoc.sh
. "$(dirname "$0")/../rundoc.sh"
rundoc_check_head "$doc" "The soak" soak

# The figures make soak writes, by the first cell of their row.
FIGURES=(
	"seconds"
	"events a second held"
	"restarts by SIGKILL survived"
	"descriptors at most, after the warm-up"
	"RSS at most, after the warm-up"
	"PIDs wrapped"
	"power holds taken"
	"settings lost"
	"raises seen on unmatched processes"
	"the sampler's looks"
	"checks"
)

# Each figure's cell starts with a number, and none is empty or no number.
for f in "${FIGURES[@]}"; do
	row=$(grep -F "| $f | " "$doc" | head -n 1)
	if [ -z "$row" ]; then
		problem "$doc: no figure \"$f\""
	elif ! grep -qE "^\| [^|]* \| [0-9]" <<<"$row" ||
		grep -qE '(^|[^a-z])(-?nan|inf|none|\(null\))([^a-z]|$)' <<<"$row"; then
		problem "$doc: the figure \"$f\" is no number: $row"
	fi
done

if [ -n "$prose" ]; then
	para=$(awk '/^`make soak` runs/ { on = 1 } on && /^$/ { exit } on' "$prose")
	if [ -z "$para" ]; then
		problem "$prose: no paragraph starting \"\`make soak\` runs\""
	else
		rundoc_check_prose "$prose" "the soak's paragraph" "$para" \
			docs/soak.md \
			'[0-9][0-9.,]*[[:space:]]*(ms|s|MiB|KiB|MB|%|descriptors|fds|events|restarts)([^[:alnum:]]|$)'
	fi
fi

[ "$problems" -eq 0 ]
