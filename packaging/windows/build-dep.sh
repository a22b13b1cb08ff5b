#!/bin/bash
# Builds one library of the Windows build, from its unpacked Debian source
# package, as a static x86_64-w64-mingw32 library installed with its headers
# and pkg-config file into one prefix.
#
#   build-dep.sh libconfig|inih|hwloc|cmocka SOURCE_DIR OBJ_DIR PREFIX
#
# OBJ_DIR is made anew (the source tree is not written to). The .pc files
# name their prefix relative to themselves, so the prefix can move.
set -eu
LIBS='libconfig|inih|hwloc|cmocka'
# shellcheck source=packaging/windows/build-common.sh
. "$(dirname "$0")/build-common.sh"
cflags=(-O2 -g)

# Both configure scripts probe a C++ compiler (none is used): CXX=no keeps
# them from picking the native g++. --build too: without it configure tries
# to run a test .exe to find out whether it cross-compiles.
configure() {
	run "$srcdir/configure" --build="$(dpkg-architecture -qDEB_BUILD_GNU_TYPE)" \
		--host=$host --prefix="$prefix" --enable-static --disable-shared \
		CXX=no CFLAGS="${cflags[*]}" "$@"
}

# relocatable FILE.pc: prefix= relative to where the file lies.
relocatable() {
	# shellcheck disable=SC2016 # ${pcfiledir} is pkg-config's, not ours
	sed -i 's|^prefix=.*|prefix=${pcfiledir}/../..|' "$1"
}

case $lib in
libconfig)
	# The C library only: no C++, examples, tests or manual (lib/ alone
	# is built). LIBCONFIG_STATIC: libconfig.h marks its functions
	# dllimport on Windows unless it is defined, for the library itself
	# and for every program using it, hence also in the .pc file's Cflags.
	configure --disable-cxx --disable-examples CPPFLAGS=-DLIBCONFIG_STATIC
	run make -C lib -j"$jobs"
	run make -C lib install
	sed -i 's|^Cflags: .*|& -DLIBCONFIG_STATIC|' "$prefix/lib/pkgconfig/libconfig.pc"
	relocatable "$prefix/lib/pkgconfig/libconfig.pc"
	;;
inih)
	# One C file: compiled here rather than through upstream's meson
	# build, which would need meson, ninja and a cross file for it.
	# Debian's build compiles it with -DINI_HANDLER_LINENO=1 while its
	# header and .pc file leave programs at the default 0 (a handler
	# without the line number, called with one more argument). Here
	# library and programs agree: the default 0, which is what
	# programs written against the Debian package see.
	version=$(sed -n '1s/^[^ ]* (\([^-)]*\).*/\1/p' "$srcdir/debian/changelog")
	run $host-gcc "${cflags[@]}" -Wall -I"$srcdir" -c "$srcdir/ini.c" -o ini.o
	run $host-ar rcs libinih.a ini.o
	install -m 0644 libinih.a "$prefix/lib/libinih.a"
	install -m 0644 "$srcdir/ini.h" "$prefix/include/ini.h"
	cat >"$prefix/lib/pkgconfig/inih.pc" <<EOF
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: inih
Description: simple .INI file parser
Version: $version
Libs: -L\${libdir} -linih
Cflags: -I\${includedir}
EOF
	;;
hwloc)
	# The library, its headers and hwloc.pc; nothing optional: hwloc's
	# own XML parser instead of libxml2, no I/O devices (PCI, OpenCL,
	# CUDA, NVML, RSMI, Level Zero, GL), no cairo, no plugins, no libudev,
	# no netloc, no utilities.
	configure --disable-libxml2 --disable-cairo --disable-io --disable-pci \
		--disable-opencl --disable-cuda --disable-nvml --disable-rsmi \
		--disable-levelzero --disable-gl --disable-libudev \
		--disable-plugins --disable-plugin-dlopen --disable-plugin-ltdl \
		--disable-netloc --disable-doxygen --disable-readme
	run make -C include -j"$jobs"
	run make -C hwloc -j"$jobs"
	# The Windows backend (processor groups, CPU kinds from efficiency
	# classes) is what the port keeps hwloc for.
	[ -f hwloc/topology-windows.lo ] || {
		echo "build-dep: hwloc: topology-windows.c was not built" >&2
		exit 1
	}
	run make -C include install
	run make -C hwloc install
	run make install-hwlocpkgconfigDATA
	relocatable "$prefix/lib/pkgconfig/hwloc.pc"
	;;
cmocka)
	# One C file as well, compiled here rather than through upstream's
	# CMake build (no cmake, no toolchain file for it). config.h is what
	# its CMake would write for mingw-w64: the headers there are; no
	# clock_gettime (test times are not used) and no sigsetjmp (plain
	# setjmp, as cmocka has it on Windows); __thread for its thread
	# locals. mingw-w64's C99 printf, as for the programs: its messages
	# print %zu. Its format checks name the printf archetype, which gcc
	# takes for MSVCRT's on mingw-w64: the copy compiled and installed
	# names gnu_printf (-I. finds it before the source's).
	version=$(sed -n '1s/^[^ ]* (\([^-)]*\).*/\1/p' "$srcdir/debian/changelog")
	printf '#define %s 1\n' HAVE_MALLOC_H HAVE_INTTYPES_H HAVE_SIGNAL_H \
		HAVE_SETJMP_H HAVE_STRINGS_H HAVE_STRUCT_TIMESPEC \
		HAVE_GCC_THREAD_LOCAL_STORAGE >config.h
	sed 's/__format__ (__printf__,/__format__ (__gnu_printf__,/' \
		"$srcdir/include/cmocka.h" >cmocka.h
	grep -q __gnu_printf__ cmocka.h || {
		echo "build-dep: cmocka: its printf attribute was not found" >&2
		exit 1
	}
	run $host-gcc "${cflags[@]}" -Wall -D__USE_MINGW_ANSI_STDIO=1 \
		-DHAVE_CONFIG_H -I. -I"$srcdir/include" \
		-c "$srcdir/src/cmocka.c" -o cmocka.o
	run $host-ar rcs libcmocka.a cmocka.o
	install -m 0644 libcmocka.a "$prefix/lib/libcmocka.a"
	install -m 0644 cmocka.h "$prefix/include/cmocka.h"
	cat >"$prefix/lib/pkgconfig/cmocka.pc" <<EOF
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include
libdir=\${prefix}/lib

Name: cmocka
Description: unit testing framework for C
Version: $version
Libs: -L\${libdir} -lcmocka
Cflags: -I\${includedir}
EOF
	;;
*)
	echo "build-dep: unknown library $lib" >&2
	exit 2
	;;
esac
# libtool's archives name absolute paths and nothing here reads them.
rm -f "$prefix"/lib/*.la
echo "build-dep: $lib from $(basename "$srcdir") in $prefix"
