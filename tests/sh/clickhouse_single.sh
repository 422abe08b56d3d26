# tests/sh/clickhouse_single.sh - lrugen-store with backend = clickhouse on one
# server (no clickhouse-cluster: MergeTree tables named *_local, no ZooKeeper in
# the path, no Distributed tables): --migrate; the same fleetsim history into a
# sqlite store and into ClickHouse gives the same answers; a resend in other
# batches, its copies not merged yet, counted once; raw-retention rolls a day up
# and late snapshots of it count once. The server compresses with zstd. (tests/sh/clickhouse_store.sh tests the
# same on a 2 x 2 cluster, with faults.)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
CHT=_local
. "$(dirname "$0")/clickhouse-lib.bash"
tmp=$(mktemp -d)
trap 'stop_fe_all; ch_keep_logs; "$CLUSTER" clean "$tmp/ch" >/dev/null 2>&1; rm -rf "$tmp"' EXIT

# zstd here (tests/clickhouse/cluster --compression), lz4 in the 2x2 tests:
# every answer below comes from parts compressed the other way
ch_cluster_start --shards 1 --replicas 1 --compression zstd || { finish; exit; }
check "the server compresses its parts with zstd" 1 "$(grep -c '<method>zstd</method>' "$tmp/ch/ch1-1/config.xml")"
CLICKHOUSE_URLS=${CLICKHOUSE_URLS%%,*}	# one server
make_tokens "$tmp"
CH=(--backend clickhouse --clickhouse-url "$CLICKHOUSE_URLS" --clickhouse-user lrugen
	--clickhouse-password-file "$CLICKHOUSE_PASSWORD_FILE")

out=$("$STORE_BIN" "${CH[@]}" --migrate 2>&1)
check "--migrate on one server" 0 $?
check_grep "... creates version 9" "schema version 9 created in database lrugen" "$out"
check "... plain (not replicated) tables, none distributed, each a *_local MergeTree" "0 0 14 14" \
	"$(chq "SELECT countIf(engine LIKE 'Replicated%'), countIf(engine = 'Distributed'),
		countIf(engine LIKE '%MergeTree'), countIf(endsWith(name, '_local') AND
		engine LIKE '%MergeTree') FROM system.tables WHERE database = 'lrugen'" | tr '\t' ' ')"
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" || { finish; exit 1; }
start_fe SQ --config "$tmp/tokens.conf" --rollup-flush 1s || { finish; exit 1; }
check_grep "/healthz" '^200 .*"status":"ok"' "$(STORE_URL=$A_URL http GET /healthz)"

# ---- parity ----------------------------------------------------------------------------
HIST=(--hosts 12 --memcgs 12 --nodes 2 --history 2h --step 10m --interval 10m --batch 3 --threads 4)
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
QUERIES=(/v1/hosts /v1/cold '/v1/cold?by=node' '/v1/cold?by=memcg' '/v1/cold?limit=5&threshold=1h'
	'/v1/cold?by=node&limit=7&threshold=24h' '/v1/rank?need=512M&per_node=1&limit=0'
	"/v1/cold?by=memcg&memcg_glob=$job&limit=0" '/v1/cold?by=memcg&memcg_glob=/jobs/job-0%5B0-4%5D*'
	'/v1/wss?memcg_glob=*' "/v1/wss?memcg_glob=$job&window=7d" '/v1/wss?memcg_glob=/jobs/*&threshold=1h'
	'/v1/rank?need=1G' '/v1/capacity?thresholds=1m,30m,24h' '/v1/timeline?host=par00003&memcg=*'
	'/v1/advise' '/v1/advise?memcg_glob=/jobs/*&min_samples=1&slo=1')
