/*
 * auth.h - bearer tokens: SHA-256 hashing and constant-time lookup.
 *
 * The config holds SHA-256 hashes of tokens, never tokens. A request's
 * "Authorization: Bearer TOKEN" is hashed and compared with every
 * configured hash in constant time (CRYPTO_memcmp, no early exit), so
 * neither a match's position nor a partial match shows in the timing.
 */
#ifndef STORE_AUTH_H
#define STORE_AUTH_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"

/* Hex SHA-256 of len bytes of token into out (65 bytes with the NUL). */
void auth_hash_hex(const char *token, size_t len, char out[65]);

/*
 * The token an Authorization header value names, or NULL (missing header,
 * another scheme, unknown token).
 */
const struct store_token *auth_lookup(const struct store_token *tokens, size_t nr,
				      const char *authorization);

/* May this token write snapshots of host? */
bool auth_may_ingest(const struct store_token *t, const char *host);

#endif
