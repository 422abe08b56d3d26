/* lrugen-top - placeholder until its own issue lands: prints usage, exits 2. */
#include <stdio.h>

int main(void)
{
	fputs("usage: lrugen-top ...\n"
	      "lrugen-top is not built yet: see the project's open issues\n", stderr);
	return 2;
}
