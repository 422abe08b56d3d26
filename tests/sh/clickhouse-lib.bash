# tests/sh/clickhouse-lib.bash - what the ClickHouse store tests share (sourced after
# lib.sh and store-lib.bash, with $tmp set).
#
#   ch_cluster_start [ARGS...]   tests/clickhouse/cluster start $tmp/ch ARGS (it needs
#                                Debian's clickhouse-server and zookeeper); sources its
#                                cluster.env, sets pw; returns 1 (saying why) if it cannot
#   chq SQL [URL]                ClickHouse's answer, from URL or the first server that answers
#   counted PREFIX               snapshots of hosts PREFIX* as every answer counts them (FINAL)
#                                (CHT: "" for the Distributed tables, "_local" on one server)
#   start_fe NAME ARGS... / stop_fe NAME / stop_fe_all   front-ends: NAME_URL, NAME_PID, NAME_LOG
#   sim URL PREFIX ARGS...       a fleetsim history of hosts PREFIX* sent to URL (any.token);
#                                "host boot seq" of each acknowledged snapshot in $tmp/PREFIX.acked
#   old_to_both URL PREFIX ARGS  the same, taken 3 days ago, into URL and into SQ_URL (sqlite)
#   acked PREFIX                 how many snapshots of PREFIX* were acknowledged (distinct)
#   q URL PATH                   a query's answer without what depends on the clock or ingest time
#   parity WHAT PATH...          a check per PATH: A_URL's answer is SQ_URL's (sqlite's)
#   merges STOP|START / merges_idle   SYSTEM ... MERGES on every server / none merging
#   wssq ARGS [URL]              wss over 7 days of every path (default URL: B_URL)
#   job_samples JSON             "PATH SAMPLES" per job of a wss answer
#   add A B C                    per job, A's samples + B's - C's (job_samples lines)
#   ch_keep_logs                 (in the EXIT trap, before the cluster is cleaned) after a
#                                failure, the cluster's and the front-ends' logs are copied
#                                to $LRUGEN_BUILD/failed/TEST.PID/ (or $LRUGEN_FAILED_LOGS)
CLUSTER=$LRUGEN_SRC/tests/clickhouse/cluster
CHT=${CHT:-}
NOW=$(($(date +%s) * 1000))

ch_cluster_start() {
	local need
	for need in /usr/sbin/clickhouse-server /usr/share/java/zookeeper.jar; do
		[[ -e $need ]] || { fail "$need is needed (scripts/install-deps)"; return 1; }
	done
	if ! "$CLUSTER" start "$tmp/ch" "$@" >"$tmp/cluster.out" 2>&1; then
		fail "the cluster did not start: $(tail -5 "$tmp/cluster.out")"
		return 1
	fi
	. "$tmp/ch/cluster.env"
	pw=$(cat "$CLICKHOUSE_PASSWORD_FILE")
}

ch_keep_logs() {
	[[ ${T_FAIL:-0} -gt 0 && -d $tmp ]] || return 0
	local to=${LRUGEN_FAILED_LOGS:-$LRUGEN_BUILD/failed}/$(basename "$0" .sh).$$ d
	mkdir -p "$to" || return 0
	for d in "$tmp"/ch/*/log; do
		[[ -d $d ]] && cp -r "$d" "$to/$(basename "$(dirname "$d")")"
	done
	cp "$tmp"/*.log "$tmp"/*.err "$tmp"/*.out "$to/" 2>/dev/null
	echo "# the cluster's and front-ends' logs of this failed run: $to" >&2
}

chq() {
	local url out
	for url in ${2:-${CLICKHOUSE_URLS//,/ }}; do
		# (200 s: a statement ON CLUSTER may wait a minute for 18.16's DDL queue, and
		# another server asked after a timeout would queue it twice)
		out=$(curl -sSf --max-time 200 -H "X-ClickHouse-User: lrugen" -H "X-ClickHouse-Key: $pw" \
			--data-binary "$1" "$url/" 2>&1) && { printf '%s\n' "$out"; return 0; }
	done
	printf '%s\n' "$out"
	return 1
}

counted() { chq "SELECT count() FROM lrugen.snapshots$CHT FINAL WHERE startsWith(host, '$1')"; }

start_fe() {
	local name=$1
	shift
	start_store "$tmp" "$@" || return 1
	printf -v "${name}_URL" '%s' "$STORE_URL"
	printf -v "${name}_PID" '%s' "$STORE_PID"
	printf -v "${name}_LOG" '%s' "$STORE_LOG"
}
stop_fe() {
	local pid=${1}_PID
	STORE_PID=${!pid}
	stop_store
	printf -v "${1}_PID" '%s' ""
}
stop_fe_all() {
	local fe
	for fe in A B C SQ W; do
		local pid=${fe}_PID
		[[ -n ${!pid:-} ]] && stop_fe $fe
	done
}

sim() {
	local url=$1 prefix=$2
	shift 2
	"$FLEETSIM" run --store "$url" --token-file "$tmp/any.token" --prefix "$prefix" \
		--now "${SIM_NOW:-$NOW}" --seed 7 --acked "$tmp/$prefix.acked" "$@" 2>>"$tmp/fleetsim.err"
}
acked() { sort -u "$tmp/$1.acked" 2>/dev/null | wc -l; }
# old_to_both URL PREFIX ARGS...: a sim history taken 3 days ago, into URL and into sqlite (SQ_URL)
old_to_both() {
	local url=$1 u
	shift
	for u in "$url" "$SQ_URL"; do
		SIM_NOW=$((NOW - 3 * 86400000)) sim "$u" "$@" >/dev/null
	done
}

q() {
	curl -sS -H "Authorization: Bearer $(cat "$tmp/read.token")" "$1$2" |
		jq -S 'del(.now_ms, .since_ms, .next) |
			if (.hosts | type) == "array" then .hosts |= map(del(.first_seen_ms, .last_ingest_ms)) else . end'
}

parity() {
	local what=$1 path a s
	shift
	for path in "$@"; do
		a=$(q "$A_URL" "$path")
		s=$(q "$SQ_URL" "$path")
		if [[ -n $a && $a == "$s" ]]; then pass
		else fail "parity$what $path: $(diff <(echo "$s") <(echo "$a") | head -5)"; fi
	done
}

merges() { local u; for u in ${CLICKHOUSE_URLS//,/ }; do chq "SYSTEM $1 MERGES" "$u" >/dev/null; done; }
merges_idle() {
	local u
	for u in ${CLICKHOUSE_URLS//,/ }; do
		[[ $(chq "SELECT count() FROM system.merges" "$u") == 0 ]] || return 1
	done
}

wssq() { q "${2:-$B_URL}" "/v1/wss?memcg_glob=*&window=7d$1"; }
job_samples() { jq -r '.jobs[] | "\(.memcg) \(.samples)"' <<<"$1"; }
add() {
	awk 'FNR == 1 { f++ } f == 1 { v[$1] = $2; o[++n] = $1 } f == 2 { v[$1] += $2 }
		f == 3 { v[$1] -= $2 } END { for (i = 1; i <= n; i++) print o[i], v[o[i]] }' \
		<(printf '%s\n' "$1") <(printf '%s\n' "$2") <(printf '%s\n' "$3")
}
