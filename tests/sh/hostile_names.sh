# tests/sh/hostile_names.sh - memcg and host names chosen by an attacker, end to
# end: a fixture root whose cgroups are named with ESC, CR, LF and bytes that
# are not UTF-8 -> lrugend (host name with ESC) -> lrugen-store -> 'lrugen
# fleet' tables, 'lrugen show' and 'wss', lrugen-top (local and fleet, in
# tmux), lrugend's /metrics through promtool, and the store's JSON rows.
#
# What must hold: no ESC or CR byte reaches the terminal, the escaped text
# (\x1b ...) is shown instead, rows are neither lost nor added, and names
# that are not UTF-8 arrive at the store (and /metrics) as the text \xNN.
# Every wait is bounded polling, never a fixed sleep.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
LRUGEND=$LRUGEN_BUILD/lrugend
TOP=$LRUGEN_BUILD/lrugen-top
WAIT=${TUI_WAIT:-10}
SOCK=lrugen-hostile-$$
tmp=$(mktemp -d)
lrugend_pid=
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export TERM=tmux-256color

tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
cleanup() {
	tm kill-server >/dev/null 2>&1
	[ -n "$lrugend_pid" ] && kill -KILL "$lrugend_pid" 2>/dev/null
	stop_store
	rm -rf "$tmp"
}
trap cleanup EXIT
for tool in tmux curl jq promtool; do
	command -v "$tool" >/dev/null || fail "$tool is needed (scripts/install-deps)"
done

HOSTILE=($'evil\e]0;pwned\a' $'cr\rfake row' $'lf\nfake' $'bad\xff\xfe')
SHOWN=('evil\x1b]0;pwned\x07' 'cr\x0dfake row' 'lf\x0afake' 'bad\xff\xfe')
# the host name lrugend sends (ESC, BEL and a byte that is not UTF-8), how
# the store keeps it (the byte as the text \xff) and how a terminal shows it
HOST=$'h\e]0;x\a\xffost'
HOST_STORED=$'h\e]0;x\a\\xffost'
HOST_SHOWN='h\x1b]0;x\x07\xffost'

# mkhostile DIR NAME...: the 6.1 fixture root with memory.lru_gen for /jobs,
# /jobs/web, /jobs/batch and a /jobs/NAME copy of batch for each NAME
mkhostile() {
	local dir=$1 n
	shift
	mkroot "$dir" 6.1
	cp -r "$LRUGEN_SRC/tests/fixtures/memory.lru_gen/jobs" "$dir/sys/fs/cgroup/"
	for n in "$@"; do
		mkdir -p "$dir/sys/fs/cgroup/jobs/$n"
		cp "$dir/sys/fs/cgroup/jobs/batch/memory.lru_gen" "$dir/sys/fs/cgroup/jobs/$n/"
	done
}
mkhostile "$tmp/evil" "${HOSTILE[@]}"
mkhostile "$tmp/plain" plain1 plain2 plain3 plain4

# clean NAME TEXT: no ESC and no CR in what a command printed
clean() {
	check "$1: no ESC byte" 0 "$(tr -cd '\033' <<<"$2" | wc -c)"
	check "$1: no CR byte" 0 "$(tr -cd '\r' <<<"$2" | wc -c)"
}
# count_fixed TEXT STRING: lines of TEXT containing STRING
count_fixed() { grep -cF -- "$2" <<<"$1"; }

# --- lrugen show and wss, on the root itself ----------------------------------------
for cmd in show "wss --threshold 5s"; do
	# shellcheck disable=SC2086
	out=$("$LRUGEN" --root "$tmp/evil" $cmd 2>&1)
	check "$cmd: exit 0" 0 $?
	clean "$cmd" "$out"
	# shellcheck disable=SC2086
	plain=$("$LRUGEN" --root "$tmp/plain" $cmd 2>&1)
	check "$cmd: as many lines as with plain names" "$(wc -l <<<"$plain")" "$(wc -l <<<"$out")"
	for s in "${SHOWN[@]}"; do
		# show: the memcg's first row; wss: its one node with pages
		check "$cmd: '$s' shown escaped" 1 "$(count_fixed "$out" "$s")"
	done
done
out=$("$LRUGEN" --root "$tmp/evil" show)
check_grep "show: an escaped name is cut at 32 bytes, columns aligned" \
	'^    evil\\x1b\]0;pwned\\x07 +0 +2 ' "$out"
