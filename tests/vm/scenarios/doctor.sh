# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/doctor.sh - issue 3, scenario 4: 'lrugen doctor' on the
# stock kernel before and after 'lrugen enable', with the kernel's config in
# /boot; and the one-line errors of a host without debugfs or without root.

VM_SWAP=256M
VM_TIMEOUT=150

scenario_guest() {
	# the package's config, where Debian installs it
	VM_FILES=("$(vm_kernel "$VM_KERNEL")/config:/boot/config-$VM_RELEASE")
	cat <<'EOF'
lrugen doctor >/tmp/before.txt 2>&1; echo $? >/tmp/before.rc
lrugen doctor --json >/tmp/before.json 2>/dev/null
lrugen show >/dev/null 2>/tmp/show-off.err
lrugen enable >/tmp/enable.txt 2>&1; echo $? >/tmp/enable.rc
lrugen doctor >/tmp/after.txt 2>&1; echo $? >/tmp/after.rc
lrugen doctor --json >/tmp/after.json 2>/dev/null
# not root: debugfs is root-only
grep -q '^nobody:' /etc/passwd 2>/dev/null || echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
su -s /bin/sh nobody -c 'lrugen show' >/dev/null 2>/tmp/nonroot.err
echo $? >/tmp/nonroot.rc
su -s /bin/sh nobody -c 'lrugen doctor --json' >/tmp/nonroot.json 2>/dev/null
# debugfs not mounted
umount /sys/kernel/debug || vm_die "cannot unmount debugfs"
lrugen show >/dev/null 2>/tmp/nodebugfs.err; echo $? >/tmp/nodebugfs.rc
lrugen doctor --json >/tmp/nodebugfs.json 2>/dev/null
mount -t debugfs none /sys/kernel/debug
# with a memcg below the root: the patched kernel's memory.lru_gen is there to use
vm_mkcg /jobs/probe || vm_die "cannot create /jobs/probe"
lrugen doctor --json >/tmp/memcg.json 2>/dev/null
for f in memcg.json before.txt before.rc before.json show-off.err enable.txt enable.rc after.txt after.rc after.json \
	nonroot.err nonroot.rc nonroot.json nodebugfs.err nodebugfs.rc nodebugfs.json; do
	vm_emit $f /tmp/$f
done
EOF
}

_st() { jq -r --arg c "$2" '.[] | select(.check == $c) | .status' "$VM_RESULTS/$1"; }

scenario_check() {
	local r=$VM_RESULTS
	echo "  lrugen doctor before 'lrugen enable' (kernel $VM_RELEASE):"
	sed 's/^/    | /' "$r/before.txt"
	echo "  lrugen enable: $(cat "$r/enable.txt")"
	echo "  lrugen doctor after:"
	sed 's/^/    | /' "$r/after.txt"
	case $VM_KERNEL in
	6.1)
		vm_assert_eq "6.1 before: MGLRU built but off" FAIL "$(_st before.json mglru)"
		vm_assert_eq "6.1 before: exit code 3" 3 "$(cat "$r/before.rc")"
		vm_assert_grep "6.1 before: the fix is given" 'fix: lrugen enable' "$r/before.txt"
		vm_assert_grep "6.1 config off by default" 'CONFIG_LRU_GEN=y, off by default' "$r/before.txt"
		vm_assert_grep "show warns while MGLRU is off" 'warning: MGLRU is off' "$r/show-off.err"
		vm_assert_grep "enable on 6.1 sets 0x0003" 'MGLRU on: lru_gen/enabled 0x0003 \(was 0x0000\)' "$r/enable.txt"
		;;
	6.12)
		vm_assert_eq "6.12 before: MGLRU on" ok "$(_st before.json mglru)"
		vm_assert_grep "6.12 config on by default" 'CONFIG_LRU_GEN=y, on by default' "$r/before.txt"
		vm_assert_grep "enable on 6.12 keeps 0x0007" 'MGLRU on: lru_gen/enabled 0x0007 \(was 0x0007\)' "$r/enable.txt"
		;;
	esac
	vm_assert_eq "enable exit code" 0 "$(cat "$r/enable.rc")"
	vm_assert_eq "after: exit code 0" 0 "$(cat "$r/after.rc")"
	vm_assert_grep "after: ready" 'this host is ready for lrugen' "$r/after.txt"
	vm_assert_eq "after: no failed check" 0 "$(jq '[.[] | select(.status == "FAIL")] | length' "$r/after.json")"
	for c in kernel config mglru debugfs lockdown interface cgroup root swap; do
		vm_assert_eq "after: $c ok" ok "$(_st after.json $c)"
	done
	vm_assert_eq "non-root show exit code" 3 "$(cat "$r/nonroot.rc")"
	vm_assert_grep "non-root message" "permission denied \(run as root\)" "$r/nonroot.err"
	vm_assert_eq "non-root doctor: root check" FAIL "$(_st nonroot.json root)"
	vm_assert_eq "no debugfs: exit code" 3 "$(cat "$r/nodebugfs.rc")"
	vm_assert_eq "no debugfs: one-line error" \
		"lrugen: debugfs is not mounted at '/sys/kernel/debug' (mount -t debugfs none /sys/kernel/debug)" \
		"$(cat "$r/nodebugfs.err")"
	vm_assert_eq "no debugfs: doctor" FAIL "$(_st nodebugfs.json debugfs)"
	local want='^debugfs .*lru_gen' detail
	[[ $VM_KERNEL == patched ]] && want='^memory\.lru_gen \(cgroup v2, patched kernel\)'
	detail=$(jq -r '.[] | select(.check == "interface") | .detail' "$r/memcg.json")
	vm_assert_eq "with a memcg, doctor names the interface in use ($detail)" true \
		"$(grep -Eq "$want" <<<"$detail" && echo true)"
}
