# shellcheck shell=bash disable=SC2034,SC2016 # VM_* are read by lib.sh; jq/awk code in single quotes
# kernels: 6.12
# tests/vm/scenarios/advise.sh - 'lrugen fleet advise' (GET /v1/advise) on a
# real kernel: a job whose pages come back at a known rate gets the promotion
# rate that rate implies, a job whose cold pages never come back gets advice.
#
# One guest runs lrugen-store and lrugend (--interval 36s --no-jitter) for
# ~11.5 minutes of guest time; every workload is bound to node 1. At each
# read the generations are ~36, 72 and 108 s old (the oldest's successor at
# 108 s, its own age unknown), so 1m is measured (72 > 60) and 2m is not
# (108 < 120). At 40 s the oldest's successor is 120 s old give or take the
# timer's wake-up and the aging's delay (tens of ms), and 2m was measured in
# the pairs where the read came late (1 of 18 in a run; with min_samples
# pairs of them /jobs/periodic would be advised 2m from pairs with no
# re-touch in them). Besides, the first aging may come late (lrugend skips
# generations younger than interval - age-margin, those made at memcg
# creation), and a pair or two can then be cold at 2m: below min_samples 5.
#
# /jobs/periodic  16 MiB written every 5 minutes (--hot 16 --cold 0 --period
#                 300000), plus a hot 8 MiB (every 100 ms) and a never-touched
#                 48 MiB. The 16 MiB is cold at 1m between its re-touches and
#                 comes back twice in the window (5 and 10 minutes after it
#                 started): 32 MiB promoted over the window.
# /jobs/steady    the hot 8 MiB and cold 48 MiB only: nothing comes back.
# /jobs/reclaimed as steady, and 16 MiB reclaimed through memory.reclaim
#                 (to swap) ~5 minutes in: MGLRU takes them from the cold
#                 generations; memory.stat's pgsteal (kept by the store)
#                 says they were evicted, not used again, so the rate stays
#                 below the SLO and the evicted bytes are what pgsteal counted.
#
# The check computes the expected promotion from the workload's start time and
# the snapshots' times (the store's timeline), not from the answer.
#
# The store's promoted_bytes_per_min is per host running the job: every lruvec
# of the job (here node 0, empty but aged and measured, and node 1) summed,
# over the host-time measured (each pair of host snapshots counted once).

VM_SWAP=256M
# guest: boot + setup ~20 s, RUN_S (690 s) after the periodic workload started,
# then the queries and results; QEMU is killed after VM_TIMEOUT
VM_TIMEOUT=900

ADVISE_INTERVAL=${ADVISE_INTERVAL:-36s}
ADVISE_PERIOD_MS=${ADVISE_PERIOD_MS:-300000}	# /jobs/periodic's 16 MiB comes back this often
ADVISE_RUN_S=${ADVISE_RUN_S:-690}		# lrugend runs until this long after it started
ADVISE_MIN_SAMPLES=${ADVISE_MIN_SAMPLES:-5}
ADVISE_TOLERANCE=${ADVISE_TOLERANCE:-15}	# % around /jobs/periodic's expected promotion rate
ADVISE_RECLAIM_AT=${ADVISE_RECLAIM_AT:-290}	# s after the start: 16M to /jobs/reclaimed's memory.reclaim

scenario_guest() {
	echo "INTERVAL=$ADVISE_INTERVAL PERIOD_MS=$ADVISE_PERIOD_MS RUN_S=$ADVISE_RUN_S MIN_SAMPLES=$ADVISE_MIN_SAMPLES"
	echo "RECLAIM_AT=$ADVISE_RECLAIM_AT"
	cat <<'EOF'
case $(uname -r) in
6.1.*) lrugen enable >/tmp/enable.txt 2>&1 || vm_die "lrugen enable failed: $(cat /tmp/enable.txt)" ;;
esac
STORE=http://127.0.0.1:7070
F="lrugen fleet --store $STORE --token-file /tmp/read.token"
echo "token-ingest-advise-$$" >/tmp/ingest.token
echo "token-read-advise-$$" >/tmp/read.token
cat >/tmp/store.conf <<EOC
ingest-token = $(lrugen-store --hash-token </tmp/ingest.token) host=*
read-token = $(lrugen-store --hash-token </tmp/read.token)
EOC
lrugen-store --db /tmp/store.db --config /tmp/store.conf --listen 127.0.0.1:7070 \
	--idle-timeout 1h --memory-budget 64M --cache 16M >/tmp/store.log 2>&1 &
