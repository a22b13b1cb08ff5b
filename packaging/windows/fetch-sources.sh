#!/bin/bash
# Fetches and unpacks the Debian source packages the Windows build is made
# from, with an apt state of its own under the build directory: the
# machine's apt configuration is read for the mirror's address only, and
# its sources, lists and caches are left as they were (checked at the end).
#
#   fetch-sources.sh BUILD_DIR PACKAGE=VERSION...
#
# Each PACKAGE=VERSION is unpacked, with Debian's patches applied, into
# BUILD_DIR/src/PACKAGE-VERSION; the files apt fetched stay in
# BUILD_DIR/src/dl (a second run does not download them again). The versions
# are looked up in bookworm and trixie.
set -eu
[ $# -ge 2 ] || {
	echo "usage: $0 BUILD_DIR PACKAGE=VERSION..." >&2
	exit 2
}
build=$(mkdir -p "$1" && cd "$1" && pwd)
shift
apt=$build/apt
src=$build/src
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
suites="bookworm trixie"

die() {
	echo "fetch-sources: $*" >&2
	exit 1
}

# The Debian mirror this machine installs from: the URIs of the deb822
# stanza (sources.list.d/*.sources) or the one-line entry (sources.list,
# sources.list.d/*.list) for bookworm itself, not its -updates or -security.
mirror_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = ""; enabled = "yes"
			for (i = 1; i <= NF; i++) {
				line = $i
				if (line ~ /^#/)
					continue
				key = tolower(line); sub(/:.*/, "", key)
				sub(/^[^:]*:[ \t]*/, "", line)
				if (key == "types") types = " " line " "
				else if (key == "uris") uris = line
				else if (key == "suites") suites = " " line " "
				else if (key == "enabled") enabled = tolower(line)
			}
			if (enabled != "no" && types ~ / deb / &&
			    suites ~ / bookworm / && uris != "") {
				split(uris, u, /[ \t]+/)
				print u[1]
				exit
			}
		}' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) {
				while (i < NF && $i !~ /\]$/)
					i++
				i++
			}
			if ($(i + 1) == "bookworm") {
				print $i
				exit
			}
		}'
}

# What must not move: the machine's apt configuration, lists, caches and
# logs, each file by checksum and each entry by size, mode and time.
machine_apt_state() {
	local d
	for d in /etc/apt /var/lib/apt /var/cache/apt /var/log/apt; do
		[ -e "$d" ] || continue
		find "$d" -printf '%p %y %s %m %T@\n'
		find "$d" -type f -readable -exec sha256sum {} +
	done | LC_ALL=C sort
}

mirror=$(mirror_uri | head -n 1)
case $mirror in
http://* | https://*) ;;
*) die "no Debian mirror for bookworm in /etc/apt (found '${mirror}')" ;;
esac
[ -r "$keyring" ] || die "$keyring missing: install debian-archive-keyring"

mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/log" \
	"$src/dl"
machine_apt_state >"$apt/machine-before.txt"

# Source indexes only, each suite's Release checked against the archive
# keyring (trixie's keys are in bookworm's debian-archive-keyring).
: >"$apt/sources.list"
for s in $suites; do
	echo "deb-src [signed-by=$keyring] $mirror $s main" >>"$apt/sources.list"
done

# Read after the machine's apt.conf.d: drops its update hooks, which would
# act on the machine's own state (its AppStream cache, PackageKit).
cat >"$apt/apt.conf" <<'EOF'
#clear APT::Update::Pre-Invoke;
#clear APT::Update::Post-Invoke;
#clear APT::Update::Post-Invoke-Success;
EOF

# The downloads run as root: the private directories live in the build
# tree, which apt's unprivileged _apt user may be unable to reach (a home
# or root directory of mode 0700).
aptopts=(-c "$apt/apt.conf"
	-o "Dir::Etc::SourceList=$apt/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$apt/lists"
	-o "Dir::Cache=$apt/cache"
	-o "Dir::Log=$apt/log"
	-o APT::Sandbox::User=root
	-o Acquire::Languages=none)

echo "fetch-sources: deb-src $mirror ($suites), state in $apt"
echo "+ apt-get ${aptopts[*]} update --error-on=any"
apt-get "${aptopts[@]}" -q update --error-on=any ||
	die "apt-get update of the private source list failed"
for s in $suites; do
	f=("$apt"/lists/*_dists_"${s}"_InRelease)
	[ -f "${f[0]}" ] || die "no signed Release for $s"
	gpgv --keyring "$keyring" "${f[0]}" 2>&1 |
		sed -n "s/^gpgv: Good signature from /fetch-sources: $s Release signed by /p"
done

cd "$src/dl"
for pv in "$@"; do
	pkg=${pv%%=*}
	ver=${pv#*=}
	if [ "$pkg" = "$pv" ] || [ -z "$ver" ]; then
		die "not PACKAGE=VERSION: $pv"
	fi
	echo "+ apt-get ${aptopts[*]} --download-only source $pkg=$ver"
	apt-get "${aptopts[@]}" -q --download-only source "$pkg=$ver" ||
		die "cannot fetch source package $pkg $ver"
	dir=$src/$pkg-$ver
	rm -rf "$dir"
	# apt checked each file against the signed Sources index already;
	# the maintainer's own signature on the .dsc cannot be checked here
	# (no debian-keyring), which dpkg-source says on every unpack.
	dsc=${pkg}_${ver#*:}.dsc
	if ! dpkg-source -x "$dsc" "$dir" >"$pkg.unpack.log" 2>&1; then
		cat "$pkg.unpack.log" >&2
		die "cannot unpack $dsc"
	fi
	echo "fetch-sources: $pkg $ver in $dir"
done

machine_apt_state >"$apt/machine-after.txt"
if ! cmp -s "$apt/machine-before.txt" "$apt/machine-after.txt"; then
	diff "$apt/machine-before.txt" "$apt/machine-after.txt" >&2 || true
	die "the machine's apt state changed during the fetch (see above)"
fi
echo "fetch-sources: machine's apt state unchanged" \
	"($(wc -l <"$apt/machine-after.txt") entries of /etc/apt, /var/lib/apt," \
	"/var/cache/apt, /var/log/apt compared)"
