# tests/sh/advise.sh - 'lrugen fleet advise' and GET /v1/advise on the sqlite store:
# promotion rates computed here from the fixture's own generations (not copied
# from an answer), the advised threshold at several SLOs, savings per job and
# host, the reasons for no advice, a boot in the middle, errors.
#
# The fixture: advise-fixture.bash.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/store-lib.bash"
. "$(dirname "$0")/advise-fixture.bash"
tmp=$(mktemp -d)
trap 'stop_store; rm -rf "$tmp"' EXIT
make_tokens "$tmp"
N=31
PAGE=4096
advise_spec "$N" >"$tmp/spec"
"$FLEETSIM" build "$tmp/spec" >"$tmp/fleet.pb" || fail "fleetsim build"

# The expected rate at 1m, from the spec: for each pair of consecutive snapshots
# of one host and boot, promoted = decrease of the cold generations (10, 11),
# hot = the rest at the first; rate = sum promoted / sum (hot x minutes) x 100.
expect_1m=$(awk '
	/^host/ { key = $2 " " $4; gen = 0 }
	/^lruvec/ { web = ($2 == "/jobs/web") }
	/^gen/ && web {
		g[$2] = $4
		if ($2 == 13) {
			cold = g[10] + g[11]; hot = g[12] + g[13]
			if (key == last) { p += prev_cold - cold; h += prev_hot; n++ }
			last = key; prev_cold = cold; prev_hot = hot
		}
	}
	END { printf "%.9f %d %d\n", 100 * p / h, n, p }' "$tmp/spec")
read -r rate_1m pairs_1m promoted_pages <<<"$expect_1m"
check "the fixture: 59 pairs (30 + 29, none across a-2's reboot)" 59 "$pairs_1m"

unset LRUGEN_STORE LRUGEN_TOKEN
check_rc "advise: a bad --slo" 2 "$LRUGEN" fleet advise --slo 0.2%/h
check_grep "... says what an SLO is" "^lrugen: --slo: SLO '0.2%/h': a share of the working set per minute" \
	"$("$LRUGEN" fleet advise --slo 0.2%/h 2>&1)"
check_rc "advise: a bad --min-samples" 2 "$LRUGEN" fleet advise --min-samples -1
check_rc "advise takes no --need" 2 "$LRUGEN" fleet advise --need 1G
check_grep "fleet -h teaches advise" "advise +per job: how fast pages idle longer than T" "$("$LRUGEN" fleet -h)"

start_store "$tmp" --config "$tmp/tokens.conf" || { finish; exit 1; }
check_grep "the fixture stored" '"accepted":62' "$(post_pb "$tmp/fleet.pb" "$tmp/admin.token")"
F=("$LRUGEN" fleet --store "$STORE_URL" --token-file "$tmp/read.token")
json=$("${F[@]}" advise --json)
web() { jq -c ".jobs[] | select(.memcg == \"/jobs/web\") | $1" <<<"$json"; }
check "web: hosts, samples, pairs" '[2,62,59]' "$(web '[.hosts, .samples, .pairs]')"
# (within 1/10000: fleetsim build reads the clock per snapshot, so "a minute
# apart" may be a millisecond off)
got=$(web '.rates[0].pct_per_min')
check "web: the 1m rate is the fixture's ($rate_1m %/min)" ok \
	"$(awk -v g="$got" -v w="$rate_1m" 'BEGIN { d = g - w; print (d < 0 ? -d : d) < 1e-4 * w ? "ok" : g }')"
check "web: 1m measured over every pair" 59 "$(web '.rates[0].pairs')"
want=$((promoted_pages * PAGE / pairs_1m))
check "web: promoted bytes a minute at 1m ($want)" true \
	"$(web "(.rates[0].promoted_bytes_per_min - $want) | fabs < $want / 10000")"
check "web: nothing promoted from beyond 2m" '[59,true,0]' "$(web '[.rates[1].pairs, .rates[1].measured, .rates[1].pct_per_min]')"
check "web: 5m and up not measured, no rate" '[[0,false,null]]' \
	"$(web '[.rates[2:][] | [.pairs, .measured, .pct_per_min]] | unique')"
check "web: advised 2m (the SLO 0.2%/min)" 120000 "$(web '.advice.threshold_ms')"
check "web: cold at 2m now, both hosts" $((2 * 20000 * PAGE)) "$(web '.advice.cold_bytes_now')"
check "web: per host p95" $((20000 * PAGE)) "$(web '.advice.cold_bytes_per_host_p95')"
check "young: no advice, and why" '"nothing was cold at 1m in the window: no page to promote, no memory to free"' \
	"$(jq -c '.jobs[] | select(.memcg == "/jobs/young") | .reason' <<<"$json")"
check "new: not enough data" '"not enough data: 1 pair(s) of snapshots at 1m, min_samples asks for 30"' \
	"$(jq -c '.jobs[] | select(.memcg == "/jobs/new") | .reason' <<<"$json")"
check "jobs by path" '["/jobs/new","/jobs/web","/jobs/young"]' "$(jq -c '[.jobs[].memcg]' <<<"$json")"
check "hosts: what each frees" '[["a-1",81920000],["a-2",81920000]]' \
	"$(jq -c '[.hosts[] | [.host, .free_bytes]]' <<<"$json")"
check "the fleet frees" $((2 * 20000 * PAGE)) "$(jq '.free_bytes' <<<"$json")"
check "the document says what it assumed" '[0.2,604800000,30,1800000]' \
	"$(jq -c '[.slo_pct_per_min, .window_ms, .min_samples, .max_pair_gap_ms]' <<<"$json")"

# a looser SLO: 1m meets it; /jobs/new advised with min_samples 1
json=$("${F[@]}" advise --json --slo 1.5%/min --min-samples 1)
check "SLO 1.5%/min: web advised 1m" 60000 "$(web '.advice.threshold_ms')"
check "... cold at 1m now: the two oldest generations of each host" \
	$((2 * (20000 + 5000 - 50 * (N - 1)) * PAGE)) "$(web '.advice.cold_bytes_now')"
check "min_samples 1: /jobs/new advised" 60000 \
	"$(jq '.jobs[] | select(.memcg == "/jobs/new") | .advice.threshold_ms' <<<"$json")"
# a tighter SLO than anything measured at 1m but what 2m meets: still 2m; an SLO
# below 1m's rate and with nothing measured past 2m keeps 2m (0 promoted)
json=$("${F[@]}" advise --json --slo 0.001)
check "SLO 0.001%/min: 2m still meets it" 120000 "$(web '.advice.threshold_ms')"
# the glob and the window
json=$("${F[@]}" advise --json --memcg-glob '/jobs/w*')
check "memcg_glob: one job" '["/jobs/web"]' "$(jq -c '[.jobs[].memcg]' <<<"$json")"
json=$("${F[@]}" advise --json --window 10m)
# (10 a host at most, fewer as the clock moves on from when they were posted)
check "window 10m: only the last 10 minutes' samples" true "$(web '.hosts == 2 and .samples <= 20 and .samples >= 10')"
check "window 10m: not enough pairs" null "$(web '.advice')"

# the table
out=$("${F[@]}" advise)
check_grep "table: the header" '^MEMCG +HOSTS SAMPLES +1m +2m +5m ADVISED +COLD NOW +P95/HOST$' "$out"
check_grep "table: web" '^/jobs/web +2 +62 +1\.34% +0\.00% +- +2m +156\.2 MiB +78\.1 MiB$' "$out"
check_grep "table: a job without advice points to its reason" '^/jobs/young .* - \[2\]$' "$out"
check_grep "table: the reason" '^\[2\] /jobs/young: nothing was cold at 1m' "$out"
check_grep "table: what the fleet frees" '^At the advised thresholds the fleet frees 156\.2 MiB: a-1 78\.1 MiB, a-2 78\.1 MiB$' "$out"

# the plot: each job's measured rates, as --json has them, and the SLO line
json=$("${F[@]}" advise --json --min-samples 1)
out=$("${F[@]}" plot advise --min-samples 1 --out "$tmp/advise.svg")
check_grep "plot advise: says what it wrote" "^wrote the advise plot \(SVG, [0-9]+ bytes\) to $tmp/advise.svg$" "$out"
check "... well-formed XML" "" "$(xmllint --noout "$tmp/advise.svg" 2>&1)"
check "... renders at 1200 x 600" 0 "$(renders "$tmp/advise.svg" "1200 600"; echo $?)"
check "... web's points: the measured rates of --json" \
	"$(jq -r '.jobs[] | select(.memcg == "/jobs/web") | .rates[] | select(.measured) |
		"\(.threshold_ms) \(.pct_per_min)"' <<<"$json" | awk '{ printf "%s %.9g\n", $1, $2 }')" \
	"$(pts "$tmp/advise.svg" /jobs/web | awk '{ printf "%s %.9g\n", $1, $2 }')"
check "... /jobs/new too (min_samples 1)" 2 "$(pts "$tmp/advise.svg" /jobs/new | wc -l)"
check "... not /jobs/young: never measured" 0 "$(pts "$tmp/advise.svg" /jobs/young | wc -l)"
check "... the SLO across the measured thresholds" "60000 0.2 120000 0.2" \
	"$(pts "$tmp/advise.svg" "SLO 0.2%/min" | awk '{ printf "%s %.9g ", $1, $2 }' | xargs)"
check_grep "... the y axis says its unit" '>% of the working set per minute<' "$(cat "$tmp/advise.svg")"
"${F[@]}" plot advise --memcg-glob /nothing --out "$tmp/none.svg" >/dev/null
check_grep "plot advise of no job: 'no data'" '>no data<' "$(cat "$tmp/none.svg")"
# PNG: the same chart drawn by librsvg and cairo, pixel for pixel what rsvg-convert
# draws of the SVG on white (the same libraries: the very same bytes)
out=$("${F[@]}" plot advise --min-samples 1 --out "$tmp/advise.png" 2>&1; echo "rc=$?")
check "plot advise --out X.png: says it wrote a PNG, exit 0 (and no leak)" \
	"wrote the advise plot (PNG, $(stat -c %s "$tmp/advise.png") bytes) to $tmp/advise.png
rc=0" "$out"
check "... a PNG of 1200 x 600" "89504e470d0a1a0a 000004b0 00000258" \
	"$(od -An -tx1 -N8 "$tmp/advise.png" | tr -d ' \n') $(od -An -tx1 -j16 -N4 "$tmp/advise.png" | tr -d ' \n') $(
		od -An -tx1 -j20 -N4 "$tmp/advise.png" | tr -d ' \n')"
