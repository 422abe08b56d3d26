# shellcheck shell=sh
# kernel/tests/guest.sh - /lib/lru_gen.sh in the guest: busybox sh helpers for
# the patched kernel's scenarios (tests/vm/scenarios/lru_gen_*.sh), which
# source it. CG is a cgroup directory, e.g. /sys/fs/cgroup/jobs/web; C is the
# cgroup2 mount.

# shellcheck disable=SC2034 # used by the scripts that source this file
C=/sys/fs/cgroup

# lg_nodes CG: the node ids listed in CG/memory.lru_gen, ascending
lg_nodes() {
	awk '{ print substr($1, 2) }' "$1/memory.lru_gen" | uniq
}

# lg_max CG NID: max_seq of node NID in CG/memory.lru_gen
lg_max() {
	awk -v n="N$2" '$1 == n { s = $2 } END { sub("seq=", "", s); print s }' "$1/memory.lru_gen"
}

# lg_age CG [CAN_SWAP]: one "+ N<nid> <max_seq> CAN_SWAP 1" per node (default
# can_swap 1); prints cgwrite's answers; fails if one was not "ok"
lg_age() {
	_lg_bad=0
	for _lg_n in $(lg_nodes "$1"); do
		cgwrite "$1/memory.lru_gen" "+ N$_lg_n $(lg_max "$1" "$_lg_n") ${2:-1} 1" || _lg_bad=1
	done
	return $_lg_bad
}

# lg_fill CG FILE MB: write MB MiB of page cache to FILE from a process in CG,
# then sync, so CG is charged for clean, evictable page cache
lg_fill() {
	(echo 0 >"$1/cgroup.procs" && exec dd if=/dev/zero of="$2" bs=1M count="$3" 2>/dev/null) &&
		sync
}

# lg_current CG: memory.current of CG in bytes
lg_current() {
	cat "$1/memory.current"
}

# lg_busiest CG: the node with the most bytes (anon + file) in CG's generations
lg_busiest() {
	awk '{ a = $5; f = $6; sub("anon=", "", a); sub("file=", "", f); s[$1] += a + f }
		END { for (n in s) if (!best || s[n] > s[best]) best = n; print substr(best, 2) }' \
		"$1/memory.lru_gen"
}
