# cpupolicy — one non-recursive Makefile.
#
#   make deps     install the Debian packages the build and tests need (root)
#   make          build build/cpupolicyd and build/cpupolicyctl
#   make check    the daily loop: build, then the unit tests and the format
#                 check (tests/run-tests.sh unit style); no apt, no root,
#                 no Wine, once make deps has run on the machine
#   make test     deps, build, then unit, Windows (under Wine), integration
#                 and fuzz tests
#   make test SAN=1   the same under AddressSanitizer + UBSan (build-san/)
#   make test-systemd the .deb's units under systemd, in a Debian 12
#                 container booted with systemd-nspawn (root)
#   make run      check the tree's rules, then run the daemon on them (root)
#   make fuzz     fuzz every parser for FUZZ_SECONDS (default 300) each
#   make soak     everything at once against the daemon for SOAK_SECONDS
#                 (default 300; make test runs it for 20), its figures
#                 written to docs/soak.md
#   make bench    run the benchmarks and write docs/benchmarks.md
#                 (BENCH_RUNS, BENCH_STARTS, BENCH_RULES_RUNS, ...)
#   make format   clang-format every source file in place

VERSION := 0.1.0
# Where "make install" puts things (DESTDIR in front of all of them).
PREFIX ?= /usr
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCDIR ?= $(DATADIR)/doc/cpupolicy
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
COMPLETIONDIR ?= $(DATADIR)/bash-completion/completions
# The system bus's policy for the foreground method (packaging/dbus).
DBUSDIR ?= $(DATADIR)/dbus-1/system.d
# The agent: started at login by XDG autostart, or by the user unit.
USERUNITDIR ?= $(PREFIX)/lib/systemd/user
AUTOSTARTDIR ?= $(SYSCONFDIR)/xdg/autostart
FUZZ_SECONDS ?= 300
SOAK_SECONDS ?= 300
TEST_FUZZ_SECONDS ?= 5
# make bench: runs of each exec row, probe starts per run, runs of the
# (quick) rule-loading figures, probe starts per run of the comparison
# with and (each waits up to a second for it).
BENCH_RUNS ?= 5
BENCH_STARTS ?= 1000
BENCH_RULES_RUNS ?= 7
BENCH_COMPARE_STARTS ?= 20
# Runs of each restraint row, and each run's length in seconds (the hogs
# start 2 s in).
BENCH_RESTRAINT_RUNS ?= 3
BENCH_RESTRAINT_SECONDS ?= 7
# The slice of the community ananicy rules beside the checkout (GPL-3.0,
# read in place by the import test and benchmark, never copied here).
ANANICY_SAMPLE ?= $(CURDIR)/../shared/ananicy-sample

ifeq ($(SAN),1)
BUILD := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
else
BUILD := build
SANFLAGS :=
endif

# Why each package: libconfig reads rule files, inih the daemon config,
# libcap drops capabilities, hwloc gives topology and CPU kinds (and the
# synthetic topologies tests use), cmocka runs unit tests, clang with its
# runtime (libclang-rt) builds the libFuzzer targets, clang-format keeps the
# style checked, hwloc's tools (hwloc-calc) cross-check topology tests;
# libsystemd tells systemd the daemon is ready (sd_notify) and hands it
# the sockets of socket activation (sd_listen_fds); json-c writes every
# JSON document the programs output (its strings escaped by the library)
# and parses the ananicy rules an import reads. The package tests:
# debhelper and dpkg-dev build the .deb, lintian checks it, man-db renders
# the installed man pages, rpm builds the .rpm, systemd's systemd-analyze
# scores the unit's hardening, ansible-core runs the fleet role and
# ansible brings the ansible.windows collection its Windows tasks use
# (checked with --syntax-check, which needs the modules it names),
# build-essential is what dpkg-buildpackage checks for before it builds,
# prometheus brings promtool, which checks the metrics exposition and the
# alerting rules; jq reads the Grafana dashboard's queries for promtool;
# systemd-container (systemd-nspawn) boots the container test-systemd
# runs the units in, debootstrap makes that container's Debian 12 root;
# libbpf-dev's headers build the exec filter's BPF program (with clang)
# and its light skeleton's loader, and the benchmark reads the program's
# run time with libbpf; bpftool writes vmlinux.h from the kernel's BTF and
# the light skeleton that embeds the program in the daemon, which links
# no BPF library; dbus-daemon and dbus-bin (dbus-send) give the restraint
# test a private system bus to declare the foreground on, and attr's
# setfattr marks a cgroup focused in it as GNOME does.
DEB_PACKAGES := gcc make pkg-config libconfig-dev libinih-dev libcap-dev \
	libjson-c-dev libhwloc-dev libcmocka-dev clang libclang-rt-14-dev \
	clang-format hwloc libsystemd-dev git debhelper dpkg-dev fakeroot \
	lintian man-db rpm systemd ansible-core ansible build-essential \
	prometheus jq systemd-container debootstrap libbpf-dev bpftool \
	dbus-daemon dbus-bin libx11-dev libxres-dev xvfb attr

