# tests/sh/store.sh - lrugen-store over HTTP: ingest and query answers computed by hand,
# accuracy warnings on every answer, the auth matrix, bad inputs, duplicates, a
# restart with the data intact, and the migration of a version-1 database.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
tmp=$(mktemp -d)
trap 'stop_store; rm -rf "$tmp"' EXIT
make_tokens "$tmp"
P=4096

# the fleet of store-fleet.spec: its header computes the expected answers
cp "$(dirname "$0")/store-fleet.spec" "$tmp/fleet.spec"
"$FLEETSIM" build "$tmp/fleet.spec" >"$tmp/fleet.pb" || fail "fleetsim build"
grep -v '^host db-1\|/jobs/db\|^gen [123] \|total 16G' "$tmp/fleet.spec" >"$tmp/web.spec"
"$FLEETSIM" build "$tmp/web.spec" >"$tmp/web.pb"

# --- startup refusals ---------------------------------------------------------
out=$("$STORE_BIN" --db "$tmp/x.db" --listen 127.0.0.1:0 2>&1)
check "no tokens: refuses to start" 2 $?
check_grep "no tokens: says what to do" "no tokens configured.*--insecure-no-auth" "$out"
printf 'read-token = abc\n' >"$tmp/bad.conf"
check_grep "bad token line names the line" "bad.conf:1: a token line needs the token's SHA-256" \
	"$("$STORE_BIN" --db "$tmp/x.db" --config "$tmp/bad.conf" 2>&1)"
printf 'frobnicate = 1\n' >"$tmp/bad.conf"
check_grep "unknown setting" "bad.conf:1: unknown setting 'frobnicate'" \
	"$("$STORE_BIN" --db "$tmp/x.db" --config "$tmp/bad.conf" 2>&1)"
# an old config ('NAME VALUE' lines) still loads, with one warning naming the new syntax
abc=$(printf abc | sha256sum | cut -d' ' -f1)
printf 'listen 127.0.0.1:7071\nread-token %s\n' "$abc" >"$tmp/old.conf"
out=$("$STORE_BIN" --config "$tmp/old.conf" --print-config 2>"$tmp/old.err")
check_grep "old syntax: settings load" '^listen = 127\.0\.0\.1:7071$' "$out"
check_grep "old syntax: tokens load" "^read-token = $abc$" "$out"
check_grep "old syntax: a warning naming the new syntax" \
	"lrugen-store: warning: .*old.conf:1: 'listen 127.0.0.1:7071' is the old 'NAME VALUE' syntax: write 'listen = 127.0.0.1:7071' \(and 1 more line\)$" \
	"$(cat "$tmp/old.err")"
check "old syntax: one warning" 1 "$(wc -l <"$tmp/old.err")"
out=$("$STORE_BIN" --config "$tmp/old.conf" --print-config 2>/dev/null)
printf '%s\n' "$out" >"$tmp/new.conf"
check "the sample config loads, without warnings" "" \
	"$("$STORE_BIN" --config "$LRUGEN_SRC/store/lrugen-store.conf.sample" --print-config 2>&1 >/dev/null)"
check "print-config reads back to itself" "$out" "$("$STORE_BIN" --config "$tmp/new.conf" --print-config 2>&1)"
check_rc "--help" 0 "$STORE_BIN" --help
check_grep "a database in a missing directory: the directory is named" \
	"cannot open database '$tmp/none/x.db': .* \(no directory '$tmp/none': create it\)" \
	"$("$STORE_BIN" --db "$tmp/none/x.db" --insecure-no-auth 2>&1)"
check_grep "a bad setting names it, the value and the range" "--threads 0: out of range \(1 to 64\)" \
	"$("$STORE_BIN" --db "$tmp/x.db" --threads 0 2>&1)"
check_grep "commit-delay is bounded" "--commit-delay 20s: out of range \(0 to 10s\)" \
	"$("$STORE_BIN" --db "$tmp/x.db" --commit-delay 20s 2>&1)"
out=$("$STORE_BIN" --db "$tmp/x.db" --clickhouse-rollup-spill lots 2>&1)
check "a roll-up spill that is not a size: a usage error" 2 $?
check_grep "... naming the setting and the value" "--clickhouse-rollup-spill lots: size 'lots' does not start with a number" "$out"
check_grep "a negative roll-up memory cap: refused, named" "--clickhouse-rollup-memory -1: size '-1'" \
	"$("$STORE_BIN" --db "$tmp/x.db" --clickhouse-rollup-memory -1 2>&1)"
check_grep "a roll-up spill not under its memory cap: refused, both named" \
	"clickhouse-rollup-spill \(1\.0 GiB\) must be under clickhouse-rollup-memory \(1\.0 GiB" \
	"$("$STORE_BIN" --db "$tmp/x.db" --clickhouse-rollup-spill 1G --clickhouse-rollup-memory 1G 2>&1)"
out=$("$STORE_BIN" --db "$tmp/x.db" --clickhouse-insert-interval 2h 2>&1)
check "an insert interval past a minute: a usage error" 2 $?
check_grep "... naming it, the value and the range" "--clickhouse-insert-interval 2h: out of range \(0 to 1m\)" "$out"
check_grep "an insert interval that is not a duration: named" \
	"--clickhouse-insert-interval soon: duration 'soon' does not start with a number" \
	"$("$STORE_BIN" --db "$tmp/x.db" --clickhouse-insert-interval soon 2>&1)"
check_grep "... in a config file too, with its line" "ivl.conf:1: clickhouse-insert-interval = -1s: duration '-1s'" \
	"$(printf 'clickhouse-insert-interval = -1s\n' >"$tmp/ivl.conf"; "$STORE_BIN" --config "$tmp/ivl.conf" --db "$tmp/x.db" 2>&1)"
check "hash-token is SHA-256" "$(printf abc | sha256sum | cut -d' ' -f1)" \
	"$(printf 'abc\n' | "$STORE_BIN" --hash-token)"

start_store "$tmp" --config "$tmp/tokens.conf" --max-body 1M || { finish; exit 1; }

