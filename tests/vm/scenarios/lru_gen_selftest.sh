# shellcheck shell=bash disable=SC2034 # VM_* are read by lib.sh
# kernels: patched
# tests/vm/scenarios/lru_gen_selftest.sh - the series' kselftest,
# tools/testing/selftests/cgroup/test_lru_gen.c, built static by kernel/build
# from the patched tree, run in the guest from the ext4 disk (its page cache
# must be evictable without swap).

VM_DISK=256M
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
}
