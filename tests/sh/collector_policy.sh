# tests/sh/collector_policy.sh - what lrugend writes to the kernel: aging
# commands (steady pace, skip rules) and the proactive reclaim policy (PSI
# pause, per-tick budget, floor, dry run), captured through a FIFO put where
# debugfs's lru_gen would be. Generations are read from lru_gen_full (--full),
# a regular file holding the Linux 6.1 capture.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/collector_helpers.bash"
tmp=$(mktemp -d)
CAT_PID=
cleanup() {
	[ -n "$CAT_PID" ] && kill "$CAT_PID" 2>/dev/null
	cleanup_procs
}
trap cleanup EXIT
mkroot "$tmp/r" 6.1
root=$tmp/r
cp "$LRUGEN_SRC/tests/fixtures/linux-6.1/lru_gen.txt" "$root/sys/kernel/debug/lru_gen_full"
rm "$root/sys/kernel/debug/lru_gen"
mkfifo "$root/sys/kernel/debug/lru_gen"
# hold both ends of the FIFO: lrugend's writes never block, the reader never sees EOF
exec 3<>"$root/sys/kernel/debug/lru_gen"
cat <&3 >"$tmp/cmds" &
CAT_PID=$!
mkdir -p "$root/proc/pressure"
psi() {
	printf 'some avg10=%s avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
		"$1" >"$root/proc/pressure/memory"
	printf 'some avg10=%s avg60=0.00 avg300=0.00 total=1\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' \
		"$2" >"$root/proc/pressure/io"
}
psi 1.00 0.50

# run NAME ARGS...: one tick; the commands it wrote land in $tmp/NAME.cmds
run() {
	local name=$1 before
	shift
	before=$(wc -l <"$tmp/cmds")
	"$LRUGEND" --root "$root" --full --spool "$tmp/spool" --output "$tmp/$name.pb" "$@" \
		2>"$tmp/$name.log"
	local rc=$?
	# the FIFO is drained asynchronously: wait until the reader caught up
	wait_for "$name: commands read" 10 caught_up "$tmp/$name.log" "$before"
	tail -n +$((before + 1)) "$tmp/cmds" >"$tmp/$name.cmds"
	return $rc
}
# caught_up LOG BEFORE: the capture holds every command the log says was written
caught_up() {
	local aged
	aged=$(sed -n 's/.*aging: \([0-9]*\) written.*/\1/p' "$1" | awk '{ s += $1 } END { print s + 0 }')
	[ "$(wc -l <"$tmp/cmds")" -ge $(($2 + $(count_lines "wrote '" "$1") + aged)) ]
}
cmds() {
	tr '\n' ';' <"$tmp/$1.cmds" | sed 's/;$//'
}

# --- aging -------------------------------------------------------------------------
# interval 1s, no margin: every lruvec's youngest generation (2 s) is old enough
check_rc "aging tick" 0 run age --interval 1s --age-margin 0
json=$("$PBDUMP" "$tmp/age.pb")
check "one '+' per lruvec of the snapshot, with its max_seq, can_swap=1 force_scan=1" \
	"$(jq -r '[.[0].lruvecs[] | "+ \(.memcg_id) \(.node) \(.generations[-1].seq) 1 1"] | join(";")' <<<"$json")" \
	"$(cmds age)"
check "aging reported on" true "$(jq '.[0].aging.enabled' <<<"$json")"
check_grep "aging summary logged (the empty parent /jobs is aged too)" "aging: 8 written, 0 skipped" "$(cat "$tmp/age.log")"
run noswap --interval 1s --age-margin 0 --no-can-swap
check_grep "--no-can-swap" '(^|;)\+ 3 1 6 0 1;' "$(cmds noswap);"
# default interval 2m with a 15 s margin: generations 2 s old were made by someone else
run recent
check "lruvecs aged recently are skipped" "" "$(cmds recent)"
check_grep "skips counted" "aging: 0 written, 8 skipped" "$(cat "$tmp/recent.log")"
# MGLRU off: no aging, one log line
echo 0x0000 >"$root/sys/kernel/mm/lru_gen/enabled"
run off --interval 1s --age-margin 0
check "MGLRU off: nothing written" "" "$(cmds off)"
check_grep "MGLRU off logged" "aging skipped: MGLRU is off" "$(cat "$tmp/off.log")"
echo 0x0007 >"$root/sys/kernel/mm/lru_gen/enabled"

# --- reclaim --------------------------------------------------------------------------------
RECLAIM=(--no-age --reclaim --reclaim-include '/jobs/*' --reclaim-older-than 3s
	--reclaim-swappiness 100 --reclaim-floor 0)