PKGS := libconfig inih libcap hwloc libsystemd json-c
# Recursively expanded: pkg-config runs when a recipe needs it, after deps.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS = $(shell pkg-config --libs $(PKGS))

CC ?= gcc
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2 -Wno-format-nonliteral -Wundef -Wvla -Werror=implicit
CPPFLAGS_ALL = $(CPPFLAGS) -D_GNU_SOURCE -DCPUPOLICY_VERSION='"$(VERSION)"' \
	-DCONF_DEFAULT_PATH='"$(SYSCONFDIR)/cpupolicy/cpupolicyd.conf"' \
	-DCONF_DEFAULT_RULES_DIRS='"$(DATADIR)/cpupolicy/rules.d:$(SYSCONFDIR)/cpupolicy/rules.d"' \
	-Ilib -Ilib/linux -I$(BPF_DIR) $(PKG_CFLAGS)
CFLAGS ?= -O2 -g
CFLAGS_ALL = -std=c11 $(WARN) $(CFLAGS) $(SANFLAGS) -MMD -MP
LDFLAGS_ALL = $(LDFLAGS) $(SANFLAGS)

# There is no OS switch: both systems' rules are always there (below for
# Linux, windows.mk for Windows), each program named by its directory.
ifeq ($(origin OS),command line)
$(error OS=$(OS) selects nothing: "make" builds Linux's programs in \
	$(BUILD)/, "make windows" (or windows-build) Windows' in build-win/)
endif

FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)
HELPER_BIN := $(patsubst tests/helpers/%.c,$(BUILD)/helpers/%,\
	$(wildcard tests/helpers/*.c))
FUZZ_BIN := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
LIBCP := $(BUILD)/libcpupolicy.a

.PHONY: all deps check test test-run test-systemd run fuzz soak bench format \
	format-check clean install deb rpm

all: $(BUILD)/cpupolicyd $(BUILD)/cpupolicyctl

# Seconds each apt-get may take, and each step of the Windows build's
# libraries (windows.mk): a mirror or a configure script that hangs fails
# the build instead of holding it for good (SIGKILL 10 s after SIGTERM).
STEP_LIMIT ?= 1800
# $(call limit,NAME,COMMAND): a step of the build under STEP_LIMIT, in a
# process group of its own (timeout's), all of it ended at the limit, and
# said so; true when it succeeded.
limit = timeout -k 10 $(STEP_LIMIT) $(2) </dev/null; rc=$$?; \
	case $$rc in 124 | 137) \
		echo "$(1): no end within $(STEP_LIMIT) s (STEP_LIMIT)" >&2 ;; \
	esac; [ $$rc -eq 0 ]

# The Debian packages of a list that are not installed yet, installed
# (apt-get update once first); nothing when all are: make deps, and the
# Windows build's own lists. No input: a question (a changed conffile)
# fails the install instead of waiting on it.
define apt_install
missing=; for p in $(1); do \
	dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
	echo "installing:$$missing"; \
	{ $(call limit,apt-get update,apt-get update -q); } && \
	{ $(call limit,apt-get install,env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $$missing); }; \
fi
endef

deps:
	@$(call apt_install,$(DEB_PACKAGES))

# V=1 shows the whole commands.
Q := $(if $(filter 1,$(V)),,@)

# The exec filter (lib/linux/bpf/): a BPF program compiled by clang,
# relocated at load time against the running kernel's BTF (CO-RE) by the
# kernel itself, and embedded in the daemon by bpftool's light skeleton
# (a loader program the kernel runs). vmlinux.h comes from the
# build machine's kernel when it has BTF; without it (a chroot without
# /sys) from the few types the program reads, vmlinux-min.h, which
# relocate just as well: only their names and fields matter.
BPF_DIR := $(BUILD)/bpf
BPF_SKEL := $(BPF_DIR)/execfilter.bpf.skel.h
BPF_ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/; s/ppc64le/powerpc/; s/s390x/s390/; s/riscv64/riscv/')
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
$(BPF_DIR)/vmlinux.h: lib/linux/bpf/vmlinux-min.h
	@mkdir -p $(dir $@)
	@if [ -r $(VMLINUX_BTF) ]; then \
		echo "  BTF     $@ (from $(VMLINUX_BTF))"; \
		bpftool btf dump file $(VMLINUX_BTF) format c >$@.tmp; \
	else \
		echo "  BTF     $@ (no $(VMLINUX_BTF): vmlinux-min.h)"; \
		cp $< $@.tmp; \
	fi
	$(Q)mv $@.tmp $@
# The same filter built from vmlinux-min.h whatever the build machine
# has, for tests/integration/bpf.sh to load: only a load against the
# running kernel shows that the minimal header holds each type and field
# the program reads.
BPF_MIN_DIR := $(BUILD)/bpf-min
$(BPF_MIN_DIR)/vmlinux.h: lib/linux/bpf/vmlinux-min.h
	@mkdir -p $(dir $@)
	$(Q)cp $< $@
# -g for the BTF that CO-RE needs; bpftool's link then drops the DWARF,
# which the skeleton would otherwise embed in the daemon (700 KB of it).
$(BUILD)/%/execfilter.bpf.o: lib/linux/bpf/execfilter.bpf.c \
		lib/linux/bpf/execfilter_abi.h $(BUILD)/%/vmlinux.h
	@echo "  BPF     $@"
	$(Q)clang -target bpf -g -O2 -Wall -D__TARGET_ARCH_$(BPF_ARCH) \
		-I$(dir $@) -Ilib/linux/bpf -c $< -o $@.debug.o
	$(Q)bpftool gen object $@ $@.debug.o
	$(Q)rm -f $@.debug.o
$(BUILD)/%/execfilter.bpf.skel.h: $(BUILD)/%/execfilter.bpf.o
	@echo "  SKEL    $@"
	$(Q)bpftool gen skeleton -L $< name execfilter_bpf >$@.tmp
	$(Q)mv $@.tmp $@
.SECONDARY: $(BPF_DIR)/execfilter.bpf.o $(BPF_MIN_DIR)/execfilter.bpf.o
$(BUILD)/lib/linux/execfilter.o: $(BPF_SKEL)

# $(call programs,SYSTEM,PREFIX): the rules of one system's programs,
# once for Linux (PREFIX empty) and once for Windows (WIN_, windows.mk).
# The portable core in lib/, policyd/ and ctl/ with what calls the system
# in their SYSTEM/ folders, behind lib/os.h (wildcards: a new file joins
# by existing); unit tests from tests/unit/ and tests/unit/SYSTEM/, each
# with tests/unit/unit.c and the fixtures it calls (tests/unit/*fix.c and
# tests/unit/SYSTEM/*fix.c, from an archive). What it reads, each name after PREFIX:
#   BUILD (the programs, the library, tests/), OBJ (the objects), EXE (the
#   programs' suffix), CC, AR, CPPFLAGS_ALL, CFLAGS_ALL, LDFLAGS_ALL and
#   LIBS_ALL (after the library), DEPS (what compiling waits for);
#   UNIT_CPPFLAGS, UNIT_ARCHIVES (before the library), UNIT_LIBS (after
#   it) and UNIT_DEPS (what linking waits for) of the unit tests; for one
#   test, UNIT_CPPFLAGS_<test> and UNIT_OBJS_<test>: a front end's objects
#   (which libcpupolicy.a does not hold) linked beside it (see
#   unit_objs_rules); plain variables, as a target-specific one would
#   reach the objects the test shares with the others.
# What it defines, after PREFIX: LIB_SRC, CTL_SRC, POLICYD_SRC, their
# _OBJ, LIBCP, UNIT_SRC, UNIT_BIN, UNIT_MAIN, UNIT_FIX.
define programs
$(2)LIB_SRC := $$(wildcard lib/*.c lib/$(1)/*.c)
$(2)CTL_SRC := $$(wildcard ctl/*.c ctl/$(1)/*.c)
$(2)POLICYD_SRC := $$(wildcard policyd/*.c policyd/$(1)/*.c)
$(2)UNIT_SRC := $$(wildcard tests/unit/test_*.c tests/unit/$(1)/test_*.c)
$(2)LIB_OBJ := $$($(2)LIB_SRC:%.c=$$($(2)OBJ)/%.o)
$(2)CTL_OBJ := $$($(2)CTL_SRC:%.c=$$($(2)OBJ)/%.o)
$(2)POLICYD_OBJ := $$($(2)POLICYD_SRC:%.c=$$($(2)OBJ)/%.o)
$(2)LIBCP := $$($(2)BUILD)/libcpupolicy.a
$(2)UNIT_BIN := $$(patsubst %.c,$$($(2)BUILD)/tests/%$$($(2)EXE),\
	$$(notdir $$($(2)UNIT_SRC)))
$(2)UNIT_MAIN := $$($(2)OBJ)/tests/unit/unit.o
$(2)UNIT_FIX := $$($(2)OBJ)/tests/unit/libfix.a
$(2)UNIT_FIX_OBJ := $$(patsubst %.c,$$($(2)OBJ)/%.o,$$(wildcard tests/unit/*fix.c \
	tests/unit/$(1)/*fix.c))

$$($(2)OBJ)/%.o: %.c | $$($(2)DEPS)
	@mkdir -p $$(dir $$@)
	@echo "  CC      $$<$(if $(2), ($(1)))"
	$$(Q)$$($(2)CC) $$($(2)CPPFLAGS_ALL) $$($(2)CFLAGS_ALL) -c $$< -o $$@

$$($(2)LIBCP): $$($(2)LIB_OBJ)
	@echo "  AR      $$@"
	$$(Q)rm -f $$@
	$$(Q)$$($(2)AR) rcs $$@ $$^

$$($(2)BUILD)/cpupolicyd$$($(2)EXE): $$($(2)POLICYD_OBJ) $$($(2)LIBCP)
	@echo "  LD      $$@"
	$$(Q)$$($(2)CC) $$($(2)LDFLAGS_ALL) -o $$@ $$($(2)POLICYD_OBJ) \
		$$($(2)LIBCP) $$($(2)LIBS_ALL)

$$($(2)BUILD)/cpupolicyctl$$($(2)EXE): $$($(2)CTL_OBJ) $$($(2)LIBCP)
	@echo "  LD      $$@"
	$$(Q)$$($(2)CC) $$($(2)LDFLAGS_ALL) -o $$@ $$($(2)CTL_OBJ) \
		$$($(2)LIBCP) $$($(2)LIBS_ALL) $$($(2)CTL_LIBS) -lm

.SECONDARY: $$($(2)UNIT_MAIN) $$($(2)UNIT_FIX_OBJ)
$$($(2)UNIT_FIX): $$($(2)UNIT_FIX_OBJ)
	$$(Q)rm -f $$@ && $$($(2)AR) rcs $$@ $$^
$(2)UNIT_LINK = $$(Q)$$($(2)CC) $$($(2)CPPFLAGS_ALL) -Itests/unit -Itests/unit/$(1) \
	$$($(2)UNIT_CPPFLAGS) $$($(2)UNIT_CPPFLAGS_$$(basename $$(notdir $$@))) \
	-DSRCDIR='"$$(CURDIR)"' $$($(2)CFLAGS_ALL) \
	-o $$@ $$< $$(call unit_objs,$(2),$$(basename $$(notdir $$@))) \
	$$($(2)UNIT_MAIN) $$($(2)UNIT_FIX) $$($(2)UNIT_ARCHIVES) $$($(2)LIBCP) \
	$$($(2)LDFLAGS_ALL) $$($(2)LIBS_ALL) $$($(2)UNIT_LIBS) -lm
$$($(2)BUILD)/tests/%$$($(2)EXE): tests/unit/%.c $$($(2)UNIT_MAIN) \
		$$($(2)UNIT_FIX) $$($(2)UNIT_ARCHIVES) $$($(2)LIBCP) \
		| $$($(2)UNIT_DEPS)
	@mkdir -p $$(dir $$@)
	@echo "  TEST    $$@"
	$$($(2)UNIT_LINK)
$$($(2)BUILD)/tests/%$$($(2)EXE): tests/unit/$(1)/%.c $$($(2)UNIT_MAIN) \
		$$($(2)UNIT_FIX) $$($(2)UNIT_ARCHIVES) $$($(2)LIBCP) \
		| $$($(2)UNIT_DEPS)
	@mkdir -p $$(dir $$@)
	@echo "  TEST    $$@"
	$$($(2)UNIT_LINK)

-include $$($(2)LIB_OBJ:.o=.d) $$($(2)CTL_OBJ:.o=.d) \
	$$($(2)POLICYD_OBJ:.o=.d) $$(addsuffix .d,$$(basename $$($(2)UNIT_BIN))) \
	$$($(2)UNIT_MAIN:.o=.d) $$($(2)UNIT_FIX_OBJ:.o=.d)
endef
# $(call unit_objs,PREFIX,TEST): the objects PREFIX's TEST links beside
# libcpupolicy.a; $(call unit_objs_rules,PREFIX,TESTS): each of TESTS
# waits for its own.
unit_objs = $(addprefix $($(1)OBJ)/,$($(1)UNIT_OBJS_$(2)))
unit_objs_rules = $(foreach t,$(2),$(eval \
	$($(1)BUILD)/tests/$(t)$($(1)EXE): $(call unit_objs,$(1),$(t))))

# Linux: objects beside the programs, in build/ (build-san/ under SAN=1).
OBJ := $(BUILD)
LIBS_ALL = $(PKG_LIBS)
# cpupolicyctl agent reads the user's X display (ctl/linux/fgwindow.c):
# Xlib for the active window, libXRes for the real pid of the client that
# made it. Only cpupolicyctl links them, never the daemon.
CTL_LIBS = $(shell pkg-config --libs x11 xres)
UNIT_CPPFLAGS = $(shell pkg-config --cflags cmocka)
UNIT_LIBS = $(shell pkg-config --libs cmocka)
$(eval $(call programs,linux,))

# The daemon with the filter of vmlinux-min.h (BPF_MIN_DIR, above): its
# execfilter.o comes before the library's, which is then not linked.
$(BPF_MIN_DIR)/execfilter.o: lib/linux/execfilter.c \
		$(BPF_MIN_DIR)/execfilter.bpf.skel.h | $(DEPS)
	@echo "  CC      $< (vmlinux-min.h)"
	$(Q)$(CC) -I$(BPF_MIN_DIR) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -c $< -o $@
$(BUILD)/tests/cpupolicyd-minbtf: $(POLICYD_OBJ) $(BPF_MIN_DIR)/execfilter.o \
		$(LIBCP)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(LDFLAGS_ALL) -o $@ $(POLICYD_OBJ) \
		$(BPF_MIN_DIR)/execfilter.o $(LIBCP) $(LIBS_ALL)

# The tests whose system accounts are a fake's, the same on every system
# (tests/unit/accountsfake.c): linked before libcpupolicy.a, whose
# accounts.o it stands in for (windows.mk links it the same way).
UNIT_FAKE_ACCOUNTS := test_ananicy test_golden test_importcheck \
	test_prolasso test_restrained test_rules
$(foreach t,$(UNIT_FAKE_ACCOUNTS),$(eval \
	UNIT_OBJS_$(t) += tests/unit/accountsfake.o))
$(call unit_objs_rules,,$(UNIT_FAKE_ACCOUNTS))
# The tests whose processes are a fake's table (tests/unit/procfake.c):
# linked the same way, before the library's procinfo.o, apply_prio.o and
# apply_place.o, which it stands in for (windows.mk: those it builds).
UNIT_FAKE_PROCS := test_fgprio test_loop test_manage test_restrained
$(foreach t,$(UNIT_FAKE_PROCS),$(eval \
	UNIT_OBJS_$(t) += tests/unit/procfake.o))
$(call unit_objs_rules,,$(UNIT_FAKE_PROCS))
# The loop's dispatch is the daemon's (policyd/loop_common.c): its test
# links it, the rest of the daemon stubbed.
UNIT_OBJS_test_loop += policyd/loop_common.o
UNIT_CPPFLAGS_test_loop := -Ipolicyd
$(call unit_objs_rules,,test_loop)
# saturate --compare --restraint's pure half is cpupolicyctl's.
UNIT_OBJS_test_saturate_restraint := ctl/saturate_restraint_report.o
UNIT_CPPFLAGS_test_saturate_restraint := -Ictl
$(call unit_objs_rules,,test_saturate_restraint)

# libFuzzer targets: clang, instrumented, with their own copy of lib/.
FUZZ_CC := clang
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(wildcard lib/*.h lib/linux/*.h) \
		$(BPF_SKEL)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(FUZZ_CC) $(CPPFLAGS_ALL) -std=c11 $(FUZZ_FLAGS) -o $@ $< $(LIB_SRC) \
		$(PKG_LIBS)

$(BUILD)/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	@echo "  HELPER  $@"
	$(Q)$(CC) -D_GNU_SOURCE $(CFLAGS_ALL) -o $@ $< $(LDFLAGS_ALL) \
		$(HELPER_LDFLAGS) -lpthread

# The tests run them as another user, who may read nothing of the machine's
# libraries (a root directory of mode 0700, as in some build roots).
STATIC_HELPERS := $(BUILD)/helpers/peer $(BUILD)/helpers/fakeexe \
	$(BUILD)/helpers/mute
$(BUILD)/helpers/xactive: HELPER_LDFLAGS := $(shell pkg-config --libs x11)
$(STATIC_HELPERS): SANFLAGS :=
$(STATIC_HELPERS): HELPER_LDFLAGS := -static

# The worker linked statically: the benchmark's probe without a dynamic
# loader before its main(). No sanitizers: they do not link statically.
$(BUILD)/helpers/worker-static: tests/helpers/worker.c
	@mkdir -p $(dir $@)
	@echo "  HELPER  $@"
	$(Q)$(CC) -D_GNU_SOURCE -std=c11 $(WARN) $(CFLAGS) -static -o $@ $< \
		$(LDFLAGS) -lpthread

BENCH_COMMON := tests/bench/stats.c
$(BUILD)/bench/%: tests/bench/%.c $(BENCH_COMMON) tests/bench/stats.h \
		lib/frames.h $(LIBCP)
	@mkdir -p $(dir $@)
	@echo "  BENCH   $@"
	$(Q)$(CC) $(CPPFLAGS_ALL) $(CFLAGS_ALL) -o $@ $< $(BENCH_COMMON) \
		$(LIBCP) $(LDFLAGS_ALL) $(PKG_LIBS) -lbpf -lm

# A fresh machine has no pkg-config data until deps ran: build in a second
# make, which reads the flags anew. The Windows suite's toolchain, Wine and
# libraries after the machine's own packages (one apt at a time); its
# tests are the same under SAN=1 (no sanitizers in the Windows build).
test: deps
	@$(MAKE) --no-print-directory windows-test-deps
	@$(MAKE) --no-print-directory test-run

test-run: all $(UNIT_BIN) $(FUZZ_BIN) $(HELPER_BIN) $(BUILD)/helpers/worker-static \
		$(BUILD)/tests/cpupolicyd-minbtf \
		windows-units windows-programs windows-msi
	@BUILD=$(BUILD) WIN_BUILD=$(WIN_BUILD) FUZZ_SECONDS=$(TEST_FUZZ_SECONDS) \
		tests/run-tests.sh

# The daily loop: what make test runs first, without its deps (no apt),
# Wine or root. Unit tests that need root skip, saying so.
check: all $(UNIT_BIN)
	@BUILD=$(BUILD) tests/run-tests.sh unit style

# The package as a machine runs it: the .deb of the committed tree in a
# Debian 12 container under its own systemd (tests/systemd/run.sh; root).
test-systemd: deps
	@tests/systemd/run.sh

# The soak of tests/integration/soak.sh, for longer (root); its figures
# go to docs/soak.md (tests/soak/report.sh).
soak: deps
	@$(MAKE) --no-print-directory all $(HELPER_BIN)
	@BUILD=$(BUILD) SOAK_SECONDS=$(SOAK_SECONDS) SOAK_DOC=docs/soak.md \
		SOAK_COMMAND="make soak SOAK_SECONDS=$(SOAK_SECONDS)" \
		bash tests/integration/soak.sh

# The daemon in the foreground on the tree's config and rules, one log line
# per decision; Ctrl-C stops it. It runs on root's own copies of them in a
# temporary directory: it obeys no file others may write, and a checkout
# may be anybody's.
run: deps
	@$(MAKE) --no-print-directory all
	$(BUILD)/cpupolicyctl check --strict rules
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT INT TERM && \
		cp -r conf rules "$$dir"/ && chmod -R go-w "$$dir" && \
		$(BUILD)/cpupolicyd -c "$$dir"/conf/cpupolicyd.conf -r "$$dir"/rules

fuzz: deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do \
		BUILD=$(BUILD) tests/fuzz/run-fuzz.sh $$f $(FUZZ_SECONDS) || exit 1; \
	done

# Writes docs/benchmarks.md (tests/bench/report.sh): every table of it
# from this run, each figure the median of its runs with their min-max;
# the exec rows BENCH_RUNS runs of BENCH_STARTS probe starts each, the
# rule loading BENCH_RULES_RUNS runs, the Windows rows (windows.mk) under
# Wine, the restraint rows BENCH_RESTRAINT_RUNS runs of
# BENCH_RESTRAINT_SECONDS each. About eighteen minutes in all on 2 CPUs.
BENCH_AND := $(BUILD)/bench/and/usr/sbin/and
BENCH_COMMAND = make bench BENCH_RUNS=$(BENCH_RUNS) \
	BENCH_STARTS=$(BENCH_STARTS) BENCH_RULES_RUNS=$(BENCH_RULES_RUNS) \
	BENCH_COMPARE_STARTS=$(BENCH_COMPARE_STARTS) \
	BENCH_RESTRAINT_RUNS=$(BENCH_RESTRAINT_RUNS) \
	BENCH_RESTRAINT_SECONDS=$(BENCH_RESTRAINT_SECONDS) \
	WIN_BENCH_STARTS=$(WIN_BENCH_STARTS) WIN_BENCH_POLLS='$(WIN_BENCH_POLLS)'
bench: deps
	@$(MAKE) --no-print-directory all $(BUILD)/bench/bench_rules \
		$(BUILD)/bench/bench_import \
		$(BUILD)/bench/bench_exec $(BUILD)/bench/bench_restraint \
		$(BUILD)/helpers/worker \
		$(BUILD)/helpers/worker-static windows-programs
	@$(MAKE) --no-print-directory bench-and
	@BUILD=$(BUILD) WIN_BUILD=$(WIN_BUILD) BENCH_RUNS=$(BENCH_RUNS) \
		BENCH_STARTS=$(BENCH_STARTS) \
		BENCH_RULES_RUNS=$(BENCH_RULES_RUNS) \
		BENCH_COMPARE_STARTS=$(BENCH_COMPARE_STARTS) \
		BENCH_RESTRAINT_RUNS=$(BENCH_RESTRAINT_RUNS) \
		BENCH_RESTRAINT_SECONDS=$(BENCH_RESTRAINT_SECONDS) \
		WIN_BENCH_STARTS=$(WIN_BENCH_STARTS) \
		WIN_BENCH_POLLS='$(WIN_BENCH_POLLS)' \
		ANANICY_SAMPLE=$(ANANICY_SAMPLE) \
		AND=$$([ -x $(BENCH_AND) ] && echo $(BENCH_AND)) \
		BENCH_COMMAND="$(BENCH_COMMAND)" \
		tests/bench/report.sh docs/benchmarks.md

# The comparison's poller, Debian's and: its package unpacked under the
# build directory, never installed (its service would start at once and
# renice the machine's processes). Without it the comparison says it was
# not measured.
.PHONY: bench-and
bench-and:
	@[ -x $(BENCH_AND) ] || { \
		rm -rf $(BUILD)/bench/and && mkdir -p $(BUILD)/bench/and && \
		(cd $(BUILD)/bench/and && timeout 300 apt-get download -q \
			-o APT::Sandbox::User=root and) && \
		dpkg-deb -x $(BUILD)/bench/and/and_*.deb $(BUILD)/bench/and; \
	} || echo "bench: Debian's and could not be fetched: no comparison"

FORMAT_SRC = $(wildcard lib/*.[ch] lib/*/*.[ch] ctl/*.[ch] ctl/*/*.[ch] \
	policyd/*.[ch] policyd/*/*.[ch] tests/*/*.[ch] tests/unit/*/*.[ch])
format:
	clang-format -i $(FORMAT_SRC)

format-check:
	clang-format --dry-run --Werror $(FORMAT_SRC)

# The config names the vendor rules directory: it follows DATADIR. The
# timer of the scheduled saturation check is installed, not enabled. The
# README and the guides of docs/ go to DOCDIR as they sit in the tree, so
# that the README's links into docs/ hold; HACKING.md is for the source's
# maintainers and stays with the source.
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(SYSCONFDIR)/cpupolicy/rules.d \
		$(DESTDIR)$(DATADIR)/cpupolicy/rules.d \
		$(DESTDIR)$(DATADIR)/cpupolicy/prometheus \
		$(DESTDIR)$(DATADIR)/cpupolicy/grafana \
		$(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR)/docs \
		$(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(UNITDIR) \
		$(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(COMPLETIONDIR) \
		$(DESTDIR)$(DBUSDIR) $(DESTDIR)$(USERUNITDIR) \
		$(DESTDIR)$(AUTOSTARTDIR)
	install -m 0755 $(BUILD)/cpupolicyd $(DESTDIR)$(SBINDIR)/cpupolicyd
	install -m 0755 $(BUILD)/cpupolicyctl $(DESTDIR)$(BINDIR)/cpupolicyctl
	sed 's|/usr/share/cpupolicy/rules.d|$(DATADIR)/cpupolicy/rules.d|; s|/etc/cpupolicy/rules.d|$(SYSCONFDIR)/cpupolicy/rules.d|' \
		conf/cpupolicyd.conf >$(DESTDIR)$(SYSCONFDIR)/cpupolicy/cpupolicyd.conf
	chmod 0644 $(DESTDIR)$(SYSCONFDIR)/cpupolicy/cpupolicyd.conf
	install -m 0644 rules/*.rules $(DESTDIR)$(DATADIR)/cpupolicy/rules.d/
	install -m 0644 rules/examples/*.rules $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 README.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 docs/*.md $(DESTDIR)$(DOCDIR)/docs/
	install -m 0644 rules/cpupolicy.rules.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 0644 ctl/cpupolicyctl.8 policyd/cpupolicyd.8 \
		$(DESTDIR)$(MANDIR)/man8/
	sed 's|@SBINDIR@|$(SBINDIR)|g; s|@BINDIR@|$(BINDIR)|g' \
		packaging/systemd/cpupolicyd.service.in \
		>$(DESTDIR)$(UNITDIR)/cpupolicyd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/cpupolicyd.service
	install -m 0644 packaging/systemd/cpupolicyd.socket $(DESTDIR)$(UNITDIR)/
	sed 's|@BINDIR@|$(BINDIR)|g' packaging/systemd/cpupolicy-saturate.service.in \
		>$(DESTDIR)$(UNITDIR)/cpupolicy-saturate.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/cpupolicy-saturate.service
	install -m 0644 packaging/systemd/cpupolicy-saturate.timer \
		$(DESTDIR)$(UNITDIR)/
	install -m 0644 packaging/prometheus/cpupolicy.rules.yml \
		$(DESTDIR)$(DATADIR)/cpupolicy/prometheus/
	install -m 0644 packaging/grafana/cpupolicy.json \
		$(DESTDIR)$(DATADIR)/cpupolicy/grafana/
	install -m 0644 packaging/systemd/cpupolicy.tmpfiles \
		$(DESTDIR)$(TMPFILESDIR)/cpupolicy.conf
	install -m 0644 packaging/bash-completion/cpupolicyctl \
		$(DESTDIR)$(COMPLETIONDIR)/cpupolicyctl
	install -m 0644 packaging/dbus/com.system76.Scheduler.conf \
		$(DESTDIR)$(DBUSDIR)/
	sed 's|@BINDIR@|$(BINDIR)|g' packaging/systemd/cpupolicy-agent.service.in \
		>$(DESTDIR)$(USERUNITDIR)/cpupolicy-agent.service
	sed 's|@BINDIR@|$(BINDIR)|g' packaging/xdg/cpupolicy-agent.desktop.in \
		>$(DESTDIR)$(AUTOSTARTDIR)/cpupolicy-agent.desktop
	chmod 0644 $(DESTDIR)$(USERUNITDIR)/cpupolicy-agent.service \
		$(DESTDIR)$(AUTOSTARTDIR)/cpupolicy-agent.desktop

# Packages, built from the committed tree: packaging/debian becomes the
# source's debian/ in a copy under build/.
PKG_TREE := $(BUILD)/pkg/cpupolicy-$(VERSION)
deb:
	rm -rf $(BUILD)/pkg && mkdir -p $(PKG_TREE)
	git archive HEAD | tar -x -C $(PKG_TREE)
	cp -r packaging/debian $(PKG_TREE)/debian
	cd $(PKG_TREE) && dpkg-buildpackage -us -uc -b
	@ls $(BUILD)/pkg/*.deb

rpm:
	rm -rf $(BUILD)/rpm && mkdir -p $(BUILD)/rpm/SOURCES
	git archive --prefix=cpupolicy-$(VERSION)/ -o \
		$(BUILD)/rpm/SOURCES/cpupolicy-$(VERSION).tar.gz HEAD
	rpmbuild -bb --nodeps --define "_topdir $(abspath $(BUILD)/rpm)" \
		packaging/rpm/cpupolicy.spec
	@find $(BUILD)/rpm/RPMS -name '*.rpm'

clean:
	rm -rf build build-san

include windows.mk
