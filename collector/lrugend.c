/* lrugend - placeholder until its own issue lands: prints usage, exits 2. */
#include <stdio.h>

int main(void)
{
	fputs("usage: lrugend ...\n"
	      "lrugend is not built yet: see the project's open issues\n", stderr);
	return 2;
}
