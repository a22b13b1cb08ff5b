# The pages a run writes, docs/benchmarks.md (make bench) and docs/soak.md
# (make soak): what their writers (tests/bench/report.sh,
# tests/soak/report.sh) and their checks (the check-doc.sh beside each)
# share, so that both pages keep one head and one machine table. Sourced;
# it defines:
#
#   rundoc_machine DATE COMMAND   the machine table's head and its rows
#                                 date, command, tree, CPU, CPUs, kernel
#                                 (a writer adds its own rows after them)
#   rundoc_load START             its last row: the load average at START
#                                 and now
#   rundoc_replace NAME CHECK NEW OUTPUT
#                                 NEW replaces OUTPUT when CHECK (the
#                                 page's check-doc.sh) passes it, else
#                                 OUTPUT is left and the run fails (exit 1);
#                                 NAME begins the messages
#   problem MESSAGE               a check's problem: said, and counted in
#                                 problems
#   rundoc_check_head DOC TITLE TARGET
#                                 DOC starts with "# TITLE", says that make
#                                 TARGET wrote it and has the machine
#                                 table's rows; exits 1 when DOC cannot be
#                                 read
#   rundoc_check_prose PAGE WHAT TEXT LINK FIGURE
#                                 TEXT, WHAT of PAGE that says what the run
#                                 does ("the soak's paragraph"), links LINK
#                                 and has no line matching FIGURE (an ERE)
# shellcheck shell=bash

rundoc_machine() { # date, command
	echo "| machine | this run |"
	echo "|---|---|"
	echo "| date | $1 |"
	echo "| command | \`$2\` |"
	echo "| tree | $(git -C "$(dirname "${BASH_SOURCE[0]}")" describe --always --dirty 2>/dev/null || echo unknown) |"
	echo "| CPU | $(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo | grep . || uname -m) |"
	echo "| CPUs | $(getconf _NPROCESSORS_ONLN) online of $(getconf _NPROCESSORS_CONF) |"
	echo "| kernel | $(uname -sr) |"
}

rundoc_load() { # load average at the start
	echo "| load average (1, 5, 15 min) | $1 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end |"
}

rundoc_replace() { # name, check, new, output
	if ! "$2" "$3"; then
		echo "$1: the run left a figure unfilled; $4 is left as it was" >&2
		exit 1
	fi
	chmod 0644 "$3"
	mv "$3" "$4"
	echo "$1: wrote $4" >&2
}

problems=0
problem() {
	echo "$1"
	problems=$((problems + 1))
}

rundoc_check_head() { # doc, title, make target
	local key
	[ -r "$1" ] || {
		echo "$1: cannot be read"
		exit 1
	}
	[ "$(head -n 1 "$1")" = "# $2" ] ||
		problem "$1:1: does not start with \"# $2\""
	grep -q "^Written by \`make $3" "$1" ||
		problem "$1: no line saying which run of make $3 wrote it"
	for key in date command CPU CPUs kernel; do
		grep -q "^| $key | [^ |]" "$1" ||
			problem "$1: the machine's table has no $key"
	done
}

rundoc_check_prose() { # page, what, text, link, figure pattern
	local figures
	grep -qF "($4)" <<<"$3" ||
		problem "$1: $2 does not link $4"
	figures=$(grep -E "$5" <<<"$3")
	[ -z "$figures" ] || problem "$1: $2 quotes figures of its own (they belong in $4):
$figures"
}
