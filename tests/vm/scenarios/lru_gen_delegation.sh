# shellcheck shell=bash disable=SC2034 # VM_* are read by lib.sh
# kernels: patched
# tests/vm/scenarios/lru_gen_delegation.sh - cgroup delegation: uid 1000 owns
# /deleg (the directory, cgroup.procs, cgroup.subtree_control,
# cgroup.threads), creates /deleg/job, runs a workload there (8 MiB hot, 48 MiB
# cold anon, node 0, zram swap), and ages and evicts it through
# /deleg/job/memory.lru_gen. The same user gets EACCES on the sibling /other
# (a root workload) and on /deleg's own memory.lru_gen, and /other is not aged.

VM_SWAP=512M
VM_TIMEOUT=200
source "$VM_SRC/kernel/tests/vm.sh"
kernel_vm_setup || return 1

scenario_guest() {
	cat <<'EOF'
. /lib/lru_gen.sh
chmod 1777 /tmp
echo "lru:x:1000:1000::/tmp:/bin/sh" >>/etc/passwd
echo "lru:x:1000:" >>/etc/group
vm_mkcg /other && vm_mkcg /deleg/init || vm_die "cannot create the cgroups"
chown 1000:1000 $C/deleg $C/deleg/cgroup.procs $C/deleg/cgroup.subtree_control \
	$C/deleg/cgroup.threads || vm_die "cannot delegate /deleg"
vm_start other workload anon --cgroup $C/other --node 0 --hot 4 --cold 16 ||
	vm_die "other did not start"
lg_max $C/other 0 >/tmp/other_max_before

cat >/tmp/user.sh <<'USER'
. /lib/lru_gen.sh
C=/sys/fs/cgroup
echo "id $(id -u)"
mkdir $C/deleg/job || { echo "mkdir failed"; exit 1; }
workload anon --cgroup $C/deleg/job --node 0 --hot 8 --cold 48 >/tmp/job.out 2>&1 &
echo $! >/tmp/job.pid
i=0
until grep -q ^ready /tmp/job.out; do
	i=$((i + 1)); [ $i -gt 600 ] && { echo "job not ready"; exit 1; }
	sleep 0.1
done
echo "job_owner $(stat -c %u $C/deleg/job/memory.lru_gen)"
max=$(lg_max $C/deleg/job 0)
echo "max_before $max"
echo "age1 $(cgwrite $C/deleg/job/memory.lru_gen "+ N0 $max 1 1")"
echo "age_stale $(cgwrite $C/deleg/job/memory.lru_gen "+ N0 $max 1 1")"
# five periods of the workload (100 ms): the hot set is touched again before
# the next walk, so only the cold set stays in the old generation
sleep 0.5
max=$(lg_max $C/deleg/job 0)
echo "age2 $(cgwrite $C/deleg/job/memory.lru_gen "+ N0 $max 1 1")"
max=$(lg_max $C/deleg/job 0)
echo "max_after $max"
cp $C/deleg/job/memory.lru_gen /tmp/job_lru_gen_before
echo "current_before $(cat $C/deleg/job/memory.current)"
echo "evict $(cgwrite $C/deleg/job/memory.lru_gen "- N0 $((max - 2))")"
echo "current_after $(cat $C/deleg/job/memory.current)"
cp $C/deleg/job/memory.lru_gen /tmp/job_lru_gen_after
omax=$(lg_max $C/other 0)
echo "sibling_age $(cgwrite $C/other/memory.lru_gen "+ N0 $omax 1 1")"
echo "sibling_evict $(cgwrite $C/other/memory.lru_gen "- N0 $((omax - 2))")"
echo "parent_age $(cgwrite $C/deleg/memory.lru_gen "+ N0 $(lg_max $C/deleg 0) 1 1")"
echo "debugfs $(cgwrite /sys/kernel/debug/lru_gen "+ 1 0 3")"
kill $(cat /tmp/job.pid)
USER
chmod 755 /tmp/user.sh
# the user's shell starts in /deleg/init, which root put it in; from there it
# may move its own processes to the cgroups it creates under /deleg
(echo 0 >$C/deleg/init/cgroup.procs && exec su -s /bin/sh -c /tmp/user.sh lru) >/tmp/user.out 2>&1
vm_emit user /tmp/user.out
vm_emit job_lru_gen_before /tmp/job_lru_gen_before
vm_emit job_lru_gen_after /tmp/job_lru_gen_after
echo "other_max_before $(cat /tmp/other_max_before)" >/tmp/other.txt
echo "other_max_after $(lg_max $C/other 0)" >>/tmp/other.txt
vm_emit other /tmp/other.txt
vm_stop other
EOF
}

scenario_check() {
	local u=$VM_RESULTS/user o=$VM_RESULTS/other before after freed
	vm_assert_file "user script output" "$u" || return
	sed 's/^/  | /' "$u"
	vm_assert_eq "runs as uid 1000" 1000 "$(kernel_key "$u" id)"
	vm_assert_eq "the user owns the memory.lru_gen it created" 1000 "$(kernel_key "$u" job_owner)"
	vm_assert_eq "aging its own memcg" ok "$(kernel_key "$u" age1)"
	vm_assert_eq "the same seq again is stale" ESTALE "$(kernel_key "$u" age_stale)"
	vm_assert_eq "aging again" ok "$(kernel_key "$u" age2)"
	vm_assert_eq "two generations created" $(($(kernel_key "$u" max_before) + 2)) "$(kernel_key "$u" max_after)"
	vm_assert_eq "evicting its own memcg" ok "$(kernel_key "$u" evict)"
	before=$(kernel_key "$u" current_before) after=$(kernel_key "$u" current_after)
	freed=$(((before - after) / 1048576))
	echo "  memory.current $before -> $after: $freed MiB evicted (48 MiB cold)"
	vm_assert_ge "MiB evicted from the cold 48 MiB" "$freed" 40
	vm_assert_le "MiB evicted (the 8 MiB hot set is young)" "$freed" 52
	vm_assert_eq "aging the sibling" EACCES "$(kernel_key "$u" sibling_age)"
	vm_assert_eq "evicting the sibling" EACCES "$(kernel_key "$u" sibling_evict)"
	vm_assert_eq "aging the delegation root itself" EACCES "$(kernel_key "$u" parent_age)"
	vm_assert_eq "debugfs lru_gen" EACCES "$(kernel_key "$u" debugfs)"
	vm_assert_eq "the sibling was not aged" "$(kernel_key "$o" other_max_before)" "$(kernel_key "$o" other_max_after)"
}
