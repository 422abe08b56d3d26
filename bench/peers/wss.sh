# shellcheck shell=bash disable=SC2034,SC2016 # VM_* are read by lib.sh; jq/awk code in single quotes
# kernels: 6.12 7.3 patched
# bench/peers/wss.sh - the working set of tenants with known hot and cold sets,
# as lrugen and the tools an operator would pick instead measure it, on one
# real kernel under QEMU (a tests/vm scenario: make bench-peers runs it on
# each kernel; not part of make check).
#
# Tenants (tests/vm/scenarios/wss.sh's): anon and mmap'd file, both nodes, one
# reading a file with read(2) only (hot in truth, never mapped). Hot sets are
# written (anon) or read (file) every 100 ms; cold sets once, at start. Each
# estimator in turn, on the same running tenants, at T = 4.5 s:
#
#   cadvisor     memory.current - inactive_file (Kubernetes' working set)
#   lrugen       4 rounds of 'lrugen age' 3 s apart, then 'lrugen wss
#                --threshold 4500ms' (hot: generations younger than T)
#   damon        DAMON vaddr per tenant process (one kdamond each, through
#                /sys/kernel/mm/damon/admin as damo does), damo's defaults:
#                sampling 5 ms, aggregation 100 ms, 10..1000 regions; after
#                PEERS_DAMON_S seconds a DAMOS 'stat' scheme's tried regions:
#                hot = regions accessed in the last aggregation or idle for
#                less than T (age x aggregation < T)
#   (a tuned setting, sampling 1 ms and 100..10000 regions, gave 0 for four
#   tenants under TCG in a first run: not measured until that is understood)
#   damon_stat   (7.3, on at boot) its figures, system-wide: read first, then
#                switched off (DAMON contexts are exclusive: kdamonds through
#                sysfs answer EBUSY while it runs)
#
# CPU: lrugen's (its processes, and the kernel's aging done in them: their
# children's utime + stime) and each kdamond thread's, in clock ticks. Idle
# page tracking is not built in Debian's kernels (CONFIG_IDLE_PAGE_TRACKING):
# a row says so where /sys/kernel/mm/page_idle is missing.

VM_SWAP=512M
VM_DISK=384M
VM_TIMEOUT=420

PEERS_DAMON_S=${PEERS_DAMON_S:-30}
# memcg  mode      node hot_MiB cold_MiB
PEERS_JOBS='web      anon      1   40  80
db       anon      0   24  48
batch    file      0   16  48
files    file      1    8  32
reader   readfile  0   24   0'

scenario_guest() {
	cat <<EOF
PEERS_JOBS='$PEERS_JOBS'
PEERS_DAMON_S=$PEERS_DAMON_S
EOF
	cat <<'EOF'
case $(uname -r) in
6.1.*) lrugen enable --keep-damon >/tmp/enable.txt 2>&1 ||
	vm_die "lrugen enable failed: $(cat /tmp/enable.txt)" ;;
esac
T_US=4500000
echo "$PEERS_JOBS" | while read -r name mode node hot cold; do
	vm_tenant $name $mode $hot $cold --node $node --period 100 || vm_die "$name did not start"
done
# the cold sets idle longer than T before anyone measures
sleep 6
children_ticks() { awk '{ print $16 + $17 }' /proc/$$/stat; }

