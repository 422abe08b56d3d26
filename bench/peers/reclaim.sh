# shellcheck shell=bash disable=SC2034,SC2016 # VM_* are read by lib.sh; jq/awk code in single quotes
# kernels: 6.12 7.3 patched
# bench/peers/reclaim.sh - proactive reclaim side by side: how each way an
# operator could take a tenant's cold memory does it, on one real kernel under
# QEMU (a tests/vm scenario: make bench-peers runs it on each kernel; not part
# of make check).
#
# Each method gets a new tenant (/jobs/METHOD: anon, 32 MiB hot written every
# 100 ms, 96 MiB cold written once, node 0, 4 KiB pages) with zram swap, waits
# until the cold set is 6 s idle, then has PEERS_RECLAIM_S seconds (45):
#
#   lrugen_evict    'lrugen age' 3 times 3 s apart, then 'lrugen evict
#                   --older-than 4500ms --swappiness 200' (anon first)
#   lrugend         lrugend --interval 3s with reclaim = true on the tenant,
#                   reclaim-older-than 4500ms, reclaim-floor 0,
#                   reclaim-max-bytes 256M (its defaults otherwise: PSI pause
#                   at 10%, the kernel's vm.swappiness)
#   damon_reclaim   the DAMON_RECLAIM module: min_age 4.5 s, its quotas, the
#                   watermarks opened (high 1000, mid 999, low 0: free memory is
#                   never low in this guest, and by default it would wait)
#   damos_pageout   DAMON vaddr on the tenant (damo's defaults) with a DAMOS
#                   'pageout' scheme: regions not accessed for 4.5 s
#   senpai          a Senpai-style loop (oomd's defaults: every 6 s, reclaim
#                   1% of memory.current through memory.reclaim while the
#                   memcg's memory pressure stayed under 10 ms an interval)
#   memory_reclaim  one write of the cold set's size to memory.reclaim with
#                   swappiness=200 (the kernel picks the pages; 6.13 and later
#                   take swappiness=; told the size, which no one knows)
#
# Printed per method: cold freed (the tenant's anon bytes that left memory,
# MiB and % of the cold set), hot refaulted (workingset_refault_anon, MiB),
# time until 90% of the cold set was gone, CPU (clock ticks: the method's
# processes and the kernel work done in them; kdamond threads for DAMON),
# the memcg's memory pressure (some, total ms over the window, and avg10 at
# its end).

VM_SWAP=768M
VM_TIMEOUT=900

PEERS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PEERS_RECLAIM_S=${PEERS_RECLAIM_S:-45}
PEERS_RECLAIM='lrugen_evict lrugend damon_reclaim damos_pageout senpai memory_reclaim'
RECLAIM_HOT=32
RECLAIM_COLD=96

scenario_guest() {
	cat <<EOF
PEERS_RECLAIM_S=$PEERS_RECLAIM_S
PEERS_RECLAIM='$PEERS_RECLAIM'
HOT=$RECLAIM_HOT COLD=$RECLAIM_COLD
EOF
	cat "$PEERS_DIR/damon-guest.sh"
	cat <<'EOF'
vm_lrugen_on
T_US=4500000
ds=/sys/module/damon_stat/parameters
[ -w $ds/enabled ] && echo N >$ds/enabled
kticks() { awk '{ print $14 + $15 }' /proc/$1/stat 2>/dev/null || echo 0; }
D=/sys/kernel/mm/damon/admin/kdamonds
DR=/sys/module/damon_reclaim/parameters

# poll CG OUT: every 0.5 s "ms anon_bytes refault_anon some_total_us" until /tmp/stop
poll() {
	while [ ! -e /tmp/stop ]; do
		echo "$(vm_uptime_ms) $(awk '$1 == "anon" { a = $2 } $1 == "workingset_refault_anon" { r = $2 }
			END { print a + 0, r + 0 }' $1/memory.stat) $(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' $1/memory.pressure)"
		sleep 0.5
	done >$2
}

