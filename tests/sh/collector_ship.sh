# tests/sh/collector_ship.sh - lrugend against tests/tools/teststore under faults:
# store down at start, down mid-run, 500s, slow answers, kill -9 of lrugend
# (and a torn spool tail), a bad token, gzip, 413 and 400, a full spool disk
# (as root: a small tmpfs in a private mount namespace). After each, every
# snapshot lrugend logged as taken is in the store exactly once (or, where
# the store refuses one for good, dropped with a log line and a counter).
. "$(dirname "$0")/lib.sh"
private_mounts "$0" "$@"
. "$(dirname "$0")/collector_helpers.bash"
tmp=$(mktemp -d)
trap cleanup_procs EXIT
"$GENROOT" --memcgs 6 --nodes 2 "$tmp/root" >/dev/null

# lrugend ticking fast against the store at $1, spool $2
FAST=(--root "$tmp/root" --interval 300ms --no-jitter --no-age --log-level debug
	--backoff-min 100ms --backoff-max 400ms --timeout 1500ms --connect-timeout 1s)
collector() {
	local url=$1 spool=$2
	shift 2
	start_lrugend "$tmp/$spool.log" "${FAST[@]}" --store "$url" --spool "$tmp/$spool" "$@"
}
drain() {
	"$LRUGEND" --drain --store "$1" --spool "$tmp/$2" --timeout 5s "${@:3}" 2>>"$tmp/$2.log"
}
stored_count() {
	wc -l <"$1" 2>/dev/null || echo 0
}
# a port nothing listens on (a store started and stopped)
free_port() {
	start_store probe >/dev/null
	stop_store
	echo "$STORE_PORT"
}
# offline NAME TICKS: TICKS snapshots spooled in $tmp/NAME for a store that is
# down at $port (set here), so that the next send is one batch of them all
offline() {
	seed_spools --spool "$tmp/$1"
	port=$(free_port)
	"$LRUGEND" --root "$tmp/root" --interval 0 --ticks "$2" --no-age --store "http://127.0.0.1:$port" \
		--spool "$tmp/$1" --backoff-min 1h --backoff-max 1h >/dev/null 2>>"$tmp/$1.log"
}

# --- store down at start ---------------------------------------------------------------
port=$(free_port)
collector "http://127.0.0.1:$port" down
wait_for "down: snapshots spooled while the store is down" 20 has_taken 3 "$tmp/down.log"
wait_for "down: send errors logged" 20 grep -q "cannot send to the store" "$tmp/down.log"
start_store down --port "$port"
wait_for "down: recovery logged" 30 grep -qE "store reachable again after [0-9]+ failed attempts" "$tmp/down.log"
wait_for "down: backlog delivered after the store came up" 30 all_stored "$tmp/down.db" "$tmp/down.log"
check_rc "down: clean stop" 0 stop_lrugend
check_rc "down: drain the rest" 0 drain "$STORE_URL" down
stop_store
check_exactly_once "store down at start" "$tmp/down.db" "$tmp/down.log"

# --- store down mid-run (kill -9 of the store) ------------------------------------------
start_store mid
collector "$STORE_URL" mid
wait_for "mid: first snapshots stored" 20 has_stored "$tmp/mid.db" 2
kill -KILL "$STORE_PID"
wait "$STORE_PID" 2>/dev/null
n=$(taken_seqs "$tmp/mid.log" | wc -l)
wait_for "mid: ticks go on while the store is gone" 20 has_taken $((n + 3)) "$tmp/mid.log"
start_store mid --port "$STORE_PORT"
wait_for "mid: everything delivered after the restart" 30 all_stored "$tmp/mid.db" "$tmp/mid.log"
check_rc "mid: clean stop" 0 stop_lrugend
check_rc "mid: drain" 0 drain "$STORE_URL" mid
stop_store
check_exactly_once "store down mid-run" "$tmp/mid.db" "$tmp/mid.log"

# --- store answering 500 ------------------------------------------------------------------
start_store e500 --fail-status 500 --fail-count 5
collector "$STORE_URL" e500
wait_for "500: errors logged" 20 grep -q "the store answered HTTP 500" "$tmp/e500.log"
wait_for "500: delivered once the store recovers" 30 all_stored "$tmp/e500.db" "$tmp/e500.log"
check_rc "500: clean stop" 0 stop_lrugend
check_rc "500: drain" 0 drain "$STORE_URL" e500
stop_store
check_exactly_once "store returning 500s" "$tmp/e500.db" "$tmp/e500.log"
check_grep "500: backoff grows" "next attempt in [0-9]+ ms \(attempt [3-9]\)" "$(cat "$tmp/e500.log")"

