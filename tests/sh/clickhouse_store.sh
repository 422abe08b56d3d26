# tests/sh/clickhouse_store.sh - lrugen-store with backend = clickhouse on a real
# 2 shards x 2 replicas cluster (tests/clickhouse/cluster): --migrate; the same
# fleetsim history into a sqlite store and into ClickHouse gives the same answer
# to every query; exactly once (a resend, one history sent to two front-ends at
# once); and faults, each checked by counting every acknowledged snapshot after
# it (none lost, none counted twice): kill -9 of a replica during ingest, a whole
# shard stopped while a real lrugend keeps collecting (it spools, then everything
# arrives), kill -9 of a front-end, ZooKeeper restarted, the cluster restarted.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
. "$(dirname "$0")/clickhouse-lib.bash"
LRUGEND=$LRUGEN_BUILD/lrugend
tmp=$(mktemp -d)
trap 'stop_all; ch_keep_logs; "$CLUSTER" clean "$tmp/ch" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

ch_cluster_start || { finish; exit; }
make_tokens "$tmp"
CH=(--backend clickhouse --clickhouse-url "$CLICKHOUSE_URLS" --clickhouse-cluster lrugen
	--clickhouse-user lrugen --clickhouse-password-file "$CLICKHOUSE_PASSWORD_FILE")

# ---- helpers (beside clickhouse-lib's) ------------------------------------------------
# conditions for wait_for
wss_samples() {
	curl -s -H "Authorization: Bearer $(cat "$tmp/read.token")" "$1/v1/wss?memcg_glob=*&window=1d" |
		jq .all.samples
}
same_samples() { [[ $(wss_samples "$SQ_URL") == "$(wss_samples "$A_URL")" ]]; }
acked_at_least() { [[ $(acked "$1") -ge $2 ]]; }
host_stored_at_least() {
	[[ $(chq "SELECT count() FROM lrugen.snapshots FINAL WHERE host = '$1'") -ge $2 ]] 2>/dev/null
}
lrugend_took_at_least() { [[ $(grep -c 'snapshot seq=' "$tmp/lrugend.log") -ge $1 ]]; }
stop_all() {
	stop_fe_all
	[[ -n ${LRUGEND_PID:-} ]] && kill -TERM "$LRUGEND_PID" 2>/dev/null && wait "$LRUGEND_PID"
}

# ---- startup ---------------------------------------------------------------------------
out=$("$STORE_BIN" "${CH[@]}" --config "$tmp/tokens.conf" --listen 127.0.0.1:0 2>&1)
check "no schema yet: refuses to start" 1 $?
check_grep "no schema yet: says to migrate" "run lrugen-store --migrate" "$out"
check_grep "a missing clickhouse-url is named" "backend clickhouse needs clickhouse-url" \
	"$("$STORE_BIN" --backend clickhouse --insecure-no-auth 2>&1)"
