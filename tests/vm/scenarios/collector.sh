# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/collector.sh - issue 4: lrugend on the real kernel.
#
# lrugend ages every lruvec on a steady pace (3 s) for five ticks with a local
# spool, then 'lrugend --output FILE --no-age' writes one SnapshotBatch; the
# host decodes it (tests/tools/pbdump, the store's own decoder) and checks
# the generations against the workload's known hot and cold sets.

VM_SWAP=256M
VM_TIMEOUT=180

scenario_guest() {
	cat <<'EOF'
case $(uname -r) in
6.1.*) lrugen enable >/dev/null 2>&1 || vm_die "lrugen enable failed" ;;
esac
vm_mkcg /jobs/web && vm_mkcg /jobs/idle || vm_die "cannot create the memcgs"
vm_start web workload anon --cgroup /sys/fs/cgroup/jobs/web --node 1 --hot 40 --cold 80 ||
	vm_die "web did not start"
# no store answers (port 9 on the guest's loopback): everything stays spooled
lrugend --interval 3s --no-jitter --ticks 5 --spool /tmp/spool --store http://127.0.0.1:9 \
	>/tmp/daemon.out 2>/tmp/daemon.log || vm_die "lrugend failed: $(tail -n 3 /tmp/daemon.log)"
lrugend --output /tmp/snap.pb --spool /tmp/spool --interval 3s 2>/tmp/once.log ||
	vm_die "lrugend --output failed: $(cat /tmp/once.log)"
vm_emit snap.pb /tmp/snap.pb
vm_emit daemon.log /tmp/daemon.log
vm_emit lru_gen /sys/kernel/debug/lru_gen
vm_emit web.stat /sys/fs/cgroup/jobs/web/memory.stat
EOF
}

scenario_check() {
	local r=$VM_RESULTS json pbdump web1 gens
	pbdump=$LRUGEN_BUILD/tests/tools/pbdump
	vm_assert_file "snapshot emitted" "$r/snap.pb" || return
	json=$("$pbdump" "$r/snap.pb") || { vm_fail "pbdump cannot decode the snapshot"; return; }
	vm_assert_eq "one snapshot" 1 "$(jq length <<<"$json")"
	vm_assert_eq "kernel release" "$VM_RELEASE" "$(jq -r '.[0].kernel' <<<"$json")"
	vm_assert_eq "aging settings: on, 3 s, can_swap, force_scan" "true 3000 true true" \
		"$(jq -r '.[0].aging | "\(.enabled) \(.interval_ms) \(.can_swap) \(.force_scan)"' <<<"$json")"
	vm_assert_ge "a sequence number after five spooled ticks" \
		"$(jq '.[0].seq' <<<"$json")" "$(( $(date +%s) - 3600 ))000"
	vm_assert_ge "ticks logged" "$(grep -c 'snapshot seq=[1-9]' "$r/daemon.log")" 5
	vm_assert_grep "aging logged" 'aging: [1-9][0-9]* written, 0 skipped .*, 0 failed' "$r/daemon.log"
	vm_assert_grep "store down: snapshots kept in the spool" 'cannot send to the store' "$r/daemon.log"
	vm_assert_eq "two nodes of meminfo" 2 "$(jq '.[0].nodes | length' <<<"$json")"
	vm_assert_eq "empty /jobs/idle left out" 0 \
		"$(jq '[.[0].lruvecs[] | select(.memcg == "/jobs/idle")] | length' <<<"$json")"
	web1=$(jq -c '.[0].lruvecs[] | select(.memcg == "/jobs/web" and .node == 1)' <<<"$json")
	vm_assert_ge "web: cgroup inode recorded" "$(jq .memcg_inode <<<"$web1")" 1
	gens=$(jq '.generations | length' <<<"$web1")
	vm_assert_eq "web: four generations" 4 "$gens"
	# made 3 s apart: cold at 4.5 s = generations whose successor is older than that
	vm_assert_eq "web: cold anon at 4.5 s (MiB)" 80 \
		"$(jq '[.generations as $g | range(0; ($g | length) - 1) | select($g[. + 1].age_ms > 4500) | $g[.].anon_pages] | add * 4096 / 1048576 | round' <<<"$web1")"
	vm_assert_eq "web: hot anon at 4.5 s (MiB)" 40 \
		"$(jq '[.generations as $g | range(0; $g | length) | select(. == ($g | length) - 1 or $g[. + 1].age_ms <= 4500) | $g[.].anon_pages] | add * 4096 / 1048576 | round' <<<"$web1")"
	vm_assert_eq "web: generations 3 s apart (+/- 0.5 s)" true \
		"$(jq '[.generations as $g | range(1; ($g | length) - 1) | $g[.].birth_ms - $g[. - 1].birth_ms] | all(. >= 2500 and . <= 3500)' <<<"$web1")"
	if [[ $VM_KERNEL == patched ]]; then
		# memory.lru_gen: each memcg's births come from its own file's read, inside the snapshot's window
		vm_assert_eq "read through memory.lru_gen (source 2)" 2 "$(jq '.[0].source' <<<"$json")"
		vm_assert_eq "birth within the read window - age" true \
			"$(jq '.[0] as $s | all($s.lruvecs[].generations[]; .birth_ms >= $s.read_start_ms - .age_ms and .birth_ms <= $s.read_end_ms - .age_ms)' <<<"$json")"
	else
		vm_assert_eq "birth = read midpoint - age" true \
			"$(jq '.[0] as $s | (($s.read_start_ms + $s.read_end_ms) / 2 | floor) as $m | all($s.lruvecs[].generations[]; .birth_ms == $m - .age_ms)' <<<"$json")"
	fi
	vm_assert_eq "memory.stat essentials: anon of /jobs/web" \
		"$(awk '$1 == "anon" { print $2 }' "$r/web.stat" | awk '{ printf "%d", $1 / 1048576 }')" \
		"$(jq '.[0].memcg_stats[] | select(.memcg == "/jobs/web") | .anon_bytes / 1048576 | floor' <<<"$json")"
}
