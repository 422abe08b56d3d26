# tests/sh/collector_metrics.sh - GET /metrics: promtool-clean, the histogram
# agrees with 'lrugen wss', buckets are cumulative, health counters move.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/collector_helpers.bash"
tmp=$(mktemp -d)
trap cleanup_procs EXIT
PROMTOOL=$(command -v promtool || true)
mkroot "$tmp/r61" 6.1

# a memcg whose path needs escaping in a label value
{
	cat "$LRUGEN_SRC/tests/fixtures/linux-6.1/lru_gen.txt"
	printf 'memcg     9 /jobs/odd "name" \\x\n node     0\n          7       9000        10          3 \n'
} >"$tmp/r61/sys/kernel/debug/lru_gen"

# metrics_port LOG: the port lrugend logged for --listen 127.0.0.1:0
metrics_port() {
	sed -n 's/.*metrics: serving .*(port \([0-9]*\)).*/\1/p' "$1" | tail -n 1
}
scrape() {
	curl -sf "http://127.0.0.1:$1/metrics"
}
# series NAME{LABELS} TEXT: the value of one series
series() {
	awk -v name="$1" '$1 == name { print $2 }' <<<"$2"
}

start_lrugend "$tmp/m.log" --root "$tmp/r61" --listen 127.0.0.1:0 --interval 1h --no-age \
	--metrics-buckets 3s,5s,7s,1m --store http://127.0.0.1:9 --spool "$tmp/spool" \
	--backoff-min 1h --backoff-max 1h
wait_for "metrics listening" 20 grep -q "metrics: serving" "$tmp/m.log"
mport=$(metrics_port "$tmp/m.log")
wait_for "a tick" 20 has_taken 1 "$tmp/m.log"
wait_for "scrape works" 20 scrape "$mport"
# the shipping thread's counters reach /metrics within a second of the send
send_failed() {
	[ "$(series lrugend_send_errors_total "$(scrape "$mport")")" = 1 ]
}
wait_for "the failed send is on /metrics" 5 send_failed
m=$(scrape "$mport")
for name in $(grep -oE '\blrugend_[a-z_]+' "$LRUGEN_SRC/contrib/prometheus/lrugen.rules.yml" | sort -u); do
	check_grep "contrib/prometheus rules name an exported metric: $name" "^# TYPE $name " "$m"
done
for name in $(jq -r '.. | .expr? // empty' "$LRUGEN_SRC/contrib/grafana/lrugen-fleet.json" |
	grep -oE '\blrugend?_[a-z_]+' | grep -v '^lrugen_store_' | sort -u); do
	check_grep "contrib/grafana names an exported metric: $name" "^# TYPE $name " "$m"
done

if [ -n "$PROMTOOL" ]; then
	out=$(promtool check metrics <<<"$m" 2>&1)
	check "promtool check metrics is clean" "0:" "$?:$out"
else
	fail "promtool not installed (scripts/install-deps installs prometheus)"
fi

# the histogram: hot bytes at each threshold, as lrugen wss computes them
wss=$("$LRUGEN_BUILD/lrugen" --root "$tmp/r61" wss --threshold 3s --json)
check "age_le=3 anon = wss hot anon at 3s" \
	"$(jq '.[] | select(.memcg == "/jobs/web" and .node == 1) | .hot_anon_bytes' <<<"$wss")" \
	"$(series 'lrugen_memory_bytes{memcg="/jobs/web",node="1",type="anon",age_le="3"}' "$m")"
check "age_le=3 file = wss hot file at 3s" \
	"$(jq '.[] | select(.memcg == "/jobs/batch" and .node == 0) | .hot_file_bytes' <<<"$wss")" \
	"$(series 'lrugen_memory_bytes{memcg="/jobs/batch",node="0",type="file",age_le="3"}' "$m")"
check "+Inf is everything resident" $(((21003 + 9728) * 4096)) \
	"$(series 'lrugen_memory_bytes{memcg="/jobs/web",node="1",type="anon",age_le="+Inf"}' "$m")"
check "buckets are cumulative" "" "$(grep '^lrugen_memory_bytes{' <<<"$m" |
	awk -F'[{}]' '{ key = $2; sub(/,age_le=.*/, "", key); v = $3 + 0
		if (key == last && v < prev) print "decreasing: " $0; last = key; prev = v }')"
# 9 lruvecs: /, /jobs (empty, kept as the parent), web, batch on 2 nodes; odd on 1
check "series per lruvec: 2 types x (4 buckets + Inf)" $((9 * 2 * 5)) \
	"$(grep -c '^lrugen_memory_bytes{' <<<"$m")"
check_grep "label values escaped" 'memcg="/jobs/odd \\"name\\" \\\\x"' "$m"
check "no per-generation series by default" 0 "$(grep -c '^lrugen_generation_bytes' <<<"$m")"
check "node memory" 536870912 "$(series 'lrugen_node_memory_bytes{node="1",kind="total"}' "$m")"

# health: the store is unreachable, so the snapshot waits in the spool
check "spool depth" 1 "$(series lrugend_spool_records "$m")"
check_grep "spool bytes" '^lrugend_spool_bytes [1-9][0-9]*$' "$m"
check "send errors counted" 1 "$(series lrugend_send_errors_total "$m")"
check "no success yet" 0 "$(series lrugend_last_send_success_timestamp_seconds "$m")"
check "snapshots taken" 1 "$(series lrugend_snapshots_total "$m")"
check_grep "cpu seconds" '^lrugend_cpu_seconds_total [0-9.]+$' "$m"
check_grep "drops by reason" 'lrugend_snapshots_dropped_total\{reason="spool_full"\} 0' "$m"
check_grep "backoff exposed" '^lrugend_send_backoff_seconds [0-9.]+$' "$m"
check "other paths 404" 404 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$mport/nope")"
check "only GET" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$mport/metrics")"
check "healthz" ok "$(curl -sf "http://127.0.0.1:$mport/healthz")"
# a busy address is fatal at start
check_rc "busy listen address" 1 "$LRUGEND" --root "$tmp/r61" --listen "127.0.0.1:$mport" \
	--interval 0 --ticks 1 --no-age
check_grep "busy address message" "metrics: cannot listen on '127.0.0.1:$mport'" \
	"$("$LRUGEND" --root "$tmp/r61" --listen "127.0.0.1:$mport" --interval 0 --ticks 1 --no-age 2>&1)"
check_rc "clean stop with the endpoint up" 0 stop_lrugend

# opt-in per-generation detail
start_lrugend "$tmp/g.log" --root "$tmp/r61" --listen 127.0.0.1:0 --interval 1h --no-age \
	--metrics-generations
wait_for "generations: listening" 20 grep -q "metrics: serving" "$tmp/g.log"
wait_for "generations: a tick" 20 has_taken 1 "$tmp/g.log"
m=$(scrape "$(metrics_port "$tmp/g.log")")
[ -n "$PROMTOOL" ] && check_rc "promtool with generations" 0 promtool check metrics <<<"$m"
check "youngest generation of /jobs/web node 1 (gen 0)" 0 \
	"$(series 'lrugen_generation_bytes{memcg="/jobs/web",node="1",type="anon",gen="0"}' "$m")"
check "oldest generation of /jobs/web node 1 (gen 3)" $((21003 * 4096)) \
	"$(series 'lrugen_generation_bytes{memcg="/jobs/web",node="1",type="anon",gen="3"}' "$m")"
check "generation age" 9.336 "$(series 'lrugen_generation_age_seconds{memcg="/jobs/web",node="1",gen="3"}' "$m")"
check_rc "clean stop" 0 stop_lrugend

finish
