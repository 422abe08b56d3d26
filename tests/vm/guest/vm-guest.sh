# shellcheck shell=sh
# /lib/vm-guest.sh - helpers for guest scripts of the lrugen VM tests (busybox sh).
# /init sources this file before /scenario.sh, so every function is available.
#
# Results travel on their own serial port (ttyS1, a file on the host), never on
# the console: kernel messages cannot interleave with them. Each result is
#   @@vm-result-begin NAME SIZE MD5 gzip
#   <base64 of the gzip of the content>
#   @@vm-result-end NAME
# and the host (vm_result / vm_results in tests/vm/lib.sh) checks size and md5.
# The UART moves ~240 KB/s of base64 under TCG; gzip makes text ~10x smaller.

VM_RESULT_PORT=${VM_RESULT_PORT:-/dev/ttyS1}

# vm_log MSG...: a line on the console, tagged so it stands out in the log.
vm_log() {
	echo "[vm] $*"
}

# vm_die MSG...: log MSG to stderr and exit the scenario with status 1.
vm_die() {
	echo "[vm] FATAL: $*" >&2
	exit 1
}

# vm_emit NAME FILE: send FILE (regular, /proc, /sys or debugfs) to the host as
# result NAME ([A-Za-z0-9._-]+). The content is snapshotted first with one big
# read (seq_file restarts its walk for every read(2) chunk), so size, checksum
# and data agree. Emitting a NAME twice: the host sees the last one.
vm_emit() {
	case $1 in
	'' | *[!A-Za-z0-9._-]*) echo "vm_emit: bad result name '$1'" >&2; return 1 ;;
	esac
	_vm_tmp=/tmp/.vm-emit.$$
	dd if="$2" of="$_vm_tmp" bs=4M 2>/dev/null || {
		echo "vm_emit: cannot read '$2'" >&2
		rm -f "$_vm_tmp"
		return 1
	}
	{
		echo "@@vm-result-begin $1 $(wc -c <"$_vm_tmp") $(md5sum <"$_vm_tmp" | cut -d' ' -f1) gzip"
		gzip -c "$_vm_tmp" | base64
		echo "@@vm-result-end $1"
	} >"$VM_RESULT_PORT"
	rm -f "$_vm_tmp"
}

# vm_emit_cmd NAME CMD [ARG...]: run CMD, emit its stdout and stderr as NAME;
# returns CMD's exit status.
vm_emit_cmd() {
	_vm_name=$1
	shift
	"$@" >/tmp/.vm-cmd.$$ 2>&1
	_vm_rc=$?
	vm_emit "$_vm_name" /tmp/.vm-cmd.$$
	rm -f /tmp/.vm-cmd.$$
	return $_vm_rc
}

# vm_mkcg PATH: create cgroup PATH (e.g. /jobs/web) under /sys/fs/cgroup with
# the memory controller enabled on every ancestor, so PATH is its own memcg.
vm_mkcg() {
	_vm_cg=/sys/fs/cgroup
	for _vm_part in $(echo "${1#/}" | tr / ' '); do
		grep -qw memory "$_vm_cg/cgroup.subtree_control" ||
			echo +memory >"$_vm_cg/cgroup.subtree_control" || return 1
		_vm_cg=$_vm_cg/$_vm_part
		mkdir -p "$_vm_cg" || return 1
	done
}

# vm_wait_ready FILE [TIMEOUT_S [PID]]: wait until FILE has a line starting
# with "ready" (default timeout 60 s). If PID is given and dies first, fail.
vm_wait_ready() {
	_vm_n=0
	_vm_limit=$((${2:-60} * 10))
	while ! grep -q '^ready' "$1" 2>/dev/null; do
		if [ -n "${3:-}" ] && ! kill -0 "$3" 2>/dev/null; then
			echo "vm_wait_ready: process $3 exited before it was ready; its output:" >&2
			cat "$1" >&2
			return 1
		fi
		if [ $_vm_n -ge $_vm_limit ]; then
			echo "vm_wait_ready: '$1' not ready after ${2:-60} s" >&2
			return 1
		fi
		sleep 0.1
		_vm_n=$((_vm_n + 1))
	done
}

# vm_start NAME CMD [ARG...]: start CMD in the background with its output in
# /tmp/NAME.out and its pid in /tmp/NAME.pid, then wait for its "ready" line
# (as printed by /usr/bin/workload). VM_READY_TIMEOUT (default 60 s) bounds it.
vm_start() {
	_vm_name=$1
	shift
	"$@" >"/tmp/$_vm_name.out" 2>&1 &
	echo $! >"/tmp/$_vm_name.pid"
	vm_wait_ready "/tmp/$_vm_name.out" "${VM_READY_TIMEOUT:-60}" $! ||
		{ echo "vm_start: '$_vm_name' did not get ready" >&2; return 1; }
	vm_log "$_vm_name ready: $(grep -m1 '^ready' "/tmp/$_vm_name.out")"
}

