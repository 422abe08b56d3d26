# tests/sh/cgroup_iface.sh - interface selection: memory.lru_gen (the lrugen
# kernel series) when present, debugfs lru_gen otherwise, in the CLI and the
# collector. The memory.lru_gen fixture's numbers are worked out in
# tests/fixtures/memory.lru_gen/README.md.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
LRUGEND=$LRUGEN_BUILD/lrugend
PBDUMP=$LRUGEN_BUILD/tests/tools/pbdump
unset LRUGEN_INTERFACE

# mkcgroot DIR: the 6.1 fixture root plus memory.lru_gen for /jobs, /jobs/web, /jobs/batch
mkcgroot() {
	mkroot "$1" 6.1
	cp -r "$LRUGEN_SRC/tests/fixtures/memory.lru_gen/jobs" "$1/sys/fs/cgroup/"
	mkdir -p "$1/sys/fs/cgroup/init.scope" # no memory controller there: no file
}
mkcgroot "$tmp/cg"
mkroot "$tmp/dbg" 6.1
cg=$tmp/cg
web=$cg/sys/fs/cgroup/jobs/web/memory.lru_gen

# show picks memory.lru_gen; the root memcg comes from debugfs with its id
json=$("$LRUGEN" --root "$cg" show --json)
check "show: interface" cgroup "$(jq -r .interface <<<"$json")"
check "show: source" memory.lru_gen "$(jq -r .source <<<"$json")"
check "show: why" "present on this kernel (e.g. '/jobs')" "$(jq -r .interface_reason <<<"$json")"
check "show: no notes" 0 "$(jq '.notes | length' <<<"$json")"
check "show: memcgs in tree order" '["/","/","/jobs","/jobs","/jobs/batch","/jobs/batch","/jobs/web","/jobs/web"]' \
	"$(jq -c '[.lruvecs[].memcg]' <<<"$json")"
check "show: root id from debugfs" 1 "$(jq '.lruvecs[0].memcg_id' <<<"$json")"
check "show: no id through memory.lru_gen" null \
	"$(jq '.lruvecs[] | select(.memcg == "/jobs/web" and .node == 1) | .memcg_id' <<<"$json")"
check "show: web node 1 seqs" "[4,5,6,7]" \
	"$(jq -c '.lruvecs[] | select(.memcg == "/jobs/web" and .node == 1) | [.generations[].seq]' <<<"$json")"
check "show: web node 1 anon bytes" 125829120 \
	"$(jq '.lruvecs[] | select(.memcg == "/jobs/web" and .node == 1) | .anon_bytes' <<<"$json")"
check "show: batch gen 2 pages" 30720 \
	"$(jq '.lruvecs[] | select(.memcg == "/jobs/batch" and .node == 0) | .generations[0].anon_pages' <<<"$json")"
check "show: birth = read - age" true \
	"$(jq '[.lruvecs[] | select(.memcg == "/jobs/web") | .generations[] | .birth_ms + .age_ms] | (max - min) <= 20' <<<"$json")"
check "show: inode of the cgroup directory" "$(stat -c %i "$cg/sys/fs/cgroup/jobs/web")" \
	"$(jq '.lruvecs[] | select(.memcg == "/jobs/web" and .node == 0) | .memcg_inode' <<<"$json")"
out=$("$LRUGEN" --root "$cg" show)
check_grep "show text: web tree row" '^    web +0 +7 ' "$out"
check_grep "show text: web node 1, 80 MiB in seq 4" '^ +1 +4 .* 9\.0s +80\.0 MiB' "$out"

# --memcg-id: no ids through memory.lru_gen
check_rc "--memcg-id refused" 2 "$LRUGEN" --root "$cg" show --memcg-id 3
check_grep "--memcg-id message" "memory.lru_gen interface has no kernel memcg ids; select with --memcg PATH" \
	"$("$LRUGEN" --root "$cg" show --memcg-id 3 2>&1)"
