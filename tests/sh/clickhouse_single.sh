# tests/sh/clickhouse_single.sh - lrugen-store with backend = clickhouse on one
# server (no clickhouse-cluster: MergeTree tables named *_local, no ZooKeeper in
# the path, no Distributed tables): --migrate; the same fleetsim history into a
# sqlite store and into ClickHouse gives the same answers; a resend in other
# batches, its copies not merged yet, counted once; raw-retention rolls a day up
# and late snapshots of it count once. (tests/sh/clickhouse_store.sh tests the
# same on a 2 x 2 cluster, with faults.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
CHT=_local
. "$(dirname "$0")/clickhouse-lib.bash"
tmp=$(mktemp -d)
trap 'stop_fe_all; "$CLUSTER" clean "$tmp/ch" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

ch_cluster_start --shards 1 --replicas 1 || { finish; exit; }
CLICKHOUSE_URLS=${CLICKHOUSE_URLS%%,*}	# one server
make_tokens "$tmp"
CH=(--backend clickhouse --clickhouse-url "$CLICKHOUSE_URLS" --clickhouse-user lrugen
	--clickhouse-password-file "$CLICKHOUSE_PASSWORD_FILE")

out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check "--migrate on one server" 0 $?
check_grep "... creates version 3" "schema version 3 created in database lrugen" "$out"
check "... plain (not replicated) tables, none distributed, each a *_local MergeTree" "0 0 12 12" \
	"$(chq "SELECT countIf(engine LIKE 'Replicated%'), countIf(engine = 'Distributed'),
		countIf(engine LIKE '%MergeTree'), countIf(endsWith(name, '_local') AND
		engine LIKE '%MergeTree') FROM system.tables WHERE database = 'lrugen'" | tr '\t' ' ')"
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" || { finish; exit 1; }
start_fe SQ --config "$tmp/tokens.conf" --rollup-flush 1s || { finish; exit 1; }
check_grep "/healthz" '^200 .*"status":"ok"' "$(STORE_URL=$A_URL http GET /healthz)"

# ---- parity ----------------------------------------------------------------------------
HIST=(--hosts 12 --memcgs 12 --nodes 2 --history 2h --step 10m --batch 3 --threads 4)
NPAR=$((12 * 12))
check_grep "history into clickhouse" "^sent=$NPAR accepted=$NPAR duplicates=0 errors=0" \
	"$(sim "$A_URL" par "${HIST[@]}")"
check_grep "history into sqlite" "^sent=$NPAR accepted=$NPAR duplicates=0 errors=0" \
	"$(sim "$SQ_URL" par "${HIST[@]}")"
all_samples() { q "$1" '/v1/wss?memcg_glob=*&window=1d' | jq .all.samples; }
same_samples() { [[ $(all_samples "$SQ_URL") == "$(all_samples "$A_URL")" ]]; }
wait_for "sqlite's hourly rollups" 10 same_samples && pass
job=$(q "$SQ_URL" '/v1/cold?by=memcg&memcg_glob=/jobs/*&limit=1' | jq -r '.rows[0].memcg')
check_grep "a job to ask about" '^/jobs/job-[0-9]{4}$' "$job"
QUERIES=(/v1/hosts /v1/cold '/v1/cold?by=node' '/v1/cold?by=memcg'
	"/v1/cold?by=memcg&memcg_glob=$job&limit=0" '/v1/cold?by=memcg&memcg_glob=/jobs/job-0%5B0-4%5D*'
	'/v1/wss?memcg_glob=*' "/v1/wss?memcg_glob=$job&window=7d" '/v1/wss?memcg_glob=/jobs/*&threshold=1h'
	'/v1/rank?need=1G' '/v1/capacity?thresholds=1m,30m,24h' '/v1/timeline?host=par00003&memcg=*')
parity " on one server" "${QUERIES[@]}"

# ---- a resend in other batches, not merged yet: once -------------------------------------
merges STOP
check_grep "a resend: every snapshot a duplicate" "^sent=$NPAR accepted=0 duplicates=$NPAR errors=0" \
	"$(sim "$A_URL" par "${HIST[@]}" --batch 5)"
check "... rows stored again, not merged yet" 1 "$(chq "SELECT count() > uniqExact(path, host, \
	boot_id, seq) FROM lrugen.memcg_samples_local")"
parity " with a resend's copies" "${QUERIES[@]}"
merges START
check "... counted once" "$NPAR" "$(counted par)"

# ---- raw-retention on one server: a day rolled up, late snapshots once --------------------
OLD=(--hosts 3 --memcgs 4 --nodes 1 --history 20m --step 10m)
stop_fe A
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 30d || { finish; exit 1; }
for u in "$A_URL" "$SQ_URL"; do
	SIM_NOW=$((NOW - 3 * 86400000)) sim "$u" old "${OLD[@]}" >/dev/null
done
B_URL=$A_URL
check "three-day-old snapshots stored raw" 1 \
	"$(chq "SELECT count() > 0 FROM lrugen.memcg_samples_local WHERE startsWith(host, 'old')")"
w0=$(wssq "")
check "... the same 7-day wss as sqlite with a 3-day-old history" "$(wssq "" "$SQ_URL")" "$w0"
stop_fe A
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 1d --maintenance-interval 1s ||
	{ finish; exit 1; }
B_URL=$A_URL
raw_gone() {
	[[ $(counted old) == 0 && $(chq "SELECT count() FROM lrugen.memcg_samples_local
		WHERE startsWith(host, 'old')") == 0 ]]
}
wait_for "the expired day dropped" 60 raw_gone && pass
check_grep "... its samples rolled up first" "rolled up the working-set samples of day [0-9]{8}" \
	"$(cat "$A_LOG")"
check "wss after the roll-up: the same answer" "$w0" "$(wssq "")"
for u in "$A_URL" "$SQ_URL"; do
	SIM_NOW=$((NOW - 3 * 86400000)) sim "$u" late "${OLD[@]}" >/dev/null
done
check "late snapshots of the rolled-up day acknowledged" 6 "$(acked late)"
w1=$(wssq "")
check "... counted once per job, as sqlite counts them" "$(job_samples "$(wssq "" "$SQ_URL")")" \
	"$(job_samples "$w1")"
SIM_NOW=$((NOW - 3 * 86400000)) sim "$A_URL" late "${OLD[@]}" --batch 2 >/dev/null
check "... sent again in other batches: still once" "$w1" "$(wssq "")"

finish
