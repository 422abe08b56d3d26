# tests/sh/cli.sh - the lrugen CLI against fixture roots: output, JSON, errors, exit codes.
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkroot "$tmp/r61" 6.1
mkroot "$tmp/r612" 6.12
r61=$tmp/r61

# scripts/fixture-root: the tree every test uses, for users too
check_rc "fixture-root: an unknown kernel is exit 2" 2 "$LRUGEN_SRC/scripts/fixture-root" "$tmp/fr" 5.4
check_rc "fixture-root: a non-empty directory is exit 2" 2 "$LRUGEN_SRC/scripts/fixture-root" "$r61" 6.1
check_grep "fixture-root --help: an example" "^example: scripts/fixture-root " "$("$LRUGEN_SRC/scripts/fixture-root" --help)"
check "fixture-root: lrugen reads its host and kernel" "fixture-6.1 6.1.0-57-amd64" \
	"$("$LRUGEN" --root "$r61" show --json | jq -r '"\(.host) \(.kernel)"')"

# help and usage
out=$("$LRUGEN" --help)
check_grep "help lists commands" 'show .*generations' "$out"
check_grep "help documents exit codes" '4  refused by lrugen' "$out"
for c in show wss age evict doctor enable cmd fleet dump; do
	check_rc "$c -h exits 0" 0 "$LRUGEN" "$c" -h
	check_grep "$c -h teaches" "usage: lrugen $c" "$("$LRUGEN" "$c" -h)"
	check_grep "$c -h gives examples" "^  lrugen( --json)? $c " "$("$LRUGEN" "$c" -h | sed -n '/^Examples:/,$p')"
done
check_rc "no command" 2 "$LRUGEN"
check_rc "unknown command" 2 "$LRUGEN" frobnicate
check_rc "unknown option" 2 "$LRUGEN" show --bogus
check_grep "unknown command message" "^lrugen: 'frobnicate' is not a command" "$("$LRUGEN" frobnicate 2>&1)"
check_grep "a mistyped command: did you mean" "^lrugen: 'shw' is not a command; did you mean 'show'\?" \
	"$("$LRUGEN" shw 2>&1)"
check_rc "a mistyped command: exit 2" 2 "$LRUGEN" evcit
# age --dry-run: the commands, nothing written (a fixture root would refuse a write)
check_grep "age --dry-run: the command of each lruvec" "^/jobs/web node 1: would write '\+ 3 1 [0-9]+ 1 1' \(max_seq " \
	"$("$LRUGEN" --root "$r61" age --dry-run)"
check "age --dry-run --json: one object a lruvec" "$("$LRUGEN" --root "$r61" show --json | jq '.lruvecs | length')" \
	"$("$LRUGEN" --root "$r61" age --dry-run --json | jq length)"
check "age --dry-run --no-swap: can_swap 0" "+ 3 1" \
	"$("$LRUGEN" --root "$r61" age --dry-run --json --no-swap --memcg /jobs/web --node 1 | jq -r '.[0].command' | cut -d' ' -f1-3)"
check "age --dry-run --no-swap: the 0 written" 0 \
	"$("$LRUGEN" --root "$r61" age --dry-run --json --no-swap --memcg /jobs/web --node 1 | jq -r '.[0].command' | cut -d' ' -f5)"
check_rc "age --dry-run of no memcg: exit 2" 2 "$LRUGEN" --root "$r61" age --dry-run --memcg /nope
check_grep "a mistyped fleet command: did you mean" "fleet: 'rnak' is not a command; did you mean 'rank'\?" \
	"$("$LRUGEN" fleet rnak 2>&1)"
check "lrugen help CMD: the command's help" "$("$LRUGEN" evict --help)" "$("$LRUGEN" help evict)"
check_rc "lrugen help: exit 0" 0 "$LRUGEN" help
check_grep "lrugen help: lists help" "^  help +'lrugen help COMMAND'" "$("$LRUGEN" help)"
check_rc "lrugen help nope: exit 2" 2 "$LRUGEN" help nope

