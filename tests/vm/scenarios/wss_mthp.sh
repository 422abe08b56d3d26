# shellcheck shell=bash disable=SC2034
# kernels: 6.12 7.3 patched
# tests/vm/scenarios/wss_mthp.sh - working-set accuracy with anonymous memory
# in 64 KiB mTHP folios (PTE-mapped large folios: hugepages-64kB always,
# PMD-sized THP never), on the kernels that offer mTHP (6.8 and later).
# Tenants as wss_thp.sh, aged by 'lrugen age'.
source "$VM_DIR/scenarios/wss.sh"

WSS_PAGES=mthp
WSS_PHASES=default
# memcg  mode  node cpu hot_MiB cold_MiB
WSS_JOBS='web    anon  1    1  48  24
db     anon  0    0  24  48
cache  anon  -    0  16  32'
