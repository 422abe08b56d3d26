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
#   damon_tuned  the same with a finer setting: sampling 1 ms, 100..10000
#                regions (the first 300 tried regions of each setting and
#                tenant are kept in results/PAGES.damon.regions)
#   damon_paddr  DAMON paddr over all System RAM, one DAMOS 'stat' scheme per
#                tenant with a memcg filter; the hot regions' bytes that passed
#                the filter (sz_filter_passed: 6.14 and later; before, the row
#                says the kernel cannot answer)
#   damon_stat   (7.3, on at boot) its figures, system-wide: read first, then
#                switched off (DAMON contexts are exclusive: kdamonds through
#                sysfs answer EBUSY while it runs)
#   page_idle    idle page tracking (the patched kernel builds it; Debian's
#                do not): every LRU page of each memcg (/proc/kpagecgroup)
#                marked idle in /sys/kernel/mm/page_idle/bitmap, read back T
#                later (tests/vm/pageidle.c, wss-v2's method per memcg)
#
# Each estimator runs twice: on tenants in 4 KiB pages, then on new ones in
# transparent huge pages (PEERS_PAGES, default "4k thp"; the page cache of the
# first is dropped in between).
#
# CPU: lrugen's (its processes, and the kernel's aging done in them: their
# children's utime + stime), pageidle's likewise, and each kdamond thread's,
# in clock ticks. Memory: lrugen's and pageidle's peak resident set
# (tests/vm/rusage.c); DAMON's regions times this kernel's struct
# damon_region (/sys/kernel/slab/damon_region/object_size).

VM_SWAP=512M
VM_DISK=384M
VM_TIMEOUT=900

PEERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PEERS_DAMON_S=${PEERS_DAMON_S:-30}
PEERS_PAGES=${PEERS_PAGES:-4k thp}
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
PEERS_PAGES='$PEERS_PAGES'
EOF
	cat "$PEERS_DIR/damon-guest.sh"
	cat <<'EOF'
vm_lrugen_on
T_US=4500000
[ -d /sys/kernel/mm/page_idle ] && echo yes >/tmp/page_idle || echo no >/tmp/page_idle
# DAMON's memory: its regions (struct damon_region, this kernel's size)
[ -r /sys/kernel/slab/damon_region/object_size ] &&
	vm_emit damon_region.size /sys/kernel/slab/damon_region/object_size
vm_emit page_idle /tmp/page_idle

D=/sys/kernel/mm/damon/admin/kdamonds
# damon_tried TRIED_DIR AGGR_US SIZE NAME: "hot BYTES all BYTES regions N" of a
# scheme's tried regions (hot: accessed in the last aggregation, or idle for
# less than T), SIZE 'range' (end - start) or 'passed' (sz_filter_passed);
# "unsupported" if the kernel has no sz_filter_passed. The first 300 regions
# go to /tmp/$P.damon.regions: CFG NAME start end nr_accesses age.
damon_tried() {
	_hot=0 _all=0 _nr=0
	for r in $1/[0-9]*; do
		[ -d "$r" ] || continue
		if [ $3 = passed ]; then
			[ -r $r/sz_filter_passed ] || { echo unsupported; return; }
			set -- "$1" "$2" "$3" "$4" $(cat $r/start $r/end $r/nr_accesses $r/age $r/sz_filter_passed)
			_sz=$9
		else
			set -- "$1" "$2" "$3" "$4" $(cat $r/start $r/end $r/nr_accesses $r/age)
			_sz=$(($6 - $5))
		fi
		_all=$((_all + _sz)) _nr=$((_nr + 1))
		if [ "$7" -gt 0 ] || [ $(($8 * $2)) -lt $T_US ]; then _hot=$((_hot + _sz)); fi
		[ $_nr -le 300 ] && echo "$cfg $4 $5 $6 $7 $8" >>/tmp/$P.damon.regions
	done
	echo "hot $_hot all $_all regions $_nr"
}
# damon_update KDAMOND TRIED_DIR: the tried regions updated; sets tries. Under
# TCG a kdamond sometimes reports none after the write returned: asked again,
# a second apart, up to 5 times (the count is in the result line)
damon_update() {
	tries=0
	while [ $tries -lt 5 ]; do
		tries=$((tries + 1))
		echo update_schemes_tried_regions >$1/state || vm_die "DAMON: tried regions of $1"
		[ -d $2/0 ] && return
		sleep 1
	done
}
# damon_done CFG FILE: every kdamond off, FILE emitted as $P.CFG.txt
damon_done() {
	for k in $D/[0-9]*; do echo off >$k/state; done
	echo 0 >$D/nr_kdamonds
	vm_emit $P.$1.txt $2
}