parity " on one server" "${QUERIES[@]}"
# bands: one step over the whole history (steps are cut at the query's own now)
bands() { q "$1" '/v1/bands?memcg_glob=/jobs/*&window=3h&step=3h' | jq -c '.steps | map(del(.t_ms))'; }
b_sq=$(bands "$SQ_URL")
check "bands: the same on both backends" "$b_sq" "$(bands "$A_URL")"
check "... with every snapshot of the jobs in it" true "$(jq '.[0].samples > 100' <<<"$b_sq")"
check "advise's parity compares advice (the history is aged every step)" true \
	"$(q "$A_URL" '/v1/advise?min_samples=1&slo=1' | jq '[.jobs[].advice | select(. != null)] | length > 2')"
# memory.stat's reclaim counters (kept after the packed lruvecs): the same correction
. "$(dirname "$0")/advise-fixture.bash"
reclaim_spec 31 >"$tmp/reclaim.spec"
"$FLEETSIM" build "$tmp/reclaim.spec" >"$tmp/reclaim.pb" || fail "fleetsim build (reclaim)"
for u in "$A_URL" "$SQ_URL"; do
	check_grep "the reclaim fixture into $u" '"accepted":31' "$(STORE_URL=$u post_pb "$tmp/reclaim.pb" "$tmp/admin.token")"
done
parity " with memory.stat's counters" '/v1/advise?memcg_glob=/reclaim/*'
check "... evictions and refaults counted (not only equal)" "[$((30 * 50 * 4096)),$((30 * 10 * 4096))]" \
	"$(q "$A_URL" '/v1/advise?memcg_glob=/reclaim/*' | jq -c '[.jobs[].rates[0] | .evicted_bytes // 0] |
		[.[0], .[1]]')"

# ---- a resend in other batches, not merged yet: once -------------------------------------
merges STOP
check_grep "a resend: every snapshot a duplicate" "^sent=$NPAR accepted=0 duplicates=$NPAR errors=0" \
	"$(sim "$A_URL" par "${HIST[@]}" --batch 5)"
check "... rows stored again, not merged yet" 1 "$(chq "SELECT count() > uniqExact(path, host, \
	boot_id, seq) FROM lrugen.wss_samples_local")"
parity " with a resend's copies" "${QUERIES[@]}"
merges START
check "... counted once" "$NPAR" "$(counted par)"

# ---- raw-retention on one server: a day rolled up, late snapshots once --------------------
OLD=(--hosts 3 --memcgs 4 --nodes 1 --history 20m --step 10m)
stop_fe A
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 30d --clickhouse-rollup-after 30d ||
	{ finish; exit 1; }
old_to_both "$A_URL" old "${OLD[@]}"
B_URL=$A_URL
check "three-day-old snapshots stored raw" 1 \
	"$(chq "SELECT count() > 0 FROM lrugen.wss_samples_local WHERE startsWith(host, 'old')")"
w0=$(wssq "")
check "... the same 7-day wss as sqlite with a 3-day-old history" "$(wssq "" "$SQ_URL")" "$w0"
stop_fe A
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" --raw-retention 1d --maintenance-interval 1s ||
	{ finish; exit 1; }
