# The Windows installer (included from windows.mk).
#
#   make msi        build-win/cpupolicy-$(VERSION)-x64.msi: both programs
#                   under %ProgramFiles%\cpupolicy\ (on PATH), the default
#                   config and the shipped rules under
#                   %ProgramData%\cpupolicy\, the service cpupolicyd
#                   registered and started (packaging/windows/cpupolicy.wxs)
#   make windows-msi   that, and the next version's for the upgrade test
#                   (make test builds it)
#
# wixl (msitools) builds it: it reads WiX 3 source and writes the .msi
# with no Windows and no .NET, which the WiX toolset itself needs. It
# implements a subset of WiX 3: what the .wxs uses is in that subset.

WIN_MSI := $(WIN_BUILD)/cpupolicy-$(VERSION)-x64.msi
# The upgrade tests/windows/msi.sh installs over it: the same files as
# the next patch version, in a folder of its own.
WIN_MSI_NEXT_VERSION := $(shell echo $(VERSION) | \
	awk -F. '{ printf "%d.%d.%d", $$1, $$2, $$3 + 1 }')
WIN_MSI_NEXT := $(WIN_BUILD)/msi-next/cpupolicy-$(WIN_MSI_NEXT_VERSION)-x64.msi
# Why: wixl is the only MSI compiler Debian ships.
WIN_MSI_DEB_PACKAGES := wixl msitools

.PHONY: msi windows-msi windows-msi-packages

# As make windows: the toolchain and libraries first, then the programs
# and the .msi in a make that sees them (a fresh clone has none).
msi: windows-deps windows-msi-packages
	@$(MAKE) --no-print-directory $(WIN_MSI)

windows-msi: $(WIN_MSI) $(WIN_MSI_NEXT)

windows-msi-packages:
	@$(call apt_install,$(WIN_MSI_DEB_PACKAGES))

# What wixl 0.101 does not implement, added to its .msi by msibuild
# (msitools) with the installer's own SQL: the folder on the machine's
# PATH (the Environment table: "=-*" set on install, removed on uninstall,
# system-wide; "[~];" appends to what is there), and the components'
# attributes (256: 64-bit; the config's 400 adds Permanent, 16, and
# NeverOverwrite, 128: an upgrade or uninstall never takes the
# administrator's config). And the old product's removal in a major
# upgrade where WiX puts it by default, right after InstallValidate: the
# old version goes (its service and Image File Execution Options values
# with it, by its own "cpupolicyd.exe --uninstall"), then the new one is
# installed; wixl 0.101 sequences it at a place Windows Installer does not
# allow (between InstallInitialize and InstallFinalize, after actions of
# the script).
WIN_MSI_SQL := \
	"CREATE TABLE \`Environment\` (\`Environment\` CHAR(72) NOT NULL, \`Name\` CHAR(255) NOT NULL LOCALIZABLE, \`Value\` CHAR(255) LOCALIZABLE, \`Component_\` CHAR(72) NOT NULL PRIMARY KEY \`Environment\`)" \
	"INSERT INTO \`Environment\` (\`Environment\`, \`Name\`, \`Value\`, \`Component_\`) VALUES ('Path', '=-*PATH', '[~];[INSTALLDIR]', 'Ctl')" \
	"INSERT INTO \`InstallExecuteSequence\` (\`Action\`, \`Sequence\`) VALUES ('RemoveEnvironmentStrings', 3300)" \
	"INSERT INTO \`InstallExecuteSequence\` (\`Action\`, \`Sequence\`) VALUES ('WriteEnvironmentStrings', 5200)" \
	"UPDATE \`InstallExecuteSequence\` SET \`Sequence\` = 1401 WHERE \`Action\` = 'RemoveExistingProducts'" \
	"UPDATE \`Component\` SET \`Attributes\` = 256" \
	"UPDATE \`Component\` SET \`Attributes\` = 400 WHERE \`Component\` = 'Config'"

# The staged files: the programs, and the config and rules with CR LF,
# as Notepad and every Windows editor expect.
$(WIN_MSI): WIN_MSI_VERSION := $(VERSION)
$(WIN_MSI): WIN_MSI_STAGE := $(WIN_BUILD)/msi
$(WIN_MSI_NEXT): WIN_MSI_VERSION := $(WIN_MSI_NEXT_VERSION)
$(WIN_MSI_NEXT): WIN_MSI_STAGE := $(WIN_BUILD)/msi-next/stage
$(WIN_MSI) $(WIN_MSI_NEXT): packaging/windows/cpupolicy.wxs packaging/windows/cpupolicyd.conf \
		packaging/windows/10-build.rules packaging/windows/msi.mk \
		$(wildcard rules/examples/windows-*.rules) \
		$(WIN_BUILD)/cpupolicyd.exe $(WIN_BUILD)/cpupolicyctl.exe \
		| windows-msi-packages
	@echo "  MSI     $@"
	$(Q)rm -rf $(WIN_MSI_STAGE) && mkdir -p $(WIN_MSI_STAGE)/examples $(dir $@)
	$(Q)cp $(WIN_BUILD)/cpupolicyd.exe $(WIN_BUILD)/cpupolicyctl.exe $(WIN_MSI_STAGE)/
	$(Q)for f in packaging/windows/cpupolicyd.conf packaging/windows/10-build.rules; do \
		sed 's/$$/\r/' $$f >$(WIN_MSI_STAGE)/$$(basename $$f) || exit 1; \
	done
	$(Q)for f in rules/examples/windows-*.rules; do \
		sed 's/$$/\r/' $$f >$(WIN_MSI_STAGE)/examples/$$(basename $$f) || exit 1; \
	done
	$(Q)wixl -a x64 -D Version=$(WIN_MSI_VERSION) -D Stage=$(WIN_MSI_STAGE) \
		-o $@.tmp packaging/windows/cpupolicy.wxs
	$(Q)for q in $(WIN_MSI_SQL); do msibuild $@.tmp -q "$$q" || exit 1; done
	$(Q)mv $@.tmp $@
