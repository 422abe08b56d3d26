# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/evict.sh - issue 3, scenario 3: proactive reclaim.
#
# /jobs/web (anon, 40 MiB hot + 80 MiB cold, node 1, zram swap) and /jobs/batch
# (mmap'd file, 16 MiB hot + 48 MiB cold, node 0) are aged on a steady pace,
# then 'lrugen evict --older-than 4500ms' runs on each while the hot sets keep
# being touched. Target: >= 90% of each cold set reclaimed, refaults of the hot
# set (memory.stat workingset_refault_*) <= 2% of it over the next 6 s.

VM_SWAP=512M
VM_DISK=256M
VM_TIMEOUT=240

scenario_guest() {
	cat <<'EOF'
case $(uname -r) in
6.1.*) lrugen enable >/tmp/enable.txt 2>&1 || vm_die "lrugen enable failed: $(cat /tmp/enable.txt)" ;;
esac
vm_mkcg /jobs/web && vm_mkcg /jobs/batch || vm_die "cannot create the memcgs"
vm_start web workload anon --cgroup /sys/fs/cgroup/jobs/web --node 1 --hot 40 --cold 80 ||
	vm_die "web did not start"
vm_start batch workload file --cgroup /sys/fs/cgroup/jobs/batch --node 0 --path /mnt/data/batch.dat \
	--hot 16 --cold 48 || vm_die "batch did not start"
sync	# clean file pages: eviction need not wait for writeback
vm_lrugen_age 4 3
for cg in web batch; do
	cp /sys/fs/cgroup/jobs/$cg/memory.stat /tmp/$cg.before
done
lrugen evict --memcg /jobs/web --older-than 4500ms --dry-run >/tmp/dry.txt 2>&1
lrugen evict --memcg /jobs/web --older-than 4500ms --dry-run --json >/tmp/web.json 2>&1
lrugen evict --memcg /jobs/web --older-than 4500ms >/tmp/text.txt 2>/tmp/web.err ||
	vm_die "evict web failed: $(cat /tmp/web.err)"
lrugen evict --memcg /jobs/batch --older-than 4500ms --json >/tmp/batch.json 2>/tmp/batch.err ||
	vm_die "evict batch failed: $(cat /tmp/batch.err)"
# memory.stat may show an eviction late (6.12, once: web's anon unchanged right after
# evict said 'freed 80.0 MiB', down 6 s later): wait up to 5 s for half of each
# cold set's drop to show, then read it
for x in web:anon:80 batch:file:48; do
	cg=${x%%:*} t=${x#*:} cold=${x##*:}
	t=${t%%:*}
	b=$(awk -v k=$t '$1 == k {print $2}' /tmp/$cg.before)
	n=0
	while [ $n -lt 50 ] && [ "$(awk -v k=$t '$1 == k {print $2}' /sys/fs/cgroup/jobs/$cg/memory.stat)" \
		-gt $((b - cold * 1048576 / 2)) ]; do
		sleep 0.1
		n=$((n + 1))
	done
done
for cg in web batch; do
	cp /sys/fs/cgroup/jobs/$cg/memory.stat /tmp/$cg.after
done
sleep 6	# the hot sets keep being touched: what they need back refaults now
# one aging before the second pass: without it the generation made before the
# sleep is 6 s old and the one before it counts as idle > 4.5 s, holding
# whatever the last aging's walk did not see young (6.1, once: all of web's
# hot 40 MiB, likely a walk that skipped the process: see workload.c's
# flush_tlb); cold pages the first pass left stay in old generations either way
vm_lrugen_age 1 0
lrugen evict --memcg /jobs/web --older-than 4500ms --dry-run >/tmp/again.txt 2>&1
lrugen evict --memcg /jobs/web --older-than 4500ms --dry-run --json >/tmp/again.json 2>&1
for cg in web batch; do
	cp /sys/fs/cgroup/jobs/$cg/memory.stat /tmp/$cg.later
	for w in before after later; do vm_emit $cg.$w /tmp/$cg.$w; done
	vm_emit $cg.json /tmp/$cg.json
done
vm_emit dry.txt /tmp/dry.txt
vm_emit text.txt /tmp/text.txt
vm_emit again.txt /tmp/again.txt
vm_emit again.json /tmp/again.json
vm_emit swaps /proc/swaps
EOF
}