# --- ingest ---------------------------------------------------------------------
out=$(post_pb "$tmp/fleet.pb" "$tmp/admin.token")
check "ingest 3 snapshots" '200 {"accepted":3,"duplicates":0}' "$out"
out=$(post_pb "$tmp/fleet.pb" "$tmp/admin.token")
check "the same batch again: duplicates" '200 {"accepted":0,"duplicates":3}' "$out"
check "duplicates are not stored twice" 3 "$(sql "$tmp/db" 'SELECT count(*) FROM snapshots')"
check_grep "every response advertises gzip" "Accept-Encoding: gzip" \
	"$(curl -s -D - -o /dev/null "$STORE_URL/healthz")"

# --- queries: hand-computed answers ---------------------------------------------
out=$(http GET /v1/hosts "$tmp/read.token")
check "hosts status" 200 "${out%% *}"
json=${out#* }
check "hosts listed" "db-1 web-1" "$(jq -r '[.hosts[].host] | join(" ")' <<<"$json")"
check "hosts: latest seq" 2 "$(jq '.hosts[] | select(.host == "web-1") | .seq' <<<"$json")"
check "hosts: kernel" 6.12.0-test "$(jq -r '.hosts[0].kernel' <<<"$json")"
check "hosts: memory" $((16 << 30)) "$(jq '.hosts[1].mem_total_bytes' <<<"$json")"
check "hosts: lruvecs" 3 "$(jq '.hosts[1].lruvecs' <<<"$json")"
check "hosts: warnings, host codes first" 'db-1:[] web-1:["damon_active","thp_unaged"]' \
	"$(jq -r '[.hosts[] | "\(.host):\(.warnings | tojson)"] | join(" ")' <<<"$json")"

json=$(http GET '/v1/cold?threshold=2m' "$tmp/read.token")
json=${json#* }
check "cold by host: order" "db-1 web-1" "$(jq -r '[.rows[].host] | join(" ")' <<<"$json")"
check "cold web-1 2m" $((8000 * P)) "$(jq '.rows[1].cold_bytes' <<<"$json")"
check "hot web-1 2m" $((8410 * P)) "$(jq '.rows[1].hot_bytes' <<<"$json")"
check "cold db-1 2m" $((10000 * P)) "$(jq '.rows[0].cold_bytes' <<<"$json")"
check "cold total" $((18000 * P)) "$(jq '.total.cold_bytes' <<<"$json")"
check "cold by host: warnings" '[[],["damon_active","thp_unaged"]]' "$(jq -c '[.rows[].warnings]' <<<"$json")"
check "cold total: warnings of any row" '["damon_active","thp_unaged"]' "$(jq -c '.total.warnings' <<<"$json")"
json=$(http GET '/v1/cold?threshold=3m' "$tmp/read.token")
json=${json#* }
check "3m uses the next fixed threshold" 300000 "$(jq '.effective_threshold_ms' <<<"$json")"
check "cold web-1 at 5m" 0 "$(jq '.rows[] | select(.host == "web-1") | .cold_bytes' <<<"$json")"
check "cold db-1 at 5m" $((10000 * P)) "$(jq '.rows[] | select(.host == "db-1") | .cold_bytes' <<<"$json")"
json=$(http GET '/v1/cold?by=node' "$tmp/read.token")
json=${json#* }
check "cold by node" "db-1:0:$((10000 * P)) web-1:0:$((8000 * P)) web-1:1:0" \
	"$(jq -r '[.rows[] | "\(.host):\(.node):\(.cold_bytes)"] | join(" ")' <<<"$json")"
check "node total web-1:1" $((400 * P)) "$(jq '.rows[2].total_bytes' <<<"$json")"
check "cold by node: a node's own lruvec warnings" '[[],["thp_unaged"],[]]' \
	"$(jq -c '[.rows[].warnings]' <<<"$json")"
json=$(http GET '/v1/cold?by=memcg&memcg_glob=/jobs/*' "$tmp/read.token")
json=${json#* }
check "cold by memcg" "db-1/jobs/db:$((10000 * P)) web-1/jobs/batch:$((5000 * P)) web-1/jobs/web:$((3000 * P))" \
	"$(jq -r '[.rows[] | "\(.host)\(.memcg):\(.cold_bytes)"] | join(" ")' <<<"$json")"
check "memcg web sums its nodes" $((10400 * P)) \
	"$(jq '.rows[] | select(.memcg == "/jobs/web") | .total_bytes' <<<"$json")"
check "cold by memcg: warnings of the memcg's lruvecs" \
	'/jobs/db:[] /jobs/batch:[] /jobs/web:["thp_unaged"]' \
	"$(jq -r '[.rows[] | "\(.memcg):\(.warnings | tojson)"] | join(" ")' <<<"$json")"
json=$(http GET '/v1/cold?by=memcg&memcg_glob=/jobs/w*&limit=1' "$tmp/read.token")
check "cold glob prefix" '["/jobs/web"]' "$(jq -c '[.rows[].memcg]' <<<"${json#* }")"

# rank: offer = free + cold(2m); web-1 3G + 8000 pages, db-1 4G + 10000 pages
json=$(http GET '/v1/rank?need=3G' "$tmp/read.token")
json=${json#* }
check "rank 3G: both fit, best first" "db-1 web-1" "$(jq -r '[.rows[].host] | join(" ")' <<<"$json")"
check "rank offer db-1" $(((4 << 30) + 10000 * P)) "$(jq '.rows[0].offer_bytes' <<<"$json")"
check "rank candidates" 2 "$(jq '.candidates' <<<"$json")"
check "rank: warnings" '[[],["damon_active","thp_unaged"]]' "$(jq -c '[.rows[].warnings]' <<<"$json")"
json=$(http GET '/v1/rank?need=4300000000' "$tmp/read.token")
json=${json#* }
check "rank 4.3G: only db-1" '["db-1"]' "$(jq -c '[.rows[].host]' <<<"$json")"
check "rank: from free" $((4 << 30)) "$(jq '.rows[0].from_free_bytes' <<<"$json")"
check "rank: from cold" $((4300000000 - (4 << 30))) "$(jq '.rows[0].from_cold_bytes' <<<"$json")"
check "rank 5G: nobody" 0 "$(http GET '/v1/rank?need=5G' "$tmp/read.token" | cut -d' ' -f2- | jq .candidates)"
json=$(http GET '/v1/rank?need=1G&per_node=1' "$tmp/read.token")
json=${json#* }
check "rank per node" "db-1:0 web-1:1 web-1:0" "$(jq -r '[.rows[] | "\(.host):\(.node)"] | join(" ")' <<<"$json")"
check "rank per node offer" $(((1 << 30) + 8000 * P)) "$(jq '.rows[2].offer_bytes' <<<"$json")"
check "rank per node: warnings" '[[],[],["thp_unaged"]]' "$(jq -c '[.rows[].warnings]' <<<"$json")"

# capacity at 2m and 5m
json=$(http GET '/v1/capacity?thresholds=2m,5m' "$tmp/read.token")
json=${json#* }
check "capacity memory" $((32 << 30)) "$(jq '.mem_total_bytes' <<<"$json")"
check "capacity in generations" $((76410 * P)) "$(jq '.in_generations_bytes' <<<"$json")"
check "capacity cold 2m, 5m" "$((18000 * P)) $((10000 * P))" \
	"$(jq -r '[.thresholds[].cold_bytes] | join(" ")' <<<"$json")"
check "capacity hot 5m" $((66410 * P)) "$(jq '.thresholds[1].hot_bytes' <<<"$json")"
check "capacity: hosts per warning" '{"damon_active":1,"thp_unaged":1}' "$(jq -c '.warnings' <<<"$json")"

# wss: /jobs/web on web-1 was 11400 then 7400 pages hot at 2m (both nodes)
# check_wss NAME POOLED_SAMPLES
check_wss() {
	local json
	json=$(http GET '/v1/wss?memcg_glob=/jobs/[bdw]*&window=1d&percentile=50' "$tmp/read.token")
	json=${json#* }
	check "wss $1: jobs" "/jobs/batch /jobs/db /jobs/web" "$(jq -r '[.jobs[].memcg] | join(" ")' <<<"$json")"
	check "wss $1: web samples" 2 "$(jq '.jobs[2].samples' <<<"$json")"
	# its two samples are 60 s apart: one clock hour or two, flushed to wss_hourly or not
	check "wss $1: web's hours" true "$(jq '.jobs[2].hours | . == 1 or . == 2' <<<"$json")"
	check "wss $1: web p50" $((7400 * P)) "$(jq '.jobs[2].p50_bytes' <<<"$json")"
	check "wss $1: web p95" $((11400 * P)) "$(jq '.jobs[2].p95_bytes' <<<"$json")"
	check "wss $1: recommendation at p50" $((7400 * P)) "$(jq '.jobs[2].recommended_bytes' <<<"$json")"
	check "wss $1: db max" $((50000 * P)) "$(jq '.jobs[1].max_bytes' <<<"$json")"
	check "wss $1: pooled" "$2 $((50000 * P))" "$(jq -r '"\(.all.samples) \(.all.max_bytes)"' <<<"$json")"
	check "wss $1: web's warned samples" '["thp_unaged"] {"thp_unaged":1}' \
		"$(jq -c '.jobs[2] | .warnings, .warning_samples' <<<"$json" | paste -sd' ')"
	check "wss $1: db unwarned" '[] {}' "$(jq -c '.jobs[1] | .warnings, .warning_samples' <<<"$json" | paste -sd' ')"
	check "wss $1: pooled warnings" '{"thp_unaged":1}' "$(jq -c '.all.warning_samples' <<<"$json")"
}
check_wss "before restart" 4

# timeline: 2 snapshots x (4 + 2) generations of /jobs/web
json=$(http GET '/v1/timeline?host=web-1&memcg=/jobs/web&since=1h' "$tmp/read.token")
json=${json#* }
check "timeline points" 12 "$(jq '.points' <<<"$json")"
check "timeline lruvecs" "0 1" "$(jq -r '[.lruvecs[].node] | join(" ")' <<<"$json")"
check "timeline birth = taken - age" 600000 \
	"$(jq '.lruvecs[0].points[0] | .[0] - .[2]' <<<"$json")"
check "timeline anon bytes" $((8000 * P)) "$(jq '.lruvecs[0].points[3][3]' <<<"$json")"
check "timeline on one axis" "$(jq '.snapshots[1].taken_at_ms' <<<"$json")" \
	"$(jq '.lruvecs[0].points[4][0]' <<<"$json")"
check "timeline: an lruvec's warnings in the window" '[["thp_unaged"],[]]' \
	"$(jq -c '[.lruvecs[].warnings]' <<<"$json")"

# --- latest: each host's latest snapshot as one SnapshotBatch -----------------------
# latest QUERY [TOKENFILE]: the status; the body in $tmp/latest.pb
latest() {
	local auth=()
	[[ -n ${2:-} ]] && auth=(-H "Authorization: Bearer $(cat "$2")")
	curl -skg -o "$tmp/latest.pb" -w '%{http_code}' "${auth[@]}" "$STORE_URL/v1/latest$1"
}
check "latest: 200" 200 "$(latest "" "$tmp/read.token")"
check_grep "latest: a protobuf answer" "^Content-Type: application/x-protobuf" \
	"$(curl -sk -D - -o /dev/null -H "Authorization: Bearer $(cat "$tmp/read.token")" \
		"$STORE_URL/v1/latest" | tr -d '\r')"
dump=$("$LRUGEN_BUILD/tests/tools/pbdump" "$tmp/latest.pb")
check "latest: every host by name, at its latest seq" "db-1:1 web-1:2" \
	"$(jq -r '[.[] | "\(.host):\(.seq)"] | join(" ")' <<<"$dump")"
check "latest: kernel and host warnings" '6.1.0-test ["damon_active"]' \
	"$(jq -r '.[1] | "\(.kernel) \(.warnings | tojson)"' <<<"$dump")"
check "latest: node memory" "$((1 << 30)) $((2 << 30))" "$(jq -r '[.[1].nodes[].free_bytes] | join(" ")' <<<"$dump")"
check "latest: web-1's lruvecs" "/jobs/batch:0 /jobs/web:0 /jobs/web:1" \
	"$(jq -r '[.[1].lruvecs[] | "\(.memcg):\(.node)"] | sort | join(" ")' <<<"$dump")"
check "latest: the latest generations (not seq 1's 8000 pages)" "1000 2000 3000 4000" \
	"$(jq -r '.[1].lruvecs[] | select(.memcg == "/jobs/web" and .node == 0) |
		[.generations[].anon_pages] | join(" ")' <<<"$dump")"
check "latest: ages as read" "600000 300000 150000 10000" \
	"$(jq -r '.[1].lruvecs[] | select(.memcg == "/jobs/web" and .node == 0) |
		[.generations[].age_ms] | join(" ")' <<<"$dump")"
check "latest: an lruvec's warnings" '["thp_unaged"]' \
	"$(jq -c '.[1].lruvecs[] | select(.memcg == "/jobs/web" and .node == 0) | .warnings' <<<"$dump")"
check "latest?host=db-1" "db-1:/jobs/db" "$(latest '?host=db-1' "$tmp/read.token" >/dev/null
	"$LRUGEN_BUILD/tests/tools/pbdump" "$tmp/latest.pb" | jq -r '[.[] | "\(.host):\(.lruvecs[].memcg)"] | join(" ")')"
check "latest?memcg_glob: only matching lruvecs, every host" "db-1:0 web-1:2" \
	"$(latest '?memcg_glob=/jobs/w*' "$tmp/read.token" >/dev/null
	"$LRUGEN_BUILD/tests/tools/pbdump" "$tmp/latest.pb" | jq -r '[.[] | "\(.host):\(.lruvecs | length)"] | join(" ")')"
check "latest: no token" 401 "$(latest "")"
check "latest: an ingest token" 403 "$(latest "" "$tmp/web1.token")"
check "latest: unknown parameter" 400 "$(latest '?lmit=3' "$tmp/read.token")"
check_grep "latest: says which" "unknown parameter 'lmit'" "$(cat "$tmp/latest.pb")"
check "latest: unknown host" 404 "$(latest '?host=nope' "$tmp/read.token")"
# latest_hosts QUERY: the hosts of the answer, "name:seq ..."
latest_hosts() {
	latest "$1" "$tmp/read.token" >/dev/null
	"$LRUGEN_BUILD/tests/tools/pbdump" "$tmp/latest.pb" | jq -r '[.[] | "\(.host):\(.seq)"] | join(" ")'
}
# paging: limit N hosts by name, after NAME
check "latest?limit=1: the first host" "db-1:1" "$(latest_hosts '?limit=1')"
check "latest?after=db-1&limit=1: the next" "web-1:2" "$(latest_hosts '?after=db-1&limit=1')"
check "latest?after=web-1: none after the last" "" "$(latest_hosts '?after=web-1')"
check "latest?host&limit: refused" 400 "$(latest '?host=db-1&limit=1' "$tmp/read.token")"
check_grep "latest?host&limit: says why" "'host' names one host" "$(cat "$tmp/latest.pb")"
check "latest?limit=x: refused" 400 "$(latest '?limit=x' "$tmp/read.token")"
# gzip when asked: the same SnapshotBatch, smaller on the wire
hdr=$(curl -sk -D - -o "$tmp/latest.gz" -H "Accept-Encoding: gzip" \
	-H "Authorization: Bearer $(cat "$tmp/read.token")" "$STORE_URL/v1/latest" | tr -d '\r')
check_grep "latest: gzipped when the client takes it" "^Content-Encoding: gzip" "$hdr"
latest "" "$tmp/read.token" >/dev/null
check "latest: gzipped, the same bytes" "$(sha256sum <"$tmp/latest.pb")" "$(gunzip -c "$tmp/latest.gz" | sha256sum)"
check "latest: not gzipped when q=0" 0 "$(curl -sk -D - -o /dev/null -H "Accept-Encoding: gzip;q=0" \
	-H "Authorization: Bearer $(cat "$tmp/read.token")" "$STORE_URL/v1/latest" | grep -ci '^content-encoding')"
# changed_since: the hosts whose latest snapshot came at or after the as-of time of an answer
as_of=$(sed -n 's/^X-Lrugen-As-Of: //p' <<<"$hdr")
check_grep "latest: names the time it is complete for" "^[0-9]{13}$" "$as_of"
check "latest?changed_since=as-of: nothing new" "" "$(latest_hosts "?changed_since=$as_of")"
check "latest?changed_since=0: everything" "db-1:1 web-1:2" "$(latest_hosts '?changed_since=0')"
printf 'host db-1 seq 7 taken -1s\nnode 0 total 16G free 4G\nlruvec /jobs/db node 0\ngen 1 60s 10 20\n' |
	"$FLEETSIM" build >"$tmp/db7.pb"
check "a newer db-1 snapshot" '200 {"accepted":1,"duplicates":0}' "$(post_pb "$tmp/db7.pb" "$tmp/admin.token")"
check "latest?changed_since=as-of: only the host that changed" "db-1:7" "$(latest_hosts "?changed_since=$as_of")"
check "latest?changed_since=abc: refused" 400 "$(latest '?changed_since=abc' "$tmp/read.token")"
check_grep "latest: its own metrics label" 'route="latest",code="200"' "$(curl -sk "$STORE_URL/metrics")"

# --- bad query parameters: 400/404 with a reason ------------------------------------
check_grep "bad threshold" '^400 .*parameter .threshold.*unknown unit' "$(http GET '/v1/cold?threshold=3q' "$tmp/read.token")"
check_grep "threshold above 24h" '^400 .*24h' "$(http GET '/v1/cold?threshold=2d' "$tmp/read.token")"
check_grep "bad by" "^400 .*host, node or memcg" "$(http GET '/v1/cold?by=rack' "$tmp/read.token")"
check_grep "unknown parameter" "^400 .*unknown parameter 'thresh'" "$(http GET '/v1/cold?thresh=2m' "$tmp/read.token")"
check_grep "rank needs need" "^400 .*'need' is required" "$(http GET '/v1/rank' "$tmp/read.token")"
check_grep "bad percentile" "^400 .*percentile" "$(http GET '/v1/wss?memcg_glob=/x&percentile=101' "$tmp/read.token")"
check_grep "wss: no match" "^404 .*no memcg path matches" "$(http GET '/v1/wss?memcg_glob=/nope*' "$tmp/read.token")"
check_grep "timeline: unknown host" "^404 .*no host 'nope'" "$(http GET '/v1/timeline?host=nope' "$tmp/read.token")"
check_grep "timeline: limit 0" "^400 .*'limit': at least 1 point" \
	"$(http GET '/v1/timeline?host=web-1&limit=0' "$tmp/read.token")"
check_grep "timeline: limit over the maximum" "^400 .*limit" \
	"$(http GET '/v1/timeline?host=web-1&limit=99999999' "$tmp/read.token")"
for cursor in junk 1.2 1.2.-3 1.2.3x '1.2.3%0a'; do
	check_grep "timeline: bad cursor '$cursor'" "^400 .*'after': .* is not a cursor" \
		"$(http GET "/v1/timeline?host=web-1&after=$cursor" "$tmp/read.token")"
done
check_grep "unknown endpoint" "^404 " "$(http GET /v1/nothing "$tmp/read.token")"
check_grep "GET on ingest" "^405 " "$(http GET /v1/snapshots "$tmp/admin.token")"
check_grep "POST on a query" "^405 " "$(http POST /v1/hosts "$tmp/read.token")"

# --- the auth matrix ---------------------------------------------------------------
"$FLEETSIM" build >"$tmp/db2.pb" <<'EOF'
host db-1 boot b-9 seq 2 taken -5s
lruvec /jobs/db ino 300 node 0
gen 1 1s 1 1
EOF
check "ingest: no token" '401 {"error":"unauthorized"}' "$(post_pb "$tmp/web.pb" -)"
printf 'wrong\n' >"$tmp/wrong.token"
check "ingest: unknown token" '401 {"error":"unauthorized"}' "$(post_pb "$tmp/web.pb" "$tmp/wrong.token")"
check "ingest: read token" '403 {"error":"forbidden"}' "$(post_pb "$tmp/web.pb" "$tmp/read.token")"
check "ingest: web-1 token, web-1 batch" '200 {"accepted":0,"duplicates":2}' "$(post_pb "$tmp/web.pb" "$tmp/web1.token")"
check "ingest: web-1 token, db-1 batch" '403 {"error":"forbidden"}' "$(post_pb "$tmp/db2.pb" "$tmp/web1.token")"
check "ingest: web-1 token, mixed batch" '403 {"error":"forbidden"}' "$(post_pb "$tmp/fleet.pb" "$tmp/web1.token")"
check "ingest: host=* token" '200 {"accepted":1,"duplicates":0}' "$(post_pb "$tmp/db2.pb" "$tmp/any.token")"
check "forbidden batches write nothing (3 + db-1 seq 7 + this one)" 5 "$(sql "$tmp/db" 'SELECT count(*) FROM snapshots')"
check_grep "401 has WWW-Authenticate" "WWW-Authenticate: Bearer" \
	"$(curl -s -D - -o /dev/null "$STORE_URL/v1/hosts")"
check "query: no token" '401 {"error":"unauthorized"}' "$(http GET /v1/hosts -)"
check "query: ingest token" '403 {"error":"forbidden"}' "$(http GET /v1/hosts "$tmp/any.token")"
check "query: admin token" 200 "$(http GET /v1/hosts "$tmp/admin.token" | cut -d' ' -f1)"
check "query: wrong scheme" 401 "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Basic $(cat "$tmp/read.token")" "$STORE_URL/v1/hosts")"
check "metrics without a token" 200 "$(http GET /metrics - | head -c 3)"
check "healthz without a token" 200 "$(http GET /healthz - | cut -d' ' -f1)"

# --- bad ingest input: a clear error, nothing stored ---------------------------------
head -c 100 "$tmp/fleet.pb" >"$tmp/trunc.pb"
check_grep "truncated protobuf" '^400 \{"error":"malformed SnapshotBatch: ' "$(post_pb "$tmp/trunc.pb" "$tmp/admin.token")"
head -c 3000 /dev/urandom >"$tmp/junk.pb"
check_grep "random bytes" '^400 \{"error":"malformed SnapshotBatch' "$(post_pb "$tmp/junk.pb" "$tmp/admin.token")"
check "empty batch" '200 {"accepted":0,"duplicates":0}' "$(post_pb /dev/null "$tmp/admin.token")"
check_grep "wrong content type" '^415 .*application/x-protobuf' \
	"$(http POST /v1/snapshots "$tmp/admin.token" -H 'Content-Type: application/json' --data-binary @"$tmp/web.pb")"
check_grep "no content type" '^415 ' \
	"$(http POST /v1/snapshots "$tmp/admin.token" -H 'Content-Type:' --data-binary @"$tmp/web.pb")"
check_grep "unknown content encoding" '^415 .*gzip or identity' \
	"$(post_pb "$tmp/web.pb" "$tmp/admin.token" -H 'Content-Encoding: br')"
head -c 2M /dev/zero >"$tmp/huge.pb"
check_grep "body above max-body" '^413 ' "$(post_pb "$tmp/huge.pb" "$tmp/admin.token")"
check_grep "chunked body above max-body" '^413 ' \
	"$(post_pb "$tmp/huge.pb" "$tmp/admin.token" -H 'Transfer-Encoding: chunked')"
gzip -c "$tmp/fleet.pb" >"$tmp/fleet.pb.gz"
check "gzip body" '200 {"accepted":0,"duplicates":3}' \
	"$(post_pb "$tmp/fleet.pb.gz" "$tmp/admin.token" -H 'Content-Encoding: gzip')"
head -c 200M /dev/zero | gzip -1 >"$tmp/bomb.gz"
check_grep "gzip bomb: 413, not OOM" '^413 .*after gzip decompression' \
	"$(post_pb "$tmp/bomb.gz" "$tmp/admin.token" -H 'Content-Encoding: gzip')"
head -c 60 "$tmp/fleet.pb.gz" >"$tmp/cut.gz"
check_grep "truncated gzip" '^400 .*gzip body is corrupt' \
	"$(post_pb "$tmp/cut.gz" "$tmp/admin.token" -H 'Content-Encoding: gzip')"
printf '\x0a\x02\x18\x01' >"$tmp/nohost.pb"	# one HostSnapshot with only seq=1
check_grep "snapshot without a host" '^400 .*snapshot 0: host name is empty' "$(post_pb "$tmp/nohost.pb" "$tmp/admin.token")"
# the bounds table (lib/lru_bounds.h): each refused with its reason, nothing stored
before=$(sql "$tmp/db" 'SELECT count(*) FROM snapshots')
bounds() {	# NAME REASON SPEC-LINES...
	local name=$1 why=$2
	shift 2
	printf '%s\n' "$@" | "$FLEETSIM" build >"$tmp/bound.pb" || { fail "$name: fleetsim"; return; }
	check_grep "bounds: $name" "^400 \{\"error\":\"snapshot 0: $why" \
		"$(post_pb "$tmp/bound.pb" "$tmp/admin.token")"
}
future=$(($(date +%s%3N) + 6 * 60000))
bounds "6 min ahead of the store (max-clock-skew 5m)" "read start [0-9]+ ms is not between 2000-01-01" \
	"host web-1 seq 99 taken @$future"
bounds "before 2000" "read start [0-9]+ ms is not between" "host web-1 seq 99 taken @1000"
bounds "a birth before 2000" "lruvec '/a' node 0: generation 1 birth .* not between 2000-01-01" \
	"host web-1 seq 99 taken @946684900000" "lruvec /a node 0" "gen 1 600s 1 0"
bounds "seq 2^64-1" "seq 18446744073709551615 is above 2\\^63-1" \
	"host web-1 seq 18446744073709551615 taken -1s"
bounds "seq 2^63" "seq 9223372036854775808 is above" "host web-1 seq 9223372036854775808 taken -1s"
bounds "node total 2^64-1" "node 0: total_bytes 18446744073709551615 is above 4503599627370496" \
	"host web-1 seq 99 taken -1s" "node 0 total 18446744073709551615 free 1G"
bounds "8 EiB free" "node 0: free_bytes 9223372036854775808 is above 17179869184" \
	"host web-1 seq 99 taken -1s" "node 0 total 16G free 9223372036854775808"
bounds "a generation above 4 PiB" "lruvec '/a' node 0: generation 1 holds more than 4 PiB" \
	"host web-1 seq 99 taken -1s" "lruvec /a node 0" "gen 1 60s 18446744073709551615 0"
# lrugen's encoder sends UTF-8 only (invalid bytes as the text \xNN): put the
# bytes in the wire with sed, the same length, as another sender would
bounds_raw() {	# NAME REASON FROM TO SPEC-LINES...
	local name=$1 why=$2 from=$3 to=$4
	shift 4
	printf '%s\n' "$@" | "$FLEETSIM" build | LC_ALL=C sed "s/$from/$to/" >"$tmp/bound.pb"
	check_grep "bounds: $name" "^400 \{\"error\":\"snapshot 0: $why" \
		"$(post_pb "$tmp/bound.pb" "$tmp/admin.token")"
}
bounds_raw "a host name not UTF-8" "host name 'web\\\\\\\\xff\\\\\\\\xfe-1' is not UTF-8" \
	QQ '\xff\xfe' "host webQQ-1 seq 1 taken -1s"
bounds_raw "a memcg path not UTF-8" "memcg path '/bad\\\\\\\\xc0' is not UTF-8" \
	'dQ' 'd\xc0' "host web-1 seq 99 taken -1s" "lruvec /badQ node 0" "gen 1 60s 1 0"
check "bounds: nothing stored" "$before" "$(sql "$tmp/db" 'SELECT count(*) FROM snapshots')"
# SQL-looking memcg paths are data
"$FLEETSIM" build >"$tmp/evil.pb" <<'EOF'
host evil-1 seq 1 taken -5s
lruvec /jobs/x');DROP/**/TABLE/**/hosts;-- ino 1 node 0
gen 1 300s 7 0
gen 2 1s 1 0
EOF
check "SQL-looking path accepted" '200 {"accepted":1,"duplicates":0}' "$(post_pb "$tmp/evil.pb" "$tmp/admin.token")"
json=$(curl -s -H "Authorization: Bearer $(cat "$tmp/read.token")" -G "$STORE_URL/v1/cold" \
	--data-urlencode by=memcg --data-urlencode "memcg_glob=/jobs/x'*")
check "SQL-looking path returned verbatim" "/jobs/x');DROP/**/TABLE/**/hosts;--" "$(jq -r '.rows[0].memcg' <<<"$json")"
check "hosts table intact" 3 "$(sql "$tmp/db" 'SELECT count(*) FROM hosts')"
check "store still answers" 3 "$(http GET /v1/hosts "$tmp/read.token" | cut -d' ' -f2- | jq '.hosts | length')"

metrics=$(http GET /metrics -)
if command -v promtool >/dev/null; then
	out=$(promtool check metrics <<<"${metrics#* }" 2>&1)
	check "store /metrics: promtool check metrics is clean" "0:" "$?:$out"
else
	fail "promtool not installed (scripts/install-deps installs prometheus)"
fi
# contrib/prometheus: the rules check, their unit tests pass, and every store metric
# they name is one this store exports (lrugend's: tests/sh/collector_metrics.sh)
rules=$LRUGEN_SRC/contrib/prometheus/lrugen.rules.yml
check_rc "promtool check rules contrib/prometheus" 0 promtool check rules "$rules"
check_rc "promtool test rules: each alert fires where it should, only there" 0 \
	promtool test rules "${rules%.yml}.test.yml"
for name in $(grep -oE '\blrugen_store_[a-z_]+' "$rules" | sort -u); do
	check_grep "rules name an exported metric: $name" "^# TYPE $name " "$metrics"
done
# contrib/grafana: every query parses (as a recording rule, with the dashboard's
# variables set), every store metric it names is exported
dash=$LRUGEN_SRC/contrib/grafana/lrugen-fleet.json
{
	echo "groups: [{name: dashboard, rules: ["
	jq -r '[.. | .expr? // empty] | to_entries[] | "{record: \"dashboard:q\(.key)\", expr: \(.value | gsub("\\$T"; "120") | gsub("\\$memcg"; ".*") | tojson)},"' "$dash"
	echo "]}]"
} >"$tmp/dash.rules.yml"
check_rc "contrib/grafana: every query is valid PromQL" 0 promtool check rules "$tmp/dash.rules.yml"
check "contrib/grafana: queries checked" "$(jq '[.. | .expr? // empty] | length' "$dash")" \
	"$(grep -c 'record: ' "$tmp/dash.rules.yml")"
for name in $(jq -r '.. | .expr? // empty' "$dash" | grep -oE '\blrugen_store_[a-z_]+' | sed -E 's/_(bucket|sum|count)$//' | sort -u); do
	check_grep "the dashboard names an exported metric: $name" "^# TYPE $name " "$metrics"
done
check_grep "metrics: accepted" 'lrugen_store_snapshots_total\{result="accepted"\} 6' "$metrics"
check_grep "metrics: rejects" 'lrugen_store_ingest_rejected_total\{reason="forbidden"\} [1-9]' "$metrics"
check_grep "metrics: latency" 'lrugen_store_request_seconds_count\{route="ingest"\} [0-9]' "$metrics"
check_grep "metrics: db size" 'lrugen_store_db_bytes\{file="db"\} [1-9]' "$metrics"

# --- restart: the data and the rollups survive ------------------------------------------
stop_store
check "clean stop exit code" 0 "$STORE_RC"
check_grep "stop is logged" "stopped" "$(cat "$STORE_LOG")"
start_store "$tmp" --config "$tmp/tokens.conf" || { finish; exit 1; }
json=$(http GET '/v1/cold?threshold=2m' "$tmp/read.token")
check "after restart: cold web-1" $((8000 * P)) "$(jq '.rows[] | select(.host == "web-1") | .cold_bytes' <<<"${json#* }")"
check_wss "after restart" 6
check "after restart: duplicates still known" '200 {"accepted":0,"duplicates":3}' "$(post_pb "$tmp/fleet.pb" "$tmp/admin.token")"

# kill -9 before the rollups were flushed: recounted from the raw snapshots at start
kill_store
start_store "$tmp" --config "$tmp/tokens.conf" || { finish; exit 1; }
check_wss "after kill -9" 6

# --- schema migration: a version-1 database keeps its data and takes warnings ------
# The version-1 schema as that lrugen-store created it (fleetsim prints the
# migrations up to 1), filled with the rows a store writes for the fleet
# without its warnings: warnings aside, what it writes is what version 1 wrote
# (an unwarned lruvec packs as it always did; test_fleet checks that).
stop_store
mkdir "$tmp/new" "$tmp/mig"
sed 's/ warn [a-z_,]*//' "$tmp/fleet.spec" >"$tmp/plain.spec"
"$FLEETSIM" build "$tmp/plain.spec" >"$tmp/plain.pb"
start_store "$tmp/new" --config "$tmp/tokens.conf" || { finish; exit 1; }
check "migration: the fleet for the old database" '200 {"accepted":3,"duplicates":0}' \
	"$(post_pb "$tmp/plain.pb" "$tmp/admin.token")"
stop_store
"$FLEETSIM" schema 1 | sqlite3 "$tmp/mig/db"
check "migration: a version-1 database" 1 "$(sql "$tmp/mig/db" 'PRAGMA user_version')"
check "migration: version 1 has no warnings" 0 \
	"$(sql "$tmp/mig/db" "SELECT count(*) FROM pragma_table_info('hosts') WHERE name LIKE '%warnings'")"
for t in meta hosts host_nodes paths snapshots memcg_latest wss_hourly; do
	cols=$(sql "$tmp/mig/db" "SELECT group_concat(name, ', ') FROM pragma_table_info('$t')")
	sql "$tmp/mig/db" "ATTACH '$tmp/new/db' AS n; INSERT OR REPLACE INTO main.$t($cols) SELECT $cols FROM n.$t" ||
		fail "migration: copying $t"
done
counts="SELECT (SELECT count(*) FROM hosts), (SELECT count(*) FROM host_nodes), (SELECT count(*) FROM snapshots), (SELECT count(*) FROM memcg_latest), (SELECT sum(samples) FROM wss_hourly)"
check "migration: version-1 rows" "2|3|3|3|4" "$(sql "$tmp/mig/db" "$counts")"
out=$("$STORE_BIN" --db "$tmp/mig/db" --migrate 2>&1)
check "migration: --migrate exit code" 0 $?
check_grep "migration: logged" "migrated to schema version 2" "$out"
check "migration: version 2" 2 "$(sql "$tmp/mig/db" 'PRAGMA user_version')"
check "migration: the rows are all there" "2|3|3|3|4" "$(sql "$tmp/mig/db" "$counts")"
check "migration: warning columns, nothing warned" "0|0|0|0|0" "$(sql "$tmp/mig/db" \
	"SELECT (SELECT sum(host_warnings) FROM hosts), (SELECT sum(warnings) FROM hosts), (SELECT sum(warnings) FROM host_nodes), (SELECT sum(warnings) FROM memcg_latest), (SELECT count(warnings) FROM wss_hourly)")"
check "migration: --migrate again changes nothing" "" \
	"$("$STORE_BIN" --db "$tmp/mig/db" --migrate 2>&1 | grep migrated)"

start_store "$tmp/mig" --config "$tmp/tokens.conf" --rollup-flush 1h || { finish; exit 1; }
json=$(http GET /v1/hosts "$tmp/read.token")
check "migrated: hosts and their warnings" 'db-1:1:[] web-1:2:[]' \
	"$(jq -r '[.hosts[] | "\(.host):\(.seq):\(.warnings | tojson)"] | join(" ")' <<<"${json#* }")"
json=$(http GET '/v1/cold?by=memcg' "$tmp/read.token")
check "migrated: cold web-1 /jobs/web" "$((3000 * P)) []" \
	"$(jq -r '.rows[] | select(.memcg == "/jobs/web") | "\(.cold_bytes) \(.warnings)"' <<<"${json#* }")"
json=$(http GET '/v1/wss?memcg_glob=/jobs/web&window=1d&percentile=50' "$tmp/read.token")
check "migrated: the hourly rollups" "2 $((7400 * P)) {}" \
	"$(jq -r '.jobs[0] | "\(.samples) \(.p50_bytes) \(.warning_samples)"' <<<"${json#* }")"
json=$(http GET '/v1/timeline?host=web-1&memcg=/jobs/web&since=1h' "$tmp/read.token")
check "migrated: the raw snapshots" "12 [[],[]]" \
	"$(jq -r '"\(.points) \([.lruvecs[].warnings] | tojson)"' <<<"${json#* }")"
# new snapshots on the migrated database: warned, then (seq 4) no longer
"$FLEETSIM" build >"$tmp/warned.pb" <<'EOF'
host web-1 boot b-1 seq 3 taken -20s kernel 6.1.0-test warn damon_active
node 0 total 8G free 1G
lruvec /jobs/web ino 100 id 5 node 0 warn thp_unaged
gen 10 600s 1000 0
gen 11 10s 2000 0
EOF
check "migrated: a warned snapshot" '200 {"accepted":1,"duplicates":0}' "$(post_pb "$tmp/warned.pb" "$tmp/admin.token")"
json=$(http GET /v1/hosts "$tmp/read.token")
check "migrated: warned host" '["damon_active","thp_unaged"]' \
	"$(jq -c '.hosts[] | select(.host == "web-1") | .warnings' <<<"${json#* }")"
check "migrated: the warned lruvec in its raw row" 1 \
	"$(http GET '/v1/timeline?host=web-1&memcg=/jobs/web&since=1h' "$tmp/read.token" | cut -d' ' -f2- |
		jq '[.lruvecs[] | select(.warnings == ["thp_unaged"])] | length')"
# kill -9 before the rollups are flushed: the warned sample is recounted from the raw row
kill_store
start_store "$tmp/mig" --config "$tmp/tokens.conf" --rollup-flush 1h || { finish; exit 1; }
json=$(http GET '/v1/wss?memcg_glob=/jobs/web&window=1d' "$tmp/read.token")
check "recounted after kill -9: warned samples" '3 {"thp_unaged":1}' \
	"$(jq -r '.jobs[0] | "\(.samples) \(.warning_samples | tojson)"' <<<"${json#* }")"
"$FLEETSIM" build >"$tmp/clear.pb" <<'EOF'
host web-1 boot b-1 seq 4 taken -10s kernel 6.1.0-test
node 0 total 8G free 1G
lruvec /jobs/web ino 100 id 5 node 0
gen 10 600s 1000 0
gen 11 10s 2000 0
EOF
post_pb "$tmp/clear.pb" "$tmp/admin.token" >/dev/null
check "the latest snapshot rules: no longer warned" "[] [] {}" \
	"$(for q in /v1/hosts '/v1/cold?by=node' /v1/capacity; do http GET "$q" "$tmp/read.token" | cut -d' ' -f2-; done |
		jq -sc '[(.[0].hosts[] | select(.host == "web-1") | .warnings), ([.[1].rows[] | select(.host == "web-1") | .warnings[]]), .[2].warnings] | .[]' | paste -sd' ')"
json=$(http GET '/v1/timeline?host=web-1&memcg=/jobs/web&since=1h' "$tmp/read.token")
check "timeline: warned if any snapshot in the window was" '["thp_unaged"]' \
	"$(jq -c '.lruvecs[] | select(.node == 0) | .warnings' <<<"${json#* }")"
stop_store
check "flushed rollups keep the warned samples" "1" \
	"$(sql "$tmp/mig/db" 'SELECT count(*) FROM wss_hourly WHERE warnings IS NOT NULL')"
start_store "$tmp/mig" --config "$tmp/tokens.conf" || { finish; exit 1; }
json=$(http GET '/v1/wss?memcg_glob=/jobs/web&window=1d' "$tmp/read.token")
check "from wss_hourly: warned samples" '4 ["thp_unaged"] {"thp_unaged":1}' \
	"$(jq -r '.jobs[0] | "\(.samples) \(.warnings | tojson) \(.warning_samples | tojson)"' <<<"${json#* }")"
stop_store
check "the migrated store stops cleanly" 0 "$STORE_RC"
sql "$tmp/mig/db" 'PRAGMA user_version = 3'
check_grep "a newer schema is refused" "has schema version 3, newer than this lrugen-store knows \(2\)" \
	"$("$STORE_BIN" --db "$tmp/mig/db" --migrate 2>&1)"

# --- SIGHUP: tokens and log level from the config again; a bad file keeps the old --------
cp "$tmp/tokens.conf" "$tmp/hup.conf"
start_store "$tmp" --config "$tmp/hup.conf" || { finish; exit 1; }
printf 'token-new-%s\n' "$RANDOM$RANDOM" >"$tmp/new.token"
status_with() { http GET /v1/hosts "$1" | cut -d' ' -f1; }
check "before SIGHUP: the old read token" 200 "$(status_with "$tmp/read.token")"
check "before SIGHUP: the new token is unknown" 401 "$(status_with "$tmp/new.token")"
{
	grep -v '^read-token' "$tmp/tokens.conf"
	echo "read-token = $("$STORE_BIN" --hash-token <"$tmp/new.token")"
	echo "log-level = debug"
} >"$tmp/hup.conf"
kill -HUP "$STORE_PID"
wait_for "the reload's log line" 10 grep -q "reload: 4 tokens and log-level debug in effect" "$STORE_LOG" && pass
check "after SIGHUP: the new read token" 200 "$(status_with "$tmp/new.token")"
check "after SIGHUP: the old read token is refused" 401 "$(status_with "$tmp/read.token")"
check "after SIGHUP: the admin token still reads" 200 "$(status_with "$tmp/admin.token")"
check_grep "the reload names what changed" "config: log-level: 'info' -> 'debug'" "$(cat "$STORE_LOG")"
echo "no-such-setting = 1" >>"$tmp/hup.conf"
kill -HUP "$STORE_PID"
wait_for "the refused reload's log line" 10 grep -q "unknown setting 'no-such-setting'; keeping the old configuration" "$STORE_LOG" && pass
check "a bad file on SIGHUP keeps the tokens in effect" 200 "$(status_with "$tmp/new.token")"
stop_store
check "the store stops cleanly after reloads" 0 "$STORE_RC"

# --insecure-no-auth: loudly logged, no token needed
start_store "$tmp" --insecure-no-auth || { finish; exit 1; }
check_grep "insecure mode is loud" "insecure-no-auth: EVERY REQUEST IS ACCEPTED" "$(cat "$STORE_LOG")"
check_grep "insecure: the warning names the port it listens on" \
	"can reach ${STORE_URL#http://} can write" "$(cat "$STORE_LOG")"
check "insecure: query without a token" 200 "$(http GET /v1/hosts - | cut -d' ' -f1)"
check_grep "insecure: healthz says so" '"auth":"disabled"' "$(http GET /healthz -)"
finish
