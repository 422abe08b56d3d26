# tests/sh/tui.sh - lrugen-top driven through tmux on fixture, replay and fleet
# sources: what the screen shows (values, order, filter, folds, help, 80x24,
# the eviction dialog and what it writes), exit paths, and -n N runs (under
# ASan/UBSan in make check).
#
# Every wait is bounded polling of capture-pane (up to TUI_WAIT seconds),
# never a fixed sleep. The fleet source is tested against lrugen-store itself,
# fed with a SnapshotBatch from tests/tools/mkbatch.
. "$(dirname "$0")/lib.sh"
TOP=$LRUGEN_BUILD/lrugen-top
MKBATCH=$LRUGEN_BUILD/tests/tools/mkbatch
STORE=$LRUGEN_BUILD/lrugen-store
WAIT=${TUI_WAIT:-10}
SOCK=lrugen-tui-$$
tmp=$(mktemp -d)
store_pid=
export TERM=tmux-256color	# what tmux emulates: its key sequences match terminfo

tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tm kill-server >/dev/null 2>&1
	[ -n "$store_pid" ] && kill "$store_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

if ! command -v tmux >/dev/null || ! command -v curl >/dev/null; then
	fail "tmux and curl are needed (scripts/install-deps)"
	finish
	exit
fi
for b in "$TOP" "$MKBATCH" "$STORE"; do
	[ -x "$b" ] || { fail "$b is not built"; finish; exit; }
done

# start NAME COLSxLINES CMD...: run CMD in a detached session of that size;
# its exit status goes to $tmp/NAME.rc, its stderr to $tmp/NAME.err.
start() {
	local name=$1 size=$2 cmd
	shift 2
	cmd=$(printf '%q ' "$@")
	rm -f "$tmp/$name.rc"
	tm new-session -d -s "$name" -x "${size%x*}" -y "${size#*x}" \
		"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC $cmd 2>$tmp/$name.err; echo \$? >$tmp/$name.rc; sleep 600"
}

screen() { tm capture-pane -p -t "$1" 2>/dev/null; }
keys() { tm send-keys -t "$1" "${@:2}"; }

# wait_for NAME REGEX: poll the screen until it matches (true) or WAIT passes
wait_for() {
	local i
	for ((i = 0; i < WAIT * 10; i++)); do
		screen "$1" | grep -qE -- "$2" && return 0
		sleep 0.1
	done
	return 1
}

# wait_gone NAME REGEX: poll until the screen no longer matches
wait_gone() {
	local i
	for ((i = 0; i < WAIT * 10; i++)); do
		screen "$1" | grep -qE -- "$2" || return 0
		sleep 0.1
	done
	return 1
}

# expect NAME TEST REGEX: pass when the screen shows REGEX in time
expect() {
	if wait_for "$1" "$3"; then pass; else fail "$2: '$3' not on screen:"$'\n'"$(screen "$1")"; fi
}

expect_gone() {
	if wait_gone "$1" "$3"; then pass; else fail "$2: '$3' still on screen:"$'\n'"$(screen "$1")"; fi
}

# wait_exit NAME: the exit status of the session's command, or "timeout"
wait_exit() {
	local i
	for ((i = 0; i < WAIT * 30; i++)); do
		[ -s "$tmp/$1.rc" ] && { cat "$tmp/$1.rc"; return; }
		sleep 0.1
	done
	echo timeout
}

# rows NAME: the list's data rows (after the column titles), first two words
rows() { screen "$1" | sed -n '/^\(MEMCG\|HOST\|NODE\)/,$p' | sed -n '2,$p' | awk 'NF {print $1, $2}'; }

mkroot "$tmp/r61" 6.1
r61=$tmp/r61

# --- fixture root: the main view ----------------------------------------------------
start main 120x30 "$TOP" --root "$r61" -d 100 -T 3s
expect main "header: host, kernel, MGLRU, threshold, source" \
	"fixture-6\.1 +kernel 6\.1\.0-57-amd64 +MGLRU on 0x0007 +T 3s +window 30s +root /"
expect main "node meters side by side" "N0 .*133M/512M +N1 .*120M/512M"
expect main "column titles" "MEMCG +N +TOTAL +ANON +FILE +HOT +COLD +COLD% +G +OLDEST +-30s"
# lru_gen_full of the 6.1 capture: /jobs/web node 1 = 82 MiB idle + 38 MiB hot
expect main "web node 1 row: total, anon, hot, cold, cold%, gens, ages" \
	"^ +web +1 +120M +120M +0 +38\.0M +82\.0M +68% +4 +9\.4s"