# _stat CG WHEN KEY: a memory.stat value
_stat() { awk -v k="$3" '$1 == k { print $2 }' "$VM_RESULTS/$1.$2"; }

scenario_check() {
	local r=$VM_RESULTS cg type hot cold key freed refault asked table
	table=$(printf '%-6s %-5s | %8s %8s %8s %7s | %8s %8s %7s\n' MEMCG TYPE COLD_MiB ASKED FREED FREED% \
		HOT_MiB REFAULT REF%)
	for cg in web batch; do
		case $cg in
		web) type=anon hot=40 cold=80 ;;
		batch) type=file hot=16 cold=48 ;;
		esac
		vm_assert_file "$cg evict --json" "$r/$cg.json" || continue
		asked=$(jq '[.[].asked_bytes] | add' "$r/$cg.json")
		freed=$(($(_stat $cg before $type) - $(_stat $cg after $type)))
		refault=$((($(_stat $cg later workingset_refault_$type) - $(_stat $cg before workingset_refault_$type)) * 4096))
		vm_assert_ge "$cg: $type freed >= 90% of the $cold MiB cold set (freed $((freed >> 20)) MiB)" \
			$((freed * 100 / (cold << 20))) 90
		vm_assert_le "$cg: refaults <= 2% of the $hot MiB hot set (got $((refault >> 10)) KiB)" \
			$((refault * 1000 / (hot << 20))) 20
		vm_assert_ge "$cg: evict asked for the cold set (asked $((asked >> 20)) MiB)" \
			$((asked * 100 / (cold << 20))) 90
		if [[ $cg == batch ]]; then
			vm_assert_ge "$cg: kernel-freed figure reported" \
				"$(jq '[.[].freed_bytes // 0] | add * 100 / '"$((cold << 20))"' | floor' "$r/$cg.json")" 90
		fi
		table+=$(printf '\n%-6s %-5s | %8s %8s %8s %7s | %8s %8s %7s' $cg $type $cold \
			$((asked >> 20)) $((freed >> 20)) "$((freed * 100 / (cold << 20)))%" $hot \
			"$((refault >> 10))K" "$(awk -v a=$refault -v h=$hot 'BEGIN { printf "%.2f%%", a * 100 / (h * 1048576) }')")
	done
	echo "  proactive reclaim of generations idle > 4.5 s (kernel $VM_RELEASE):"
	sed 's/^/    /' <<<"$table"
	echo "$table" >"$r/../table.txt"
	# debugfs takes '- MEMCG_ID NODE SEQ'; the patched kernel's memory.lru_gen '- N<node> SEQ'
	local cmd="- [0-9]+ 1 [0-9]+"
	[[ $VM_KERNEL == patched ]] && cmd="- N1 [0-9]+"
	vm_assert_grep "dry run prints the command" "would write '$cmd'" "$r/dry.txt"
	vm_assert_grep "text output: the command written" "^/jobs/web node 1: wrote '$cmd': 80\.0 MiB" "$r/text.txt"
	vm_assert_grep "text output: what was freed" "freed (79|80)\.[0-9] MiB \(anon .*, file .*\)" "$r/text.txt"
	# A second pass finds next to nothing idle that long: usually no generation at
	# all, now and then a few pages the first pass could not isolate (a page under
	# a concurrent fault) that kept the oldest generation alive, or hot pages
	# the guest did not touch between two agings. Under CI's load (TCG, the
	# other core busy) that was 843,776, 909,312 and 925,696 bytes (1.0-1.1%
	# of the cold set) in three CI runs, each passing on its retry; alone,
	# 5 runs of 5 stayed under 1%: the bound is 2%.
	local again
	again=$(jq '[.[].asked_bytes] | add' "$r/again.json" 2>/dev/null)
	vm_assert_le "a second pass finds <= 2% of the cold set idle that long (got $again bytes)" \
		"${again:-x}" $(((80 << 20) / 50))
	vm_assert_grep "a second pass: node 0 holds none of web's pages" "node 0: nothing to evict" "$r/again.txt"
	vm_assert_grep "anon went to zram" '^/dev/zram0[[:space:]]+partition[[:space:]]+[0-9]+[[:space:]]+[1-9]' "$r/swaps"
}