STORE_PID=$!
n=0
until $F hosts >/dev/null 2>&1; do
	kill -0 $STORE_PID 2>/dev/null || vm_die "lrugen-store exited: $(tail -n 3 /tmp/store.log)"
	[ $n -lt 100 ] || vm_die "lrugen-store does not answer: $(tail -n 3 /tmp/store.log)"
	sleep 0.1
	n=$((n + 1))
done

vm_mkcg /jobs/periodic && vm_mkcg /jobs/steady && vm_mkcg /jobs/reclaimed ||
	vm_die "cannot create the memcgs"
vm_start steady workload anon --cgroup /sys/fs/cgroup/jobs/steady --node 1 --hot 8 --cold 48 \
	--period 100 || vm_die "steady did not start"
vm_start reclaimed workload anon --cgroup /sys/fs/cgroup/jobs/reclaimed --node 1 --hot 8 --cold 48 \
	--period 100 || vm_die "reclaimed did not start"
vm_start base workload anon --cgroup /sys/fs/cgroup/jobs/periodic --node 1 --hot 8 --cold 48 \
	--period 100 || vm_die "periodic's base did not start"
vm_start periodic workload anon --cgroup /sys/fs/cgroup/jobs/periodic --node 1 --hot 16 --cold 0 \
	--period "$PERIOD_MS" || vm_die "periodic did not start"
# its 16 MiB is written again PERIOD_MS, 2 PERIOD_MS, ... after this (within a second)
START=$(date +%s)
lrugend --host advise-vm --interval "$INTERVAL" --no-jitter --store "$STORE" \
	--token-file /tmp/ingest.token --spool /tmp/spool >/tmp/lrugend.out 2>/tmp/lrugend.log &
LRUGEND_PID=$!
END=$((START + RUN_S))
vm_log "workloads started at $START; lrugend (pid $LRUGEND_PID) runs until $END"
RCG=/sys/fs/cgroup/jobs/reclaimed
steal() { awk '$1 == "pgsteal" { print $2 }' $RCG/memory.stat; }
while [ "$(date +%s)" -lt $END ]; do
	kill -0 $LRUGEND_PID 2>/dev/null || vm_die "lrugend exited: $(tail -n 3 /tmp/lrugend.log)"
	left=$((END - $(date +%s)))
	[ $left -gt 60 ] && left=60
	if [ ! -e /tmp/reclaim.txt ]; then
		r=$((START + RECLAIM_AT - $(date +%s)))
		if [ $r -le 0 ]; then
			s0=$(steal)
			echo 16M >$RCG/memory.reclaim 2>/tmp/reclaim.err
			echo "rc=$? pgsteal_before=$s0 pgsteal_after=$(steal) at=$(date +%s)" >/tmp/reclaim.txt
			vm_log "memory.reclaim of /jobs/reclaimed: $(cat /tmp/reclaim.txt) $(cat /tmp/reclaim.err)"
			continue
		fi
		[ $left -gt $r ] && left=$r
	fi
	[ $left -gt 0 ] && sleep $left
	vm_log "t+$(($(date +%s) - START))s: $(grep -c 'snapshot seq=' /tmp/lrugend.log) ticks; $(tail -n 1 /tmp/lrugend.log)"
done
kill -TERM $LRUGEND_PID
wait $LRUGEND_PID
echo $? >/tmp/lrugend.rc
# anything not acknowledged yet goes now
lrugend --host advise-vm --drain --store "$STORE" --token-file /tmp/ingest.token \
	--spool /tmp/spool >>/tmp/lrugend.log 2>&1 || vm_die "lrugend --drain failed: $(tail -n 3 /tmp/lrugend.log)"
