#!/bin/bash
# Writes the soak's figures (the file tests/integration/soak.sh leaves
# when SOAK_DOC is set: a name and a value a line) as Markdown, with the
# machine, the date and the command, to OUTPUT (docs/soak.md): no figure
# of the soak is typed by hand. The file is checked
# (tests/soak/check-doc.sh) before it replaces OUTPUT.
#
#   report.sh FIGURES OUTPUT
# Environment: SOAK_COMMAND, the command that ran the soak.
set -u
[ $# -eq 2 ] || {
	echo "usage: $0 FIGURES OUTPUT" >&2
	exit 2
}
top=$(cd "$(dirname "$0")/../.." && pwd)
figures=$1
out=$2
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT
# shellcheck source=tests/rundoc.sh
. "$top/tests/rundoc.sh"

fig() { awk -v k="$1" '$1 == k { sub(/^[^ ]* /, ""); print; exit }' "$figures"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f MiB", k / 1024 }'; }

{
	echo "# The soak"
	echo
	echo "Written by \`make soak\` from the run below (tests/integration/soak.sh,"
	echo "tests/soak/report.sh); nothing in this file is typed by hand, so change"
	echo "the soak, not this file. A busy machine shows in the load average."
	echo
	rundoc_machine "$(fig started) to $(date -u '+%H:%M UTC')" \
		"${SOAK_COMMAND:-make soak}"
	rundoc_load "$(fig load_start)"
	echo
	echo "## Figures"
	echo
	echo "| what | figure |"
	echo "|---|---|"
	echo "| seconds | $(fig seconds) |"
	echo "| events a second held | $(fig events_per_s) |"
	echo "| restarts by SIGKILL survived | $(fig restarts) |"
	echo "| descriptors at most, after the warm-up | $(fig fds_max) |"
	echo "| RSS at most, after the warm-up | $(mib "$(fig rss_max_kib)") |"
	echo "| PIDs wrapped | $(fig wraps) times (pid_max $(fig pid_max)) |"
	echo "| power holds taken | $(fig holds_taken), on $(fig knobs) knobs$([ "$(fig cpu1)" = true ] && echo ", cpu1 among them") |"
	echo "| settings lost | $(fig settings_lost) |"
	echo "| raises seen on unmatched processes | $(fig raises_seen), the longest for $(fig raise_longest_ms) ms |"
	echo "| the sampler's looks | $(fig looks), the longest gap $(fig look_gap_ms) ms |"
	echo "| checks | $(fig passed) passed, $(fig failed) failed |"
} >"$tmp"

rundoc_replace soak "$top/tests/soak/check-doc.sh" "$tmp" "$out"
