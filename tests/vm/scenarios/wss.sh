# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/wss.sh - working-set accuracy, in 4 KiB pages.
#
# Memcgs with known hot and cold sets, anon and mmap'd file, on both nodes,
# aged on a steady pace (4 rounds, 3 s apart); 'lrugen wss --threshold 4500ms'
# must be within 10% of the truth for every memcg (target 5%). Prints a table:
# truth, lrugen, memory.current and cAdvisor's working set (memory.current -
# inactive_file). A file that is only read(2) (never mapped) is hot in truth;
# MGLRU files it in the oldest generations and tracks its reuse by tiers, so
# wss must report it as unmapped page cache rather than plainly cold.
#
# wss_thp.sh and wss_mthp.sh source this file and set:
#   WSS_PAGES    4k (MADV_NOHUGEPAGE), thp (PMD-sized, 2 MiB) or mthp (64 KiB
#                folios: hugepages-64kB always, hugepages-2048kB never)
#   WSS_JOBS     the tenants, a CPU each ('-': any), several per CPU
#   WSS_PHASES   'default': aged by 'lrugen age', which turns damon_stat off
#                where the kernel's aging does not see what DAMON clears;
#                'keep': aged with --keep-damon, the host as it booted: a row
#                off by more than 10% must then carry a warning (thp_unaged,
#                file_unaged) and be a bound in the right direction

VM_SWAP=512M
VM_DISK=384M
VM_TIMEOUT=240

WSS_PAGES=4k
WSS_PHASES=default
# memcg  mode      node cpu hot_MiB cold_MiB
WSS_JOBS='web      anon      1  -   40  80
db       anon      0  -   24  48
batch    file      0  -   16  48
files    file      1  -    8  32
reader   readfile  0  -   24   0'

scenario_guest() {
	cat <<EOF
WSS_JOBS='$WSS_JOBS'
WSS_PAGES=$WSS_PAGES
WSS_PHASES='$WSS_PHASES'
EOF
	cat <<'EOF'
vm_lrugen_on
thp=/sys/kernel/mm/transparent_hugepage
case $WSS_PAGES in
mthp)
	[ -d $thp/hugepages-64kB ] || vm_die "this kernel offers no mTHP ($thp/hugepages-64kB)"
	echo never >$thp/hugepages-2048kB/enabled && echo always >$thp/hugepages-64kB/enabled ||
		vm_die "cannot set up 64 KiB mTHP"
	;;
esac
vm_emit thp.enabled $thp/enabled
[ -r /sys/module/damon_stat/parameters/enabled ] &&
	vm_emit damon_stat.before /sys/module/damon_stat/parameters/enabled
echo "$WSS_JOBS" | while read -r name mode node cpu hot cold; do
	opts=
	[ "$node" != - ] && opts="$opts --node $node"
	[ "$cpu" != - ] && opts="$opts --cpu $cpu"
	[ "$WSS_PAGES" != 4k ] && opts="$opts --thp"
	[ $mode = readfile ] && opts="$opts --period 500"
	vm_tenant $name $mode $hot $cold $opts || vm_die "$name did not start"
done
for phase in $WSS_PHASES; do
	keep=
	[ $phase = keep ] && keep=--keep-damon
	vm_lrugen_age 4 3 $keep	# steady-pace aging: a generation every 3 s
	vm_emit age.$phase.err /tmp/age.err
	lrugen wss --threshold 4500ms --json >/tmp/wss.json || vm_die "wss failed"
	lrugen wss --threshold 4500ms --memcg '/jobs/*' >/tmp/wss.txt || vm_die "wss failed"
	vm_emit wss.$phase.json /tmp/wss.json
	vm_emit wss.$phase.txt /tmp/wss.txt
done
lrugen show --memcg '/jobs/*' >/tmp/show.txt
vm_emit show.txt /tmp/show.txt
vm_emit lru_gen /sys/kernel/debug/lru_gen
[ -r /sys/module/damon_stat/parameters/enabled ] &&
	vm_emit damon_stat.after /sys/module/damon_stat/parameters/enabled
echo "$WSS_JOBS" | while read -r name rest; do
	vm_emit $name.current /sys/fs/cgroup/jobs/$name/memory.current
	vm_emit $name.stat /sys/fs/cgroup/jobs/$name/memory.stat
done
EOF
}

_wss_mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
# _wss_err GOT_BYTES TRUTH_MIB: signed error in % (n/a for a zero truth)
_wss_err() { awk -v a="$1" -v t="$2" 'BEGIN { if (t) printf "%.1f", (a / 1048576 - t) * 100 / t; else print "n/a" }'; }
_wss_abs() { awk -v e="$1" 'BEGIN { print (e < 0 ? -e : e) }'; }

