#!/bin/bash
# The packages, as a fleet gets them: the .deb built with
# dpkg-buildpackage, lintian clean, installed on this machine with dpkg,
# its cpupolicyctl checking its rules and its cpupolicyd checking its
# config, its systemd units' exposure scores, the scheduled saturation
# check's timer installed but not enabled, the alerting rules in place,
# then purged without a trace; the .rpm built with rpmbuild.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" -ne 0 ] || ! command -v dpkg-buildpackage >/dev/null ||
	! git -C "$SRCDIR" rev-parse HEAD >/dev/null 2>&1; then
	skip_all "packages need root, dpkg-buildpackage and a git checkout"
fi
at_exit 'dpkg --purge cpupolicy >/dev/null 2>&1' 
cd "$SRCDIR" || exit 1
dpkg --purge cpupolicy >/dev/null 2>&1

run make -s deb BUILD="$TMP/build"
deb="$TMP/build/pkg/cpupolicy_0.1.0_$(dpkg --print-architecture).deb"
if [ "$status" -eq 0 ] && [ -f "$deb" ]; then
	ok "dpkg-buildpackage -us -uc -b builds the .deb"
else
	not_ok "deb build" "$(tail -n 20 <<<"$out$err")"
	finish
	exit 1
fi

if command -v lintian >/dev/null; then
	run lintian "$deb"
	tags=$(grep -E '^[EW]: ' <<<"$out$err")
	[ -z "$tags" ] && ok "lintian: no errors or warnings" ||
		not_ok "lintian" "$tags"
else
	skip "lintian" "not installed"
fi

dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' | grep -v '/$' \
	>"$TMP/files"
run dpkg -i "$deb"
expect_status "dpkg -i" 0 && ok "dpkg -i installs it"

run cpupolicyctl check --strict
expect_status "installed check" 0 &&
	expect_contains "installed check output" "$out" "4 rules in 3 files: OK" &&
	ok "the installed cpupolicyctl checks the installed rules (from the installed config)"
if [ -f /lib/systemd/system/cpupolicy-saturate.timer ] &&
	grep -q '^ExecStart=/usr/bin/cpupolicyctl saturate --if-idle 10 --textfile' \
		/lib/systemd/system/cpupolicy-saturate.service &&
	[ ! -e /etc/systemd/system/timers.target.wants/cpupolicy-saturate.timer ]; then
	ok "the scheduled saturation check: service and timer installed, the timer not enabled"
else
	not_ok "saturation timer" "$(ls -l /lib/systemd/system/cpupolicy-saturate.* /etc/systemd/system/timers.target.wants/ 2>&1)"
fi
if command -v promtool >/dev/null; then
	run promtool check rules /usr/share/cpupolicy/prometheus/cpupolicy.rules.yml
	expect_status "installed alerting rules" 0 &&
		ok "the installed alerting rules pass promtool check rules"
else
	skip "installed alerting rules" "promtool not installed"
fi
run /usr/sbin/cpupolicyd -n
expect_status "installed -n" 0 &&
	expect_contains "installed -n output" "$out" "configuration OK (4 rules in 3 files)" &&
	ok "the installed cpupolicyd -n accepts the installed config and rules"
run man -l /usr/share/man/man8/cpupolicyd.8.gz
[ "$status" -eq 0 ] && ok "the installed man pages render" ||
	not_ok "man pages" "$err"

if command -v systemd-analyze >/dev/null; then
	run systemd-analyze security --offline=yes /lib/systemd/system/cpupolicyd.service
	score=$(grep -o 'exposure level for cpupolicyd.service: [0-9.]*' <<<"$out" | awk '{ print $NF }')
	if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then
		ok "systemd-analyze security --offline=yes: exposure $score (at most 1.5)"
	else
		not_ok "unit exposure" "score '$score'; $(grep '✗' <<<"$out")"
	fi
	run systemd-analyze security --offline=yes /lib/systemd/system/cpupolicy-saturate.service
	score=$(grep -o 'exposure level for cpupolicy-saturate.service: [0-9.]*' <<<"$out" | awk '{ print $NF }')
	if [ -n "$score" ] && awk -v s="$score" 'BEGIN { exit !(s <= 1.5) }'; then
		ok "the saturation check's service: exposure $score (at most 1.5)"
	else
		not_ok "saturation service exposure" "score '$score'; $(grep '✗' <<<"$out")"
	fi
else
	skip "unit exposure" "systemd-analyze not installed"
	skip "saturation service exposure" "systemd-analyze not installed"
fi

# An administrator enables the timer (as systemctl enable would, offline):
# the purge must take that away too.
deb-systemd-helper enable cpupolicy-saturate.timer >/dev/null 2>&1
run dpkg --purge cpupolicy
left=""
while read -r f; do
	[ -e "$f" ] && left="$left $f"
done <"$TMP/files"
for d in /etc/cpupolicy /var/lib/cpupolicy /usr/share/cpupolicy \
	/usr/share/doc/cpupolicy /etc/systemd/system/multi-user.target.wants/cpupolicyd.service \
	/etc/systemd/system/sockets.target.wants/cpupolicyd.socket \
	/etc/systemd/system/timers.target.wants/cpupolicy-saturate.timer \
	/var/lib/systemd/deb-systemd-helper-enabled/cpupolicy-saturate.timer.dsh-also; do
	[ -e "$d" ] && left="$left $d"
done
if [ "$status" -eq 0 ] && [ -z "$left" ] && ! dpkg -s cpupolicy >/dev/null 2>&1; then
	ok "dpkg --purge leaves nothing behind"
else
	not_ok "purge" "left:$left"
fi

if command -v rpmbuild >/dev/null; then
	run make -s rpm BUILD="$TMP/build"
	rpm=$(find "$TMP/build/rpm/RPMS" -name 'cpupolicy-0.1.0-*.rpm' 2>/dev/null | head -n 1)
	if [ "$status" -eq 0 ] && [ -n "$rpm" ] &&
		rpm -qlp "$rpm" 2>/dev/null | grep -q '^/usr/sbin/cpupolicyd$'; then
		ok "rpmbuild -bb builds the .rpm, with the daemon in it"
	else
		not_ok "rpm build" "$(tail -n 20 <<<"$out$err")"
	fi
else
	skip "rpm" "rpmbuild not installed"
fi

finish
