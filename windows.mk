# The Windows build's toolchain and libraries (included from the Makefile).
#
#   make windows        the same as windows-deps, for now
#   make windows-deps   install mingw-w64 and Wine (root), then build
#                       libconfig, inih and hwloc from Debian source packages
#                       as static x86_64-w64-mingw32 libraries under
#                       build-win/deps/{include,lib,lib/pkgconfig}
#   make windows-smoke  a program linking all three, run under Wine (TAP)
#   make windows-clean  remove build-win/
#
# Each library is built once: a stamp per library (named by its Debian
# version) in build-win/stamp/ says it is there.

WIN_BUILD := build-win
WIN_HOST := x86_64-w64-mingw32
WIN_CC := $(WIN_HOST)-gcc
WIN_PREFIX := $(CURDIR)/$(WIN_BUILD)/deps
WIN_STAMP := $(WIN_BUILD)/stamp

# Why each package: gcc-mingw-w64-x86-64 is the cross compiler (binutils,
# the mingw-w64 headers and C runtime come with it); wine and wine64 run
# the .exe here, 64-bit only, as nothing 32-bit is built; dpkg-dev brings
# dpkg-source, which unpacks the source packages and applies Debian's
# patches, and dpkg-architecture, which names the build machine to
# configure; debian-archive-keyring holds the keys bookworm's and trixie's
# Release files are checked with; pkg-config reads the libraries' .pc files
# for the programs that link them. No autotools: the sources' own configure
# scripts work as shipped, and inih is one C file compiled directly.
WIN_DEB_PACKAGES := gcc-mingw-w64-x86-64 wine wine64 dpkg-dev \
	debian-archive-keyring pkg-config

# The Debian source packages: libconfig and hwloc from bookworm, inih from
# trixie (bookworm's cannot be fetched here).
WIN_LIBCONFIG := libconfig=1.5-0.4
WIN_INIH := libinih=59-1
WIN_HWLOC := hwloc=2.9.0-1
WIN_SOURCES := $(WIN_LIBCONFIG) $(WIN_INIH) $(WIN_HWLOC)

# package=version -> package-version, the name of its tree under src/.
win_dir = $(subst =,-,$(1))
WIN_SRC_STAMPS := $(foreach s,$(WIN_SOURCES),$(WIN_STAMP)/src-$(call win_dir,$(s)))
WIN_LIB_STAMPS := $(foreach s,$(WIN_SOURCES),$(WIN_STAMP)/$(call win_dir,$(s)))

# pkg-config on the prefix alone, never the machine's own .pc files.
WIN_PKG_CONFIG := PKG_CONFIG_LIBDIR=$(WIN_PREFIX)/lib/pkgconfig PKG_CONFIG_PATH= \
	pkg-config --static
WIN_PKGS := libconfig inih hwloc

.PHONY: windows windows-deps windows-packages windows-smoke windows-clean

windows: windows-deps

windows-deps: windows-packages $(WIN_LIB_STAMPS)

windows-packages:
	@missing=; for p in $(WIN_DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
			grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive \
			apt-get install -y -q --no-install-recommends $$missing; \
	fi

# One fetch for all three: one private apt-get update serves them.
$(WIN_SRC_STAMPS) &: packaging/windows/fetch-sources.sh | windows-packages
	packaging/windows/fetch-sources.sh $(WIN_BUILD) $(WIN_SOURCES)
	@mkdir -p $(WIN_STAMP) && touch $(WIN_SRC_STAMPS)

# win_lib_rule NAME,PACKAGE=VERSION: the stamp of one library, built from its source tree.
define win_lib_rule
$(WIN_STAMP)/$(call win_dir,$(2)): $(WIN_STAMP)/src-$(call win_dir,$(2)) \
		packaging/windows/build-dep.sh | windows-packages
	@echo "  BUILD   $(1) ($(2)) for $(WIN_HOST)"
	@start=$$$$(date +%s); \
	packaging/windows/build-dep.sh $(1) $(WIN_BUILD)/src/$(call win_dir,$(2)) \
		$(WIN_BUILD)/obj/$(1) $(WIN_PREFIX) && \
	echo "  BUILT   $(1) in $$$$(( $$$$(date +%s) - start )) s"
	@touch $$@
endef
$(eval $(call win_lib_rule,libconfig,$(WIN_LIBCONFIG)))
$(eval $(call win_lib_rule,inih,$(WIN_INIH)))
$(eval $(call win_lib_rule,hwloc,$(WIN_HWLOC)))

$(WIN_BUILD)/smoke.exe: tests/windows/smoke.c $(WIN_LIB_STAMPS)
	@echo "  CC      $@"
	$(Q)$(WIN_CC) -std=c11 $(WARN) -O2 \
		$$($(WIN_PKG_CONFIG) --cflags $(WIN_PKGS)) -o $@ $< -static \
		$$($(WIN_PKG_CONFIG) --libs $(WIN_PKGS))

windows-smoke: windows-deps $(WIN_BUILD)/smoke.exe
	@tests/windows/run-smoke.sh $(WIN_BUILD)/smoke.exe

windows-clean:
	rm -rf $(WIN_BUILD)
