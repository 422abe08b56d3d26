# tests/sh/collector_hang.sh - a store that takes the connection and never
# answers (teststore --hang-count) must not slow lrugend down: with a 1 s
# interval and a 30 s send timeout, ticks keep their pace and /metrics answers
# at once while the send hangs; once the store answers again every snapshot
# arrives exactly once; SIGHUP and SIGTERM during a hung send take about a
# second and lose nothing that was spooled.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/collector_helpers.bash"
tmp=$(mktemp -d)
trap cleanup_procs EXIT
"$GENROOT" --memcgs 6 --nodes 2 "$tmp/root" >/dev/null

# The send hangs 30 s: a tick that waited for it would leave a 30 s gap. The
# bounds are far below that and far above 1 s, so that a loaded machine (CI
# builds a kernel meanwhile, under the sanitizer build) does not fail them.
TICKS=8		# ticks to see while the send hangs, at 1 s each
SLACK=12	# seconds on top
GAP_MAX_MS=8000	# largest time between two ticks (the interval is 1000 ms)
FRESH_MS=8000	# the /metrics model is at most this old
HUNG=(--root "$tmp/root" --interval 1s --no-jitter --timeout 30s --connect-timeout 5s
	--backoff-min 100ms --backoff-max 400ms --listen 127.0.0.1:0 --log-level debug)

now_ms() {
	date +%s%3N
}
# tick_ms LOG: wall-clock ms of every snapshot lrugend logged (one per tick)
tick_ms() {
	local ts
	sed -n 's/^\([0-9T:.-]*Z\) info: snapshot seq=.*/\1/p' "$1" | while read -r ts; do
		date -d "$ts" +%s%3N
	done
}
# gaps LOG FROM_MS: ms between consecutive ticks, from the last one before FROM_MS on
gaps() {
	tick_ms "$1" | awk -v from="$2" '$1 >= from && p { printf "%d\n", $1 - p } { p = $1 }'
}
# metric NAME FILE: a sample's value in a scrape
metric() {
	awk -v n="$1" '$1 == n { print $2 }' "$2"
}
scrape() {
	curl -sf --max-time 5 -o "$1" "http://127.0.0.1:$mport/metrics"
}
held() {
	grep -c "POST #[0-9]* held" "$1" 2>/dev/null
}
# drain NAME: send what is left in spool $tmp/NAME, logging to $tmp/NAME.drain.log
drain() {
	"$LRUGEND" --drain --store "$STORE_URL" --spool "$tmp/$1" --timeout 5s 2>>"$tmp/$1.drain.log"
}

# --- ticks, snapshots and /metrics while a send hangs -------------------------------------
start_store hang --hang-count 1
start_lrugend "$tmp/hang.log" "${HUNG[@]}" --store "$STORE_URL" --spool "$tmp/hang"
wait_for "hang: the store holds the first send" 20 grep -q "POST #1 held" "$tmp/hang.store.log"
wait_for "hang: metrics endpoint" 20 grep -q "metrics: serving" "$tmp/hang.log"
mport=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/hang.log")
n0=$(taken_seqs "$tmp/hang.log" | wc -l)
t0=$(now_ms)
wait_for "hang: $TICKS ticks within $((TICKS + SLACK)) s while the send hangs" $((TICKS + SLACK)) \
	has_taken $((n0 + TICKS)) "$tmp/hang.log"
t1=$(now_ms)
check "hang: those $TICKS ticks took at most $((TICKS + SLACK)) s (took $((t1 - t0)) ms)" true \
	"$([ $((t1 - t0)) -le $(((TICKS + SLACK) * 1000)) ] && echo true)"
ts=$(now_ms)
check_rc "hang: /metrics answers within 5 s" 0 scrape "$tmp/hang.prom"
check "hang: the send is still in flight (one POST, held)" "1 1" \
	"$(grep -c 'POST #' "$tmp/hang.store.log") $(held "$tmp/hang.store.log")"
check "hang: lrugend is still waiting for it" 0 \
	"$(count_lines 'cannot send to the store|sent [0-9]+ snapshots' "$tmp/hang.log")"
