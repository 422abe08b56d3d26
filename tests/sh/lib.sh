# tests/sh/lib.sh - helpers for shell-level tests (sourced).
#
#   check NAME EXPECTED ACTUAL        equality, printing both on failure
#   check_rc NAME EXPECTED CMD...     exit code of CMD
#   check_grep NAME PATTERN TEXT      TEXT contains the extended regex PATTERN
#   mkroot DIR KERNEL                 a fixture root (6.1 | 6.12 | 7.3) for --root
#   private_mounts "$0" "$@"          re-run this test in a private mount namespace
#                                     (as root), where it may mount a small tmpfs
#   small_fs DIR SIZE                 mount a SIZE tmpfs on DIR there; fails where
#                                     private_mounts could not make a namespace
#   finish                            prints "N passed, N failed"; exit status
set -u
: "${LRUGEN_SRC:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${LRUGEN_BUILD:=$LRUGEN_SRC/build}"
LRUGEN=$LRUGEN_BUILD/lrugen
T_PASS=0
T_FAIL=0

pass() { T_PASS=$((T_PASS + 1)); }
fail() {
	T_FAIL=$((T_FAIL + 1))
	echo "FAIL: $*" >&2
}

check() {
	if [[ "$2" == "$3" ]]; then pass; else fail "$1: expected '$2', got '$3'"; fi
}

check_rc() {
	local name=$1 want=$2 got
	shift 2
	"$@" >/dev/null 2>&1
	got=$?
	if [[ $got == "$want" ]]; then pass; else fail "$name: expected exit $want, got $got ($*)"; fi
}

check_grep() {
	if grep -qE -- "$2" <<<"$3"; then pass; else fail "$1: '$2' not found in: $3"; fi
}

# mkroot DIR 6.1|6.12|7.3: a root with debugfs, sysfs and procfs files of a
# fixture. 7.3 is Debian's stock 7.3 as captured: damon_stat on (as it boots)
# and /jobs/web's memory in huge pages (its memory.stat).
mkroot() {
	local dir=$1 k=$2 fx=$LRUGEN_SRC/tests/fixtures/linux-$2
	mkdir -p "$dir/sys/kernel/debug" "$dir/sys/kernel/mm/lru_gen" "$dir/proc/sys/kernel/random" \
		"$dir/sys/fs/cgroup/jobs/web" "$dir/sys/fs/cgroup/jobs/batch" \
		"$dir/sys/devices/system/node/node0" "$dir/sys/devices/system/node/node1"
	cp "$fx/lru_gen.txt" "$dir/sys/kernel/debug/lru_gen"
	cp "$fx/lru_gen_full.txt" "$dir/sys/kernel/debug/lru_gen_full"
	echo 0x0007 >"$dir/sys/kernel/mm/lru_gen/enabled"
	case $k in
	6.1) echo 6.1.0-57-amd64 ;;
	6.12) echo 6.12.117+deb12-amd64 ;;
	*) echo 7.3.4+deb13-amd64 ;;
	esac >"$dir/proc/sys/kernel/osrelease"

	echo "fixture-$k" >"$dir/proc/sys/kernel/hostname"
	echo 00000000-0000-4000-8000-000000000001 >"$dir/proc/sys/kernel/random/boot_id"
	printf 'none /sys/kernel/debug debugfs rw 0 0\ncgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n' \
		>"$dir/proc/mounts"
	printf 'Filename\tType\tSize\tUsed\tPriority\n/dev/zram0\tpartition\t524284\t0\t100\n' >"$dir/proc/swaps"
	echo "cpuset cpu io memory pids" >"$dir/sys/fs/cgroup/cgroup.controllers"
	for n in 0 1; do
		printf 'Node %d MemTotal: 524288 kB\nNode %d MemFree: 262144 kB\n' $n $n \
			>"$dir/sys/devices/system/node/node$n/meminfo"
	done
	printf 'anon 0\nfile 8192\nfile_mapped 4096\n' >"$dir/sys/fs/cgroup/jobs/web/memory.stat"
	printf 'anon N0=0 N1=0\nfile N0=8192 N1=0\nfile_mapped N0=4096 N1=0\n' \
		>"$dir/sys/fs/cgroup/jobs/web/memory.numa_stat"
	if [[ $k == 7.3 ]]; then
		mkdir -p "$dir/sys/module/damon_stat/parameters"
		echo Y >"$dir/sys/module/damon_stat/parameters/enabled"
		grep -E '^(anon|anon_thp|file_thp|shmem_thp) ' "$fx/memory.stat-jobs-web.txt" \
			>>"$dir/sys/fs/cgroup/jobs/web/memory.stat"
		printf 'anon 136314880\nanon_thp 0\n' >"$dir/sys/fs/cgroup/jobs/batch/memory.stat"
		printf 'anon 262193152\nanon_thp 123731968\n' >"$dir/sys/fs/cgroup/jobs/memory.stat"
		printf 'anon 270000000\nanon_thp 123731968\n' >"$dir/sys/fs/cgroup/memory.stat"
	fi
}

# Call first thing: as root, the test runs again in a private mount namespace
# (unshare -m), so that the tmpfs it mounts to fill up disappears with it. Sets
# LRUGEN_MOUNT_NS=1 there, 0 where that cannot be done (not root).
private_mounts() {
	[[ ${LRUGEN_MOUNT_NS:-} == 1 ]] && return 0
	if [[ $EUID -eq 0 ]] && unshare -m --propagation private true 2>/dev/null; then
		LRUGEN_MOUNT_NS=1 exec unshare -m --propagation private bash "$@"
	fi
	LRUGEN_MOUNT_NS=0
}

small_fs() {
	[[ ${LRUGEN_MOUNT_NS:-} == 1 ]] && mkdir -p "$1" && mount -t tmpfs -o "size=$2" lrugen-test "$1"
}

finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[[ $T_FAIL -eq 0 ]]
}
