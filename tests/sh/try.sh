#!/usr/bin/env bash
# tests/sh/try.sh - make try's script, headless: every fleet command answers,
# cold memory shows on the generated hosts, and nothing is left behind.
source "$(dirname "$0")/lib.sh"

out=$(HEADLESS=1 LRUGEN_BUILD=$LRUGEN_BUILD timeout 120 "$LRUGEN_SRC/scripts/try" 2>&1)
check "scripts/try exits 0" 0 "$?"
dir=$(sed -n 's/^== fixture hosts in \(.*\)$/\1/p' <<<"$out")
check_grep "it names its directory" "^/tmp/lrugen-try\." "$dir"
check "six hosts in the store" 6 "$(grep -cE '^(deb-6-1|deb-6-12|deb-7-3|web-1|web-2|batch-1) +[0-9.]+m?s ago' <<<"$out")"
check_grep "capacity: cold memory at 2m on the generated hosts" '^2m00s +2m00s +>?[0-9.]+ GiB +<?[1-9][0-9.]* (MiB|GiB)' "$out"
check_grep "cold by memcg" '^web-1 /jobs/job0000[0-9] +[0-9.]+ MiB +[1-9][0-9.]* MiB' "$out"
check_grep "rank: three hosts can take 1 GiB" '^3 hosts can take 1\.0 GiB' "$out"
check_grep "wss: two jobs pooled" '^ALL \(pooled\) ' "$out"
check_grep "timeline: generations of web-1" '^host web-1: [0-9]+ snapshots, [1-9][0-9]* generation points' "$out"
check_grep "lrugen-top is named, not opened" '^lrugen-top --store http://127\.0\.0\.1:[0-9]+ --token-file ' "$out"
check "no failure said" "" "$(grep '^try: ' <<<"$out")"
check "its directory is gone" "" "$([[ -n $dir && -e $dir ]] && echo "$dir")"
check "no store or collector left running" "" "$([[ -n $dir ]] && pgrep -f -- "$dir" || true)"

# without the programs: one line that says what to run
check_grep "missing programs: says to run make try" "run 'make try'" \
	"$(LRUGEN_BUILD=/nonexistent "$LRUGEN_SRC/scripts/try" 2>&1)"
check_rc "missing programs: exit 2" 2 env LRUGEN_BUILD=/nonexistent "$LRUGEN_SRC/scripts/try"
finish