check_rc "age --memcg-id refused" 2 "$LRUGEN" --root "$cg" age --memcg-id 1

# wss: the README's numbers at 5 s
json=$("$LRUGEN" --root "$cg" wss --threshold 5s --json)
row='.[] | select(.memcg == "/jobs/web" and .node == 1)'
check "wss: web cold" 83886080 "$(jq "$row | .cold_bytes" <<<"$json")"
check "wss: web hot" 42991616 "$(jq "$row | .hot_bytes" <<<"$json")"
check "wss: web hot file" 1048576 "$(jq "$row | .hot_file_bytes" <<<"$json")"
check "wss: web memcg_id null" null "$(jq "$row | .memcg_id" <<<"$json")"
row='.[] | select(.memcg == "/jobs/batch" and .node == 0)'
check "wss: batch cold" 125829120 "$(jq "$row | .cold_bytes" <<<"$json")"
check "wss: batch hot" 10485760 "$(jq "$row | .hot_bytes" <<<"$json")"
check "wss: rows keep the contract fields" true \
	"$(jq 'all(.[]; has("memcg") and has("memcg_id") and has("node") and has("hot_bytes") and has("cold_bytes"))' <<<"$json")"

# evict --dry-run: memory.lru_gen commands, the cap in bytes; nothing written
before=$(md5sum <"$web")
out=$("$LRUGEN" --root "$cg" evict --memcg /jobs/web --node 1 --older-than 5s --dry-run)
check_grep "evict: cgroup command" "would write '- N1 4': 80\.0 MiB in generations <= 4" "$out"
json=$("$LRUGEN" --root "$cg" evict --memcg /jobs/web --node 1 --older-than 5s --max-bytes 4M \
	--swappiness 100 --dry-run --json)
check "evict: byte cap" "- N1 4 100 4194304" "$(jq -r '.[0].command' <<<"$json")"
check "evict: asked bytes" 4194304 "$(jq '.[0].asked_bytes' <<<"$json")"
check "evict: memcg_id null" null "$(jq '.[0].memcg_id' <<<"$json")"
json=$("$LRUGEN" --root "$cg" evict --memcg '/jobs/*' --older-than 5s --max-bytes 1000 --dry-run --json)
check "evict: unrounded byte cap" "- N0 2 60 1000" \
	"$(jq -r '.[] | select(.memcg == "/jobs/batch" and .node == 0) | .command' <<<"$json")"
out=$("$LRUGEN" --root "$cg" evict --memcg /jobs/web --node 1 --older-than 5s 2>&1)
check_grep "evict: writes go to the memcg's file" "'$web' is a regular file, not on cgroupfs" "$out"
check_rc "evict: fixture write refused" 3 "$LRUGEN" --root "$cg" evict --memcg /jobs/web --node 1 --older-than 5s
check "evict: fixture untouched" "$before" "$(md5sum <"$web")"

# age: to the memcg's own file (a regular file here: refused, untouched)
out=$("$LRUGEN" --root "$cg" age --memcg /jobs/web 2>&1)
check_grep "age: writes go to the memcg's file" "'$web' is a regular file, not on cgroupfs" "$out"
check_rc "age: fixture write refused" 3 "$LRUGEN" --root "$cg" age --memcg /jobs/web
check "age: fixture untouched" "$before" "$(md5sum <"$web")"
out=$("$LRUGEN" --root "$cg" age --memcg / 2>&1)
check_grep "age: the root memcg through debugfs" "sys/kernel/debug/lru_gen' is a regular file, not on debugfs" "$out"

# cmd: debugfs syntax, by id, always through debugfs
check "cmd: debugfs under auto" "would write '- 3 1 4'" "$("$LRUGEN" --root "$cg" cmd --dry-run "- 3 1 4")"
check_rc "cmd: refused with --interface cgroup" 2 "$LRUGEN" --root "$cg" cmd --interface cgroup --dry-run "- 3 1 4"