# dump: a SnapshotBatch file, or standard input, as JSON
"$LRUGEN_BUILD/tests/tools/mkbatch" "$tmp/two.pb" alpha:1796000000000:"$LRUGEN_SRC/tests/fixtures/linux-6.1/lru_gen.txt" \
	beta:1796000060000:"$LRUGEN_SRC/tests/fixtures/linux-6.12/lru_gen.txt"
check "dump FILE: every snapshot" "alpha beta" "$("$LRUGEN" dump "$tmp/two.pb" | jq -r '[.[].host] | join(" ")')"
check "dump FILE: the same JSON as pbdump" "$("$LRUGEN_BUILD/tests/tools/pbdump" "$tmp/two.pb" | jq -c .)" \
	"$("$LRUGEN" dump "$tmp/two.pb" | jq -c .)"
check "dump -: standard input" "alpha beta" "$("$LRUGEN" dump - <"$tmp/two.pb" | jq -r '[.[].host] | join(" ")')"
check_grep "dump --summary: a line a snapshot, taken in UTC" '^beta +1 +2026-11-30 00:54:[0-9]{2} +8 +4 +252\.8 MiB$' \
	"$("$LRUGEN" dump --summary "$tmp/two.pb")"
check_rc "dump of a missing file: exit 2" 2 "$LRUGEN" dump "$tmp/nope.pb"
head -c 9 "$tmp/two.pb" >"$tmp/cut.pb"
check_rc "dump of a cut file: exit 1" 1 "$LRUGEN" dump "$tmp/cut.pb"
check_grep "dump of a cut file: named" "^lrugen: dump: $tmp/cut.pb: " "$("$LRUGEN" dump "$tmp/cut.pb" 2>&1)"
check_rc "dump without a file: exit 2" 2 "$LRUGEN" dump
check_rc "dump -h" 0 "$LRUGEN" dump -h

# show
out=$("$LRUGEN" --root "$r61" show)
check_grep "show tree-indents memcgs" '^    web +0 +3 ' "$out"
check_grep "show sizes" '82\.0 MiB' "$out"
json=$("$LRUGEN" --root "$r61" show --json --memcg /jobs/web --node 1)
check "show --json lruvec count" 1 "$(jq '.lruvecs | length' <<<"$json")"
check "show --json gen 3 anon" 21003 "$(jq '.lruvecs[0].generations[0].anon_pages' <<<"$json")"
check "show --json birth = read - age" true \
	"$(jq '.read_at_ms - .lruvecs[0].generations[0].birth_ms == .lruvecs[0].generations[0].age_ms' <<<"$json")"
check "show --json host" fixture-6.1 "$(jq -r .host <<<"$json")"
json=$("$LRUGEN" show --root "$tmp/r612" --full --json --memcg-id 3 --node 0)
check "show --full tiers" 4 "$(jq '.lruvecs[0].generations[0].tiers | length' <<<"$json")"
check "show --full 6.12 walk" 3969 "$(jq '.lruvecs[0].generations[3].walk.leaf_total' <<<"$json")"
# Linux 7.3: memcg ids are cgroup ids (the directory's inode), 64-bit
mkroot "$tmp/r73" 7.3
json=$("$LRUGEN" --root "$tmp/r73" show --json --memcg-id 67 --node 1)
check "7.3: --memcg-id takes the cgroup id" /jobs/web "$(jq -r '.lruvecs[0].memcg' <<<"$json")"
check "7.3: memcg_id in JSON" 67 "$(jq '.lruvecs[0].memcg_id' <<<"$json")"
sed -i 's|^memcg 67 /jobs/web$|memcg 1099511627843 /jobs/web|' "$tmp/r73/sys/kernel/debug/lru_gen"
json=$("$LRUGEN" --root "$tmp/r73" wss --json --memcg-id 1099511627843 --threshold 3s)
check "7.3: a cgroup id above 2^32 selects" /jobs/web "$(jq -r '.[0].memcg' <<<"$json")"
check "7.3: and prints whole" 1099511627843 "$(jq '.[0].memcg_id' <<<"$json")"
check_grep "7.3: evict plans with the 64-bit id" "would write '- 1099511627843 1 4'" \
	"$("$LRUGEN" --root "$tmp/r73" evict --memcg-id 1099511627843 --node 1 --older-than 3s --dry-run 2>&1)"
