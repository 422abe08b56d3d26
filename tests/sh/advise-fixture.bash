# tests/sh/advise-fixture.bash - the fleet of 'lrugen fleet advise's tests (advise.sh,
# tui.sh), as a fleetsim build spec: advise_spec N prints it.
#
# Hosts a-1 and a-2, N snapshots a
# minute apart. /jobs/web: generations aged 900s 300s 90s 10s; every minute 50
# pages of the 300s one are used again (they leave it for the youngest). Cold
# at 1m = the two oldest (their successors are older than 1m), at 2m = the
# oldest only (its successor, 300s), 5m and up: nothing (not measured).
# a-2 reboots at snapshot 15: no pair across it. /jobs/young: nothing older
# than 1m. /jobs/new: only a-1's last two snapshots.
advise_spec() {
	local N=$1 host i boot
	for host in a-1 a-2; do
		for ((i = 0; i < N; i++)); do
			boot=b-1
			[[ $host == a-2 && $i -ge 15 ]] && boot=b-2
			echo "host $host boot $boot seq $((i + 1)) taken -$(((N - i) * 60))s"
			echo "node 0 total 8G free 1G"
			echo "lruvec /jobs/web ino 100 id 5 node 0"
			echo "gen 10 900s 20000 0"
			echo "gen 11 300s $((5000 - 50 * i)) 0"
			echo "gen 12 90s 2000 0"
			echo "gen 13 10s $((1000 + 50 * i)) 0"
			echo "lruvec /jobs/young ino 101 id 6 node 0"
			echo "gen 3 50s 100 0"
			echo "gen 4 5s 100 0"
			if [[ $host == a-1 && $i -ge $((N - 2)) ]]; then
				echo "lruvec /jobs/new ino 102 id 7 node 0"
				echo "gen 3 600s 100 0"
				echo "gen 4 300s 100 0"
				echo "gen 5 5s 100 0"
			fi
		done
	done
}

# reclaim_spec N: host r-1, N snapshots a minute apart, with memory.stat's
# counters (advise.sh, clickhouse_single.sh). /reclaim/evicted: 50 pages a
# minute leave its 300s generation by reclaim (pgsteal + 50 a minute), none is
# used again: nothing promoted. /reclaim/refaulted: 50 pages a minute of its
# 300s generation are used again (to the youngest) and 10 of its 900s one are
# reclaimed (pgsteal + 10) while 10 come back (refault + 10): 60 promoted at 1m
# (50 + 10 - 10 evicted + 10 refaulted), 10 at 2m (10 - 10 + 10). Its first
# snapshot's counters are 0: left out of the blob, counted as 0.
reclaim_spec() {
	local N=$1 i
	for ((i = 0; i < N; i++)); do
		echo "host r-1 boot b-1 seq $((i + 1)) taken -$(((N - i) * 60))s"
		echo "node 0 total 8G free 1G"
		echo "lruvec /reclaim/evicted ino 200 id 8 node 0"
		echo "gen 10 900s 20000 0"
		echo "gen 11 300s $((5000 - 50 * i)) 0"
		echo "gen 12 90s 2000 0"
		echo "gen 13 10s 1000 0"
		echo "stats /reclaim/evicted ino 200 pgsteal $((50 * i)) refault 0"
		echo "lruvec /reclaim/refaulted ino 201 id 9 node 0"
		echo "gen 10 900s $((20000 - 10 * i)) 0"
		echo "gen 11 300s $((5000 - 50 * i)) 0"
		echo "gen 12 90s 2000 0"
		echo "gen 13 10s $((1000 + 50 * i + 10 * i)) 0"
		echo "stats /reclaim/refaulted ino 201 pgsteal $((10 * i)) refault $((10 * i))"
	done
}
