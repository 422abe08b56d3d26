# tests/sh/store_regress.sh - the protobuf regression inputs (tests/corpus/pb-regress)
# against a real lrugen-store (the sanitizer build under make check): queries of an
# empty store, every input posted, every query answered, and a restart that recounts
# the rollups from the stored snapshots. Absurd values are refused by the bounds
# (lib/lru_bounds.h) with their reason, never a 500; the lib code they would reach
# saturates (fuzz_pb and test_pb_regress check that without the store).
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

# the ingest answer of each input: 200, or 400 with the bound it passes
for f in "$corpus"/*; do
	name=$(basename "$f")
	out=$(post_pb "$f" -)
	case $name in
	read-*) check_grep "$name: refused, a read time out of range" \
		'^400 \{"error":"snapshot 0: read (start|end) |^400 .*the read took' "$out" ;;
	birth-extremes.pb) check_grep "$name: refused, a birth out of range" \
		'^400 .*generation 100 birth -9223372036854775808 ms is not between' "$out" ;;
	node-total-max.pb) check_grep "$name: refused, 2^64-1 bytes on a node" \
		'^400 .*node 0: total_bytes 18446744073709551615 is above' "$out" ;;
	seq-max.pb) check_grep "$name: refused, seq 2^64-1" '^400 .*seq 18446744073709551615 is above' "$out" ;;
	non-utf8-strings.pb) check_grep "$name: refused, not UTF-8" '^400 .*is not UTF-8' "$out" ;;
	crash-*) check_grep "$name: answered" '^(200|400) ' "$out" ;;
	*) check "$name: accepted" '200 {"accepted":1,"duplicates":0}' "$out" ;;
	esac
done
check "healthz after the inputs" 200 "$(http GET /healthz - | cut -d' ' -f1)"
query_all "after the inputs"
check_grep "wss of the inputs' memcg: answered" '^(200|404) ' \
	"$(http GET '/v1/wss?memcg_glob=/jobs/*&window=100000w' -)"
out=$(http GET '/v1/timeline?host=regress-no-lruvecs&since=100000w' -)
check "timeline of regress-no-lruvecs" 200 "${out%% *}"
out=$(http GET '/v1/timeline?host=regress-no-lruvecs&since=18446744073709551614ms' -)
check "timeline: since beyond the epoch" 200 "${out%% *}"

# a restart recounts the rollups of these snapshots (the zero-lruvec one included)
stop_store
check "the store stopped cleanly" 0 "$STORE_RC"
start_store "$tmp" --insecure-no-auth --stale-after 0 || { finish; exit 1; }
query_all "after a restart"
finish