STOP=$(date +%s)
echo "start_s=$START stop_s=$STOP period_ms=$PERIOD_MS interval=$INTERVAL" >/tmp/times

$F advise --json --min-samples "$MIN_SAMPLES" >/tmp/advise.json 2>/tmp/advise.err ||
	vm_die "fleet advise failed: $(cat /tmp/advise.err)"
$F advise --min-samples "$MIN_SAMPLES" >/tmp/advise.txt 2>&1
$F timeline --host advise-vm --memcg '/jobs/*' --since 1h --json >/tmp/timeline.json 2>/tmp/timeline.err ||
	vm_die "fleet timeline failed: $(cat /tmp/timeline.err)"
vm_emit times /tmp/times
vm_emit reclaim.txt /tmp/reclaim.txt
vm_emit advise.json /tmp/advise.json
vm_emit advise.txt /tmp/advise.txt
vm_emit timeline.json /tmp/timeline.json
vm_emit lrugend.log /tmp/lrugend.log
vm_emit lrugend.rc /tmp/lrugend.rc
vm_emit store.log /tmp/store.log
vm_emit lru_gen /sys/kernel/debug/lru_gen
for j in periodic steady reclaimed; do vm_emit $j.stat /sys/fs/cgroup/jobs/$j/memory.stat; done
kill -TERM $STORE_PID
wait $STORE_PID
EOF
}