rsvg-convert -b white -f png -o "$tmp/ref.png" "$tmp/advise.svg"
check "... the SVG's pixels (as rsvg-convert draws it on white)" same \
	"$(cmp -s "$tmp/ref.png" "$tmp/advise.png" && echo same || echo "differ: $(stat -c %s "$tmp/ref.png" "$tmp/advise.png" | xargs)")"
# without librsvg (its file hidden in a mount namespace): said, and nothing written
rsvg=$(readlink -f "$(ldconfig -p | awk '$1 == "librsvg-2.so.2" { print $NF; exit }')")
out=$(unshare -m sh -c 'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$rsvg" \
	"${F[@]}" plot advise --out "$tmp/x.png" 2>&1; echo "rc=$?")
check "... without librsvg: what to install, exit 1" \
	"lrugen: plot advise: PNG needs librsvg (librsvg-2.so.2: apt-get install librsvg2-2), or write the chart as FILE.svg
rc=1" "$out"
check "... and no file" false "$([[ -e $tmp/x.png ]] && echo true || echo false)"
check_grep "plot help names advise" "which plot\? capacity, rank, advise or job" "$("${F[@]}" plot 2>&1)"

# the answer is kept a minute (it costs a pass over the raw snapshots): the same
# question again is the same document, with its Age
a1=$(curl -s -D "$tmp/h1" -H "Authorization: Bearer $(cat "$tmp/read.token")" "$STORE_URL/v1/advise?slo=0.3")
a2=$(curl -s -D "$tmp/h2" -H "Authorization: Bearer $(cat "$tmp/read.token")" "$STORE_URL/v1/advise?slo=0.3")
check "asked twice: the same answer" "$a1" "$a2"
check "... the first made afresh (no Age)" 0 "$(grep -ci '^Age:' "$tmp/h1")"
check_grep "... the second kept (Age)" '^Age: [0-9]+' "$(cat "$tmp/h2")"
check "... another question is not the kept one" 0 \
	"$(curl -s -D - -o /dev/null -H "Authorization: Bearer $(cat "$tmp/read.token")" \
		"$STORE_URL/v1/advise?slo=0.3&window=2d" | grep -ci '^Age:')"
# collectors read advice with their ingest tokens (reclaim-older-than = advised), nothing else
check_grep "an ingest token reads /v1/advise" '^200 ' "$(http GET /v1/advise "$tmp/web1.token")"
check_grep "... not /v1/hosts" '^403 ' "$(http GET /v1/hosts "$tmp/web1.token")"

# bands: the job's bytes by page age across its hosts. One step over every snapshot:
# 2 hosts, 62 host snapshots; [2m, 5m) holds gen 10 (20000 pages a host); [1m, 2m)
# gen 11 (5000 - 50 i, i = 0..30: a mean of 4250 a host); [0, 1m) gens 12 and 13
# (3000 + 50 i: 3750)
json=$("${F[@]}" bands --json --memcg-glob /jobs/web --window 40m --step 40m)
check "bands: one step, both hosts, every snapshot" '[1,2,62]' "$(jq -c '[(.steps | length), .steps[0].hosts, .steps[0].samples]' <<<"$json")"
check "bands: the bytes of each band" "[$((3750 * 2 * PAGE)),$((4250 * 2 * PAGE)),$((20000 * 2 * PAGE)),0,0,0,0,0,0]" \
	"$(jq -c '.steps[0].bytes' <<<"$json")"
check "bands: the band edges" '[0,60000,120000,300000,600000,1800000,3600000,21600000,86400000]' \
	"$(jq -c '.band_edges_ms' <<<"$json")"
out=$("${F[@]}" bands --memcg-glob /jobs/web --window 40m --step 40m)
check_grep "bands table" '^-40m +2 +29\.3 MiB +33\.2 MiB +156\.2 MiB +0 B ' "$out"
check_rc "bands without --memcg-glob" 2 "${F[@]}" bands
check_grep "bands: too many steps" '^400 .*at most 1000 steps' \
	"$(http GET '/v1/bands?memcg_glob=*&window=7d&step=1s' "$tmp/read.token")"
"${F[@]}" plot job --memcg-glob /jobs/web --window 40m --step 40m --out "$tmp/job.svg" >/dev/null
check "plot job: well-formed" "" "$(xmllint --noout "$tmp/job.svg" 2>&1)"
check "... renders at 1200 x 600" 0 "$(renders "$tmp/job.svg" "1200 600"; echo $?)"
check "... a cell per band, the values of --json" "$(jq -r '.steps[0].bytes[]' <<<"$json" | paste -sd' ')" \
	"$(grep -o 'class="cell" data-row="[^"]*" data-col="[^"]*" data-v="[^"]*"' "$tmp/job.svg" |
		sed 's/.*data-v="\([^"]*\)"/\1/' | paste -sd' ')"
check_grep "plot job without --memcg-glob: said" "fleet plot job needs --memcg-glob G" \
	"$("${F[@]}" plot job --out "$tmp/x.svg" 2>&1)"

# reclaim, from memory.stat's counters (reclaim_spec): what was evicted is not
# promoted, what refaulted is
reclaim_spec "$N" >"$tmp/reclaim.spec"
"$FLEETSIM" build "$tmp/reclaim.spec" >"$tmp/reclaim.pb" || fail "fleetsim build (reclaim)"
check_grep "the reclaim fixture stored" '"accepted":31' "$(post_pb "$tmp/reclaim.pb" "$tmp/admin.token")"
json=$("${F[@]}" advise --json --memcg-glob '/reclaim/*')
rj() { jq -c ".jobs[] | select(.memcg == \"/reclaim/$1\") | $2" <<<"$json"; }
near() {	# near WANT GOT: within 1/10000 (fleetsim's clock, as above)
	awk -v w="$1" -v g="$2" 'BEGIN { d = g - w; print (d < 0 ? -d : d) <= 1e-4 * w ? "ok" : g }'
}
check "evicted: 30 pairs, nothing promoted at 1m or 2m" '[30,0,0,30,0,0]' \
	"$(rj evicted '[.rates[0].pairs, .rates[0].promoted_bytes_per_min, .rates[0].pct_per_min,
		.rates[1].pairs, .rates[1].promoted_bytes_per_min, .rates[1].pct_per_min]')"
