# tests/sh/store-lib.bash - helpers for the lrugen-store tests (sourced after lib.sh).
#
#   start_store DIR [ARGS...]   start lrugen-store on 127.0.0.1 (a free port) with
#                               DIR/db; waits (10 s at most) for /healthz; sets
#                               STORE_URL, STORE_PID, STORE_LOG
#   stop_store                  SIGTERM and wait (10 s at most); fails the test if it hangs
#   kill_store                  SIGKILL
#   make_tokens DIR             DIR/{admin,read,web1,any}.token and DIR/tokens.conf
#   http METHOD PATH [TOKEN] [CURL ARGS...]   prints "STATUS BODY"
#   wait_for DESC SECONDS CMD...              polls CMD every 0.1 s, fails after SECONDS
#   pts FILE SERIES, segs FILE SERIES, renders FILE "W H"   read an lrugen fleet plot back
STORE_BIN=$LRUGEN_BUILD/lrugen-store
FLEETSIM=$LRUGEN_BUILD/tests/tools/fleetsim
STORE_STARTS=0
STORE_PID=

start_store() {
	local dir=$1 i url=
	shift
	STORE_STARTS=$((STORE_STARTS + 1))
	STORE_LOG=$dir/store.$STORE_STARTS.log
	: >"$STORE_LOG" # (before the child opens it: the loop below reads it at once)
	"$STORE_BIN" --db "$dir/db" --listen 127.0.0.1:0 "$@" >"$STORE_LOG" 2>&1 &
	STORE_PID=$!
	for ((i = 0; i < 100; i++)); do
		url=$(sed -n 's/.*listening on \(https\{0,1\}:\/\/[^ ]*\).*/\1/p' "$STORE_LOG" | tail -n 1)
		[[ -n $url ]] && break
		kill -0 "$STORE_PID" 2>/dev/null || break
		sleep 0.1
	done
	if [[ -z $url ]]; then
		fail "lrugen-store did not start: $(cat "$STORE_LOG")"
		return 1
	fi
	STORE_URL=$url
	for ((i = 0; i < 100; i++)); do
		curl -skf "$STORE_URL/healthz" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "lrugen-store at $STORE_URL never answered /healthz"
	return 1
}

stop_store() {
	local i
	[[ -n $STORE_PID ]] || return 0
	kill -TERM "$STORE_PID" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$STORE_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$STORE_PID" 2>/dev/null; then
		fail "lrugen-store did not stop within 10 s of SIGTERM"
		kill -KILL "$STORE_PID"
	fi
	wait "$STORE_PID" 2>/dev/null
	STORE_RC=$?
	STORE_PID=
}

kill_store() {
	kill -KILL "$STORE_PID" 2>/dev/null
	wait "$STORE_PID" 2>/dev/null
	STORE_PID=
}

make_tokens() {
	local dir=$1 t
	for t in admin read web1 any; do
		printf 'token-%s-%s\n' "$t" "$RANDOM$RANDOM" >"$dir/$t.token"
	done
	{
		echo "# test tokens"
		echo "admin-token = $("$STORE_BIN" --hash-token <"$dir/admin.token")"
		echo "read-token = $("$STORE_BIN" --hash-token <"$dir/read.token")"
		echo "ingest-token = $("$STORE_BIN" --hash-token <"$dir/web1.token") host=web-1"
		echo "ingest-token = $("$STORE_BIN" --hash-token <"$dir/any.token") host=*"
	} >"$dir/tokens.conf"
}

# http METHOD PATH [TOKENFILE|-] [CURL ARGS...]
http() {
	local method=$1 path=$2 tok=${3:--} body code
	shift 3 2>/dev/null || shift $#
	body=$(mktemp)
	local auth=()
	[[ $tok != - ]] && auth=(-H "Authorization: Bearer $(cat "$tok")")
	code=$(curl -skg -o "$body" -w '%{http_code}' -X "$method" "${auth[@]}" "$@" "$STORE_URL$path")
	echo "$code $(cat "$body")"
	rm -f "$body"
}

# post_pb FILE [TOKENFILE|-] [CURL ARGS...]: POST a SnapshotBatch
post_pb() {
	local file=$1 tok=${2:--}
	shift 2 2>/dev/null || shift $#
	http POST /v1/snapshots "$tok" -H 'Content-Type: application/x-protobuf' \
		--data-binary @"$file" "$@"
}

wait_for() {
	local desc=$1 secs=$2 i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	fail "timed out after ${secs}s waiting for $desc"
	return 1
}

sql() {
	sqlite3 -batch -noheader "$1" "$2"
}

# pts FILE SERIES [ATTR]: "X Y" of each point of SERIES (bars: "LABEL V" of each segment)
pts() {
	grep -o "class=\"pt\" data-series=\"$2\" data-x=\"[^\"]*\" data-y=\"[^\"]*\"" "$1" |
		sed 's/.*data-x="\([^"]*\)" data-y="\([^"]*\)"/\1 \2/'
}
segs() {
	grep -o "class=\"seg\" data-label=\"[^\"]*\" data-series=\"$2\" data-v=\"[^\"]*\"" "$1" |
		sed 's/.*data-label="\([^"]*\)".*data-v="\([^"]*\)"/\1 \2/'
}
# renders FILE "W H": rsvg-convert draws it, a PNG of W x H pixels (its IHDR's width and height)
renders() {
	rsvg-convert "$1" -o "${tmp:-/tmp}/render.png" &&
		[[ $(od -An -tu1 -j16 -N8 "${tmp:-/tmp}/render.png" | awk '{ print $3 * 256 + $4, $7 * 256 + $8 }') == "$2" ]]
}
