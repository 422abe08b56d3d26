#include "lru_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *memcg_path(const struct lru_snapshot *snap, const struct lru_lruvec *lv)
{
	return snap->memcgs[lv->memcg].path;
}

static enum lru_err check_online(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
				 struct lru_error *err)
{
	const struct lru_memcg *m = lru_lruvec_memcg(snap, lv);

	if (lru_memcg_dying(snap, m))
		return lru_fail(err, LRU_EINVAL,
				"memcg '%s' is offline (id 0) and cannot be aged or evicted",
				m->path);
	return LRU_OK;
}

/* Does an eviction with this swappiness take pages of type t? 0: file only; max: anon only. */
static bool evicts_type(int swappiness, enum lru_type t)
{
	return t == LRU_ANON ? swappiness != 0 : swappiness != LRU_SWAPPINESS_MAX;
}

enum lru_err lru_cmd_age(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
			 int can_swap, int force_scan, struct lru_cmd *cmd,
			 struct lru_error *err)
{
	enum lru_err rc = check_online(snap, lv, err);

	if (rc)
		return rc;
	if (!force_scan && lv->nr_gens >= LRU_MAX_GENS)
		return lru_fail(err, LRU_EINVAL,
				"memcg '%s' node %d has %d generations: aging it needs force_scan",
				memcg_path(snap, lv), lv->node, LRU_MAX_GENS);
	cmd->op = '+';
	cmd->cgroup = lru_memcg_uses_cgroup(snap, lru_lruvec_memcg(snap, lv));
	cmd->memcg_id = lru_lruvec_memcg(snap, lv)->id;
	cmd->node = lv->node;
	cmd->seq = lru_lruvec_max_seq(lv);
	cmd->swap = can_swap ? 1 : 0;
	cmd->extra = force_scan ? 1 : 0;
	return LRU_OK;
}

enum lru_err lru_cmd_evict_older_than(const struct lru_snapshot *snap,
				      const struct lru_lruvec *lv, uint64_t older_than_ms,
				      int swappiness, uint64_t max_bytes,
				      struct lru_cmd *cmd, uint64_t *pages,
				      struct lru_error *err)
{
	enum lru_err rc = check_online(snap, lv, err);
	uint64_t page = snap->page_size ? snap->page_size : 4096;
	uint64_t max_pages = max_bytes / page + (max_bytes % page != 0);
	uint64_t sum = 0, cap;
	int last = -1;
	unsigned g;

	if (rc)
		return rc;
	if (swappiness < -1 || swappiness > LRU_SWAPPINESS_MAX)
		return lru_fail(err, LRU_EINVAL, "swappiness %d is out of range (0-200 or max)",
				swappiness);
	/* generation g is cold when g+1 was born before the threshold */
	for (g = 0; g + LRU_MIN_NR_GENS < lv->nr_gens; g++) {
		if (lv->gens[g + 1].age_ms <= older_than_ms)
			break;
		last = (int)g;
	}
	if (last < 0)
		return lru_fail(err, LRU_ENOENT,
				"no evictable generation of memcg '%s' node %d is older than %" PRIu64 " ms",
				memcg_path(snap, lv), lv->node, older_than_ms);
	for (g = 0; g <= (unsigned)last; g++)
		for (int t = 0; t < LRU_NR_TYPES; t++)
			if (evicts_type(swappiness, (enum lru_type)t) &&
			    !(lv->gens[g].evicted & (1u << t)))
				sum += lv->gens[g].pages[t];
	cmd->op = '-';
	cmd->cgroup = lru_memcg_uses_cgroup(snap, lru_lruvec_memcg(snap, lv));
	cmd->memcg_id = lru_lruvec_memcg(snap, lv)->id;
	cmd->node = lv->node;
	cmd->seq = lv->gens[last].seq;
	cmd->swap = swappiness;
	cap = cmd->cgroup ? max_bytes : max_pages;	/* memory.lru_gen takes bytes */
	cmd->extra = cap ? (int64_t)(cap > INT64_MAX ? INT64_MAX : cap) : -1;
	if (cmd->extra >= 0 && cmd->swap < 0)
		cmd->swap = 60;	/* the kernel's default vm.swappiness; needed to pass a cap */
	if (pages)
		*pages = max_pages && max_pages < sum ? max_pages : sum;
	return LRU_OK;
}

enum lru_err lru_cmd_evict_again(const struct lru_snapshot *snap, const struct lru_lruvec *lv,
				 uint64_t older_than_ms, int swappiness, uint64_t max_bytes,
				 uint64_t budget_bytes, struct lru_cmd *cmd, uint64_t *pages,
				 struct lru_error *err)
{
	uint64_t page = snap->page_size ? snap->page_size : 4096;
	uint64_t cap = max_bytes && max_bytes < budget_bytes ? max_bytes : budget_bytes;
	uint64_t n = 0;
	enum lru_err rc;

