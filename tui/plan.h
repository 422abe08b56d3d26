/*
 * plan.h - lrugen-top's age and evict plan: the commands built for the
 * selected row, the confirmation text that shows them, and their writes.
 *
 * 'a' and 'e' (keys.c) build a plan with plan_age() or plan_evict(); the
 * dialog (draw.c) shows plan_lines(); 'y' calls plan_write(). Every function
 * reports failures in the status bar (top_message) and returns false then.
 * The plan lives in struct top (t->plan); plan_release() frees its commands.
 */
#ifndef TOP_PLAN_H
#define TOP_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lru_cmd.h"

struct top;

struct top_plan_cmd {		/* one command and where it goes */
	struct lru_cmd cmd;
	char *memcg;		/* the memcg's path: its lruvec is found again to write */
	char *file;		/* root-relative kernel file (top_source_cmd_file) */
};

struct top_plan {		/* commands waiting for 'y' */
	char op;		/* '+' or '-' */
	struct top_plan_cmd *cmds;
	size_t nr;
	uint64_t bytes;
	char what[160];		/* "/jobs/web node 1" */
	uint64_t older_than_ms;
};

/*
 * May the selected row be aged or evicted? Not with --readonly, in replay or
 * fleet mode, nor under a fixture root where a file its commands go to
 * (debugfs lru_gen, or each memcg's memory.lru_gen) is a regular file.
 */
bool plan_writable(struct top *t);

/* One '+' per lruvec of the selected row; true when the plan is ready to confirm. */
bool plan_age(struct top *t);

/*
 * One '-' per lruvec of the selected row for what is idle longer than
 * older_than (a duration as typed: "10m"); true when ready to confirm.
 */
bool plan_evict(struct top *t, const char *older_than);

/*
 * The confirmation: what, then each command after the root-relative file it
 * goes to ("/sys/fs/cgroup/jobs/web/memory.lru_gen: + N1 7 1 1",
 * "/sys/kernel/debug/lru_gen: + 3 1 7 1 1"), then the bytes; at most max
 * lines of at most 127 characters. Returns the number of lines.
 */
size_t plan_lines(const struct top *t, char lines[][128], size_t max);

/*
 * Write each command, one write(2) each, to the file lru_kwrite_lruvec()
 * picks for its lruvec in the frame shown (the memcg's memory.lru_gen, or
 * debugfs lru_gen), as lrugen does. The first failure stops the rest; the
 * outcome goes to the status bar.
 */
void plan_write(struct top *t);

/* Free the plan's commands (the plan stays usable, empty). */
void plan_release(struct top_plan *p);

#endif
