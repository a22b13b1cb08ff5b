# The Windows build's toolchain and libraries (included from the Makefile).
#
#   make windows        windows-deps, then build-win/cpupolicyd.exe and
#                       build-win/cpupolicyctl.exe (static: no DLL beyond
#                       Windows' own) and build-win/libcpupolicy.a
#   make windows-deps   install mingw-w64 and Wine (root), then build
#                       libconfig, inih, hwloc and json-c from Debian source
#                       packages
#                       as static x86_64-w64-mingw32 libraries under
#                       build-win/deps/{include,lib,lib/pkgconfig}
#   make msi            build-win/cpupolicy-VERSION-x64.msi, the installer
#                       (packaging/windows/msi.mk)
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
# for the programs that link them; cmake builds json-c, whose only build
# is a CMake one (its cross build for mingw-w64 is named on the command
# line: no toolchain file). No autotools: the sources' own configure
# scripts work as shipped, and inih is one C file compiled directly.
WIN_DEB_PACKAGES := gcc-mingw-w64-x86-64 wine wine64 dpkg-dev \
	debian-archive-keyring pkg-config cmake

# The Debian source packages: libconfig and hwloc from bookworm, inih from
# trixie (bookworm's cannot be fetched here).
WIN_LIBCONFIG := libconfig=1.5-0.4
WIN_INIH := libinih=59-1
WIN_HWLOC := hwloc=2.9.0-1
WIN_SOURCES := $(WIN_LIBCONFIG) $(WIN_INIH) $(WIN_HWLOC)
# json-c from bookworm: fetched apart from the three, after them, so that
# a build directory that has those neither fetches nor builds them again.
WIN_JSONC := json-c=0.16-2
# For the unit tests only, fetched apart (make windows does without it):
# cmocka from bookworm, one C file compiled directly like inih's.
WIN_CMOCKA := cmocka=1.1.5-2.1

# package=version -> package-version, the name of its tree under src/.
win_dir = $(subst =,-,$(1))
WIN_SRC_STAMPS := $(foreach s,$(WIN_SOURCES),$(WIN_STAMP)/src-$(call win_dir,$(s)))
WIN_JSONC_SRC_STAMP := $(WIN_STAMP)/src-$(call win_dir,$(WIN_JSONC))
WIN_LIB_STAMPS := $(foreach s,$(WIN_SOURCES) $(WIN_JSONC),\
	$(WIN_STAMP)/$(call win_dir,$(s)))

# pkg-config on the prefix alone, never the machine's own .pc files.
WIN_PKG_CONFIG := PKG_CONFIG_LIBDIR=$(WIN_PREFIX)/lib/pkgconfig PKG_CONFIG_PATH= \
	pkg-config --static
WIN_PKGS := libconfig inih hwloc json-c

.PHONY: windows windows-deps windows-packages windows-clean \
	windows-build windows-test-deps windows-units windows-test

# The programs: the Makefile's rules (programs) over the windows/
# folders, with these settings. Objects under obj-cp/, apart from the
# libraries' obj/.
# __USE_MINGW_ANSI_STDIO: mingw-w64's own C99 printf (%zu, %lld), not
# MSVCRT's. _WIN32_WINNT 0x0A00: the Windows 10 API is declared; what
# an older Windows or Wine lacks is resolved at run time (winapi.c).
# pid_t: mingw-w64's is 64 bits on Win64, while Windows' process and
# thread ids are DWORDs and the core prints pid_t with %d: kept out
# (_PID_T_) and an int, as on Linux. No sanitizers: the Windows build
# is the same under SAN=1.
WIN_OBJ := $(WIN_BUILD)/obj-cp
WIN_EXE := .exe
WIN_AR := $(WIN_HOST)-ar
WIN_DEPS = $(WIN_LIB_STAMPS)
WIN_CPPFLAGS_ALL = -D_GNU_SOURCE -D__USE_MINGW_ANSI_STDIO=1 \
	-D_WIN32_WINNT=0x0A00 -DWINVER=0x0A00 -DUNICODE -D_UNICODE \
	-D_PID_T_ -Dpid_t=int -D_pid_t=int \
	-DCPUPOLICY_VERSION='"$(VERSION)"' -Ilib -Ilib/windows \
	$(shell $(WIN_PKG_CONFIG) --cflags $(WIN_PKGS) 2>/dev/null)
