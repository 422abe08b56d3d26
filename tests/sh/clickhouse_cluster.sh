# tests/sh/clickhouse_cluster.sh - tests/clickhouse/cluster, the real ClickHouse
# cluster of the tests and demos (Debian's clickhouse-server 18.16, zookeeper
# 3.8): a 2x2 cluster starts and every server sees all four; ON CLUSTER DDL,
# replication inside a shard and a Distributed table over both shards; the
# 'lrugen' user's password; a killed replica comes back and catches up; a
# killed ZooKeeper comes back; stop + start keeps the data, ports and password;
# stop leaves no process; a server that does not come up is named, its log
# shown and what was started stopped. Every wait is a bounded poll (CH_WAIT s).
. "$(dirname "$0")/lib.sh"
CLUSTER=$LRUGEN_SRC/tests/clickhouse/cluster
WAIT=${CH_WAIT:-60}
tmp=$(mktemp -d)
dir=$tmp/c
trap '"$CLUSTER" clean "$dir" >/dev/null 2>&1; "$CLUSTER" clean "$tmp/bad" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
t_test=$(date +%s%N)

for need in /usr/sbin/clickhouse-server /usr/share/java/zookeeper.jar /usr/bin/java /usr/bin/curl; do
	if [[ ! -e $need ]]; then
		fail "$need is needed (scripts/install-deps)"
		finish
		exit
	fi
