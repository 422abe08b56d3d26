/* cmd-show.c - lrugen show: every lruvec with its generations. */
#include "cli.h"

#include <inttypes.h>
#include <string.h>

#include "lru_esc.h"
#include "lru_sat.h"
#include "lru_units.h"

static const char usage[] =
	"usage: lrugen show [--memcg PATH|GLOB | --memcg-id ID] [--node N|all] [--full] [--json]\n"
	"\n"
	"List every lruvec (memcg x NUMA node) with its generations, oldest first:\n"
	"sequence number, birth time (wall clock), age, and anon and file sizes.\n"
	"A page sits in the generation that was youngest when it was last seen used.\n"
	"\n"
	"  --memcg PATH    only this memcg (cgroup path, e.g. /jobs/web; globs allowed)\n"
	"  --memcg-id ID   only the memcg with this kernel id\n"
	"  --node N|all    only NUMA node N (default all)\n"
	"  --full          read lru_gen_full and add per-tier counters (refaulted,\n"
	"                  evicted, protected; moving averages on the youngest);\n"
	"                  debugfs only\n"
	"  --root DIR      read DIR/sys/kernel/debug/... instead of /\n"
	"  --json          one JSON document (birth_ms: ms since the epoch; interface:\n"
	"                  cgroup or debugfs; memcg_id null where memory.lru_gen has none;\n"
	"                  warnings: codes explained in 'lrugen wss -h')\n"
	"\n"
	"A node marked '!' has generations that are not the truth (a warning code is\n"
	"printed below the table; see 'lrugen wss -h').\n"
	"\n"
	"Examples:\n"
	"  lrugen show                                 # every memcg and node\n"
	"  lrugen show --memcg '/jobs/*' --node 0 --full   # tiers too (debugfs)\n"
	"  lrugen --json show | jq '.lruvecs[] | select(.memcg == \"/jobs/web\")'\n";

static const char *const tc_names[LRU_TC_NR] = { "refaulted", "evicted", "protected",
						 "avg_refaulted", "avg_total" };
static const char *const walk_names[LRU_WALK_NR] = { "leaf_total", "leaf_old", "leaf_young",
						     "nonleaf_total", "bloom_found", "bloom_added" };

static json_t *tiers_json(const struct lru_tier *tiers)
{
	json_t *arr = json_array();
	int i, t, c;

	for (i = 0; i < LRU_NR_TIERS; i++) {
		json_t *tier = json_object();

		json_object_set_new(tier, "tier", json_integer(i));
		for (t = 0; t < LRU_NR_TYPES; t++) {
			json_t *ctr = json_object();

			for (c = 0; c < LRU_TC_NR; c++)
				if (tiers[i].present & (1u << (t * LRU_TC_NR + c)))
					json_object_set_new(ctr, tc_names[c],
							    json_integer((json_int_t)tiers[i].v[t][c]));
			json_object_set_new(tier, t ? "file" : "anon", ctr);
		}
		json_array_append_new(arr, tier);
	}
	return arr;
}

