/*
 * bench_tui - lrugen-top's frame time, drawn into a pseudo-terminal.
 *
 *	bench_tui [--size COLSxLINES] LRUGEN_TOP ROOT FRAMES
 *
 * Runs "LRUGEN_TOP --root ROOT --bench-frames FRAMES --bench-out FILE" on
 * the slave side of a pty of that size (default 200x60), with TERM
 * xterm-256color and a UTF-8 locale, and reads the master side until the
 * child exits, as a terminal would: every byte ncurses writes really goes
 * through the pty. lrugen-top times each frame itself (a refresh frame:
 * recompute hot/cold, rebuild and sort the rows, repaint the whole screen;
 * a cursor frame: move the selection) and writes one "key=value" line,
 * which is printed here with the bytes the terminal received.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int usage(void)
{
	fputs("usage: bench_tui [--size COLSxLINES] LRUGEN_TOP ROOT FRAMES\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	struct winsize ws = { .ws_row = 60, .ws_col = 200 };
	char out[] = "/tmp/bench_tui.XXXXXX", line[1024], buf[65536];
	unsigned long long bytes = 0;
	int fd, master, status, i = 1;
	unsigned cols, lines;
	FILE *f;
	pid_t pid;
	ssize_t n;

	if (argc > 2 && !strcmp(argv[1], "--size")) {
		if (sscanf(argv[2], "%ux%u", &cols, &lines) != 2 || cols < 20 || lines < 10)
			return usage();
		ws.ws_col = (unsigned short)cols;
		ws.ws_row = (unsigned short)lines;
		i = 3;
	}
	if (argc - i != 3)
		return usage();
	fd = mkstemp(out);
	if (fd < 0) {
		perror("bench_tui: mkstemp");
		return 1;
	}
	close(fd);
	pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0) {
		perror("bench_tui: forkpty");
		return 1;
	}
	if (!pid) {
		setenv("TERM", "xterm-256color", 1);
		setenv("LC_ALL", "C.UTF-8", 1);
		execl(argv[i], argv[i], "--root", argv[i + 1], "--bench-frames", argv[i + 2],
		      "--bench-out", out, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		n = read(master, buf, sizeof(buf));
		if (n > 0) {
			bytes += (unsigned long long)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		break;	/* EIO: the child closed the slave side */
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench_tui: %s failed (status %d)\n", argv[i], status);
		unlink(out);
		return 1;
	}
	f = fopen(out, "r");
	if (!f || !fgets(line, sizeof(line), f)) {
		fprintf(stderr, "bench_tui: no result from %s\n", argv[i]);
		unlink(out);
		return 1;
	}
	fclose(f);
	unlink(out);
	line[strcspn(line, "\n")] = '\0';
	printf("%s pty_bytes=%llu\n", line, bytes);
	return 0;
}