WIN_CFLAGS_ALL := -std=c11 $(WARN) -O2 -g -MMD -MP
WIN_LDFLAGS_ALL := -static
# Windows' own DLLs only: advapi32 (tokens, SIDs, services, ETW),
# shell32 (main's arguments in UTF-16: CommandLineToArgvW), the rest what
# the C runtime and the pipes need.
WIN_SYSLIBS := -ladvapi32 -lkernel32 -lshell32 -luser32 -lws2_32
WIN_LIBS_ALL = $(shell $(WIN_PKG_CONFIG) --libs $(WIN_PKGS) 2>/dev/null) \
	$(WIN_SYSLIBS)

windows: windows-deps
	@$(MAKE) --no-print-directory windows-build

windows-build: $(WIN_BUILD)/cpupolicyd.exe $(WIN_BUILD)/cpupolicyctl.exe

windows-deps: windows-packages $(WIN_LIB_STAMPS)

windows-packages:
	@$(call apt_install,$(WIN_DEB_PACKAGES))

# One fetch for all three: one private apt-get update serves them.
# Each fetch and each library's build under STEP_LIMIT (the Makefile's
# limit): a mirror or a configure script that hangs fails the build.
$(WIN_SRC_STAMPS) &: packaging/windows/fetch-sources.sh | windows-packages
	@$(call limit,fetch-sources,packaging/windows/fetch-sources.sh \
		$(WIN_BUILD) $(WIN_SOURCES))
	@mkdir -p $(WIN_STAMP) && touch $(WIN_SRC_STAMPS)

# win_lib_rule NAME,PACKAGE=VERSION[,SCRIPT]: the stamp of one library,
# built from its source tree by SCRIPT (build-dep.sh unless named), which
# starts with build-common.sh.
win_script = packaging/windows/$(or $(1),build-dep.sh)
define win_lib_rule
$(WIN_STAMP)/$(call win_dir,$(2)): $(WIN_STAMP)/src-$(call win_dir,$(2)) \
		$(call win_script,$(3)) packaging/windows/build-common.sh \
		| windows-packages
	@echo "  BUILD   $(1) ($(2)) for $(WIN_HOST)"
	@start=$$$$(date +%s); \
	{ $$(call limit,build-dep $(1),$(call win_script,$(3)) $(1) \
		$(WIN_BUILD)/src/$(call win_dir,$(2)) $(WIN_BUILD)/obj/$(1) \
		$(WIN_PREFIX)); } && \
	echo "  BUILT   $(1) in $$$$(( $$$$(date +%s) - start )) s"
	@touch $$@
endef
$(eval $(call win_lib_rule,libconfig,$(WIN_LIBCONFIG)))
$(eval $(call win_lib_rule,inih,$(WIN_INIH)))
$(eval $(call win_lib_rule,hwloc,$(WIN_HWLOC)))
# json-c's build is CMake's: a script of its own, so that a change to
# one build does not build the other libraries again.
$(eval $(call win_lib_rule,json-c,$(WIN_JSONC),build-cmake.sh))
$(eval $(call win_lib_rule,cmocka,$(WIN_CMOCKA)))

# Each fetch after the one before, never beside it: all use the one
# private apt state, whose lock a second apt-get would find taken.
$(WIN_JSONC_SRC_STAMP): packaging/windows/fetch-sources.sh \
		| windows-packages $(WIN_SRC_STAMPS)
	@$(call limit,fetch-sources,packaging/windows/fetch-sources.sh \
		$(WIN_BUILD) $(WIN_JSONC))
	@mkdir -p $(WIN_STAMP) && touch $@

WIN_CMOCKA_STAMP := $(WIN_STAMP)/$(call win_dir,$(WIN_CMOCKA))
$(WIN_STAMP)/src-$(call win_dir,$(WIN_CMOCKA)): packaging/windows/fetch-sources.sh \
		| windows-packages $(WIN_SRC_STAMPS) $(WIN_JSONC_SRC_STAMP)
	@$(call limit,fetch-sources,packaging/windows/fetch-sources.sh \
		$(WIN_BUILD) $(WIN_CMOCKA))
	@mkdir -p $(WIN_STAMP) && touch $@

windows-test-deps: windows-deps $(WIN_CMOCKA_STAMP)

