#include "auth.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

void auth_hash_hex(const char *token, size_t len, char out[65])
{
	uint8_t md[SHA256_DIGEST_LENGTH];

	SHA256((const unsigned char *)token, len, md);
	for (int i = 0; i < SHA256_DIGEST_LENGTH; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
	OPENSSL_cleanse(md, sizeof(md));
}

const struct store_token *auth_lookup(const struct store_token *tokens, size_t nr,
				      const char *authorization)
{
	const struct store_token *found = NULL;
	uint8_t md[SHA256_DIGEST_LENGTH];
	const char *tok;
	size_t len;

	if (!authorization || strncasecmp(authorization, "Bearer ", 7))
		return NULL;
	tok = authorization + 7;
	tok += strspn(tok, " ");
	len = strcspn(tok, " \t\r\n");
	if (!len)
		return NULL;
	SHA256((const unsigned char *)tok, len, md);
	for (size_t i = 0; i < nr; i++)
		if (!CRYPTO_memcmp(md, tokens[i].hash, sizeof(md)) && !found)
			found = &tokens[i];
	OPENSSL_cleanse(md, sizeof(md));
	return found;
}

bool auth_may_ingest(const struct store_token *t, const char *host)
{
	if (!(t->role & ROLE_INGEST))
		return false;
	return t->role == ROLE_ADMIN || !t->host || !strcmp(t->host, host);
}
