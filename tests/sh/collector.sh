# tests/sh/collector.sh - lrugend on fixture roots: flags, config, --output
# snapshots, birth times, sequence numbers, filters, logging, signals.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/collector_helpers.bash"
tmp=$(mktemp -d)
trap cleanup_procs EXIT
mkroot "$tmp/r61" 6.1
r61=$tmp/r61

# one collection as JSON: once FILE ARGS... (fresh spool unless --spool given)
once() {
	local out=$1
	shift
	"$LRUGEND" --root "$r61" --spool "$tmp/spool" --output "$tmp/$out.pb" "$@" \
		2>>"$tmp/once.log" && "$PBDUMP" "$tmp/$out.pb" >"$tmp/$out.json"
}

# --- usage and settings -------------------------------------------------------
out=$("$LRUGEND" --help)
check_grep "help explains" "page-age histogram" "$out"
check_grep "help lists settings from the table" '--interval DUR +time between ticks' "$out"
check_grep "help shows defaults" 'spool_max_bytes|--spool-max-bytes SIZE' "$out"
check_grep "help shows boolean negation" '--\[no-\]age ' "$out"
check_rc "version" 0 "$LRUGEND" --version
check_rc "unknown flag" 2 "$LRUGEND" --bogus
check_rc "stray argument" 2 "$LRUGEND" stray
check "bad duration message" "lrugend: --interval 3q: duration '3q' has an unknown unit 'q'" \
	"$("$LRUGEND" --interval 3q 2>&1)"
check "range message" "lrugend: --interval 2d: out of range (0 to 1d)" "$("$LRUGEND" --interval 2d 2>&1)"
check "enum message" "lrugend: --mlock x: not one of off, onfault, all" "$("$LRUGEND" --mlock x 2>&1)"
check_rc "interval 0 needs a test mode" 2 "$LRUGEND" --interval 0
check_grep "reclaim needs memcgs" "reclaim needs reclaim-include" "$("$LRUGEND" --reclaim 2>&1)"
check_rc "store must be http(s)" 2 "$LRUGEND" --store ftp://x
check_rc "drain needs a store" 2 "$LRUGEND" --drain
check_rc "bad listen address" 2 "$LRUGEND" --listen nowhere
check_grep "bad bucket order" "ascending" "$("$LRUGEN_BUILD/lrugend" --metrics-buckets 5m,1m 2>&1)"

# --print-config comes from the table and parses back to itself
defaults=$("$LRUGEND" --config "$tmp/none.conf" --print-config 2>&1)
check_rc "missing explicit config file" 2 "$LRUGEND" --config "$tmp/none.conf"
defaults=$("$LRUGEND" --print-config)
check_grep "print-config default interval" '^interval = 2m$' "$defaults"
check_grep "print-config has help comments" '^# time between ticks' "$defaults"
check_grep "print-config default buckets" '^metrics-buckets = 1m,2m,5m,10m,30m,1h$' "$defaults"
printf '%s\n' "$defaults" >"$tmp/defaults.conf"
check "print-config round-trips" "$defaults" "$("$LRUGEND" --config "$tmp/defaults.conf" --print-config)"