# doctor says which interface and why
json=$("$LRUGEN" --root "$cg" doctor --json)
st() { jq -r --arg c "$1" '.[] | select(.check == $c) | .'"$2" <<<"$json"; }
check "doctor: interface ok" ok "$(st interface status)"
check "doctor: interface detail" \
	"memory.lru_gen (cgroup v2, patched kernel): debugfs not needed; present on this kernel (e.g. '/jobs')" \
	"$(st interface detail)"
check "doctor: root memcg from debugfs" ok "$(st rootmemcg status)"
check_grep "doctor text" "^ok +interface +memory\.lru_gen \(cgroup v2, patched kernel\)" \
	"$("$LRUGEN" --root "$cg" doctor)"

# the root memcg left out when debugfs cannot be read, and said so
mkcgroot "$tmp/nodbg"
rm "$tmp/nodbg/sys/kernel/debug/lru_gen"
json=$("$LRUGEN" --root "$tmp/nodbg" show --json)
check "no debugfs: still cgroup" cgroup "$(jq -r .interface <<<"$json")"
check "no debugfs: no root memcg" 0 "$(jq '[.lruvecs[] | select(.memcg == "/")] | length' <<<"$json")"
check "no debugfs: 6 lruvecs" 6 "$(jq '.lruvecs | length' <<<"$json")"
check_grep "no debugfs: JSON note" "^root memcg left out: it has no memory.lru_gen and debugfs lru_gen is not readable" \
	"$(jq -r '.notes[0]' <<<"$json")"
check_grep "no debugfs: text note" "^root memcg left out" "$("$LRUGEN" --root "$tmp/nodbg" show)"
json=$("$LRUGEN" --root "$tmp/nodbg" doctor --json)
check "no debugfs: doctor warns" warn "$(st rootmemcg status)"
check "no debugfs: doctor interface ok" ok "$(st interface status)"

# overrides: the environment and --interface (global or per command)
check "env debugfs" debugfs "$(LRUGEN_INTERFACE=debugfs "$LRUGEN" --root "$cg" show --json | jq -r .interface)"
check "env debugfs: ids" 3 \
	"$(LRUGEN_INTERFACE=debugfs "$LRUGEN" --root "$cg" show --json --memcg /jobs/web --node 1 | jq '.lruvecs[0].memcg_id')"
check "global flag" debugfs "$("$LRUGEN" --root "$cg" --interface debugfs show --json | jq -r .interface)"
check "flag beats env" cgroup \
	"$(LRUGEN_INTERFACE=debugfs "$LRUGEN" --root "$cg" show --interface cgroup --json | jq -r .interface)"
check "--full reads debugfs" lru_gen_full "$("$LRUGEN" --root "$cg" show --full --json | jq -r .source)"
check_rc "--full with cgroup forced" 3 "$LRUGEN" --root "$cg" show --full --interface cgroup
check_rc "bad env" 2 env LRUGEN_INTERFACE=sysfs "$LRUGEN" --root "$cg" show
check_grep "bad env message" "LRUGEN_INTERFACE: interface 'sysfs' is not auto, cgroup or debugfs" \
	"$(LRUGEN_INTERFACE=sysfs "$LRUGEN" --root "$cg" show 2>&1)"
check_rc "bad flag" 2 "$LRUGEN" --root "$cg" show --interface sysfs

# without memory.lru_gen: debugfs, as before
json=$("$LRUGEN" --root "$tmp/dbg" show --json --memcg /jobs/web --node 1)
check "debugfs: interface" debugfs "$(jq -r .interface <<<"$json")"
check "debugfs: source" lru_gen "$(jq -r .source <<<"$json")"
check "debugfs: id" 3 "$(jq '.lruvecs[0].memcg_id' <<<"$json")"
check "debugfs: why" "memory.lru_gen not present on this kernel" "$(jq -r .interface_reason <<<"$json")"
check_grep "debugfs: evict command" "would write '- 3 1 4'" \
	"$("$LRUGEN" --root "$tmp/dbg" evict --memcg /jobs/web --node 1 --older-than 3s --dry-run)"
