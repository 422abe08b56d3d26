# shellcheck shell=bash disable=SC2034,SC2016 # VM_* are read by lib.sh; awk code in single quotes
# tests/vm/scenarios/smoke.sh - proves the harness: two NUMA nodes, zram swap,
# the ext4 data disk, MGLRU on, two workloads in their memcgs, three rounds of
# aging, and the generation sizes that this produces.
#
# /jobs/web   anon 40 MiB hot (every 100 ms) + 80 MiB cold, bound to node 1
# /jobs/batch file mapping on /mnt/data, 10 MiB hot + 60 MiB cold, node 0

VM_SWAP=512M
VM_DISK=256M
VM_TIMEOUT=150

scenario_guest() {
	cat <<'EOF'
for n in 0 1; do
	[ -d /sys/devices/system/node/node$n ] || vm_die "NUMA node $n is missing"
done
grep -q '^/dev/zram0 ' /proc/swaps || vm_die "zram swap is not active"
grep -q ' /mnt/data ext4 ' /proc/mounts || vm_die "/mnt/data is not an ext4 mount"

case $(uname -r) in
6.1.*) echo y >/sys/kernel/mm/lru_gen/enabled || vm_die "cannot enable MGLRU" ;;
esac
vm_emit lru_gen_enabled /sys/kernel/mm/lru_gen/enabled
# 6.1 with 0x0004 (non-leaf PMD young): the forced walk for node 0 clears the
# PMD accessed bits over /jobs/web's node-1 page tables, and the node-1 walk
# right after it skips them, so the hot set looks cold. 0x0003 is accurate.
case $(uname -r) in
6.1.*) echo 3 >/sys/kernel/mm/lru_gen/enabled || vm_die "cannot set MGLRU to 0x0003" ;;
esac

vm_mkcg /jobs/web && vm_mkcg /jobs/batch || vm_die "cannot create the memcgs"
vm_start web workload anon --cgroup /sys/fs/cgroup/jobs/web --node 1 --hot 40 --cold 80 ||
	vm_die "web did not start"
vm_start batch workload file --cgroup /sys/fs/cgroup/jobs/batch --node 0 \
	--path /mnt/data/batch.dat --hot 10 --cold 60 || vm_die "batch did not start"

for round in 1 2 3; do
	[ $round -gt 1 ] && sleep 2
	vm_age_all 1 1 || vm_die "aging round $round failed"
done
vm_emit lru_gen /sys/kernel/debug/lru_gen
vm_emit lru_gen_full /sys/kernel/debug/lru_gen_full
vm_emit swaps /proc/swaps
EOF
}

# mib PATH NODE AWK_CONDITION COLUMN: the largest (or, with SUM=1, the total)
# page count in COLUMN (5 anon, 6 file) over the generations of PATH on NODE
# for which AWK_CONDITION holds (on $7 = IDX, $8 = NGENS), in MiB.
_smoke_mib() {
	vm_lru_rows "$VM_RESULTS/lru_gen" | awk -v p="$1" -v n="$2" -v c="$4" -v sum="${SUM:-0}" "
		\$1 == p && \$2 == n && ($3) { v = \$c; t += v; if (v > m) m = v }
		END { printf \"%.1f\", (sum ? t : m) * 4096 / 1048576 }"
}

scenario_check() {
	local r=$VM_RESULTS cg n
	vm_assert_file "lru_gen emitted" "$r/lru_gen"
	vm_assert_file "lru_gen_full emitted" "$r/lru_gen_full"
	vm_assert_grep "zram swap listed in /proc/swaps" '^/dev/zram0 ' "$r/swaps"
	vm_assert_eq "lru_gen/enabled" 0x0007 "$(cat "$r/lru_gen_enabled" 2>/dev/null)"
	for cg in /jobs/web /jobs/batch; do
		for n in 0 1; do
			vm_assert_ge "$cg has generations on node $n" \
				"$(vm_lru_rows "$r/lru_gen" | awk -v p=$cg -v n=$n '$1 == p && $2 == n' | wc -l)" 2
		done
	done
	vm_assert_ge "/jobs/web node 1: anon MiB in a middle generation (hot 40)" \
		"$(_smoke_mib /jobs/web 1 '$7 > 0 && $7 < $8 - 1' 5)" 35
	vm_assert_ge "/jobs/web node 1: anon MiB in the oldest generation (cold 80)" \
		"$(_smoke_mib /jobs/web 1 '$7 == 0' 5)" 70
	vm_assert_ge "/jobs/batch node 0: file MiB (10 hot + 60 cold)" \
		"$(SUM=1 _smoke_mib /jobs/batch 0 1 6)" 60
	# the full format has the same generations (and more lines)
	vm_assert_ge "lru_gen_full has /jobs/web generations" \
		"$(vm_lru_rows "$r/lru_gen_full" | awk '$1 == "/jobs/web"' | wc -l)" 4
}
