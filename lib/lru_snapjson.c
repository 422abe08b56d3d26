/*
 * lru_snapjson.c - a decoded snapshot as JSON (lru_snapjson.h).
 */
#include "lru_snapjson.h"

#include <stdio.h>
#include <string.h>

#include "lru_buf.h"
#include "lru_esc.h"
#include "lru_pb.h"
#include "lru_record.h"
#include "lru_warn.h"

/* Warning codes of mask as a JSON array (lru_warn.h). */
static json_t *snapjson_warnings(uint32_t mask, bool host)
{
	json_t *arr = json_array();

	for (int b = 0; b < 32; b++) {
		const char *name = !(mask & (1u << b)) ? NULL : host ? lru_hostwarn_name(1u << b)
								       : lru_warn_name(1u << b);

		if (name)
			json_array_append_new(arr, json_string(name));
	}
	return arr;
}

/* A kernel string as JSON: as it is when UTF-8, else its LRU_ESC_UTF8 form (as the wire has it). */
static json_t *snapjson_str(const char *s)
{
	struct lru_buf b;
	json_t *j;

	if (!s)
		return json_null();
	if (lru_utf8_valid(s, strlen(s)))
		return json_string(s);
	lru_buf_init(&b);
	j = lru_esc_buf(&b, s, strlen(s), LRU_ESC_UTF8, NULL) || lru_buf_append(&b, "", 1, NULL)
	    ? json_null() : json_string((const char *)b.data);
	lru_buf_release(&b);
	return j;
}

static json_t *snapjson_gen(const struct lru_lruvec *lv, unsigned g)
{
	const struct lru_gen *gen = &lv->gens[g];
	json_t *o = json_object();

	json_object_set_new(o, "seq", json_integer((json_int_t)gen->seq));
	json_object_set_new(o, "age_ms", json_integer(gen->age_ms));
	json_object_set_new(o, "birth_ms", json_integer(gen->birth_ms));
	json_object_set_new(o, "anon_pages", json_integer((json_int_t)gen->pages[LRU_ANON]));
	json_object_set_new(o, "file_pages", json_integer((json_int_t)gen->pages[LRU_FILE]));
	json_object_set_new(o, "tiers", json_boolean(lv->full && lv->full->has_tiers[g]));
	return o;
}

