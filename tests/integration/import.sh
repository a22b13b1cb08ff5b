#!/bin/bash
# cpupolicyctl import ananicy: the tests' own tree (tests/data/import/
# ananicy, folder names with spaces and '&') against stored expected files;
# the ananicy sample beside the checkout (GPL-3.0: read in place, never
# copied) checked with check --strict and against stored counts; stable
# output; the daemon applying an imported lowering rule (as root).
. "$(dirname "$0")/lib.sh"

DATA="$SRCDIR/tests/data/import"
SAMPLE=${ANANICY_SAMPLE:-$SRCDIR/../shared/ananicy-sample}

# import_into DIR ARGS...: runs the import from the data folder (the
# sources then name paths relative to it), output in DIR.
import_into() {
	local dir=$1
	shift
	rm -rf "$dir" && mkdir -p "$dir"
	run bash -c 'cd "$1" && shift && "$@"' - "$DATA" "$CTL" import ananicy \
		-o "$dir" "$@"
}

import_into "$TMP/imp" ananicy
expect_status "import: exit 0" 0 &&
	ok "import ananicy of the test tree: exit 0"
if diff -u "$DATA/ananicy.expected/summary.out" \
	<(printf '%s\n' "$out" | sed "s|in $TMP/imp\$|in OUTDIR|") >"$TMP/d" &&
	diff -u "$DATA/ananicy.expected/warnings.err" \
		<(printf '%s\n' "$err") >>"$TMP/d"; then
	ok "summary and file:line warnings as expected"
else
	not_ok "summary and warnings" "$(head -40 "$TMP/d")"
fi
if diff -ru -x summary.out -x warnings.err "$DATA/ananicy.expected" \
	"$TMP/imp" >"$TMP/d"; then
	ok "rule files as expected (one per folder, one rule per type and settings)"
else
	not_ok "rule files as expected" "$(head -40 "$TMP/d")"
fi
run "$CTL" check --strict "$TMP/imp"
expect_status "check --strict of the import" 0 &&
	ok "the import passes check --strict"

import_into "$TMP/again" ananicy
if diff -r "$TMP/imp" "$TMP/again" >/dev/null; then
	ok "the same input gives the same files"
else
	not_ok "stable output" "$(diff -r "$TMP/imp" "$TMP/again" | head)"
fi

# Again into the same folder, where an earlier import left a file of a
# folder that is gone and someone wrote one of their own under such a name:
# the first goes, the second stays.
head -1 "$TMP/imp/50-ananicy-sub-dir.rules" >"$TMP/imp/50-ananicy-gone.rules"
echo '# mine' >"$TMP/imp/50-ananicy-mine.rules"
run bash -c 'cd "$1" && shift && "$@"' - "$DATA" "$CTL" import ananicy \
	-o "$TMP/imp" ananicy
if [ "$status" -eq 0 ] && [ ! -e "$TMP/imp/50-ananicy-gone.rules" ] &&
	[ -e "$TMP/imp/50-ananicy-mine.rules" ] &&
	grep -q "50-ananicy-gone.rules: removed: written by an earlier import" <<<"$err" &&
	diff -r -x 50-ananicy-mine.rules "$TMP/imp" "$TMP/again" >/dev/null; then
	ok "a new import removes what an earlier one wrote for a folder now gone, and nothing else"
else
	not_ok "stale files of an earlier import" "exit $status; $err; $(ls "$TMP/imp")"
fi

import_into "$TMP/user" --user root ananicy
expect_contains "--user: narrowed" "$out" "raising: 3 narrowed to user root" &&
	expect_contains "--user: in the rule" "$(cat "$TMP/user"/*.rules)" \
		'user = "root";' && ok "--user narrows the raising rules"
run "$CTL" check --strict "$TMP/user"
expect_status "--user: check --strict" 0 && ok "--user: check --strict passes"

import_into "$TMP/group" --group root ananicy
run "$CTL" check --strict "$TMP/group"
expect_status "--group: check --strict" 0 &&
	expect_contains "--group: in the rule" "$(cat "$TMP/group"/*.rules)" \
		'group = "root";' && ok "--group narrows the raising rules"

import_into "$TMP/spoof" --allow-spoofable ananicy
expect_contains "--allow-spoofable: counted" "$out" \
	"raising: 3 opted in with allow_spoofable = true"
