/*
 * abuse - hostile clients for lrugen-store's hardening tests (loopback only).
 *
 *	abuse conns PORT N [SRC]
 *		open N TCP connections to 127.0.0.1:PORT from address SRC
 *		(default 127.0.0.1; any 127.x.y.z is local), send nothing, and
 *		print "held K" once the server had a second to close the ones it
 *		refuses (K: those still open). Hold them until standard input
 *		closes, then print "held K" again and exit.
 *	abuse post PORT N FILE TOKEN
 *		N concurrent POST /v1/snapshots of FILE (a SnapshotBatch) from N
 *		threads; print each status's count ("200 7", "503 17") and
 *		"retry-after K" (503s that said when to retry).
 *	abuse post-held PORT N FILE TOKEN
 *		the same, but each body's last byte is held back: once every
 *		thread sent the rest (or was answered early), print "sent N"
 *		and hold until standard input closes; then send the last bytes
 *		and print the counts as post does. The store holds every body it
 *		took while a test asks something else.
 *	abuse unread PORT N PATH TOKEN
 *		N GETs of PATH whose answers are never read (the smallest
 *		receive buffer); print "sent N", hold until standard input
 *		closes.
 *
 * Exit 0, or 1 with a message on a setup error (a refused or reset
 * connection is the server's answer, not an error).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "abuse"
#include "tool_die.h"

static unsigned short port;

/* A connection to 127.0.0.1:port from src (NULL: any), or -1. */
static int dial(const char *src, int rcvbuf)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (src) {
		struct sockaddr_in s = { .sin_family = AF_INET };

		inet_pton(AF_INET, src, &s.sin_addr);
		if (bind(fd, (struct sockaddr *)&s, sizeof(s)))
			die("cannot bind to %s: %s", src, strerror(errno));
	}
	a.sin_port = htons(port);
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void raise_nofile(size_t n)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < n + 64) {
		rl.rlim_cur = rl.rlim_max < n + 64 ? rl.rlim_max : n + 64;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Connections the server has not closed (poll: readable at EOF = closed). */
static size_t still_open(const int *fds, size_t n)
{
	size_t open = 0;

	for (size_t i = 0; i < n; i++) {
		struct pollfd p = { fds[i], POLLIN, 0 };
		char c;

		if (fds[i] < 0)
			continue;
		if (poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP | POLLERR)) &&
		    recv(fds[i], &c, 1, MSG_DONTWAIT | MSG_PEEK) <= 0)
			continue;
		open++;
	}
	return open;
}

static void wait_stdin(void)
{
	char buf[64];

	while (read(0, buf, sizeof(buf)) > 0)
		;
}

static int conns(size_t n, const char *src)
{
	int *fds = calloc(n, sizeof(*fds));

	if (!fds)
		die("out of memory");
	raise_nofile(n);
	for (size_t i = 0; i < n; i++)
		fds[i] = dial(src, 0);
	sleep(1);	/* the server closes what it refuses at once: give it a second */
	printf("held %zu\n", still_open(fds, n));
	fflush(stdout);
	wait_stdin();
	printf("held %zu\n", still_open(fds, n));
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return 0;
}

struct post {
	pthread_t t;
	const char *body, *token;
	size_t len;
	int status, retry_after;
};

/* post-held: threads that sent all but their last byte, and the word to send it */
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t held_cond = PTHREAD_COND_INITIALIZER;
static size_t held_ready;
static bool hold_last, held_release;

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w <= 0)
			return;	/* the server answered early and closed */
		p += w;
		n -= (size_t)w;
	}
}

/* post-held: count this thread as ready, and wait for the word to send the last byte */
static void held_wait(void)
{
	if (!hold_last)
		return;
	pthread_mutex_lock(&held_lock);
	held_ready++;
	pthread_cond_broadcast(&held_cond);
	while (!held_release)
		pthread_cond_wait(&held_cond, &held_lock);
	pthread_mutex_unlock(&held_lock);
}

