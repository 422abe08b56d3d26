# shellcheck shell=bash disable=SC2034 # VM_* are read by lib.sh
# kernels: patched
# tests/vm/scenarios/lru_gen_lockdown.sh - booted with lockdown=integrity:
# debugfs lru_gen (it has write bits) cannot be opened, lru_gen_full still
# reads, and memory.lru_gen reads, ages and evicts (32 MiB of page cache on
# the ext4 disk, charged to /job).

VM_DISK=256M
VM_APPEND="lockdown=integrity"
VM_TIMEOUT=200
source "$VM_SRC/kernel/tests/vm.sh"
kernel_vm_setup || return 1

scenario_guest() {
	cat <<'EOF'
. /lib/lru_gen.sh
mkdir -p /sys/kernel/security
mount -t securityfs securityfs /sys/kernel/security || vm_die "no securityfs"
vm_emit lockdown /sys/kernel/security/lockdown
{
	echo "debugfs_write $(cgwrite /sys/kernel/debug/lru_gen "+ 1 0 3")"
	if cat /sys/kernel/debug/lru_gen >/dev/null 2>&1; then
		echo "debugfs_read ok"
	else
		echo "debugfs_read refused"
	fi
	echo "debugfs_full_lines $(cat /sys/kernel/debug/lru_gen_full | wc -l)"
	vm_mkcg /job || vm_die "cannot create /job"
	lg_fill $C/job /mnt/data/fill 32 || vm_die "cannot fill /job"
	echo "read_lines $(wc -l <$C/job/memory.lru_gen)"
	n=$(lg_nodes $C/job | head -n 1)
	echo "age $(cgwrite $C/job/memory.lru_gen "+ N$n $(lg_max $C/job $n) 1 1")"
	# one more generation on every node: the page cache is two generations old
	lg_age $C/job >/dev/null || vm_die "aging /job failed"
	echo "current_before $(lg_current $C/job)"
	for node in $(lg_nodes $C/job); do
		echo "evict_N$node $(cgwrite $C/job/memory.lru_gen "- N$node $(($(lg_max $C/job $node) - 2)) 0")"
	done
	echo "current_after $(lg_current $C/job)"
} >/tmp/out.txt 2>&1
vm_emit out /tmp/out.txt
vm_emit job_lru_gen $C/job/memory.lru_gen
EOF
}

scenario_check() {
	local o=$VM_RESULTS/out before after
	vm_assert_file "output" "$o" || return
	sed 's/^/  | /' "$o"
	vm_assert_grep "lockdown is integrity" '\[integrity\]' "$VM_RESULTS/lockdown"
	vm_assert_eq "debugfs lru_gen cannot be opened for writing" EPERM "$(kernel_key "$o" debugfs_write)"
	vm_assert_eq "debugfs lru_gen cannot be opened for reading" refused "$(kernel_key "$o" debugfs_read)"
	vm_assert_ge "debugfs lru_gen_full still reads" "$(kernel_key "$o" debugfs_full_lines)" 10
	vm_assert_ge "memory.lru_gen reads (lines)" "$(kernel_key "$o" read_lines)" 4
	vm_assert_eq "memory.lru_gen ages" ok "$(kernel_key "$o" age)"
	vm_assert_grep "memory.lru_gen evicts" '^evict_N[0-9]+ ok$' "$o"
	vm_assert_eq "no eviction failed" 0 "$(grep '^evict_' "$o" | grep -vc ' ok$')"
	before=$(kernel_key "$o" current_before) after=$(kernel_key "$o" current_after)
	echo "  memory.current $before -> $after: $(((before - after) / 1048576)) MiB evicted of 32"
	vm_assert_ge "MiB of page cache evicted" $(((before - after) / 1048576)) 28
}