expect main "batch node 0 row" "^ +batch +0 +130M +130M +0 +10\.0M +120M +92% +4"
expect main "tree: the root" "^▾ / +0 +2\.7M"
expect main "tree: /jobs indented with its fold mark" "^  ▾ jobs +0 +0"
expect main "tree: leaves indented under /jobs" "^      web +0 +0"
expect main "timeline: shades and the now edge" "web +1 .*█+ +█+ +│"
expect main "timeline axis with the T marker" "-30s .*T"
expect main "status bar hints" "F1Help.*qQuit"

# sort: flat list, '>' steps NAME -> N -> TOTAL -> ANON
keys main t
expect main "t: flat list" "flat list, sorted"
keys main '>' '>'
expect main "sorted by TOTAL after > >" "^/jobs/batch +0 +130M"
check "> >: order by TOTAL" "/jobs/batch 0|/jobs/web 1|/ 0|/ 1" "$(rows main | head -4 | paste -sd'|')"
keys main '>' '>' '>' '>'
expect main "sorted by COLD after 4 more >" "^/jobs/batch +0 .*120M +92%"
keys main '>'
expect main "sorted by COLD% after >" "^/ +0 .*2\.5M +91%"
check "COLD% order" "/jobs/batch 0|/ 0|/jobs/web 1|/ 1" "$(rows main | head -4 | paste -sd'|')"
keys main '<' '<'
expect main "< <: back to HOT" "^/jobs/web +1 +120M .*38\.0M"
check "< <: web first by HOT" "/jobs/web 1|/jobs/batch 0" "$(rows main | head -2 | paste -sd'|')"
keys main I
expect main "I inverts" "^/jobs +0 +0"
keys main I t
expect main "t: back to the tree" "tree view"

# filter
keys main /
expect main "filter prompt" "Filter: _"
keys main w e b
expect main "filter applies while typing" "Filter: web_"
expect_gone main "filter hides batch" "batch"
keys main Enter
expect main "filtered rows stay" "^ */jobs/web +1 +120M"
check "filter: only /jobs/web" "/jobs/web 0|/jobs/web 1" "$(rows main | head -2 | paste -sd'|')"
check "filter: nothing else" 2 "$(rows main | grep -c '^/')"
keys main Escape
expect main "Esc clears the filter" "batch +0 +130M"

# fold: the third row is /jobs node 0
keys main Home Down Down Left
expect main "Left folds /jobs" "▸ jobs +0"
expect_gone main "folded children hidden" "web +1"
keys main Right
expect main "Right unfolds" "▾ jobs +0"
expect main "children back" "web +1 +120M"

# details of /jobs/web node 1 (siblings sort by HOT: web, then batch)
keys main End Up Up
keys main Enter
expect main "details title" "/jobs/web +memcg id 3 +inode"
expect main "memory.stat essentials" "memory.stat +anon 0 +file 8\.0K"
expect main "generation table" "node 1 +SEQ +BORN +AGE +ANON +FILE +TOTAL +AT T"
expect main "oldest generation: cold" "^ +3 +[0-9:.]+ +9\.4s +82\.0M +0 +82\.0M cold"
expect main "hot generation" "^ +5 +[0-9:.]+ +4\.1s +38\.0M +0 +38\.0M hot"
keys main Enter
expect_gone main "Enter closes details" "memory\.stat"

# nodes merged, groups, threshold, zoom
keys main n
expect main "n: nodes merged" "web +\* +120M"
keys main n g
expect main "g: grouped by node" "grouped by node"
expect main "node group rows with totals" "^▾ node 0 +0 +133M +133M +0 +10\.2M +122M"
expect main "node 1 total" "^▾ node 1 +1 +120M"
expect main "a node's memcgs under it" "^        web +1 +120M"
keys main g g g
expect main "back to no grouping" "no grouping"
keys main T
expect main "T steps to 30s" "T 30s"
expect main "nothing is cold at 30s" "web +1 +120M +120M +0 +120M +0 +0%"
keys main -
expect main "- zooms out" "window 1m"
keys main +
expect main "+ zooms in" "window 30s"