static json_t *lruvec_json(const struct lru_snapshot *s, const struct lru_lruvec *lv)
{
	const struct lru_memcg *m = lru_lruvec_memcg(s, lv);
	json_t *o = json_object(), *gens = json_array();
	unsigned g;
	int c;

	json_object_set_new(o, "memcg", json_string(m->path));
	json_object_set_new(o, "memcg_id", cli_memcg_id_json(s, m));
	json_object_set_new(o, "memcg_inode", json_integer((json_int_t)m->ino));
	json_object_set_new(o, "node", json_integer(lv->node));
	json_object_set_new(o, "warnings", cli_warnings_json(lv->warnings, false));
	json_object_set_new(o, "max_seq", json_integer((json_int_t)lru_lruvec_max_seq(lv)));
	json_object_set_new(o, "anon_bytes",
			    json_integer((json_int_t)(lru_lruvec_pages(lv, LRU_ANON) * s->page_size)));
	json_object_set_new(o, "file_bytes",
			    json_integer((json_int_t)(lru_lruvec_pages(lv, LRU_FILE) * s->page_size)));
	for (g = 0; g < lv->nr_gens; g++) {
		const struct lru_gen *gen = &lv->gens[g];
		json_t *j = json_object();

		json_object_set_new(j, "seq", json_integer((json_int_t)gen->seq));
		json_object_set_new(j, "age_ms", json_integer(gen->age_ms));
		json_object_set_new(j, "birth_ms", json_integer(gen->birth_ms));
		json_object_set_new(j, "anon_pages", json_integer((json_int_t)gen->pages[LRU_ANON]));
		json_object_set_new(j, "file_pages", json_integer((json_int_t)gen->pages[LRU_FILE]));
		json_object_set_new(j, "anon_bytes",
				    json_integer((json_int_t)(gen->pages[LRU_ANON] * s->page_size)));
		json_object_set_new(j, "file_bytes",
				    json_integer((json_int_t)(gen->pages[LRU_FILE] * s->page_size)));
		if (gen->evicted) {
			json_object_set_new(j, "anon_evicted", json_boolean(gen->evicted & 1));
			json_object_set_new(j, "file_evicted", json_boolean(gen->evicted & 2));
		}
		if (lv->full && lv->full->has_tiers[g])
			json_object_set_new(j, "tiers", tiers_json(lv->full->tiers[g]));
		if (lv->full && lv->full->has_walk[g] && lv->full->walk[g].present) {
			json_t *w = json_object();

			for (c = 0; c < LRU_WALK_NR; c++)
				if (lv->full->walk[g].present & (1u << c))
					json_object_set_new(w, walk_names[c],
							    json_integer((json_int_t)lv->full->walk[g].v[c]));
			json_object_set_new(j, "walk", w);
		}
		json_array_append_new(gens, j);
	}
	json_object_set_new(o, "generations", gens);
	return o;
}

static int show_json(const struct cli *cli, const struct lru_snapshot *s,
		     const struct cli_select *sel)
{
	json_t *doc = json_object(), *lvs = json_array(), *notes = json_array();
	size_t i;

	json_object_set_new(doc, "host", json_string(s->host.host ? s->host.host : ""));
	json_object_set_new(doc, "kernel", json_string(s->host.kernel ? s->host.kernel : ""));
	json_object_set_new(doc, "source", json_string(cli_source_name(s->source)));
	json_object_set_new(doc, "interface", json_string(lru_iface_mode_name(cli->iface.used)));
	json_object_set_new(doc, "interface_reason", json_string(cli->iface.why));
	if (cli->iface.root_missing)
		json_array_append_new(notes, json_string(cli->iface.root_note));
	json_object_set_new(doc, "notes", notes);
	json_object_set_new(doc, "lru_gen_enabled", json_integer(s->host.enabled));
	json_object_set_new(doc, "warnings", cli_warnings_json(s->host.warnings, true));
	json_object_set_new(doc, "read_at_ms",
			    json_integer(lru_sat_mid_i64(s->read_start_ms, s->read_end_ms)));
	json_object_set_new(doc, "birth_error_ms", json_integer(s->birth_error_ms));
	json_object_set_new(doc, "page_size", json_integer(s->page_size));
	for (i = 0; i < s->nr_lruvecs; i++)
		if (cli_selected(sel, s, &s->lruvecs[i]))
			json_array_append_new(lvs, lruvec_json(s, &s->lruvecs[i]));
	json_object_set_new(doc, "lruvecs", lvs);
	return cli_json_out(doc);
}

static void print_tiers(const struct lru_tier *tiers)
{
	static const char letters[LRU_TC_NR] = { 'r', 'e', 'p', 'R', 'T' };
	int i, t, c;

	for (i = 0; i < LRU_NR_TIERS; i++) {
		if (!tiers[i].present)
			continue;
		printf("%52s tier %d ", "", i);
		for (t = 0; t < LRU_NR_TYPES; t++) {
			printf(" %s", t ? "file" : "anon");
			for (c = 0; c < LRU_TC_NR; c++)
				if (tiers[i].present & (1u << (t * LRU_TC_NR + c)))
					printf(" %c=%" PRIu64, letters[c], tiers[i].v[t][c]);
		}
		putchar('\n');
	}
}

