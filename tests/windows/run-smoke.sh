#!/bin/bash
# Runs the Windows smoke test: smoke.exe under Wine, headless, in a Wine
# prefix of its own beside it, then checks that it needs no DLL beyond
# Windows' own. TAP on stdout, closing with "N passed, N failed".
#
#   run-smoke.sh BUILD_DIR/smoke.exe
#
# Every Wine command runs under a time limit, and the prefix's wineserver is
# stopped at the end, whatever happened.
set -u
[ $# -eq 1 ] || {
	echo "usage: $0 SMOKE_EXE" >&2
	exit 2
}
exe=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
build=$(dirname "$exe")
# Seconds: a first start of Wine (wineboot makes the prefix: 10-60 s on a
# cold disk), the test itself, a wineserver to stop or to wait for.
BOOT_LIMIT=${BOOT_LIMIT:-300}
RUN_LIMIT=${RUN_LIMIT:-60}
SERVER_LIMIT=30

# Nothing of Wine's in root's home or /tmp: prefix, home, caches and the
# wineserver's directory (under TMPDIR) all under build-win.
# No display: a console program needs none, and without DISPLAY Wine does
# not try to reach an X server. No Mono or Gecko installer (they would ask),
# no menu entries.
export WINEPREFIX=$build/wine
export HOME=$build/wine-home
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share \
	XDG_CACHE_HOME=$HOME/.cache
export TMPDIR=$build/wine-tmp
export WINEDEBUG=-all
export WINEDLLOVERRIDES='mscoree,mshtml,winemenubuilder.exe='
unset DISPLAY WAYLAND_DISPLAY
mkdir -p "$HOME" "$TMPDIR"
limited() { timeout -k 5 "$@" </dev/null; }

stop_wine() {
	limited $SERVER_LIMIT wineserver -k 2>/dev/null
	limited $SERVER_LIMIT wineserver -w 2>/dev/null
}
trap stop_wine EXIT

tests=0
failed=0
result() { # ok(0|1) description
	tests=$((tests + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tests - $2"
	else
		echo "not ok $tests - $2"
		failed=$((failed + 1))
	fi
}

# A first start makes the prefix; one that did not finish is made anew.
ready=$WINEPREFIX/.smoke-ready
if [ ! -f "$ready" ]; then
	rm -rf "$WINEPREFIX"
	start=$(date +%s)
	# syswow64's rundll32 is missing without 32-bit Wine: not needed.
	limited "$BOOT_LIMIT" wineboot --init >"$build/wineboot.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && { limited $SERVER_LIMIT wineserver -w; rc=$?; }
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		touch "$ready"
		echo "# wineboot --init made $WINEPREFIX in $secs s"
	else
		sed 's/^/# wineboot: /' "$build/wineboot.log"
		result 1 "wineboot --init made the Wine prefix (status $rc after $secs s)"
		echo "1..$tests"
		echo "windows-smoke: 0 passed, $failed failed"
		exit 1
	fi
fi

out=$build/smoke.out
limited "$RUN_LIMIT" wine "$exe" >"$out.raw" 2>"$build/smoke.err"
rc=$?
# Wine's console writes CR LF.
tr -d '\r' <"$out.raw" >"$out"
n=$(grep -cE '^(not )?ok [0-9]+ ' "$out")
cat "$out"
tests=$n
failed=$(grep -cE '^not ok ' "$out")
case $rc in
0) ;;
124 | 137) result 1 "smoke.exe finished within $RUN_LIMIT s" ;;
*) [ "$failed" -gt 0 ] || result 1 "smoke.exe exited with status $rc" ;;
esac
if [ -s "$build/smoke.err" ]; then
	sed 's/^/# stderr: /' "$build/smoke.err"
fi
[ "$n" -gt 0 ] || result 1 "smoke.exe printed its tests"

# DLLs a Windows installation has: nothing of the toolchain's may be
# needed at run time (libwinpthread-1.dll, libgcc_s_seh-1.dll, ...).
dlls=$(x86_64-w64-mingw32-objdump -p "$exe" | sed -n 's/^[[:space:]]*DLL Name: //p' |
	tr '\n' ' ')
dlls=${dlls% }
bad=
for d in $dlls; do
	case ${d,,} in
	kernel32.dll | msvcrt.dll | advapi32.dll | user32.dll | gdi32.dll | \
		ws2_32.dll | shell32.dll | ole32.dll | oleaut32.dll | ntdll.dll | \
		bcrypt.dll | userenv.dll | powrprof.dll | iphlpapi.dll | \
		secur32.dll | api-ms-win-*.dll) ;;
	*) bad="$bad $d" ;;
	esac
done
[ -n "$dlls" ] && [ -z "$bad" ]
ok=$?
[ -z "$bad" ] || bad=" (not a Windows DLL:$bad)"
result $ok "smoke.exe needs only Windows' own DLLs: ${dlls:-none found}$bad"

echo "1..$tests"
echo "windows-smoke: $((tests - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
