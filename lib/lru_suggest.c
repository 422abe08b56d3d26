/*
 * lru_suggest.c - the known name closest to a mistyped one (lru_suggest.h).
 */
#include "lru_suggest.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#define WORD_MAX 64	/* longer words are not typos of a command */

unsigned lru_suggest_distance(const char *a, const char *b)
{
	/* three rows of the dynamic programme: i-2, i-1, i */
	unsigned rows[3][WORD_MAX + 1], *d2 = rows[0], *d1 = rows[1], *d = rows[2], *t;
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > WORD_MAX || lb > WORD_MAX)
		return 255;
	for (j = 0; j <= lb; j++)
		d1[j] = (unsigned)j;
	for (i = 1; i <= la; i++) {
		d[0] = (unsigned)i;
		for (j = 1; j <= lb; j++) {
			unsigned cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			unsigned v = d1[j] + 1;

			if (d[j - 1] + 1 < v)
				v = d[j - 1] + 1;
			if (d1[j - 1] + cost < v)
				v = d1[j - 1] + cost;
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    d2[j - 2] + 1 < v)
				v = d2[j - 2] + 1;
			d[j] = v;
		}
		t = d2, d2 = d1, d1 = d, d = t;
	}
	return d1[lb] > 255 ? 255 : d1[lb];
}

const char *lru_suggest(const char *word, const char *const *names, size_t n)
{
	size_t len = strlen(word);
	unsigned best = 255, max = len <= 3 ? 1 : 2;
	const char *pick = NULL;

	for (size_t i = 0; i < n; i++) {
		unsigned dist = lru_suggest_distance(word, names[i]);

		if (len >= 2 && len < strlen(names[i]) && !strncasecmp(word, names[i], len))
			dist = dist < max ? dist : max;	/* a prefix: as close as a typo */
		if (dist <= max && dist < best) {
			best = dist;
			pick = names[i];
		}
	}
	return pick;
}
