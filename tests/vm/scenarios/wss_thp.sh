# shellcheck shell=bash disable=SC2034
# tests/vm/scenarios/wss_thp.sh - working-set accuracy with the hot and cold
# sets in transparent huge pages (2 MiB, PMD-mapped: the default of Debian's
# kernels), tenants pinned to CPUs, several per CPU, on both nodes and one
# on no node in particular, aged by 'lrugen age', which turns damon_stat off
# on kernels whose aging does not see what DAMON clears (Debian's 7.3): every
# row within 10% (target 5%) on every kernel. wss_damon.sh keeps DAMON on.
source "$VM_DIR/scenarios/wss.sh"

WSS_PAGES=thp
WSS_PHASES=default
# memcg  mode  node cpu hot_MiB cold_MiB
WSS_JOBS='web    anon  1    1  48  24
db     anon  0    0  24  48
cache  anon  -    0  16  32
batch  file  0    1  16  48'
