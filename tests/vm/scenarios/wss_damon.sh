# shellcheck shell=bash disable=SC2034
# kernels: 7.3 patched
# tests/vm/scenarios/wss_damon.sh - working-set accuracy with the hot and
# cold sets in huge pages and DAMON left as the kernel booted: damon_stat on
# (Debian's 7.3, and the patched kernel's config), aged with 'lrugen age
# --keep-damon'. On stock 7.3, whose aging does not see what DAMON clears, a
# row may be off, but every huge-page row must then be marked thp_unaged; on
# the patched kernel, whose first patch makes the aging see it, every row
# within 10% (target 5%) and none marked. Tenants as wss_thp.sh.
source "$VM_DIR/scenarios/wss_thp.sh"

WSS_PHASES=keep