check_rc "show unknown memcg" 2 "$LRUGEN" --root "$r61" show --memcg /nope
check_grep "show unknown memcg message" "no memcg matches '/nope'" \
	"$("$LRUGEN" --root "$r61" show --memcg /nope 2>&1)"
check_grep "show unknown node message" "memcg '/jobs/web' has no node 5" \
	"$("$LRUGEN" --root "$r61" show --memcg /jobs/web --node 5 2>&1)"
check_rc "show bad node" 2 "$LRUGEN" --root "$r61" show --node x
check_rc "a --root that does not exist: a bad command line" 2 "$LRUGEN" --root "$tmp/none" show
check_grep "... named as such" "^lrugen: --root '$tmp/none': no such directory$" \
	"$("$LRUGEN" --root "$tmp/none" show 2>&1)"
check_grep "a --root that is a file: named" "^lrugen: --root '$r61/proc/mounts': not a directory$" \
	"$("$LRUGEN" --root "$r61/proc/mounts" show 2>&1)"
mkdir -p "$tmp/nodebug"
check_rc "a root without debugfs: exit 3" 3 "$LRUGEN" --root "$tmp/nodebug" show
check_grep "missing debugfs message" "does not exist \(mount -t debugfs" \
	"$("$LRUGEN" --root "$tmp/nodebug" show 2>&1)"
# enable checks --bits before it touches the kernel
check_rc "enable --bits foo: exit 2" 2 "$LRUGEN" --root "$r61" enable --bits foo
check_grep "enable --bits foo: says what it takes" "--bits 'foo' is not y, n or a number such as 0x0007" \
	"$("$LRUGEN" --root "$r61" enable --bits foo 2>&1)"
check_rc "enable --bits -1: exit 2" 2 "$LRUGEN" --root "$r61" enable --bits -1
check "enable --dry-run on 6.1 with MGLRU on: clears 0x0004 only" "would write '3' to /sys/kernel/mm/lru_gen/enabled (now 0x0007)" \
	"$("$LRUGEN" --root "$r61" enable --dry-run)"
check "enable --dry-run wrote nothing" 0x0007 "$(cat "$r61/sys/kernel/mm/lru_gen/enabled")"
check "enable --dry-run --bits n --json" '{"before":7,"would_write":["n"]}' \
	"$("$LRUGEN" --root "$r61" enable --dry-run --bits n --json | jq -c .)"
check_grep "enable --dry-run on 6.12, already on: nothing to write" "nothing to write" \
	"$("$LRUGEN" --root "$tmp/r612" enable --dry-run)"

# malformed kernel text: one line naming the file and line, exit 1, nothing on stdout
mkroot "$tmp/bad" 6.1
printf 'memcg     1 /\n node     0\n          3  12 4\n' >"$tmp/bad/sys/kernel/debug/lru_gen"
out=$("$LRUGEN" --root "$tmp/bad" show 2>&1 >/dev/null)
check_grep "malformed text names the line" "lru_gen: line 3: " "$out"
check "malformed text is one line" 1 "$(wc -l <<<"$out")"
check_rc "malformed text exit" 1 "$LRUGEN" --root "$tmp/bad" show

# MGLRU off: a warning, not a failure, for reading
echo 0x0000 >"$tmp/bad/sys/kernel/mm/lru_gen/enabled"
cp "$LRUGEN_SRC/tests/fixtures/linux-6.1/lru_gen.txt" "$tmp/bad/sys/kernel/debug/lru_gen"
check_grep "mglru off warns" "warning: MGLRU is off" "$("$LRUGEN" --root "$tmp/bad" show 2>&1 >/dev/null)"
check_rc "age refuses with mglru off" 3 "$LRUGEN" --root "$tmp/bad" age

# wss: the fixture's ground truth (40/80 MiB web, 10/120 MiB batch), within 5%
json=$("$LRUGEN" --root "$r61" wss --threshold 3s --json)
web=$(jq -c '.[] | select(.memcg == "/jobs/web" and .node == 1)' <<<"$json")
check "wss web hot bytes" 39845888 "$(jq .hot_bytes <<<"$web")"
check "wss web cold bytes" 86028288 "$(jq .cold_bytes <<<"$web")"
check "wss web hot anon" 39845888 "$(jq .hot_anon_bytes <<<"$web")"
check "wss rows have contract fields" true \
	"$(jq 'all(.[]; has("memcg") and has("memcg_id") and has("node") and has("hot_bytes") and has("cold_bytes") and has("hot_anon_bytes") and has("hot_file_bytes"))' <<<"$json")"
