#!/bin/bash
# The Ansible role, as a fleet runs it, against this machine
# (ansible-playbook -c local -i localhost,): it installs the .deb, puts a
# rule file in place only when cpupolicyctl check accepts it, and reloads
# the running daemon through its handler. Skipped where ansible is absent.
. "$(dirname "$0")/lib.sh"

if ! command -v ansible-playbook >/dev/null; then
	skip_all "ansible-playbook is not installed: apt-get install ansible"
fi
# Windows hosts: no Windows here, so the play of a Windows host is
# checked for syntax (every module it names must resolve: the
# ansible.windows collection of Debian's ansible package).
cat >"$TMP/windows.yml" <<P
- hosts: windows
  gather_facts: true
  vars:
    cpupolicy_msi_file: $SRCDIR/build-win/cpupolicy-0.1.0-x64.msi
    cpupolicy_rule_files:
      - file: 50-fleet.rules
        rules:
          - name: fleet-encoder
            match: { exe: 'C:\\Program Files\\HandBrake\\HandBrakeCLI.exe' }
            priority: { class: above-normal, efficiency_mode: "off" }
  roles:
    - cpupolicy
P
run env ANSIBLE_ROLES_PATH="$SRCDIR/packaging/ansible/roles" \
	ANSIBLE_LOCAL_TEMP="$TMP/ansible-tmp" ANSIBLE_NOCOLOR=1 \
	ansible-playbook --syntax-check -i windows, "$TMP/windows.yml"
if [ "$status" -eq 0 ]; then
	ok "the role's play for a Windows host passes --syntax-check"
else
	not_ok "Windows play syntax" "$(tail -n 20 <<<"$out$err")"
fi
if [ "$(id -u)" -ne 0 ] || ! command -v dpkg-buildpackage >/dev/null; then
	skip_all "the role's test needs root and dpkg-buildpackage"
fi
# The role's file is the administrator's, not the package's: purge keeps
# it, so the test takes it away itself (after the daemon stopped).
at_exit 'dpkg --purge cpupolicy >/dev/null 2>&1'
at_exit 'rm -f /etc/cpupolicy/rules.d/50-fleet.rules'
at_exit '[ -n "$daemon_pid" ] && stop_daemon' 
cd "$SRCDIR" || exit 1
dpkg --purge cpupolicy >/dev/null 2>&1
make -s deb BUILD="$TMP/build" >"$TMP/deb.log" 2>&1 ||
	{ not_ok "deb for the role" "$(tail "$TMP/deb.log")"; finish; exit 1; }
deb=$(ls "$TMP"/build/pkg/cpupolicy_*.deb)
cp "$BUILD/helpers/worker" "$TMP/holder"

play() { # NICE
	cat >"$TMP/play.yml" <<P
- hosts: localhost
  gather_facts: true
  vars:
    cpupolicy_package_file: $deb
    cpupolicy_rule_files:
      - file: 50-fleet.rules
        rules:
          - name: fleet-holder
            match: { exe: $TMP/holder }
            priority: { nice: $1, policy: batch }
  roles:
    - cpupolicy
P
	ANSIBLE_ROLES_PATH="$SRCDIR/packaging/ansible/roles" \
		ANSIBLE_LOCAL_TEMP="$TMP/ansible-tmp" ANSIBLE_NOCOLOR=1 \
		ansible-playbook -c local -i localhost, "$TMP/play.yml"
}

run play 5
if [ "$status" -eq 0 ] && dpkg -s cpupolicy >/dev/null 2>&1 &&
	grep -q 'exe = "'"$TMP"'/holder"' /etc/cpupolicy/rules.d/50-fleet.rules &&
	cpupolicyctl check --strict >/dev/null; then
	ok "the role installs the package and a checked rule file"
else
	not_ok "first run" "$(tail -n 30 <<<"$out")"
fi

/usr/sbin/cpupolicyd >"$DAEMON_LOG" 2>&1 &
daemon_pid=$!
wait_until 10 cpupolicyctl status >/dev/null 2>&1 ||
	not_ok "the installed daemon" "$(cat "$DAEMON_LOG")"
start "$TMP/holder" -s 60
holder=$!
if ! wait_until 5 nice_is "$holder" 5; then
	not_ok "the installed daemon applies the role's rule" "nice $(nice_of "$holder")"
fi
# Others may write the rules directory (as an upgrade may find it): the
# play gives it back to root alone, and its check of the whole set passes.
chmod o+w /etc/cpupolicy/rules.d
mark=$(log_mark)
run play 6
if [ "$status" -eq 0 ] && [ "$(stat -c %a /etc/cpupolicy/rules.d)" = 755 ] &&
	/usr/sbin/cpupolicyd -n >/dev/null 2>&1; then
	ok "a rules directory others may write: the role makes it root's alone again, and the daemon accepts what it installs"
else
	not_ok "rules directory mode" "mode $(stat -c %a /etc/cpupolicy/rules.d); $(tail -n 20 <<<"$out")"
fi
if [ "$status" -eq 0 ] && grep -q "RUNNING HANDLER \[cpupolicy : Reload cpupolicyd without systemd\]" <<<"$out" &&
	wait_until 5 nice_is "$holder" 6 && log_since "$mark" | grep -q "rules reloaded"; then
	ok "a changed rule file: the handler reloads the running daemon, which applies it"
else
	not_ok "reload handler" "nice $(nice_of "$holder"); $(tail -n 20 <<<"$out")"
fi

run play 99
if [ "$status" -ne 0 ] && grep -q "priority.nice: 99 is out of range" <<<"$out" &&
	grep -q "nice = 6;" /etc/cpupolicy/rules.d/50-fleet.rules; then
	ok "a broken rule file fails validation and is not put in place"
else
	not_ok "validation" "exit $status; $(tail -n 20 <<<"$out")"
fi
finish
