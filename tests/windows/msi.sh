#!/bin/bash
# The Windows installer under Wine: msiexec /i installs the programs under
# %ProgramFiles%\cpupolicy\ and the config and rules under
# %ProgramData%\cpupolicy\, registers the service cpupolicyd, puts the
# folder on PATH, and starts the per-user agent at each logon from the
# machine's Run key (the .msi's Registry table, and the value once
# installed); the installed cpupolicyctl.exe checks the installed rules;
# the next version's MSI, where there is one, upgrades it in place;
# msiexec /x removes the programs, the service and the Run value and
# leaves the config and a rule file of the administrator's own. TAP on
# stdout, closing with "N passed, N failed, N skipped".
#
#   msi.sh BUILD_DIR      (build-win: cpupolicy-*-x64.msi, and
#                         msi-next/cpupolicy-*-x64.msi for the upgrade)
#
# Every command is time-limited; the product is uninstalled and the
# prefix's wineserver stopped at the end, whatever happens.
set -u
# shellcheck source=tests/windows/wine.sh
. "$(dirname "$0")/wine.sh" "$@"
# shellcheck source=tests/tap.sh
. "$(dirname "$0")/../tap.sh"

MSI_LIMIT=${MSI_LIMIT:-120} # s: msiexec under Wine, service start included
CMD_LIMIT=60

show() { sed 's/^/# /' "$1"; }

msis=("$WINE_BUILD"/cpupolicy-*-x64.msi)
if [ ! -f "${msis[0]}" ]; then
	result 1 "an MSI in $WINE_BUILD (make msi)"
	finish windows-msi
	exit
fi
MSI=$(winpath "${msis[0]}")
# The next version's, for the upgrade (make windows-msi builds it).
nexts=("$WINE_BUILD"/msi-next/cpupolicy-*-x64.msi)
NEXT=
[ -f "${nexts[0]}" ] && NEXT=$(winpath "${nexts[0]}")
INSTALLED=$MSI
DRIVE_C=$WINEPREFIX/drive_c
PROGRAMS=$DRIVE_C/Program\ Files/cpupolicy
DATA=$DRIVE_C/ProgramData/cpupolicy
LOCAL_RULE=$DATA/rules.d/50-local.rules
OUT=$WINE_BUILD/msi-test.out
IFEO='HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution Options'
ENV_KEY='HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\Environment'
# Run for every user who logs on, as that user: the agent's start.
RUN_KEY='HKLM\Software\Microsoft\Windows\CurrentVersion\Run'
AGENT_VALUE='cpupolicy agent'

uninstall() {
	limited "$MSI_LIMIT" wine msiexec /x "$INSTALLED" /qn >"$OUT" 2>&1
}
cleanup() {
	uninstall
	[ -n "$NEXT" ] && limited "$MSI_LIMIT" wine msiexec /x "$NEXT" /qn \
		>/dev/null 2>&1
	rm -rf "$DATA"
	wine_stop
}

# The .msi itself, read without Windows (msitools' msiinfo): the Registry
# table's row for the agent, in the program's component (written and
# removed with it), under HKLM (root 2: msidbRegistryRootLocalMachine).
if command -v msiinfo >/dev/null; then
	msiinfo export "${msis[0]}" Registry 2>&1 | tr -d '\r' >"$OUT"
	awk -F'\t' -v key="${RUN_KEY#HKLM\\}" -v name="$AGENT_VALUE" '
		$2 == 2 && $3 == key && $4 == name &&
		$5 == "\"[INSTALLDIR]cpupolicyctl.exe\" agent" && $6 == "Ctl" { found = 1 }
		END { exit !found }' "$OUT"
	result $? "the MSI's Registry table: $RUN_KEY, \"$AGENT_VALUE\" = \"[INSTALLDIR]cpupolicyctl.exe\" agent, of the component Ctl" ||
		show "$OUT"
else
	skip "the MSI's Registry table has the agent's Run value" "no msiinfo (msitools) here"
fi

wine_ready || {
	result 1 "a Wine prefix"
	finish windows-msi
	exit
}
trap cleanup EXIT
wine_persist
# A run before that did not finish: start from nothing.
uninstall
[ -n "$NEXT" ] && limited "$MSI_LIMIT" wine msiexec /x "$NEXT" /qn >/dev/null 2>&1
rm -rf "$DATA"