static void *post_one(void *arg)
{
	struct post *p = arg;
	char head[512], resp[4096];
	size_t got = 0;
	ssize_t r;
	int fd = dial(NULL, 0);

	if (fd < 0) {
		held_wait();
		return NULL;
	}
	snprintf(head, sizeof(head), "POST /v1/snapshots HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Authorization: Bearer %s\r\nContent-Type: application/x-protobuf\r\n"
		 "Content-Length: %zu\r\nConnection: close\r\n\r\n", p->token, p->len);
	send_all(fd, head, strlen(head));
	send_all(fd, p->body, p->len - hold_last);
	held_wait();
	if (hold_last)
		send_all(fd, p->body + p->len - 1, 1);
	while (got < sizeof(resp) - 1 && (r = recv(fd, resp + got, sizeof(resp) - 1 - got, 0)) > 0)
		got += (size_t)r;
	resp[got] = '\0';
	sscanf(resp, "HTTP/1.%*d %d", &p->status);
	p->retry_after = strstr(resp, "Retry-After: ") != NULL;
	close(fd);
	return NULL;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *b;

	if (!f || fstat(fileno(f), &st))
		die("cannot read %s: %s", path, strerror(errno));
	b = malloc((size_t)st.st_size + 1);
	if (!b || fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		die("cannot read %s", path);
	fclose(f);
	*len = (size_t)st.st_size;
	return b;
}

static int post(size_t n, const char *file, const char *token)
{
	struct post *ps = calloc(n, sizeof(*ps));
	int statuses[8] = { 0 }, counts[8] = { 0 }, nst = 0, retry = 0;
	size_t len;
	char *body = slurp(file, &len);

	if (!ps)
		die("out of memory");
	if (hold_last && !len)
		die("post-held: %s is empty", file);
	raise_nofile(n);
	for (size_t i = 0; i < n; i++) {
		ps[i] = (struct post){ .body = body, .len = len, .token = token };
		if (pthread_create(&ps[i].t, NULL, post_one, &ps[i]))
			die("cannot start a thread");
	}
	if (hold_last) {
		pthread_mutex_lock(&held_lock);
		while (held_ready < n)
			pthread_cond_wait(&held_cond, &held_lock);
		pthread_mutex_unlock(&held_lock);
		printf("sent %zu\n", n);
		fflush(stdout);
		wait_stdin();
		pthread_mutex_lock(&held_lock);
		held_release = true;
		pthread_cond_broadcast(&held_cond);
		pthread_mutex_unlock(&held_lock);
	}
	for (size_t i = 0; i < n; i++) {
		int k;

		pthread_join(ps[i].t, NULL);
		retry += ps[i].status == 503 && ps[i].retry_after;
		for (k = 0; k < nst && statuses[k] != ps[i].status; k++)
			;
		if (k == nst && nst < 8)
			statuses[nst++] = ps[i].status;
		if (k < 8)
			counts[k]++;
	}
	for (int k = 0; k < nst; k++)
		printf("%d %d\n", statuses[k], counts[k]);
	printf("retry-after %d\n", retry);
	free(ps);
	free(body);
	return 0;
}

static int unread(size_t n, const char *path, const char *token)
{
	char req[1024];
	size_t sent = 0;

	raise_nofile(n);
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
		 "Authorization: Bearer %s\r\n\r\n", path, token);
	for (size_t i = 0; i < n; i++) {
		int fd = dial(NULL, 1024);

		if (fd < 0)
			continue;
		send_all(fd, req, strlen(req));
		sent++;
	}
	printf("sent %zu\n", sent);
	fflush(stdout);
	wait_stdin();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		die("usage: abuse conns PORT N [SRC] | post|post-held PORT N FILE TOKEN | "
		    "unread PORT N PATH TOKEN");
	port = (unsigned short)atoi(argv[2]);
	if (!strcmp(argv[1], "conns"))
		return conns(strtoul(argv[3], NULL, 10), argc > 4 ? argv[4] : NULL);
	hold_last = !strcmp(argv[1], "post-held");
	if ((hold_last || !strcmp(argv[1], "post")) && argc == 6)
		return post(strtoul(argv[3], NULL, 10), argv[4], argv[5]);
	if (!strcmp(argv[1], "unread") && argc == 6)
		return unread(strtoul(argv[3], NULL, 10), argv[4], argv[5]);
	die("abuse: unknown mode or arguments (see the comment at the top of abuse.c)");
}
