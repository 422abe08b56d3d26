/*
 * synth.h - a synthetic fleet: deterministic snapshots of N hosts for
 * simulators and benchmarks (tests/tools/fleetsim, bench/store).
 *
 * Host h is named PREFIX%05u and runs nr_memcgs memcgs on nr_nodes nodes:
 * the system ones every host has ("/", "/system.slice/sshd.service", ...)
 * and jobs "/jobs/job-NNNN" drawn from a pool of nr_jobs. Each job has a
 * size and a hot share of its own, varying by host, over the day (a diurnal
 * wave) and from snapshot to snapshot; its memory is spread over the nodes.
 * Generations are made every interval_ms, as lrugend does: the youngest
 * holds most of the hot set, the next the rest of it and part of a warm set
 * touched every few intervals, the oldest the cold rest. Job instances are
 * restarted about once a day (a new cgroup inode, the same path).
 *
 * Time: host h's snapshot of cycle c is taken at c * interval_ms + phase(h)
 * (phase below interval_ms: hosts do not report in lockstep), has sequence
 * number c and the host's constant boot id, so replaying a cycle gives the
 * very same snapshot. Everything is a function of (seed, host, cycle).
 */
#ifndef TOOL_SYNTH_H
#define TOOL_SYNTH_H

#include <stdint.h>

#include "lru_model.h"

struct synth {
	unsigned nr_hosts;
	unsigned nr_memcgs;	/* per host, system memcgs included */
	unsigned nr_nodes;
	unsigned nr_jobs;	/* distinct job paths in the fleet */
	uint64_t interval_ms;	/* aging and snapshot interval */
	uint64_t node_bytes;	/* memory of each node */
	uint64_t seed;
	const char *prefix;	/* host name prefix; not owned */
};

/* 1000 hosts x 100 memcgs x 2 nodes, 500 jobs, 2 minutes, 64 GiB per node. */
void synth_defaults(struct synth *s);

/* When host's snapshot of cycle is taken (ms since the epoch). */
int64_t synth_time_ms(const struct synth *s, unsigned host, uint64_t cycle);

/* The latest cycle of host taken at or before now_ms. */
uint64_t synth_cycle_at(const struct synth *s, unsigned host, int64_t now_ms);

/* Fill an empty (initialised) snapshot with host's snapshot of cycle. */
enum lru_err synth_host(const struct synth *s, unsigned host, uint64_t cycle,
			    struct lru_snapshot *out, struct lru_error *err);

#endif
