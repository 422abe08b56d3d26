# shellcheck shell=bash disable=SC2034 # VM_* are read by lib.sh
# kernels: patched
# tests/vm/scenarios/lru_gen_selftest.sh - the series' kselftests, built
# static by kernel/build from the patched tree: cgroup/test_lru_gen.c
# (memory.lru_gen), run in the guest from the ext4 disk (its page cache must
# be evictable without swap), and mm/mglru_aging.c, the tests of the first
# two patches (the aging sees accesses that DAMON and idle page tracking keep
# in PG_young; a folio used again leaves the oldest generation).

VM_DISK=256M
VM_MEM=1G
VM_TIMEOUT=240
source "$VM_SRC/kernel/tests/vm.sh"
kernel_vm_setup || return 1

scenario_guest() {
	cat <<'EOF'
cd /mnt/data || vm_die "no /mnt/data"
vm_emit lru_gen_enabled /sys/kernel/mm/lru_gen/enabled
vm_emit_cmd selftest test_lru_gen
rc=$?
vm_emit lru_gen_enabled_after /sys/kernel/mm/lru_gen/enabled
vm_log "test_lru_gen exited $rc"
vm_emit_cmd young mglru_aging	# in /mnt/data: its page cache test needs a disk
vm_log "mglru_aging exited $?"
exit 0
EOF
}

scenario_check() {
	local r=$VM_RESULTS/selftest t n
	vm_assert_file "selftest output" "$r" || return
	vm_assert_grep "TAP plan of 7 tests" '^1\.\.7$' "$r"
	n=1
	for t in format snapshot age einval evict ebusy eopnotsupp; do
		vm_assert_grep "ok $n test_lru_gen_$t" "^ok $n test_lru_gen_$t\$" "$r"
		n=$((n + 1))
	done
	vm_assert_eq "no failed test" 0 "$(grep -c '^not ok' "$r")"
	# the figures the tests print, for the record
	grep -E '^# ' "$r" | sed 's/^/  | /'
	vm_assert_eq "MGLRU on before" 0x0007 "$(cat "$VM_RESULTS/lru_gen_enabled")"
	vm_assert_eq "MGLRU restored after the EOPNOTSUPP test" 0x0007 \
		"$(cat "$VM_RESULTS/lru_gen_enabled_after")"
	r=$VM_RESULTS/young
	vm_assert_file "mglru_aging output" "$r" || return
	vm_assert_grep "mglru_aging: TAP plan of 2 tests" '^1\.\.2$' "$r"
	vm_assert_grep "ok 1 young: the aging sees accesses kept in PG_young (patch 0001)" \
		'^ok 1 young: aging sees accesses kept in PG_young' "$r"
	vm_assert_grep "ok 2 oldest: page cache used again leaves the oldest generation (patch 0002)" \
		'^ok 2 oldest: ' "$r"
	grep -E '^(ok|not ok) ' "$r" | sed 's/^/  | /'
}