cat >"$tmp/a.conf" <<'EOF'
# a comment
interval = 5m
include = /jobs/*
include = /system.slice/*, /user.slice/*
store = "http://127.0.0.1:9"
EOF
cfg=$("$LRUGEND" --config "$tmp/a.conf" --print-config)
check_grep "file sets interval" '^interval = 5m$' "$cfg"
check "file lists append within the file" "/jobs/* /system.slice/* /user.slice/*" \
	"$(sed -n 's/^include = //p' <<<"$cfg" | tr '\n' ' ' | sed 's/ $//')"
cfg=$("$LRUGEND" --config "$tmp/a.conf" --interval 1m --include '/x/*' --include '/y/*' --no-age --print-config)
check_grep "flag overrides file" '^interval = 1m$' "$cfg"
check "flag lists replace the file's" "/x/* /y/*" "$(sed -n 's/^include = //p' <<<"$cfg" | tr '\n' ' ' | sed 's/ $//')"
check_grep "--no-age" '^age = false$' "$cfg"
printf 'interval = 5m\nfrobnicate = 1\n' >"$tmp/bad.conf"
check "unknown setting names file and line" "lrugend: $tmp/bad.conf:2: unknown setting 'frobnicate'" \
	"$("$LRUGEND" --config "$tmp/bad.conf" 2>&1)"
printf 'interval = 5m\ninterval = 6m\n' >"$tmp/bad.conf"
check_grep "scalar set twice" "bad.conf:2: 'interval' is set twice" "$("$LRUGEND" --config "$tmp/bad.conf" 2>&1)"
printf 'age = maybe\n' >"$tmp/bad.conf"
check_grep "bad boolean" "bad.conf:1: age = maybe: not true or false" "$("$LRUGEND" --config "$tmp/bad.conf" 2>&1)"
printf 'interval\n' >"$tmp/bad.conf"
check_grep "line without a value" "bad.conf:1: expected 'name = value'" "$("$LRUGEND" --config "$tmp/bad.conf" 2>&1)"
# old spellings still load, each kind with one warning naming the new one
printf 'interval 5m\nskip_empty = false\nlog_level = debug\n' >"$tmp/old.conf"
cfg=$("$LRUGEND" --config "$tmp/old.conf" --print-config 2>"$tmp/old.err")
check "old spellings load" "interval = 5m skip-empty = false log-level = debug" \
	"$(grep -E '^(interval|skip-empty|log-level) =' <<<"$cfg" | paste -sd' ')"
check_grep "old syntax: warned with the new" \
	"warning: .*old.conf:1: 'interval 5m' is the old 'NAME VALUE' syntax: write 'interval = 5m'$" \
	"$(cat "$tmp/old.err")"
check_grep "old '_' names: warned once with the new" \
	"warning: .*old.conf:2: 'skip_empty' is an old spelling: write 'skip-empty' \(and 1 more line\)$" \
	"$(cat "$tmp/old.err")"
check "the sample config loads, without warnings" "" \
	"$("$LRUGEND" --config "$LRUGEN_SRC/collector/lrugend.conf.sample" --token-file '' --print-config 2>&1 >/dev/null)"
check "booleans: --name=false" "age = false" "$("$LRUGEND" --age=false --print-config | grep '^age =')"
check "booleans: a bad value" "lrugend: --age maybe: not true or false" "$("$LRUGEND" --age=maybe 2>&1)"

# --- one collection: --once --output ---------------------------------------------
check_rc "once --output" 0 once a --no-age
json=$(cat "$tmp/a.json")
check "exactly one snapshot" 1 "$(jq length <<<"$json")"
check "host" fixture-6.1 "$(jq -r '.[0].host' <<<"$json")"
check "boot id" 00000000-0000-4000-8000-000000000001 "$(jq -r '.[0].boot_id' <<<"$json")"
check "kernel release" 6.1.0-57-amd64 "$(jq -r '.[0].kernel' <<<"$json")"
check "page size" "$(getconf PAGESIZE)" "$(jq '.[0].page_size' <<<"$json")"
check "lru_gen enabled bits" 7 "$(jq '.[0].enabled' <<<"$json")"
check "first seq of a fresh spool is the wall clock (ms)" true \
	"$(jq --argjson t "$(date +%s)" '.[0].seq >= ($t - 600) * 1000 and .[0].seq <= ($t + 5) * 1000' <<<"$json")"
check "two nodes of meminfo" "536870912 536870912" "$(jq -r '[.[0].nodes[].total_bytes] | join(" ")' <<<"$json")"
check "empty /jobs kept: the parent of web and batch (tree readers keep it)" "/ / /jobs /jobs /jobs/web /jobs/web /jobs/batch /jobs/batch" \
	"$(jq -r '[.[0].lruvecs[].memcg] | join(" ")' <<<"$json")"
check "generations as the kernel printed them" "3:21003 4:0 5:9728 6:0" \
	"$(jq -r '.[0].lruvecs[] | select(.memcg == "/jobs/web" and .node == 1) | [.generations[] | "\(.seq):\(.anon_pages)"] | join(" ")' <<<"$json")"
check "memcg keyed by inode" "$(stat -c %i "$r61/sys/fs/cgroup/jobs/web")" \
	"$(jq '.[0].lruvecs[] | select(.memcg == "/jobs/web") | .memcg_inode' <<<"$json" | head -n 1)"
check "memory.stat essentials" "0 8192" \
	"$(jq -r '.[0].memcg_stats[] | select(.memcg == "/jobs/web") | "\(.anon_bytes) \(.file_bytes)"' <<<"$json")"
check "aging off reported" false "$(jq '.[0].aging.enabled' <<<"$json")"
check "aging interval reported" 120000 "$(jq '.[0].aging.interval_ms' <<<"$json")"
check "jitter within the interval" true "$(jq '.[0].aging.jitter_ms < 120000' <<<"$json")"

# birth = read midpoint - age, exactly; the error bound is half the window + a jiffy
check "birth = midpoint - age for every generation" true \
	"$(jq '.[0] as $s | (($s.read_start_ms + $s.read_end_ms) / 2 | floor) as $mid
	      | all($s.lruvecs[].generations[]; .birth_ms == $mid - .age_ms)' <<<"$json")"
check "birth error bound" true \
	"$(jq '.[0] | .birth_error_ms == ((.read_end_ms - .read_start_ms + 1) / 2 | floor) + 10' <<<"$json")"

# sequence numbers go on across restarts, never reused
once b --no-age
once c --no-age
first=$(jq '.[0].seq' "$tmp/a.json")
check "seq survives restarts" "$((first + 1)) $((first + 2))" \
	"$(jq -s -r '[.[][0].seq] | join(" ")' "$tmp/b.json" "$tmp/c.json")"

# --host overrides, --full reads lru_gen_full
once d --no-age --host other-name --full
check "host override" other-name "$(jq -r '.[0].host' "$tmp/d.json")"
check "--full source" 1 "$(jq '.[0].source' "$tmp/d.json")"
check "--full has tiers" true "$(jq '[.[0].lruvecs[].generations[].tiers] | any' "$tmp/d.json")"

# aging against a regular-file lru_gen: skipped with one line, the tick succeeds
check_rc "aging skipped, not fatal" 0 once e
check_grep "aging skip line" "aging skipped: '.*lru_gen' is a regular file" "$(cat "$tmp/once.log")"
check "aging reported off when it cannot happen" false "$(jq '.[0].aging.enabled' "$tmp/e.json")"

# --output needs no spool directory (not root, a fresh machine): seq comes from the clock
t0=$(date +%s%3N)
check_rc "--output without a spool directory" 0 "$LRUGEND" --root "$r61" --no-age \
	--spool "$tmp/no/such/dir" --output "$tmp/nospool.pb"
check "... its snapshot's seq is the clock's" 1 \
	"$("$PBDUMP" "$tmp/nospool.pb" | jq --argjson t0 "$t0" '.[0].seq >= $t0 and .[0].seq < $t0 + 60000 | if . then 1 else 0 end')"
check "... and no spool was made" 1 "$([ -e "$tmp/no" ] && echo 0 || echo 1)"
# --output into what is not a regular file (a FIFO here, /dev/null alike): written
# into, not replaced by a renamed temporary (that once turned /dev/null into a file)
mkfifo "$tmp/fifo"
timeout 30 cat "$tmp/fifo" >"$tmp/fromfifo.pb" &
reader=$!
check_rc "--output FIFO" 0 timeout 30 "$LRUGEND" --root "$r61" --no-age --spool "$tmp/fifospool" --output "$tmp/fifo"
wait "$reader"
check "... the FIFO is still a FIFO" fifo "$([ -p "$tmp/fifo" ] && echo fifo || stat -c %F "$tmp/fifo")"
check "... its reader got the batch" 1 "$("$PBDUMP" "$tmp/fromfifo.pb" | jq length)"
check "... no temporary left beside it" "" "$(ls "$tmp" | grep '^fifo\.tmp')"
# --once whose send fails: exit 1, the snapshot waits in the spool
check_rc "--once, store unreachable: exit 1" 1 timeout 60 "$LRUGEND" --once --root "$r61" --no-age --spool "$tmp/oncespool" \
	--store http://127.0.0.1:1 --timeout 2s
check "... the snapshot waits in the spool" 1 "$("$PBDUMP" --spool "$tmp/oncespool" 2>/dev/null | jq length)"

# --- filters --------------------------------------------------------------------------
once f --no-age --include '/jobs/*'
check "include glob" "/jobs/web /jobs/batch" "$(jq -r '[.[0].lruvecs[].memcg] | unique_by(.) | join(" ")' "$tmp/f.json" | tr ' ' '\n' | sort -r | tr '\n' ' ' | sed 's/ $//')"
once g --no-age --exclude '*/web' --exclude /
check "exclude globs (empty /jobs stays as batch's parent)" "/jobs /jobs/batch" "$(jq -r '[.[0].lruvecs[].memcg] | unique | join(" ")' "$tmp/g.json")"
once h --no-age --no-skip-empty
check "--no-skip-empty keeps /jobs" 4 "$(jq '[.[0].lruvecs[].memcg] | unique | length' "$tmp/h.json")"