# help
keys main '?'
expect main "help screen" "lrugen-top .* keys"
expect main "help lists bindings from the table" "> \. +sort by the next column"
keys main x
expect_gone main "any key leaves help" "keys \(j k scroll"
expect main "the list is back" "^      web +1 +120M"

# age and evict are refused on a fixture root (lru_gen is a regular file)
keys main e
expect main "evict refused on a fixture root" "regular file, not debugfs"
keys main a
expect main "age refused on a fixture root" "regular file, not debugfs"

# resize to 80x24
tm resize-window -t main -x 80 -y 24
expect main "80x24: compact header" "^fixture-6\.1 +6\.1\.0-57-amd64 +MGLRU on +T 30s +win 30s"
expect main "80x24: essential columns" "MEMCG +N +TOTAL +HOT +COLD +COLD% +G +OLDEST"
expect main "80x24: web row" "web +1 +120M +120M +0 +0% +4 +9\.4s"
check "80x24: 24 lines" 24 "$(screen main | wc -l)"
check "80x24: nothing wider than 80 columns" 80 "$(screen main | LC_ALL=C.UTF-8 wc -L)"
keys main q
check "q exits 0" 0 "$(wait_exit main)"
expect_gone main "terminal restored after q" "MEMCG"

# no colours (vt100), and ASCII shades without a UTF-8 locale
start mono 100x30 env TERM=vt100 LC_ALL=C LANG=C "$TOP" --root "$r61" -d 100 -T 3s
expect mono "vt100 without UTF-8: ASCII fold marks" "^- / +0 +2\.7M"
expect mono "ASCII shades and edges" "web +1 +120M .*#+ +#+ +\|"
keys mono q
check "vt100 session exits 0" 0 "$(wait_exit mono)"

# --- exit paths -------------------------------------------------------------------------
out=$(TERM=dumb "$TOP" --root "$r61" 2>&1 </dev/null)
check "TERM=dumb exit 3" 3 "$(TERM=dumb "$TOP" --root "$r61" >/dev/null 2>&1 </dev/null; echo $?)"
check_grep "TERM=dumb explains" "TERM is 'dumb': this terminal cannot draw a full-screen view" "$out"
check_rc "missing root exit 3" 3 env TERM=xterm "$TOP" --root "$tmp/none"
check_rc "bad option exit 2" 2 "$TOP" --bogus
check_rc "bad -d exit 2" 2 "$TOP" -d x
check_rc "two sources exit 2" 2 "$TOP" --root "$r61" --replay x
check_grep "-h documents -n and -d" "-n, --iterations N .*-d, --delay SECS|-d, --delay SECS" "$("$TOP" -h)"

start sig 100x30 sh -c "echo \$\$ >$tmp/sig.pid; exec $TOP --root $r61 -d 100"
expect sig "running before SIGTERM" "MEMCG"
kill -TERM "$(cat "$tmp/sig.pid")"
check "SIGTERM exit 143" 143 "$(wait_exit sig)"
expect_gone sig "terminal restored after SIGTERM" "MEMCG"

# -n N with a short delay (ASan/UBSan in make check: stderr must stay empty)
start n5 100x30 "$TOP" --root "$r61" -n 5 -d 0.05
check "-n 5 on a root exits 0" 0 "$(wait_exit n5)"
check "-n 5 on a root: nothing on stderr" "" "$(cat "$tmp/n5.err")"