out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check "--migrate" 0 $?
check_grep "--migrate creates version 1" "schema version 1 created in database lrugen" "$out"
check_grep "... then version 2" "schema version 2 created in database lrugen" "$out"
check_grep "... then version 3" "schema version 3 created in database lrugen" "$out"
check_grep "... then version 4" "schema version 4 created in database lrugen" "$out"
check_grep "... then version 5" "schema version 5 created in database lrugen" "$out"
check_grep "... then version 6" "schema version 6 created in database lrugen" "$out"
check_grep "... then version 7" "schema version 7 created in database lrugen" "$out"
check_grep "... then version 8" "schema version 8 created in database lrugen" "$out"
check_grep "... then version 9" "schema version 9 created in database lrugen" "$out"
check_grep "--migrate again: current" "schema version 9 is current" "$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)"
# an upgrade: a database of version 1 is refused until --migrate brings it to 9. Version 8
# dropped what versions 1 to 7 had and nothing reads (nodes_latest, a row per host and node:
# version 7 fills host_nodes from it; memcgs_latest, a row per host and memcg: version 3
# fills memcgs_by_path and paths from it): old_tables makes them again as those versions
# made them (table, Distributed table, views), their rows from each server's own
# snapshots and samples (a shard's replicas hold the same hosts: their copies are one row
# to the replacing engines and to the fills)
NODE_COLS="node, node_mem_total, node_mem_free, node_total, node_cold, node_warnings"
MEMCG_COLS="host, path, taken_ms, total, cold, warnings"
old_tables() {
	local url
	chq "CREATE TABLE lrugen.nodes_latest_local ON CLUSTER lrugen (host String, node Int32,
		taken_ms UInt64, node_mem_total UInt64, node_mem_free UInt64, node_total UInt64,
		node_cold Array(UInt64), node_warnings UInt32) ENGINE = ReplicatedReplacingMergeTree(
		'/clickhouse/tables/{shard}/lrugen/nodes_latest', '{replica}', taken_ms)
		ORDER BY (host, node)" >/dev/null
	chq "CREATE TABLE lrugen.nodes_latest ON CLUSTER lrugen AS lrugen.nodes_latest_local
		ENGINE = Distributed(lrugen, lrugen, nodes_latest_local, sipHash64(host))" >/dev/null
	chq "CREATE MATERIALIZED VIEW lrugen.nodes_latest_mv ON CLUSTER lrugen TO lrugen.nodes_latest_local
		AS SELECT host, node, taken_ms, node_mem_total, node_mem_free, node_total, node_cold,
		node_warnings FROM lrugen.snapshots_local ARRAY JOIN $NODE_COLS" >/dev/null
	chq "CREATE TABLE lrugen.memcgs_latest_local ON CLUSTER lrugen (host String, path String,
		taken_ms UInt64, total UInt64, cold Array(UInt64), warnings UInt32)
		ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/lrugen/memcgs_latest',
		'{replica}', taken_ms) ORDER BY (host, path)" >/dev/null
	chq "CREATE TABLE lrugen.memcgs_latest ON CLUSTER lrugen AS lrugen.memcgs_latest_local
		ENGINE = Distributed(lrugen, lrugen, memcgs_latest_local, sipHash64(host))" >/dev/null
	chq "CREATE MATERIALIZED VIEW lrugen.memcgs_latest_mv ON CLUSTER lrugen TO
		lrugen.memcgs_latest_local AS SELECT $MEMCG_COLS FROM lrugen.memcg_samples_local" >/dev/null
	chq "CREATE MATERIALIZED VIEW lrugen.memcgs_latest_s_mv ON CLUSTER lrugen TO
		lrugen.memcgs_latest_local AS SELECT $MEMCG_COLS FROM lrugen.wss_samples_local" >/dev/null
	for url in ${CLICKHOUSE_URLS//,/ }; do
		chq "INSERT INTO lrugen.nodes_latest_local (host, taken_ms, $NODE_COLS) SELECT host,
			taken_ms, $NODE_COLS FROM lrugen.snapshots_local ARRAY JOIN $NODE_COLS" "$url" >/dev/null
		chq "INSERT INTO lrugen.memcgs_latest_local SELECT $MEMCG_COLS FROM lrugen.memcgs_by_path_local" \
			"$url" >/dev/null
	done
}
# the tables and views named nodes_latest* and memcgs_latest* on the 4 servers
old_count() {
	local url n=0
	for url in ${CLICKHOUSE_URLS//,/ }; do
		n=$((n + $(chq "SELECT count() FROM system.tables WHERE database = 'lrugen' AND
			(startsWith(name, 'nodes_latest') OR startsWith(name, 'memcgs_latest'))" "$url")))
	done
	echo "$n"
}
old_tables
check "a version 1 database: nodes_latest and memcgs_latest, 7 tables and views a server" 28 "$(old_count)"
chq "ALTER TABLE lrugen.migrations_local ON CLUSTER lrugen DELETE WHERE version >= 2" >/dev/null
at_version() {
	local url
	for url in ${CLICKHOUSE_URLS//,/ }; do
		[[ $(chq "SELECT max(version) FROM lrugen.migrations_local" "$url") == "$1" ]] || return 1
	done
}
wait_for "versions 2 to 9 forgotten on every server" 30 at_version 1 && pass
check_grep "a version 1 database: refused, says to migrate" \
	"has schema version 1, this lrugen-store needs 9: run lrugen-store --migrate" \
	"$("$STORE_BIN" "${CH[@]}" --config "$tmp/tokens.conf" --listen 127.0.0.1:0 2>&1)"
out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check_grep "--migrate upgrades 1 to 2" "schema version 2 created" "$out"
check_grep "... and to 3" "schema version 3 created" "$out"
check_grep "... and to 4" "schema version 4 created" "$out"
check_grep "... and to 5" "schema version 5 created" "$out"
check_grep "... and to 6" "schema version 6 created" "$out"
check_grep "... and to 7" "schema version 7 created" "$out"
check_grep "... and to 8" "schema version 8 created" "$out"
check_grep "... and to 9" "schema version 9 created" "$out"
check "... every server sees version 9" 0 "$(at_version 9; echo $?)"
check "... which dropped nodes_latest and memcgs_latest: none on any server" 0 "$(old_count)"
for t in snapshots memcg_samples hosts_latest hosts_first wss_hourly \
	wss_hourly_n wss_days memcgs_by_path paths wss_hours wss_samples wss_dirty node_state; do
	n=0
	for url in ${CLICKHOUSE_URLS//,/ }; do
		n=$((n + $(curl -s -H "X-ClickHouse-User: lrugen" -H "X-ClickHouse-Key: $pw" --data-binary \
			"SELECT count() FROM system.tables WHERE database = 'lrugen' AND name = '${t}_local'" "$url/")))
	done
	check "table ${t}_local on every server" 4 "$n"
done
check_grep "a clickhouse-url that is not http is named" "clickhouse-url 'ftp://x' is not an http:// or https:// URL" \
	"$("$STORE_BIN" --backend clickhouse --clickhouse-url ftp://x --insecure-no-auth 2>&1)"
check_grep "a missing password file is named" "clickhouse-password-file: cannot read token file '$tmp/none.pw'" \
	"$("$STORE_BIN" "${CH[@]}" --clickhouse-password-file "$tmp/none.pw" --insecure-no-auth 2>&1)"
printf 'wrong\n' >"$tmp/wrong.pw"
check_grep "a wrong password: ClickHouse's answer" "answered 401: Code: 193" \
	"$("$STORE_BIN" "${CH[@]}" --clickhouse-password-file "$tmp/wrong.pw" --insecure-no-auth 2>&1)"

# a dead server first in the list: the next one answers
start_store "$tmp" --insecure-no-auth || { finish; exit 1; }
dead=$STORE_URL
stop_store
start_fe A "${CH[@]}" --clickhouse-url "$dead,$CLICKHOUSE_URLS" --config "$tmp/tokens.conf" ||
	{ finish; exit 1; }
start_fe SQ --config "$tmp/tokens.conf" --rollup-flush 1s || { finish; exit 1; }
check_grep "/healthz on clickhouse" '^200 .*"status":"ok"' "$(STORE_URL=$A_URL http GET /healthz)"

# ---- parity: one history into both backends, every query compared -------------------
HIST=(--hosts 24 --memcgs 6 --nodes 2 --history 2h --step 10m --batch 3 --threads 8)
out=$(sim "$A_URL" par "${HIST[@]}")
NPAR=$((24 * 12))	# hosts x (history / step)
check_grep "history into clickhouse" "^sent=$NPAR accepted=$NPAR duplicates=0 errors=0" "$out"
out=$(sim "$SQ_URL" par "${HIST[@]}")
check_grep "history into sqlite" "^sent=$NPAR accepted=$NPAR duplicates=0 errors=0" "$out"
# the sqlite store's rollups are flushed every second: wait until they hold every sample
wait_for "sqlite's hourly rollups" 10 same_samples && pass
# by memcg: every path, a glob's, one service's (a range of memcgs_by_path's and paths' keys)
job=$(q "$SQ_URL" '/v1/cold?by=memcg&memcg_glob=/system.slice/*&limit=1' | jq -r '.rows[0].memcg')
check_grep "a service to ask about" '^/system\.slice/[a-z-]+\.service$' "$job"
BY_MEMCG=('/v1/cold?by=memcg' '/v1/cold?by=memcg&memcg_glob=/system.slice/*&threshold=10m&limit=5'
	"/v1/cold?by=memcg&memcg_glob=$job&limit=0" '/v1/cold?by=memcg&memcg_glob=/init.scop%5Be%5D'
	'/v1/wss?memcg_glob=*' '/v1/wss?memcg_glob=/system.slice*&percentile=50&threshold=5m&window=1h'
	"/v1/wss?memcg_glob=$job" '/v1/wss?memcg_glob=/user.slice*'
	"/v1/cold?by=memcg&memcg_glob=%2Fit%27s%5C%2A" "/v1/wss?memcg_glob=%2Fit%27s%27)%20OR%201%3D1%2A")
check "one service's cold rows: as many as hosts run it" \
	"$(q "$SQ_URL" '/v1/cold?by=memcg&limit=0' | jq --arg j "$job" '[.rows[] | select(.memcg == $j)] | length')" \
	"$(q "$A_URL" "/v1/cold?by=memcg&memcg_glob=$job&limit=0" | jq '.rows | length')"
parity "" /v1/hosts /v1/cold '/v1/cold?by=node' "${BY_MEMCG[@]}" '/v1/rank?need=1G' \
	'/v1/rank?need=2G&per_node=true&threshold=1h' '/v1/capacity?thresholds=1m,2m,30m,24h' \
	'/v1/timeline?host=par00003' '/v1/timeline?host=par00005&memcg=*&limit=40' \
	'/v1/timeline?host=nope' '/v1/wss?memcg_glob=/nope' '/v1/rank?need=x'
# an upgrade from version 2 with data in it: version 3's tables filled from the older ones
old_tables
for t in memcgs_by_path paths; do
	chq "DROP TABLE lrugen.${t}_mv ON CLUSTER lrugen" >/dev/null
	chq "DROP TABLE lrugen.$t ON CLUSTER lrugen" >/dev/null
	chq "DROP TABLE lrugen.${t}_local ON CLUSTER lrugen" >/dev/null
done
chq "DROP TABLE lrugen.paths_rollups_mv ON CLUSTER lrugen" >/dev/null
chq "ALTER TABLE lrugen.migrations_local ON CLUSTER lrugen DELETE WHERE version >= 3" >/dev/null
wait_for "a version 2 database with data" 30 at_version 2 && pass
out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check_grep "--migrate 2 to 3 fills memcgs_by_path" "lrugen.memcgs_by_path filled from lrugen.memcgs_latest in" "$out"
check_grep "... and paths" "lrugen.paths filled from lrugen.memcgs_latest in" "$out"
check_grep "... and the rolled-up paths" "lrugen.paths filled from lrugen.wss_hourly_n in" "$out"
parity " after the upgrade" "${BY_MEMCG[@]}"
# an upgrade from version 4 with data in it: wss_samples filled from memcg_samples (where
# version 4 wrote the raw samples: copied there from wss_samples, one replica a shard)
old_tables
for u in "$CH_1_1_HTTP" "$CH_2_1_HTTP"; do
	chq "INSERT INTO lrugen.memcg_samples_local SELECT path, host, boot_id, seq, taken_ms, total,
		cold, warnings FROM lrugen.wss_samples_local" "$u" >/dev/null
done
for t in memcgs_latest_s_mv memcgs_by_path_s_mv paths_s_mv wss_samples wss_samples_local; do
	chq "DROP TABLE lrugen.$t ON CLUSTER lrugen" >/dev/null
done
chq "ALTER TABLE lrugen.migrations_local ON CLUSTER lrugen DELETE WHERE version >= 5" >/dev/null
wait_for "a version 4 database with data" 30 at_version 4 && pass
check "... its raw samples in memcg_samples only" "1 0" "$(chq "SELECT count() > 0 FROM lrugen.memcg_samples") $(
	chq "SELECT count() FROM system.tables WHERE database = 'lrugen' AND name LIKE 'wss_samples%'")"
out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check_grep "--migrate 4 to 5 fills wss_samples" "lrugen.wss_samples filled from lrugen.memcg_samples in" "$out"
parity " after the upgrade to 5" '/v1/wss?memcg_glob=*' "/v1/wss?memcg_glob=$job&window=7d" \
	'/v1/wss?memcg_glob=/jobs/*&threshold=1h' "${BY_MEMCG[@]}"

# ---- a host whose later snapshot has fewer nodes: only its latest snapshot's nodes ---------
"$FLEETSIM" build >"$tmp/shrink.pb" <<'EOF'
host shrink boot b-1 seq 1 taken -4m
node 0 total 8G free 1G
node 1 total 8G free 3G
lruvec /jobs/web node 0
gen 10 600s 1000 0
lruvec /jobs/web node 1
gen 10 600s 3000 0
lruvec /jobs/gone node 0
gen 10 600s 500 0
host shrink boot b-1 seq 2 taken -2m
node 0 total 8G free 2G
lruvec /jobs/web node 0
gen 10 600s 2000 0
EOF
for u in "$A_URL" "$SQ_URL"; do
	check_grep "a host that lost node 1, into $u" '"accepted":2' \
		"$(STORE_URL=$u post_pb "$tmp/shrink.pb" "$tmp/admin.token")"
done
# shrink_nodes URL: its nodes in cold by node and in rank per node (node 1 had the best offer)
shrink_nodes() {
	echo "$(q "$1" '/v1/cold?by=node&limit=0' | jq -c '[.rows[] | select(.host == "shrink") | .node]')" \
		"$(q "$1" '/v1/rank?need=1G&per_node=1&limit=0' | jq -c '[.rows[] | select(.host == "shrink") | .node]')"
}
check "... cold by node and rank per node: node 0 only (clickhouse)" "[0] [0]" "$(shrink_nodes "$A_URL")"
check "... (sqlite)" "[0] [0]" "$(shrink_nodes "$SQ_URL")"
# and a memcg its later snapshot no longer has (a job's hosts: the latest of those hosts only)
check "... /jobs/gone: not in its latest snapshot, no row; /jobs/web: one" "0 1" \
	"$(q "$A_URL" '/v1/cold?by=memcg&memcg_glob=/jobs/gone' | jq .rows_total) $(
		q "$A_URL" '/v1/cold?by=memcg&memcg_glob=/jobs/w*' | jq .rows_total)"
# cold by host and node: sorted, cut and summed by ClickHouse (the first rows, the totals)
NODES_Q=('/v1/cold?by=node' '/v1/cold?by=node&limit=3&threshold=1h' '/v1/cold?limit=5&threshold=24h'
	'/v1/cold?by=node&limit=0' '/v1/rank?need=1G&per_node=true' '/v1/rank?need=512M&per_node=1&limit=0'
	'/v1/cold?by=memcg&memcg_glob=/jobs/*' '/v1/cold?by=memcg&memcg_glob=/jobs/gone')
parity " with a host that lost a node" "${NODES_Q[@]}"
check "... cut at 3 of all the nodes" "3 $((24 * 2 + 1)) true" \
	"$(q "$A_URL" '/v1/cold?by=node&limit=3' | jq -r '"\(.rows | length) \(.rows_total) \(.truncated)"')"
# an upgrade from version 6: host_nodes filled from nodes_latest, the host's lost node left
# out, then the old tables dropped again (version 8), then node_state filled from host_nodes,
# which goes (version 9)
for t in node_state_mv node_state node_state_local; do
	chq "DROP TABLE lrugen.$t ON CLUSTER lrugen" >/dev/null
done
old_tables
chq "ALTER TABLE lrugen.migrations_local ON CLUSTER lrugen DELETE WHERE version >= 7" >/dev/null
wait_for "a version 6 database with data" 30 at_version 6 && pass
check "... with the old tables on every server" 28 "$(old_count)"
out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check_grep "--migrate 6 to 7 fills host_nodes" "lrugen.host_nodes filled from lrugen.nodes_latest in" "$out"
check_grep "... then to 8" "schema version 8 created" "$out"
check_grep "... then to 9, filling node_state from host_nodes" \
	"lrugen.node_state filled from lrugen.host_nodes in" "$out"
check "... which drops host_nodes: none on any server" "0 0 0 0" "$(for u in ${CLICKHOUSE_URLS//,/ }; do
	chq "SELECT count() FROM system.tables WHERE database = 'lrugen' AND startsWith(name, 'host_nodes')" "$u"
done | paste -sd' ')"
check "... which drops the old tables: none on any server" 0 "$(old_count)"
check "... the host that lost a node: node 0 only" "[0] [0]" "$(shrink_nodes "$A_URL")"
parity " after the upgrade to 7 and 8" "${NODES_Q[@]}"
check "timeline pages: 40 points then a cursor" "40 true" \
	"$(q "$A_URL" '/v1/timeline?host=par00005&memcg=*&limit=40' | jq -r '"\(.points) \(.truncated)"')"
for path in '/v1/latest' '/v1/latest?host=par00002&memcg_glob=/job*' '/v1/latest?limit=5' \
	'/v1/latest?after=par00010&limit=7&memcg_glob=/job-1*' '/v1/latest?changed_since=0' \
	"/v1/latest?changed_since=$(($(date +%s%3N) + 3600000))"; do
	a=$(curl -s -o "$tmp/a.pb" -w '%{http_code}' -H "Authorization: Bearer $(cat "$tmp/read.token")" "$A_URL$path")
	s=$(curl -s -o "$tmp/s.pb" -w '%{http_code}' -H "Authorization: Bearer $(cat "$tmp/read.token")" "$SQ_URL$path")
	if [[ $a == 200 && $s == 200 ]] && cmp -s "$tmp/a.pb" "$tmp/s.pb"; then pass
	else fail "parity $path: the SnapshotBatches differ ($a, $s)"; fi
done
check "latest?after&limit: the 7 hosts after par00010" "par00011 par00017" \
	"$(curl -s -H "Authorization: Bearer $(cat "$tmp/read.token")" "$A_URL/v1/latest?after=par00010&limit=7" |
		"$LRUGEN_BUILD/tests/tools/pbdump" - | jq -r '[.[0].host, .[-1].host] | join(" ")')"
hdr=$(curl -s -D - -o "$tmp/a.gz" -H "Accept-Encoding: gzip" -H "Authorization: Bearer $(cat "$tmp/read.token")" \
	"$A_URL/v1/latest" | tr -d '\r')
check_grep "latest from ClickHouse: gzipped when asked" "^Content-Encoding: gzip" "$hdr"
check "... the SnapshotBatch of sqlite, gunzipped" "$(curl -s -H "Authorization: Bearer $(cat "$tmp/read.token")" "$SQ_URL/v1/latest" |
	sha256sum)" "$(gunzip -c "$tmp/a.gz" | sha256sum)"
# as of clickhouse-timeout (30s) ago: another front-end's write may take that long to be seen
as_of=$(sed -n 's/^X-Lrugen-As-Of: //p' <<<"$hdr")
check "latest from ClickHouse: as of clickhouse-timeout before now" 1 \
	"$(( as_of <= $(date +%s%3N) - 30000 && as_of > $(date +%s%3N) - 90000 ))"
check "parity: counted once" $NPAR "$(counted par)"
check_grep "/metrics counts the rounds written to ClickHouse" '^lrugen_store_transactions_total [1-9]' \
	"$(curl -s "$A_URL/metrics")"

# ---- exactly once ------------------------------------------------------------------------
# merges stopped: the resent rows stay beside the first ones, and the answers count them once
merges STOP
# (in batches of 5, not 3: blocks unlike the first ones, which replication would drop)
check_grep "a resend: every snapshot a duplicate" "^sent=$NPAR accepted=0 duplicates=$NPAR errors=0" \
	"$(sim "$A_URL" par "${HIST[@]}" --batch 5)"
check "... rows stored again, not merged yet" 1 "$(chq "SELECT count() > uniqExact(path, host, \
	boot_id, seq) FROM lrugen.wss_samples WHERE startsWith(host, 'par')")"
parity " with a resend's copies" "${BY_MEMCG[@]}"
merges START
wait_for "merges started again and caught up" 60 merges_idle && pass
start_fe B "${CH[@]}" --config "$tmp/tokens.conf" || { finish; exit 1; }
TWO=(--hosts 40 --memcgs 4 --nodes 1 --history 1h --step 10m --batch 2 --threads 8)
sim "$A_URL" two "${TWO[@]}" >"$tmp/two.a" &
sim "$B_URL" two "${TWO[@]}" >"$tmp/two.b"
wait $!
check_grep "one history to two front-ends at once: A acknowledged all" "errors=0" "$(cat "$tmp/two.a")"
check_grep "... and B too" "errors=0" "$(cat "$tmp/two.b")"
check "... each snapshot counted once" "$((40 * 6)) $((40 * 6))" "$(acked two) $(counted two)"
FLEET=$((24 + 1 + 40))	# par, shrink, two
check "... the fleet's hosts once each" $FLEET "$(STORE_URL=$A_URL http GET /v1/hosts "$tmp/read.token" | cut -d' ' -f2- | jq '.hosts | length')"
check "... /v1/latest: each host's latest snapshot once (copies not merged yet too)" "$FLEET $FLEET" \
	"$(curl -s -H "Authorization: Bearer $(cat "$tmp/read.token")" "$A_URL/v1/latest?memcg_glob=/nope" |
		"$LRUGEN_BUILD/tests/tools/pbdump" - | jq -r '"\(length) \([.[].host] | unique | length)"')"