# the methods: m_NAME CG, run in the background; a note for the table (or
# "kdamond PID", whose ticks are added) to /tmp/NAME.note, a tool's output
# to /tmp/NAME.log
m_lrugen_evict() {
	vm_lrugen_age 3 3
	lrugen evict --memcg /jobs/lrugen_evict --older-than 4500ms --swappiness 200 >/tmp/lrugen_evict.log 2>&1
	exit 0
}
m_lrugend() {
	exec lrugend --interval 3s --no-jitter --spool /tmp/spool.reclaim --store http://127.0.0.1:9 \
		--reclaim --reclaim-include /jobs/lrugend --reclaim-older-than 4500ms --reclaim-floor 0 \
		--reclaim-max-bytes 256M >/tmp/lrugend.out 2>/tmp/lrugend.log
}
m_damon_reclaim() {
	[ -d $DR ] || { echo "no DAMON_RECLAIM in this kernel" >/tmp/damon_reclaim.note; exit 0; }
	echo $T_US >$DR/min_age
	echo 1000 >$DR/wmarks_high
	echo 999 >$DR/wmarks_mid
	echo 0 >$DR/wmarks_low
	echo Y >$DR/enabled || { echo "cannot enable DAMON_RECLAIM" >/tmp/damon_reclaim.note; exit 0; }
	# its kdamond appears once the module's worker started it
	i=0
	while [ "$(cat $DR/kdamond_pid)" -le 0 ] 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	echo "kdamond $(cat $DR/kdamond_pid)" >/tmp/damon_reclaim.note
	exec sleep 3600
}
m_damos_pageout() {
	[ -d $D ] || { echo "no DAMON sysfs" >/tmp/damos_pageout.note; exit 0; }
	echo 1 >$D/nr_kdamonds
	c=$D/0/contexts/0
	echo 1 >$D/0/contexts/nr_contexts
	damon_ctx $c vaddr 5000 100000 10 1000
	cat /tmp/damos_pageout.pid >$c/targets/0/pid_target
	echo 1 >$c/schemes/nr_schemes
	damon_scheme $c/schemes/0 pageout 0 $((T_US / 100000))
	echo on >$D/0/state 2>/tmp/damos_pageout.note || exit 0
	echo "kdamond $(cat $D/0/pid)" >/tmp/damos_pageout.note
	exec sleep 3600
}
m_senpai() {
	cg=/sys/fs/cgroup/jobs/senpai
	last=$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' $cg/memory.pressure)
	while :; do
		sleep 6
		now=$(sed -n 's/^some .*total=\([0-9]*\).*/\1/p' $cg/memory.pressure)
		if [ $((now - last)) -lt 10000 ]; then
			echo $(($(cat $cg/memory.current) / 100)) >$cg/memory.reclaim 2>/dev/null
		fi
		last=$now
	done
}
m_memory_reclaim() {
	if echo "${COLD}M swappiness=200" >/sys/fs/cgroup/jobs/memory_reclaim/memory.reclaim 2>/tmp/mr.err; then
		echo "wrote '${COLD}M swappiness=200'" >/tmp/memory_reclaim.note
	elif grep -q 'Invalid argument' /tmp/mr.err; then
		echo "this kernel's memory.reclaim takes no swappiness= (6.13 and later)" >/tmp/memory_reclaim.note
	else
		echo "wrote '${COLD}M swappiness=200': less was reclaimed ($(cat /tmp/mr.err))" >/tmp/memory_reclaim.note
	fi
	exit 0
}