check "wss unmapped file from numa_stat" 4096 \
	"$(jq '.[] | select(.memcg == "/jobs/web" and .node == 0) | .unmapped_file_bytes' <<<"$json")"
check "wss default threshold 2m" 120000 "$("$LRUGEN" --root "$r61" wss --json | jq '.[0].threshold_ms')"
check "wss 2m: nothing cold on a 12 s old capture" 0 \
	"$("$LRUGEN" --root "$r61" wss --json | jq '[.[].cold_bytes] | add')"
json=$("$LRUGEN" --root "$tmp/r612" wss --threshold 3s --json --memcg /jobs/batch)
check "wss 6.12 batch cold" $((30727 * 4096)) "$(jq '.[] | select(.node == 1) | .cold_bytes' <<<"$json")"
out=$("$LRUGEN" --root "$r61" wss --threshold 3s)
check "wss: -T is --threshold" "$out" "$("$LRUGEN" --root "$r61" wss -T 3s)"
check_grep "wss table" '/jobs/web +1 +38\.0 MiB' "$out"
check "wss: no 'up to 0 B' footnote when nothing unmapped is cold" 0 \
	"$("$LRUGEN" --root "$r61" wss | grep -c 'up to 0 B')"
check_grep "wss: the UNMAPPED column still explained" '^\* UNMAPPED: page cache no process maps' \
	"$("$LRUGEN" --root "$r61" wss)"
check_rc "wss bad threshold" 2 "$LRUGEN" --root "$r61" wss --threshold 3q
check_grep "wss bad threshold message" "unknown unit 'q'" "$("$LRUGEN" --root "$r61" wss --threshold 3q 2>&1)"

# evict --dry-run builds the command and never writes
before=$(md5sum <"$r61/sys/kernel/debug/lru_gen")
out=$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 3s --dry-run)
check_grep "evict dry-run command" "would write '- 3 1 4': 82\.0 MiB in generations <= 4" "$out"
check "evict dry-run writes nothing" "$before" "$(md5sum <"$r61/sys/kernel/debug/lru_gen")"
json=$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 5s --max-bytes 4M \
	--swappiness 100 --dry-run --json)
check "evict dry-run json command" "- 3 1 3 100 1024" "$(jq -r '.[0].command' <<<"$json")"
check "evict dry-run json bytes" 4194304 "$(jq '.[0].asked_bytes' <<<"$json")"
out=$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 1h --dry-run)
check_grep "evict nothing old enough" "nothing to evict" "$out"
# a dry run: the contract's keys, no pass written, no outcome (freed/moved/left) claimed
json=$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --older-than 3s --dry-run --json)
check "evict dry-run json: one object per node" 2 "$(jq length <<<"$json")"
check "evict dry-run json keys" true \
	"$(jq 'all(.[]; has("memcg") and has("memcg_id") and has("node") and has("command") and has("asked_bytes") and has("passes"))' <<<"$json")"
check "evict dry-run json: no pass written" 0 "$(jq '[.[].passes] | add' <<<"$json")"
check "evict dry-run json: no outcome" false \
	"$(jq 'any(.[]; has("freed_bytes") or has("moved_bytes") or has("left_bytes") or has("per_pass") or has("error"))' <<<"$json")"
check "evict dry-run json: asked 82 MiB on node 1" $((21003 * 4096)) \
	"$(jq '.[] | select(.node == 1) | .asked_bytes' <<<"$json")"
check "evict dry-run json: node 0 has nothing idle that long" "null 0" \
	"$(jq -r '.[] | select(.node == 0) | "\(.command) \(.asked_bytes)"' <<<"$json")"
check_grep "evict dry-run json: a note says why" "the generations idle that long hold no pages" \
	"$(jq -r '.[] | select(.node == 0) | .note' <<<"$json")"
