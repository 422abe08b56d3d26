/*
 * shipper.h - the shipping thread: drains the spool to the store with a
 * ship (ship.h), on its own schedule, so that a send that hangs for up to
 * `timeout` never delays aging, snapshots or the /metrics model.
 *
 * The spool is the hand-off: the main loop appends a snapshot (durable)
 * and kicks the shipper; the thread sends from the spool's head and
 * consumes what the store acknowledged (the spool is safe for one appending
 * and one consuming thread, see lru_spool.h). A kick while backing off
 * changes nothing: the next attempt waits for the backoff, as ship_run()
 * decides. Shared state: the kick and stop flags under the shipper's mutex;
 * the ship's counters under the ship's own (read them with ship_stats()).
 *
 * The config, spool and ship given to shipper_start() belong to the thread
 * until shipper_stop() returns: the caller must not change or free them
 * meanwhile (a reload stops the shipper, changes them, starts a new one).
 */
#ifndef SHIPPER_H
#define SHIPPER_H

#include "config.h"
#include "lru_spool.h"
#include "ship.h"

struct shipper;

/* Start the thread; it ships what is spooled at once. NULL after logging why not. */
struct shipper *shipper_start(struct ship *s, const struct config *cfg, struct lru_spool *sp);

/* A snapshot was spooled: ship now, unless backing off. */
void shipper_kick(struct shipper *sh);

/*
 * Stop the thread and free the shipper: a send in flight is abandoned within
 * about a second (its snapshots stay spooled; one acknowledged meanwhile is
 * consumed first). NULL is a no-op.
 */
void shipper_stop(struct shipper *sh);

#endif
