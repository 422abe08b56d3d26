#include "synth.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define DAY_MS 86400000ULL
#define RESTART_CYCLES 720	/* job instances restart about once a day at 2m */

static const char *const system_memcgs[] = {
	"/", "/init.scope", "/system.slice", "/system.slice/sshd.service",
	"/system.slice/systemd-journald.service", "/system.slice/cron.service",
	"/system.slice/lrugend.service", "/user.slice",
};
#define NR_SYSTEM (sizeof(system_memcgs) / sizeof(system_memcgs[0]))

void synth_defaults(struct synth *s)
{
	memset(s, 0, sizeof(*s));
	s->nr_hosts = 1000;
	s->nr_memcgs = 100;
	s->nr_nodes = 2;
	s->nr_jobs = 500;
	s->interval_ms = 120000;
	s->node_bytes = 64ULL << 30;
	s->seed = 1;
	s->prefix = "host-";
}

/* splitmix64 over the words of a key */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static uint64_t hash4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	return mix(mix(mix(mix(a) ^ b) ^ c) ^ d);
}

/* 2^x for x >= 0, within 0.3% (no libm) */
static double exp2_approx(double x)
{
	unsigned i = (unsigned)x;
	double f = x - i;

	return (double)(1ULL << i) * (1.0 + f * (0.6565 + 0.344 * f));
}

/* a triangle wave of period 1 in [-1, 1] (a diurnal cycle without libm) */
static double wave_of(double x)
{
	x -= (double)(uint64_t)x;
	return x < 0.5 ? 4 * x - 1 : 3 - 4 * x;
}

/* uniform in [0, 1) */
static double unit(uint64_t h)
{
	return (double)(h >> 11) / 9007199254740992.0;
}

int64_t synth_time_ms(const struct synth *s, unsigned host, uint64_t cycle)
{
	uint64_t phase = hash4(s->seed, host, 0x9a5e, 0) % s->interval_ms;

	return (int64_t)(cycle * s->interval_ms + phase);
}

uint64_t synth_cycle_at(const struct synth *s, unsigned host, int64_t now_ms)
{
	uint64_t phase = hash4(s->seed, host, 0x9a5e, 0) % s->interval_ms;

	if (now_ms < (int64_t)phase)
		return 0;
	return ((uint64_t)now_ms - phase) / s->interval_ms;
}

/* Job of a host's slot: distinct jobs per host while the pool allows. */
static unsigned slot_job(const struct synth *s, unsigned host, unsigned slot)
{
	return (unsigned)((hash4(s->seed, host, 0x10b, 0) + slot * 7919ULL) % s->nr_jobs);
}

/*
 * Bytes of one memcg instance at time t, and its hot share: jobs are
 * log-uniform around the size that fills ~60% of a host, system memcgs small.
 */
static void memcg_size(const struct synth *s, unsigned host, unsigned slot, uint64_t cycle,
		       int64_t t, double *bytes, double *hot, double *anon)
{
	unsigned nr_jobs_here = s->nr_memcgs > NR_SYSTEM ? s->nr_memcgs - (unsigned)NR_SYSTEM : 1;
	double host_mem = (double)s->node_bytes * s->nr_nodes;
	uint64_t id = slot < NR_SYSTEM ? 0x5157 + slot : 0x10b0000 + slot_job(s, host, slot);
	double wave, noise;

	if (slot < NR_SYSTEM) {
		*bytes = (1.0 + 63.0 * unit(hash4(s->seed, id, host, 1))) * (1 << 20);
	} else {
		double mean = 0.6 * host_mem / nr_jobs_here;

		*bytes = mean / 8.0 * exp2_approx(5.0 * unit(hash4(s->seed, id, 0, 1)));
		*bytes *= 0.8 + 0.4 * unit(hash4(s->seed, id, host, 2));
	}
	*hot = 0.15 + 0.7 * unit(hash4(s->seed, id, 0, 3));
	*anon = 0.3 + 0.6 * unit(hash4(s->seed, id, 0, 4));
	wave = wave_of((double)((uint64_t)t % DAY_MS) / DAY_MS + unit(mix(id)));
	noise = unit(hash4(s->seed, id ^ host, cycle, 5)) - 0.5;
	*hot *= 1.0 + 0.25 * wave + 0.1 * noise;
	if (*hot > 0.95)
		*hot = 0.95;
}

