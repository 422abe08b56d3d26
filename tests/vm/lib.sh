# shellcheck shell=bash
# tests/vm/lib.sh - host side of the real-kernel tests: fetch Debian's stock
# kernels, build an initramfs around a guest script, boot it under QEMU, bring
# the results back and assert on them. Source it from bash; see README.md.
#
# Environment (all optional):
#   LRUGEN_CACHE   kernel cache (default /var/cache/lrugen), see fetch-kernel
#   LRUGEN_BUILD   where lrugen, lrugend, lrugen-store, lrugen-top are (build)
#   VM_OUT         work directory for images and logs (build/vm)
#   VM_ACCEL       tcg (default), kvm, or auto (kvm if it demonstrably works)
#   VM_CPU         QEMU -cpu model (default under TCG max,-la57: RDRAND seeds
#                  the guest's CRNG at once, 4-level paging, one LLC per node;
#                  under KVM host)
#   VM_PVH=0       boot the bzImage instead of the uncompressed vmlinux (PVH)
#   VM_VERBOSE=1   follow the guest console live and print passing checks

VM_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VM_SRC=$(cd "$VM_DIR/../.." && pwd)
LRUGEN_BUILD=${LRUGEN_BUILD:-$VM_SRC/build}
VM_OUT=${VM_OUT:-$VM_SRC/build/vm}
VM_PASSED=0
VM_FAILED=0

vm_err() { echo "$*" >&2; }

