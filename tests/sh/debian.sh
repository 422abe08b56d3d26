#!/usr/bin/env bash
# tests/sh/debian.sh - the Debian packages: built from a copy of this tree with
# dpkg-buildpackage, lintian-clean at every level (overrides explained in
# debian/*.lintian-overrides), installable on this machine (dpkg --dry-run
# against its package database), installed for real with dpkg -i into a
# private root, their programs' versions in agreement, and removed again.
source "$(dirname "$0")/lib.sh"

for t in dpkg-buildpackage dh lintian; do
	command -v "$t" >/dev/null || { fail "$t is missing (scripts/install-deps installs it)"; finish; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src"
tar -C "$LRUGEN_SRC" --exclude=./build --exclude=./.git --exclude=./debian/build -cf - . |
	tar -C "$tmp/src" -xf -
(cd "$tmp/src" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1
check "dpkg-buildpackage -us -uc -b" 0 "$?" || tail -20 "$tmp/build.log" >&2
version=$(dpkg-parsechangelog -l "$LRUGEN_SRC/debian/changelog" -S Version)
arch=$(dpkg --print-architecture)
debs=()
for p in lrugen lrugend lrugen-store; do
	f=$tmp/${p}_${version}_$arch.deb
	[[ -f $f ]] && pass || fail "no $f"
	debs+=("$f")
done

out=$(lintian --pedantic -I --fail-on error,warning,info,pedantic \
	"$tmp/lrugen_${version}_$arch.changes" 2>&1 | grep -v '^running with root privileges')
check "lintian --pedantic -I: nothing to say" "" "$out"

files() { dpkg-deb -c "$1" | awk '{ print $6 }'; }
check_grep "lrugen: the CLI, the TUI, their man pages, completion" \
	"usr/bin/lrugen-top.*usr/share/man/man1/lrugen.1.gz.*vendor-completions/_lrugen" \
	"$(files "${debs[0]}" | sort | paste -sd' ')"
check_grep "lrugend: program, unit, sample, man pages" \
	"lib/systemd/system/lrugend.service .*usr/bin/lrugend .*lrugend.conf.sample .*man5/lrugend.conf.5.gz .*man8/lrugend.8.gz" \
	"$(files "${debs[1]}" | sort | paste -sd' ')"
check "lrugen-store: no config in /etc (the sample has example tokens)" "" \
	"$(files "${debs[2]}" | grep '^\./etc/')"

# this machine's package database: would dpkg -i work here (dependencies)?
check_rc "dpkg --dry-run -i against this machine's packages" 0 dpkg --dry-run -i "${debs[@]}"

# dpkg -i for real, into a private root and database
root=$tmp/root admin=$tmp/admin
mkdir -p "$root" "$admin/info" "$admin/updates"
: >"$admin/status"
D=(dpkg --admindir="$admin" --instdir="$root" --force-not-root --force-depends)
"${D[@]}" -i "${debs[@]}" >"$tmp/dpkg.log" 2>&1
check "dpkg -i of the three packages" 0 "$?"
check "dpkg lists them installed" "ii lrugen ii lrugen-store ii lrugend" \
	"$(dpkg --admindir="$admin" -l | awk '/^ii/ { printf "%s%s %s", sep, $1, $2; sep = " " }')"
for b in lrugen lrugen-top lrugend lrugen-store; do
	check "$b --version: the package's version" "$b $version" "$("$root/usr/bin/$b" --version 2>&1)"
done
"${D[@]}" -r lrugen lrugend lrugen-store >"$tmp/dpkg-r.log" 2>&1
check "dpkg -r" 0 "$?"
check "removal leaves no file" "" "$(find "$root" ! -type d)"
finish