# --- commands: a FIFO stands in for debugfs' lru_gen -----------------------------------
mkroot "$tmp/rw" 6.1
rm "$tmp/rw/sys/kernel/debug/lru_gen"
mkfifo "$tmp/rw/sys/kernel/debug/lru_gen"
start cmd 100x30 "$TOP" --root "$tmp/rw" -d 100 -T 3s --flat
expect cmd "started" "MEMCG"
keys cmd '>' '>'
expect cmd "sorted by TOTAL" "^/jobs/batch +0 +130M"
keys cmd Home Down
expect cmd "selection moves" "^/jobs/web +1 +120M"
keys cmd e
expect cmd "evict asks for the threshold (default T)" "Evict older than: 3s_"
keys cmd Enter
expect cmd "dialog names the lruvec" "Evict from /jobs/web node 1 what is idle longer than 3s:"
expect cmd "dialog shows the file" "will write to .*/rw/sys/kernel/debug/lru_gen"
expect cmd "dialog shows the exact command" "│ +- 3 1 4 +│"
expect cmd "dialog shows the bytes" "up to 82\.0M \(86028288 bytes\)"
keys cmd n
expect cmd "any other key cancels" "cancelled: nothing written"
cat "$tmp/rw/sys/kernel/debug/lru_gen" >"$tmp/written" &
reader=$!
keys cmd e Enter
expect cmd "dialog again" "- 3 1 4"
keys cmd y
expect cmd "y writes" "wrote 1 command to"
wait "$reader"
check "the kernel file received the command" "- 3 1 4" "$(cat "$tmp/written")"
cat "$tmp/rw/sys/kernel/debug/lru_gen" >"$tmp/written" &
reader=$!
keys cmd a
expect cmd "age dialog" "Age /jobs/web node 1 \(create a generation\):"
expect cmd "age command" "\+ 3 1 6 1 1"
expect cmd "age bytes" "scans 120M \(125874176 bytes\)"
keys cmd y
wait "$reader"
check "aging command written" "+ 3 1 6 1 1" "$(cat "$tmp/written")"
keys cmd e
tm send-keys -t cmd C-u 1 h Enter
expect cmd "nothing older than 1h" "nothing to evict in /jobs/web node 1: no generation older"
keys cmd q
check "cmd session exits 0" 0 "$(wait_exit cmd)"

start ro 100x30 "$TOP" --root "$tmp/rw" -d 100 --readonly
expect ro "started" "MEMCG"
keys ro a
expect ro "--readonly refuses" "read-only \(--readonly\)"
keys ro q
wait_exit ro >/dev/null

# --- replay: a SnapshotBatch of two hosts, and a collector spool ----------------------
fx=$LRUGEN_SRC/tests/fixtures
t0=1767225600000
"$MKBATCH" "$tmp/batch.pb" alpha:$t0:$fx/linux-6.1/lru_gen.txt \
	beta:$((t0 + 1000)):$fx/linux-6.12/lru_gen.txt \
	alpha:$((t0 + 10000)):$fx/linux-6.1/lru_gen_full.txt \
	alpha:$((t0 + 20000)):$fx/linux-6.1/lru_gen-idle.txt
check "mkbatch writes a batch" 0 "$?"
start rp 120x40 "$TOP" --replay "$tmp/batch.pb" -d 100 -g host
expect rp "replay opens at the last frame" "frame 4/4 00:00:19\.999"
expect rp "host groups" "▾ alpha +\* +52\.8M"
expect rp "beta from its only snapshot" "▾ beta +\* +253M"
expect rp "idle capture at the last frame" "^ +web +1 +40\.0M"
keys rp '['
expect rp "[ steps back and pauses" "PAUSED frame 3/4 00:00:09\.999"
expect rp "the earlier snapshot" "^ +web +1 +120M"
keys rp '{'
expect rp "{ goes back to the first frame" "frame 1/4 23:59:59\.999"
expect_gone rp "beta is not there before its first snapshot" "beta"
keys rp '}'
expect rp "} to the last frame" "frame 4/4"
keys rp a
expect rp "no commands in replay" "replay shows recorded snapshots"
keys rp q
check "replay exits 0" 0 "$(wait_exit rp)"
start rpn 100x30 "$TOP" --replay "$tmp/batch.pb" -n 5 -d 0.05
check "-n 5 on a replay exits 0" 0 "$(wait_exit rpn)"
check "-n 5 on a replay: nothing on stderr" "" "$(cat "$tmp/rpn.err")"

"$MKBATCH" --spool "$tmp/spool" solo:$t0:$fx/linux-6.1/lru_gen.txt \
	solo:$((t0 + 10000)):$fx/linux-6.1/lru_gen-idle.txt
check "mkbatch writes a spool" 0 "$?"
start sp 120x30 "$TOP" --replay "$tmp/spool" -d 100
expect sp "spool replay" "replay /.* +frame 2/2"
keys sp '['
expect sp "spool: first record" "frame 1/2"
keys sp q
wait_exit sp >/dev/null
check "the spool is left alone (no lock taken)" "" "$(ls "$tmp/spool" | grep -v -e '\.seg$' -e '^head$' -e '^seq$' -e '^lock$')"
check_rc "replay of garbage exits 1" 1 env TERM=xterm "$TOP" --replay "$r61/proc/mounts"

