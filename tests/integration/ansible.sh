#!/bin/bash
# The Ansible role, as a fleet runs it, against this machine
# (ansible-playbook -c local -i localhost,): it installs the .deb, puts a
# rule file in place only when cpupolicyctl check accepts it, and reloads
# the running daemon through its handler. Skipped where ansible is absent.
. "$(dirname "$0")/lib.sh"

if ! command -v ansible-playbook >/dev/null; then
	ok "ansible role (ansible-playbook is not installed: apt-get install ansible-core) # SKIP"
	finish
	exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v dpkg-buildpackage >/dev/null; then
	ok "ansible role (needs root and dpkg-buildpackage) # SKIP"
	finish
	exit 0
fi
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill -TERM "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	[ -n "${holder:-}" ] && kill -KILL "$holder" 2>/dev/null
	# The role's file is the administrator's, not the package's: purge
	# keeps it, so the test takes it away itself.
	rm -f /etc/cpupolicy/rules.d/50-fleet.rules
	dpkg --purge cpupolicy >/dev/null 2>&1
	rm -rf "$TMP"
}
trap cleanup EXIT
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

/usr/sbin/cpupolicyd >"$TMP/daemon.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do cpupolicyctl status >/dev/null 2>&1 && break; sleep 0.05; done
"$TMP/holder" -s 30 &
holder=$!
sleep 0.5
run play 6
nice_now() { awk '{ sub(/.*\) /, ""); print $17 }' /proc/"$holder"/stat; }
for _ in $(seq 40); do [ "$(nice_now)" = 6 ] && break; sleep 0.05; done
if [ "$status" -eq 0 ] && grep -q "RUNNING HANDLER \[cpupolicy : Reload cpupolicyd without systemd\]" <<<"$out" &&
	grep -q "rules reloaded" "$TMP/daemon.log" && [ "$(nice_now)" = 6 ]; then
	ok "a changed rule file: the handler reloads the running daemon, which applies it"
else
	not_ok "reload handler" "nice $(nice_now); $(tail -n 20 <<<"$out")"
fi

run play 99
if [ "$status" -ne 0 ] && grep -q "priority.nice: 99 is out of range" <<<"$out" &&
	grep -q "nice = 6;" /etc/cpupolicy/rules.d/50-fleet.rules; then
	ok "a broken rule file fails validation and is not put in place"
else
	not_ok "validation" "exit $status; $(tail -n 20 <<<"$out")"
fi
finish