static void fill_gens(const struct synth *s, struct lru_lruvec *lv, uint64_t cycle,
		      double bytes, double hot, double anon, uint64_t age0)
{
	double warm = (1.0 - hot) * 0.3, share[LRU_MAX_GENS];
	unsigned g;

	/* oldest first: cold rest, warm part, rest of hot + warm, most of hot */
	share[3] = 0.65 * hot;
	share[2] = 0.35 * hot + 0.4 * warm;
	share[1] = 0.6 * warm;
	share[0] = 1.0 - hot - warm;
	lv->nr_gens = LRU_MAX_GENS;
	for (g = 0; g < LRU_MAX_GENS; g++) {
		struct lru_gen *gen = &lv->gens[g];
		double pages = bytes * share[g] / 4096.0;

		gen->seq = cycle + g;
		gen->age_ms = (uint32_t)(age0 + (LRU_MAX_GENS - 1 - g) * s->interval_ms);
		gen->pages[LRU_ANON] = (uint64_t)(pages * anon);
		gen->pages[LRU_FILE] = (uint64_t)(pages * (1.0 - anon));
	}
}

enum lru_err synth_host(const struct synth *s, unsigned host, uint64_t cycle,
			    struct lru_snapshot *out, struct lru_error *err)
{
	int64_t t = synth_time_ms(s, host, cycle);
	uint64_t used[LRU_NODE_MAX + 1] = { 0 }, age0;
	char name[64], path[64], boot[40];
	enum lru_err rc;
	unsigned slot, n;

	if (!s->nr_nodes || s->nr_nodes > LRU_NODE_MAX + 1 || !s->interval_ms || !s->nr_jobs)
		return lru_fail(err, LRU_EINVAL, "synthetic fleet: bad parameters");
	snprintf(name, sizeof(name), "%s%05u", s->prefix ? s->prefix : "host-", host);
	snprintf(boot, sizeof(boot), "00000000-0000-4000-8000-%012x", host);
	if ((rc = lru_strdup_into(&out->host.host, name, err)) ||
	    (rc = lru_strdup_into(&out->host.boot_id, boot, err)) ||
	    (rc = lru_strdup_into(&out->host.kernel, "6.12.0-synth-amd64", err)))
		return rc;
	out->host.seq = cycle;
	out->host.enabled = 0x7;
	out->host.aging = (struct lru_aging){ true, (uint32_t)s->interval_ms, 0, true, true };
	out->source = LRU_SRC_DEBUGFS;
	out->page_size = 4096;
	/* the collector ages just before it reads: the youngest is seconds old */
	age0 = 200 + hash4(s->seed, host, cycle, 6) % 3000;
	for (slot = 0; slot < s->nr_memcgs; slot++) {
		uint64_t epoch = (cycle + hash4(s->seed, host, slot, 7) % RESTART_CYCLES) /
				 RESTART_CYCLES;
		double bytes, hot, anon, node_share = 0.5 + 0.4 * unit(hash4(s->seed, host, slot, 8));
		size_t mi, li;

		if (slot < NR_SYSTEM)
			snprintf(path, sizeof(path), "%s", system_memcgs[slot]);
		else
			snprintf(path, sizeof(path), "/jobs/job-%04u", slot_job(s, host, slot));
		rc = lru_snapshot_add_memcg(out, 2 + slot, path, strlen(path), &mi, err);
		if (rc)
			return rc;
		out->memcgs[mi].ino = 4096 + (hash4(s->seed, host, slot, epoch) & 0xffffff);
		memcg_size(s, host, slot, cycle, t, &bytes, &hot, &anon);
		for (n = 0; n < s->nr_nodes; n++) {
			double part = s->nr_nodes == 1 ? 1.0 : n == 0 ? node_share
							  : (1.0 - node_share) / (s->nr_nodes - 1);
			struct lru_lruvec *lv;
			unsigned g;

			rc = lru_snapshot_add_lruvec(out, mi, (int)n, &li, err);
			if (rc)
				return rc;
			lv = &out->lruvecs[li];
			fill_gens(s, lv, cycle, bytes * part, hot, anon, age0);
			for (g = 0; g < lv->nr_gens; g++)
				used[n] += (lv->gens[g].pages[0] + lv->gens[g].pages[1]) * 4096;
		}
	}
	out->nodes = calloc(s->nr_nodes, sizeof(*out->nodes));
	if (!out->nodes)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	out->nr_nodes = s->nr_nodes;
	for (n = 0; n < s->nr_nodes; n++) {
		uint64_t reserved = s->node_bytes / 32 + used[n];

		out->nodes[n].node = (int)n;
		out->nodes[n].total = s->node_bytes;
		out->nodes[n].free = reserved < s->node_bytes - s->node_bytes / 64
					     ? s->node_bytes - reserved : s->node_bytes / 64;
		out->nodes[n].anon = used[n] / 2;
		out->nodes[n].file = used[n] - used[n] / 2;
	}
	lru_snapshot_set_times(out, t - 20, t + 20);
	return LRU_OK;
}
