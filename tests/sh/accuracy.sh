# tests/sh/accuracy.sh - accuracy warnings (lib/lru_warn.h) on a Debian-7.3
# root: damon_stat on as it boots, /jobs/web in huge pages. lrugen wss, show
# and doctor say so, age tries to turn damon_stat off, lrugend carries the
# warnings in snapshots and /metrics; without DAMON, or on a kernel whose
# aging sees what DAMON clears (memory.lru_gen), nothing is warned.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/collector_helpers.bash"
tmp=$(mktemp -d)
trap 'cleanup_procs; rm -rf "$tmp"' EXIT
PROMTOOL=$(command -v promtool || true)
mkroot "$tmp/r73" 7.3
r=$tmp/r73

# --- lrugen wss -------------------------------------------------------------------
json=$("$LRUGEN" --root "$r" wss --threshold 3s --json)
check "wss: /jobs/web rows carry thp_unaged" '["thp_unaged"]' \
	"$(jq -c '[.[] | select(.memcg == "/jobs/web") | .warnings[]] | unique' <<<"$json")"
check "wss: /jobs/batch (no huge pages) carries none" '[]' \
	"$(jq -c '[.[] | select(.memcg == "/jobs/batch") | .warnings[]]' <<<"$json")"
check "wss: every row has a warnings list" 0 "$(jq '[.[] | select(.warnings | type != "array")] | length' <<<"$json")"
text=$("$LRUGEN" --root "$r" wss --threshold 3s)
check_grep "wss table: web's hot is a lower bound" '^/jobs/web +1 +>[0-9.]+ MiB' "$text"
check_grep "wss table: web's cold is an upper bound" '^/jobs/web +1 .* <[0-9.]+ MiB' "$text"
check_grep "wss table: batch is not marked" '^/jobs/batch +0 +[0-9.]+ MiB' "$text"
check_grep "wss table: the footnote explains" '^> < thp_unaged: a DAMON monitor' "$text"
check_grep "wss --help explains the code" 'thp_unaged +a DAMON monitor' "$("$LRUGEN" wss --help)"

# --- lrugen show and doctor ----------------------------------------------------------
json=$("$LRUGEN" --root "$r" show --json)
check "show: host warning damon_active" '["damon_active"]' "$(jq -c .warnings <<<"$json")"
check "show: web node 1 warned" '["thp_unaged"]' \
	"$(jq -c '.lruvecs[] | select(.memcg == "/jobs/web" and .node == 1) | .warnings' <<<"$json")"
check_grep "show table marks the node" '^ +1! ' "$("$LRUGEN" --root "$r" show --memcg /jobs/web)"
json=$("$LRUGEN" --root "$r" doctor --json)
check "doctor: damon warns" warn "$(jq -r '.[] | select(.check == "damon") | .status' <<<"$json")"
check_grep "doctor: the fix turns damon_stat off" 'echo N > /sys/module/damon_stat/parameters/enabled' \
	"$(jq -r '.[] | select(.check == "damon") | .fix' <<<"$json")"

# --- age: damon_stat cannot be turned off in a fixture: said, not hidden -------------
out=$("$LRUGEN" --root "$r" age 2>&1)
check_grep "age: cannot turn damon_stat off here, says why" \
	"cannot turn damon_stat off: .* regular file, not on sysfs" "$out"
check_grep "age: warns that huge pages will read colder" "damon_stat runs: memory in huge pages" "$out"
check "age: the fixture's damon_stat is left as it was" Y "$(cat "$r/sys/module/damon_stat/parameters/enabled")"
out=$("$LRUGEN" --root "$r" age --keep-damon 2>&1)
check "age --keep-damon: does not try to turn it off" "" "$(grep 'cannot turn damon_stat off' <<<"$out")"

# --- lrugend: snapshots and /metrics -------------------------------------------------
"$LRUGEND" --root "$r" --output "$tmp/snap.pb" --spool "$tmp/spool" >"$tmp/once.log" 2>&1
dump=$("$LRUGEN_BUILD/tests/tools/pbdump" "$tmp/snap.pb")
check "snapshot: host warning" '["damon_active"]' "$(jq -c '.[0].warnings' <<<"$dump")"
check "snapshot: web lruvecs warned" '["thp_unaged"]' \
	"$(jq -c '[.[0].lruvecs[] | select(.memcg == "/jobs/web") | .warnings[]] | unique' <<<"$dump")"
