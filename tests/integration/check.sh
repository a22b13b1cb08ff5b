#!/bin/bash
# cpupolicyctl check and cpupolicyd -n, as a person runs them: exit
# statuses, every problem of every file in one run, the summary lines.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/good" "$TMP/bad" "$TMP/etc"
cat >"$TMP/good/10-a.rules" <<'R'
version = 1;
rules = ( { name = "a"; match = { exe = "/usr/bin/a"; }; priority = { nice = 5; }; } );
R
cat >"$TMP/good/20-b.rules" <<'R'
rules = (
  { name = "b"; match = { exe = "/usr/bin/b"; user = "no-such-user-x"; };
    priority = { nice = 5; }; }
);
R
cat >"$TMP/bad/10-x.rules" <<'R'
rules = (
  { name = "x"; match = { exe = "bin/x"; };
    priority = { nice = 99; }; }
);
R
cat >"$TMP/bad/20-y.rules" <<'R'
rules = (
  { name = "x"; match = { name = "game"; };
    priority = { class = "high"; };
  },
R

run "$CTL" check "$TMP/good/10-a.rules"
expect_status "valid file: exit 0" 0 &&
	expect_contains "valid file: summary" "$out" "1 rules in 1 files: OK" &&
	ok "valid file: exit 0 and summary"

run "$CTL" check "$TMP/good"
expect_status "warning only: exit 0" 0 &&
	expect_contains "warning printed" "$err" "20-b.rules:2: warning: match.user: unknown user 'no-such-user-x'" &&
	expect_contains "warning only: summary" "$out" "2 rules in 2 files: OK" &&
	ok "warnings allowed without --strict"

run "$CTL" check --strict "$TMP/good"
expect_status "--strict fails on a warning" 1 &&
	expect_not_contains "--strict: no OK line" "$out" "OK" &&
	ok "--strict turns warnings into failure"

run "$CTL" check --quiet "$TMP/good"
expect_status "--quiet exit" 0 &&
	[ -z "$out$err" ] && ok "--quiet prints nothing when valid" ||
	not_ok "--quiet prints nothing when valid" "stdout: $out stderr: $err"

run "$CTL" check "$TMP/bad" "$TMP/good"
expect_status "invalid: exit 1" 1 &&
	expect_contains "all errors: relative exe" "$err" "$TMP/bad/10-x.rules:2: error: match.exe: 'bin/x' is not an absolute path" &&
	expect_contains "all errors: range" "$err" "$TMP/bad/10-x.rules:3: error: priority.nice: 99 is out of range (-20..19)" &&
	expect_contains "all errors: second file" "$err" "$TMP/bad/20-y.rules:5: error: syntax error" &&
	expect_contains "all errors: warning of a third" "$err" "20-b.rules:2: warning:" &&
	ok "every error of every file in one run, with lines"

cat >"$TMP/bad/20-y.rules" <<'R'
rules = (
  { name = "x"; match = { name = "game"; };
    priority = { class = "high"; }; }
);
R
run "$CTL" check "$TMP/bad"
expect_status "cross-file: exit 1" 1 &&
	expect_contains "duplicate name across files" "$err" "20-y.rules:2: error: duplicate rule name 'x' (first defined at $TMP/bad/10-x.rules:2)" &&
	expect_contains "spoofable raise" "$err" "20-y.rules:2: error: rule 'x' raises priority or power but matches only on name" &&
	expect_contains "failure summary" "$err" "4 errors, 0 warnings" &&
	ok "duplicate names across files and spoofable raises"

run "$CTL" check "$TMP/nonexistent.rules"
expect_status "missing file: exit 2" 2 &&
	expect_contains "missing file message" "$err" "$TMP/nonexistent.rules: error: No such file or directory" &&
	ok "a missing path is an I/O error (exit 2)"

chmod 000 "$TMP/good/10-a.rules"
# Root reads everything: as root, without the capabilities that let it.
as_reader=()
[ "$(id -u)" -eq 0 ] &&
	as_reader=(setpriv --bounding-set=-dac_override,-dac_read_search --)
run "${as_reader[@]}" "$CTL" check "$TMP/good"
expect_status "unreadable: exit 2" 2 &&
	expect_contains "unreadable: message" "$err" "10-a.rules: error: cannot read: Permission denied" &&
	ok "an unreadable file is an I/O error (exit 2)"
chmod 644 "$TMP/good/10-a.rules"

mkdir -p "$TMP/other"
sed 's/name = "a"/name = "other-a"/; s|/usr/bin/a|/usr/bin/oa|' "$TMP/good/10-a.rules" >"$TMP/other/10-a.rules"
run "$CTL" check "$TMP/good/10-a.rules" "$TMP/other" --strict --print
expect_status "named file kept: exit 0" 0 &&
	expect_contains "named file kept: its rule" "$out" "rule a ($TMP/good/10-a.rules:2)" &&
	expect_contains "named file kept: the directory's rule" "$out" "rule other-a ($TMP/other/10-a.rules:2)" &&
	expect_contains "named file kept: both files" "$out" "2 rules in 2 files: OK" &&
	ok "a named file is read even beside a same-named file of a directory; options may follow paths"

run "$CTL" check --strict --quiet "$TMP/good"
expect_status "--strict --quiet" 1 &&
	expect_contains "--strict --quiet shows the failing warning" "$err" "warning: match.user" &&
	ok "--strict --quiet still shows the warnings that fail it"

run "$CTL" check --frobnicate
expect_status "bad option: exit 2" 2 &&
	expect_contains "usage shown" "$err" "usage: cpupolicyctl check" &&
	ok "an unknown option is a usage error (exit 2)"

run "$CTL" frobnicate
expect_status "bad command: exit 2" 2 &&
	expect_contains "unknown command named" "$err" "unknown command 'frobnicate'" &&
	ok "an unknown command is a usage error (exit 2)"

# Without PATH, check reads the directories the config names; /etc's file
# of the same name replaces the vendor's.
cp "$TMP/good/10-a.rules" "$TMP/etc/20-b.rules"
sed -i 's/name = "a"/name = "b-local"/; s|/usr/bin/a|/usr/bin/b|' "$TMP/etc/20-b.rules"
cat >"$TMP/c.conf" <<C
[daemon]
rules_dirs = $TMP/good:$TMP/etc:$TMP/absent
C
run "$CTL" -c "$TMP/c.conf" check --strict --print
expect_status "config dirs: exit 0" 0 &&
	expect_contains "config dirs: override" "$out" "rule b-local ($TMP/etc/20-b.rules:2)" &&
	expect_not_contains "config dirs: vendor replaced" "$out" "no-such-user-x" &&
	expect_contains "config dirs: summary" "$out" "2 rules in 2 files: OK" &&
	ok "no PATH: the config's rules_dirs, later directories override"

run "$CTL" -c "$TMP/missing.conf" check
expect_status "missing -c file: exit 2" 2 && ok "a missing -c config is an I/O error"

run "$CTL" check --strict "$SRCDIR/rules"
expect_status "shipped rules strict" 0 && ok "shipped rules pass check --strict"

# Files others may write are not obeyed: as the daemon would load them
# (no PATH, or the configured directories), a rule file of mode 0666 is
# refused like a syntax error, with the fix; a draft named elsewhere is
# judged by its content alone.
chmod 0666 "$TMP/etc/20-b.rules"
run "$CTL" -c "$TMP/c.conf" check
expect_status "writable rule file: exit 1" 1 &&
	expect_contains "writable rule file: named, with the fix" "$err" \
		"$TMP/etc/20-b.rules: error: writable by group root and others (fix: chmod go-w $TMP/etc/20-b.rules)" &&
	expect_contains "writable rule file: counted" "$err" "1 error, " &&
	ok "check: a configured rule file others may write is refused, with the fix"
run "$CTL" -c "$TMP/c.conf" check "$TMP/etc"
expect_status "writable rule file, its directory named" 1 &&
	expect_contains "writable rule file, its directory named: why" "$err" "$TMP/etc/20-b.rules: error: writable by" &&
	ok "check DIR: a configured directory named on the command line is judged as well"
cp "$TMP/etc/20-b.rules" "$TMP/draft.rules"
chmod 0666 "$TMP/draft.rules"
run "$CTL" -c "$TMP/c.conf" check "$TMP/draft.rules"
expect_status "a draft elsewhere" 0 &&
	expect_contains "a draft elsewhere: checked" "$out" "1 rules in 1 files: OK" &&
	ok "check FILE: a draft outside the configured directories is not judged by its mode"
chmod 0644 "$TMP/etc/20-b.rules"
chmod 0775 "$TMP/etc"
run "$CTL" -c "$TMP/c.conf" check
expect_status "writable rules directory" 1 &&
	expect_contains "writable rules directory: why" "$err" "$TMP/etc: error: writable by group root (fix: chmod go-w $TMP/etc)" &&
	ok "check: a configured directory its group may write is refused"
chmod 0755 "$TMP/etc"
chown nobody "$TMP/c.conf"
run "$CTL" -c "$TMP/c.conf" check
expect_status "config of another user" 1 &&
	expect_contains "config of another user: why" "$err" "$TMP/c.conf: error: owned by nobody, not root (fix: chown root $TMP/c.conf)" &&
	expect_not_contains "config of another user: no rules read" "$out$err" "rules in" &&
	ok "check: a config of another user is refused, and names no rules"
run "$DAEMON" -n -c "$TMP/c.conf"
expect_status "cpupolicyd -n on it" 1 &&
	expect_contains "cpupolicyd -n on it: why" "$err" "$TMP/c.conf: error: owned by nobody, not root" &&
	ok "cpupolicyd -n: the daemon does not start on a config of another user"
chown root "$TMP/c.conf"
mkdir -m 0777 "$TMP/open"
cp "$TMP/c.conf" "$TMP/open/c.conf"
run "$DAEMON" -n -c "$TMP/open/c.conf"
expect_status "config in a folder others may write" 1 &&
	expect_contains "config in a folder others may write: why" "$err" \
		"$TMP/open/c.conf: error: $TMP/open is writable by group root and others (fix: chmod go-w $TMP/open)" &&
	ok "cpupolicyd -n: nor on a config in a directory others may write"
run "$DAEMON" -n -c "$TMP/c.conf"
expect_status "the same config, fixed" 0 && ok "cpupolicyd -n: the same config once fixed starts"

# One file for both systems: --system checks it for the other one too.
mkdir -p "$TMP/fleet"
cat >"$TMP/fleet/50-fleet.rules" <<'R'
version = 1;
rules = (
  { name = "inference";
    match = { exe = "/opt/llm/bin/server"; user = "root"; };
    priority = { class = "high"; thread = "highest";
                 efficiency_mode = "off"; };
    placement = { cores = "performance"; spread = "group"; };
  },
  { name = "batch";
    match = { exe = "/usr/bin/xz"; cgroup = "/system.slice/backup.service"; };
    priority = { class = "idle"; };
  }
);
R
run "$CTL" check --system linux --print "$TMP/fleet"
expect_status "--system linux: exit 0" 0 &&
	expect_contains "--system linux: the Windows-only key warned of" "$err" "$TMP/fleet/50-fleet.rules:6: warning: priority.efficiency_mode applies on Windows only; on Linux it is ignored" &&
	expect_contains "--system linux: thread printed" "$out" "  priority.thread = highest" &&
	expect_contains "--system linux: efficiency_mode printed" "$out" "  priority.efficiency_mode = off" &&
	expect_contains "--system linux: spread group printed" "$out" "  placement.spread = group" &&
	expect_contains "--system linux: summary names it" "$out" "2 rules in 1 files: OK for linux" &&
	ok "check --system linux: warns of what Linux ignores, prints the new keys"

run "$CTL" check --strict --system linux "$TMP/fleet"
expect_status "--system linux --strict" 1 && ok "check --system linux --strict fails on that warning"

run "$CTL" check --system windows "$TMP/fleet"
expect_status "--system windows: exit 1" 1 &&
	expect_contains "--system windows: cgroup refused" "$err" "$TMP/fleet/50-fleet.rules:10: error: match.cgroup: Windows has no cgroups" &&
	expect_not_contains "--system windows: efficiency_mode applies" "$err" "efficiency_mode" &&
	expect_contains "--system windows: a Linux exe path warned of" "$err" "$TMP/fleet/50-fleet.rules:4: warning: match.exe: '/opt/llm/bin/server' is a Linux path: on Windows it never matches" &&
	expect_contains "--system windows: summary" "$err" "1 error, 2 warnings" &&
	ok "check --system windows: cgroup is refused, a Linux exe path warned of, efficiency_mode applies"

sed -i 's|cgroup = "/system.slice/backup.service"; |user = "backup"; |' "$TMP/fleet/50-fleet.rules"
run "$CTL" check --system=windows --quiet "$TMP/fleet"
expect_status "--system=windows without cgroup" 0 && [ -z "$err" ] &&
	ok "check --system=windows: the file passes once cgroup is gone" ||
	not_ok "check --system=windows: the file passes once cgroup is gone" "stderr: $err"

run "$CTL" check --system solaris "$TMP/fleet"
expect_status "--system unknown: exit 2" 2 &&
	expect_contains "--system unknown: named" "$err" "--system: 'solaris' is not valid (valid: linux, windows)" &&
	ok "check --system with an unknown system is a usage error (exit 2)"

# cpupolicyd -n: the shipped config and rules, as root's own copies
# (the daemon refuses what others may write, as a checkout may be).
mkdir "$TMP/shipped"
cp -r "$SRCDIR/conf" "$SRCDIR/rules" "$TMP/shipped/"
chmod -R go-w "$TMP/shipped"
run "$DAEMON" -n -c "$TMP/shipped/conf/cpupolicyd.conf" -r "$TMP/shipped/rules"
expect_status "cpupolicyd -n: exit 0" 0 &&
	expect_contains "configuration OK" "$out" "configuration OK" &&
	ok "cpupolicyd -n on the shipped config and rules"

cat >"$TMP/bad.conf" <<'C'
[daemon]
log_level = chatty
rescan_interval_ms = 10
[extra]
C
run "$DAEMON" -n -c "$TMP/bad.conf" -r "$TMP/shipped/rules"
expect_status "bad config: exit 1" 1 &&
	expect_contains "bad config: line 2" "$err" "$TMP/bad.conf:2: error: log_level: 'chatty' is not valid" &&
	expect_contains "bad config: line 3" "$err" "$TMP/bad.conf:3: error: rescan_interval_ms" &&
	expect_contains "bad config: line 4" "$err" "$TMP/bad.conf:4: error: unknown section [extra]" &&
	expect_not_contains "bad config: no OK" "$out" "OK" &&
	ok "cpupolicyd -n reports every config error with its line"

run "$DAEMON" -n -c "$TMP/shipped/conf/cpupolicyd.conf" -r "$TMP/bad"
expect_status "bad rules: exit 1" 1 &&
	expect_contains "cpupolicyd -n shows rule errors" "$err" "10-x.rules:3: error: priority.nice" &&
	ok "cpupolicyd -n reports rule errors"

run "$DAEMON" -n -c "$TMP/shipped/conf/cpupolicyd.conf" -r "$TMP/no-such-dir"
expect_status "cpupolicyd -r missing" 1 &&
	expect_contains "cpupolicyd -r missing: named" "$err" "$TMP/no-such-dir: error: No such file or directory" &&
	ok "cpupolicyd -n: a missing -r directory is an error"

# Paths beyond ASCII, as the Windows test has them (tests/windows/
# names.sh): a folder règles-ü with jeu-é.rules and 规则.rules, checked
# whole and by file, and loaded by the daemon from a config at such a
# path that names it.
mkdir -p "$TMP/règles-ü"
cp "$TMP/good/10-a.rules" "$TMP/règles-ü/jeu-é.rules"
cat >"$TMP/règles-ü/规则.rules" <<'R'
version = 1;
rules = ( { name = "cjk"; match = { exe = "/usr/bin/cjk"; }; priority = { nice = 5; }; } );
R
run "$CTL" check "$TMP/règles-ü"
expect_status "check règles-ü: exit 0" 0 &&
	expect_contains "check règles-ü: both files" "$out" "2 rules in 2 files: OK" &&
	ok "check of the folder règles-ü reads jeu-é.rules and 规则.rules"
run "$CTL" check --print "$TMP/règles-ü/规则.rules"
expect_status "check 规则.rules: exit 0" 0 &&
	expect_contains "check 规则.rules: its rule" "$out" "rule cjk ($TMP/règles-ü/规则.rules:2)" &&
	ok "check of 规则.rules by itself reads its rule"
printf '[daemon]\nrules_dirs = %s\n' "$TMP/règles-ü" >"$TMP/配置-é.conf"
run "$DAEMON" -n -c "$TMP/配置-é.conf"
expect_status "cpupolicyd -n -c 配置-é.conf: exit 0" 0 &&
	expect_contains "cpupolicyd -n -c 配置-é.conf: both files" "$out" \
		"configuration OK (2 rules in 2 files)" &&
	ok "cpupolicyd -n -c 配置-é.conf loads règles-ü from it"

# The rules the matcher's index cannot find are named, with the value
# that gives it nothing; those it finds are not, and --quiet names none.
cat >"$TMP/scanned.rules" <<'R'
rules = (
  { name = "found"; match = { exe = "/opt/vendor/*"; }; priority = { nice = 5; }; },
  { name = "middle"; match = { exe = "/*vendor*"; }; priority = { nice = 5; }; }
);
R
run "$CTL" check "$TMP/scanned.rules"
expect_status "check, a scanned rule: exit 0" 0 &&
	expect_contains "check names the scanned rule" "$out" \
		"rule middle ($TMP/scanned.rules:3): match.exe \"/*vendor*\" has no literal start past the root, and no literal end (basename or suffix): tried at every exec" &&
	expect_contains "check names the rule the exec filter cannot judge" "$out" \
		"rule middle ($TMP/scanned.rules:3): match.exe \"/*vendor*\" names no file, basename, literal start or end, or directory past the root: the exec filter sends every exec to the daemon" &&
	expect_not_contains "check leaves out the found one" "$out" "rule found" &&
	ok "check names the rules tried at every exec, and why"
run "$CTL" check --quiet "$TMP/scanned.rules"
expect_status "check --quiet, a scanned rule: exit 0" 0 &&
	expect_not_contains "check --quiet: no scanned rule" "$out" "rule middle" &&
	ok "check --quiet does not name the scanned rules"

run "$DAEMON" --bogus
expect_status "cpupolicyd bad option" 2 && ok "cpupolicyd: unknown option is a usage error"

finish