# --- slow store: answers after lrugend's timeout (committed, answer lost) ------------------
start_store slow --delay-ms 2500 --delay-count 2
collector "$STORE_URL" slow
wait_for "slow: timeouts logged" 20 grep -q "cannot send to the store: .*timed out" "$tmp/slow.log"
wait_for "slow: resent batches acknowledged as duplicates" 30 \
	grep -qE "sent [0-9]+ snapshots .*: [0-9]+ accepted, [1-9][0-9]* duplicates" "$tmp/slow.log"
wait_for "slow: all delivered" 30 all_stored "$tmp/slow.db" "$tmp/slow.log"
check_rc "slow: clean stop" 0 stop_lrugend
check_rc "slow: drain" 0 drain "$STORE_URL" slow
stop_store
check_exactly_once "slow store (lost answers)" "$tmp/slow.db" "$tmp/slow.log"

# --- kill -9 of lrugend, again and again, while it appends ---------------------------------
start_store k9
for i in 1 2 3 4 5; do
	start_lrugend "$tmp/k9.log" --root "$tmp/root" --interval 0 --ticks 1000000 --no-age \
		--store "$STORE_URL" --spool "$tmp/k9" --backoff-min 100ms --backoff-max 400ms
	wait_for "k9: round $i ticking" 20 has_taken $((i * 3)) "$tmp/k9.log"
	sleep "0.$((RANDOM % 3 + 1))"
	kill -KILL "$LRUGEND_PID"
	wait "$LRUGEND_PID" 2>/dev/null
	LRUGEND_PID=
done
check_rc "k9: drain after the kills" 0 drain "$STORE_URL" k9
stop_store
# a snapshot is logged as taken once it is safe in the spool; a kill between
# the append and the log line leaves one snapshot stored but never logged:
# at most one per kill, right after the last one logged
taken=$(taken_seqs "$tmp/k9.log")
extra=$(comm -13 <(echo "$taken" | sort) <(stored_seqs "$tmp/k9.db" | sort) | sort -n)
check "k9: every snapshot taken is stored" "" "$(comm -23 <(echo "$taken" | sort) <(stored_seqs "$tmp/k9.db" | sort) | tr '\n' ' ')"
check "k9: nothing stored twice" "" "$(stored_seqs "$tmp/k9.db" | uniq -d | tr '\n' ' ')"
check "k9: at most one unlogged snapshot per kill" true "$([ "$(echo "$extra" | grep -c .)" -le 5 ] && echo true)"
echo "kill -9: $(grep -c . <<<"$taken") taken, $(stored_seqs "$tmp/k9.db" | grep -c .) stored ($(echo "$extra" | grep -c .) spooled by a killed process before it logged them)"
check "k9: each unlogged snapshot follows a logged one" "" \
	"$(for e in $extra; do grep -qx "$((e - 1))" <<<"$taken" || echo "$e"; done | tr '\n' ' ')"
check "k9: seqs never reused across restarts" "" "$(taken_seqs "$tmp/k9.log" | uniq -d | tr '\n' ' ')"
check "k9: seqs increase in log order" "$(taken_seqs "$tmp/k9.log" | tr '\n' ' ')" \
	"$(sed -n 's/.* snapshot seq=\([0-9]*\) .*/\1/p' "$tmp/k9.log" | tr '\n' ' ')"