B_URL=$A_URL
raw_gone() {
	[[ $(counted old) == 0 && $(chq "SELECT count() FROM lrugen.wss_samples_local
		WHERE startsWith(host, 'old')") == 0 ]]
}
wait_for "the expired day dropped" 60 raw_gone && pass
check_grep "... its samples rolled up first" "rolled up the working-set samples of day [0-9]{8}" \
	"$(cat "$A_LOG")"
check "wss after the roll-up: the same answer" "$w0" "$(wssq "")"
old_to_both "$A_URL" late "${OLD[@]}"
check "late snapshots of the rolled-up day acknowledged" 6 "$(acked late)"
w1=$(wssq "")
check "... counted once per job, as sqlite counts them" "$(job_samples "$(wssq "" "$SQ_URL")")" \
	"$(job_samples "$w1")"
SIM_NOW=$((NOW - 3 * 86400000)) sim "$A_URL" late "${OLD[@]}" --batch 2 >/dev/null
check "... sent again in other batches: still once" "$w1" "$(wssq "")"

# ---- hours rolled up soon after they end (clickhouse-rollup-after) ------------------------
# a history of hours that ended, stored raw (rollup-after 30d), then rolled up by a
# front-end with rollup-after 1s: the same answers, and still the same once the raw
# rows are gone (so the rolled-up hours are counted from the rollups, and only there)
RL=("${CH[@]}" --clickhouse-database roll)
"$STORE_BIN" "${RL[@]}" --migrate >/dev/null 2>&1
stop_fe A
start_fe A "${RL[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 30d || { finish; exit 1; }
RH=(--hosts 6 --memcgs 5 --nodes 2 --history 3h --step 10m --batch 4)
HOUR=3600000
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" rh "${RH[@]}" >/dev/null
RAW="SELECT uniqExact(host, seq) FROM roll.wss_samples_local WHERE startsWith(host, 'rh')"
check "a raw history of three hours that ended" "108 108" "$(acked rh) $(chq "$RAW")"
# a round whose samples were written and whose snapshots were not (a view of snapshots
# cannot write, its table detached): not acknowledged; its samples count (raw, then rolled)
HF=(--hosts 1 --memcgs 5 --nodes 2 --history 10m --step 10m)
chq "DETACH TABLE roll.hosts_latest_local" >/dev/null
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" hf "${HF[@]}" >/dev/null
check "a round failing after its samples were written: not acknowledged, samples stored" "0 1 0" \
	"$(acked hf) $(chq "SELECT count() > 0 FROM roll.wss_samples_local WHERE startsWith(host, 'hf')") $(
		chq "SELECT count() FROM roll.snapshots_local WHERE startsWith(host, 'hf')")"
chq "ATTACH TABLE roll.hosts_latest_local" >/dev/null
RQ=('/v1/wss?memcg_glob=*&window=1d' '/v1/wss?memcg_glob=/jobs/*&window=1d&threshold=1h&percentile=50')
before=$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)
check_grep "... counted" '"samples": [1-9]' "$before"
stop_fe A
start_fe A "${RL[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 1s \
	--maintenance-interval 1s || { finish; exit 1; }
# the three hours with samples (they start at minute 7 of hour NOW/HOUR-4): not the hour
# before them, marked only when the oldest raw day holds it (not at 04:xx UTC, its day before)
rolled_hours() {
	[[ $(chq "SELECT uniqExact(hour) FROM roll.wss_hours_local WHERE part = 1 AND
		hour >= $((NOW / HOUR - 4)) AND hour < $((NOW / HOUR - 1))") == 3 ]]
}
wait_for "its hours rolled up (rollup-after 1s)" 60 rolled_hours && pass
check_grep "... and logged" "rolled up the working-set samples of hour $((NOW / HOUR - 2)) in" "$(cat "$A_LOG")"
metric() { curl -s "$A_URL/metrics" | awk -v m="$1" '$1 == m { print $2 }'; }
check "... counted in /metrics, none pending" "true 0" \
	"$([[ $(metric lrugen_store_clickhouse_rollups_total) -ge 4 ]] && echo true) $(metric lrugen_store_clickhouse_rollups_pending)"
# the failed round sent again, its hour rolled up: the samples not written again (as rollups)
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" hf "${HF[@]}" >/dev/null
check "the failed round sent again after its hour's roll-up: acknowledged, stored" "1 1" \
	"$(acked hf) $(chq "SELECT count() FROM roll.snapshots_local WHERE startsWith(host, 'hf')")"
check "... the same answers (its samples counted once)" "$before" \
	"$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)"
check "... the raw rows kept" 108 "$(chq "$RAW")"
# a late snapshot of a rolled-up hour (schema 6): raw like any other, its (hour, path)
# pairs marked dirty first, so counted at once from the raw rows (not the pairs'
# rollup rows, which hold the other samples); once even when sent again; then the
# maintenance rolls those pairs up again and marks them clean: the same answers
LATE=(--hosts 1 --memcgs 5 --nodes 2 --history 10m --step 10m)
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" rl "${LATE[@]}" >/dev/null
late1=$(q "$A_URL" "${RQ[0]}" | jq .all.samples)
check "a late snapshot of a rolled-up hour: 5 more samples" $(($(jq -s '.[0].all.samples' <<<"$before") + 5)) "$late1"
check "... written raw, its 5 pairs marked dirty" "5 5" \
	"$(chq "SELECT count() FROM roll.wss_samples_local WHERE startsWith(host, 'rl')") $(
		chq "SELECT uniqExact(hour, path) FROM roll.wss_dirty_local WHERE kind = 0")"
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" rl "${LATE[@]}" >/dev/null
check "... sent again: once" "$late1" "$(q "$A_URL" "${RQ[0]}" | jq .all.samples)"
clean() {
	[[ $(chq "SELECT count() FROM (SELECT hour, path FROM roll.wss_dirty_local GROUP BY hour, path
		HAVING maxIf(at_ms, kind = 1) > maxIf(at_ms, kind = 0))") == 5 ]]
}
wait_for "... its pairs rolled up again and marked clean" 60 clean && pass
check_grep "... and logged" "rolled up the late samples of hour $((NOW / HOUR - 2)) again in" "$(cat "$A_LOG")"
check "... counted in /metrics" true "$([[ $(metric lrugen_store_clickhouse_rerollups_total) -ge 1 ]] && echo true)"
after=$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)
check "... the same answers, read from the rollups" "$late1" "$(jq -s '.[0].all.samples' <<<"$after")"
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" rl "${LATE[@]}" >/dev/null
check "... sent again after that: still once" "$after" "$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)"
for d in $(chq "SELECT DISTINCT toYYYYMMDD(toDateTime(intDiv(taken_ms, 1000), 'UTC')) FROM roll.wss_samples_local"); do
	chq "ALTER TABLE roll.wss_samples_local DROP PARTITION $d" >/dev/null
done
check "... dropped by hand" 0 "$(chq "SELECT count() FROM roll.wss_samples_local")"
check "... the same answers from the rollups alone (the late samples rolled up too)" "$after" \
	"$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)"

# an hour with rows written directly (a part-0 mark) whose roll-up is under way: its
# rows written, its mark not yet (or not seen by this server): they do not count yet
MH=$(((NOW - 3 * 86400000) / HOUR))	# (taken half an hour into it: in that hour, whatever the clock)
SIM_NOW=$((MH * HOUR + HOUR / 2)) sim "$A_URL" mo --hosts 1 --memcgs 5 --nodes 2 --history 10m \
	--step 10m >/dev/null
check "an hour with late samples only: marked, not rolled up" "1 0" \
	"$(chq "SELECT countIf(part = 0) > 0, countIf(part = 1) FROM roll.wss_hours_local WHERE hour = $MH" |
		tr '\t' ' ')"
w7=$(q "$A_URL" '/v1/wss?memcg_glob=*&window=7d')
chq "INSERT INTO roll.wss_hourly_n_local (path, hour, part, n, warn) VALUES ('/', $MH, 1, 1000, [])" >/dev/null
chq "INSERT INTO roll.wss_hourly_local (path, hour, part, k, bucket, n, max)
	SELECT '/', $MH, 1, toUInt8(number), 200, 1000, 1000000000000 FROM system.numbers LIMIT 8" >/dev/null
check "... its roll-up's rows before the mark: not counted" "$w7" "$(q "$A_URL" '/v1/wss?memcg_glob=*&window=7d')"

# ---- a spool replayed into hours no one rolled up (schema 6) -------------------------------
# a fresh database's maintenance begins at the current hour (no raw samples before it); a
# history replayed into earlier hours is late: dirty pairs in hours without a mark, rolled
# up whole once the samples settled (rollup-after 3s: a second), then read as rollups
RP=("${CH[@]}" --clickhouse-database replay)
"$STORE_BIN" "${RP[@]}" --migrate >/dev/null 2>&1
stop_fe A
start_fe A "${RP[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 3s \
	--maintenance-interval 1s || { finish; exit 1; }
began() { grep -q "clickhouse: rolling up the hours from .* on" "$A_LOG"; }
wait_for "a fresh database: the maintenance says where it begins" 10 began && pass
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" rp "${RH[@]}" >/dev/null
check "a replayed history of three hours: acknowledged, raw" "108 108" \
	"$(acked rp) $(chq "SELECT uniqExact(host, seq) FROM replay.wss_samples_local")"
w_raw=$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)
check_grep "... counted" '"samples": [1-9]' "$w_raw"
rp_hours=$(chq "SELECT uniqExact(hour) FROM replay.wss_samples_local")
rp_rolled() {
	[[ $(chq "SELECT uniqExact(hour) FROM replay.wss_hours_local WHERE part = 1 AND
		hour IN (SELECT DISTINCT hour FROM replay.wss_samples_local)") == "$rp_hours" &&
	   $(chq "SELECT count() FROM (SELECT hour, path FROM replay.wss_dirty_local GROUP BY hour,
		path HAVING maxIf(at_ms, kind = 0) + 1000 >= maxIf(at_ms, kind = 1))") == 0 ]]
}
wait_for "... its $rp_hours hours rolled up whole, their pairs marked clean" 60 rp_rolled && pass
check_grep "... logged" "rolled up the late samples of hour [0-9]+ again in" "$(cat "$A_LOG")"
check "... the same answers" "$w_raw" "$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)"
for d in $(chq "SELECT DISTINCT toYYYYMMDD(toDateTime(intDiv(taken_ms, 1000), 'UTC')) FROM replay.wss_samples_local"); do
	chq "ALTER TABLE replay.wss_samples_local DROP PARTITION $d" >/dev/null
done
check "... the same answers from the rollups alone (raw rows dropped by hand)" "$w_raw" \
	"$(for p in "${RQ[@]}"; do q "$A_URL" "$p"; done)"

# ---- a roll-up's memory (clickhouse-rollup-spill, clickhouse-rollup-memory) ---------------
# an hour of 300,000 memcg samples: its roll-up (a set of samples per path, threshold and
# bucket) took 229 MB whole, 93 MB spilling past 16 MiB (measured). Under a 160 MiB
# clickhouse-rollup-memory and without the spill, the roll-up fails, is logged and tried
# again, and the hour counts from its raw samples; spilling past 16 MiB it rolls up, every
# raw sample counted once
SP=("${CH[@]}" --clickhouse-database spill)
"$STORE_BIN" "${SP[@]}" --migrate >/dev/null 2>&1
stop_fe A
start_fe A "${SP[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 30d || { finish; exit 1; }
SPH=(--hosts 1000 --memcgs 100 --nodes 1 --history 30m --step 10m --interval 10m --batch 50 --threads 8)
SIM_NOW=$(((NOW / HOUR - 1) * HOUR - 60000)) sim "$A_URL" sp "${SPH[@]}" >/dev/null
SH=$((NOW / HOUR - 2))
sp_raw=$(chq "SELECT uniqExact(host, seq, path) FROM spill.wss_samples_local WHERE
	intDiv(taken_ms, $HOUR) = $SH")
check "an hour of 3,000 snapshots of 100 memcgs: acknowledged, raw" "3000 300000" "$(acked sp) $sp_raw"
SPQ=('/v1/wss?memcg_glob=*&window=1d' '/v1/wss?memcg_glob=/jobs/*&window=1d&threshold=1h&percentile=50')
sp_before=$(for p in "${SPQ[@]}"; do q "$A_URL" "$p"; done)
check_grep "... counted" '"samples": 300000' "$sp_before"
stop_fe A
out=$("$STORE_BIN" "${SP[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-spill 32M \
	--clickhouse-rollup-memory 32M 2>&1)
check "clickhouse-rollup-spill not under clickhouse-rollup-memory: refused (a usage error)" 2 $?
check_grep "... saying why" "clickhouse-rollup-spill \\(32\\.0 MiB\\) must be under clickhouse-rollup-memory \\(32\\.0 MiB" "$out"
start_fe A "${SP[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 1s --maintenance-interval 1s \
	--clickhouse-rollup-spill 0 --clickhouse-rollup-memory 160M || { finish; exit 1; }
sp_failed() { [[ $(grep -c "rolling up hour $SH (its raw samples count until then): .*Memory limit" "$A_LOG") -ge 2 ]]; }
wait_for "without the spill, its roll-up fails on the memory limit (logged, tried again)" 90 sp_failed && pass
sp_marks() { chq "SELECT count() FROM spill.wss_hours_local WHERE hour = $SH"; }
check "... the hour not marked rolled up" 0 "$(sp_marks)"
check "... its samples counted raw: the same answers" "$sp_before" "$(for p in "${SPQ[@]}"; do q "$A_URL" "$p"; done)"
stop_fe A
start_fe A "${SP[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 1s --maintenance-interval 1s \
	--clickhouse-rollup-spill 16M --clickhouse-rollup-memory 160M || { finish; exit 1; }
sp_rolled() { [[ $(sp_marks) -ge 1 ]]; }
wait_for "spilling past 16 MiB, it rolls up within the same 160 MiB" 90 sp_rolled && pass
check_grep "... logged" "rolled up the working-set samples of hour $SH in" "$(cat "$A_LOG")"
check "... every raw sample counted once in its rollups" "$sp_raw $sp_raw" \
	"$(chq "SELECT sum(m) FROM (SELECT max(n) AS m FROM spill.wss_hourly_n_local WHERE hour = $SH
		GROUP BY path)") $(chq "SELECT sum(m) FROM (SELECT max(n) AS m FROM spill.wss_hourly_local
		WHERE hour = $SH AND k = 0 GROUP BY path, bucket)")"
check "... the same answers, from the rollups" "$sp_before" "$(for p in "${SPQ[@]}"; do q "$A_URL" "$p"; done)"

# ---- wss over a glob matching 30,008 memcg paths: a SELECT past ClickHouse's defaults -----
# (its path list appears in the query and in the dirty pairs' subquery: 1 MB of SQL and
# 60,000 literals, where ClickHouse refuses a query over 256 KiB or 50,000 AST elements
# unless told otherwise)
WD=("${CH[@]}" --clickhouse-database wide)
"$STORE_BIN" "${WD[@]}" --migrate >/dev/null 2>&1
stop_fe A
start_fe A "${WD[@]}" --config "$tmp/tokens.conf" || { finish; exit 1; }
check_grep "a host of 30,008 memcgs stored (30,000 jobs)" "^sent=1 accepted=1 " \
	"$(sim "$A_URL" wd --hosts 1 --jobs 30000 --memcgs 30008 --nodes 1 --history 2m --step 2m)"
check "... 30,008 paths" 30008 "$(chq "SELECT uniqExact(path) FROM wide.wss_samples_local")"
check "wss over all of them: one sample each" 30008 "$(q "$A_URL" '/v1/wss?memcg_glob=*&window=1d' | jq .all.samples)"
# ... and a late snapshot of 30,008 memcgs, of an hour that ended: 30,008 dirty (hour, path)
# pairs, which a query hands every shard as a literal set (1 MB), and which the maintenance
# rolls up again with their paths listed (1 MB), then marks clean (30,008 rows)
stop_fe A
start_fe A "${WD[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 1s \
	--maintenance-interval 1h || { finish; exit 1; }
HOUR=3600000 WH=$((NOW / 3600000 - 2))
check_grep "a late snapshot of 30,008 memcgs stored" "^sent=1 accepted=1 " \
	"$(SIM_NOW=$((WH * HOUR + HOUR / 2)) sim "$A_URL" wl --hosts 1 --jobs 30000 --memcgs 30008 --nodes 1 \
		--history 2m --step 2m)"
check "... its 30,008 (hour, path) pairs marked dirty" 30008 \
	"$(chq "SELECT uniqExact(hour, path) FROM wide.wss_dirty_local WHERE kind = 0 AND hour = $WH")"
check "... wss counts it at once: two samples a path" 60016 \
	"$(q "$A_URL" '/v1/wss?memcg_glob=*&window=1d' | jq .all.samples)"
stop_fe A
start_fe A "${WD[@]}" --config "$tmp/tokens.conf" --clickhouse-rollup-after 1s \
	--maintenance-interval 1s || { finish; exit 1; }
wide_clean() {
	[[ $(chq "SELECT count() FROM (SELECT hour, path FROM wide.wss_dirty_local GROUP BY hour, path
		HAVING maxIf(at_ms, kind = 1) > maxIf(at_ms, kind = 0))") == 30008 ]]
}
wait_for "... the 30,008 pairs rolled up (their paths listed) and marked clean" 120 wide_clean && pass
check "... the hour's rollups: a row per path" 30008 \
	"$(chq "SELECT uniqExact(path) FROM wide.wss_hourly_n_local WHERE hour = $WH")"
check "... wss: the same count, the late hour from its rollups" 60016 \
	"$(q "$A_URL" '/v1/wss?memcg_glob=*&window=1d' | jq .all.samples)"
check "... no roll-up failed" 0 "$(grep -c 'warning: clickhouse: rolling up' "$A_LOG")"

# ---- SIGTERM while a maintenance request waits on ClickHouse: stops at once ---------------
# (the server stopped with SIGSTOP: its kernel takes the connection, nothing answers; the
# request would wait clickhouse-timeout, 30 s, and lrugen-store with it)
stop_fe A
start_fe A "${CH[@]}" --config "$tmp/tokens.conf" --maintenance-interval 1s || { finish; exit 1; }
chpid=$(cat "$tmp/ch/ch1-1.pid") chport=${CLICKHOUSE_URLS##*:}
kill -STOP "$chpid"
waiting() { ss -Htnp state established "( dport = :${chport%%/*} )" | grep -q "pid=$A_PID,"; }
wait_for "the maintenance waits on the stopped server" 10 waiting && pass
t0=$(date +%s%N)
stop_fe A
t1=$(date +%s%N)
kill -CONT "$chpid"
check "... SIGTERM ends it within 3 s (not after clickhouse-timeout)" 1 $(((t1 - t0) < 3000000000))
check "... and lrugen-store exits 0" 0 "$STORE_RC"

# ---- clickhouse-insert-interval: collectors on their pace share rounds of INSERTs ---------
IV=("${CH[@]}" --clickhouse-database ivl)
out=$("$STORE_BIN" "${IV[@]}" --migrate 2>&1) || fail "--migrate of database ivl: $out"
rounds() { curl -s "$A_URL/metrics" | awk '$1 == "lrugen_store_transactions_total" { print $2 }'; }
PACED=(--hosts 40 --memcgs 2 --nodes 1 --history 2m --step 2m --rate 20 --threads 40)
start_fe A "${IV[@]}" --config "$tmp/tokens.conf" --clickhouse-insert-interval 0 || { finish; exit 1; }
r0=$(rounds)
check_grep "40 hosts sending on their pace (20 a second), clickhouse-insert-interval 0" "^sent=40 accepted=40 " \
	"$(sim "$A_URL" iva "${PACED[@]}")"
n0=$(($(rounds) - r0))
stop_fe A
start_fe A "${IV[@]}" --config "$tmp/tokens.conf" --clickhouse-insert-interval 60s || { finish; exit 1; }
r0=$(rounds)
check_grep "... the same with clickhouse-insert-interval 60s" "^sent=40 accepted=40 " \
	"$(sim "$A_URL" ivb "${PACED[@]}")"
n1=$(($(rounds) - r0))
check "... rounds of INSERTs: 10 or more without it, 5 at most with it ($n0, $n1)" "yes yes" \
	"$( ((n0 >= 10)) && echo yes) $( ((n1 <= 5)) && echo yes)"
# clients that wait for each answer before the next (a spool replayed) are all queued when
# the snapshots stop coming: not held for the minute (6 rounds of 4 would take 6 minutes)
check_grep "... 24 snapshots sent 4 at a time, each client waiting for its answers: within 60 s" \
	"^sent=24 accepted=24 " "$(timeout 60 "$FLEETSIM" run --store "$A_URL" --token-file "$tmp/any.token" \
		--prefix ivc --now "$NOW" --seed 7 --hosts 24 --memcgs 2 --nodes 1 --history 2m --step 2m \
		--threads 4 2>>"$tmp/fleetsim.err")"
stop_fe A
# four writers waiting for the same interval: the one that does not get the jobs waits again
start_fe A "${IV[@]}" --config "$tmp/tokens.conf" --clickhouse-insert-interval 1s \
	--clickhouse-writers 4 || { finish; exit 1; }
check_grep "... 4 writers, interval 1s: every snapshot acknowledged" "^sent=40 accepted=40 " \
	"$(sim "$A_URL" ivd "${PACED[@]}")"
check "... every snapshot stored once" "40 40 24 40" \
	"$(chq "SELECT countIf(startsWith(host, 'iva')), countIf(startsWith(host, 'ivb')),
		countIf(startsWith(host, 'ivc')), countIf(startsWith(host, 'ivd'))
		FROM ivl.snapshots_local FINAL" | tr '\t' ' ')"
check "... no empty round (a writer finding the jobs taken waits again)" 0 \
	"$(grep -c 'snapshots not written' "$A_LOG")"
stop_fe A

# ---- a database migrated past a running front-end's version: it takes no more snapshots ---
VER=("${CH[@]}" --clickhouse-database ver)
out=$("$STORE_BIN" "${VER[@]}" --migrate 2>&1) || fail "--migrate of database ver: $out"
start_fe A "${VER[@]}" --config "$tmp/tokens.conf" --maintenance-interval 1s || { finish; exit 1; }
ONE=(--hosts 1 --memcgs 2 --nodes 1 --history 2m --step 2m)
check_grep "a front-end at its database's version takes a snapshot" "^sent=1 accepted=1 " \
	"$(sim "$A_URL" v1 "${ONE[@]}")"
chq "INSERT INTO ver.migrations_local VALUES (10, $(date +%s%3N))" >/dev/null
refusing() { [[ $(STORE_URL=$A_URL http GET /healthz) == 503* ]]; }
wait_for "... the database migrated to version 10 meanwhile: /healthz answers 503" 10 refusing && pass
check_grep "... saying why" "migrated to schema version 10, this lrugen-store writes version 9: upgrade it" \
	"$(STORE_URL=$A_URL http GET /healthz)"
check_grep "... a snapshot refused (503: the collector keeps it)" "^sent=1 accepted=0 duplicates=0 errors=1" \
	"$(sim "$A_URL" v2 "${ONE[@]}")"
check_grep "... with HTTP 503" "HTTP 503" "$(tail -n 1 "$tmp/fleetsim.err")"
check "... none of it written" "1 0" \
	"$(chq "SELECT countIf(startsWith(host, 'v1')), countIf(startsWith(host, 'v2')) FROM ver.snapshots_local" |
		tr '\t' ' ')"
check "... logged once" 1 "$(grep -c "was migrated to schema version 10" "$A_LOG")"
stop_fe A

finish
