# The Wine environment every Windows test script sources: a private prefix
# under the build directory, headless, time-limited commands, and the
# prefix's wineserver stopped at the end. A test script sources it with
# its arguments, the build directory (build-win) first:
#
#   . "$(dirname "$0")/wine.sh" "$@"
#
# and sets WINE_USAGE beforehand when more may follow (the rest of its
# usage line); without it the build directory is the one argument. From
# elsewhere (tests/run-tests.sh), set WINE_BUILD instead. It defines:
#
#   limited SECONDS CMD...   CMD with stdin from /dev/null, killed after
#                            SECONDS (5 s more for a clean end)
#   wine_stop                stop the prefix's wineserver (on EXIT: set)
#   wine_ready               make the prefix once (wineboot --init); 0 when
#                            it is there, else 1 with its log shown as TAP
#                            comments
#   wine_persist             keep the prefix's wineserver running until
#                            wine_stop (a run of many short programs)
#   wine_run SECONDS EXE ARGS...   EXE under Wine, its CR LF made LF
#   winpath PATH             a Unix path as Wine names it: Z:\...
#   wait_for SECONDS CMD...  CMD until it succeeds, at most SECONDS
#
# Nothing of Wine's in root's home or /tmp: prefix, home, caches and the
# wineserver's directory (under TMPDIR) all under the build directory. No
# display: console programs need none, and without DISPLAY Wine does not
# try to reach an X server. No Mono or Gecko installer (they would ask),
# no menu entries.
# shellcheck shell=bash
if [ -z "${WINE_BUILD:-}" ]; then
	if [ $# -lt 1 ] || { [ -z "${WINE_USAGE:-}" ] && [ $# -ne 1 ]; }; then
		echo "usage: $0 BUILD_DIR${WINE_USAGE:+ $WINE_USAGE}" >&2
		exit 2
	fi
	WINE_BUILD=$(cd "$1" && pwd) || exit 2
fi
: "${WINE_BUILD:?set WINE_BUILD before sourcing wine.sh}"
# Seconds: a first start of Wine (wineboot makes the prefix: 10-60 s on a
# cold disk), a wineserver to stop or to wait for.
BOOT_LIMIT=${BOOT_LIMIT:-300}
SERVER_LIMIT=30

export WINEPREFIX=$WINE_BUILD/wine
export HOME=$WINE_BUILD/wine-home
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share \
	XDG_CACHE_HOME=$HOME/.cache
export TMPDIR=$WINE_BUILD/wine-tmp
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES='mscoree,mshtml,winemenubuilder.exe='
unset DISPLAY WAYLAND_DISPLAY
mkdir -p "$HOME" "$TMPDIR"

limited() { timeout -k 5 "$@" </dev/null; }

wine_stop() {
	limited $SERVER_LIMIT wineserver -k 2>/dev/null
	limited $SERVER_LIMIT wineserver -w 2>/dev/null
}

# A first start makes the prefix; one that did not finish is made anew.
wine_ready() {
	local ready=$WINEPREFIX/.smoke-ready start rc secs
	[ -f "$ready" ] && return 0
	rm -rf "$WINEPREFIX"
	start=$(date +%s)
	# syswow64's rundll32 is missing without 32-bit Wine: not needed.
	limited "$BOOT_LIMIT" wineboot --init >"$WINE_BUILD/wineboot.log" 2>&1
	rc=$?
	[ $rc -eq 0 ] && {
		limited $SERVER_LIMIT wineserver -w
		rc=$?
	}
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		touch "$ready"
		echo "# wineboot --init made $WINEPREFIX in $secs s"
		return 0
	fi
	sed 's/^/# wineboot: /' "$WINE_BUILD/wineboot.log"
	echo "# wineboot --init failed (status $rc after $secs s)"
	return 1
}

# A wineserver that exits between two programs (it lingers 3 s after the
# last) can race the next one's start: "wine client error ... Connection
# reset by peer". A persistent one serves them all; it daemonizes, out of
# the script's process group and its time limit: wine_stop ends it, and
# tests/run-tests.sh after each script, should the script's trap not run.
wine_persist() {
	limited $SERVER_LIMIT wineserver -p
}

# wine_run SECONDS EXE ARGS...: stdout with Wine's CR LF made LF; the
# status is the program's (124 or 137: out of time).
wine_run() {
	local secs=$1
	shift
	limited "$secs" wine "$@" | tr -d '\r'
	return "${PIPESTATUS[0]}"
}

winpath() { printf 'Z:%s' "${1//\//\\}"; }

wait_for() { # seconds, command...
	local until=$(($(date +%s) + $1))
	shift
	while ! "$@"; do
		[ "$(date +%s)" -lt "$until" ] || return 1
		sleep 0.2
	done
}
