# tests/sh/fleet.sh - 'lrugen fleet' against a real lrugen-store: tables, the marks of
# warned rows and their footnotes, --json, errors, exit codes. The fleet is
# store-fleet.spec: web-1's latest snapshot says damon_active, and thp_unaged on
# /jobs/web node 0.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
tmp=$(mktemp -d)
trap 'stop_store; rm -rf "$tmp"' EXIT
make_tokens "$tmp"
"$FLEETSIM" build "$(dirname "$0")/store-fleet.spec" >"$tmp/fleet.pb" || fail "fleetsim build"
unset LRUGEN_STORE LRUGEN_TOKEN

# without a store: usage errors first, then "unreachable"
check_rc "fleet -h" 0 "$LRUGEN" fleet -h
check_grep "fleet -h teaches" "usage: lrugen fleet COMMAND" "$("$LRUGEN" fleet -h)"
check_grep "lrugen --help lists fleet" "fleet +ask lrugen-store" "$("$LRUGEN" --help)"
check_rc "fleet without a command" 2 "$LRUGEN" fleet
check_rc "fleet unknown command" 2 "$LRUGEN" fleet frob
check_rc "rank without --need" 2 "$LRUGEN" fleet rank
check_grep "rank without --need says so" "fleet rank needs --need SIZE" "$("$LRUGEN" fleet rank 2>&1)"
check_rc "an option of another command" 2 "$LRUGEN" fleet hosts --need 4G
check_grep "bad threshold" "unknown unit 'q'" "$("$LRUGEN" fleet cold --threshold 3q 2>&1)"
check_rc "bad --by" 2 "$LRUGEN" fleet cold --by rack
out=$("$LRUGEN" fleet hosts --store http://127.0.0.1:1 2>&1)
check "unreachable store: exit 3" 3 $?
check "unreachable store: one line" "lrugen: store unreachable at 'http://127.0.0.1:1': connection refused" "$out"
out=$(LRUGEN_STORE=http://127.0.0.1:1/ "$LRUGEN" fleet hosts 2>&1)
check_grep "LRUGEN_STORE is the default" "unreachable at 'http://127.0.0.1:1'" "$out"

start_store "$tmp" --config "$tmp/tokens.conf" || { finish; exit 1; }
post_pb "$tmp/fleet.pb" "$tmp/admin.token" >/dev/null
F=("$LRUGEN" fleet --store "$STORE_URL" --token-file "$tmp/read.token")

out=$("${F[@]}" hosts)
check_grep "hosts table" '^web-1 +[0-9].* ago +6\.1\.0-test +16\.0 GiB +3\.0 GiB +2 +3 +2 damon_active,thp_unaged$' "$out"
check_grep "hosts: a warnings column" '^HOST .* MEMCGS WARNINGS$' "$out"
check_grep "hosts: an unwarned host" '^db-1 +.* +1 +1 +1$' "$out"
check_grep "hosts count" '^2 hosts$' "$out"
check_grep "hosts: the host code explained" '^! damon_active: a DAMON monitor runs' "$out"
check_grep "hosts: the lruvec code explained" '^! thp_unaged: a DAMON monitor clears' "$out"
check "hosts: footnotes wrapped at 80 columns" 0 "$(sed -n '/^! /,$p' <<<"$out" | awk 'length > 80' | wc -l)"
out=$(LRUGEN_STORE=$STORE_URL LRUGEN_TOKEN=$(cat "$tmp/read.token") "$LRUGEN" fleet hosts)
check_grep "LRUGEN_STORE and LRUGEN_TOKEN" '^db-1 ' "$out"
out=$("$LRUGEN" fleet rank --need 3G --store "$STORE_URL" --token-file "$tmp/read.token")
check_grep "options after the command" '^   1 db-1 +4\.0 GiB' "$out"
check_grep "rank: a warned host's offer and cold are upper bounds" \
	'^   2 web-1 +<3\.0 GiB +3\.0 GiB +<31\.2 MiB +3\.0 GiB +0 B' "$out"
check_grep "rank: db-1 unmarked" '^   1 db-1 +4\.0 GiB' "$out"
check_grep "rank: the mark explained" '^< thp_unaged: ' "$out"
check_grep "rank: candidates" '^2 hosts can take 3\.0 GiB' "$out"
check_grep "rank: one candidate is one host" '^1 host can take 3\.5 GiB' \
	"$("${F[@]}" rank --need 3.5G)"
out=$("${F[@]}" rank --need 1G --per-node --limit 1)
check_grep "rank per node" '^   1 db-1:0 ' "$out"
out=$("${F[@]}" cold --by memcg --memcg-glob '/jobs/*')
check_grep "cold by memcg" '^web-1 /jobs/batch +3\.9 MiB +19\.5 MiB +83% +23\.5 MiB' "$out"
check_grep "cold by memcg: a warned memcg's bounds" '^web-1 /jobs/web +>28\.9 MiB +<11\.7 MiB +29% +40\.6 MiB' "$out"
check_grep "cold total" '^TOTAL +>228\.2 MiB +<70\.3 MiB' "$out"
check_grep "cold: the footnote" '^> < thp_unaged: a DAMON monitor clears the accessed bits of this memcg.s huge$' "$out"
check "cold: one footnote" 1 "$(grep -c 'thp_unaged:' <<<"$out")"
out=$("${F[@]}" cold --by node)
check_grep "cold by node: only the warned node marked" '^web-1:1 +1\.6 MiB +0 B' "$out"
check_grep "cold by node: the warned node" '^web-1:0 +>[0-9.]+ MiB +<31\.2 MiB' "$out"
out=$("${F[@]}" cold --by memcg --memcg-glob '/jobs/[bd]*')
check "unwarned rows: no marks, no footnote" 0 "$(grep -c '[<>!]' <<<"$out")"
out=$("${F[@]}" cold --threshold 3m)
check_grep "effective threshold shown" 'threshold 3m00s \(effective 5m00s' "$out"
check "cold: -T is --threshold" "$out" "$("${F[@]}" cold -T 3m)"
out=$("${F[@]}" capacity --thresholds 2m,5m)
check_grep "capacity header" '^2 hosts: memory 32\.0 GiB, free 7\.0 GiB' "$out"
check_grep "capacity 2m" '^2m00s +2m00s +>228\.2 MiB +<70\.3 MiB +24%' "$out"
check_grep "capacity: hosts per warning" '^hosts with warnings: damon_active 1, thp_unaged 1$' "$out"
check_grep "capacity: the marks explained" '^> < thp_unaged: ' "$out"
out=$("${F[@]}" wss --memcg-glob /jobs/web --window 1d --percentile 99)
check "wss: -w is --window" "$out" "$("${F[@]}" wss --memcg-glob /jobs/web -w 1d --percentile 99)"
check_grep "wss row: lower bounds (a warned sample)" \
	'^/jobs/web +2 +>28\.9 MiB +>44\.5 MiB +>44\.5 MiB +>44\.5 MiB +>44\.5 MiB' "$out"
check_grep "wss: the mark explained" '^> thp_unaged: ' "$out"
check_grep "wss: an unwarned job" '^/jobs/db +1 +195\.3 MiB' "$("${F[@]}" wss --memcg-glob /jobs/db)"
check_grep "wss percentile column" ' LIMIT\(P99\)$' "$out"
out=$("${F[@]}" timeline --host web-1 --memcg /jobs/batch)
check_grep "timeline lruvec" '^/jobs/batch node 0 \(inode 200\)$' "$out"
out2=$("${F[@]}" timeline --host web-1 --memcg /jobs/web)
check_grep "timeline: a warned lruvec" '^/jobs/web node 0 \(inode 100\) ! thp_unaged$' "$out2"
check_grep "timeline: an unwarned one" '^/jobs/web node 1 \(inode 100\)$' "$out2"
check_grep "timeline: the code explained" '^! thp_unaged: ' "$out2"
check_grep "timeline gen" ' 7 .* 1h00m +0 B +19\.5 MiB$' "$out"

# --json: the store's document, unchanged
a=$("${F[@]}" --json cold --by node | jq -c 'del(.now_ms)')
b=$(curl -s -H "Authorization: Bearer $(cat "$tmp/read.token")" "$STORE_URL/v1/cold?by=node" | jq -c 'del(.now_ms)')
check "--json is the store's document" "$b" "$a"
check "--json before the command" 2 "$("$LRUGEN" --json fleet hosts --store "$STORE_URL" --token-file "$tmp/read.token" | jq '.hosts | length')"

# errors from the store
out=$("$LRUGEN" fleet hosts --store "$STORE_URL" 2>&1)
check "no token: exit 3" 3 $?
check_grep "no token: says which" "refused the token \(HTTP 401\)" "$out"
out=$("$LRUGEN" fleet hosts --store "$STORE_URL" --token-file "$tmp/any.token" 2>&1)
check "ingest token: exit 3" 3 $?
check_grep "ingest token: HTTP 403" "may not read the store \(HTTP 403\)" "$out"
check_rc "token file missing: a bad command line" 2 "$LRUGEN" fleet hosts --store "$STORE_URL" --token-file "$tmp/nope"
out=$("${F[@]}" wss --memcg-glob '/nope*' 2>&1)
check "nothing matches: exit 2" 2 $?
check "nothing matches: the store's reason" "lrugen: no memcg path matches '/nope*'" "$out"
check_rc "unknown host" 2 "${F[@]}" timeline --host nope
out=$("${F[@]}" cold --threshold 2d 2>&1)
check_grep "threshold above 24h" "^lrugen: parameter 'threshold': above the largest" "$out"

# ---- plot: the answers as SVG charts, their values those of --json -------------------------
out=$("${F[@]}" plot capacity --out "$tmp/cap.svg")
check "plot capacity: says what it wrote" \
	"wrote the capacity plot (SVG, $(stat -c %s "$tmp/cap.svg") bytes) to $tmp/cap.svg" "$out"
check "... well-formed XML" "" "$(xmllint --noout "$tmp/cap.svg" 2>&1)"
check "... renders at 1200 x 600" 0 "$(renders "$tmp/cap.svg" "1200 600"; echo $?)"
cap=$("${F[@]}" --json capacity --thresholds 1m,2m,5m,10m,30m,1h,6h,24h)
check "... cold at every precomputed threshold: the store's answer" \
	"$(jq -r '.thresholds[] | "\(.effective_threshold_ms) \(.cold_bytes)"' <<<"$cap")" "$(pts "$tmp/cap.svg" cold)"
check "... cold + free likewise" \
	"$(jq -r '.mem_free_bytes as $f | .thresholds[] | "\(.effective_threshold_ms) \(.cold_bytes + $f)"' <<<"$cap")" \
	"$(pts "$tmp/cap.svg" "cold + free")"
check "... the axes in units: T from 1m to 1d, bytes in MiB or GiB" "1m 1d bytes" \
	"$(grep -o '>1m<\|>1d<' "$tmp/cap.svg" | tr -d '<>' | xargs) $(grep -o '>bytes<' "$tmp/cap.svg" | tr -d '<>')"
check_grep "... the y ticks in binary units" '>[0-9.]+ (MiB|GiB)<' "$(cat "$tmp/cap.svg")"
check "plot capacity --thresholds: only those" "120000 300000" \
	"$("${F[@]}" plot capacity --thresholds 2m,5m --out - | grep -o 'data-series="cold" data-x="[0-9]*"' |
		grep -o '[0-9]*' | xargs)"
out=$("${F[@]}" plot rank --need 3G --out "$tmp/rank.svg")
check "plot rank: well-formed XML" "" "$(xmllint --noout "$tmp/rank.svg" 2>&1)"
check "... renders at 1200 x 600" 0 "$(renders "$tmp/rank.svg" "1200 600"; echo $?)"
rank=$("${F[@]}" --json rank --need 3G)
check "... a bar per candidate, best first, free and cold the store's" \
	"$(jq -r '.rows[] | "\(.host) \(.free_bytes)"' <<<"$rank") $(jq -r '.rows[] | "\(.host) \(.cold_bytes)"' <<<"$rank")" \
	"$(segs "$tmp/rank.svg" free) $(segs "$tmp/rank.svg" cold)"
check "... a line at --need" 3221225472 "$(grep -o 'class="marker" data-v="[0-9]*"' "$tmp/rank.svg" | cut -d'"' -f4)"
check "plot rank --per-node --limit 2: host:node labels, as --json ranks them" \
	"$("${F[@]}" --json rank --need 1G --per-node --limit 2 | jq -r '.rows[] | "\(.host):\(.node)"' | xargs)" \
	"$("${F[@]}" plot rank --need 1G --per-node --limit 2 --out - | grep -o 'data-label="[^"]*" data-series="free"' |
		cut -d'"' -f2 | xargs)"
# a whole file or none: a failed plot leaves the old one
cp "$tmp/rank.svg" "$tmp/rank.before"
check_rc "plot of an unreachable store: exit 3" 3 "$LRUGEN" fleet plot rank --need 1G --store http://127.0.0.1:1 \
	--token-file "$tmp/read.token" --out "$tmp/rank.svg"
check "... the file before it kept" "" "$(cmp "$tmp/rank.svg" "$tmp/rank.before" 2>&1)"
check "... no temporary file left" "" "$(ls "$tmp" | grep '\.tmp\.')"
out=$("${F[@]}" plot rank --need 1G --out "$tmp/no/such/dir.svg" 2>&1)
check "an --out that cannot be written: exit 1" 1 $?
check_grep "... says why" "^lrugen: cannot write '$tmp/no/such/dir.svg': No such file or directory$" "$out"
# usage
check_rc "plot without --out" 2 "${F[@]}" plot capacity
check_grep "... says so" "fleet plot capacity needs --out FILE.svg" "$("${F[@]}" plot capacity 2>&1)"
check_grep "plot of something else: a suggestion" "'rnak' is not a plot; did you mean 'rank'" \
	"$("${F[@]}" plot rnak --out x 2>&1)"
check_rc "plot rank without --need" 2 "${F[@]}" plot rank --out "$tmp/x.svg"
check_rc "--out without plot" 2 "${F[@]}" rank --need 1G --out "$tmp/x.svg"
check_rc "plot --json" 2 "${F[@]}" --json plot capacity --out "$tmp/x.svg"
check_rc "an option plot's command does not take" 2 "${F[@]}" plot capacity --need 1G --out "$tmp/x.svg"
check_grep "fleet -h teaches plot" "plot KIND +an answer as a chart \(1200x600\): --out FILE.svg" "$("$LRUGEN" fleet -h)"
# hostile host names are text in the chart, not markup
"$FLEETSIM" run --store "$STORE_URL" --token-file "$tmp/any.token" --hosts 1 --memcgs 2 --nodes 1 \
	--history 2m --step 2m --prefix '<svg onload="x">&' >/dev/null
"${F[@]}" plot rank --need 1M --out "$tmp/evil.svg" >/dev/null
check "a host named '<svg onload=\"x\">&': still well-formed" "" "$(xmllint --noout "$tmp/evil.svg" 2>&1)"
check_grep "... its name escaped" '&lt;svg onload=&quot;x&quot;&gt;&amp;00000' "$(cat "$tmp/evil.svg")"
check "... one <svg> element" 1 "$(grep -c '<svg' "$tmp/evil.svg")"
finish
