#!/usr/bin/env bash
# tests/sh/install.sh - make install and make uninstall: what lands where
# (DESTDIR, PREFIX), units that systemd accepts, bash and zsh completion from
# the installed files, man pages found by man, and nothing left behind.
source "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mk() { make --no-print-directory -C "$LRUGEN_SRC" O="$LRUGEN_BUILD" "$@"; }

# --- a packager's install: DESTDIR, PREFIX=/usr ---------------------------------------
d=$tmp/dest
mk install DESTDIR="$d" PREFIX=/usr >"$tmp/install.log" 2>&1
check "make install DESTDIR PREFIX=/usr" 0 "$?"
for f in bin/lrugen bin/lrugen-top bin/lrugend bin/lrugen-store lib/liblrugen.a \
	include/lrugen/lru_model.h include/lrugen/lrugen.pb-c.h \
	lib/systemd/system/lrugend.service lib/systemd/system/lrugen-store.service \
	share/lrugen/lrugend.conf.sample share/lrugen/lrugen-store.conf.sample \
	share/bash-completion/completions/lrugen share/zsh/site-functions/_lrugen \
	share/man/man1/lrugen.1 share/man/man1/lrugen-top.1 share/man/man8/lrugend.8 \
	share/man/man8/lrugen-store.8 share/man/man5/lrugend.conf.5 \
	share/man/man5/lrugen-store.conf.5; do
	[[ -f $d/usr/$f ]] && pass || fail "installed: /usr/$f missing"
done
for p in lrugen-top lrugend lrugen-store; do
	check "bash completion for $p links to lrugen's" lrugen "$(readlink "$d/usr/share/bash-completion/completions/$p")"
done
check "programs are executable" 4 "$(find "$d/usr/bin" -type f -perm -u+x | wc -l)"
check "private headers stay out" "" "$(ls "$d/usr/include/lrugen" | grep -x -e lru_buf.h -e lru_esc.h -e lru_settings.h)"
check "no config is installed (the samples hold example tokens)" "" "$(find "$d" -path '*/etc*')"
unit=$(cat "$d/usr/lib/systemd/system/lrugend.service")
check_grep "lrugend.service runs PREFIX's lrugend with SYSCONFDIR's config" \
	'^ExecStart=/usr/bin/lrugend --config /etc/lrugend\.conf$' "$unit"
check_grep "lrugen-store.service: PREFIX and SYSCONFDIR" \
	'^ExecStart=/usr/bin/lrugen-store --config /etc/lrugen-store\.conf$' \
	"$(cat "$d/usr/lib/systemd/system/lrugen-store.service")"
check "no placeholder left in the units" "" \
	"$(grep -ho '@[a-z]*@' "$d"/usr/lib/systemd/system/*.service)"
check "install prints no warning" "" "$(grep -i -e warning -e error "$tmp/install.log")"

mk uninstall DESTDIR="$d" PREFIX=/usr >/dev/null 2>&1
check "make uninstall" 0 "$?"
check "uninstall leaves no file" "" "$(find "$d" ! -type d)"

# --- a local install: PREFIX with its own tree, SYSCONFDIR=PREFIX/etc -----------------
p=$tmp/prefix
mk install PREFIX="$p" SYSCONFDIR="$p/etc" >/dev/null 2>&1
check "make install PREFIX" 0 "$?"
check_grep "units name the PREFIX" "^ExecStart=$p/bin/lrugend --config $p/etc/lrugend\\.conf\$" \
	"$(cat "$p/lib/systemd/system/lrugend.service")"
if command -v systemd-analyze >/dev/null; then
	# the programs the units start exist at these paths: verify checks them too
	out=$(MANPATH=$p/share/man systemd-analyze verify "$p"/lib/systemd/system/lrugend.service \
		"$p"/lib/systemd/system/lrugen-store.service 2>&1)
	check "systemd-analyze verify: both units, their programs and man pages" "0:" "$?:$out"
	sed 's/^Restart=/Restartt=/' "$p/lib/systemd/system/lrugend.service" >"$tmp/bad.service"
	check_grep "systemd-analyze verify would see a mistake" "Unknown key" \
		"$(systemd-analyze verify --man=no "$tmp/bad.service" 2>&1)"