# _wss_check_phase PHASE: the checks and the table of one phase's wss.PHASE.json
_wss_check_phase() {
	local phase=$1 r=$VM_RESULTS json name mode node cpu hot cold sum lr_hot lr_cold cur inact
	local cadv err cerr warned table pages
	json=$r/wss.$phase.json
	vm_assert_file "wss --json emitted ($phase)" "$json" || return
	case $WSS_PAGES in
	4k) pages="4 KiB pages" ;;
	thp) pages="transparent huge pages (2 MiB, PMD)" ;;
	mthp) pages="64 KiB mTHP folios" ;;
	esac
	table=$(printf '%-8s %-8s %4s %3s | %9s %9s %6s | %9s %9s %6s | %9s %9s | %9s | %s\n' \
		MEMCG MODE NODE CPU TRUTH_HOT LRUGEN ERR% TRUTH_CLD LRUGEN ERR% CURRENT CADVISOR UNMAPPED WARNINGS)
	while read -r name mode node cpu hot cold; do
		sum=$(jq --arg p "/jobs/$name" --arg n "$node" '[.[] | select(.memcg == $p)] |
			{hot: (map(.hot_bytes) | add), cold: (map(.cold_bytes) | add),
			 unmapped: (map(.cold_unmapped_file_bytes // 0) | add),
			 onnode: (map(select(($n == "-") or (.node == ($n | tonumber))) | .hot_bytes + .cold_bytes) | add),
			 all: (map(.hot_bytes + .cold_bytes) | add),
			 warnings: (map(.warnings[]?) | unique | join(","))}' "$json")
		lr_hot=$(jq .hot <<<"$sum")
		lr_cold=$(jq .cold <<<"$sum")
		warned=$(jq -r .warnings <<<"$sum")
		cur=$(cat "$r/$name.current")
		inact=$(awk '$1 == "inactive_file" { print $2 }' "$r/$name.stat")
		cadv=$((cur - inact))
		err=$(_wss_err "$lr_hot" "$hot")
		cerr=$(_wss_err "$lr_cold" "$cold")
		if [[ $mode == readfile ]]; then
			# hot in truth, but never mapped: wss must flag it as unmapped page cache
			vm_assert_ge "$name: read(2)-only file reported as unmapped page cache (MiB)" \
				"$(_wss_mib "$(jq .unmapped <<<"$sum")")" "$(awk -v h="$hot" 'BEGIN { print h * 0.9 }')"
			err=n/a
		elif [[ $phase == keep && $VM_KERNEL == 7.3 && $WSS_PAGES == thp && $mode == anon ]]; then
			# Debian's 7.3 boots with damon_stat on and its aging misses what it clears
			vm_assert_eq "$name ($phase): huge pages under damon_stat are marked (hot $(_wss_mib "$lr_hot") MiB, truth $hot)" \
				thp_unaged "$warned"
		elif [[ -n $warned ]]; then
			# a bound, and said so (lrugen wss --help): hot at most, cold at least
			# the truth (within 10%)
			vm_assert_le "$name ($phase): warned ($warned): hot is a lower bound (got $(_wss_mib "$lr_hot") MiB, truth $hot)" \
				"$err" 10
			vm_assert_ge "$name ($phase): warned ($warned): cold is an upper bound (got $(_wss_mib "$lr_cold") MiB, truth $cold)" \
				"$cerr" -10
		else
			vm_assert_le "$name ($phase): |wss hot - truth| within 10% (got $(_wss_mib "$lr_hot") MiB, truth $hot)" \
				"$(_wss_abs "$err")" 10
			vm_assert_le "$name ($phase): |wss cold - truth| within 10% (got $(_wss_mib "$lr_cold") MiB, truth $cold)" \
				"$(_wss_abs "$cerr")" 10
		fi
		if [[ $mode != readfile && $node != - ]]; then
			vm_assert_ge "$name: memory on node $node (%)" \
				"$(jq '.onnode * 100 / .all | floor' <<<"$sum")" 95
		fi
		table+=$(printf '\n%-8s %-8s %4s %3s | %9s %9s %6s | %9s %9s %6s | %9s %9s | %9s | %s' \
			"$name" "$mode" "$node" "$cpu" "$hot" "$(_wss_mib "$lr_hot")" "$err" "$cold" \
			"$(_wss_mib "$lr_cold")" "$cerr" "$(_wss_mib "$cur")" "$(_wss_mib "$cadv")" \
			"$(_wss_mib "$(jq .unmapped <<<"$sum")")" "${warned:--}")
	done <<<"$WSS_JOBS"
	echo "  working set at 4.5 s, MiB, $pages, aged $([[ $phase == keep ]] &&
		echo "with DAMON as booted" || echo "by lrugen age") (kernel $VM_RELEASE):"
	sed 's/^/    /' <<<"$table"
	echo "$table" >"$r/../table.$phase.txt"
	vm_assert_grep "wss text flags unmapped page cache" 'UNMAPPED' "$r/wss.$phase.txt"
}

scenario_check() {
	local phase
	for phase in $WSS_PHASES; do
		_wss_check_phase "$phase"
	done
	# lrugen age leaves damon_stat off where it hides accesses from the aging
	if [[ -f $VM_RESULTS/damon_stat.after && " $WSS_PHASES " == *" default "* ]]; then
		if [[ $VM_KERNEL == patched ]]; then
			vm_assert_eq "the patched kernel sees what DAMON clears: damon_stat left on" Y \
				"$(cat "$VM_RESULTS/damon_stat.after")"
		else
			vm_assert_eq "lrugen age turned damon_stat off" N "$(cat "$VM_RESULTS/damon_stat.after")"
		fi
	fi
}
