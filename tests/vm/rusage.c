/*
 * tests/vm/rusage.c - what a program needed: run it, then append its peak
 * resident set and CPU to a file. Built static by tests/vm/lib.sh and run in
 * the guest (bench/peers/wss.sh measures each estimator's memory with it).
 *
 *   rusage OUT PROGRAM [ARG...]
 *
 * Appends "maxrss_kb N utime_ms N stime_ms N" (getrusage of the waited-for
 * child) to OUT and exits with PROGRAM's status (128 + signal if it was
 * killed). Errors: one line "rusage: ..." on stderr, exit 127.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: rusage OUT PROGRAM [ARG...]\n");
		return 127;
	}
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "rusage: fork: %s\n", strerror(errno));
		return 127;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "rusage: cannot run '%s': %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "rusage: wait: %s\n", strerror(errno));
			return 127;
		}
	FILE *out = fopen(argv[1], "a");
	if (!out || fprintf(out, "maxrss_kb %ld utime_ms %ld stime_ms %ld\n", ru.ru_maxrss,
			    ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000,
			    ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000) < 0 ||
	    fclose(out) != 0) {
		fprintf(stderr, "rusage: cannot write '%s': %s\n", argv[1], strerror(errno));
		return 127;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