static void show_text(const struct cli *cli, const struct lru_snapshot *s,
		      const struct cli_select *sel)
{
	char b1[32], b2[32], b3[32], b4[32], b5[16];
	size_t i, last_memcg = SIZE_MAX;
	uint32_t warned = 0;
	unsigned g;

	printf("%-32s %4s %6s  %-12s %8s %10s %10s\n", "MEMCG", "NODE", "GEN", "BORN", "AGE",
	       "ANON", "FILE");
	for (i = 0; i < s->nr_lruvecs; i++) {
		const struct lru_lruvec *lv = &s->lruvecs[i];
		const struct lru_memcg *m = lru_lruvec_memcg(s, lv);
		char name[33];

		if (!cli_selected(sel, s, lv))
			continue;
		if (lv->memcg != last_memcg) {
			int depth = cli_path_depth(m->path), indent = 0;
			const char *text = m->path[0] ? m->path : "(no memcg)";

			if (!sel->memcg && !sel->have_id) {	/* a tree (none when selecting) */
				indent = 2 * (depth > 8 ? 8 : depth);
				text = depth ? cli_path_leaf(m->path) : m->path[0] ? "/" : text;
			}
			/* escaped, cut at 32 bytes without splitting an escape or a character */
			memset(name, ' ', (size_t)indent);
			lru_esc(name + indent, sizeof(name) - (size_t)indent, text, strlen(text),
				LRU_ESC_TERM);
			printf("%-32s", name);
			last_memcg = lv->memcg;
		} else {
			printf("%-32s", "");
		}
		for (g = 0; g < lv->nr_gens; g++) {
			const struct lru_gen *gen = &lv->gens[g];

			if (g)
				printf("%-32s", "");
			/* a node whose generations are not the truth: "1!" */
			if (!g)
				snprintf(b5, sizeof(b5), "%d%s", lv->node, lv->warnings ? "!" : "");
			printf(" %4s %6" PRIu64 "  %-12s %8s %10s%c %10s%c\n", g ? "" : b5, gen->seq,
			       lru_fmt_clock(gen->birth_ms, b1, sizeof(b1)),
			       lru_fmt_duration(gen->age_ms, b2, sizeof(b2)),
			       lru_fmt_bytes(gen->pages[LRU_ANON] * s->page_size, b3, sizeof(b3)),
			       gen->evicted & 1 ? 'x' : ' ',
			       lru_fmt_bytes(gen->pages[LRU_FILE] * s->page_size, b4, sizeof(b4)),
			       gen->evicted & 2 ? 'x' : ' ');
			if (lv->full && lv->full->has_tiers[g])
				print_tiers(lv->full->tiers[g]);
		}
		warned |= lv->warnings;
	}
	printf("\nbirth times are +/- %u ms; 'x' marks an already evicted type (lru_gen_full)\n",
	       s->birth_error_ms);
	if (s->nr_duplicates)
		printf("%u records repeated by the kernel during the read were dropped\n",
		       s->nr_duplicates);
	if (cli->iface.root_missing)
		printf("%s\n", cli_esc(cli->iface.root_note));
	cli_warning_notes(warned, false, "!");
}

int cmd_show(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		CLI_SELECT_OPTS,
		{ "full", no_argument, NULL, 'f' },
		CLI_COMMON_OPTS,
	};
	struct cli_select sel;
	struct lru_snapshot snap;
	int opt, rc;

	cli_select_init(&sel);
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			cli->full = true;
			break;
		default:
			rc = cli_common_opt(cli, &sel, opt, usage);
			if (rc >= 0)
				return rc;
		}
	}
	if (cli_no_more_args("show", argc, argv))
		return CLI_USAGE;
	rc = cli_setup(cli, cli->setup, &sel, &snap);
	if (!rc) {
		if (cli->json)
			rc = show_json(cli, &snap, &sel);
		else
			show_text(cli, &snap, &sel);
	}
	lru_snapshot_release(&snap);
	return rc;
}