run "$CTL" check "$TMP/spoof"
expect_status "--allow-spoofable: check" 0 &&
	expect_contains "--allow-spoofable: warned" "$err" \
		"can be triggered by any process that names itself" &&
	ok "--allow-spoofable: check passes, with the spoofable warnings"
run "$CTL" check --strict "$TMP/spoof"
expect_status "--allow-spoofable: check --strict fails" 1 &&
	ok "--allow-spoofable: check --strict refuses the opted-in rules"

run "$CTL" import ananicy --user root --allow-spoofable -o "$TMP" "$DATA/ananicy"
expect_status "two narrowings: usage" 2 && ok "--user with --allow-spoofable: usage error"
# -o DIR: made when it is not there (0755, as rules directories are), not
# its parents; a file there is no directory.
umask 022
run bash -c 'cd "$1" && shift && "$@"' - "$DATA" "$CTL" import ananicy \
	-o "$TMP/new" ananicy
if [ "$status" -eq 0 ] && [ "$(stat -c %a "$TMP/new" 2>/dev/null)" = 755 ] &&
	diff -r -x summary.out -x warnings.err "$DATA/ananicy.expected" "$TMP/new" >/dev/null; then
	ok "-o DIR not there yet: made, mode 0755, the files in it"
else
	not_ok "-o DIR made" "exit $status; $err; $(ls -ld "$TMP/new" 2>&1)"
fi
run "$CTL" import ananicy -o "$TMP/no/such" "$DATA/ananicy"
if expect_status "-o DIR without a parent" 2 &&
	expect_contains "-o DIR without a parent: said" "$err" \
		"$TMP/no/such: error: cannot make the directory: No such file or directory"; then
	if [ ! -e "$TMP/no" ]; then
		ok "-o DIR whose parent is not there: an error, nothing made"
	else
		not_ok "-o DIR without a parent: nothing made" "$(ls -ld "$TMP/no")"
	fi
fi
: >"$TMP/plain"
run "$CTL" import ananicy -o "$TMP/plain" "$DATA/ananicy"
expect_status "-o FILE" 2 &&
	expect_contains "-o FILE: said" "$err" "$TMP/plain: error: there, and not a directory" &&
	ok "-o naming a file: an error that says so"

# A tree written to steer the import: a type id of JSON escapes that,
# unescaped in a comment, would add a realtime rule for nobody; a folder
# whose name holds a newline; escape sequences in a key and a type name.
# The import writes the three rules it counts, and nothing it says or
# writes holds a control byte.
hostile="$TMP/hostile"
weird="$hostile/we
ird"
mkdir -p "$weird"
inject='X\n  { name = \"evil\"; match = { name = \"sh\"; user = \"nobody\"; }; priority = { policy = \"fifo\"; rt_priority = 99; }; },\n#'
printf '{ "type": "%s", "nice": 5 }\n' "$inject" >"$hostile/evil.types"
{
	printf '{ "name": "foo", "type": "%s" }\n' "$inject"
	printf '{ "name": "bar", "nice": 4, "\\u001b]0;owned\\u0007": 1 }\n'
	printf '{ "name": "baz", "type": "No\\u001b[2Jpe", "nice": 3 }\n'
} >"$weird/a.rules"
rm -rf "$TMP/hout"
run "$CTL" import ananicy -o "$TMP/hout" "$hostile"
hostile_said="$out$err"
expect_status "hostile tree: exit 0" 0 &&
	expect_contains "hostile tree: counted" "$out" "as 3 cpupolicy rules in 1 files" &&
	expect_contains "hostile tree: key escaped" "$out" '\x1b]0;owned\x07 1' &&
	expect_contains "hostile tree: type escaped" "$err" "type 'No\x1b[2Jpe' is defined nowhere" &&
	expect_not_contains "hostile tree: no ESC said" "$hostile_said" $'\e' &&
	expect_not_contains "hostile tree: no newline in a name said" "$hostile_said" "we
ird" && ok "a hostile tree: the rules counted; what is said escaped"
run "$CTL" check --strict --print "$TMP/hout"
if [ "$status" -eq 0 ] && [ "$(grep -c '^rule ' <<<"$out")" -eq 3 ] &&
	! grep -q '^rule evil' <<<"$out" &&
	expect_contains "hostile tree: check" "$out" "3 rules in 1 files: OK" &&
	expect_not_contains "hostile tree: check --print escapes" "$out" "we
