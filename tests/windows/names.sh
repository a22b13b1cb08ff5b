#!/bin/bash
# Paths beyond ASCII under Wine: cpupolicyctl.exe check of a folder
# "règles-ü" holding "jeu-é.rules" and "规则.rules", and of the CJK file
# named by itself; cpupolicyd.exe -n with its config at such a path,
# naming that folder, and with the folder given by -r; cpupolicyctl.exe
# import of an ananicy tree and of a Process Lasso ini from such folders
# into another. Wine's ANSI code page is 1252 here: a CJK argument read
# through it is "??", and UTF-8 handed to the C library's fopen or
# opendir names other letters, so each case fails unless the programs
# take their arguments and open their files in UTF-16. TAP on stdout
# (tests/tap.sh), closing with "N passed, N failed, N skipped".
#
#   names.sh BUILD_DIR      (build-win: both .exe)
set -u
[ $# -eq 1 ] || {
	echo "usage: $0 BUILD_DIR" >&2
	exit 2
}
WINE_BUILD=$(cd "$1" && pwd)
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"
# Wine turns the Unix arguments and file names into UTF-16 by the
# locale's character set: UTF-8, whatever the caller's locale.
export LC_ALL=C.UTF-8

DAEMON=$WINE_BUILD/cpupolicyd.exe
CTL=$WINE_BUILD/cpupolicyctl.exe
DATA=$(cd "$(dirname "$0")/../data/import" && pwd)
WORK=$WINE_BUILD/names-test
RULES=$WORK/règles-ü
CJK_FILE=规则.rules

cleanup() {
	wine_stop
	rm -rf "$WORK"
}
trap cleanup EXIT

# A Unix path as Wine names it: Z:\...
winpath() { printf 'Z:%s' "${1//\//\\}"; }

# run EXE ARGS...: what it printed in $out (LF only), its status in
# $status. Through a file: the services the first program starts keep
# the descriptors it was given as long as the persistent wineserver
# runs, and a pipe they hold would never end.
run() {
	limited 60 wine "$@" >"$WORK/out" 2>&1
	status=$?
	out=$(tr -d '\r' <"$WORK/out")
}

wine_ready
result $? "the Wine prefix is there" || {
	finish windows-names
	exit
}
for f in "$DAEMON" "$CTL"; do
	[ -x "$f" ] || {
		result 1 "$f is built"
		finish windows-names
		exit
	}
done
wine_persist

rm -rf "$WORK"
mkdir -p "$RULES"
rule() { # name, process
	printf 'version = 1;\nrules = (\n  { name = "%s";\n    match = { name = "%s"; };\n    priority = { class = "below-normal"; };\n  }\n);\n' "$1" "$2"
}
rule latin jeu.exe >"$RULES/jeu-é.rules"
rule cjk guize.exe >"$RULES/$CJK_FILE"

# check PATH: the folder, then the CJK file by itself.
run "$CTL" check "$(winpath "$RULES")"
echo "$out" | grep -qx '2 rules in 2 files: OK'
result $? "check of the folder règles-ü reads jeu-é.rules and $CJK_FILE" ||
	echo "$out" | sed 's/^/# /'
run "$CTL" check --print "$(winpath "$RULES/$CJK_FILE")"
echo "$out" | grep -qx '1 rules in 1 files: OK' &&
	echo "$out" | grep -q 'guize.exe'
result $? "check of règles-ü\\$CJK_FILE by itself reads its rule" ||
	echo "$out" | sed 's/^/# /'

# The daemon's config at such a path, its rules_dirs the folder; then
# the folder by -r over a config without one.
CONF=$WORK/配置-é.conf
printf '[daemon]\nrules_dirs = %s\n' "$(winpath "$RULES")" >"$CONF"
run "$DAEMON" -n -c "$(winpath "$CONF")"
echo "$out" | grep -q '^configuration OK (2 rules in 2 files)'
result $? "cpupolicyd.exe -n -c 配置-é.conf loads règles-ü from it" ||
	echo "$out" | sed 's/^/# /'
run "$CTL" -c "$(winpath "$CONF")" check
echo "$out" | grep -qx '2 rules in 2 files: OK'
result $? "cpupolicyctl.exe -c 配置-é.conf check loads règles-ü from it" ||
	echo "$out" | sed 's/^/# /'
printf '[daemon]\n' >"$WORK/plain.conf"
run "$DAEMON" -n -c "$(winpath "$WORK/plain.conf")" \
	-r "$(winpath "$RULES")"
echo "$out" | grep -q '^configuration OK (2 rules in 2 files)'
result $? "cpupolicyd.exe -n -r règles-ü loads both files" ||
	echo "$out" | sed 's/^/# /'

# The imports: their input named by its full path in a folder beyond
# ASCII, their output in another, made by the import. The files are the
# stored ones, made from the input by a name relative to tests/data/
# import: with that name for the full one in each rule's source (as
# the rule files write it, each backslash doubled), and the header's
# comments aside.
same_rules() { # expected, got, the input as given, its name there
	local got written
	got=$(<"$2") || return 1
	written=${3//\\/\\\\}
	diff <(grep -v '^# ' "$1") \
		<(printf '%s\n' "${got//"$written"/"$4"}" | grep -v '^# ')
}
mkdir -p "$WORK/导入-ü"
cp -r "$DATA/ananicy" "$WORK/导入-ü/ananicy"
OUT=$WORK/导出-é
IN=$(winpath "$WORK/导入-ü/ananicy")
run "$CTL" import ananicy -o "$(winpath "$OUT")" "$IN"
bad=
want=("$DATA"/ananicy.expected/*.rules)
got=("$OUT"/*)
for f in "${want[@]}"; do
	same_rules "$f" "$OUT/${f##*/}" "$IN" ananicy >/dev/null 2>&1 ||
		bad="$bad ${f##*/}"
done
[ $status -eq 0 ] && [ -z "$bad" ] && [ ${#got[@]} -eq ${#want[@]} ]
result $? "import ananicy from 导入-ü into 导出-é: exit 0, the files as stored${bad:+ (differ:$bad)}" ||
	echo "$out" | sed 's/^/# /'

mkdir -p "$WORK/进程-é"
cp "$DATA/prolasso.ini" "$WORK/进程-é/lasso-ü.ini"
OUT=$WORK/规则-输出
IN=$(winpath "$WORK/进程-é/lasso-ü.ini")
run "$CTL" import prolasso -o "$(winpath "$OUT")" "$IN"
[ $status -eq 0 ] &&
	same_rules "$DATA/prolasso.expected.rules" "$OUT/50-prolasso.rules" \
		"$IN" prolasso.ini >/dev/null 2>&1
result $? "import prolasso of 进程-é\\lasso-ü.ini into 规则-输出: exit 0, the file as stored" ||
	echo "$out" | sed 's/^/# /'

finish windows-names