done

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
# sql URL SQL: the answer, as user lrugen with the password of DIR/password
sql() {
	curl -sS --max-time 60 -H "X-ClickHouse-User: lrugen" -H "X-ClickHouse-Key: $pw" \
		--data-binary "$2" "$1/" 2>&1
}
# poll WANT URL SQL: the answer as soon as it is WANT, else the last one after WAIT s
poll() {
	local until=$((SECONDS + WAIT)) out
	while true; do
		out=$(sql "$2" "$3")
		[[ $out == "$1" || $SECONDS -ge $until ]] && break
		sleep 0.2
	done
	printf '%s' "$out"
}
# gone PID...: every one has exited (a zombie waiting for init counts as gone
# once its last thread is: until then it holds its sockets)
gone() {
	local pid status
	for pid in "$@"; do
		[[ $pid =~ ^[0-9]+$ ]] || return 1
		status=$(cat "/proc/$pid/status" 2>/dev/null) || continue
		[[ $status == *$'\nState:\tZ'* && $status == *$'\nThreads:\t1\n'* ]] || return 1
	done
}
pids() { cat "$dir"/*.pid 2>/dev/null; }
# ok NAME CMD...: CMD exits 0; its output shown when it does not
ok() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [[ $rc == 0 ]]; then pass; else fail "$name: exit $rc: $out"; fi
}

# --- usage -----------------------------------------------------------------------
check_rc "--help" 0 "$CLUSTER" --help
check_grep "--help names the commands" "start-one DIR NAME" "$("$CLUSTER" --help)"
check_rc "no command: usage error" 2 "$CLUSTER"
check_rc "unknown command: usage error" 2 "$CLUSTER" frobnicate "$dir"
out=$("$CLUSTER" status "$tmp/none" 2>&1)
check "status of no cluster: exit 1" 1 $?
check_grep "status of no cluster: one line saying so" "^cluster: .*/none holds no cluster \(no cluster.state\)" "$out"
check_rc "stop of no cluster: nothing to do" 0 "$CLUSTER" stop "$tmp/none"
out=$("$CLUSTER" start "$tmp/none" --compression gzip 2>&1)
check "--compression gzip: usage error" 2 $?
check_grep "... says which methods" "^cluster: --compression gzip: lz4 or zstd" "$out"
check "... creates nothing" no "$([[ -e $tmp/none ]] && echo yes || echo no)"

# --- a server that does not come up ------------------------------------------------
printf '#!/bin/sh\necho "fake-server: cannot start" >&2\nexit 1\n' >"$tmp/fake-server"
chmod +x "$tmp/fake-server"
out=$(CLUSTER_CLICKHOUSE_SERVER=$tmp/fake-server "$CLUSTER" start "$tmp/bad" --shards 1 --replicas 1 2>&1)
check "a server that exits: start fails" 1 $?
check_grep "it is named" "cluster: ch1-1 did not come up: the process exited" "$out"
check_grep "its log is shown" "fake-server: cannot start" "$out"
check_grep "ZooKeeper, started, is stopped" "stopping what this run started: zk ch1-1" "$out"
out=$("$CLUSTER" status "$tmp/bad")
check "nothing is left running" "zk down ch1-1 down" "$(awk '{print $1, $3}' <<<"$out" | paste -sd' ')"
check "no ZooKeeper process of it" "" "$(pgrep -f "$tmp/bad/zk/zoo.cfg")"
ok "clean" "$CLUSTER" clean "$tmp/bad"
check "clean removes DIR" no "$([[ -e $tmp/bad ]] && echo yes || echo no)"

# --- start a 2x2 cluster -------------------------------------------------------------
t0=$(date +%s%N)
out=$("$CLUSTER" start "$dir" 2>"$tmp/start.err")
rc=$?
t_start=$(ms_since "$t0")
check "start 2x2" 0 "$rc"
if [[ $rc -ne 0 ]]; then
	cat "$tmp/start.err" >&2
	finish
	exit
fi
check "cluster.env is what start printed" "$out" "$(cat "$dir/cluster.env")"
. "$dir/cluster.env"
pw=$(head -n 1 "$CLICKHOUSE_PASSWORD_FILE")
check "CLICKHOUSE_URLS: shard 1's replicas first" \
	"$CH_1_1_HTTP,$CH_1_2_HTTP,$CH_2_1_HTTP,$CH_2_2_HTTP" "$CLICKHOUSE_URLS"
check "CLICKHOUSE_CLUSTER" lrugen "$CLICKHOUSE_CLUSTER"
check "CLICKHOUSE_USER" lrugen "$CLICKHOUSE_USER"
check "CLICKHOUSE_PASSWORD_FILE" "$dir/password" "$CLICKHOUSE_PASSWORD_FILE"
check "the password file is 600" 600 "$(stat -c %a "$dir/password")"
check_grep "a random password" '^[0-9a-f]{32}$' "$pw"
check_grep "ZOOKEEPER" '^127\.0\.0\.1:[0-9]+$' "$ZOOKEEPER"
check_grep "CH_2_2_TCP" '^127\.0\.0\.1:[0-9]+$' "$CH_2_2_TCP"
ports=$(grep -E '^(ZOOKEEPER|CH_)' "$dir/cluster.env" | grep -oE '[0-9]+$' | sort)
check "9 ports, all different" 9 "$(uniq <<<"$ports" | wc -l)"

# every server answers, knows its place and sees the whole cluster
IFS=, read -ra urls <<<"$CLICKHOUSE_URLS"
check "4 servers" 4 "${#urls[@]}"
i=0
for s in 1 2; do
	for r in 1 2; do
		u=${urls[i++]}
		check "ch$s-$r answers /ping" Ok. "$(curl -sS --max-time 5 "$u/ping" 2>&1)"
		check "ch$s-$r: macros cluster, replica, shard" "lrugen ch$s-$r 0$s" \
			"$(sql "$u" "SELECT substitution FROM system.macros ORDER BY macro" | paste -sd' ')"
		check "ch$s-$r: system.clusters shows 2 shards x 2 replicas" "$(printf '4\t2\t2')" \
			"$(sql "$u" "SELECT count(), uniqExact(shard_num), uniqExact(replica_num)
				FROM system.clusters WHERE cluster = 'lrugen'")"
	done
done
check "ZooKeeper is usable from ClickHouse" 1 \
	"$(sql "$CH_2_2_HTTP" "SELECT count() > 0 FROM system.zookeeper WHERE path = '/'")"

out=$("$CLUSTER" status "$dir")
check "status: everything up, exit 0" 0 $?
check "status: one line per process" "zk up ch1-1 up ch1-2 up ch2-1 up ch2-2 up" \
	"$(awk '{print $1, $3}' <<<"$out" | paste -sd' ')"
check_grep "status: the URL of each server" "^ch1-2 +[0-9]+ +up +$CH_1_2_HTTP$" "$out"

out=$("$CLUSTER" start "$dir" 2>&1)
check "start over a running cluster fails" 1 $?
check_grep "... saying it is already running" "already running" "$out"

# memory at rest, for the report
rss=""
for n in zk ch1-1 ch1-2 ch2-1 ch2-2; do
	rss+=" $n $(($(ps -o rss= -p "$(cat "$dir/$n.pid")") / 1024))M"
done

# --- the lrugen user -----------------------------------------------------------------
check "lrugen: its password is accepted (X-ClickHouse-User/-Key)" 1 "$(sql "$CH_1_1_HTTP" "SELECT 1")"
check "lrugen: ... and as URL parameters" 1 \
	"$(curl -sS "$CH_2_1_HTTP/?user=lrugen&password=$pw&query=SELECT%201" 2>&1)"
out=$(curl -sS -w ' %{http_code}' -H "X-ClickHouse-User: lrugen" -H "X-ClickHouse-Key: wrong" \
	--data-binary "SELECT 1" "$CH_1_1_HTTP/" 2>&1 | tr -s '\n' ' ')
check_grep "lrugen: a wrong password is refused" "(Wrong password for user lrugen|Authentication failed).* (401|516)$" "$out"
out=$(curl -sS -w ' %{http_code}' --data-binary "SELECT 1" "$CH_1_1_HTTP/?user=lrugen" 2>&1 | tr -s '\n' ' ')
check_grep "lrugen: no password is refused" "(Password required for user lrugen|Authentication failed).* (401|516)$" "$out"

# --- ON CLUSTER DDL, replication, Distributed --------------------------------------------
out=$(sql "$CH_1_1_HTTP" "CREATE TABLE t ON CLUSTER lrugen (id UInt64, s String)
	ENGINE = ReplicatedMergeTree('/clickhouse/tables/{shard}/t', '{replica}') ORDER BY id")
check "CREATE TABLE t ON CLUSTER: done on 4 servers" "0 0 0 0" "$(cut -f3 <<<"$out" | paste -sd' ')"
out=$(sql "$CH_1_1_HTTP" "CREATE TABLE t_all ON CLUSTER lrugen AS t ENGINE = Distributed(lrugen, default, t, rand())")
check "CREATE TABLE t_all (Distributed) ON CLUSTER: done on 4 servers" "0 0 0 0" \
	"$(cut -f3 <<<"$out" | paste -sd' ')"
for u in "${urls[@]}"; do
	check "t and t_all exist on $u" "1 1" "$(sql "$u" "EXISTS TABLE t") $(sql "$u" "EXISTS TABLE t_all")"
done

check "insert on ch1-1" "" "$(sql "$CH_1_1_HTTP" "INSERT INTO t SELECT number + 1, 'one' FROM system.numbers LIMIT 100")"
check "insert on ch2-2" "" "$(sql "$CH_2_2_HTTP" "INSERT INTO t SELECT number + 1001, 'two' FROM system.numbers LIMIT 50")"
t0=$(date +%s%N)
check "ch1-1's rows reach ch1-2" 100 "$(poll 100 "$CH_1_2_HTTP" "SELECT count() FROM t")"
t_repl=$(ms_since "$t0")
check "ch2-2's rows reach ch2-1" 50 "$(poll 50 "$CH_2_1_HTTP" "SELECT count() FROM t")"
check "shard 1 holds only its rows" 0 "$(sql "$CH_1_2_HTTP" "SELECT count() FROM t WHERE id > 1000")"
check "t_all counts the rows of both shards" "$(printf '150\t100\t50')" \
	"$(sql "$CH_2_1_HTTP" "SELECT count(), countIf(s = 'one'), countIf(s = 'two') FROM t_all")"

# --- a replica killed, then started again ---------------------------------------------
pid=$(cat "$dir/ch1-2.pid")
ok "kill ch1-2" "$CLUSTER" kill "$dir" ch1-2
check "ch1-2's process is gone" yes "$(gone "$pid" && echo yes)"
out=$("$CLUSTER" status "$dir")
check "status with ch1-2 down: exit 3" 3 $?
check_grep "status shows ch1-2 down" "^ch1-2 +$pid +down " "$out"
check "status: the others stay up" 4 "$(grep -c ' up ' <<<"$out")"
check_rc "kill of no such server: usage error" 2 "$CLUSTER" kill "$dir" ch3-1
check "insert on ch1-1 while ch1-2 is down" "" \
	"$(sql "$CH_1_1_HTTP" "INSERT INTO t SELECT number + 101, 'one' FROM system.numbers LIMIT 100")"
check "t_all answers with a replica of shard 1 down" 250 "$(sql "$CH_2_1_HTTP" "SELECT count() FROM t_all")"
t0=$(date +%s%N)
ok "start-one ch1-2" "$CLUSTER" start-one "$dir" ch1-2
check "ch1-2 answers again" Ok. "$(curl -sS --max-time 5 "$CH_1_2_HTTP/ping" 2>&1)"
check "ch1-2 catches up" 200 "$(poll 200 "$CH_1_2_HTTP" "SELECT count() FROM t")"
t_catchup=$(ms_since "$t0")
out=$("$CLUSTER" start-one "$dir" ch1-2 2>&1)
check "start-one of a running server fails" 1 $?
check_grep "... saying so" "ch1-2 is already running \(pid [0-9]+\)" "$out"

# --- stop-one, and ZooKeeper killed and started again ----------------------------------
pid=$(cat "$dir/ch2-1.pid")
ok "stop-one ch2-1" "$CLUSTER" stop-one "$dir" ch2-1
check "ch2-1's process is gone" yes "$(gone "$pid" && echo yes)"
ok "start-one ch2-1" "$CLUSTER" start-one "$dir" ch2-1
check "ch2-1 has its rows" 50 "$(sql "$CH_2_1_HTTP" "SELECT count() FROM t")"
pid=$(cat "$dir/zk.pid")
ok "kill zk" "$CLUSTER" kill "$dir" zk
check "zk's process is gone" yes "$(gone "$pid" && echo yes)"
check_grep "status shows zk down" "^zk +$pid +down " "$("$CLUSTER" status "$dir")"
check "without ZooKeeper the servers still read" 200 "$(sql "$CH_1_1_HTTP" "SELECT count() FROM t")"
ok "start-one zk" "$CLUSTER" start-one "$dir" zk
check "ZooKeeper is usable again from ch1-1" 1 \
	"$(poll 1 "$CH_1_1_HTTP" "SELECT count() > 0 FROM system.zookeeper WHERE path = '/'")"
check "replicated insert after ZooKeeper's restart" "" \
	"$(poll "" "$CH_1_1_HTTP" "INSERT INTO t SELECT number + 201, 'one' FROM system.numbers LIMIT 10")"
check "... reaches ch1-2" 210 "$(poll 210 "$CH_1_2_HTTP" "SELECT count() FROM t")"

# --- stop, start again with the data ---------------------------------------------------
mapfile -t before < <(pids)
check "5 pid files" 5 "${#before[@]}"
t0=$(date +%s%N)
ok "stop" "$CLUSTER" stop "$dir"
t_stop=$(ms_since "$t0")
check "stop: every process is gone" yes "$(gone "${before[@]}" && echo yes)"
check "stop: no pid file left" "" "$(pids)"
out=$("$CLUSTER" status "$dir")
check "status after stop: exit 3" 3 $?
check "status after stop: all down" 5 "$(grep -c ' down ' <<<"$out")"
ok "stop again: nothing to do" "$CLUSTER" stop "$dir"

check_grep "compression: lz4 unless asked (ClickHouse's default: no <compression>)" "^compression lz4$" \
	"$(cat "$dir/cluster.state")"
check "... the servers' configs say nothing of it" 0 "$(cat "$dir"/ch*/config.xml | grep -c '<compression>')"
out=$("$CLUSTER" start "$dir" --compression zstd 2>&1)
check "start again with another --compression: refused" 1 $?
check_grep "... saying what the cluster has" "compressing with lz4: drop --compression" "$out"
check "... starting nothing" "" "$(pids)"
cp "$dir/cluster.state" "$tmp/state.saved"
sed -i 's/^compression lz4$/compression gzip/' "$dir/cluster.state"
out=$("$CLUSTER" start "$dir" 2>&1)
check "a cluster.state with an unknown compression: refused" 1 $?
check_grep "... as damaged, saying what to do" "cluster.state is damaged: 'cluster clean" "$out"
check "... starting nothing" "" "$(pids)"
cp "$tmp/state.saved" "$dir/cluster.state"

urls_before=$CLICKHOUSE_URLS zk_before=$ZOOKEEPER
t0=$(date +%s%N)
ok "start again" "$CLUSTER" start "$dir"
t_restart=$(ms_since "$t0")
. "$dir/cluster.env"
check "the same ports" "$urls_before $zk_before" "$CLICKHOUSE_URLS $ZOOKEEPER"
check "the same password" "$pw" "$(head -n 1 "$dir/password")"
for u in "$CH_1_1_HTTP" "$CH_1_2_HTTP"; do
	check "restarted: $u still has shard 1's rows" 210 "$(sql "$u" "SELECT count() FROM t")"
done
check "restarted: t_all still counts both shards" 260 "$(sql "$CH_2_2_HTTP" "SELECT count() FROM t_all")"
check "restarted: replication works" 60 \
	"$(sql "$CH_2_1_HTTP" "INSERT INTO t SELECT number + 2001, 'two' FROM system.numbers LIMIT 10";
		poll 60 "$CH_2_2_HTTP" "SELECT count() FROM t")"

mapfile -t before < <(pids)
ok "stop" "$CLUSTER" stop "$dir"
check "no process of the cluster is left" yes "$(gone "${before[@]}" && echo yes)"
check "no process names DIR" "" "$(pgrep -f "$dir/")"
ok "clean" "$CLUSTER" clean "$dir"
check "clean removes DIR" no "$([[ -e $dir ]] && echo yes || echo no)"

echo "clickhouse_cluster: start 2x2 $((t_start / 1000)).$((t_start % 1000 / 100)) s," \
	"restart $((t_restart / 1000)).$((t_restart % 1000 / 100)) s, stop ${t_stop} ms;" \
	"RSS at rest:$rss; replication ${t_repl} ms; ch1-2 caught up ${t_catchup} ms after start-one;" \
	"test $(($(ms_since "$t_test") / 1000)) s"
finish