ird" &&
	! LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' <"$TMP/hout"/*.rules); then
	ok "a hostile tree: its output loads the 3 rules, no control byte in it"
else
	not_ok "a hostile tree: the output" "exit $status; $out; $err; $(cat "$TMP/hout"/*.rules)"
fi

# An import that cannot write all its files writes none of them: the
# earlier import's files stay as they were, and no staged file is left
# (a file system filled, in a mount namespace of the test's own).
if unshare -m --propagation private true 2>/dev/null; then
	mkdir -p "$TMP/full" "$TMP/before"
	cp -r "$DATA/ananicy" "$TMP/grown"
	for i in $(seq 300); do
		echo "{ \"name\": \"grown$i\", \"nice\": $((i % 19 + 1)) }"
	done >"$TMP/grown/more.rules"
	run unshare -m --propagation private bash -c '
		mount -t tmpfs -o size=64k tmpfs "$1/full" || exit 90
		"$2" import ananicy -o "$1/full" "$3" >/dev/null 2>&1 || exit 91
		cp -p "$1/full"/* "$1/before/"
		head -c $((36 * 1024)) /dev/zero >"$1/full/filler" 2>/dev/null
		"$2" import ananicy -o "$1/full" "$1/grown"
		echo "exit $?"
		rm "$1/full/filler"
		ls -A "$1/full"
		diff -r "$1/before" "$1/full" && echo same' - "$TMP" "$CTL" "$DATA/ananicy"
	if [ "$status" -eq 0 ] && grep -qx "exit 2" <<<"$out" &&
		grep -qx same <<<"$out" && ! grep -q '^\.' <<<"$out" &&
		expect_contains "full: said" "$err" "No space left on device"; then
		ok "an import that cannot write every file: none written, the earlier ones kept, nothing staged left"
	else
		not_ok "an import that cannot write every file" "exit $status; $out; $err"
	fi
else
	skip "an import on a full file system" "no mount namespace here"
fi

if [ -d "$SAMPLE" ]; then
	for mode in "" --allow-spoofable; do
		rm -rf "$TMP/sample" && mkdir "$TMP/sample"
		# From its parent: the sources, and so the files, are the
		# same wherever the sample is.
		run bash -c 'cd "$1" && shift && "$@"' - "$(dirname "$SAMPLE")" \
			"$CTL" import ananicy $mode -o "$TMP/sample" \
			"$(basename "$SAMPLE")"
		printf '%s\n' "$out" | sed 's/ in [^ ]*$//' >"$TMP/sample.out"
		(cd "$TMP/sample" && sha256sum *.rules) >>"$TMP/sample.out"
		if diff -u "$DATA/ananicy-sample${mode}.expected" \
			"$TMP/sample.out" >"$TMP/d"; then
			ok "sample ${mode:-(default)}: counts and files as stored"
		else
			not_ok "sample ${mode:-(default)}: as stored" "$(head -30 "$TMP/d")"
		fi
	done
	rm -rf "$TMP/sample" && mkdir "$TMP/sample"
	run "$CTL" import ananicy -o "$TMP/sample" "$SAMPLE"
	run "$CTL" check --strict "$TMP/sample"
	expect_status "sample: check --strict" 0 &&
		ok "sample: the import passes check --strict"
else
	skip "the ananicy sample" "no $SAMPLE"
fi

# Process Lasso's configuration as Windows writes it (UTF-16LE, BOM).
rm -rf "$TMP/pl" && mkdir "$TMP/pl"
run bash -c 'cd "$1" && shift && "$@"' - "$DATA" "$CTL" import prolasso \
	-o "$TMP/pl" prolasso.ini
expect_status "import prolasso: exit 0" 0 &&
	expect_contains "import prolasso: summary" "$out" \
		"written: 6 processes, as 5 cpupolicy rules in 50-prolasso.rules" &&
	expect_contains "import prolasso: warning" "$err" \
		"prolasso.ini:5: warning: process 'bad.exe': 'superhigh' is no priority class" &&
	ok "import prolasso of a UTF-16LE file: exit 0, summary, file:line warning"
if diff -u "$DATA/prolasso.expected.rules" "$TMP/pl/50-prolasso.rules" >"$TMP/d"; then
	ok "import prolasso: the rule file as expected"
else
	not_ok "import prolasso: as expected" "$(head -30 "$TMP/d")"
fi
run "$CTL" check --system windows --strict "$TMP/pl"
expect_status "import prolasso: check --system windows --strict" 0 &&
	ok "import prolasso: passes check --system windows --strict"

# Folders beyond ASCII, as the Windows test has them (tests/windows/
# names.sh): each input in one, read by a name relative to it, its rules
# into another that the import makes; the files those of the test tree.
mkdir -p "$TMP/导入-ü" "$TMP/进程-é"
cp -r "$DATA/ananicy" "$TMP/导入-ü/ananicy"
cp "$DATA/prolasso.ini" "$TMP/进程-é/prolasso.ini"
run bash -c 'cd "$1" && shift && "$@"' - "$TMP/导入-ü" "$CTL" import ananicy \
	-o "$TMP/导出-é" ananicy
if [ "$status" -eq 0 ] && diff -r -x summary.out -x warnings.err \
	"$DATA/ananicy.expected" "$TMP/导出-é" >"$TMP/d"; then
	ok "import ananicy from 导入-ü into 导出-é: the files as expected"
else
	not_ok "import ananicy from 导入-ü into 导出-é" "status $status: $err$(head -30 "$TMP/d")"
fi
run bash -c 'cd "$1" && shift && "$@"' - "$TMP/进程-é" "$CTL" import prolasso \
	-o "$TMP/规则-输出" prolasso.ini
if [ "$status" -eq 0 ] && diff -u "$DATA/prolasso.expected.rules" \
	"$TMP/规则-输出/50-prolasso.rules" >"$TMP/d"; then
	ok "import prolasso from 进程-é into 规则-输出: the file as expected"
else
	not_ok "import prolasso from 进程-é into 规则-输出" "status $status: $err$(head -30 "$TMP/d")"
fi

# The daemon on the imported rules: cpimp-bg is a Batch_Job (nice 16,
# SCHED_IDLE, idle I/O), cpimp-calm a Calm (nice 11, best-effort 6).
if [ "$(id -u)" -ne 0 ]; then
	skip "the daemon applying imported rules" "needs root"
	finish
	exit
fi
cp "$TMP/imp"/*.rules "$RULES/"
mkdir -p "$TMP/bin"
cp "$WORKER" "$TMP/bin/cpimp-bg"
cp "$WORKER" "$TMP/bin/cpimp-calm"
write_conf
start_daemon || {
	finish
	exit 1
}
start "$TMP/bin/cpimp-bg" -t 2 -s 60
bg=$!
start "$TMP/bin/cpimp-calm" -t 1 -s 60
calm=$!
io_is() { [ "$(ionice -p "$1" 2>/dev/null)" = "$2" ]; }
policy_is() { chrt -p "$1" 2>/dev/null | grep -q "policy: $2\$"; }
if wait_until 5 nice_is "$bg" 16 && wait_until 5 io_is "$bg" idle &&
	wait_until 5 policy_is "$bg" SCHED_IDLE; then
	ok "an imported Batch_Job rule: nice 16, SCHED_IDLE, idle I/O"
else
	not_ok "imported Batch_Job rule applied" \
		"nice $(nice_of "$bg"), $(ionice -p "$bg"), $(chrt -p "$bg")"
fi
if wait_until 5 nice_is "$calm" 11 &&
	wait_until 5 io_is "$calm" "best-effort: prio 6"; then
	ok "an imported Calm rule: nice 11, best-effort I/O 6"
else
	not_ok "imported Calm rule applied" "nice $(nice_of "$calm"), $(ionice -p "$calm")"
fi
run ctl explain "$bg"
expect_contains "explain: rule" "$out" "rule ananicy.folder-one-two.batch-job (" &&
	expect_contains "explain: source" "$out" \
		"source     ananicy/Folder One & Two/tools.rules:2" &&
	ok "explain names the ananicy file and line"
run ctl explain --json "$bg"
expect_contains "explain --json: source" "$out" \
	'"source":"ananicy/Folder One & Two/tools.rules:2"' &&
	ok "explain --json: the source"
stop_daemon
finish