# swappiness max is written as the word the kernel reads (6.16 and later)
check "evict --swappiness max writes the word" "- 3 1 4 max" \
	"$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 3s --swappiness max \
		--dry-run --json | jq -r '.[0].command')"
check "evict --swappiness max with a cap" "- 3 1 4 max 256" \
	"$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 3s --swappiness max \
		--max-bytes 1M --dry-run --json | jq -r '.[0].command')"
check_grep "evict --swappiness max on 6.1: warned, the kernel answers EINVAL" \
	"warning: --swappiness max: this kernel \(6\.1\.0-57-amd64, debugfs\) answers EINVAL" \
	"$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 3s --swappiness max --dry-run 2>&1)"
check "evict --swappiness max on 7.3: no warning" 0 \
	"$("$LRUGEN" --root "$tmp/r73" evict --memcg /jobs/web --older-than 3s --swappiness max --dry-run 2>&1 |
		grep -c 'answers EINVAL')"
out=$("$LRUGEN" evict -h)
check_grep "evict -h teaches moved pages" "moved +now in a younger generation" "$out"
check_grep "evict -h teaches left pages" "left +still in generations <= SEQ" "$out"
check_grep "evict -h teaches the second pass" "second pass" "$out"
check_grep "evict -h teaches the exit status" "exits 1 when the kernel freed less" "$out"
check_grep "evict -h teaches the JSON keys" "moved_bytes, left_bytes and per_pass" "$out"
check_rc "evict bad swappiness word" 2 "$LRUGEN" --root "$r61" evict --memcg /jobs/web --older-than 3s --swappiness most
check_rc "evict --max-bytes 0" 2 "$LRUGEN" --root "$r61" evict --memcg /jobs/web --older-than 3s --max-bytes 0
check_grep "evict --max-bytes 0 message" "^lrugen: --max-bytes 0 would evict nothing$" \
	"$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --older-than 3s --max-bytes 0 2>&1)"
check_rc "evict unknown memcg" 2 "$LRUGEN" --root "$r61" evict --memcg /nope --older-than 3s --dry-run
check_rc "evict needs memcg" 2 "$LRUGEN" --root "$r61" evict --older-than 3s
check_rc "evict needs older-than" 2 "$LRUGEN" --root "$r61" evict --memcg /jobs/web
check_rc "evict bad swappiness" 2 "$LRUGEN" --root "$r61" evict --memcg /jobs/web --older-than 3s --swappiness 300
check_rc "evict refuses a fixture write" 3 "$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 3s
check_grep "evict fixture write message" "not on debugfs" \
	"$("$LRUGEN" --root "$r61" evict --memcg /jobs/web --node 1 --older-than 3s 2>&1)"
check "fixture untouched" "$before" "$(md5sum <"$r61/sys/kernel/debug/lru_gen")"
# age writes before it re-reads: a fixture root stops it at the first write, one line, exit 3
check_rc "age refuses a fixture write" 3 "$LRUGEN" --root "$r61" age --memcg /jobs/web
out=$("$LRUGEN" --root "$r61" age --memcg /jobs/web --json 2>&1)
check_grep "age fixture write message" "^lrugen: .*is a regular file, not on debugfs" "$out"
check "age fixture write: one line" 1 "$(wc -l <<<"$out")"
check "fixture untouched by age" "$before" "$(md5sum <"$r61/sys/kernel/debug/lru_gen")"

# cmd: raw commands checked against a fresh read
check_rc "cmd too-young eviction" 4 "$LRUGEN" --root "$r61" cmd "- 3 1 5"
check_grep "cmd too-young message" "refusing to evict generation 5 of memcg '/jobs/web' node 1: the two youngest generations \(5 and 6\)" \
	"$("$LRUGEN" --root "$r61" cmd "- 3 1 5" 2>&1)"
check_rc "cmd stale seq" 4 "$LRUGEN" --root "$r61" cmd "+ 3 1 5 1 1"
check_grep "cmd stale message" "max_seq of memcg '/jobs/web' node 1 is 6, not 5" \
	"$("$LRUGEN" --root "$r61" cmd "+ 3 1 5 1 1" 2>&1)"
