# shellcheck shell=bash disable=SC2034,SC2016 # VM_* are read by lib.sh; awk code in single quotes
# kernels: patched
# tests/vm/scenarios/lru_gen_pmd_young.sh - the backported "ignore non-leaf
# pmd_young for force_scan=true" (kernel/patches/0002). With lru_gen/enabled
# at 0x0007 (non-leaf PMD young on), a forced aging of /jobs/web on node 0
# clears the PMD accessed bits over its node-1 page tables; on stock 6.1 the
# node-1 aging right after then skips them and the 40 MiB hot set, touched
# every 100 ms, lands in the oldest generation. Patched, it stays young.
# Measured: 40.0 MiB of the hot set in the two youngest generations with the
# series; 0.0 (all 120 MiB old) with the series minus 0002, and on stock 6.1
# (which is why the smoke scenario sets 0x0003 there).

VM_SWAP=512M
VM_TIMEOUT=150

scenario_guest() {
	cat <<'EOF'
echo y >/sys/kernel/mm/lru_gen/enabled || vm_die "cannot enable MGLRU"
vm_emit lru_gen_enabled /sys/kernel/mm/lru_gen/enabled
vm_mkcg /jobs/web || vm_die "cannot create /jobs/web"
vm_start web workload anon --cgroup /sys/fs/cgroup/jobs/web --node 1 --hot 40 --cold 80 ||
	vm_die "web did not start"
# three rounds, node 0 before node 1 for each memcg (vm_lruvecs order); the
# hot set is touched 20 times between two rounds
for round in 1 2 3; do
	[ $round -gt 1 ] && sleep 2
	vm_age_all 1 1 || vm_die "aging round $round failed"
done
vm_emit lru_gen /sys/kernel/debug/lru_gen
EOF
}

# _mib COND: anon MiB of /jobs/web on node 1 over the generations where the
# awk condition COND holds ($7 = IDX, 0 the oldest; $8 = NGENS)
_mib() {
	vm_lru_rows "$VM_RESULTS/lru_gen" |
		awk "\$1 == \"/jobs/web\" && \$2 == 1 && ($1) { t += \$5 } END { printf \"%.1f\", t * 4096 / 1048576 }"
}

scenario_check() {
	vm_assert_file "lru_gen emitted" "$VM_RESULTS/lru_gen" || return
	vm_assert_eq "lru_gen/enabled (non-leaf PMD young on)" 0x0007 "$(cat "$VM_RESULTS/lru_gen_enabled")"
	echo "  /jobs/web node 1: $(_mib '$7 >= $8 - 2') MiB anon in the two youngest generations (hot 40)," \
		"$(_mib '$7 < $8 - 2') MiB in older ones (cold 80)"
	vm_assert_ge "hot anon MiB in the two youngest generations" "$(_mib '$7 >= $8 - 2')" 38
	vm_assert_le "hot anon MiB in the two youngest generations" "$(_mib '$7 >= $8 - 2')" 44
	vm_assert_ge "cold anon MiB in older generations" "$(_mib '$7 < $8 - 2')" 76
}