"$GENROOT" --memcgs 5 --nodes 2 --dying 2 --empty 3 "$tmp/gen" >/dev/null
"$LRUGEND" --root "$tmp/gen" --spool "$tmp/gspool" --output "$tmp/gen1.pb" --no-age 2>/dev/null
json=$("$PBDUMP" "$tmp/gen1.pb")
check "dying and empty memcgs left out" "/ /jobs /jobs/job00002 /jobs/job00003 /jobs/job00004" \
	"$(jq -r '[.[0].lruvecs[].memcg] | unique | join(" ")' <<<"$json")"
"$LRUGEND" --root "$tmp/gen" --spool "$tmp/gspool" --output "$tmp/gen2.pb" --no-age \
	--no-skip-dying --no-skip-empty 2>/dev/null
json=$("$PBDUMP" "$tmp/gen2.pb")
check "--no-skip-dying keeps id 0" "0 0" "$(jq -r '[.[0].lruvecs[] | select(.memcg == "/jobs/dead000") | .memcg_id] | join(" ")' <<<"$json")"
check "--no-skip-empty keeps empty memcgs" 6 "$(jq '[.[0].lruvecs[] | select(.memcg | startswith("/jobs/empty"))] | length' <<<"$json")"

# --- logging ------------------------------------------------------------------------------
check_grep "ISO timestamps outside systemd" \
	'^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z info: snapshot seq=' \
	"$(cat "$tmp/once.log")"