out=$("$LRUGEN" --root "$tmp/evil" show --memcg $'/jobs/lf\nfake-none' 2>&1)
clean "error naming a hostile memcg" "$out"
check_grep "the error names it escaped" "no memcg matches '/jobs/lf\\\\x0afake-none'" "$out"

# --- lrugend -> lrugen-store, with /metrics ---------------------------------------------
make_tokens "$tmp"
chmod 600 "$tmp"/*.token
start_store "$tmp" --config "$tmp/tokens.conf" || { finish; exit 1; }
"$LRUGEND" --root "$tmp/evil" --host "$HOST" --store "$STORE_URL" --token-file "$tmp/any.token" \
	--spool "$tmp/spool" --listen 127.0.0.1:0 --interval 1h --no-age \
	>"$tmp/lrugend.out" 2>"$tmp/lrugend.log" &
lrugend_pid=$!
wait_for "lrugend's first snapshot accepted" 20 grep -q "1 accepted" "$tmp/lrugend.log"
mport=$(sed -n 's/.*metrics: serving .*(port \([0-9]*\)).*/\1/p' "$tmp/lrugend.log" | tail -n 1)
m=$(curl -sf "http://127.0.0.1:$mport/metrics")
out=$(promtool check metrics <<<"$m" 2>&1)
check "promtool check metrics accepts hostile label values" "0:" "$?:$out"
# as many series as an ordinary memcg with the same generations
n=$(grep -cF 'memcg="/jobs/batch"' <<<"$m")
[[ $n -gt 0 ]] || fail "/metrics: no series of /jobs/batch"
check "/metrics: the text \\xff in a label value" "$n" \
	"$(grep -cF 'memcg="/jobs/bad\\xff\\xfe"' <<<"$m")"
check "/metrics: LF escaped in a label value" "$n" "$(grep -cF 'memcg="/jobs/lf\nfake"' <<<"$m")"
check "/metrics: ESC as it is (valid in a label value)" "$n" \
	"$(grep -cF "memcg=\"/jobs/${HOSTILE[0]}\"" <<<"$m")"
check "/metrics: valid UTF-8" 0 "$(iconv -f UTF-8 -t UTF-8 <<<"$m" >/dev/null 2>&1; echo $?)"
kill -TERM "$lrugend_pid"
wait "$lrugend_pid"
check "lrugend: clean exit" 0 $?
lrugend_pid=

# --- lrugen fleet -----------------------------------------------------------------
F=("$LRUGEN" fleet --store "$STORE_URL" --token-file "$tmp/read.token")
out=$("${F[@]}" hosts)
clean "fleet hosts" "$out"
check_grep "fleet hosts: the host escaped, columns aligned" \
	"^h\\\\x1b\\]0;x\\\\x07\\\\xffost +[0-9.]+m?s ago +6\\.1\\.0-57-amd64 " "$out"
check_grep "fleet hosts: one host" '^1 hosts$' "$out"
out=$("${F[@]}" cold --by memcg)
clean "fleet cold --by memcg" "$out"
# 8 memcgs: /, /jobs (empty: lrugend keeps it as the parent), web, batch and 4 hostile
check "fleet cold --by memcg: a row per memcg" 8 "$(count_fixed "$out" "$HOST_SHOWN /")"
for s in "${SHOWN[@]}"; do
	check "fleet cold --by memcg: '$s' escaped" 1 "$(count_fixed "$out" "$HOST_SHOWN /jobs/$s ")"
done
out=$("${F[@]}" cold --by node)
clean "fleet cold --by node" "$out"
check "fleet cold --by node: a row per node" 2 "$(count_fixed "$out" "$HOST_SHOWN:")"
out=$("${F[@]}" rank --need 1M --per-node)
clean "fleet rank" "$out"
check_grep "fleet rank: the host escaped" "^   1 h\\\\x1b\\]0;x\\\\x07\\\\xffost:[01] " "$out"
out=$("${F[@]}" wss --memcg-glob '/jobs/*' --window 1h)
clean "fleet wss" "$out"
for s in "${SHOWN[@]}"; do
	check "fleet wss: '$s' escaped" 1 "$(count_fixed "$out" "/jobs/$s ")"
done
out=$("${F[@]}" timeline --host "$HOST_STORED")
clean "fleet timeline" "$out"
check_grep "fleet timeline: the host escaped" "^host h\\\\x1b\\]0;x\\\\x07\\\\xffost: 1 snapshots" "$out"
check "fleet timeline: a title per lruvec" 16 "$(grep -c ' node [01] (inode ' <<<"$out")"
out=$("${F[@]}" timeline --host $'no\e[2Jsuch' 2>&1)
clean "fleet timeline: the store's error" "$out"
out=$("${F[@]}" capacity)
clean "fleet capacity" "$out"

