# tests/sh/collector_helpers.bash - what the collector*.sh tests share (sourced
# after lib.sh; not a test itself: tests/run runs *.sh only).
#
#   wait_for DESC SECONDS CMD...    poll CMD every 50 ms until it succeeds; a
#                                   failed check (and 1) after SECONDS
#   start_store NAME ARGS...        teststore on a free port (or --port P);
#                                   sets STORE_PID STORE_PORT STORE_URL, db
#                                   $tmp/NAME.db, log $tmp/NAME.store.log
#   stop_store                      SIGTERM, wait
#   start_lrugend LOG ARGS...       lrugend in the background; LRUGEND_PID
#   stop_lrugend                    SIGTERM; returns its exit status
#   taken_seqs LOG...               the seqs lrugend logged as taken, sorted
#   stored_seqs DB                  the seqs the teststore committed, sorted
#   all_stored DB LOG               everything LOG says was taken is in DB
#   check_exactly_once NAME DB LOG...
#                                   every seq taken is stored exactly once
LRUGEND=$LRUGEN_BUILD/lrugend
TOOLS=$LRUGEN_BUILD/tests/tools
TESTSTORE=$TOOLS/teststore
PBDUMP=$TOOLS/pbdump
GENROOT=$TOOLS/genroot
# leaks are checked at exit; a sanitizer report fails the process
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}

wait_for() {
	local desc=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 20; i++)); do
		if "$@" >/dev/null 2>&1; then
			pass
			return 0
		fi
		sleep 0.05
	done
	fail "timed out after ${secs}s waiting for: $desc"
	return 1
}

start_store() {
	local name=$1
	shift
	rm -f "$tmp/$name.port"
	"$TESTSTORE" --db "$tmp/$name.db" --port-file "$tmp/$name.port" "$@" \
		>>"$tmp/$name.store.log" 2>&1 &
	STORE_PID=$!
	wait_for "teststore $name listening" 20 test -s "$tmp/$name.port" || return 1
	STORE_PORT=$(cat "$tmp/$name.port")
	STORE_URL=http://127.0.0.1:$STORE_PORT
}

stop_store() {
	[ -n "${STORE_PID:-}" ] || return 0
	kill -TERM "$STORE_PID" 2>/dev/null
	wait "$STORE_PID" 2>/dev/null
	STORE_PID=
}

# A new spool numbers snapshots from the wall clock (ms); tests that compare
# seqs with fixed lists start theirs at 1 by seeding DIR/seq.
seed_spools() {
	local a prev=
	for a in "$@"; do
		if [[ $prev == --spool && ! -e $a ]]; then
			mkdir -p "$a" && echo 1 >"$a/seq"
		fi
		prev=$a
	done
}

start_lrugend() {
	seed_spools "$@"
	local log=$1
	shift
	"$LRUGEND" "$@" >>"$log.out" 2>>"$log" &
	LRUGEND_PID=$!
}

stop_lrugend() {
	local rc
	kill -TERM "$LRUGEND_PID" 2>/dev/null
	wait "$LRUGEND_PID"
	rc=$?
	LRUGEND_PID=
	return $rc
}

# count_lines PATTERN FILE: lines of FILE matching the extended regex
count_lines() {
	grep -cE -- "$1" "$2" 2>/dev/null || true
}

taken_seqs() {
	cat "$@" 2>/dev/null | sed -n 's/.* snapshot seq=\([0-9]*\) .*/\1/p' | sort -n
}

stored_seqs() {
	awk '{print $3}' "$1" 2>/dev/null | sort -n
}

# has_stored DB N: the store holds at least N snapshots
has_stored() {
	[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ]
}

# has_taken N LOG...: lrugend logged at least N snapshots
has_taken() {
	local n=$1
	shift
	[ "$(taken_seqs "$@" | wc -l)" -ge "$n" ]
}

all_stored() {
	local n
	n=$(taken_seqs "$2" | wc -l)
	[ "$n" -gt 0 ] && has_stored "$1" "$n"
}

check_exactly_once() {
	local name=$1 db=$2 taken stored dups
	shift 2
	taken=$(taken_seqs "$@" | tr '\n' ' ')
	stored=$(stored_seqs "$db" | tr '\n' ' ')
	dups=$(stored_seqs "$db" | uniq -d | tr '\n' ' ')
	check "$name: snapshots taken = snapshots stored" "$taken" "$stored"
	check "$name: nothing stored twice" "" "$dups"
	[ -n "$taken" ] || fail "$name: no snapshot was taken"
	echo "$name: $(wc -w <<<"$taken") taken, $(wc -w <<<"$stored") stored"
}

cleanup_procs() {
	[ -n "${LRUGEND_PID:-}" ] && kill -KILL "$LRUGEND_PID" 2>/dev/null
	[ -n "${STORE_PID:-}" ] && kill -KILL "$STORE_PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