: >"$tmp/journal.log"
JOURNAL_STREAM=$(stat -c '%d:%i' "$tmp/journal.log") "$LRUGEND" --root "$r61" --spool "$tmp/spool" \
	--output "$tmp/j.pb" 2>>"$tmp/journal.log"
check_grep "journal: priority prefix, no timestamp" '^<6>info: snapshot seq=' "$(cat "$tmp/journal.log")"
check_grep "journal: warnings" '^<4>warning: aging skipped' "$(cat "$tmp/journal.log")"
check "journal: one event per line" 0 "$(count_lines '^[0-9]{4}-' "$tmp/journal.log")"

# --- the daemon: ticks, SIGHUP, SIGTERM ----------------------------------------------------------
# lru_gen rewritten between ticks: birth times stay on one timeline
w0=$(date +%s%3N)
"$GENROOT" --memcgs 3 --nodes 1 --ages 60000,30000,20000,10000 "$tmp/tl" >/dev/null
printf 'interval = 1h\nlog-level = info\n' >"$tmp/d.conf"
start_lrugend "$tmp/d.log" --config "$tmp/d.conf" --root "$tmp/tl" --spool "$tmp/dspool" \
	--store http://127.0.0.1:9 --no-age --backoff-min 1h --backoff-max 1h
wait_for "first tick" 20 has_taken 1 "$tmp/d.log"
check_rc "a spool in use is refused" 1 "$LRUGEND" --root "$tmp/tl" --spool "$tmp/dspool" --output "$tmp/x.pb"
check_grep "spool in use message" "spool '.*dspool' is in use by another process" \
	"$("$LRUGEND" --root "$tmp/tl" --spool "$tmp/dspool" --output "$tmp/x.pb" 2>&1)"