# ---- faults ------------------------------------------------------------------------------
# kill -9 of a replica during ingest: its shard cannot meet the quorum (503), the
# other shard goes on; once it is back, a resend brings every snapshot, once
FLT=(--hosts 16 --memcgs 3 --nodes 1 --history 1h --step 10m --batch 1 --threads 4 --max-errors 1000)
sim "$A_URL" k9 "${FLT[@]}" >"$tmp/k9.1" &
simpid=$!
wait_for "some snapshots before the kill" 30 acked_at_least k9 5 && pass
"$CLUSTER" kill "$tmp/ch" ch1-2 >/dev/null
wait $simpid
check_grep "a replica killed: some requests answered 503" "errors=[1-9]" "$(cat "$tmp/k9.1")"
check_grep "... with the store's retry-later answer" "HTTP 503" "$(cat "$tmp/fleetsim.err")"
"$CLUSTER" start-one "$tmp/ch" ch1-2 >/dev/null || fail "ch1-2 did not come back"
before=$(acked k9)
for ((i = 0; i < 8; i++)); do	# the replica catches up within its ZooKeeper session
	grep -q "errors=0" <(sim "$A_URL" k9 "${FLT[@]}") && break
	sleep 2
done
check "a replica killed: every snapshot, once, after resends" "96 96" "$(acked k9) $(counted k9)"
[[ $before -lt 96 ]] && pass || fail "the kill refused nothing ($before acknowledged before the resends)"

