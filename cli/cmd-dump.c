/* cmd-dump.c - lrugen dump: what lrugend recorded (a SnapshotBatch file or a spool) as JSON. */
#include "cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lru_record.h"
#include "lru_snapjson.h"
#include "lru_units.h"

static const char usage[] =
	"usage: lrugen dump [--summary] FILE|DIR|-\n"
	"\n"
	"Print what lrugend recorded, decoded as lrugen-store decodes it: a\n"
	"SnapshotBatch file ('lrugend --once --output FILE'), '-' for standard input,\n"
	"or a collector spool directory (the snapshots not yet acknowledged by the\n"
	"store, oldest first; read from a private copy, so a running lrugend is not\n"
	"disturbed). Output: one JSON array of snapshots, the protobuf's fields by name\n"
	"(proto/lrugen.proto): host, seq, taken_at_ms, nodes, lruvecs with their\n"
	"generations (seq, age_ms, birth_ms, anon_pages, file_pages), memcg_stats.\n"
	"\n"
	"  --summary   one line per snapshot instead: host, seq, when it was taken,\n"
	"              lruvecs, memcgs and the bytes in their generations\n"
	"\n"
	"Examples:\n"
	"  lrugend --once --output /tmp/now.pb && lrugen dump /tmp/now.pb | jq '.[0].lruvecs | length'\n"
	"  lrugen dump --summary /var/spool/lrugend     # what waits to be sent\n"
	"  curl -s -H \"Authorization: Bearer $(cat read.token)\" $LRUGEN_STORE/v1/latest | lrugen dump -\n"
	"\n"
	"A spool's counters (records, bytes, torn regions skipped) go to stderr. Exit:\n"
	"0, 1 a batch does not decode (named), 2 bad command line or no such file.\n";

static int summary(const json_t *arr)
{
	size_t i;
	json_t *s;

	printf("%-24s %13s  %-23s %7s %7s %12s\n", "HOST", "SEQ", "TAKEN (UTC)", "LRUVECS", "MEMCGS",
	       "IN GENS");
	json_array_foreach(arr, i, s) {
		uint64_t page = (uint64_t)json_integer_value(json_object_get(s, "page_size"));
		int64_t taken = json_integer_value(json_object_get(s, "taken_at_ms"));
		const json_t *lvs = json_object_get(s, "lruvecs"), *lv, *g;
		const char *host = json_string_value(json_object_get(s, "host"));
		uint64_t bytes = 0, memcgs = 0;
		char when[32], b[32], prev[4096] = "";
		time_t t = (time_t)(taken / 1000);
		size_t j, k;
		struct tm tm;

		json_array_foreach(lvs, j, lv) {
			const char *m = json_string_value(json_object_get(lv, "memcg"));

			if (m && strcmp(m, prev)) {	/* a snapshot's lruvecs come by memcg */
				memcgs++;
				snprintf(prev, sizeof(prev), "%s", m);
			}
			json_array_foreach(json_object_get(lv, "generations"), k, g)
				bytes += ((uint64_t)json_integer_value(json_object_get(g, "anon_pages")) +
					  (uint64_t)json_integer_value(json_object_get(g, "file_pages"))) *
					 (page ? page : 4096);
		}
		if (!gmtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm))
			snprintf(when, sizeof(when), "%" PRId64, taken);
		printf("%-24s %13" PRId64 "  %-23s %7zu %7" PRIu64 " %12s\n",
		       host ? cli_esc(host) : "(none)",
		       (int64_t)json_integer_value(json_object_get(s, "seq")),
		       when, json_array_size(lvs), memcgs, lru_fmt_bytes(bytes, b, sizeof(b)));
	}
	return CLI_OK;
}

int cmd_dump(struct cli *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "summary", no_argument, NULL, 'S' },
		CLI_COMMON_OPTS,
	};
	struct lru_spool_stats st;
	struct lru_error err;
	bool sum = false;
	const char *path;
	json_t *arr;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (opt == 'S') {
			sum = true;
			continue;
		}
		rc = cli_common_opt(cli, NULL, opt, usage);
		if (rc >= 0)
			return rc;
	}
	if (optind >= argc) {
		cli_err("dump: which recording? a SnapshotBatch file, a spool directory or -");
		return cli_usage(usage, true);
	}
	path = argv[optind++];
	if (cli_no_more_args("dump", argc, argv))
		return CLI_USAGE;
	if (sum && cli->json) {
		cli_err("dump: --summary or --json, not both");
		return CLI_USAGE;
	}
	lru_error_clear(&err);
	if ((rc = lru_record_json(path, &arr, &st, &err))) {
		cli_err("dump: %s", err.msg);
		return rc == LRU_ENOENT ? CLI_USAGE : CLI_FAIL;
	}
	if (lru_record_is_spool(path))
		fprintf(stderr, "lrugen: dump: spool '%s': %" PRIu64 " records, %" PRIu64 " bytes, %"
			PRIu64 " torn regions skipped\n", cli_esc(path), st.records, st.bytes, st.torn);
	if (sum) {
		rc = summary(arr);
		json_decref(arr);
		return rc;
	}
	return cli_json_out(arr);
}
