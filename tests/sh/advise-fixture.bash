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
