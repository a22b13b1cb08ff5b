# The start build-dep.sh and build-cmake.sh share, sourced by both with
# their arguments after setting LIBS (the libraries the script builds, as
# its usage line names them):
#
#   LIBRARY SOURCE_DIR OBJ_DIR PREFIX
#
# It sets lib, srcdir, objdir and prefix (absolute), host (the mingw-w64
# triplet), jobs, log (OBJ_DIR/build.log) and me (the script's name, which
# its messages begin with); makes OBJ_DIR anew and enters it, and makes
# the prefix's folders; and defines run, the one way a build step runs.
# shellcheck shell=bash
# The variables are the sourcing script's, and it runs under set -e.
# shellcheck disable=SC2034,SC2164
me=$(basename "$0" .sh)
[ $# -eq 4 ] || {
	echo "usage: $0 $LIBS SOURCE_DIR OBJ_DIR PREFIX" >&2
	exit 2
}
lib=$1
srcdir=$(cd "$2" && pwd)
objdir=$3
prefix=$4
host=x86_64-w64-mingw32
# A separate make for each library: the parent's jobserver is not ours.
unset MAKEFLAGS MFLAGS MAKELEVEL
jobs=$(nproc)

rm -rf "$objdir"
mkdir -p "$objdir" "$prefix/include" "$prefix/lib/pkgconfig"
objdir=$(cd "$objdir" && pwd)
prefix=$(cd "$prefix" && pwd)
log=$objdir/build.log
cd "$objdir"

# run COMMAND...: into the log, which is shown when the command fails.
run() {
	echo "+ $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		tail -n 40 "$log" >&2
		echo "$me: $lib: '$*' failed (whole log: $log)" >&2
		exit 1
	fi
}