# /jobs/web node 1 holds 21003 pages idle > 3 s (gens 3-4); /jobs/batch node 0 30728:
# the 100M budget (25600 pages) covers web, and 4597 pages of batch
run budget "${RECLAIM[@]}" --reclaim-max-bytes 100M
check "evictions of gens idle > 3s, within the budget" "- 3 1 4 100 25600;- 4 0 4 100 4597" "$(cmds budget)"
check_grep "each action logged" "reclaim '/jobs/web' node 1: wrote '- 3 1 4 100 25600': 82.0 MiB idle longer than 3s" \
	"$(cat "$tmp/budget.log")"
check_grep "budget exhaustion logged" "per-tick budget of 100.0 MiB is used up" "$(cat "$tmp/budget.log")"
# floor 100M (25600 pages): web (30731 pages) may lose 5131, batch (33291) 7691
run floor "${RECLAIM[@]}" --reclaim-max-bytes 1G --reclaim-floor 100M
check "floor caps each memcg" "- 3 1 4 100 5131;- 4 0 4 100 7691" "$(cmds floor)"
run floor2 "${RECLAIM[@]}" --reclaim-max-bytes 1G --reclaim-floor 200M
check "below the floor: nothing" "" "$(cmds floor2)"
# only the selected memcgs
run sel "${RECLAIM[@]}" --reclaim-max-bytes 1G --reclaim-exclude '*/batch'
check "reclaim_exclude" "- 3 1 4 100 30731" "$(cmds sel)"
# pressure pauses it; an unreadable PSI too
psi 25.00 0.50
run psi "${RECLAIM[@]}" --reclaim-max-bytes 1G
check "memory pressure: nothing written" "" "$(cmds psi)"
check_grep "pause logged" "reclaim paused: memory pressure 'some avg10' is 25.00%, above 10%" "$(cat "$tmp/psi.log")"
psi 1.00 40.00
run psiio "${RECLAIM[@]}" --reclaim-max-bytes 1G --reclaim-psi-max 30
check "io pressure: nothing written" "" "$(cmds psiio)"
check_grep "io pause logged" "io pressure 'some avg10' is 40.00%, above 30%" "$(cat "$tmp/psiio.log")"
run psioff "${RECLAIM[@]}" --reclaim-max-bytes 1G --reclaim-psi-max 100
check "psi_max 100: pressure not checked" 2 "$(grep -c . "$tmp/psioff.cmds")"
rm "$root/proc/pressure/io"
run nopsi "${RECLAIM[@]}" --reclaim-max-bytes 1G
check "no PSI: nothing written" "" "$(cmds nopsi)"
check_grep "no PSI logged" "reclaim paused: cannot read PSI" "$(cat "$tmp/nopsi.log")"
psi 1.00 0.50
# dry run: logged and counted, not written
run dry "${RECLAIM[@]}" --reclaim-max-bytes 1G --reclaim-dry-run
check "dry run writes nothing" "" "$(cmds dry)"
check "dry run logs both" 2 "$(count_lines "would write '- " "$tmp/dry.log")"

# reclaim-older-than = advised: each memcg's threshold as lrugen-store advises it. The
# store holds advise.sh's fleet: /jobs/web advised 2m, /jobs/batch nothing. The
# generations here are a hundred times older (20m 10m 6.8m 3.4m): at 2m web's node 1
# gives gens 3-4 (the two youngest never), at 10m only gen 3.
. "$(dirname "$0")/advise-fixture.bash"
awk '/^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ *$/ { $2 = $2 * 100; print "          " $0; next } { print }' \
	"$root/sys/kernel/debug/lru_gen_full" >"$tmp/older" && cp "$tmp/older" "$root/sys/kernel/debug/lru_gen_full"
advise_spec 31 >"$tmp/advise.spec"
"$TOOLS/fleetsim" build "$tmp/advise.spec" >"$tmp/advise.pb"
printf 'tok-ingest-%s\n' "$RANDOM$RANDOM" >"$tmp/ingest.token"
printf 'tok-read-%s\n' "$RANDOM$RANDOM" >"$tmp/read.token"
{
	echo "read-token = $("$LRUGEN_BUILD/lrugen-store" --hash-token <"$tmp/read.token")"
	echo "ingest-token = $("$LRUGEN_BUILD/lrugen-store" --hash-token <"$tmp/ingest.token") host=*"
} >"$tmp/tokens.conf"
"$LRUGEN_BUILD/lrugen-store" --db "$tmp/advise.db" --listen 127.0.0.1:0 --config "$tmp/tokens.conf" \
	>"$tmp/advstore.log" 2>&1 &