# DAMON vaddr, one kdamond per tenant: damon SETTING SAMPLE_US AGGR_US MIN MAX
damon() {
	cfg=damon_$1 aggr=$3 out=/tmp/$P.damon_$1.txt
	[ -d $D ] || { echo "no DAMON sysfs ($D)" >$out; vm_emit $P.$cfg.txt $out; return; }
	n=$(echo "$PEERS_JOBS" | wc -l)
	echo $n >$D/nr_kdamonds || vm_die "DAMON: nr_kdamonds $n refused"
	i=0
	echo "$PEERS_JOBS" | while read -r name rest; do
		k=$D/$i c=$D/$i/contexts/0
		echo 1 >$k/contexts/nr_contexts
		damon_ctx $c vaddr $2 $3 $4 $5
		cat /tmp/$name.pid >$c/targets/0/pid_target
		echo 1 >$c/schemes/nr_schemes
		damon_scheme $c/schemes/0 stat 4294967295 0
		echo on >$k/state 2>/tmp/damon.err || vm_die "DAMON: kdamond $i did not start: $(cat /tmp/damon.err)"
		i=$((i + 1))
	done
	sleep "$PEERS_DAMON_S"
	i=0
	echo "$PEERS_JOBS" | while read -r name rest; do
		k=$D/$i
		ticks=$(awk '{ print $14 + $15 }' /proc/$(cat $k/pid)/stat)
		damon_update $k $k/contexts/0/schemes/0/tried_regions
		echo "$name $(damon_tried $k/contexts/0/schemes/0/tried_regions $aggr range $name)" \
			"ticks $ticks seconds $PEERS_DAMON_S kdamond $i tries $tries"
		i=$((i + 1))
	done >$out
	damon_done $cfg $out
}

