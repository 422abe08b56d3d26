# tests/sh/page.sh - the store's fleet page (GET /, store/page.h) over HTTP and in a
# real browser: headless Chromium signs in through the login form (a read token
# POSTed to /login, kept in a cookie), loads the page, and its DOM and screenshot
# are checked: three charts, each with data. A wrong token, a token that may not
# read, a forged cookie and no token get the login page, never data.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
. "$(dirname "$0")/advise-fixture.bash"
tmp=$(mktemp -d)
trap 'stop_store; rm -rf "$tmp"' EXIT
make_tokens "$tmp"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[[ -n $CHROMIUM ]] || fail "chromium is not installed (scripts/install-deps installs it)"
advise_spec 31 >"$tmp/spec"
"$FLEETSIM" build "$tmp/spec" >"$tmp/fleet.pb" || fail "fleetsim build"
start_store "$tmp" --config "$tmp/tokens.conf" || { finish; exit 1; }
check_grep "the fleet stored" '"accepted":62' "$(post_pb "$tmp/fleet.pb" "$tmp/admin.token")"

# sections DOC: "id status points" of each section of a page
sections() {
	grep -o '<section id="[a-z]*" data-status="[a-z]*"\( data-points="[0-9]*"\)\?' <<<"$1" |
		sed 's/<section id="\([a-z]*\)" data-status="\([a-z]*\)"\( data-points="\([0-9]*\)"\)\?/\1 \2 \4/'
}
# has_data DOC: every chart has points (capacity, rank, advise), none failed
has_data() {
	[[ $(sections "$1" | awk '$2 == "ok" && $3 > 0 { n++ } END { print n + 0 }') == 3 ]]
}

# ---- over HTTP -----------------------------------------------------------------------------
out=$(http GET / -)
check_grep "no token: 401" '^401 ' "$out"
check_grep "... the login form" '<form method="post" action="/login">' "$out"
check "... and no data" "" "$(sections "$out")"
out=$(http GET /?need=100M "$tmp/read.token")
check_grep "a read token (header): 200" '^200 ' "$out"
check "... three charts, each with data" "capacity ok|rank ok|advise ok" \
	"$(sections "$out" | awk '$3 > 0 { print $1, $2 }' | paste -sd'|')"
check_grep "... rank: both hosts, need 100 MiB" '<h2>Where 100.0 MiB fits</h2>' "$out"
check "... rank's bars: a-1 and a-2, free and cold" 4 "$(grep -o 'class="seg" data-label="a-[12]"' <<<"$out" | wc -l)"
check_grep "... advise draws /jobs/web" 'data-series="/jobs/web"' "$out"
check_grep "... refreshes itself (60 s)" '<meta http-equiv="refresh" content="60">' "$out"
check "... no script" 0 "$(grep -ci '<script' <<<"$out")"
check_grep "refresh=: another interval" '<meta http-equiv="refresh" content="300">' \
	"$(http GET '/?refresh=300' "$tmp/read.token")"
check_grep "memcg_glob=: advice for those only" 'advise ok 0$' \
	"$(sections "$(http GET '/?memcg_glob=/nothing' "$tmp/read.token")")"
check_grep "memcg_glob=: the job's page age too" '^job ok [1-9]' \
	"$(sections "$(http GET '/?memcg_glob=/jobs/web' "$tmp/read.token")")"
check_grep "a bad need: that chart says why, the others draw" 'rank error' \
	"$(sections "$(http GET '/?need=lots' "$tmp/read.token")")"
check_grep "an unknown parameter: 400" '^400 .*unknown parameter .frob.' "$(http GET '/?frob=1' "$tmp/read.token")"
check_grep "an admin token reads too" '^200 ' "$(http GET / "$tmp/admin.token")"
out=$(http GET / "$tmp/any.token")
check_grep "an ingest token: 403" '^403 ' "$out"
check_grep "... the login page says why" 'This token may not read the store' "$out"
check "... and no data" "" "$(sections "$out")"
hdr=$(curl -s -D - -o /dev/null -H "Authorization: Bearer $(cat "$tmp/read.token")" "$STORE_URL/")
check_grep "headers: no script, nothing from elsewhere" "^Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'" "$hdr"
check_grep "headers: not kept" '^Cache-Control: no-store' "$hdr"
check_grep "headers: HTML" '^Content-Type: text/html; charset=utf-8' "$hdr"