check "... its reclaim said: evicted at 1m, not at 2m (not cold there), nothing refaulted" \
	"[$((30 * 50 * PAGE)),0,0,0]" \
	"$(rj evicted '[.rates[0].evicted_bytes, .rates[1].evicted_bytes, .rates[0].refaulted_bytes,
		.rates[1].refaulted_bytes]')"
check "... advised 1m (nothing came back)" 60000 "$(rj evicted '.advice.threshold_ms')"
check "refaulted: 60 pages a minute promoted at 1m" ok \
	"$(near $((60 * PAGE)) "$(rj refaulted '.rates[0].promoted_bytes_per_min')")"
check "... 10 at 2m (evicted 10, refaulted 10)" ok \
	"$(near $((10 * PAGE)) "$(rj refaulted '.rates[1].promoted_bytes_per_min')")"
check "... evicted and refaulted bytes at 1m and 2m" "[$((300 * PAGE)),$((300 * PAGE)),$((300 * PAGE)),$((300 * PAGE))]" \
	"$(rj refaulted '[.rates[0].evicted_bytes, .rates[1].evicted_bytes, .rates[0].refaulted_bytes,
		.rates[1].refaulted_bytes]')"
# without the counters (the same generations, stats lines dropped): eviction counts as promotion
grep -v '^stats' "$tmp/reclaim.spec" | sed 's/^host r-1/host r-2/' >"$tmp/nostats.spec"
"$FLEETSIM" build "$tmp/nostats.spec" >"$tmp/nostats.pb" || fail "fleetsim build (no stats)"
check_grep "... a host without memory.stat stored" '"accepted":31' "$(post_pb "$tmp/nostats.pb" "$tmp/admin.token")"
json=$("${F[@]}" advise --json --memcg-glob '/reclaim/evicted')
check "... the two hosts: half the pairs with evictions known (50 a minute promoted per host on r-2 only)" ok \
	"$(near $((25 * PAGE)) "$(rj evicted '.rates[0].promoted_bytes_per_min')")"
