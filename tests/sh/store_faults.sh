# tests/sh/store_faults.sh - lrugen-store under faults: kill -9 under load loses no
# acknowledged snapshot (sync=normal and sync=full), a full disk (as root: a small
# tmpfs in a private mount namespace) answers 500 and loses nothing, and TLS.
. "$(dirname "$0")/lib.sh"
private_mounts "$0" "$@"
. "$(dirname "$0")/store-lib.bash"
tmp=$(mktemp -d)
trap 'stop_store; rm -rf "$tmp"' EXIT

# acked_at_least FILE N PID: N lines acknowledged, or the simulator ended
acked_at_least() {
	{ [[ -f $1 ]] && (($(wc -l <"$1") >= $2)); } || ! kill -0 "$3" 2>/dev/null
}

# missing DB ACKED: how many acknowledged (host boot seq) lines the database lacks
missing() {
	awk '{ printf "INSERT INTO acked VALUES(%c%s%c, %c%s%c, %s);\n", 39, $1, 39, 39, $2, 39, $3 }' "$2" |
		{
			echo "CREATE TEMP TABLE acked(host TEXT, boot TEXT, seq INTEGER);"
			cat
			echo "SELECT count(*) FROM acked a WHERE NOT EXISTS (SELECT 1 FROM snapshots s"
			echo "  JOIN hosts h ON h.id = s.host_id WHERE h.name = a.host AND s.boot_id = a.boot"
			echo "  AND s.seq = a.seq);"
		} | sqlite3 -batch "$1"
}

for sync in normal full; do
	d=$tmp/$sync
	now=$(date +%s%3N)
	mkdir -p "$d"
	start_store "$d" --insecure-no-auth --sync "$sync" --threads 4 || break
	"$FLEETSIM" run --store "$STORE_URL" --hosts 300 --memcgs 10 --cycles 20 --threads 8 --now "$now" \
		--acked "$d/acked" --max-errors 40 >"$d/sim.out" 2>&1 &
	sim=$!
	wait_for "400 acknowledged snapshots" 60 acked_at_least "$d/acked" 400 "$sim"
	kill_store
	wait_for "the simulator to give up" 60 bash -c "! kill -0 $sim 2>/dev/null"
	wait "$sim"
	check "kill -9 ($sync): the simulator saw the store die" 1 $?
	n=$(cat "$d/acked" 2>/dev/null | wc -l)
	check "kill -9 ($sync): snapshots were acknowledged before the kill" 1 "$((n >= 400))"
	start_store "$d" --insecure-no-auth --sync "$sync" || break
	check "kill -9 ($sync): acknowledged snapshots lost (of $n)" 0 "$(missing "$d/db" "$d/acked")"
	check "kill -9 ($sync): database intact" ok "$(sql "$d/db" 'PRAGMA integrity_check')"
	# the rest arrives; what was acknowledged comes back as duplicates
	out=$("$FLEETSIM" run --store "$STORE_URL" --hosts 300 --memcgs 10 --cycles 20 --threads 4 --now "$now")
	check_grep "kill -9 ($sync): resending completes" "sent=6000 .* errors=0" "$out"
	dups=$(sed -n 's/.*duplicates=\([0-9]*\).*/\1/p' <<<"$out")
	check "kill -9 ($sync): every acknowledged one is a duplicate" 1 "$((dups >= n))"
	check "kill -9 ($sync): 6000 snapshots stored once" 6000 "$(sql "$d/db" 'SELECT count(*) FROM snapshots')"
	stop_store
done

# A full disk: ingest answers 500 "retry later" and acknowledges nothing it did
# not keep; queries and /healthz go on; once there is room, ingest resumes and
# every snapshot is stored once.
if small_fs "$tmp/full" 400k; then
	d=$tmp/full now=$(date +%s%3N)
	start_store "$d" --insecure-no-auth
	sim=(run --store "$STORE_URL" --hosts 20 --memcgs 20 --nodes 2 --cycles 20 --threads 2 --now "$now")
	out=$("$FLEETSIM" "${sim[@]}" --acked "$tmp/full.acked1" --max-errors 5 2>&1)
	check_grep "full disk: ingest fails" "errors=[1-9]" "$out"
	check_grep "full disk: 500, retry later" 'HTTP 500 .*the snapshots could not be written: retry later' "$out"
	check_grep "full disk: the cause is logged" "cannot (commit|write snapshots): database or disk is full" \
		"$(cat "$STORE_LOG")"
	n=$(cat "$tmp/full.acked1" 2>/dev/null | wc -l)
	health=$(http GET /healthz)
	check_grep "full disk: /healthz answers" '^200 .*"status":"ok"' "$health"
	check "full disk: /healthz counts the hosts stored" \
		"$(awk '{ print $1 }' "$tmp/full.acked1" 2>/dev/null | sort -u | wc -l)" \
		"$(sed -n 's/.*"hosts":\([0-9]*\).*/\1/p' <<<"$health")"
	mount -o remount,size=20m "$d"
	out=$("$FLEETSIM" "${sim[@]}" --acked "$tmp/full.acked2" 2>&1)
	check_grep "full disk: ingest resumes with room" "sent=400 accepted=$((400 - n)) duplicates=$n errors=0" "$out"
	stop_store
	check "full disk: every acknowledged snapshot kept" 0 "$(missing "$d/db" "$tmp/full.acked1")"
	check "full disk: 400 snapshots stored once" 400 "$(sql "$d/db" 'SELECT count(*) FROM snapshots')"
	check "full disk: database intact" ok "$(sql "$d/db" 'PRAGMA integrity_check')"
	umount "$d"
else
	echo "full disk: skipped (needs root, for a tmpfs in a private mount namespace)"
fi

# TLS with a self-signed certificate for 127.0.0.1
if command -v openssl >/dev/null; then
	d=$tmp/tls
	mkdir -p "$d"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/key.pem" -out "$d/cert.pem" -days 2 \
		-subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1
	if start_store "$d" --insecure-no-auth --tls-cert "$d/cert.pem" --tls-key "$d/key.pem"; then
		check_grep "tls: https URL" '^https://127\.0\.0\.1:' "$STORE_URL"
		check "tls: healthz with the CA" 200 \
			"$(curl -s --cacert "$d/cert.pem" -o /dev/null -w '%{http_code}' "$STORE_URL/healthz")"
		out=$("$FLEETSIM" run --store "$STORE_URL" --hosts 5 --memcgs 4 --cycles 2)
		check_grep "tls: ingest" "accepted=10 " "$out"
		check_rc "tls: lrugen fleet with --ca-file" 0 "$LRUGEN" fleet hosts --store "$STORE_URL" --ca-file "$d/cert.pem"
		out=$("$LRUGEN" fleet hosts --store "$STORE_URL" 2>&1)
		check_grep "tls: an unknown CA is refused" "^lrugen: store unreachable at 'https://.*certificate" "$out"
		check "tls: plain http is refused" 000 \
			"$(curl -s -o /dev/null -w '%{http_code}' "http://${STORE_URL#https://}/healthz")"
		stop_store
	fi
	printf 'x\n' >"$d/bad.pem"
	check_grep "tls: a bad certificate is a clear error" "cannot listen on .* with TLS" \
		"$("$STORE_BIN" --db "$d/db2" --listen 127.0.0.1:0 --insecure-no-auth --tls-cert "$d/bad.pem" --tls-key "$d/bad.pem" 2>&1)"
	check_grep "tls: cert without key" "TLS needs both" \
		"$("$STORE_BIN" --db "$d/db2" --insecure-no-auth --tls-cert "$d/cert.pem" 2>&1)"
fi
finish
