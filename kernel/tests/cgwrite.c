/*
 * kernel/tests/cgwrite.c - write one string to a file with a single write(2)
 * and say what the kernel answered, for the patched kernel's QEMU scenarios:
 *
 *   cgwrite FILE STRING     prints "ok", or the errno name (EACCES, ESTALE,
 *                           ...) of the failed open(2) or write(2)
 *
 * Exit status: 0 when the write took every byte, 1 when the kernel refused,
 * 2 on a usage error. Built static by kernel/tests/vm.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *errno_name(int err)
{
	static char other[32];

	switch (err) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case ESTALE: return "ESTALE";
	case EBUSY: return "EBUSY";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ERANGE: return "ERANGE";
	case EINTR: return "EINTR";
	case ENOENT: return "ENOENT";
	case ENODEV: return "ENODEV";
	case ENOMEM: return "ENOMEM";
	}
	snprintf(other, sizeof(other), "errno %d", err);
	return other;
}

int main(int argc, char **argv)
{
	ssize_t len, n;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: cgwrite FILE STRING\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		printf("%s\n", errno_name(errno));
		return 1;
	}
	len = (ssize_t)strlen(argv[2]);
	n = write(fd, argv[2], (size_t)len);
	if (n < 0) {
		printf("%s\n", errno_name(errno));
		close(fd);
		return 1;
	}
	close(fd);
	if (n != len) {
		printf("short write %zd of %zd\n", n, len);
		return 1;
	}
	printf("ok\n");
	return 0;
}