for m in $PEERS_RECLAIM; do
	cg=/sys/fs/cgroup/jobs/$m
	vm_tenant $m anon $HOT $COLD --node 0 --period 100 || vm_die "$m: the tenant did not start"
	sleep 6
	rm -f /tmp/stop /tmp/$m.note
	poll $cg /tmp/$m.poll &
	pp=$!
	c0=$(vm_children_ticks)
	m_$m $cg &
	mp=$!
	sleep "$PEERS_RECLAIM_S"
	kt=0
	case $m in
	damon_reclaim | damos_pageout)
		kp=$(sed -n 's/^kdamond \([0-9]*\)$/\1/p' /tmp/$m.note)
		[ -n "$kp" ] && kt=$(kticks $kp)
		;;
	esac
	if [ $m = damon_reclaim ] && [ -d $DR ]; then
		for f in nr_reclaim_tried_regions bytes_reclaim_tried_regions nr_reclaimed_regions \
			bytes_reclaimed_regions nr_quota_exceeds; do
			[ -r $DR/$f ] && echo "$f $(cat $DR/$f)"
		done >/tmp/damon_reclaim.log
		echo N >$DR/enabled
	fi
	[ $m = damos_pageout ] && [ -d $D/0 ] && { echo off >$D/0/state; echo 0 >$D/nr_kdamonds; }
	kill $mp 2>/dev/null
	wait $mp 2>/dev/null
	ct=$(($(vm_children_ticks) - c0))
	touch /tmp/stop
	wait $pp
	echo "ticks $((ct + kt)) kdamond_ticks $kt" >/tmp/$m.cpu
	sed -n 's/^some avg10=\([0-9.]*\) .*/\1/p' $cg/memory.pressure >/tmp/$m.psi
	vm_emit $m.poll /tmp/$m.poll
	vm_emit $m.cpu /tmp/$m.cpu
	vm_emit $m.psi /tmp/$m.psi
	[ -s /tmp/$m.note ] && vm_emit $m.note /tmp/$m.note
	[ -s /tmp/$m.log ] && vm_emit $m.log /tmp/$m.log
	vm_stop $m
done
EOF
}

scenario_check() {
	local r=$VM_RESULTS m rows=() row
	for m in $PEERS_RECLAIM; do
		vm_assert_file "$m: polled" "$r/$m.poll" || continue
		vm_assert_file "$m: its CPU" "$r/$m.cpu" || continue
		row=$(awk -v m="$m" -v cold=$((RECLAIM_COLD * 1048576)) -v ticks="$(awk '{ print $2 }' "$r/$m.cpu")" \
			-v psi="$(cat "$r/$m.psi" 2>/dev/null)" '
			NR == 1 { t0 = $1; a0 = $2; r0 = $3; p0 = $4 }
			{ if (t90 == "" && a0 - $2 >= 0.9 * cold) t90 = ($1 - t0) / 1000; a = $2; rf = $3; p = $4 }
			END {
				printf "{\"method\": \"%s\", \"cold_bytes\": %d, \"freed_bytes\": %d, \"refaulted_bytes\": %d,", m, cold, a0 - a, (rf - r0) * 4096
				printf " \"t90_s\": %s, \"cpu_ticks\": %d, \"psi_some_ms\": %.1f, \"psi_some_avg10\": %s}\n",
					t90 == "" ? "null" : t90, ticks, (p - p0) / 1000, psi == "" ? "null" : psi
			}' "$r/$m.poll")
		[[ -f $r/$m.note ]] && row=$(jq -c --arg n "$(head -c 300 "$r/$m.note")" \
			'. + {note: $n, available: ($n | test("^no ") | not)}' <<<"$row")
		[[ $m == damon_reclaim && -s $r/$m.log ]] && row=$(jq -c --arg d "$(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }' "$r/$m.log")" \
			'. + {detail: $d}' <<<"$row")
		rows+=("$row")
		vm_assert_ge "$m: polled over the window (lines)" "$(wc -l <"$r/$m.poll")" 2
	done
	printf '%s\n' "${rows[@]}" | jq -sc --arg k "$VM_KERNEL" --arg rel "$VM_RELEASE" \
		--argjson s "$PEERS_RECLAIM_S" --argjson hot $((RECLAIM_HOT * 1048576)) \
		'{kernel: $k, release: $rel, seconds: $s, hot_bytes: $hot, methods: .}' >"$r/../reclaim.json"
}
