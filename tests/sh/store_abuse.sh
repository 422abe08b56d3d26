# tests/sh/store_abuse.sh - one client must not take lrugen-store down (loopback only).
#
# Floods, each while a good client keeps asking: idle connections from one
# address and from many, concurrent large ingest bodies, answers never read.
# Under each, /healthz and a good client's ingest answer within 1 s, the
# store's peak RSS stays under its memory budget plus the fixed overhead
# measured at rest, and every acknowledged snapshot is in the database.
#
# The RSS figures come from the plain build ($LRUGEN_VM_BUILD, which make
# check passes): under AddressSanitizer RSS says nothing about the store.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
ABUSE=$LRUGEN_BUILD/tests/tools/abuse
tmp=$(mktemp -d)
flood_pid=
trap 'exec {hold}>&- 2>/dev/null; [[ -n $flood_pid ]] && kill "$flood_pid" 2>/dev/null; stop_store; rm -rf "$tmp"' EXIT
make_tokens "$tmp"
BUDGET_MB=64
SLACK_MB=32	# what the budget does not count: sqlite's read caches, malloc's arenas
if [[ -x ${LRUGEN_VM_BUILD:-}/lrugen-store ]]; then
	STORE_BIN=$LRUGEN_VM_BUILD/lrugen-store	# RSS of the real thing
	rss_checks=1
else
	echo "store_abuse: no plain build (LRUGEN_VM_BUILD): RSS not checked" >&2
	rss_checks=0
fi

# a big host: 20,000 lruvecs of 4 generations (80,000 timeline points, ~2 MB of protobuf)
awk 'BEGIN {
	print "host big-1 boot b seq 1 taken -20s kernel 6.12.0-test"
	print "node 0 total 64G free 8G"
	print "node 1 total 64G free 8G"
	for (i = 0; i < 10000; i++)
		for (n = 0; n < 2; n++) {
			printf "lruvec /jobs/job-%05d/task ino %d id %d node %d\n", i, 1000 + i, 10 + i, n
			print "gen 1 600s 1000 10"; print "gen 2 300s 1000 10"
			print "gen 3 100s 1000 10"; print "gen 4 5s 1000 10"
		}
}' >"$tmp/big.spec"
"$FLEETSIM" build "$tmp/big.spec" >"$tmp/big.pb" || fail "fleetsim build big"
# good client: a small host, a new seq every time
seq_no=0
# good_ingest SEQ: prints the HTTP status
good_ingest() {
	printf 'host good-1 boot g seq %d taken -1s\nnode 0 total 8G free 1G\nlruvec /jobs/a node 0\ngen 1 60s 10 0\ngen 2 1s 10 0\n' \
		"$1" | "$FLEETSIM" build >"$tmp/good.pb"
	curl -s -o /dev/null -w '%{http_code}' --max-time 1 -X POST \
		-H "Authorization: Bearer $(cat "$tmp/admin.token")" \
		-H 'Content-Type: application/x-protobuf' --data-binary @"$tmp/good.pb" \
		"$STORE_URL/v1/snapshots"
}
acked=0
# good_client NAME: /healthz and an ingest, each answered 200 within 1 s
good_client() {
	local h i
	h=$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$STORE_URL/healthz")
	check "$1: /healthz within 1 s" 200 "$h"
	seq_no=$((seq_no + 1))
	i=$(good_ingest "$seq_no")
	check "$1: a good client's ingest within 1 s" 200 "$i"
	[[ $i == 200 ]] && acked=$((acked + 1))
}
hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$STORE_PID/status"; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$STORE_PID/status"; }
# peak_under NAME: the peak RSS so far within the budget plus the overhead at rest
peak_under() {
	((rss_checks)) || return 0
	local peak=$(($(hwm_kb) / 1024))
	if ((peak <= limit_mb)); then pass; else
		fail "$1: peak RSS ${peak} MiB over ${limit_mb} MiB (budget ${BUDGET_MB} + at rest ${rest_mb} + $SLACK_MB)"
	fi
	echo "store_abuse: $1: peak RSS ${peak} MiB (limit ${limit_mb} MiB)" >&2
}

start_store "$tmp" --config "$tmp/tokens.conf" --memory-budget ${BUDGET_MB}M --cache 8M \
	--max-connections-per-ip 32 --idle-timeout 30s || { finish; exit 1; }
