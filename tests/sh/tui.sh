# tests/sh/tui.sh - lrugen-top driven through tmux on fixture, replay and fleet
# sources: what the screen shows (values, order, filter, folds, help, 80x24,
# the eviction dialog and what it writes, the '!' of rows whose figures are
# bounds), exit paths, and -n N runs (under ASan/UBSan in make check).
#
# Every wait is bounded polling of capture-pane (up to TUI_WAIT seconds),
# never a fixed sleep. The fleet source is tested against lrugen-store itself,
# fed with a SnapshotBatch from tests/tools/mkbatch.
. "$(dirname "$0")/lib.sh"
TOP=$LRUGEN_BUILD/lrugen-top
MKBATCH=$LRUGEN_BUILD/tests/tools/mkbatch
FLEETSIM=$LRUGEN_BUILD/tests/tools/fleetsim
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
for b in "$TOP" "$MKBATCH" "$FLEETSIM" "$STORE"; do
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
expect main "header: host, kernel, MGLRU, interface, threshold, source" \
	"fixture-6\.1 +kernel 6\.1\.0-57-amd64 +MGLRU on 0x0007 +debugfs +T 3s +window 30s +root \.\.\.[^ ]*/r61 +every 100s"
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
check "no warning marks on a host without DAMON" 0 "$(screen main | grep -c '!')"

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
keys main j j j j j j j j j j j j j j j
expect main "help, scrolled: the warning mark explained" "! before HOT: the row's figures are bounds"
expect main "help: which colour is hot and which cold" "Colour: (red|bold) = hot \(young\), (blue|plain) = cold"
keys main q
expect_gone main "q leaves help (and does not quit)" "keys \(j k scroll"
keys main '?'
expect main "help again" "lrugen-top .* keys"
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
expect main "80x24: compact header" "^fixture-6\.1 +6\.1\.0-57-amd64 +MGLRU on +debugfs +T 30s +win 30s"
expect main "80x24: essential columns" "MEMCG +N +TOTAL +HOT +COLD +COLD% +G +OLDEST"
expect main "80x24: web row" "web +1 +120M +120M +0 +0% +4 +9\.4s"
check "80x24: 24 lines" 24 "$(screen main | wc -l)"
check "80x24: nothing wider than 80 columns" 80 "$(screen main | LC_ALL=C.UTF-8 wc -L)"
keys main q
check "q exits 0" 0 "$(wait_exit main)"
expect_gone main "terminal restored after q" "MEMCG"

# --- accuracy warnings: Debian 7.3's root, damon_stat on, /jobs/web in huge pages ----
# lrugen-top reads DAMON's state as lrugen does (lru_warn_read_apply): /jobs/web's
# lruvecs are thp_unaged, their hot bytes a lower bound: '!' before HOT.
mkroot "$tmp/r73" 7.3
start warn 120x30 "$TOP" --root "$tmp/r73" -d 100 -T 3s
expect warn "a warned row: '!' before its hot bytes" "^      web +1 +120M +120M +0 +!33\.0M +87\.1M +72% +4"
expect warn "an empty warned lruvec too" "^      web +0 +0 +0 +0 +!0 +0 +0%"
check "unwarned rows are not marked" 0 "$(screen warn | grep -E '^ +(batch|jobs|/) ' | grep -c '!')"
expect warn "the status bar says what the mark means" "^! thp_unaged: hot is a lower bound \\(DAMON hides huge-page accesses\\)"
keys warn End Enter
expect warn "details: the warning, wrapped" "^  ! thp_unaged: a DAMON monitor clears the accessed bits"
expect warn "details: all of it" "^    .*hot is a lower bound, cold an upper bound"
keys warn Enter
expect_gone warn "details closed" "cold an upper bound"
keys warn g g g
expect warn "a group of warned lruvecs is marked" "^▾ /jobs/web +\* +120M +120M +0 +!33\.0M"
expect warn "a group of unwarned ones is not" "^▾ /jobs/batch +\* +130M +130M +0 +9\.9M"
keys warn g
expect warn "back to no grouping" "no grouping"
tm resize-window -t warn -x 80 -y 24
expect warn "80x24: the mark fits the HOT column" "^      web +1 +120M +!33\.0M +87\.1M +72% +4 +9\.5s"
check "80x24 with marks: 24 lines" 24 "$(screen warn | wc -l)"
check "80x24 with marks: nothing wider than 80 columns" 80 "$(screen warn | LC_ALL=C.UTF-8 wc -L)"
echo N >"$tmp/r73/sys/module/damon_stat/parameters/enabled"
keys warn r
expect_gone warn "damon_stat off: no mark after r" "!33\.0M"
expect warn "and the hints are back" "F1Help"
keys warn q
check "warned session exits 0" 0 "$(wait_exit warn)"
check "warned session: nothing on stderr" "" "$(cat "$tmp/warn.err")"

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
check_rc "a --root that does not exist: exit 2" 2 env TERM=xterm "$TOP" --root "$tmp/none"
check_grep "... named as such" "--root '$tmp/none': no such directory" \
	"$(TERM=xterm "$TOP" --root "$tmp/none" 2>&1)"