# --- fleet: lrugen-store's query API ------------------------------------------------------
# alpha: the 6.1 lru_gen capture read 20 s ago, then lru_gen_full 5 s ago (the
# latest read wins); beta: the 6.12 capture 15 s ago. Ingested as lrugend would.
mkdir -p "$tmp/store"
echo "read-$RANDOM$RANDOM" >"$tmp/store/read.token"
echo "ingest-$RANDOM$RANDOM" >"$tmp/store/ingest.token"
{
	echo "read-token $("$STORE" --hash-token <"$tmp/store/read.token")"
	echo "ingest-token $("$STORE" --hash-token <"$tmp/store/ingest.token") host=*"
} >"$tmp/store/tokens.conf"

# run_store: lrugen-store on a free port; sets store_pid and url
run_store() {
	local i
	"$STORE" --db "$tmp/store/db" --listen 127.0.0.1:0 --config "$tmp/store/tokens.conf" \
		>"$tmp/store/log" 2>&1 &
	store_pid=$!
	url=
	for ((i = 0; i < WAIT * 10; i++)); do
		url=$(sed -n 's/.*listening on \(http:\/\/[^ ]*\).*/\1/p' "$tmp/store/log")
		[ -n "$url" ] && curl -sf "$url/healthz" >/dev/null 2>&1 && break
		sleep 0.1
	done
}

run_store
check_grep "lrugen-store started" "^http://127\.0\.0\.1:[0-9]+$" "$url"
now=$(date +%s%3N)
"$MKBATCH" "$tmp/fleet.pb" alpha:$((now - 20000)):$fx/linux-6.1/lru_gen.txt \
	beta:$((now - 15000)):$fx/linux-6.12/lru_gen.txt \
	alpha:$((now - 5000)):$fx/linux-6.1/lru_gen_full.txt
check "ingest" '{"accepted":3,"duplicates":0}' \
	"$(curl -s -X POST -H "Authorization: Bearer $(cat "$tmp/store/ingest.token")" \
		-H "Content-Type: application/x-protobuf" --data-binary @"$tmp/fleet.pb" "$url/v1/snapshots")"
start fl 150x30 "$TOP" --store "$url" --token-file "$tmp/store/read.token" -d 100 -T 3s
expect fl "fleet header" "hosts 2 +T 3s +window 30s +fleet http://127\.0\.0\.1:"
expect fl "fleet totals" "16 lruvecs +total 506M +hot 98\.5M +cold 407M \(80%\)"
expect fl "alpha web node 1, from the latest read" "^      web +alpha +1 +120M +120M +0 +38\.0M +82\.0M +68% +4 +9\.4s"
expect fl "beta web node 0" "^      web +beta +0 +120M +120M +0 +40\.0M +80\.0M +66% +4 +9\.1s"
expect fl "timeline drawn for store data" "web +alpha +1 .*█ .*│"
keys fl g g g
expect fl "grouped by memcg across hosts" "grouped by memcg across hosts"
expect fl "/jobs/web across hosts" "^▾ /jobs/web +\* +240M +240M +0 +78\.0M +162M +67%"
check "its lruvecs as children" "alpha 0|alpha 1|beta 0|beta 1" \
	"$(rows fl | sed -n '/^▾ \/jobs\/web/,$p' | sed -n '2,5p' | paste -sd'|')"
keys fl e
expect fl "no commands in fleet mode" "fleet mode is read-only"
kill "$store_pid"
wait "$store_pid" 2>/dev/null
store_pid=
keys fl r
expect fl "soft error in the status bar" "store unreachable, retrying"
expect fl "the last data stays" "/jobs/web +\* +240M"
keys fl q
check "fleet exits 0" 0 "$(wait_exit fl)"

run_store
start flbad 120x30 env LRUGEN_TOKEN=wrong "$TOP" --store "$url" -d 100
expect flbad "a wrong token is named" "store refused the token \(HTTP 401\)"
keys flbad q
wait_exit flbad >/dev/null
start fln 100x30 env LRUGEN_TOKEN="$(cat "$tmp/store/read.token")" "$TOP" --store "$url" -n 5 -d 0.05
check "-n 5 on a store exits 0" 0 "$(wait_exit fln)"
check "-n 5 on a store: nothing on stderr" "" "$(cat "$tmp/fln.err")"

finish