port=${STORE_URL##*:}
out=$(post_pb "$tmp/big.pb" "$tmp/admin.token")
check "the big host is taken" '200 {"accepted":1,"duplicates":0}' "$out"
acked=$((acked + 1))
good_client "at rest"
# at rest after one big ingest and its queries: what the store needs beside the budget
http GET '/v1/timeline?host=big-1&limit=1000' "$tmp/read.token" >/dev/null
rest_mb=$(($(rss_kb) / 1024))
limit_mb=$((rest_mb + BUDGET_MB + SLACK_MB))

# --- idle connections from one address ---------------------------------------------
exec {hold}> >(exec "$ABUSE" conns "$port" 1200 127.0.0.2 >"$tmp/conns.out")
wait_for "1200 connections from 127.0.0.2 opened" 30 grep -q '^held' "$tmp/conns.out"
held=$(awk 'NR == 1 {print $2}' "$tmp/conns.out")
check "one address keeps max-connections-per-ip open" 32 "$held"
good_client "1200 idle connections from one address"
exec {hold}>&-
wait_for "the one-address flood closed" 10 bash -c '[ "$(wc -l <"$0")" -ge 2 ]' "$tmp/conns.out"

# --- idle connections from many addresses (more than the old limit of ~1,020) -------
for a in $(seq 10 49); do
	exec {h}> >(exec "$ABUSE" conns "$port" 32 "127.0.1.$a" >"$tmp/many.$a")
	holds+=("$h")
done
wait_for "1,280 connections from 40 addresses opened" 60 \
	bash -c 'for a in $(seq 10 49); do grep -q ^held "$0/many.$a" || exit 1; done' "$tmp"
total=$(cat "$tmp"/many.* | awk '{s += $2} END {print s}')
check "1,280 idle connections from 40 addresses all held" 1280 "$total"
good_client "1,280 idle connections from 40 addresses"
for h in "${holds[@]}"; do exec {h}>&-; done

# --- large bodies held at once ----------------------------------------------------
# 24 x 2 MB bodies all but their last byte sent: the store holds every body it
# took at once (each one's buffer, 4 MiB), and a good client still gets in
exec {hold}> >(exec "$ABUSE" post-held "$port" 24 "$tmp/big.pb" "$(cat "$tmp/admin.token")" \
	>"$tmp/held.out")
wait_for "24 large bodies sent but their last byte" 30 grep -qs '^sent 24' "$tmp/held.out"
held_mb=$(curl -s "$STORE_URL/metrics" |
	awk '/^lrugen_store_memory_bytes\{kind="held"\}/ {printf "%d", $2 / 1048576}')
check "the held bodies keep to three quarters of the budget" 1 $((held_mb <= BUDGET_MB * 3 / 4))
check "the held bodies hold some of it" 1 $((held_mb >= BUDGET_MB / 2))
good_client "24 large bodies held"
exec {hold}>&-
wait_for "the held bodies answered" 60 grep -q '^retry-after' "$tmp/held.out"
check "every held body answered 200 or 503" 24 "$(awk '$1 ~ /^[0-9]+$/ && ($1 == 200 || $1 == 503) {s += $2} END {print s + 0}' "$tmp/held.out")"

# --- concurrent large bodies ------------------------------------------------------
# 24 x 2 MB batches decoding at once would need ~24 x 30 MB: past the 64 MB budget
"$ABUSE" post "$port" 24 "$tmp/big.pb" "$(cat "$tmp/admin.token")" >"$tmp/post.out" &
flood_pid=$!
good_client "24 concurrent 2 MB bodies"
wait "$flood_pid"
flood_pid=
n200=$(awk '$1 == 200 {print $2}' "$tmp/post.out")
n503=$(awk '$1 == 503 {print $2}' "$tmp/post.out")
check "every large body answered 200 or 503" 24 $((${n200:-0} + ${n503:-0}))
check "the budget refused some (503)" 1 $((${n503:-0} > 0))
check "every 503 says when to retry" "${n503:-0}" "$(awk '$1 == "retry-after" {print $2}' "$tmp/post.out")"
peak_under "24 concurrent 2 MB bodies"

# --- answers never read ------------------------------------------------------------
exec {hold}> >(exec "$ABUSE" unread "$port" 16 "/v1/timeline?host=big-1&since=1h" \
	"$(cat "$tmp/read.token")" >"$tmp/unread.out")
wait_for "16 unread timelines sent" 10 grep -qs '^sent 16' "$tmp/unread.out"
# each answered: 200 (its answer held until sent) or 503 (the budget was spent)
timeline_answers() {
	curl -s "$STORE_URL/metrics" |
		awk '/^lrugen_store_http_responses_total\{route="timeline"/ {s += $2} END {print s + 0}'
}
for ((i = 0; i < 300; i++)); do
	(($(timeline_answers) >= 17)) && break
	sleep 0.1
done
check "the 16 unread timelines answered (200 or 503)" 17 "$(timeline_answers)"
good_client "16 timelines never read"
out=$(http GET '/v1/timeline?host=big-1&since=1h&limit=100' "$tmp/read.token")
check "a paged timeline answers meanwhile" 200 "${out%% *}"
check "a page ends at its limit" 100 "$(jq .points <<<"${out#* }")"
next=$(jq -r .next <<<"${out#* }")
out2=$(http GET "/v1/timeline?host=big-1&since=1h&limit=100&after=$next" "$tmp/read.token")
out3=$(http GET '/v1/timeline?host=big-1&since=1h&limit=200' "$tmp/read.token")
lv() { jq -r ".lruvecs[$1] | \"\(.memcg) \(.node) \(.points | length)\"" <<<"${2#* }"; }
check "the next page goes on where the first ended" "$(lv 25 "$out3")" "$(lv 0 "$out2")"
check "... and ends where a page twice as long ends" "$(lv 49 "$out3")" "$(lv 24 "$out2")"
peak_under "16 timelines never read"
exec {hold}>&-
wait_for "the unread answers freed" 30 bash -c \
	'curl -s "$0/metrics" | grep -q "^lrugen_store_memory_bytes{kind=\"held\"} 0$"' "$STORE_URL"

# --- nothing acknowledged lost ------------------------------------------------------
stop_store
check "every acknowledged snapshot stored" "$acked" \
	"$(sql "$tmp/db" "SELECT count(*) FROM snapshots s JOIN hosts h ON h.id = s.host_id")"
finish
