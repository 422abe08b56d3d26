# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/evict_thp.sh - proactive reclaim of cold sets in
# transparent huge pages (2 MiB, PMD-mapped), anon, with zram swap.
#
# /jobs/early (node 0, cpu 0) starts on the host as it booted and runs 10 s
# before 'lrugen enable' (on Debian's 7.3: damon_stat on, which samples its
# huge pages, keeping what it saw in PG_young); 'lrugen enable' then turns
# damon_stat off where the kernel's aging cannot see what DAMON clears, and
# /jobs/late (node 1, cpu 1) starts after. Both: 32 MiB hot + 96 MiB cold,
# aged on a steady pace, then 'lrugen evict --older-than 4500ms' while the hot
# sets keep being touched. Target: >= 90% of each cold set freed, refaults
# <= 2% of the hot set. On stock 7.3, /jobs/early's cold huge pages still
# carry PG_young: the kernel finds them referenced and moves them into a young
# generation instead of freeing them; evict must then say so and exit 1
# (less than half freed), never report success.

VM_SWAP=768M
VM_MEM=2G
VM_TIMEOUT=300

scenario_guest() {
	cat <<'EOF'
vm_mkcg /jobs/early && vm_mkcg /jobs/late || vm_die "cannot create the memcgs"
vm_start early workload anon --thp --cgroup /sys/fs/cgroup/jobs/early --node 0 --cpu 0 \
	--hot 32 --cold 96 || vm_die "early did not start"
sleep 10	# the host as it booted: whatever DAMON does, it does now
lrugen enable >/tmp/enable.txt 2>&1 || vm_die "lrugen enable failed: $(cat /tmp/enable.txt)"
vm_emit enable.txt /tmp/enable.txt
vm_start late workload anon --thp --cgroup /sys/fs/cgroup/jobs/late --node 1 --cpu 1 \
	--hot 32 --cold 96 || vm_die "late did not start"
vm_lrugen_age 4 3
for cg in early late; do
	cp /sys/fs/cgroup/jobs/$cg/memory.stat /tmp/$cg.before
	lrugen evict --memcg /jobs/$cg --older-than 4500ms --json >/tmp/$cg.json 2>/tmp/$cg.err
	echo $? >/tmp/$cg.rc
	lrugen evict --memcg /jobs/$cg --older-than 4500ms --dry-run >/tmp/$cg.dry 2>&1
	cp /sys/fs/cgroup/jobs/$cg/memory.stat /tmp/$cg.after
done
sleep 6	# the hot sets keep being touched: what they need back refaults now
for cg in early late; do
	cp /sys/fs/cgroup/jobs/$cg/memory.stat /tmp/$cg.later
	for f in before after later json err rc dry; do vm_emit $cg.$f /tmp/$cg.$f; done
done
vm_emit vmstat /proc/vmstat
vm_emit swaps /proc/swaps
EOF
}

_stat() { awk -v k="$3" '$1 == k { print $2 }' "$VM_RESULTS/$1.$2"; }

scenario_check() {
	local r=$VM_RESULTS cg hot=32 cold=96 freed refault asked moved rc table
	table=$(printf '%-6s | %8s %8s %8s %7s %8s | %8s %7s | %s\n' MEMCG COLD_MiB ASKED FREED FREED% \
		MOVED HOT_MiB REF% EXIT)
	for cg in early late; do
		vm_assert_file "$cg evict --json" "$r/$cg.json" || continue
		rc=$(cat "$r/$cg.rc")
		asked=$(jq '[.[].asked_bytes] | add' "$r/$cg.json")
		moved=$(jq '[.[].moved_bytes // 0] | add' "$r/$cg.json")
		freed=$(($(_stat $cg before anon) - $(_stat $cg after anon)))
		refault=$((($(_stat $cg later workingset_refault_anon) - $(_stat $cg before workingset_refault_anon)) * 4096))
		vm_assert_ge "$cg: the cold set is in huge pages (anon_thp MiB)" \
			$(($(_stat $cg before anon_thp) >> 20)) $(((hot + cold) * 9 / 10))
		vm_assert_ge "$cg: evict asked for the cold set (asked $((asked >> 20)) MiB)" \
			$((asked * 100 / (cold << 20))) 90
		if [[ $cg == early && $VM_KERNEL == 7.3 && $rc != 0 ]]; then
			# stock 7.3: DAMON's PG_young made the kernel keep them; said, exit 1
			vm_assert_eq "$cg: less than half freed is exit 1" 1 "$rc"
			vm_assert_grep "$cg: the reason names the young generation" \
				'less than half.*moved into a young generation' "$r/$cg.err"
			vm_assert_ge "$cg: JSON reports the bytes moved (MiB)" $((moved >> 20)) 1
		else
			vm_assert_eq "$cg: evict exit code" 0 "$rc"
			vm_assert_ge "$cg: anon freed >= 90% of the $cold MiB cold set (freed $((freed >> 20)) MiB)" \
				$((freed * 100 / (cold << 20))) 90
			vm_assert_le "$cg: refaults <= 2% of the $hot MiB hot set (got $((refault >> 10)) KiB)" \
				$((refault * 1000 / (hot << 20))) 20
		fi
		table+=$(printf '\n%-6s | %8s %8s %8s %7s %8s | %8s %7s | %s' $cg $cold $((asked >> 20)) \
			$((freed >> 20)) "$((freed * 100 / (cold << 20)))%" $((moved >> 20)) $hot \
			"$(awk -v a=$refault -v h=$hot 'BEGIN { printf "%.2f%%", a * 100 / (h * 1048576) }')" "$rc")
	done
	echo "  proactive reclaim of huge pages idle > 4.5 s (kernel $VM_RELEASE):"
	sed 's/^/    /' <<<"$table"
	echo "$table" >"$r/../table.txt"
	vm_assert_grep "anon went to zram" '^/dev/zram0[[:space:]]+partition[[:space:]]+[0-9]+[[:space:]]+[1-9]' "$r/swaps"
}
