/* hours.c - sets of hours (hours.h). */
#include "hours.h"

#include <stdlib.h>
#include <string.h>

int hours_add(struct hours *s, int64_t h)
{
	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 32;
		int64_t *v = realloc(s->v, alloc * sizeof(*v));

		if (!v)
			return -1;
		s->v = v;
		s->alloc = alloc;
	}
	s->v[s->n++] = h;
	return 0;
}

static int cmp_hour(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

size_t hours_sort(struct hours *s)
{
	size_t n = 0;

	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), cmp_hour);
	for (size_t i = 0; i < s->n; i++)
		if (!n || s->v[i] != s->v[n - 1])
			s->v[n++] = s->v[i];
	return s->n = n;
}

void hours_release(struct hours *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
