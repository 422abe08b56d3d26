/*
 * test_synth.c - the synthetic fleet of the simulators and benchmarks
 * (tests/tools/common/synth.h).
 */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "lru_fleet.h"
#include "lru_pb.h"
#include "synth.h"

/* The synthetic fleet is deterministic and valid on the wire. */
static void test_synth(void **state)
{
	struct synth fleet;
	struct lru_snapshot a, b, *dec;
	const struct lru_snapshot *pa = &a, *pb_ = &b;
	uint8_t *ea, *eb;
	size_t la, lb, n;

	(void)state;
	synth_defaults(&fleet);
	fleet.nr_memcgs = 20;
	lru_snapshot_init(&a);
	lru_snapshot_init(&b);
	assert_int_equal(synth_host(&fleet, 17, 5000, &a, NULL), LRU_OK);
	assert_int_equal(synth_host(&fleet, 17, 5000, &b, NULL), LRU_OK);
	assert_int_equal(a.nr_lruvecs, 40);
	assert_string_equal(a.host.host, "host-00017");
	assert_int_equal(a.host.seq, 5000);
	assert_int_equal(lru_fleet_taken_ms(&a), synth_time_ms(&fleet, 17, 5000));
	assert_int_equal(synth_cycle_at(&fleet, 17, synth_time_ms(&fleet, 17, 5000)), 5000);
	assert_int_equal(lru_pb_encode_batch(&pa, 1, &ea, &la, NULL), LRU_OK);
	assert_int_equal(lru_pb_encode_batch(&pb_, 1, &eb, &lb, NULL), LRU_OK);
	assert_int_equal(la, lb);
	assert_memory_equal(ea, eb, la);
	assert_int_equal(lru_pb_decode_batch(ea, la, &dec, &n, NULL), LRU_OK);
	assert_int_equal(n, 1);
	for (size_t i = 0; i < dec[0].nr_nodes; i++)
		assert_true(dec[0].nodes[i].free <= dec[0].nodes[i].total);
	lru_pb_free_snapshots(dec, n);
	free(ea);
	free(eb);
	lru_snapshot_release(&a);
	lru_snapshot_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