# A folder another account made before the first install, with a config
# of theirs others may write (Everyone, as Wine shows a file of mode
# 0666): the MSI keeps an existing config, so the daemon's install must
# refuse it, saying what and why, and the MSI fail loudly and roll back:
# no service may run on it.
plant() {
	mkdir -p "$DATA"
	printf '[daemon]\r\nrules_dirs = C:\\users\\Public\\rules\r\nlog_level = debug\r\n' \
		>"$DATA/cpupolicyd.conf"
	chmod 0666 "$DATA/cpupolicyd.conf"
}
plant
wine_run "$CMD_LIMIT" "$(winpath "$WINE_BUILD/cpupolicyd.exe")" --install >"$OUT" 2>&1
refused=$?
[ "$refused" -eq 1 ] &&
	grep -q 'cpupolicy\\cpupolicyd.conf: writable by S-1-1-0 .*look at it, remove it, and install again' "$OUT" &&
	grep -q 'was there before the install, with 1 thing in it that another account could have written: nothing changed' "$OUT"
result $? "cpupolicyd --install over a planted config others may write refuses, naming it (exit $refused)" ||
	show "$OUT"
wine_run "$CMD_LIMIT" sc query cpupolicyd >"$OUT" 2>&1
! grep -q 'SERVICE_NAME: cpupolicyd' "$OUT"
result $? "the refused --install registers no service" || show "$OUT"
# (What an install that did not refuse registered goes, for the MSI's
# own case below.)
wine_run "$CMD_LIMIT" "$(winpath "$WINE_BUILD/cpupolicyd.exe")" --uninstall >/dev/null 2>&1
plant
limited "$MSI_LIMIT" wine msiexec /i "$MSI" /qn >"$OUT" 2>&1
refused=$?
[ "$refused" -ne 0 ]
result $? "over the same planted config, msiexec /i fails (exit $refused)" || show "$OUT"
wine_run "$CMD_LIMIT" sc query cpupolicyd >"$OUT" 2>&1
! grep -q 'SERVICE_NAME: cpupolicyd' "$OUT" && [ ! -e "$PROGRAMS/cpupolicyd.exe" ]
result $? "the failed MSI rolled back: no service, no programs" || show "$OUT"
rm -rf "$DATA"

limited "$MSI_LIMIT" wine msiexec /i "$MSI" /qn >"$OUT" 2>&1
result $? "msiexec /i $(basename "${msis[0]}") /qn" || show "$OUT"
[ -f "$PROGRAMS/cpupolicyd.exe" ] && [ -f "$PROGRAMS/cpupolicyctl.exe" ]
result $? "both programs under Program Files\\cpupolicy"
[ -f "$DATA/cpupolicyd.conf" ] && [ -f "$DATA/rules.d/10-build.rules" ]
result $? "config and shipped rules under ProgramData\\cpupolicy"

wine_run "$CMD_LIMIT" sc query cpupolicyd >"$OUT" 2>&1
grep -q 'SERVICE_NAME: cpupolicyd' "$OUT"
result $? "sc query cpupolicyd shows the service" || show "$OUT"
grep -q 'STATE *: 4 *RUNNING' "$OUT"
result $? "the service started by the install" || show "$OUT"
# The running service has the shipped rule (a reload answers for the
# one file in rules.d), and writes no Image File Execution Options value
# for it: ifeo = "off", as Windows keys them by file name alone and they
# would reach every cl.exe, link.exe and clang.exe on the machine.
reload_build() {
	wine_run "$CMD_LIMIT" "C:\\Program Files\\cpupolicy\\cpupolicyctl.exe" \
		reload 2>&1 | tr -d '\r' >"$OUT"
	grep -q '^reloaded: 1 rules in 1 files' "$OUT"
}
wait_reload() {
	local until=$(($(date +%s) + CMD_LIMIT))
	until reload_build; do
		[ "$(date +%s)" -lt "$until" ] || return 1
		sleep 1
	done
}
# Any PerfOptions value under one of the shipped rule's file names.
ifeo_build() {
	local name
	for name in cl.exe link.exe clang.exe clang-cl.exe lld-link.exe; do
		limited "$CMD_LIMIT" wine reg query "$IFEO\\$name\\PerfOptions" \
			2>&1 | tr -d '\r' >"$OUT"
		grep -q 'REG_DWORD' "$OUT" && return 0
	done
	return 1
}
wait_reload
result $? "the service loads the shipped rule (a reload over the pipe)" ||
	show "$OUT"
! ifeo_build
result $? "the shipped rule writes no PerfOptions value (ifeo = \"off\")" ||
	show "$OUT"

machine_path() {
	limited "$CMD_LIMIT" wine reg query "$ENV_KEY" /v PATH 2>&1 |
		tr -d '\r' >"$OUT"
	grep -qi 'Program Files\\cpupolicy' "$OUT"
}
machine_path
result $? "Program Files\\cpupolicy on the machine's PATH" || show "$OUT"

# The installed agent in the machine's Run key (the 64-bit view: wine
# reg is the 64-bit one).
agent_run() {
	limited "$CMD_LIMIT" wine reg query "$RUN_KEY" /v "$AGENT_VALUE" 2>&1 |
		tr -d '\r' >"$OUT"
	grep -q "^ *$AGENT_VALUE *REG_SZ *\"C:\\\\Program Files\\\\cpupolicy\\\\cpupolicyctl.exe\" agent\$" "$OUT"
}
agent_run
result $? "the Run value \"$AGENT_VALUE\": \"C:\\Program Files\\cpupolicy\\cpupolicyctl.exe\" agent, at each user's logon" ||
	show "$OUT"

