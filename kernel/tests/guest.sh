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

# lg_live_nodes CG: the node ids where CG's generations hold bytes (anon + file)
lg_live_nodes() {
	awk '{ a = $5; f = $6; sub("anon=", "", a); sub("file=", "", f); s[$1] += a + f }
		END { for (n in s) if (s[n] > 0) print substr(n, 2) }' "$1/memory.lru_gen" | sort -n
}

# lg_evict CG: "- N<nid> <max_seq - 2> 0" on every node of lg_live_nodes (page
# cache can land on either node); prints "ok" if one node answered ok, else
# the first node's answer (EBUSY at memory.min)
lg_evict() {
	_lg_ans=
	for _lg_n in $(lg_live_nodes "$1"); do
		_lg_s=$(lg_max "$1" "$_lg_n")
		_lg_a=$(cgwrite "$1/memory.lru_gen" "- N$_lg_n $((_lg_s - 2)) 0")
		if [ "$_lg_a" = ok ] || [ -z "$_lg_ans" ]; then
			_lg_ans=$_lg_a
		fi
	done
	echo "${_lg_ans:-ENODATA}"
}