# _advise_window MEMCG: from the store's timeline, per lruvec of MEMCG, the
# pairs of consecutive snapshots whose first one has a generation cold at 1m
# (its successor older than 60 s: the pairs advise measures at 1m); prints
# "NODE PAIRS MS FIRST_MS LAST_MS SECOND_LAST_MS" per lruvec: the pairs, their
# summed duration, the first snapshot measured, the last snapshot and the one
# before it.
_advise_window() {
	jq -r --arg m "$1" '
		.lruvecs[] | select(.memcg == $m) | .node as $node
		| [.points | group_by(.[0])[] | sort_by(.[1])
		   | { t: .[0][0], cold: ([range(1; length) as $i | .[$i] | select(.[0] - .[2] > 60000)] | length > 0) }]
		| sort_by(.t) as $s
		| [range(0; ($s | length) - 1) | select($s[.].cold) | $s[. + 1].t - $s[.].t] as $d
		| [$node, ($d | length), ($d | add // 0), ([$s[] | select(.cold) | .t] | first // 0),
		   $s[-1].t, $s[-2].t] | @tsv' "$VM_RESULTS/timeline.json"
}

scenario_check() {
	local r=$VM_RESULTS j start_ms period_ms first last second rows n1 pairs_all ms_all ms1 pairs1
	local retouches k t expect job promoted_pct periodic steady mib=1048576
	vm_assert_file "advise answer emitted" "$r/advise.json" || return
	vm_assert_file "timeline emitted" "$r/timeline.json" || return
	vm_assert_eq "lrugend stopped cleanly on SIGTERM" 0 "$(cat "$r/lrugend.rc" 2>/dev/null)"
	vm_assert_grep "lrugend shipped to the store" 'snapshot seq=[1-9]' "$r/lrugend.log"
	periodic=$(jq -c '.jobs[] | select(.memcg == "/jobs/periodic")' "$r/advise.json")
	steady=$(jq -c '.jobs[] | select(.memcg == "/jobs/steady")' "$r/advise.json")
	vm_assert_eq "/jobs/periodic in the answer" true "$([[ -n $periodic ]] && echo true || echo false)"
	vm_assert_eq "/jobs/steady in the answer" true "$([[ -n $steady ]] && echo true || echo false)"
	[[ -n $periodic && -n $steady ]] || return

	# the figures, for the log
	sed 's/^/  | /' "$r/advise.txt"
	for j in periodic steady reclaimed; do
		jq -r --arg j "/jobs/$j" '.jobs[] | select(.memcg == $j) |
			"  \(.memcg): hosts \(.hosts) samples \(.samples) pairs \(.pairs) advice \(.advice.threshold_ms // "none")" +
			(if .advice then " cold_now \((.advice.cold_bytes_now // 0) / 1048576 * 10 | round / 10) MiB" else " (\(.reason))" end),
			(.rates[0:3][] | "    \(.threshold_ms / 1000)s: pairs \(.pairs) measured \(.measured) promoted/min \(.promoted_bytes_per_min // "-") working_set \(.working_set_bytes // "-") pct/min \(.pct_per_min // "-") evicted \(.evicted_bytes // "-") refaulted \(.refaulted_bytes // "-")")' \
			"$r/advise.json"
	done

	# expected: the 16 MiB comes back at start + k x period; it is promoted in the
	# window when it was cold at 1m at the snapshot before (after the first one
	# measured) and a snapshot after the aging that sees it was taken (at or
	# before the second-to-last snapshot)
	start_ms=$(($(sed -n 's/.*start_s=\([0-9]*\).*/\1/p' "$r/times") * 1000))
	period_ms=$(sed -n 's/.*period_ms=\([0-9]*\).*/\1/p' "$r/times")
	rows=$(_advise_window /jobs/periodic)
	echo "  /jobs/periodic lruvecs (node pairs ms first last second-last):"
	awk '{ print "    " $0 }' <<<"$rows"
	read -r _ pairs1 ms1 first last second < <(awk '$1 == 1' <<<"$rows")
	pairs_all=$(awk '{ s += $2 } END { print s + 0 }' <<<"$rows")
	ms_all=$(awk '{ s += $3 } END { print s + 0 }' <<<"$rows")
	vm_assert_ge "/jobs/periodic node 1: pairs measured at 1m" "${pairs1:-0}" 10 || return
	vm_assert_eq "/jobs/periodic: pairs at 1m, advise = timeline" "$pairs_all" \
		"$(jq '.rates[0].pairs' <<<"$periodic")"
	retouches=0
	for ((k = 1; ; k++)); do
		t=$((start_ms + k * period_ms))
		((t <= second)) || break
		((t > first)) && retouches=$((retouches + 1))
	done
	vm_assert_eq "/jobs/periodic: re-touches inside the window" 2 "$retouches"
	# the job's rate: 16 MiB x re-touches over the window node 1 was measured
	expect=$(awk -v r="$retouches" -v ms="$ms1" 'BEGIN { printf "%.0f", 16 * 1048576 * r * 60000 / ms }')
	job=$(jq '.rates[0].promoted_bytes_per_min // 0 | round' <<<"$periodic")
	echo "  /jobs/periodic 1m: expected $(awk -v e="$expect" 'BEGIN { printf "%.2f", e / 1048576 }') MiB/min" \
		"(16 MiB x $retouches in $(awk -v m="$ms1" 'BEGIN { printf "%.2f", m / 60000 }') min)," \
		"measured $(awk -v e="$job" 'BEGIN { printf "%.2f", e / 1048576 }') MiB/min (the store's, per host;" \
		"$(awk -v a="$ms_all" -v m="$ms1" 'BEGIN { printf "%.2f", a / m }') lruvec-minutes a minute)"
	# each re-touch promotes exactly its 16 MiB (4096 pages, measured to the
	# page in every run so far): 15% is room for a touch split over two pairs
	# or a few other pages of the job used again, not for a wrong estimate
	vm_assert_ge "/jobs/periodic 1m: promoted bytes/min >= expected $expect - ${ADVISE_TOLERANCE}%" "$job" \
		"$(awk -v e="$expect" -v p="$ADVISE_TOLERANCE" 'BEGIN { printf "%.0f", e * (100 - p) / 100 }')"
	vm_assert_le "/jobs/periodic 1m: promoted bytes/min <= expected $expect + ${ADVISE_TOLERANCE}%" "$job" \
		"$(awk -v e="$expect" -v p="$ADVISE_TOLERANCE" 'BEGIN { printf "%.0f", e * (100 + p) / 100 }')"
	promoted_pct=$(jq '.rates[0].pct_per_min // 0' <<<"$periodic")
	vm_assert_eq "/jobs/periodic 1m: far above the SLO (>= 2%/min; $promoted_pct)" 1 \
		"$(awk -v p="$promoted_pct" 'BEGIN { print (p >= 2) }')"
	vm_assert_eq "/jobs/periodic: 2m not measured" false "$(jq '.rates[1].measured' <<<"$periodic")"
	vm_assert_eq "/jobs/periodic: no advice at 0.2%/min" null "$(jq -c '.advice' <<<"$periodic")"
	vm_assert_grep "/jobs/periodic: the reason says 1m misses the SLO and larger T were not measured" \
		'no measured threshold meets the SLO: at 1m, the largest measured, .*larger thresholds were not measured' \
		<(jq -r '.reason' <<<"$periodic")

	# /jobs/steady: nothing comes back; its 48 MiB is cold at 1m
	vm_assert_eq "/jobs/steady: 1m measured" true "$(jq '.rates[0].measured' <<<"$steady")"
	vm_assert_eq "/jobs/steady 1m: below 0.2%/min ($(jq '.rates[0].pct_per_min' <<<"$steady"))" 1 \
		"$(jq '.rates[0].pct_per_min // 1 | if . < 0.2 then 1 else 0 end' <<<"$steady")"
	vm_assert_eq "/jobs/steady: advised 1m" 60000 "$(jq '.advice.threshold_ms // 0' <<<"$steady")"
	n1=$(jq '.advice.cold_bytes_now // 0' <<<"$steady")
	vm_assert_ge "/jobs/steady: cold at 1m now >= 48 MiB - 25% ($((n1 / 1024)) KiB)" "$n1" $((48 * mib * 3 / 4))
	vm_assert_le "/jobs/steady: cold at 1m now <= 48 MiB + 25% ($((n1 / 1024)) KiB)" "$n1" $((48 * mib * 5 / 4))

	# /jobs/reclaimed: 16 MiB reclaimed from its cold generations; memory.stat
	# says evicted, not used: below the SLO, advised 1m like /jobs/steady
	local rec rc0 s0 s1 ev
	rec=$(jq -c '.jobs[] | select(.memcg == "/jobs/reclaimed")' "$r/advise.json")
	vm_assert_eq "/jobs/reclaimed in the answer" true "$([[ -n $rec ]] && echo true || echo false)"
	[[ -n $rec ]] || return
	read -r rc0 s0 s1 < <(sed -n 's/^rc=\([0-9]*\) pgsteal_before=\([0-9]*\) pgsteal_after=\([0-9]*\).*/\1 \2 \3/p' "$r/reclaim.txt")
	echo "  memory.reclaim: $(cat "$r/reclaim.txt" 2>/dev/null)"
	vm_assert_ge "memory.reclaim took >= 12 MiB of /jobs/reclaimed (pages $((${s1:-0} - ${s0:-0})))" \
		$(((${s1:-0} - ${s0:-0}) * 4096)) $((12 * mib))
	ev=$(jq '.rates[0].evicted_bytes // 0' <<<"$rec")
	vm_assert_ge "/jobs/reclaimed 1m: evicted bytes >= 90% of what pgsteal counted ($((ev / 1024)) KiB)" \
		"$ev" $(((s1 - s0) * 4096 * 9 / 10))
	vm_assert_le "/jobs/reclaimed 1m: evicted bytes <= pgsteal's (+ 1 MiB of kswapd's)" \
		"$ev" $(((s1 - s0) * 4096 + mib))
	vm_assert_eq "/jobs/reclaimed 1m: below 0.2%/min ($(jq '.rates[0].pct_per_min' <<<"$rec"))" 1 \
		"$(jq '.rates[0].pct_per_min // 1 | if . < 0.2 then 1 else 0 end' <<<"$rec")"
	vm_assert_eq "/jobs/reclaimed: advised 1m" 60000 "$(jq '.advice.threshold_ms // 0' <<<"$rec")"
}
