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

# mkroot DIR 6.1|6.12|7.3: a fixture tree (scripts/fixture-root, which the
# README documents for users).
mkroot() {
	"$LRUGEN_SRC/scripts/fixture-root" "$1" "$2" || fail "scripts/fixture-root $1 $2"
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
