# shellcheck shell=bash disable=SC2034,SC2016
# tests/vm/scenarios/age.sh - issue 3, scenario 1: 'lrugen age' creates exactly
# one generation per selected lruvec and 'show --json' reflects it; a stale
# seq, an unknown memcg, an unknown node and a too-young eviction give clear
# errors, both from lrugen's own checks and from the kernel.

VM_TIMEOUT=150

scenario_guest() {
	cat <<'EOF'
case $(uname -r) in
6.1.*) lrugen enable >/tmp/enable.txt 2>&1 || vm_die "lrugen enable failed: $(cat /tmp/enable.txt)" ;;
esac
vm_mkcg /jobs/web && vm_mkcg /jobs/batch || vm_die "cannot create the memcgs"
vm_start web workload anon --cgroup /sys/fs/cgroup/jobs/web --node 1 --hot 8 --cold 8 ||
	vm_die "web did not start"

lrugen show --json >/tmp/before.json || vm_die "show failed"
lrugen age --json >/tmp/age.json 2>/tmp/age.err; echo $? >/tmp/age.rc
lrugen show --json >/tmp/after.json || vm_die "show failed"
lrugen age --memcg /jobs/web --node 1 --json >/tmp/age-web.json 2>&1; echo $? >/tmp/age-web.rc
lrugen show --json >/tmp/after-web.json || vm_die "show failed"
lrugen age --memcg /jobs/web --node 1 >/tmp/age-text.txt 2>&1