# vm_kernel KERNEL: fetch (or find in the cache) kernel 6.1, 6.12 or 7.3, or
# build (or find) lrugen's patched kernel (patched: kernel/build), and print
# its cache directory (vmlinuz, config, release, modules.cpio.gz). An absolute
# path is a kernel directory of that layout (a kernel of your own, for
# experiments: VM_KERNEL=/path tests/vm/run SCENARIO).
vm_kernel() {
	case $1 in
	patched) "$VM_SRC/kernel/build" ;;
	/*) [[ -f $1/vmlinuz && -f $1/release ]] && echo "$1" ||
		{ vm_err "vm_kernel: '$1' is not a kernel directory (vmlinuz, release, modules.cpio.gz)"; return 1; } ;;
	*) "$VM_DIR/fetch-kernel" "$1" ;;
	esac
}

# vm_scenario_kernels FILE: the kernels a scenario applies to, from a
# "# kernels: K..." line in its first 10 lines (default: every kernel).
vm_scenario_kernels() {
	local line
	line=$(head -n 10 "$1" | grep -m1 -E '^# kernels:' || true)
	if [[ -n $line ]]; then
		echo "${line#*:}" | xargs
	else
		echo "6.1 6.12 7.3 patched"
	fi
}

# vm_static_prog NAME: build the static guest program tests/vm/NAME.c (once;
# again when its source changes) and print its path: workload (the tenants)
# pageidle (idle page tracking) and rusage (a program's peak memory), for
# bench/peers.
vm_static_prog() {
	local src=$VM_DIR/$1.c bin=$VM_OUT/$1 tmp
	if [[ ! -x $bin || $src -nt $bin ]]; then
		mkdir -p "$VM_OUT" || return 1
		tmp=$(mktemp "$VM_OUT/.$1.XXXXXX") || return 1
		if ! cc -static -O2 -std=c11 -Wall -Wextra -o "$tmp" "$src"; then
			rm -f "$tmp"
			vm_err "vm_static_prog: cannot build $src (is libc6-dev installed?)"
			return 1
		fi
		mv -f "$tmp" "$bin"
	fi
	echo "$bin"
}

# _vm_copy_prog STAGE BIN: copy BIN into STAGE/usr/bin with the shared
# libraries and the dynamic loader it needs, at their host paths.
_vm_copy_prog() {
	local stage=$1 bin=$2 lib
	install -D -m 755 "$bin" "$stage/usr/bin/$(basename "$bin")" || return 1
	for lib in $(ldd "$bin" 2>/dev/null | grep -oE '(^|[[:space:]])/[^[:space:]]+'); do
		[[ -e $stage$lib ]] || install -D -m 755 "$lib" "$stage$lib" || return 1
	done
}

# vm_initramfs OUT GUEST_SCRIPT [EXTRA_FILE[:GUEST_PATH]...]: build a
# kernel-independent initramfs (cpio newc + gzip) at OUT with static busybox,
# /init (tests/vm/guest/init), /lib/vm-guest.sh, GUEST_SCRIPT as /scenario.sh,
# /usr/bin/workload, pageidle and rusage, our programs from LRUGEN_BUILD (those that exist) with
# their libraries, and each EXTRA_FILE at GUEST_PATH (default /files/NAME).
# The kernel's modules are not in it: vm_boot appends them.
vm_initramfs() {
	local out=$1 script=$2 stage wl pi ru p f src dst rc=0
	shift 2 || { vm_err "usage: vm_initramfs OUT GUEST_SCRIPT [EXTRA_FILE...]"; return 2; }
	[[ -r $script ]] || { vm_err "vm_initramfs: cannot read guest script '$script'"; return 1; }
	[[ -x /bin/busybox ]] && ! ldd /bin/busybox >/dev/null 2>&1 ||
		{ vm_err "vm_initramfs: /bin/busybox missing or not static (apt-get install busybox-static)"; return 1; }
	wl=$(vm_static_prog workload) || return 1
	pi=$(vm_static_prog pageidle) || return 1
	ru=$(vm_static_prog rusage) || return 1
	stage=$(mktemp -d) || return 1
	(
		set -e
		cd "$stage"
		mkdir -p bin sbin usr/bin usr/sbin lib lib64 etc dev proc sys tmp run root mnt/data files
		cp /bin/busybox bin/busybox
		ln -s busybox bin/sh
		install -m 755 "$VM_DIR/guest/init" init
		install -m 644 "$VM_DIR/guest/vm-guest.sh" lib/vm-guest.sh
		install -m 755 "$script" scenario.sh
		install -m 755 "$wl" usr/bin/workload
		install -m 755 "$pi" usr/bin/pageidle
		install -m 755 "$ru" usr/bin/rusage
		echo "root:x:0:0:root:/root:/bin/sh" >etc/passwd
		echo "root:x:0:" >etc/group
		echo "127.0.0.1 localhost" >etc/hosts
	) || rc=1
	for p in lrugen lrugend lrugen-store lrugen-top; do
		[[ $rc -eq 0 && -x $LRUGEN_BUILD/$p ]] || continue
		_vm_copy_prog "$stage" "$LRUGEN_BUILD/$p" || { vm_err "vm_initramfs: cannot copy $p"; rc=1; }
	done
	for f in "$@"; do
		[[ $rc -eq 0 ]] || break
		src=${f%%:*}
		dst=/files/$(basename "$src")
		[[ $f == *:* ]] && dst=${f#*:}
		install -D "$src" "$stage$dst" || { vm_err "vm_initramfs: cannot add '$src'"; rc=1; }
	done
	if [[ $rc -eq 0 ]]; then
		mkdir -p "$(dirname "$out")" &&
			(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
			gzip -1 >"$out.tmp" && mv -f "$out.tmp" "$out" || rc=1
	fi
	rm -rf "$stage"
	return $rc
}

# vm_mkdisk IMG SIZE [DIR]: a sparse raw file of SIZE (e.g. 256M) with an ext4
# filesystem, populated from DIR if given. /init mounts it at /mnt/data.
vm_mkdisk() {
	local img=$1 size=$2 dir=${3:-}
	rm -f "$img" && truncate -s "$size" "$img" &&
		mkfs.ext4 -q -F ${dir:+-d "$dir"} "$img" ||
		{ vm_err "vm_mkdisk: cannot make an ext4 image of $size at '$img'"; return 1; }
}

# vm_accel: print the QEMU accelerator to use, from VM_ACCEL (default tcg).
# auto tries KVM for real (-cpu host, or VM_CPU): a boot sector that writes to isa-debug-exit must
# make QEMU exit with the expected code within 5 s (it takes 0.2 s under TCG).
vm_accel() {
	local mode=${VM_ACCEL:-tcg} tmp rc
	case $mode in
	tcg | kvm) echo "$mode"; return 0 ;;
	auto) ;;
	*) vm_err "vm_accel: VM_ACCEL must be tcg, kvm or auto, not '$mode'"; return 1 ;;
	esac
	if [[ -n ${_VM_ACCEL_PROBED:-} ]]; then
		echo "$_VM_ACCEL_PROBED"
		return 0
	fi
	_VM_ACCEL_PROBED=tcg
	if [[ -r /dev/kvm && -w /dev/kvm ]]; then
		tmp=$(mktemp)
		# mov al, 42; out 0xf4, al; hlt; jmp $-1 ... 0x55 0xaa
		{ printf '\xb0\x2a\xe6\xf4\xf4\xeb\xfd'; head -c 503 /dev/zero; printf '\x55\xaa'; } >"$tmp"
		{ timeout -k 2 5 qemu-system-x86_64 -accel kvm -cpu "${VM_CPU:-host}" -nodefaults -no-user-config \
			-display none -m 16 -device isa-debug-exit,iobase=0xf4,iosize=4 \
			-drive "file=$tmp,format=raw,if=ide" </dev/null >/dev/null 2>&1; } 2>/dev/null
		rc=$?
		rm -f "$tmp"
		[[ $rc -eq 85 ]] && _VM_ACCEL_PROBED=kvm
	fi
	echo "$_VM_ACCEL_PROBED"
}

# _vm_mib SIZE: SIZE (like 1G, 768M, 1024) in MiB.
_vm_mib() {
	case $1 in
	*[Gg]) echo $((${1%?} * 1024)) ;;
	*[Mm]) echo $((${1%?})) ;;
	*[!0-9]* | '') return 1 ;;
	*) echo "$1" ;;
	esac
}

# vm_boot KERNEL_DIR INITRAMFS [options]: boot the kernel with the initramfs
# (plus the kernel's modules) and wait for the guest to power off.
#   --mem SIZE      guest RAM, split evenly over two NUMA nodes (default 1G);
#                   node 0 has cpu 0, node 1 has cpu 1
#   --disk IMG      raw ext4 image as virtio-blk /dev/vda, mounted on /mnt/data
#   --swap SIZE     zram swap of SIZE in the guest (lrugen.swap=SIZE)
#   --net PORT      virtio-net; guest tcp 10.0.2.100:8080 reaches host
#                   127.0.0.1:PORT, nothing else
#   --append ARGS   more kernel command line
#   --qemu ARGS     more QEMU arguments (word-split)
#   --timeout SEC   kill QEMU after SEC seconds (default 300)
#   --log FILE      console log (default $VM_OUT/console.log); results go to
#                   FILE.results
# Returns the guest script's exit code; 124 if the timeout fired; 125 if the
# guest stopped without reporting one (panic, crash); 126 for harness errors.
vm_boot() {
	local kdir=$1 initrd=$2 mem=1G disk='' swap='' net='' append='' qemu_extra='' timeout=300
	local log=$VM_OUT/console.log accel mib half cmdline initrd_all rc start end tail_pid=
	shift 2 || { vm_err "usage: vm_boot KERNEL_DIR INITRAMFS [options]"; return 126; }
	while [[ $# -gt 0 ]]; do
		case $1 in
		--mem) mem=$2 ;;
		--disk) disk=$2 ;;
		--swap) swap=$2 ;;
		--net) net=$2 ;;
		--append) append=$2 ;;
		--qemu) qemu_extra=$2 ;;
		--timeout) timeout=$2 ;;
		--log) log=$2 ;;
		*) vm_err "vm_boot: unknown option '$1'"; return 126 ;;
		esac
		shift 2 || { vm_err "vm_boot: option '$1' needs a value"; return 126; }
	done
	[[ -f $kdir/vmlinuz && -f $kdir/modules.cpio.gz ]] ||
		{ vm_err "vm_boot: '$kdir' is not a kernel directory from vm_kernel"; return 126; }
	[[ -f $initrd ]] || { vm_err "vm_boot: no initramfs '$initrd'"; return 126; }
	[[ -z $disk || -f $disk ]] || { vm_err "vm_boot: no disk image '$disk'"; return 126; }
	mib=$(_vm_mib "$mem") && [[ $mib -ge 256 && $((mib % 2)) -eq 0 ]] ||
		{ vm_err "vm_boot: bad --mem '$mem' (want an even size >= 256M)"; return 126; }
	half=$((mib / 2))
	accel=$(vm_accel) || return 126
	# Multi-threaded TCG lets one vCPU run a stale translation of kernel text that
	# another vCPU has just patched (static keys: text_poke's int3), which oopses the
	# guest now and then. Round-robin vCPUs on one thread (VM_TCG_THREAD=multi to undo).
	[[ $accel == tcg ]] && accel=tcg,thread=${VM_TCG_THREAD:-single}
	local kernel=$kdir/vmlinuz cpu=${VM_CPU:-max,-la57}
	[[ $accel == kvm ]] && cpu=${VM_CPU:-host}
	[[ ${VM_PVH:-1} == 1 && -f $kdir/vmlinux ]] && kernel=$kdir/vmlinux

	mkdir -p "$(dirname "$log")" "$VM_OUT" || return 126
	initrd_all=$(mktemp "$VM_OUT/.initrd.XXXXXX") || return 126
	cat "$initrd" "$kdir/modules.cpio.gz" >"$initrd_all"
	cmdline="console=ttyS0 loglevel=1 panic=-1 ${swap:+lrugen.swap=$swap} ${net:+lrugen.net=1} $append"
	# shellcheck disable=SC2054 # commas belong to QEMU's option syntax
	local args=(
		-accel "$accel" -nodefaults -no-user-config -display none -no-reboot
		-m "$mib" -smp 2,sockets=2,cores=1,threads=1 -cpu "$cpu"
		-object "memory-backend-ram,id=m0,size=${half}M" -numa "node,nodeid=0,memdev=m0,cpus=0"
		-object "memory-backend-ram,id=m1,size=${half}M" -numa "node,nodeid=1,memdev=m1,cpus=1"
		-serial "file:$log" -serial "file:$log.results"
		-kernel "$kernel" -initrd "$initrd_all" -append "$cmdline"
	)
	[[ -n $disk ]] && args+=(-drive "file=$disk,if=virtio,format=raw")
	# shellcheck disable=SC2054
	[[ -n $net ]] && args+=(-netdev "user,id=n0,restrict=on,guestfwd=tcp:10.0.2.100:8080-tcp:127.0.0.1:$net"
		-device virtio-net-pci,netdev=n0)
	# shellcheck disable=SC2206 # --qemu is documented as word-split
	[[ -n $qemu_extra ]] && args+=($qemu_extra)

	vm_err "vm_boot: $(cat "$kdir/release") ($(basename "$kernel")) accel=$accel mem=${mib}M timeout=${timeout}s log=$log"
	: >"$log"
	if [[ ${VM_VERBOSE:-} == 1 ]]; then
		tail -n +1 -f "$log" >&2 &
		tail_pid=$!
	fi
	start=$(date +%s.%N)
	{ timeout -k 5 "$timeout" qemu-system-x86_64 "${args[@]}" </dev/null >"$log.qemu" 2>&1; } 2>/dev/null
	rc=$?
	end=$(date +%s.%N)
	[[ -n $tail_pid ]] && { sleep 0.2; kill "$tail_pid" 2>/dev/null; wait "$tail_pid" 2>/dev/null; }
	rm -f "$initrd_all"
	VM_BOOT_SECONDS=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

	if [[ $rc -eq 124 || $rc -eq 137 ]]; then
		vm_err "vm_boot: TIMEOUT: the guest did not power off within ${timeout}s; QEMU was killed (console: $log)"
		return 124
	fi
	if [[ $rc -ne 0 ]]; then
		vm_err "vm_boot: QEMU failed with status $rc: $(tail -n 3 "$log.qemu" | tr '\n' ' ')"
		return 126
	fi
	rc=$(tr -d '\r' <"$log.results" | awk '$1 == "@@vm-exit" { code = $2 } END { print code }')
	if [[ -z $rc ]]; then
		if vm_crashed "$log"; then
			# the first report is the cause; later ones are usually its fallout
			vm_err "vm_boot: the guest kernel crashed; its first report:"
			awk '/(Oops|BUG|WARNING|Kernel panic)[: ]/ { on = 1 } on && n++ < 40' "$log" | sed 's/^/  | /' >&2
		else
			vm_err "vm_boot: the guest stopped without reporting an exit code (panic?); console tail:"
			tail -n 20 "$log" | sed 's/^/  | /' >&2
		fi
		return 125
	fi
	vm_err "vm_boot: guest script exit code $rc after ${VM_BOOT_SECONDS}s"
	return "$rc"
}

# vm_crashed LOG: the guest kernel reported an oops, BUG, WARNING or panic.
vm_crashed() { grep -q -E '(Oops|BUG|WARNING|Kernel panic)[: ]' "$1" 2>/dev/null; }

# vm_results LOG DIR: write every result the guest emitted (vm_emit) into
# DIR/NAME, after checking its size and md5. Returns 1 if one is corrupt.
vm_results() {
	local log=$1 dir=$2 f name size sum got rc=0
	local res=$log.results
	[[ -f $res ]] || res=$log
	mkdir -p "$dir" || return 1
	[[ -f $res ]] || return 0 # QEMU never ran: no results, nothing corrupt
	mkdir -p "$dir/.b64" || return 1
	tr -d '\r' <"$res" | awk -v dir="$dir/.b64" '
		$1 == "@@vm-result-begin" && NF == 5 && $2 ~ /^[A-Za-z0-9._-]+$/ && $5 == "gzip" {
			name = $2; file = dir "/" name
			printf "" > file; print $3, $4 > (file ".sum"); next }
		$1 == "@@vm-result-end" && $2 == name { close(file); close(file ".sum"); name = ""; next }
		name != "" { print >> file }'
	for f in "$dir"/.b64/*.sum; do
		[[ -f $f ]] || continue
		name=$(basename "$f" .sum)
		read -r size sum <"$f"
		base64 -d <"$dir/.b64/$name" 2>/dev/null | gzip -dc >"$dir/$name" 2>/dev/null
		got="$(wc -c <"$dir/$name") $(md5sum <"$dir/$name" | cut -d' ' -f1)"
		if [[ $got != "$size $sum" ]]; then
			vm_err "vm_results: result '$name' is corrupt: expected $size bytes md5 $sum, got $got"
			rm -f "$dir/$name"
			rc=1
		fi
	done
	rm -rf "$dir/.b64"
	return $rc
}

# vm_result LOG NAME: print result NAME from a vm_boot log on stdout.
vm_result() {
	local tmp rc=0
	tmp=$(mktemp -d) || return 1
	vm_results "$1" "$tmp" || rc=1
	if [[ -f $tmp/$2 ]]; then
		cat "$tmp/$2"
	else
		vm_err "vm_result: no result '$2' in '$1'"
		rc=1
	fi
	rm -rf "$tmp"
	return $rc
}

# vm_lru_rows FILE: one line per generation of an lru_gen or lru_gen_full
# capture: "PATH NODE SEQ AGE_MS ANON FILE IDX NGENS", IDX 0 being the oldest
# generation of that lruvec and NGENS-1 the youngest. Duplicates (reads are
# not atomic) are dropped; `x` marks of lru_gen_full are stripped; the root
# memcg's PATH is "/", a memcg-less kernel's is "-".
vm_lru_rows() {
	awk '
		$1 == "memcg" { path = (NF >= 3 ? $3 : "-"); node = ""; next }
		$1 == "node" { node = $2; key = path " " node
			if (!(key in ngen)) { order[++nkeys] = key; ngen[key] = 0 }
			next }
		node != "" && NF == 4 && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
			if ((key, $1) in seen) next
			seen[key, $1] = 1
			anon = $3; file = $4; sub(/x$/, "", anon); sub(/x$/, "", file)
			row[key, ngen[key]++] = $1 " " $2 " " anon " " file }
		END {
			for (k = 1; k <= nkeys; k++)
				for (i = 0; i < ngen[order[k]]; i++)
					print order[k], row[order[k], i], i, ngen[order[k]] }' "$1"
}

# --- assertions: each counts one pass or failure --------------------------------

# vm_pass DESC / vm_fail DESC: count a check by hand.
vm_pass() {
	VM_PASSED=$((VM_PASSED + 1))
	[[ ${VM_VERBOSE:-} == 1 ]] && echo "  ok   $1"
	return 0
}
vm_fail() {
	VM_FAILED=$((VM_FAILED + 1))
	echo "  FAIL $1"
	return 1
}

# vm_assert_eq DESC EXPECTED ACTUAL: string equality.
vm_assert_eq() {
	if [[ $3 == "$2" ]]; then vm_pass "$1"; else vm_fail "$1: expected '$2', got '$3'"; fi
}

# vm_assert_ge DESC ACTUAL MIN / vm_assert_le DESC ACTUAL MAX: numeric
# (integers or decimals) comparison.
vm_assert_ge() {
	if _vm_num_ok "$2" && awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 >= b + 0) }'; then
		vm_pass "$1"
	else
		vm_fail "$1: expected >= $3, got '$2'"
	fi
}
vm_assert_le() {
	if _vm_num_ok "$2" && awk -v a="$2" -v b="$3" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
		vm_pass "$1"
	else
		vm_fail "$1: expected <= $3, got '$2'"
	fi
}
_vm_num_ok() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

# vm_assert_file DESC FILE: FILE exists and is not empty.
vm_assert_file() {
	if [[ -s $2 ]]; then
		vm_pass "$1"
	elif [[ -e $2 ]]; then
		vm_fail "$1: expected a non-empty file '$2', got an empty one"
	else
		vm_fail "$1: expected a non-empty file '$2', got no file"
	fi
}

# vm_assert_grep DESC REGEX FILE: some line of FILE matches the extended REGEX.
vm_assert_grep() {
	if grep -qE -- "$2" "$3" 2>/dev/null; then
		vm_pass "$1"
	else
		vm_fail "$1: expected a line matching '$2' in '$3', got none"
		[[ -s $3 ]] && head -n 8 "$3" | sed 's/^/  | /'
		return 1
	fi
}

# vm_assert_ok DESC CMD [ARG...]: CMD exits 0.
vm_assert_ok() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [[ $rc -eq 0 ]]; then vm_pass "$desc"; else vm_fail "$desc: expected exit 0 from '$*', got $rc${out:+: ${out:0:200}}"; fi
}

# vm_summary: print "N passed, N failed" for the checks so far; non-zero if
# any failed or none ran.
vm_summary() {
	echo "$VM_PASSED passed, $VM_FAILED failed"
	[[ $VM_FAILED -eq 0 && $VM_PASSED -gt 0 ]]
}

# --- scenarios -------------------------------------------------------------------

# vm_run_scenario FILE KERNEL: run one scenario file on KERNEL (6.1, 6.12) in a
# subshell: build its initramfs and disk, boot, extract results to
# $VM_RESULTS, run its host checks. Prints the checks; returns 0 if the guest
# exited 0 and every check passed. Sets nothing in the caller.
#
# A scenario file defines scenario_guest (prints the guest script on stdout)
# and scenario_check (host-side assertions on $VM_RESULTS/NAME), and may set
# VM_MEM, VM_SWAP, VM_DISK (size), VM_NET (host port), VM_APPEND, VM_QEMU,
# VM_TIMEOUT (the vm_boot options) and VM_FILES (array of
# EXTRA_FILE[:GUEST_PATH]). While it runs, VM_KERNEL (6.1 or 6.12),
# VM_RELEASE (uname -r), VM_RESULTS and VM_LOG are set.
vm_run_scenario() (
	local file=$1 kernel=$2 name kdir dir rc
	name=$(basename "$file" .sh)
	VM_MEM=1G VM_SWAP='' VM_DISK='' VM_NET='' VM_APPEND='' VM_QEMU='' VM_TIMEOUT=300 VM_FILES=()
	# shellcheck source=/dev/null
	source "$file" || { vm_fail "$name: cannot source '$file'"; exit 1; }
	declare -F scenario_guest >/dev/null || { vm_fail "$name: no scenario_guest function"; exit 1; }
	kdir=$(vm_kernel "$kernel") || { vm_fail "$name: cannot fetch kernel $kernel"; exit 1; }
	dir=$VM_OUT/$kernel/$name
	rm -rf "$dir" && mkdir -p "$dir" || exit 1
	export VM_KERNEL=$kernel VM_RELEASE VM_RESULTS=$dir/results VM_LOG=$dir/console.log
	VM_RELEASE=$(cat "$kdir/release")
	scenario_guest >"$dir/scenario.sh" || { vm_fail "$name: scenario_guest failed"; exit 1; }
	vm_initramfs "$dir/initramfs.cpio.gz" "$dir/scenario.sh" "${VM_FILES[@]}" ||
		{ vm_fail "$name: cannot build the initramfs"; exit 1; }
	if [[ -n $VM_DISK ]]; then
		vm_mkdisk "$dir/disk.img" "$VM_DISK" || { vm_fail "$name: cannot make the disk"; exit 1; }
	fi
	vm_boot "$kdir" "$dir/initramfs.cpio.gz" --log "$VM_LOG" --mem "$VM_MEM" --timeout "$VM_TIMEOUT" \
		${VM_DISK:+--disk "$dir/disk.img"} ${VM_SWAP:+--swap "$VM_SWAP"} ${VM_NET:+--net "$VM_NET"} \
		${VM_APPEND:+--append "$VM_APPEND"} ${VM_QEMU:+--qemu "$VM_QEMU"}
	rc=$?
	echo "$VM_BOOT_SECONDS" >"$dir/seconds"
	vm_results "$VM_LOG" "$VM_RESULTS" || vm_fail "$name: corrupt results"
	# vm_boot already showed the console of a guest that timed out or crashed
	vm_assert_eq "guest script exit code" 0 "$rc" ||
		{ [[ $rc -lt 124 ]] && tail -n 15 "$VM_LOG" | sed 's/^/  | /'; }
	if [[ $rc -ge 124 ]]; then
		echo "  (host checks skipped: the guest did not finish)"
	elif declare -F scenario_check >/dev/null; then
		scenario_check
	fi
	[[ $VM_FAILED -eq 0 ]]
)