# a whole shard stopped while a real lrugend collects: it spools, then everything arrives
mkroot "$tmp/root" 6.12
shard_of() {	# the shard (1 or 2) that holds host $1's rows
	local s u
	for s in 1 2; do
		u=CH_${s}_1_HTTP
		[[ $(chq "SELECT count() FROM lrugen.snapshots_local WHERE host = '$1'" "${!u}") -gt 0 ]] &&
			echo $s && return
	done
}
"$LRUGEND" --root "$tmp/root" --host shardtest --interval 500ms --no-jitter --no-age \
	--store "$A_URL" --token-file "$tmp/any.token" --spool "$tmp/spool" --backoff-min 200ms \
	--backoff-max 1s --timeout 20s >/dev/null 2>"$tmp/lrugend.log" &
LRUGEND_PID=$!
wait_for "lrugend's first snapshots stored" 30 host_stored_at_least shardtest 2 && pass
shard=$(shard_of shardtest)
stored=$(grep -c 'snapshot seq=' "$tmp/lrugend.log")
"$CLUSTER" stop-one "$tmp/ch" "ch$shard-1" >/dev/null
"$CLUSTER" stop-one "$tmp/ch" "ch$shard-2" >/dev/null
wait_for "the front-end refusing (503) while the shard is down" 40 \
	grep -q "snapshots not written" "$A_LOG" && pass
