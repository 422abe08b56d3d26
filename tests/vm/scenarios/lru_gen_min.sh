# shellcheck shell=bash disable=SC2034 # VM_* are read by lib.sh
# kernels: patched
# tests/vm/scenarios/lru_gen_min.sh - eviction through memory.lru_gen respects
# memory.min. /prot and /free each get 48 MiB of clean page cache on the ext4
# disk and two generations of aging. /prot with memory.min at its usage:
# eviction is EBUSY and frees nothing; /free loses its page cache; /prot with
# memory.min 16 MiB below its usage loses about 16 MiB, not more, and a
# second eviction then frees nothing (EBUSY on each node; ESTALE on a node
# where the first emptied the generations it names). Debugfs
# eviction, for contrast, ignores memory.min.

VM_DISK=256M
VM_TIMEOUT=200
source "$VM_SRC/kernel/tests/vm.sh"
kernel_vm_setup || return 1

scenario_guest() {
	cat <<'EOF'
. /lib/lru_gen.sh
{
	for cg in prot free; do
		vm_mkcg /$cg || vm_die "cannot create /$cg"
		lg_fill $C/$cg /mnt/data/$cg 48 || vm_die "cannot fill /$cg"
		lg_age $C/$cg >/dev/null && lg_age $C/$cg >/dev/null || vm_die "cannot age /$cg"
	done
	cur=$(lg_current $C/prot)
	echo $cur >$C/prot/memory.min || vm_die "cannot set memory.min"
	echo "prot_min $(cat $C/prot/memory.min)"
	echo "prot_before $cur"
	echo "prot_evict $(lg_evict $C/prot)"
	echo "prot_after $(lg_current $C/prot)"

	echo "free_before $(lg_current $C/free)"
	echo "free_evict $(lg_evict $C/free)"
	echo "free_after $(lg_current $C/free)"

	cur=$(lg_current $C/prot)
	min=$((cur - 16 * 1048576))
	echo $min >$C/prot/memory.min || vm_die "cannot lower memory.min"
	echo "partial_min $(cat $C/prot/memory.min)"
	echo "partial_before $cur"
	echo "partial_evict $(lg_evict $C/prot)"
	echo "partial_after $(lg_current $C/prot)"
	# each node again: the file bytes left in the generations its eviction
	# names (max_seq - 2 and older), then its answer: EBUSY while some are
	# left, ESTALE as right as EBUSY once the first eviction emptied them
	# (page cache lands on both nodes: one node's can be gone, the other's not)
	for n in $(lg_live_nodes $C/prot); do
		s=$(lg_max $C/prot $n)
		left=$(awk -v n=N$n -v s=$s '$1 == n { q = $2; f = $6; sub("seq=", "", q)
			sub("file=", "", f); if (q + 2 <= s + 0) t += f } END { print t + 0 }' \
			$C/prot/memory.lru_gen)
		echo "partial_again_N$n $left $(cgwrite $C/prot/memory.lru_gen "- N$n $((s - 2)) 0")"
	done
	echo "partial_again_after $(lg_current $C/prot)"

	# debugfs: "- memcg_id node seq" for /prot ignores memory.min
	cur=$(lg_current $C/prot)
	echo "debugfs_before $cur"
	id=$(vm_lruvecs | awk '$4 == "/prot" { print $1; exit }')
	for n in $(lg_nodes $C/prot); do
		echo "- $id $n $(($(lg_max $C/prot $n) - 2)) 0" >/sys/kernel/debug/lru_gen
	done
	echo "debugfs_after $(lg_current $C/prot)"
} >/tmp/out.txt 2>&1
vm_emit out /tmp/out.txt
EOF
}

scenario_check() {
	local o=$VM_RESULTS/out b a min mib=1048576
	vm_assert_file "output" "$o" || return
	sed 's/^/  | /' "$o"
	vm_assert_eq "memory.min set to the usage" "$(kernel_key "$o" prot_before)" "$(kernel_key "$o" prot_min)"
	vm_assert_eq "eviction at memory.min" EBUSY "$(kernel_key "$o" prot_evict)"
	b=$(kernel_key "$o" prot_before) a=$(kernel_key "$o" prot_after)
	vm_assert_le "KiB evicted from /prot at memory.min" $(((b - a) / 1024)) 64
	vm_assert_eq "eviction of /free" ok "$(kernel_key "$o" free_evict)"
	b=$(kernel_key "$o" free_before) a=$(kernel_key "$o" free_after)
	echo "  /free: $((b / mib)) -> $((a / mib)) MiB"
	vm_assert_ge "MiB evicted from /free (48 written)" $(((b - a) / mib)) 44
	min=$(kernel_key "$o" partial_min) b=$(kernel_key "$o" partial_before) a=$(kernel_key "$o" partial_after)
	echo "  /prot with memory.min $((min / 1024)) KiB: $((b / 1024)) -> $((a / 1024)) KiB"
	vm_assert_eq "partial eviction" ok "$(kernel_key "$o" partial_evict)"
	# below by at most one batch (64 pages) and the charge caches (64 per cpu)
	vm_assert_ge "KiB left above memory.min" $(((a - min) / 1024)) $((-(64 + 64 * 2) * 4))
	vm_assert_le "KiB left above memory.min (it evicted down to it)" $(((a - min) / 1024)) 1024
	# the partial eviction may have emptied the generations it named on a
	# node (the rest of the page cache in younger ones): there the kernel says
	# ESTALE, not EBUSY; a node with file pages left in them must say EBUSY
	local key left ans nodes=0
	while read -r key left ans; do
		nodes=$((nodes + 1))
		if [[ $left -gt 0 ]]; then
			vm_assert_eq "then at memory.min, ${key#partial_again_} ($left bytes left): EBUSY" EBUSY "$ans"
		elif [[ $ans == EBUSY || $ans == ESTALE ]]; then
			vm_pass "then at memory.min, ${key#partial_again_} (its generations emptied): $ans"
		else
			vm_fail "then at memory.min, ${key#partial_again_} (its generations emptied): expected EBUSY or ESTALE, got '$ans'"
		fi
	done < <(grep '^partial_again_N' "$o")
	vm_assert_ge "nodes evicted again" "$nodes" 1
	b=$(kernel_key "$o" partial_after) a=$(kernel_key "$o" partial_again_after)
	vm_assert_le "KiB evicted by that second eviction" $(((b - a) / 1024)) 256
	b=$(kernel_key "$o" debugfs_before) a=$(kernel_key "$o" debugfs_after)
	echo "  debugfs eviction of /prot: $((b / mib)) -> $((a / mib)) MiB, memory.min $((min / mib)) MiB"
	vm_assert_ge "debugfs eviction goes below memory.min (MiB)" $(((min - a) / mib)) 8
}