json=$("$LRUGEN" --root "$tmp/dbg" doctor --json)
check "debugfs: doctor detail" \
	"debugfs /sys/kernel/debug/lru_gen (read and write): memory.lru_gen not present on this kernel" \
	"$(st interface detail)"
check "debugfs: no rootmemcg check" "" "$(st rootmemcg status)"
check_rc "cgroup forced without files" 3 "$LRUGEN" --root "$tmp/dbg" --interface cgroup show
check_grep "cgroup forced message" "interface 'cgroup': no memcg below '.*/sys/fs/cgroup' has memory.lru_gen" \
	"$("$LRUGEN" --root "$tmp/dbg" --interface cgroup show 2>&1)"

# malformed memory.lru_gen: one line naming the file and the line, exit 1
mkcgroot "$tmp/bad"
printf 'N0 seq=1 age_ms=5 birth_ms=1 anon=0 file=0\nN0 seq=2 age_ms=1 birth_ms=1 anon=100 file=0\n' \
	>"$tmp/bad/sys/fs/cgroup/jobs/batch/memory.lru_gen"
out=$("$LRUGEN" --root "$tmp/bad" show 2>&1 >/dev/null)
check "malformed: message" \
	"lrugen: $tmp/bad/sys/fs/cgroup/jobs/batch/memory.lru_gen: line 2: anon=100 is not a multiple of the page size (4096)" \
	"$out"
check_rc "malformed: exit 1" 1 "$LRUGEN" --root "$tmp/bad" show

# the collector reads through the same selection and says so
"$LRUGEND" --root "$cg" --spool "$tmp/spool" --output "$tmp/cg.pb" 2>"$tmp/cg.log"
check "lrugend: exit" 0 "$?"
check_grep "lrugend: logs the interface" "interface: memory\.lru_gen: present on this kernel" "$(cat "$tmp/cg.log")"
check_grep "lrugend: aging goes to memory.lru_gen" "aging skipped: '.*/sys/fs/cgroup/jobs/memory.lru_gen' is a regular file" \
	"$(cat "$tmp/cg.log")"
dump=$("$PBDUMP" "$tmp/cg.pb")
check "lrugend: source memory.lru_gen" 2 "$(jq '.[0].source' <<<"$dump")"
check "lrugend: memcgs kept (id 0 is not dying here; empty /jobs as their parent)" '["/","/jobs","/jobs/batch","/jobs/web"]' \
	"$(jq -c '[.[0].lruvecs[].memcg] | unique' <<<"$dump")"
check "lrugend: root id" 1 "$(jq '[.[0].lruvecs[] | select(.memcg == "/")][0].memcg_id' <<<"$dump")"
check "lrugend: web id unknown" 0 "$(jq '[.[0].lruvecs[] | select(.memcg == "/jobs/web")][0].memcg_id' <<<"$dump")"
check "lrugend: web node 1 anon" 30720 \
	"$(jq '[.[0].lruvecs[] | select(.memcg == "/jobs/web" and .node == 1)][0].generations | map(.anon_pages) | add' <<<"$dump")"
LRUGEN_INTERFACE=debugfs "$LRUGEND" --root "$cg" --spool "$tmp/spool" --output "$tmp/dbg.pb" 2>/dev/null
check "lrugend: env debugfs" 0 "$("$PBDUMP" "$tmp/dbg.pb" | jq '.[0].source')"
"$LRUGEND" --root "$cg" --spool "$tmp/spool" --interface debugfs --output "$tmp/dbg2.pb" 2>/dev/null
check "lrugend: --interface debugfs" 0 "$("$PBDUMP" "$tmp/dbg2.pb" | jq '.[0].source')"
check_grep "lrugend: setting documented" "interface = auto" "$("$LRUGEND" --print-config)"
check_rc "lrugend: bad interface" 2 "$LRUGEND" --root "$cg" --interface sysfs --print-config
finish