check_rc "cmd unknown memcg" 2 "$LRUGEN" --root "$r61" cmd "+ 9999 0 1"
check_rc "cmd unknown node" 2 "$LRUGEN" --root "$r61" cmd "+ 1 7 5"
check_rc "cmd garbage" 2 "$LRUGEN" --root "$r61" cmd "garbage"
check "cmd dry-run" "would write '- 3 1 4'" "$("$LRUGEN" cmd --root "$r61" --dry-run "- 3 1 4")"

# doctor on a fixture root
json=$("$LRUGEN" --root "$r61" doctor --json)
check "doctor mglru warns on 6.1 with 0x0007" warn "$(jq -r '.[] | select(.check == "mglru") | .status' <<<"$json")"
check "doctor debugfs ok" ok "$(jq -r '.[] | select(.check == "debugfs") | .status' <<<"$json")"
check "doctor swap ok (the fixture has zram)" ok "$(jq -r '.[] | select(.check == "swap") | .status' <<<"$json")"
check "doctor: a fixture root is named as one" info "$(jq -r '.[] | select(.check == "fixture") | .status' <<<"$json")"
check_grep "doctor: a fixture root is not 'ready'" "^a read-only fixture: lrugen can read it" \
	"$("$LRUGEN" --root "$r61" doctor)"
check "doctor on / names no fixture" "" "$("$LRUGEN" doctor --json | jq -r '.[] | select(.check == "fixture") | .status')"
# without swap: an info finding, and evict plans file pages only (the kernel
# evicts no anon without swap)
printf 'Filename\tType\tSize\tUsed\tPriority\n' >"$tmp/r612/proc/swaps"
check "doctor swap info without swap" info \
	"$("$LRUGEN" --root "$tmp/r612" doctor --json | jq -r '.[] | select(.check == "swap") | .status')"
check_grep "evict without swap: file pages only" "no swap: file pages only" \
	"$("$LRUGEN" --root "$tmp/r612" evict --memcg /jobs/web --older-than 3s --dry-run 2>&1)"
check "evict --swappiness 100 without swap: counts and asks file pages only" "0 0" \
	"$("$LRUGEN" --root "$tmp/r612" evict --memcg /jobs/web --older-than 3s --swappiness 100 --dry-run --json |
		jq -r '[([.[].command | select(.) | split(" ")[4] | tonumber] | max // 0), ([.[].anon_bytes // 0] | add // 0)] | join(" ")')"
check_grep "... and says so" "no swap: file pages only, anon pages cannot be evicted \(--swappiness ignored\)" \
	"$("$LRUGEN" --root "$tmp/r612" evict --memcg /jobs/web --older-than 3s --swappiness 100 --dry-run 2>&1)"
check_rc "evict --swappiness max without swap: nothing could be evicted, exit 3" 3 \
	"$LRUGEN" --root "$tmp/r612" evict --memcg /jobs/web --older-than 3s --swappiness max --dry-run
check "doctor 6.12 mglru ok" ok \
	"$("$LRUGEN" --root "$tmp/r612" doctor --json | jq -r '.[] | select(.check == "mglru") | .status')"
echo 0x0000 >"$tmp/r612/sys/kernel/mm/lru_gen/enabled"
check_rc "doctor fails with mglru off" 3 "$LRUGEN" --root "$tmp/r612" doctor
check_grep "doctor gives the fix" "fix: lrugen enable" "$("$LRUGEN" --root "$tmp/r612" doctor)"
# enable refuses a fixture's regular file (as age and evict do) and leaves it alone
check_rc "enable on a fixture root: exit 3" 3 "$LRUGEN" --root "$tmp/r612" enable
check_grep "enable on a fixture root: why" "enabled' is a regular file, not on sysfs \(a fixture root\?\)" \
	"$("$LRUGEN" --root "$tmp/r612" enable 2>&1)"
check "enable on a fixture root: the file is untouched" 0x0000 "$(cat "$tmp/r612/sys/kernel/mm/lru_gen/enabled")"

# stdout errors are reported (git's rule): writing to a full device fails
if [[ -w /dev/full ]]; then
	check_rc "full stdout fails" 1 sh -c "'$LRUGEN' --root '$r61' show >/dev/full"
fi
finish
