# Shared by the integration scripts: TAP output and small assertions.
# Each script sources this, runs its cases, and exits non-zero if any failed.
# Environment: BUILD (build directory), SRCDIR (the source tree).
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD="$SRCDIR/$BUILD" ;; esac
CTL="$BUILD/cpupolicyctl"
DAEMON="$BUILD/cpupolicyd"
tap_failed=0
tap_count=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() {
	tap_count=$((tap_count + 1))
	echo "ok $tap_count - $1"
}

not_ok() { # name, why
	tap_count=$((tap_count + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_count - $1"
	echo "#   $2"
}

# run CMD...: sets $status, $out (stdout) and $err (stderr).
run() {
	"$@" >"$TMP/out" 2>"$TMP/err"
	status=$?
	out=$(cat "$TMP/out")
	err=$(cat "$TMP/err")
}

expect_status() { # name, wanted status (after run)
	if [ "$status" -eq "$2" ]; then
		return 0
	fi
	not_ok "$1" "exit status $status, expected $2; stdout: $out; stderr: $err"
	return 1
}

expect_contains() { # name, haystack, needle
	case $2 in
	*"$3"*) return 0 ;;
	esac
	not_ok "$1" "expected to find '$3' in: $2"
	return 1
}

expect_not_contains() { # name, haystack, needle
	case $2 in
	*"$3"*)
		not_ok "$1" "did not expect '$3' in: $2"
		return 1
		;;
	esac
	return 0
}

finish() {
	echo "1..$tap_count"
	[ "$tap_failed" -eq 0 ]
}
