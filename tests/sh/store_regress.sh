# tests/sh/store_regress.sh - the protobuf regression inputs (tests/corpus/pb-regress)
# against a real lrugen-store (the sanitizer build under make check): queries of an
# empty store, every input posted, every query answered, and a restart that recounts
# the rollups from the stored snapshots. Absurd values are clamped, never a 500.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
tmp=$(mktemp -d)
trap 'stop_store; rm -rf "$tmp"' EXIT
corpus=$LRUGEN_SRC/tests/corpus/pb-regress
queries=(/v1/hosts /v1/cold '/v1/cold?by=node' '/v1/cold?by=memcg' '/v1/cold?by=memcg&memcg_glob=/jobs/*'
	'/v1/capacity?thresholds=1m,24h' '/v1/rank?need=1G' '/v1/rank?need=1G&per_node=1')

# query_all WHEN: every query answers 200
query_all() {
	local q out
	for q in "${queries[@]}"; do
		out=$(http GET "$q" -)
		check "$1: $q" 200 "${out%% *}"
	done
}

# --stale-after 0: the inputs are dated 2023 and rank only counts fresh hosts
start_store "$tmp" --insecure-no-auth --stale-after 0 || { finish; exit 1; }
query_all "empty store"

# the ingest answer of each input: 200, or 400 for a read time out of range
for f in "$corpus"/*; do
	name=$(basename "$f")
	out=$(post_pb "$f" -)
	case $name in
	read-*) check "$name: refused as implausible" 400 "${out%% *}" ;;
	crash-*) check_grep "$name: answered" '^(200|400) ' "$out" ;;
	*) check "$name: accepted" '200 {"accepted":1,"duplicates":0}' "$out" ;;
	esac
done
check "healthz after the inputs" 200 "$(http GET /healthz - | cut -d' ' -f1)"
query_all "after the inputs"
queries+=('/v1/wss?memcg_glob=/jobs/*&window=100000w')
check "wss of the inputs' memcg" 200 "$(http GET "${queries[-1]}" - | cut -d' ' -f1)"

# 2^64-1 bytes on a node: clamped to the largest JSON integer, not an overflow
# (grep, not jq: jq reads numbers as doubles)
max=9223372036854775807
check_grep "capacity: memory saturates" "\"mem_total_bytes\":$max," "$(http GET /v1/capacity -)"
check_grep "rank: the saturated host's offer" "\"host\":\"regress-node-max\".*\"offer_bytes\":$max," \
	"$(http GET '/v1/rank?need=1G' -)"
for h in regress-no-lruvecs regress-birth regress-seq-max regress-node-max; do
	out=$(http GET "/v1/timeline?host=$h&since=100000w" -)
	check "timeline of $h" 200 "${out%% *}"
done
check_grep "timeline: births at both ends come back exactly" \
	",-9223372036854775808,.*,$max,.*,-9223372036854775807," \
	"$(http GET '/v1/timeline?host=regress-birth&since=100000w' -)"
check_grep "timeline: generations up to seq 2^64-1 unpack" '"points":4,' \
	"$(http GET '/v1/timeline?host=regress-seq-max&since=100000w' -)"
out=$(http GET '/v1/timeline?host=regress-birth&since=18446744073709551614ms' -)
check "timeline: since beyond the epoch" 200 "${out%% *}"

# a restart recounts the rollups of these snapshots (the zero-lruvec one included)
stop_store
check "the store stopped cleanly" 0 "$STORE_RC"
start_store "$tmp" --insecure-no-auth --stale-after 0 || { finish; exit 1; }
query_all "after a restart"
finish