# --- a torn spool tail (a write cut short by a crash) is skipped, never fatal --------------
offline torn 5
check "torn: five snapshots spooled" 5 "$(taken_seqs "$tmp/torn.log" | wc -l)"
seg=$(ls "$tmp/torn"/*.seg | tail -n 1)
truncate -s -10 "$seg"
start_store torn --port "$port"
"$LRUGEND" --root "$tmp/root" --interval 0 --ticks 1 --no-age --store "$STORE_URL" \
	--spool "$tmp/torn" >/dev/null 2>>"$tmp/torn2.log"
check_grep "torn: the torn record is reported" "a torn record at offset [0-9]+; skipped [0-9]+ bytes" \
	"$(cat "$tmp/torn2.log")"
check "torn: the next seq is new, never the torn one's" 6 "$(taken_seqs "$tmp/torn2.log")"
check_rc "torn: drain" 0 drain "$STORE_URL" torn
stop_store
check "torn: everything but the torn snapshot stored once" "1 2 3 4 6" "$(stored_seqs "$tmp/torn.db" | tr '\n' ' ' | sed 's/ $//')"
echo "torn tail: 6 taken, seq 5 torn by the test, 5 stored"


# --- credentials: 401 keeps the spool; a new token in the file is picked up ----------------
start_store auth --token s3cret
printf 'wrong\n' >"$tmp/token"
chmod 600 "$tmp/token"
collector "$STORE_URL" auth --token-file "$tmp/token"
wait_for "401: logged as an error" 20 grep -q "error: the store refused our credentials (HTTP 401)" "$tmp/auth.log"
wait_for "401: snapshots kept" 20 has_taken 3 "$tmp/auth.log"
check "401: nothing stored" 0 "$(stored_count "$tmp/auth.db")"
printf 's3cret\n' >"$tmp/token"
wait_for "401: delivered with the new token" 30 all_stored "$tmp/auth.db" "$tmp/auth.log"
check_rc "401: clean stop" 0 stop_lrugend
check_rc "401: drain" 0 drain "$STORE_URL" auth --token-file "$tmp/token"
stop_store
check_exactly_once "token refused, then fixed" "$tmp/auth.db" "$tmp/auth.log"
check "token never logged" 0 "$(count_lines 's3cret' "$tmp/auth.log")"

# --- gzip once the store advertises it --------------------------------------------------------
start_store gz --gzip
collector "$STORE_URL" gz
wait_for "gzip: several batches stored" 20 has_stored "$tmp/gz.db" 4
check_rc "gzip: clean stop" 0 stop_lrugend
check_rc "gzip: drain" 0 drain "$STORE_URL" gz
stop_store
check_exactly_once "gzip" "$tmp/gz.db" "$tmp/gz.log"
check_grep "gzip: bodies were gzip'd" "gzip=[1-9]" "$(cat "$tmp/gz.store.log")"
start_store plain
collector "$STORE_URL" plain
wait_for "plain: stored" 20 has_stored "$tmp/plain.db" 2
stop_lrugend
stop_store
check_grep "no gzip unless advertised" "gzip=0 " "$(cat "$tmp/plain.store.log")"

# --- 413: batches split; a single snapshot still too large is dropped ------------------------
offline big 6
one=$(stat -c %s "$(ls "$tmp/big"/*.seg | head -n 1)")
start_store big --port "$port" --max-body $((one / 6 * 2 + 100))
check_rc "413: drain splits batches" 0 drain "$STORE_URL" big
stop_store
check_grep "413: split logged" "splitting a batch of 6 snapshots" "$(cat "$tmp/big.log")"
check_exactly_once "413 split" "$tmp/big.db" "$tmp/big.log"
offline huge 2
start_store huge --port "$port" --max-body 100
check_rc "413: a single oversized snapshot is dropped, the spool empties" 0 drain "$STORE_URL" huge
stop_store
check "413: dropped snapshots logged" 2 "$(count_lines 'HTTP 413, too large\): dropping it' "$tmp/huge.log")"
check "413: nothing stored" 0 "$(stored_count "$tmp/huge.db")"

# --- 400 for one snapshot: dropped alone, the rest of its batch delivered ---------------------
offline rej 4
start_store rej --port "$port" --reject-seq 2
check_rc "400: drain" 0 drain "$STORE_URL" rej
stop_store
check "400: all but the refused one stored" "1 3 4" "$(stored_seqs "$tmp/rej.db" | tr '\n' ' ' | sed 's/ $//')"
check_grep "400: drop logged" "refused snapshot seq 2 \(HTTP 400\): dropping it" "$(cat "$tmp/rej.log")"

# --- the spool's disk fills up while the store is down ----------------------------------------
# Snapshots that cannot be spooled are lost (logged, counted); those spooled reach
# the store once it is back, and the emptied spool gives its space back, so that
# spooling works again.
if small_fs "$tmp/full" 96k; then
	port=$(free_port)
	start_lrugend "$tmp/full.log" "${FAST[@]}" --interval 100ms --store "http://127.0.0.1:$port" \
		--spool "$tmp/full/spool"
	wait_for "full: the disk fills up" 60 grep -qE \
		"cannot (take a sequence number|spool snapshot).*No space left on device" "$tmp/full.log"
	check_rc "full: lrugend goes on running" 0 kill -0 "$LRUGEND_PID"
	n=$(taken_seqs "$tmp/full.log" | wc -l)
	check "full: snapshots were spooled before" 1 "$((n > 10))"
	start_store full --port "$port"
	wait_for "full: the spooled snapshots reach the store" 30 has_stored "$tmp/full.db" "$n"
	wait_for "full: spooling again once the store emptied the spool" 30 has_taken $((n + 5)) "$tmp/full.log"
	check_rc "full: clean stop" 0 stop_lrugend
	check_rc "full: drain" 0 "$LRUGEND" --drain --store "$STORE_URL" --spool "$tmp/full/spool" --timeout 5s
	stop_store
	check_exactly_once "full spool disk" "$tmp/full.db" "$tmp/full.log"
	umount "$tmp/full"
else
	echo "full spool disk: skipped (needs root, for a tmpfs in a private mount namespace)"
fi

finish