	if (!cap)
		return lru_fail(err, LRU_ENOENT, "nothing left to ask of memcg '%s' node %d",
				memcg_path(snap, lv), lv->node);
	/* uncapped first: a cap forces a swappiness into the command */
	rc = lru_cmd_evict_older_than(snap, lv, older_than_ms, swappiness, max_bytes ? cap : 0,
				      cmd, &n, err);
	if (!rc && !max_bytes && n * page > cap)
		rc = lru_cmd_evict_older_than(snap, lv, older_than_ms, swappiness, cap, cmd, &n,
					      err);
	if (pages)
		*pages = n;
	return rc;
}

/* Pages of the types cmd evicts in lv's generations <= seq (old) or > seq (!old), per type. */
static void sum_gens(const struct lru_lruvec *lv, const struct lru_cmd *cmd, bool old,
		     uint64_t sum[LRU_NR_TYPES])
{
	memset(sum, 0, LRU_NR_TYPES * sizeof(*sum));
	for (unsigned g = 0; lv && g < lv->nr_gens; g++) {
		if ((lv->gens[g].seq <= cmd->seq) != old)
			continue;
		for (int t = 0; t < LRU_NR_TYPES; t++)
			if (evicts_type(cmd->swap, (enum lru_type)t) &&
			    !(lv->gens[g].evicted & (1u << t)))
				sum[t] += lv->gens[g].pages[t];
	}
}

void lru_cmd_evict_outcome(const struct lru_lruvec *before, const struct lru_lruvec *after,
			   const struct lru_cmd *cmd, uint64_t asked,
			   struct lru_evict_outcome *out)
{
	uint64_t young_before[LRU_NR_TYPES], young_after[LRU_NR_TYPES];
	int64_t grown = 0;
	uint64_t unfreed;

	memset(out, 0, sizeof(*out));
	sum_gens(before, cmd, false, young_before);
	sum_gens(after, cmd, false, young_after);
	sum_gens(after, cmd, true, out->left);
	for (int t = 0; t < LRU_NR_TYPES; t++) {
		out->freed[t] = (int64_t)lru_lruvec_pages(before, (enum lru_type)t) -
				(int64_t)(after ? lru_lruvec_pages(after, (enum lru_type)t) : 0);
		out->freed_total += out->freed[t];
		out->left_total += out->left[t];
		grown += (int64_t)young_after[t] - (int64_t)young_before[t];
	}
	/* younger generations also grow by new allocations: no more than went unfreed */
	unfreed = out->freed_total <= 0 ? asked
		  : (uint64_t)out->freed_total < asked ? asked - (uint64_t)out->freed_total : 0;
	if (grown > 0)
		out->moved = (uint64_t)grown < unfreed ? (uint64_t)grown : unfreed;
}

bool lru_evict_outcome_second_pass(const struct lru_evict_outcome *o, uint64_t asked)
{
	return o->left_total > 0 && o->freed_total < (int64_t)asked;
}

enum lru_age_step lru_cmd_age_step(enum lru_err write_rc, bool retried, uint64_t seq,
				   uint64_t max_seq)
{
	switch (write_rc) {
	case LRU_OK:
		if (max_seq > seq)
			return LRU_AGE_CREATED;
		return retried ? LRU_AGE_WAIT : LRU_AGE_RETRY;
	case LRU_EBUSY:
	case LRU_ESTALE:
		return max_seq > seq ? LRU_AGE_BY_OTHER : LRU_AGE_WAIT;
	default:
		return LRU_AGE_FAILED;
	}
}

enum lru_err lru_cmd_check(const struct lru_snapshot *snap, const struct lru_cmd *cmd,
			   struct lru_error *err)
{
	const struct lru_lruvec *lv = NULL;
	bool memcg_known = false;
	uint64_t max_seq, min_seq;
	size_t i;