# vm_tenant NAME MODE HOT COLD [OPTION...]: memcg /jobs/NAME made and its
# workload started in it (vm_start NAME): MODE anon (HOT and COLD MiB), file
# (the same, mmap'd from /mnt/data/NAME.dat) or readfile (HOT MiB of
# /mnt/data/NAME.dat read with read(2); COLD unused). OPTIONs go to workload
# (--node N, --cpu N, --thp, --period MS).
vm_tenant() {
	_vm_tn=$1 _vm_tmode=$2 _vm_thot=$3 _vm_tcold=$4
	shift 4
	vm_mkcg /jobs/$_vm_tn || return 1
	set -- --cgroup /sys/fs/cgroup/jobs/$_vm_tn "$@"
	case $_vm_tmode in
	anon) vm_start $_vm_tn workload anon "$@" --hot $_vm_thot --cold $_vm_tcold ;;
	file) vm_start $_vm_tn workload file "$@" --path /mnt/data/$_vm_tn.dat --hot $_vm_thot \
		--cold $_vm_tcold ;;
	readfile) vm_start $_vm_tn workload readfile "$@" --path /mnt/data/$_vm_tn.dat --mb $_vm_thot ;;
	*) echo "vm_tenant: unknown mode '$_vm_tmode'" >&2; return 1 ;;
	esac
}

# vm_stop NAME: kill a process started with vm_start and wait for it to go.
vm_stop() {
	_vm_pid=$(cat "/tmp/$1.pid" 2>/dev/null) || return 0
	kill "$_vm_pid" 2>/dev/null
	while kill -0 "$_vm_pid" 2>/dev/null; do sleep 0.1; done
	rm -f "/tmp/$1.pid"
}

# vm_lruvecs: "memcg_id node max_seq path" for every lruvec in
# /sys/kernel/debug/lru_gen, read with one big read and de-duplicated on
# (id, path, node). Offline memcgs (id 0 with a path) are skipped.
vm_lruvecs() {
	dd if=/sys/kernel/debug/lru_gen bs=4M 2>/dev/null | awk '
		function flush() {
			if (node != "" && seq != "" && !((id, path, node) in seen) &&
			    !(id == 0 && path != "")) {
				seen[id, path, node] = 1
				print id, node, seq, path
			}
			seq = ""
		}
		$1 == "memcg" { flush(); node = ""; id = $2; path = $3; next }
		$1 == "node" { flush(); node = $2; next }
		$1 ~ /^[0-9]+$/ { seq = $1 }
		END { flush() }'
}

# vm_lrugen_on: MGLRU switched on where the kernel boots with it off (Debian's
# 6.1), DAMON left as it is; dies if that fails.
vm_lrugen_on() {
	case $(uname -r) in
	6.1.*) lrugen enable --keep-damon >/tmp/enable.txt 2>&1 ||
		vm_die "lrugen enable failed: $(cat /tmp/enable.txt)" ;;
	esac
}

# vm_children_ticks: clock ticks (utime + stime) of the calling shell's
# children that have been waited for (a program's cost, with the kernel work
# done in it). vm_uptime_ms: milliseconds since boot.
vm_children_ticks() { awk '{ print $16 + $17 }' /proc/$$/stat; }
vm_uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

# vm_lrugen_age ROUNDS SECS [OPTION...]: ROUNDS agings by 'lrugen age OPTION...',
# SECS apart (a steady pace); dies on the first that fails. Its stderr is
# left in /tmp/age.err.
vm_lrugen_age() {
	_vm_rounds=$1 _vm_secs=$2
	shift 2
	_vm_round=1
	while [ $_vm_round -le "$_vm_rounds" ]; do
		[ $_vm_round -gt 1 ] && sleep "$_vm_secs"
		lrugen age "$@" >/dev/null 2>/tmp/age.err ||
			vm_die "aging round $_vm_round failed: $(cat /tmp/age.err)"
		_vm_round=$((_vm_round + 1))
	done
}

# vm_age_all [CAN_SWAP [FORCE_SCAN]]: one aging round: "+ id node max_seq
# CAN_SWAP FORCE_SCAN" (default 1 1) for every lruvec, one write(2) each.
# Returns 1 if any write failed (the failures are printed on stderr).
vm_age_all() {
	_vm_bad=0
	vm_lruvecs >/tmp/.vm-lruvecs
	while read -r _vm_id _vm_node _vm_seq _vm_path; do
		echo "+ $_vm_id $_vm_node $_vm_seq ${1:-1} ${2:-1}" >/sys/kernel/debug/lru_gen ||
			{ echo "vm_age_all: '+ $_vm_id $_vm_node $_vm_seq' failed (memcg '$_vm_path')" >&2; _vm_bad=1; }
	done </tmp/.vm-lruvecs
	rm -f /tmp/.vm-lruvecs
	return $_vm_bad
}