# the kernel now shows the same generations as much older as time went by
t1=$(date +%s%3N)
shift_ms=$((t1 - w0))
"$GENROOT" --only-lru-gen --memcgs 3 --nodes 1 --ages 60000,30000,20000,10000 --age-shift "$shift_ms" "$tmp/tl"
# SIGHUP: a changed config is logged and applied (a shorter interval ticks again)
printf 'interval = 2s\nlog-level = info\ninclude = /jobs*\n' >"$tmp/d.conf"
kill -HUP "$LRUGEND_PID"
wait_for "reload logged" 20 grep -q "config: interval: '1h' -> '2s'" "$tmp/d.log"
check_grep "list change logged" "config: include: '' -> '/jobs\\*'" "$(cat "$tmp/d.log")"
wait_for "a tick after reload" 20 has_taken 2 "$tmp/d.log"
# an invalid config keeps the old one
printf 'interval = soon\n' >"$tmp/d.conf"
kill -HUP "$LRUGEND_PID"
wait_for "invalid reload refused" 20 grep -q "reload: .*interval = soon.*keeping the old configuration" "$tmp/d.log"
wait_for "still ticking on the old config" 20 has_taken 3 "$tmp/d.log"
check_rc "SIGTERM exits cleanly" 0 stop_lrugend
check_grep "stop logged" "Terminated: stopping" "$(cat "$tmp/d.log")"
json=$("$PBDUMP" --spool "$tmp/dspool" 2>"$tmp/dump.err")
check "every snapshot intact in the spool" "$(taken_seqs "$tmp/d.log" | tr '\n' ' ')" \
	"$(jq -r '.[].seq' <<<"$json" | tr '\n' ' ')"
check "reloaded include applied" "/jobs /jobs/job00002" "$(jq -r '[.[1].lruvecs[].memcg] | join(" ")' <<<"$json")"
check "lrugen dump DIR: the spool, as pbdump reads it" "$(jq -c . <<<"$json")" \
	"$("$LRUGEN" dump "$tmp/dspool" 2>/dev/null | jq -c .)"
check_grep "lrugen dump DIR: the spool's counters on stderr" "^lrugen: dump: spool '$tmp/dspool': [0-9]+ records, " \
	"$("$LRUGEN" dump "$tmp/dspool" 2>&1 >/dev/null)"
check "lrugen dump --summary DIR: a line a snapshot" "$(jq length <<<"$json")" \
	"$("$LRUGEN" dump --summary "$tmp/dspool" 2>/dev/null | tail -n +2 | wc -l)"
# same generation, two ticks: births differ only by the write-to-read delays
# of the two versions of the file (tick 1: mid1 - w0; tick 2: mid2 - t1)
d=$(jq --argjson w0 "$w0" --argjson t1 "$t1" '.[0] as $a | .[1] as $b
	| ($a.lruvecs[] | select(.memcg == "/jobs") | .generations[0].birth_ms) as $b1
	| ($b.lruvecs[] | select(.memcg == "/jobs") | .generations[0].birth_ms) as $b2
	| ($b2 - $b1) - (($b.taken_at_ms - $t1) - ($a.taken_at_ms - $w0))' <<<"$json")
check "births agree across ticks on one timeline (off by $d ms)" true \
	"$(awk -v d="$d" 'BEGIN { print (d >= -200 && d <= 200) ? "true" : "false" }')"

# the sample config names every setting, each with its default
sample=$LRUGEN_SRC/collector/lrugend.conf.sample
missing_settings=$(LRUGEN_INTERFACE= "$LRUGEND" --print-config | sed -n 's/^\([a-z_]*\) =.*/\1/p' | sort -u |
	while read -r k; do grep -q "^$k =" "$sample" || echo "$k"; done | tr '\n' ' ')
check "the sample config lists every setting" "" "$missing_settings"
check_rc "the sample config loads (its token file aside)" 0 "$LRUGEND" --config "$sample" --token-file "" --print-config

finish