wait_for "lrugend spooling meanwhile" 40 lrugend_took_at_least $((stored + 8)) && pass
"$CLUSTER" start-one "$tmp/ch" "ch$shard-1" >/dev/null || fail "ch$shard-1 did not come back"
"$CLUSTER" start-one "$tmp/ch" "ch$shard-2" >/dev/null || fail "ch$shard-2 did not come back"
kill -TERM "$LRUGEND_PID"
wait "$LRUGEND_PID"
LRUGEND_PID=
taken=$(grep -c 'snapshot seq=' "$tmp/lrugend.log")
for ((i = 0; i < 20; i++)); do	# drain what is spooled: --drain exits 0 once it is empty
	"$LRUGEND" --drain --store "$A_URL" --token-file "$tmp/any.token" --spool "$tmp/spool" \
		--timeout 20s >/dev/null 2>>"$tmp/drain.log" && break
	sleep 1
done
check "a shard stopped: every snapshot lrugend took arrived, once" "$taken $taken" \
	"$(chq "SELECT count(), uniqExact(seq) FROM lrugen.snapshots FINAL WHERE host = 'shardtest'" | tr '\t' ' ')"
[[ $taken -ge $((stored + 8)) ]] && pass || fail "lrugend took $taken snapshots, $stored by the stop"

# kill -9 of a front-end during ingest: a resend to the other brings the rest, once
sim "$A_URL" fe "${FLT[@]}" >"$tmp/fe.1" &
simpid=$!
wait_for "some snapshots before the front-end dies" 30 acked_at_least fe 5 && pass
kill -KILL "$A_PID"
wait "$A_PID" 2>/dev/null
A_PID=
wait $simpid
sim "$B_URL" fe "${FLT[@]}" >/dev/null
check "a front-end killed: every snapshot once after a resend to the other" "96 96" "$(acked fe) $(counted fe)"

# ZooKeeper restarted: replicated tables refuse inserts meanwhile (503), then take them
"$CLUSTER" kill "$tmp/ch" zk >/dev/null
out=$(sim "$B_URL" zk --hosts 4 --memcgs 2 --nodes 1 --history 10m --step 10m --max-errors 1000)
check_grep "ZooKeeper down: ingest refused" "errors=[1-9]" "$out"
"$CLUSTER" start-one "$tmp/ch" zk >/dev/null || fail "ZooKeeper did not come back"
for ((i = 0; i < 15; i++)); do
	grep -q "errors=0" <(sim "$B_URL" zk --hosts 4 --memcgs 2 --nodes 1 --history 10m --step 10m --max-errors 1000) && break
	sleep 2
done
check "ZooKeeper back: every snapshot once" "4 4" "$(acked zk) $(counted zk)"

# the cluster restarted: the same answers as before
before=$(q "$B_URL" /v1/capacity)
stop_fe B
"$CLUSTER" stop "$tmp/ch" >/dev/null
"$CLUSTER" start "$tmp/ch" >/dev/null || fail "the cluster did not start again"
start_fe B "${CH[@]}" --config "$tmp/tokens.conf" || { finish; exit 1; }
check "the cluster restarted: the same capacity answer" "$before" "$(q "$B_URL" /v1/capacity)"
for p in par two k9 fe zk; do
	check "the cluster restarted: $p counted once" "$(acked $p)" "$(counted $p)"
done
check_grep "/metrics counts the hosts from ClickHouse" '^lrugen_store_hosts [1-9]' \
	"$(curl -s "$B_URL/metrics")"

# raw-retention: the raw rows of days past it are dropped (whole days), the rest stays;
# the working-set samples of those days are rolled up first, and wss answers the same
OLD=(--hosts 3 --memcgs 2 --nodes 1 --history 20m --step 10m)
# the same old (and below late) histories into the sqlite store: how many samples each adds
s0=$(job_samples "$(wssq "" "$SQ_URL")")
stop_fe B
start_fe B "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 30d --clickhouse-rollup-after 30d ||
	{ finish; exit 1; }
old_to_both "$B_URL" old "${OLD[@]}"
s1=$(job_samples "$(wssq "" "$SQ_URL")")
check "three-day-old snapshots stored" 6 "$(counted old)"
w0=$(wssq "") && w0_1h=$(wssq "&threshold=1h&percentile=50")
stop_fe B
start_fe B "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 1d --maintenance-interval 1s ||
	{ finish; exit 1; }
samples_of() { chq "SELECT count() FROM lrugen.wss_samples WHERE startsWith(host, '$1')"; }
raw_gone() { [[ $(counted "$1") == 0 && $(samples_of "$1") == 0 ]]; }
wait_for "the expired days dropped" 120 raw_gone old && pass
logged() { grep -Eq "$1" "$B_LOG"; }
wait_for "... and logged" 10 logged "dropped the snapshots of day [0-9]{8} \(raw-retention\)" && pass
check_grep "... the samples rolled up first" "rolled up the working-set samples of day [0-9]{8}" \
	"$(cat "$B_LOG")"