else
	fail "systemd-analyze is missing (systemd)"
fi
check_grep "man finds lrugen(1) after install" "^$p/share/man/man1/lrugen\\.1" \
	"$(MANPATH=$p/share/man man -w lrugen 2>&1)"
check_grep "man finds lrugend.conf(5)" "^$p/share/man/man5/lrugend\\.conf\\.5" \
	"$(MANPATH=$p/share/man man -w 5 lrugend.conf 2>&1)"

# --- bash completion, from the installed script -----------------------------------------
mkroot "$tmp/r61" 6.1
comp() {
	PATH=$p/bin:$PATH bash -c 'source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _lrugen
		printf "%s\n" "${COMPREPLY[@]}" | sort | paste -sd" "' \
		_ "$p/share/bash-completion/completions/$1" "${@:2}"
}
check "bash: commands" "age cmd doctor dump enable evict fleet help show wss" "$(comp lrugen lrugen '')"
check "bash: a prefix" "enable evict" "$(comp lrugen lrugen e)"
check "bash: fleet's commands" "advise bands capacity cold hosts plot rank timeline wss" "$(comp lrugen lrugen fleet '')"
check "bash: a command's flags" "--threshold --thresholds" "$(comp lrugen lrugen fleet cold --thr)"
check "bash: files after fleet plot's --out" "$tmp/r61" "$(comp lrugen lrugen fleet plot rank --out "$tmp/r6")"
check "bash: fleet plot's kinds" "advise capacity job rank" "$(comp lrugen lrugen fleet plot '')"
check "bash: after the kind, its command's flags" "--need" "$(comp lrugen lrugen fleet plot rank --nee)"
check "bash: memcg paths from lrugen show, with the line's --root" "/jobs/batch /jobs/web" \
	"$(comp lrugen lrugen --root "$tmp/r61" wss --memcg /jobs/)"
check "bash: lrugen-top's flags (through the link)" "--readonly --replay" "$(comp lrugen-top lrugen-top --re)"
check "bash: lrugend's negated booleans" "--no-skip-dying --no-skip-empty" "$(comp lrugend lrugend --no-skip)"
check "bash: not the flags of programs a help text quotes" "" "$(comp lrugen-top lrugen-top --onc)"
check "bash: --interface values" "cgroup" "$(comp lrugen lrugen --interface cg)"

# --- zsh completion: the installed function, compadd recorded ---------------------------
if command -v zsh >/dev/null; then
	zcomp() {
		PATH=$p/bin:$PATH zsh -f -c 'compadd() { while [[ $1 == -* ]]; do [[ $1 == -- ]] && { shift; break }; shift; done; print -rl -- "$@" }
			_files() { print FILES }
			words=("${@:2}"); CURRENT=${#words}; source "$1"' _ "$p/share/zsh/site-functions/_lrugen" "$@" |
			sort | paste -sd" "
	}
	check "zsh: commands" "age cmd doctor dump enable evict fleet help show wss" "$(zcomp lrugen '')"
	check "zsh: memcg paths" "/ /jobs /jobs/batch /jobs/web" "$(zcomp lrugen --root "$tmp/r61" show --memcg '')"
	check_grep "zsh: a command's flags" "--age-first .*--interpolate" "$(zcomp lrugen wss --)"
	check "zsh: files after --config" "FILES" "$(zcomp lrugend --config '')"
	check "zsh: files after fleet plot's --out" "FILES" "$(zcomp lrugen fleet plot rank --out '')"
	check "zsh: fleet plot's kinds" "advise capacity job rank" "$(zcomp lrugen fleet plot '')"
else
	fail "zsh is missing (scripts/install-deps installs it)"
fi

mk uninstall PREFIX="$p" SYSCONFDIR="$p/etc" >/dev/null 2>&1
check "uninstall PREFIX leaves no file" "" "$(find "$p" ! -type d)"
finish