check "... r-1's evictions still said" "$((30 * 50 * PAGE))" "$(rj evicted '.rates[0].evicted_bytes')"
# counters that go down between two rows (the memcg made again under its path, host r-3
# at the middle snapshot): that pair counts no reclaim, so its 50 pages count as promoted;
# the 29 other pairs' evictions are said as before
for ((i = 0; i < N; i++)); do
	echo "host r-3 boot b-1 seq $((i + 1)) taken -$(((N - i) * 60))s"
	echo "node 0 total 8G free 1G"
	echo "lruvec /reclaim/reset ino 202 id 10 node 0"
	echo "gen 10 900s 20000 0"
	echo "gen 11 300s $((5000 - 50 * i)) 0"
	echo "gen 12 90s 2000 0"
	echo "gen 13 10s 1000 0"
	echo "stats /reclaim/reset ino 202 pgsteal $((i < N / 2 ? 50 * i : 50 * (i - N / 2))) refault 0"
done >"$tmp/reset.spec"
"$FLEETSIM" build "$tmp/reset.spec" >"$tmp/reset.pb" || fail "fleetsim build (reset)"
check_grep "counters going down: stored" '"accepted":31' "$(post_pb "$tmp/reset.pb" "$tmp/admin.token")"
json=$("${F[@]}" advise --json --memcg-glob '/reclaim/reset')
check "... 29 pairs' evictions said, none for the pair where they went down" "$((29 * 50 * PAGE))" \
	"$(rj reset '.rates[0].evicted_bytes')"
check "... that pair's 50 pages promoted (over 30 pairs)" ok \
	"$(near "$(awk -v p=$PAGE 'BEGIN { printf "%.6f", 50 * p / 30 }')" "$(rj reset '.rates[0].promoted_bytes_per_min')")"

# the store refuses bad parameters with one clear line
check_grep "store: bad slo" '^400 .*parameter .slo.: SLO .abc.' "$(http GET '/v1/advise?slo=abc' "$tmp/read.token")"
check_grep "store: bad min_samples" '^400 .*min_samples' "$(http GET '/v1/advise?min_samples=-3' "$tmp/read.token")"
check_grep "store: window 0" '^400 .*window' "$(http GET '/v1/advise?window=0' "$tmp/read.token")"
check_grep "store: an unknown parameter" '^400 ' "$(http GET '/v1/advise?need=1G' "$tmp/read.token")"
check_grep "store: no token, no advice" '^401 ' "$(http GET '/v1/advise')"
finish