check "... the recent ones kept" "$(acked par)" "$(counted par)"
check "wss after the roll-up: the same answer" "$w0" "$(wssq "")"
check "... at another threshold and percentile" "$w0_1h" "$(wssq "&threshold=1h&percentile=50")"
# the hours of the old snapshots' days (one day, or two across a midnight)
day_hour() { echo $(($(date -u -d "$(date -u -d "@$(($1 / 1000))" +%F)" +%s) / 3600)); }
OLD_HOURS="hour >= $(day_hour $((NOW - 3 * 86400000 - 600000))) AND hour < $(($(day_hour $((NOW - 3 * 86400000))) + 24))"
n=$((($(day_hour $((NOW - 3 * 86400000))) + 24 - $(day_hour $((NOW - 3 * 86400000 - 600000))))))
check "... its hours (24 a day) marked rolled up, on every server" "$n $n $n $n" \
	"$(for u in ${CLICKHOUSE_URLS//,/ }; do
		chq "SELECT uniqExact(hour) FROM lrugen.wss_hours_local WHERE part = 1 AND $OLD_HOURS" "$u"
	done | xargs)"
# late arrivals in a rolled-up day: written as rollups directly (a part per snapshot)
old_to_both "$B_URL" late "${OLD[@]}"
s2=$(job_samples "$(wssq "" "$SQ_URL")")
check "late snapshots of the rolled-up day acknowledged" 6 "$(acked late)"
check "... none of their samples raw" 0 "$(samples_of late)"
check "... the latest state of their hosts' memcgs kept" 1 \
	"$(chq "SELECT count() > 0 FROM lrugen.memcgs_by_path FINAL WHERE startsWith(host, 'late')")"
check "... their hours marked for them" 1 \
	"$(chq "SELECT count() > 0 FROM lrugen.wss_hours_local FINAL WHERE part = 0 AND $OLD_HOURS")"
w2=$(wssq "")
check "... each job counts each late sample once (as sqlite does)" \
	"$(add "$(job_samples "$w0")" "$s2" "$s1")" "$(job_samples "$w2")"
SIM_NOW=$((NOW - 3 * 86400000)) sim "$B_URL" late "${OLD[@]}" >/dev/null
check "... sent again: still once" "$w2" "$(wssq "")"
# late arrivals within raw-retention (schema 6): raw samples, their (hour, path) pairs
# marked dirty on every server first; a query reads those pairs raw and not their
# rollup rows (each shard's server by its own marks), the maintenance rolls them up
# again and marks them clean (rollup-after 3s: a second after the newest mark). Two
# rounds into the same pairs: the second finds the first rolled up again, so its
# query must leave those rollup rows out
stop_fe B
start_fe B "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 30d --clickhouse-rollup-after 3s \
	--maintenance-interval 1s || { finish; exit 1; }