json_t *lru_snapshot_json(const struct lru_snapshot *s)
{
	const struct lru_aging *a = &s->host.aging;
	json_t *o = json_object(), *aging = json_object(), *nodes = json_array();
	json_t *lvs = json_array(), *stats = json_array();

	json_object_set_new(o, "host", snapjson_str(s->host.host));
	json_object_set_new(o, "boot_id", snapjson_str(s->host.boot_id));
	json_object_set_new(o, "seq", json_integer((json_int_t)s->host.seq));
	json_object_set_new(o, "kernel", snapjson_str(s->host.kernel));
	json_object_set_new(o, "taken_at_ms",
			    json_integer(s->read_start_ms + (s->read_end_ms - s->read_start_ms) / 2));
	json_object_set_new(o, "read_start_ms", json_integer(s->read_start_ms));
	json_object_set_new(o, "read_end_ms", json_integer(s->read_end_ms));
	json_object_set_new(o, "birth_error_ms", json_integer(s->birth_error_ms));
	json_object_set_new(o, "page_size", json_integer(s->page_size));
	json_object_set_new(o, "source", json_integer(s->source));
	json_object_set_new(o, "enabled", json_integer(s->host.enabled));
	json_object_set_new(o, "duplicates_dropped", json_integer(s->nr_duplicates));
	json_object_set_new(o, "warnings", snapjson_warnings(s->host.warnings, true));
	json_object_set_new(aging, "enabled", json_boolean(a->enabled));
	json_object_set_new(aging, "interval_ms", json_integer(a->interval_ms));
	json_object_set_new(aging, "jitter_ms", json_integer(a->jitter_ms));
	json_object_set_new(aging, "can_swap", json_boolean(a->can_swap));
	json_object_set_new(aging, "force_scan", json_boolean(a->force_scan));
	json_object_set_new(o, "aging", aging);
	for (size_t i = 0; i < s->nr_nodes; i++) {
		json_t *n = json_object();

		json_object_set_new(n, "node", json_integer(s->nodes[i].node));
		json_object_set_new(n, "total_bytes", json_integer((json_int_t)s->nodes[i].total));
		json_object_set_new(n, "free_bytes", json_integer((json_int_t)s->nodes[i].free));
		json_array_append_new(nodes, n);
	}
	json_object_set_new(o, "nodes", nodes);
	for (size_t i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];
		const struct lru_memcg *m = &s->memcgs[lv->memcg];
		json_t *l = json_object(), *gens = json_array();

		json_object_set_new(l, "memcg", snapjson_str(m->path));
		json_object_set_new(l, "memcg_id", json_integer((json_int_t)m->id));
		json_object_set_new(l, "memcg_inode", json_integer((json_int_t)m->ino));
		json_object_set_new(l, "node", json_integer(lv->node));
		json_object_set_new(l, "warnings", snapjson_warnings(lv->warnings, false));
		for (unsigned g = 0; g < lv->nr_gens; g++)
			json_array_append_new(gens, snapjson_gen(lv, g));
		json_object_set_new(l, "generations", gens);
		json_array_append_new(lvs, l);
	}
	json_object_set_new(o, "lruvecs", lvs);
	for (size_t i = 0; i < s->nr_memcgs; i++) {
		const struct lru_memcg *m = &s->memcgs[i];
		json_t *st;

		if (!m->has_stats)
			continue;
		st = json_object();
		json_object_set_new(st, "memcg", snapjson_str(m->path));
		json_object_set_new(st, "memcg_inode", json_integer((json_int_t)m->ino));
		json_object_set_new(st, "anon_bytes", json_integer((json_int_t)m->stats.anon_bytes));
		json_object_set_new(st, "file_bytes", json_integer((json_int_t)m->stats.file_bytes));
		json_object_set_new(st, "refault_anon", json_integer((json_int_t)m->stats.refault_anon));
		json_object_set_new(st, "refault_file", json_integer((json_int_t)m->stats.refault_file));
		json_object_set_new(st, "pgsteal", json_integer((json_int_t)m->stats.pgsteal));
		json_object_set_new(st, "current_bytes", json_integer((json_int_t)m->stats.current_bytes));
		json_object_set_new(st, "pressure_some_avg10", json_real(m->stats.some_avg10));
		json_object_set_new(st, "thp_bytes", json_integer((json_int_t)m->stats.thp_bytes));
		json_array_append_new(stats, st);
	}
	json_object_set_new(o, "memcg_stats", stats);
	return o;
}


/* One batch of a recording onto the array (lru_record_fn). */
static enum lru_err add_batch(void *arg, const uint8_t *buf, size_t len, const char *what,
			      struct lru_error *err)
{
	struct lru_snapshot *snaps = NULL;
	json_t *arr = arg;
	enum lru_err rc;
	size_t n = 0;

	rc = lru_pb_decode_batch(buf, len, &snaps, &n, err);
	if (rc) {
		char msg[LRU_ERRMSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		return lru_fail(err, rc, "%s: %s", what, msg);
	}
	for (size_t i = 0; i < n && !rc; i++)
		if (json_array_append_new(arr, lru_snapshot_json(&snaps[i])))
			rc = lru_fail(err, LRU_ENOMEM, "out of memory");
	lru_pb_free_snapshots(snaps, n);
	return rc;
}

enum lru_err lru_record_json(const char *path, json_t **out, struct lru_spool_stats *stats,
			     struct lru_error *err)
{
	json_t *arr = json_array();
	enum lru_err rc;

	*out = NULL;
	if (!arr)
		return lru_fail(err, LRU_ENOMEM, "out of memory");
	rc = lru_record_each(path, add_batch, arr, stats, err);
	if (rc) {
		json_decref(arr);
		return rc;
	}
	*out = arr;
	return LRU_OK;
}
