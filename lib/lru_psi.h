/*
 * lru_psi.h - pressure stall information (PSI).
 *
 * /proc/pressure/{memory,io,cpu} and a cgroup's memory.pressure read
 *
 *	some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *
 * "some" is the share of time (percent) at least one task stalled on the
 * resource, "full" the share all non-idle tasks did; totals are microseconds.
 * /proc/pressure/cpu has no "full" line before 5.13. A kernel without PSI
 * (CONFIG_PSI=n, or psi=0 on the command line) has no such files: LRU_ENOENT
 * or, for psi=0, LRU_ENOTSUP when reading fails with EOPNOTSUPP.
 */
#ifndef LRU_PSI_H
#define LRU_PSI_H

#include <stdbool.h>
#include <stdint.h>

#include "lru_err.h"

#define LRU_PATH_PSI_MEMORY "/proc/pressure/memory"
#define LRU_PATH_PSI_IO "/proc/pressure/io"

struct lru_psi_line {
	double avg10, avg60, avg300;	/* percent */
	uint64_t total_us;
};

struct lru_psi {
	struct lru_psi_line some, full;
	bool has_full;
};

/* Parse PSI text; LRU_EPARSE without a well-formed "some" line. */
enum lru_err lru_psi_parse(const char *text, struct lru_psi *psi, struct lru_error *err);

/* Read and parse ROOT/abs (LRU_PATH_PSI_MEMORY, LRU_PATH_PSI_IO...). */
enum lru_err lru_psi_read(const char *root, const char *abs, struct lru_psi *psi,
			  struct lru_error *err);

#endif