LT=(--hosts 2 --memcgs 2 --nodes 1 --history 20m --step 10m)
LT_NOW=$((NOW - 2 * 3600000))
lt_rolled() {
	[[ $(chq "SELECT count() FROM lrugen.wss_hours_local WHERE part = 1 AND
		hour = $((LT_NOW / 3600000))") -ge 1 ]]
}
wait_for "the hour of the late rounds rolled up (rollup-after 3s)" 60 lt_rolled && pass
dirty_left() {
	chq "SELECT maxIf(at_ms, kind = 0) + 1000 >= maxIf(at_ms, kind = 1) FROM lrugen.wss_dirty_local
		GROUP BY hour, path" | awk '{ d += $1; n++ } END { print d + 0, n + 0 }'
}
all_clean() { [[ $(dirty_left) == "0 "[1-9]* ]]; }
# late_round PREFIX [WHAT [COMMAND]]: COMMAND runs once the round is acknowledged
late_round() {
	local lt=$1 sb wb want
	sb=$(job_samples "$(wssq "" "$SQ_URL")") wb=$(wssq "")
	for u in "$B_URL" "$SQ_URL"; do SIM_NOW=$LT_NOW sim "$u" $lt "${LT[@]}" >/dev/null; done
	[[ -n ${3:-} ]] && $3
	want=$(add "$(job_samples "$wb")" "$(job_samples "$(wssq "" "$SQ_URL")")" "$sb")
	check "late snapshots within raw-retention ($lt${2:-}): acknowledged, their samples raw" "4 1" \
		"$(acked $lt) $(($(samples_of $lt) > 0))"
	check "... each job counts each of them once at once (as sqlite does)" "$want" "$(job_samples "$(wssq "")")"
	wait_for "... their pairs rolled up again and marked clean" 60 all_clean && pass
	check "... still once, from the rollups" "$want" "$(job_samples "$(wssq "")")"
}
late_round lt1
late_round lt2
# a round, then shard 2's servers fetch no marks (behind the others' as the re-roll marks
# the pairs clean): a query takes the dirty pairs once, from the server the front-end asks
# (ch1-1), for every shard. As a subquery each shard's server ran by its own marks, a
# pair's rollup rows (sharded by path) and its late samples (by host) were read by
# different marks: counted twice, or not at all (once at an hour's turn in CI, as the
# re-rolls of the hour's late samples wrote their clean marks)
marks_fetch() {
	local u
	for u in "$CH_2_1_HTTP" "$CH_2_2_HTTP"; do chq "SYSTEM $1 FETCHES lrugen.wss_dirty_local" "$u" >/dev/null; done
}
late_round lt3 ", then shard 2 behind the clean marks" "marks_fetch STOP"
marks_fetch START
check "... the marks on every server" "1 1 1 1" \
	"$(for u in ${CLICKHOUSE_URLS//,/ }; do
		chq "SELECT count() > 0 FROM lrugen.wss_dirty_local WHERE kind = 1" "$u"
	done | xargs)"
# a round while shard 2's servers fetch no marks: its front-end (B) writes the marks with
# insert_quorum = every server (4), 10 s at most, else 503 and no sample stored.
# Acknowledged before, its late samples would be missing from the answers of a front-end
# that asks ch2-1 (R) until the marks got there: their pairs read as rolled up
want_lt4() { add "$(job_samples "$1")" "$(job_samples "$(wssq "" "$SQ_URL")")" "$2"; }
start_fe R "${CH[@]:0:2}" "${CH[@]:4}" --clickhouse-url "$CH_2_1_HTTP" --config "$tmp/tokens.conf" \
	--raw-retention 30d --clickhouse-rollup-after 3s --maintenance-interval 1d || { finish; exit 1; }
marks_fetch STOP
wr=$(wssq "" "$R_URL")
SIM_NOW=$LT_NOW sim "$B_URL" lt4 "${LT[@]}" >/dev/null
check "a late round while shard 2 fetches no marks: not acknowledged, no sample stored" "0 0" \
	"$(acked lt4) $(samples_of lt4)"
check_grep "... the front-end says why" "the marks of its late samples did not reach every server" \
	"$(cat "$B_LOG")"
check "... a front-end asking ch2-1 answers as before" "$wr" "$(wssq "" "$R_URL")"
marks_fetch START
sb=$(job_samples "$(wssq "" "$SQ_URL")")
for u in "$B_URL" "$SQ_URL"; do SIM_NOW=$LT_NOW sim "$u" lt4 "${LT[@]}" >/dev/null; done
check "... sent again, the marks fetched: acknowledged" 4 "$(acked lt4)"
check "... counted once at once by the front-end asking ch2-1 (as sqlite does)" \
	"$(want_lt4 "$wr" "$sb")" "$(job_samples "$(wssq "" "$R_URL")")"
wait_for "... their pairs rolled up again and marked clean" 60 all_clean && pass
check "... still once, from the rollups" "$(want_lt4 "$wr" "$sb")" "$(job_samples "$(wssq "" "$R_URL")")"
stop_fe R
check_grep "... the roll-ups again logged" "rolled up the late samples of hour $((LT_NOW / 3600000)) again" \
	"$(cat "$B_LOG")"
w2=$(wssq "")	# (with the late rounds: recent, they stay below)
# rollup-retention: the rollups of days past it go too, while a server (ch1-1) is down:
# dropped through a server of each shard that answers (ch1-2 for shard 1), the replication
# log takes the drop to the other replica; ON CLUSTER would wait 180 s for ch1-1's DDL
# worker (as for one that died: 18.16's ends on a ZooKeeper error, seen after a restart)
stop_fe B
"$CLUSTER" stop-one "$tmp/ch" ch1-1 >/dev/null
start_fe B "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 1d --rollup-retention 1d \
	--maintenance-interval 1s || { finish; exit 1; }
# (those of the old days; today's, of late and rolled-up samples, stay)
rollups_gone() { [[ $(chq "SELECT count() FROM lrugen.wss_hourly_n WHERE $OLD_HOURS" "$CH_1_2_HTTP") == 0 ]]; }
wait_for "the rollups past rollup-retention dropped, ch1-1 down" 120 rollups_gone && pass
wait_for "... and logged" 10 logged "dropped the wss_hourly_n of day [0-9]{8} \(rollup-retention\)" && pass
check "... not ON CLUSTER" 0 "$(grep -c "ON CLUSTER" "$B_LOG")"
"$CLUSTER" start-one "$tmp/ch" ch1-1 >/dev/null || fail "ch1-1 did not come back"
gone_on_1_1() {
	[[ $(chq "SELECT count() FROM lrugen.wss_hourly_n_local WHERE $OLD_HOURS" "$CH_1_1_HTTP") == 0 ]]
}
wait_for "... ch1-1 back: the drop reached it too (the replication log)" 60 gone_on_1_1 && pass
check "... wss no longer counts those days" "$(add "$(job_samples "$w2")" "$s0" "$s2")" \
	"$(job_samples "$(wssq "")")"

# ---- a roll-up reads no lagging replica ----------------------------------------------------
# with insert_quorum 1 a replica that does not fetch lacks what the other took; a roll-up
# through it (a Distributed query prefers its own replica of shard 1) reads the other one
# (CH without its --clickhouse-url: every URL given is tried, in turn)
ST=("${CH[@]:0:2}" "${CH[@]:4}" --clickhouse-database stale --clickhouse-insert-quorum 1
	--config "$tmp/tokens.conf")
out=$("$STORE_BIN" "${ST[@]}" --clickhouse-url "$CLICKHOUSE_URLS" --migrate 2>&1) ||
	fail "--migrate of database stale: $out"
HOUR=3600000
SH=(--memcgs 4 --nodes 2 --history 3h --step 10m --batch 4)
start_fe W "${ST[@]}" --clickhouse-url "$CH_1_2_HTTP" --clickhouse-rollup-after 30d ||
	{ finish; exit 1; }
synced() {	# no server has parts of database stale left to fetch
	local u
	for u in ${CLICKHOUSE_URLS//,/ }; do
		[[ $(chq "SELECT count() FROM system.replication_queue WHERE database = 'stale'" "$u") == 0 ]] ||
			return 1
	done
}
wait_for "the replicas in step" 30 synced && pass
chq "SYSTEM STOP FETCHES" "$CH_1_1_HTTP" >/dev/null
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$W_URL" st --hosts 8 "${SH[@]}" >/dev/null
local_rows() { chq "SELECT count() FROM stale.wss_samples_local WHERE startsWith(host, 'st')" "$1"; }
check "ch1-1 fetches nothing: it lacks what ch1-2 took" 1 \
	"$([[ $(local_rows "$CH_1_1_HTTP") -lt $(local_rows "$CH_1_2_HTTP") ]] && echo 1)"
RQ=('/v1/wss?memcg_glob=*&window=1d' '/v1/wss?memcg_glob=/jobs/*&window=1d&threshold=1h&percentile=50')
before=$(for p in "${RQ[@]}"; do q "$W_URL" "$p"; done)
check_grep "... the history counted (through ch1-2)" '"samples": [1-9]' "$before"
stop_fe W
start_fe W "${ST[@]}" --clickhouse-url "$CH_1_1_HTTP" --clickhouse-rollup-after 1s \
	--maintenance-interval 1s || { finish; exit 1; }
# the three hours with samples (they start at minute 7 of hour NOW/HOUR-4): not the hour
# before them, marked only when the oldest raw day holds it (not at 04:xx UTC, its day before)
rolled_hours() {
	[[ $(chq "SELECT uniqExact(hour) FROM stale.wss_hours_local WHERE part = 1 AND
		hour >= $((NOW / HOUR - 4)) AND hour < $((NOW / HOUR - 1))" "$CH_1_1_HTTP") == 3 ]]
}
wait_for "its hours rolled up through ch1-1" 60 rolled_hours && pass
check "... every sample counted, none from the lagging replica only" "$before" \
	"$(for p in "${RQ[@]}"; do q "$W_URL" "$p"; done)"
chq "SYSTEM START FETCHES" "$CH_1_1_HTTP" >/dev/null
stop_fe W

# ---- compaction: the latest-state tables merged down -----------------------------------
# (read FINAL, their parts cost every query; 18.16's merges leave a tail of small ones)
# Rounds of INSERTs with merges stopped leave a part a round in each; once merges run
# again, a front-end's maintenance compacts them to 2 parts on every server (the part last
# inserted with insert_quorum never merges in 18.16), and the answers stay the same.
CT=("${CH[@]}" --clickhouse-database compact --config "$tmp/tokens.conf" --stale-after 1d)
out=$("$STORE_BIN" "${CT[@]}" --migrate 2>&1) || fail "--migrate of database compact: $out"
parts_of() {	# the active parts of hosts_latest, memcgs_by_path and node_state on server $1
	chq "SELECT arrayStringConcat(groupArray(toString(c)), ' ') FROM (SELECT table, count() AS c
		FROM system.parts WHERE active AND database = 'compact' AND table IN
		('hosts_latest_local', 'memcgs_by_path_local', 'node_state_local') GROUP BY table
		ORDER BY table)" "$1"
}
all_parts() { local u; for u in ${CLICKHOUSE_URLS//,/ }; do parts_of "$u"; done | paste -sd' '; }
compacted() { [[ $(all_parts) =~ ^([12]( |$))+$ ]]; }
for u in ${CLICKHOUSE_URLS//,/ }; do chq "SYSTEM STOP MERGES" "$u" >/dev/null; done
start_fe W "${CT[@]}" --maintenance-interval 1d || { finish; exit 1; }
t0=$(date +%s%3N)
for r in 1 2 3 4 5 6; do
	SIM_NOW=$((t0 - (7 - r) * 1000)) sim "$W_URL" "cp$r-" --hosts 6 --memcgs 3 --nodes 2 \
		--cycles 1 >/dev/null
	sleep 0.2	# (rounds: a front-end waits 100 ms without a snapshot before it writes)
done
before=$(all_parts)
for u in ${CLICKHOUSE_URLS//,/ }; do chq "SYSTEM START MERGES" "$u" >/dev/null; done
check "6 rounds, merges stopped: 6 hosts each, acknowledged" "6 6 6 6 6 6" \
	"$(for r in 1 2 3 4 5 6; do acked "cp$r-"; done | paste -sd' ')"
least=$(tr ' ' '\n' <<<"$before" | sort -n | head -n 1)
check "... more than 2 parts of each table on every server (were: $before)" "12 1" \
	"$(wc -w <<<"$before") $((least > 2))"
CQ=('/v1/rank?need=1G' '/v1/rank?need=1G&per_node=true' '/v1/cold?by=node' '/v1/cold?by=memcg'
	'/v1/cold?by=memcg&memcg_glob=/jobs/*' '/v1/hosts')
answers=$(for p in "${CQ[@]}"; do q "$W_URL" "$p"; done)
check_grep "... answered" '"host": "cp6-' "$answers"
stop_fe W
start_fe W "${CT[@]}" --maintenance-interval 1s || { finish; exit 1; }
wait_for "the maintenance to compact them to 2 parts (were: $before)" 60 compacted && pass
check "... the same answers" "$answers" "$(for p in "${CQ[@]}"; do q "$W_URL" "$p"; done)"
stop_fe W

# ---- moving a sqlite store into ClickHouse: --import-sqlite -----------------------------
# a sqlite store that keeps 3-day-old days as rollups only, and recent raw snapshots
mkdir -p "$tmp/e"
start_store "$tmp/e" --config "$tmp/tokens.conf" --raw-retention 1h --maintenance-interval 1s \
	--rollup-flush 1s || { finish; exit 1; }
E_URL=$STORE_URL E_PID=$STORE_PID
IMPH=(--hosts 4 --memcgs 3 --nodes 2 --step 10m)
SIM_NOW=$((NOW - 3 * 86400000)) sim "$E_URL" imp "${IMPH[@]}" --history 20m >/dev/null
n_old=$(acked imp)
sim "$E_URL" imp "${IMPH[@]}" --history 30m >/dev/null
n_new=$(($(acked imp) - n_old))
expired_old() {
	[[ $(curl -s "$E_URL/metrics" | awk '$1 == "lrugen_store_expired_snapshots_total" { print $2 }') \
		-ge $n_old ]]
}
wait_for "the sqlite store expired the old days (their rollups stay)" 60 expired_old && pass
IMP=("${CH[@]}" --clickhouse-database imported)
check_grep "--import-sqlite without the clickhouse settings: refused" "pass the clickhouse settings too" \
	"$("$STORE_BIN" --import-sqlite "$tmp/e/db" 2>&1)"
check_grep "--import-sqlite of a missing file: named" "cannot read '$tmp/none.db'" \
	"$("$STORE_BIN" "${IMP[@]}" --import-sqlite "$tmp/none.db" 2>&1)"
echo "not a database" >"$tmp/junk.db"
check_grep "--import-sqlite of another file: named, and why" \
	"'$tmp/junk.db' is not an lrugen-store database \(file is not a database\)" \
	"$("$STORE_BIN" "${IMP[@]}" --import-sqlite "$tmp/junk.db" 2>&1)"
: >"$tmp/empty.db"
check_grep "--import-sqlite of an empty file: refused" "'$tmp/empty.db' is not an lrugen-store database" \
	"$("$STORE_BIN" "${IMP[@]}" --import-sqlite "$tmp/empty.db" 2>&1)"
check "... and left as it was (not made a store)" 0 "$(stat -c %s "$tmp/empty.db")"
"$STORE_BIN" "${IMP[@]}" --migrate >/dev/null 2>&1
out=$("$STORE_BIN" "${IMP[@]}" --import-sqlite "$tmp/e/db" 2>&1)
check "--import-sqlite" 0 $?
check_grep "... says what it moved" \
	"done in [0-9.]+ s: [1-9][0-9]* hourly rollups and $n_new raw snapshots \($n_new new, 0 there already\)" "$out"
start_fe C "${IMP[@]}" --config "$tmp/tokens.conf" || { finish; exit 1; }
imported_same() {
	local path
	for path in /v1/hosts /v1/cold '/v1/cold?by=node' '/v1/cold?by=memcg&memcg_glob=*' \
		'/v1/rank?need=1G' '/v1/capacity?thresholds=1m,1h' '/v1/wss?memcg_glob=*&window=7d' \
		'/v1/wss?memcg_glob=*&window=7d&threshold=1h&percentile=50' '/v1/timeline?host=imp00001'; do
		a=$(q "$C_URL" "$path")
		e=$(q "$E_URL" "$path")
		if [[ -n $a && $a == "$e" ]]; then pass; else fail "imported $path: $(diff <(echo "$e") <(echo "$a") | head -5)"; fi
	done
}
imported_same
check "... the old days' wss samples came as rollups" 1 \
	"$(chq "SELECT count() > 0 FROM imported.wss_hourly_n WHERE hour < $(((NOW - 86400000) / 3600000))")"
out=$("$STORE_BIN" "${IMP[@]}" --import-sqlite "$tmp/e/db" 2>&1)
check_grep "imported again: nothing new" "raw snapshots \(0 new, $n_new there already\)" "$out"
imported_same
STORE_PID=$E_PID
stop_store

finish