# The unit tests as .exe: every portable one (tests/unit/test_*.c) and
# those of the Windows backend's own parts (tests/unit/windows/), run
# under Wine by tests/windows/run-units.sh, with cmocka for mingw.
# The model of Windows (tests/windows/model/): a library the Windows
# unit tests link, whose model_install puts it behind winapi.h's table.
WIN_MODEL_OBJ := $(patsubst %.c,$(WIN_OBJ)/%.o,$(wildcard tests/windows/model/*.c))
WIN_MODEL := $(WIN_OBJ)/tests/windows/model/libmodel.a
$(WIN_MODEL): $(WIN_MODEL_OBJ)
	$(Q)rm -f $@ && $(WIN_AR) rcs $@ $^
WIN_UNIT_CPPFLAGS = -Itests/windows/model \
	$(shell $(WIN_PKG_CONFIG) --cflags cmocka 2>/dev/null)
WIN_UNIT_ARCHIVES = $(WIN_MODEL)
WIN_UNIT_LIBS = $(shell $(WIN_PKG_CONFIG) --libs cmocka 2>/dev/null)
WIN_UNIT_DEPS = $(WIN_CMOCKA_STAMP)
$(eval $(call programs,windows,WIN_))

# A unit test of a front end's own files names their objects in
# WIN_UNIT_OBJS_<test>, its own flags in WIN_UNIT_CPPFLAGS_<test> (the
# Makefile's programs).
WIN_UNIT_OBJS_test_model_check := ctl/work_common.o ctl/windows/work.o \
	ctl/windows/machine.o
WIN_UNIT_OBJS_test_model_pipes := policyd/windows/listen.o
WIN_UNIT_OBJS_test_model_ifeo := policyd/windows/ifeo.o
# The front end's --uninstall, with the part of the daemon it runs.
WIN_UNIT_OBJS_test_uninstall := policyd/windows/install.o \
	policyd/windows/ifeo.o
WIN_UNIT_CPPFLAGS_test_uninstall := -Ipolicyd/windows
# The tests of the fake accounts (UNIT_FAKE_ACCOUNTS, the Makefile's).
$(foreach t,$(UNIT_FAKE_ACCOUNTS),$(eval \
	WIN_UNIT_OBJS_$(t) += tests/unit/accountsfake.o))
# The tests of the fake process table (UNIT_FAKE_PROCS) that are
# Windows' too.
WIN_UNIT_FAKE_PROCS := $(filter $(UNIT_FAKE_PROCS),\
	$(basename $(notdir $(WIN_UNIT_SRC))))
$(foreach t,$(WIN_UNIT_FAKE_PROCS),$(eval \
	WIN_UNIT_OBJS_$(t) += tests/unit/procfake.o))
$(call unit_objs_rules,WIN_,test_model_check test_model_pipes \
	test_model_ifeo test_uninstall $(UNIT_FAKE_ACCOUNTS) \
	$(WIN_UNIT_FAKE_PROCS))
# The test main and fixtures include cmocka.h, which is in the prefix.
$(WIN_UNIT_MAIN) $(WIN_UNIT_FIX_OBJ): WIN_CPPFLAGS_ALL += $(shell $(WIN_PKG_CONFIG) --cflags cmocka 2>/dev/null)
# The Windows fixtures may stand on the model (topofix.c reads its groups).
$(WIN_UNIT_FIX_OBJ): WIN_CPPFLAGS_ALL += -Itests/windows/model

windows-units: $(WIN_UNIT_BIN)

# The Windows suite by itself; make test runs it among the rest.
windows-test: windows-test-deps
	@$(MAKE) --no-print-directory windows-units
	@tests/windows/run-units.sh $(WIN_BUILD) $(WIN_UNIT_BIN)

windows-clean:
	rm -rf $(WIN_BUILD)

-include $(WIN_MODEL_OBJ:.o=.d)

# The integration test's program and the benchmark's (tests/windows/
# probe.c), the daemon under Wine with a rule for it (integration.sh), and
# the Windows section of make bench's docs/benchmarks.md: start to class
# applied (bench.sh), once per poll interval of WIN_BENCH_POLLS (ms).
WIN_BENCH_STARTS ?= 40
WIN_BENCH_POLLS ?= 250 50
.PHONY: windows-programs windows-integration windows-bench

$(WIN_BUILD)/probe.exe: tests/windows/probe.c | $(WIN_LIB_STAMPS)
	@echo "  CC      $< (windows)"
	$(Q)$(WIN_CC) -std=c11 $(WARN) -O2 -D_WIN32_WINNT=0x0A00 -o $@ $< \
		-static

# What the integration test runs (make test builds it before its run).
windows-programs: windows-build $(WIN_BUILD)/probe.exe

windows-integration: windows-programs
	@tests/windows/integration.sh $(WIN_BUILD)

# The section alone, on stdout (make bench runs it among the rest).
windows-bench: windows-build $(WIN_BUILD)/probe.exe
	@tests/windows/bench.sh $(WIN_BUILD) $(BENCH_RUNS) $(WIN_BENCH_STARTS) \
		$(WIN_BENCH_POLLS)

# make msi: the Windows installer (packaging/windows/msi.mk).
include packaging/windows/msi.mk