# damon_stat (7.3): its figures, then off
ds=/sys/module/damon_stat/parameters
if [ -r $ds/enabled ]; then
	for f in $ds/*; do echo "$(basename $f) $(cat $f)"; done >/tmp/damon_stat.txt
	echo N >$ds/enabled || vm_die "cannot switch damon_stat off"
	vm_emit damon_stat.txt /tmp/damon_stat.txt
fi
[ -d /sys/kernel/mm/page_idle ] && echo yes >/tmp/page_idle || echo no >/tmp/page_idle
vm_emit page_idle /tmp/page_idle

# cAdvisor
echo "$PEERS_JOBS" | while read -r name rest; do
	cg=/sys/fs/cgroup/jobs/$name
	echo "$name $(cat $cg/memory.current) $(awk '$1 == "inactive_file" { print $2 }' $cg/memory.stat)"
done >/tmp/cadvisor.txt
vm_emit cadvisor.txt /tmp/cadvisor.txt

# lrugen
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
c0=$(children_ticks)
s0=$(uptime_ms)
vm_lrugen_age 4 3
lrugen wss --threshold 4500ms --memcg '/jobs/*' --json >/tmp/lrugen.json || vm_die "lrugen wss failed"
echo "ticks $(($(children_ticks) - c0)) wall_ms $(($(uptime_ms) - s0))" >/tmp/lrugen.cpu
vm_emit lrugen.json /tmp/lrugen.json
vm_emit lrugen.cpu /tmp/lrugen.cpu

# DAMON vaddr, one kdamond per tenant: damon SETTING SAMPLE_US AGGR_US MIN MAX
D=/sys/kernel/mm/damon/admin/kdamonds
damon() {
	cfg=$1 sample=$2 aggr=$3 rmin=$4 rmax=$5
	[ -d $D ] || { echo "no DAMON sysfs ($D)" >/tmp/damon.$cfg.txt; vm_emit damon.$cfg.txt /tmp/damon.$cfg.txt; return; }
	n=$(echo "$PEERS_JOBS" | wc -l)
	echo $n >$D/nr_kdamonds || vm_die "DAMON: nr_kdamonds $n refused"
	i=0
	echo "$PEERS_JOBS" | while read -r name rest; do
		k=$D/$i c=$D/$i/contexts/0
		echo 1 >$D/$i/contexts/nr_contexts
		echo vaddr >$c/operations
		echo $sample >$c/monitoring_attrs/intervals/sample_us
		echo $aggr >$c/monitoring_attrs/intervals/aggr_us
		echo 1000000 >$c/monitoring_attrs/intervals/update_us
		echo $rmin >$c/monitoring_attrs/nr_regions/min
		echo $rmax >$c/monitoring_attrs/nr_regions/max
		echo 1 >$c/targets/nr_targets
		cat /tmp/$name.pid >$c/targets/0/pid_target
		echo 1 >$c/schemes/nr_schemes
		s=$c/schemes/0
		echo stat >$s/action
		echo 0 >$s/access_pattern/sz/min
		echo 18446744073709551615 >$s/access_pattern/sz/max
		for a in nr_accesses age; do
			echo 0 >$s/access_pattern/$a/min
			echo 4294967295 >$s/access_pattern/$a/max
		done
		echo on >$k/state 2>/tmp/damon.err || vm_die "DAMON: kdamond $i did not start: $(cat /tmp/damon.err)"
		i=$((i + 1))
	done
	sleep "$PEERS_DAMON_S"
	i=0
	echo "$PEERS_JOBS" | while read -r name rest; do
		k=$D/$i tr=$D/$i/contexts/0/schemes/0/tried_regions
		ticks=$(awk '{ print $14 + $15 }' /proc/$(cat $k/pid)/stat)
		echo update_schemes_tried_regions >$k/state || vm_die "DAMON: tried regions of kdamond $i"
		hot=0 all=0 nr=0
		for r in $tr/[0-9]*; do
			[ -d "$r" ] || continue
			sz=$(($(cat $r/end) - $(cat $r/start)))
			acc=$(cat $r/nr_accesses) age=$(cat $r/age)
			all=$((all + sz)) nr=$((nr + 1))
			if [ "$acc" -gt 0 ] || [ $((age * aggr)) -lt $T_US ]; then hot=$((hot + sz)); fi
		done
		echo "$name hot $hot all $all regions $nr ticks $ticks seconds $PEERS_DAMON_S"
		i=$((i + 1))
	done >/tmp/damon.$cfg.txt
	for k in $D/[0-9]*; do echo off >$k/state; done
	echo 0 >$D/nr_kdamonds
	vm_emit damon.$cfg.txt /tmp/damon.$cfg.txt
}
damon default 5000 100000 10 1000
echo "$PEERS_JOBS" | while read -r name rest; do
	vm_emit $name.stat /sys/fs/cgroup/jobs/$name/memory.stat
done
EOF
}

# _peers_mib BYTES / _peers_err GOT_BYTES TRUTH_MIB: MiB, and the signed error in %
_peers_mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
_peers_err() { awk -v a="$1" -v t="$2" 'BEGIN { if (t) printf "%+.1f", (a / 1048576 - t) * 100 / t; else print "n/a" }'; }

scenario_check() {
	local r=$VM_RESULTS name mode node hot cold lr cad d1 cur inact table json rows=()
	vm_assert_file "lrugen's answer" "$r/lrugen.json" || return
	vm_assert_file "cAdvisor's figures" "$r/cadvisor.txt" || return
	vm_assert_file "DAMON (damo's defaults)" "$r/damon.default.txt" || return
	table=$(printf '%-7s %-8s %5s | %7s %7s | %7s %7s | %7s %7s\n' MEMCG MODE TRUTH \
		LRUGEN ERR% DAMON ERR% CADVSR ERR%)
	while read -r name mode node hot cold; do
		lr=$(jq --arg p "/jobs/$name" '[.[] | select(.memcg == $p) | .hot_bytes] | add // 0' "$r/lrugen.json")
		read -r _ cur inact < <(awk -v n="$name" '$1 == n' "$r/cadvisor.txt")
		cad=$((cur - inact))
		d1=$(awk -v n="$name" '$1 == n && $2 == "hot" { print $3 }' "$r/damon.default.txt")
		vm_assert_eq "$name: every estimator answered" yes \
			"$([[ -n $lr && -n $d1 && -n $cur ]] && echo yes || echo no)"
		table+=$(printf '\n%-7s %-8s %5s | %7s %7s | %7s %7s | %7s %7s' "$name" "$mode" "$hot" \
			"$(_peers_mib "$lr")" "$(_peers_err "$lr" "$hot")" "$(_peers_mib "${d1:-0}")" \
			"$(_peers_err "${d1:-0}" "$hot")" "$(_peers_mib "$cad")" "$(_peers_err "$cad" "$hot")")
		rows+=("$(jq -nc --arg m "/jobs/$name" --arg mode "$mode" --argjson truth $((hot * 1048576)) \
			--argjson lrugen "${lr:-0}" --argjson damon "${d1:-0}" \
			--argjson cadvisor "$cad" '{memcg: $m, mode: $mode, truth_hot_bytes: $truth,
			lrugen: $lrugen, damon: $damon, cadvisor: $cadvisor}')")
	done <<<"$PEERS_JOBS"
	echo "  hot set (working set at 4.5 s), MiB, kernel $VM_RELEASE:"
	sed 's/^/    /' <<<"$table"
	local lt lw dt1
	read -r _ lt _ lw <"$r/lrugen.cpu"
	dt1=$(awk '{ s += $9 } END { print s + 0 }' "$r/damon.default.txt")
	echo "  CPU (clock ticks of 10 ms): lrugen $lt over ${lw} ms (4 agings, 1 read);" \
		"DAMON $dt1 over ${PEERS_DAMON_S} s (kdamond threads, all tenants)"
	[[ -f $r/damon_stat.txt ]] && sed 's/^/  damon_stat: /' "$r/damon_stat.txt"
	echo "  idle page tracking: $([[ $(cat "$r/page_idle" 2>/dev/null) == yes ]] && echo built ||
		echo "not built (CONFIG_IDLE_PAGE_TRACKING)")"
	json=$(printf '%s\n' "${rows[@]}" | jq -sc --arg k "$VM_KERNEL" --arg rel "$VM_RELEASE" \
		--argjson lt "${lt:-0}" --argjson lw "${lw:-0}" --argjson dt1 "$dt1" \
		--argjson ds "$PEERS_DAMON_S" --arg stat "$(cat "$r/damon_stat.txt" 2>/dev/null)" \
		'{kernel: $k, release: $rel, tenants: ., cpu_ticks: {lrugen: $lt, lrugen_wall_ms: $lw,
		  damon: $dt1, damon_seconds: $ds}, damon_stat: $stat}')
	echo "$json" >"$r/../peers.json"
	printf '%s\n' "$table" >"$r/../peers.txt"
}