	if (cmd->op != '+' && cmd->op != '-')
		return lru_fail(err, LRU_EINVAL, "unknown command '%c' (expected '+' or '-')", cmd->op);
	if (cmd->memcg_id == 0)
		return lru_fail(err, LRU_EINVAL, "memcg id 0 is an offline memcg and cannot be written");
	for (i = 0; i < snap->nr_lruvecs; i++) {
		const struct lru_lruvec *x = &snap->lruvecs[i];

		if (lru_lruvec_memcg(snap, x)->id != cmd->memcg_id)
			continue;
		memcg_known = true;
		if (x->node == cmd->node) {
			lv = x;
			break;
		}
	}
	if (!memcg_known)
		return lru_fail(err, LRU_ENOENT, "no memcg with id %" PRIu64, cmd->memcg_id);
	if (!lv)
		return lru_fail(err, LRU_ENOENT, "memcg id %" PRIu64 " has no node %d",
				cmd->memcg_id, cmd->node);
	max_seq = lru_lruvec_max_seq(lv);
	min_seq = lv->gens[0].seq;
	if (cmd->extra >= 0 && cmd->swap < 0)
		return lru_fail(err, LRU_EINVAL, "the last argument needs the one before it");
	if (cmd->op == '+') {
		if (cmd->seq < max_seq)
			return lru_fail(err, LRU_ESTALE,
					"max_seq of memcg '%s' node %d is %" PRIu64 ", not %" PRIu64
					" (someone aged it since the read)",
					memcg_path(snap, lv), lv->node, max_seq, cmd->seq);
		if (cmd->seq > max_seq)
			return lru_fail(err, LRU_EINVAL,
					"max_seq of memcg '%s' node %d is %" PRIu64 ", not %" PRIu64,
					memcg_path(snap, lv), lv->node, max_seq, cmd->seq);
		if (cmd->swap > 1 || cmd->extra > 1)
			return lru_fail(err, LRU_EINVAL, "can_swap and force_scan are 0 or 1");
		if (cmd->extra != 1 && lv->nr_gens >= LRU_MAX_GENS)
			return lru_fail(err, LRU_EINVAL,
					"memcg '%s' node %d has %d generations: aging it needs force_scan",
					memcg_path(snap, lv), lv->node, LRU_MAX_GENS);
		return LRU_OK;
	}
	if (cmd->seq + LRU_MIN_NR_GENS > max_seq)
		return lru_fail(err, LRU_EINVAL,
				"refusing to evict generation %" PRIu64 " of memcg '%s' node %d: "
				"the two youngest generations (%" PRIu64 " and %" PRIu64 ") cannot be evicted",
				cmd->seq, memcg_path(snap, lv), lv->node, max_seq - 1, max_seq);
	if (cmd->seq < min_seq)
		return lru_fail(err, LRU_ESTALE,
				"generation %" PRIu64 " of memcg '%s' node %d is already evicted "
				"(the oldest is %" PRIu64 ")",
				cmd->seq, memcg_path(snap, lv), lv->node, min_seq);
	if (cmd->swap > LRU_SWAPPINESS_MAX)
		return lru_fail(err, LRU_EINVAL, "swappiness %d is out of range (0-200 or max)",
				cmd->swap);
	return LRU_OK;
}

size_t lru_cmd_format(const struct lru_cmd *cmd, char *buf, size_t size)
{
	int n;

	if (cmd->cgroup)
		n = snprintf(buf, size, "%c N%d %" PRIu64, cmd->op, cmd->node, cmd->seq);
	else
		n = snprintf(buf, size, "%c %" PRIu64 " %d %" PRIu64, cmd->op, cmd->memcg_id,
			     cmd->node, cmd->seq);
	if (cmd->swap >= 0 && n >= 0 && (size_t)n < size) {
		if (cmd->op == '-' && cmd->swap == LRU_SWAPPINESS_MAX)
			n += snprintf(buf + n, size - (size_t)n, " max");
		else
			n += snprintf(buf + n, size - (size_t)n, " %d", cmd->swap);
		if (cmd->extra >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " %" PRId64, cmd->extra);
	}
	if (n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "\n");
	return n < 0 ? 0 : (size_t)n;
}

/* One strictly decimal field of text; advances *p. */
static bool field_u64(const char **p, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	if (*s && *s != ' ' && *s != '\t' && *s != '\n')
		return false;
	*p = s;
	*v = x;
	return true;
}

static bool at_end(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	return !*s;
}

enum lru_err lru_cmd_parse(const char *text, struct lru_cmd *cmd, struct lru_error *err)
{
	const char *s = text;
	uint64_t v[3], x;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s != '+' && *s != '-')
		return lru_fail(err, LRU_EINVAL, "command must start with '+' or '-'");
	cmd->op = *s++;
	cmd->cgroup = false;
	if (!field_u64(&s, &v[0]) || !field_u64(&s, &v[1]) || !field_u64(&s, &v[2]))
		return lru_fail(err, LRU_EINVAL,
				"expected '%c MEMCG_ID NODE SEQ' with decimal numbers", cmd->op);
	if (v[1] > LRU_NODE_MAX)
		return lru_fail(err, LRU_EINVAL, "node %" PRIu64 " is out of range", v[1]);
	cmd->memcg_id = v[0];
	cmd->node = (int)v[1];
	cmd->seq = v[2];
	cmd->swap = -1;
	cmd->extra = -1;
	if (at_end(s))
		return LRU_OK;
	while (*s == ' ' || *s == '\t')
		s++;
	if (cmd->op == '-' && !strncmp(s, "max", 3) && (s[3] == '\0' || s[3] == ' ' || s[3] == '\n')) {
		cmd->swap = LRU_SWAPPINESS_MAX;
		s += 3;
	} else if (field_u64(&s, &x) && x <= 200) {
		cmd->swap = (int)x;
	} else {
		return lru_fail(err, LRU_EINVAL, "fourth field must be %s",
				cmd->op == '+' ? "can_swap (0 or 1)" : "swappiness (0-200 or max)");
	}
	if (at_end(s))
		return LRU_OK;
	if (!field_u64(&s, &x) || x > INT64_MAX)
		return lru_fail(err, LRU_EINVAL, "fifth field must be %s",
				cmd->op == '+' ? "force_scan (0 or 1)" : "nr_to_reclaim (pages)");
	cmd->extra = (int64_t)x;
	if (!at_end(s))
		return lru_fail(err, LRU_EINVAL, "too many fields in command");
	return LRU_OK;
}
