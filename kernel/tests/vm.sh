# shellcheck shell=bash
# kernel/tests/vm.sh - sourced by the tests/vm scenarios of the patched kernel
# (tests/vm/scenarios/lru_gen_*.sh), after tests/vm/lib.sh.
#
#   kernel_vm_setup   set VM_FILES to what kernel_vm_files prints
#   kernel_key FILE KEY   the value after KEY in the "KEY VALUE" lines of FILE
#   kernel_vm_files   print the VM_FILES entries those scenarios need:
#                     /usr/bin/cgwrite (kernel/tests/cgwrite.c, built static
#                     here), /lib/lru_gen.sh (kernel/tests/guest.sh) and
#                     /usr/bin/test_lru_gen and /usr/bin/mglru_aging (the
#                     series' selftests, built by kernel/build into the
#                     kernel's directory)

kernel_vm_files() {
	local src=$VM_SRC/kernel/tests/cgwrite.c bin=$VM_OUT/cgwrite kdir tmp
	if [[ ! -x $bin || $src -nt $bin ]]; then
		mkdir -p "$VM_OUT" || return 1
		tmp=$(mktemp "$VM_OUT/.cgwrite.XXXXXX") || return 1
		cc -static -O2 -Wall -Wextra -o "$tmp" "$src" || { rm -f "$tmp"; return 1; }
		mv -f "$tmp" "$bin"
	fi
	kdir=$(vm_kernel patched) || return 1
	[[ -x $kdir/kselftest/test_lru_gen ]] || { vm_err "no test_lru_gen in $kdir"; return 1; }
	[[ -x $kdir/kselftest/mglru_aging ]] || { vm_err "no mglru_aging in $kdir"; return 1; }
	echo "$bin:/usr/bin/cgwrite"
	echo "$VM_SRC/kernel/tests/guest.sh:/lib/lru_gen.sh"
	echo "$kdir/kselftest/test_lru_gen:/usr/bin/test_lru_gen"
	echo "$kdir/kselftest/mglru_aging:/usr/bin/mglru_aging"
}

kernel_vm_setup() {
	local files
	files=$(kernel_vm_files) || return 1
	# shellcheck disable=SC2034 # read by tests/vm/lib.sh's vm_run_scenario
	mapfile -t VM_FILES <<<"$files"
}

kernel_key() {
	awk -v k="$2" '$1 == k { print $2; exit }' "$1"
}
