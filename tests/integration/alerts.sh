#!/bin/bash
# The Prometheus alerting rules of the saturation check
# (packaging/prometheus/cpupolicy.rules.yml): promtool accepts them, their
# unit tests (tests/data/prometheus) fire each alert when it should and
# not before, and every series they use is one the check writes; the
# scheduled check's units verify.
. "$(dirname "$0")/lib.sh"

RULES_YML="$SRCDIR/packaging/prometheus/cpupolicy.rules.yml"
if ! command -v promtool >/dev/null; then
	skip "promtool check rules" "Debian's prometheus package is not installed"
	skip "promtool test rules" "Debian's prometheus package is not installed"
else
	run promtool check rules "$RULES_YML"
	expect_status "promtool check rules" 0 &&
		expect_contains "rules found" "$out" "SUCCESS: 3 rules found" &&
		ok "promtool check rules: the 3 alerting rules are valid"
	run sh -c "cd '$SRCDIR/tests/data/prometheus' && promtool test rules cpupolicy.rules.test.yml"
	expect_status "promtool test rules" 0 &&
		ok "promtool test rules: a failed check, a finding that persists, a stale check alert when they should, and not before"
fi

# The series the rules use, in what a check writes.
write_conf
"$CTL" -c "$CONF" saturate --seconds 0.5 --threads 1 --if-idle 100 \
	--textfile "$TMP/check.prom" >/dev/null
missing=
for name in $(grep -o 'cpupolicy_[a-z_]*' "$RULES_YML" | sort -u); do
	grep -q "^$name[{ ]" "$TMP/check.prom" || missing="$missing $name"
done
[ -s "$TMP/check.prom" ] && [ -z "$missing" ] &&
	ok "every series the rules use is in the check's textfile" ||
	not_ok "series of the rules" "missing:$missing; $(cat "$TMP/check.prom" 2>&1)"

if command -v systemd-analyze >/dev/null; then
	mkdir -p "$TMP/units"
	sed "s|@BINDIR@|$BUILD|g" "$SRCDIR/packaging/systemd/cpupolicy-saturate.service.in" \
		>"$TMP/units/cpupolicy-saturate.service"
	cp "$SRCDIR/packaging/systemd/cpupolicy-saturate.timer" "$TMP/units/"
	run systemd-analyze verify --man=no "$TMP/units/cpupolicy-saturate.service" \
		"$TMP/units/cpupolicy-saturate.timer"
	[ "$status" -eq 0 ] && [ -z "$err" ] &&
		ok "systemd-analyze verify: the check's service and timer" ||
		not_ok "units verify" "$out $err"
else
	skip "units verify" "systemd-analyze not installed"
fi
finish