ADV_PID=$!
wait_for "lrugen-store listening" 20 grep -q "listening on http" "$tmp/advstore.log"
ADV_URL=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$tmp/advstore.log")
check "the advise fleet stored" '{"accepted":62,"duplicates":0}' \
	"$(curl -s -H "Authorization: Bearer $(cat "$tmp/ingest.token")" -H 'Content-Type: application/x-protobuf' \
		--data-binary @"$tmp/advise.pb" "$ADV_URL/v1/snapshots")"
ADVISED=(--no-age --reclaim --reclaim-include '/jobs/*' --reclaim-swappiness 100 --reclaim-floor 0
	--reclaim-max-bytes 1G --store "$ADV_URL" --token-file "$tmp/ingest.token")
run adv "${ADVISED[@]}" --reclaim-older-than advised
check "advised: web's threshold (2m) and none for batch" "- 3 1 4 100 30731" "$(cmds adv)"
check_grep "... logged as advised" "reclaim '/jobs/web' node 1: wrote '- 3 1 4 100 30731': .* idle longer than 2m \(advised\)" \
	"$(cat "$tmp/adv.log")"
check_grep "... how many memcgs the store advises for" "reclaim: the store advises a threshold for 1 memcg$" \
	"$(cat "$tmp/adv.log")"
run adv10 "${ADVISED[@]}" --reclaim-older-than 10m
check "a fixed 10m: gen 3 only, batch too" "- 3 1 3 100 30731;- 4 0 3 100 33291" "$(cmds adv10)"
check_rc "advised without a store: a config error" 2 "$LRUGEND" --root "$root" --spool "$tmp/spool" \
	--output "$tmp/x.pb" --reclaim --reclaim-include '/jobs/*' --reclaim-older-than advised
check_grep "... said" "reclaim-older-than = advised needs store" \
	"$("$LRUGEND" --root "$root" --spool "$tmp/spool" --output "$tmp/x.pb" --reclaim \
		--reclaim-include '/jobs/*' --reclaim-older-than advised 2>&1)"
check_grep "--print-config says advised" "^reclaim-older-than = advised" \
	"$("$LRUGEND" --print-config --reclaim-older-than advised --store "$ADV_URL" --spool "$tmp/spool")"
kill "$ADV_PID"
wait "$ADV_PID" 2>/dev/null
run advdown "${ADVISED[@]}" --reclaim-older-than advised
check "advised, the store down: the tick still succeeds" 0 $?
check "... nothing reclaimed" "" "$(cmds advdown)"
check_grep "... said once" "reclaim: cannot read the store's advice .*no memcg is reclaimed from until it comes" \
	"$(cat "$tmp/advdown.log")"

# counters on /metrics after a reclaiming tick
start_lrugend "$tmp/m.log" --root "$root" --full --interval 1h --listen 127.0.0.1:0 \
	"${RECLAIM[@]}" --reclaim-max-bytes 100M
wait_for "metrics: a tick" 20 has_taken 1 "$tmp/m.log"
wait_for "metrics: listening" 20 grep -q "metrics: serving" "$tmp/m.log"
mport=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/m.log")
m=$(curl -sf "http://127.0.0.1:$mport/metrics")
check_grep "reclaim commands counted" 'lrugend_reclaim_commands_total\{mode="written"\} 2$' "$m"
check_grep "reclaim bytes counted" "^lrugend_reclaim_requested_bytes_total $(((21003 + 4597) * 4096))\$" "$m"
check_rc "clean stop" 0 stop_lrugend

# a regular-file lru_gen (a fixture): logged as would-write, never fatal
exec 3>&-
kill "$CAT_PID" 2>/dev/null
wait "$CAT_PID" 2>/dev/null
CAT_PID=
rm "$root/sys/kernel/debug/lru_gen"
cp "$LRUGEN_SRC/tests/fixtures/linux-6.1/lru_gen.txt" "$root/sys/kernel/debug/lru_gen"
"$LRUGEND" --root "$root" --spool "$tmp/spool" --output "$tmp/reg.pb" "${RECLAIM[@]}" \
	--reclaim-max-bytes 1G 2>"$tmp/reg.log"
check "fixture root: the tick succeeds" 0 $?
check_grep "fixture root: logged once" "reclaim: '.*lru_gen' is a regular file.*logging commands without writing them" \
	"$(cat "$tmp/reg.log")"
check "fixture root: would-write lines" 2 "$(count_lines "would write '- " "$tmp/reg.log")"

finish