# the store's JSON rows keep their keys, the text \xNN in them
json=$("${F[@]}" cold --by memcg --json)
check "JSON: every row has its memcg" 8 "$(jq '[.rows[] | select(has("memcg"))] | length' <<<"$json")"
check "JSON: every row has its host, as the store keeps it" 8 \
	"$(jq --arg h "$HOST_STORED" '[.rows[] | select(.host == $h)] | length' <<<"$json")"
check "JSON: the bad name as the text \\xff\\xfe" 1 \
	"$(jq --arg m '/jobs/bad\xff\xfe' '[.rows[] | select(.memcg == $m)] | length' <<<"$json")"
check "JSON: ESC and BEL kept (JSON escapes them)" 1 \
	"$(jq --arg m "/jobs/${HOSTILE[0]}" '[.rows[] | select(.memcg == $m)] | length' <<<"$json")"

# --- lrugen-top --------------------------------------------------------------------
# start NAME CMD...: CMD in a detached 150x40 session; screen NAME: what it shows
start() {
	local name=$1 cmd
	shift
	cmd=$(printf '%q ' "$@")
	tm new-session -d -s "$name" -x 150 -y 40 \
		"env LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC $cmd 2>$tmp/$name.err; sleep 600"
}
screen() { tm capture-pane -p -t "$1" 2>/dev/null; }
# expect NAME TEST FIXED: pass when the screen shows the text FIXED in time
expect() {
	local i
	for ((i = 0; i < WAIT * 10; i++)); do
		screen "$1" | grep -qF -- "$3" && { pass; return; }
		sleep 0.1
	done
	fail "$2: '$3' not on screen:"$'\n'"$(screen "$1")"
}
# rows NAME: the list's rows, from the column titles to the first blank line
rows() { screen "$1" | sed -n '/^MEMCG /,/^ *$/p' | sed '1d;/^ *$/d'; }

start top "$TOP" --root "$tmp/evil" -d 100
expect top "lrugen-top: the header" "fixture-6.1"
tm send-keys -t top t
expect top "lrugen-top: flat list" "${SHOWN[0]}"
for s in "${SHOWN[@]}"; do
	expect top "lrugen-top: '$s' escaped" "/jobs/$s "
done
check "lrugen-top: 16 rows, none blanked" 16 "$(rows top | wc -l)"
check "lrugen-top: each hostile memcg on two rows" 8 \
	"$(rows top | grep -cE '^/jobs/(evil|cr|lf|bad)\\x')"
check "lrugen-top: the title was not set" "" "$(tm display -p -t top '#{pane_title}' | grep pwned)"
check "lrugen-top: nothing on stderr" "" "$(cat "$tmp/top.err")"

start fleet "$TOP" --store "$STORE_URL" --token-file "$tmp/read.token" -d 100
expect fleet "lrugen-top fleet: the host escaped" "$HOST_SHOWN"
expect fleet "lrugen-top fleet: the bad name as the store keeps it" 'bad\xff\xfe'
tm send-keys -t fleet t
expect fleet "lrugen-top fleet: flat list" "/jobs/${SHOWN[1]} "
check "lrugen-top fleet: 16 rows (as locally: the store has /jobs too), none blanked" 16 "$(rows fleet | wc -l)"
check "lrugen-top fleet: the title was not set" "" "$(tm display -p -t fleet '#{pane_title}' | grep -E 'pwned|^x$')"

# the daemons' logs name hosts and memcgs with their controls escaped too
for f in "$tmp/lrugend.log" "$STORE_LOG"; do
	check "$(basename "$f"): no ESC, CR or BEL byte" 0 "$(tr -cd '\033\r\007' <"$f" | wc -c)"
done
out=$("$LRUGEND" --root "$tmp/evil/$HOST" --once --no-age 2>&1)
check_grep "lrugend's log: a hostile path escaped" 'evil/h\\x1b]0;x\\x07\\xffost/sys' "$out"
check "lrugend's log: no ESC byte" 0 "$(tr -cd '\033' <<<"$out" | wc -c)"
out=$("$STORE_BIN" --db "$tmp/$HOST/db" --insecure-no-auth 2>&1)
check_grep "lrugen-store's error: a hostile path escaped" "$tmp/h\\\\x1b]0;x\\\\x07" "$out"
check "lrugen-store's error: no ESC byte" 0 "$(tr -cd '\033' <<<"$out" | wc -c)"

finish