ticks=$(metric lrugend_ticks_total "$tmp/hang.prom")
check "hang: /metrics counts the ticks (lrugend_ticks_total >= $((n0 + TICKS)))" true \
	"$([ "${ticks:-0}" -ge $((n0 + TICKS)) ] && echo true)"
age=$(awk -v t="$(metric lrugen_snapshot_timestamp_seconds "$tmp/hang.prom")" -v now="$ts" \
	'BEGIN { printf "%d", t ? now - t * 1000 : 999999 }')
check "hang: the /metrics model is the last tick's (its snapshot $age ms old, at most $FRESH_MS)" true \
	"$([ "$age" -le "$FRESH_MS" ] && echo true)"
spooled=$(metric lrugend_spool_records "$tmp/hang.prom")
check "hang: /metrics counts the spooled snapshots (lrugend_spool_records >= $TICKS)" true \
	"$([ "${spooled:-0}" -ge "$TICKS" ] && echo true)"
g=$(gaps "$tmp/hang.log" "$t0" | tr '\n' ' ')
max=$(tr ' ' '\n' <<<"$g" | sort -n | tail -n 1)
check "hang: no more than $GAP_MAX_MS ms between ticks (gaps: $g)" true \
	"$([ -n "$max" ] && [ "$max" -le "$GAP_MAX_MS" ] && echo true)"
echo "hung send: $(wc -w <<<"$g") tick gaps in $((t1 - t0)) ms: $g(ms)"

# --- the store answers again: everything arrives, exactly once ----------------------------
port=$STORE_PORT
stop_store
start_store hang --port "$port"
wait_for "hang: the backlog is delivered once the store answers" 30 \
	all_stored "$tmp/hang.db" "$tmp/hang.log"
check_rc "hang: clean stop" 0 stop_lrugend
check_rc "hang: drain" 0 drain hang
stop_store
check_exactly_once "store hanging, then answering" "$tmp/hang.db" "$tmp/hang.log"

# --- SIGHUP, then SIGTERM during hung sends -------------------------------------------------
start_store term --hang-count -1
start_lrugend "$tmp/term.log" "${HUNG[@]}" --store "$STORE_URL" --spool "$tmp/term"
wait_for "term: the store holds the first send" 20 grep -q "POST #1 held" "$tmp/term.store.log"
wait_for "term: snapshots spooled meanwhile" 20 has_taken 3 "$tmp/term.log"
kill -HUP "$LRUGEND_PID"
wait_for "term: SIGHUP during a hung send reloads" 5 grep -q "reload: done" "$tmp/term.log"
wait_for "term: the send starts again after the reload, and hangs" 10 \
	grep -q "POST #2 held" "$tmp/term.store.log"
n=$(taken_seqs "$tmp/term.log" | wc -l)
wait_for "term: ticks go on after the reload" 10 has_taken $((n + 2)) "$tmp/term.log"
t0=$(now_ms)
kill -TERM "$LRUGEND_PID"
wait "$LRUGEND_PID"
rc=$?
t1=$(now_ms)
LRUGEND_PID=
check "term: exit 0 on SIGTERM" 0 "$rc"
check "term: exit within 10 s of SIGTERM during a hung send of 30 s (took $((t1 - t0)) ms)" true \
	"$([ $((t1 - t0)) -le 10000 ] && echo true)"
check_grep "term: the send in flight is abandoned, not lost" \
	"stopping: abandoned the send of seq [0-9]+-[0-9]+ in flight; it stays in the spool" \
	"$(cat "$tmp/term.log")"
echo "SIGTERM during a hung send: exit after $((t1 - t0)) ms"
port=$STORE_PORT
stop_store
start_store term --port "$port"
check_rc "term: drain" 0 drain term
stop_store
n=$(taken_seqs "$tmp/term.log" | wc -l)
check_grep "term: every snapshot taken was still spooled" "spool '[^']*': $n snapshots .* waiting" \
	"$(cat "$tmp/term.drain.log")"
check_exactly_once "SIGTERM during a hung send" "$tmp/term.db" "$tmp/term.log"

finish
