/* lrugen - placeholder until its own issue lands: prints usage, exits 2. */
#include <stdio.h>

int main(void)
{
	fputs("usage: lrugen ...\n"
	      "lrugen is not built yet: see the project's open issues\n", stderr);
	return 2;
}
