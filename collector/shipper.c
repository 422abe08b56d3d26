/* shipper.c - the thread that drains the spool to the store (see shipper.h). */
#include "shipper.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "lru_model.h"

/* a long backlog is sent in rounds of about this long, each ending in a fresh look */
#define ROUND_MS 1000

struct shipper {
	pthread_t thread;
	pthread_mutex_t lock;		/* guards kicked and stop */
	pthread_cond_t wake;
	bool kicked, stop;
	struct ship *ship;
	const struct config *cfg;
	struct lru_spool *sp;
};

/* Wait on the condition until the wall-clock time at_ms (0: no limit). */
static void wait_until(struct shipper *sh, int64_t at_ms)
{
	struct timespec ts;

	if (!at_ms) {
		pthread_cond_wait(&sh->wake, &sh->lock);
		return;
	}
	ts.tv_sec = at_ms / 1000;
	ts.tv_nsec = (long)(at_ms % 1000) * 1000000;
	pthread_cond_timedwait(&sh->wake, &sh->lock, &ts);
}

static void *run(void *arg)
{
	struct shipper *sh = arg;
	int64_t next = lru_now_ms();	/* 0: nothing to send until kicked */

	pthread_mutex_lock(&sh->lock);
	while (!sh->stop) {
		if (!sh->kicked && (!next || lru_now_ms() < next)) {
			wait_until(sh, next);
			continue;
		}
		sh->kicked = false;
		pthread_mutex_unlock(&sh->lock);
		next = ship_run(sh->ship, sh->cfg, sh->sp, lru_now_ms() + ROUND_MS);
		pthread_mutex_lock(&sh->lock);
	}
	pthread_mutex_unlock(&sh->lock);
	return NULL;
}

struct shipper *shipper_start(struct ship *s, const struct config *cfg, struct lru_spool *sp)
{
	struct shipper *sh = calloc(1, sizeof(*sh));
	pthread_condattr_t ca;
	int e;

	if (!sh) {
		log_error("cannot start the shipping thread: out of memory");
		return NULL;
	}
	sh->ship = s;
	sh->cfg = cfg;
	sh->sp = sp;
	pthread_mutex_init(&sh->lock, NULL);
	/* waits are for wall-clock times: ship_run's retry times are lru_now_ms() */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_REALTIME);
	pthread_cond_init(&sh->wake, &ca);
	pthread_condattr_destroy(&ca);
	ship_cancel(s, false);
	e = pthread_create(&sh->thread, NULL, run, sh);
	if (e) {
		log_error("cannot start the shipping thread: %s", strerror(e));
		pthread_cond_destroy(&sh->wake);
		pthread_mutex_destroy(&sh->lock);
		free(sh);
		return NULL;
	}
	return sh;
}

/* Set one of the thread's flags and wake it. */
static void raise_flag(struct shipper *sh, bool *flag)
{
	pthread_mutex_lock(&sh->lock);
	*flag = true;
	pthread_cond_signal(&sh->wake);
	pthread_mutex_unlock(&sh->lock);
}

void shipper_kick(struct shipper *sh)
{
	if (sh)
		raise_flag(sh, &sh->kicked);
}

void shipper_stop(struct shipper *sh)
{
	if (!sh)
		return;
	raise_flag(sh, &sh->stop);
	ship_cancel(sh->ship, true);
	pthread_join(sh->thread, NULL);
	ship_cancel(sh->ship, false);
	pthread_cond_destroy(&sh->wake);
	pthread_mutex_destroy(&sh->lock);
	free(sh);
}