# the login: a form POST -> 303 to / with the token in an HttpOnly cookie
out=$(http GET /login -)
check_grep "GET /login: 200" '^200 ' "$out"
check_grep "... the form" '<input type="password" name="token"' "$out"
hdr=$(curl -s -D - -o /dev/null --data-urlencode "token=$(cat "$tmp/read.token")" "$STORE_URL/login")
check_grep "POST /login, a read token: 303" '^HTTP/1.1 303 ' "$hdr"
check_grep "... to /" '^Location: /' "$hdr"
check_grep "... the cookie: HttpOnly, SameSite=Lax" '^Set-Cookie: lrugen_token=[0-9a-f]+; Path=/; HttpOnly; SameSite=Lax' "$hdr"
cookie=$(sed -n 's/^Set-Cookie: \([^;]*\);.*/\1/p' <<<"$hdr")
check "... not the token itself" "" "$(grep -F "$(cat "$tmp/read.token")" <<<"$hdr")"
out=$(http GET / - -H "Cookie: theme=dark; $cookie")
check_grep "the cookie opens the page" '^200 ' "$out"
check "... with its data" 0 "$(has_data "$out"; echo $?)"
out=$(http GET / - -H "Cookie: lrugen_token=${cookie#lrugen_token=}00")
check_grep "a forged cookie: 401" '^401 ' "$out"
check_grep "... sign in again" 'The token is no longer valid' "$out"
check "... no data" "" "$(sections "$out")"
check_grep "the cookie does not open the JSON API" '^401 ' "$(http GET /v1/hosts - -H "Cookie: $cookie")"
out=$(http POST /login - --data-urlencode "token=wrong-$RANDOM")
check_grep "POST /login, an unknown token: 401" '^401 ' "$out"
check_grep "... said" 'The store does not know this token' "$out"
out=$(http POST /login - --data-urlencode "token=$(cat "$tmp/any.token")")
check_grep "POST /login, an ingest token: 403" '^403 ' "$out"
check_grep "... said" 'This token may not read the store' "$out"
out=$(http POST /login - --data 'user=x')
check_grep "POST /login, no token field: 400" '^400 ' "$out"
check_grep "... said" 'Give a read token' "$out"
for form in 'token=%00abc' 'token=%zz' 'token=' "token=$(head -c 600 /dev/zero | tr '\0' 'x')"; do
	check_grep "POST /login, a hostile form ($(head -c 16 <<<"$form")...): 400" '^400 ' \
		"$(http POST /login - --data "$form")"
done
for c in 'lrugen_token=4' 'lrugen_token=zz' 'lrugen_token=' 'lrugen_token=0041'; do
	check_grep "a hostile cookie ($c): the login page" '^401 ' "$(http GET / - -H "Cookie: $c")"
done
check_grep "POST /login, a flood of a form: 413" '^413 ' \
	"$(head -c 100000 /dev/zero | tr '\0' 'a' | sed 's/^/token=/' | http POST /login - --data-binary @-)"
check_grep "the store still answers" '^200 ' "$(http GET /healthz -)"

# ---- in a real browser (headless Chromium) ---------------------------------------------------
# signin TOKEN NAME: a page of ours that POSTs TOKEN to /login as a person's form
# would; Chromium follows the redirect; the final DOM into NAME.dom, a
# screenshot into NAME.png
signin() {
	cat >"$tmp/$2.html" <<SIGNIN
<!doctype html><html><body><form id="f" method="post" action="$STORE_URL/login">
<input name="token" value="$1"></form><script>document.getElementById('f').submit()</script></body></html>
SIGNIN
	browse "file://$tmp/$2.html" "$2"
}
# browse URL NAME: the DOM after load (and redirects), and a 1280x2200 screenshot
browse() {
	local flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
		--user-data-dir="$tmp/chromium" --virtual-time-budget=10000 --window-size=1280,2200)
	timeout 120 "$CHROMIUM" "${flags[@]}" --dump-dom "$1" >"$tmp/$2.dom" 2>"$tmp/$2.err"
	timeout 120 "$CHROMIUM" "${flags[@]}" --screenshot="$tmp/$2.png" "$1" >>"$tmp/$2.err" 2>&1
}
# png_size FILE: "W H" of a PNG (its IHDR)
png_size() { od -An -tu1 -j16 -N8 "$1" | awk '{ print ($1 * 256 + $2) * 65536 + $3 * 256 + $4, ($5 * 256 + $6) * 65536 + $7 * 256 + $8 }'; }

signin "$(cat "$tmp/read.token")" good
dom=$(cat "$tmp/good.dom")
check "Chromium: signed in, the page's three charts, each with data" 0 "$(has_data "$dom"; echo $?)"
check_grep "... the fleet's two hosts" '<p class="meta" id="meta">2 hosts; ' "$dom"
check "... three SVG charts rendered inline" 3 "$(grep -c '<svg xmlns="http://www.w3.org/2000/svg"' <<<"$dom")"
check "... screenshot taken, 1280 x 2200" "1280 2200" "$(png_size "$tmp/good.png" 2>/dev/null)"
# a page of three drawn charts compresses to far more than an empty or error page (~10 KB)
check "... and not blank (charts drawn: over 60 KB)" 1 "$(( $(stat -c %s "$tmp/good.png" 2>/dev/null || echo 0) > 60000 ))"
signin "wrong-$RANDOM" bad
dom=$(cat "$tmp/bad.dom")
check_grep "Chromium, a wrong token: the login page" '<form method="post" action="/login">' "$dom"
check_grep "... saying so" 'The store does not know this token' "$dom"
check "... no chart" "" "$(sections "$dom")"
browse "$STORE_URL/" anon
check_grep "Chromium, no token: the login page" '<form method="post" action="/login">' "$(cat "$tmp/anon.dom")"
check "... no chart" "" "$(sections "$(cat "$tmp/anon.dom")")"
check_grep "the page is counted in /metrics" 'lrugen_store_http_responses_total\{route="page",code="200"\} [1-9]' \
	"$(curl -s "$STORE_URL/metrics")"
finish