check "snapshot: batch lruvecs not warned" '[]' \
	"$(jq -c '[.[0].lruvecs[] | select(.memcg == "/jobs/batch") | .warnings[]]' <<<"$dump")"
check "snapshot: web's huge pages in its stats" 123731968 \
	"$(jq '.[0].memcg_stats[] | select(.memcg == "/jobs/web") | .thp_bytes' <<<"$dump")"
check_grep "lrugend logs the DAMON monitors once" "DAMON monitors run \(damon_stat\)" "$(cat "$tmp/once.log")"

start_lrugend "$tmp/m.log" --root "$r" --listen 127.0.0.1:0 --interval 1h --no-age \
	--spool "$tmp/spool2"
wait_for "metrics listening" 20 grep -q "metrics: serving" "$tmp/m.log"
mport=$(sed -n 's/.*metrics: serving .*(port \([0-9]*\)).*/\1/p' "$tmp/m.log" | tail -n 1)
wait_for "a tick" 20 has_taken 1 "$tmp/m.log"
m=$(curl -sf "http://127.0.0.1:$mport/metrics")
check "metrics: lrugen_warning for web node 1" 1 \
	"$(awk '$1 == "lrugen_warning{memcg=\"/jobs/web\",node=\"1\",code=\"thp_unaged\"}" { print $2 }' <<<"$m")"
check "metrics: no lrugen_warning for batch" 0 "$(grep -c 'lrugen_warning{memcg="/jobs/batch"' <<<"$m")"
check "metrics: host warning" 1 \
	"$(awk '$1 == "lrugen_host_warning{code=\"damon_active\"}" { print $2 }' <<<"$m")"
if [ -n "$PROMTOOL" ]; then
	out=$(promtool check metrics <<<"$m" 2>&1)
	check "promtool check metrics is clean with warnings" "0:" "$?:$out"
fi
stop_lrugend

# --- 6.14 and later: mapped page cache can stay in the oldest generation ---------------
printf 'anon 0\nfile 67108864\nfile_mapped 33554432\n' >"$r/sys/fs/cgroup/jobs/batch/memory.stat"
json=$("$LRUGEN" --root "$r" wss --threshold 3s --json)
check "file_unaged: batch maps 32 MiB of page cache on 7.3" '["file_unaged"]' \
	"$(jq -c '[.[] | select(.memcg == "/jobs/batch") | .warnings[]] | unique' <<<"$json")"
check "file_unaged: web maps 4 KiB: not worth saying" '["thp_unaged"]' \
	"$(jq -c '[.[] | select(.memcg == "/jobs/web") | .warnings[]] | unique' <<<"$json")"
check_grep "file_unaged: explained in wss --help" 'file_unaged +this kernel' "$("$LRUGEN" wss --help)"
mkroot "$tmp/r612" 6.12
printf 'anon 0\nfile 67108864\nfile_mapped 33554432\n' >"$tmp/r612/sys/fs/cgroup/jobs/batch/memory.stat"
check "6.12 promotes on first sighting: no file_unaged" '[]' \
	"$("$LRUGEN" --root "$tmp/r612" wss --threshold 3s --json | jq -c '[.[].warnings[]]')"
printf 'anon 0\nfile 0\n' >"$r/sys/fs/cgroup/jobs/batch/memory.stat"

# --- no DAMON, or a kernel that sees what it clears: nothing to warn about ------------
echo N >"$r/sys/module/damon_stat/parameters/enabled"
check "damon_stat off: no warnings" '[]' \
	"$("$LRUGEN" --root "$r" wss --threshold 3s --json | jq -c '[.[].warnings[]]')"
check "damon_stat off: doctor ok" ok \
	"$("$LRUGEN" --root "$r" doctor --json | jq -r '.[] | select(.check == "damon") | .status')"
mkdir -p "$r/sys/kernel/mm/damon/admin/kdamonds/0"
echo on >"$r/sys/kernel/mm/damon/admin/kdamonds/0/state"
check "a sysfs kdamond warns too" '["thp_unaged"]' \
	"$("$LRUGEN" --root "$r" wss --threshold 3s --json | jq -c '[.[] | select(.memcg == "/jobs/web") | .warnings[]] | unique')"
echo "N0 seq=3 age_ms=10 birth_ms=10 anon=4096 file=0" >"$r/sys/fs/cgroup/jobs/web/memory.lru_gen"
check "a kernel with memory.lru_gen (lrugen's series) is not warned" '[]' \
	"$("$LRUGEN" --root "$r" --interface debugfs wss --threshold 3s --json | jq -c '[.[].warnings[]]')"
finish
