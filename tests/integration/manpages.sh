#!/bin/bash
# The documentation as a reader gets it: each man page renders with
# man --warnings and no warning (a bad macro, a broken font escape, a
# line groff cannot fill), and not empty; and every relative link of
# README.md, HACKING.md and docs/*.md names a file that exists. Runs as
# any user; nothing is installed.
. "$(dirname "$0")/lib.sh"

MAN_PAGES=(rules/cpupolicy.rules.5 policyd/cpupolicyd.8 ctl/cpupolicyctl.8)

if ! command -v man >/dev/null; then
	for page in "${MAN_PAGES[@]}"; do
		skip "$page renders without a warning" "man-db is not installed"
	done
else
	for page in "${MAN_PAGES[@]}"; do
		name="$page renders without a warning"
		# A fixed width and locale: the warnings and the layout must not
		# depend on the terminal that runs the suite.
		run env -u MAN_KEEP_FORMATTING LC_ALL=C.UTF-8 MANWIDTH=80 \
			man --warnings -l "$SRCDIR/$page"
		if [ "$status" -ne 0 ]; then
			not_ok "$name" "man exited $status: $err"
		elif [ -n "$err" ]; then
			not_ok "$name" "$err"
		elif ! grep -q '^NAME$' <<<"$out" || [ "$(wc -l <<<"$out")" -lt 20 ]; then
			not_ok "$name" "rendered empty or without its NAME: $(head -c 300 <<<"$out")"
		else
			ok "$name"
		fi
	done
fi

# links FILE: the targets of FILE's Markdown links, inline ([text](target))
# and by reference ([label]: target), outside fenced code blocks.
links() {
	awk '
		/^```/ { code = !code; next }
		code { next }
		{
			line = $0
			while (match(line, /\]\([^)]*\)/)) {
				print substr(line, RSTART + 2, RLENGTH - 3)
				line = substr(line, RSTART + RLENGTH)
			}
			if (match($0, /^ *\[[^]]+\]: +[^ ]+/)) {
				t = substr($0, RSTART, RLENGTH)
				sub(/^ *\[[^]]+\]: +/, "", t)
				print t
			}
		}
	' "$1"
}

# A relative link names a file or folder beside the page (an anchor and a
# title dropped); one with a scheme, or an anchor alone, is not checked.
check_links() { # page
	local page=$1 dir target path missing= count=0
	dir=$(dirname "$page")
	while IFS= read -r target; do
		target=${target%% *}
		case $target in
		'' | '#'* | *://* | mailto:*) continue ;;
		esac
		path=${target%%#*}
		count=$((count + 1))
		[ -e "$dir/$path" ] || missing="$missing $target"
	done < <(links "$page")
	echo "$count:$missing"
}

pages=("$SRCDIR/README.md" "$SRCDIR/HACKING.md" "$SRCDIR"/docs/*.md)
for page in "${pages[@]}"; do
	rel=${page#"$SRCDIR"/}
	name="$rel: every relative link names a file that exists"
	if [ ! -r "$page" ]; then
		not_ok "$name" "$rel cannot be read"
		continue
	fi
	res=$(check_links "$page")
	if [ -n "${res#*:}" ]; then
		not_ok "$name" "no such file:${res#*:}"
	else
		ok "$name (${res%%:*} links)"
	fi
done

# The check itself: a link to a file that is not there must be caught,
# or every case above could pass without looking.
printf 'See [the guide](docs/no-such-guide.md).\n' >"$TMP/bad.md"
res=$(check_links "$TMP/bad.md")
[ "${res#*:}" = " docs/no-such-guide.md" ] &&
	ok "a link to a missing file is caught" ||
	not_ok "a link to a missing file is caught" "check_links said: $res"

finish