# DAMON paddr, filtered to each memcg: one kdamond over all System RAM
# (/proc/iomem's span, as DAMON's own modules take it), one DAMOS 'stat'
# scheme per tenant with a memcg filter (allow), applied every second; a
# region's bytes that passed the filter (sz_filter_passed, 6.14 and later)
# count for that tenant.
damon_paddr() {
	cfg=damon_paddr_$1 aggr=$3 out=/tmp/$P.damon_paddr_$1.txt
	[ -d $D ] || { echo "no DAMON sysfs ($D)" >$out; vm_emit $P.$cfg.txt $out; return; }
	lo= hi=
	for r in $(sed -n 's/^ *\([0-9a-f]*\)-\([0-9a-f]*\) : System RAM$/\1-\2/p' /proc/iomem); do
		a=$((0x${r%-*})) b=$((0x${r#*-} + 1))
		{ [ -z "$lo" ] || [ $a -lt $lo ]; } && lo=$a
		{ [ -z "$hi" ] || [ $b -gt $hi ]; } && hi=$b
	done
	[ -n "$hi" ] || vm_die "DAMON paddr: no System RAM in /proc/iomem"
	echo 1 >$D/nr_kdamonds
	k=$D/0 c=$D/0/contexts/0
	echo 1 >$k/contexts/nr_contexts
	damon_ctx $c paddr $2 $3 $4 $5
	echo 1 >$c/targets/0/regions/nr_regions
	echo $lo >$c/targets/0/regions/0/start
	echo $hi >$c/targets/0/regions/0/end
	echo "$PEERS_JOBS" | wc -l >$c/schemes/nr_schemes
	i=0
	echo "$PEERS_JOBS" | while read -r name rest; do
		s=$c/schemes/$i
		damon_scheme $s stat 4294967295 0
		[ -w $s/apply_interval_us ] && echo 1000000 >$s/apply_interval_us
		echo 1 >$s/filters/nr_filters
		echo memcg >$s/filters/0/type
		echo /jobs/$name >$s/filters/0/memcg_path
		echo Y >$s/filters/0/matching
		[ -w $s/filters/0/allow ] && echo Y >$s/filters/0/allow
		i=$((i + 1))
	done
	echo on >$k/state 2>/tmp/damon.err || vm_die "DAMON paddr did not start: $(cat /tmp/damon.err)"
	sleep "$PEERS_DAMON_S"
	ticks=$(awk '{ print $14 + $15 }' /proc/$(cat $k/pid)/stat)
	damon_update $k $c/schemes/0/tried_regions
	i=0
	echo "$PEERS_JOBS" | while read -r name rest; do
		t=$(damon_tried $c/schemes/$i/tried_regions $aggr passed $name)
		case $t in
		unsupported) echo "$name unsupported (no sz_filter_passed before 6.14)" ;;
		*) echo "$name $t ticks $ticks seconds $PEERS_DAMON_S kdamond 0 tries $tries" ;;
		esac
		i=$((i + 1))
	done >$out
	damon_done $cfg $out
}

# round PAGES: the tenants started (PAGES 4k: MADV_NOHUGEPAGE, thp: 2 MiB
# transparent huge pages), every estimator in turn, the tenants stopped and
# their page cache dropped; results named PAGES.*
round() {
	P=$1 opts=
	[ $P = thp ] && opts=--thp
	echo "$PEERS_JOBS" | while read -r name mode node hot cold; do
		vm_tenant $name $mode $hot $cold --node $node --period 100 $opts || vm_die "$name did not start"
	done
	# the cold sets idle longer than T before anyone measures
	sleep 6

	# damon_stat (7.3, on at boot): its figures, then off
	ds=/sys/module/damon_stat/parameters
	if [ -r $ds/enabled ] && [ "$(cat $ds/enabled)" = Y ]; then
		for f in $ds/*; do echo "$(basename $f) $(cat $f)"; done >/tmp/damon_stat.txt
		echo N >$ds/enabled || vm_die "cannot switch damon_stat off"
		vm_emit $P.damon_stat.txt /tmp/damon_stat.txt
	fi

	# cAdvisor
	echo "$PEERS_JOBS" | while read -r name rest; do
		cg=/sys/fs/cgroup/jobs/$name
		echo "$name $(cat $cg/memory.current) $(awk '$1 == "inactive_file" { print $2 }' $cg/memory.stat)"
	done >/tmp/$P.cadvisor.txt
	vm_emit $P.cadvisor.txt /tmp/$P.cadvisor.txt

	# lrugen
	c0=$(vm_children_ticks)
	s0=$(vm_uptime_ms)
	# (vm_lrugen_age's steady pace, each program under rusage for its memory)
	for i in 1 2 3 4; do
		[ $i -gt 1 ] && sleep 3
		rusage /tmp/$P.lrugen.mem lrugen age >/dev/null 2>/tmp/age.err || vm_die "aging failed: $(cat /tmp/age.err)"
	done
	rusage /tmp/$P.lrugen.mem lrugen wss --threshold 4500ms --memcg '/jobs/*' --json >/tmp/$P.lrugen.json ||
		vm_die "lrugen wss failed"
	vm_emit $P.lrugen.mem /tmp/$P.lrugen.mem
	echo "ticks $(($(vm_children_ticks) - c0)) wall_ms $(($(vm_uptime_ms) - s0))" >/tmp/$P.lrugen.cpu
	vm_emit $P.lrugen.json /tmp/$P.lrugen.json
	vm_emit $P.lrugen.cpu /tmp/$P.lrugen.cpu

	# idle page tracking (where built): every LRU page of each memcg marked
	# idle, read back T later (no aging meanwhile: it clears accessed bits too)
	if [ -w /sys/kernel/mm/page_idle/bitmap ]; then
		c0=$(vm_children_ticks)
		rusage /tmp/$P.page_idle.mem pageidle --wait $((T_US / 1000)) $(echo "$PEERS_JOBS" | while read -r name rest; do
			echo /sys/fs/cgroup/jobs/$name; done) >/tmp/pageidle.out 2>&1 ||
			vm_die "pageidle failed: $(cat /tmp/pageidle.out)"
		sed 's|^/sys/fs/cgroup/jobs/||' /tmp/pageidle.out >/tmp/$P.page_idle.txt
		echo "ticks $(($(vm_children_ticks) - c0))" >>/tmp/$P.page_idle.txt
		vm_emit $P.page_idle.txt /tmp/$P.page_idle.txt
		vm_emit $P.page_idle.mem /tmp/$P.page_idle.mem
	fi

	damon default 5000 100000 10 1000
	damon tuned 1000 100000 100 10000
	damon_paddr default 5000 100000 10 1000
	[ -f /tmp/$P.damon.regions ] && vm_emit $P.damon.regions /tmp/$P.damon.regions
	echo "$PEERS_JOBS" | while read -r name rest; do
		vm_emit $P.$name.stat /sys/fs/cgroup/jobs/$name/memory.stat
		vm_stop $name
	done
	sync
	echo 3 >/proc/sys/vm/drop_caches
}
for pages in $PEERS_PAGES; do round $pages; done
EOF
}

# _peers_damon FILE NAME: a DAMON result's hot bytes for tenant NAME, "null"
# where the kernel cannot answer (paddr without sz_filter_passed), "" if missing
_peers_damon() {
	awk -v n="$2" '$1 == n && $2 == "hot" { print $3 } $1 == n && $2 == "unsupported" { print "null" }' "$1"
}
# _peers_ticks FILE: the kdamond threads' clock ticks of a DAMON result, null
# if it has none (every line of a vaddr run is its own kdamond; paddr's one
# kdamond is on each line)
_peers_ticks() {
	awk '$2 == "hot" { t[$13] = $9; n++ } END { for (k in t) s += t[k]; print n ? s : "null" }' "$1"
}

# _peers_mem FILE: the largest maxrss_kb of rusage's lines, null without any
_peers_mem() { awk '$1 == "maxrss_kb" { if ($2 > m) m = $2; n++ } END { print n ? m : "null" }' "$1" 2>/dev/null ||
	echo null; }
# _peers_regions FILE sum|max: a DAMON result's regions (vaddr: one kdamond
# per line, summed; paddr: one kdamond, the same count on each line)
_peers_regions() {
	awk -v how="$2" '$2 == "hot" { n++; s += $7; if ($7 > m) m = $7 }
		END { print n ? (how == "sum" ? s : m) : "null" }' "$1"
}

# _peers_round PAGES: one round's figures as JSON in results/PAGES.round.json
# (asserting every estimator answered)
_peers_round() {
	local P=$1 r=$VM_RESULTS name mode node hot cold lr lw cur inact cad v ok rows=() lt lwall
	local -A d
	local cfgs=(damon_default damon_tuned damon_paddr_default) pi=null pit=null
	vm_assert_file "$P: lrugen's answer" "$r/$P.lrugen.json" || return 1
	vm_assert_file "$P: cAdvisor's figures" "$r/$P.cadvisor.txt" || return 1
	for v in "${cfgs[@]}"; do vm_assert_file "$P: $v" "$r/$P.$v.txt" || return 1; done
	while read -r name mode node hot cold; do
		lr=$(jq --arg p "/jobs/$name" '[.[] | select(.memcg == $p) | .hot_bytes] | add // 0' "$r/$P.lrugen.json")
		lw=$(jq -c --arg p "/jobs/$name" '[.[] | select(.memcg == $p) | .warnings // [] | .[]] | unique' \
			"$r/$P.lrugen.json")
		read -r _ cur inact < <(awk -v n="$name" '$1 == n' "$r/$P.cadvisor.txt")
		cad=$((cur - inact)) ok=yes
		[[ -n $lr && -n $cur ]] || ok=no
		for v in "${cfgs[@]}"; do
			d[$v]=$(_peers_damon "$r/$P.$v.txt" "$name")
			[[ -n ${d[$v]} ]] || ok=no
		done
		vm_assert_eq "$P: $name: every estimator answered (or said why not)" yes $ok
		if [[ -f $r/page_idle && $(cat "$r/page_idle") == yes ]]; then
			pi=$(_peers_damon "$r/$P.page_idle.txt" "$name")
			vm_assert_eq "$P: $name: idle page tracking answered" yes "$([[ -n $pi ]] && echo yes || echo no)"
		fi
		rows+=("$(jq -nc --arg m "/jobs/$name" --arg mode "$mode" --argjson truth $((hot * 1048576)) \
			--argjson lrugen "${lr:-0}" --argjson damon "${d[damon_default]:-null}" \
			--argjson tuned "${d[damon_tuned]:-null}" --argjson paddr "${d[damon_paddr_default]:-null}" \
			--argjson pi "${pi:-null}" --argjson cadvisor "$cad" --argjson lw "${lw:-[]}" '{memcg: $m,
			mode: $mode, truth_hot_bytes: $truth, lrugen: $lrugen, lrugen_warnings: $lw,
			damon: $damon, damon_tuned: $tuned,
			damon_paddr: $paddr, page_idle: $pi, cadvisor: $cadvisor}')")
	done <<<"$PEERS_JOBS"
	read -r _ lt _ lwall <"$r/$P.lrugen.cpu"
	[[ -f $r/$P.page_idle.txt ]] && pit=$(awk '$1 == "ticks" { print $2 }' "$r/$P.page_idle.txt")
	printf '%s\n' "${rows[@]}" | jq -sc --arg p "$P" --argjson lt "${lt:-0}" --argjson lw "${lwall:-0}" \
		--argjson ml "$(_peers_mem "$r/$P.lrugen.mem")" --argjson mp "$(_peers_mem "$r/$P.page_idle.mem")" \
		--argjson rd "$(_peers_regions "$r/$P.damon_default.txt" sum)" \
		--argjson rt "$(_peers_regions "$r/$P.damon_tuned.txt" sum)" \
		--argjson rp "$(_peers_regions "$r/$P.damon_paddr_default.txt" max)" \
		--argjson rsz "$(cat "$r/damon_region.size" 2>/dev/null || echo null)" \
		--argjson ds "$PEERS_DAMON_S" --argjson dt "$(_peers_ticks "$r/$P.damon_default.txt")" \
		--argjson dtt "$(_peers_ticks "$r/$P.damon_tuned.txt")" \
		--argjson dtp "$(_peers_ticks "$r/$P.damon_paddr_default.txt")" --argjson pit "${pit:-null}" \
		'{pages: $p, tenants: ., cpu_ticks: {lrugen: $lt, lrugen_wall_ms: $lw, damon: $dt,
		  damon_tuned: $dtt, damon_paddr: $dtp, damon_seconds: $ds, page_idle: $pit},
		  memory: {lrugen_maxrss_kb: $ml, page_idle_maxrss_kb: $mp, damon_region_bytes: $rsz,
		  damon_regions: {damon: $rd, damon_tuned: $rt, damon_paddr: $rp}}}' >"$r/$P.round.json"
}

scenario_check() {
	local r=$VM_RESULTS P rounds=()
	for P in $PEERS_PAGES; do
		_peers_round "$P" || return
		rounds+=("$r/$P.round.json")
	done
	jq -sc --arg k "$VM_KERNEL" --arg rel "$VM_RELEASE" \
		--arg stat "$(cat "$r"/*.damon_stat.txt 2>/dev/null)" \
		--argjson idle "$([[ $(cat "$r/page_idle" 2>/dev/null) == yes ]] && echo true || echo false)" \
		'{kernel: $k, release: $rel,
		  estimators: [{key: "lrugen", label: "lrugen"}, {key: "damon", label: "DAMON"},
			{key: "damon_tuned", label: "DAMON-tuned"}, {key: "damon_paddr", label: "DAMON-paddr"},
			{key: "page_idle", label: "idle-pages"}, {key: "cadvisor", label: "cAdvisor"}],
		  rounds: ., damon_stat: $stat, page_idle: $idle}' "${rounds[@]}" >"$r/../peers.json"
}
