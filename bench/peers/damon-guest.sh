# bench/peers/damon-guest.sh - guest shell (busybox sh) functions that set up
# DAMON through /sys/kernel/mm/damon/admin, shared by wss.sh and reclaim.sh
# (their scenario_guest puts this file into the guest script).

# damon_ctx C OPS SAMPLE_US AGGR_US MIN MAX: a context's operations and
# monitoring attributes (update 1 s), one target
damon_ctx() {
	echo $2 >$1/operations
	echo $3 >$1/monitoring_attrs/intervals/sample_us
	echo $4 >$1/monitoring_attrs/intervals/aggr_us
	echo 1000000 >$1/monitoring_attrs/intervals/update_us
	echo $5 >$1/monitoring_attrs/nr_regions/min
	echo $6 >$1/monitoring_attrs/nr_regions/max
	echo 1 >$1/targets/nr_targets
}

# damon_scheme S ACTION NR_ACCESSES_MAX AGE_MIN: a DAMOS scheme for regions of
# any size accessed at most NR_ACCESSES_MAX times an aggregation and at least
# AGE_MIN aggregations old ('stat' 4294967295 0: every region)
damon_scheme() {
	echo $2 >$1/action
	echo 0 >$1/access_pattern/sz/min
	echo 18446744073709551615 >$1/access_pattern/sz/max
	echo 0 >$1/access_pattern/nr_accesses/min
	echo $3 >$1/access_pattern/nr_accesses/max
	echo $4 >$1/access_pattern/age/min
	echo 4294967295 >$1/access_pattern/age/max
}