# commands the kernel would refuse or ignore: once through lrugen's checks,
# once straight to the kernel (--no-check)
id=$(awk '$1 == "memcg" && $3 == "/jobs/web" { print $2 }' /sys/kernel/debug/lru_gen)
max=$(awk -v id="$id" '$1 == "memcg" { m = ($2 == id) } m && $1 ~ /^[0-9]+$/ && n == 1 { s = $1 }
	$1 == "node" { n = $2 } END { print s }' /sys/kernel/debug/lru_gen)
echo "$id $max" >/tmp/ids
try() { # NAME ARGS...: run lrugen, keep its exit code and stderr
	name=$1; shift
	lrugen "$@" >/tmp/$name.out 2>/tmp/$name.err; echo $? >/tmp/$name.rc
	cat /tmp/$name.rc /tmp/$name.err >>/tmp/errors.txt
}
try stale cmd "+ $id 1 $((max - 1)) 1 1"
try stale_kernel cmd --no-check "+ $id 1 $((max - 1)) 1 1"
try memcg cmd "+ 9999 0 1"
try memcg_kernel cmd --no-check "+ 9999 0 1"
try node cmd "+ $id 7 $max 1 1"
try node_kernel cmd --no-check "+ $id 7 $max 1 1"
# 6.14 and later aged the stale seq above: read max_seq again
max=$(awk -v id="$id" '$1 == "memcg" { m = ($2 == id) } m && $1 ~ /^[0-9]+$/ && n == 1 { s = $1 }
	$1 == "node" { n = $2 } END { print s }' /sys/kernel/debug/lru_gen)
try young cmd "- $id 1 $((max - 1))"
try young_kernel cmd --no-check "- $id 1 $((max - 1))"
try age_nomemcg age --memcg /nope
try age_nonode age --memcg /jobs/web --node 7
lrugen show --json >/tmp/final.json
for f in before after age age-web after-web final; do vm_emit $f.json /tmp/$f.json; done
for f in age age-web; do vm_emit $f.rc /tmp/$f.rc; done
vm_emit age.err /tmp/age.err
vm_emit age-text /tmp/age-text.txt
vm_emit ids /tmp/ids
for n in stale stale_kernel memcg memcg_kernel node node_kernel young young_kernel age_nomemcg age_nonode; do
	vm_emit $n.rc /tmp/$n.rc; vm_emit $n.err /tmp/$n.err
done
EOF
}

# _age_max FILE PATH NODE: max_seq of an lruvec in a 'show --json' document
_age_max() {
	jq -r --arg p "$2" --argjson n "$3" \
		'.lruvecs[] | select(.memcg == $p and .node == $n) | .max_seq' "$VM_RESULTS/$1"
}

scenario_check() {
	local r=$VM_RESULTS bad
	vm_assert_eq "lrugen age exit code" 0 "$(cat "$r/age.rc")"
	# on Debian's 7.3 the first aging turns damon_stat off, and says so
	vm_assert_eq "lrugen age printed no error" "" "$(grep -v 'turned damon_stat off' "$r/age.err")"
	# every lruvec of every online memcg advanced by exactly one
	bad=$(jq -n --slurpfile b "$r/before.json" --slurpfile a "$r/after.json" '
		[$b[0].lruvecs[] | select(.memcg_id != 0) as $x
		 | ($a[0].lruvecs[] | select(.memcg == $x.memcg and .node == $x.node) | .max_seq) as $m
		 | select($m != $x.max_seq + 1) | "\($x.memcg) node \($x.node): \($x.max_seq) -> \($m)"]
		| join(", ")')
	vm_assert_eq "every lruvec gained exactly one generation (show --json)" '""' "$bad"
	vm_assert_ge "lruvecs aged" "$(jq 'length' "$r/age.json")" 8
	vm_assert_eq "age --json: all created" 0 "$(jq '[.[] | select(.created != true)] | length' "$r/age.json")"
	vm_assert_eq "age --json: new = old + 1" 0 \
		"$(jq '[.[] | select(.new_max_seq != .old_max_seq + 1)] | length' "$r/age.json")"
	vm_assert_eq "age --json agrees with show" \
		"$(_age_max after.json /jobs/web 1)" \
		"$(jq '.[] | select(.memcg == "/jobs/web" and .node == 1) | .new_max_seq' "$r/age.json")"
	# a selection ages only what it selects
	vm_assert_eq "age --memcg --node exit code" 0 "$(cat "$r/age-web.rc")"
	vm_assert_eq "age --memcg --node: one lruvec" 1 "$(jq 'length' "$r/age-web.json")"
	vm_assert_eq "selected lruvec advanced" $(($(_age_max after.json /jobs/web 1) + 1)) \
		"$(_age_max after-web.json /jobs/web 1)"
	vm_assert_eq "other node untouched" "$(_age_max after.json /jobs/web 0)" "$(_age_max after-web.json /jobs/web 0)"
	vm_assert_eq "other memcg untouched" "$(_age_max after.json /jobs/batch 1)" \
		"$(_age_max after-web.json /jobs/batch 1)"
	vm_assert_grep "age reports what it created" '^/jobs/web +node 1: generation [0-9]+ created' "$r/age-text"

	# errors: lrugen's checks (exit 2 not found, 4 refused), the kernel's (exit 1)
	vm_assert_eq "stale seq refused by lrugen" 4 "$(cat "$r/stale.rc")"
	vm_assert_grep "stale seq message" "max_seq of memcg '/jobs/web' node 1 is [0-9]+, not [0-9]+" "$r/stale.err"
	case $VM_KERNEL in
	6.1 | 6.12)
		vm_assert_eq "stale seq: kernel ignores it, lrugen notices" 4 "$(cat "$r/stale_kernel.rc")"
		vm_assert_grep "stale seq kernel message" "changed nothing: max_seq is still" "$r/stale_kernel.err"
		;;
	*)	# 6.14 and later age a stale seq anyway: done, and said
		vm_assert_eq "stale seq: the kernel ages anyway (exit 0)" 0 "$(cat "$r/stale_kernel.rc")"
		vm_assert_grep "stale seq: lrugen says the kernel aged anyway" \
			"names a stale MAX_SEQ .*and the kernel aged anyway" "$r/stale_kernel.err"
		;;
	esac
	vm_assert_eq "unknown memcg refused by lrugen" 2 "$(cat "$r/memcg.rc")"
	vm_assert_grep "unknown memcg message" "no memcg with id 9999" "$r/memcg.err"
	vm_assert_eq "unknown memcg refused by the kernel" 1 "$(cat "$r/memcg_kernel.rc")"
	vm_assert_grep "kernel EINVAL explained" "the kernel refused '\+ 9999 0 1': invalid argument" "$r/memcg_kernel.err"
	vm_assert_eq "unknown node refused by lrugen" 2 "$(cat "$r/node.rc")"
	vm_assert_grep "unknown node message" "has no node 7" "$r/node.err"
	vm_assert_eq "unknown node refused by the kernel" 1 "$(cat "$r/node_kernel.rc")"
	vm_assert_eq "too-young eviction refused by lrugen" 4 "$(cat "$r/young.rc")"
	vm_assert_grep "too-young message" "the two youngest generations \([0-9]+ and [0-9]+\) cannot be evicted" "$r/young.err"
	vm_assert_eq "too-young eviction refused by the kernel" 1 "$(cat "$r/young_kernel.rc")"
	vm_assert_eq "age --memcg /nope" 2 "$(cat "$r/age_nomemcg.rc")"
	vm_assert_grep "age --memcg /nope message" "no memcg matches '/nope'" "$r/age_nomemcg.err"
	vm_assert_eq "age --node 7" 2 "$(cat "$r/age_nonode.rc")"
	vm_assert_eq "one-line errors" 1 "$(wc -l <"$r/young.err")"
}
