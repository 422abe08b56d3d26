# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/wss.sh - issue 3, scenario 2: working-set accuracy.
#
# Memcgs with known hot and cold sets, anon and mmap'd file, on both nodes,
# aged on a steady pace (4 rounds, 3 s apart); 'lrugen wss --threshold 4500ms'
# must be within 10% of the truth for every memcg (target 5%). Prints a table:
# truth, lrugen, memory.current and cAdvisor's working set (memory.current -
# inactive_file). A file that is only read(2) (never mapped) is hot in truth;
# MGLRU files it in the oldest generations and tracks its reuse by tiers, so
# wss must report it as unmapped page cache rather than plainly cold.

VM_SWAP=512M
VM_DISK=384M
VM_TIMEOUT=240

# memcg  mode      node  hot_MiB  cold_MiB
WSS_JOBS='web      anon      1  40  80
db       anon      0  24  48
batch    file      0  16  48
files    file      1   8  32
reader   readfile  0  24   0'

scenario_guest() {
	cat <<EOF
WSS_JOBS='$WSS_JOBS'
EOF
	cat <<'EOF'
case $(uname -r) in
6.1.*) lrugen enable >/tmp/enable.txt 2>&1 || vm_die "lrugen enable failed: $(cat /tmp/enable.txt)" ;;
esac
echo "$WSS_JOBS" | while read -r name mode node hot cold; do
	vm_mkcg /jobs/$name || vm_die "cannot create /jobs/$name"
	cg=/sys/fs/cgroup/jobs/$name
	case $mode in
	anon) vm_start $name workload anon --cgroup $cg --node $node --hot $hot --cold $cold ;;
	file) vm_start $name workload file --cgroup $cg --node $node --path /mnt/data/$name.dat \
		--hot $hot --cold $cold ;;
	readfile) vm_start $name workload readfile --cgroup $cg --node $node --path /mnt/data/$name.dat \
		--mb $hot --period 500 ;;
	esac || vm_die "$name did not start"
done
# steady-pace aging: a generation every 3 s
for round in 1 2 3 4; do
	[ $round -gt 1 ] && sleep 3
	lrugen age >/dev/null 2>/tmp/age.err || vm_die "aging round $round failed: $(cat /tmp/age.err)"
done
lrugen wss --threshold 4500ms --json >/tmp/wss.json || vm_die "wss failed"
lrugen wss --threshold 4500ms --memcg '/jobs/*' >/tmp/wss.txt || vm_die "wss failed"
lrugen show --memcg '/jobs/*' >/tmp/show.txt
vm_emit wss.json /tmp/wss.json
vm_emit wss.txt /tmp/wss.txt
vm_emit show.txt /tmp/show.txt
vm_emit lru_gen /sys/kernel/debug/lru_gen
echo "$WSS_JOBS" | while read -r name rest; do
	vm_emit $name.current /sys/fs/cgroup/jobs/$name/memory.current
	vm_emit $name.stat /sys/fs/cgroup/jobs/$name/memory.stat
done
EOF
}

_wss_mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }

scenario_check() {
	local r=$VM_RESULTS name mode node hot cold sum lr_hot lr_cold cur inact cadv err table
	vm_assert_file "wss --json emitted" "$r/wss.json" || return
	table=$(printf '%-8s %-8s %4s | %9s %9s %6s | %9s %9s %6s | %9s %9s | %9s\n' \
		MEMCG MODE NODE TRUTH_HOT LRUGEN ERR% TRUTH_CLD LRUGEN ERR% CURRENT CADVISOR UNMAPPED)
	while read -r name mode node hot cold; do
		sum=$(jq --arg p "/jobs/$name" '[.[] | select(.memcg == $p)] |
			{hot: (map(.hot_bytes) | add), cold: (map(.cold_bytes) | add),
			 unmapped: (map(.cold_unmapped_file_bytes // 0) | add),
			 onnode: (map(select(.node == '"$node"') | .hot_bytes + .cold_bytes) | add),
			 all: (map(.hot_bytes + .cold_bytes) | add)}' "$r/wss.json")
		lr_hot=$(jq .hot <<<"$sum")
		lr_cold=$(jq .cold <<<"$sum")
		cur=$(cat "$r/$name.current")
		inact=$(awk '$1 == "inactive_file" { print $2 }' "$r/$name.stat")
		cadv=$((cur - inact))
		if [[ $mode == readfile ]]; then
			# hot in truth, but never mapped: wss must flag it as unmapped page cache
			vm_assert_ge "$name: read(2)-only file reported as unmapped page cache (MiB)" \
				"$(_wss_mib "$(jq .unmapped <<<"$sum")")" "$(awk -v h="$hot" 'BEGIN { print h * 0.9 }')"
			err=n/a
		else
			err=$(awk -v a="$lr_hot" -v t="$hot" 'BEGIN { printf "%.1f", (a / 1048576 - t) * 100 / t }')
			vm_assert_le "$name: |wss hot - truth| within 10% (got $(_wss_mib "$lr_hot") MiB, truth $hot)" \
				"$(awk -v e="$err" 'BEGIN { print (e < 0 ? -e : e) }')" 10
			vm_assert_le "$name: |wss cold - truth| within 10% (got $(_wss_mib "$lr_cold") MiB, truth $cold)" \
				"$(awk -v a="$lr_cold" -v t="$cold" 'BEGIN { e = (a / 1048576 - t) * 100 / t; print (e < 0 ? -e : e) }')" 10
			vm_assert_ge "$name: memory on node $node (%)" \
				"$(jq '.onnode * 100 / .all | floor' <<<"$sum")" 95
		fi
		table+=$(printf '\n%-8s %-8s %4s | %9s %9s %6s | %9s %9s %6s | %9s %9s | %9s' "$name" "$mode" "$node" \
			"$hot" "$(_wss_mib "$lr_hot")" "$err" "$cold" "$(_wss_mib "$lr_cold")" \
			"$(awk -v a="$lr_cold" -v t="$cold" 'BEGIN { if (t) printf "%.1f", (a / 1048576 - t) * 100 / t; else print "n/a" }')" \
			"$(_wss_mib "$cur")" "$(_wss_mib "$cadv")" "$(_wss_mib "$(jq .unmapped <<<"$sum")")")
	done <<<"$WSS_JOBS"
	echo "  working set at 4.5 s, MiB (kernel $VM_RELEASE):"
	sed 's/^/    /' <<<"$table"
	echo "$table" >"$r/../table.txt"
	vm_assert_grep "wss text flags unmapped page cache" 'UNMAPPED' "$r/wss.txt"
}
