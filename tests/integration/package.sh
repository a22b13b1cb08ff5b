#!/bin/bash
# The packages, as a fleet gets them: the .deb built with
# dpkg-buildpackage, lintian clean, installed on this machine with dpkg,
# its cpupolicyctl checking its rules and its cpupolicyd checking its
# config, its systemd units' exposure scores, the scheduled saturation
# check's timer installed but not enabled, the alerting rules and the
# Grafana dashboard in place, then purged without a trace; the .rpm built
# with rpmbuild, the dashboard in it.
. "$(dirname "$0")/lib.sh"

# make install, into a root whose /etc and /usr are as a machine's
# (root's, 0755), under a umask that lets the group write what it makes:
# the daemon, which obeys no file others may write, accepts all it puts
# in place.
if [ "$(id -u)" -eq 0 ]; then
	dest="$TMP/dest"
	(umask 022 && mkdir -p "$dest/etc" "$dest/usr/share" "$dest/usr/bin" \
		"$dest/usr/sbin" "$dest/usr/lib")
	run sh -c 'umask 0002 && cd "$1" && make -s install DESTDIR="$2" BUILD="$3"' \
		sh "$SRCDIR" "$dest" "$BUILD"
	if expect_status "make install" 0; then
		run "$BUILD/cpupolicyd" -n -c "$dest/etc/cpupolicy/cpupolicyd.conf" \
			-r "$dest/usr/share/cpupolicy/rules.d" -r "$dest/etc/cpupolicy/rules.d"
		expect_status "make install: checked by the daemon" 0 &&
			expect_contains "make install: configuration OK" "$out" "configuration OK" &&
			ok "make install under umask 0002: the daemon accepts the config and rule directories it installs"
		cmp -s "$SRCDIR/packaging/grafana/cpupolicy.json" \
			"$dest/usr/share/cpupolicy/grafana/cpupolicy.json" &&
			ok "make install puts the Grafana dashboard in DATADIR/cpupolicy/grafana" ||
			not_ok "make install: dashboard" "$(ls -lR "$dest/usr/share/cpupolicy" 2>&1)"
	fi
else
	skip "make install" "needs root, to install root's files"
fi

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
jq -e '.panels | length > 0' /usr/share/cpupolicy/grafana/cpupolicy.json >/dev/null 2>&1 &&
	ok "the Grafana dashboard installed beside them" ||
	not_ok "installed dashboard" "$(ls -l /usr/share/cpupolicy/grafana 2>&1)"
run /usr/sbin/cpupolicyd -n
expect_status "installed -n" 0 &&
	expect_contains "installed -n output" "$out" "configuration OK (4 rules in 3 files)" &&
	ok "the installed cpupolicyd -n accepts the installed config and rules (owners and modes too)"

# An upgrade over an /etc/cpupolicy others may write (dpkg leaves an
# existing directory's mode as it is): the postinst says so, and the fix.
chmod o+w /etc/cpupolicy
run dpkg -i "$deb"
chmod o-w /etc/cpupolicy
expect_status "upgrade over a writable /etc/cpupolicy" 0 &&
	expect_contains "upgrade: warned" "$err" "cpupolicy: warning: cpupolicyd will not start on this configuration:" &&
	expect_contains "upgrade: why, and the fix" "$err" \
		"/etc/cpupolicy/cpupolicyd.conf: error: /etc/cpupolicy is writable by others (fix: chmod go-w /etc/cpupolicy)" &&
	ok "an upgrade over an /etc/cpupolicy others may write says so, with the fix"
run dpkg -i "$deb"
expect_status "upgrade over a sound /etc/cpupolicy" 0 &&
	expect_not_contains "upgrade: no warning" "$err" "warning: cpupolicyd will not start" &&
	ok "an upgrade over a sound /etc/cpupolicy says nothing of it"
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

rpm_checks() { # RPM
	local root="$TMP/rpmroot" wrap="$TMP/rpm-cpupolicyd"
	# Into a root of its own whose /etc and /usr are as a machine's,
	# scripts aside: the daemon accepts what the package puts there.
	(umask 022 && mkdir -p "$root/etc" "$root/usr/share" "$root/usr/bin" \
		"$root/usr/sbin" "$root/usr/lib" "$root/var/lib")
	run rpm -i --root "$root" --nodeps --noscripts --nosignature "$1"
	expect_status "rpm -i --root" 0 || return
	[ -s "$root/usr/share/cpupolicy/grafana/cpupolicy.json" ] &&
		ok "the .rpm installs the Grafana dashboard" ||
		not_ok "the .rpm's dashboard" "$(rpm -qlp "$1" 2>&1 | grep cpupolicy/)"
	run "$BUILD/cpupolicyd" -n -c "$root/etc/cpupolicy/cpupolicyd.conf" \
		-r "$root/usr/share/cpupolicy/rules.d" -r "$root/etc/cpupolicy/rules.d"
	expect_status "the .rpm's files checked by the daemon" 0 &&
		expect_contains "the .rpm's files: configuration OK" "$out" "configuration OK" &&
		ok "the daemon accepts the config and rule directories the .rpm installs"
	# Its %post, as rpm runs it for an upgrade ($1 = 2), with the daemon
	# pointed at that root: it says what others may write, and the fix.
	printf '#!/bin/sh\nexec "%s" -c "%s" -r "%s" -r "%s" "$@"\n' "$BUILD/cpupolicyd" \
		"$root/etc/cpupolicy/cpupolicyd.conf" "$root/usr/share/cpupolicy/rules.d" \
		"$root/etc/cpupolicy/rules.d" >"$wrap"
	chmod 755 "$wrap"
	rpm -qp --qf '%{POSTIN}' "$1" 2>/dev/null |
		sed "s|/usr/sbin/cpupolicyd|$wrap|g" >"$TMP/post.sh"
	chmod o+w "$root/etc/cpupolicy/rules.d"
	run sh "$TMP/post.sh" 2
	expect_status "the .rpm's %post" 0 &&
		expect_contains "the .rpm's %post: warned" "$err" "cpupolicy: warning: cpupolicyd will not start on this configuration:" &&
		expect_contains "the .rpm's %post: why, and the fix" "$err" \
			"$root/etc/cpupolicy/rules.d: error: writable by others (fix: chmod go-w $root/etc/cpupolicy/rules.d)" &&
		ok "the .rpm's %post over an /etc/cpupolicy others may write says so, with the fix"
}

if command -v rpmbuild >/dev/null; then
	run make -s rpm BUILD="$TMP/build"
	rpm=$(find "$TMP/build/rpm/RPMS" -name 'cpupolicy-0.1.0-*.rpm' 2>/dev/null | head -n 1)
	if [ "$status" -eq 0 ] && [ -n "$rpm" ] &&
		rpm -qlp "$rpm" 2>/dev/null | grep -q '^/usr/sbin/cpupolicyd$'; then
		ok "rpmbuild -bb builds the .rpm, with the daemon in it"
		rpm_checks "$rpm"
	else
		not_ok "rpm build" "$(tail -n 20 <<<"$out$err")"
	fi
else
	skip "rpm" "rpmbuild not installed"
fi

finish