wine_run "$CMD_LIMIT" "C:\\Program Files\\cpupolicy\\cpupolicyctl.exe" \
	check "C:\\ProgramData\\cpupolicy\\rules.d" >"$OUT" 2>&1
result $? "the installed cpupolicyctl.exe check passes on the installed rules" ||
	show "$OUT"
# As the service loads them: the config and the rules directory, judged
# by owners and DACLs too.
wine_run "$CMD_LIMIT" "C:\\Program Files\\cpupolicy\\cpupolicyctl.exe" \
	check >"$OUT" 2>&1
result $? "the installed cpupolicyctl.exe check, as the service loads them (owners and DACLs too)" ||
	show "$OUT"
wine_run "$CMD_LIMIT" "C:\\Program Files\\cpupolicy\\cpupolicyd.exe" -n >"$OUT" 2>&1
grep -q 'configuration OK' "$OUT"
result $? "the installed cpupolicyd.exe -n accepts what the MSI installed" || show "$OUT"

# The four ready rules, beside rules.d (not in it), each a Windows file.
ls "$DATA/examples" 2>/dev/null | tr -d '\r' | sort | tr '\n' ' ' >"$OUT"
grep -qx 'windows-hybrid-24h2.rules windows-inference.rules windows-parking.rules windows-processor-groups.rules ' "$OUT"
result $? "the four example rule files under ProgramData\\cpupolicy\\examples" ||
	show "$OUT"
wine_run "$CMD_LIMIT" "C:\\Program Files\\cpupolicy\\cpupolicyctl.exe" \
	check --system windows "C:\\ProgramData\\cpupolicy\\examples" >"$OUT" 2>&1
result $? "the installed cpupolicyctl.exe check passes on the examples" ||
	show "$OUT"

# The administrator's own rule file and config edit, which removal keeps.
printf 'version = 1;\r\nrules = ();\r\n' >"$LOCAL_RULE"
echo '; edited by the administrator' >>"$DATA/cpupolicyd.conf"

# A major upgrade: the old version goes, what is the administrator's
# stays, the service runs the new version's programs.
if [ -n "$NEXT" ]; then
	limited "$MSI_LIMIT" wine msiexec /i "$NEXT" /qn >"$OUT" 2>&1
	result $? "upgrade: msiexec /i $(basename "${nexts[0]}") /qn" || show "$OUT"
	INSTALLED=$NEXT
	limited "$CMD_LIMIT" wine reg query \
		'HKLM\Software\Microsoft\Windows\CurrentVersion\Uninstall' /s \
		2>&1 | tr -d '\r' >"$OUT"
	[ "$(grep -c 'DisplayName *REG_SZ *cpupolicy$' "$OUT")" -eq 1 ]
	result $? "upgrade: one cpupolicy installed, not two" || show "$OUT"
	wine_run "$CMD_LIMIT" sc query cpupolicyd >"$OUT" 2>&1
	grep -q 'STATE *: 4 *RUNNING' "$OUT"
	result $? "upgrade: the service running" || show "$OUT"
	[ -f "$LOCAL_RULE" ] && [ -f "$DATA/rules.d/10-build.rules" ] &&
		grep -q 'edited by the administrator' "$DATA/cpupolicyd.conf"
	result $? "upgrade: the local rule file and the edited config kept"
	agent_run
	result $? "upgrade: the agent's Run value there" || show "$OUT"
fi

uninstall
result $? "msiexec /x /qn" || show "$OUT"
[ ! -e "$PROGRAMS/cpupolicyd.exe" ] && [ ! -e "$PROGRAMS/cpupolicyctl.exe" ]
result $? "the programs removed"
[ ! -e "$DATA/rules.d/10-build.rules" ]
result $? "the shipped rule file removed"
wine_run "$CMD_LIMIT" sc query cpupolicyd >"$OUT" 2>&1
! grep -q 'SERVICE_NAME: cpupolicyd' "$OUT"
result $? "the service removed" || show "$OUT"
! machine_path
result $? "Program Files\\cpupolicy off the machine's PATH" || show "$OUT"
! agent_run && ! grep -q "$AGENT_VALUE" "$OUT"
result $? "the agent's Run value removed" || show "$OUT"
! ifeo_build
result $? "no Image File Execution Options value left for the shipped rule's names" ||
	show "$OUT"
[ -f "$LOCAL_RULE" ]
result $? "a local rule file in rules.d survives the removal"
grep -q 'edited by the administrator' "$DATA/cpupolicyd.conf" 2>/dev/null
result $? "the config survives the removal"
finish windows-msi
