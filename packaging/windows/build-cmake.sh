#!/bin/bash
# Builds one library of the Windows build whose build is a CMake one, from
# its unpacked Debian source package, with Debian's cmake, as a static
# x86_64-w64-mingw32 library installed with its headers and pkg-config
# file into one prefix (as build-dep.sh does for the others).
#
#   build-cmake.sh json-c SOURCE_DIR OBJ_DIR PREFIX
#
# OBJ_DIR is made anew (the source tree is not written to). The .pc file
# names its prefix relative to itself, so the prefix can move.
set -eu
LIBS=json-c
# shellcheck source=packaging/windows/build-common.sh
. "$(dirname "$0")/build-common.sh"

# The cross build named on the command line, no toolchain file: Windows
# as the system, mingw-w64's compiler, resource compiler and archiver,
# and its headers and libraries the only ones found (never the build
# machine's). lib/, not a multiarch directory, whatever GNUInstallDirs
# would pick.
cmake_configure() {
	run cmake -S "$srcdir" -B "$objdir" \
		-DCMAKE_SYSTEM_NAME=Windows \
		-DCMAKE_SYSTEM_PROCESSOR=x86_64 \
		-DCMAKE_C_COMPILER=$host-gcc \
		-DCMAKE_RC_COMPILER=$host-windres \
		-DCMAKE_AR="$(command -v $host-ar)" \
		-DCMAKE_RANLIB="$(command -v $host-ranlib)" \
		-DCMAKE_FIND_ROOT_PATH=/usr/$host \
		-DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER \
		-DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY \
		-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_FLAGS="-O2 -g" \
		-DCMAKE_INSTALL_PREFIX="$prefix" \
		-DCMAKE_INSTALL_LIBDIR=lib \
		-DCMAKE_INSTALL_INCLUDEDIR=include \
		"$@"
}

case $lib in
json-c)
	# The static library, its headers and json-c.pc; no shared library
	# (whose headers would then mark every function dllimport), no tests,
	# no apps (only the library target is built), warnings not fatal
	# (its -Werror is for its own developers' compilers, not mingw-w64's).
	cmake_configure -DBUILD_SHARED_LIBS=OFF -DBUILD_STATIC_LIBS=ON \
		-DBUILD_TESTING=OFF -DDISABLE_WERROR=ON \
		-DDISABLE_EXTRA_LIBS=ON -DENABLE_THREADING=OFF
	run cmake --build "$objdir" --target json-c -j"$jobs"
	run cmake --install "$objdir"
	pc=$prefix/lib/pkgconfig/json-c.pc
	# shellcheck disable=SC2016 # ${pcfiledir} is pkg-config's, not ours
	sed -i -e 's|^prefix=.*|prefix=${pcfiledir}/../..|' \
		-e 's|^exec_prefix=.*|exec_prefix=${prefix}|' \
		-e 's|^libdir=.*|libdir=${prefix}/lib|' \
		-e 's|^includedir=.*|includedir=${prefix}/include|' "$pc"
	[ -f "$prefix/lib/libjson-c.a" ] || {
		echo "build-cmake: json-c: no libjson-c.a installed" >&2
		exit 1
	}
	# CMake's package files name absolute paths, and nothing here reads
	# them (pkg-config finds the library).
	rm -rf "$prefix/lib/cmake/json-c"
	;;
*)
	echo "build-cmake: unknown library $lib" >&2
	exit 2
	;;
esac
echo "build-cmake: $lib from $(basename "$srcdir") in $prefix"
