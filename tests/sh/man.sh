#!/usr/bin/env bash
# tests/sh/man.sh - the six man pages that scripts/mkman writes at build time
# (O/man): lint-clean with mandoc and groff, rendered by man, and complete:
# every flag each program's --help prints, every key of lrugen-top's help, and
# every setting of both daemons is in its page. The lists come from the
# programs and the sample configs, not from this file.
source "$(dirname "$0")/lib.sh"

M=$LRUGEN_BUILD/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v mandoc >/dev/null || { fail "mandoc is missing (scripts/install-deps installs it)"; finish; }
pages=(lrugen.1 lrugen-top.1 lrugend.8 lrugen-store.8 lrugend.conf.5 lrugen-store.conf.5)

for p in "${pages[@]}"; do
	[[ -f $M/$p ]] || { fail "$M/$p was not built"; continue; }
	out=$(mandoc -Tlint -W warning "$M/$p" 2>&1)
	check "mandoc -Tlint -W warning $p" "0:" "$?:$out"
	check "groff -ww $p" "" "$(groff -ww -man -z "$M/$p" 2>&1)"
	MANWIDTH=100 man -l "$M/$p" 2>/dev/null | col -b >"$tmp/$p.txt"
	check_grep "man -l $p: NAME" "^ +${p%.*} +- +[a-zA-Z]" "$(grep -A1 '^NAME' "$tmp/$p.txt")"
done

# the lint would see a mistake
printf '.TH X 1\n.SH NAME\nx \\- y\n.SS\n.TP\n' >"$tmp/bad.1"
check_grep "mandoc -Tlint finds a broken page" "WARNING|ERROR" "$(mandoc -Tlint -W warning "$tmp/bad.1" 2>&1)"

# flags: each --flag of a help text, not those of other programs it quotes
flags() { "$@" --help 2>/dev/null | sed "s/'[^']*'//g" | grep -oE -- '--(\[no-\])?[a-z][a-z0-9-]*' |
	grep -vx -e '--name' | sort -u; }
has_all() {	# NAME PAGE ITEMS...: every item appears in the rendered page
	local name=$1 page=$2 missing=() i
	shift 2
	for i in "$@"; do grep -qF -- "$i" "$tmp/$page.txt" || missing+=("$i"); done
	check "$name" "" "${missing[*]}"
}
L=$LRUGEN_BUILD/lrugen
mapfile -t cmds < <("$L" --help | awk '/^commands:/ { f = 1; next } f && /^$/ { exit } f { print $1 }')
check "lrugen lists its commands" true "$([[ ${#cmds[@]} -ge 9 ]] && echo true)"
for c in "${cmds[@]}"; do
	check_grep "lrugen.1: a section for '$c'" "^   lrugen $c\$" "$(cat "$tmp/lrugen.1.txt")"
	[[ $c == help ]] && continue
	mapfile -t f < <(flags "$L" "$c")
	has_all "lrugen.1: every flag of 'lrugen $c --help'" lrugen.1 "${f[@]}"
done
mapfile -t f < <(flags "$L" fleet)
check "lrugen fleet's help has its commands' flags" true "$([[ ${#f[@]} -ge 15 ]] && echo true)"
mapfile -t f < <(flags "$L")
has_all "lrugen.1: the common flags" lrugen.1 "${f[@]}"
for p in lrugen-top lrugend lrugen-store; do
	mapfile -t f < <(flags "$LRUGEN_BUILD/$p")
	check "$p --help prints flags" true "$([[ ${#f[@]} -ge 10 ]] && echo true)"
	has_all "$p page: every flag of its --help" "$p.$([[ $p == lrugen-top ]] && echo 1 || echo 8)" "${f[@]}"
done
mapfile -t keys < <("$LRUGEN_BUILD/lrugen-top" --keys | sed -E 's/ {2,}.*//')
check "lrugen-top --keys lists keys" true "$([[ ${#keys[@]} -ge 20 ]] && echo true)"
has_all "lrugen-top.1: every key of its '?' help" lrugen-top.1 "${keys[@]}"

# settings: every 'name =' of the sample, and every setting flag of the
# daemon's --help (the part after 'settings'), is a key of its .conf(5) page
for d in lrugend:collector/lrugend.conf.sample lrugen-store:store/lrugen-store.conf.sample; do
	prog=${d%%:*} sample=$LRUGEN_SRC/${d#*:}
	mapfile -t k < <(sed -n 's/^\([a-z][a-z0-9-]*\) =.*/\1 =/p' "$sample" | sort -u)
	check "$prog: the sample has settings" true "$([[ ${#k[@]} -ge 20 ]] && echo true)"
	has_all "$prog.conf.5: every setting of the sample" "$prog.conf.5" "${k[@]}"
	mapfile -t k < <("$LRUGEN_BUILD/$prog" --help | sed -n '/^settings/,$p' | sed "s/'[^']*'//g" |
		grep -oE '^  --(\[no-\])?[a-z][a-z0-9-]*' | sed -E 's/^  --(\[no-\])?//; s/$/ =/' | sort -u)
	has_all "$prog.conf.5: every setting flag of '$prog --help'" "$prog.conf.5" "${k[@]}"
done

check_rc "mkman fails when a program cannot be run" 2 \
	sh -c '"$1" /nonexistent "$2" 0 >/dev/null 2>&1; [ $? -ne 0 ] && exit 2' _ "$LRUGEN_SRC/scripts/mkman" "$tmp/m"
finish