mkdir -p "$tmp/nodebug"
check_rc "a root without lru_gen: exit 3" 3 env TERM=xterm "$TOP" --root "$tmp/nodebug"
check_rc "bad option exit 2" 2 "$TOP" --bogus
check_rc "bad -d exit 2" 2 "$TOP" -d x
check_rc "two sources exit 2" 2 "$TOP" --root "$r61" --replay x
check "--version: lrugen's version" "lrugen-top $("$LRUGEN_BUILD/lrugen" --version | cut -d' ' -f2)" "$("$TOP" --version)"
check_rc "missing --token-file: exit 2 (a bad command line)" 2 env TERM=xterm "$TOP" --store http://127.0.0.1:1 --token-file "$tmp/none.token"
out=$(TERM=xterm "$TOP" --store http://127.0.0.1:1 --token-file "$tmp/none.token" 2>&1)
check_grep "missing --token-file: one line naming the file" "^lrugen-top: --token-file: cannot read token file '.*none.token': No such file" "$out"
check "missing --token-file: one line" 1 "$(printf '%s\n' "$out" | wc -l)"
check_grep "-h documents -n and -d" "-n, --iterations N .*-d, --delay SECS|-d, --delay SECS" "$("$TOP" -h)"
check_grep "-h documents --interface" "--interface I +auto, cgroup \(each memcg's memory\.lru_gen\) or debugfs" "$("$TOP" -h)"

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
expect cmd "dialog shows the root" "will write one command per write\(2\) under .*/rw:"
expect cmd "dialog shows the file and the exact command" "│ +/sys/kernel/debug/lru_gen: - 3 1 4 +│"
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

# --- memory.lru_gen: the cgroup interface (tests/fixtures/memory.lru_gen/README.md) ---
# the 6.1 root plus memory.lru_gen for /jobs, /jobs/web and /jobs/batch, as in
# cgroup_iface.sh; the root memcg comes from debugfs lru_gen. At T 5s /jobs/web
# node 1 holds 80 MiB cold (seq 4) and 41 MiB hot, /jobs/batch node 0 120 MiB
# cold and 10 MiB hot.
mkcgroot() {
	mkroot "$1" 6.1
	cp -r "$LRUGEN_SRC/tests/fixtures/memory.lru_gen/jobs" "$1/sys/fs/cgroup/"
}
mkcgroot "$tmp/cg"
cg=$tmp/cg
web=$cg/sys/fs/cgroup/jobs/web/memory.lru_gen
cp "$web" "$tmp/web.lru_gen"
# web_fifo / web_file: a FIFO stands in for /jobs/web's memory.lru_gen to take
# commands (lrugen-top re-reads only on r: -d 100), or the fixture's file is back
web_fifo() { rm -f "$web" && mkfifo "$web"; }
web_file() { rm -f "$web" && cp "$tmp/web.lru_gen" "$web"; }
unset LRUGEN_INTERFACE
start cgi 120x30 "$TOP" --root "$cg" -d 100 -T 5s
expect cgi "header names memory.lru_gen" "MGLRU on 0x0007 +memory\.lru_gen +T 5s +window 30s"
expect cgi "web node 1 from its memory.lru_gen" \
	"^      web +1 +121M +120M +1\.0M +41\.0M +80\.0M +66% +4 +9\.0s"
expect cgi "web node 0" "^      web +0 +12\.0K +8\.0K +4\.0K +8\.0K +4\.0K +33% +4 +9\.0s"
expect cgi "batch node 0" "^      batch +0 +130M +130M +0 +10\.0M +120M +92% +3 +12\.0s"
expect cgi "the root memcg from debugfs" "^▾ / +0 +2\.7M"
expect cgi "no note: the hints stay" "F1Help.*qQuit"
keys cgi End Enter
expect cgi "details: no memcg id through memory.lru_gen" "/jobs/web +memcg id - \(memory\.lru_gen\) +inode"
expect cgi "details: tiers are not available" "node 1 +SEQ .* AT T +TIERS not available through memory\.lru_gen"
expect cgi "details: seq 4 cold" "^ +4 +[0-9:.]+ +9\.0s +80\.0M +0 +80\.0M cold"
expect cgi "details: seq 6 hot" "^ +6 +[0-9:.]+ +3\.0s +40\.0M +0 +40\.0M hot"
check "details: no tier sums" 0 "$(screen cgi | grep -c 'TIERS (sum')"
keys cgi Enter
expect_gone cgi "details closed" "TIERS"
keys cgi a
expect cgi "age refused: the memcg's file is a fixture's" \
	"'$web' is a regular file, not cgroupfs \(a fixture root\)"
keys cgi Home a
expect cgi "age of / refused: it goes to debugfs lru_gen" \
	"kernel/debug/lru_gen' is a regular file, not debugfs"
web_fifo
keys cgi End e Enter
expect cgi "evict dialog" "Evict from /jobs/web node 1 what is idle longer than 5s:"
expect cgi "evict dialog: the root" "will write one command per write\(2\) under .*/cg:"
expect cgi "evict dialog: memory.lru_gen command" "│ +/sys/fs/cgroup/jobs/web/memory\.lru_gen: - N1 4 +│"
expect cgi "evict dialog: bytes" "up to 80\.0M \(83886080 bytes\)"
keys cgi n
expect cgi "cancelled" "cancelled: nothing written"
cat "$web" >"$tmp/written" &
reader=$!
keys cgi e Enter
expect cgi "evict dialog again" "memory\.lru_gen: - N1 4"
keys cgi y
expect cgi "y writes to the memcg's file" "wrote 1 command to .*/jobs/web/memory\.lru_gen"
wait "$reader"
check "memory.lru_gen received the eviction" "- N1 4" "$(cat "$tmp/written")"
web_file
keys cgi r
expect cgi "web back after r" "^      web +1 +121M"
web_fifo
keys cgi End a
expect cgi "age dialog" "Age /jobs/web node 1 \(create a generation\):"
expect cgi "age dialog: memory.lru_gen command" "│ +/sys/fs/cgroup/jobs/web/memory\.lru_gen: \+ N1 7 1 1 +│"
expect cgi "age dialog: bytes" "scans 121M \(126877696 bytes\)"
keys cgi y
expect cgi "a failed write: the library's message in the status bar" \
	"0 of 1 written: cannot open '$web' for writing: no r"	# cut at 120 columns
web_file
keys cgi q
check "cgroup session exits 0" 0 "$(wait_exit cgi)"

# the root memcg left out (no debugfs lru_gen): the status bar says why
mkcgroot "$tmp/nodbg"
rm "$tmp/nodbg/sys/kernel/debug/lru_gen"
start nodbg 120x30 "$TOP" --root "$tmp/nodbg" -d 100 -T 5s
expect nodbg "still memory.lru_gen" "memory\.lru_gen +T 5s"
expect nodbg "rows without debugfs" "^    web +1 +121M"
expect nodbg "the note in the status bar" \
	"^root memcg left out: it has no memory\.lru_gen and debugfs lru_gen is not readable"
check "no root memcg row" 0 "$(rows nodbg | awk '$2 == "/"' | wc -l)"
keys nodbg q
wait_exit nodbg >/dev/null

# LRUGEN_INTERFACE=debugfs: lru_gen_full as before (ids, tiers); the flag wins
start dbg 120x30 env LRUGEN_INTERFACE=debugfs "$TOP" --root "$cg" -d 100 -T 3s
expect dbg "env debugfs: header" "MGLRU on 0x0007 +debugfs +T 3s"
expect dbg "env debugfs: the 6.1 capture's web node 1" \
	"^      web +1 +120M +120M +0 +38\.0M +82\.0M +68% +4 +9\.4s"
keys dbg End Enter
expect dbg "env debugfs: memcg id" "/jobs/web +memcg id 3 +inode"
expect dbg "env debugfs: tier counters" "TIERS \(sum r e p / R T\)"
keys dbg q
wait_exit dbg >/dev/null
start flag 120x30 env LRUGEN_INTERFACE=debugfs "$TOP" --root "$cg" --interface cgroup -d 100 -T 5s
expect flag "--interface beats the environment" "MGLRU on 0x0007 +memory\.lru_gen +T 5s"
keys flag q
wait_exit flag >/dev/null
start n5cg 100x30 "$TOP" --root "$cg" -n 5 -d 0.05
check "-n 5 through memory.lru_gen exits 0" 0 "$(wait_exit n5cg)"
check "-n 5 through memory.lru_gen: nothing on stderr" "" "$(cat "$tmp/n5cg.err")"
check_rc "cgroup forced without memory.lru_gen exit 3" 3 env TERM=xterm "$TOP" --root "$r61" --interface cgroup
check_grep "cgroup forced: the library's message" "interface 'cgroup': no memcg below '.*/sys/fs/cgroup' has memory\.lru_gen" \
	"$(TERM=xterm "$TOP" --root "$r61" --interface cgroup 2>&1 </dev/null)"
check_rc "bad LRUGEN_INTERFACE exit 2" 2 env LRUGEN_INTERFACE=sysfs "$TOP" --root "$cg"
check_grep "bad LRUGEN_INTERFACE named" "LRUGEN_INTERFACE: interface 'sysfs' is not auto, cgroup or debugfs" \
	"$(LRUGEN_INTERFACE=sysfs "$TOP" --root "$cg" 2>&1 </dev/null)"
check_rc "bad --interface exit 2" 2 "$TOP" --root "$cg" --interface sysfs

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
expect rp "a one-host frame names what its collector read" "alpha .*MGLRU .* debugfs "
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
expect sp "spool replay: at 120 columns the path loses its middle, not its end" \
	"^solo +kernel 6\.1\.0-test +MGLRU on 0x0007 +debugfs +T 2m +window 30s +replay \.\.\.[^ ]*/spool \(spool\) +frame 2/2"
tm resize-window -t sp -x 100 -y 30
expect sp "100 columns: a label that cannot keep 28 columns goes whole" \
	"^solo +6\.1\.0-test +MGLRU on +debugfs +T 2m +win 30s +frame 2/2"
keys sp '['
expect sp "spool: first record" "frame 1/2"
keys sp q
wait_exit sp >/dev/null
check "the spool is left alone (no lock taken)" "" "$(ls "$tmp/spool" | grep -v -e '\.seg$' -e '^head$' -e '^seq$' -e '^lock$')"
check_rc "replay of garbage exits 1" 1 env TERM=xterm "$TOP" --replay "$r61/proc/mounts"
mkdir -p "$tmp/emptyspool"
check_grep "replay of a spool with nothing unacknowledged: says why it is empty" \
	"holds no snapshots: a spool keeps only what the store has not acknowledged yet" \
	"$(TERM=xterm "$TOP" --replay "$tmp/emptyspool" 2>&1)"

# lrugend leaves out empty memcgs, but not /jobs above web and batch: the
# replayed tree keeps its parent
"$LRUGEN_BUILD/lrugend" --root "$r61" --once --no-age --output "$tmp/rec.pb" 2>/dev/null
check "lrugend --once --output records the fixture" 0 "$?"
start rec 120x30 "$TOP" --replay "$tmp/rec.pb" -d 100
expect rec "replay: the empty parent /jobs is in the tree" "^  ▾ jobs +0 +0 "
expect rec "replay: its children under it" "^      batch +0 +130M"
keys rec q
wait_exit rec >/dev/null

# a recorded snapshot carries its warnings (set by lrugend, in the protobuf)
"$FLEETSIM" build >"$tmp/warned.pb" <<'EOF'
host gamma boot g-1 seq 1 taken -5s warn damon_active
node 0 total 8G free 1G
lruvec /jobs/web ino 100 id 5 node 0 warn thp_unaged
gen 1 60s 10000 0
gen 2 2s 5000 0
lruvec /jobs/batch ino 200 id 6 node 0
gen 1 60s 8000 0
gen 2 2s 100 0
EOF
check "fleetsim writes a warned batch" 0 "$?"
start rpw 120x30 "$TOP" --replay "$tmp/warned.pb" -d 100 -T 30s
expect rpw "replay: the warned lruvec marked" "^  /jobs/web +0 +58\.6M +58\.6M +0 +!58\.6M +0 +0%"
expect rpw "replay: the other one not" "^  /jobs/batch +0 +31\.6M +31\.6M +0 +31\.6M +0 +0%"
expect rpw "replay: the status bar explains" "^! thp_unaged: "
keys rpw q
wait_exit rpw >/dev/null

# --- fleet: lrugen-store's query API ------------------------------------------------------
# alpha: the 6.1 lru_gen capture read 20 s ago, then lru_gen_full 5 s ago (the
# latest read wins); beta: the 6.12 capture 15 s ago. Ingested as lrugend would.
mkdir -p "$tmp/store"
echo "read-$RANDOM$RANDOM" >"$tmp/store/read.token"
echo "ingest-$RANDOM$RANDOM" >"$tmp/store/ingest.token"
{
	echo "read-token = $("$STORE" --hash-token <"$tmp/store/read.token")"
	echo "ingest-token = $("$STORE" --hash-token <"$tmp/store/ingest.token") host=*"
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

# ingest FILE: POST a SnapshotBatch with the ingest token; prints the answer
ingest() {
	curl -s -X POST -H "Authorization: Bearer $(cat "$tmp/store/ingest.token")" \
		-H "Content-Type: application/x-protobuf" --data-binary @"$1" "$url/v1/snapshots"
}

run_store
check_grep "lrugen-store started" "^http://127\.0\.0\.1:[0-9]+$" "$url"
now=$(date +%s%3N)
"$MKBATCH" "$tmp/fleet.pb" alpha:$((now - 20000)):$fx/linux-6.1/lru_gen.txt \
	beta:$((now - 15000)):$fx/linux-6.12/lru_gen.txt \
	alpha:$((now - 5000)):$fx/linux-6.1/lru_gen_full.txt
check "ingest" '{"accepted":3,"duplicates":0}' "$(ingest "$tmp/fleet.pb")"
start fl 150x30 "$TOP" --store "$url" --token-file "$tmp/store/read.token" -d 100 -T 3s
# the window fits the oldest generation, 20 s and more old by now: 30s, or 1m on a
# machine slow enough that lrugen-top starts 10 s after the ingest
expect fl "fleet header" "hosts 2 +T 3s +window (30s|1m) +fleet http://127\.0\.0\.1:"
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
# the next frames ask only what changed (changed_since) and merge it by host name
"$MKBATCH" "$tmp/delta.pb" ceta:$((now - 4000)):$fx/linux-6.12/lru_gen.txt
check "ingest a third host" '{"accepted":1,"duplicates":0}' "$(ingest "$tmp/delta.pb")"
keys fl r
expect fl "a host sent since the last frame joins it" "hosts 3 +T 3s"
check "merged by name, the hosts before it kept" "alpha beta ceta" \
	"$(rows fl | awk '{print $1}' | grep -E '^(alpha|beta|ceta)$' | sort -u | paste -sd' ')"
kill "$store_pid"
wait "$store_pid" 2>/dev/null
store_pid=
keys fl r
expect fl "soft error in the status bar" "store unreachable, retrying"
expect fl "the last data stays" "/jobs/web +\* +360M"
keys fl q
check "fleet exits 0" 0 "$(wait_exit fl)"

run_store
# a host whose snapshot is warned: the store's "warnings" reach the rows
check "ingest a warned host" '{"accepted":1,"duplicates":0}' "$(ingest "$tmp/warned.pb")"
start flw 150x30 "$TOP" --store "$url" --token-file "$tmp/store/read.token" -d 100 -T 30s
expect flw "fleet: the warned lruvec marked" "^  /jobs/web +gamma +0 +58\.6M +58\.6M +0 +!58\.6M"
expect flw "fleet: its unwarned neighbour" "^  /jobs/batch +gamma +0 +31\.6M +31\.6M +0 +31\.6M"
check "fleet: other hosts' rows unmarked" 0 "$(screen flw | grep -E ' (alpha|beta) ' | grep -c '!')"
expect flw "fleet: the status bar explains" "^! thp_unaged: "
keys flw q
wait_exit flw >/dev/null

start flbad 120x30 env LRUGEN_TOKEN=wrong "$TOP" --store "$url" -d 100
expect flbad "a wrong token is named" "store refused the token \(HTTP 401\)"
keys flbad q
wait_exit flbad >/dev/null
start fln 100x30 env LRUGEN_TOKEN="$(cat "$tmp/store/read.token")" "$TOP" --store "$url" -n 5 -d 0.05
check "-n 5 on a store exits 0" 0 "$(wait_exit fln)"
check "-n 5 on a store: nothing on stderr" "" "$(cat "$tmp/fln.err")"
# --memcg-glob: the store sends only the matching memcgs' lruvecs
start flg 150x30 "$TOP" --store "$url" --token-file "$tmp/store/read.token" -d 100 -T 30s --flat \
	--memcg-glob '/jobs/web'
expect flg "--memcg-glob: named in the header" "fleet http://127\.0\.0\.1:[0-9]+ memcgs /jobs/web"
expect flg "--memcg-glob: web's rows" "^/jobs/web +gamma "
check "--memcg-glob: no other memcg" "" "$(rows flg | awk '$1 ~ /^\// && $1 != "/jobs/web"')"
keys flg q
wait_exit flg >/dev/null
check_rc "--memcg-glob without --store: exit 2" 2 env TERM=xterm "$TOP" --root "$r61" --memcg-glob '/x'
# a fleet of more hosts than a page (256): fetched page by page, every host shown
"$LRUGEN_BUILD/tests/tools/fleetsim" run --store "$url" --token-file "$tmp/store/ingest.token" \
	--hosts 300 --memcgs 2 --nodes 1 --cycles 1 >"$tmp/sim.out" 2>&1
check_grep "300 more hosts sent" "accepted=300 " "$(cat "$tmp/sim.out")"
start flp 150x30 "$TOP" --store "$url" --token-file "$tmp/store/read.token" -d 100
expect flp "every host of every page (alpha, beta, ceta, gamma and 300)" "hosts 304 "
keys flp q
wait_exit flp >/dev/null
# one request a page (GET /v1/latest), no JSON queries: since this store
# started, the lrugen-top sessions asked /v1/latest only
check "fleet mode asks /v1/latest, and /v1/advise (a minute apart)" "advise latest" \
	"$(curl -s "$url/metrics" | sed -n 's/^lrugen_store_http_responses_total{route="\([a-z]*\)".*/\1/p' |
		grep -Ev "ingest|healthz|metrics" | sort -u | paste -sd' ')"
kill "$store_pid"
wait "$store_pid" 2>/dev/null

# the store's advice (lrugen fleet advise): ADV and SAVE columns. The fleet of
# advise.sh: /jobs/web advised 2m on a-1 and a-2, 20000 pages cold there each
rm -f "$tmp/store/db" "$tmp/store/db-wal" "$tmp/store/db-shm"
run_store
. "$(dirname "$0")/advise-fixture.bash"
advise_spec 31 >"$tmp/advise.spec"
"$LRUGEN_BUILD/tests/tools/fleetsim" build "$tmp/advise.spec" >"$tmp/advise.pb"
check "ingest the advise fleet" '{"accepted":62,"duplicates":0}' "$(ingest "$tmp/advise.pb")"
start fla 160x30 "$TOP" --store "$url" --token-file "$tmp/store/read.token" -d 100 -T 1m --flat
expect fla "the advice columns" "^MEMCG .* ADV +SAVE "
expect fla "web on a-1: advised 2m, what that frees there" "^/jobs/web +a-1 +0 .* 2m +78\.1M "
expect fla "young: no advice" "^/jobs/young +a-1 +0 .* - +- "
keys fla g g g
expect fla "web across hosts: both hosts' savings" "^(▾|▸) /jobs/web +0 .* 2m +156M "
keys fla q
wait_exit fla >/dev/null

finish
